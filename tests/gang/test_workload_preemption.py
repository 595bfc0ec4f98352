"""Workload-aware preemption (KEP-5710) on real clusters, as 1.36's alpha decided it.

The cases are rows of upstream's ``TestPodGroupEvaluator_SelectVictimsOnDomain``
(``pkg/scheduler/framework/preemption/podgrouppreemption_test.go`` of 1.36's alpha).
Upstream's "blocking rules" (node N can host the preemptor once victims V are gone) are
rebuilt with CPU: every node holds exactly its victims' requests, so removing V makes room.
Expected victims follow that ``selectVictimsOnDomain`` (``reprieve_in_place=False``):
remove every lower-priority unit, then reprieve units most important first
(``moreImportantVictim``: priority, PodGroup member before plain pod, earlier start;
PDB-violating ones first) while the group, scheduled again, still schedules with no fewer
pods. 1.37's in-place reprieval is covered by ``test_workload_reprieval.py``.
"""

from __future__ import annotations

from builders import node, pdb
from builders.workload_preemption import (
    HIGH,
    LOW,
    MID,
    NS,
    names,
    one_cpu_nodes,
    pod_group,
    preemptor_pod,
    select,
    setup,
    victim,
)

from kubepreempt.scheduler.gang import schedule_pod_group
from kubepreempt.scheduler.gang.preemption import (
    NO_VICTIMS,
    NOT_ELIGIBLE_NEVER,
    VictimUnit,
    importance_order,
)


def test_mix_of_no_group_and_single_pod_groups():
    # "p1 is less important than p2 because it's not part of a pod group".
    out = select([*one_cpu_nodes(3), victim("p1", "node1"),
                  victim("p2", "node2", group="pg1"), victim("p3", "node3", group="pg2"),
                  pod_group("pg1", LOW), pod_group("pg2", LOW), preemptor_pod("p")])
    assert out.ok and names(out) == ["p1"]


def test_shared_group_vs_no_group():
    # p3 (mid) and p2 (pg1, started first) are reprieved; "p1 is less important than p2
    # because of later StartTime".
    out = select([*one_cpu_nodes(3), victim("p1", "node1", group="pg1", start=1),
                  victim("p2", "node2", group="pg1", start=0),
                  victim("p3", "node3", priority=MID), pod_group("pg1", LOW),
                  preemptor_pod("p")])
    assert names(out) == ["p1"]


def test_complex_mixed_groups():
    # p5 has the preemptor's priority: not a victim. p4 (mid) is reprieved; the three
    # group members are all needed, reported most important first (earliest start).
    out = select([*one_cpu_nodes(5), victim("p1", "node1", group="pg1", start=2),
                  victim("p2", "node2", group="pg1", start=1),
                  victim("p3", "node3", group="pg2", start=0),
                  victim("p4", "node4", priority=MID),
                  victim("p5", "node5", priority=HIGH, group="pg3", start=0),
                  pod_group("pg1", LOW), pod_group("pg2", LOW), pod_group("pg3", HIGH),
                  preemptor_pod("p-1"), preemptor_pod("p-2"), preemptor_pod("p-3")],
                 min_count=3)
    assert names(out) == ["p3", "p2", "p1"]
    assert sorted(out.placements.values()) == ["node1", "node2", "node3"]


def test_pdb_mixed_groups():
    # The PDB-protected unit is reprieved first and fits; the other one goes.
    out = select([*one_cpu_nodes(2),
                  victim("victim-pdb", "node1", group="pg1", labels={"app": "foo"}),
                  victim("victim-no-pdb", "node2", group="pg1"),
                  pdb("budget", {"app": "foo"}, allowed=0), pod_group("pg1", LOW),
                  preemptor_pod("p")])
    assert names(out) == ["victim-no-pdb"]


def test_member_with_preempt_never_blocks_the_group():
    # Without PodGroupPreemptionPolicy a member saying Never makes the group Never.
    out = select([*one_cpu_nodes(3), victim("p1", "node1"), victim("p2", "node2"),
                  victim("p3", "node3"), preemptor_pod("p-1", never=True),
                  preemptor_pod("p-2")])
    assert not out.ok and out.message == NOT_ELIGIBLE_NEVER
    assert NOT_ELIGIBLE_NEVER == "not eligible due to preemptionPolicy=Never."


def test_preempt_single_lower_priority_pod():
    out = select([*one_cpu_nodes(1), victim("p1", "node1"), preemptor_pod("p")])
    assert names(out) == ["p1"]


def test_prefer_lower_priority_victim():
    # p3 has the preemptor's priority; p2 (mid) is reprieved before p1 (low).
    out = select([node("node1", cpu="3"), victim("p1", "node1"),
                  victim("p2", "node1", priority=MID), victim("p3", "node1", priority=HIGH),
                  preemptor_pod("p")])
    assert names(out) == ["p1"]


