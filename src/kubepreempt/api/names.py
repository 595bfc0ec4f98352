"""Object names as users type them: ``NAME`` or ``NAMESPACE/NAME``, and typo hints."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from kubepreempt.api.errors import InputError

#: The namespace of a bare NAME, as kubectl's.
DEFAULT_NAMESPACE = "default"


def object_key(value: str, namespace: str | None, option: str = "--pod") -> str:
    """``NAMESPACE/NAME`` from ``NAME`` (in ``namespace``) or ``NAMESPACE/NAME``."""
    parts = value.split("/")
    if len(parts) > 2 or not all(parts):
        raise InputError(f"{option} {value}: expected NAME or NAMESPACE/NAME")
    if len(parts) == 2:
        return value
    return f"{namespace or DEFAULT_NAMESPACE}/{value}"


def did_you_mean(key: str, keys: Iterable[str]) -> str:
    """`` (did you mean a/b?)`` naming the closest keys, or ``""`` when none is close.

    The same name in another namespace comes first: forgetting the namespace is the
    commonest slip.
    """
    keys = sorted(set(keys))
    name = key.rsplit("/", 1)[-1]
    same_name = [k for k in keys if k.rsplit("/", 1)[-1] == name and k != key]
    # Names only: a shared "namespace/" prefix would make unrelated keys look close.
    names = {k.rsplit("/", 1)[-1]: k for k in keys}
    close = [names[n] for n in difflib.get_close_matches(name, list(names), n=3, cutoff=0.75)]
    picks = list(dict.fromkeys(same_name + close))[:3]
    return f" (did you mean {' or '.join(picks)}?)" if picks else ""
