"""NodePorts: a pod's host ports must be free on the node.

The pod's host ports and the conflict rule are the helpers of :mod:`kubepreempt.api.ports`
that kubelet admission shares (upstream ``GetHostPorts`` / ``CheckConflict``: regular
init containers hold no port). The reason "node(s) didn't have free ports for the
requested pod ports" is Unschedulable (removing the pod holding the port would help).
"""

from __future__ import annotations

from kubepreempt.api.ports import ports_conflict
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unschedulable
from kubepreempt.snapshot import NodeView

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(FilterPlugin):
    """Filter on host-port conflicts with pods already on the node."""

    name = "NodePorts"
    # The verdict depends only on the pods of that node (the scheduler's score cache).
    node_local = True

    def relevant(self, state: CycleState) -> bool:
        return bool(state.pod.host_ports)

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        wanted = state.pod.host_ports
        for other in view.pods:
            if other.host_ports and ports_conflict(wanted, other.host_ports):
                return unschedulable(self.name, ERR_REASON)
        return None


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.api.objects import Pod  # noqa: E402
from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    POD_DELETE,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)


def is_schedulable_after_pod_deleted(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterPodDeleted``: Queue if the deleted pod held a port the pod
    wants."""
    assert ev.pod is not None
    return bool(ev.pod.host_ports) and ports_conflict(pod.host_ports, ev.pod.host_ports)


def _always(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """No hint function: the event always queues."""
    return True


def events_to_register() -> dict[str, QueueingHint]:
    """NodePorts' ``EventsToRegister``: Pod Delete with its hint; Node Add / Update has no
    hint function, so it always queues."""
    return {POD_DELETE: is_schedulable_after_pod_deleted, NODE_ADD: _always}
