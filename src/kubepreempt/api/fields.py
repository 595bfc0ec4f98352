"""Reading manifest fields of the expected shape: a missing field is empty, a wrong type
is a ``ValueError`` naming the field (the loaders turn it into a one-line input error)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def as_mapping(raw: Any, what: str) -> Mapping[str, Any]:
    """``raw`` as a mapping (``{}`` when absent)."""
    if type(raw) is dict:  # the common case; isinstance(.., Mapping) is a slow ABC check
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{what} must be a mapping, got {type(raw).__name__}")
    return raw


def as_list(raw: Any, what: str) -> list[Any]:
    """``raw`` as a list (``[]`` when absent)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError(f"{what} must be a list, got {type(raw).__name__}")
    return raw
