"""Go's ``strconv`` integer parsing, which Kubernetes components apply to numbers written
as strings (label values compared by ``Gt``/``Lt``, annotations, flags)."""

from __future__ import annotations

import re

_DECIMAL = re.compile(r"[+-]?[0-9]+")


class NumError(ValueError):
    """``strconv.NumError``: ``range`` tells "value out of range" from "invalid syntax"."""

    def __init__(self, text: str, range_error: bool) -> None:
        super().__init__(f"{text!r}: {'value out of range' if range_error else 'invalid syntax'}")
        self.range = range_error


def parse_int64(text: str) -> int:
    """``strconv.ParseInt(text, 10, 64)`` (``Atoi`` on a 64-bit platform): an optional
    sign and ASCII digits, within int64; anything else raises :class:`NumError`."""
    if not _DECIMAL.fullmatch(text):
        raise NumError(text, False)
    value = int(text)
    if not -2**63 <= value < 2**63:
        raise NumError(text, True)
    return value


def parse_bool(text: str) -> bool:
    """``strconv.ParseBool``: 1, t, T, TRUE, true, True and their false counterparts;
    anything else raises :class:`NumError`."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise NumError(text, False)
