"""A scheduler profile: its plugins in order, score weights, plugin args, PostFilter switches.

``default_profile()`` is upstream's default profile; ``kubepreempt.scheduler.config``
builds profiles from a ``KubeSchedulerConfiguration``. Plugins carry their own arguments
(no globals); ``cache_key`` says what of them the per-signature caches must key on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubepreempt.scheduler.framework import FilterPlugin, ScorePlugin
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.image_locality import ImageLocality
from kubepreempt.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from kubepreempt.scheduler.plugins.node_affinity import NodeAffinity
from kubepreempt.scheduler.plugins.node_name import NodeName
from kubepreempt.scheduler.plugins.node_ports import NodePorts
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit
from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable
from kubepreempt.scheduler.plugins.pod_topology_spread import PodTopologySpread
from kubepreempt.scheduler.plugins.taint_toleration import TaintToleration


@dataclass(slots=True)
class Profile:
    """Filter plugins (run in order; a node fails at the first rejecting one) and scorers."""

    filters: list[FilterPlugin] = field(default_factory=list)
    scorers: list[ScorePlugin] = field(default_factory=list)
    scheduler_name: str = "default-scheduler"  # pods with this spec.schedulerName
    # PostFilter plugins, in upstream's order: DynamicResources (DRA is GA and on) then
    # DefaultPreemption; their messages are joined into the FitError text.
    dynamic_resources: bool = True
    preemption: bool = True
    # DefaultPreemptionArgs: the candidate window when sampling is asked for.
    min_candidate_percentage: int = 10
    min_candidate_absolute: int = 100
    # percentageOfNodesToScore (profile; None = the global one) for node sampling.
    percentage_of_nodes_to_score: int | None = None
    global_percentage_of_nodes_to_score: int = 0

    def cache_key(self) -> tuple:
        """Everything of this profile that changes a filter verdict or a score."""
        def key(p) -> tuple:
            own = getattr(p, "cache_key", None)
            return (p.name, own() if own is not None else None)
        return (tuple(key(f) for f in self.filters),
                tuple((*key(s), s.weight) for s in self.scorers))

    def nodes_to_find(self, num_all_nodes: int) -> int:
        """Upstream ``numFeasibleNodesToFind``: how many feasible nodes a sampled search
        stops at (at least 100; 0% means the adaptive ``50 - nodes/125``, at least 5%)."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        percentage = self.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self.global_percentage_of_nodes_to_score
        if percentage == 0:
            percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE)
        found = num_all_nodes * percentage // 100
        return max(found, MIN_FEASIBLE_NODES_TO_FIND)


MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE = 5


def default_profile() -> Profile:
    """Upstream's default profile (volume plugins are not modelled: no volumes in input)."""
    taints = TaintToleration()
    node_affinity = NodeAffinity()
    fit = NodeResourcesFit()
    filters: list[FilterPlugin] = [
        NodeUnschedulable(),
        NodeName(),
        taints,
        node_affinity,
        NodePorts(),
        fit,
    ]
    scorers: list[ScorePlugin] = [taints, node_affinity, fit]
    # Cross-pod plugins come after the cheap ones, as in upstream's order.
    for plugin in _cross_pod_plugins():
        filters.append(plugin)
        scorers.append(plugin)
    scorers.append(BalancedAllocation())
    scorers.append(ImageLocality())
    return Profile(filters, scorers)


def _cross_pod_plugins() -> list:
    """PodTopologySpread then InterPodAffinity (each both a filter and a scorer)."""
    return [PodTopologySpread(), InterPodAffinity()]
