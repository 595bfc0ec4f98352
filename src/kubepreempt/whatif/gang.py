"""``schedule -f`` and ``advise -f`` for a PodGroup and its pods (Kubernetes 1.37 gangs).

When the new documents hold a ``scheduling.k8s.io`` PodGroup (or Workload) and the pods
that name it in ``spec.schedulingGroup.podGroupName`` — bare pods, or a Job / Deployment /
... whose pod template names it (its controller copies the template's ``schedulingGroup``
to every pod it creates) — kube-scheduler does not take those pods one by one: it pops
the whole group and runs one pod group cycle, all or nothing (``minCount``), with
workload-aware preemption when the group is unschedulable. This module finds that group
(:func:`gang_of`) and decides it through :func:`kubepreempt.scheduler.gang.
schedule_pod_group` on the cluster with the new pods pending (:func:`gang_trial`); the
cluster is left as it was.

One group per run: the new documents hold the group's pods only (its other members may
already be in the cluster input), and the PodGroup object is in either input. A
Workload alone is not a PodGroup: its controller creates PodGroups from its
``podGroupTemplates``, and kube-scheduler reads only PodGroups.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import (
    KINDS,
    GroupObjects,
    PodGroup,
    is_scheduling_object,
    load_group_objects,
    pod_group_name,
)
from kubepreempt.api.podgroup_validation import gate
from kubepreempt.cluster import Cluster
from kubepreempt.decide import PREEMPT, SCHEDULED
from kubepreempt.manifests import Documents
from kubepreempt.scheduler.gang import GroupDecision, schedule_pod_group
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.preemption.victims import consume_budgets
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.whatif.advise import fresh
from kubepreempt.whatif.place import NEW_KINDS, admit, expand_documents

#: The kinds ``-f`` reads when it holds a gang.
GANG_NEW_KINDS = (*NEW_KINDS, *KINDS)


def _pod_spec(kind: str, body: Mapping[str, Any]) -> Any:
    """The pod spec of a Pod, or of a workload's pod template (a CronJob's Job's)."""
    spec = body.get("spec")
    if kind == "Pod" or not isinstance(spec, Mapping):
        return spec
    if kind == "CronJob":
        job = spec.get("jobTemplate")
        spec = job.get("spec") if isinstance(job, Mapping) else None
        if not isinstance(spec, Mapping):
            return None
    template = spec.get("template")
    return template.get("spec") if isinstance(template, Mapping) else None


def names_pod_group(kind: str, body: Mapping[str, Any]) -> bool:
    """True when the pods of this Pod or workload name a PodGroup."""
    spec = _pod_spec(kind, body)
    group = spec.get("schedulingGroup") if isinstance(spec, Mapping) else None
    return isinstance(group, Mapping) and bool(group.get("podGroupName"))


def holds_gang(docs: Documents) -> bool:
    """True when the new documents hold a ``scheduling.k8s.io`` PodGroup or Workload, or
    pods (or pod templates) naming a PodGroup: the gang path decides them."""
    if any(is_scheduling_object(kind, o.body) for kind in KINDS for o in docs.of(kind)):
        return True
    return any(names_pod_group(kind, o.body) for kind in NEW_KINDS for o in docs.of(kind))


@dataclass(slots=True)
class Gang:
    """The PodGroup ``-f`` asks about: the group, its new pods (in creation order) and
    every PodGroup of both inputs (the victims' units and priorities).

    ``workload_preemption``: the WorkloadAwarePreemption behaviour is on (1.37:
    GenericWorkload); ``preemption_policy_gate``: PodGroupPreemptionPolicy is on."""

    key: str
    group: PodGroup
    pods: list[Pod]
    pod_groups: dict[str, PodGroup] = field(default_factory=dict)
    subject: str = ""
    workload_preemption: bool = True
    preemption_policy_gate: bool = False


