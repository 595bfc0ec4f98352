"""Upstream's ``TestPreemption`` table (pkg/scheduler/preemption/preemption_test.go),
reproduced with the same queues, workloads, assignments and expected victims.

Each case runs under Kueue v0.7.0 and under current Kueue (classified candidates, two
greedy passes, available quota); the expected victims are the same in both releases'
tables unless a case says otherwise.
"""

from __future__ import annotations

import pytest
from builders.kueue import CURRENT, V07, cq, flavor, preempt, wl

from kubepreempt.kueue.flavors import Mode

LP, LONEP, ANY, NEVER = "LowerPriority", "LowerOrNewerEqualPriority", "Any", "Never"
P = Mode.PREEMPT

QUEUES = [
    flavor("default"), flavor("alpha"), flavor("beta"),
    cq("standalone", [("default", {"cpu": "6"})],
       [("alpha", {"memory": "3Gi"}), ("beta", {"memory": "3Gi"})], within=LP),
    cq("c1", [("default", {"cpu": ("6", "12"), "memory": ("3Gi", "6Gi")})], cohort="cohort",
       within=LP, reclaim=LP),
    cq("c2", [("default", {"cpu": ("6", "12"), "memory": ("3Gi", "6Gi")})], cohort="cohort",
       within=NEVER, reclaim=ANY),
    cq("d1", [("default", {"cpu": "6", "memory": "3Gi"})], cohort="cohort-no-limits",
       within=LP, reclaim=LP),
    cq("d2", [("default", {"cpu": "6", "memory": "3Gi"})], cohort="cohort-no-limits",
       within=NEVER, reclaim=ANY),
    cq("l1", [("default", {"cpu": ("6", "12"), "memory": ("3Gi", "6Gi")})], cohort="legion",
       within=LP, reclaim=LP),
    cq("preventStarvation", [("default", {"cpu": "6"})], within=LONEP),
    cq("a_standard", [("default", {"cpu": ("1", "12")})], cohort="with_shared_cq",
       within=NEVER, reclaim=LP, borrow_within=LP, threshold=0),
    cq("b_standard", [("default", {"cpu": ("1", "12")})], cohort="with_shared_cq",
       within=LP, reclaim=ANY, borrow_within=LP, threshold=0),
    cq("a_best_effort", [("default", {"cpu": ("1", "12")})], cohort="with_shared_cq",
       within=NEVER, reclaim=LP, borrow_within=LP, threshold=0),
    cq("shared", [("default", {"cpu": "10"})], cohort="with_shared_cq"),
    cq("a", [("default", {"cpu": "2", "memory": "2"})], cohort="cohort-three", within=LP,
       reclaim=ANY),
    cq("b", [("default", {"cpu": "2", "memory": "2"})], cohort="cohort-three"),
    cq("c", [("default", {"cpu": "2", "memory": "2"})], cohort="cohort-three"),
]
LEND = [
    cq("lend1", [("default", {"cpu": ("6", None, "4")})], cohort="cohort-lend", within=LP,
       reclaim=LP),
    cq("lend2", [("default", {"cpu": ("6", None, "2")})], cohort="cohort-lend", within=LP,
       reclaim=LP),
]


def A(name, cpu="2", prio=None, q="standalone", **kw):  # noqa: N802 - reads like the table
    return wl(name, {"cpu": cpu}, priority=prio, admitted=q, **kw)


