"""NodeResourcesFit: requests must fit in allocatable minus requested; scoring strategy.

Filter reasons follow upstream ``fitsRequest``: "Too many pods", "Insufficient cpu",
"Insufficient memory", "Insufficient ephemeral-storage", "Insufficient <extended>". The status
is Unschedulable (preemption may help) unless the pod requests more of some resource than the
node's whole allocatable (``InsufficientResource.Unresolvable``; never for the pod count): then
it is UnschedulableAndUnresolvable, and DefaultPreemption leaves the node out ("Preemption is
not helpful for scheduling"). A resource the pod does not request is not checked.
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
    unresolvable,
    unschedulable,
)
from kubepreempt.scheduler.plugins.resource_allocation import (
    ScoringStrategy,
    strategy_score_one,
    strategy_scores,
)
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


def beyond_allocatable(state: CycleState, alloc: np.ndarray) -> np.ndarray:
    """Boolean (...): where the pod requests more of some resource than the node's whole
    allocatable (upstream ``fitsRequest``'s ``Unresolvable``), so that removing pods cannot
    make it fit. The pod count never counts here."""
    req = state.request
    over = (req > 0) & (req > alloc)
    over[..., PODS] = False
    return over.any(axis=-1)


def fit_status(resources: list[str], fail_row: np.ndarray, beyond: bool) -> Status:
    """Upstream ``Fit.Filter``'s status for one node's failing resources: Unschedulable, or
    UnschedulableAndUnresolvable when a request exceeds the whole allocatable."""
    make = unresolvable if beyond else unschedulable
    return make(NodeResourcesFit.name, *reasons_for(resources, fail_row))


def failure_groups(resources: list[str], fail: np.ndarray,
                   beyond: np.ndarray) -> list[tuple[np.ndarray, Status]]:
    """Rows grouped by failure pattern (failing resources and ``beyond``), each group with
    its status, in pattern order; rows that do not fail are left out."""
    bad_rows = fail.any(axis=1)
    if not bad_rows.any():
        return []
    where = np.flatnonzero(bad_rows)
    bad = fail[bad_rows]
    width = bad.shape[1]
    # One status per distinct pattern; the unresolvable flag is one more bit.
    codes = bad.astype(np.int64) @ (1 << np.arange(width, dtype=np.int64)) \
        + (beyond[bad_rows].astype(np.int64) << width)
    out = []
    for code in np.unique(codes).tolist():
        pick = codes == code
        out.append((where[pick], fit_status(resources, bad[np.argmax(pick)], code >> width)))
    return out


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
        alloc = cluster.alloc[view.index]
        fail = insufficient(state, view.requested, alloc)
        if fail.any():
            return fit_status(cluster.resources, fail, bool(beyond_allocatable(state, alloc)))
        return None

    def filter_nodes(self, state: CycleState, nodes: np.ndarray):
        cluster = state.cluster
        _sync(state)
        if nodes.size <= SMALL:
            few = self._filter_few(state, nodes)
            if few is not None:
                return few
        alloc = cluster.alloc[nodes]
        fail = insufficient(state, cluster.requested[nodes], alloc)
        return [(nodes[rows], status) for rows, status in
                failure_groups(cluster.resources, fail, beyond_allocatable(state, alloc))]

    def filter_nodes_adding(self, state: CycleState, nodes: np.ndarray, extra: np.ndarray):
        """``filter_nodes`` with ``extra`` (per node, summed requests) held on the nodes as
        if running: the nominated pods of the two-pass check (``filter_with_nominated``)."""
        cluster = state.cluster
        _sync(state)
        alloc = cluster.alloc[nodes]
        used = cluster.requested[nodes].copy()
        used[:, :extra.shape[1]] += extra
        fail = insufficient(state, used, alloc)
        return [(nodes[rows], status) for rows, status in
                failure_groups(cluster.resources, fail, beyond_allocatable(state, alloc))]

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
                beyond = any(r > 0 and r > a for c, (r, a)
                             in enumerate(zip(req, alloc, strict=True)) if c != PODS)
                code = sum(1 << c for c, f in enumerate(fail) if f) + (beyond << len(fail))
                groups.setdefault(code, ([], fail))[0].append(i)
        width = len(req)
        return [(np.array(ix, np.int64), fit_status(cluster.resources, np.array(row),
                                                    bool(code >> width)))
                for code, (ix, row) in sorted(groups.items())]

    def passes_node(self, state: CycleState, index: int) -> bool:
        """Whether ``filter_nodes`` would pass node ``index`` alone, with Python ints (the
        score cache refreshes one node per assumed gang member; tests compare both).

        Only the requested columns and the pod count can fail; the vector path's
        ``alloc - requested`` cannot wrap there unless a value is negative, and
        ``requested + 1`` only at int64's maximum: those nodes take the vector path.
        """
        cluster = state.cluster
        alloc, requested = cluster.alloc, cluster.requested
        if state.request.shape[0] < alloc.shape[1]:
            _sync(state)
        count, capacity = requested.item(index, PODS), alloc.item(index, PODS)
        wraps = count < 0 or count >= _INT64_MAX or capacity < 0
        if not wraps:
            if count + 1 > capacity:
                return False
            for col, r in enumerate(state.request.tolist()):
                if r > 0 and col != PODS:
                    a, u = alloc.item(index, col), requested.item(index, col)
                    if a < 0 or u < 0:
                        wraps = True
                        break
                    if r > a - u:
                        return False
            else:
                return True
        return not self.filter_nodes(state, np.array([index], np.int64))

    def score_node(self, state: CycleState, index: int) -> int:
        """``score`` of node ``index`` alone, with Python ints where int64 cannot wrap."""
        cluster = state.cluster
        pod = state.pod
        if not self._least_cpu_memory:
            return strategy_score_one(self.scoring, cluster, index, pod)
        one = _least_allocated_one(cluster, index, pod.nonzero_cpu, pod.nonzero_memory)
        if one is None:
            return int(self.score(state, np.array([index], np.int64))[0])
        return one

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
        one = _least_allocated_one(cluster, i, cpu, memory)
        if one is None:
            return None
        out.append(one)
    return np.array(out, np.int64)


def _least_allocated_one(cluster, index: int, cpu: int, memory: int) -> int | None:
    """``least_allocated`` for node ``index`` with Python ints; None where int64 might
    wrap (huge or negative amounts: the vector path decides those)."""
    alloc, used = cluster.alloc, cluster.nonzero
    total = count = 0
    a = alloc.item(index, CPU)
    if a != 0:
        q = used.item(index, 0) + cpu
        if not (0 < a < _SCALAR_LIMIT and 0 <= q < _SCALAR_LIMIT):  # int64 might wrap
            return None
        count = 1
        if q <= a:
            total = (a - q) * MAX_NODE_SCORE // a
    a = alloc.item(index, MEMORY)
    if a != 0:
        q = used.item(index, 1) + memory
        if not (0 < a < _SCALAR_LIMIT and 0 <= q < _SCALAR_LIMIT):
            return None
        count += 1
        if q <= a:
            total += (a - q) * MAX_NODE_SCORE // a
    return total // count if count else 0


def _sync(state: CycleState) -> None:
    """Widen the pod's request row if the cluster grew new resource columns."""
    width = state.cluster.alloc.shape[1]
    if state.request.shape[0] < width:
        state.request = fit_request(state.cluster, state.pod, state.data.get(IGNORED_KEY, ()))


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    POD_DELETE,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)


def is_schedulable_after_pod_event(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterPodEvent``: any deleted pod that was assigned or nominated."""
    return True


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange``: ``isFit`` on an empty NodeInfo of the new node,
    room for one pod and every request."""
    assert ev.node is not None
    alloc = ev.node.allocatable
    if alloc.get("pods", 0) < 1:
        return False
    return all(v <= alloc.get(r, 0) for r, v in pod.requests.items() if v > 0)


def events_to_register() -> dict[str, QueueingHint]:
    """NodeResourcesFit's ``EventsToRegister``: Pod Delete (and scale-down), Node Add /
    UpdateNodeAllocatable, each with its queueing hint."""
    return {POD_DELETE: is_schedulable_after_pod_event,
            NODE_ADD: is_schedulable_after_node_change}
