"""NodeResourcesFit's filter and LeastAllocated score on every code path, against upstream.

The plugin decides a node by one of several paths: ``filter`` (one NodeView),
``filter_nodes`` with a few nodes (Python ints) or more (numpy), ``passes_node`` (the
score cache's one-node check), ``score`` with a few nodes or more, and ``score_node``.
Each case below is a row of an upstream table (``noderesources/fit_test.go``
TestEnoughRequests / TestNotEnoughRequests / TestStorageRequests,
``least_allocated_test.go`` TestLeastAllocatedScoringStrategy, ``fit_test.go``
TestFitScore) with upstream's expected answer, checked on every path. The cluster
holds each table node several times over (each copy with the same pods): a node's
verdict and score depend only on that node, so every copy must get the table's answer,
and more than ``SMALL`` nodes take the vector paths.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from builders import cluster_of

from kubepreempt.scheduler.framework import Code, CycleState
from kubepreempt.scheduler.plugins.node_resources import SMALL, NodeResourcesFit

COPIES = SMALL + 2  # enough copies of a node for the vector paths
UNSCHED = Code.UNSCHEDULABLE
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
EXT_A, EXT_B, HUGE = "example.com/aaa", "example.com/bbb", "hugepages-2Mi"


def _node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "spec": {}, "status": {"allocatable": dict(alloc)}}


def _pod(name: str, containers: list[dict[str, str]], inits: list[dict[str, str]] = (),
         node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [
        {"name": f"c{i}", "image": "x", "resources": {"requests": r}}
        for i, r in enumerate(containers)]}
    if inits:
        spec["initContainers"] = [{"name": f"i{i}", "image": "x",
                                   "resources": {"requests": r}} for i, r in enumerate(inits)]
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {}},
            "spec": spec, "status": {}}


def _req(cpu_m: int = 0, mem: int = 0, **scalars: int) -> dict[str, str]:
    """``newResourcePod``'s container: cpu in millicores, memory in bytes, scalars."""
    names = {"a": EXT_A, "b": EXT_B, "huge": HUGE, "eph": "ephemeral-storage"}
    out = {"cpu": f"{cpu_m}m", "memory": str(mem)}
    out.update({names[k]: str(v) for k, v in scalars.items()})
    return out


def _copies(nodes: list[tuple[str, dict[str, str]]],
            pods_on: dict[str, list[tuple[list, list]]]) -> tuple[list[dict], dict[str, str]]:
    """Each table node ``COPIES`` times with its pods; {copy name: table node name}."""
    objects: list[dict] = []
    origin: dict[str, str] = {}
    for name, alloc in nodes:
        for k in range(COPIES):
            copy = f"{name}-{k}"
            origin[copy] = name
            objects.append(_node(copy, alloc))
            for j, (containers, inits) in enumerate(pods_on.get(name, [])):
                objects.append(_pod(f"{copy}-e{j}", containers, inits, node=copy))
    return objects, origin


def _state(objects: list[dict], incoming: dict[str, Any]):
    cluster = cluster_of(*objects, incoming)
    pod = cluster.pending[f"default/{incoming['metadata']['name']}"]
    return cluster, CycleState(pod, cluster, cluster.request_vector(pod))


def _verdicts_every_path(incoming, nodes, pods_on):
    """{table node: {(code, reasons) or None from each path}}; asserts the copies agree."""
    objects, origin = _copies(nodes, pods_on)
    cluster, state = _state(objects, incoming)
    plugin = NodeResourcesFit()
    names = list(origin)
    idx = np.array([cluster.node_index[n] for n in names], np.int64)
    seen: dict[str, set] = {name: set() for name, _a in nodes}

    def put(i: int, status) -> None:
        seen[origin[cluster.nodes[i].name]].add(
            None if status is None else (status.code, status.reasons))

    for i in idx.tolist():
        put(i, plugin.filter(state, cluster.node_view(i)))
    for group in (idx, idx[:1], idx[:SMALL], idx[-2:]):  # vector and few-node paths
        failed = {i: s for bad, s in plugin.filter_nodes(state, group) for i in bad.tolist()}
        for i in group.tolist():
            put(i, failed.get(i))
    passes = {origin[cluster.nodes[i].name]: set() for i in idx.tolist()}
    for i in idx.tolist():
        passes[origin[cluster.nodes[i].name]].add(plugin.passes_node(state, i))
    return seen, passes


