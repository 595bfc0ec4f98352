"""``kubepreempt schedule``: where would this pending pod go, and whom would it preempt?"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # rich is imported only when a table is printed
    from rich.console import Console

    from kubepreempt.whatif.place import Placement, WhatIf

from kubepreempt.api.errors import InputError
from kubepreempt.cli_common import (
    DATA_OUTPUTS,
    DEFAULT_NAMESPACE,
    DEFAULT_SEED,
    TABLE,
    emit,
    loading,
    output_option,
    seed_option,
    short_code,
)
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.commands.workload_api import (
    group_to_decide,
    load_objects,
    warn_missing_groups,
    workload_api,
)
from kubepreempt.decide import (
    PREEMPT,
    SCHEDULED,
    Decision,
    resolve_pod,
    schedule,
)
from kubepreempt.live.options import FilesArg, live_input, load_input, qualify
from kubepreempt.live.resources import WORKLOAD_API_KINDS
from kubepreempt.loader import SCHEDULER_KINDS, build_with_warnings, print_warnings
from kubepreempt.manifests import Documents, load_documents
from kubepreempt.release_options import current_modelled, kube_release, modelled_json
from kubepreempt.scheduler.config import CLI_HELP, SAMPLE_NODES_HELP, use_scheduler_config
from kubepreempt.scheduler.preemption import TIE_BREAKS
from kubepreempt.scheduler.preemption.pick import ONLY_CANDIDATE
from kubepreempt.whatif.limits import DEFAULT_MAX_PODS


def max_pods_option() -> Any:
    """The ``--max-pods`` option of ``schedule -f`` and ``advise -f``."""
    return typer.Option(
        "--max-pods", metavar="N", min=1,
        help="With -f: refuse a workload that asks for more pods than this (a mistyped "
        "replica count would take long and much memory).")


def register(app: typer.Typer) -> None:
    """Add the ``schedule`` command."""

    @app.command("schedule")
    @live_input((*SCHEDULER_KINDS, *WORKLOAD_API_KINDS))
    @kube_release
    def schedule_cmd(
        files: FilesArg = None,
        pod: Annotated[str | None, typer.Option(
            "--pod", metavar="[NAMESPACE/]NAME",
            help="The pending pod; a bare NAME is in --namespace.")] = None,
        new: Annotated[list[str] | None, typer.Option(
            "-f", "--filename", metavar="FILE",
            help="New Pods / Deployments / ReplicaSets / StatefulSets / "
            "Jobs / CronJobs / DaemonSets to expand and place one by one, or a "
            "scheduling.k8s.io/v1beta1 PodGroup with its pods, decided whole "
            "(repeatable).")] = None,
        output: Annotated[str, output_option()] = TABLE,
        explain: Annotated[bool, typer.Option("--explain", help="Per-node reasons, scores "
                                              "and preemption candidates.")] = False,
        max_rows: Annotated[int, typer.Option(
            "--max-rows", metavar="N", help="With --explain: rows per table; beyond it, "
            "nodes are grouped by reason (0: no limit).")] = 50,
        no_preemption: Annotated[bool, typer.Option("--no-preemption",
                                                    help="Do not run preemption.")] = False,
        sample: Annotated[bool, typer.Option(
            "--sample-candidates", help="Mimic upstream's candidate sampling (10% of nodes, "
            "at least 100, random start from --seed) instead of evaluating every node.")]
        = False,
        seed: Annotated[int, seed_option("sampling and generated pod names")] = DEFAULT_SEED,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", metavar="FILE", help=CLI_HELP)] = None,
        sample_nodes: Annotated[bool, typer.Option(
            "--sample-nodes", help=SAMPLE_NODES_HELP)] = False,
        pod_group: Annotated[str | None, typer.Option(
            "--pod-group", metavar="[NAMESPACE/]NAME",
            help="Decide a scheduling.k8s.io/v1beta1 PodGroup all or nothing (Kubernetes "
            "1.37 gang scheduling) instead of one pod.")] = None,
        max_pods: Annotated[int, max_pods_option()] = DEFAULT_MAX_PODS,
    ) -> None:
        """Decide, as kube-scheduler would, where a pending pod lands or whom it preempts.

        With -f, the new workloads are expanded into the pods their controllers would
        create and placed one at a time in queue order, each decision applied first; a
        PodGroup with its pods is decided whole, as --pod-group decides one.
        """
        if pod_group is not None:
            from kubepreempt.commands.schedule_group import run_pod_group

            run_pod_group(files, pod_group, output, not no_preemption, seed,
                          scheduler_config, sample_nodes, release=current_modelled())
            return
        if new:
            run_what_if(files, new, pod, output, explain, not no_preemption, seed,
                        scheduler_config, sample_nodes, max_rows, max_pods)
            return
        if pod is None:
            raise typer.BadParameter("give --pod [NAMESPACE/]NAME or -f NEW.yaml",
                                     param_hint="--pod")
        with loading("reading the cluster", output):
            docs = load_input(files)
            api = workload_api(docs, current_modelled())
            cluster, warnings = build_with_warnings(docs, api.extra_kinds)
            print_warnings(warnings)
            load_objects(api, docs, cluster)
        warn_missing_groups(api, docs, cluster)
        target = resolve_pod(cluster, qualify(pod))
        group = group_to_decide(api, target)
        if group is not None:
            from kubepreempt.commands.schedule_group import run_pod_group

            print(f"note: pod {target.key} belongs to PodGroup {group}, and kube-scheduler "
                  "pops the whole group: deciding the group (as --pod-group)",
                  file=sys.stderr)
            run_pod_group(None, group, output, not no_preemption, seed, scheduler_config,
                          sample_nodes, release=api.release, loaded=(docs, cluster,
                                                                      api.objects))
            return
        use_scheduler_config(cluster, scheduler_config, sample_nodes)
        decision = schedule(cluster, target, preemption=not no_preemption, sample=sample,
                            seed=seed, release=api.release,
                            pod_groups=api.objects.pod_groups)
        if output in DATA_OUTPUTS:
            emit({**decision.to_json(explain=explain), "seed": seed,
                  "modelled": api.release.to_json()}, output)
        else:
            render(decision, explain, max_rows)


def run_what_if(files: list[str] | None, new: list[str], pod: str | None, output: str,
                explain: bool, preemption: bool, seed: int,
                scheduler_config: str | None = None, sample_nodes: bool = False,
                max_rows: int = 50, max_pods: int = DEFAULT_MAX_PODS) -> None:
    """``schedule -f``: expand, place, print."""
    # The controllers' expansion (croniter, hashing) loads only for -f.
    from kubepreempt.controllers.expand import WORKLOAD_KINDS
    from kubepreempt.whatif.limits import check_pod_limit
    from kubepreempt.whatif.place import what_if

    docs = load_documents(new)
    check_pod_limit(docs, WORKLOAD_KINDS, max_pods)  # before any work
    known = gang_input(docs, pod)
    if known is None:  # a PodGroup and its pods: decided whole
        run_gang_what_if(files, docs, output, preemption, seed, scheduler_config,
                         sample_nodes)
        return
    with loading("reading the cluster", output):
        cluster, warnings = build_with_warnings(load_input(files), known)
        print_warnings(warnings)
    use_scheduler_config(cluster, scheduler_config, sample_nodes)
    extra = [resolve_pod(cluster, qualify(pod))] if pod else []
    with placing(output):
        result = what_if(cluster, docs, seed=seed, preemption=preemption, explain=explain,
                         extra_pods=extra)
    warn_unused_new(docs, known)
    if output in DATA_OUTPUTS:
        emit({**result.to_json(explain=explain), "seed": seed, "modelled": modelled_json()},
             output)
    else:
        render_what_if(result, explain, max_rows, nothing_to_place(docs, WORKLOAD_KINDS))


def run_gang_what_if(files: list[str] | None, docs: Documents, output: str,
                     preemption: bool, seed: int, scheduler_config: str | None = None,
                     sample_nodes: bool = False) -> None:
    """``schedule -f`` of a PodGroup and its pods: one pod group cycle for the whole
    group, printed as ``--pod-group`` prints it (the cluster input is not changed)."""
    from kubepreempt.commands.schedule_group import (
        gang_release,
        load_gang,
        say_not_created,
        show_group,
    )
    from kubepreempt.whatif.gang import GANG_NEW_KINDS, gang_trial

    release = current_modelled()
    now = time.time()
    cluster, gang = load_gang(files, docs, release, output, seed, now, scheduler_config,
                              sample_nodes)
    warn_unused_new(docs, GANG_NEW_KINDS)
    refused: list[tuple[str, str]] = []
    decision = gang_trial(cluster, gang, now=now, preemption=preemption, refused=refused)
    say_not_created(refused)
    show_group(decision, output, seed, gang_release(release)[0])


def gang_input(docs: Documents, pod: str | None = None) -> tuple[str, ...] | None:
    """How ``-f`` is placed: None when it holds a PodGroup and its pods to decide whole
    (Kubernetes 1.37 with GenericWorkload); else the extra kinds the run reads without
    using — the workload API's, when its pods are scheduled pod by pod, said in one
    line (1.36, or GenericWorkload off) — or () for plain input."""
    from kubepreempt.whatif.gang import holds_gang

    if not holds_gang(docs):
        return ()
    from kubepreempt.api.podgroup import KINDS
    from kubepreempt.commands.schedule_group import gang_release

    on, note = gang_release(current_modelled())
    if on is None:
        print(note, file=sys.stderr)
        return KINDS
    if pod is not None:
        raise InputError("--pod cannot join a PodGroup in -f: the group is decided whole "
                         "(decide the pod alone with --pod, without -f)")
    return None


def unused_new_warnings(docs: Documents, known: Iterable[str] = ()) -> list[str]:
    """Warnings about the objects of the ``-f`` documents the run does not use: one line
    for the kinds it never reads (``known``: other kinds it reads), and one per Node,
    saying where a node belongs."""
    from kubepreempt.whatif.place import NEW_KINDS

    lines = []
    line = docs.unused_warning((*NEW_KINDS, *known, "Node"))
    if line is not None:
        lines.append(line)
    for o in docs.of("Node"):
        lines.append(f"warning: {o.source}: Node {o.name} is not added to the cluster: -f "
                     "holds the new pods and workloads only. To place them with this node, "
                     "give it among the cluster inputs (the files before -f); to ask how "
                     "many nodes like it they need, use `advise -f ... --node-like NAME` "
                     "(NAME: a node of the cluster) or `--node-shape`")
    return lines


def warn_unused_new(docs: Documents, known: Iterable[str] = ()) -> None:
    """Print :func:`unused_new_warnings` on stderr."""
    for line in unused_new_warnings(docs, known):
        print(line, file=sys.stderr)


#: Seconds of placing before progress shows.
PROGRESS_DELAY = 2.0


@contextmanager
def placing(output: str, delay: float = PROGRESS_DELAY) -> Iterator[None]:
    """Progress of placing new pods on stderr (pods decided of those queued), shown once
    it has taken ``delay`` seconds, only for a terminal, never when the output is data."""
    from kubepreempt.whatif.place import PROGRESS

    if output in DATA_OUTPUTS or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    status = Console(stderr=True).status("placing new pods")
    start = time.monotonic()
    shown = [0.0]  # when the text was last updated (0: not shown yet)

    def report(done: int, queued: int) -> None:
        now = time.monotonic()
        if now - start < delay or now - shown[0] < 0.2:
            return
        if not shown[0]:
            status.start()
        shown[0] = now
        status.update(f"placing new pods: {done:,} decided, {queued:,} created so far")

    token = PROGRESS.set(report)
    try:
        yield
    finally:
        PROGRESS.reset(token)
        status.stop()


def nothing_to_place(docs: Documents, kinds: Iterable[str]) -> list[str]:
    """``Deployment/shop/z has replicas: 0; nothing to place``, for each workload of
    ``kinds`` in ``docs`` asked for no pods (``replicas: 0``, a Job's ``parallelism: 0``)."""
    notes = []
    for kind in kinds:
        for o in docs.of(kind):
            spec = o.body.get("spec")
            field = "parallelism" if kind == "Job" else "replicas"
            if isinstance(spec, Mapping) and spec.get(field) == 0:
                notes.append(f"{kind}/{o.namespace or DEFAULT_NAMESPACE}/{o.name} has "
                             f"{field}: 0; nothing to place")
    return notes


def render_what_if(result: WhatIf, explain: bool, max_rows: int = 50,
                   notes: Sequence[str] = ()) -> None:
    """Readable output: one row per pod, then the summary (``notes`` alone when no pod
    was created: an empty table says nothing)."""
    console = new_console()
    if not result.placements and not result.rejected_objects and notes:
        for note in notes:
            console.print(note, markup=False)
        return
    table = new_table("pod", "workload", "priority", "result", "node", "victims / why pending",
                      keys=(0, 1, 4), title="New pods, in the order the scheduler takes them")
    for p, n in runs(result.placements):
        detail = ", ".join(v.key for v in p.victims) if p.victims else p.message
        outcome = p.result
        if p.result == PREEMPT:
            outcome += ", then bound" if p.bound_node else ", then pending"
        elif p.bound_node:
            outcome += ", then bound"
        table.add_row(p.pod.key + (f" ×{n}" if n > 1 else ""), p.workload,
                      str(p.pod.priority), outcome, p.bound_node or p.node or "-", detail)
    console.print(table)
    s = result.summary()
    console.print(f"{s['pods']} pod(s): {s['scheduled']} scheduled, {s['preempting']} "
                  f"preempting ({s['boundAfterPreemption']} bound once their victims left), "
                  f"{s['pending']} pending"
                  + (f" ({s['boundAfterWaiting']} more bound once victims left)"
                     if s["boundAfterWaiting"] else "")
                  + f", {s['notCreated']} not "
                  f"created, {s['rejected']} rejected by quota; {s['victims']} victim(s), "
                  f"{s['pdbViolations']} PDB "
                  "violation(s).", highlight=False)
    if s["victims"]:
        table = new_table("victims by owner", "count")
        for owner, n in s["victimsByOwner"].items():
            table.add_row(owner, str(n))
        console.print(table)
        table = new_table("victims by PriorityClass", "count")
        for pc, n in s["victimsByPriorityClass"].items():
            table.add_row(pc, str(n))
        console.print(table)
    for r in s["rejectedObjects"]:
        console.print(f"Not created: {r['object']}: {r['message']}", highlight=False)
    for workload, pods in s["adoptedPods"].items():
        console.print(f"Adopted by {workload} (not created again): {', '.join(pods)}",
                      highlight=False)
    for note in notes:
        console.print(note, markup=False)
    if s["clearedNominations"]:
        console.print("Nominations cleared: " + ", ".join(s["clearedNominations"]))
    if explain:
        for p, n in runs(result.placements):
            if p.decision is not None:
                console.print(f"--- {p.pod.key}" + (
                    f" (and the {n - 1} identical replicas after it)" if n > 1 else ""))
                render(p.decision, True, max_rows)


def runs(placements: Sequence[Placement]) -> list[tuple[Placement, int]]:
    """Placements as ``(first, count)``: a pod followed by the replicas its cycle answered
    (same template, pending for the same reason, nothing changed in between) is one
    entry, shown as one row ``×count``."""
    out: list[tuple[Placement, int]] = []
    for p in placements:
        if out and _repeats(out[-1][0], p):
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((p, 1))
    return out


def _repeats(first: Placement, p: Placement) -> bool:
    """True when ``p`` was answered by ``first``'s cycle and both are still pending for
    the same reason (the settle pass may have bound or changed one of them since)."""
    return (p.answered_by is not None and p.answered_by in (first.pod.key, first.answered_by)
            and p.result == first.result and p.message == first.message
            and not p.bound_node and not first.bound_node)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def render(decision: Decision, explain: bool, max_rows: int = 50) -> None:
    """Readable output: one sentence, then tables (at most ``max_rows`` rows each)."""
    console = new_console()
    if decision.result == SCHEDULED:
        console.print(f"[green]{decision.pod}[/] fits without preemption: it is scheduled on "
                      f"[bold]{decision.node}[/].")
    elif decision.result == PREEMPT:
        console.print(f"[yellow]{decision.pod}[/] fits nowhere as things are; it preempts "
                      f"{len(decision.victims)} pod(s) on [bold]{decision.node}[/] and is "
                      f"nominated there.")
        table = new_table("victim", "priority", "node", keys=(0, 2))
        assert decision.preemption is not None
        for p in decision.preemption.victims:
            table.add_row(p.key, str(p.priority), p.node_name)
        console.print(table)
        if decision.pdb_violations:
            console.print(f"PDB violations: {decision.pdb_violations}")
        if decision.cleared_nominations:
            console.print("Nominations cleared (lower priority, same node): "
                          + ", ".join(sorted(decision.cleared_nominations)))
        if explain and decision.message:
            console.print(f"Filters: {decision.message}", markup=False)
    else:
        from rich.text import Text

        # One print, so the sentence wraps as one (the message is not markup).
        console.print(Text.assemble((decision.pod, "red"), " cannot be scheduled: ",
                                    decision.message))
    if decision.profile not in (None, "default-scheduler"):
        console.print(f'Decided by the scheduler profile "{decision.profile}".')
    if not explain:
        return
    limit = max_rows if max_rows > 0 else None
    if decision.scores:
        plugins = sorted({k for s in decision.scores.values() for k in s})
        # the total decides: it stays in the table, a plugin's column moves if need be
        table = new_table("node", *plugins, "total", keys=(0, len(plugins) + 1),
                          title="Scores of feasible nodes (weighted)")
        ranked = sorted(decision.scores.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        for node, s in ranked[:limit]:
            table.add_row(node, *(str(s.get(p, 0)) for p in plugins), str(sum(s.values())))
        console.print(table)
        _more(console, len(ranked), limit, "feasible nodes")
    pre = decision.preemption
    if pre is not None and pre.candidates:
        table = new_table("node", "victims", "PDB viol.", "top prio", "prio sum",
                          "count", "earliest start",
                          title="Preemption candidates")
        cands = sorted(pre.candidates, key=lambda c: c.node)
        for c in cands[:limit]:
            starts = [p.start_time for p in c.victims if p.start_time is not None]
            table.add_row(c.node, ", ".join(p.key for p in c.victims), str(c.pdb_violations),
                          str(c.highest_priority), str(sum(p.priority for p in c.victims)),
                          str(len(c.victims)), _iso(min(starts)) if starts else "now")
        console.print(table)
        _more(console, len(cands), limit, "candidates")
        console.print(f"Chosen: {pre.node}, {decided_text(pre.decided_by)}.")
    if decision.statuses:
        _statuses(console, decision, limit)
    if decision.preemption_statuses:
        table = new_table("node", "why not a preemption candidate", title="Preemption")
        rows = sorted(decision.preemption_statuses.items())
        for node, st in rows[:limit]:
            table.add_row(node, "; ".join(st.reasons))
        console.print(table)
        _more(console, len(rows), limit, "nodes")


def decided_text(decided_by: str) -> str:
    """``decided at step 3: ...``, or ``the only candidate``."""
    if decided_by == ONLY_CANDIDATE:
        return "the only candidate"
    step = TIE_BREAKS.index(decided_by) + 1 if decided_by in TIE_BREAKS else "?"
    return f"decided at step {step} of {len(TIE_BREAKS)}: {decided_by}"


def _more(console: Console, total: int, limit: int | None, what: str) -> None:
    if limit is not None and total > limit:
        console.print(f"... {total - limit} more {what} (--max-rows 0 shows all, -o json "
                      "gives them all)")


def _statuses(console: Console, decision: Decision, limit: int | None) -> None:
    """Per node when they fit in ``limit`` rows; else one row per distinct reason."""
    statuses = sorted(decision.statuses.items())
    if limit is None or len(statuses) <= limit:
        table = new_table("node", "plugin", "code", "reasons", keys=(0, 1),
                          title="Nodes that did not fit")
        for node, st in statuses:
            table.add_row(node, st.plugin, short_code(st.code), "; ".join(st.reasons))
        console.print(table)
        return
    groups: dict[tuple[str, str, str], list[str]] = {}
    for node, st in statuses:
        groups.setdefault((st.plugin, short_code(st.code), "; ".join(st.reasons)),
                          []).append(node)
    table = new_table("nodes", "plugin", "code", "reasons", "for example",
                      title=f"Nodes that did not fit ({len(statuses)}), grouped by reason")
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for (plugin, code, reasons), nodes in ordered[:limit]:
        table.add_row(str(len(nodes)), plugin, code, reasons, ", ".join(nodes[:3])
                      + (", ..." if len(nodes) > 3 else ""))
    console.print(table)
    _more(console, len(ordered), limit, "reasons")
