"""The order in which a Kueue scheduling cycle considers the nominated heads.

``classical`` (upstream ``makeClassicalIterator``): not borrowing first, higher priority,
then older queue-order time. With fair sharing, current Kueue runs a tournament per
cohort tree (``fair_sharing_iterator.go``): every child of a cohort nominates one entry,
the child whose dominant resource share *after admitting its entry* is lowest wins (ties:
higher priority, then older); the root's winner is considered next, and shares are
recomputed before each pick (earlier entries of the cycle hold their usage). v0.7 sorted
once: not borrowing first, then the ClusterQueue's share with the workload, priority and
time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kubepreempt.kueue.dominant_share import DRS, compare_drs, dominant_resource_share
from kubepreempt.kueue.quota import CohortState, QuotaNode, Snapshot, WorkloadInfo

if TYPE_CHECKING:
    from kubepreempt.sim.kueue_actor import _Entry


def classical_key(order_time: Callable[[WorkloadInfo], float]) -> Callable[[Any], tuple]:
    """Sort key of the classical iterator."""
    return lambda e: (e.assignment.borrowing, -e.sw.wl.priority, order_time(e.info))


def v07_fair_key(snap: Snapshot, admitted: Callable[[Any], WorkloadInfo],
                 order_time: Callable[[WorkloadInfo], float]) -> Callable[[Any], tuple]:
    """v0.7's ``entryOrdering`` with fair sharing: the queue's share with the workload
    comes right after borrowing."""

    def key(e: _Entry) -> tuple:
        info = admitted(e)
        snap.add_workload(info)
        share = snap.cqs[e.sw.cluster_queue].dominant_resource_share()[0]
        snap.remove_workload(info)
        return (e.assignment.borrowing, share, -e.sw.wl.priority, order_time(e.info))

    return key


def fair_sharing_iterator(entries: list[_Entry], snap: Snapshot,
                          admitted: Callable[[Any], WorkloadInfo],
                          order_time: Callable[[WorkloadInfo], float]) -> Iterator[_Entry]:
    """Current Kueue's tournament; yields entries one at a time (lazily, so the usage
    the cycle assumes for earlier entries counts)."""
    left = {e.sw.cluster_queue: e for e in entries}
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
            info = admitted(e)
            snap.add_workload(info)
            share = dominant_resource_share(cq)
            for ancestor in cq.path_to_root():
                drs[(ancestor.name, e.sw.wl.key)] = share
                share = dominant_resource_share(ancestor)
            snap.remove_workload(info)
        winner = _tournament(root, left, drs, order_time)
        assert winner is not None
        del left[winner.sw.cluster_queue]
        yield winner


def _tournament(cohort: CohortState, left: dict[str, _Entry],
                drs: dict[tuple[str, str], DRS],
                order_time: Callable[[WorkloadInfo], float]) -> _Entry | None:
    candidates: list[_Entry] = []
    for child in cohort.children:
        won = _tournament(child, left, drs, order_time)
        if won is not None:
            candidates.append(won)
    members: list[QuotaNode] = list(cohort.members)
    candidates.extend(left[m.name] for m in members if m.name in left)
    if not candidates:
        return None
    best = candidates[0]
    for cur in candidates[1:]:
        if _less(cur, best, cohort.name, drs, order_time):
            best = cur
    return best


def _less(a: _Entry, b: _Entry, parent: str, drs: dict[tuple[str, str], DRS],
          order_time: Callable[[WorkloadInfo], float]) -> bool:
    c = compare_drs(drs[(parent, a.sw.wl.key)], drs[(parent, b.sw.wl.key)])
    if c != 0:
        return c < 0
    if a.sw.wl.priority != b.sw.wl.priority:
        return a.sw.wl.priority > b.sw.wl.priority
    return order_time(a.info) < order_time(b.info)
