"""Current Kueue's classic preemption (``classical`` package and ``ClassicalPreemptionPlan``).

Candidates are classified (``classifyPreemptionVariant``): the preemptor's own queue
(``WithinCQ``), queues over which the preemptor has a *hierarchical advantage* (it fits in
a subtree of the cohort tree that they borrow from), and the others, which may be taken
while the preemptor borrows only below ``borrowWithinCohort.maxPriorityThreshold``. One
ordered list is walked greedily, up to twice (with and without borrowing); a candidate
stops being valid once its queue, or a cohort between it and the preemptor, is back
within its quota. The found set is minimised in reverse, as in v0.7.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubepreempt.kueue.objects import ANY, LOWER_OR_NEWER_EQUAL_PRIORITY, LOWER_PRIORITY, NEVER
from kubepreempt.kueue.preemption.common import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
    Target,
    Trace,
    candidate_rank,
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

# preemptionVariant
WITHIN_CQ = "WithinCQ"
HIERARCHICAL_RECLAIM = "HierarchicalReclaim"
RECLAIM_WITHOUT_BORROWING = "ReclaimWithoutBorrowing"
RECLAIM_WHILE_BORROWING = "ReclaimWhileBorrowing"
REASONS = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHICAL_RECLAIM: IN_COHORT_RECLAMATION,
           RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
           RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass(slots=True)
class Candidate:
    """A workload that may be preempted, how, and up to which cohort it is checked."""

    info: WorkloadInfo
    variant: str
    lca: CohortState | None  # the preemptor's ancestor whose subtree holds the candidate


class _Context:
    """``HierarchicalPreemptionCtx``: the preemptor, its queue and what it needs."""

    def __init__(self, wl: WorkloadInfo, st: CQState, frs: set[FR], req: Usage,
                 admission_check_evictions: bool, trace: Trace,
                 scan_cache: dict | None = None) -> None:
        self.wl = wl
        self.st = st
        self.frs = frs
        self.req = {(f, r): v for f, per in req.items() for r, v in per.items()}
        self.ace = admission_check_evictions
        self.trace = trace
        # Snapshot.scan_cache (the snapshot is the same at the start of every search while
        # it is set); only the trace-off path reads it.
        self.cache = scan_cache if not trace.enabled else None
        self.frs_key = frozenset(frs)

    def uses_resources(self, info: WorkloadInfo) -> bool:
        return any((flv, res) in self.frs for ps in info.total_requests
                   for res, flv in ps.flavors.items())

    def priority_too_high(self, info: WorkloadInfo) -> bool:
        """``priorityTooHighToPreempt`` under withinClusterQueue / reclaimWithinCohort."""
        pol = self.st.spec.preemption
        policy = pol.within_cluster_queue if info.cluster_queue == self.st.name \
            else pol.reclaim_within_cohort
        incoming, cand = self.wl.obj.priority, info.obj.priority
        lower = incoming > cand
        if policy == LOWER_PRIORITY:
            return not lower
        if policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
            newer_equal = incoming == cand and (queue_order_time(self.wl, self.ace)
                                                < queue_order_time(info, self.ace))
            return not (lower or newer_equal)
        return policy != ANY

    def classify(self, info: WorkloadInfo, advantage: bool) -> str | None:
        """``classifyPreemptionVariant`` (None: cannot be preempted)."""
        if not self.uses_resources(info):
            self.trace.skipped[info.key] = "uses no flavor/resource that needs preemption"
            return None
        if self.priority_too_high(info):
            self.trace.skipped[info.key] = f"priority {info.obj.priority} too high for the " \
                                           "preemption policy"
            return None
        if info.cluster_queue == self.st.name:
            return WITHIN_CQ
        if advantage:
            return HIERARCHICAL_RECLAIM
        pol = self.st.spec.preemption
        if pol.borrow_within_cohort == NEVER:
            return RECLAIM_WITHOUT_BORROWING
        cand, incoming = info.obj.priority, self.wl.obj.priority
        threshold = pol.max_priority_threshold
        if cand >= incoming or (threshold is not None and cand > threshold):
            return RECLAIM_WITHOUT_BORROWING
        return RECLAIM_WHILE_BORROWING

    def from_queue(self, cq: CQState, lca: CohortState | None,
                   advantage: bool) -> list[Candidate]:
        """The preemptible workloads of ``cq``, classified. With the trace off, the same
        answer as :meth:`classify` per workload, with the per-call constants hoisted."""
        if self.trace.enabled:
            out = []
            for info in cq.workloads.values():
                variant = self.classify(info, advantage)
                if variant is not None:
                    out.append(Candidate(info, variant, lca))
            return out
        return self._from_queue_fast(cq, lca, advantage)

    def _users(self, cq: CQState) -> list[WorkloadInfo]:
        """The workloads of ``cq`` holding a flavor-resource that needs preemption."""
        cache = self.cache
        if cache is not None:
            got = cache.get((cq, self.frs_key))
            if got is not None:
                return got
        frs = self.frs
        out = []
        for info in cq.workloads.values():
            uses = False
            for ps in info.total_requests:
                for res, flv in ps.flavors.items():
                    if (flv, res) in frs:
                        uses = True
                        break
                if uses:
                    break
            if uses:
                out.append(info)
        if cache is not None:
            cache[(cq, self.frs_key)] = out
        return out

    def _from_queue_fast(self, cq: CQState, lca: CohortState | None,
                         advantage: bool) -> list[Candidate]:
        st_name = self.st.name
        pol = self.st.spec.preemption
        incoming = self.wl.obj.priority
        threshold = pol.max_priority_threshold
        never_borrow = pol.borrow_within_cohort == NEVER
        out = []
        for info in self._users(cq):
            same = info.cluster_queue == st_name
            policy = pol.within_cluster_queue if same else pol.reclaim_within_cohort
            if policy != ANY:
                cand = info.obj.priority
                if policy == LOWER_PRIORITY:
                    if not incoming > cand:
                        continue
                elif policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
                    if not (incoming > cand or (
                            incoming == cand and queue_order_time(self.wl, self.ace)
                            < queue_order_time(info, self.ace))):
                        continue
                else:
                    continue
            if same:
                variant = WITHIN_CQ
            elif advantage:
                variant = HIERARCHICAL_RECLAIM
            elif never_borrow:
                variant = RECLAIM_WITHOUT_BORROWING
            else:
                cand = info.obj.priority
                variant = RECLAIM_WITHOUT_BORROWING \
                    if cand >= incoming or (threshold is not None and cand > threshold) \
                    else RECLAIM_WHILE_BORROWING
            out.append(Candidate(info, variant, lca))
        return out


def quantities_fit_in_quota(node: QuotaNode, req: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
    """``QuantitiesFitInQuota``: the requests fit the node's subtree quota, and what is
    left once its unused local quota is taken."""
    fits = all(node.subtree.get(fr, 0) >= node.usage.get(fr, 0) + v for fr, v in req.items())
    return fits, {fr: max(0, v - node.local_available(fr)) for fr, v in req.items()}


def _over_quota_queues(cur: CohortState, skip: CohortState | None, frs: set[FR],
                       out: list[CQState]) -> list[CQState]:
    """Queues above their quota in ``cur``'s subtree, skipping ``skip`` and subtrees
    within quota, child cohorts before members."""
    for child in cur.children:
        if child is skip or child.within_nominal(frs):
            continue
        _over_quota_queues(child, skip, frs, out)
    for cq in cur.members:
        if not cq.within_nominal(frs):
            out.append(cq)
    return out


def _collect_subtree(ctx: _Context, cur: CohortState, root: CohortState,
                     skip: CohortState | None, advantage: bool, out: list[Candidate]) -> None:
    """Candidates of the queues above their quota in ``cur``'s subtree (but the
    preemptor's own), skipping subtrees within quota."""
    cache = ctx.cache
    queues = None if cache is None else cache.get((cur, skip, ctx.frs_key))
    if queues is None:
        queues = _over_quota_queues(cur, skip, ctx.frs, [])
        if cache is not None:
            cache[(cur, skip, ctx.frs_key)] = queues
    for cq in queues:
        if cq is not ctx.st:
            out.extend(ctx.from_queue(cq, root, advantage))


