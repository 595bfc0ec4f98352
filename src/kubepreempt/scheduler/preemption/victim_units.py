"""Victim units: what Kubernetes 1.37 preempts as one, and in which order.

(``pkg/scheduler/framework/preemption/types.go`` ``Victim`` / ``NewPodVictim`` /
``getCrossNodesVictims``, ``util.go`` ``MoreImportantVictim`` / ``getPodPriority`` /
``FilterVictimsWithPDBViolation``, and DefaultPreemption's ``SelectVictimsOnNode`` over
them.) With the workload API on (GenericWorkload in 1.37), a victim is a *unit*: one
pod, or every scheduled pod of a PodGroup with ``disruptionMode: all`` wherever they
run. A unit's priority is its PodGroup's when its pods name one that exists, else the
pod's own. Units are reprieved and evicted whole.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubepreempt.api.objects import Pod, PodDisruptionBudget
from kubepreempt.api.podgroup import ALL, PodGroup, pod_group_name
from kubepreempt.scheduler.filtering import filter_with_nominated
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.preemption.victims import NO_VICTIMS, pdb_covers
from kubepreempt.snapshot import NodeView, Snapshot

NOT_STARTED = float("inf")  # GetPodStartTime: a pod not started yet is the newest


@dataclass(slots=True)
class VictimUnit:
    """A preemption unit: one pod, or every scheduled pod of an ``all`` PodGroup."""

    key: str  # the pod's or the PodGroup's namespace/name
    pods: list[Pod]
    priority: int

    @property
    def is_pod_group(self) -> bool:
        """Upstream's ``PodGroupKeyType``: its (first) pod names a scheduling group
        (``NewPodVictim`` gives a lone pod of a group that type too)."""
        return pod_group_name(self.pods[0]) is not None

    @property
    def earliest_start(self) -> float:
        """The earliest ``status.startTime`` of its pods."""
        return min(p.start_time if p.start_time is not None else NOT_STARTED
                   for p in self.pods)


def more_important_victim(a: VictimUnit, b: VictimUnit) -> bool:
    """Upstream ``MoreImportantVictim`` (1.37.0, no CompositePodGroup rank): higher
    priority; then a PodGroup unit before a plain pod; then more pods; then the earlier
    start; then, where upstream compares the first pods' UIDs, the unit's key."""
    if a.priority != b.priority:
        return a.priority > b.priority
    if a.is_pod_group != b.is_pod_group:
        return a.is_pod_group
    if len(a.pods) != len(b.pods):
        return len(a.pods) > len(b.pods)
    if a.earliest_start != b.earliest_start:
        return a.earliest_start < b.earliest_start
    return a.key < b.key


def pod_group_disruptions(units: Iterable[VictimUnit]) -> int:
    """A candidate's ``numPodGroupDisruptions``: how many of its victim units belong to a
    PodGroup (``isGroupVictim``: the unit's first pod names a scheduling group), so a
    ``disruptionMode: all`` group counts once and each pod of a ``single`` group once.

    Upstream counts it for the ``scheduler_preemption_workload_disruptions`` metric only
    ("should only be used for metrics"): neither the node pick
    (``pickOneNodeForPreemption``) nor victim selection reads it, in 1.37.0 or since.
    """
    return sum(1 for unit in units if unit.is_pod_group)


def importance_order(units: list[VictimUnit]) -> list[VictimUnit]:
    """Most important first."""
    def cmp(a: VictimUnit, b: VictimUnit) -> int:
        if more_important_victim(a, b):
            return -1
        return 1 if more_important_victim(b, a) else 0

    return sorted(units, key=functools.cmp_to_key(cmp))


def split_units_by_pdb(units: list[VictimUnit], pdbs: list[PodDisruptionBudget]
                       ) -> tuple[list[tuple[VictimUnit, int]], list[VictimUnit]]:
    """``FilterVictimsWithPDBViolation``: a unit violates when any of its pods takes a
    budget below zero (budgets consumed in the given order); violating units come with
    how many of their pods violate (``ViolateCount``)."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def violates(pod: Pod) -> bool:
        for i, pdb in enumerate(pdbs):
            if not pdb_covers(pdb, pod) or pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True  # upstream's podIsViolating returns at the first
        return False

    violating: list[tuple[VictimUnit, int]] = []
    ok: list[VictimUnit] = []
    for unit in units:
        count = sum(violates(p) for p in unit.pods)
        if count:
            violating.append((unit, count))
        else:
            ok.append(unit)
    return violating, ok


@dataclass(slots=True)
class VictimGroups:
    """The cluster's PodGroups, as the preemption of Kubernetes 1.37 reads them."""

    pod_groups: Mapping[str, PodGroup] = field(default_factory=dict)
    # (speed only) bound pods by (namespace, PodGroup name), for the mapping and
    # snapshot generation it was built at: rebuilt when either moves.
    _index: dict[tuple[str, str], list[Pod]] = field(default_factory=dict, repr=False,
                                                     compare=False)
    _index_of: tuple[Mapping[str, Pod] | None, int] = field(default=(None, -1), repr=False,
                                                            compare=False)

    def group_of(self, pod: Pod) -> PodGroup | None:
        """The PodGroup ``pod`` names, when it is in the input."""
        name = pod_group_name(pod)
        return None if name is None else self.pod_groups.get(f"{pod.namespace}/{name}")

    def pod_priority(self, pod: Pod) -> int:
        """``getPodPriority``: its PodGroup's priority when it has one, else its own."""
        group = self.group_of(pod)
        return group.priority if group is not None else pod.priority

    def _group_pods(self, namespace: str, name: str, bound: Mapping[str, Pod],
                    generation: int | None) -> list[Pod]:
        """The bound pods naming PodGroup ``namespace/name``, in ``bound``'s order;
        with ``generation`` (the snapshot's change counter) from an index kept while
        neither ``bound`` nor the generation changes."""
        if generation is None:
            return [p for p in bound.values() if p.namespace == namespace
                    and pod_group_name(p) == name]
        if self._index_of[0] is not bound or self._index_of[1] != generation:
            index: dict[tuple[str, str], list[Pod]] = {}
            for p in bound.values():
                group = pod_group_name(p)
                if group is not None:
                    index.setdefault((p.namespace, group), []).append(p)
            self._index, self._index_of = index, (bound, generation)
        return list(self._index.get((namespace, name), ()))

    def units_on_node(self, view: NodeView, bound: Mapping[str, Pod],
                      generation: int | None = None) -> list[VictimUnit]:
        """``GetVictimsOnNode``: one unit per pod on the node (``NewPodVictim``), except
        that a pod of an ``all`` PodGroup brings every scheduled pod of its group, on
        whatever node (``searchCrossNodesVictimPods``), once. ``bound``: every bound pod
        of the cluster by key; ``generation``: the snapshot's change counter, when the
        caller has one (the group members are then looked up once per change)."""
        out: dict[str, VictimUnit] = {}
        for pod in view.pods:
            group = self.group_of(pod)
            if group is None or group.disruption_mode != ALL:
                out[f"pod:{pod.key}"] = VictimUnit(pod.key, [pod], self.pod_priority(pod))
            elif f"group:{group.key}" not in out:
                name = pod_group_name(pod)
                assert name is not None  # group_of found its PodGroup
                pods = self._group_pods(pod.namespace, name, bound, generation)
                out[f"group:{group.key}"] = VictimUnit(group.key, pods or [pod],
                                                       group.priority)
        return list(out.values())


def select_victim_units_on_node(nominator: Nominator, pdbs: list[PodDisruptionBudget],
                                state: CycleState, filters: list[FilterPlugin],
                                view: NodeView, snapshot: Snapshot, groups: VictimGroups
                                ) -> tuple[list[Pod], int, Status | None]:
    """DefaultPreemption's ``SelectVictimsOnNode`` over victim units (Kubernetes 1.37
    with GenericWorkload on), on copies of the node and the cycle state.

    Units of lower priority than the pod are removed: their pods on this node from the
    node, their pods elsewhere only from the plugins' cross-node state (upstream runs
    ``RunPreFilterExtensionRemovePod`` with the other node). If the pod then fits, units
    are reprieved most important first, PDB-violating ones first. Returns the victims
    (every pod of every unit left out, most important unit first), the PDB violations
    (violating pods of the units left out), or the status that makes this node no
    candidate. ``snapshot`` holds the other nodes and every bound pod.
    """
    pod = state.pod
    state = state.clone()
    view = view.clone()
    here = view.node.name
    potential = [u for u in groups.units_on_node(view, snapshot.pods, snapshot.generation)
                 if u.priority < pod.priority]

    def view_of(victim: Pod) -> NodeView:
        return view if victim.node_name == here else snapshot.node_view(
            snapshot.node_index[victim.node_name])
    if not potential:
        return [], 0, unresolvable("DefaultPreemption", NO_VICTIMS)

    def remove(unit: VictimUnit) -> None:
        for victim in unit.pods:
            target = view_of(victim)
            if target is view:
                view.pods = [p for p in view.pods if p.key != victim.key]
                view.requested = view.requested - state.cluster.request_vector(victim)
            for plugin in filters:
                plugin.remove_pod(state, victim, target)

    def add(unit: VictimUnit) -> None:
        for victim in unit.pods:
            target = view_of(victim)
            if target is view:
                view.pods.append(victim)
                view.requested = view.requested + state.cluster.request_vector(victim)
            for plugin in filters:
                plugin.add_pod(state, victim, target)

    for unit in potential:
        remove(unit)
    status = filter_with_nominated(nominator, state, view, filters)
    if status is not None:
        return [], 0, status
    violating, non_violating = split_units_by_pdb(importance_order(potential), pdbs)
    chosen: list[VictimUnit] = []
    violations = 0

    def reprieve(unit: VictimUnit) -> bool:
        add(unit)
        if filter_with_nominated(nominator, state, view, filters) is None:
            return True
        remove(unit)
        chosen.append(unit)
        return False

    for unit, count in violating:
        if not reprieve(unit):
            violations += count
    for unit in non_violating:
        reprieve(unit)
    if violating and non_violating:
        chosen = importance_order(chosen)
    return [p for u in chosen for p in u.pods], violations, None
