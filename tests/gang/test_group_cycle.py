"""The pod group scheduling cycle on real clusters.

Each case is one row of upstream's ``TestPodGroupSchedulingDefaultAlgorithm`` /
``TestSubmitPodGroupAlgorithmResult`` (``pkg/scheduler/schedule_one_podgroup_test.go``) or
of the GangScheduling plugin's PreEnqueue / Permit tables (``gangscheduling_test.go``),
rebuilt with nodes and pods whose filters give the statuses the fake plugin returned
there. Expected results follow ``podGroupSchedulingDefaultAlgorithm`` (a pod rejected by
its own cycle is skipped; Permit allows the group once assigned + assumed pods reach
minCount; any preemption makes the whole group wait for it) and
``submitPodGroupAlgorithmResult`` (which pods are bound, nominated or failed, and with
which status message).
"""

from __future__ import annotations

from typing import Any

from builders import cluster_of, node, pod, priority_class

from kubepreempt.api.errors import Source
from kubepreempt.api.podgroup import parse_pod_group
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.scheduler.gang import (
    GROUP_UNSCHEDULABLE,
    GROUP_WAITING_FOR_PREEMPTION,
    MIN_COUNT_NOT_QUEUED,
    MIN_COUNT_NOT_SCHEDULED,
    WAITING,
    schedule_pod_group,
)
from kubepreempt.scheduler.scheduler import Scheduler

NS = "team"


def member(name: str, cpu: str, *, priority: int | None = None, group: str = "pg",
           node_name: str | None = None, created: str | None = None) -> dict[str, Any]:
    """A pod of PodGroup ``group``."""
    meta = {"creationTimestamp": created} if created else None
    return pod(name, cpu, ns=NS, priority=priority, node_name=node_name, meta_extra=meta,
               spec_extra={"schedulingGroup": {"podGroupName": group}})


def pod_group(min_count: int | None = None, name: str = "pg", **spec: Any) -> dict[str, Any]:
    """A v1beta1 PodGroup: gang with ``min_count``, else basic."""
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"schedulingPolicy": policy, **spec}}


def decide(objects: list[dict[str, Any]], group: dict[str, Any] | None,
           name: str = "pg", preemption: bool = True):
    cluster = cluster_of(*objects)
    parsed = None if group is None else parse_pod_group(group, Source("pg.yaml"),
                                                        cluster.priority)
    return cluster, schedule_pod_group(Scheduler(cluster), NS, name, parsed,
                                       preemption=preemption)


def by_pod(decision) -> dict[str, Any]:
    return {m.pod.name: m for m in decision.members}


def test_all_pods_feasible_are_bound():
    # "All pods feasible": every Permit allows, the group is feasible, all bound.
    cluster, d = decide([node("n1", cpu="4"), member("p1", "1"), member("p2", "1"),
                         member("p3", "1")], pod_group(3))
    assert d.result == "scheduled" and d.message == ""
    assert d.placements == {f"{NS}/p1": "n1", f"{NS}/p2": "n1", f"{NS}/p3": "n1"}
    assert d.condition == {"type": "PodGroupInitiallyScheduled", "status": "True",
                           "reason": "Scheduled", "message": ""}
    # Nothing was bound for real: the assumptions are undone.
    assert set(cluster.pending) == {f"{NS}/p1", f"{NS}/p2", f"{NS}/p3"}
    assert int(cluster.requested[0, 0]) == 0


def test_two_waiting_then_third_allows_the_group():
    # "All pods feasible, two waiting": minCount 3 makes p1 and p2 Wait at Permit; p3's
    # Permit succeeds, so the group is feasible and all three are bound.
    _, d = decide([node("n1", cpu="4"), member("p1", "1"), member("p2", "1"),
                   member("p3", "1"), member("p4", "1")], pod_group(3))
    assert d.result == "scheduled"
    assert len(d.placements) == 4


def test_all_waiting_is_unschedulable_with_the_permit_message():
    # "All pods feasible, but all waiting": Permit never succeeds (minCount 3, two pods
    # fit, the third is rejected): group Unschedulable; the feasible pods fail with their
    # Permit message behind errPodGroupUnschedulable, the rejected one with its FitError.
    _, d = decide([node("n1", cpu="2"), member("p1", "1"), member("p2", "1"),
                   member("p3", "1")], pod_group(3), preemption=False)
    assert d.result == "unschedulable"
    assert d.message == GROUP_UNSCHEDULABLE == "pod group is unschedulable"
    assert d.condition["reason"] == "Unschedulable" and d.condition["status"] == "False"
    pods = by_pod(d)
    waiting = f"{GROUP_UNSCHEDULABLE}, {MIN_COUNT_NOT_SCHEDULED}"
    assert waiting == ("pod group is unschedulable, waiting for minCount pods from a gang to "
                       "be scheduled")
    assert pods["p1"].message == pods["p2"].message == waiting
    # The single-pod FitError, PostFilter reasons included (DynamicResources' here).
    assert pods["p3"].message == ("0/1 nodes are available: 1 Insufficient cpu. no new "
                                  "claims to deallocate")
    assert d.placements == {} and d.victims == []


