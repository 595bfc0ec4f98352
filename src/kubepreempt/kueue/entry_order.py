"""The order in which a Kueue scheduling cycle considers the nominated heads.

``classical`` (upstream ``makeClassicalIterator``): the lower borrowing level first (how
far up the cohort tree the entry borrows; 0 within its own quota), higher priority, then
older queue-order time. With fair sharing, current Kueue runs a tournament per
cohort tree (``fair_sharing_iterator.go``): every child of a cohort nominates one entry,
the child whose dominant resource share *after admitting its entry* is lowest wins (ties:
higher priority, then older) — with ``FairSharingPrioritizeNonBorrowing`` (on by default)
a child not borrowing on the flavor-resources its entry requests wins first; the root's
winner is considered next, and shares are recomputed before each pick (earlier entries
of the cycle hold their usage). v0.7 sorted once: not borrowing first, then the
ClusterQueue's share with the workload, priority and time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from kubepreempt.kueue.dominant_share import DRS, compare_drs, dominant_resource_share
from kubepreempt.kueue.nomination import Entry, admitted_info
from kubepreempt.kueue.quota import (
    CohortState,
    QuotaNode,
    Snapshot,
    Usage,
    WorkloadInfo,
    queue_order_time,
)

OrderTime = Callable[[WorkloadInfo], float]


def ordered_entries(nominated: list[Entry], snap: Snapshot) -> Iterable[Entry]:
    """The nominated entries in the order the cycle considers them, as the snapshot's
    configuration and Kueue release say (sorts ``nominated`` in place, except for the
    tournament, which yields lazily)."""
    sem = snap.config.semantics
    ace = sem.admission_check_eviction_orders

    def order_time(info: WorkloadInfo) -> float:
        return queue_order_time(info, ace)

    if not snap.config.fair_sharing:
        nominated.sort(key=classical_key(order_time))
        return nominated
    if sem.fair_sharing_tree:
        return fair_sharing_iterator(nominated, snap, order_time,
                                     sem.fair_sharing_prioritize_non_borrowing)
    nominated.sort(key=v07_fair_key(snap, order_time))
    return nominated


def _admitted(e: Entry) -> WorkloadInfo:
    assert e.assignment is not None
    return admitted_info(e.info, e.assignment)


def classical_key(order_time: OrderTime) -> Callable[[Entry], tuple]:
    """Sort key of the classical iterator."""

    def key(e: Entry) -> tuple:
        assert e.assignment is not None
        return (e.assignment.borrow_level, -e.priority, order_time(e.info))

    return key


def v07_fair_key(snap: Snapshot, order_time: OrderTime) -> Callable[[Entry], tuple]:
    """v0.7's ``entryOrdering`` with fair sharing: the queue's share with the workload
    comes right after borrowing."""

    def key(e: Entry) -> tuple:
        assert e.assignment is not None
        info = _admitted(e)
        snap.add_workload(info)
        share = snap.cqs[e.cluster_queue].dominant_resource_share()[0]
        snap.remove_workload(info)
        return (e.assignment.borrowing, share, -e.priority, order_time(e.info))

    return key


def fair_sharing_iterator(entries: list[Entry], snap: Snapshot, order_time: OrderTime,
                          non_borrowing_first: bool = True) -> Iterator[Entry]:
    """Current Kueue's tournament; yields entries one at a time (lazily, so the usage
    the cycle assumes for earlier entries counts). ``non_borrowing_first``: the
    FairSharingPrioritizeNonBorrowing gate."""
    left = {e.cluster_queue: e for e in entries}
    # Each entry's assigned flavor-resources (``usage.Quota.Assigned``), when the gate
    # compares borrowing on them.
    requested: dict[str, Usage] | None = {} if non_borrowing_first else None
    while left:
        name = min(left)  # upstream takes any queue; trees are independent
        st = snap.cqs[name]
        if st.parent is None:
            yield left.pop(name)
            continue
        root = st.root()
        assert isinstance(root, CohortState)
        drs: dict[tuple[str, str], DRS] = {}
        for cq in root.subtree_cluster_queues():
            e = left.get(cq.name)
            if e is None:
                continue
            info = _admitted(e)
            snap.add_workload(info)
            if requested is not None:
                assert e.assignment is not None
                requested[e.key] = e.assignment.total_requests_for(e.info)
            share = dominant_resource_share(cq)
            for ancestor in cq.path_to_root():
                drs[(ancestor.name, e.key)] = share
                share = dominant_resource_share(ancestor)
            snap.remove_workload(info)
        winner = _tournament(root, left, EntryComparer(drs, requested, order_time))
        assert winner is not None
        del left[winner.cluster_queue]
        yield winner


class EntryComparer:
    """``entryComparer``: the order of two entries at one cohort level, from the shares
    each would give its subtree there (``drs``, by (cohort, workload key)) and, with the
    FairSharingPrioritizeNonBorrowing gate, the flavor-resources each requests
    (``requested``; None when the gate is off)."""

    def __init__(self, drs: dict[tuple[str, str], DRS], requested: dict[str, Usage] | None,
                 order_time: OrderTime) -> None:
        self.drs = drs
        self.requested = requested
        self.order_time = order_time

    def less(self, a: Entry, b: Entry, parent: str) -> bool:
        """``entryComparer.less``: ``a`` goes before ``b`` among ``parent``'s children."""
        a_drs, b_drs = self.drs[(parent, a.key)], self.drs[(parent, b.key)]
        if self.requested is not None:
            a_borrows = a_drs.is_borrowing_on(self.requested.get(a.key, {}))
            b_borrows = b_drs.is_borrowing_on(self.requested.get(b.key, {}))
            if a_borrows != b_borrows:
                return not a_borrows
        c = compare_drs(a_drs, b_drs)
        if c != 0:
            return c < 0
        if a.priority != b.priority:
            return a.priority > b.priority
        return self.order_time(a.info) < self.order_time(b.info)


def _tournament(cohort: CohortState, left: dict[str, Entry], cmp: EntryComparer) -> Entry | None:
    candidates: list[Entry] = []
    for child in cohort.children:
        won = _tournament(child, left, cmp)
        if won is not None:
            candidates.append(won)
    members: list[QuotaNode] = list(cohort.members)
    candidates.extend(left[m.name] for m in members if m.name in left)
    if not candidates:
        return None
    best = candidates[0]
    for cur in candidates[1:]:
        if cmp.less(cur, best, cohort.name):
            best = cur
    return best
