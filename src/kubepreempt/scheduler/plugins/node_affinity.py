"""NodeAffinity: ``spec.nodeSelector`` and required node affinity filter; preferred scores.

Both filters give "node(s) didn't match Pod's node affinity/selector", which is
UnschedulableAndUnresolvable: preemption never helps there. ``addedAffinity``
(``NodeAffinityArgs``) applies to every pod of the profile: its required terms are checked
first ("node(s) didn't match scheduler-enforced node affinity", also unresolvable) and its
preferred terms' weights are added to the pod's own.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import Node, Pod, WeightedNodeSelectorTerm
from kubepreempt.api.selectors import NodeSelector
from kubepreempt.scheduler.framework import (
    CycleState,
    FilterPlugin,
    ScorePlugin,
    Status,
    default_normalize,
    unresolvable,
)
from kubepreempt.scheduler.plugins.node_match import pod_matches_node_selector_and_affinity
from kubepreempt.snapshot import NodeView

ERR_REASON = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"


def required_node_names(pod: Pod) -> frozenset[str] | None:
    """Upstream NodeAffinity PreFilter's node-name result.

    When every required term names nodes (``matchFields: metadata.name In``, as DaemonSet
    pods do), only the union of those names is evaluated; ``None`` means all nodes.
    """
    aff = pod.affinity
    if aff is None or aff.node_required is None or not aff.node_required.terms:
        return None
    names: set[str] = set()
    for term in aff.node_required.terms:
        term_names: set[str] | None = None
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In":
                term_names = set(req.values) if term_names is None else term_names & set(
                    req.values)
        if term_names is None:
            return None  # terms are ORed: a term without node names admits every node
        names |= term_names
    return frozenset(names)


def matches_node(pod: Pod, node: Node) -> bool:
    """True when ``node`` satisfies the pod's nodeSelector and required node affinity."""
    return pod_matches_node_selector_and_affinity(pod, node)


def _signature(pod: Pod):
    required = pod.affinity.node_required if pod.affinity else None
    return ("node-affinity", tuple(sorted(pod.node_selector.items())), required)


class NodeAffinity(FilterPlugin, ScorePlugin):
    """Filter by selector/required affinity; score by matching preferred terms' weights."""

    name = "NodeAffinity"
    weight = 2
    # The verdict for a node depends only on that node (the scheduler's score cache).
    node_local = True
    # ... and on nothing bound there: binding or removing a pod never changes it.
    node_static = True

    def __init__(self, added_required: NodeSelector | None = None,
                 added_preferred: tuple[WeightedNodeSelectorTerm, ...] = ()) -> None:
        self.added_required = added_required
        self.added_preferred = added_preferred

    def cache_key(self) -> tuple:
        """What of this plugin's args changes verdicts or scores (the signature caches)."""
        return (self.added_required, self.added_preferred)

    def relevant(self, state: CycleState) -> bool:
        pod = state.pod
        return bool(pod.node_selector) or bool(pod.affinity and pod.affinity.node_required) \
            or self.added_required is not None

    def score_relevant(self, state: CycleState) -> bool:
        return bool(state.pod.affinity and state.pod.affinity.node_preferred) \
            or bool(self.added_preferred)

    def _enforced(self, node: Node) -> bool:
        added = self.added_required
        return added is None or added.matches(node.labels, node.name)

    def pre_filter(self, state: CycleState) -> Status | None:
        names = required_node_names(state.pod)
        if names is not None and not names:
            return unresolvable(self.name, ERR_REASON_CONFLICT)
        state.node_names = names
        return None

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        if not self._enforced(view.node):
            return unresolvable(self.name, ERR_REASON_ENFORCED)
        return None if matches_node(state.pod, view.node) else unresolvable(self.name, ERR_REASON)

    def filter_nodes(self, state: CycleState, nodes: np.ndarray):
        out = []
        if self.added_required is not None:
            enforced = self._unenforced_mask(state)
            bad = nodes[enforced[nodes]]
            if bad.size:
                out.append((bad, unresolvable(self.name, ERR_REASON_ENFORCED)))
                nodes = nodes[~enforced[nodes]]
        bad = nodes[self._mismatch_mask(state)[nodes]]
        if bad.size:
            out.append((bad, unresolvable(self.name, ERR_REASON)))
        return out

    def passes_node(self, state: CycleState, index: int) -> bool:
        """Whether ``filter_nodes`` would pass node ``index`` alone."""
        if self.added_required is not None and self._unenforced_mask(state)[index]:
            return False
        return not self._mismatch_mask(state)[index]

    def _unenforced_mask(self, state: CycleState) -> np.ndarray:
        """Per node: the profile's ``addedAffinity`` rejects it."""
        return state.cluster_cache(("node-affinity-added", self.added_required),
                                   lambda c: np.fromiter((not self._enforced(n) for n in c.nodes),
                                                         bool, len(c.nodes)))

    @staticmethod
    def _mismatch_mask(state: CycleState) -> np.ndarray:
        """Per node: the pod's selector or required affinity rejects it."""
        pod = state.pod
        return state.cluster_cache(_signature(pod), lambda c: np.fromiter(
            (not matches_node(pod, n) for n in c.nodes), bool, len(c.nodes)))

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        aff = state.pod.affinity
        preferred = (aff.node_preferred if aff else ()) + self.added_preferred
        if not preferred:
            return np.zeros(nodes.size, np.int64)

        def weights(c) -> np.ndarray:
            return np.fromiter(
                (sum(p.weight for p in preferred if p.term.matches(n.labels, n.name))
                 for n in c.nodes), np.int64, len(c.nodes))

        raw = state.cluster_cache(("node-preferred", preferred), weights)[nodes]
        return default_normalize(raw, reverse=False)


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange``: Queue if the added node matches the pod."""
    return matches_node(pod, ev.node)  # type: ignore[arg-type]


def events_to_register(added_required: NodeSelector | None = None
                       ) -> dict[str, QueueingHint]:
    """NodeAffinity's ``EventsToRegister``: Node Add / UpdateNodeLabel.

    With the profile's ``addedAffinity`` the hint first skips a node that the added
    required terms reject (upstream ``isSchedulableAfterNodeChange`` reads the plugin's
    ``addedNodeSelector`` before the pod's own affinity)."""
    if added_required is None:
        return {NODE_ADD: is_schedulable_after_node_change}

    def hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
        node = ev.node
        assert node is not None
        return added_required.matches(node.labels, node.name) and matches_node(pod, node)

    return {NODE_ADD: hint}
