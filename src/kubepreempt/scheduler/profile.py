"""The default plugin set, in upstream's order, with upstream's default score weights."""

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
