"""``resource.Quantity.String()`` boundaries, worked from apimachinery's
``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`` (``CanonicalizeBytes``,
``ParseQuantity``) and ``amount.go`` (``int64Amount.AsCanonicalBytes``,
``AsCanonicalBase1024Bytes``)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubepreempt.admission.goquantity import format_quantity, is_binary


@pytest.mark.parametrize(("value", "text"), [
    # CanonicalizeBytes keeps BinarySI unless -1024 < q < 1024: exactly 1024 is "1Ki".
    (Fraction(1024), "1Ki"), (Fraction(-1024), "-1Ki"), (Fraction(1023), "1023"),
    (Fraction(1025), "1025"), (Fraction(3 * 1024 ** 6), "3Ei"),
    # a whole value of at least 1024 with a fraction is not exact at scale 0: DecimalSI
    (Fraction(2049, 2), "1024500m"),
])
def test_binary_si_bounds(value: Fraction, text: str) -> None:
    """``CanonicalizeBytes``: ``q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0`` prints
    DecimalSI, so 1024 itself is the first value written ``1Ki``."""
    assert format_quantity(value, True) == text


def test_default_format_is_decimal() -> None:
    """Without a format the figure prints DecimalSI (the quota controller's sums start from
    a ``DecimalSI`` zero, ``CalculateUsageStats``): 2048 is ``2048``, not ``2Ki``."""
    assert format_quantity(Fraction(2048)) == "2048"


@pytest.mark.parametrize(("value", "text"), [
    # ParseQuantity rounds a non-zero amount up to nano (amount.Round(Nano, RoundUp)):
    # 1.0000000001 is 1.000000001 = 1000000001n.
    (Fraction(10 ** 10 + 1, 10 ** 10), "1000000001n"),
    (Fraction(1, 3), "333333334n"),
    (Fraction(1, 10 ** 9), "1n"), (Fraction(1, 10 ** 6), "1u"),
    (Fraction(12, 10 ** 8), "120n"),
])
def test_decimal_rounds_up_to_nano(value: Fraction, text: str) -> None:
    """Sub-nano precision never prints: the value is rounded up to a whole number of
    nano and the exponent moved to a multiple of three (``AsCanonicalBytes``)."""
    assert format_quantity(value) == text


@pytest.mark.parametrize(("text", "binary"), [
    ("1Ki", True), ("2Mi", True), ("3Gi", True), ("4Ti", True), ("5Pi", True), ("6Ei", True),
    ("1Gi ", True), ("1G", False), ("1k", False), ("1024", False),
    (1024, False), (None, False),
])
def test_written_format(text: object, binary: bool) -> None:
    """A quantity written with a Ki..Ei suffix has format BinarySI (``ParseQuantity``:
    ``quantitySuffixer.interpret`` gives ``BinarySI`` for the base-2 suffixes only)."""
    assert is_binary(text) is binary


@pytest.mark.parametrize(("value", "binary", "text"), [
    (Fraction(10 ** 18), False, "1E"), (Fraction(999 * 10 ** 18), False, "999E"),
    (Fraction(1500 * 10 ** 18), False, "1500E"),
    # 10^21: exponent 21 has no DecimalSI suffix, so the mantissa prints alone
    (Fraction(10 ** 21), False, "1"), (Fraction(2 * 10 ** 24), False, "2"),
    (Fraction(1024 ** 6), True, "1Ei"), (Fraction(1024 ** 7), True, "1"),
    (Fraction(3 * 1024 ** 8), True, "3"),
])
def test_past_the_largest_suffix(value: Fraction, binary: bool, text: str) -> None:
    """``CanonicalizeBytes`` beyond int64: ``infDecAmount.AsCanonicalBytes`` moves every
    factor of ten into the exponent and ``AsCanonicalBase1024Bytes`` every factor of 1024
    (``removeBigIntFactors``, no cap); ``suffixHandler.constructBytes`` knows no suffix
    past ``E`` (10^18) or ``Ei`` (2^60), returns none, and ``String()`` prints the
    mantissa alone."""
    assert format_quantity(value, binary) == text
