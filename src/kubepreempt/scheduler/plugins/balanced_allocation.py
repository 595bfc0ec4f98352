"""NodeResourcesBalancedAllocation: favour nodes whose cpu and memory use stay balanced.

Score = (1 - std of the requested fractions) * 100, truncated, using the pod's actual
requests (no scoring defaults), fractions capped at 1, as upstream. Pods that request no
cpu and no memory skip this plugin (upstream returns Skip for best-effort pods).
"""

from __future__ import annotations

import numpy as np

from kubepreempt.cluster import CPU, MEMORY
from kubepreempt.scheduler.framework import MAX_NODE_SCORE, CycleState, ScorePlugin
from kubepreempt.scheduler.plugins.node_resources import SMALL


class BalancedAllocation(ScorePlugin):
    """Balanced cpu/memory allocation score (weight 1)."""

    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def node_local_score(self, state: CycleState) -> bool:
        """Per-node, not normalised across nodes (the scheduler's score cache)."""
        return True

    def relevant(self, state: CycleState) -> bool:
        req = state.pod.requests
        return req.get("cpu", 0) > 0 or req.get("memory", 0) > 0

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cluster = state.cluster
        cpu, memory = state.pod.requests.get("cpu", 0), state.pod.requests.get("memory", 0)
        if nodes.size <= SMALL:
            few = _balanced_few(cluster, nodes, cpu, memory)
            if few is not None:
                return few
        pod_req = np.array([cpu, memory], np.int64)
        alloc = cluster.alloc[nodes][:, [CPU, MEMORY]].astype(np.float64)
        requested = (cluster.requested[nodes][:, [CPU, MEMORY]] + pod_req).astype(np.float64)
        valid = alloc > 0
        frac = np.minimum(np.where(valid, requested / np.where(valid, alloc, 1.0), 0.0), 1.0)
        both = valid.all(axis=1)
        std = np.where(both, np.abs(frac[:, 0] - frac[:, 1]) / 2, 0.0)
        return ((1.0 - std) * MAX_NODE_SCORE).astype(np.int64)


_INT64_MAX = int(np.iinfo(np.int64).max)


def _balanced_few(cluster, nodes: np.ndarray, cpu: int, memory: int) -> np.ndarray | None:
    """``score`` for a few nodes with Python floats (IEEE doubles, as numpy's float64).

    None when ``requested + pod`` would wrap in int64 (the vector path decides then).
    """
    out = []
    for i in nodes.tolist():
        alloc = cluster.alloc[i, CPU:MEMORY + 1].tolist()
        used = cluster.requested[i, CPU:MEMORY + 1].tolist()
        frac = []
        for a, u, r in zip(alloc, used, (cpu, memory), strict=True):
            q = u + r
            if not -_INT64_MAX <= q <= _INT64_MAX:
                return None
            frac.append(min(float(q) / float(a), 1.0) if a > 0 else 0.0)
        std = abs(frac[0] - frac[1]) / 2 if alloc[0] > 0 and alloc[1] > 0 else 0.0
        out.append(int((1.0 - std) * MAX_NODE_SCORE))
    return np.array(out, np.int64)
