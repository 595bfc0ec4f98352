"""Queueing hints as upstream's unit tests state them (isPodWorthRequeuing and the
plugins' isSchedulableAfter... functions, via each plugin's events_to_register)."""

from __future__ import annotations

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.queue.events import (
    GATES_REMOVED,
    NODE_ADD,
    POD_DELETE,
    TIMEOUT,
    ClusterEvent,
)
from kubepreempt.scheduler.queue.hints import worth_requeuing


def _ns(_: str) -> dict[str, str]:
    return {}


def _port(port: int) -> tuple[str, str, int]:
    return ("0.0.0.0", "TCP", port)


def test_no_rejecting_plugin_or_the_timeout_always_requeues() -> None:
    pod = Pod(name="p", namespace="default")
    ev = ClusterEvent(NODE_ADD, node=Node(name="n"))
    assert worth_requeuing(pod, frozenset(), ev, _ns)
    assert worth_requeuing(pod, frozenset({"NodeName"}), ClusterEvent(TIMEOUT), _ns)
    # NodeName registers no event the simulator produces: Skip.
    assert not worth_requeuing(pod, frozenset({"NodeName"}), ev, _ns)


def test_node_ports_queue_only_when_the_deleted_pod_released_a_wanted_port() -> None:
    # Test_isSchedulableAfterPodDeleted (nodeports): non-hostport / unrelated port skip,
    # the released port queues.
    pod = Pod(name="p", namespace="default", host_ports=(_port(8080),))
    rejected = frozenset({"NodePorts"})

    def deleted(*ports: int) -> ClusterEvent:
        other = Pod(name="o", namespace="default", host_ports=tuple(map(_port, ports)))
        return ClusterEvent(POD_DELETE, pod=other)

    assert not worth_requeuing(pod, rejected, deleted(), _ns)
    assert not worth_requeuing(pod, rejected, deleted(8081), _ns)
    assert worth_requeuing(pod, rejected, deleted(8080), _ns)
    # A node add has no hint function for NodePorts: it always queues.
    assert worth_requeuing(pod, rejected, ClusterEvent(NODE_ADD, node=Node(name="n")), _ns)


def test_fit_queues_on_a_new_node_the_pod_fits_and_on_any_assigned_pod_deletion() -> None:
    pod = Pod(name="p", namespace="default", requests={"cpu": 2000})
    rejected = frozenset({"NodeResourcesFit"})

    def added(**alloc: int) -> ClusterEvent:
        return ClusterEvent(NODE_ADD, node=Node(name="n", allocatable=alloc))

    assert worth_requeuing(pod, rejected, added(cpu=2000, pods=110), _ns)
    assert not worth_requeuing(pod, rejected, added(cpu=1000, pods=110), _ns)
    assert not worth_requeuing(pod, rejected, added(cpu=4000, pods=0), _ns)
    other = Pod(name="o", namespace="default")
    assert worth_requeuing(pod, rejected, ClusterEvent(POD_DELETE, pod=other), _ns)


def test_scheduling_gates_queue_on_the_pods_own_ungating_only() -> None:
    pod = Pod(name="p", namespace="default")
    other = Pod(name="o", namespace="default")
    rejected = frozenset({"SchedulingGates"})
    assert worth_requeuing(pod, rejected, ClusterEvent(GATES_REMOVED, pod=pod), _ns)
    assert not worth_requeuing(pod, rejected, ClusterEvent(GATES_REMOVED, pod=other), _ns)


def test_default_preemption_alone_never_requeues_on_a_deletion() -> None:
    pod = Pod(name="p", namespace="default")
    other = Pod(name="o", namespace="default")
    assert not worth_requeuing(pod, frozenset({"DefaultPreemption"}),
                               ClusterEvent(POD_DELETE, pod=other), _ns)
