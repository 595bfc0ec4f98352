"""``resource.Quantity.String()`` for the quota admission messages.

apimachinery prints a quantity in its format: ``BinarySI`` (written with Ki/Mi/Gi...) as a
power-of-1024 suffix when the value is a whole number of at least 1024 in magnitude,
otherwise ``DecimalSI`` with the mantissa scaled so the exponent is a multiple of three
(``CanonicalizeBytes``, ``AsCanonicalBytes``, ``AsCanonicalBase1024Bytes``).
"""

from __future__ import annotations

from fractions import Fraction

_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T",
                   15: "P", 18: "E"}
_BINARY_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}


def is_binary(text: object) -> bool:
    """Whether a written quantity has ``BinarySI`` format (a Ki..Ei suffix)."""
    return isinstance(text, str) and text.rstrip()[-2:] in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def format_quantity(value: Fraction, binary: bool = False) -> str:
    """The canonical string of ``value`` in the given format."""
    if value == 0:
        return "0"
    if binary and abs(value) >= 1024 and value.denominator == 1:
        amount, exp = int(value), 0
        while amount % 1024 == 0:  # removeBigIntFactors: no cap at Ei
            amount //= 1024
            exp += 1
        return f"{amount}{_BINARY_SUFFIX.get(exp, '')}"
    # Decimal: the smallest power of ten (>= 1e-9) making the value whole, trailing zeros
    # removed, then the exponent moved down to a multiple of three.
    exp = 0
    while value.denominator != 1 and exp > -9:
        value *= 10
        exp -= 1
    mantissa = -((-value.numerator) // value.denominator)  # Go rounds up past nano
    while mantissa and mantissa % 10 == 0:
        mantissa //= 10
        exp += 1
    while exp % 3:
        mantissa *= 10
        exp -= 1
    # Past E (10^18) and Ei (2^60) there is no suffix: constructBytes fails and the
    # mantissa prints alone (10^21 prints "1"), as upstream does.
    return f"{mantissa}{_DECIMAL_SUFFIX.get(exp, '')}"
