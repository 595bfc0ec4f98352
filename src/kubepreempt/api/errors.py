"""Input errors that name the file, document, kind and object they concern."""

from __future__ import annotations

from typing import NamedTuple

# Everything str.splitlines() breaks on: an error must stay one line whatever a name holds.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))


class Source(NamedTuple):
    """Where an object came from: file path (or ``-``), 0-based document index and, for
    the items of a ``kind: List``, the 0-based item index.

    Messages count from 1, as an editor counts: ``f.yaml, document 2`` (``, item 3``).
    A named tuple: loading builds one per object, half the cost of a frozen dataclass.
    """

    path: str = "<memory>"
    index: int | None = None
    item: int | None = None

    def __str__(self) -> str:
        if self.index is None:
            return self.path
        where = f"{self.path}, document {self.index + 1}"
        return where + (f", item {self.item + 1}" if self.item is not None else "")


class InputError(ValueError):
    """Bad user input. The CLI prints ``str(error)`` as one line and exits with status 2."""

    def __init__(
        self,
        message: str,
        source: Source | None = None,
        kind: str | None = None,
        name: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.kind = kind
        self.name = name
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.source is not None:
            where.append(str(self.source))
        if self.kind:
            where.append(f"{self.kind} {self.name}" if self.name else self.kind)
        prefix = ": ".join(where)
        line = f"{prefix}: {self.message}" if prefix else self.message
        return line.translate(_LINE_BREAKS)

    def located(self, source: Source | None, kind: str | None, name: str | None) -> InputError:
        """Return a copy that carries location details this error lacks."""
        return InputError(
            self.message,
            self.source or source,
            self.kind or kind,
            self.name or name,
        )
