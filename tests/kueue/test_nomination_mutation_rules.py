"""Nomination rules the upstream tables leave unchecked (upstream ``getAssignments`` in
pkg/scheduler/scheduler.go, kueue main ff69552e, and v0.7.0): the preemption targets are
searched for the whole assignment whichever caller nominates (``kubepreempt kueue``, or
the simulator, which reuses the flavor-assignment oracle's search only when it asked
the same question), at the caller's ``now``, and ``--explain`` keeps the search's trace."""

from __future__ import annotations

from builders.kueue import CURRENT, NOW, V07, cq, flavor, inputs, run, wl

from kubepreempt.kueue.nomination import nominate
from kubepreempt.kueue.quota import Snapshot, workload_info


def _nominate(objs: list[dict], version: str) -> list[str]:
    """Targets of ``default/in`` nominated as the simulator does (no trace)."""
    inp = inputs(objs, version)
    w = inp.workloads["default/in"]
    others = [o for k, o in inp.workloads.items() if k != "default/in"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config, inp.cohorts)
    e = nominate(workload_info(w, w.queue_name), w.pod_sets, snap, inp.flavors, NOW)
    return sorted(t.info.key for t in e.targets)


def test_targets_are_searched_for_every_resource_of_the_assignment() -> None:
    """``getAssignments`` calls ``GetTargets`` with the full assignment, not the
    oracle's one flavor-resource. ``in`` needs cpu 2 within q's nominal (taken by
    ``borrower`` of ClusterQueue other) and 1Gi memory only by borrowing from lender.
    The oracle, asked for cpu alone, finds ``borrower`` reclaimable (Preempt mode). The
    full search (``classicalPreemptions``; borrowWithinCohort not set, q under nominal in
    cpu, no hierarchical candidate: attempts without then with borrowing): without
    borrowing the workload never fits (memory borrows); with borrowing ``borrower`` is a
    ReclaimWithoutBorrowing candidate and invalid. No targets."""
    objs = [flavor("default"),
            cq("q", [("default", {"cpu": "2", "memory": "0"})], cohort="c", reclaim="Any"),
            cq("lender", [("default", {"cpu": "0", "memory": "4Gi"})], cohort="c"),
            cq("other", [("default", {"cpu": "0", "memory": "0"})], cohort="c"),
            wl("borrower", {"cpu": "2"}, admitted="other"),
            wl("in", {"cpu": "2", "memory": "1Gi"}, priority=10, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.mode, d.victims) == ("pending", "Preempt", [])
    assert _nominate(objs, CURRENT) == []


def test_a_candidate_without_a_reservation_time_counts_as_reserved_now() -> None:
    """``candidatesOrdering`` prefers the most recently reserved candidate;
    ``quotaReservationTime`` is ``now`` when QuotaReserved is not set, so ``fresh``
    (admission written without conditions) goes before ``old`` (reserved earlier), in
    both nomination paths and both releases."""
    for version in (V07, CURRENT):
        fresh = wl("fresh", {"cpu": "2"}, admitted="q")
        del fresh["status"]["conditions"]
        objs = [flavor("default"),
                cq("q", [("default", {"cpu": "4"})], within="LowerPriority"),
                wl("old", {"cpu": "2"}, admitted="q"), fresh,
                wl("in", {"cpu": "2"}, priority=10, queue="q")]
        assert run(objs, "in", version).victims == ["default/fresh"]
        assert _nominate(objs, version) == ["default/fresh"]


def test_explain_trace_keeps_the_target_search() -> None:
    """``kubepreempt kueue --explain`` prints the preemption search: nominating with a
    trace runs the search into it, whatever the oracle already found."""
    for version in (V07, CURRENT):
        objs = [flavor("default"),
                cq("q", [("default", {"cpu": "2"})], within="LowerPriority"),
                wl("low", {"cpu": "2"}, admitted="q"),
                wl("in", {"cpu": "2"}, priority=10, queue="q")]
        d = run(objs, "in", version)
        assert d.victims == ["default/low"]
        assert any("default/low" in line for line in d.trace.lines)
