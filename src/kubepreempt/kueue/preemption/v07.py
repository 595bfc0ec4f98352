"""Kueue v0.7.0's preemption (``pkg/scheduler/preemption`` of that release), kept whole.

v0.7 found candidates (own queue by ``withinClusterQueue``; borrowing queues of the flat
cohort by ``reclaimWithinCohort``), ordered them, then ran either the classic heuristics
(:func:`minimal_preemptions`, tried in the documented order, switching borrowing off
mid-way) or its fair sharing (:func:`fair_preemptions`, integer shares, falling back to
classic when every candidate is in the preemptor's queue). The current algorithms
(:mod:`~kubepreempt.kueue.preemption.classical`,
:mod:`~kubepreempt.kueue.preemption.fairsharing`) differ in too many places for a switch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kubepreempt.kueue.flavors import Assignment
from kubepreempt.kueue.objects import (
    ANY,
    DEFAULT_STRATEGIES,
    LESS_THAN_INITIAL_SHARE,
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    LOWER_OR_NEWER_EQUAL_PRIORITY,
    NEVER,
)
from kubepreempt.kueue.preemption.common import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
    ResPerFlavor,
    Target,
    Trace,
    candidate_order_key,
    finish_targets,
    fits_with,
    resources_requiring_preemption,
)
from kubepreempt.kueue.quota import (
    CohortState,
    CQState,
    Snapshot,
    Usage,
    WorkloadInfo,
    queue_order_time,
)


def cq_is_borrowing(st: CQState, res_per_flv: ResPerFlavor) -> bool:
    """True when ``st`` uses more than nominal of a resource needing preemption."""
    if st.cohort is None:
        return False
    for rg in st.spec.resource_groups:
        for fq in rg.flavors:
            for res in res_per_flv.get(fq.name, ()):
                q = fq.resources.get(res)
                if q is not None and st.used(fq.name, res) > q.nominal:
                    return True
    return False


def workload_uses_resources(info: WorkloadInfo, res_per_flv: ResPerFlavor) -> bool:
    """True when the workload holds any (flavor, resource) that needs preemption."""
    for ps in info.total_requests:
        for res, flv in ps.flavors.items():
            if res in res_per_flv.get(flv, ()):
                return True
    return False


def find_candidates(wl: WorkloadInfo, st: CQState, res_per_flv: ResPerFlavor,
                    trace: Trace, admission_check_evictions: bool,
                    scan_cache: dict | None = None) -> list[WorkloadInfo]:
    """Admitted workloads the policies allow to preempt (``findCandidates``).
    ``scan_cache``: :attr:`Snapshot.scan_cache` (which queues of the tree borrow)."""
    out: list[WorkloadInfo] = []
    note = trace.enabled  # compose the skipped reasons only for a trace that is read
    prio = wl.obj.priority
    pol = st.spec.preemption
    if pol.within_cluster_queue != NEVER:
        same_prio = pol.within_cluster_queue == LOWER_OR_NEWER_EQUAL_PRIORITY
        ace = admission_check_evictions
        ts = queue_order_time(wl, ace)
        for cand in sorted(st.workloads.values(), key=lambda w: w.key):
            cp = cand.obj.priority
            if cp > prio:
                if note:
                    trace.skipped[cand.key] = f"priority {cp} > {prio}"
                continue
            if cp == prio and not (same_prio and ts < queue_order_time(cand, ace)):
                if note:
                    trace.skipped[cand.key] = \
                        f"same priority {cp}, not newer than the preemptor" if same_prio \
                        else f"same priority {cp} (withinClusterQueue: LowerPriority)"
                continue
            if not workload_uses_resources(cand, res_per_flv):
                if note:
                    trace.skipped[cand.key] = "uses no flavor/resource that needs preemption"
                continue
            out.append(cand)
    else:
        for cand in st.workloads.values():
            trace.skipped[cand.key] = "withinClusterQueue: Never"
    if st.cohort is not None and pol.reclaim_within_cohort != NEVER:
        for other in _borrowing_by_name(st, res_per_flv, trace, scan_cache):
            if other is st:
                continue
            if trace.enabled and not cq_is_borrowing(other, res_per_flv):
                for cand in other.workloads.values():
                    trace.skipped[cand.key] = f"its ClusterQueue {other.name} is not borrowing"
                continue
            only_lower = pol.reclaim_within_cohort != ANY
            for cand in sorted(other.workloads.values(), key=lambda w: w.key):
                if only_lower and cand.obj.priority >= prio:
                    if note:
                        trace.skipped[cand.key] = (f"priority {cand.obj.priority} >= {prio} "
                                                   "(reclaimWithinCohort: LowerPriority)")
                    continue
                if not workload_uses_resources(cand, res_per_flv):
                    if note:
                        trace.skipped[cand.key] = \
                            "uses no flavor/resource that needs preemption"
                    continue
                out.append(cand)
    elif st.cohort is not None:
        for other in _cohort_tree(st):
            if other is not st:
                for cand in other.workloads.values():
                    trace.skipped[cand.key] = "reclaimWithinCohort: Never"
    return out


def _borrowing_by_name(st: CQState, res_per_flv: ResPerFlavor, trace: Trace,
                       scan_cache: dict | None) -> list[CQState]:
    """The queues of ``st``'s cohort tree by name: all of them when the trace is read (the
    caller notes why the others are skipped), else only those borrowing a resource that
    needs preemption."""
    if trace.enabled:
        return sorted(_cohort_tree(st), key=lambda m: m.name)
    key = None
    if scan_cache is not None:
        key = ("borrowing", st.root(), frozenset((f, r) for f, rs in res_per_flv.items()
                                                 for r in rs))
        got = scan_cache.get(key)
        if got is not None:
            return got
    out = [other for other in sorted(_cohort_tree(st), key=lambda m: m.name)
           if cq_is_borrowing(other, res_per_flv)]
    if key is not None:
        scan_cache[key] = out
    return out


def _cohort_tree(st: CQState) -> list[CQState]:
    """Every ClusterQueue of ``st``'s cohort tree (root's subtree)."""
    root = st.root()
    return root.subtree_cluster_queues() if isinstance(root, CohortState) else [st]


def queue_under_nominal_in_all_requested(req: Usage, st: CQState) -> bool:
    """v0.7's ``queueUnderNominalInAllRequestedResources``."""
    for rg in st.spec.resource_groups:
        for fq in rg.flavors:
            for res in req.get(fq.name, {}):
                q = fq.resources.get(res)
                if q is not None and st.used(fq.name, res) >= q.nominal:
                    return False
    return True


