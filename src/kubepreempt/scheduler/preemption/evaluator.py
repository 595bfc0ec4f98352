"""DefaultPreemption's evaluator, top to bottom as upstream's ``Evaluator.Preempt``.

(``pkg/scheduler/framework/preemption/preemption.go``.)

1. :func:`pod_eligible` — ``PodEligibleToPreemptOthers``: not for
   ``preemptionPolicy: Never``; not while a lower-priority pod on the pod's nominated node
   is terminating because of preemption, unless that node became
   UnschedulableAndUnresolvable for the pod.
2. :meth:`Evaluator.find_candidates` — ``findCandidates``: the potential nodes are those
   whose status from the failed cycle is Unschedulable (``NodesForStatusCode``; formerly
   ``nodesWherePreemptionMightHelp``), then ``DryRunPreemption``: ``select_victims_on_node``
   on each (optionally a sampled window, as upstream), recording the status of every node
   that gives no candidate. With no candidate, the message is a ``FitError`` over those
   statuses, every other node counting as "Preemption is not helpful for scheduling"
   (``SetAbsentNodesStatus``); docs/CONFORMANCE.md spells the rule out.
3. :func:`pick.pick_one_node` — ``SelectCandidate`` / ``pickOneNodeForPreemption``.
4. :func:`prepare_candidate` — what ``prepareCandidate`` changes: the victims are deleted
   and lower-priority pods nominated to the node lose their nomination.

The decision is pure: nothing in the cluster changes; callers apply it. Where the fast
module can answer for many nodes at once it is used, with the same result.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import PREEMPT_NEVER, Pod
from kubepreempt.scheduler.framework import (
    Code,
    CycleState,
    FilterPlugin,
    Status,
    unresolvable,
)
from kubepreempt.scheduler.nominated_requests import NominatedRequests
from kubepreempt.scheduler.nominator import lower_priority_nominees
from kubepreempt.scheduler.preemption.fast import PreemptionCache, resource_prune
from kubepreempt.scheduler.preemption.pick import Candidate, pick_candidate, pick_one_node
from kubepreempt.scheduler.preemption.victim_units import (
    VictimGroups,
    select_victim_units_on_node,
)
from kubepreempt.scheduler.preemption.victims import select_victims_on_node
from kubepreempt.scheduler.statuses import NodeStatuses, fit_error_message

NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."


@dataclass(slots=True)
class PreemptionResult:
    """What preemption decided for one pod."""

    eligible: bool
    message: str  # upstream PostFilter message ("preemption: ...") when nothing was chosen
    node: str | None = None
    victims: list[Pod] = field(default_factory=list)
    pdb_violations: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    statuses: Mapping[int, Status] = field(default_factory=dict)
    decided_by: str = ""
    cleared_nominations: list[Pod] = field(default_factory=list)


def pod_eligible(scheduler, pod: Pod, nominated_status: Status | None) -> tuple[bool, str]:
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


def prepare_candidate(scheduler, pod: Pod, candidate: Candidate) -> list[Pod]:
    """The nominations ``prepareCandidate`` clears: lower-priority pods nominated to the
    chosen node (the victims themselves are what the caller deletes)."""
    return lower_priority_nominees(scheduler.nominator.on_node(candidate.node), pod)


class Evaluator:
    """Runs DefaultPreemption for pods that fit nowhere (upstream ``Evaluator``).

    ``sample``: upstream's DryRunPreemption window (``minCandidateNodesPercentage`` /
    ``minCandidateNodesAbsolute`` nodes from a random offset, seeded) instead of every
    potential node; the two numbers are the profile's DefaultPreemptionArgs unless given
    here. ``materialize``: build every candidate (for ``--explain``); without
    it only the winner is built. ``fast``: use the vectorised paths (same answers).
    ``victim_groups``: Kubernetes 1.37 with GenericWorkload on, where victims are units
    weighed by their PodGroup (:mod:`~kubepreempt.scheduler.preemption.victim_units`);
    None (the default) is per-pod victims as before. The vectorised paths and the
    resource prune read pods' own priorities, so with it every node is dry-run.
    """

    def __init__(self, scheduler, sample: bool = False, seed: int | None = None,
                 min_candidate_percentage: int | None = None,
                 min_candidate_absolute: int | None = None,
                 now: float | None = None, fast: bool = True,
                 materialize: bool = True,
                 victim_groups: VictimGroups | None = None) -> None:
        self.scheduler = scheduler
        self.victim_groups = victim_groups
        self.fast = fast and victim_groups is None
        self.materialize = materialize
        self.sample = sample
        self.rng = random.Random(seed)
        self.min_pct = min_candidate_percentage
        self.min_abs = min_candidate_absolute
        self.now = now
        self._profile = None

    def preempt(self, pod: Pod, state: CycleState, filters: list[FilterPlugin],
                statuses: Mapping[int, Status], profile=None) -> PreemptionResult:
        """``Evaluator.Preempt`` for ``pod`` given the filter statuses of its failed cycle
        (``profile``: the deciding profile, for its DefaultPreemptionArgs)."""
        self._profile = profile
        cluster = self.scheduler.cluster
        now = self.now if self.now is not None else time.time()
        nominated_idx = cluster.node_index.get(pod.nominated_node_name, -1)
        ok, msg = pod_eligible(self.scheduler, pod, statuses.get(nominated_idx))
        if not ok:
            return PreemptionResult(False, f"preemption: {msg}")
        candidates, node_statuses = self.find_candidates(pod, state, filters, statuses, now)
        if not candidates:
            return PreemptionResult(True, "preemption: " + fit_error_message(
                len(cluster.nodes), node_statuses), statuses=node_statuses)
        best, step = pick_candidate(candidates, now, self.scheduler.cluster.name_rank)
        cleared = prepare_candidate(self.scheduler, pod, best)
        return PreemptionResult(True, "", best.node, best.victims, best.pdb_violations,
                                candidates, node_statuses, step, cleared)

    def find_candidates(self, pod: Pod, state: CycleState, filters: list[FilterPlugin],
                        statuses: Mapping[int, Status],
                        now: float) -> tuple[list[Candidate], NodeStatuses]:
        """``findCandidates``: the candidates and, for every other node, why not."""
        n = len(self.scheduler.cluster.nodes)
        node_statuses = NodeStatuses(n)
        potential = nodes_where_preemption_might_help(statuses, n)
        # Upstream leaves these out of the dry run's map and Preempt's
        # SetAbsentNodesStatus names them; setting it up front counts the same. Every
        # potential node gets its own status below when there is no candidate: the dry
        # run only stops early once it holds a PDB-respecting one.
        helpless = np.ones(n, bool)
        helpless[potential] = False
        node_statuses.set_many(np.flatnonzero(helpless),
                               unresolvable("DefaultPreemption", NOT_HELPFUL))
        if not potential.size:
            return [], node_statuses
        order, limit = potential, potential.size
        if self.sample:
            order = np.roll(order, -self.rng.randrange(order.size))
            min_pct, min_abs = self._window()
            limit = min(max(order.size * min_pct // 100, min_abs), order.size)
        nominated = NominatedRequests.of(self.scheduler.cluster, self.scheduler.nominator, pod,
                                         state)
        nominees = nominated.rows.tolist()
        cache = PreemptionCache.of(state, filters) if self.fast else None
        if cache is not None:
            order, from_cache = cache.prune(order, nominated, now, node_statuses)
        else:
            if self.victim_groups is None:
                order = self._prune(state, filters, order, nominees, node_statuses)
            from_cache = np.zeros(order.size, bool)
        candidates: list[Candidate] = []
        if cache is not None and not self.sample and not self.materialize:
            # Only the best cached candidate can win among them (the pick is
            # lexicographic over per-node metrics), so only it is built.
            rows = order[from_cache]
            if rows.size:
                best, _ = pick_one_node(cache.metrics(rows, now))
                candidates.append(cache.candidate(int(rows[best])))
            for i in order[~from_cache].tolist():
                self._dry_run_node(state, filters, i, now, candidates, node_statuses)
            return candidates, node_statuses
        non_violating = 0
        for i, cached in zip(order.tolist(), from_cache.tolist(), strict=True):
            if cached:
                candidates.append(cache.candidate(i))
            elif not self._dry_run_node(state, filters, i, now, candidates, node_statuses):
                continue
            non_violating += candidates[-1].pdb_violations == 0
            # Upstream's DryRunPreemption keeps at most numCandidates PDB-violating
            # candidates (its candidateList drops the rest); upstream case "preemption
            # looks past numCandidates until a non-PDB violating node is found".
            if self.sample and candidates[-1].pdb_violations \
                    and len(candidates) - non_violating > limit:
                candidates.pop()
                continue
            if self.sample and non_violating > 0 and len(candidates) >= limit:
                break
        return candidates, node_statuses

    def _window(self) -> tuple[int, int]:
        """minCandidateNodesPercentage / Absolute: explicit, else the profile's."""
        profile = getattr(self, "_profile", None) or self.scheduler.profile
        pct = self.min_pct if self.min_pct is not None else profile.min_candidate_percentage
        absolute = self.min_abs if self.min_abs is not None \
            else profile.min_candidate_absolute
        return pct, absolute

    def _dry_run_node(self, state: CycleState, filters: list[FilterPlugin], i: int,
                      now: float, candidates: list[Candidate],
                      node_statuses: NodeStatuses) -> bool:
        """``select_victims_on_node`` on node ``i``; appends a candidate if it has one."""
        sched = self.scheduler
        if self.victim_groups is not None:
            victims, violations, status = select_victim_units_on_node(
                sched.nominator, sched.cluster.pdbs, state, filters,
                sched.cluster.node_view(i), sched.cluster, self.victim_groups)
        else:
            victims, violations, status = select_victims_on_node(
                sched.nominator, sched.cluster.pdbs, state, filters,
                sched.cluster.node_view(i), now)
        if status is not None:
            node_statuses[i] = status
            return False
        candidates.append(Candidate(sched.cluster.nodes[i].name, i, victims, violations))
        return True

    def _prune(self, state: CycleState, filters: list[FilterPlugin], order: np.ndarray,
               nominees: list[int], node_statuses: NodeStatuses) -> np.ndarray:
        """Drop nodes where resources cannot fit even without every lower-priority pod,
        where that is exact: no NodePorts filter, and not on nodes with counting nominees."""
        if any(f.name == "NodePorts" for f in filters) or not order.size:
            return order
        cluster = self.scheduler.cluster
        below = cluster.requested_below(state.pod.priority, order)
        dropped, groups = resource_prune(state, cluster, order, below)
        if not dropped.any():
            return order
        keep_nominees = np.isin(order, np.array(nominees, np.int64)) if nominees else None
        for mask, status in groups:
            if keep_nominees is not None:
                mask = mask & ~keep_nominees
            node_statuses.set_many(order[mask], status)
        if keep_nominees is not None:
            dropped &= ~keep_nominees
        return order[~dropped]


# The library's historical name for the evaluator.
Preemptor = Evaluator


def nodes_where_preemption_might_help(statuses: Mapping[int, Status], n: int) -> np.ndarray:
    """The nodes ``findCandidates`` dry-runs: ``NodesForStatusCode(..., Unschedulable)``
    (formerly ``nodesWherePreemptionMightHelp``). A node without a status, or with an
    UnschedulableAndUnresolvable one (NodeResourcesFit's too when the pod requests more
    than the node's whole allocatable), is not tried."""
    if isinstance(statuses, NodeStatuses):
        return statuses.nodes_where(lambda st: st.code == Code.UNSCHEDULABLE)
    return np.array([i for i in range(n) if (st := statuses.get(i)) is not None
                     and st.code == Code.UNSCHEDULABLE], np.int64)
