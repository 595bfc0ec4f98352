"""Rules of Kueue v0.7.0's preemption (``kubepreempt.kueue.preemption.v07``) that the ported
table leaves open, each worked out from pkg/scheduler/preemption/preemption.go at tag
v0.7.0: ``GetTargets``, ``findCandidates``, ``queueUnderNominalInAllRequestedResources``,
``canBorrowWithinCohort``, ``minimalPreemptions``, ``fairPreemptions`` with its
``cqHeapFromCandidates`` over Kueue's ``util/heap`` (Go's ``container/heap``). v0.7.0
returned workloads only; the reasons checked here are those release-0.8 added to the
same search (``InClusterQueue``; ``InCohortReclamation``; ``InCohortReclaimWhileBorrowing``
for a target taken below the borrowWithinCohort threshold; ``InCohortFairSharing``).

The traces are what ``--explain`` shows of each step.
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest
from builders.kueue import BASE, V07, config, cq, flavor, wl
from builders.kueue_victims import victims

from kubepreempt.kueue.preemption import Trace
from kubepreempt.kueue.preemption.v07 import _CandCQ, _GoHeap

LP, LONEP, ANY = "LowerPriority", "LowerOrNewerEqualPriority", "Any"
INCQ, REC, RWB, FS = ("InClusterQueue", "InCohortReclamation",
                      "InCohortReclaimWhileBorrowing", "InCohortFairSharing")
S2A, S2B = "LessThanOrEqualToFinalShare", "LessThanInitialShare"


def _run(objs: list[dict[str, Any]], incoming: dict[str, Any], target: str,
         fair: bool = False, strategies: list[str] | None = None
         ) -> tuple[dict[str, str], Trace]:
    trace = Trace()
    pre = [flavor("default")] + ([config(fair=True, strategies=strategies)] if fair else [])
    return victims([*pre, *objs], incoming, target, V07, trace), trace


def test_find_candidates_says_why_each_workload_is_left_out() -> None:
    """findCandidates: own workloads above the preemptor's priority, of equal priority
    under LowerPriority (even when newer), or using no flavor-resource that needs
    preemption; other queues' workloads of a queue not borrowing, at or above the
    preemptor's priority under reclaimWithinCohort LowerPriority, or using nothing that
    needs preemption (checked for each, so 'o_y' after 'o_spare' is still found). q is at
    its nominal 2, so only the own-queue attempt runs, with no own candidate."""
    objs = [flavor("other"),
            cq("q", [("default", {"cpu": "2"}), ("other", {"cpu": "1"})], cohort="all",
               within=LP, reclaim=LP),
            cq("o", [("default", {"cpu": "0"}), ("other", {"cpu": "0"})], cohort="all"),
            cq("n", [("default", {"cpu": "2"}), ("other", {"cpu": "0"})], cohort="all"),
            wl("q_hi", {"cpu": "1"}, 5, admitted="q"),
            wl("q_eq", {"cpu": "1"}, 0, admitted="q", created=BASE + 10),
            wl("q_spare", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "other"}),
            wl("o_hi", {"cpu": "1"}, 0, admitted="o"), wl("o_y", {"cpu": "1"}, -1, admitted="o"),
            wl("o_spare", {"cpu": "1"}, -1, admitted="o", flavors={"cpu": "other"}),
            wl("n1", {"cpu": "1"}, -1, admitted="n")]
    got, trace = _run(objs, wl("in", {"cpu": "1"}, 0, created=BASE), "q")
    assert got == {}
    assert trace.skipped == {
        "default/q_hi": "priority 5 > 0",
        "default/q_eq": "same priority 0 (withinClusterQueue: LowerPriority)",
        "default/q_spare": "uses no flavor/resource that needs preemption",
        "default/n1": "its ClusterQueue n is not borrowing",
        "default/o_hi": "priority 0 >= 0 (reclaimWithinCohort: LowerPriority)",
        "default/o_spare": "uses no flavor/resource that needs preemption"}
    assert trace.lines == [
        "candidates in order: default/o_y",
        "last attempt: only the ClusterQueue's own workloads, allowing borrowing",
        "  the workload does not fit even without all these candidates"]


def test_policies_never_leave_no_candidate() -> None:
    """findCandidates with withinClusterQueue and reclaimWithinCohort both Never."""
    objs = [cq("q", [("default", {"cpu": "1"})], cohort="all"),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            wl("q1", {"cpu": "1"}, -1, admitted="q"), wl("o1", {"cpu": "1"}, -1, admitted="o")]
    got, trace = _run(objs, wl("in", {"cpu": "1"}, 0), "q")
    assert got == {}
    assert trace.skipped == {"default/q1": "withinClusterQueue: Never",
                             "default/o1": "reclaimWithinCohort: Never"}
    assert trace.lines == ["no candidates"]


@pytest.mark.parametrize(("created", "taken"), [(BASE, False), (BASE + 1, True)])
def test_equal_priority_needs_a_strictly_newer_candidate(created: float, taken: bool) -> None:
    """findCandidates under LowerOrNewerEqualPriority: an equal-priority workload is a
    candidate only when the preemptor's queue time is strictly before its own."""
    objs = [cq("q", [("default", {"cpu": "1"})], within=LONEP),
            wl("c", {"cpu": "1"}, 0, admitted="q", created=created)]
    got, trace = _run(objs, wl("in", {"cpu": "1"}, 0, created=BASE), "q")
    if taken:
        assert got == {"c": INCQ}
        assert trace.lines == [
            "candidates in order: default/c",
            "all candidates are in the ClusterQueue: preempt there, allowing borrowing",
            "  take default/c (InClusterQueue)"]
    else:
        assert got == {}
        assert trace.skipped == {"default/c": "same priority 0, not newer than the preemptor"}


