"""NodeResourcesFit's scoring strategies: LeastAllocated, MostAllocated, RequestedToCapacityRatio.

Mirrors upstream ``framework/plugins/noderesources`` (``resource_allocation.go``,
``least_allocated.go``, ``most_allocated.go``, ``requested_to_capacity_ratio.go``) and
``helper.BuildBrokenLinearFunction``. Per configured resource a node contributes
``(allocatable, requested + pod)``: cpu and memory use the *non-zero* requests (100m /
200Mi substituted for missing ones), other resources the actual requests; a resource the
node does not have, or an extended resource the pod does not request, is left out. The
per-resource scores are combined as a weighted mean with integer division (LeastAllocated,
MostAllocated) or rounded (RequestedToCapacityRatio, which also leaves out zero scores).
All arithmetic is on non-negative integers, so Python's ``//`` is Go's truncation except
for the broken-linear slope, which may be negative and is truncated explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kubepreempt.scheduler.framework import MAX_NODE_SCORE
from kubepreempt.snapshot import CPU, MEMORY, Snapshot

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
# config.MaxCustomPriorityScore: shape scores are 0..10, scaled to 0..MaxNodeScore.
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100
NATIVE = frozenset({"cpu", "memory", "ephemeral-storage"})


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    """A defaulted ``scoringStrategy``: type, (resource, weight) pairs, shape points."""

    type: str = LEAST_ALLOCATED
    resources: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
    shape: tuple[tuple[int, int], ...] = ()  # (utilization, score 0..10), sorted

    @property
    def is_default(self) -> bool:
        """LeastAllocated over cpu and memory with weight 1 (the fast path)."""
        return self.type == LEAST_ALLOCATED and self.resources == (("cpu", 1), ("memory", 1))

    def scaled_shape(self) -> tuple[tuple[int, int], ...]:
        """Shape points with scores scaled to 0..MaxNodeScore, as upstream."""
        factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
        return tuple((u, s * factor) for u, s in self.shape)


def broken_linear(shape: tuple[tuple[int, int], ...], p: int) -> int:
    """``helper.BuildBrokenLinearFunction``: piecewise-linear through ``shape``, flat
    outside it, Go integer division (truncation toward zero)."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return s
            u0, s0 = shape[i - 1]
            num = (s - s0) * (p - u0)
            den = u - u0
            step = abs(num) // den
            return s0 + (step if num >= 0 else -step)
    return shape[-1][1]