def _collect_cohort(ctx: _Context) -> tuple[list[Candidate], list[Candidate]]:
    """``collectCandidatesForHierarchicalReclaim``: (hierarchy, priority) candidates,
    walking the preemptor's ancestors from its parent to the root."""
    hierarchy: list[Candidate] = []
    priority: list[Candidate] = []
    st = ctx.st
    if st.parent is None or st.spec.preemption.reclaim_within_cohort == NEVER:
        return hierarchy, priority
    advantage, remaining = quantities_fit_in_quota(st, ctx.req)
    previous: CohortState | None = None
    for cur in st.path_to_root():
        _collect_subtree(ctx, cur, cur, previous, advantage,
                         hierarchy if advantage else priority)
        fits, remaining = quantities_fit_in_quota(cur, remaining)
        advantage = advantage or fits
        previous = cur
    return hierarchy, priority


def _ordered(hierarchy: list[Candidate], priority: list[Candidate], same: list[Candidate],
             now: float) -> list[Candidate]:
    """The candidates in ``ClassicalPreemptionPlan``'s order: each group sorted by
    ``candidatesOrdering``, then the evicted ones of every group first (hierarchy,
    priority, own queue), then the rest in the same group order.

    Within one group the ordering's own-queue rule is constant (the cohort groups hold
    other queues' workloads, ``same`` only the preemptor's), so :func:`candidate_rank`
    orders it alike; its first field is "not evicted", so a sorted group is already its
    evicted workloads followed by the rest."""
    evicted: list[Candidate] = []
    rest: list[Candidate] = []
    for group in (hierarchy, priority, same):
        ranks = [candidate_rank(c.info, now) for c in group]
        order = sorted(range(len(group)), key=ranks.__getitem__)
        k = 0
        while k < len(order) and not ranks[order[k]][0]:
            k += 1
        evicted.extend(group[i] for i in order[:k])
        rest.extend(group[i] for i in order[k:])
    return evicted + rest


