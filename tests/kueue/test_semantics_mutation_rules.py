"""``--kueue-version``: the names each modelled Kueue release answers to, and the one-line
error for any other (:func:`kubepreempt.kueue.semantics.semantics_for`)."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.kueue.semantics import CURRENT, SEMANTICS, V0_7, V0_20, semantics_for


@pytest.mark.parametrize(("name", "release"), [
    ("", V0_20), ("current", V0_20), ("latest", V0_20), ("0.20", V0_20), ("v0.20", V0_20),
    ("v0.7", V0_7), ("0.7", V0_7)])
def test_every_alias_names_its_release(name: str, release: str) -> None:
    got = semantics_for(name)
    assert got is SEMANTICS[release]
    assert got.version == release


def test_the_default_release_is_kueue_0_20() -> None:
    assert CURRENT == V0_20
    assert semantics_for(CURRENT).native_api_version == "v1beta2"
    assert semantics_for(V0_7).native_api_version == "v1beta1"


def test_an_unknown_release_is_a_one_line_error_listing_the_known_ones() -> None:
    with pytest.raises(InputError) as err:
        semantics_for("v0.9")
    assert str(err.value) == ("--kueue-version 'v0.9' is not one of ['0.20', 'v0.7'] "
                              "(current is 0.20)")