def _merged(dump: GroupObjects, new: GroupObjects) -> dict[str, PodGroup]:
    """The PodGroups of both inputs; one that is in both is an input error (creating it
    again would be refused as AlreadyExists)."""
    for key, group in new.pod_groups.items():
        if key in dump.pod_groups:
            raise InputError("already exists in the cluster", group.source, "PodGroup", key)
    return {**dump.pod_groups, **new.pod_groups}


def gang_of(cluster: Cluster, docs: Documents, dump: GroupObjects,
            gates: Mapping[str, bool], *, seed: int = 0, now: float = 0.0,
            refusals: list[tuple[str, str]] | None = None) -> Gang:
    """Expand ``docs`` and find the one PodGroup they ask about (module doc); a
    one-line :class:`InputError` when the documents do not make one group with pods.
    ``refusals`` collects the workload objects object-count quota refuses (they create
    no pods), as ``(Kind/namespace/name, message)``.

    ``dump``: the cluster input's PodGroups and Workloads; ``gates``: the feature gates
    (GenericWorkload on) the new objects are validated with, and whether workload-aware
    preemption and the PodGroup's own preemptionPolicy apply."""
    expanded = expand_documents(cluster, docs, seed=seed, now=now,  # PriorityClasses first
                                refusals=refusals)
    new = load_group_objects(docs.of, cluster.priority, gates)
    pod_groups = _merged(dump, new)
    by_group: dict[str, list[Pod]] = {}
    outside: list[str] = []
    for _, pods, _, _ in expanded:
        for pod in pods:
            name = pod_group_name(pod)
            if name is None:
                outside.append(pod.key)
            else:
                by_group.setdefault(f"{pod.namespace}/{name}", []).append(pod)
    for key, group in new.pod_groups.items():
        if key not in by_group and not members_of(cluster, group.namespace, group.name).count:
            raise InputError("has no member pods: no pod in -f or in the cluster input "
                             "names it in spec.schedulingGroup.podGroupName",
                             group.source, "PodGroup", key)
    for key, pods in by_group.items():
        if key not in pod_groups:
            raise InputError(f"pod {pods[0].key} names PodGroup {key} in "
                             "spec.schedulingGroup.podGroupName, but that PodGroup is "
                             "neither in -f nor in the cluster input (give it, or "
                             "--feature-gates GenericWorkload=false to place the pods one "
                             "by one)")
    groups = sorted(set(by_group) | set(new.pod_groups))
    if not groups:
        raise InputError(f"-f holds Workload {', '.join(sorted(new.workloads))} but no "
                         "PodGroup and no pod naming one: kube-scheduler decides PodGroups "
                         "(a Workload's controller creates them from its "
                         "podGroupTemplates); give the PodGroup and its pods")
    if len(groups) > 1:
        raise InputError(f"-f holds {len(groups)} PodGroups or their pods "
                         f"({', '.join(groups)}); give one PodGroup and its pods per run")
    if outside:
        more = f" and {len(outside) - 1} more" if len(outside) > 1 else ""
        raise InputError(f"-f holds PodGroup {groups[0]} and pods outside it ({outside[0]}"
                         f"{more}); place those in a separate run")
    key = groups[0]
    subject = ", ".join([*(f"PodGroup/{k}" for k in new.pod_groups),
                         *(f"Workload/{k}" for k in new.workloads),
                         *(k for k, pods, _, _ in expanded if pods)])
    return Gang(key, pod_groups[key], by_group.get(key, []), pod_groups,
                subject or f"PodGroup/{key}", gate(gates, "WorkloadAwarePreemption"),
                gate(gates, "PodGroupPreemptionPolicy"))


