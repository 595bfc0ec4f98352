"""The pod group cycle's results, rule by rule (``scheduler.gang.cycle``).

Expected answers from upstream ``pkg/scheduler/schedule_one_podgroup.go``:
``submitPodGroupAlgorithmResult`` (which status each pod fails with, the PodGroup
condition), ``podGroupCycle`` (workload-aware preemption when the algorithm was
Unschedulable: its success leaves the group status as it was and sets
``waitingOnPreemption``), and the ``-o json`` object ``docs/GANG.md`` documents.
"""

from __future__ import annotations

from builders import node, pod
from builders.gang import cluster_and_groups

from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.gang import (
    GROUP_UNSCHEDULABLE,
    MIN_COUNT_NOT_SCHEDULED,
    schedule_pod_group,
)
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

NS = "default"


def _member(name: str, cpu: str, selector: dict | None = None, priority: int = 100,
            node_name: str | None = None, scheduler: str | None = None, gated: bool = False,
            **extra):
    spec: dict = {"schedulingGroup": {"podGroupName": "pg"}}
    if gated:
        spec["schedulingGates"] = [{"name": "example.com/hold"}]
    if selector:
        spec["nodeSelector"] = selector
    if scheduler:
        spec["schedulerName"] = scheduler
    return pod(name, cpu, priority=priority, spec_extra=spec, node_name=node_name, **extra)


TWO_PROFILES = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler"},
                             {"schedulerName": "batch"}]}


def _group(min_count: int, priority: int = 100):
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": NS},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}},
                     "priority": priority}}


def _decide(objects, min_count: int, workload: bool = False, now: float | None = None,
            profiles: bool = False, preemption: bool = True, evaluate_at: float | None = None):
    cluster, groups = cluster_and_groups([*objects, _group(min_count)])
    if profiles:
        cluster.scheduler_config = parse_scheduler_config(TWO_PROFILES)
    sched = Scheduler(cluster)
    wp = WorkloadPreemption(groups.pod_groups) if workload else None
    evaluator = None if evaluate_at is None else Evaluator(sched, now=evaluate_at)
    return schedule_pod_group(sched, NS, "pg", groups.pod_groups[f"{NS}/pg"],
                              workload_preemption=wp, now=now, preemption=preemption,
                              evaluator=evaluator)


