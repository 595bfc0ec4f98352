"""Quantity parsing: Kubernetes' grammar and rounding (apimachinery resource.Quantity)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubepreempt.api.quantity import QuantityError, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    ("text", "milli", "val"),
    [
        ("100m", 100, 1),  # Value() rounds up
        ("0.5", 500, 1),
        ("1", 1000, 1),
        ("1e3", 1_000_000, 1000),
        ("1E3", 1_000_000, 1000),
        ("128974848", 128974848000, 128974848),
        ("129M", 129_000_000_000, 129_000_000),
        ("123Mi", 128974848000, 128974848),
        ("1Gi", (1 << 30) * 1000, 1 << 30),
        ("1G", 10**12, 10**9),
        ("500Ki", 512_000_000, 512_000),
        ("1E", 10**21, 10**18),  # E alone is exa, not an exponent
        ("1u", 1, 1),  # MilliValue rounds 0.001 milli up to 1
        ("100n", 1, 1),
        ("1.5", 1500, 2),
        (".5", 500, 1),
        ("+2", 2000, 2),
        ("1k", 1_000_000, 1000),
    ],
)
def test_upstream_quantities(text: str, milli: int, val: int | None) -> None:
    assert milli_value(text) == milli
    if val is not None:
        assert value(text) == val


@pytest.mark.parametrize("bad", ["", "1K", "1 Gi", "Gi", "1.2.3", "abc", "1ki", "--1", "1e",
                                 "0x10", "1Mb"])
def test_rejects_what_kubernetes_rejects(bad: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)


SUFFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 1 << 10,
            "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "m": Fraction(1, 1000)}


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(sorted(SUFFIXES)))
def test_integer_with_suffix_is_exact(number: int, suffix: str) -> None:
    exact = number * SUFFIXES[suffix]
    if suffix.endswith("i"):  # ParseQuantity caps binary-suffixed amounts at int64's maximum
        exact = min(exact, (1 << 63) - 1)
    assert parse_quantity(f"{number}{suffix}") == exact


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=999))
def test_decimal_fraction_rounds_up(whole: int, frac: int) -> None:
    text = f"{whole}.{frac:03d}"
    exact = Fraction(whole) + Fraction(frac, 1000)
    assert milli_value(text) == whole * 1000 + frac
    assert value(text) == (whole + (1 if frac else 0))
    assert parse_quantity(text) == exact


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=-3, max_value=6))
def test_exponent_form(mantissa: int, exp: int) -> None:
    assert parse_quantity(f"{mantissa}e{exp}") == mantissa * Fraction(10) ** exp


def test_resource_list_remembers_content_but_hands_out_fresh_dicts() -> None:
    from kubepreempt.api.quantity import resource_list

    first = resource_list({"cpu": "2", "memory": "1Gi"}, "status.allocatable")
    assert first == {"cpu": 2000, "memory": 1 << 30}
    first["cpu"] = 1  # a caller's edit does not reach the next node of that shape
    assert resource_list({"cpu": "2", "memory": "1Gi"}, "x") == {"cpu": 2000,
                                                                  "memory": 1 << 30}
    with pytest.raises(ValueError, match="x.cpu"):  # bad content is never remembered
        resource_list({"cpu": "two"}, "x")
    with pytest.raises(ValueError, match="x.cpu"):
        resource_list({"cpu": "two"}, "x")