def test_one_waiting_one_unschedulable_one_allowed():
    # "All pods feasible, one waiting, one unschedulable": p2 is rejected; p1 waits, p3's
    # Permit reaches minCount 2: p1 and p3 bound, p2 fails with its own status.
    _, d = decide([node("n1", cpu="2"), member("p1", "1"), member("p2", "8"),
                   member("p3", "1")], pod_group(2))
    assert d.result == "scheduled"
    assert d.placements == {f"{NS}/p1": "n1", f"{NS}/p3": "n1"}
    pods = by_pod(d)
    assert pods["p2"].result == "unschedulable"
    assert pods["p2"].message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_all_pods_require_preemption():
    # "All pods require preemption": each pod is nominated after its PostFilter and
    # assumed there with its victims gone; Permit allows, so the group waits for the
    # preemption: every pod fails with the group status and keeps its nomination.
    low = [pod(f"low{i}", "1", ns="other", node_name="n1", priority=0) for i in range(3)]
    _, d = decide([node("n1", cpu="3"), *low, member("p1", "1", priority=100),
                   member("p2", "1", priority=100), member("p3", "1", priority=100)],
                  pod_group(3))
    assert d.result == "preempt"
    assert d.message == f"{GROUP_UNSCHEDULABLE}, {GROUP_WAITING_FOR_PREEMPTION}"
    assert d.placements == {f"{NS}/p1": "n1", f"{NS}/p2": "n1", f"{NS}/p3": "n1"}
    assert sorted(v.key for v in d.victims) == ["other/low0", "other/low1", "other/low2"]
    assert {m.message for m in d.members} == {
        "pod group is unschedulable, pod group is waiting for preemption to complete"}


def test_one_preempting_two_feasible_makes_the_group_wait():
    # "One pod requires preemption, but waiting, two are feasible": p1 (highest priority,
    # first) needs preemption; p2 and p3 fit after it; requiresPreemption carries to the
    # Permit success, so the group waits on preemption and all three are nominated.
    _, d = decide([node("n1", cpu="4"), pod("low", "3", ns="other", node_name="n1"),
                   member("p1", "2", priority=100), member("p2", "1", priority=50),
                   member("p3", "1", priority=50)], pod_group(3))
    assert d.result == "preempt"
    assert [v.key for v in d.victims] == ["other/low"]
    pods = by_pod(d)
    assert pods["p1"].victims and not pods["p2"].victims
    assert {m.result for m in d.members} == {"preempt"}


def test_preemption_not_enough_for_the_gang_is_dropped():
    # A pod that required preemption in a group Permit never allowed: the preemption
    # message is no longer relevant; it fails with its Permit status.
    _, d = decide([node("n1", cpu="1"), pod("low", "1", ns="other", node_name="n1"),
                   member("p1", "1", priority=100), member("p2", "4", priority=100)],
                  pod_group(2))
    assert d.result == "unschedulable"
    pods = by_pod(d)
    assert pods["p1"].message == f"{GROUP_UNSCHEDULABLE}, {MIN_COUNT_NOT_SCHEDULED}"
    assert d.victims == [] and d.placements == {}


def test_all_pods_unschedulable():
    # "All pods unschedulable": every pod is rejected; the group is Unschedulable and each
    # pod keeps its own FitError.
    _, d = decide([node("n1", cpu="1"), member("p1", "2"), member("p2", "2")],
                  pod_group(2))
    assert d.result == "unschedulable" and d.message == "pod group is unschedulable"
    assert all(m.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
               for m in d.members)


def test_pre_enqueue_waits_for_min_count_pods():
    # gangscheduling PreEnqueue: fewer pods than minCount -> UnschedulableAndUnresolvable
    # "waiting for minCount pods from a gang to appear in scheduling queue"; no cycle runs.
    _, d = decide([node("n1", cpu="8"), member("p1", "1"), member("p2", "1")], pod_group(3))
    assert d.result == WAITING and d.condition is None
    assert {m.message for m in d.members} == {MIN_COUNT_NOT_QUEUED}
    assert MIN_COUNT_NOT_QUEUED == ("waiting for minCount pods from a gang to appear in "
                                    "scheduling queue")


