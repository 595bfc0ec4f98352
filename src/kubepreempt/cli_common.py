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

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import orjson
import typer

if TYPE_CHECKING:  # rich is imported only for people: JSON output never loads it
    from rich.console import Console
    from rich.table import Table

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


#: Width of piped output: wide enough that no table truncates or folds a name and no
#: message is hard-wrapped (a terminal's width, or COLUMNS, applies otherwise).
PIPED_WIDTH = 1000


def console(stderr: bool = False) -> Console:
    """A rich console for people: COLUMNS when set, else the terminal's width, else (piped)
    :data:`PIPED_WIDTH`. Plain prints are never hard-wrapped (``soft_wrap``)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    cols = os.environ.get("COLUMNS", "")
    width = int(cols) if cols.isdigit() and int(cols) > 0 else (
        None if stream.isatty() else PIPED_WIDTH)
    return Console(width=width, stderr=stderr, highlight=False, soft_wrap=True)


def table(*columns: str, keys: tuple[int, ...] = (0,), **kwargs: Any) -> Table:
    """A table whose key columns (by index; the first by default: the names a user copies
    into the next command) are never cut; other columns fold long values onto more lines
    instead of an ellipsis, so the table fits at 80 columns."""
    # kubectl's plain layout: no borders, two spaces between columns (borders cost 3
    # columns each, which is what pushes tables past 80).
    kwargs = {"box": None, "pad_edge": False, "padding": (0, 1), "header_style": "bold",
              "title_justify": "left", **kwargs}
    from rich.table import Table

    t = Table(**kwargs)
    for i, col in enumerate(columns):
        # no_wrap: rich shrinks only the other columns to fit the width.
        t.add_column(col, overflow="fold", no_wrap=i in keys)
    return t


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
