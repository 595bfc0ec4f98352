"""``kubepreempt schedule``: where would this pending pod go, and whom would it preempt?"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated

import typer

from kubepreempt.api.spread_sources import SOURCE_KINDS
from kubepreempt.cli import print_json
from kubepreempt.cluster import SCHEDULER_KINDS, build_cluster
from kubepreempt.controllers.expand import WORKLOAD_KINDS
from kubepreempt.decide import (
    PREEMPT,
    SCHEDULED,
    Decision,
    resolve_pod,
    schedule,
)
from kubepreempt.live.options import live_input, load_input, qualify
from kubepreempt.manifests import load_documents
from kubepreempt.scheduler.config import CLI_HELP, SAMPLE_NODES_HELP, use_scheduler_config
from kubepreempt.scheduler.preemption import TIE_BREAKS
from kubepreempt.whatif.place import WhatIf, what_if

FilesArg = Annotated[list[str] | None, typer.Argument(
    help="Manifest files, directories, or - for stdin (or --cluster).")]


def register(app: typer.Typer) -> None:
    """Add the ``schedule`` command."""

    @app.command("schedule")
    @live_input(SCHEDULER_KINDS)
    def schedule_cmd(
        files: FilesArg = None,
        pod: Annotated[str | None, typer.Option(
            "--pod", help="The pending pod, NAMESPACE/NAME.")] = None,
        new: Annotated[list[str] | None, typer.Option(
            "-f", "--filename", help="New Pods / Deployments / ReplicaSets / StatefulSets / "
            "Jobs / CronJobs / DaemonSets to expand and place one by one (repeatable).")] = None,
        output: Annotated[str, typer.Option("-o", "--output", help="table or json.")] = "table",
        explain: Annotated[bool, typer.Option("--explain", help="Per-node reasons, scores "
                                              "and preemption candidates.")] = False,
        no_preemption: Annotated[bool, typer.Option("--no-preemption",
                                                    help="Do not run preemption.")] = False,
        sample: Annotated[bool, typer.Option(
            "--sample-candidates", help="Mimic upstream's candidate sampling (10% of nodes, "
            "at least 100, random start) instead of evaluating every node.")] = False,
        seed: Annotated[int | None, typer.Option(
            "--seed", help="Seed for sampling and for generated pod names.")] = None,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", help=CLI_HELP)] = None,
        sample_nodes: Annotated[bool, typer.Option(
            "--sample-nodes", help=SAMPLE_NODES_HELP)] = False,
    ) -> None:
        """Decide, as kube-scheduler would, where a pending pod lands or whom it preempts.

        With -f, the new workloads are expanded into the pods their controllers would
        create and placed one at a time in queue order, each decision applied first.
        """
        if output not in ("table", "json"):
            raise typer.BadParameter("must be table or json", param_hint="-o")
        if new:
            run_what_if(files, new, pod, output, explain, not no_preemption, seed or 0,
                        scheduler_config, sample_nodes)
            return
        if pod is None:
            raise typer.BadParameter("give --pod NAMESPACE/NAME or -f NEW.yaml",
                                     param_hint="--pod")
        cluster = build_cluster(load_input(files))
        use_scheduler_config(cluster, scheduler_config, sample_nodes)
        decision = schedule(cluster, qualify(pod), preemption=not no_preemption, sample=sample,
                            seed=seed)
        if output == "json":
            print_json(decision.to_json(explain=explain))
        else:
            render(decision, explain)


def run_what_if(files: list[str] | None, new: list[str], pod: str | None, output: str,
                explain: bool, preemption: bool, seed: int,
                scheduler_config: str | None = None, sample_nodes: bool = False) -> None:
    """``schedule -f``: expand, place, print."""
    cluster = build_cluster(load_input(files))
    use_scheduler_config(cluster, scheduler_config, sample_nodes)
    extra = [resolve_pod(cluster, qualify(pod))] if pod else []
    docs = load_documents(new)
    result = what_if(cluster, docs, seed=seed, preemption=preemption, explain=explain,
                     extra_pods=extra)
    docs.warn_unused(("Pod", *WORKLOAD_KINDS, *SOURCE_KINDS))
    if output == "json":
        print_json(result.to_json(explain=explain))
    else:
        render_what_if(result, explain)


def render_what_if(result: WhatIf, explain: bool) -> None:
    """Readable output: one row per pod, then the summary."""
    from rich.console import Console  # only for tables: JSON output skips importing rich
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 120)
    table = Table("pod", "workload", "priority", "result", "node", "victims / why pending",
                  title="New pods, in the order the scheduler takes them")
    for p in result.placements:
        detail = ", ".join(v.key for v in p.victims) if p.victims else p.message
        outcome = p.result
        if p.result == PREEMPT:
            outcome += ", then bound" if p.bound_node else ", then pending"
        table.add_row(p.pod.key, p.workload, str(p.pod.priority), outcome,
                      p.bound_node or p.node or "-", detail)
    console.print(table)
    s = result.summary()
    console.print(f"{s['pods']} pod(s): {s['scheduled']} scheduled, {s['preempting']} "
                  f"preempting ({s['boundAfterPreemption']} bound once their victims left), "
                  f"{s['pending']} pending, {s['notCreated']} not "
                  f"created, {s['rejected']} rejected by quota; {s['victims']} victim(s), "
                  f"{s['pdbViolations']} PDB "
                  "violation(s).", highlight=False)
    if s["victims"]:
        table = Table("victims by owner", "count")
        for owner, n in s["victimsByOwner"].items():
            table.add_row(owner, str(n))
        console.print(table)
        table = Table("victims by PriorityClass", "count")
        for pc, n in s["victimsByPriorityClass"].items():
            table.add_row(pc, str(n))
        console.print(table)
    for r in s["rejectedObjects"]:
        console.print(f"Not created: {r['object']}: {r['message']}", highlight=False)
    if s["clearedNominations"]:
        console.print("Nominations cleared: " + ", ".join(s["clearedNominations"]))
    if explain:
        for p in result.placements:
            if p.decision is not None:
                console.rule(p.pod.key)
                render(p.decision, True)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render(decision: Decision, explain: bool) -> None:
    """Readable output: one sentence, then tables."""
    from rich.console import Console  # only for tables: JSON output skips importing rich
    from rich.table import Table

    # Pipes get 80 columns by default, which truncates node and pod names; folding is
    # better than an ellipsis, and a wider default suits the tables.
    console = Console(width=None if sys.stdout.isatty() else 120)
    if decision.result == SCHEDULED:
        console.print(f"[green]{decision.pod}[/] fits without preemption: it is scheduled on "
                      f"[bold]{decision.node}[/].")
    elif decision.result == PREEMPT:
        console.print(f"[yellow]{decision.pod}[/] fits nowhere as things are; it preempts "
                      f"{len(decision.victims)} pod(s) on [bold]{decision.node}[/] and is "
                      f"nominated there.")
        table = Table("victim", "priority", "node")
        assert decision.preemption is not None
        for p in decision.preemption.victims:
            table.add_row(p.key, str(p.priority), p.node_name)
        console.print(table)
        if decision.pdb_violations:
            console.print(f"PDB violations: {decision.pdb_violations}")
        if decision.cleared_nominations:
            console.print("Nominations cleared (lower priority, same node): "
                          + ", ".join(sorted(decision.cleared_nominations)))
    else:
        console.print(f"[red]{decision.pod}[/] cannot be scheduled: {decision.message}",
                      highlight=False)
    if decision.profile not in (None, "default-scheduler"):
        console.print(f'Decided by the scheduler profile "{decision.profile}".', highlight=False)
    if not explain:
        return
    if decision.scores:
        plugins = sorted({k for s in decision.scores.values() for k in s})
        table = Table("node", *plugins, "total", title="Scores of feasible nodes (weighted)")
        for node, s in sorted(decision.scores.items(),
                              key=lambda kv: (-sum(kv[1].values()), kv[0])):
            table.add_row(node, *(str(s.get(p, 0)) for p in plugins), str(sum(s.values())))
        console.print(table)
    pre = decision.preemption
    if pre is not None and pre.candidates:
        table = Table("node", "victims", "PDB violations", "highest prio", "prio sum", "count",
                      "earliest start", title="Preemption candidates")
        for c in sorted(pre.candidates, key=lambda c: c.node):
            starts = [p.start_time for p in c.victims if p.start_time is not None]
            table.add_row(c.node, ", ".join(p.key for p in c.victims), str(c.pdb_violations),
                          str(c.highest_priority), str(sum(p.priority for p in c.victims)),
                          str(len(c.victims)), _iso(min(starts)) if starts else "now")
        console.print(table)
        step = TIE_BREAKS.index(pre.decided_by) + 1 if pre.decided_by in TIE_BREAKS else "?"
        console.print(f"Chosen: {pre.node}, decided at step {step}: {pre.decided_by}.")
    if decision.statuses:
        table = Table("node", "plugin", "code", "reasons", title="Nodes that did not fit")
        for node, st in sorted(decision.statuses.items()):
            code = "unresolvable" if st.unresolvable else "unschedulable"
            table.add_row(node, st.plugin, code, "; ".join(st.reasons))
        console.print(table)
    if decision.preemption_statuses:
        table = Table("node", "why not a preemption candidate", title="Preemption")
        for node, st in sorted(decision.preemption_statuses.items()):
            table.add_row(node, "; ".join(st.reasons))
        console.print(table)
