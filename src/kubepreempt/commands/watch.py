"""``kubepreempt watch``: predict what the scheduler does with each pending pod, live,
and keep a tally of how often the real scheduler agrees."""

from __future__ import annotations

import signal
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
from kubepreempt.release_options import current_modelled, kube_release, release_chosen
from kubepreempt.scheduler.config import CLI_HELP, load_scheduler_config


def register(app: typer.Typer) -> None:
    """Add the ``watch`` command."""

    @app.command("watch")
    @live_input(SCHEDULER_KINDS)
    @kube_release
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
        scheduler agreed. Read-only; Ctrl-C or SIGTERM stops."""
        from kubepreempt.live import watch_loop
        from kubepreempt.live.kubeconfig import resolve
        from kubepreempt.live.watcher import Watcher, describe

        args = current()
        if args.save:
            raise InputError("--save is for one-shot commands; watch saves nothing")

        target = resolve(args.kubeconfig, args.context)
        server = None
        if not release_chosen():
            from kubepreempt.live.client import ApiClient
            from kubepreempt.live.discovery import server_version

            with ApiClient(target) as client:
                server = server_version(client)
        modelled = current_modelled(server).to_json()

        def emit(line: dict[str, Any]) -> None:
            if output != "table":
                line = {**line, "modelled": modelled}
            text = (orjson.dumps(line).decode() if output == "json"
                    else "---\n" + yaml.safe_dump(line, sort_keys=True).rstrip()
                    if output == "yaml" else describe(line))
            print(text, flush=True)

        config = load_scheduler_config(scheduler_config) if scheduler_config else None
        watcher = Watcher(SCHEDULER_KINDS, emit, namespace=args.namespace,
                          scheduler_config=config)
        stop = threading.Event()
        print(f"watching {target.label}" + (f", namespace {args.namespace}"
                                             if args.namespace else "")
              + f", as Kubernetes {modelled['kubernetes']} (read-only; Ctrl-C stops)",
              file=sys.stderr, flush=True)
        # Ctrl-C and SIGTERM (kubelet, systemd, `timeout`) only ask the loop to stop: it
        # stops at the next event (within 0.2 s), the report is written and the summary
        # printed. A KeyboardInterrupt raised mid-decision could leave the watcher's
        # caches half-updated for the final report.
        previous = {sig: signal.signal(sig, lambda signum, frame: stop.set())
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            watch_loop.run(target, SCHEDULER_KINDS, watcher, stop, report)
        except (KeyboardInterrupt, BrokenPipeError):  # `| head` has had enough
            stop.set()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if report and watcher.ready:
                watch_loop.write_report(report, watcher)
        t = watcher.tally
        print(f"stopped: {t.predictions} predictions, {t.agree} agreed, {t.differ} differed",
              file=sys.stderr)