# makeAllocatableResources(10, 20, 32, 5, 20, 5): cpu 10m, memory 20, pods 32, a 5,
# ephemeral-storage 20, hugepages 5.
ENOUGH = {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20",
          HUGE: "5"}


def _ins(*names: str) -> tuple[Code, tuple[str, ...]]:
    return UNSCHED, tuple(f"Insufficient {n}" for n in names)


def _beyond(*names: str) -> tuple[Code, tuple[str, ...]]:
    return UNRES, tuple(f"Insufficient {n}" for n in names)


FIT_CASES = [
    # (upstream case name, pod containers, pod inits, node allocatable, existing pod, want)
    ("no resources requested always fits", [], [], ENOUGH, _req(10, 20), None),
    ("too many resources fails", [_req(1, 1)], [], ENOUGH, _req(10, 20),
     _ins("cpu", "memory")),
    ("too many resources fails due to init container cpu", [_req(1, 1)], [_req(3, 1)],
     ENOUGH, _req(8, 19), _ins("cpu")),
    ("one resource memory fits", [_req(2, 1)], [], ENOUGH, _req(9, 5), _ins("cpu")),
    ("one resource cpu fits", [_req(1, 2)], [], ENOUGH, _req(5, 19), _ins("memory")),
    ("equal edge case", [_req(5, 1)], [], ENOUGH, _req(5, 19), None),
    ("extended resource capacity enforced", [_req(1, 1, a=10)], [], ENOUGH, _req(a=0),
     _beyond(EXT_A)),
    ("extended resource allocatable enforced", [_req(1, 1, a=1)], [], ENOUGH, _req(a=5),
     _ins(EXT_A)),
    ("extended resource allocatable enforced for unknown resource", [_req(1, 1, b=1)], [],
     ENOUGH, _req(), _beyond(EXT_B)),
    ("hugepages resource allocatable enforced for multiple containers",
     [_req(1, 1, huge=3), _req(1, 1, huge=3)], [], ENOUGH, _req(huge=2), _beyond(HUGE)),
    ("storage ephemeral local storage request exceeds allocatable", [_req(eph=25)], [],
     ENOUGH, _req(2, 2), _beyond("ephemeral-storage")),
    ("ephemeral local storage is sufficient", [_req(eph=5)], [], ENOUGH, _req(2, 2, eph=10),
     None),
    ("skip checking resource request with quantity zero", [_req(a=1)], [], ENOUGH,
     _req(20, 30, a=1), None),
    # TestNotEnoughRequests: pods allocatable 1, one pod already there.
    ("even without specified resources, predicate fails when there's no space for "
     "additional pod", [], [], {"cpu": "10m", "memory": "20", "pods": "1"}, _req(10, 20),
     (UNSCHED, ("Too many pods",))),
    ("even for equal edge case, predicate fails when there's no space for additional pod",
     [_req(5, 1)], [], {"cpu": "10m", "memory": "20", "pods": "1"}, _req(5, 19),
     (UNSCHED, ("Too many pods",))),
]


@pytest.mark.parametrize(("containers", "inits", "alloc", "existing", "want"),
                         [c[1:] for c in FIT_CASES], ids=[c[0] for c in FIT_CASES])
def test_fit_on_every_path(containers, inits, alloc, existing, want) -> None:
    """``Fit.Filter`` / ``fitsRequest``: the table's status (code and reasons, in
    upstream's order) on every path, and ``passes_node`` iff there is no status."""
    seen, passes = _verdicts_every_path(_pod("p", containers, inits), [("node", alloc)],
                                        {"node": [([existing], [])]})
    assert seen == {"node": {want}}
    assert passes == {"node": {want is None}}


