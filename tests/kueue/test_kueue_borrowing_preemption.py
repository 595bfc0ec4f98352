"""A borrowing request looks for victims only when upstream's ``fitsResourceQuota`` lets it.

``fitsResourceQuota`` (pkg/scheduler/flavorassigner) asks the preemption oracle only when
the request fits the nominal quota, may reclaim in the cohort tree
(``FindHeightOfLowestSubtreeThatFits``) or may preempt while borrowing
(``borrowWithinCohort``, or fair sharing with ``reclaimWithinCohort``); otherwise the flavor
is NoFit, whatever ``withinClusterQueue`` says.
"""

from __future__ import annotations

from builders.kueue import CURRENT, config, cq, flavor, run, wl


def _objs(borrow_within: str | None = None) -> list[dict]:
    # a: nominal 4 holding a low-priority 3; b: nominal 4 holding 3 (not borrowing).
    # The incoming 5 exceeds a's nominal and the cohort's 2 free; a's root cohort has no
    # parent, so it may not reclaim in the hierarchy.
    return [flavor("default"),
            cq("a", [("default", {"cpu": "4"})], cohort="c", within="LowerPriority",
               reclaim="Any" if borrow_within else None, borrow_within=borrow_within),
            cq("b", [("default", {"cpu": "4"})], cohort="c"),
            wl("low", {"cpu": "3"}, priority=-1, queue="a", admitted="a"),
            wl("other", {"cpu": "3"}, queue="b", admitted="b", namespace="b"),
            wl("incoming", {"cpu": "5"}, priority=10, queue="a")]


def test_borrowing_request_does_not_preempt_in_its_own_queue() -> None:
    d = run(_objs(), "incoming", CURRENT)
    assert d.result == "pending"
    assert d.victims == []
    assert d.message == ("couldn't assign flavors to pod set main: insufficient unused quota "
                         "for cpu in flavor default, 3 more needed")


def test_borrow_within_cohort_lets_it_preempt_in_its_own_queue() -> None:
    d = run(_objs(borrow_within="LowerPriority"), "incoming", CURRENT)
    assert d.result == "preempt"
    assert d.victims == ["default/low"]


def test_fair_sharing_with_reclaim_lets_it_look_for_victims() -> None:
    objs = [config(fair=True)] + [
        o if o["metadata"]["name"] != "a" or o["kind"] != "ClusterQueue" else
        cq("a", [("default", {"cpu": "4"})], cohort="c", within="LowerPriority",
           reclaim="Any") for o in _objs()]
    d = run(objs, "incoming", CURRENT)
    assert d.result == "preempt"
    assert d.victims == ["default/low"]
