"""One-node paths give exactly the vectorised paths' answers on random nodes and pods.

The per-signature score cache refreshes one node per assumed gang member through the
plugins' ``passes_node`` / ``score_node`` (Python ints and floats, no arrays), and the
snapshot updates a bound or removed pod's cells one by one. The oracle for each is the
vectorised path (``filter_nodes`` / ``score`` over many nodes, forced past the few-node
shortcuts; whole request rows added with numpy), which other tests hold to upstream's
tables.
"""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from builders.plugins import make_cluster
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.api.objects import NO_SCHEDULE, PREFER_NO_SCHEDULE, Node, Pod, Taint, Toleration
from kubepreempt.api.selectors import NodeSelector, NodeSelectorTerm, Requirement
from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins import balanced_allocation as balanced
from kubepreempt.scheduler.plugins import node_resources
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.node_affinity import NodeAffinity
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit
from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable
from kubepreempt.scheduler.plugins.resource_allocation import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
)
from kubepreempt.scheduler.plugins.taint_toleration import TaintToleration

# Small, realistic and int64-edge amounts (the vector paths wrap where Python ints do not:
# the one-node paths must hand those nodes to the vector path).
AMOUNTS = st.one_of(st.integers(0, 5000), st.integers(0, 2**40), st.sampled_from(
    [0, 1, 2**62, 2**63 - 1]))
# Rows a snapshot should never hold, but whose arithmetic must still agree.
ODD = st.one_of(AMOUNTS, st.sampled_from([-1, -5000, -(2**62), -(2**63)]))
RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods", "example.com/gpu")
TAINTS = (Taint("dedicated", "gpu", NO_SCHEDULE), Taint("spot", "", PREFER_NO_SCHEDULE),
          Taint("old", "yes", PREFER_NO_SCHEDULE))
TOLERATIONS = (Toleration("dedicated", "Equal", "gpu", NO_SCHEDULE),
               Toleration("spot", "Exists", "", PREFER_NO_SCHEDULE),
               Toleration("node.kubernetes.io/unschedulable", "Exists", "", NO_SCHEDULE))


@st.composite
def nodes_and_pod(draw, amounts=AMOUNTS, rows=ODD):
    """A cluster of 1-8 nodes with random allocatable, requested rows, taints, labels and
    cordons, and a pod with random requests, tolerations and selector."""
    count = draw(st.integers(1, 8))
    nodes = []
    for i in range(count):
        alloc = draw(st.lists(rows, min_size=5, max_size=5))
        alloc[3] = alloc[3] % 200 if alloc[3] >= 0 else alloc[3]
        nodes.append(Node(f"n{i:02d}", labels={"zone": draw(st.sampled_from(["a", "b"]))},
                          taints=tuple(draw(st.lists(st.sampled_from(TAINTS), max_size=2,
                                                     unique=True))),
                          unschedulable=draw(st.booleans()),
                          allocatable=dict(zip(RESOURCES, alloc, strict=True))))
    cluster = make_cluster(nodes)
    for i in range(count):
        cluster.alloc[i] = [nodes[i].allocatable[r] for r in RESOURCES]
        cluster.requested[i] = draw(st.lists(rows, min_size=5, max_size=5))
        cluster.nonzero[i] = draw(st.lists(rows, min_size=2, max_size=2))
    request = draw(st.lists(amounts, min_size=5, max_size=5))
    requests = {r: a for r, a in zip(RESOURCES, request, strict=True) if r != "pods"}
    selector = {"zone": draw(st.sampled_from(["a", "b"]))} if draw(st.booleans()) else {}
    pod = Pod(namespace="default", name="p", requests=requests,
              nonzero_cpu=request[0] or 100, nonzero_memory=request[1] or 200 * 2**20,
              tolerations=tuple(draw(st.lists(st.sampled_from(TOLERATIONS), max_size=3,
                                              unique=True))),
              node_selector=selector)
    return cluster, pod


def _vector(plugin, state: CycleState, nodes: np.ndarray):
    """The plugin's vectorised filter groups and scores over ``nodes`` (the few-node
    shortcuts off)."""
    with patch.object(node_resources, "SMALL", -1), patch.object(balanced, "SMALL", -1):
        failed = {i for bad, _ in plugin.filter_nodes(state, nodes) for i in bad.tolist()} \
            if hasattr(plugin, "passes_node") else set()
        scores = plugin.score(state, nodes).tolist() if hasattr(plugin, "score_node") else []
    return failed, scores


ADDED = NodeSelector((NodeSelectorTerm((Requirement("zone", "In", ("a",)),)),))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # int64 wrap in the vector paths
@settings(max_examples=examples(300), deadline=None)
@given(nodes_and_pod())
def test_one_node_filters_and_scores_match_vector_paths(case) -> None:
    cluster, pod = case
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    everything = np.arange(len(cluster.nodes), dtype=np.int64)
    plugins = (NodeResourcesFit(), BalancedAllocation(), TaintToleration(),
               NodeUnschedulable(), NodeAffinity(), NodeAffinity(added_required=ADDED))
    for plugin in plugins:
        failed, _ = _vector(plugin, state, everything)
        for i in everything.tolist():
            alone = np.array([i], np.int64)
            failed_alone, scores_alone = _vector(plugin, state, alone)
            if hasattr(plugin, "passes_node"):
                assert plugin.passes_node(state, i) == (i not in failed), plugin.name
                assert plugin.passes_node(state, i) == (i not in failed_alone), plugin.name
            if hasattr(plugin, "score_node"):
                # Normalised scores (TaintToleration) are compared over the node alone,
                # which is what the score cache asks of a node-local scorer.
                assert plugin.score_node(state, i) == scores_alone[0], plugin.name
                assert type(plugin.score_node(state, i)) is int


