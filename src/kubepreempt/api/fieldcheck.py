"""Reading a manifest's fields for validation: each value of the expected JSON type, or a
field error saying what was found instead (``Invalid type``, as the apiserver refuses such
values while decoding) and no descent into it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubepreempt.apimachinery.field import TYPE, FieldError

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)


class Checker:
    """Collects field errors for one object; type mismatches stop the descent."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def add(self, error: FieldError) -> None:
        """Record ``error``."""
        self.errors.append(error)

    def type_error(self, path: str, expected: str, got: Any) -> None:
        """Record that ``path`` holds ``got`` where ``expected`` belongs."""
        self.errors.append(FieldError(TYPE, path, None,
                                      f"must be {expected}, not {_type_name(got)}"))

    def mapping(self, raw: Any, path: str) -> Mapping[str, Any]:
        """``raw`` as an object (``{}`` when absent or of another type)."""
        if type(raw) is dict:  # the common case; isinstance(.., Mapping) is a slow ABC check
            return raw
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.type_error(path, "an object", raw)
            return {}
        return raw

    def items(self, raw: Any, path: str) -> list[Any]:
        """``raw`` as a list (``[]`` when absent or of another type)."""
        if type(raw) is list:
            return raw
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.type_error(path, "a list", raw)
            return []
        return raw

    def string(self, raw: Any, path: str) -> str | None:
        """``raw`` as a string (``""`` when absent, None when of another type)."""
        if raw is None:
            return ""
        if isinstance(raw, str):
            return raw
        self.type_error(path, "a string", raw)
        return None

    def integer(self, raw: Any, path: str, bounds: tuple[int, int] = INT32) -> int | None:
        """An int32/int64 field: JSON decoding refuses other types and out-of-range values."""
        if raw is None:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int):
            if isinstance(raw, float) and raw.is_integer() and bounds[0] <= raw <= bounds[1]:
                return int(raw)
            self.type_error(path, "an integer", raw)
            return None
        if not bounds[0] <= raw <= bounds[1]:
            bits = 32 if bounds == INT32 else 64
            self.add(FieldError(TYPE, path, None,
                                f"{raw} does not fit in a {bits}-bit integer"))
            return None
        return raw

    def string_map(self, raw: Any, path: str) -> dict[str, str]:
        """``raw`` as a map of strings: scalars as their text, other entries reported."""
        if not raw and (raw is None or type(raw) is dict):
            return {}
        out: dict[str, str] = {}
        for k, v in self.mapping(raw, path).items():
            if not isinstance(k, str):
                self.type_error(f"{path}[{k}]", "a string key", k)
            elif isinstance(v, Mapping | list):
                self.type_error(f"{path}[{k}]", "a string", v)
            else:  # YAML scalars (numbers, booleans) are read as their text
                out[k] = "" if v is None else str(v)
        return out


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(
        type(value), type(value).__name__)
