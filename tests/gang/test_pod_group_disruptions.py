"""``numPodGroupDisruptions``: how many victim units of a preemption belong to a PodGroup.

Rows of upstream's ``TestPodGroupEvaluator_Preempt_Victims``
(``pkg/scheduler/framework/preemption/podgrouppreemption_test.go``, its
``expectedNumPodGroupDisruptions``), rebuilt with CPU as in test_workload_preemption.py.
Each expected count is ``isGroupVictim`` over the victims left to preempt: a unit counts
when its first pod names a scheduling group, so an ``all`` group counts once however
many pods it has, each preempted pod of a ``single`` group once, a plain pod never.
Upstream uses the count for the ``scheduler_preemption_workload_disruptions`` metric
only; the last test pins that the node pick does not read it.
"""

from __future__ import annotations

import numpy as np
from builders import node
from builders.workload_preemption import (
    LOW,
    NS,
    names,
    one_cpu_nodes,
    pod_group,
    preemptor_pod,
    select,
    setup,
    victim,
)

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.gang import schedule_pod_group
from kubepreempt.scheduler.preemption.pick import Candidate, pick_candidate
from kubepreempt.scheduler.preemption.victim_units import VictimUnit, pod_group_disruptions


def test_a_plain_victim_disrupts_no_pod_group():
    # "Priority: mix of no groups and pod groups": p2 (pg1, single) is the more important
    # unit and is reprieved; plain p1 goes: no PodGroup disrupted.
    out = select([node("node1", cpu="2"), victim("p1", "node1"),
                  victim("p2", "node1", group="pg1"), pod_group("pg1", LOW),
                  preemptor_pod("p")])
    assert names(out) == ["p1"] and out.pod_group_disruptions == 0


def test_each_preempted_pod_of_a_single_group_is_one_disruption():
    # "Priority: StartTime of pods from same group with disruption mode single": p2 started
    # first, is more important and reprieved; p1 goes -> 1.
    out = select([node("node1", cpu="2"), victim("p1", "node1", group="pg1", start=1),
                  victim("p2", "node1", group="pg1", start=0), pod_group("pg1", LOW),
                  preemptor_pod("p")])
    assert names(out) == ["p1"] and out.pod_group_disruptions == 1


def test_an_all_group_is_one_disruption_whatever_its_size():
    # "Pod group with disruption mode group not reprieved": p1 and p2 of pg1 (all) on two
    # one-pod nodes go together -> 2 victims, 1 disruption.
    out = select([*one_cpu_nodes(2), victim("p1", "node1", group="pg1"),
                  victim("p2", "node2", group="pg1"), pod_group("pg1", LOW, "all"),
                  preemptor_pod("p")])
    assert sorted(names(out)) == ["p1", "p2"] and out.pod_group_disruptions == 1


def test_the_group_decision_carries_the_count_of_workload_aware_preemption():
    # Pod priorities above the preemptor's keep DefaultPreemption out; the `all` group's
    # priority is lower, so workload-aware preemption takes it whole: 2 pods, 1 unit.
    cluster, sched, evaluator, groups = setup([
        *one_cpu_nodes(2), victim("a", "node1", priority=5000, group="old"),
        victim("b", "node2", priority=5000, group="old"), pod_group("old", LOW, "all"),
        preemptor_pod("p-1"), preemptor_pod("p-2")], min_count=2)
    decision = schedule_pod_group(sched, NS, "preemptor-pg",
                                  groups.pod_groups[f"{NS}/preemptor-pg"],
                                  workload_preemption=evaluator)
    assert decision.result == "preempt" and len(decision.victims) == 2
    assert decision.pod_group_disruptions == 1


def test_the_node_pick_does_not_weigh_pod_group_disruptions():
    # pickOneNodeForPreemption reads PDB violations, priorities, counts and start times of
    # the victims: node-a (one plain victim) and node-b (one victim of a PodGroup) tie on
    # all of them, so the first name wins although node-b disrupts a PodGroup and node-a
    # none; with the names swapped the group's node wins.
    plain = Pod("default", "plain", priority=LOW, start_time=5.0)
    member = Pod("default", "member", priority=LOW, start_time=5.0,
                 raw={"spec": {"schedulingGroup": {"podGroupName": "pg"}}})
    assert pod_group_disruptions([VictimUnit(member.key, [member], LOW)]) == 1
    assert pod_group_disruptions([VictimUnit(plain.key, [plain], LOW)]) == 0
    rank = np.array([0, 1], np.int64)
    first = [Candidate("node-a", 0, [plain], 0), Candidate("node-b", 1, [member], 0)]
    assert pick_candidate(first, 10.0, rank)[0].node == "node-a"
    swapped = [Candidate("node-a", 0, [member], 0), Candidate("node-b", 1, [plain], 0)]
    assert pick_candidate(swapped, 10.0, rank)[0].node == "node-a"
