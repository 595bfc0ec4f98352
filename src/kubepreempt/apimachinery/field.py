"""Field errors worded as apimachinery's ``field.Error`` and ``NewInvalid`` word them.

kube-apiserver refuses an invalid object with ``<Kind> "<name>" is invalid: <errors>``,
one error as ``<path>: <Type>: <value>: <detail>`` and several as ``[e1, e2]``
(``util/validation/field/errors.go``, ``api/errors.NewInvalid``); kube-scheduler and
Kueue's webhooks print theirs the same way. Struct values (a taint, a toleration) print as
Go's JSON of the internal type: field names capitalised, no spaces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

REQUIRED = "Required value"
INVALID = "Invalid value"
DUPLICATE = "Duplicate value"
NOT_SUPPORTED = "Unsupported value"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
# Ours, for values of the wrong JSON type (the apiserver refuses them while decoding).
TYPE = "Invalid type"
# Types whose message never shows the value (ErrorBody's first cases).
_NO_VALUE = {REQUIRED, FORBIDDEN, TOO_LONG, TYPE}


class GoStruct(dict):
    """A struct-valued bad value: printed as compact JSON in field order."""


def go_value(value: Any) -> str:
    """``value`` as ``ErrorBody`` prints it: %v for numbers and booleans, %q for strings."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    # default=str: a value JSON cannot hold (a date read from YAML) prints as its text.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field error: its type, path, bad value and detail."""

    type: str
    path: str
    value: Any = None
    detail: str = ""

    def __str__(self) -> str:
        body = self.type if self.type in _NO_VALUE else f"{self.type}: {go_value(self.value)}"
        return f"{self.path}: {body}: {self.detail}" if self.detail else f"{self.path}: {body}"


def required(path: str, detail: str = "") -> FieldError:
    """``field.Required``."""
    return FieldError(REQUIRED, path, None, detail)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid``."""
    return FieldError(INVALID, path, value, detail)


def duplicate(path: str, value: Any) -> FieldError:
    """``field.Duplicate``."""
    return FieldError(DUPLICATE, path, value)


def not_supported(path: str, value: Any, valid: list[str]) -> FieldError:
    """``field.NotSupported``: the detail quotes each supported value."""
    return FieldError(NOT_SUPPORTED, path, value,
                      "supported values: " + ", ".join(json.dumps(v) for v in valid))


def forbidden(path: str, detail: str) -> FieldError:
    """``field.Forbidden``."""
    return FieldError(FORBIDDEN, path, None, detail)


def aggregate(errors: Iterable[FieldError | str]) -> str:
    """``ErrorList.ToAggregate().Error()``: duplicates dropped, several in brackets.

    Plain strings are taken as already-rendered errors (``utilerrors.NewAggregate`` of
    ``errors.New`` values prints the same way)."""
    seen = list(dict.fromkeys(str(e) for e in errors))
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def invalid_message(group_kind: str, name: str, errors: Iterable[FieldError | str]) -> str:
    """``apierrors.NewInvalid``'s message: ``<Kind.group> "<name>" is invalid: <errors>``
    (``group_kind`` is the bare kind for the core group)."""
    return f"{group_kind} {go_value(name)} is invalid: {aggregate(errors)}"


def forbidden_message(qualified_resource: str, name: str, reason: str) -> str:
    """``apierrors.NewForbidden``'s message: ``<resource.group> "<name>" is forbidden:
    <reason>`` (an empty ``reason`` gives the prefix a caller completes)."""
    return f"{qualified_resource} {go_value(name)} is forbidden: {reason}"
