"""DefaultPreemption, as upstream's ``pkg/scheduler/framework/preemption`` does it.

1. Eligibility: not for ``preemptionPolicy: Never``; not while a lower-priority pod on the
   pod's nominated node is terminating *because of preemption*, unless that node has become
   UnschedulableAndUnresolvable for the pod.
2. Candidates: every node whose filter failure was not UnschedulableAndUnresolvable and
   where the pod fits once all lower-priority pods are removed (all filters, with nominated
   pods' two-pass check). A resource-only necessary condition prunes nodes for all nodes
   at once before the exact per-node check.
3. Victims per node: remove all lower-priority pods, then reprieve them most important
   first, PDB-violating ones before the others, keeping each that still lets the pod fit.
4. Node pick: fewest PDB violations, lowest highest-victim priority, smallest sum of
   (priority + 2^31), fewest victims, latest earliest-start-time among the highest-priority
   victims, then the first node by name (upstream: effectively random).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget
from kubepreempt.cluster import NodeView
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.scheduler.plugins.node_resources import insufficient, reasons_for
from kubepreempt.scheduler.scheduler import (
    Scheduler,
    add_to_view,
    fit_error_message,
    remove_from_view,
)

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."
_INT32_OFFSET = 2**31
TIE_BREAKS = (
    "fewest PDB violations",
    "lowest highest-victim priority",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start time of the highest-priority victims",
    "first node by name",
)


@dataclass(slots=True)
class Candidate:
    """A node where preemption makes room: its victims (most important first)."""

    node: str
    index: int
    victims: list[Pod]
    pdb_violations: int

    @property
    def highest_priority(self) -> int:
        """Priority of the most important victim."""
        return self.victims[0].priority

    @property
    def priority_sum(self) -> int:
        """Sum of victim priorities, each offset by 2^31 as upstream."""
        return sum(p.priority + _INT32_OFFSET for p in self.victims)

    def earliest_start(self, now: float) -> float:
        """Earliest start time among the highest-priority victims (no start time = now)."""
        top = max(p.priority for p in self.victims)
        return min(start_time(p, now) for p in self.victims if p.priority == top)


@dataclass(slots=True)
class PreemptionResult:
    """What preemption decided for one pod."""

    eligible: bool
    message: str  # upstream PostFilter message ("preemption: ...") when nothing was chosen
    node: str | None = None
    victims: list[Pod] = field(default_factory=list)
    pdb_violations: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    statuses: dict[int, Status] = field(default_factory=dict)
    decided_by: str = ""
    cleared_nominations: list[Pod] = field(default_factory=list)


def start_time(pod: Pod, now: float) -> float:
    """``status.startTime``, or now for pods that have not started (upstream)."""
    return pod.start_time if pod.start_time is not None else now


def more_important(a: Pod, b: Pod, now: float) -> bool:
    """Upstream ``MoreImportantPod``: higher priority, then earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time(a, now) < start_time(b, now)


def importance_order(pods: list[Pod], now: float) -> list[Pod]:
    """Most important first (priority desc, start time asc; then name for determinism)."""
    return sorted(pods, key=lambda p: (-p.priority, start_time(p, now), p.key))


