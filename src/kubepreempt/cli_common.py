"""Conventions every ``kubepreempt`` command shares, so commands read like kubectl's.

- ``-o/--output``: one vocabulary, ``table|json|yaml`` (``wide`` where a command has more
  columns to show); :func:`output_option` declares it, :func:`emit` prints the data forms.
- ``-n/--namespace``: a bare ``NAME`` given to ``--pod`` / ``--workload`` lives there
  (default ``default``, or the kubeconfig context's with ``--cluster``). The option comes
  with :func:`kubepreempt.live.options.live_input`; ``qualify`` resolves names through
  :func:`object_key`, which rejects ``a/b/c``.
- ``--seed``: every random choice has a fixed default seed (:data:`DEFAULT_SEED`), so the
  same command gives the same answer; :func:`seed_option` declares it.
- hints: :func:`did_you_mean` suggests close object names for a typo.
- progress: :func:`loading` shows a spinner on stderr when reading inputs takes over a
  second (never when the output is data).
"""

from __future__ import annotations

import inspect
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

import orjson
import typer

if TYPE_CHECKING:  # rich is imported only for people: JSON output never loads it
    from rich.console import Console

    from kubepreempt.text_table import TextTable

from kubepreempt.api.names import DEFAULT_NAMESPACE, did_you_mean, object_key

__all__ = ["DEFAULT_NAMESPACE", "did_you_mean", "object_key"]  # re-exported for commands

#: The seed of every random choice when --seed is not given (same command, same answer).
DEFAULT_SEED = 0

TABLE, JSON, YAML, WIDE = "table", "json", "yaml", "wide"
#: The output formats every command accepts.
OUTPUTS = (TABLE, JSON, YAML)
DATA_OUTPUTS = (JSON, YAML)


def output_option(wide: bool = False) -> Any:
    """The ``-o/--output`` option: table, json or yaml (and wide when ``wide``)."""
    formats = (*OUTPUTS, WIDE) if wide else OUTPUTS

    def check(value: str) -> str:
        if value not in formats:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(formats)}")
        return value

    return typer.Option("-o", "--output", metavar="|".join(formats), callback=check,
                        help="Output format" + (" (wide: more columns)." if wide else "."))


def seed_option(what: str) -> Any:
    """The ``--seed`` option; its default, :data:`DEFAULT_SEED`, shows in --help."""
    return typer.Option("--seed", metavar="N",
                        help=f"Seed for {what}; fixed by default, so runs repeat exactly.")


def emit(obj: Any, output: str) -> None:
    """Print ``obj`` as one JSON object (sorted keys, indented) or as YAML."""
    if output == YAML:
        data = orjson.loads(orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY))
        import yaml  # only -o yaml pays for PyYAML's import

        sys.stdout.write(yaml.safe_dump(data, sort_keys=True))
    else:
        sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
                                      | orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


@contextmanager
def loading(what: str, output: str = TABLE, delay: float = 1.0) -> Iterator[None]:
    """A spinner on stderr while the block runs, shown only once it has taken ``delay``
    seconds, only for a terminal, and never when the output is data (json/yaml)."""
    if output in DATA_OUTPUTS or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    status = Console(stderr=True).status(what)
    timer = threading.Timer(delay, status.start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        status.stop()


def reflow(doc: str) -> str:
    """A docstring as help text: each paragraph on one line, for the help formatter to
    wrap at the terminal's width (it keeps a docstring's own line breaks otherwise)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


#: Width of piped output: wide enough that no table truncates or folds a name and no
#: message is hard-wrapped (a terminal's width, or COLUMNS, applies otherwise).
PIPED_WIDTH = 1000


def console(stderr: bool = False) -> Console:
    """A rich console for people: COLUMNS when set, else the terminal's width, else (piped)
    :data:`PIPED_WIDTH`. In a terminal (or at COLUMNS) prose wraps at spaces, so no word
    is cut at the edge; piped, a message is never hard-wrapped."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    cols = os.environ.get("COLUMNS", "")
    width = int(cols) if cols.isdigit() and int(cols) > 0 else (
        None if stream.isatty() else PIPED_WIDTH)
    return Console(file=_Trimmed(stream), width=width, highlight=False,
                   soft_wrap=width == PIPED_WIDTH)


class _Trimmed:
    """A text stream that drops the spaces rich leaves at the end of wrapped lines
    (before a line's closing style codes, in a terminal)."""

    _TRAILING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)(?=\n)")

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(self._TRAILING.sub(r"\1", text))

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, flush, encoding...
        return getattr(self.stream, name)


def table(*columns: str, keys: tuple[int, ...] = (0,), right: tuple[int, ...] = (),
          title: str | None = None) -> TextTable:
    """A kubectl-style table (:class:`~kubepreempt.text_table.TextTable`): its key columns
    (by index; the first by default: the names a user copies into the next command) are
    never wrapped, other columns wrap at spaces, and a column that cannot fit moves under
    its row, so nothing is cut at any width."""
    from kubepreempt.text_table import TextTable

    return TextTable(*columns, keys=keys, right=right, title=title)


#: Status codes in tables (JSON carries upstream's ``Code.String()``: ``Unschedulable``,
#: ``UnschedulableAndUnresolvable``); "Unresolvable" nodes are not preemption candidates.
_SHORT_CODES = {"UnschedulableAndUnresolvable": "Unresolvable"}


def short_code(code: Any) -> str:
    """The table spelling of a status code (a :class:`~kubepreempt.scheduler.framework.Code`)."""
    name = code_name(code)
    return _SHORT_CODES.get(name, name)


def code_name(code: Any) -> str:
    """Upstream's spelling of a status code, ``framework.Code.String()``."""
    return str(code.upstream)
