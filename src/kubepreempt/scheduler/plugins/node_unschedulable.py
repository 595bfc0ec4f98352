"""NodeUnschedulable: cordoned nodes (``spec.unschedulable``) reject pods.

A pod that tolerates the ``node.kubernetes.io/unschedulable:NoSchedule`` taint also
tolerates ``spec.unschedulable``, as upstream.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import NO_SCHEDULE, Taint, tolerates_all
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.snapshot import NodeView

ERR_REASON = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE)


class NodeUnschedulable(FilterPlugin):
    """Filter: UnschedulableAndUnresolvable on cordoned nodes unless tolerated."""

    name = "NodeUnschedulable"
    # The verdict for a node depends only on that node (the scheduler's score cache).
    node_local = True

    def relevant(self, state: CycleState) -> bool:
        return not tolerates_all(state.pod.tolerations, _UNSCHEDULABLE_TAINT)

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        if view.node.unschedulable and self.relevant(state):
            return unresolvable(self.name, ERR_REASON)
        return None

    def filter_nodes(self, state: CycleState, nodes: np.ndarray):
        mask = state.cluster_cache("unschedulable", _unschedulable_mask)
        bad = nodes[mask[nodes]]
        return [(bad, unresolvable(self.name, ERR_REASON))] if bad.size else []


def _unschedulable_mask(cluster) -> np.ndarray:
    return np.fromiter((n.unschedulable for n in cluster.nodes), bool, len(cluster.nodes))