@dataclass(slots=True)
class GangChange:
    """What one trial changes: the new pods' and the PodGroup's priority (and class),
    budgets' allowed disruptions (by ``ns/name``), and any other change to every new pod
    (``pods``: a relaxed filter, as the pod template would carry it)."""

    priority: int | None = None
    priority_class_name: str | None = None
    preemption_policy: str | None = None
    pdb_allowed: Mapping[str, int] | None = None
    pods: Callable[[Pod], Pod] | None = None

    def pod(self, pod: Pod) -> Pod:
        """A fresh copy of a new member with the change."""
        changes: dict[str, Any] = {}
        if self.priority is not None:
            changes["priority"] = self.priority
        if self.priority_class_name is not None:
            changes["priority_class_name"] = self.priority_class_name
        if self.preemption_policy is not None:
            changes["preemption_policy"] = self.preemption_policy
        out = fresh(pod, **changes)
        return out if self.pods is None else self.pods(out)

    def group(self, group: PodGroup) -> PodGroup:
        """The PodGroup with the change."""
        out = group
        if self.priority is not None:
            out = replace(out, priority=self.priority)
        if self.priority_class_name is not None:
            out = replace(out, priority_class_name=self.priority_class_name)
        if self.preemption_policy is not None:
            out = replace(out, preemption_policy=self.preemption_policy)
        return out


def gang_trial(cluster: Cluster, gang: Gang, *, now: float, preemption: bool = True,
               change: GangChange | None = None,
               inspect: Callable[[Scheduler, GroupDecision], None] | None = None,
               refused: list[tuple[str, str]] | None = None) -> GroupDecision:
    """Create fresh copies of the gang's new pods (the apiserver's ResourceQuota admission
    first: a refused pod is not created; ``refused`` collects ``(pod, message)``), decide
    the group in one pod group cycle, and undo it all. ``inspect(sched, decision)`` runs
    before the pods are withdrawn."""
    change = change or GangChange()
    pending = dict(cluster.pending)
    allowed = [pdb.disruptions_allowed for pdb in cluster.pdbs]
    if change.pdb_allowed:
        for pdb in cluster.pdbs:
            if pdb.key in change.pdb_allowed:
                pdb.disruptions_allowed = change.pdb_allowed[pdb.key]
    group = change.group(gang.group)
    try:
        for pod in gang.pods:
            copy = change.pod(pod)
            refusal = admit(cluster, copy, now)
            if refusal is None:
                cluster.add_pending(copy)
            elif refused is not None:
                refused.append((copy.key, refusal))
        sched = Scheduler(cluster)
        workload_preemption = WorkloadPreemption(
            {**gang.pod_groups, gang.key: group}, gang.preemption_policy_gate) \
            if gang.workload_preemption else None
        decision = schedule_pod_group(sched, group.namespace, group.name, group,
                                      preemption=preemption, now=now,
                                      workload_preemption=workload_preemption)
        if inspect is not None:
            inspect(sched, decision)
        return decision
    finally:
        cluster.pending.clear()
        cluster.pending.update(pending)
        for pdb, n in zip(cluster.pdbs, allowed, strict=True):
            pdb.disruptions_allowed = n


def placed(decision: GroupDecision) -> bool:
    """True when the pod group cycle lets the group in: scheduled, or waiting only for
    its victims to go (Permit reached ``minCount``)."""
    return decision.result in (SCHEDULED, PREEMPT)


def pdb_violations(cluster: Cluster, decision: GroupDecision) -> int:
    """How many of the decision's victims take a PodDisruptionBudget below zero
    (budgets consumed in victim order, as ``filterPodsWithPDBViolation`` counts)."""
    allowed = [pdb.disruptions_allowed for pdb in cluster.pdbs]
    return sum(consume_budgets(v, cluster.pdbs, allowed) for v in decision.victims)


def outcome(cluster: Cluster, decision: GroupDecision) -> dict[str, Any]:
    """One trial's answer for ``advise -o json``: the group's result, where its pods go,
    the victims (an ``all`` group's every pod), and the PodGroup's condition message."""
    out: dict[str, Any] = {"placed": placed(decision), "result": decision.result,
                           "placements": decision.placements,
                           "victims": [v.key for v in decision.victims],
                           "pdbViolations": pdb_violations(cluster, decision)}
    if decision.message:
        out["message"] = decision.message
    return out
