"""NodeResourcesFit's Python-int paths hand int64-edge nodes to the vector path.

Upstream computes in Go ``int64``: ``podRequest + requested`` and ``(capacity - requested)
* MaxNodeScore`` wrap at the edges. The vector paths do the same arithmetic in numpy
int64 (held to upstream's tables by ``tests/upstream``); the Python-int paths
(``passes_node``, ``score_node``, and ``filter_nodes`` / ``score`` on a few nodes) must
give the vector path's answer everywhere, which they do by handing any node whose
amounts could wrap (or are negative) to the vector path. A deterministic grid of edge
amounts, each column in turn, complements the random search of
``tests/scheduler/test_one_node_paths.py``.
"""

from __future__ import annotations

import itertools
from unittest.mock import patch

import numpy as np
import pytest
from builders.plugins import make_cluster

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins import node_resources
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit

RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods", "example.com/gpu")
EDGES = (0, 1, 5000, 2**62, 2**63 - 1, -1, -(2**63))
ROOMY = (8000, 8000, 8000, 110, 8)  # the columns not under test


def _cluster():
    """One node per (column, allocatable, requested) from the edge grid."""
    rows = []
    for col in (0, 1, 3):  # cpu, memory, pods
        for a, u in itertools.product(EDGES, EDGES):
            alloc, used = list(ROOMY), [0] * len(ROOMY)
            alloc[col], used[col] = a, u
            rows.append((alloc, used))
    nodes = [Node(f"n{i:03d}", allocatable=dict.fromkeys(RESOURCES, 1))
             for i in range(len(rows))]
    cluster = make_cluster(nodes)
    for i, (alloc, used) in enumerate(rows):
        cluster.alloc[i] = alloc
        cluster.requested[i] = used
        cluster.nonzero[i] = used[:2]
    return cluster


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # int64 wrap in the vector paths
@pytest.mark.parametrize("amount", [1, 5000, 2**62, 2**63 - 1])
def test_python_int_paths_match_the_vector_path_at_int64_edges(amount: int) -> None:
    cluster = _cluster()
    pod = Pod(namespace="default", name="p",
              requests={"cpu": amount, "memory": amount, "example.com/gpu": 1},
              nonzero_cpu=amount, nonzero_memory=amount)
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    plugin = NodeResourcesFit()
    everything = np.arange(len(cluster.nodes), dtype=np.int64)
    with patch.object(node_resources, "SMALL", -1):  # the vector paths only
        failed = {i: (s.code, s.reasons) for bad, s in plugin.filter_nodes(state, everything)
                  for i in bad.tolist()}
        scores = plugin.score(state, everything).tolist()
    for i in everything.tolist():
        alone = np.array([i], np.int64)
        few = {j: (s.code, s.reasons) for bad, s in plugin.filter_nodes(state, alone)
               for j in bad.tolist()}
        assert few.get(i) == failed.get(i), i
        assert plugin.passes_node(state, i) == (i not in failed), i
        assert plugin.score(state, alone).tolist() == [scores[i]], i
        assert plugin.score_node(state, i) == scores[i], i
