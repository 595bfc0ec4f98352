"""``kubepreempt schedule --pod-group NS/NAME``: decide a PodGroup all or nothing.

The input's ``scheduling.k8s.io/v1beta1`` PodGroups and Workloads are validated as
kube-apiserver 1.37 validates them; the named group runs one pod group scheduling cycle
(:mod:`kubepreempt.scheduler.gang`). ``--pod-group`` asks for Kubernetes 1.37's workload
API, so the GenericWorkload gate is on unless ``gates`` says otherwise; with the
WorkloadAwarePreemption gate on, an unschedulable group runs workload-aware preemption.

``schedule -f`` / ``advise -f`` of a PodGroup with its pods share this: the release
rules (:func:`gang_release`), reading the cluster and the group (:func:`load_gang`) and
the answer's output (:func:`show_group`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kubepreempt.api.errors import InputError
from kubepreempt.api.podgroup import KINDS, GroupObjects, load_group_objects
from kubepreempt.api.podgroup_validation import gate
from kubepreempt.cli_common import DATA_OUTPUTS, emit, loading
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.cluster import build_cluster
from kubepreempt.cluster_state import Cluster
from kubepreempt.commands.workload_api import say_taken_on
from kubepreempt.live.options import load_input, qualify
from kubepreempt.loader import build_with_warnings, print_warnings
from kubepreempt.manifests import Documents
from kubepreempt.release import WORKLOAD_API_V1BETA1, Modelled
from kubepreempt.scheduler.config import use_scheduler_config
from kubepreempt.scheduler.gang import GroupDecision, schedule_pod_group
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.scheduler import Scheduler

if TYPE_CHECKING:
    from kubepreempt.whatif.gang import Gang

# --pod-group uses the 1.37 workload API: its gate is on unless told otherwise.
POD_GROUP_GATES: Mapping[str, bool] = {"GenericWorkload": True}


def gates_for(release: Modelled) -> dict[str, bool]:
    """The gates a group decision runs with under ``release`` (``--kube-version``,
    ``--feature-gates``): GenericWorkload is on unless the flag turns it off (asking for a
    PodGroup says the API is served), and with it, in 1.37, gang scheduling and
    workload-aware preemption (the gates 1.36 had for them were folded into it)."""
    if WORKLOAD_API_V1BETA1 not in release.release.workload_api:
        raise InputError(f"--pod-group models Kubernetes 1.37's scheduling.k8s.io/v1beta1 "
                         f"Workload API; {release.version}'s alpha API is not modelled "
                         "(use --kube-version 1.37)")
    generic = release.overrides.get("GenericWorkload", True)
    on = Modelled(release.release, {**release.overrides, "GenericWorkload": generic})
    return {"GenericWorkload": generic,
            "WorkloadAwarePreemption": on.workload_aware_preemption,
            "PodGroupPreemptionPolicy": on.enabled("PodGroupPreemptionPolicy")}


def run_pod_group(files: list[str] | None, pod_group: str, output: str, preemption: bool,
                  seed: int, scheduler_config: str | None = None, sample_nodes: bool = False,
                  gates: Mapping[str, bool] | None = None,
                  release: Modelled | None = None,
                  loaded: tuple[Documents, Cluster, GroupObjects] | None = None) -> None:
    """Load, decide the PodGroup, print one object (``-o json``) or a table; the gates
    come from ``release`` when given (:func:`gates_for`), else from ``gates``.
    ``loaded``: the input already read (``schedule --pod`` of a group's pod)."""
    key = qualify(pod_group, "--pod-group")
    taken_on = release is not None and "GenericWorkload" not in release.overrides
    if release is not None:
        gates = {**gates_for(release), **(gates or {})}
        release = Modelled(release.release, {**release.overrides,
                                             "GenericWorkload": gates["GenericWorkload"]})
    gates = {**POD_GROUP_GATES, **(gates or {})}
    if loaded is not None:
        _, cluster, objects = loaded
    else:
        with loading("reading the cluster", output):
            docs = load_input(files)
            cluster = build_cluster(docs, extra_kinds=KINDS)
            objects = load_group_objects(docs.of, cluster.priority, gates)
    use_scheduler_config(cluster, scheduler_config, sample_nodes)
    namespace, name = key.split("/", 1)
    group = objects.pod_groups.get(key)
    workload_preemption = WorkloadPreemption(
        objects.pod_groups, gate(gates, "PodGroupPreemptionPolicy")) if gate(
        gates, "WorkloadAwarePreemption") else None
    decision = schedule_pod_group(Scheduler(cluster), namespace, name, group,
                                  preemption=preemption,
                                  workload_preemption=workload_preemption)
    if group is None and not decision.members:
        raise InputError(f"--pod-group {key}: no such PodGroup in the input, and no pod "
                         "names it in spec.schedulingGroup.podGroupName")
    if taken_on and release is not None:
        say_taken_on(release.version, "refuses them")
    show_group(decision, output, seed, release)


def show_group(decision: GroupDecision, output: str, seed: int,
               release: Modelled | None) -> None:
    """The one answer of a group decision (``--pod-group`` and ``-f`` of a gang): its
    JSON object with ``seed`` and ``modelled``, or the readable table."""
    if output in DATA_OUTPUTS:
        out = {**decision.to_json(), "seed": seed}
        if release is not None:
            out["modelled"] = release.to_json()
        emit(out, output)
    else:
        render_group(decision)


def gang_release(release: Modelled) -> tuple[Modelled | None, str]:
    """How ``-f`` of a PodGroup and its pods is decided under ``release``: the release
    with GenericWorkload on (taken as on unless ``--feature-gates`` says) and "", or
    None and the one line saying its pods are scheduled pod by pod (1.36, whose alpha
    workload API is not modelled, or GenericWorkload off)."""
    on = release.with_workload_api(default_on=True)
    if on is not None:
        return on, ""
    if WORKLOAD_API_V1BETA1 not in release.release.workload_api:
        return None, (f"note: Kubernetes {release.version}'s workload API (scheduling.k8s.io/"
                      "v1alpha2) is not modelled: the pods of the PodGroup in -f are "
                      "scheduled pod by pod (--kube-version 1.37 decides the group whole)")
    return None, ("note: GenericWorkload is off (--feature-gates): the pods of the "
                  "PodGroup in -f are scheduled pod by pod, as kube-scheduler without "
                  "gang scheduling does")


def load_gang(files: list[str] | None, new: Documents, release: Modelled, output: str,
              seed: int, now: float, scheduler_config: str | None = None,
              sample_nodes: bool = False) -> tuple[Cluster, Gang]:
    """Read the cluster input and find the PodGroup ``new`` asks about
    (:func:`kubepreempt.whatif.gang.gang_of`), under ``release`` as
    :func:`gang_release` turns it on; says in one line when GenericWorkload was taken
    as on."""
    from kubepreempt.whatif.gang import gang_of

    on, _ = gang_release(release)
    assert on is not None
    gates = gates_for(on)
    with loading("reading the cluster", output):
        docs = load_input(files)
        cluster, warnings = build_with_warnings(docs, KINDS)
        print_warnings(warnings)
        dump = load_group_objects(docs.of, cluster.priority, gates)
    use_scheduler_config(cluster, scheduler_config, sample_nodes)
    refusals: list[tuple[str, str]] = []
    gang = gang_of(cluster, new, dump, gates, seed=seed, now=now, refusals=refusals)
    if "GenericWorkload" not in release.overrides:
        say_taken_on(release.version, "places the pods one by one")
    say_not_created(refusals)
    return cluster, gang


def say_not_created(refused: list[tuple[str, str]]) -> None:
    """One warning line per object or pod the apiserver's ResourceQuota admission
    refuses (it is not created, so the group goes without it)."""
    for key, message in refused:
        print(f"warning: {key} is not created: {message}", file=sys.stderr)


def render_group(decision: GroupDecision) -> None:
    """Readable output: one sentence, then one row per pod of the group."""
    console = new_console()
    group = decision.group
    what = (f"gang, minCount {group.min_count}" if group and group.gang else
            "basic" if group else "no PodGroup object")
    head = f"PodGroup {decision.pod_group} ({what})"
    if decision.result == "scheduled":
        console.print(f"[green]{head}[/] is scheduled: {len(decision.placements)} pod(s) "
                      "placed.", highlight=False)
    elif decision.result == "preempt":
        console.print(f"[yellow]{head}[/] fits only by preempting "
                      f"{len(decision.victims)} pod(s); its pods are nominated and wait.",
                      highlight=False)
    else:
        console.print(f"[red]{head}[/] is {decision.result}: ", end="", highlight=False)
        console.print(decision.message or (decision.members[0].message
                                           if decision.members else ""), markup=False)
    table = new_table("pod", "priority", "result", "node", "victims / why not", keys=(0,))
    for m in decision.members:
        detail = ", ".join(v.key for v in m.victims) if m.victims else m.message
        table.add_row(m.pod.key, str(m.pod.priority), m.result, m.node or "-", detail)
    for p in decision.assigned:
        table.add_row(p.key, str(p.priority), "bound", p.node_name, "")
    console.print(table)