CPU = {"main": {"cpu": ("default", P)}}
CASES = {
    "preempt lowest priority": (
        [A("low", prio=-1), A("mid"), A("high", prio=1)],
        wl("in", {"cpu": "2"}, priority=1), "standalone", CPU, {"low"}),
    "preempt multiple": (
        [A("low", prio=-1), A("mid"), A("high", prio=1)],
        wl("in", {"cpu": "3"}, priority=1), "standalone", CPU, {"low", "mid"}),
    "no preemption for low priority": (
        [A("low", "3", -1), A("mid", "3")],
        wl("in", {"cpu": "1"}, priority=-1), "standalone", CPU, set()),
    "not enough low priority workloads": (
        [A("low", "3", -1), A("mid", "3")],
        wl("in", {"cpu": "4"}), "standalone", CPU, set()),
    "some free quota, preempt low priority": (
        [A("low", "1", -1), A("mid", "1"), A("high", "3", 1)],
        wl("in", {"cpu": "2"}, priority=1), "standalone", CPU, {"low"}),
    "minimal set excludes low priority": (
        [A("low", "1", -1), A("mid", "2"), A("high", "3", 1)],
        wl("in", {"cpu": "2"}, priority=1), "standalone", CPU, {"mid"}),
    "only preempt workloads using the chosen flavor": (
        [wl("low", {"memory": "2Gi"}, -1, admitted="standalone", flavors={"memory": "alpha"}),
         wl("mid", {"memory": "1Gi"}, admitted="standalone", flavors={"memory": "beta"}),
         wl("high", {"memory": "1Gi"}, 1, admitted="standalone", flavors={"memory": "beta"})],
        wl("in", {"cpu": "1", "memory": "2Gi"}, priority=1), "standalone",
        {"main": {"cpu": ("default", Mode.FIT), "memory": ("beta", P)}}, {"mid"}),
    "reclaim quota from borrower": (
        [A("c1-low", "3", -1, "c1"), A("c2-mid", "3", None, "c2"), A("c2-high", "6", 1, "c2")],
        wl("in", {"cpu": "3"}, priority=1), "c1", CPU, {"c2-mid"}),
    "no workloads borrowing": (
        [A("c1-high", "4", 1, "c1"), A("c2-low-1", "4", -1, "c2")],
        wl("in", {"cpu": "4"}, priority=1), "c1", CPU, set()),
    "not enough workloads borrowing": (
        [A("c1-high", "4", 1, "c1"), A("c2-low-1", "4", -1, "c2"), A("c2-low-2", "4", -1, "c2")],
        wl("in", {"cpu": "4"}, priority=1), "c1", CPU, set()),
    "preempting locally and borrowing other resources in cohort, without cohort candidates": (
        [A("c1-low", "4", -1, "c1"), A("c2-low-1", "4", -1, "c2"), A("c2-high-2", "4", 1, "c2")],
        wl("in", {"cpu": "4", "memory": "5Gi"}, priority=1), "c1",
        {"main": {"cpu": ("default", P), "memory": ("alpha", P)}}, {"c1-low"}),
    "preempting locally and borrowing same resource in cohort": (
        [A("c1-med", "4", 0, "c1"), A("c1-low", "4", -1, "c1"), A("c2-low-1", "4", -1, "c2")],
        wl("in", {"cpu": "4"}, priority=1), "c1", CPU, {"c1-low"}),
    "preempting locally and borrowing same resource in cohort; no borrowing limit": (
        [A("d1-med", "4", 0, "d1"), A("d1-low", "4", -1, "d1"), A("d2-low-1", "4", -1, "d2")],
        wl("in", {"cpu": "4"}, priority=1), "d1", CPU, {"d1-low"}),
    "preempting locally and borrowing other resources in cohort, with cohort candidates": (
        [A("c1-med", "4", 0, "c1"), A("c2-low-1", "5", -1, "c2"), A("c2-low-2", "1", -1, "c2"),
         A("c2-low-3", "1", -1, "c2")],
        wl("in", {"cpu": "2", "memory": "5Gi"}, priority=1), "c1",
        {"main": {"cpu": ("default", P), "memory": ("default", P)}}, {"c1-med"}),
    "preempting locally and not borrowing same resource in 1-queue cohort": (
        [A("l1-med", "4", 0, "l1"), A("l1-low", "2", -1, "l1")],
        wl("in", {"cpu": "4"}, priority=1), "l1", CPU, {"l1-med"}),
    "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority": (
        [A("c1", "2", None, "c1"), A("c2-1", "4", None, "c2"), A("c2-2", "4", None, "c2")],
        wl("in", {"cpu": "4"}), "c1", CPU, set()),
    "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny": (
        [A("c1-1", "4", None, "c1"), A("c1-2", "4", 1, "c1"), A("c2", "2", None, "c2")],
        wl("in", {"cpu": "4"}), "c2", CPU, {"c1-1"}),
    "preempt from all ClusterQueues in cohort": (
        [A("c1-low", "3", -1, "c1"), A("c1-mid", "2", None, "c1"), A("c2-low", "3", -1, "c2"),
         A("c2-mid", "4", None, "c2")],
        wl("in", {"cpu": "4"}), "c1", CPU, {"c1-low", "c2-low"}),
    "can't preempt workloads in ClusterQueue for withinClusterQueue=Never": (
        [A("c2-low", "3", -1, "c2")], wl("in", {"cpu": "4"}, priority=1), "c2", CPU, set()),
}


