"""Input errors that name the file, document, kind and object they concern."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Source:
    """Where an object came from: file path (or ``-``) and 0-based document index.

    Messages count documents from 1, as an editor counts them: ``f.yaml, document 2``.
    """

    path: str = "<memory>"
    index: int | None = None

    def __str__(self) -> str:
        return self.path if self.index is None else f"{self.path}, document {self.index + 1}"


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
        text = " ".join(self.message.split())  # keep it to one line
        return f"{prefix}: {text}" if prefix else text

    def located(self, source: Source | None, kind: str | None, name: str | None) -> InputError:
        """Return a copy that carries location details this error lacks."""
        return InputError(
            self.message,
            self.source or source,
            self.kind or kind,
            self.name or name,
        )
