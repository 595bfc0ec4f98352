"""``kubepreempt schedule``: where would this pending pod go, and whom would it preempt?"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated

import typer

from kubepreempt.cli import print_json
from kubepreempt.decide import PREEMPT, SCHEDULED, Decision, load_cluster, schedule
from kubepreempt.scheduler.preemption import TIE_BREAKS

FilesArg = Annotated[list[str], typer.Argument(help="Manifest files, directories, or - for stdin.")]


def register(app: typer.Typer) -> None:
    """Add the ``schedule`` command."""

    @app.command("schedule")
    def schedule_cmd(
        files: FilesArg,
        pod: Annotated[str, typer.Option("--pod", help="The pending pod, NAMESPACE/NAME.")],
        output: Annotated[str, typer.Option("-o", "--output", help="table or json.")] = "table",
        explain: Annotated[bool, typer.Option("--explain", help="Per-node reasons, scores "
                                              "and preemption candidates.")] = False,
        no_preemption: Annotated[bool, typer.Option("--no-preemption",
                                                    help="Do not run preemption.")] = False,
        sample: Annotated[bool, typer.Option(
            "--sample-candidates", help="Mimic upstream's candidate sampling (10% of nodes, "
            "at least 100, random start) instead of evaluating every node.")] = False,
        seed: Annotated[int | None, typer.Option("--seed", help="Seed for sampling.")] = None,
    ) -> None:
        """Decide, as kube-scheduler would, where a pending pod lands or whom it preempts."""
        if output not in ("table", "json"):
            raise typer.BadParameter("must be table or json", param_hint="-o")
        cluster = load_cluster(files)
        decision = schedule(cluster, pod, preemption=not no_preemption, sample=sample,
                            seed=seed)
        if output == "json":
            print_json(decision.to_json(explain=explain))
        else:
            render(decision, explain)


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