def minimal_preemptions(req: Usage, st: CQState, snap: Snapshot, res_per_flv: ResPerFlavor,
                        candidates: list[WorkloadInfo], allow_borrowing: bool,
                        below_priority: int | None, trace: Trace) -> list[Target]:
    """Remove candidates in order until the workload fits, then minimise in reverse."""
    targets: list[Target] = []
    fits = False
    for cand in candidates:
        cand_cq = snap.cqs[cand.cluster_queue]
        same = cand_cq is st
        if not same and not cq_is_borrowing(cand_cq, res_per_flv):
            if trace.enabled:
                trace.note(f"  skip {cand.key}: {cand_cq.name} no longer borrows")
            continue
        reason = IN_CLUSTER_QUEUE
        if not same:
            reason = IN_COHORT_RECLAMATION
            if below_priority is not None:
                if cand.obj.priority >= below_priority:
                    # Taking a workload at or above the threshold forbids borrowing.
                    allow_borrowing = False
                else:
                    reason = IN_COHORT_RECLAIM_WHILE_BORROWING
        snap.remove_workload(cand)
        targets.append(Target(cand, reason))
        if trace.enabled:
            trace.note(f"  take {cand.key} ({reason})")
        if fits_with(req, st, snap, allow_borrowing):
            fits = True
            break
    return finish_targets(fits, targets, req, st, snap, allow_borrowing, trace,
                   "  the workload does not fit even without all these candidates")


def _can_borrow_within_cohort(st: CQState, priority: int) -> tuple[bool, int | None]:
    pol = st.spec.preemption
    if pol.borrow_within_cohort == NEVER:
        return False, None
    threshold = priority
    if pol.max_priority_threshold is not None and pol.max_priority_threshold < threshold:
        threshold = pol.max_priority_threshold + 1
    return True, threshold


