"""Rules of current Kueue's fair-sharing preemption
(``kubepreempt.kueue.preemption.fairsharing``) that the ported tables leave open, each
worked out from upstream Kueue: ``fairsharing.TargetClusterQueueOrdering.nextTarget``
(ordering.go), ``LessThanInitialShare`` (strategy.go), ``SatisfiesPreemptionPolicy``
(common/preemption_policy.go) with ``GetQueueOrderTimestamp``, and ``findCandidates``,
``runFirstFsStrategy``, ``runSecondFsStrategy`` and ``fairPreemptions`` (preemption.go).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, config, cq, flavor, iso, wl
from builders.kueue_victims import victims

from kubepreempt.kueue.preemption import Trace

LP, LONEP, ANY = "LowerPriority", "LowerOrNewerEqualPriority", "Any"
INCQ, REC, FS = "InClusterQueue", "InCohortReclamation", "InCohortFairSharing"
S2A, S2B = "LessThanOrEqualToFinalShare", "LessThanInitialShare"


def _cohort(name: str, parent: str = "", cpu: str | None = None,
            cpu_borrowing_limit: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"parentName": parent} if parent else {}
    if cpu is not None:
        res: dict[str, Any] = {"name": "cpu", "nominalQuota": cpu}
        if cpu_borrowing_limit is not None:
            res["borrowingLimit"] = cpu_borrowing_limit
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": "default", "resources": [res]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def _q(name: str, cpu: str, cohort: str = "all", within: str | None = None,
       reclaim: str | None = None) -> dict[str, Any]:
    return cq(name, [("default", {"cpu": cpu})], cohort=cohort, within=within,
              reclaim=reclaim)


def _fair(objs: list[dict[str, Any]], incoming: dict[str, Any], target: str,
          strategies: list[str] | None = None, trace: Trace | None = None) -> dict[str, str]:
    return victims([flavor("default"), config(fair=True, strategies=strategies), *objs],
                   incoming, target, CURRENT, trace)


def test_less_than_initial_share_first_refuses_equal_shares() -> None:
    """LessThanInitialShare as the only strategy: CompareDRS(preemptorNewShare,
    targetOldShare) < 0. a with the incoming 2 borrows 2, b borrows 2: equal shares, so
    b1 may not be taken, although its removal would make room."""
    objs = [_q("a", "3", within=LP, reclaim=ANY), _q("b", "3"), _q("c", "3"),
            wl("a1", {"cpu": "3"}, 10, admitted="a"),
            wl("b1", {"cpu": "1"}, 0, admitted="b"), wl("b2", {"cpu": "4"}, 0, admitted="b")]
    assert _fair(objs, wl("in", {"cpu": "2"}, 0), "a", [S2B]) == {}


def test_one_strategy_configured_runs_no_second_one() -> None:
    """fairPreemptions runs runSecondFsStrategy only with more than one strategy: with
    LessThanOrEqualToFinalShare alone, b1 (b's whole 3 borrowed) fails it (2 > 0) and is
    not taken by rule S2-b, which would allow it (2 < 3)."""
    objs = [_q("a", "3", within=LP, reclaim=ANY), _q("b", "3"), _q("c", "3"),
            wl("a1", {"cpu": "3"}, 10, admitted="a"), wl("b1", {"cpu": "6"}, 0, admitted="b")]
    incoming = wl("in", {"cpu": "2"}, 0)
    assert _fair(objs, incoming, "a", [S2A]) == {}
    assert _fair(objs, incoming, "a") == {"b1": FS}


def test_rule_s2b_takes_at_most_one_workload_per_queue() -> None:
    """runSecondFsStrategy drops a queue after its first candidate (DropQueue). x's
    candidates fail S2-a (a's share 4 > x's 3 after either); a's own 'o' is taken, a's
    share falls to 2; S2-b then takes x1 (2 < 6) but not x2, although x's share is 3 > 2
    by then: the workload does not fit and nothing is preempted."""
    objs = [_q("a", "8", within=LP, reclaim=ANY), _q("x", "0"), _q("z", "4"),
            wl("a_hi", {"cpu": "4"}, 10, admitted="a"), wl("o", {"cpu": "2"}, -1, admitted="a"),
            wl("x1", {"cpu": "3"}, 0, admitted="x"), wl("x2", {"cpu": "3"}, 0, admitted="x")]
    assert _fair(objs, wl("in", {"cpu": "6"}, 0), "a") == {}


def test_a_queue_back_within_its_quota_is_no_target_any_more() -> None:
    """nextTarget prunes a ClusterQueue that is not borrowing. a stays within nominal
    with the incoming 3, so it reclaims without comparing shares: x2 (the later
    reservation) brings x back to its nominal 1, x is pruned and x1 is not taken, though
    it would make room (y's workload has too high a priority): nothing is preempted."""
    objs = [_q("a", "3", within=LP, reclaim=LP), _q("x", "1"), _q("y", "0"), _q("z", "1"),
            wl("x1", {"cpu": "1"}, 0, admitted="x"), wl("x2", {"cpu": "1"}, 0, admitted="x"),
            wl("y1", {"cpu": "2"}, 10, admitted="y")]
    assert _fair(objs, wl("in", {"cpu": "3"}, 1), "a") == {}


def test_a_queue_borrowing_what_its_parent_cannot_lend_is_still_a_target() -> None:
    """nextTarget prunes by IsBorrowing (usage above quota), not by a zero share
    (kueue#9738). x, in cohort X whose cpu borrowing limit is 0, uses 1 cpu above its
    quota 0: its share is 0 (nothing to lend below X) but it borrows, so it stays a
    target; a is within nominal and reclaims x1 (the cohort X, borrowing 1 of root's 1,
    is entered first)."""
    objs = [_cohort("root"), _cohort("X", "root", "0", cpu_borrowing_limit="0"),
            _q("a", "1", cohort="root", reclaim=ANY), _q("x", "0", cohort="X"),
            wl("x1", {"cpu": "1"}, 0, admitted="x")]
    assert _fair(objs, wl("in", {"cpu": "1"}, 0), "a") == {"x1": REC}


def test_an_earlier_pruned_cohort_does_not_hide_a_later_one() -> None:
    """nextTarget skips pruned cohorts and goes on with the others: X (share 3) is taken
    from first and pruned once x1 is gone; Y, after it, gives both its workloads."""
    objs = [_cohort("R"), _cohort("X", "R"), _cohort("Y", "R"),
            _q("a", "5", cohort="R", reclaim=ANY), _q("x", "0", cohort="X"),
            _q("y", "0", cohort="Y"),
            wl("x1", {"cpu": "3"}, 0, admitted="x"), wl("y1", {"cpu": "1"}, 0, admitted="y"),
            wl("y2", {"cpu": "1"}, 0, admitted="y")]
    assert _fair(objs, wl("in", {"cpu": "5"}, 0), "a") == {"x1": REC, "y1": REC, "y2": REC}


def test_the_preemptors_cohort_is_entered_even_when_it_does_not_borrow() -> None:
    """nextTarget never prunes a cohort on the path from the root to the preemptor's
    queue: P (own quota 2) does not borrow even with the incoming workload charged to a,
    yet it is entered and a preempts its own workload."""
    objs = [_cohort("R"), _cohort("P", "R", "2"), _q("a", "2", cohort="P", within=LP),
            wl("a_low", {"cpu": "2"}, -1, admitted="a")]
    assert _fair(objs, wl("in", {"cpu": "2"}, 0), "a") == {"a_low": INCQ}


def test_a_queue_with_a_higher_share_beats_a_cohort() -> None:
    """nextTarget enters the best cohort only when its share is at least the best
    queue's: x (borrowing 2) is taken from before cohort C (borrowing 1); x1 is enough."""
    objs = [_cohort("R"), _cohort("C", "R"), _q("a", "4", cohort="R", reclaim=ANY),
            _q("x", "0", cohort="R"), _q("c", "0", cohort="C"),
            wl("x1", {"cpu": "2"}, 0, admitted="x"), wl("c1", {"cpu": "1"}, 0, admitted="c")]
    assert _fair(objs, wl("in", {"cpu": "2"}, 0), "a") == {"x1": REC}


def test_only_queues_borrowing_a_resource_that_needs_preemption_give_candidates() -> None:
    """findCandidates: cqIsBorrowing over the flavor-resources needing preemption. x is
    at its cpu nominal and borrows only memory (the higher share), so its workload is no
    candidate; y's, borrowing cpu, is taken."""
    objs = [cq("a", [("default", {"cpu": "2", "memory": "1"})], cohort="all", reclaim=ANY),
            cq("x", [("default", {"cpu": "1", "memory": "0"})], cohort="all"),
            cq("y", [("default", {"cpu": "0", "memory": "0"})], cohort="all"),
            wl("x1", {"cpu": "1", "memory": "1"}, 0, admitted="x"),
            wl("y1", {"cpu": "1"}, 0, admitted="y")]
    assert _fair(objs, wl("in", {"cpu": "2"}, 0), "a") == {"y1": REC}


def test_reclaim_policy_and_resources_both_filter_other_queues() -> None:
    """findCandidates keeps a borrowing queue's workload only when reclaimWithinCohort
    allows it and it uses a flavor-resource that needs preemption: x's 'hi' (priority
    10 under LowerPriority) and 'spare' (on flavor other) are both refused."""
    objs = [flavor("other"),
            cq("a", [("default", {"cpu": "2"}), ("other", {"cpu": "1"})], cohort="all",
               reclaim=LP),
            cq("x", [("default", {"cpu": "0"}), ("other", {"cpu": "0"})], cohort="all"),
            wl("hi", {"cpu": "1"}, 10, admitted="x"),
            wl("spare", {"cpu": "1"}, 0, admitted="x", flavors={"cpu": "other"})]
    trace = Trace()
    assert _fair(objs, wl("in", {"cpu": "2"}, 1), "a", trace=trace) == {}
    why = "not allowed by reclaimWithinCohort or uses no flavor/resource that needs preemption"
    assert trace.skipped == {"default/hi": why, "default/spare": why}
    assert trace.lines == ["no candidates"]


def _own(created_in: float, candidate: dict[str, Any]) -> dict[str, str]:
    objs = [cq("q", [("default", {"cpu": "1"})], within=LONEP), candidate]
    return _fair(objs, wl("in", {"cpu": "1"}, 0, created=created_in), "q")


def _cand(prio: int, created: float, conditions: list[dict[str, Any]] | None = None
          ) -> dict[str, Any]:
    return wl("c", {"cpu": "1"}, prio, admitted="q", created=created, conditions=conditions)


@pytest.mark.parametrize(("prio", "created", "preemptor_created", "taken"), [
    (-1, BASE, BASE + 10, True),      # lower priority, whatever the times
    (0, BASE + 10, BASE, True),       # equal priority, the preemptor queued first
    (0, BASE, BASE, False),           # equal priority and times
    (0, BASE, BASE + 10, False),      # equal priority, the candidate queued first
    (1, BASE + 10, BASE, False),      # higher priority, even if newer
])
def test_lower_or_newer_equal_priority_in_fair_sharing(prio: int, created: float,
                                                       preemptor_created: float,
                                                       taken: bool) -> None:
    """SatisfiesPreemptionPolicy under withinClusterQueue LowerOrNewerEqualPriority:
    lower priority, or equal priority with the preemptor's queue time strictly before
    the candidate's."""
    got = _own(preemptor_created, _cand(prio, created))
    assert got == ({"c": INCQ} if taken else {})


def _evicted(at: float) -> list[dict[str, Any]]:
    return [{"type": "Evicted", "status": "True", "reason": "AdmissionCheck", "message": "",
             "lastTransitionTime": iso(at)}]


def test_fair_sharing_orders_queue_times_by_admission_check_evictions() -> None:
    """GetQueueOrderTimestamp: a workload evicted by an AdmissionCheck queues from the
    eviction. The candidate, created first but evicted after the preemptor was
    created, is the newer one and may be taken; the preemptor, created first but
    evicted after the candidate was created, is the newer one and may not."""
    assert _own(BASE + 10, _cand(0, BASE + 1, _evicted(BASE + 30))) == {"c": INCQ}
    objs = [cq("q", [("default", {"cpu": "1"})], within=LONEP), _cand(0, BASE + 10)]
    incoming = wl("in", {"cpu": "1"}, 0, created=BASE + 5, conditions=_evicted(BASE + 20))
    assert _fair(objs, incoming, "q") == {}


def test_the_trace_tells_candidates_passes_and_takes() -> None:
    """What ``--explain`` shows of fairPreemptions: the candidates in CandidatesOrdering
    (other queues first, so b's before a's lower-priority own one), each one taken with
    its reason (a, with the higher share 4/9, first), a candidate passed by rule S2-a with
    the shares compared (b's 3/9 would fall to 0, below a's 3/9), and the end when
    nothing fits."""
    objs = [_q("a", "3", within=LP, reclaim=ANY), _q("b", "3"), _q("c", "3"),
            wl("a_low", {"cpu": "1"}, -5, admitted="a"), wl("a1", {"cpu": "2"}, 10, admitted="a"),
            wl("b1", {"cpu": "6"}, 0, admitted="b")]
    trace = Trace()
    assert _fair(objs, wl("in", {"cpu": "4"}, 0), "a", [S2A], trace) == {}
    assert trace.lines == [
        "candidates in order: default/b1, default/a_low",
        "  take default/a_low (InClusterQueue)",
        "  pass default/b1 for now (share 333.333 -> 0, preemptor 333.333)",
        "  the workload does not fit with the allowed preemptions"]