VERSIONS = pytest.mark.parametrize("version", [V07, CURRENT])
# Current upstream's table assigns memory to flavor "default" in this case (v0.7's used
# "alpha", a flavor c1 does not have); both releases preempt c1-low with it.
CURRENT_ASSIGNMENT = {
    "preempting locally and borrowing other resources in cohort, without cohort candidates":
        {"main": {"cpu": ("default", P), "memory": ("default", P)}},
}


@VERSIONS
@pytest.mark.parametrize("name", list(CASES))
def test_upstream_preemption_table(name: str, version: str) -> None:
    admitted, incoming, target, assignment, want = CASES[name]
    if version == CURRENT:
        assignment = CURRENT_ASSIGNMENT.get(name, assignment)
    assert preempt(QUEUES + admitted, incoming, target, assignment, version) == want


@VERSIONS
def test_current_assignment_without_cohort_candidates(version: str) -> None:
    name = "preempting locally and borrowing other resources in cohort, without cohort candidates"
    admitted, incoming, target, _, want = CASES[name]
    got = preempt(QUEUES + admitted, incoming, target, CURRENT_ASSIGNMENT[name], version)
    assert got == want == {"c1-low"}


@VERSIONS
def test_upstream_preempt_newer_workloads_with_the_same_priority(version: str) -> None:
    # Upstream: wl2 reserved quota one second after wl3, so it is the most recent; both were
    # created after the preemptor, which LowerOrNewerEqualPriority requires.
    t = 1_700_000_000.0
    admitted = [A("wl1", "2", 2, "preventStarvation", reserved_at=t, created=0.0),
                A("wl2", "2", 1, "preventStarvation", reserved_at=t + 1, created=t),
                A("wl3", "2", 1, "preventStarvation", reserved_at=t, created=t)]
    incoming = wl("in", {"cpu": "2"}, priority=1, created=t - 15)
    got = preempt(QUEUES + admitted, incoming, "preventStarvation", CPU, version)
    assert got == {"wl2"}


@VERSIONS
def test_each_podset_preempts_a_different_flavor(version: str) -> None:
    admitted = [wl("low-alpha", {"memory": "2Gi"}, -1, admitted="standalone",
                   flavors={"memory": "alpha"}),
                wl("low-beta", {"memory": "2Gi"}, -1, admitted="standalone",
                   flavors={"memory": "beta"})]
    incoming = wl("in", pod_sets=[
        {"name": "launcher", "count": 1, "template": {"spec": {"containers": [
            {"resources": {"requests": {"memory": "2Gi"}}}]}}},
        {"name": "workers", "count": 2, "template": {"spec": {"containers": [
            {"resources": {"requests": {"memory": "1Gi"}}}]}}}])
    got = preempt(QUEUES + admitted, incoming, "standalone",
                  {"launcher": {"memory": ("alpha", P)}, "workers": {"memory": ("beta", P)}},
                  version)
    assert got == {"low-alpha", "low-beta"}


