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
    # ... and on nothing bound there: binding or removing a pod never changes it.
    node_static = True

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

    def passes_node(self, state: CycleState, index: int) -> bool:
        """Whether ``filter_nodes`` would pass node ``index`` alone."""
        return not state.cluster_cache("unschedulable", _unschedulable_mask)[index]


def _unschedulable_mask(cluster) -> np.ndarray:
    return np.fromiter((n.unschedulable for n in cluster.nodes), bool, len(cluster.nodes))


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.api.objects import Pod  # noqa: E402
from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)

_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE)


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange``: Queue only if the added node is schedulable.

    Upstream does not look at the pod's tolerations here: a pod that tolerates the
    unschedulable taint is never rejected by this plugin (a toleration added later is
    the UpdatePodToleration event, which the simulator does not produce).
    """
    assert ev.node is not None
    return not ev.node.unschedulable


def events_to_register() -> dict[str, QueueingHint]:
    """NodeUnschedulable's ``EventsToRegister``: Node Add."""
    return {NODE_ADD: is_schedulable_after_node_change}
