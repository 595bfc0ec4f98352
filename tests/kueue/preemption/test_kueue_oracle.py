"""Flavor assignment with the preemption oracle (current ``fitsResourceQuota`` asks
``SimulatePreemption``), against v0.7 which assigned the first flavor needing preemption.
Worked out from flavorassigner.go (``isPreferred``, ``shouldTryNextFlavor``) and
preemption_oracle.go.
"""

from __future__ import annotations

from builders.kueue import CURRENT, V07, cq, flavor, run, wl

# f1 is full with a higher-priority workload (no target for priority 0); f2 is full with
# a lower-priority one (a target). whenCanPreempt defaults to TryNextFlavor.
OBJS = [flavor("f1"), flavor("f2"),
        cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "2"})], within="LowerPriority"),
        wl("hi", {"cpu": "2"}, 10, admitted="q", flavors={"cpu": "f1"}),
        wl("lo", {"cpu": "2"}, -1, admitted="q", flavors={"cpu": "f2"}),
        wl("in", {"cpu": "2"}, 0, queue="q")]


def test_flavor_without_preemption_targets_loses_to_a_later_one() -> None:
    d = run(OBJS, "in", CURRENT)
    assert (d.result, d.flavors, d.victims) == ("preempt", {"main": {"cpu": "f2"}},
                                                ["default/lo"])
    assert d.reasons == {"default/lo": "InClusterQueue"}


def test_v0_7_assigns_the_first_flavor_needing_preemption() -> None:
    d = run(OBJS, "in", V07)
    assert (d.result, d.flavors, d.victims) == ("pending", {"main": {"cpu": "f1"}}, [])
    assert d.message.endswith("no preemption targets found")


def test_with_targets_in_both_flavors_the_first_is_kept() -> None:
    objs = [*OBJS[:3], wl("lo1", {"cpu": "2"}, -1, admitted="q", flavors={"cpu": "f1"}),
            OBJS[4], OBJS[5]]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.flavors, d.victims) == ("preempt", {"main": {"cpu": "f1"}},
                                                ["default/lo1"])


def test_reclaiming_from_another_queue_beats_preempting_in_own_queue() -> None:
    # f1: only the preemptor's own lower-priority workload can go (Preempt); f2: the
    # borrowed quota can be reclaimed from queue o (Reclaim), which isPreferred ranks higher.
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "2"})], cohort="c",
               within="LowerPriority", reclaim="Any"),
            cq("o", [("f1", {"cpu": "0"}), ("f2", {"cpu": "0"})], cohort="c"),
            wl("lo", {"cpu": "2"}, -1, admitted="q", flavors={"cpu": "f1"}),
            wl("borrower", {"cpu": "2"}, 0, admitted="o", flavors={"cpu": "f2"}),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.flavors, d.reasons) == (
        "preempt", {"main": {"cpu": "f2"}}, {"default/borrower": "InCohortReclamation"})
    d = run(objs, "in", V07)
    assert (d.result, d.flavors, d.reasons) == (
        "preempt", {"main": {"cpu": "f1"}}, {"default/lo": "InClusterQueue"})


def _cohort(name: str, parent: str = "", flv: str = "", cpu: str = "") -> dict:
    spec: dict = {"parentName": parent} if parent else {}
    if flv:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": flv, "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def test_more_local_borrowing_wins_under_when_can_borrow_try_next_flavor() -> None:
    # r (f1: 2 cpu) <- c (f2: 2 cpu) <- q (0 in both). Both flavors fit by borrowing;
    # f1's quota is two levels up (FindHeightOfLowestSubtreeThatFits = height of r = 2),
    # f2's one level up (c: 1), so f2 is preferred (isPreferred: lower borrowing level).
    objs = [flavor("f1"), flavor("f2"), _cohort("r", flv="f1", cpu="2"),
            _cohort("c", "r", "f2", "2"),
            cq("q", [("f1", {"cpu": "0"}), ("f2", {"cpu": "0"})], cohort="c",
               fungibility={"whenCanBorrow": "TryNextFlavor"}),
            wl("in", {"cpu": "1"}, 0, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.flavors, d.borrowing) == ("admit", {"main": {"cpu": "f2"}}, True)


def test_request_equal_to_nominal_may_preempt_without_a_cohort() -> None:
    # fitsResourceQuota: Nominal >= val allows preemption (the oracle then finds no
    # target: the only workload has a higher priority), so the mode is Preempt, not NoFit.
    objs = [flavor("f1"), cq("q", [("f1", {"cpu": "2"})]),
            wl("hi", {"cpu": "2"}, 5, admitted="q", flavors={"cpu": "f1"}),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run(objs, "in", CURRENT)
    assert (d.result, d.mode, d.victims) == ("pending", "Preempt", [])
