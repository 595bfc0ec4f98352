"""The order of a cycle's nominated entries without fair sharing (upstream
``entryOrdering``): within nominal quota first, then higher priority, then older."""

from __future__ import annotations

from builders.kueue import BASE, CURRENT, NOW, cq, flavor, inputs, wl

from kubepreempt.kueue.entry_order import ordered_entries
from kubepreempt.kueue.nomination import nominate
from kubepreempt.kueue.quota import Snapshot, workload_info


def test_borrowing_goes_last_then_priority_then_age() -> None:
    # Three 2-cpu queues in one cohort. wa (3 cpu, priority 100) fits only by borrowing;
    # wb and wc (1 cpu, priority 0) fit within nominal, wc created first.
    objs = [flavor("default"),
            *(cq(n, [("default", {"cpu": "2"})], cohort="co") for n in "abc"),
            wl("wa", {"cpu": "3"}, priority=100, queue="a", created=BASE + 2),
            wl("wb", {"cpu": "1"}, queue="b", created=BASE + 1),
            wl("wc", {"cpu": "1"}, queue="c", created=BASE)]
    inp = inputs(objs, CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    entries = []
    for name in ("wa", "wb", "wc"):
        w = inp.workloads[f"default/{name}"]
        entries.append(nominate(workload_info(w, w.queue_name), w.pod_sets, snap,
                                inp.flavors, NOW))
    assert [e.assignment.borrowing for e in entries] == [True, False, False]
    assert [e.info.obj.name for e in ordered_entries(entries, snap)] == ["wc", "wb", "wa"]
