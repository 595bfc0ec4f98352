"""``advise -f`` for a gang: what would let the whole PodGroup fit?

The questions are ``advise``'s (:mod:`kubepreempt.whatif.advise`), each answered by
re-running the group's all-or-nothing decision (:func:`kubepreempt.whatif.gang.
gang_trial`: one pod group cycle with workload-aware preemption, undone afterwards):

* **priority** — the lowest value at which the pod group cycle lets the group in
  (``scheduled``, or ``preempt``: Permit reached ``minCount`` thanks to its victims),
  given to the PodGroup and to its new pods alike (as changing the ``priorityClassName``
  of the PodGroup and of the pod template would): a binary search over the values where
  the answer can change (every pod's and every PodGroup's priority and that plus one);
  then the lowest existing PriorityClass at or above it, with its ``preemptionPolicy``;
* **PDBs** — the budgets the group's victims break, and those whose lifting alone
  changes the group's decision;
* **nodes** — how many nodes like ``--node-like`` / ``--node-shape`` must be added for
  the group to be ``scheduled`` with preemption off (``minCount`` pods at once);
* **filters** — for the first member its own cycle rejects, in the state the group cycle
  had reached then (the members before it assumed on their nodes), the nodes each filter
  rejects and the smallest change to the pod that admits one; that change is then given
  to every new member (as the pod template would carry it) and the group decided again
  (``suggestion.group``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kubepreempt.api.objects import Node, Pod
from kubepreempt.api.priority import PriorityClass
from kubepreempt.cluster import Cluster
from kubepreempt.decide import PREEMPT, SCHEDULED, UNSCHEDULABLE
from kubepreempt.scheduler.gang import GROUP_UNSCHEDULABLE, WAITING, GroupDecision
from kubepreempt.scheduler.gang.assume import Assumptions
from kubepreempt.scheduler.preemption.victims import consume_budgets
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.whatif.advise import (
    MAX_NODES,
    Advice,
    bisect_lowest,
    budgets_covering,
    count_nodes,
    filter_report,
    priority_candidates,
    rejected_by_last_node,
)
from kubepreempt.whatif.gang import Gang, GangChange, gang_trial, outcome, placed
from kubepreempt.whatif.place import decide

UNLIMITED = 1 << 30  # a lifted budget's allowed disruptions


def lowest_group_priority(cluster: Cluster, gang: Gang, now: float
                          ) -> tuple[int | None, GroupDecision | None]:
    """The lowest candidate priority (of the PodGroup and its new pods) at which the
    group is let in, with that trial."""
    values = priority_candidates(cluster, gang.group.priority,
                                 (g.priority for g in gang.pod_groups.values()))
    return bisect_lowest(
        values, lambda v: gang_trial(cluster, gang, now=now, change=GangChange(priority=v)),
        placed)


def lowest_group_class(cluster: Cluster, gang: Gang, value: int, now: float
                       ) -> tuple[PriorityClass | None, GroupDecision | None]:
    """The lowest existing PriorityClass with value >= ``value`` that lets the group in
    (the PodGroup and its pods given its name, value and preemptionPolicy)."""
    classes = sorted((pc for pc in cluster.priority.classes.values() if pc.value >= value),
                     key=lambda pc: (pc.value, pc.name))
    for pc in classes:
        got = gang_trial(cluster, gang, now=now, change=GangChange(
            pc.value, pc.name, pc.preemption_policy))
        if placed(got):
            return pc, got
    return None, None


def _signature(decision: GroupDecision) -> tuple[str, tuple, tuple[str, ...]]:
    return (decision.result, tuple(sorted(decision.placements.items())),
            tuple(v.key for v in decision.victims))


def gang_pdb_report(cluster: Cluster, gang: Gang, base: GroupDecision, change: GangChange,
                    now: float) -> dict[str, Any]:
    """Budgets ``base``'s victims violate, and budgets whose lifting alone changes the
    group's decision (another placement, other victims, or another result)."""
    free = gang_trial(cluster, gang, now=now, change=replace(
        change, pdb_allowed={pdb.key: UNLIMITED for pdb in cluster.pdbs}))
    allowed = [pdb.disruptions_allowed for pdb in cluster.pdbs]
    violating = [v for v in base.victims if consume_budgets(v, cluster.pdbs, allowed)]
    relevant = sorted(budgets_covering(cluster, [*base.victims, *free.victims]))
    blocking = []
    signature = _signature(base)
    for key in relevant:
        lifted = gang_trial(cluster, gang, now=now,
                            change=replace(change, pdb_allowed={key: UNLIMITED}))
        if _signature(lifted) != signature:
            blocking.append({"pdb": key, "withoutIt": outcome(cluster, lifted)})
    return {"violated": sorted(budgets_covering(cluster, violating)), "blocking": blocking,
            "withoutAnyPdb": outcome(cluster, free)}


def first_rejected(decision: GroupDecision) -> str | None:
    """The first member (in the group cycle's order) that its own cycle rejected; the
    members that fit but were left waiting for ``minCount`` say so instead."""
    for m in decision.members:
        if m.result == UNSCHEDULABLE and not m.message.startswith(GROUP_UNSCHEDULABLE):
            return m.pod.key
    return None


