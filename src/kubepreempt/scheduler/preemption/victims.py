"""Victims on one node: upstream ``SelectVictimsOnNode`` and the orders it relies on.

(``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``,
``pkg/scheduler/util``.) Remove every lower-priority pod; if the pod then fits (all
filters, nominees counted), reprieve the removed pods most important first — those whose
PDB would be violated before the others — keeping each that still lets the pod fit.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod, PodDisruptionBudget
from kubepreempt.scheduler.filtering import (
    add_to_view,
    filter_with_nominated,
    remove_from_view,
)
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.snapshot import NodeView

NO_VICTIMS = "No preemption victims found for incoming pod"


def start_time(pod: Pod, now: float) -> float:
    """``status.startTime``, or now for pods that have not started (upstream
    ``GetPodStartTime``)."""
    return pod.start_time if pod.start_time is not None else now


def more_important(a: Pod, b: Pod, now: float) -> bool:
    """Upstream ``MoreImportantPod``: higher priority, then earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time(a, now) < start_time(b, now)


def importance_order(pods: list[Pod], now: float) -> list[Pod]:
    """Most important first (priority desc, start time asc; then name for determinism)."""
    return sorted(pods, key=lambda p: (-p.priority, start_time(p, now), p.key))


def pdb_covers(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether ``pdb`` guards ``pod``: same namespace and a non-empty selector matching
    its labels (a PDB with an empty or null selector matches nothing here)."""
    return (bool(pod.labels) and pdb.namespace == pod.namespace and pdb.selector is not None
            and not pdb.selector.is_empty and pdb.selector.matches(pod.labels))


def split_by_pdb(pods: list[Pod], pdbs: list[PodDisruptionBudget]) -> tuple[list[Pod], list[Pod]]:
    """Upstream ``filterPodsWithPDBViolation``: budgets are consumed in the given order.

    Pods listed in the PDB's ``status.disruptedPods`` are already counted and do not
    consume budget.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    ok: list[Pod] = []
    for pod in pods:
        (violating if consume_budgets(pod, pdbs, allowed) else ok).append(pod)
    return violating, ok


def consume_budgets(pod: Pod, pdbs: list[PodDisruptionBudget], allowed: list[int]) -> bool:
    """Take ``pod``'s disruption from every budget that guards it (``allowed``, in the
    order of ``pdbs``, is updated); True when one of them goes below zero. A pod already
    in a PDB's ``status.disruptedPods`` is counted there and takes nothing."""
    violated = False
    for i, pdb in enumerate(pdbs):
        if not pdb_covers(pdb, pod) or pod.name in pdb.disrupted_pods:
            continue
        allowed[i] -= 1
        if allowed[i] < 0:
            violated = True
    return violated


def select_victims_on_node(nominator: Nominator, pdbs: list[PodDisruptionBudget],
                           state: CycleState, filters: list[FilterPlugin], view: NodeView,
                           now: float) -> tuple[list[Pod], int, Status | None]:
    """Upstream ``SelectVictimsOnNode`` on a copy of the node and the cycle state.

    Returns the victims (most important first), how many of them violate a PDB, or the
    status that makes this node no candidate.
    """
    pod = state.pod
    state = state.clone()
    view = view.clone()
    potential = [p for p in view.pods if p.priority < pod.priority]
    if not potential:
        return [], 0, unresolvable("DefaultPreemption", NO_VICTIMS)
    for victim in potential:
        remove_from_view(state, view, victim, filters)
    status = filter_with_nominated(nominator, state, view, filters)
    if status is not None:
        return [], 0, status
    ordered = importance_order(potential, now)
    violating, non_violating = split_by_pdb(ordered, pdbs)
    victims: list[Pod] = []
    violations = 0

    def reprieve(candidate: Pod) -> bool:
        add_to_view(state, view, candidate, filters)
        if filter_with_nominated(nominator, state, view, filters) is None:
            return True
        remove_from_view(state, view, candidate, filters)
        victims.append(candidate)
        return False

    for candidate in violating:
        if not reprieve(candidate):
            violations += 1
    for candidate in non_violating:
        reprieve(candidate)
    if violating and non_violating:
        victims = importance_order(victims, now)
    return victims, violations, None
