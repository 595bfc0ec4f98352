"""Current upstream's ``TestFairPreemptions`` (pkg/scheduler/preemption/
preemption_fair_test.go): the same queues, cohorts, workloads and expected victims with
their reasons, run under current semantics. UIDs are the workload names, as upstream sets
them, and every reservation happened at the same instant.

The one case whose answer changed since v0.7 (borrowWithinCohort no longer lets fair
sharing take workloads below the priority threshold) runs under both releases.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, NOW, V07, config, cq, flavor, inputs, wl

from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.quota import Snapshot, workload_info

FS, REC, INCQ = "InCohortFairSharing", "InCohortReclamation", "InClusterQueue"
LP, ANY = "LowerPriority", "Any"


def _base_cq(name: str) -> dict[str, Any]:
    return cq(name, [("default", {"cpu": "3"})], cohort="all", within=LP, reclaim=ANY,
              borrow_within=LP, threshold=-3)


BASE_CQS = [flavor("default"), *(_base_cq(n) for n in "abc"),
            cq("preemptible", [("default", {"cpu": "0"})], cohort="all")]


def plain(name: str, cohort_name: str, cpu: str | None = "3", weight: str | None = None,
          within: str | None = LP, reclaim: str | None = ANY) -> dict[str, Any]:
    groups = [[("default", {"cpu": cpu})]] if cpu is not None else []
    return cq(name, *groups, cohort=cohort_name, within=within, reclaim=reclaim,
              weight=weight)


def cohort(name: str, parent: str = "", cpu: str | None = None,
           weight: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if cpu is not None:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": "default", "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def A(name: str, q: str, cpu: str = "1", prio: int | None = None,  # noqa: N802 (table)
      flv: str = "default") -> dict[str, Any]:
    return wl(name, {"cpu": cpu}, priority=prio, admitted=q, reserved_at=BASE,
              flavors={"cpu": flv})


def units(q: str, n: int, start: int = 1) -> list[dict[str, Any]]:
    return [A(f"{q}{i}", q) for i in range(start, start + n)]


def tiered(q: str) -> list[dict[str, Any]]:
    return [A(f"{q}{i}", q, prio=i) for i in range(1, 6)]


# name -> (queues and cohorts, admitted, target queue, incoming cpu, incoming priority,
#          strategies, flavor, {victim: reason})
Case = tuple[list[dict[str, Any]], list[dict[str, Any]], str, str, int | None,
             list[str] | None, str, dict[str, str]]
CASES: dict[str, Case] = {
    "reclaim nominal from user using the most": (
        BASE_CQS, units("a", 3) + units("b", 5) + units("c", 1), "c", "1", None, None,
        "default", {"b1": REC}),
    "can reclaim from queue using less, if taking the latest workload from user using the "
    "most isn't enough": (
        BASE_CQS, [A("a1", "a", "3"), A("a2", "a", "1"), A("b1", "b", "2"), A("b2", "b", "3")],
        "c", "3", None, None, "default", {"a1": REC}),
    "reclaim borrowable quota from user using the most": (
        BASE_CQS, units("a", 3) + units("b", 5) + units("c", 1), "a", "1", None, None,
        "default", {"b1": FS}),
    "preempt one from each CQ borrowing": (
        BASE_CQS, [A("a1", "a", "0.5"), A("a2", "a", "0.5"), A("a3", "a", "3"),
                   A("b1", "b", "0.5"), A("b2", "b", "0.5"), A("b3", "b", "3")],
        "c", "2", None, None, "default", {"a1": REC, "b1": REC}),
    "can't preempt when everyone under nominal": (
        BASE_CQS, units("a", 3) + units("b", 3) + units("c", 3), "c", "1", None, None,
        "default", {}),
    "can't preempt when it would switch the imbalance": (
        BASE_CQS, units("a", 3) + units("b", 5), "a", "2", None, None, "default", {}),
    "can preempt lower priority workloads from same CQ": (
        BASE_CQS, [A("a1_low", "a", prio=-1), A("a2_low", "a", prio=-1), A("a3", "a"),
                   A("a4", "a")] + units("b", 5), "a", "2", None, None, "default",
        {"a1_low": INCQ, "a2_low": INCQ}),
    "can preempt a combination of same CQ and highest user": (
        BASE_CQS, [A("a_low", "a", prio=-1), A("a2", "a"), A("a3", "a")] + units("b", 6),
        "a", "2", None, None, "default", {"a_low": INCQ, "b1": FS}),
    "preempt huge workload if there is no other option, as long as the target CQ gets a "
    "lower share": (BASE_CQS, [A("b1", "b", "9")], "a", "2", None, None, "default",
                    {"b1": REC}),
    "can't preempt huge workload if the incoming is also huge": (
        BASE_CQS, [A("a1", "a", "2"), A("b1", "b", "7")], "a", "5", None, None, "default",
        {}),
    "can't preempt 2 smaller workloads if the incoming is huge": (
        BASE_CQS, [A("b1", "b", "2"), A("b2", "b", "2"), A("b3", "b", "3")], "a", "6", None,
        None, "default", {}),
    "preempt from target and others even if over nominal": (
        BASE_CQS, [A("a1_low", "a", "2", -1), A("a2_low", "a", "1", -1), A("b1", "b", "3"),
                   A("b2", "b", "3")], "a", "4", None, None, "default",
        {"a1_low": INCQ, "b1": FS}),
    "prefer to preempt workloads that don't make the target CQ have the biggest share": (
        BASE_CQS, [A("b1", "b", "2"), A("b2", "b", "1"), A("b3", "b", "2"), A("c1", "c", "1")],
        "a", "3.5", None, None, "default", {"b2": FS}),
    "preempt from different cluster queues if the end result has a smaller max share": (
        BASE_CQS, [A("b1", "b", "2"), A("b2", "b", "2.5"), A("c1", "c", "2"),
                   A("c2", "c", "2.5")], "a", "3.5", None, None, "default",
        {"b1": FS, "c1": FS}),
    "scenario above does not flap": (
        BASE_CQS, [A("a1", "a", "3.5"), A("b2", "b", "2.5"), A("c2", "c", "2.5")], "b", "2",
        None, None, "default", {}),
    "cannot preempt if it would make the candidate CQ go under nominal after preempting one "
    "element": (BASE_CQS, [A("b1", "b", "3"), A("b2", "b", "3"), A("c1", "c", "3")], "a",
                "4", None, None, "default", {}),
    "preempt lower priority first, even if big": (
        BASE_CQS, [A("a1", "a", "3"), A("b_low", "b", "5", 0), A("b_high", "b", "1", 1)],
        "a", "1", None, ["LessThanInitialShare"], "default", {"b_low": FS}),
    "preempt workload that doesn't transfer the imbalance, even if high priority": (
        BASE_CQS, [A("a1", "a", "3"), A("b_low", "b", "5", 0), A("b_high", "b", "1", 1)],
        "a", "1", None, ["LessThanOrEqualToFinalShare"], "default", {"b_high": FS}),
    "CQ with higher weight can preempt more": (
        [flavor("default"), plain("a", "all", weight="2"), plain("b", "all"),
         plain("c", "all")], units("a", 3) + units("b", 6), "a", "2", None, None, "default",
        {"b1": FS, "b2": FS}),
    "can preempt anything borrowing from CQ with 0 weight": (
        [flavor("default"), plain("a", "all"), plain("b", "all", weight="0"),
         plain("c", "all")], units("a", 3) + units("b", 6), "a", "3", None, None, "default",
        {"b1": FS, "b2": FS, "b3": FS}),
    "can't preempt nominal from CQ with 0 weight": (
        [flavor("default"), plain("a", "all"), plain("b", "all", weight="0")],
        units("a", 3) + units("b", 3), "a", "1", None, None, "default", {}),
    "can't preempt nominal from Cohort with 0 weight": (
        [flavor("default"), plain("left-cq", "root", "0", within=None),
         plain("right-cq", "right-cohort", "0", weight="0", within=None),
         cohort("right-cohort", "root", "1", weight="0")],
        [A("right-1", "right-cq")], "left-cq", "1", None, None, "default", {}),
    "can preempt within cluster queue when no cohort": (
        [flavor("default"), plain("a", "", "1", reclaim=None)], [A("a1", "a")], "a", "1",
        1000, None, "default", {"a1": INCQ}),
    "hierarchical preemption": (
        [flavor("default"), plain("a", "LEFT", "1", weight="2", within=None),
         plain("b", "LEFT", "1", within=None, reclaim=None),
         plain("c", "ROOT", "1", within=None, reclaim=None),
         plain("d", "RIGHT", "1", within=None, reclaim=None),
         plain("e", "RIGHT", "1", weight="0.99", within=None, reclaim=None),
         cohort("ROOT", cpu="5"), cohort("LEFT", "ROOT", "5", weight="2"),
         cohort("RIGHT", "ROOT", "5")],
        tiered("b") + tiered("c") + tiered("d") + tiered("e"), "a", "5", None, None,
        "default", {"b1": FS, "b2": FS, "c1": FS, "c2": FS, "e1": FS}),
    "borrowing cq in non-borrowing cohort is protected": (
        [flavor("default"), plain("a", "ROOT", "5", weight="10"),
         plain("b", "RIGHT", None, weight="0.1", within=None, reclaim=None),
         cohort("ROOT"), cohort("RIGHT", "ROOT", "1", weight="0.1")],
        [A(f"a{i}", "a", prio=-1) for i in (1, 2, 3)] + [A("b1", "b", prio=-1)], "a", "5",
        None, None, "default", {"a1": INCQ, "a2": INCQ, "a3": INCQ}),
    "forced to preempt within clusterqueue because borrowing workload too important": (
        [flavor("default"), plain("a", "ROOT", "5", weight="10", reclaim=LP),
         plain("b", "RIGHT", None, weight="0.1", within=None, reclaim=None),
         cohort("ROOT"), cohort("RIGHT", "ROOT", "3", weight="0.1")],
        [A(f"a{i}", "a", prio=-1) for i in (1, 2, 3)] + [A("b1", "b", "4", 100)], "a", "4",
        None, None, "default", {"a1": INCQ, "a2": INCQ, "a3": INCQ}),
    "deep preemption": (
        [flavor("default"), plain("a", "AAA", "0", within=None),
         plain("b", "BBB", "0", within=None, reclaim=None), cohort("ROOT"),
         cohort("A", "ROOT", weight="1.01"), cohort("AA", "A"), cohort("AAA", "AA"),
         cohort("B", "ROOT", weight="0.99"), cohort("BB", "B"), cohort("BBB", "BB"),
         cohort("C", "ROOT"), cohort("CC", "C"), cohort("CCC", "CC"),
         cohort("CCCC", "CCC", "1")],
        [A("b1", "b")], "a", "1", None, None, "default", {"b1": FS}),
    "cq with zero weight can reclaim nominal quota": (
        [flavor("default"), plain("a", "ROOT", "1", weight="0.0", within=None),
         plain("b", "ROOT", "0", weight="1.0", within=None, reclaim=None)],
        [A("b1", "b")], "a", "1", None, None, "default", {"b1": REC}),
    "cohort with zero weight can reclaim nominal quota": (
        [flavor("default"), plain("a", "A", "0", weight="0.0", within=None),
         plain("b", "ROOT", "0", weight="1.0", within=None, reclaim=None),
         cohort("A", "ROOT", "1", weight="0.0")],
        [A("b1", "b")], "a", "1", None, None, "default", {"b1": FS}),
    "nominal first: workload fitting within nominal can preempt despite high aggregate DRS": (
        [flavor("premium"), flavor("cheap"),
         cq("a", [("premium", {"cpu": "3"}), ("cheap", {"cpu": "0"})], cohort="all",
            reclaim=ANY, fungibility={"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}),
         cq("b", [("premium", {"cpu": "0"}), ("cheap", {"cpu": "6"})], cohort="all")],
        [A("a_prem1", "a", flv="premium"), A("a_prem2", "a", flv="premium")]
        + [A(f"a_cheap{i}", "a", flv="cheap") for i in range(1, 6)]
        + [A("b_prem1", "b", flv="premium")], "a", "1", None, None, "premium",
        {"b_prem1": REC}),
}


def targets(objs: list[dict[str, Any]], admitted: list[dict[str, Any]], target: str,
            cpu: str, prio: int | None, strategies: list[str] | None, flv: str,
            version: str = CURRENT) -> dict[str, str]:
    incoming = wl(f"{target}_incoming", {"cpu": cpu}, priority=prio)
    inp = inputs([*objs, config(fair=True, strategies=strategies), *admitted, incoming],
                 version)
    key = f"default/{target}_incoming"
    others = [w for k, w in inp.workloads.items() if k != key]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config, inp.cohorts)
    before = [dict(n.usage) for n in [*snap.cqs.values(), *snap.cohorts.values()]]
    a = Assignment([PodSetAssignment("main", {"cpu": FlavorAssignment(flv, Mode.PREEMPT)},
                                     fits=False)])
    got = get_targets(workload_info(inp.workloads[key], target), a, snap, NOW, Trace())
    after = [dict(n.usage) for n in [*snap.cqs.values(), *snap.cohorts.values()]]
    assert before == after, "the snapshot must be restored"
    return {t.info.obj.name: t.reason for t in got}


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_current_fair_preemptions(name: str) -> None:
    objs, admitted, target, cpu, prio, strategies, flv, want = CASES[name]
    assert targets(objs, admitted, target, cpu, prio, strategies, flv) == want


PREEMPTIBLE = (units("a", 3) + units("b", 3)
               + [A(f"preemptible{i}", "preemptible", prio=-3) for i in (1, 2, 3)])


def test_priority_threshold_no_longer_applies_to_fair_sharing() -> None:
    # v0.7 "workloads under priority threshold can always be preempted";
    # current "workloads under priority threshold not capriciously preempted".
    v07 = targets(BASE_CQS, PREEMPTIBLE, "a", "2", None, None, "default", V07)
    assert set(v07) == {"preemptible1", "preemptible2"}
    assert targets(BASE_CQS, PREEMPTIBLE, "a", "2", None, None, "default", CURRENT) == {}


def _tie_tree(second: str) -> list[dict[str, Any]]:
    """ROOT (own 1) holds p (nominal 1) and X -> x (0, using 1); ``second`` is either a
    cohort Y -> y or a queue z directly in ROOT, also using 1. The tree is full; the
    incoming 1 cpu keeps p within nominal, so the first target the walk finds is taken."""
    objs = [flavor("default"), cohort("ROOT", cpu="1"), cohort("X", "ROOT"),
            plain("p", "ROOT", "1", within=None), plain("x", "X", "0", within=None,
                                                         reclaim=None)]
    if second == "cohort":
        objs += [cohort("Y", "ROOT"), plain("y", "Y", "0", within=None, reclaim=None)]
    else:
        objs += [plain("z", "ROOT", "0", within=None, reclaim=None)]
    return objs


def test_equal_shares_later_cohort_is_entered() -> None:
    # nextTarget: CompareDRS(drs, highestCohortDrs) >= 0, so Y (after X) wins the tie.
    got = targets(_tie_tree("cohort"), [A("x1", "x"), A("y1", "y")], "p", "1", None, None,
                  "default")
    assert got == {"y1": REC}


def test_equal_shares_cohort_beats_queue() -> None:
    # nextTarget: a cohort is entered when its share >= the best queue's.
    got = targets(_tie_tree("queue"), [A("x1", "x"), A("z1", "z")], "p", "1", None, None,
                  "default")
    assert got == {"x1": REC}


def test_equal_shares_queue_with_the_first_candidate_is_taken() -> None:
    # nextTarget: queues with equal shares are ordered by their first candidates
    # (CandidatesOrdering: lower priority first), not by their place in the cohort.
    objs = [flavor("default"), plain("p", "all", "2", within=None),
            plain("x", "all", "1", within=None, reclaim=None),
            plain("y", "all", "1", within=None, reclaim=None)]
    admitted = [A("xa", "x", prio=0), A("xb", "x", prio=0), A("ya", "y", prio=-1),
                A("yb", "y", prio=0)]
    assert targets(objs, admitted, "p", "1", None, None, "default") == {"ya": REC}
