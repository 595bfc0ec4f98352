"""One Kueue scheduling cycle (upstream ``scheduler.go``'s ``schedule``): entries in
order, the quota the earlier entries of the cycle take, and overlapping targets."""

from __future__ import annotations

from builders.kueue import BASE, CURRENT, NOW, cq, flavor, inputs, wl

from kubepreempt.kueue.admission import KueueInputs
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info
from kubepreempt.kueue.scheduler import (
    ASSUMED,
    NO_LONGER_FITS,
    OVERLAPPING_TARGETS,
    PENDING_PREEMPTION,
    SKIPPED,
    nominate_heads,
    requeue_reason,
    schedule,
)

F = flavor("default")


def _cycle(objs: list[dict], heads: list[str]) -> tuple[KueueInputs, Snapshot, list[Entry],
                                                         list[str], list[str]]:
    """Run one cycle on ``heads``; returns the entries and what was admitted / preempted."""
    inp = inputs(objs, CURRENT)
    pending = [inp.workloads[f"default/{h}"] for h in heads]
    admitted = [w for w in inp.workloads.values() if w.admission_cq]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)

    def nominate_one(w: Workload) -> Entry:
        cluster_queue = inp.local_queues[("default", w.queue_name)].cluster_queue
        return nominate(workload_info(w, cluster_queue), w.pod_sets, snap, inp.flavors, NOW)

    got_admitted: list[str] = []
    got_preempting: list[str] = []

    def admit(e: Entry, usage: WorkloadInfo) -> None:
        got_admitted.append(e.info.obj.name)
        snap.add_workload(usage)

    def preempt(e: Entry) -> int:
        got_preempting.append(e.info.obj.name)
        return len(e.targets)

    entries = nominate_heads(pending, nominate_one, snap)
    schedule(entries, snap, admit, preempt)
    return inp, snap, entries, got_admitted, got_preempting


def test_a_borrowing_entry_goes_after_and_no_longer_fits() -> None:
    # a and b: 2 cpu each in cohort co. wa (3 cpu) fits only by borrowing b's quota; wb
    # (2 cpu) fits in b. Not borrowing comes first: wb takes b's 2 cpu, then wa finds 2
    # cpu in the cohort for its 3: skipped, and requeued as FailedAfterNomination.
    objs = [F, cq("a", [("default", {"cpu": "2"})], cohort="co"),
            cq("b", [("default", {"cpu": "2"})], cohort="co"),
            wl("wa", {"cpu": "3"}, queue="a", created=BASE),
            wl("wb", {"cpu": "2"}, queue="b", created=BASE + 1)]
    _, snap, entries, admitted, _ = _cycle(objs, ["wa", "wb"])
    wa, wb = entries
    assert admitted == ["wb"]
    assert (wb.status, wa.status, wa.message) == (ASSUMED, SKIPPED, NO_LONGER_FITS)
    assert requeue_reason(wa) == "FailedAfterNomination"
    assert snap.cqs["b"].used("default", "cpu") == 2000
    assert snap.cqs["a"].used("default", "cpu") == 0


def test_entries_with_overlapping_targets_preempt_once() -> None:
    # v borrows the cohort's 4 cpu from c (nominal 0). wa and wb (2 cpu each) reclaim
    # their queues' quota: both nominate v. The older wa goes first and evicts v; wb's
    # targets overlap: skipped. wa's usage is assumed only for the cycle.
    objs = [F, cq("a", [("default", {"cpu": "2"})], cohort="co", reclaim="Any"),
            cq("b", [("default", {"cpu": "2"})], cohort="co", reclaim="Any"),
            cq("c", [("default", {"cpu": "0"})], cohort="co"),
            wl("v", {"cpu": "4"}, admitted="c"),
            wl("wa", {"cpu": "2"}, queue="a", created=BASE),
            wl("wb", {"cpu": "2"}, queue="b", created=BASE + 1)]
    _, snap, entries, admitted, preempting = _cycle(objs, ["wa", "wb"])
    wa, wb = entries
    assert [t.info.obj.name for t in wa.targets] == ["v"]
    assert [t.info.obj.name for t in wb.targets] == ["v"]
    assert (admitted, preempting) == ([], ["wa"])
    assert wa.reason == PENDING_PREEMPTION
    assert (wb.status, wb.message) == (SKIPPED, OVERLAPPING_TARGETS)
    assert snap.cqs["a"].used("default", "cpu") == 0  # assumed usage undone
    assert snap.cqs["c"].used("default", "cpu") == 4000  # v leaves when evicted, not here


def test_in_a_hierarchical_cohort_borrowing_less_is_scheduled_first() -> None:
    # Upstream TestSchedule "in a hierarchical cohort, workload borrowing less is scheduled
    # first": guaranteed borrows from its own cohort (level 1), best-effort from the root
    # (level 2). The lower level goes first although best-effort has the higher priority;
    # best-effort then no longer fits.
    def cohort(name: str, parent: str = "", cpu: str = "") -> dict:
        spec: dict = {"parentName": parent} if parent else {}
        if cpu:
            spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
                {"name": "default", "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]
        return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
                "metadata": {"name": name}, "spec": spec}

    def cq2(name: str, cohort_name: str) -> dict:
        obj = cq(name, [("default", {"cpu": "0"})])
        obj["apiVersion"] = "kueue.x-k8s.io/v1beta2"
        obj["spec"]["cohortName"] = cohort_name
        return obj

    objs = [F, cohort("root"), cohort("guaranteed", "root", "4"),
            cq2("guaranteed", "guaranteed"), cq2("best-effort", "root"),
            wl("guaranteed", {"cpu": "4"}, priority=0, queue="guaranteed"),
            wl("best-effort", {"cpu": "4"}, priority=3, queue="best-effort")]
    _, _, entries, admitted, preempting = _cycle(objs, ["best-effort", "guaranteed"])
    assert admitted == ["guaranteed"]
    assert preempting == []
    by_name = {e.info.obj.name: e for e in entries}
    assert by_name["guaranteed"].assignment.borrow_level == 1
    assert by_name["best-effort"].assignment.borrow_level == 2
    assert by_name["best-effort"].message == \
        "Workload no longer fits after processing another workload"
