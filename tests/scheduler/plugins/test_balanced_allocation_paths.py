"""NodeResourcesBalancedAllocation on every code path, against upstream's table.

``score`` takes numpy over many nodes, Python floats over a few (``SMALL``), and
``score_node`` scores one node for the score cache; a custom ``resources`` list takes the
generic path. The rows are ``balanced_allocation_test.go``
TestNodeResourcesBalancedAllocation's (the 1.36 formula, ``(150 + balance_with_pod -
balance_without_pod) // 2``, worked out as in ``tests/upstream``); each table node is held
``SMALL + 2`` times with the same pods, so every copy must score as the table says.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from builders import cluster_of

from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.node_resources import SMALL

COPIES = SMALL + 2


def _node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "spec": {}, "status": {"allocatable": dict(alloc)}}


def _pod(name: str, reqs: list[dict[str, str]], node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [
        {"name": f"c{i}", "image": "x", "resources": {"requests": dict(r)}}
        for i, r in enumerate(reqs)]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {}},
            "spec": spec, "status": {}}


def _mk(milli_cpu: int, memory: int) -> dict[str, str]:
    """``makeNode(name, milliCPU, memory)``."""
    return {"cpu": f"{milli_cpu}m", "memory": str(memory), "pods": "32"}


CPU_ONLY = [{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}]
CPU_AND_MEMORY = [{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}]
SCHEDULED = {"node1": [CPU_ONLY], "node2": [CPU_AND_MEMORY]}

CASES = [
    ("nothing scheduled, resources requested, differently sized nodes", CPU_AND_MEMORY,
     [("node1", _mk(4000, 10000)), ("node2", _mk(6000, 10000))], {},
     {"node1": 68, "node2": 75}),
    ("resources requested, pods scheduled with resources", CPU_AND_MEMORY,
     [("node1", _mk(10000, 20000)), ("node2", _mk(10000, 20000))], SCHEDULED,
     {"node1": 73, "node2": 74}),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     CPU_AND_MEMORY, [("node1", _mk(10000, 20000)), ("node2", _mk(10000, 50000))],
     SCHEDULED, {"node1": 73, "node2": 70}),
    ("requested resources at node capacity", CPU_ONLY,
     [("node1", _mk(6000, 10000)), ("node2", _mk(6000, 10000))], SCHEDULED,
     {"node1": 62, "node2": 62}),
    ("node without the scalar resource should skip the scalar resource", CPU_AND_MEMORY,
     [("node1", {**_mk(3500, 40000), "nvidia.com/gpu": "8"}), ("node2", _mk(3500, 40000))],
     {}, {"node1": 56, "node2": 56}),
]


def _scores(plugin: BalancedAllocation, reqs, nodes, pods_on) -> dict[str, set[int]]:
    objects: list[dict] = []
    origin: dict[str, str] = {}
    for name, alloc in nodes:
        for k in range(COPIES):
            copy = f"{name}-{k}"
            origin[copy] = name
            objects.append(_node(copy, alloc))
            objects.extend(_pod(f"{copy}-e{j}", spec, node=copy)
                           for j, spec in enumerate(pods_on.get(name, [])))
    cluster = cluster_of(*objects, _pod("p", reqs))
    pod = cluster.pending["default/p"]
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    assert plugin.score_relevant(state)
    idx = np.array([cluster.node_index[n] for n in origin], np.int64)
    got: dict[str, set[int]] = {name: set() for name, _a in nodes}
    for group in (idx, idx[:1], idx[:SMALL], idx[-SMALL:]):
        for i, s in zip(group.tolist(), plugin.score(state, group).tolist(), strict=True):
            got[origin[cluster.nodes[i].name]].add(s)
    for i in idx.tolist():
        got[origin[cluster.nodes[i].name]].add(plugin.score_node(state, i))
    return got


@pytest.mark.parametrize(("reqs", "nodes", "pods_on", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_balanced_allocation_on_every_path(reqs, nodes, pods_on, want) -> None:
    """``balancedResourceScorer`` (cpu, memory; actual requests) on every default path."""
    assert _scores(BalancedAllocation(), reqs, nodes, pods_on) == \
        {n: {s} for n, s in want.items()}


@pytest.mark.parametrize(("reqs", "nodes", "pods_on", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_balanced_allocation_generic_path_same_resources(reqs, nodes, pods_on, want) -> None:
    """The same rows with ``resources`` memory, cpu (a custom list, the generic path):
    the standard deviation of two fractions does not depend on their order."""
    assert _scores(BalancedAllocation(("memory", "cpu")), reqs, nodes, pods_on) == \
        {n: {s} for n, s in want.items()}


def test_include_scalar_resource_on_a_node() -> None:
    """Upstream row "include scalar resource on a node for balanced resource allocation"
    (resources cpu, memory, nvidia.com/gpu; three fractions, population std): node1 holds
    3 GPUs already, node2 none; the pod asks for one GPU only. Upstream: node1 75
    (69 -> 70), node2 76 (62 -> 65)."""
    gpu_node = {**_mk(3500, 40000), "nvidia.com/gpu": "8"}
    pods_on = {"node1": [[{"cpu": "1000m", "memory": "2000"},
                          {"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"}]],
               "node2": [CPU_AND_MEMORY]}
    got = _scores(BalancedAllocation(("cpu", "memory", "nvidia.com/gpu")),
                  [{"cpu": "0", "memory": "0", "nvidia.com/gpu": "1"}],
                  [("node1", gpu_node), ("node2", gpu_node)], pods_on)
    assert got == {"node1": {75}, "node2": {76}}
