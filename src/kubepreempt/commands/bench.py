"""``kubepreempt bench``: run an upstream scheduler_perf workload in memory and time it."""

from __future__ import annotations

import gc
import sys
import time
from typing import Annotated

import psutil
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kubepreempt import gang_workloads, workloads
from kubepreempt.api.objects import Pod
from kubepreempt.cli import fail_input
from kubepreempt.cli_common import DATA_OUTPUTS, TABLE, emit, output_option
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.release_options import current_modelled, kube_release, modelled_json
from kubepreempt.scheduler.config import CLI_HELP, SAMPLE_NODES_HELP, use_scheduler_config


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB."""
    info = psutil.Process().memory_info()
    peak = getattr(info, "peak_wset", None)  # Windows
    if peak is None:
        try:
            import resource

            # Linux reports ru_maxrss in KiB (macOS in bytes).
            scale = 1 if sys.platform == "darwin" else 1024
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        except ImportError:  # pragma: no cover
            peak = info.rss
    return round(peak / 2**20, 1)


def bench(name: str, scale: float = 1.0, show_progress: bool = True,
          sample: bool = False, scheduler_config: str | None = None,
          sample_nodes: bool = False) -> dict:
    """Build and run one workload; the JSON object the command prints."""
    if name in gang_workloads.GANG_WORKLOADS:
        return _bench_gangs(gang_workloads.get(name, scale), show_progress)
    workload = workloads.get(name, scale)
    cluster = workload.build()
    use_scheduler_config(cluster, scheduler_config, sample_nodes)
    pods = list(workload.arrivals())
    console = Console(file=sys.stderr)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=not show_progress,
                  transient=True) as bar:
        total = sum(1 for p in pods if isinstance(p, Pod))  # churn nodes are not pods
        task = bar.add_task(workload.name, total=total)
        step = max(1, total // 200)  # redraw often enough, but off the hot path

        def progress(done: int) -> None:
            if done % step == 0 or done == total:
                bar.update(task, completed=done)

        # What was built before the measured phase (the cluster, the arrivals, every
        # imported module) is long-lived: frozen out of the collector's scans, so the
        # figure measures scheduling, not how much the process imported.
        gc.collect()
        gc.freeze()
        start = time.perf_counter()
        stats = workloads.run(cluster, pods, progress if show_progress else None,
                              sample=sample)
        seconds = time.perf_counter() - start
        gc.unfreeze()
    return {"workload": workload.name, "nodes": workload.nodes, "pods": total,
            "seconds": round(seconds, 3),
            "podsPerSecond": round(total / seconds, 1) if seconds else None,
            "victims": stats.victims, "scheduled": stats.scheduled,
            "preemptors": stats.preempted, "unschedulable": stats.unschedulable,
            "peakRssMiB": peak_rss_mib(), "schedulerConfig": scheduler_config}


def _bench_gangs(workload: gang_workloads.GangWorkload, show_progress: bool) -> dict:
    """A PodGroup workload: pods/s as above, with groups/s and the per-group latency."""
    console = Console(file=sys.stderr)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, disable=not show_progress,
                  transient=True) as bar:
        task = bar.add_task(workload.name, total=workload.total_pods)
        result = gang_workloads.bench(workload, lambda done: bar.update(task, completed=done)
                                      if show_progress else None)
    return {**result, "peakRssMiB": peak_rss_mib(), "schedulerConfig": None}


def register(app: typer.Typer) -> None:
    """Add the ``bench`` command."""

    @app.command("bench")
    @kube_release
    def bench_cmd(
        workload: Annotated[str | None, typer.Argument(
            help="Workload name (see --list).")] = None,
        output: Annotated[str, output_option()] = TABLE,
        scale: Annotated[float, typer.Option(
            "--scale", help="Multiply node and pod counts (e.g. 0.01 for a quick run).")] = 1.0,
        list_: Annotated[bool, typer.Option("--list", help="List the workloads.")] = False,
        no_progress: Annotated[bool, typer.Option("--no-progress",
                                                  help="No progress bar.")] = False,
        sample: Annotated[bool, typer.Option(
            "--sample-candidates", help="Upstream's preemption candidate sampling.")] = False,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", help=CLI_HELP)] = None,
        sample_nodes: Annotated[bool, typer.Option(
            "--sample-nodes", help=SAMPLE_NODES_HELP)] = False,
        kueue_version: Annotated[str, typer.Option(
            "--kueue-version", help="Kueue release for kueue-baseline / kueue-large-scale: "
            "0.20 (the default; current is an alias) or v0.7.")] = "0.20",
    ) -> None:
        """Run an upstream scheduler_perf workload in memory and report pods per second
        (kueue-baseline, kueue-large-scale: Kueue's own scheduler benchmark, simulated)."""
        if list_:
            from kubepreempt.sim.kueue_bench import CONFIGS, describe
            if output in DATA_OUTPUTS:
                emit([{"workload": w.name, "nodes": w.nodes, "initialPods": w.initial,
                       "measuredPods": w.total_pods, "description": w.description}
                      for w in [*workloads.ALL_WORKLOADS.values(),
                                *gang_workloads.GANG_WORKLOADS.values()]]
                     + [{"workload": c.name, "nodes": 0, "initialPods": 0,
                         "measuredPods": 0, "description": describe(c)}
                        for c in CONFIGS.values()], output)
                return
            table = new_table("workload", "nodes", "initial", "measured", "what")
            for w in [*workloads.ALL_WORKLOADS.values(),
                      *gang_workloads.GANG_WORKLOADS.values()]:
                table.add_row(w.name, str(w.nodes), str(w.initial), str(w.total_pods),
                              w.description)
            for c in CONFIGS.values():
                table.add_row(c.name, "-", "-", "-", describe(c))
            new_console().print(table)
            return
        if workload is None:
            fail_input("name a workload (kubepreempt bench --list shows them)")
        current_modelled()  # an unknown gate fails before the workload is built
        from kubepreempt.sim import kueue_bench
        if workload in kueue_bench.CONFIGS:
            kresult = kueue_bench.run(kueue_bench.CONFIGS[workload], kueue_version)
            if output in DATA_OUTPUTS:
                emit({**kresult, "modelled": modelled_json(kueue_version)}, output)
            else:
                kueue_bench.render(kresult, new_console())
            return
        if not scale > 0:
            fail_input("--scale must be positive")
        if workload in gang_workloads.GANG_WORKLOADS and (
                sample or scheduler_config or sample_nodes):
            fail_input("the PodGroup workloads run upstream's default profile: "
                       "--sample-candidates, --scheduler-config and --sample-nodes do not "
                       "apply to them")
        try:
            result = bench(workload, scale, show_progress=not no_progress, sample=sample,
                           scheduler_config=scheduler_config, sample_nodes=sample_nodes)
        except KeyError as exc:
            fail_input(exc.args[0])
            return
        if output in DATA_OUTPUTS:
            emit({**result, "modelled": modelled_json()}, output)
        else:
            table = new_table("key", "value", keys=(0, 1), title=result["workload"])
            for k, v in result.items():
                table.add_row(k, str(v))
            new_console().print(table)
