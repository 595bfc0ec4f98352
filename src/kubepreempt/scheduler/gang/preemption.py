"""Workload-aware preemption (KEP-5710): a PodGroup preempts as one preemptor.

Mirrors upstream's ``pkg/scheduler/framework/preemption/podgrouppreemption.go``
(``PodGroupEvaluator.selectVictimsOnDomain``), the default preemption manager's
``GenerateVictims`` / ``prepareDomainVictims`` and the victim units of ``types.go``:

- the domain is the whole cluster; every bound pod is a victim unit of its own, except
  the pods of a PodGroup with ``disruptionMode: all``, which form one unit (all its
  scheduled pods, on whatever nodes). A unit's priority is its PodGroup's priority when
  its pods belong to one, else the pod's;
- units of lower priority than the preemptor PodGroup are the potential victims; all are
  removed and the group algorithm (without PostFilter plugins) must then succeed: its
  placement is the proposal;
- units are ranked by ``MoreImportantVictim`` (``scheduler.preemption.victim_units``:
  priority, then a PodGroup before a single pod, then the larger unit, then the earlier
  start) and tried in that order, PDB-violating ones first;
- 1.37 reprieves *in place*: a unit is put back and every proposed pod is filtered again,
  in the group's order, on its proposed node (earlier ones assumed), with the cycle state
  its proposal computed updated by the unit's pods (a plugin PreFilter skipped then stays
  skipped); the unit stays when every one still fits, else it goes. The placement never
  moves. Victims are reported in the order they were given up (violating units first,
  each part most important first);
- 1.36's alpha (``reprieve_in_place=False``) re-ran the whole group algorithm per unit
  instead: a unit stays when the group still schedules with it back and no fewer of its
  pods are placed; victims are reported most important first.

Nothing is changed in the end: every removal is undone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from kubepreempt.api.objects import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER, Pod
from kubepreempt.api.podgroup import ALL, PodGroup, pod_group_name
from kubepreempt.cluster_state import Cluster
from kubepreempt.scheduler.framework import CycleState, FilterPlugin
from kubepreempt.scheduler.gang.assume import Assumptions
from kubepreempt.scheduler.gang.members import Members
from kubepreempt.scheduler.preemption.victim_units import (
    VictimUnit,
    importance_order,
    more_important_victim,
    pod_group_disruptions,
    split_units_by_pdb,
)
from kubepreempt.scheduler.preemption.victims import consume_budgets
from kubepreempt.scheduler.scheduler import Scheduler

NO_VICTIMS = "No preemption victims found for incoming preemptor"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
GROUP_UNSCHEDULABLE = "pod group is unschedulable"  # errPodGroupUnschedulable

__all__ = ["GROUP_UNSCHEDULABLE", "NOT_ELIGIBLE_NEVER", "NOT_ELIGIBLE_TERMINATING",
           "NO_VICTIMS", "PreemptionOutcome", "RunResult", "VictimUnit",
           "WorkloadPreemption", "importance_order", "more_important_victim"]


class RunResult(Protocol):
    """What one group algorithm run answers: its status and the pods it assumed."""

    @property
    def status(self) -> str: ...

    @property
    def assumed(self) -> dict[str, str]: ...


@dataclass(slots=True)
class PreemptionOutcome:
    """``ok``: victims found (``victims``, most important unit first; ``placements``:
    where the group's pods go once they are gone); else ``message`` says why not."""

    ok: bool
    message: str = ""
    victims: list[Pod] = field(default_factory=list)
    units: list[VictimUnit] = field(default_factory=list)
    placements: dict[str, str] = field(default_factory=dict)
    # The candidate's ``NumPDBViolations``: pods of the preempted PDB-violating units
    # that take a budget below zero (``ViolateCount``; metrics only upstream). Counted
    # by the in-place reprieval only (1.36's alpha did not report it).
    pdb_violations: int = 0

    @property
    def pod_group_disruptions(self) -> int:
        """The candidate's ``numPodGroupDisruptions`` (victim units of a PodGroup): what
        upstream observes in ``scheduler_preemption_workload_disruptions``."""
        return pod_group_disruptions(self.units)


class _Removals:
    """Victim units taken off the snapshot, put back on demand or all at the end."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.removed: dict[str, tuple[Pod, str]] = {}

    def remove(self, unit: VictimUnit) -> None:
        for pod in unit.pods:
            if pod.key not in self.removed:
                self.removed[pod.key] = (pod, pod.node_name)
                self.cluster.remove(pod)

    def add(self, unit: VictimUnit) -> None:
        for pod in unit.pods:
            entry = self.removed.pop(pod.key, None)
            if entry is not None:
                self.cluster.bind(entry[0], entry[1])

    def restore(self) -> None:
        for pod, node in list(self.removed.values()):
            self.cluster.bind(pod, node)
        self.removed.clear()


@dataclass(slots=True)
class WorkloadPreemption:
    """The PodGroup evaluator's inputs: the cluster's PodGroups (victims' priorities and
    disruption modes) and whether PodGroupPreemptionPolicy is on."""

    pod_groups: Mapping[str, PodGroup] = field(default_factory=dict)
    pod_group_preemption_policy: bool = False
    # 1.37 reprieves in place (kubernetes/kubernetes#139980); False: 1.36's alpha, which
    # re-ran the group algorithm for every unit it tried to reprieve.
    reprieve_in_place: bool = True

    def _group_of(self, pod: Pod) -> PodGroup | None:
        name = pod_group_name(pod)
        return None if name is None else self.pod_groups.get(f"{pod.namespace}/{name}")

    def pod_priority(self, pod: Pod) -> int:
        """``GetPodPriority``: its PodGroup's priority when it has one, else its own."""
        group = self._group_of(pod)
        return group.priority if group is not None else pod.priority

    def units(self, cluster: Cluster) -> list[VictimUnit]:
        """``getCrossNodesVictims``: every bound pod, ``all`` groups as one unit."""
        out: dict[str, VictimUnit] = {}
        for pod in cluster.pods.values():
            group = self._group_of(pod)
            if group is None or group.disruption_mode != ALL:
                out[f"pod:{pod.key}"] = VictimUnit(pod.key, [pod], self.pod_priority(pod))
            elif f"group:{group.key}" in out:
                out[f"group:{group.key}"].pods.append(pod)
            else:
                out[f"group:{group.key}"] = VictimUnit(group.key, [pod], group.priority)
        return list(out.values())

    def _eligible(self, cluster: Cluster, group: PodGroup, queued: list[Pod]) -> str:
        """``preemptorEligibleToPreemptOthers``: "" when eligible, else the reason. The
        preemptor's policy is the PodGroup's with PodGroupPreemptionPolicy on; without
        it, Never as soon as one member pod says Never (``newPodGroupPreemptor``)."""
        if self.pod_group_preemption_policy:
            policy = group.preemption_policy
        else:
            policy = PREEMPT_NEVER if any(p.preemption_policy == PREEMPT_NEVER
                                          for p in queued) else PREEMPT_LOWER_PRIORITY
        if policy == PREEMPT_NEVER:
            return NOT_ELIGIBLE_NEVER
        # (sorted: the answer does not depend on the order, a run's work should not either)
        for name in sorted({p.nominated_node_name for p in queued if p.nominated_node_name}):
            idx = cluster.node_index.get(name)
            if idx is None:
                continue
            for other in cluster.node_pods[idx].values():
                if (self.pod_priority(other) < group.priority and other.terminating
                        and other.preempted_by_scheduler):
                    return NOT_ELIGIBLE_TERMINATING
        return ""

    def _split_by_pdb(self, cluster: Cluster, units: list[VictimUnit]
                      ) -> tuple[list[VictimUnit], list[VictimUnit]]:
        """``filterVictimsWithPDBViolation`` over units: a unit violates when any of its
        pods takes a budget below zero (budgets consumed in the given order)."""
        pdbs = cluster.pdbs
        allowed = [pdb.disruptions_allowed for pdb in pdbs]
        violating: list[VictimUnit] = []
        ok: list[VictimUnit] = []
        for unit in units:
            # Every pod of the unit takes its budgets (no short cut: later units see them).
            violated = [consume_budgets(pod, pdbs, allowed) for pod in unit.pods]
            (violating if any(violated) else ok).append(unit)
        return violating, ok

    def preempt(self, sched: Scheduler, group: PodGroup, members: Members,
                queued: list[Pod], run: Callable[[], RunResult]) -> PreemptionOutcome:
        """``PodGroupEvaluator.Preempt`` up to the victims (nothing is evicted)."""
        cluster = sched.cluster
        reason = self._eligible(cluster, group, queued)
        if reason:
            return PreemptionOutcome(False, reason)
        potential = [u for u in self.units(cluster) if u.priority < group.priority]
        if not potential:
            return PreemptionOutcome(False, NO_VICTIMS)
        removals = _Removals(cluster)
        try:
            for unit in potential:
                removals.remove(unit)
            first = run()
            if first.status != "scheduled":
                return PreemptionOutcome(False, GROUP_UNSCHEDULABLE)
            if self.reprieve_in_place:
                return self._reprieve_in_place(sched, removals, potential, queued,
                                               first.assumed)
            return self._reprieve_by_rerun(cluster, removals, potential, run,
                                           len(first.assumed))
        finally:
            removals.restore()

    def _reprieve_in_place(self, sched: Scheduler, removals: _Removals,
                           potential: list[VictimUnit], queued: list[Pod],
                           proposed: dict[str, str]) -> PreemptionOutcome:
        """The newest ``selectVictimsOnDomain``: the placement found without any victim is
        kept with its pods' cycle states; each unit (``prepareDomainVictims``' order,
        tried from the most important: PDB-violating units first) is put back and stays
        when every proposed pod still passes its node's filters, replayed in the group's
        order (:func:`_reprieves`)."""
        by_key = {p.key: p for p in queued}
        pods = _proposal(sched, [(by_key[key], node) for key, node in proposed.items()])
        violating, non_violating = split_units_by_pdb(importance_order(potential),
                                                      sched.cluster.pdbs)
        to_preempt: list[VictimUnit] = []
        violations = 0
        for unit, count in [*violating, *((u, 0) for u in non_violating)]:
            removals.add(unit)
            if not _reprieves(sched, pods, unit):
                removals.remove(unit)
                to_preempt.append(unit)
                violations += count
        # Upstream keeps the order units were given up in: no sort after reprieval.
        return PreemptionOutcome(True, "", [p for u in to_preempt for p in u.pods],
                                 to_preempt, dict(proposed), violations)

    def _reprieve_by_rerun(self, cluster: Cluster, removals: _Removals,
                           potential: list[VictimUnit], run: Callable[[], RunResult],
                           max_count: int) -> PreemptionOutcome:
        """1.36's alpha ``selectVictimsOnDomain``: each unit put back (most important
        first, PDB-violating ones first) stays when the group algorithm, run again,
        still succeeds with no fewer pods placed."""
        violating, non_violating = self._split_by_pdb(cluster, importance_order(potential))
        to_preempt: list[VictimUnit] = []
        for unit in [*violating, *non_violating]:
            removals.add(unit)
            result = run()
            count = len(result.assumed)
            max_count = max(max_count, count)
            if result.status != "scheduled" or count < max_count:
                removals.remove(unit)
                to_preempt.append(unit)
        placements = run().assumed
        ordered = importance_order(to_preempt)
        return PreemptionOutcome(True, "", [p for u in ordered for p in u.pods], ordered,
                                 placements)


# Filter plugins whose answer for a pod on a node depends on that pod and that node's
# pods alone, keeping no cross-node data (upstream's node-local filter plugins). A plugin
# not named here is treated as cross-node, which costs time, never an answer.
NODE_LOCAL_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration",
                                "NodeAffinity", "NodePorts", "NodeResourcesFit"})


