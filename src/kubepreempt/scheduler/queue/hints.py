"""Queueing hints: whether a cluster event may make a pending pod schedulable.

With queueing hints (locked on since 1.34) an event moves a pod out of the unschedulable
pool only when a plugin that rejected the pod (its ``UnschedulablePlugins``, upstream
``QueuedPodInfo``) registered for the event and its hint function returns Queue
(``PriorityQueue.isPodWorthRequeuing``). A pod rejected by no plugin (an error) is always
requeued. Each plugin's events and hints are its module's ``events_to_register``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kubepreempt.api.objects import Pod
from kubepreempt.api.selectors import NodeSelector
from kubepreempt.scheduler.plugins import (
    default_preemption,
    inter_pod_affinity,
    node_affinity,
    node_ports,
    node_resources,
    node_unschedulable,
    pod_topology_spread,
    scheduling_gates,
    taint_toleration,
)
from kubepreempt.scheduler.plugins.inter_pod_affinity import term_matches
from kubepreempt.scheduler.queue.events import TIMEOUT, ClusterEvent, NsLabels, QueueingHint

if TYPE_CHECKING:
    from kubepreempt.scheduler.profile import Profile

# plugin name -> event kind -> queueing hint (the framework's queueingHintMap)
HintMap = dict[str, dict[str, QueueingHint]]


def hint_map(node_affinity_added: NodeSelector | None = None) -> HintMap:
    """One profile's queueing hints (upstream keeps a map per profile,
    ``QueueingHintMapPerProfile``): the plugins' hints, NodeAffinity's with the profile's
    ``addedAffinity`` required terms, the only plugin argument a hint reads."""
    return {
        "NodeResourcesFit": node_resources.events_to_register(),
        "NodeAffinity": node_affinity.events_to_register(node_affinity_added),
        "TaintToleration": taint_toleration.events_to_register(),
        "NodeUnschedulable": node_unschedulable.events_to_register(),
        "NodePorts": node_ports.events_to_register(),
        "InterPodAffinity": inter_pod_affinity.events_to_register(),
        "PodTopologySpread": pod_topology_spread.events_to_register(),
        scheduling_gates.NAME: scheduling_gates.events_to_register(),
        "DefaultPreemption": default_preemption.events_to_register(),
    }


# The default profile's (no plugin arguments that a hint reads).
HINTS: HintMap = hint_map()


def hint_maps(profiles: Iterable[Profile]) -> dict[str, HintMap]:
    """``spec.schedulerName`` -> the hints of each profile whose plugin arguments a hint
    reads (NodeAffinity's ``addedAffinity``); the other profiles use :data:`HINTS`."""
    out = {}
    for profile in profiles:
        for f in profile.filters:
            if isinstance(f, node_affinity.NodeAffinity) and f.added_required is not None:
                out[profile.scheduler_name] = hint_map(f.added_required)
    return out


def worth_requeuing(pod: Pod, rejectors: frozenset[str], ev: ClusterEvent,
                    ns: NsLabels, hints: HintMap = HINTS) -> bool:
    """``isPodWorthRequeuing``: True (Queue) if no plugin rejected the pod, for the
    wildcard timeout, or when a rejecting plugin's hint says Queue for ``ev``.

    Plugins without hints here (NodeName, volume plugins) register no event the
    simulator produces.
    """
    if not rejectors or ev.kind == TIMEOUT:
        return True
    for plugin in rejectors:
        registered = hints.get(plugin)
        if registered is None:
            continue
        hint = registered.get(ev.kind)
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
