"""NodeName: a pod that names a node (``spec.nodeName``) fits only there."""

from __future__ import annotations

from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.snapshot import NodeView

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(FilterPlugin):
    """Filter: UnschedulableAndUnresolvable unless the node is ``spec.nodeName``."""

    name = "NodeName"
    # The verdict for a node depends only on that node (the scheduler's score cache).
    node_local = True

    def relevant(self, state: CycleState) -> bool:
        return bool(state.pod.node_name)

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        if not state.pod.node_name or state.pod.node_name == view.node.name:
            return None
        return unresolvable(self.name, ERR_REASON)
