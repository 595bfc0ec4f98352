"""Builders shared by the InterPodAffinity and PodTopologySpread plugin tests.

Unlike ``builders`` (manifests for ``cluster_of``), these give parsed ``Pod``/``Node``
objects and a ``Cluster`` built directly, so a test can run one plugin's extension points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Namespace, Node, Pod, Taint, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.framework import CycleState

_resolver = PriorityResolver()
_counter = iter(range(10**9))


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    """One matchExpressions entry."""
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def In(key, *values):  # noqa: N802 - reads like upstream's st.PodAffinityIn
    """A label-selector requirement ``key In values``."""
    return expr(key, "In", *values)


def NotIn(key, *values):  # noqa: N802
    """A label-selector requirement ``key NotIn values``."""
    return expr(key, "NotIn", *values)


def Exists(key):  # noqa: N802
    """A label-selector requirement ``key Exists``."""
    return expr(key, "Exists")


def term(*exprs: dict[str, Any], topo: str, namespaces=None, ns_selector=None,
         selector: Any = "exprs") -> dict[str, Any]:
    """A PodAffinityTerm; ``selector=None`` leaves out labelSelector (matches nothing)."""
    out: dict[str, Any] = {"topologyKey": topo}
    if selector == "exprs":
        out["labelSelector"] = {"matchExpressions": list(exprs)}
    elif selector is not None:
        out["labelSelector"] = selector
    if namespaces is not None:
        out["namespaces"] = list(namespaces)
    if ns_selector is not None:
        out["namespaceSelector"] = ns_selector
    return out


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    """A WeightedPodAffinityTerm."""
    return {"weight": weight, "podAffinityTerm": t}


def make_pod(name: str | None = None, *, ns: str = "default", node: str | None = None,
             labels: dict[str, str] | None = None, req=(), anti=(), pref=(), anti_pref=(),
             spread=(), node_selector=None, node_affinity=None, tolerations=None,
             deleting: bool = False) -> Pod:
    """A parsed pod with optional pod (anti-)affinity and spread constraints."""
    affinity: dict[str, Any] = {}
    if req or pref:
        affinity["podAffinity"] = {}
        if req:
            affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = list(req)
        if pref:
            affinity["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = list(
                pref)
    if anti or anti_pref:
        affinity["podAntiAffinity"] = {}
        if anti:
            affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = list(
                anti)
        if anti_pref:
            affinity["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = list(
                anti_pref)
    if node_affinity is not None:
        affinity["nodeAffinity"] = node_affinity
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if affinity:
        spec["affinity"] = affinity
    if spread:
        spec["topologySpreadConstraints"] = list(spread)
    if node:
        spec["nodeName"] = node
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    meta: dict[str, Any] = {"name": name or f"pod-{next(_counter)}", "namespace": ns,
                            "labels": labels or {}}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return parse_pod({"metadata": meta, "spec": spec}, Source(), _resolver.resolve)


def make_node(name: str, labels: dict[str, str] | None = None, taints=()) -> Node:
    """A node with labels (no hostname label unless given) and taints."""
    return Node(name=name, labels=dict(labels or {}),
                taints=tuple(Taint(k, v, e) for k, v, e in taints))


NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def make_cluster(nodes: list[Node], pods: list[Pod] = (),
                 namespaces: dict[str, dict[str, str]] | None = None) -> Cluster:
    """Cluster with ``nodes`` (sorted by name) and ``pods`` bound; pods on unknown nodes
    are dropped (upstream's snapshot has no node for them either)."""
    cluster = Cluster()
    for n in sorted(nodes, key=lambda n: n.name):
        cluster.add_node(n)
    for name, labels in (namespaces or NAMESPACES).items():
        cluster.namespaces[name] = Namespace(
            name, {**labels, "kubernetes.io/metadata.name": name})
    for p in pods:
        if p.node_name in cluster.node_index:
            cluster.bind(p, p.node_name)
    return cluster


def new_state(pod: Pod, cluster: Cluster) -> CycleState:
    """A fresh CycleState for ``pod``."""
    return CycleState(pod, cluster, cluster.request_vector(pod))


def indices(cluster: Cluster, names: list[str]) -> np.ndarray:
    """Node indices for ``names`` in that order."""
    return np.array([cluster.node_index[n] for n in names], np.int64)
