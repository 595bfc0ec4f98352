"""``kubepreempt watch``: predict what the scheduler does with each pending pod, live,
and keep a tally of how often the real scheduler agrees."""

from __future__ import annotations

import sys
import threading
from typing import Annotated, Any

import orjson
import typer

from kubepreempt.api.errors import InputError
from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live.options import current, live_input


def register(app: typer.Typer) -> None:
    """Add the ``watch`` command."""

    @app.command("watch")
    @live_input(SCHEDULER_KINDS)
    def watch_cmd(
        output: Annotated[str, typer.Option(
            "-o", "--output", help="text, or json (one JSON object per line).")] = "text",
        report: Annotated[str | None, typer.Option(
            "--report", help="Keep the agreement tally in this JSON file.")] = None,
    ) -> None:
        """Watch the cluster; for each pending pod say where it will go, then whether the
        scheduler agreed. Read-only; Ctrl-C stops."""
        from kubepreempt.live import watch_loop
        from kubepreempt.live.kubeconfig import resolve
        from kubepreempt.live.watcher import Watcher, describe

        if output not in ("text", "json"):
            raise typer.BadParameter("must be text or json", param_hint="-o")
        args = current()
        if args.save:
            raise InputError("--save is for one-shot commands; watch saves nothing")

        def emit(line: dict[str, Any]) -> None:
            text = orjson.dumps(line).decode() if output == "json" else describe(line)
            print(text, flush=True)

        target = resolve(args.kubeconfig, args.context)
        watcher = Watcher(SCHEDULER_KINDS, emit, namespace=args.namespace)
        stop = threading.Event()
        print(f"watching {target.label}" + (f", namespace {args.namespace}"
                                             if args.namespace else "")
              + " (read-only; Ctrl-C stops)", file=sys.stderr, flush=True)
        try:
            watch_loop.run(target, SCHEDULER_KINDS, watcher, stop, report)
        except (KeyboardInterrupt, BrokenPipeError):  # Ctrl-C, or `| head` has had enough
            stop.set()
        finally:
            if report and watcher.ready:
                watch_loop.write_report(report, watcher)
        t = watcher.tally
        print(f"stopped: {t.predictions} predictions, {t.agree} agreed, {t.differ} differed",
              file=sys.stderr)
