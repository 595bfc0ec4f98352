"""kube-scheduler's ``--config`` field errors as the lines it prints.

``profiles[0].pluginConfig[1].args.minCandidateNodesPercentage: Invalid value: 200: not
in valid range [0, 100]``: :mod:`kubepreempt.apimachinery.field`'s errors, rendered to
text (the configuration's validation collects strings); several are joined by
:func:`aggregate` as ``[first, second]``.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.apimachinery import field
from kubepreempt.apimachinery.field import aggregate

__all__ = ["aggregate", "duplicate", "forbidden", "invalid", "not_supported", "required"]


def invalid(path: str, value: Any, detail: str) -> str:
    """``field.Invalid``."""
    return str(field.invalid(path, value, detail))


def required(path: str, detail: str = "") -> str:
    """``field.Required``."""
    return str(field.required(path, detail))


def forbidden(path: str, detail: str) -> str:
    """``field.Forbidden``."""
    return str(field.forbidden(path, detail))


def duplicate(path: str, value: Any) -> str:
    """``field.Duplicate``."""
    return str(field.duplicate(path, value))


def not_supported(path: str, value: Any, supported: list[str]) -> str:
    """``field.NotSupported``."""
    return str(field.not_supported(path, value, supported))
