"""Current Kueue's fair-sharing preemption (``fairsharing`` package, ``FairPreemptionPlan``).

Shares are dominant resource shares (:mod:`kubepreempt.kueue.dominant_share`). The
preemptor's queue is charged with the
incoming workload first. Target queues are found by walking the cohort tree from the
root, entering the child with the highest share (cohorts win ties, later children win
among cohorts); shares are compared between the two "almost least common ancestors" of
the preemptor's and the target's queues. Candidates come from the preemptor's queue
(``withinClusterQueue``) and from borrowing queues of the whole tree
(``reclaimWithinCohort``); ``borrowWithinCohort`` plays no part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kubepreempt.kueue.dominant_share import DRS, NEGATIVE, compare_drs, dominant_resource_share
from kubepreempt.kueue.objects import (
    ANY,
    DEFAULT_STRATEGIES,
    LESS_THAN_INITIAL_SHARE,
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    LOWER_OR_NEWER_EQUAL_PRIORITY,
    LOWER_PRIORITY,
)
from kubepreempt.kueue.preemption.common import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAMATION,
    Target,
    Trace,
    candidate_order_key,
    finish_targets,
    fits_with,
)
from kubepreempt.kueue.quota import (
    FR,
    CohortState,
    CQState,
    QuotaNode,
    Snapshot,
    Usage,
    WorkloadInfo,
    queue_order_time,
)

Strategy = Callable[[DRS, DRS, DRS], bool]


def _strategy(name: str) -> Strategy:
    if name == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        return lambda pnew, _told, tnew: compare_drs(pnew, tnew) <= 0
    if name == LESS_THAN_INITIAL_SHARE:
        return lambda pnew, told, _tnew: compare_drs(pnew, told) < 0
    raise ValueError(f"unknown preemption strategy {name!r}")


class _Ordering:
    """``TargetClusterQueueOrdering``: which queue to take the next candidate from."""

    def __init__(self, st: CQState, candidates: list[WorkloadInfo],
                 order_key: Callable[[WorkloadInfo], tuple]) -> None:
        self.st = st
        self.ancestors = {id(a) for a in st.path_to_root()}
        self.queue: dict[str, list[WorkloadInfo]] = {}
        for c in candidates:
            self.queue.setdefault(c.cluster_queue, []).append(c)
        self.pruned_cqs: set[str] = set()
        self.pruned_cohorts: set[int] = set()
        self.order_key = order_key

    def has_workload(self, name: str) -> bool:
        return bool(self.queue.get(name))

    def pop(self, name: str) -> WorkloadInfo:
        return self.queue[name].pop(0)

    def drop(self, name: str) -> None:
        self.pruned_cqs.add(name)

    def __iter__(self) -> Iterator[CQState]:
        st = self.st
        if st.parent is None:
            while self.has_workload(st.name):
                yield st
            return
        root = st.root()
        assert isinstance(root, CohortState)
        while id(root) not in self.pruned_cohorts:
            target = self._next(root)
            if target is not None:
                yield target

    def _next(self, cohort: CohortState) -> CQState | None:
        """``nextTarget``: enter the child with the highest share; prune the rest."""
        best_cq: CQState | None = None
        best_cq_drs = NEGATIVE
        for cq in cohort.members:
            if cq.name in self.pruned_cqs:
                continue
            drs = dominant_resource_share(cq)
            # IsBorrowing (usage above quota), not a zero share: a queue borrowing only
            # what its parent cannot lend has share 0 and is still a target.
            if (not drs.borrowing and cq is not self.st) or not self.has_workload(cq.name):
                self.pruned_cqs.add(cq.name)
                continue
            cmp = compare_drs(drs, best_cq_drs)
            if cmp == 0 and best_cq is not None:
                # Tie: the queue whose first candidate comes first in candidate order.
                if self.order_key(self.queue[cq.name][0]) < \
                        self.order_key(self.queue[best_cq.name][0]):
                    best_cq = cq
            elif cmp > 0:
                best_cq, best_cq_drs = cq, drs
        best_cohort: CohortState | None = None
        best_cohort_drs = NEGATIVE
        for child in cohort.children:
            if id(child) in self.pruned_cohorts:
                continue
            drs = dominant_resource_share(child)
            # A cohort off the preemptor's path is pruned once it no longer borrows.
            if not drs.borrowing and id(child) not in self.ancestors:
                self.pruned_cohorts.add(id(child))
            elif compare_drs(drs, best_cohort_drs) >= 0:  # later children win ties
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned_cohorts.add(id(cohort))
            return None
        if best_cohort is not None and compare_drs(best_cohort_drs, best_cq_drs) >= 0:
            return self._next(best_cohort)  # cohorts win ties against queues
        return best_cq

    def almost_lcas(self, target: CQState) -> tuple[QuotaNode, QuotaNode]:
        """(preemptor's, target's) nodes just below their least common ancestor."""
        lca = next(a for a in target.path_to_root() if id(a) in self.ancestors)
        return _below(self.st, lca), _below(target, lca)


def _below(cq: CQState, lca: CohortState) -> QuotaNode:
    node: QuotaNode = cq
    for ancestor in cq.path_to_root():
        if ancestor is lca:
            return node
        node = ancestor
    raise AssertionError("no common ancestor")


def _satisfies_policy(policy: str, wl: WorkloadInfo, cand: WorkloadInfo, ace: bool) -> bool:
    """``SatisfiesPreemptionPolicy``."""
    incoming, prio = wl.obj.priority, cand.obj.priority
    if policy == LOWER_PRIORITY:
        return prio < incoming
    if policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
        return prio < incoming or (prio == incoming and queue_order_time(wl, ace)
                                   < queue_order_time(cand, ace))
    return policy == ANY


def _uses(info: WorkloadInfo, frs: set[FR]) -> bool:
    return any((flv, res) in frs for ps in info.total_requests
               for res, flv in ps.flavors.items())


def find_candidates(wl: WorkloadInfo, st: CQState, frs: set[FR], ace: bool,
                    trace: Trace) -> list[WorkloadInfo]:
    """Current ``findCandidates``: own queue by withinClusterQueue, borrowing queues of
    the whole cohort tree by reclaimWithinCohort."""
    pol = st.spec.preemption
    out = [c for c in st.workloads.values()
           if _satisfies_policy(pol.within_cluster_queue, wl, c, ace) and _uses(c, frs)]
    if st.parent is not None:
        root = st.root()
        assert isinstance(root, CohortState)
        for other in root.subtree_cluster_queues():
            if other is st or not any(other.borrowing_with(fr, 0) for fr in frs):
                continue
            for c in other.workloads.values():
                if _satisfies_policy(pol.reclaim_within_cohort, wl, c, ace) and _uses(c, frs):
                    out.append(c)
                else:
                    trace.skipped[c.key] = "not allowed by reclaimWithinCohort or uses no " \
                                           "flavor/resource that needs preemption"
    return out


def _add(st: CQState, usage: dict[FR, int], sign: int) -> None:
    for fr, v in usage.items():
        if sign > 0:
            st.add_usage(fr, v)
        else:
            st.remove_usage(fr, v)


def fair_targets(wl: WorkloadInfo, req: Usage, frs: set[FR], snap: Snapshot, now: float,
                 trace: Trace) -> list[Target]:
    """Current ``FairPreemptionPlan`` run until the workload fits."""
    st = snap.cqs[wl.cluster_queue]
    ace = snap.config.semantics.admission_check_eviction_orders
    candidates = find_candidates(wl, st, frs, ace, trace)
    if not candidates:
        trace.note("no candidates")
        return []
    key = candidate_order_key(st.name, now)
    candidates.sort(key=key)
    trace.note("candidates in order: " + ", ".join(c.key for c in candidates))
    fns = [_strategy(s) for s in (snap.config.strategies or DEFAULT_STRATEGIES)]
    flat = {(f, r): v for f, per in req.items() for r, v in per.items()}
    _add(st, flat, 1)  # shares include the incoming workload
    # FairSharingPreemptWithinNominal (beta, on): a preemptor within nominal quota in the
    # contested resources takes cross-queue candidates without comparing shares.
    within = all(st.usage.get(fr, 0) <= (st.quotas[fr].nominal if fr in st.quotas else 0)
                 for fr in frs)
    targets: list[Target] = []

    def take(cand: WorkloadInfo, reason: str) -> bool:
        snap.remove_workload(cand)
        targets.append(Target(cand, reason))
        trace.note(f"  take {cand.key} ({reason})")
        _add(st, flat, -1)  # workloadFitsForFairSharing: without the incoming workload
        ok = fits_with(req, st, snap, True)
        _add(st, flat, 1)
        return ok

    fits = False
    retry: list[WorkloadInfo] = []
    ordering = _Ordering(st, candidates, key)
    for cq in ordering:
        if cq is st:
            if take(ordering.pop(cq.name), IN_CLUSTER_QUEUE):
                fits = True
                break
            continue
        if within:
            if take(ordering.pop(cq.name), IN_COHORT_RECLAMATION):
                fits = True
                break
            continue
        mine, theirs = ordering.almost_lcas(cq)
        pnew, told = dominant_resource_share(mine), dominant_resource_share(theirs)
        while ordering.has_workload(cq.name):
            cand = ordering.pop(cq.name)
            _add(cq, cand.flat_usage(), -1)
            tnew = dominant_resource_share(theirs)
            _add(cq, cand.flat_usage(), 1)
            if fns[0](pnew, told, tnew):
                fits = take(cand, IN_COHORT_FAIR_SHARING)
                break  # shares changed: pick the queue again
            trace.note(f"  pass {cand.key} for now (share {told.precise():g} -> "
                       f"{tnew.precise():g}, preemptor {pnew.precise():g})")
            retry.append(cand)
        if fits:
            break
    if not fits and len(fns) > 1:
        ordering = _Ordering(st, retry, key)
        for cq in ordering:
            mine, theirs = ordering.almost_lcas(cq)
            pnew, told = dominant_resource_share(mine), dominant_resource_share(theirs)
            cand = ordering.pop(cq.name)
            # Only LessThanInitialShare can be second; it ignores the removed workload.
            if compare_drs(pnew, told) < 0 and take(cand, IN_COHORT_FAIR_SHARING):
                fits = True
                break
            ordering.drop(cq.name)
    _add(st, flat, -1)
    return finish_targets(fits, targets, req, st, snap, True, trace,
                          "  the workload does not fit with the allowed preemptions")
