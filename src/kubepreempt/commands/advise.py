"""``kubepreempt advise``: what would it take for this pod, workload or PodGroup to be
placed?"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any

import typer

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
from kubepreempt.commands.schedule import (
    gang_input,
    max_pods_option,
    nothing_to_place,
    placing,
    warn_unused_new,
)
from kubepreempt.controllers.expand import WORKLOAD_KINDS
from kubepreempt.decide import resolve_pod
from kubepreempt.live.options import FilesArg, live_input, load_input, qualify
from kubepreempt.loader import SCHEDULER_KINDS, build_with_warnings, print_warnings
from kubepreempt.manifests import Documents, load_documents
from kubepreempt.release_options import current_modelled, kube_release, modelled_json
from kubepreempt.scheduler.config import CLI_HELP, use_scheduler_config
from kubepreempt.whatif.advise import Advice, advise, node_like, parse_shape
from kubepreempt.whatif.limits import DEFAULT_MAX_PODS, check_pod_limit
from kubepreempt.whatif.place import expand_documents


def register(app: typer.Typer) -> None:
    """Add the ``advise`` command."""

    @app.command("advise")
    @live_input(SCHEDULER_KINDS)
    @kube_release
    def advise_cmd(
        files: FilesArg = None,
        pod: Annotated[str | None, typer.Option(
            "--pod", metavar="[NAMESPACE/]NAME",
            help="A pending pod of the input; a bare NAME is in -n.")] = None,
        new: Annotated[list[str] | None, typer.Option(
            "-f", "--filename", help="A new Pod or workload to advise on (repeatable).")] = None,
        like: Annotated[str | None, typer.Option(
            "--node-like", help="Count nodes shaped like this existing node.")] = None,
        shape: Annotated[str | None, typer.Option(
            "--node-shape", help="Count nodes of this shape, e.g. cpu=8,memory=32Gi,pods=110."
        )] = None,
        label: Annotated[list[str] | None, typer.Option(
            "--node-label", help="KEY=VALUE label of --node-shape nodes (repeatable).")] = None,
        taint: Annotated[list[str] | None, typer.Option(
            "--node-taint", help="KEY[=VALUE]:EFFECT taint of --node-shape nodes.")] = None,
        output: Annotated[str, output_option()] = TABLE,
        seed: Annotated[int, seed_option("generated pod names")] = DEFAULT_SEED,
        scheduler_config: Annotated[str | None, typer.Option(
            "--scheduler-config", help=CLI_HELP)] = None,
        max_pods: Annotated[int, max_pods_option()] = DEFAULT_MAX_PODS,
    ) -> None:
        """Lowest priority / PriorityClass that places it, PDBs in the way, nodes to add,
        and the filters that exclude nodes with the smallest change that admits one."""
        if (pod is None) == (not new):
            raise typer.BadParameter("give exactly one of --pod NAMESPACE/NAME or -f FILE",
                                     param_hint="--pod")
        if like and shape:
            raise typer.BadParameter("give --node-like or --node-shape, not both",
                                     param_hint="--node-like")
        docs = load_documents(new) if new else None
        known: tuple[str, ...] | None = ()
        if docs is not None:
            check_pod_limit(docs, WORKLOAD_KINDS, max_pods)  # before any work
            known = gang_input(docs)
        if known is None:  # a PodGroup and its pods: advice for the whole group
            assert docs is not None
            advise_gang_cmd(files, docs, output, seed, scheduler_config, like, shape,
                            label or (), taint or ())
            return
        with loading("reading the cluster", output):
            cluster, warnings = build_with_warnings(load_input(files), known)
            print_warnings(warnings)
        use_scheduler_config(cluster, scheduler_config)
        notes: list[str] = []
        if pod is not None:
            target = resolve_pod(cluster, qualify(pod))
            workloads = [(f"Pod/{target.key}", [target], False)]
            subject = target.key
        else:
            assert docs is not None
            warn_unused_new(docs, known)
            expanded = expand_documents(cluster, docs, seed=seed)
            workloads = [(key, pods, ordered) for key, pods, ordered, _ in expanded]
            if not workloads:
                raise InputError("no Pod or workload to advise on", Source(", ".join(new or [])))
            notes = nothing_to_place(docs, WORKLOAD_KINDS)
            if notes and not any(pods for _, pods, _ in workloads):
                raise InputError("; ".join(notes))
            subject = ", ".join(key for key, _, _ in workloads)
        template = node_like(cluster, like) if like else (
            parse_shape(shape, label or (), taint or ()) if shape else None)
        with placing(output):
            result = advise(cluster, workloads, subject=subject, node_template=template)
        if output in DATA_OUTPUTS:
            emit({**result.to_json(), "seed": seed, "modelled": modelled_json()}, output)
        else:
            render(result, notes)


def advise_gang_cmd(files: list[str] | None, docs: Documents, output: str, seed: int,
                    scheduler_config: str | None, like: str | None, shape: str | None,
                    labels: Sequence[str], taints: Sequence[str]) -> None:
    """``advise -f`` of a PodGroup and its pods: what lets the whole group in."""
    from kubepreempt.commands.schedule_group import gang_release, load_gang
    from kubepreempt.whatif.gang import GANG_NEW_KINDS
    from kubepreempt.whatif.gang_advise import advise_gang

    release = current_modelled()
    now = time.time()
    cluster, gang = load_gang(files, docs, release, output, seed, now, scheduler_config)
    warn_unused_new(docs, GANG_NEW_KINDS)
    template = node_like(cluster, like) if like else (
        parse_shape(shape, labels, taints) if shape else None)
    result = advise_gang(cluster, gang, node_template=template, now=now)
    if output in DATA_OUTPUTS:
        on = gang_release(release)[0]
        assert on is not None
        emit({**result.to_json(), "seed": seed, "modelled": on.to_json()}, output)
    else:
        render(result)


def _outcome_text(o: dict[str, Any]) -> str:
    if "placements" in o:  # a PodGroup decided whole
        text = f"{o['result']} ({len(o['placements'])} pod(s) placed)"
    elif "result" in o:
        text = o["result"] + (f" on {o['node']}" if o.get("node") else "")
    else:
        text = (f"{o['scheduled']} scheduled, {o['preempting']} preempting, "
                f"{o['pending']} pending, {o['notCreated']} not created")
    if o["victims"]:
        text += f"; victims: {', '.join(o['victims'])}"
    if o.get("pdbViolations"):
        text += f"; {o['pdbViolations']} PDB violation(s)"
    return text


def render(a: Advice, notes: Sequence[str] = ()) -> None:
    """The readable report (``notes``: the workloads asked for no pods)."""
    console = new_console()
    console.print(f"[bold]{a.subject}[/] ({a.pods} pod(s))")
    for note in notes:
        console.print(note, markup=False)
    whose = "priority"
    if a.pod_group is not None:
        console.print(f"PodGroup {a.pod_group} is decided whole: every answer is for the "
                      "group's all-or-nothing decision.", highlight=False)
        whose = "PodGroup priority"
    console.print(f"As it is ({whose} {a.current['priority']}): {_outcome_text(a.current)}")
    if a.waiting is not None:
        console.print(a.waiting, markup=False)
        return
    p = a.priority
    if p["lowestValue"] is None:
        console.print("Priority: not placed at any priority up to 1000000000.")
    else:
        console.print(f"Priority: lowest value that places it: {p['lowestValue']} "
                      f"({_outcome_text(p)})")
        pc = p.get("lowestClass")
        if pc:
            console.print(f"  lowest existing PriorityClass: {pc['name']} ({pc['value']}, "
                          f"{pc['preemptionPolicy']}): {_outcome_text(pc)}")
        else:
            console.print("  no existing PriorityClass places it")
    d = a.pdbs
    console.print("PDBs violated: " + (", ".join(d["violated"]) or "none"))
    if d["blocking"]:
        for b in d["blocking"]:
            console.print(f"  {b['pdb']} changes the decision; without it: "
                          f"{_outcome_text(b['withoutIt'])}")
    else:
        console.print("  no PDB changes the decision")
    if a.nodes is not None:
        n = a.nodes
        if n["needed"] is None and n.get("rejectedBy"):
            console.print(f"Nodes like {n['template']}: none would help; an added one is "
                          f"rejected by {n['rejectedBy']}")
        elif n["needed"] is None:
            console.print(f"Nodes like {n['template']}: more than {n['searchedUpTo']} needed")
        else:
            what = "the group is scheduled" if a.pod_group is not None else "it fits"
            console.print(f"Nodes like {n['template']} to add so {what} without preemption: "
                          f"{n['needed']}")
    if a.filters_pod is None:
        console.print("Filters: every pod finds a node (no filter analysis needed).")
        return
    table = new_table("filter", "nodes", "reasons", "smallest change that admits a node",
                      title=f"Filters rejecting nodes for {a.filters_pod}")
    for f in a.filters:
        s = f.get("suggestion")
        text = "-" if s is None else (f"{s['change']} (admits {s['admits']}; then "
                                      f"{s['result']}{' on ' + s['node'] if s['node'] else ''})")
        if s is not None and "group" in s:  # a gang: the change given to every member
            text += f"; every pod so: the group is {_outcome_text(s['group'])}"
        table.add_row(f["plugin"], str(f["nodes"]), "; ".join(f["reasons"]), text)
    console.print(table)
