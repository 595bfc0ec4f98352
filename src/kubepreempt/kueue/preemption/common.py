"""What classic, fair-sharing and v0.7 preemption share (upstream
``pkg/scheduler/preemption`` and its ``common`` package).

:class:`Target` and :class:`Trace` (every step, for ``--explain``), the detailed
preemption reasons, the candidate order (``candidatesOrdering``), the quota check after
removing candidates (``workloadFits``), and the last step of every search: re-admit
targets in reverse while the preemptor still fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kubepreempt.kueue.flavors import Assignment, Mode
from kubepreempt.kueue.quota import CQState, Snapshot, Usage, WorkloadInfo

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

ResPerFlavor = dict[str, set[str]]

# Go's zero time.Time (0001-01-01T00:00:00Z) in Unix seconds: a condition without a
# lastTransitionTime is older than any written time, the Unix epoch included.
GO_ZERO_TIME = -62135596800.0


@dataclass(slots=True)
class Target:
    """A workload to evict and the reason, as Kueue's detailed preemption reasons name it."""

    info: WorkloadInfo
    reason: str


@dataclass(slots=True)
class Trace:
    """Why each workload was or was not taken, in the order things happened."""

    lines: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # workload -> why not a candidate
    # False: nobody reads this trace (the simulator's nominations), so hot loops may skip
    # composing its lines; what is decided does not depend on it.
    enabled: bool = True

    def note(self, text: str) -> None:
        """Record one step."""
        self.lines.append(text)


def resources_requiring_preemption(assignment: Assignment) -> ResPerFlavor:
    """Flavor -> resources whose assignment mode is Preempt."""
    out: ResPerFlavor = {}
    for ps in assignment.pod_sets:
        for res, fa in (ps.flavors or {}).items():
            if fa.mode == Mode.PREEMPT:
                out.setdefault(fa.name, set()).add(res)
    return out


def _reservation_time(info: WorkloadInfo, now: float) -> float:
    c = info.obj.condition("QuotaReserved")
    if c is None or c.status != "True":
        return now  # not populated yet: upstream uses the current time
    return c.time if c.time is not None else GO_ZERO_TIME


def candidate_rank(w: WorkloadInfo, now: float) -> tuple:
    """``candidatesOrdering`` without its own-queue rule: (not evicted, priority, minus
    reservation time, UID, name). Remembered on ``w`` while its conditions, priority and
    UID stay the same objects (it is asked for every preemption search in its cohort);
    a rank that depends on ``now`` (no reservation time yet) is not remembered."""
    obj = w.obj
    memo = w.order_memo
    if memo is not None and memo[0] is obj.conditions and memo[1] == obj.priority \
            and memo[2] is obj.uid:
        return memo[3]
    reserved = obj.condition("QuotaReserved")
    rank = (not obj.is_true("Evicted"), obj.priority, -_reservation_time(w, now), obj.uid,
            w.key)
    if reserved is not None and reserved.status == "True":
        w.order_memo = (obj.conditions, obj.priority, obj.uid, rank)
    return rank


def candidate_order_key(cq_name: str, now: float) -> Callable[[WorkloadInfo], tuple]:
    """``candidatesOrdering``: evicted first, other queues first, lower priority first,
    most recently admitted first, then UID (and name, so equal UIDs stay deterministic)."""

    def key(w: WorkloadInfo) -> tuple:
        rank = candidate_rank(w, now)
        return (rank[0], w.cluster_queue == cq_name, *rank[1:])

    return key


def workload_fits(req: Usage, st: CQState, allow_borrowing: bool,
                  available_quota: bool = False) -> bool:
    """``workloadFits``: the requests fit the queue's quota (and the cohort's); with
    ``available_quota`` as current Kueue checks it (:meth:`CQState.fits`)."""
    if available_quota:
        return st.fits(req, allow_borrowing)
    for rg in st.spec.resource_groups:
        for fq in rg.flavors:
            flv_req = req.get(fq.name)
            if flv_req is None:
                continue
            for res, amount in flv_req.items():
                q = fq.resources.get(res)
                if q is None:
                    continue
                used = st.used(fq.name, res)
                if st.cohort is None or not allow_borrowing:
                    if used + amount > q.nominal:
                        return False
                elif not q.within_borrowing_limit(used + amount):
                    return False
                if st.cohort is not None and (st.used_cohort_quota(fq.name, res) + amount
                                              > st.requestable_cohort_quota(fq.name, res)):
                    return False
    return True


def fits_with(req: Usage, st: CQState, snap: Snapshot, allow_borrowing: bool) -> bool:
    """:func:`workload_fits` as the snapshot's Kueue release checks quota."""
    return workload_fits(req, st, allow_borrowing, snap.config.semantics.available_quota)


def _fill_back(targets: list[Target], req: Usage, st: CQState, snap: Snapshot,
               allow_borrowing: bool, trace: Trace) -> list[Target]:
    """Re-admit targets in reverse (all but the last added) while the preemptor fits."""
    for i in range(len(targets) - 2, -1, -1):
        snap.add_workload(targets[i].info)
        if fits_with(req, st, snap, allow_borrowing):
            if trace.enabled:
                trace.note(f"spared {targets[i].info.key}: the workload still fits with it")
            targets[i] = targets[-1]  # O(1) removal, as upstream (order is not kept)
            targets.pop()
        else:
            snap.remove_workload(targets[i].info)
    return targets


def finish_targets(fits: bool, targets: list[Target], req: Usage, st: CQState, snap: Snapshot,
            allow_borrowing: bool, trace: Trace, no_fit: str) -> list[Target]:
    """End of both target searches: nothing when the workload still does not fit, else the
    targets minimised in reverse; either way the snapshot gets its workloads back."""
    if not fits:
        trace.note(no_fit)
        _restore(snap, targets)
        return []
    targets = _fill_back(targets, req, st, snap, allow_borrowing, trace)
    _restore(snap, targets)
    return targets


def _restore(snap: Snapshot, targets: list[Target]) -> None:
    for t in targets:
        snap.add_workload(t.info)