def test_workload_preemption_messages_and_unplaced_members() -> None:
    """minCount 2: m1 fits on a, m2 needs b (held by a lower-priority pod), m3 matches no
    node. The algorithm is Unschedulable (1 pod), the group preempts v and waits:
    m1, assumed in the algorithm, fails with the group status ("pod group is
    unschedulable"); m2 with its own FitError, nominated to b; m3, which the preemption
    could not place either, stays unschedulable with its own FitError."""
    objects = [node("a", cpu="2"), node("b", cpu="2"),
               pod("v", "2", node_name="b", priority=0),
               _member("m1", "2"), _member("m2", "2"), _member("m3", "2", {"disk": "none"})]
    d = _decide(objects, 2, workload=True)
    assert d.result == "preempt" and d.message == GROUP_UNSCHEDULABLE
    members = {m.pod.name: m for m in d.members}
    assert (members["m1"].result, members["m1"].node) == ("preempt", "a")
    assert members["m1"].message == GROUP_UNSCHEDULABLE
    assert (members["m2"].result, members["m2"].node) == ("preempt", "b")
    assert members["m2"].message == "0/2 nodes are available: 2 Insufficient cpu."
    assert (members["m3"].result, members["m3"].node) == ("unschedulable", None)
    assert members["m3"].message == (
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.")
    assert [v.key for v in d.victims] == ["default/v"]


def test_feasible_members_of_an_unschedulable_gang_fail_with_their_permit_message() -> None:
    """minCount 3, two pods fit, the third matches no node and nothing can be preempted:
    the two fail Unschedulable with ``errPodGroupUnschedulable`` and their Permit
    status' message."""
    objects = [node("a", cpu="4"), _member("m1", "1"), _member("m2", "1"),
               _member("m3", "1", {"disk": "none"})]
    d = _decide(objects, 3)
    assert d.result == "unschedulable"
    members = {m.pod.name: m for m in d.members}
    for name in ("m1", "m2"):
        assert members[name].result == "unschedulable"
        assert members[name].message == f"{GROUP_UNSCHEDULABLE}, {MIN_COUNT_NOT_SCHEDULED}"


def test_the_members_preemption_runs_at_the_cycle_time() -> None:
    """Without workload-aware preemption the member's own DefaultPreemption picks among
    candidates by the latest start of their highest-priority victims
    (``pickOneNodeForPreemption``), a victim without a start time counting as started
    at the cycle's time. At time 50 the victim on b (no start time) started before the
    one on a (started at 100), so a is picked; much later, b."""
    objects = [node("a", cpu="2"), node("b", cpu="2"),
               pod("va", "2", node_name="a", priority=0, start="1970-01-01T00:01:40Z"),
               pod("vb", "2", node_name="b", priority=0), _member("m1", "2")]
    early = _decide(objects, 1, now=50.0)
    assert early.result == "preempt" and early.placements == {"default/m1": "a"}
    late = _decide(objects, 1, now=1_000_000.0)
    assert late.placements == {"default/m1": "b"}


def test_json_of_a_scheduled_and_of_a_waiting_group() -> None:
    """``-o json`` as documented: the group's policy, minCount and priority, its
    condition (Scheduled, True, empty message: a nil status' Message()), and per member
    its pod, priority, result, node, message and victims. A gang short of minCount
    waits: no cycle ran, so the message is empty and there is no condition."""
    scheduled = _decide([node("a", cpu="4"), _member("m1", "1"), _member("m2", "1")], 2)
    assert scheduled.to_json() == {
        "podGroup": "default/pg", "policy": "gang", "minCount": 2, "priority": 100,
        "result": "scheduled", "placements": {"default/m1": "a", "default/m2": "a"},
        "victims": [], "message": "",
        "condition": {"type": "PodGroupInitiallyScheduled", "status": "True",
                      "reason": "Scheduled", "message": ""},
        "assigned": [],
        "members": [{"pod": f"default/{n}", "priority": 100, "result": "scheduled",
                     "node": "a", "message": "", "victims": []} for n in ("m1", "m2")]}
    waiting = _decide([node("a", cpu="4"), _member("m1", "1")], 2)
    data = waiting.to_json()
    assert data["result"] == "waiting" and data["message"] == ""
    assert data["condition"] is None and data["minCount"] == 2


def _timed_victims(scheduler: str | None = None):
    return [node("a", cpu="2"), node("b", cpu="2"),
            pod("va", "2", node_name="a", priority=0, start="1970-01-01T00:01:40Z"),
            pod("vb", "2", node_name="b", priority=0), _member("m1", "2", scheduler=scheduler)]


def test_the_callers_evaluator_decides_the_members_preemption() -> None:
    """The DefaultPreemption given by the caller (here evaluating at time 50) is the one
    every member's cycle runs: a is picked, as in the test above."""
    d = _decide(_timed_victims(), 1, evaluate_at=50.0)
    assert d.placements == {"default/m1": "a"}


def test_a_group_of_another_profile_preempts_at_the_cycle_time() -> None:
    """The pods name the second profile ("batch"): their cycles run its framework
    (``frameworkForPodGroup``), with the same DefaultPreemption rule and time."""
    early = _decide(_timed_victims("batch"), 1, now=50.0, profiles=True)
    assert early.result == "preempt" and early.placements == {"default/m1": "a"}
    late = _decide(_timed_victims("batch"), 1, now=1_000_000.0, profiles=True)
    assert late.placements == {"default/m1": "b"}


def test_no_workload_preemption_without_preemption() -> None:
    """With preemption off no PostFilter runs, the group's neither: the gang that needs
    the lower-priority pod's node stays unschedulable, with no victim."""
    objects = [node("a", cpu="2"), pod("v", "2", node_name="a", priority=0),
               _member("m1", "2")]
    d = _decide(objects, 1, workload=True, preemption=False)
    assert d.result == "unschedulable" and d.victims == [] and d.placements == {}


def test_members_that_never_enter_the_cycle() -> None:
    """A gated pod is held by SchedulingGates' PreEnqueue, a terminating one is skipped
    (``skipPodSchedule``: "skip schedule deleting pod"), one naming no profile is never
    queued. With nothing queued the group stands on its assigned pods: two bound of
    minCount 2 is scheduled (the JSON lists them), of minCount 3 it waits."""
    objects = [node("a", cpu="8"), _member("b1", "1", node_name="a"),
               _member("b2", "1", node_name="a"),
               _member("gated", "1", gated=True),
               _member("gone", "1", meta_extra={"deletionTimestamp": "2026-01-01T00:00:00Z"}),
               _member("other", "1", scheduler="elsewhere")]
    d = _decide(objects, 2)
    data = d.to_json()
    assert data["result"] == "scheduled" and data["podGroup"] == "default/pg"
    assert data["assigned"] == ["default/b1", "default/b2"]
    assert data["policy"] == "gang" and data["minCount"] == 2
    by_pod = {m["pod"]: (m["result"], m["message"]) for m in data["members"]}
    assert by_pod == {
        "default/gated": ("unschedulable",
                          "Scheduling is blocked due to non-empty scheduling gates"),
        "default/gone": ("skipped", "skip schedule deleting pod: default/gone"),
        "default/other": ("ignored", 'no scheduler profile serves schedulerName '
                                     '"elsewhere"; kube-scheduler does not queue this pod')}
    assert _decide(objects, 3).result == "waiting"


def test_pods_of_one_group_naming_two_profiles_are_a_scheduler_error() -> None:
    """``frameworkForPodGroup``: "all pods in a single pod group should have the same
    .spec.schedulerName set, got: %q and %q" (the differing name, then the first);
    every queued pod fails with it, and the condition reason is SchedulerError."""
    objects = [node("a", cpu="8"), _member("m1", "1", priority=200),
               _member("m2", "1", scheduler="batch")]
    d = _decide(objects, 1, profiles=True)
    message = ('all pods in a single pod group should have the same .spec.schedulerName '
               'set, got: "batch" and "default-scheduler"')
    data = d.to_json()
    assert data["result"] == "error" and data["message"] == message
    assert data["podGroup"] == "default/pg" and data["policy"] == "gang"
    assert data["assigned"] == []
    assert data["condition"] == {"type": "PodGroupInitiallyScheduled", "status": "False",
                                 "reason": "SchedulerError", "message": message}
    assert [(m["pod"], m["result"], m["message"]) for m in data["members"]] == [
        ("default/m1", "unschedulable", message), ("default/m2", "unschedulable", message)]


def test_unschedulable_plugins_of_a_group_waiting_on_preemption() -> None:
    """Without workload-aware preemption: p1 fits, p2 preempts. p2 keeps its own cycle's
    ``Diagnosis.UnschedulablePlugins`` (NodeResourcesFit rejected it); p1, whose filters
    all passed, has none."""
    objects = [node("a", cpu="2"), node("b", cpu="2"), pod("v", "2", node_name="b", priority=0),
               _member("p1", "2", priority=200), _member("p2", "2")]
    d = _decide(objects, 2)
    assert d.result == "preempt"
    members = {m.pod.name: m for m in d.members}
    assert members["p1"].unschedulable_plugins == frozenset()
    assert members["p2"].unschedulable_plugins == frozenset({"NodeResourcesFit"})
