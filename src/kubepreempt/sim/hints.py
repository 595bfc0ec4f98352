"""Cluster events and queueing hints, as kube-scheduler 1.36 moves unschedulable pods.

With queueing hints (locked on since 1.34) an event moves a pod out of the unschedulable
pool only when a plugin that rejected the pod (its ``UnschedulablePlugins``, upstream
``QueuedPodInfo``) registered for the event and its hint function returns Queue
(``PriorityQueue.isPodWorthRequeuing``). A pod rejected by no plugin (an error) is always
requeued. Each function below follows the plugin's ``EventsToRegister`` and
``isSchedulableAfter...`` in ``pkg/scheduler/framework/plugins/*``, for the events the
simulator produces: an assigned pod deleted or added, a node added or deleted, a pod's
scheduling gates removed, and the unschedulable-pool timeout (a wildcard).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kubepreempt.api.objects import NO_EXECUTE, NO_SCHEDULE, Node, Pod, Taint, tolerates_all
from kubepreempt.api.ports import ports_conflict
from kubepreempt.scheduler.plugins.inter_pod_affinity import term_matches
from kubepreempt.scheduler.plugins.node_affinity import matches_node
from kubepreempt.scheduler.plugins.pod_topology_spread import DO_NOT_SCHEDULE, has_all_keys

POD_DELETE = "AssignedPodDelete"
POD_ADD = "AssignedPodAdd"
NODE_ADD = "NodeAdd"
NODE_DELETE = "NodeDelete"
GATES_REMOVED = "UpdatePodSchedulingGatesEliminated"
TIMEOUT = "UnschedulableTimeout"  # the wildcard of flushUnschedulablePodsLeftover

SCHEDULING_GATES = "SchedulingGates"
_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE)

NsLabels = Callable[[str], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """One event: its kind and the pod or node it is about."""

    kind: str
    pod: Pod | None = None
    node: Node | None = None


def _fit_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """NodeResourcesFit: Pod Delete (and scale-down), Node Add / UpdateNodeAllocatable."""
    if ev.kind == POD_DELETE:
        # isSchedulableAfterPodEvent: any deleted pod that was assigned or nominated.
        return True
    if ev.kind == NODE_ADD:
        # isFit on an empty NodeInfo of the new node: room for one pod and every request.
        assert ev.node is not None
        alloc = ev.node.allocatable
        if alloc.get("pods", 0) < 1:
            return False
        return all(v <= alloc.get(r, 0) for r, v in pod.requests.items() if v > 0)
    return False


def _node_affinity_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """NodeAffinity: Node Add / UpdateNodeLabel -> Queue if the node matches the pod."""
    return ev.kind == NODE_ADD and matches_node(pod, ev.node)  # type: ignore[arg-type]


def _taint_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """TaintToleration: Node Add / UpdateNodeTaint -> Queue if every hard taint is tolerated."""
    if ev.kind != NODE_ADD:
        return False
    assert ev.node is not None
    return not any(t.effect in (NO_SCHEDULE, NO_EXECUTE)
                   and not tolerates_all(pod.tolerations, t) for t in ev.node.taints)


def _unschedulable_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """NodeUnschedulable: Node Add -> Queue if schedulable or the taint is tolerated."""
    if ev.kind != NODE_ADD:
        return False
    assert ev.node is not None
    return not ev.node.unschedulable or tolerates_all(pod.tolerations, _UNSCHEDULABLE_TAINT)


def _ports_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """NodePorts: Pod Delete -> Queue if the deleted pod held a port the pod wants; Node
    Add / Update has no hint function, so it always queues."""
    if ev.kind == NODE_ADD:
        return True
    if ev.kind != POD_DELETE:
        return False
    assert ev.pod is not None
    return bool(ev.pod.host_ports) and ports_conflict(pod.host_ports, ev.pod.host_ports)


def _matches_all(terms, other: Pod, ns: NsLabels) -> bool:
    """Upstream ``podMatchesAllAffinityTerms`` (False for no terms)."""
    return bool(terms) and all(term_matches(t, other, ns) for t in terms)


def _inter_pod_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """InterPodAffinity: Pod Add / UpdatePodLabel / Delete, Node Add / UpdateNodeLabel."""
    aff = pod.affinity
    terms = aff.pod_required if aff else ()
    anti = aff.anti_required if aff else ()
    if ev.kind == POD_ADD:  # the added pod matches all the affinity terms
        return _matches_all(terms, ev.pod, ns)  # type: ignore[arg-type]
    if ev.kind == POD_DELETE:  # the deleted pod matched all the anti-affinity terms
        return _matches_all(anti, ev.pod, ns)  # type: ignore[arg-type]
    if ev.kind == NODE_ADD:  # the node has a topology key of some term
        labels = ev.node.labels  # type: ignore[union-attr]
        return any(t.topology_key in labels for t in (*terms, *anti))
    return False


def _spread_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """PodTopologySpread: Pod Add / UpdatePodLabel / Delete (same namespace, labels match
    a constraint), Node Add / Delete / UpdateNodeLabel (node has every topology key)."""
    constraints = tuple(c for c in pod.spread if c.when_unsatisfiable == DO_NOT_SCHEDULE)
    if ev.kind in (POD_ADD, POD_DELETE):
        other = ev.pod
        assert other is not None
        if other.namespace != pod.namespace:  # involvedInTopologySpreading
            return False
        return any(c.selector is not None and c.selector.matches(other.labels)
                   for c in constraints)
    if ev.kind in (NODE_ADD, NODE_DELETE):
        return has_all_keys(ev.node, constraints)  # type: ignore[arg-type]
    return False


def _gates_hint(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """SchedulingGates: the pod's own update that removed its last gate."""
    return ev.kind == GATES_REMOVED and ev.pod is pod and not pod.scheduling_gates