def _broken_linear_vec(shape: tuple[tuple[int, int], ...], p: np.ndarray) -> np.ndarray:
    out = np.full(p.shape, shape[-1][1], np.int64)
    done = np.zeros(p.shape, bool)
    for i, (u, s) in enumerate(shape):
        here = ~done & (p <= u)
        if i == 0:
            out[here] = s
        else:
            u0, s0 = shape[i - 1]
            num = (s - s0) * (p[here] - u0)
            out[here] = s0 + np.sign(num) * (np.abs(num) // (u - u0))
        done |= here
    return out


@lru_cache(maxsize=64)
def _scaled(strategy: ScoringStrategy) -> tuple[tuple[int, int], ...]:
    return strategy.scaled_shape()


def combine(strategy: ScoringStrategy, requested: list[int], alloc: list[int]) -> int:
    """One node's score from its per-resource (requested incl. pod, allocatable)."""
    kind = strategy.type
    shape = _scaled(strategy) if kind == REQUESTED_TO_CAPACITY_RATIO else ()
    total = weight_sum = 0
    for (_name, weight), q, a in zip(strategy.resources, requested, alloc, strict=True):
        if a == 0:
            continue
        if kind == LEAST_ALLOCATED:
            score = 0 if q > a else (a - q) * MAX_NODE_SCORE // a
        elif kind == MOST_ALLOCATED:
            score = min(q, a) * MAX_NODE_SCORE // a
        else:
            score = broken_linear(shape, MAX_UTILIZATION if q > a
                                  else q * MAX_UTILIZATION // a)
            if score <= 0:
                continue  # RequestedToCapacityRatio counts only positive scores
        total += score * weight
        weight_sum += weight
    if weight_sum == 0:
        return 0
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        return (2 * total + weight_sum) // (2 * weight_sum)  # math.Round, non-negative
    return total // weight_sum


def combine_vec(strategy: ScoringStrategy, requested: np.ndarray,
                alloc: np.ndarray) -> np.ndarray:
    """``combine`` for many nodes: ``requested``/``alloc`` are (nodes, resources)."""
    kind = strategy.type
    weights = np.array([w for _n, w in strategy.resources], np.int64)
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    if kind == LEAST_ALLOCATED:
        per = np.where(requested > alloc, 0, (alloc - requested) * MAX_NODE_SCORE // safe)
    elif kind == MOST_ALLOCATED:
        per = np.minimum(requested, alloc) * MAX_NODE_SCORE // safe
    else:
        util = np.where(requested > alloc, MAX_UTILIZATION,
                        requested * MAX_UTILIZATION // safe)
        per = _broken_linear_vec(strategy.scaled_shape(), util)
        valid = valid & (per > 0)
    w = np.where(valid, weights, 0)
    total = (np.where(valid, per, 0) * w).sum(axis=1)
    weight_sum = w.sum(axis=1)
    ws = np.maximum(weight_sum, 1)
    rounded = kind == REQUESTED_TO_CAPACITY_RATIO  # math.Round of a non-negative mean
    out = (2 * total + ws) // (2 * ws) if rounded else total // ws
    return np.where(weight_sum == 0, 0, out)


def pod_scoring_requests(strategy: ScoringStrategy, pod) -> list[int]:
    """The pod's request per configured resource (non-zero cpu/memory defaults)."""
    out = []
    for name, _w in strategy.resources:
        if name == "cpu":
            out.append(pod.nonzero_cpu)
        elif name == "memory":
            out.append(pod.nonzero_memory)
        else:
            out.append(pod.requests.get(name, 0))
    return out


def _plan(strategy: ScoringStrategy, cluster: Snapshot, pod_req: list[int]
          ) -> list[tuple[int, int]]:
    """Per configured resource: (source, column) — source 0 the non-zero requests (cpu,
    memory), 1 the actual requests, -1 left out (``calculateResourceAllocatableRequest``:
    an extended resource the pod does not request, or one that is not a node column)."""
    plan = []
    for (name, _w), amount in zip(strategy.resources, pod_req, strict=True):
        if name == "cpu" or name == "memory":
            plan.append((0, CPU if name == "cpu" else MEMORY))
            continue
        col = cluster.resource_index.get(name)
        if col is None or (amount == 0 and name not in NATIVE):
            plan.append((-1, 0))
        else:
            plan.append((1, col))
    return plan


def node_rows(strategy: ScoringStrategy, cluster: Snapshot, nodes: np.ndarray,
              pod_req: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(requested incl. the pod, allocatable) per node and configured resource."""
    k = len(strategy.resources)
    req = np.zeros((nodes.size, k), np.int64)
    alloc = np.zeros((nodes.size, k), np.int64)
    for j, (source, col) in enumerate(_plan(strategy, cluster, pod_req)):
        if source < 0:
            continue
        alloc[:, j] = cluster.alloc[nodes, col]
        used = cluster.nonzero if source == 0 else cluster.requested
        req[:, j] = used[nodes, col] + pod_req[j]
    return req, alloc


def strategy_scores(strategy: ScoringStrategy, cluster: Snapshot, nodes: np.ndarray,
                    pod) -> np.ndarray:
    """Scores of ``nodes`` under ``strategy``.

    A few nodes (the per-signature cache usually recomputes one) are done with Python ints
    from each node's rows, where numpy's per-call overhead would dominate; tests compare
    both paths."""
    pod_req = pod_scoring_requests(strategy, pod)
    if nodes.size > 4:
        req, alloc = node_rows(strategy, cluster, nodes, pod_req)
        return combine_vec(strategy, req, alloc)
    plan = _plan(strategy, cluster, pod_req)
    return np.array([_score_one(strategy, cluster, i, plan, pod_req) for i in nodes.tolist()],
                    np.int64)


def strategy_score_one(strategy: ScoringStrategy, cluster: Snapshot, index: int, pod) -> int:
    """``strategy_scores`` of node ``index`` alone (Python ints, no arrays)."""
    pod_req = pod_scoring_requests(strategy, pod)
    return _score_one(strategy, cluster, index, _plan(strategy, cluster, pod_req), pod_req)


def _score_one(strategy: ScoringStrategy, cluster: Snapshot, index: int,
               plan: list[tuple[int, int]], pod_req: list[int]) -> int:
    alloc_row = cluster.alloc[index].tolist()
    rows = (cluster.nonzero[index].tolist(), cluster.requested[index].tolist())
    req = [0 if src < 0 else rows[src][col] + amount
           for (src, col), amount in zip(plan, pod_req, strict=True)]
    alloc = [0 if src < 0 else alloc_row[col] for src, col in plan]
    return combine(strategy, req, alloc)
