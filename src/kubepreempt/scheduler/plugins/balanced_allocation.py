"""NodeResourcesBalancedAllocation: favour nodes that the pod leaves better balanced.

Balance = (1 - std of the requested cpu/memory fractions) * 100, truncated, fractions
capped at 1, using actual requests (no scoring defaults). Current upstream
(kubernetes/kubernetes#135573, Kubernetes 1.36) scores the *change* the pod makes:
``(150 + balance_with_pod - balance_without_pod) // 2`` — 75 for no change, 50..100.
Releases up to 1.35 scored ``balance_with_pod`` alone. Pods that request none of the
configured resources skip this plugin (upstream returns Skip for best-effort pods).

``resources`` (``NodeResourcesBalancedAllocationArgs``, default cpu and memory) may name
other resources: with more than two fractions the deviation is the population standard
deviation; an extended resource the pod does not request, or one the node lacks, is left
out (``calculateResourceAllocatableRequest``).
"""

from __future__ import annotations

import math

import numpy as np

from kubepreempt.scheduler.framework import MAX_NODE_SCORE, CycleState, ScorePlugin
from kubepreempt.scheduler.plugins.node_resources import SMALL
from kubepreempt.scheduler.plugins.resource_allocation import NATIVE
from kubepreempt.snapshot import CPU, MEMORY, Snapshot

DEFAULT_RESOURCES = ("cpu", "memory")


class BalancedAllocation(ScorePlugin):
    """Balanced cpu/memory allocation score (weight 1)."""

    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def __init__(self, resources: tuple[str, ...] = DEFAULT_RESOURCES) -> None:
        self.resources = resources
        self._default = resources == DEFAULT_RESOURCES  # the cpu/memory fast path

    def cache_key(self) -> tuple:
        """What of this plugin's args changes scores (the signature caches)."""
        return self.resources

    def node_local_score(self, state: CycleState) -> bool:
        """Per-node, not normalised across nodes (the scheduler's score cache)."""
        return True

    def relevant(self, state: CycleState) -> bool:
        req = state.pod.requests
        if self._default:
            return req.get("cpu", 0) > 0 or req.get("memory", 0) > 0
        return any(req.get(r, 0) > 0 for r in self.resources)

    def score_node(self, state: CycleState, index: int) -> int:
        """``score`` of node ``index`` alone, with Python floats where int64 cannot wrap
        (the score cache refreshes one node per assumed gang member; tests compare)."""
        if self._default:
            requests = state.pod.requests
            one = _balanced_one(state.cluster, index, requests.get("cpu", 0),
                                requests.get("memory", 0))
            if one is not None:
                return one
        return int(self.score(state, np.array([index], np.int64))[0])

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cluster = state.cluster
        if not self._default:
            return _balanced_generic(cluster, nodes, self.resources, state.pod.requests)
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
_INT64_MIN = int(np.iinfo(np.int64).min)


def _balanced_few(cluster, nodes: np.ndarray, cpu: int, memory: int) -> np.ndarray | None:
    """``score`` for a few nodes with Python floats (IEEE doubles, as numpy's float64).

    None when a node's ``requested + pod`` would wrap in int64 or an amount is negative
    (the vector path decides then).
    """
    out = []
    for i in nodes.tolist():
        one = _balanced_one(cluster, i, cpu, memory)
        if one is None:
            return None
        out.append(one)
    return np.array(out, np.int64)


def _balanced_one(cluster, index: int, cpu: int, memory: int) -> int | None:
    """``score`` of node ``index`` with Python floats; None where int64 might wrap or a
    request is negative (the vector path decides those)."""
    alloc, requested = cluster.alloc, cluster.requested
    a_cpu, a_memory = alloc.item(index, CPU), alloc.item(index, MEMORY)
    u_cpu, u_memory = requested.item(index, CPU), requested.item(index, MEMORY)
    q_cpu, q_memory = u_cpu + cpu, u_memory + memory
    # Fractions stay in [0, 1] (no float64 -> int64 overflow) and nothing wraps.
    if not (u_cpu >= 0 and u_memory >= 0 and 0 <= q_cpu <= _INT64_MAX
            and 0 <= q_memory <= _INT64_MAX):
        return None
    if a_cpu <= 0 or a_memory <= 0:  # a fraction is missing: no deviation either way
        return (150 + MAX_NODE_SCORE - MAX_NODE_SCORE) // 2
    # ``_balance``'s float64 operations, with and without the pod.
    cpu_alloc, memory_alloc = float(a_cpu), float(a_memory)
    after = abs(min(float(q_cpu) / cpu_alloc, 1.0) - min(float(q_memory) / memory_alloc, 1.0))
    before = abs(min(float(u_cpu) / cpu_alloc, 1.0) - min(float(u_memory) / memory_alloc, 1.0))
    return (150 + int((1.0 - after / 2) * MAX_NODE_SCORE)
            - int((1.0 - before / 2) * MAX_NODE_SCORE)) // 2


def _balanced_generic(cluster: Snapshot, nodes: np.ndarray, resources: tuple[str, ...],
                      pod_requests) -> np.ndarray:
    """The 1.36 score for any resource list (float64 as upstream)."""
    cols, req = [], []
    for name in resources:
        col = cluster.resource_index.get(name)
        amount = pod_requests.get(name, 0)
        if col is None or (amount == 0 and name not in NATIVE):
            continue
        cols.append(col)
        req.append(amount)
    if not cols:
        return np.full(nodes.size, 75, np.int64)  # no fraction either way: no change
    alloc = cluster.alloc[nodes][:, cols].astype(np.float64)
    used = cluster.requested[nodes][:, cols]
    after = _balance_many(alloc, (used + np.array(req, np.int64)).astype(np.float64))
    before = _balance_many(alloc, used.astype(np.float64))
    return (150 + after - before) // 2


def _balance_many(alloc: np.ndarray, requested: np.ndarray) -> np.ndarray:
    """Upstream ``balancedResourceScorer`` per row over any number of resources."""
    out = np.empty(alloc.shape[0], np.int64)
    for r in range(alloc.shape[0]):
        fracs = [min(float(q) / float(a), 1.0) for a, q in
                 zip(alloc[r].tolist(), requested[r].tolist(), strict=True) if a != 0]
        std = 0.0
        if len(fracs) == 2:
            std = abs((fracs[0] - fracs[1]) / 2)
        elif len(fracs) > 2:
            mean = sum(fracs) / len(fracs)
            std = math.sqrt(sum((f - mean) * (f - mean) for f in fracs) / len(fracs))
        balance = (1 - std) * MAX_NODE_SCORE
        # Go's int64() of a value below int64's range is MinInt64 (amd64 and arm64), as
        # numpy's astype; only a wrapped negative request gets there.
        out[r] = _INT64_MIN if balance < _INT64_MIN else int(balance)
    return out
