"""``kubepreempt simulate``: play a scenario over time and report what happened."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from kubepreempt.api.errors import InputError, Source
from kubepreempt.cli_common import (
    DATA_OUTPUTS,
    DEFAULT_SEED,
    TABLE,
    emit,
    loading,
    output_option,
    seed_option,
)
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.commands.workload_api import GATE, say_taken_on
from kubepreempt.release import Modelled
from kubepreempt.release_options import current_modelled, kube_release, modelled_json
from kubepreempt.scheduler.config import CLI_HELP, SAMPLE_NODES_HELP, use_scheduler_config
from kubepreempt.sim.autoscaler import AutoscalerOptions, parse_bool
from kubepreempt.sim.engine import DEFAULT_MAX_EVENTS, SimResult, simulate
from kubepreempt.sim.pod_groups import gang_release, warn_ignored, warn_missing
from kubepreempt.sim.scenario import DEFAULT_MAX_PODS, load_scenario, parse_duration

FilesArg = Annotated[list[str], typer.Argument(help="Scenario files, directories, or -.")]
_STYLE = {"preempted": "red", "evicted": "red", "terminated": "dim", "bound": "green",
          "nominated": "yellow", "nomination-cleared": "yellow", "unschedulable": "magenta",
          "rejected": "red"}


# metrics keys of the disruptions other than scheduler preemption, as the summary says them
_EVICTIONS = (("evictedKubeletAdmission", "by kubelet admission"),
              ("evictedNodePressure", "by node-pressure eviction"),
              ("evictedScaleDown", "by the Cluster Autoscaler's scale-down"),
              ("evictedNodeRemoved", "with their node's removal"))


def _seconds(value: str | None, option: str) -> float | None:
    if value is None:
        return None
    try:
        return parse_duration(value)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None


def register(app: typer.Typer) -> None:
    """Add the ``simulate`` command."""

    @app.command("simulate")
    @kube_release
    def simulate_cmd(
        files: FilesArg,
        output: Annotated[str, output_option()] = TABLE,
        report: Annotated[str | None, typer.Option(
            "--report", help="Write a self-contained HTML report to this file.")] = None,
        queue: Annotated[str, typer.Option(
            "--queue", help="1.36 (kube-scheduler 1.36: queueing hints, pop from backoffQ, "
            "async preemption), classic (the design doc's queue; 'priority' is an alias) "
            "or fifo (pre-1.9).")] = "1.36",
        best_candidates: Annotated[bool, typer.Option(
            "--best-candidates", help="Preempt on the globally best candidate and score "
            "every feasible node (the classic/fifo default; --sample-nodes still samples "
            "nodes) instead of upstream's sampled candidate window and "
            "percentageOfNodesToScore.")] = False,
        seed: Annotated[int, seed_option("Poisson arrivals (kubepreempt.io/rate), the "
                                         "controllers' generated pod names and the "
                                         "preemption candidates' random offset")]
        = DEFAULT_SEED,
        until: Annotated[str | None, typer.Option(
            "--until", help="Stop at this simulated time (e.g. 2h); default: when idle.")]
        = None,
        latency: Annotated[str, typer.Option(
            "--latency", help="Time each scheduling attempt takes (e.g. 50ms).")] = "0",
        max_rows: Annotated[int, typer.Option(
            "--max-rows", help="Timeline rows to print (0: all).")] = 200,
        node_pressure: Annotated[bool, typer.Option(
            "--node-pressure", help="Kubelet node-pressure eviction from the pods' "
            "kubepreempt.io/memory-usage and ephemeral-storage-usage.")] = False,
        max_events: Annotated[int, typer.Option(
            "--max-events", help="Stop with an error after this many events (0: no limit).")]
        = DEFAULT_MAX_EVENTS,
        max_pods: Annotated[int, typer.Option(
            "--max-pods", help="Refuse scenarios that expand to more pods than this.")]
        = DEFAULT_MAX_PODS,
        kueue_version: Annotated[str, typer.Option(
            "--kueue-version", help="Kueue release the scenario's Kueue objects follow: "
            "0.20 (the default; current is an alias) or v0.7.")] = "0.20",
        controller_latency: Annotated[str, typer.Option(
            "--controller-latency", help="Time a workload controller takes to create a "
            "pod, or to report a preempted Kueue Job inactive (e.g. 1s).")] = "0",
        autoscale: Annotated[bool, typer.Option(
            "--autoscale", help="Run the Cluster Autoscaler over the node groups declared "
            "on Nodes (kubepreempt.io/node-group, -min, -max).")] = False,
        expander: Annotated[str, typer.Option(
            "--expander",
            help="least-waste (upstream's default), random, most-pods or priority.",
        )] = "least-waste",
        provision_time: Annotated[str, typer.Option(
            "--provision-time", help="Time from scale-up to the node being Ready.")] = "60s",
        cutoff: Annotated[int, typer.Option(
            "--expendable-pods-priority-cutoff", help="Pods below this priority never "
            "cause scale-up and do not block scale-down.")] = -10,
        threshold: Annotated[float, typer.Option(
            "--scale-down-utilization-threshold", help="Nodes at or below this utilisation "
            "may be removed.")] = 0.5,
        unneeded: Annotated[str, typer.Option(
            "--scale-down-unneeded-time", help="How long a node is unneeded before it is "
            "removed.")] = "10m",
        delay_after_add: Annotated[str, typer.Option(
            "--scale-down-delay-after-add", help="No node removed this long after a "
            "scale-up (unneeded nodes are still tracked).")] = "10m",
        scan_interval: Annotated[str, typer.Option(
            "--scan-interval", help="The autoscaler's loop period.")] = "10s",
        skip_local_storage: Annotated[str, typer.Option(
            "--skip-nodes-with-local-storage", help="true: a pod with an emptyDir "
            "(not medium Memory) or hostPath volume blocks its node's removal.")] = "true",
        skip_system_pods: Annotated[str, typer.Option(
            "--skip-nodes-with-system-pods", help="true: a kube-system pod without a "
            "PodDisruptionBudget blocks its node's removal.")] = "true",
        skip_custom_controller_pods: Annotated[str, typer.Option(
            "--skip-nodes-with-custom-controller-pods", help="true: only "
            "ReplicationController, Job, ReplicaSet and StatefulSet pods are replicated "
            "(others block scale-down) and --min-replica-count applies.")] = "true",
        min_replica_count: Annotated[int, typer.Option(
            "--min-replica-count", help="A ReplicaSet or ReplicationController pod blocks "
            "scale-down when the owner has fewer replicas than this.")] = 0,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", help=CLI_HELP)] = None,
        sample_nodes: Annotated[bool, typer.Option(
            "--sample-nodes", help=SAMPLE_NODES_HELP)] = False,
    ) -> None:
        """Simulate the scheduler and kubelet over time: queue, nominations, grace periods."""
        if queue not in ("1.36", "classic", "priority", "fifo"):
            raise typer.BadParameter("must be 1.36, classic or fifo", param_hint="--queue")
        stop = _seconds(until, "--until")
        lat = _seconds(latency, "--latency") or 0.0
        ctrl_lat = _seconds(controller_latency, "--controller-latency") or 0.0
        options = AutoscalerOptions(
            scan_interval=_seconds(scan_interval, "--scan-interval") or 0.0,
            expendable_pods_priority_cutoff=cutoff, expander=expander,
            provision_time=_seconds(provision_time, "--provision-time") or 0.0,
            scale_down_utilization_threshold=threshold,
            scale_down_unneeded_time=_seconds(unneeded, "--scale-down-unneeded-time") or 0.0,
            scale_down_delay_after_add=_seconds(delay_after_add,
                                                "--scale-down-delay-after-add") or 0.0,
            skip_nodes_with_local_storage=parse_bool(
                skip_local_storage, "--skip-nodes-with-local-storage"),
            skip_nodes_with_system_pods=parse_bool(
                skip_system_pods, "--skip-nodes-with-system-pods"),
            skip_nodes_with_custom_controller_pods=parse_bool(
                skip_custom_controller_pods, "--skip-nodes-with-custom-controller-pods"),
            min_replica_count=min_replica_count,
        ) if autoscale else None
        if max_events < 0 or max_pods < 0:
            raise InputError("--max-events and --max-pods must not be negative")
        current_modelled()  # an unknown gate fails before the scenario is read
        with loading("reading the scenario", output):
            scenario = load_scenario(files, seed, max_pods)
        use_scheduler_config(scenario.cluster, scheduler_config, sample_nodes)
        release = current_modelled()
        gang = gang_release(release, any(scenario.group_objects.by_kind.values()))
        if gang is None:
            warn_ignored(scenario, release)
        else:
            if GATE not in release.overrides:
                say_taken_on(release.version, "schedules their pods one by one")
            warn_missing(scenario, hold=GATE in release.overrides)
        try:
            result = _run(scenario, queue, lat, stop, show_progress=output == "table",
                          node_pressure=node_pressure, controller_latency=ctrl_lat,
                          seed=seed, autoscale=options, kueue_version=kueue_version,
                          best_candidates=True if best_candidates else None,
                          max_events=max_events or None, release=release)
        except InputError as exc:  # e.g. the event limit: name the scenario it concerns
            raise exc.located(Source(", ".join(files)), None, None) from None
        report_error: InputError | None = None
        if report:
            from kubepreempt.sim.report import write_report  # plotly only when asked

            try:
                write_report(result, report)
            except OSError as exc:  # still print the run; then fail as bad input
                report_error = InputError(f"--report {report}: cannot write: "
                                          f"{exc.strerror or exc}")
        if output in DATA_OUTPUTS:
            kueue = kueue_version if "kueue" in result.metrics else None
            modelled = modelled_json(kueue)
            if gang is not None:  # GenericWorkload as the run took it
                modelled["featureGates"] = gang.decided_gates()
            emit({**result.to_json(), "seed": seed, "modelled": modelled}, output)
        else:
            render(result, max_rows)
            if report and report_error is None:
                new_console().print(f"Report written to {report}")
        if report_error is not None:
            raise report_error


def _run(scenario, queue: str, latency: float, until: float | None,
         show_progress: bool, node_pressure: bool = False, controller_latency: float = 0.0,
         seed: int = 0, autoscale: AutoscalerOptions | None = None,
         kueue_version: str = "current", best_candidates: bool | None = None,
         max_events: int | None = DEFAULT_MAX_EVENTS,
         release: Modelled | None = None) -> SimResult:
    """Run, with a progress bar of simulated time once the run has taken over a second."""
    horizon = until if until is not None else max(scenario.horizon, 1.0)
    started = time.monotonic()
    state: dict = {}

    def progress(t: float) -> None:
        bar = state.get("bar")
        if bar is None:
            if time.monotonic() - started < 1.0:
                return
            bar = Progress(TextColumn("simulated"), BarColumn(),
                           TextColumn("{task.completed:.0f}/{task.total:.0f} s"),
                           transient=True, console=Console(stderr=True))
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("sim", total=horizon)
        bar.update(state["task"], completed=min(t, horizon))

    try:
        return simulate(scenario, queue=queue, latency=latency, until=until,
                        progress=progress if show_progress else None,
                        node_pressure=node_pressure, controller_latency=controller_latency,
                        seed=seed, autoscale=autoscale, kueue_version=kueue_version,
                        best_candidates=best_candidates, max_events=max_events,
                        release=release)
    finally:
        if "bar" in state:
            state["bar"].stop()


def _time(t: float) -> str:
    """Seconds, to the millisecond at most: float sums print no 0.30000000000000004."""
    return f"{round(t, 3):g}"


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def render(result: SimResult, max_rows: int) -> None:
    """Timeline table, then the per-PriorityClass summary."""
    console = new_console()
    events = result.events
    shown = events if max_rows <= 0 else events[:max_rows]
    table = new_table("time (s)", "event", "pod", "node", "detail", keys=(0, 1, 2),
                      title="Timeline")
    for e in shown:
        style = _STYLE.get(e.type, "")
        table.add_row(_time(e.time), f"[{style}]{e.type}[/]" if style else e.type, e.pod,
                      e.node or "", e.detail)
    console.print(table)
    if len(shown) < len(events):
        console.print(f"... {len(events) - len(shown)} more events (--max-rows 0 shows all, "
                      "-o json gives them all)")
    summary = new_table("PriorityClass", "prio", "pods", "sched", "preempted", "pending",
                        "mean wait s", "p95 wait s", "lost pod-s",
                        title="Summary per PriorityClass (wait: time pending)")
    for name, c in result.metrics["classes"].items():
        summary.add_row(name, str(c["priority"]), str(c["pods"]), str(c["scheduled"]),
                        str(c["preempted"]), str(c["pending"]), _fmt(c["meanPending"]),
                        _fmt(c["p95Pending"]), f"{c['workLost']:.0f}")
    console.print(summary)
    evicted = ", ".join(f"{result.metrics[k]} {label}" for k, label in _EVICTIONS
                        if result.metrics.get(k))
    if evicted:
        console.print(f"Evicted (counted apart from preempted): {evicted}.")
    if "podGroups" in result.metrics:
        render_groups(result.metrics["podGroups"], console)
    if "kueue" in result.metrics:
        from kubepreempt.sim.kueue_metrics import render_kueue

        render_kueue(result.metrics["kueue"], console)
    u = result.metrics["utilization"]
    console.print(f"Simulated {result.end:g} s: {result.processed} events, {result.attempts} "
                  f"scheduling attempts; cpu utilisation mean {u['cpuMean'] * 100:.1f}%, peak "
                  f"{u['cpuPeak'] * 100:.1f}%; memory mean {u['memoryMean'] * 100:.1f}%.")
    m = result.metrics
    if "podsCreated" in m:
        console.print(f"Controllers: {m['podsCreated']} pod(s) created, {m['podsLost']} lost "
                      "to preemption, eviction or node removal.")
    if m.get("quotaRefusals"):
        refusals = ", ".join(f"{ns}/{pc}: {n}" for ns, row in m["quotaRefusals"].items()
                             for pc, n in row.items())
        console.print(f"ResourceQuota refusals (namespace/PriorityClass): {refusals}.")
    a = m.get("autoscaler")
    if a:
        table = new_table("node group", "size", "added", "removed", "peak", "node-hours",
                          title="Cluster Autoscaler")
        for name, g in a["groups"].items():
            table.add_row(name, f"{g['min']}..{g['max']}", str(g["nodesAdded"]),
                          str(g["nodesRemoved"]), str(g["peakNodes"]),
                          f"{g['nodeSeconds'] / 3600:.2f}")
        console.print(table)
        console.print("Nodes over time: " + ", ".join(f"{n} at {t:g} s"
                                                      for t, n in a["nodeCount"]))


def render_groups(groups: dict, console: Console) -> None:
    """The PodGroups table (``metrics.podGroups``) and one line of totals."""
    table = new_table("PodGroup", "policy", "minCount", "prio", "pods", "ready s",
                      "admitted s", "wait s", "cycles", "preempted pods", keys=(0,),
                      title="PodGroups (wait: ready to minCount bound)")
    for key, g in groups["byGroup"].items():
        table.add_row(key, f"{g['policy']}/{g['disruptionMode']}", str(g["minCount"]),
                      str(g["priority"]), str(g["podsCreated"]), _fmt(g["readyAt"]),
                      _fmt(g["admittedAt"]), _fmt(g["wait"]), str(g["cycles"]),
                      str(g["preemptedPods"]))
    console.print(table)
    line = (f"PodGroups: {groups['groups']}, admitted {groups['admitted']}, preempted "
            f"(as victims) {groups['preempted']}, never admitted {groups['waiting']}; "
            f"mean wait {_fmt(groups['meanWait'])} s, p95 {_fmt(groups['p95Wait'])} s.")
    if groups["missing"]:
        line += f" Held for a PodGroup not in the scenario: {', '.join(groups['missing'])}."
    console.print(line, highlight=False)
