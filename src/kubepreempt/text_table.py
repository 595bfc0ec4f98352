"""Tables for people, laid out as kubectl lays them out and never cutting a name.

A :class:`TextTable` has no borders: columns are separated by two spaces, headers are
bold, and no line carries trailing spaces (piped output stays grep-friendly). Its layout
follows three rules, whatever the width:

- *key* columns (the names a user copies into the next command) are never wrapped;
- other columns wrap at spaces, never inside a word (so a pod or node name in a list or
  a sentence stays whole);
- when the columns cannot all fit, the widest non-key column moves out of the table: its
  value is printed under its row as ``header: value``, wrapped to the width.

Only a word longer than the whole width is ever folded.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from itertools import combinations, zip_longest
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

#: Spaces between two columns (kubectl's layout).
GAP = 2
#: Indent of a moved column's ``header: value`` lines under their row.
MOVED_INDENT = 2


class TextTable:
    """Rows of cells under headers; render it with ``console.print(table)``.

    Cells are console markup (as in ``console.print``); ``keys`` are the indexes of the
    columns never wrapped, ``right`` those aligned right (figures).
    """

    def __init__(self, *headers: str, keys: Collection[int] = (0,),
                 right: Collection[int] = (), title: str | None = None) -> None:
        self.headers = list(headers)
        self.keys = frozenset(keys)
        self.right = frozenset(right)
        self.title = title
        self.rows: list[list[str]] = []

    def add_row(self, *cells: str) -> None:
        """Append a row (missing trailing cells are empty)."""
        if len(cells) > len(self.headers):
            raise ValueError(f"{len(cells)} cells for {len(self.headers)} columns")
        self.rows.append([*cells, *[""] * (len(self.headers) - len(cells))])

    @property
    def row_count(self) -> int:
        """How many rows were added."""
        return len(self.rows)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        headers = [Text(h, style="bold") for h in self.headers]
        rows = [[console.render_str(c, highlight=False) for c in row] for row in self.rows]
        natural = [max(_widest_line(t) for t in (h, *(r[i] for r in rows)))
                   for i, h in enumerate(headers)]
        content = [max((_longest_word(r[i]) for r in rows), default=0)
                   for i in range(len(headers))]
        least = [natural[i] if i in self.keys else max(_longest_word(h), content[i])
                 for i, h in enumerate(headers)]
        shown = _columns_that_fit(least, content, self.keys, width)
        widths = _shrink({i: natural[i] for i in shown},
                         {i: least[i] for i in shown}, width - GAP * (len(shown) - 1))
        moved = [i for i in range(len(headers)) if i not in widths]
        if self.title:
            yield from _wrapped(console, Text(self.title, style="italic"), width)
        yield from self._lines(console, headers, widths, bottom=True)
        for row in rows:
            yield from self._lines(console, row, widths, bottom=False)
            for i in moved:
                if row[i].plain.strip():
                    yield from _moved(console, self.headers[i], row[i], width)

    def _lines(self, console: Console, cells: list[Text], widths: dict[int, int],
               bottom: bool) -> Iterable[Text]:
        """One table row (or the header row), its cells wrapped to their widths."""
        columns = [_wrap(console, cells[i], width) for i, width in widths.items()]
        if bottom:  # headers of different heights line up on their last line
            tallest = max(len(c) for c in columns)
            columns = [[Text()] * (tallest - len(c)) + c for c in columns]
        for parts in zip_longest(*columns, fillvalue=Text()):
            line = Text()
            for n, (i, width) in enumerate(widths.items()):
                part = parts[n]
                pad = " " * (width - part.cell_len)
                if n:
                    line.append(" " * GAP)
                line.append_text(Text(pad) + part if i in self.right else part + pad)
            line.rstrip()
            yield line


def _wrap(console: Console, text: Text, width: int) -> list[Text]:
    """``text`` wrapped at spaces to ``width`` (a longer word is folded), each line
    without trailing spaces."""
    lines = list(text.wrap(console, max(1, width), overflow="fold")) or [Text()]
    for line in lines:
        line.rstrip()
    return lines


def _widest_line(text: Text) -> int:
    return max((line.cell_len for line in text.split("\n")), default=0)


def _longest_word(text: Text) -> int:
    return max((Text(w).cell_len for w in text.plain.split()), default=0)


def _columns_that_fit(least: list[int], content: list[int], keys: Collection[int],
                      width: int) -> list[int]:
    """The columns kept in the table: all of them if their least widths fit ``width``;
    else without as few non-key columns as will do, those with the longest words (a list
    of names, a sentence) rather than short figures, the rightmost of equals; if even
    the key columns do not fit, without key columns too (never the first)."""
    every = list(range(len(least)))

    def needed(shown: Sequence[int]) -> int:
        return sum(least[i] for i in shown) + GAP * (len(shown) - 1)

    movable = [i for i in every if i != 0 and i not in keys]
    for k in range(len(movable) + 1):
        fitting = [moved for moved in combinations(movable, k)
                   if needed([i for i in every if i not in moved]) <= width]
        if fitting:
            best = max(fitting, key=lambda moved: (
                sorted((content[i] for i in moved), reverse=True), moved))
            return [i for i in every if i not in best]
    shown = [i for i in every if i not in movable]
    for i in sorted(shown[1:], key=lambda i: (-least[i], -i)):
        if needed(shown) <= width:
            break
        shown.remove(i)
    return shown


def _shrink(widths: dict[int, int], least: dict[int, int], room: int) -> dict[int, int]:
    """Narrow the widest shrinkable columns, one cell at a time, until the widths fit
    ``room`` or every column is at its least width."""
    widths = dict(widths)
    while sum(widths.values()) > room:
        shrinkable = [i for i in widths if widths[i] > least[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: (widths[i], i))
        widths[widest] -= 1
    return widths


def _moved(console: Console, header: str, value: Text, width: int) -> Iterable[Text]:
    """A moved column's ``header: value`` under its row, continuation lines indented."""
    text = Text(" " * MOVED_INDENT + header + ": ") + value
    yield from _wrapped(console, text, width, indent=MOVED_INDENT * 2)


def _wrapped(console: Console, text: Text, width: int, indent: int = 0) -> Iterable[Text]:
    """``text`` wrapped at spaces to ``width``, lines after the first indented."""
    first, *rest = _wrap(console, text, width)
    yield first
    if rest:
        for line in _wrap(console, Text(" ").join(rest), width - indent):
            yield Text(" " * indent) + line
