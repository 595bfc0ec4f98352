"""NodeResourcesFit: requests must fit in allocatable minus requested; scoring strategy.

Filter reasons follow upstream ``fitsRequest``: "Too many pods", "Insufficient cpu",
"Insufficient memory", "Insufficient ephemeral-storage", "Insufficient <extended>", all
Unschedulable (preemption may help). A resource the pod does not request is not checked.
Extended resources named in ``ignoredResources`` or whose group (the part before "/") is in
``ignoredResourceGroups`` are not checked: the pod's request row in the cycle state has
them zeroed (``fit_request``), so preemption's resource checks agree. The default score is
LeastAllocated over cpu and memory with scoring's defaults for missing requests (100m,
200Mi), integer arithmetic, weight 1 each; other strategies are in
:mod:`kubepreempt.scheduler.plugins.resource_allocation`.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.framework import (
    MAX_NODE_SCORE,
    CycleState,
    FilterPlugin,
    ScorePlugin,
    Status,
    unschedulable,
)
from kubepreempt.scheduler.plugins.resource_allocation import ScoringStrategy, strategy_scores
from kubepreempt.snapshot import CPU, MEMORY, PODS, NodeView, Snapshot

IGNORED_KEY = "NodeResourcesFit/ignored"  # CycleState data: the columns Fit ignores


def is_extended_resource(name: str) -> bool:
    """Upstream ``IsExtendedResourceName``: a domain-prefixed, non-``kubernetes.io`` name."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def ignored_columns(cluster: Snapshot, resources: frozenset[str],
                    groups: frozenset[str]) -> tuple[int, ...]:
    """The request columns of extended resources Fit does not check."""
    if not resources and not groups:
        return ()
    return tuple(i for i, r in enumerate(cluster.resources) if is_extended_resource(r)
                 and (r in resources or r.split("/", 1)[0] in groups))


def fit_request(cluster: Snapshot, pod: Pod, ignored: tuple[int, ...]) -> np.ndarray:
    """The pod's request row with ignored extended resources zeroed."""
    row = cluster.request_vector(pod)
    if ignored:
        row[list(ignored)] = 0
    return row


def insufficient(state: CycleState, requested: np.ndarray, alloc: np.ndarray) -> np.ndarray:
    """Boolean (..., resources): where the pod's request exceeds what is free."""
    req = state.request
    fail = (req > 0) & (req > alloc - requested)
    # Pod count is checked even for pods that request nothing.
    fail[..., PODS] = requested[..., PODS] + 1 > alloc[..., PODS]
    return fail


# The per-signature score cache re-evaluates only the nodes changed since the last pod
# (usually one): numpy's per-call overhead then dominates, so up to this many nodes are
# done with Python ints instead (same integer arithmetic; tests compare both paths).
SMALL = 4
# Above this, ``(alloc - requested) * 100`` wraps in int64; the vector path's result is
# kept authoritative there.
_INT64_MAX = int(np.iinfo(np.int64).max)
_SCALAR_LIMIT = _INT64_MAX // (MAX_NODE_SCORE * 4)


def reasons_for(resources: list[str], fail_row: np.ndarray) -> tuple[str, ...]:
    """Upstream's reason strings for one node's failing resources, in upstream order."""
    out = []
    if fail_row[PODS]:
        out.append("Too many pods")
    for col in (CPU, MEMORY, 2):
        if fail_row[col]:
            out.append(f"Insufficient {resources[col]}")
    extended = sorted(resources[c] for c in range(4, len(resources)) if fail_row[c])
    out.extend(f"Insufficient {r}" for r in extended)
    return tuple(out)


