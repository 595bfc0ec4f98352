"""Cluster events, as kube-scheduler names those that may make a pending pod schedulable.

The simulator produces: an assigned pod deleted or added, a node added or deleted, a pod's
scheduling gates removed, and the unschedulable-pool timeout (a wildcard). A plugin
registers the events it cares about with a queueing hint (``events_to_register`` in its
module, upstream ``EnqueueExtensions.EventsToRegister``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kubepreempt.api.objects import Node, Pod

POD_DELETE = "AssignedPodDelete"
POD_ADD = "AssignedPodAdd"
NODE_ADD = "NodeAdd"
NODE_DELETE = "NodeDelete"
GATES_REMOVED = "UpdatePodSchedulingGatesEliminated"
TIMEOUT = "UnschedulableTimeout"  # the wildcard of flushUnschedulablePodsLeftover

# A namespace's labels, by name (namespaceSelector of pod-affinity terms).
NsLabels = Callable[[str], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """One event: its kind and the pod or node it is about."""

    kind: str
    pod: Pod | None = None
    node: Node | None = None


# Upstream QueueingHintFn: True (Queue) if ``ev`` may make the pending pod schedulable.
QueueingHint = Callable[[Pod, ClusterEvent, NsLabels], bool]
