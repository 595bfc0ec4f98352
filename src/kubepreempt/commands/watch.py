"""``kubepreempt watch``: predict what the scheduler does with each pending pod, live,
and keep a tally of how often the real scheduler agrees."""

from __future__ import annotations

import sys
import threading
from typing import Annotated, Any

import orjson
import typer
import yaml

from kubepreempt.api.errors import InputError
from kubepreempt.cli_common import TABLE, output_option
from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live.options import current, live_input
from kubepreempt.scheduler.config import CLI_HELP, load_scheduler_config


def register(app: typer.Typer) -> None:
    """Add the ``watch`` command."""

    @app.command("watch")
    @live_input(SCHEDULER_KINDS)
    def watch_cmd(
        # table: one sentence per event; json: one JSON object per line; yaml: one
        # YAML document per event.
        output: Annotated[str, output_option()] = TABLE,
        report: Annotated[str | None, typer.Option(
            "--report", help="Keep the agreement tally in this JSON file.")] = None,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", metavar="FILE", help=CLI_HELP)] = None,
    ) -> None:
        """Watch the cluster; for each pending pod say where it will go, then whether the
        scheduler agreed. Read-only; Ctrl-C stops."""
        from kubepreempt.live import watch_loop
        from kubepreempt.live.kubeconfig import resolve
        from kubepreempt.live.watcher import Watcher, describe

        args = current()
        if args.save:
            raise InputError("--save is for one-shot commands; watch saves nothing")

        def emit(line: dict[str, Any]) -> None:
            text = (orjson.dumps(line).decode() if output == "json"
                    else "---\n" + yaml.safe_dump(line, sort_keys=True).rstrip()
                    if output == "yaml" else describe(line))
            print(text, flush=True)

        config = load_scheduler_config(scheduler_config) if scheduler_config else None
        target = resolve(args.kubeconfig, args.context)
        watcher = Watcher(SCHEDULER_KINDS, emit, namespace=args.namespace,
                          scheduler_config=config)
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