def gang_filters(cluster: Cluster, gang: Gang, base: GroupDecision, now: float
                 ) -> tuple[str | None, list[dict[str, Any]]]:
    """:func:`kubepreempt.whatif.advise.filter_report` for the first member ``base``'s
    cycle rejected, in the state the group cycle had reached: the trial is replayed and
    the members before it are assumed where their own cycles put them."""
    target = first_rejected(base)
    if target is None:
        return None, []
    report: list[list[dict[str, Any]]] = []
    changes: dict[str, Callable[[Pod], Pod]] = {}

    def inspect(sched: Scheduler, decision: GroupDecision) -> None:
        assumptions = Assumptions(sched)
        try:
            for m in decision.members:
                if m.pod.key == target:
                    report.append(filter_report(cluster, m.pod, now, changes))
                    return
                got = decide(sched, m.pod, True, False, now)
                if got.result in (SCHEDULED, PREEMPT) and got.node is not None:
                    victims = got.preemption.victims if got.preemption is not None and \
                        got.result == PREEMPT else []
                    assumptions.assume(m.pod, got.node, victims)
        finally:
            assumptions.revert()

    gang_trial(cluster, gang, now=now, inspect=inspect)
    entries = report[0] if report else []
    for entry in entries:  # each suggestion, given to every new member: the group's answer
        apply = changes.get(entry["plugin"])
        if apply is not None and "suggestion" in entry:
            entry["suggestion"]["group"] = outcome(cluster, gang_trial(
                cluster, gang, now=now, change=GangChange(pods=apply)))
    return target, entries


def gang_nodes(cluster: Cluster, gang: Gang, template: Node, now: float) -> dict[str, Any]:
    """Fewest copies of ``template`` to add for the group to be scheduled (``minCount``
    pods at once) without preemption, and where its pods then go."""
    def rejected(got: GroupDecision) -> str | None:
        key = first_rejected(got)
        pod = next((m.pod for m in got.members if m.pod.key == key), None)
        return None if pod is None else rejected_by_last_node(cluster, pod)

    k, got, reason = count_nodes(
        cluster, template, lambda: gang_trial(cluster, gang, now=now, preemption=False),
        lambda d: d.result == SCHEDULED, rejected)
    nodes: dict[str, Any] = {"template": template.name,
                             "allocatable": dict(template.allocatable),
                             "needed": k, "searchedUpTo": MAX_NODES, "rejectedBy": reason}
    if got is not None:
        nodes["placements"] = dict(sorted(Counter(got.placements.values()).items()))
    return nodes


def advise_gang(cluster: Cluster, gang: Gang, *, node_template: Node | None = None,
                now: float | None = None) -> Advice:
    """``advise``'s answers for the whole group (module doc); the cluster is left as
    it was."""
    at = time.time() if now is None else now
    base = gang_trial(cluster, gang, now=at)
    current = {"priority": gang.group.priority, **outcome(cluster, base)}
    pods = len(base.members) + len(base.assigned)
    if base.result == WAITING:  # PreEnqueue holds the pods: no cycle runs at all
        nodes = None if node_template is None else {
            "template": node_template.name, "allocatable": dict(node_template.allocatable),
            "needed": None, "searchedUpTo": 0, "rejectedBy": None}
        return Advice(gang.subject, pods, current, {"lowestValue": None, "lowestClass": None},
                      {"violated": [], "blocking": [], "withoutAnyPdb": current}, nodes, [],
                      None, pod_group=gang.key, waiting=waiting_reason(gang, pods))
    value, at_value = lowest_group_priority(cluster, gang, at)
    priority: dict[str, Any] = {"lowestValue": value, "lowestClass": None}
    change = GangChange()
    if value is not None and at_value is not None:
        priority.update(outcome(cluster, at_value))
        pc, at_class = lowest_group_class(cluster, gang, value, at)
        if pc is not None and at_class is not None:
            priority["lowestClass"] = {"name": pc.name, "value": pc.value,
                                       "preemptionPolicy": pc.preemption_policy,
                                       **outcome(cluster, at_class)}
        change = GangChange(priority=value)
    pdbs = gang_pdb_report(cluster, gang, at_value if at_value is not None else base,
                           change, at)
    nodes = gang_nodes(cluster, gang, node_template, at) if node_template else None
    target, filters = gang_filters(cluster, gang, base, at)
    return Advice(gang.subject, pods, current, priority, pdbs, nodes, filters, target,
                  pod_group=gang.key)


def waiting_reason(gang: Gang, pods: int) -> str:
    """Why no change to priority, nodes or filters lets a waiting group in."""
    what = (f"only {pods} pod(s) name it, fewer than its minCount {gang.group.min_count}"
            if gang.group.gang else "none of its pods can be queued")
    return (f"PodGroup {gang.key} waits before any scheduling cycle: {what} (the "
            "GangScheduling PreEnqueue holds them); no priority, node or filter change "
            "lets it in, only more pods naming it")