def test_pre_enqueue_waits_for_the_pod_group():
    # PreEnqueue with no PodGroup object: the pods wait for it to appear.
    _, d = decide([node("n1"), member("p1", "1")], None)
    assert d.result == WAITING
    assert d.members[0].message == ('waiting for pods\'s pod group "pg" to appear in '
                                    "scheduling queue")


def test_assigned_pods_count_towards_min_count():
    # Permit counts ScheduledPodsCount (assigned + assumed): one bound member and two
    # pending ones reach minCount 3.
    _, d = decide([node("n1", cpu="4"), member("p0", "1", node_name="n1"),
                   member("p1", "1"), member("p2", "1")], pod_group(3))
    assert d.result == "scheduled"
    assert d.placements == {f"{NS}/p1": "n1", f"{NS}/p2": "n1"}
    assert [p.key for p in d.assigned] == [f"{NS}/p0"]


def test_basic_group_needs_no_quorum():
    # Basic policy: the GangScheduling Permit allows at once.
    _, d = decide([node("n1", cpu="1"), member("p1", "1"), member("p2", "1")], pod_group())
    assert d.result == "scheduled"
    assert d.placements == {f"{NS}/p1": "n1"}
    assert by_pod(d)["p2"].message.startswith("0/1 nodes are available")


def test_members_in_priority_order_then_creation():
    # podGroupInfoForPod sorts by priority, then by the first attempt: the high-priority
    # pod takes the only slot, the older of the two others is tried first.
    _, d = decide([node("n1", cpu="1"),
                   member("a", "1", priority=1, created="2026-01-01T00:00:02Z"),
                   member("b", "1", priority=1, created="2026-01-01T00:00:01Z"),
                   member("c", "1", priority=9)], pod_group())
    assert [m.pod.name for m in d.members] == ["c", "b", "a"]
    assert d.placements == {f"{NS}/c": "n1"}


def test_pod_group_priority_from_global_default():
    # A PodGroup without priorityClassName takes the globalDefault class, as a pod does.
    cluster = cluster_of(priority_class("standard", 500, global_default=True),
                         priority_class("high", 900))
    group = parse_pod_group(pod_group(2), Source("pg.yaml"), cluster.priority)
    assert group.priority == 500
    group = parse_pod_group(pod_group(2, priorityClassName="high"), Source("pg.yaml"),
                            cluster.priority)
    assert group.priority == 900 and group.priority_class_name == "high"
    assert parse_pod_group(pod_group(2), Source("pg.yaml"), PriorityResolver()).priority == 0


def test_other_scheduler_names_are_an_error():
    # frameworkForPodGroup: every queued pod of a group must name the same profile.
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1",
              "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": "default-scheduler"},
                           {"schedulerName": "batch"}]}
    objects = [config, node("n1"), member("p1", "1"), member("p2", "1")]
    objects[3]["spec"]["schedulerName"] = "batch"
    _, d = decide(objects, pod_group(2))
    assert d.result == "error"
    assert d.condition["reason"] == "SchedulerError"
    assert d.message == ('all pods in a single pod group should have the same '
                         '.spec.schedulerName set, got: "batch" and "default-scheduler"')


def test_pods_of_unserved_scheduler_names_are_never_queued():
    # responsibleForPod: a pod naming no profile never enters the queue, so it takes no
    # part in the cycle (and cannot count towards Permit).
    objects = [node("n1"), member("p1", "1"), member("p2", "1")]
    objects[2]["spec"]["schedulerName"] = "other"
    _, d = decide(objects, pod_group(2))
    assert d.result == "unschedulable"
    pods = by_pod(d)
    assert pods["p2"].result == "ignored"
    assert pods["p1"].message == f"{GROUP_UNSCHEDULABLE}, {MIN_COUNT_NOT_SCHEDULED}"


def test_release_switch_sets_the_group_gates() -> None:
    """1.37 folds gang scheduling and workload-aware preemption into GenericWorkload
    (kubernetes/kubernetes#139520): asking for a PodGroup turns it on unless the flag says
    otherwise; 1.36's alpha Workload API is refused, not modelled."""
    import pytest as _pytest

    from kubepreempt.api.errors import InputError
    from kubepreempt.commands.schedule_group import gates_for
    from kubepreempt.release import modelled

    assert gates_for(modelled("1.37")) == {
        "GenericWorkload": True, "WorkloadAwarePreemption": True,
        "PodGroupPreemptionPolicy": False}
    off = gates_for(modelled("1.37", {"GenericWorkload": False}, warn=False))
    assert off["GenericWorkload"] is False and off["WorkloadAwarePreemption"] is False
    with _pytest.raises(InputError, match="1.36's alpha API is not modelled"):
        gates_for(modelled("1.36"))
