"""NodePorts: a pod's host ports must be free on the node.

Conflict rule as upstream: same protocol and port, and host IPs equal or either is
0.0.0.0. The reason "node(s) didn't have free ports for the requested pod ports" is
Unschedulable (removing the pod holding the port would help).
"""

from __future__ import annotations

from kubepreempt.cluster import NodeView
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unschedulable

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_ANY = "0.0.0.0"


def _conflict(a: tuple[str, str, int], b: tuple[str, str, int]) -> bool:
    return a[1] == b[1] and a[2] == b[2] and (a[0] == b[0] or _ANY in (a[0], b[0]))


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
            for used in other.host_ports:
                if any(_conflict(w, used) for w in wanted):
                    return unschedulable(self.name, ERR_REASON)
        return None