def _valid(ctx: _Context, snap: Snapshot, cand: Candidate, borrowing: bool) -> bool:
    """``candidateIsValid``: earlier preemptions may have brought its queue (or a cohort
    up to the common ancestor) back within quota."""
    if cand.info.cluster_queue == ctx.st.name:
        return True
    if borrowing and cand.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    cq = snap.cqs[cand.info.cluster_queue]
    if cq.within_nominal(ctx.frs):
        return False
    for node in cq.path_to_root():
        if node is cand.lca:
            break
        if node.within_nominal(ctx.frs):
            return False
    return True


def classic_targets(wl: WorkloadInfo, req: Usage, frs: set[FR], snap: Snapshot, now: float,
                    trace: Trace) -> list[Target]:
    """Current ``ClassicalPreemptionPlan`` run to the first set of targets that fits."""
    st = snap.cqs[wl.cluster_queue]
    ctx = _Context(wl, st, frs, req, snap.config.semantics.admission_check_eviction_orders,
                   trace, snap.scan_cache)
    same = ctx.from_queue(st, None, False) \
        if st.spec.preemption.within_cluster_queue != NEVER else []
    hierarchy, priority = _collect_cohort(ctx)
    cands = _ordered(hierarchy, priority, same, now)
    if not cands:
        trace.note("no candidates")
        return []
    if trace.enabled:
        trace.note("candidates in order: " + ", ".join(f"{c.info.key} ({c.variant})"
                                                        for c in cands))
    forbidden = st.spec.preemption.borrow_within_cohort == NEVER
    under_nominal = all(st.usage.get(fr, 0) < (st.quotas[fr].nominal if fr in st.quotas else 0)
                        for fr in frs)
    if (not hierarchy and not priority) or (forbidden and not under_nominal):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrowing in attempts:
        if trace.enabled:
            trace.note(f"attempt {'with' if borrowing else 'without'} borrowing")
        targets: list[Target] = []
        fits = False
        for cand in cands:
            if not _valid(ctx, snap, cand, borrowing):
                continue
            snap.remove_workload(cand.info)
            reason = REASONS[cand.variant]
            targets.append(Target(cand.info, reason))
            if trace.enabled:
                trace.note(f"  take {cand.info.key} ({reason})")
            if fits_with(req, st, snap, borrowing):
                fits = True
                break
        found = finish_targets(fits, targets, req, st, snap, borrowing, trace,
                        "  the workload does not fit even without all these candidates")
        if found:
            return found
    return []
