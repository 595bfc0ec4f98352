"""Queueing hints per profile: NodeAffinity's hint reads the profile's ``addedAffinity``.

Upstream keeps one queueing-hint map per profile (``QueueingHintMapPerProfile``), built
from each profile's plugin instances; NodeAffinity's ``isSchedulableAfterNodeChange``
returns QueueSkip for an added node that the plugin's ``addedNodeSelector`` rejects,
before it looks at the pod's own node affinity.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Node, Pod, parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent
from kubepreempt.scheduler.queue.hints import HINTS, hint_maps
from kubepreempt.scheduler.queue.priority_queue import PriorityQueue
from kubepreempt.scheduler.queue.scheduling_queue import UPSTREAM

_SOURCE = Source("hints", 0, 1)
_AFFINITY = frozenset({"NodeAffinity"})

CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "pool-a", "pluginConfig": [{"name": "NodeAffinity", "args": {
            "addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "pool", "operator": "In", "values": ["a"]}]}]}}}}]},
    ]}


def _pod(name: str, scheduler: str) -> Pod:
    return parse_pod({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": name, "namespace": "default"},
                      "spec": {"schedulerName": scheduler, "nodeSelector": {"disk": "ssd"},
                               "containers": [{"name": "c", "image": "pause"}]}},
                     _SOURCE, PriorityResolver([]).resolve)


def _node(name: str, labels: dict[str, str]) -> Node:
    return parse_node({"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": name, "labels": labels},
                       "status": {"allocatable": {"cpu": "4", "pods": "110"}}}, _SOURCE)


def _pool_after(node: Node, scheduler: str) -> str:
    """Where a pod of ``scheduler``'s profile, rejected by NodeAffinity, is after ``node``
    is added."""
    config = parse_scheduler_config(CONFIG, _SOURCE)
    pq = PriorityQueue(UPSTREAM, lambda ns: {}, hint_maps(config.profiles))
    pod = _pod("p", scheduler)
    pq.add(pod, 0.0)
    q = pq.pop(0.0)
    assert q is not None
    q.rejectors = _AFFINITY
    pq.requeue(q, 0.0, version=1)
    pq.attempt_done()
    assert q.where == "unschedulable"
    pq.on_event(ClusterEvent(NODE_ADD, node=node), 1.0)
    return q.where


def test_a_node_the_added_affinity_rejects_does_not_requeue_the_profiles_pod() -> None:
    """The node matches the pod's nodeSelector but not pool-a's addedAffinity: QueueSkip,
    the pod stays in the pool. The same node requeues a default-profile pod."""
    ssd_b = _node("b1", {"disk": "ssd", "pool": "b"})
    assert _pool_after(ssd_b, "pool-a") == "unschedulable"
    assert _pool_after(ssd_b, "default-scheduler") != "unschedulable"


def test_a_node_matching_both_requeues_and_the_pods_own_affinity_still_counts() -> None:
    """Queue only when the added node passes the added affinity and the pod's own terms."""
    assert _pool_after(_node("a1", {"disk": "ssd", "pool": "a"}), "pool-a") != "unschedulable"
    assert _pool_after(_node("a2", {"disk": "hdd", "pool": "a"}), "pool-a") == "unschedulable"


def test_only_profiles_with_added_affinity_get_their_own_map() -> None:
    maps = hint_maps(parse_scheduler_config(CONFIG, _SOURCE).profiles)
    assert set(maps) == {"pool-a"}
    assert maps["pool-a"].keys() == HINTS.keys()