def test_fit_groups_nodes_by_status_in_one_call() -> None:
    """Nodes failing differently get their own statuses from one ``filter_nodes`` call:
    ``fitsRequest`` per node (a cpu-short node, a memory-short node, a full node with a
    pod-count shortfall, one where cpu exceeds the whole allocatable, and a fitting one)."""
    nodes = [("cpu-short", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
             ("mem-short", {"cpu": "8", "memory": "1Gi", "pods": "10"}),
             ("full", {"cpu": "8", "memory": "4Gi", "pods": "1"}),
             ("tiny", {"cpu": "500m", "memory": "4Gi", "pods": "10"}),
             ("roomy", {"cpu": "8", "memory": "4Gi", "pods": "10"})]
    running = ([{"cpu": "1500m", "memory": "512Mi"}], [])
    seen, passes = _verdicts_every_path(
        _pod("p", [{"cpu": "1", "memory": "1Gi"}]), nodes,
        {"cpu-short": [running], "mem-short": [running], "full": [running]})
    assert seen == {
        "cpu-short": {_ins("cpu")},
        "mem-short": {_ins("memory")},
        "full": {(UNSCHED, ("Too many pods",))},
        "tiny": {_beyond("cpu")},
        "roomy": {None},
    }
    assert passes == {"cpu-short": {False}, "mem-short": {False}, "full": {False},
                      "tiny": {False}, "roomy": {True}}


# ---- LeastAllocated ----------------------------------------------------------------------

def _cap(cpu: str | None = None, memory: str | None = None) -> dict[str, str]:
    """``st.MakeNode().Capacity``: pods 110, cpu in millicores as upstream writes it."""
    alloc = {"pods": "110"}
    if cpu is not None:
        alloc |= {"cpu": cpu, "memory": memory or "0"}
    return alloc


def _rp(*reqs: tuple[str, str]) -> tuple[list, list]:
    return [{"cpu": cpu, "memory": mem} for cpu, mem in reqs], []


TWO_REQ = (("1000", "2000"), ("2000", "3000"))
SCORE_CASES = [
    ("nothing scheduled, nothing requested", [], [("node1", _cap("4000", "10000"))], {},
     {"node1": 100}),
    ("nothing scheduled, resources requested, differently sized nodes", TWO_REQ,
     [("node1", _cap("4000", "10000")), ("node2", _cap("6000", "10000"))], {},
     {"node1": 37, "node2": 50}),
    ("no resources requested, pods scheduled with resources", [],
     [("node1", _cap("10000", "20000")), ("node2", _cap("10000", "20000"))],
     {"node1": [_rp(("3000", "0")), _rp(("3000", "0"))],
      "node2": [_rp(("3000", "0")), _rp(("3000", "5000"))]},
     {"node1": 70, "node2": 57}),
    ("resources requested, pods scheduled with resources, differently sized nodes", TWO_REQ,
     [("node1", _cap("10000", "20000")), ("node2", _cap("10000", "50000"))],
     {"node1": [_rp(("3000", "0"))], "node2": [_rp(("3000", "5000"))]},
     {"node1": 57, "node2": 60}),
    ("requested resources exceed node capacity", (("3000", "0"),),
     [("node1", _cap("4000", "10000")), ("node2", _cap("4000", "10000"))],
     {"node1": [_rp(("3000", "0"))], "node2": [_rp(("3000", "5000"))]},
     {"node1": 50, "node2": 25}),
    ("zero node resources, pods scheduled with resources", [],
     [("node1", _cap()), ("node2", _cap())],
     {"node1": [_rp(("3000", "0"))], "node2": [_rp(("3000", "5000"))]},
     {"node1": 0, "node2": 0}),
    ("test case for ScoringStrategy LeastAllocated (TestFitScore)", (("1000", "2000"),),
     [("node1", _cap("4000", "10000")), ("node2", _cap("6000", "10000"))],
     {"node1": [_rp(("2000", "4000"))], "node2": [_rp(("1000", "2000"))]},
     {"node1": 32, "node2": 63}),
]


@pytest.mark.parametrize(("reqs", "nodes", "pods_on", "want"),
                         [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_least_allocated_on_every_path(reqs, nodes, pods_on, want) -> None:
    """``leastResourceScorer`` (weights cpu 1, memory 1; the pod's non-zero requests):
    the table's score from ``score`` on many nodes (numpy), on a few (Python ints) and
    from ``score_node`` one node at a time."""
    incoming = _pod("p", [{"cpu": c, "memory": m} for c, m in reqs])
    objects, origin = _copies(nodes, pods_on)
    cluster, state = _state(objects, incoming)
    plugin = NodeResourcesFit()
    idx = np.array([cluster.node_index[n] for n in origin], np.int64)
    got: dict[str, set[int]] = {name: set() for name, _a in nodes}
    for group in (idx, idx[:1], idx[:SMALL], idx[-SMALL:]):
        for i, s in zip(group.tolist(), plugin.score(state, group).tolist(), strict=True):
            got[origin[cluster.nodes[i].name]].add(s)
    for i in idx.tolist():
        got[origin[cluster.nodes[i].name]].add(plugin.score_node(state, i))
    assert got == {name: {score} for name, score in want.items()}
