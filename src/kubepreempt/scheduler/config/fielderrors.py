"""Field errors worded as apimachinery's ``field.Error`` and ``utilerrors.Aggregate``.

``profiles[0].pluginConfig[1].args.minCandidateNodesPercentage: Invalid value: 200: not
in valid range [0, 100]`` is what kube-scheduler prints for a bad ``--config``; several
errors are joined as ``[first, second]``.
"""

from __future__ import annotations

import json
from typing import Any


def _value(value: Any) -> str:
    """``field.Error`` value rendering: strings quoted, numbers and bools bare."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), default=str)


def invalid(path: str, value: Any, detail: str) -> str:
    """``field.Invalid``."""
    return f"{path}: Invalid value: {_value(value)}: {detail}"


def required(path: str, detail: str = "") -> str:
    """``field.Required``."""
    return f"{path}: Required value" + (f": {detail}" if detail else "")


def forbidden(path: str, detail: str) -> str:
    """``field.Forbidden``."""
    return f"{path}: Forbidden: {detail}"


def duplicate(path: str, value: Any) -> str:
    """``field.Duplicate``."""
    return f"{path}: Duplicate value: {_value(value)}"


def not_supported(path: str, value: Any, supported: list[str]) -> str:
    """``field.NotSupported``."""
    options = ", ".join(json.dumps(s) for s in supported)
    return f"{path}: Unsupported value: {_value(value)}: supported values: {options}"


def aggregate(errors: list[str]) -> str:
    """``utilerrors.Aggregate.Error()``: one error as is, several in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