def test_taint_score_of_one_node_is_its_normalisation_alone() -> None:
    """DefaultNormalizeScore (reverse) over one node: 100 without untolerated
    PreferNoSchedule taints (the maximum count is 0), else 0 (the node is the maximum)."""
    cluster = make_cluster([Node("a", taints=(TAINTS[1],), allocatable={"pods": 10}),
                            Node("b", allocatable={"pods": 10})])
    pod = Pod(namespace="default", name="p")
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    plugin = TaintToleration()
    assert [plugin.score_node(state, i) for i in (0, 1)] == [0, 100]
    assert plugin.score(state, np.array([0, 1], np.int64)).tolist() == [0, 100]


STRATEGIES = st.sampled_from([
    ScoringStrategy(MOST_ALLOCATED),
    ScoringStrategy(LEAST_ALLOCATED, (("cpu", 2), ("memory", 1), ("example.com/gpu", 3))),
    ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, (("cpu", 1), ("memory", 1)),
                    ((0, 0), (50, 7), (100, 10))),
    ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, (("cpu", 1), ("example.com/gpu", 2)),
                    ((0, 10), (100, 0))),
])


# Below int64's wrap: there the scoring strategies' few-node path (which the one-node path
# shares) already answers with Python ints, as before this path existed.
@settings(max_examples=examples(200), deadline=None)
@given(nodes_and_pod(st.integers(0, 2**40), st.integers(0, 2**40)), STRATEGIES)
def test_one_node_strategy_scores_match_vector_path(case, strategy) -> None:
    cluster, pod = case
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    plugin = NodeResourcesFit(strategy)
    everything = np.arange(len(cluster.nodes), dtype=np.int64)
    vector = plugin.score(state, np.concatenate([everything] * 5))  # > 4 nodes: numpy
    assert [plugin.score_node(state, i) for i in everything.tolist()] \
        == vector.tolist()[:everything.size]


def _rows_by_vector(cluster, expected, pod: Pod, idx: int, sign: int) -> None:
    """What bind/remove did before the cell-by-cell update: whole request rows."""
    requested, prio, nonzero = expected
    vec = cluster.request_vector(pod)
    prio.setdefault(pod.priority, np.zeros_like(requested))
    if sign > 0:
        requested[idx] += vec
        prio[pod.priority][idx] += vec
    else:
        requested[idx] -= vec
        prio[pod.priority][idx] -= vec
    nonzero[idx] += sign * np.array([pod.nonzero_cpu, pod.nonzero_memory], np.int64)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # int64 wrap in the row arithmetic
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(-1, 1),
                          st.lists(AMOUNTS, min_size=3, max_size=3),
                          st.sampled_from(["cpu", "memory", "example.com/gpu",
                                           "example.com/new", "pods"])),
                min_size=1, max_size=12))
def test_bind_and_remove_cells_match_row_arithmetic(steps) -> None:
    """Binding and removing pods (amounts up to int64's edge, new resources, a ``pods``
    request) leaves ``requested``, ``prio_requested`` and ``nonzero`` as adding and
    subtracting whole request rows did, wrapping included."""
    cluster = make_cluster([Node(f"n{i}", allocatable={"cpu": 4000, "pods": 110})
                            for i in range(3)])
    expected = (cluster.requested.copy(), {}, cluster.nonzero.copy())
    bound: list[Pod] = []
    for n, (node, priority, amounts, extra) in enumerate(steps):
        if bound and amounts[2] % 3 == 0:  # remove the oldest bound pod
            pod = bound.pop(0)
            idx = cluster.node_index[pod.node_name]
            cluster.remove(pod)
            _rows_by_vector(cluster, expected, pod, idx, -1)
        else:
            pod = Pod(namespace="default", name=f"p{n}", priority=priority,
                      requests={"cpu": amounts[0], extra: amounts[1]},
                      nonzero_cpu=min(amounts[0], 2**62) or 100, nonzero_memory=2**20)
            cluster.bind(pod, f"n{node}")
            bound.append(pod)
            requested, prio, nonzero = expected
            width = cluster.requested.shape[1]
            if requested.shape[1] < width:  # a new resource column
                pad = width - requested.shape[1]
                requested = np.hstack([requested, np.zeros((3, pad), np.int64)])
                prio = {p: np.hstack([rows, np.zeros((3, pad), np.int64)])
                        for p, rows in prio.items()}
                expected = (requested, prio, nonzero)
            _rows_by_vector(cluster, expected, pod, node, 1)
        requested, prio, nonzero = expected
        assert cluster.requested.tolist() == requested.tolist()
        assert cluster.nonzero.tolist() == nonzero.tolist()
        for p, rows in prio.items():
            # (a priority's rows gain new resource columns when next read or written)
            actual = cluster.prio_requested[p]
            assert not actual[:, rows.shape[1]:].any()
            assert actual[:, :rows.shape[1]].tolist() == rows[:, :actual.shape[1]].tolist()
            assert not rows[:, actual.shape[1]:].any()
