"""One Kueue scheduling cycle (upstream ``pkg/scheduler/scheduler.go``'s ``schedule``).

Given the heads of the ClusterQueues (one pending workload each), a cycle:

1. nominates each head (:func:`~kubepreempt.kueue.nomination.nominate`: flavors and,
   in Preempt mode, targets), the nominations sharing scans of the unchanged snapshot;
2. orders the nominated entries (:mod:`kubepreempt.kueue.entry_order`: classical, or
   fair sharing);
3. processes them in order: NoFit and Preempt-without-targets are left for requeueing
   (the latter reserving its quota for the rest of the cycle when its ClusterQueue cannot
   always reclaim, current Kueue);
   an entry whose targets overlap an earlier entry's, or that no longer fits after the
   earlier entries of this cycle, is skipped; otherwise its usage is assumed for the
   rest of the cycle and it is admitted (Fit) or its targets are evicted (Preempt).

What admitting and evicting do is the caller's (the simulator creates pods, sets
conditions, releases quota); so is requeueing the entries that were not admitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from kubepreempt.kueue.entry_order import ordered_entries
from kubepreempt.kueue.flavors import Mode
from kubepreempt.kueue.nomination import Entry, admitted_info
from kubepreempt.kueue.objects import ANY
from kubepreempt.kueue.preemption.common import Target, fits_with
from kubepreempt.kueue.queue_manager import (
    FAILED_AFTER_NOMINATION,
    NO_FIT,
    PENDING_PREEMPTION,
    PREEMPTION_NO_CANDIDATES,
)
from kubepreempt.kueue.quota import FR, Snapshot, WorkloadInfo

H = TypeVar("H")

SKIPPED = "skipped"
ASSUMED = "assumed"
OVERLAPPING_TARGETS = "Workload has overlapping preemption targets with another workload"
NO_LONGER_FITS = "Workload no longer fits after processing another workload"


@dataclass(slots=True)
class CycleOutcome:
    """What a cycle did: ``admitted`` any workload; changed ``anything`` (an admission
    or an eviction issued); the ClusterQueues of the admitted workloads."""

    admitted: bool = False
    anything: bool = False
    admitted_queues: list[str] = field(default_factory=list)


def nominate_heads(heads: Sequence[H], nominate: Callable[[H], Entry],
                   snap: Snapshot) -> list[Entry]:
    """``nominate`` every head. Nominations leave the snapshot as they found it, so
    their target searches may share scans (:attr:`Snapshot.scan_cache`) meanwhile."""
    snap.scan_cache = {}
    try:
        return [nominate(h) for h in heads]
    finally:
        snap.scan_cache = None


def schedule(entries: list[Entry], snap: Snapshot,
             admit: Callable[[Entry, WorkloadInfo], None],
             preempt: Callable[[Entry], int]) -> CycleOutcome:
    """Process the nominated ``entries`` in Kueue's order.

    ``admit(entry, usage)`` admits a Fit entry (and adds ``usage`` to ``snap``);
    ``preempt(entry)`` issues the evictions of a Preempt entry's targets and returns how
    many it issued. Each entry's ``status`` and ``reason`` say what happened to it.
    """
    nominated = [e for e in entries if e.assignment is not None]
    preempted: dict[str, Target] = {}
    assumed: list[WorkloadInfo] = []  # usage added for the rest of this cycle only
    reserved: list[tuple[str, FR, int]] = []  # quota held by unreclaimable preemptors
    reserve = snap.config.semantics.reserve_unreclaimable_preempt
    out = CycleOutcome()
    for e in ordered_entries(nominated, snap):
        assert e.assignment is not None
        mode = e.assignment.mode
        if mode == Mode.NO_FIT:
            e.reason = NO_FIT
            continue
        if mode == Mode.PREEMPT and not e.targets:
            e.reason = PREEMPTION_NO_CANDIDATES
            if reserve and snap.cqs[e.cluster_queue].spec.preemption.reclaim_within_cohort \
                    != ANY:
                for fr, amount in quota_to_reserve(e, snap).items():
                    snap.cqs[e.cluster_queue].add_usage(fr, amount)
                    reserved.append((e.cluster_queue, fr, amount))
            continue
        if any(t.info.key in preempted for t in e.targets):
            e.status = SKIPPED
            e.message = OVERLAPPING_TARGETS
            continue
        usage = admitted_info(e.info, e.assignment)
        req = e.assignment.total_requests_for(e.info)
        removed = [t.info for t in preempted.values()] + [t.info for t in e.targets]
        for info in removed:
            snap.remove_workload(info)
        fits = fits_with(req, snap.cqs[e.cluster_queue], snap, True)
        for info in removed:
            snap.add_workload(info)
        if not fits:
            e.status = SKIPPED
            e.message = NO_LONGER_FITS
            continue
        for t in e.targets:
            preempted[t.info.key] = t
        if mode == Mode.PREEMPT:
            snap.add_workload(usage)
            assumed.append(usage)
            out.anything |= preempt(e) > 0
            e.reason = PENDING_PREEMPTION
            continue
        e.status = ASSUMED
        admit(e, usage)
        out.admitted = out.anything = True
    for info in assumed:
        snap.remove_workload(info)
    for name, fr, amount in reversed(reserved):
        snap.cqs[name].remove_usage(fr, amount)
    # In the sorted order (classical, v0.7), else as nominated: the order of the samples.
    out.admitted_queues = [e.cluster_queue for e in nominated if e.status == ASSUMED]
    return out


def quota_to_reserve(e: Entry, snap: Snapshot) -> dict[FR, int]:
    """``quotaResourcesToReserve`` for a Preempt entry: per flavor-resource, what it
    requests up to the queue's nominal quota left unused; when the assignment borrows, up
    to nominal + borrowingLimit (all of it without a limit)."""
    assert e.assignment is not None
    st = snap.cqs[e.cluster_queue]
    out: dict[FR, int] = {}
    for flavor, resources in e.assignment.total_requests_for(e.info).items():
        for res, amount in resources.items():
            fr = (flavor, res)
            q = st.quotas.get(fr)
            nominal = q.nominal if q is not None else 0
            if e.assignment.borrow_level > 0:
                limit = q.borrowing_limit if q is not None else None
                out[fr] = amount if limit is None else min(amount,
                                                           nominal + limit - st.used(*fr))
            else:
                out[fr] = max(0, min(amount, nominal - st.used(*fr)))
    return {fr: v for fr, v in out.items() if v > 0}


def requeue_reason(e: Entry) -> str:
    """The reason an entry that was not admitted is requeued with (``requeueAndUpdate``:
    an entry that failed after nomination without a reason of its own)."""
    if e.status and not e.reason:
        return FAILED_AFTER_NOMINATION
    return e.reason
