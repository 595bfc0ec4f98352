"""The preemption oracle (upstream ``PreemptionOracle.SimulatePreemption``,
pkg/scheduler/preemption/preemption_oracle.go) as flavor assignment sees it: the borrowing
level it reports (``FindHeightOfLowestSubtreeThatFits`` for the flavor-resource asked,
after the targets are gone when there are some) decides between two flavors with the
same preemption possibility (flavorassigner.go ``isPreferred``: equal modes -> the lower
borrowing level), and its search orders candidates at the current time."""

from __future__ import annotations

from typing import Any

from builders.kueue import BASE, CURRENT, cq, flavor, run, wl


def _cohort(name: str, parent: str = "", flv: str = "", cpu: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"parentName": parent} if parent else {}
    if flv:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": flv, "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def test_no_candidates_in_both_flavors_prefers_the_lower_borrowing_level() -> None:
    """r <- c <- q. f1: q's 2 cpu held by a higher priority, nowhere else to take them:
    NoCandidates at level height(r) = 2. f2: the same in q, but c holds 2 more cpu (q
    cannot borrow them: borrowingLimit 0, so no fit): NoCandidates at level 1. Equal
    modes -> f2, the lower level, is the flavor reported."""
    objs = [flavor("f1"), flavor("f2"), _cohort("r"), _cohort("c", "r", "f2", "2"),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": ("2", "0")})], cohort="c",
               within="LowerPriority"),
            wl("hi1", {"cpu": "2"}, 10, admitted="q", flavors={"cpu": "f1"}),
            wl("hi2", {"cpu": "2"}, 10, admitted="q", flavors={"cpu": "f2"}),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.flavors, d.victims) == ("pending", {"main": {"cpu": "f2"}}, [])


def test_preempt_in_both_flavors_prefers_the_lower_level_after_the_targets() -> None:
    """r (f1: 1 cpu) <- c (f2: 1 cpu) <- q (1 cpu of each; borrowWithinCohort, so the
    oracle is asked although 2 > nominal). In each flavor q's own lower-priority workload
    is the target (Preempt); without it the 2 cpu fit at r (level 2) in f1, at c
    (level 1) in f2, so f2 is chosen and its workload preempted."""
    objs = [flavor("f1"), flavor("f2"), _cohort("r", "", "f1", "1"), _cohort("c", "r", "f2", "1"),
            cq("q", [("f1", {"cpu": "1"}), ("f2", {"cpu": "1"})], cohort="c",
               within="LowerPriority", reclaim="Any", borrow_within="LowerPriority"),
            wl("lo1", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "f1"}),
            wl("lo2", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "f2"}),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.flavors, d.victims) == ("preempt", {"main": {"cpu": "f2"}},
                                                ["default/lo2"])
    assert d.reasons == {"default/lo2": "InClusterQueue"}


def test_the_oracle_orders_candidates_with_the_current_time() -> None:
    """The oracle's search (classic here) sorts with CandidatesOrdering at the current
    time: a candidate without a QuotaReserved condition is the most recent admission and
    goes first, in the simulation and in the preemption that follows."""
    bare = wl("bare", {"cpu": "1"}, 0, admitted="q", uid="z")
    del bare["status"]["conditions"]
    objs = [flavor("default"), cq("q", [("default", {"cpu": "2"})], within="LowerPriority"),
            wl("old", {"cpu": "1"}, 0, admitted="q", uid="a", reserved_at=BASE + 10), bare,
            wl("in", {"cpu": "1"}, 5, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.victims) == ("preempt", ["default/bare"])
