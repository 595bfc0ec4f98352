"""Workload-aware preemption (``scheduler.gang.preemption``), rule by rule.

Expected answers from upstream ``pkg/scheduler/framework/preemption/podgrouppreemption.go``:
the preemptor's eligibility (its policy; a terminating pod on a nominated node that the
scheduler preempted, of lower priority, makes it wait, as DefaultPreemption's
``PodEligibleToPreemptOthers``), ``selectVictimsOnDomain`` (1.36's alpha reprieves a unit
only when the group still schedules with no fewer pods placed; 1.37 reprieves in place and
removes a unit it gave up from every proposed pod's state again), and ``podGroupCycle``
(a failed preemption's status message is appended to the group's).
"""

from __future__ import annotations

from typing import Any

from builders import node, pod
from builders.gang import cluster_and_groups
from builders.workload_preemption import (
    HIGH,
    LOW,
    NS,
    names,
    pod_group,
    preemptor_pod,
    select,
    setup,
    victim,
)

from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.gang import GROUP_UNSCHEDULABLE, schedule_pod_group
from kubepreempt.scheduler.gang.cycle import group_algorithm
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.gang.preemption import (
    NOT_ELIGIBLE_NEVER,
    NOT_ELIGIBLE_TERMINATING,
    WorkloadPreemption,
)
from kubepreempt.scheduler.scheduler import Scheduler

PREEMPTED = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


def _nominated(name: str, node_name: str) -> dict[str, Any]:
    manifest = preemptor_pod(name)
    manifest["status"]["nominatedNodeName"] = node_name
    return manifest


def _terminating(name: str, node_name: str, priority: int, preempted: bool = True):
    manifest = victim(name, node_name, priority)
    manifest["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if preempted:
        manifest["status"]["conditions"] = PREEMPTED
    return manifest


def _eligibility(objects, policy: bool = False, group_policy: str | None = None) -> str:
    cluster, sched, evaluator, groups = setup(objects)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    if group_policy is not None:
        group.preemption_policy = group_policy
    wp = WorkloadPreemption(groups.pod_groups, pod_group_preemption_policy=policy)
    members = members_of(cluster, NS, "preemptor-pg")
    outcome = wp.preempt(sched, group, members, members.unscheduled, lambda: group_algorithm(
        sched, group, 0, members.unscheduled, False, None, post_filters=False))
    return "" if outcome.ok else outcome.message


def test_pod_group_preemption_policy_never_is_not_eligible() -> None:
    """With PodGroupPreemptionPolicy on, the PodGroup's own policy decides: Never."""
    objects = [node("n1", cpu="1"), victim("v", "n1"), preemptor_pod("p")]
    assert _eligibility(objects, policy=True, group_policy="Never") == NOT_ELIGIBLE_NEVER


def test_a_preempted_terminating_lower_priority_pod_on_a_nominated_node_waits() -> None:
    """A member nominated to n1, where a lower-priority pod preempted by the scheduler is
    terminating: not eligible. A nominated node that no longer exists is passed over;
    other nominated nodes are still checked."""
    ghosts = [_nominated(f"p{i}", f"ghost{i}") for i in range(12)]
    objects = [node("n1", cpu="2"), _terminating("t", "n1", LOW), *ghosts,
               _nominated("q", "n1")]
    assert _eligibility(objects) == NOT_ELIGIBLE_TERMINATING


def test_only_a_terminating_preempted_strictly_lower_pod_blocks() -> None:
    """Not terminating, not preempted by the scheduler, or of the preemptor's own
    priority: no wait."""
    for other in (victim("t", "n1", LOW),
                  _terminating("t", "n1", LOW, preempted=False),
                  _terminating("t", "n1", HIGH)):
        objects = [node("n1", cpu="2"), other, _nominated("q", "n1")]
        assert _eligibility(objects) != NOT_ELIGIBLE_TERMINATING, other


def test_group_still_unschedulable_with_every_lower_unit_gone() -> None:
    """Removing every lower-priority unit does not make room (the pod asks 8 CPUs): the
    preemption fails Unschedulable, and its message is appended to the group status'."""
    objects = [node("n1", cpu="2"), victim("v", "n1"), preemptor_pod("p", cpu="8")]
    cluster, sched, wp, groups = setup(objects)
    d = schedule_pod_group(sched, NS, "preemptor-pg", groups.pod_groups[f"{NS}/preemptor-pg"],
                           workload_preemption=wp)
    assert d.result == "unschedulable" and d.victims == []
    assert d.message == f"{GROUP_UNSCHEDULABLE}, {GROUP_UNSCHEDULABLE}"


def test_alpha_gives_up_a_unit_whose_return_places_fewer_pods() -> None:
    """1.36's alpha, minCount 1, two 1-CPU pods: with both victims gone both pods place.
    Put back, v1 leaves room for one pod only: the group still schedules but places fewer,
    so v1 goes; likewise v2."""
    objects = [node("n1", cpu="1"), node("n2", cpu="1"), victim("v1", "n1", start=1),
               victim("v2", "n2", start=2), preemptor_pod("p1"), preemptor_pod("p2")]
    outcome = select(objects, min_count=1)
    assert outcome.ok and sorted(names(outcome)) == ["v1", "v2"]


def test_a_unit_given_up_leaves_the_proposed_pods_state() -> None:
    """In place (1.37): p is proposed on n2 and refuses pods labelled x on its node
    (required anti-affinity). Unit u1 (x, on n2, more important) cannot come back and is
    removed from p's state again; u2 (unlabelled, on n2) then fits beside p and stays."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}},
         "topologyKey": "kubernetes.io/hostname"}]}}
    preemptor = preemptor_pod("p")
    preemptor["spec"]["affinity"] = anti
    objects = [node("n1", cpu="1"), node("n2", cpu="4"),
               pod("busy", "1", node_name="n1", priority=HIGH),
               victim("u1", "n2", priority=LOW + 1, labels={"app": "x"}),
               victim("u2", "n2", priority=LOW, cpu="1"), preemptor]
    outcome = select(objects, in_place=True)
    assert outcome.ok and names(outcome) == ["u1"]
    assert outcome.placements == {f"{NS}/p": "n2"}


def test_the_proposal_replays_each_pod_with_its_own_profiles_filters() -> None:
    """The pods name the "batch" profile, which runs no TaintToleration filter: p fits on
    the tainted n1 once both victims are gone, and the in-place reprieval replays p with
    batch's filters (``ProposedAssignment.GetCycleState`` of its own framework): v1 comes
    back beside it, v2 no longer fits."""
    preemptor = preemptor_pod("p")
    preemptor["spec"]["schedulerName"] = "batch"
    objects = [node("n1", cpu="2", taints=[{"key": "k", "effect": "NoSchedule"}]),
               victim("v1", "n1", start=1), victim("v2", "n1", start=2), preemptor,
               pod_group("preemptor-pg", HIGH)]
    cluster, groups = cluster_and_groups(objects)
    cluster.scheduler_config = parse_scheduler_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"},
                     {"schedulerName": "batch", "plugins": {"filter": {"disabled": [
                         {"name": "TaintToleration"}]}}}]})
    sched = Scheduler(cluster)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    members = members_of(cluster, NS, "preemptor-pg")
    outcome = WorkloadPreemption(groups.pod_groups).preempt(
        sched, group, members, members.unscheduled, lambda: group_algorithm(
            sched, group, 0, members.unscheduled, False, None, post_filters=False))
    assert outcome.ok and names(outcome) == ["v2"]
    assert outcome.placements == {f"{NS}/p": "n1"}