BWC = {
    "allow preempting a lower-priority workload from another ClusterQueue while borrowing": (
        [A("a_best_effort_low", "10", -1, "a_best_effort"),
         A("b_best_effort_low", "1", -1, "b_best_effort")],
        wl("in", {"cpu": "10"}), "a_standard", {"a_best_effort_low"}),
    "don't allow preempting above MaxPriorityThreshold if borrowing is required after": (
        [A("b_standard", "10", 1, "b_standard")],
        wl("in", {"cpu": "10"}, priority=2), "a_standard", set()),
    "allow preempting above MaxPriorityThreshold if borrowing is not required after": (
        [A("b_standard", "13", 1, "b_standard")],
        wl("in", {"cpu": "1"}, priority=2), "a_standard", {"b_standard"}),
    "don't allow for preemption of lower-priority workload from the same ClusterQueue": (
        [A("a_standard", "13", 1, "a_standard")],
        wl("in", {"cpu": "1"}, priority=2), "a_standard", set()),
    "only preempt from CQ if no workloads below threshold and already above nominal": (
        [A("a_standard_1", "10", 1, "a_standard"), A("a_standard_2", "1", 1, "a_standard"),
         A("b_standard_1", "1", 1, "b_standard"), A("b_standard_2", "1", 2, "b_standard")],
        wl("in", {"cpu": "1"}, priority=3), "b_standard", {"b_standard_1"}),
    "preempt from CQ and from other CQs with workloads below threshold": (
        [A("b_standard_high", "10", 2, "b_standard"), A("b_standard_mid", "1", 1, "b_standard"),
         A("a_best_effort_low", "1", -1, "a_best_effort"),
         A("a_best_effort_lower", "1", -2, "a_best_effort")],
        wl("in", {"cpu": "2"}, priority=2), "b_standard",
        {"b_standard_mid", "a_best_effort_lower"}),
}


@VERSIONS
@pytest.mark.parametrize("name", list(BWC))
def test_upstream_borrow_within_cohort(name: str, version: str) -> None:
    admitted, incoming, target, want = BWC[name]
    assert preempt(QUEUES + admitted, incoming, target, CPU, version) == want


THREE = {
    "preemptions from cq when target queue is exhausted for the single requested resource": (
        False, {"a1", "a2"}),
    "preemptions from cq when target queue is exhausted for two requested resources": (
        True, {"a1", "a2"}),
}


def _three(mem: bool) -> list[dict]:
    req = {"cpu": "1", "memory": "1"} if mem else {"cpu": "1"}
    out = [wl("a1", req, -2, admitted="a"), wl("a2", req, -2, admitted="a"),
           wl("a3", req, -1, admitted="a")]
    out += [wl(f"b{i}", req, 0, admitted="b") for i in (1, 2, 3)]
    return out


@VERSIONS
@pytest.mark.parametrize("name", list(THREE))
def test_upstream_exhausted_target_queue(name: str, version: str) -> None:
    mem, want = THREE[name]
    incoming = wl("in", {"cpu": "2", "memory": "2"}, priority=0)
    assignment = {"main": {"cpu": ("default", P), "memory": ("default", P)}} if mem else CPU
    if not mem:
        incoming = wl("in", {"cpu": "2"}, priority=0)
    assert preempt(QUEUES + _three(mem), incoming, "a", assignment, version) == want


@VERSIONS
def test_upstream_exhausted_for_one_resource_but_not_the_other(version: str) -> None:
    incoming = wl("in", {"cpu": "2", "memory": "2"}, priority=0)
    assignment = {"main": {"cpu": ("default", P), "memory": ("default", P)}}
    assert preempt(QUEUES + _three(False), incoming, "a", assignment, version) == {"a1", "a2"}


@VERSIONS
def test_upstream_allow_preemption_from_other_queues_if_target_not_exhausted(
        version: str) -> None:
    admitted = [wl("a1", {"cpu": "1"}, -1, admitted="a")]
    admitted += [wl(f"b{i}", {"cpu": "1"}, 0, admitted="b") for i in (1, 2, 3, 4)]
    admitted += [wl("b5", {"cpu": "1"}, -1, admitted="b")]
    incoming = wl("in", {"cpu": "2"})
    assert preempt(QUEUES + admitted, incoming, "a", CPU, version) == {"a1", "b5"}