@dataclass(slots=True)
class _Proposed:
    """One pod of the proposed placement with the cycle state its proposal computed
    (PreFilter with the earlier ones assumed and every victim removed), its filters split
    into node-local and cross-node ones (``None``: PreFilter refused it)."""

    pod: Pod
    node: str
    serving: Scheduler
    state: CycleState
    local: list[FilterPlugin] | None
    cross: list[FilterPlugin]


def _proposal(sched: Scheduler, placed: list[tuple[Pod, str]]) -> list[_Proposed]:
    """The proposed pods with their cycle states, as the group algorithm left them
    (``ProposedAssignment.GetCycleState``): plugins PreFilter skipped stay skipped."""
    out: list[_Proposed] = []
    assumptions = Assumptions(sched)
    try:
        for pod, node in placed:
            serving = sched.profile_for(pod) or sched
            state, rejected, filters = serving.new_state(pod)
            local = None if rejected is not None else [
                f for f in filters if f.name in NODE_LOCAL_FILTERS]
            cross = [f for f in filters if f.name not in NODE_LOCAL_FILTERS]
            out.append(_Proposed(pod, node, serving, state, local, cross))
            assumptions.assume(pod, node)
    finally:
        assumptions.revert()
    return out


def _replay(sched: Scheduler, proposed: list[_Proposed], local: bool, cross: bool) -> bool:
    """``evaluateAssignments``: each pod in order runs the chosen filters on its node
    (``RunFilterPluginsWithNominatedPods``), then is assumed for the ones after it; every
    assumption is undone. True when every pod passes."""
    cluster = sched.cluster
    assumptions = Assumptions(sched)
    try:
        for p in proposed:
            if p.local is None:
                return False
            filters = [*(p.local if local else ()), *(p.cross if cross else ())]
            view = cluster.node_view(cluster.node_index[p.node])
            if filters and p.serving.filter_with_nominated(p.state, view, filters) is not None:
                return False
            assumptions.assume(p.pod, p.node)
        return True
    finally:
        assumptions.revert()


