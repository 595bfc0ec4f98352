"""Kubernetes resource quantities, parsed exactly as apimachinery's ``resource.Quantity``.

Values are kept as exact fractions; ``milli_value`` and ``value`` round up to integers the
way Go's ``MilliValue()`` and ``Value()`` do, giving canonical units: milli-CPU for ``cpu``
and plain integers (bytes, counts) for everything else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

_BINARY = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# <signedNumber><suffix>; the exponent alternative must come before the one-letter SI
# suffixes so that "1E3" is 1000 while "1E" is one exa.
_QUANTITY = re.compile(
    r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)"
)
# Go rejects exponents this large; it also keeps us from building huge integers.
_MAX_EXPONENT = 1000
INT64_MAX = (1 << 63) - 1


class QuantityError(ValueError):
    """A string that Kubernetes would not accept as a quantity."""


def parse_quantity(text: str | int | float) -> Fraction:
    """Parse a quantity (``"100m"``, ``"1.5Gi"``, ``"1e3"``, ``2``) to an exact fraction."""
    if not isinstance(text, str | int | float):  # lists and mappings are not even hashable
        raise QuantityError(f"quantities must be strings or numbers, not {type(text).__name__}")
    return _parse_quantity(text)


@lru_cache(maxsize=65536, typed=True)  # typed: 1.0 == True, but a bool is refused
def _parse_quantity(text: str | int | float) -> Fraction:
    if isinstance(text, bool):
        raise QuantityError(f"quantities must be strings or numbers, not {text!r}")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(f"quantity {text!r} is not finite")
        return Fraction(str(text))
    if not isinstance(text, str):
        raise QuantityError(f"quantities must be strings or numbers, not {text!r}")
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(f"quantity {text!r} is not a valid Kubernetes quantity")
    sign, number, suffix = match.groups()
    value = Fraction(number)
    if suffix in _BINARY:
        # ParseQuantity caps binary-suffixed (BinarySI) amounts at the largest int64.
        value = min(value * _BINARY[suffix], Fraction(INT64_MAX))
    elif suffix[:1] in ("e", "E") and len(suffix) > 1:
        exponent = int(suffix[1:])
        if abs(exponent) > _MAX_EXPONENT:
            raise QuantityError(f"quantity {text!r} has an exponent out of range")
        value *= Fraction(10) ** exponent
    else:
        value *= _DECIMAL[suffix]
    return -value if sign == "-" else value


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def milli_value(text: str | int | float) -> int:
    """Quantity times 1000, rounded up: ``"100m"`` -> 100, ``"0.5"`` -> 500, ``"1u"`` -> 1."""
    return _ceil(parse_quantity(text) * 1000)


def value(text: str | int | float) -> int:
    """Quantity rounded up to an integer: ``"1Ki"`` -> 1024, ``"1.5"`` -> 2, ``"100m"`` -> 1."""
    return _ceil(parse_quantity(text))


def canonical(resource: str, text: str | int | float) -> int:
    """Canonical integer amount of ``resource``: milli-CPU for ``cpu``, else ``value``.

    Amounts beyond int64 are refused: upstream reads them with ``Value()``/``MilliValue()``,
    whose result for such a quantity is undefined (Go's ``big.Int.Int64`` keeps the low 64
    bits), so no answer computed from one means anything.
    """
    amount = milli_value(text) if resource == "cpu" else value(text)
    if not -INT64_MAX <= amount <= INT64_MAX:
        unit = "milli-units" if resource == "cpu" else "units"
        raise QuantityError(f"quantity {text!r} is {amount} {unit}, beyond the int64 range "
                            "the scheduler and kubelet count in")
    return amount


def format_amount(resource: str, amount: int) -> str:
    """Render a canonical amount for people: ``cpu`` 1500 -> ``1500m``, bytes -> ``1Gi``."""
    if resource == "cpu":
        return f"{amount // 1000}" if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, factor in (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40),
                               ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if amount and amount % factor == 0:
                return f"{amount // factor}{suffix}"
    return str(amount)


# Parsed resource lists by content: the nodes of one instance type share their allocatable.
_RESOURCE_LISTS: dict[tuple, dict[str, int]] = {}


def resource_list(raw: Any, what: str) -> dict[str, int]:
    """A ``ResourceList`` mapping -> canonical integer amounts; rejects bad quantities."""
    if raw is None:
        return {}
    if type(raw) is dict:
        key = _resource_list_key(raw)
        known = _RESOURCE_LISTS.get(key) if key is not None else None
        if known is not None:
            return dict(known)  # each caller owns its dict
    else:
        key = None
        if not isinstance(raw, Mapping):
            raise ValueError(f"{what} must be a mapping, got {type(raw).__name__}")
    out = _parse_resource_list(raw, what)
    if key is not None:
        if len(_RESOURCE_LISTS) >= 4096:
            _RESOURCE_LISTS.clear()
        _RESOURCE_LISTS[key] = dict(out)
    return out


def _resource_list_key(raw: dict) -> tuple | None:
    """``raw``'s items when every name is a string and every quantity a string or an int
    (None: not cached). Other types are left out because equal is not the same here:
    ``True == 1`` and ``1.0 == 1``, yet a boolean quantity is refused."""
    for name, qty in raw.items():
        if type(name) is not str or (type(qty) is not str and type(qty) is not int):
            return None
    return tuple(raw.items())


def _parse_resource_list(raw: Mapping[str, Any], what: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, qty in raw.items():
        try:
            amount = canonical(str(name), qty)
        except QuantityError as exc:
            raise ValueError(f"{what}.{name}: {exc}") from None
        if amount < 0:
            raise ValueError(f"{what}.{name}: negative quantity {qty!r}")
        out[str(name)] = amount
    return out