LEND_CASES = {
    "reclaim quota from lender": (
        [A("lend1-low", "3", -1, "lend1"), A("lend2-mid", "3", None, "lend2"),
         A("lend2-high", "4", 1, "lend2")],
        wl("in", {"cpu": "3"}, priority=1), {"lend2-mid"}),
    "preempt from all ClusterQueues in cohort-lend": (
        [A("lend1-low", "3", -1, "lend1"), A("lend1-mid", "2", None, "lend1"),
         A("lend2-low", "3", -1, "lend2"), A("lend2-mid", "4", None, "lend2")],
        wl("in", {"cpu": "4"}), {"lend1-low", "lend2-low"}),
    "cannot preempt from other ClusterQueues if exceeds requestable quota incl. lending limit": (
        [A("lend2-low", "10", -1, "lend2")], wl("in", {"cpu": "9"}), set()),
}


@VERSIONS
@pytest.mark.parametrize("name", list(LEND_CASES))
def test_upstream_lending_limit(name: str, version: str) -> None:
    from builders.kueue import config
    admitted, incoming, want = LEND_CASES[name]
    objs = [flavor("default"), *LEND, config(fair=False, lending_limit=True), *admitted]
    assert preempt(objs, incoming, "lend1", CPU, version) == want


# v0.7.0's TestPreemption through kubepreempt kueue's whole v0.7 decision (the current
# table runs so in tests/upstream/kueue/test_kueue_preemption_tables.py): the incoming
# workload queued in the target ClusterQueue. Where the decision's flavors differ from
# the table's assignment: (flavors, victims).
V07_WHOLE = {
    # Memory in alpha (low, -1) and beta (mid, 0) both need preemption; v0.7's assigner
    # (whenCanPreempt TryNextFlavor, no oracle) keeps the first Preempt flavor: alpha.
    "only preempt workloads using the chosen flavor": (
        {"main": {"cpu": "default", "memory": "alpha"}}, {"low"}),
    # v0.7's table assigns memory to alpha, a flavor c1 does not have; c1 covers memory
    # with default, the flavor its assigner takes. The victim is the same.
    "preempting locally and borrowing other resources in cohort, without cohort candidates": (
        {"main": {"cpu": "default", "memory": "default"}}, {"c1-low"}),
}


def _queued(w: dict, target: str) -> dict:
    return {**w, "spec": {**w["spec"], "queueName": target}}


@pytest.mark.parametrize("name", list(CASES))
def test_v07_preemption_table_whole_decision(name: str) -> None:
    from builders.kueue import run
    admitted, incoming, target, assignment, want = CASES[name]
    d = run(QUEUES + admitted + [_queued(incoming, target)], "in", V07)
    flavors = {ps: {r: f for r, (f, _) in fl.items()} for ps, fl in assignment.items()}
    if name in V07_WHOLE:
        flavors, want = V07_WHOLE[name]
    got = {k.split("/")[1] for k in d.victims}
    assert got == want
    if want:
        assert (d.result, d.flavors) == ("preempt", flavors)


@pytest.mark.parametrize("name", list(BWC))
def test_v07_borrow_within_cohort_whole_decision(name: str) -> None:
    from builders.kueue import run
    admitted, incoming, target, want = BWC[name]
    d = run(QUEUES + admitted + [_queued(incoming, target)], "in", V07)
    assert {k.split("/")[1] for k in d.victims} == want
    assert d.result == ("preempt" if want else "pending")


@pytest.mark.parametrize("name", list(LEND_CASES))
def test_v07_lending_limit_whole_decision(name: str) -> None:
    from builders.kueue import config, run
    admitted, incoming, want = LEND_CASES[name]
    objs = [flavor("default"), *LEND, config(fair=False, lending_limit=True), *admitted,
            _queued(incoming, "lend1")]
    d = run(objs, "in", V07)
    assert {k.split("/")[1] for k in d.victims} == want
    assert d.result == ("preempt" if want else "pending")