class _GoHeap:
    """Kueue's ``util/heap`` over Go's ``container/heap``, so ties pop in the same order."""

    def __init__(self, less: Callable[[_CandCQ, _CandCQ], bool]) -> None:
        self.items: list[_CandCQ] = []
        self.less = less

    def __len__(self) -> int:
        return len(self.items)

    def get(self, name: str) -> _CandCQ | None:
        return next((c for c in self.items if c.st.name == name), None)

    def push_if_absent(self, item: _CandCQ) -> None:
        if self.get(item.st.name) is None:
            self.items.append(item)
            self._up(len(self.items) - 1)

    def pop(self) -> _CandCQ:
        n = len(self.items) - 1
        self.items[0], self.items[n] = self.items[n], self.items[0]
        self._down(0, n)
        return self.items.pop()

    def _up(self, j: int) -> None:
        while j > 0:
            i = (j - 1) // 2
            if not self.less(self.items[j], self.items[i]):
                break
            self.items[i], self.items[j] = self.items[j], self.items[i]
            j = i

    def _down(self, i: int, n: int) -> None:
        while True:
            j1 = 2 * i + 1
            if j1 >= n:
                break
            j = j1
            if j1 + 1 < n and self.less(self.items[j1 + 1], self.items[j1]):
                j = j1 + 1
            if not self.less(self.items[j], self.items[i]):
                break
            self.items[i], self.items[j] = self.items[j], self.items[i]
            i = j


@dataclass(slots=True, eq=False)
class _CandCQ:
    st: CQState
    workloads: list[WorkloadInfo]
    share: int


def _cq_heap(candidates: list[WorkloadInfo], first_only: bool, snap: Snapshot) -> _GoHeap:
    heap = _GoHeap(lambda a, b: a.share > b.share)
    for cand in candidates:
        entry = heap.get(cand.cluster_queue)
        if entry is None:
            st = snap.cqs[cand.cluster_queue]
            heap.push_if_absent(_CandCQ(st, [cand], st.dominant_resource_share()[0]))
        elif not first_only:
            entry.workloads.append(cand)
    return heap


def _strategy(name: str) -> Callable[[int, int, int], bool]:
    if name == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        return lambda new_preemptor, _old, new_target: new_preemptor <= new_target
    if name == LESS_THAN_INITIAL_SHARE:
        return lambda new_preemptor, old_target, _new: new_preemptor < old_target
    raise ValueError(f"unknown preemption strategy {name!r}")