class NodeResourcesFit(FilterPlugin, ScorePlugin):
    """Fit filter and the configured scoring strategy (default LeastAllocated, weight 1)."""

    name = "NodeResourcesFit"
    weight = 1
    # Fit and every scoring strategy of a node depend only on that node (the score cache).
    node_local = True

    def __init__(self, scoring: ScoringStrategy | None = None,
                 ignored_resources: frozenset[str] = frozenset(),
                 ignored_groups: frozenset[str] = frozenset()) -> None:
        self.scoring = scoring or ScoringStrategy()
        self._least_cpu_memory = self.scoring.is_default  # the historical fast path
        self.ignored_resources = ignored_resources
        self.ignored_groups = ignored_groups

    def cache_key(self) -> tuple:
        """What of this plugin's args changes verdicts or scores (the signature caches)."""
        return (self.scoring, self.ignored_resources, self.ignored_groups)

    def request_row(self, cluster: Snapshot, pod: Pod) -> tuple[np.ndarray, tuple[int, ...]]:
        """The pod's request row as this plugin checks it, and the ignored columns."""
        ignored = ignored_columns(cluster, self.ignored_resources, self.ignored_groups)
        return fit_request(cluster, pod, ignored), ignored

    def node_local_score(self, state: CycleState) -> bool:
        return True

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        cluster = state.cluster
        _sync(state)
        fail = insufficient(state, view.requested, cluster.alloc[view.index])
        if fail.any():
            return unschedulable(self.name, *reasons_for(cluster.resources, fail))
        return None

    def filter_nodes(self, state: CycleState, nodes: np.ndarray):
        cluster = state.cluster
        _sync(state)
        if nodes.size <= SMALL:
            few = self._filter_few(state, nodes)
            if few is not None:
                return few
        fail = insufficient(state, cluster.requested[nodes], cluster.alloc[nodes])
        bad_rows = fail.any(axis=1)
        if not bad_rows.any():
            return []
        bad_nodes = nodes[bad_rows]
        bad = fail[bad_rows]
        # Group nodes by their failure pattern so each distinct status is built once.
        codes = bad.astype(np.int64) @ (1 << np.arange(bad.shape[1], dtype=np.int64))
        out = []
        for code in np.unique(codes):
            pick = codes == code
            row = bad[np.argmax(pick)]
            out.append((bad_nodes[pick], unschedulable(self.name,
                                                       *reasons_for(cluster.resources, row))))
        return out

    def _filter_few(self, state: CycleState, nodes: np.ndarray):
        """``filter_nodes`` for a few nodes with Python ints (same groups, same order).

        None when int64 arithmetic could wrap for a node (the vector path decides then).
        """
        cluster = state.cluster
        req = state.request.tolist()
        groups: dict[int, tuple[list[int], list[bool]]] = {}
        for i in nodes.tolist():
            alloc, used = cluster.alloc[i].tolist(), cluster.requested[i].tolist()
            if min(used) < 0 or used[PODS] >= _INT64_MAX or min(alloc) < 0:
                return None
            fail = [r > 0 and r > a - u for r, a, u in zip(req, alloc, used, strict=True)]
            fail[PODS] = used[PODS] + 1 > alloc[PODS]
            if any(fail):
                code = sum(1 << c for c, f in enumerate(fail) if f)
                groups.setdefault(code, ([], fail))[0].append(i)
        return [(np.array(ix, np.int64), unschedulable(self.name,
                                                       *reasons_for(cluster.resources, row)))
                for _code, (ix, row) in sorted(groups.items())]

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cluster = state.cluster
        pod = state.pod
        if not self._least_cpu_memory:
            return strategy_scores(self.scoring, cluster, nodes, pod)
        if nodes.size <= SMALL:
            few = _least_allocated_few(cluster, nodes, pod.nonzero_cpu, pod.nonzero_memory)
            if few is not None:
                return few
        alloc = cluster.alloc[nodes][:, [CPU, MEMORY]]
        requested = cluster.nonzero[nodes] + np.array([pod.nonzero_cpu, pod.nonzero_memory],
                                                      np.int64)
        return least_allocated(requested, alloc)


def least_allocated(requested: np.ndarray, alloc: np.ndarray) -> np.ndarray:
    """Upstream ``leastResourceScorer`` with weight 1 per column (integer division)."""
    safe = np.where(alloc == 0, 1, alloc)
    per = np.where(requested > alloc, 0, (alloc - requested) * MAX_NODE_SCORE // safe)
    valid = alloc != 0
    per = np.where(valid, per, 0)
    weight_sum = valid.sum(axis=1)
    return np.where(weight_sum == 0, 0, per.sum(axis=1) // np.maximum(weight_sum, 1))


def _least_allocated_few(cluster, nodes: np.ndarray, cpu: int, memory: int) -> np.ndarray | None:
    """``least_allocated`` for a few nodes with Python ints; None where int64 would wrap."""
    out = []
    for i in nodes.tolist():
        alloc = cluster.alloc[i, CPU:MEMORY + 1].tolist()
        used = cluster.nonzero[i].tolist()
        total = count = 0
        for a, u, r in zip(alloc, used, (cpu, memory), strict=True):
            if a == 0:
                continue
            if a >= _SCALAR_LIMIT or u + r >= _SCALAR_LIMIT:
                return None
            count += 1
            q = u + r
            if q <= a:
                total += (a - q) * MAX_NODE_SCORE // a
        out.append(total // count if count else 0)
    return np.array(out, np.int64)


def _sync(state: CycleState) -> None:
    """Widen the pod's request row if the cluster grew new resource columns."""
    width = state.cluster.alloc.shape[1]
    if state.request.shape[0] < width:
        state.request = fit_request(state.cluster, state.pod, state.data.get(IGNORED_KEY, ()))