def test_under_nominal_reclaims_without_borrowing_and_skips_queues_back_in_quota() -> None:
    """GetTargets: q is under nominal, so minimalPreemptions without borrowing over all
    candidates; after 'o2', o is within its nominal and 'o1' is skipped (cqIsBorrowing),
    'p1' is taken next."""
    objs = [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP, reclaim=LP),
            cq("o", [("default", {"cpu": "1"})], cohort="all"),
            cq("p", [("default", {"cpu": "0"})], cohort="all"),
            wl("o1", {"cpu": "1"}, -3, admitted="o"), wl("o2", {"cpu": "1"}, -3, admitted="o"),
            wl("p1", {"cpu": "1"}, -1, admitted="p")]
    got, trace = _run(objs, wl("in", {"cpu": "2"}, 0), "q")
    assert got == {"o2": REC, "p1": REC}
    assert trace.lines == [
        "candidates in order: default/o2, default/o1, default/p1",
        "queue under nominal quota: reclaim in the cohort without borrowing",
        "  take default/o2 (InCohortReclamation)",
        "  skip default/o1: o no longer borrows",
        "  take default/p1 (InCohortReclamation)"]


def test_a_queue_at_nominal_is_not_under_it() -> None:
    """queueUnderNominalInAllRequestedResources: usage >= nominal is not under. q uses
    its whole 2, so the cohort attempt is skipped and the own-queue attempt with
    borrowing takes 'q2' alone ('o1' stays)."""
    objs = [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP, reclaim=LP),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": "2"})], cohort="all"),
            wl("q1", {"cpu": "1"}, -1, admitted="q"), wl("q2", {"cpu": "1"}, -1, admitted="q"),
            wl("o1", {"cpu": "1"}, -1, admitted="o")]
    got, _ = _run(objs, wl("in", {"cpu": "2"}, 0), "q")
    assert got == {"q2": INCQ}


def test_borrow_within_cohort_takes_below_the_preemptors_priority() -> None:
    """canBorrowWithinCohort without maxPriorityThreshold: the threshold is the
    preemptor's priority; 'o1' (priority -1) is below it and taken while q borrows."""
    objs = [cq("q", [("default", {"cpu": "1"})], cohort="all", within=LP, reclaim=LP,
               borrow_within=LP),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": "1"})], cohort="all"),
            wl("q1", {"cpu": "1"}, -2, admitted="q"), wl("o1", {"cpu": "1"}, -1, admitted="o")]
    got, trace = _run(objs, wl("in", {"cpu": "1"}, 0), "q")
    assert got == {"o1": RWB}
    assert trace.lines == [
        "candidates in order: default/o1, default/q1",
        "borrowWithinCohort: preempt below priority 0, allowing borrowing",
        "  take default/o1 (InCohortReclaimWhileBorrowing)"]


