"""Node-pressure eviction ranking (upstream ``pkg/kubelet/eviction/helpers.go``).

``rankMemoryPressure`` is ``orderedBy(exceedMemoryRequests, priority, memory)`` and the
disk ranking ``orderedBy(exceedDiskRequests, priority, disk)``:

1. pods without stats first ("prioritize evicting the pod for which no stats were found"),
   then pods whose usage exceeds their request;
2. lower priority first;
3. larger usage above request first.

The request is ``GetResourceRequestQuantity`` (:mod:`.requests`): overhead counts only on
a resource the containers request, so an overhead-only pod exceeds its zero request.

Upstream sorts with Go's unstable ``sort.Sort``; here the sort is stable on the node's pod
order so equal pods keep input order. The eviction manager ranks every active pod but
refuses to evict critical pods, so :attr:`EvictionRanking.next` skips them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod
from kubepreempt.kubelet.critical import is_critical_pod
from kubepreempt.kubelet.metrics import PodUsage
from kubepreempt.kubelet.requests import request_quantity

RESOURCES = ("memory", "ephemeral-storage")


@dataclass(frozen=True, slots=True)
class RankedPod:
    """One pod's ranking inputs."""

    key: str
    priority: int
    qos: str
    request: int
    usage: int | None  # None: no stats for this pod/resource
    critical: bool

    @property
    def exceeds(self) -> bool:
        """Usage strictly above the request (False without stats)."""
        return self.usage is not None and self.usage > self.request

    @property
    def above_request(self) -> int | None:
        """Usage minus request (may be negative), None without stats."""
        return None if self.usage is None else self.usage - self.request

    def sort_key(self) -> tuple[int, int, int, int]:
        """Upstream's comparator chain as one ascending key."""
        if self.usage is None:
            # exceed/usage comparators say 0 between two stat-less pods; only priority ranks
            return (0, 0, self.priority, 0)
        return (1, 0 if self.exceeds else 1, self.priority, -(self.usage - self.request))

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"pod": self.key, "priority": self.priority, "qos": self.qos,
                "request": self.request, "usage": self.usage, "exceedsRequest": self.exceeds,
                "aboveRequest": self.above_request, "critical": self.critical}


@dataclass(slots=True)
class EvictionRanking:
    """The eviction order of one node's pods for one starved resource."""

    node: str
    resource: str
    ranked: list[RankedPod] = field(default_factory=list)

    @property
    def order(self) -> list[str]:
        """Pod keys, first to be evicted first."""
        return [r.key for r in self.ranked]

    @property
    def no_metrics(self) -> list[str]:
        """Pods ranked without usage figures."""
        return [r.key for r in self.ranked if r.usage is None]

    @property
    def next(self) -> str | None:
        """The pod the eviction manager would evict now (critical pods are never evicted)."""
        return next((r.key for r in self.ranked if not r.critical), None)

    def to_json(self) -> dict[str, Any]:
        """The ``evict-rank -o json`` object."""
        return {"node": self.node, "resource": self.resource, "order": self.order,
                "noMetrics": self.no_metrics, "next": self.next,
                "critical": [r.key for r in self.ranked if r.critical],
                "pods": [r.to_json() for r in self.ranked]}


def rank_for_eviction(pods: Iterable[Pod], resource: str,
                      usage: Mapping[str, PodUsage | Mapping[str, int]],
                      node: str = "") -> EvictionRanking:
    """Rank ``pods`` for eviction under ``resource`` pressure (memory or ephemeral-storage).

    ``usage`` maps pod keys to :class:`PodUsage` or plain ``{resource: amount}`` mappings;
    a pod is "without stats" when it has no entry or its entry lacks ``resource``.
    """
    if resource not in RESOURCES:
        raise ValueError(f"resource must be one of {RESOURCES}, not {resource!r}")
    ranked = []
    for pod in pods:
        entry = usage.get(pod.key)
        amounts = entry.usage if isinstance(entry, PodUsage) else entry
        used = None if amounts is None else amounts.get(resource)
        ranked.append(RankedPod(pod.key, pod.priority, pod.qos,
                                request_quantity(pod, resource), used, is_critical_pod(pod)))
    ranked.sort(key=RankedPod.sort_key)
    return EvictionRanking(node, resource, ranked)


def rank_node(cluster: Any, node_name: str, resource: str,
              usage: Mapping[str, PodUsage]) -> EvictionRanking:
    """:func:`rank_for_eviction` for the pods bound to ``node_name`` in a cluster snapshot."""
    idx = cluster.node_index.get(node_name)
    if idx is None:
        raise InputError(f"node {node_name!r} is not in the input", kind="Node", name=node_name)
    # Metrics for pods not on this node are ignored: metrics-server lags deletions.
    return rank_for_eviction(cluster.node_pods[idx].values(), resource, usage, node_name)
