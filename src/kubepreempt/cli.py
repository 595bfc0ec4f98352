"""The ``kubepreempt`` command line.

Exit status: 0 for any decision, 2 for bad input (one line on stderr), 1 for an internal
error. Subcommands live in :mod:`kubepreempt.commands`, one module each.
"""

from __future__ import annotations

import os

# kubepreempt runs no BLAS routine (its numpy work is integer arithmetic), yet OpenBLAS
# starts a thread per core at numpy's import and they spin for a while: ~0.1 s of CPU
# taken from the other core on every command. Set before anything imports numpy; a
# user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import contextlib  # noqa: E402
import importlib  # noqa: E402
import pkgutil  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import Annotated, Any, TypeVar  # noqa: E402

import typer  # noqa: E402

from kubepreempt import __version__, commands  # noqa: E402
from kubepreempt.api.errors import InputError  # noqa: E402
from kubepreempt.cli_common import emit, reflow  # noqa: E402

app = typer.Typer(
    name="kubepreempt",
    help="Kubernetes pod priority and preemption, reproduced faithfully and fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # kubectl's -h
)

F = TypeVar("F", bound=Callable[..., Any])


def fail_input(message: str) -> None:
    """Print a one-line input error and exit with status 2."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    raise typer.Exit(2)


def print_json(obj: Any) -> None:
    """Print one JSON object (sorted keys, indented) on stdout."""
    emit(obj, "json")


_registered: set[str] = set()


def _register_commands(args: Sequence[str]) -> None:
    """Register the command modules ``args`` needs: only the named command's module when
    the first argument names one (``evict-rank`` -> ``evict_rank``), else all of them.

    Importing every command pulls in Kueue, the simulator and their dependencies; the
    ``schedule`` command on a big dump is meant to run at parse speed.
    """
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__))
    wanted = args[0].replace("-", "_") if args else ""
    for name in [wanted] if wanted in names else names:
        if name in _registered:
            continue
        _registered.add(name)
        module = importlib.import_module(f"{commands.__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)
    for info in app.registered_commands:  # help from the docstring, reflowed
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if doc:
            info.help = reflow(doc)


def _print_version(value: bool) -> None:
    if value:
        print(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print the kubepreempt version and exit.")] = False,
) -> None:
    """Kubernetes pod priority and preemption, reproduced faithfully and fast."""


def main(argv: Sequence[str] | None = None, prog_name: str = "kubepreempt") -> int:
    """Entry point: run the CLI, turning input errors into exit status 2."""
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        _register_commands(args)
        app(args=args, prog_name=prog_name)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # click's standalone mode exits; usage errors are status 2
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # an internal error: say so in one line, no traceback
        print(f"internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def run() -> None:
    """Console entry point: ``main()``, then exit without tearing down the heap.

    Freeing a 50,000-pod snapshot object by object takes longer than some decisions; the
    process ends anyway, so flush the output and leave at once.
    """
    finish(main())


def finish(code: int) -> None:
    """Flush the output and leave at once with ``code`` (see :func:`run`)."""
    for stream in (sys.stdout, sys.stderr):
        # The reader may have gone away (e.g. `| head`); there is nothing left to tell it.
        with contextlib.suppress(BrokenPipeError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
