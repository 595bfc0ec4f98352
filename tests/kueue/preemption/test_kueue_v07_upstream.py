"""Upstream's v0.7.0 ``TestFairPreemptions`` and ``TestCandidatesOrdering`` tables."""

from __future__ import annotations

import pytest
from builders.kueue import NOW, config, cq, flavor, inputs, preempt, wl

from kubepreempt.kueue.flavors import Mode
from kubepreempt.kueue.preemption.common import candidate_order_key
from kubepreempt.kueue.quota import workload_info

T = 1_700_000_000.0  # the same "now" for every reservation, as upstream's table
QUEUES = [flavor("default"), config(fair=True)] + [
    cq(n, [("default", {"cpu": "3"})], cohort="all", within="LowerPriority", reclaim="Any",
       borrow_within="LowerPriority", threshold=-3) for n in "abc"
] + [cq("preemptible", [("default", {"cpu": "0"})], cohort="all")]
CPU = {"main": {"cpu": ("default", Mode.PREEMPT)}}


def A(name: str, q: str, cpu: str = "1", prio: int | None = None) -> dict:  # noqa: N802
    return wl(name, {"cpu": cpu}, priority=prio, admitted=q, reserved_at=T)


def units(q: str, n: int, start: int = 1) -> list[dict]:
    return [A(f"{q}{i}", q) for i in range(start, start + n)]


CASES = {
    "reclaim nominal from user using the most": (
        units("a", 3) + units("b", 5) + units("c", 1), "c", "1", {"b1"}),
    "can reclaim from queue using less, if taking the latest workload from user using the "
    "most isn't enough": (
        [A("a1", "a", "3"), A("a2", "a", "1"), A("b1", "b", "2"), A("b2", "b", "3")],
        "c", "3", {"a1"}),
    "reclaim borrowable quota from user using the most": (
        units("a", 3) + units("b", 5) + units("c", 1), "a", "1", {"b1"}),
    "preempt one from each CQ borrowing": (
        [A("a1", "a", "0.5"), A("a2", "a", "0.5"), A("a3", "a", "3"),
         A("b1", "b", "0.5"), A("b2", "b", "0.5"), A("b3", "b", "3")], "c", "2", {"a1", "b1"}),
    "can't preempt when everyone under nominal": (
        units("a", 3) + units("b", 3) + units("c", 3), "c", "1", set()),
    "can't preempt when it would switch the imbalance": (
        units("a", 3) + units("b", 5), "a", "2", set()),
    "can preempt lower priority workloads from same CQ": (
        [A("a1_low", "a", prio=-1), A("a2_low", "a", prio=-1), A("a3", "a"), A("a4", "a")]
        + units("b", 5), "a", "2", {"a1_low", "a2_low"}),
    "can preempt a combination of same CQ and highest user": (
        [A("a_low", "a", prio=-1), A("a2", "a"), A("a3", "a")] + units("b", 6), "a", "2",
        {"a_low", "b1"}),
    "preempt huge workload if there is no other option, as long as the target CQ gets a "
    "lower share": ([A("b1", "b", "9")], "a", "2", {"b1"}),
    "can't preempt huge workload if the incoming is also huge": (
        [A("a1", "a", "2"), A("b1", "b", "7")], "a", "5", set()),
    "can't preempt 2 smaller workloads if the incoming is huge": (
        [A("b1", "b", "2"), A("b2", "b", "2"), A("b3", "b", "3")], "a", "6", set()),
    "preempt from target and others even if over nominal": (
        [A("a1_low", "b", "2", -1), A("a2_low", "b", "1", -1), A("b1", "b", "3"),
         A("b2", "b", "3")], "a", "4", {"a1_low", "b1"}),
    "prefer to preempt workloads that don't make the target CQ have the biggest share": (
        [A("b1", "b", "2"), A("b2", "b", "1"), A("b3", "b", "2"), A("c1", "c", "1")],
        "a", "3.5", {"b2"}),
    "preempt from different cluster queues if the end result has a smaller max share": (
        [A("b1", "b", "2"), A("b2", "b", "2.5"), A("c1", "c", "2"), A("c2", "c", "2.5")],
        "a", "3.5", {"b1", "c1"}),
    "scenario above does not flap": (
        [A("a1", "a", "3.5"), A("b2", "b", "2.5"), A("c2", "c", "2.5")], "b", "2", set()),
    "cannot preempt if it would make the candidate CQ go under nominal after preempting one "
    "element": ([A("b1", "b", "3"), A("b2", "b", "3"), A("c1", "c", "3")], "a", "4", set()),
    "workloads under priority threshold can always be preempted": (
        units("a", 3) + units("b", 3)
        + [A(f"preemptible{i}", "preemptible", prio=-3) for i in (1, 2, 3)],
        "a", "2", {"preemptible1", "preemptible2"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_fair_preemptions(name: str) -> None:
    admitted, target, cpu, want = CASES[name]
    incoming = wl(f"{target}_incoming", {"cpu": cpu})
    assert preempt(QUEUES + admitted, incoming, target, CPU) == want


def test_upstream_candidates_ordering() -> None:
    objs = [
        wl("high", priority=10, admitted="self", reserved_at=NOW - 10),
        wl("low", priority=-10, admitted="self", reserved_at=NOW - 10),
        wl("other", priority=10, admitted="other", reserved_at=NOW - 10),
        wl("evicted", conditions=[{"type": "Evicted", "status": "True"}]),
        wl("old-a", admitted="self", reserved_at=NOW - 100),
        wl("old-b", admitted="self", reserved_at=NOW - 100),
        wl("current", admitted="self", reserved_at=NOW - 99),
    ]
    inp = inputs(objs)
    infos = [workload_info(w) for w in inp.workloads.values()]
    infos.sort(key=candidate_order_key("self", NOW))
    assert [i.obj.name for i in infos] == ["evicted", "other", "low", "current", "old-a",
                                           "old-b", "high"]


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_fair_preemptions_whole_decision(name: str) -> None:
    # The same cases through kubepreempt kueue's whole v0.7 decision: the incoming
    # workload queued in the target ClusterQueue, flavors assigned, then targets.
    from builders.kueue import V07, run
    admitted, target, cpu, want = CASES[name]
    incoming = wl(f"{target}_incoming", {"cpu": cpu}, queue=target)
    d = run(QUEUES + admitted + [incoming], f"{target}_incoming", V07)
    assert {k.split("/")[1] for k in d.victims} == want
    assert d.result == ("preempt" if want else "pending")
    assert d.flavors == {"main": {"cpu": "default"}}