def _update_states(sched: Scheduler, proposed: list[_Proposed], unit: VictimUnit,
                   add: bool) -> None:
    """``PreFilterExtensionAddPod`` / ``RemovePod`` of the unit's pods into every proposed
    pod's state (only cross-node plugins keep data about other pods)."""
    cluster = sched.cluster
    for victim in unit.pods:
        view = cluster.node_view(cluster.node_index[victim.node_name])
        for p in proposed:
            for plugin in p.cross:
                (plugin.add_pod if add else plugin.remove_pod)(p.state, victim, view)


def _reprieves(sched: Scheduler, proposed: list[_Proposed], unit: VictimUnit,
               phased: bool = True) -> bool:
    """``reprieveVictim`` for a unit already back on the snapshot: True when the proposed
    placement still passes with it (its pods then stay in the proposed pods' states).

    Upstream's two phases (``phased``): the pods proposed on the unit's own nodes run the
    node-local filters first, the others seeing nothing the unit changed; then every pod
    runs the cross-node filters, skipped outright when none of them has one. The answer
    is that of every filter over every pod in order (``phased=False``), only sooner."""
    if not phased:
        _update_states(sched, proposed, unit, add=True)
        if _replay(sched, proposed, local=True, cross=True):
            return True
        _update_states(sched, proposed, unit, add=False)
        return False
    nodes = {p.node_name for p in unit.pods}
    if not _replay(sched, [p for p in proposed if p.node in nodes], local=True, cross=False):
        return False
    if not any(p.cross for p in proposed):
        return True
    _update_states(sched, proposed, unit, add=True)
    if _replay(sched, proposed, local=False, cross=True):
        return True
    _update_states(sched, proposed, unit, add=False)
    return False
