"""Rules of current Kueue's classic preemption (``kubepreempt.kueue.preemption.classical``)
that the ported tables leave open, each worked out from upstream Kueue:
``classical.classifyPreemptionVariant``, ``collectCandidatesForHierarchicalReclaim`` and
``NewCandidateIterator`` (pkg/scheduler/preemption/classical/), ``SatisfiesPreemptionPolicy``
(common/preemption_policy.go) with ``workload.Ordering.GetQueueOrderTimestamp``, and
``classicalPreemptions`` / ``fillBackWorkloads`` (preemption.go).

Every search runs with the trace on (the ``--explain`` path, per-workload
classification) and off (the scheduler's nominations, the hoisted classification).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, cq, flavor, iso, wl
from builders.kueue_hierarchy import cohort
from builders.kueue_victims import victims

from kubepreempt.kueue.preemption import Trace

LP, LONEP, ANY = "LowerPriority", "LowerOrNewerEqualPriority", "Any"
INCQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"
TRACES = pytest.mark.parametrize("enabled", [True, False], ids=["trace", "no-trace"])


def _evicted(reason: str, at: float) -> list[dict[str, Any]]:
    return [{"type": "Evicted", "status": "True", "reason": reason, "message": "",
             "lastTransitionTime": iso(at)}]


def _run(objs: list[dict[str, Any]], incoming: dict[str, Any], target: str,
         enabled: bool) -> dict[str, str]:
    return victims([flavor("default"), *objs], incoming, target, CURRENT,
                   Trace(enabled=enabled))


@TRACES
def test_a_preemptor_requeued_by_an_admission_check_queues_from_its_eviction(
        enabled: bool) -> None:
    """GetQueueOrderTimestamp: a workload evicted by an AdmissionCheck queues from the
    eviction's time. The preemptor was created before the candidate but evicted after
    it was created, so under LowerOrNewerEqualPriority it is not the older one of the
    two equal priorities and may not preempt (by creation times it would)."""
    objs = [cq("q", [("default", {"cpu": "1"})], within=LONEP),
            wl("c", {"cpu": "1"}, 0, admitted="q", created=BASE + 10)]
    incoming = wl("in", {"cpu": "1"}, 0, created=BASE + 5,
                  conditions=_evicted("AdmissionCheck", BASE + 20))
    assert _run(objs, incoming, "q", enabled) == {}


@TRACES
def test_a_candidate_evicted_by_an_admission_check_queues_from_its_eviction(
        enabled: bool) -> None:
    """GetQueueOrderTimestamp on the candidate: created before the preemptor but
    evicted by an AdmissionCheck after the preemptor was created, so the preemptor is
    the older of the equal priorities and takes it (by creation times it could not)."""
    objs = [cq("q", [("default", {"cpu": "1"})], within=LONEP),
            wl("c", {"cpu": "1"}, 0, admitted="q", created=BASE + 1,
               conditions=_evicted("AdmissionCheck", BASE + 30))]
    incoming = wl("in", {"cpu": "1"}, 0, created=BASE + 10)
    assert _run(objs, incoming, "q", enabled) == {"c": INCQ}


@TRACES
def test_a_candidate_the_policy_refuses_does_not_hide_the_next_one(enabled: bool) -> None:
    """classifyPreemptionVariant runs for every workload of the queue: under
    LowerOrNewerEqualPriority the higher-priority 'high' is refused, the lower 'low'
    after it is still taken."""
    objs = [cq("q", [("default", {"cpu": "2"})], within=LONEP),
            wl("high", {"cpu": "1"}, 5, admitted="q"),
            wl("low", {"cpu": "1"}, -1, admitted="q")]
    assert _run(objs, wl("in", {"cpu": "1"}, 0), "q", enabled) == {"low": INCQ}


def _hierarchy_and_priority() -> list[dict[str, Any]]:
    """r (no quota) -> c (cpu 2) -> q (0, the preemptor's) and qp (0); qh (0) under r.
    qp's 'p' (priority -5) borrows 1 from c; qh's 'h' (priority 5) borrows c's other
    one through r. q does not fit alone, c does after the request: 'p' is found below c
    without a hierarchical advantage, 'h' at r with one."""
    return [cohort("r"), cohort("c", "r", "2"),
            cq("q", [("default", {"cpu": "0"})], cohort="c", within=LP, reclaim=ANY,
               borrow_within=LP),
            cq("qp", [("default", {"cpu": "0"})], cohort="c"),
            cq("qh", [("default", {"cpu": "0"})], cohort="r"),
            wl("p", {"cpu": "1"}, -5, admitted="qp"), wl("h", {"cpu": "1"}, 5, admitted="qh")]


@TRACES
def test_hierarchical_candidates_come_before_lower_priority_ones(enabled: bool) -> None:
    """NewCandidateIterator: the hierarchy candidates, then the priority candidates,
    each group sorted on its own. 'h' has the higher priority but is a hierarchy
    candidate, so it is tried first and its removal is enough."""
    assert _run(_hierarchy_and_priority(), wl("in", {"cpu": "1"}, 0), "q",
                enabled) == {"h": REC}


def _attempt_objs(bwc: str | None, own: list[dict[str, Any]], cap: str,
                  others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP, reclaim=ANY,
               borrow_within=bwc),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": cap})], cohort="all"), *own, *others]


@TRACES
def test_borrowing_forbidden_and_queue_at_nominal_tries_only_with_borrowing(
        enabled: bool) -> None:
    """classicalPreemptions: borrowWithinCohort Never and the queue not strictly under
    nominal (usage 2 of 2) -> the single attempt with borrowing, where the other queue's
    ReclaimWithoutBorrowing candidate is invalid. The cohort is over-committed (usage 4
    of 2), so removing the queue's own workloads is not enough: no targets, although
    an attempt without borrowing would have found 'o1' and one of them."""
    own = [wl("q1", {"cpu": "1"}, -1, admitted="q"), wl("q2", {"cpu": "1"}, -1, admitted="q")]
    objs = _attempt_objs(None, own, "0", [wl("o1", {"cpu": "2"}, -1, admitted="o")])
    assert _run(objs, wl("in", {"cpu": "1"}, 0), "q", enabled) == {}


@TRACES
def test_borrowing_forbidden_without_hierarchy_tries_without_borrowing_first(
        enabled: bool) -> None:
    """classicalPreemptions: borrowWithinCohort Never, no hierarchy candidate (q's 3 of
    nominal 3 would not hold its 2 used + 3 asked) and q under nominal -> the attempt
    without borrowing first. It takes 'o1', then both own workloads until q is within
    nominal; 'o1' is given back. The attempt with borrowing would stop at 'q2' alone."""
    objs = [cq("q", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            cq("z", [("default", {"cpu": "2"})], cohort="all"),
            wl("q1", {"cpu": "1"}, -1, admitted="q"), wl("q2", {"cpu": "1"}, -1, admitted="q"),
            wl("o1", {"cpu": "1"}, -1, admitted="o")]
    assert _run(objs, wl("in", {"cpu": "3"}, 0), "q", enabled) == {"q1": INCQ, "q2": INCQ}


@TRACES
def test_a_failed_attempt_with_borrowing_is_followed_by_one_without(enabled: bool) -> None:
    """classicalPreemptions' default: with borrowing, then without. 'o1' (priority -1,
    above maxPriorityThreshold -10) is ReclaimWithoutBorrowing, invalid in the first
    attempt, and 'q1' alone does not free the full cohort; the second attempt takes
    both ('h', priority 10, is no candidate)."""
    objs = [cq("q", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY,
               borrow_within=LP, threshold=-10),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            wl("h", {"cpu": "1"}, 10, admitted="q"), wl("q1", {"cpu": "1"}, -1, admitted="q"),
            wl("o1", {"cpu": "1"}, -1, admitted="o")]
    assert _run(objs, wl("in", {"cpu": "2"}, 0), "q", enabled) == {"o1": REC, "q1": INCQ}


@TRACES
def test_fill_back_keeps_borrowing_allowed(enabled: bool) -> None:
    """fillBackWorkloads runs with the attempt's borrowing: 'small' (priority -2) is
    taken first, 'big' then makes room; with 'small' given back q borrows 2 above its
    nominal 2, which the attempt with borrowing allows, so only 'big' is evicted."""
    objs = [cq("q", [("default", {"cpu": "2"})], cohort="all", within=LP),
            cq("o", [("default", {"cpu": "6"})], cohort="all"),
            cq("z", [("default", {"cpu": "2"})], cohort="all"),
            wl("small", {"cpu": "1"}, -2, admitted="q"), wl("big", {"cpu": "3"}, -1, admitted="q"),
            wl("o1", {"cpu": "6"}, 0, admitted="o")]
    assert _run(objs, wl("in", {"cpu": "3"}, 0), "q", enabled) == {"big": INCQ}


def _evicted_groups() -> list[dict[str, Any]]:
    """q (nominal 3) holds 'qe' (evicted, 1); o (0) borrows 'oe' (evicted) and 'on'
    (1 each). The cohort's 3 are used; the request of 2 fits q's own nominal, so o's
    workloads are hierarchy candidates."""
    ev = _evicted("Preempted", BASE)
    return [cq("q", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("o", [("default", {"cpu": "0"})], cohort="all"),
            wl("qe", {"cpu": "1"}, -1, admitted="q", conditions=ev),
            wl("oe", {"cpu": "1"}, -1, admitted="o", conditions=ev),
            wl("on", {"cpu": "1"}, -1, admitted="o")]


@TRACES
def test_evicted_candidates_of_every_group_come_first(enabled: bool) -> None:
    """NewCandidateIterator: splitEvicted per group, then every group's evicted
    workloads before any group's others: 'oe', 'qe', then 'on'. The two evicted ones
    free the room."""
    assert _run(_evicted_groups(), wl("in", {"cpu": "2"}, 0), "q",
                enabled) == {"oe": REC, "qe": INCQ}


def test_the_trace_tells_each_step_of_both_attempts() -> None:
    """What ``--explain`` shows of classicalPreemptions: why workloads are no
    candidates (classifyPreemptionVariant's Never: a higher priority, no flavor-resource
    that needs preemption), the candidate order with variants, each attempt and each
    workload taken, and the attempt that found nothing."""
    objs = [flavor("other"),
            cq("q", [("default", {"cpu": "3"}), ("other", {"cpu": "1"})], cohort="all",
               within=LP, reclaim=ANY, borrow_within=LP, threshold=-10),
            cq("o", [("default", {"cpu": "0"}), ("other", {"cpu": "0"})], cohort="all"),
            wl("h", {"cpu": "1"}, 10, admitted="q"), wl("q1", {"cpu": "1"}, -1, admitted="q"),
            wl("spare", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "other"}),
            wl("o1", {"cpu": "1"}, -1, admitted="o")]
    trace = Trace()
    assert victims([flavor("default"), *objs], wl("in", {"cpu": "2"}, 0), "q", CURRENT,
                   trace) == {"o1": REC, "q1": INCQ}
    assert trace.skipped == {
        "default/h": "priority 10 too high for the preemption policy",
        "default/spare": "uses no flavor/resource that needs preemption"}
    assert trace.lines == [
        "candidates in order: default/o1 (ReclaimWithoutBorrowing), default/q1 (WithinCQ)",
        "attempt with borrowing",
        "  take default/q1 (InClusterQueue)",
        "  the workload does not fit even without all these candidates",
        "attempt without borrowing",
        "  take default/o1 (InCohortReclamation)",
        "  take default/q1 (InClusterQueue)"]


def test_the_trace_says_when_there_is_no_candidate() -> None:
    """NewCandidateIterator found nothing (the only workload has a higher priority)."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "1"})], within=LP),
            wl("h", {"cpu": "1"}, 10, admitted="q")]
    trace = Trace()
    assert victims(objs, wl("in", {"cpu": "1"}, 0), "q", CURRENT, trace) == {}
    assert trace.lines == ["no candidates"]


