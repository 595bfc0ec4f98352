"""Entry-order rules the upstream tables leave unchecked: v0.7.0's ``entryOrdering`` with
fair sharing (pkg/scheduler/scheduler.go, v0.7.0), current ``GetQueueOrderTimestamp``
(pkg/workload/workload.go, kueue main ff69552e) in the classical order, and the
fair-sharing iterator and ``entryComparer.less`` (pkg/scheduler/fair_sharing_iterator.go,
ff69552e)."""

from __future__ import annotations

from builders.kueue import BASE, CURRENT, NOW, V07, config, cq, flavor, inputs, wl

from kubepreempt.kueue.dominant_share import DRS
from kubepreempt.kueue.entry_order import EntryComparer, ordered_entries
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info


def _ordered(objs: list[dict], names: list[str], version: str) -> list[str]:
    inp = inputs(objs, version)
    admitted = [w for w in inp.workloads.values() if w.has_quota_reservation]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)
    entries = []
    for name in names:
        w = inp.workloads[f"default/{name}"]
        entries.append(nominate(workload_info(w, w.queue_name), w.pod_sets, snap,
                                inp.flavors, NOW))
    return [e.info.obj.name for e in ordered_entries(entries, snap)]


def test_v07_fair_sharing_orders_by_share_with_the_workload_then_priority_then_age() -> None:
    """v0.7.0 ``entryOrdering.Less`` with fair sharing: not borrowing first, then the
    lower ``DominantResourceShareWith`` (the ClusterQueue's share with the workload
    admitted: borrowed / cohort lendable * 1000, per mille, over the weight), then higher
    priority, then the older queue-order time.

    Cohort lendable cpu is 5 x 2 + 4 = 14. wa (4 cpu in a) borrows 2: 2000/14 = 142;
    wd (4 in d, priority 50) the same 142; wb (6 in b, priority 100) borrows 4: 285; we
    (4 in e, created earlier than wa, priority 0) 142; wc (1 cpu in c) does not borrow."""
    objs = [flavor("default"), config(fair=True),
            *(cq(n, [("default", {"cpu": "2"})], cohort="co") for n in "abcde"),
            cq("lender", [("default", {"cpu": "4"})], cohort="co"),
            wl("wa", {"cpu": "4"}, queue="a", created=BASE + 5),
            wl("wb", {"cpu": "6"}, priority=100, queue="b", created=BASE),
            wl("wc", {"cpu": "1"}, queue="c", created=BASE + 9),
            wl("wd", {"cpu": "4"}, priority=50, queue="d", created=BASE + 7),
            wl("we", {"cpu": "4"}, queue="e", created=BASE + 1)]
    order = _ordered(objs, ["wa", "wb", "wc", "wd", "we"], V07)
    assert order == ["wc", "wd", "we", "wa", "wb"]


def test_admission_check_eviction_sets_the_queue_order_time() -> None:
    """Current ``GetQueueOrderTimestamp``: a workload evicted by an AdmissionCheck is
    ordered by the eviction time, not its creation (v0.9+); v0.7 uses the creation."""
    evicted = [{"type": "Evicted", "status": "True", "reason": "AdmissionCheck",
                "message": "", "lastTransitionTime": "2023-11-14T22:20:00Z"}]
    objs = [flavor("default"), *(cq(n, [("default", {"cpu": "2"})]) for n in "ab"),
            wl("old", {"cpu": "1"}, queue="a", created=BASE, conditions=evicted),
            wl("new", {"cpu": "1"}, queue="b", created=BASE + 10)]
    assert _ordered(objs, ["old", "new"], CURRENT) == ["new", "old"]
    assert _ordered(objs, ["old", "new"], V07) == ["old", "new"]


def test_fair_sharing_iterator_returns_entries_outside_cohorts_and_goes_on() -> None:
    """``fairSharingIterator.pop``: an entry whose ClusterQueue has no parent is returned
    as is, and the iterator goes on while entries are left (``hasNext``)."""
    objs = [flavor("default"), config(fair=True), cq("a", [("default", {"cpu": "2"})]),
            *(cq(n, [("default", {"cpu": "2"})], cohort="co") for n in "bc"),
            wl("wa", {"cpu": "1"}, queue="a"), wl("wb", {"cpu": "1"}, queue="b"),
            wl("wc", {"cpu": "1"}, queue="c", created=BASE + 1)]
    assert _ordered(objs, ["wa", "wb", "wc"], CURRENT) == ["wa", "wb", "wc"]


def _entry(name: str, priority: int = 0, created: float = 0.0) -> Entry:
    w = Workload(namespace="default", name=name, creation=BASE + created, priority=priority)
    return Entry(WorkloadInfo(w, "cq", []))


def test_entry_comparer_less_ties() -> None:
    """``entryComparer.less``: a workload missing from ``requestedFRs`` reads a nil map
    (borrowing on nothing); equal DRS falls through to priority, then to the queue-order
    time, where equal times are not "before" (less is false both ways)."""
    a, b = _entry("a"), _entry("b")
    cpu = ("default", "cpu")
    borrowing = DRS(weight=1.0, ratio=100.0, resource="cpu", borrowing=True,
                    borrowed_frs=(cpu,))
    cmp = EntryComparer({("co", a.key): borrowing, ("co", b.key): borrowing}, {},
                        lambda info: info.obj.creation or 0.0)
    assert not cmp.less(a, b, "co") and not cmp.less(b, a, "co")
    low, high = _entry("low", priority=0), _entry("high", priority=5)
    cmp = EntryComparer({("co", low.key): borrowing, ("co", high.key): borrowing}, None,
                        lambda info: info.obj.creation or 0.0)
    assert not cmp.less(low, high, "co") and cmp.less(high, low, "co")