def test_a_threshold_equal_to_the_preemptors_priority_keeps_it() -> None:
    """canBorrowWithinCohort: maxPriorityThreshold 0 is not below the preemptor's 0, so
    the threshold stays 0 and 'o1' (priority 0, allowed by reclaimWithinCohort Any) is
    not strictly below it; q is not under nominal, so it is filtered out."""
    objs = [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP, reclaim=ANY,
               borrow_within=LP, threshold=0),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": "1"})], cohort="all"),
            wl("q_hi", {"cpu": "2"}, 5, admitted="q"), wl("o1", {"cpu": "1"}, 0, admitted="o")]
    got, _ = _run(objs, wl("in", {"cpu": "1"}, 0), "q")
    assert got == {}


def _one_strategy() -> list[dict[str, Any]]:
    """a (3, all used by a priority-10 workload) takes 2 more: share 2/9; b borrows its
    whole 6-cpu workload's 3 above nominal: share 3/9, 0 without it."""
    return [cq("a", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("b", [("default", {"cpu": "3"})], cohort="all"),
            cq("c", [("default", {"cpu": "3"})], cohort="all"),
            wl("a1", {"cpu": "3"}, 10, admitted="a"), wl("b1", {"cpu": "6"}, 0, admitted="b")]


def test_fair_sharing_strategies_as_configured() -> None:
    """parseStrategies: the default is both rules; S2-a (222 <= 0) refuses b1 and S2-b
    (222 < 333) takes it. Configured alone, S2-a takes nothing (no second rule) and
    S2-b takes b1 in the first pass."""
    incoming = wl("in", {"cpu": "2"}, 0)
    got, trace = _run(_one_strategy(), incoming, "a", fair=True)
    assert got == {"b1": FS}
    assert trace.lines == [
        "candidates in order: default/b1", "fair sharing",
        "  share of a with the workload: 222",
        "  pass default/b1 from b for now (share 333 -> 0, preemptor 222)",
        "  take default/b1 from b (second strategy; share 333, preemptor 222)"]
    got, trace = _run(_one_strategy(), incoming, "a", fair=True, strategies=[S2A])
    assert got == {}
    assert trace.lines[-1] == "  the workload does not fit with the allowed preemptions"
    got, trace = _run(_one_strategy(), incoming, "a", fair=True, strategies=[S2B])
    assert got == {"b1": FS}
    assert trace.lines[-1] == \
        "  take default/b1 from b (InCohortFairSharing; share 333 -> 0, preemptor 222)"


def test_fair_sharing_recomputes_the_preemptors_share_after_its_own_preemption() -> None:
    """fairPreemptions: a (share 2 of 9.5 borrowed) is popped first and gives 'a_low2';
    its share with the workload is then 3/9.5 (315) and its own 1/9.5 (105) goes back in
    the heap behind b (1.5/9.5). b's workloads fail S2-a against 315, and a's 'a_low1'
    makes room."""
    objs = [cq("a", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("b", [("default", {"cpu": "3"})], cohort="all"),
            cq("c", [("default", {"cpu": "3.5"})], cohort="all"),
            wl("a_hi", {"cpu": "3"}, 10, admitted="a"),
            wl("a_low1", {"cpu": "1"}, -1, admitted="a"),
            wl("a_low2", {"cpu": "1"}, -1, admitted="a"),
            wl("b1", {"cpu": "0.5"}, 0, admitted="b"), wl("b2", {"cpu": "4"}, 0, admitted="b")]
    got, trace = _run(objs, wl("in", {"cpu": "2"}, 0), "a", fair=True)
    assert got == {"a_low1": INCQ, "a_low2": INCQ}
    assert trace.lines == [
        "candidates in order: default/b2, default/b1, default/a_low2, default/a_low1",
        "fair sharing", "  share of a with the workload: 421",
        "  take default/a_low2 (InClusterQueue)",
        "  pass default/b2 from b for now (share 157 -> 0, preemptor 315)",
        "  pass default/b1 from b for now (share 157 -> 105, preemptor 315)",
        "  take default/a_low1 (InClusterQueue)"]


def _threshold_queue(prio: int) -> list[dict[str, Any]]:
    """a (borrowWithinCohort LowerPriority, threshold = the preemptor's 0) is full with a
    priority-10 workload; x borrows 1 with two 1-cpu workloads of priority ``prio``."""
    return [cq("a", [("default", {"cpu": "2"})], cohort="all", within=LP, reclaim=ANY,
               borrow_within=LP),
            cq("x", [("default", {"cpu": "1"})], cohort="all"),
            cq("z", [("default", {"cpu": "1"})], cohort="all"),
            wl("a_hi", {"cpu": "2"}, 10, admitted="a"),
            wl("x1", {"cpu": "1"}, prio, admitted="x"), wl("x2", {"cpu": "1"}, prio, admitted="x")]


def test_fair_sharing_below_the_threshold_stops_when_the_queue_stops_borrowing() -> None:
    """fairPreemptions: 'x2' is below the threshold and taken although S2-a fails
    (InCohortReclaimWhileBorrowing); x is then within nominal, so it goes back in the
    heap no more and 'x1' is not taken: the workload does not fit."""
    got, trace = _run(_threshold_queue(-5), wl("in", {"cpu": "2"}, 0), "a", fair=True)
    assert got == {}
    assert trace.lines == [
        "candidates in order: default/x2, default/x1", "fair sharing",
        "  share of a with the workload: 500",
        "  take default/x2 from x (InCohortReclaimWhileBorrowing; share 250 -> 0, "
        "preemptor 500)",
        "  the workload does not fit with the allowed preemptions"]


def test_fair_sharing_at_the_threshold_is_not_below_it() -> None:
    """fairPreemptions: priority 0 is not strictly below the threshold 0, so x's
    workloads need a strategy, and both fail."""
    got, trace = _run(_threshold_queue(0), wl("in", {"cpu": "2"}, 0), "a", fair=True)
    assert got == {}
    assert "  pass default/x1 from x for now (share 250 -> 0, preemptor 500)" in trace.lines


def test_fair_sharing_reasons_for_strategy_and_threshold() -> None:
    """Upstream's v0.7 case "workloads under priority threshold can always be
    preempted": 'preemptible1' passes S2-a (222 <= 222) -> InCohortFairSharing;
    'preemptible2' fails it (222 > 111) but is below the threshold -2 ->
    InCohortReclaimWhileBorrowing."""
    objs = [*(cq(n, [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY,
                 borrow_within=LP, threshold=-3) for n in "abc"),
            cq("preemptible", [("default", {"cpu": "0"})], cohort="all"),
            *(wl(f"{q}{i}", {"cpu": "1"}, admitted=q, reserved_at=BASE)
              for q in "ab" for i in (1, 2, 3)),
            *(wl(f"preemptible{i}", {"cpu": "1"}, -3, admitted="preemptible",
                 reserved_at=BASE) for i in (1, 2, 3))]
    got, trace = _run(objs, wl("in", {"cpu": "2"}), "a", fair=True)
    assert got == {"preemptible1": FS, "preemptible2": RWB}
    assert trace.lines[-2:] == [
        "  take default/preemptible1 from preemptible (InCohortFairSharing; share 333 -> "
        "222, preemptor 222)",
        "  take default/preemptible2 from preemptible (InCohortReclaimWhileBorrowing; "
        "share 222 -> 111, preemptor 222)"]


def _entry(name: str, share: int) -> _CandCQ:
    return _CandCQ(SimpleNamespace(name=name), [], share)  # type: ignore[arg-type]


def _drain(heap: _GoHeap) -> list[str]:
    out = []
    while len(heap):
        out.append(heap.pop().st.name)
    return out


def _max_share_heap() -> _GoHeap:
    return _GoHeap(lambda a, b: a.share > b.share)


def test_equal_shares_pop_in_go_container_heap_order() -> None:
    """container/heap with equal keys: Push never moves an item up; Pop swaps the root
    with the last item and sifts it down only past a strictly greater child. A, B, C
    pushed pop A, C, B; A, B, C, D pop A, D, C, B."""
    for names, want in (("ABC", ["A", "C", "B"]), ("ABCD", ["A", "D", "C", "B"])):
        heap = _max_share_heap()
        for n in names:
            heap.push_if_absent(_entry(n, 5))
        assert _drain(heap) == want


@pytest.mark.parametrize("seed", range(20))
def test_the_heap_pops_the_highest_share_first(seed: int) -> None:
    """cqHeapFromCandidates' less (c1.share > c2.share): pops never increase, whatever
    the push order; an entry already present is not pushed again (PushIfNotPresent)."""
    rng = random.Random(seed)
    heap = _max_share_heap()
    shares = {f"q{i}": rng.randint(0, 9) for i in range(rng.randint(1, 12))}
    for name, share in shares.items():
        heap.push_if_absent(_entry(name, share))
        heap.push_if_absent(_entry(name, share + 100))
    popped = _drain(heap)
    assert sorted(popped) == sorted(shares)
    got = [shares[n] for n in popped]
    assert got == sorted(got, reverse=True)


def test_v07_queue_times_ignore_admission_check_evictions_during_nominations() -> None:
    """v0.7.0's GetQueueOrderTimestamp knows only PodsReady-timeout evictions: a
    candidate created before the preemptor is older, evicted by an AdmissionCheck or
    not, so LowerOrNewerEqualPriority refuses it. Also with the trace off and a scan
    cache already filled by earlier nominations of the cycle."""
    ev = [{"type": "Evicted", "status": "True", "reason": "AdmissionCheck", "message": "",
           "lastTransitionTime": "2023-11-14T22:20:00Z"}]  # after both creations
    objs = [flavor("default"), cq("q", [("default", {"cpu": "1"})], within=LONEP),
            wl("c", {"cpu": "1"}, 0, admitted="q", created=BASE + 1, conditions=ev)]
    incoming = wl("in", {"cpu": "1"}, 0, created=BASE + 10)
    assert victims(objs, incoming, "q", V07) == {}
    assert victims(objs, incoming, "q", V07, Trace(enabled=False),
                   scan_cache={("earlier", "scan"): []}) == {}


def test_fill_back_keeps_the_attempts_borrowing() -> None:
    """fillBackWorkloads with minimalPreemptions' allowBorrowing: every candidate is in
    q, so the search allows borrowing; 'small' (priority -2) is taken first, 'big' makes
    room, and with 'small' given back q borrows 2 above its nominal 2, which is allowed:
    only 'big' is evicted."""
    objs = [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP),
            cq("o", [("default", {"cpu": "6"})], cohort="all"),
            cq("z", [("default", {"cpu": "2"})], cohort="all"),
            wl("small", {"cpu": "1"}, -2, admitted="q"), wl("big", {"cpu": "3"}, -1, admitted="q"),
            wl("o1", {"cpu": "6"}, 0, admitted="o")]
    got, _ = _run(objs, wl("in", {"cpu": "3"}, 0), "q")
    assert got == {"big": INCQ}


def test_queues_with_equal_shares_leave_the_heap_in_push_order() -> None:
    """cqHeapFromCandidates pushes queues in candidate order (the most recent
    reservation first: y2, y1, x2, x1) and its less is a strict share > share, so x,
    pushed second with the same share 2/7, does not move above y: y is popped first and
    'y2' passes S2-a (142 <= 142) and is enough."""
    objs = [cq("a", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("x", [("default", {"cpu": "0"})], cohort="all"),
            cq("y", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": "4"})], cohort="all"),
            wl("a_hi", {"cpu": "3"}, 10, admitted="a"),
            wl("x1", {"cpu": "1"}, 0, admitted="x"), wl("x2", {"cpu": "1"}, 0, admitted="x"),
            wl("y1", {"cpu": "1"}, 0, admitted="y"), wl("y2", {"cpu": "1"}, 0, admitted="y")]
    got, trace = _run(objs, wl("in", {"cpu": "1"}, 0), "a", fair=True)
    assert got == {"y2": FS}
    assert trace.lines[0] == "candidates in order: default/y2, default/y1, default/x2, default/x1"