@TRACES
def test_a_zero_request_fits_a_full_cohort(enabled: bool) -> None:
    """QuantitiesFitInQuota: what is left of a request after a node's local quota is at
    least 0, and a zero request fits a node used exactly to its quota. The incoming asks
    1 cpu and 0 memory; c's memory is all used by 'm1', yet c holds the request, so the
    preemptor has a hierarchical advantage over 'h1' (borrowing c's cpu through r),
    which is valid in the single attempt with borrowing and taken."""
    objs = [cohort("r"),
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
             "metadata": {"name": "c"}, "spec": {"parentName": "r", "resourceGroups": [
                 {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "default",
                  "resources": [{"name": "cpu", "nominalQuota": "2"},
                                {"name": "memory", "nominalQuota": "2"}]}]}]}},
            cq("q", [("default", {"cpu": "0", "memory": "0"})], cohort="c", within=LP,
               reclaim=ANY),
            cq("qm", [("default", {"cpu": "0", "memory": "0"})], cohort="c"),
            cq("qh", [("default", {"cpu": "0", "memory": "0"})], cohort="r"),
            wl("m1", {"memory": "2"}, 0, admitted="qm"), wl("h1", {"cpu": "2"}, 0, admitted="qh")]
    assert _run(objs, wl("in", {"cpu": "1", "memory": "0"}, 0), "q", enabled) == {"h1": REC}


@TRACES
def test_without_candidates_in_other_queues_only_the_attempt_with_borrowing_runs(
        enabled: bool) -> None:
    """classicalPreemptions: NoCandidateFromOtherQueues -> the single attempt with
    borrowing, even with borrowWithinCohort Never and q under nominal (z is within its
    quota, so it gives no candidate). 'q2' alone lets q borrow 1 of z's free cpu; an
    attempt without borrowing would have taken both."""
    objs = [cq("q", [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY),
            cq("z", [("default", {"cpu": "2"})], cohort="all"),
            wl("q1", {"cpu": "1"}, -1, admitted="q"), wl("q2", {"cpu": "1"}, -1, admitted="q"),
            wl("z1", {"cpu": "1"}, 0, admitted="z")]
    assert _run(objs, wl("in", {"cpu": "3"}, 0), "q", enabled) == {"q2": INCQ}