def split_by_pdb(pods: list[Pod], pdbs: list[PodDisruptionBudget]) -> tuple[list[Pod], list[Pod]]:
    """Upstream ``filterPodsWithPDBViolation``: budgets are consumed in the given order.

    A PDB with an empty or null selector matches nothing here; pods listed in the PDB's
    ``status.disruptedPods`` are already counted and do not consume budget.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    ok: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector is None:
                    continue
                if pdb.selector.is_empty or not pdb.selector.matches(pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else ok).append(pod)
    return violating, ok


def pod_eligible(
    scheduler: Scheduler, pod: Pod, nominated_status: Status | None
) -> tuple[bool, str]:
    """Upstream ``PodEligibleToPreemptOthers``."""
    if pod.preemption_policy == PREEMPT_NEVER:
        return False, MSG_NEVER
    nominated = pod.nominated_node_name
    if nominated:
        if nominated_status is not None and nominated_status.unresolvable:
            return True, ""
        idx = scheduler.cluster.node_index.get(nominated)
        if idx is not None:
            for other in scheduler.cluster.node_pods[idx].values():
                if other.priority < pod.priority and other.terminating \
                        and other.preempted_by_scheduler:
                    return False, MSG_TERMINATING
    return True, ""


class Preemptor:
    """Runs DefaultPreemption for pods that fit nowhere."""

    def __init__(self, scheduler: Scheduler, sample: bool = False, seed: int | None = None,
                 min_candidate_percentage: int = 10, min_candidate_absolute: int = 100,
                 now: float | None = None) -> None:
        self.scheduler = scheduler
        self.sample = sample
        self.rng = random.Random(seed)
        self.min_pct = min_candidate_percentage
        self.min_abs = min_candidate_absolute
        self.now = now

    # ---- victims on one node --------------------------------------------------------------
    def select_victims(self, state: CycleState, filters: list[FilterPlugin], view: NodeView,
                       now: float) -> tuple[list[Pod], int, Status | None]:
        """Upstream ``SelectVictimsOnNode`` on a copy of the node and the cycle state."""
        scheduler = self.scheduler
        pod = state.pod
        state = state.clone()
        view = view.clone()
        potential = [p for p in view.pods if p.priority < pod.priority]
        if not potential:
            return [], 0, unresolvable("DefaultPreemption", NO_VICTIMS)
        for victim in potential:
            remove_from_view(state, view, victim, filters)
        status = scheduler.filter_with_nominated(state, view, filters)
        if status is not None:
            return [], 0, status
        ordered = importance_order(potential, now)
        violating, non_violating = split_by_pdb(ordered, scheduler.cluster.pdbs)
        victims: list[Pod] = []
        violations = 0

        def reprieve(candidate: Pod) -> bool:
            add_to_view(state, view, candidate, filters)
            if scheduler.filter_with_nominated(state, view, filters) is None:
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

    # ---- the whole PostFilter ---------------------------------------------------------------
    def preempt(self, pod: Pod, state: CycleState, filters: list[FilterPlugin],
                statuses: dict[int, Status]) -> PreemptionResult:
        """Decide preemption for ``pod`` given the filter statuses of its failed cycle."""
        scheduler = self.scheduler
        cluster = scheduler.cluster
        now = self.now if self.now is not None else time.time()
        nominated_idx = cluster.node_index.get(pod.nominated_node_name, -1)
        ok, msg = pod_eligible(scheduler, pod, statuses.get(nominated_idx))
        if not ok:
            return PreemptionResult(False, f"preemption: {msg}")
        n = len(cluster.nodes)
        node_statuses: dict[int, Status] = {}
        potential = []
        for i in range(n):
            st = statuses.get(i)
            if st is None or st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                node_statuses[i] = unresolvable("DefaultPreemption", NOT_HELPFUL)
            else:
                potential.append(i)
        if not potential:
            return self._none(pod, n, node_statuses)
        order = np.array(potential, np.int64)
        limit = len(order)
        if self.sample:
            offset = self.rng.randrange(len(order))
            order = np.roll(order, -offset)
            limit = max(len(order) * self.min_pct // 100, self.min_abs)
            limit = min(limit, len(order))
        order = self._prune(state, filters, order, node_statuses)
        candidates: list[Candidate] = []
        non_violating = 0
        for i in order.tolist():
            view = cluster.node_view(i)
            victims, violations, status = self.select_victims(state, filters, view, now)
            if status is not None:
                node_statuses[i] = status
                continue
            candidates.append(Candidate(cluster.nodes[i].name, i, victims, violations))
            non_violating += violations == 0
            if self.sample and non_violating > 0 and len(candidates) >= limit:
                break
        if not candidates:
            return self._none(pod, n, node_statuses)
        best, step = pick_one_node(candidates, now)
        cleared = [p for p in scheduler.nominator.on_node(best.node)
                   if p.priority < pod.priority and p.key != pod.key]
        return PreemptionResult(True, "", best.node, best.victims, best.pdb_violations,
                                candidates, node_statuses, step, cleared)

    def _none(self, pod: Pod, n: int, node_statuses: dict[int, Status]) -> PreemptionResult:
        return PreemptionResult(True, "preemption: " + fit_error_message(n, node_statuses),
                                statuses=node_statuses)

    def _prune(self, state: CycleState, filters: list[FilterPlugin], order: np.ndarray,
               node_statuses: dict[int, Status]) -> np.ndarray:
        """Drop nodes where resources cannot fit even without every lower-priority pod.

        Exact only when NodeResourcesFit is the first filter that could fail after the
        removal: so skipped when host ports matter, and nodes with nominated pods of
        higher-or-equal priority always get the full check.
        """
        if any(f.name == "NodePorts" for f in filters):
            return order
        cluster = self.scheduler.cluster
        pod = state.pod
        free_req = cluster.requested[order] - cluster.requested_below(pod.priority)[order]
        fail = insufficient(state, free_req, cluster.alloc[order])
        bad = fail.any(axis=1)
        if not bad.any():
            return order
        nominee_nodes = {cluster.node_index[n] for n in
                         self.scheduler.nominator.nodes_with_nominees(pod.priority, pod.key)
                         if n in cluster.node_index}
        keep = []
        for pos, i in enumerate(order.tolist()):
            if bad[pos] and i not in nominee_nodes:
                lower = any(p.priority < pod.priority for p in cluster.node_pods[i].values())
                if not lower:
                    node_statuses[i] = unresolvable("DefaultPreemption", NO_VICTIMS)
                else:
                    node_statuses[i] = Status(Code.UNSCHEDULABLE,
                                              reasons_for(cluster.resources, fail[pos]),
                                              "NodeResourcesFit")
            else:
                keep.append(i)
        return np.array(keep, np.int64)


def pick_one_node(candidates: list[Candidate], now: float) -> tuple[Candidate, str]:
    """Upstream ``pickOneNodeForPreemption``; returns the winner and the deciding step."""
    keys = (
        lambda c: -c.pdb_violations,
        lambda c: -c.highest_priority,
        lambda c: -c.priority_sum,
        lambda c: -len(c.victims),
        lambda c: c.earliest_start(now),
    )
    remaining = sorted(candidates, key=lambda c: c.node)
    for step, key in zip(TIE_BREAKS, keys, strict=False):
        best = max(key(c) for c in remaining)
        remaining = [c for c in remaining if key(c) == best]
        if len(remaining) == 1:
            return remaining[0], step
    return remaining[0], TIE_BREAKS[-1]


