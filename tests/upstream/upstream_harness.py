"""Shared helpers for the ports of upstream's plugin test tables (``tests/upstream``).

Upstream's tables build ``v1.Node``/``v1.Pod`` objects with ``st.MakeNode()``/``st.MakePod()``
and call one plugin's extension points directly. These helpers do the same with parsed
manifests: ``up_node``/``up_pod`` build the manifests (no implicit hostname label, unlike
``builders.node``), ``run_filter`` runs PreFilter + Filter of one plugin on each node and
``run_score`` runs PreScore + Score + NormalizeScore over the candidate nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from builders import cluster_of

from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, ScorePlugin, Status

OK = Code.SUCCESS
UNSCHED = Code.UNSCHEDULABLE
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NO_SCHEDULE = "NoSchedule"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": NO_SCHEDULE}


def up_node(name: str, labels: dict[str, str] | None = None, *, taints: Sequence[dict] = (),
            alloc: dict[str, str] | None = None, images: Sequence[dict] = (),
            unschedulable: bool = False) -> dict[str, Any]:
    """``st.MakeNode().Name(name).Label(...)``: only the labels given."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = list(taints)
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"allocatable": dict(alloc or {"pods": "110"})}
    if images:
        status["images"] = list(images)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": spec, "status": status}


def up_pod(name: str, labels: dict[str, str] | None = None, *, node: str | None = None,
           ns: str = "default", spec: dict[str, Any] | None = None,
           containers: Sequence[dict] | None = None, terminating: bool = False
           ) -> dict[str, Any]:
    """``st.MakePod().Name(name).Label(...)``; ``spec`` entries are merged in."""
    body: dict[str, Any] = {"containers": list(containers) if containers is not None
                            else [{"name": "c", "image": "pause"}]}
    if node:
        body["nodeName"] = node
    body.update(spec or {})
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels or {})}
    if terminating:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body, "status": {}}


def build(incoming: dict[str, Any], nodes: Sequence[dict], pods: Sequence[dict] = ()
          ) -> tuple[Cluster, Pod, CycleState]:
    """The cluster (nodes, bound pods) plus the pending ``incoming`` pod and its state."""
    cluster = cluster_of(*nodes, *pods, incoming)
    meta = incoming["metadata"]
    pod = cluster.pending[f"{meta.get('namespace', 'default')}/{meta['name']}"]
    return cluster, pod, CycleState(pod, cluster, cluster.request_vector(pod))


def run_filter(plugin: FilterPlugin, incoming: dict[str, Any], nodes: Sequence[dict],
               pods: Sequence[dict] = ()) -> dict[str, Status | None]:
    """PreFilter then Filter on every node: {node: status or None}.

    A PreFilter rejection is returned for every node; Skip (or an irrelevant plugin)
    passes every node, as upstream's framework does. The vector path
    (``filter_nodes``) is checked to agree with the per-node ``filter``.
    """
    cluster, _pod, state = build(incoming, nodes, pods)
    names = [n["metadata"]["name"] for n in nodes]
    if not plugin.relevant(state):
        return dict.fromkeys(names)
    pre = plugin.pre_filter(state)
    if pre is not None:
        return dict.fromkeys(names, None if pre.code == Code.SKIP else pre)
    got: dict[str, Status | None] = {}
    for name in names:
        got[name] = plugin.filter(state, cluster.node_view(cluster.node_index[name]))
    idx = np.array([cluster.node_index[n] for n in names], np.int64)
    vec: dict[str, Status | None] = dict.fromkeys(names)
    for bad, status in plugin.filter_nodes(state, idx):
        for i in bad.tolist():
            vec[cluster.nodes[i].name] = status
    assert {n: _codes(s) for n, s in vec.items()} == {n: _codes(s) for n, s in got.items()}
    return got


def _codes(status: Status | None) -> tuple[Code, tuple[str, ...]]:
    return (OK, ()) if status is None else (status.code, status.reasons)


def codes(statuses: dict[str, Status | None]) -> dict[str, Code]:
    """{node: code} from ``run_filter``'s result."""
    return {n: OK if s is None else s.code for n, s in statuses.items()}


def run_score(plugin: ScorePlugin, incoming: dict[str, Any], nodes: Sequence[dict],
              pods: Sequence[dict] = (), candidates: Sequence[str] | None = None
              ) -> dict[str, int]:
    """PreScore + Score + NormalizeScore over ``candidates`` (default: every node).

    Unweighted, as upstream's plugin tests; a plugin that skips scoring for this pod
    gives 0 everywhere (upstream's framework leaves skipped plugins' scores at 0).
    """
    cluster, _pod, state = build(incoming, nodes, pods)
    names = list(candidates) if candidates is not None else [n["metadata"]["name"]
                                                             for n in nodes]
    idx = np.array([cluster.node_index[n] for n in names], np.int64)
    if not plugin.score_relevant(state):
        return dict.fromkeys(names, 0)
    plugin.pre_score(state, idx)
    return dict(zip(names, plugin.score(state, idx).tolist(), strict=True))
