"""TaintToleration: NoSchedule/NoExecute taints filter; PreferNoSchedule taints score.

Filter wording follows current upstream ("node(s) had untolerated taint(s)"); older
releases named the taint ("{key: value}").
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, tolerates_all
from kubepreempt.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    FilterPlugin,
    ScorePlugin,
    Status,
    default_normalize,
    unresolvable,
)
from kubepreempt.snapshot import NodeView

ERR_REASON = "node(s) had untolerated taint(s)"


def _untolerated(taints, tolerations) -> bool:
    return any(t.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerates_all(tolerations, t)
               for t in taints)


class TaintToleration(FilterPlugin, ScorePlugin):
    """Filter on hard taints; score by the count of untolerated PreferNoSchedule taints."""

    name = "TaintToleration"
    weight = 3
    # The verdict for a node depends only on that node (the scheduler's score cache).
    node_local = True
    # ... and on nothing bound there: binding or removing a pod never changes it.
    node_static = True

    def node_local_score(self, state: CycleState) -> bool:
        """True when no node has an untolerated PreferNoSchedule taint: every score is 100.

        Otherwise the normalisation over the feasible nodes ties nodes together.
        """
        tolerations = _prefer_tolerations(state)
        counts = state.cluster_cache(("prefer-taints", tolerations),
                                     lambda c: _prefer_counts(c, tolerations))
        return not counts.any()

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        if _untolerated(view.node.taints, state.pod.tolerations):
            return unresolvable(self.name, ERR_REASON)
        return None

    def filter_nodes(self, state: CycleState, nodes: np.ndarray):
        bad = nodes[_untolerated_mask(state)[nodes]]
        return [(bad, unresolvable(self.name, ERR_REASON))] if bad.size else []

    def passes_node(self, state: CycleState, index: int) -> bool:
        """Whether ``filter_nodes`` would pass node ``index`` alone."""
        return not _untolerated_mask(state)[index]

    def score_node(self, state: CycleState, index: int) -> int:
        """``score`` of node ``index`` alone: normalised over that one node, 100 when it
        has no untolerated PreferNoSchedule taint, else 0 (its count is the maximum)."""
        tolerations = _prefer_tolerations(state)
        raw = state.cluster_cache(("prefer-taints", tolerations),
                                  lambda c: _prefer_counts(c, tolerations))[index]
        return MAX_NODE_SCORE if raw == 0 else 0

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        tolerations = _prefer_tolerations(state)
        raw = state.cluster_cache(("prefer-taints", tolerations),
                                  lambda c: _prefer_counts(c, tolerations))[nodes]
        return default_normalize(raw, reverse=True)


def _untolerated_mask(state: CycleState) -> np.ndarray:
    """Per node: it has a NoSchedule/NoExecute taint the pod does not tolerate."""
    tolerations = state.pod.tolerations
    return state.cluster_cache(("taints", tolerations), lambda c: np.fromiter(
        (_untolerated(n.taints, tolerations) for n in c.nodes), bool, len(c.nodes)))


def _prefer_tolerations(state: CycleState) -> tuple:
    tolerations = state.pod.tolerations
    if not tolerations:  # most pods: skip building a generator (this runs every cycle)
        return ()
    return tuple(t for t in tolerations if t.effect in ("", PREFER_NO_SCHEDULE))


def _prefer_counts(cluster, tolerations) -> np.ndarray:
    """Per node: untolerated PreferNoSchedule taints."""
    return np.fromiter(
        (sum(1 for t in n.taints if t.effect == PREFER_NO_SCHEDULE
             and not tolerates_all(tolerations, t)) for n in cluster.nodes),
        np.int64, len(cluster.nodes))


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.api.objects import Pod  # noqa: E402
from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange``: Queue if every hard taint of the node is
    tolerated."""
    assert ev.node is not None
    return not any(t.effect in (NO_SCHEDULE, NO_EXECUTE)
                   and not tolerates_all(pod.tolerations, t) for t in ev.node.taints)


def events_to_register() -> dict[str, QueueingHint]:
    """TaintToleration's ``EventsToRegister``: Node Add / UpdateNodeTaint."""
    return {NODE_ADD: is_schedulable_after_node_change}