def test_efficiency_minimum_number_of_victims():
    # Removing p1 alone, or p2+p3+p4, makes room; the older small pods are more
    # important and reprieved first, so only p1 goes.
    out = select([node("node1", cpu="4"), victim("p1", "node1", cpu="2", start=9),
                  victim("p2", "node1", cpu="500m", start=1),
                  victim("p3", "node1", cpu="500m", start=2),
                  victim("p4", "node1", cpu="500m", start=3), preemptor_pod("p", cpu="2")])
    assert names(out) == ["p1"]


def test_pdb_prefer_non_violating_victim():
    out = select([node("node1", cpu="2"),
                  victim("victim-pdb", "node1", labels={"app": "foo"}),
                  victim("victim-no-pdb", "node1"),
                  pdb("budget", {"app": "foo"}, allowed=0), preemptor_pod("p")])
    assert names(out) == ["victim-no-pdb"]


def test_no_lower_priority_victims():
    out = select([*one_cpu_nodes(1), victim("p1", "node1", priority=HIGH),
                  preemptor_pod("p")])
    assert not out.ok and out.message == NO_VICTIMS


def test_all_mode_group_is_preempted_whole():
    # disruptionMode all: both pods of pg1 form one unit, though one node is enough.
    out = select([*one_cpu_nodes(2), victim("a", "node1", group="pg1"),
                  victim("b", "node2", group="pg1"), pod_group("pg1", LOW, "all"),
                  preemptor_pod("p")])
    assert sorted(names(out)) == ["a", "b"]
    # The same pods in single mode: one is enough.
    out = select([*one_cpu_nodes(2), victim("a", "node1", group="pg1", start=1),
                  victim("b", "node2", group="pg1", start=2), pod_group("pg1", LOW),
                  preemptor_pod("p")])
    assert names(out) == ["b"]


def test_larger_group_is_more_important():
    # moreImportantVictim: same priority, both groups -> the larger one first.
    cluster, _, evaluator, _ = setup([*one_cpu_nodes(3), victim("a", "node1", group="big"),
                                      victim("b", "node2", group="big"),
                                      victim("c", "node3", group="small"),
                                      pod_group("big", LOW, "all"),
                                      pod_group("small", LOW, "all")])
    units = importance_order(evaluator.units(cluster))
    assert [u.key for u in units] == [f"{NS}/big", f"{NS}/small"]
    assert [len(u.pods) for u in units] == [2, 1]
    assert all(isinstance(u, VictimUnit) and u.priority == LOW for u in units)
    out = select([*one_cpu_nodes(3), victim("a", "node1", group="big"),
                  victim("b", "node2", group="big"), victim("c", "node3", group="small"),
                  pod_group("big", LOW, "all"), pod_group("small", LOW, "all"),
                  preemptor_pod("p")])
    assert names(out) == ["c"]


def test_group_priority_decides_where_pod_priority_cannot():
    # The victims' pods have a higher pod priority than the preemptor's pods, so
    # DefaultPreemption pod by pod finds nothing; their PodGroup's priority is lower than
    # the preemptor's, so workload-aware preemption takes the whole `all` group.
    objects = [*one_cpu_nodes(2), victim("a", "node1", priority=5000, group="old"),
               victim("b", "node2", priority=5000, group="old"),
               pod_group("old", LOW, "all"), preemptor_pod("p-1"), preemptor_pod("p-2")]
    cluster, sched, evaluator, groups = setup(objects, min_count=2)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    plain = schedule_pod_group(sched, NS, "preemptor-pg", group)
    assert plain.result == "unschedulable" and plain.message == "pod group is unschedulable"
    d = schedule_pod_group(sched, NS, "preemptor-pg", group, workload_preemption=evaluator)
    assert d.result == "preempt"
    assert [v.name for v in d.victims] == ["a", "b"]
    assert sorted(d.placements.values()) == ["node1", "node2"]
    assert d.message == "pod group is unschedulable"


def test_failed_workload_preemption_appends_its_reason():
    objects = [*one_cpu_nodes(1), victim("a", "node1", priority=5000),
               preemptor_pod("p-1")]
    cluster, sched, evaluator, groups = setup(objects)
    d = schedule_pod_group(sched, NS, "preemptor-pg", groups.pod_groups[f"{NS}/preemptor-pg"],
                           workload_preemption=evaluator)
    # The pod outranks the group: no victims; the reason is appended to the status.
    assert d.result == "unschedulable"
    assert d.message == "pod group is unschedulable, No preemption victims found for " \
                        "incoming preemptor"
