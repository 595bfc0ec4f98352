"""NodeResourcesBalancedAllocation: favour nodes that the pod leaves better balanced.

Balance = (1 - std of the requested cpu/memory fractions) * 100, truncated, fractions
capped at 1, using actual requests (no scoring defaults). Current upstream
(kubernetes/kubernetes#135573, Kubernetes 1.36) scores the *change* the pod makes:
``(150 + balance_with_pod - balance_without_pod) // 2`` — 75 for no change, 50..100.
Releases up to 1.35 scored ``balance_with_pod`` alone. Pods that request no cpu and no
memory skip this plugin (upstream returns Skip for best-effort pods).
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
        used = cluster.requested[nodes][:, [CPU, MEMORY]]
        before = _balance(alloc, used.astype(np.float64))
        after = _balance(alloc, (used + pod_req).astype(np.float64))
        return (150 + after - before) // 2


def _balance(alloc: np.ndarray, requested: np.ndarray) -> np.ndarray:
    """Upstream ``balancedResourceScorer`` for cpu and memory, per row."""
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
        with_pod = [u + r for u, r in zip(used, (cpu, memory), strict=True)]
        if not all(-_INT64_MAX <= q <= _INT64_MAX for q in with_pod):
            return None
        after = _balance_one(alloc, with_pod)
        out.append((150 + after - _balance_one(alloc, used)) // 2)
    return np.array(out, np.int64)


def _balance_one(alloc: list[int], requested: list[int]) -> int:
    frac = [min(float(q) / float(a), 1.0) if a > 0 else 0.0
            for a, q in zip(alloc, requested, strict=True)]
    std = abs(frac[0] - frac[1]) / 2 if alloc[0] > 0 and alloc[1] > 0 else 0.0
    return int((1.0 - std) * MAX_NODE_SCORE)