def fair_preemptions(wl: WorkloadInfo, req: Usage, snap: Snapshot, res_per_flv: ResPerFlavor,
                     candidates: list[WorkloadInfo], below_priority: int | None,
                     strategies: tuple[str, ...], trace: Trace) -> list[Target]:
    """Fair sharing: preempt from the highest-share queue first while a strategy allows."""
    fns = [_strategy(s) for s in (strategies or DEFAULT_STRATEGIES)]
    heap = _cq_heap(candidates, False, snap)
    nominated = snap.cqs[wl.cluster_queue]
    new_share = nominated.dominant_resource_share(req, 1)[0]
    trace.note(f"  share of {nominated.name} with the workload: {new_share}")
    targets: list[Target] = []
    fits = False
    retry: list[WorkloadInfo] = []
    while len(heap) and not fits:
        cand_cq = heap.pop()
        if cand_cq.st is nominated:
            cand = cand_cq.workloads[0]
            snap.remove_workload(cand)
            targets.append(Target(cand, IN_CLUSTER_QUEUE))
            trace.note(f"  take {cand.key} (InClusterQueue)")
            if fits_with(req, nominated, snap, True):
                fits = True
                break
            new_share = nominated.dominant_resource_share(req, 1)[0]
            cand_cq.workloads = cand_cq.workloads[1:]
            if cand_cq.workloads:
                cand_cq.share = cand_cq.st.dominant_resource_share()[0]
                heap.push_if_absent(cand_cq)
            continue
        for i, cand in enumerate(cand_cq.workloads):
            below = below_priority is not None and cand.obj.priority < below_priority
            new_cand_share = cand_cq.st.dominant_resource_share(cand.usage(), -1)[0]
            ok = fns[0](new_share, cand_cq.share, new_cand_share)
            if below or ok:
                snap.remove_workload(cand)
                reason = IN_COHORT_FAIR_SHARING if ok else IN_COHORT_RECLAIM_WHILE_BORROWING
                targets.append(Target(cand, reason))
                trace.note(f"  take {cand.key} from {cand_cq.st.name} ({reason}; share "
                           f"{cand_cq.share} -> {new_cand_share}, preemptor {new_share})")
                if fits_with(req, nominated, snap, True):
                    fits = True
                    break
                cand_cq.workloads = cand_cq.workloads[i + 1:]
                if cand_cq.workloads and cq_is_borrowing(cand_cq.st, res_per_flv):
                    cand_cq.share = new_cand_share
                    heap.push_if_absent(cand_cq)
                break  # shares changed: pick the queue again
            trace.note(f"  pass {cand.key} from {cand_cq.st.name} for now (share "
                       f"{cand_cq.share} -> {new_cand_share}, preemptor {new_share})")
            retry.append(cand)
    if not fits and len(fns) > 1:
        heap = _cq_heap(retry, True, snap)
        while len(heap) and not fits:
            cand_cq = heap.pop()
            # Only LessThanInitialShare can be second; it ignores the preempted workload.
            if fns[1](new_share, cand_cq.share, 0):
                cand = cand_cq.workloads[0]
                snap.remove_workload(cand)
                targets.append(Target(cand, IN_COHORT_FAIR_SHARING))
                trace.note(f"  take {cand.key} from {cand_cq.st.name} (second strategy; "
                           f"share {cand_cq.share}, preemptor {new_share})")
                if fits_with(req, nominated, snap, True):
                    fits = True
    return finish_targets(fits, targets, req, nominated, snap, True, trace,
                   "  the workload does not fit with the allowed preemptions")


def v07_targets(wl: WorkloadInfo, assignment: Assignment, snap: Snapshot, now: float,
                trace: Trace) -> list[Target]:
    """v0.7's ``GetTargets``: workloads to evict so that ``wl`` fits with ``assignment``.

    ``snap`` is modified during the search and restored before returning.
    """
    res_per_flv = resources_requiring_preemption(assignment)
    st = snap.cqs[wl.cluster_queue]
    candidates = find_candidates(wl, st, res_per_flv, trace,
                                 snap.config.semantics.admission_check_eviction_orders,
                                 snap.scan_cache)
    if not candidates:
        trace.note("no candidates")
        return []
    candidates.sort(key=candidate_order_key(st.name, now))
    if trace.enabled:
        trace.note("candidates in order: " + ", ".join(c.key for c in candidates))
    same_queue = [c for c in candidates if c.cluster_queue == wl.cluster_queue]
    req = assignment.total_requests_for(wl)
    if len(same_queue) == len(candidates):
        trace.note("all candidates are in the ClusterQueue: preempt there, allowing borrowing")
        return minimal_preemptions(req, st, snap, res_per_flv, candidates, True, None, trace)
    borrow_within, threshold = _can_borrow_within_cohort(st, wl.obj.priority)
    if snap.config.fair_sharing:
        trace.note("fair sharing")
        return fair_preemptions(wl, req, snap, res_per_flv, candidates, threshold,
                                snap.config.strategies, trace)
    if borrow_within:
        assert threshold is not None
        if not queue_under_nominal_in_all_requested(req, st):
            candidates = [c for c in candidates
                          if c.cluster_queue == wl.cluster_queue or c.obj.priority < threshold]
        trace.note(f"borrowWithinCohort: preempt below priority {threshold}, allowing borrowing")
        return minimal_preemptions(req, st, snap, res_per_flv, candidates, True, threshold,
                                   trace)
    if queue_under_nominal_in_all_requested(req, st):
        trace.note("queue under nominal quota: reclaim in the cohort without borrowing")
        targets = minimal_preemptions(req, st, snap, res_per_flv, candidates, False, None,
                                      trace)
        if targets:
            return targets
    trace.note("last attempt: only the ClusterQueue's own workloads, allowing borrowing")
    return minimal_preemptions(req, st, snap, res_per_flv, same_queue, True, None, trace)
