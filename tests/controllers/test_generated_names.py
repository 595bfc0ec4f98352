"""The stand-ins for ``generateName``'s random suffixes (module docstring): the suffix of
the n-th name drawn for a base in a namespace is 5 characters of ``ALPHANUMS`` picked by
the first 5 bytes of SHA-256 of ``seed/namespace/base/n`` (n from 0); a name that is
taken is skipped, as the API server refuses it and the controller retries."""

from __future__ import annotations

import hashlib

from kubepreempt.controllers.expand import ALPHANUMS, Names


def drawn(seed: int, namespace: str, base: str, n: int) -> str:
    digest = hashlib.sha256(f"{seed}/{namespace}/{base}/{n}".encode()).digest()
    return base + "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in digest[:5])


def test_names_are_drawn_in_order_and_taken_in_their_namespace() -> None:
    names = Names(seed=3)
    assert names.generate("shop", "web-") == drawn(3, "shop", "web-", 0)
    assert names.generate("shop", "web-") == drawn(3, "shop", "web-", 1)
    assert names.generate("team", "web-") == drawn(3, "team", "web-", 0)
    assert not names.claim("shop", drawn(3, "shop", "web-", 0))


def test_a_taken_name_is_skipped() -> None:
    names = Names(seed=3, taken={f"shop/{drawn(3, 'shop', 'web-', 0)}"})
    assert names.generate("shop", "web-") == drawn(3, "shop", "web-", 1)