def _never(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """DefaultPreemption (async preemption): AssignedPod Delete, always Skip — the plugins
    whose failure preemption resolves are in UnschedulablePlugins too."""
    return False


HINTS: dict[str, Callable[[Pod, ClusterEvent, NsLabels], bool]] = {
    "NodeResourcesFit": _fit_hint,
    "NodeAffinity": _node_affinity_hint,
    "TaintToleration": _taint_hint,
    "NodeUnschedulable": _unschedulable_hint,
    "NodePorts": _ports_hint,
    "InterPodAffinity": _inter_pod_hint,
    "PodTopologySpread": _spread_hint,
    SCHEDULING_GATES: _gates_hint,
    "DefaultPreemption": _never,
}


def worth_requeuing(pod: Pod, rejectors: frozenset[str], ev: ClusterEvent,
                    ns: NsLabels) -> bool:
    """``isPodWorthRequeuing``: True (Queue) if no plugin rejected the pod, for the
    wildcard timeout, or when a rejecting plugin's hint says Queue for ``ev``.

    Plugins without hints here (NodeName, volume plugins) register no event the
    simulator produces.
    """
    if not rejectors or ev.kind == TIMEOUT:
        return True
    for plugin in rejectors:
        hint = HINTS.get(plugin)
        if hint is not None and hint(pod, ev, ns):
            return True
    return False


def cross_topology(pod: Pod, rejectors: frozenset[str], added: Pod, ns: NsLabels) -> bool:
    """``getUnschedulablePodsWithCrossTopologyTerm``: the AssignedPodAdd pre-check.

    Only pods rejected by PodTopologySpread in the added pod's namespace, or with a
    required pod-affinity term (anti-affinity does not count) matching the added pod.
    """
    if "PodTopologySpread" in rejectors and added.namespace == pod.namespace:
        return True
    aff = pod.affinity
    return aff is not None and any(term_matches(t, added, ns) for t in aff.pod_required)
