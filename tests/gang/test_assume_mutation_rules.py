"""The group cycle's pod order and its in-memory assumptions, rule by rule.

Expected answers from upstream ``pkg/scheduler/schedule_one_podgroup.go``:
``podGroupInfoForPod`` sorts the group's pods by priority, then by
``InitialAttemptTimestamp`` dereferenced to the zero time when unset (so a pod without one
sorts first); ``podGroupPodSchedulingAlgorithm`` assumes each feasible pod
(``assumeAndReserve`` -> ``Scheduler.assume``, which also drops the pod's nomination:
``SchedulingQueue.DeleteNominatedPodIfExists``) with its victims removed in memory, and
``unreserveAndForget`` undoes it all when the algorithm ends.
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.scheduler.gang.assume import Assumptions, _slot_copier
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.scheduler import Scheduler

NS = "team"


def _member(name: str, created: str | None = None):
    meta = {"creationTimestamp": created} if created else None
    return pod(name, "1", ns=NS, priority=10, meta_extra=meta,
               spec_extra={"schedulingGroup": {"podGroupName": "pg"}})


def test_a_pod_without_a_timestamp_sorts_before_timed_ones_of_equal_priority() -> None:
    """``ptr.Deref(InitialAttemptTimestamp, time.Time{})``: the zero time is before any
    set time, so the pod without one comes first although it is listed last."""
    cluster = cluster_of(node("n1"), _member("timed", "2026-01-01T00:00:00Z"),
                         _member("untimed"))
    members = members_of(cluster, NS, "pg")
    assert [p.name for p in members.unscheduled] == ["untimed", "timed"]


def _cluster():
    return cluster_of(node("a", cpu="4"), node("b", cpu="4"),
                      pod("v1", "1", ns=NS, node_name="a"), pod("v2", "1", ns=NS, node_name="b"),
                      pod("p1", "1", ns=NS), pod("p2", "1", ns=NS))


def test_victims_already_removed_are_skipped_not_the_end_of_the_list() -> None:
    """A victim removed for an earlier pod of the group is skipped; the victims after it
    are still removed. ``revert`` puts every victim back on its node."""
    cluster = _cluster()
    sched = Scheduler(cluster)
    v1, v2 = cluster.find_pod(f"{NS}/v1"), cluster.find_pod(f"{NS}/v2")
    p1, p2 = cluster.pending[f"{NS}/p1"], cluster.pending[f"{NS}/p2"]
    assumptions = Assumptions(sched)
    assumptions.assume(p1, "a", [v1])
    assumptions.assume(p2, "b", [v1, v2])
    assert cluster.find_pod(v1.key) is None and cluster.find_pod(v2.key) is None
    assumptions.revert()
    assert cluster.find_pod(v1.key) is v1 and v1.node_name == "a"
    assert cluster.find_pod(v2.key) is v2 and v2.node_name == "b"
    assert list(cluster.pending) == [f"{NS}/p1", f"{NS}/p2"]


def test_an_assumed_pod_loses_its_nomination_until_forgotten() -> None:
    """``assume`` drops the pod's nomination (the assumed copy stands for it); forgetting
    it nominates the pod to the same node again."""
    cluster = _cluster()
    sched = Scheduler(cluster)
    p1 = cluster.pending[f"{NS}/p1"]
    sched.nominator.add(p1, "a")
    assumptions = Assumptions(sched)
    assumptions.assume(p1, "a")
    assert sched.nominator.on_node("a") == []
    assumptions.revert()
    assert sched.nominator.on_node("a") == [p1]
    assert p1.nominated_node_name == "a"


def test_assumptions_can_be_reused_after_a_revert() -> None:
    """A second round of assumptions on the same object is undone as exactly as the
    first: every pending pod is back, in its order."""
    cluster = _cluster()
    sched = Scheduler(cluster)
    p1, p2 = cluster.pending[f"{NS}/p1"], cluster.pending[f"{NS}/p2"]
    assumptions = Assumptions(sched)
    assumptions.assume(p1, "a")
    assumptions.revert()
    assumptions.assume(p2, "b")
    assumptions.revert()
    assert list(cluster.pending) == [f"{NS}/p1", f"{NS}/p2"]
    assert all(p.node_name == "" for p in (p1, p2))


def test_the_slot_copier_copies_every_slot() -> None:
    """The copier built from ``Pod.__slots__`` behaves as ``copy.copy``: a new pod whose
    every slot is the original's value."""
    cluster = _cluster()
    original = cluster.pending[f"{NS}/p1"]
    placed = _slot_copier()(original)
    assert placed is not original and type(placed) is type(original)
    assert all(getattr(placed, name) is getattr(original, name)
               for name in type(original).__slots__)
