"""``schedule_one``: filter every node, score the feasible ones, or run preemption.

The decision is pure: the cluster is not changed. Callers (the CLI, the simulator) apply
it. Evaluating all nodes is the default; ties between equal best scores go to the node
whose name sorts first (upstream picks randomly among them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster, NodeView
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.profile import Profile, default_profile


class NodeStatuses(MutableMapping[int, Status]):
    """Node index -> Status, stored as one small code per node.

    Thousands of nodes usually share a handful of distinct statuses; assigning a status to
    an array of nodes is one numpy store instead of a Python loop, and counting reasons for
    the fit-error message is one ``bincount``.
    """

    __slots__ = ("_codes", "_table", "_ids")

    def __init__(self, num_nodes: int) -> None:
        self._codes = np.full(num_nodes, -1, np.int32)
        self._table: list[Status] = []
        self._ids: dict[Status, int] = {}

    def _id(self, status: Status) -> int:
        code = self._ids.get(status)
        if code is None:
            code = self._ids[status] = len(self._table)
            self._table.append(status)
        return code

    def set_many(self, nodes: np.ndarray, status: Status) -> None:
        """Give every node in ``nodes`` the same status."""
        self._codes[nodes] = self._id(status)

    def _code(self, key: Any) -> int:
        if isinstance(key, int | np.integer) and 0 <= key < self._codes.shape[0]:
            return int(self._codes[key])
        return -1

    def __getitem__(self, key: int) -> Status:
        code = self._code(key)
        if code < 0:
            raise KeyError(key)
        return self._table[code]

    def __contains__(self, key: object) -> bool:
        return self._code(key) >= 0

    def __setitem__(self, key: int, status: Status) -> None:
        self._codes[key] = self._id(status)

    def __delitem__(self, key: int) -> None:
        if self._code(key) < 0:
            raise KeyError(key)
        self._codes[key] = -1

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self._codes >= 0).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self._codes >= 0))

    def counts(self) -> list[tuple[Status, int]]:
        """Each distinct status with how many nodes have it."""
        codes = self._codes[self._codes >= 0]
        if not codes.size:
            return []
        per = np.bincount(codes, minlength=len(self._table))
        return [(st, int(n)) for st, n in zip(self._table, per.tolist(), strict=True) if n]

    def copy(self) -> NodeStatuses:
        """An independent copy."""
        out = NodeStatuses.__new__(NodeStatuses)
        out._codes, out._table, out._ids = self._codes.copy(), list(self._table), dict(self._ids)
        return out

    def nodes_where(self, predicate) -> np.ndarray:
        """Sorted indices of the nodes whose status satisfies ``predicate``."""
        good = np.array([bool(predicate(st)) for st in self._table] + [False], bool)
        return np.flatnonzero(good[self._codes])  # code -1 picks the trailing False


@dataclass(slots=True)
class FilterOutcome:
    """Feasible node indices and, for every other node, the status that rejected it."""

    feasible: np.ndarray
    statuses: MutableMapping[int, Status] = field(default_factory=dict)
    prefilter: Status | None = None


def fit_error_message(num_nodes: int, statuses: Mapping[int, Status] | list[Status],
                      prefilter: Status | None = None) -> str:
    """Upstream ``FitError.Error()``: "0/N nodes are available: <count reason>, ...."."""
    msg = f"0/{num_nodes} nodes are available"
    if prefilter is not None:
        return f"{msg}: {prefilter.message()}."
    counts: Counter[str] = Counter()
    if isinstance(statuses, NodeStatuses):
        pairs = statuses.counts()
    else:
        values = statuses.values() if isinstance(statuses, Mapping) else statuses
        pairs = [(st, 1) for st in values]
    for status, n in pairs:
        for reason in status.reasons:
            counts[reason] += n
    parts = sorted(f"{n} {reason}" for reason, n in counts.items())
    return f"{msg}: {', '.join(parts)}." if parts else f"{msg}."


class Scheduler:
    """The scheduling algorithm over one cluster snapshot."""

    def __init__(self, cluster: Cluster, profile: Profile | None = None,
                 nominator: Nominator | None = None) -> None:
        self.cluster = cluster
        self.profile = profile or default_profile()
        self.nominator = nominator if nominator is not None else Nominator.from_pending(
            cluster.pending.values(), cluster.node_index)
        self._fast_cache: dict[tuple, _Cached] = {}
        self._status_cache: dict[tuple, _CachedStatuses] = {}

    # ---- cycle state ----------------------------------------------------------------------
    def new_state(self, pod: Pod) -> tuple[CycleState, Status | None, list[FilterPlugin]]:
        """Run PreFilter: per-pod plugin data, and the filters that matter for this pod."""
        state = CycleState(pod, self.cluster, self.cluster.request_vector(pod))
        active = []
        for plugin in self.profile.filters:
            if not plugin.relevant(state):
                continue
            status = plugin.pre_filter(state)
            if status is not None and status.code != Code.SUCCESS:
                if status.code == Code.SKIP:
                    continue
                return state, status, []
            active.append(plugin)
        return state, None, active

    # ---- filtering ------------------------------------------------------------------------
    @staticmethod
    def run_filters(
        state: CycleState, view: NodeView, filters: list[FilterPlugin]
    ) -> Status | None:
        """All filters on one node view; the first rejection wins, as upstream."""
        for plugin in filters:
            status = plugin.filter(state, view)
            if status is not None:
                return status
        return None

    def filter_with_nominated(self, state: CycleState, view: NodeView,
                              filters: list[FilterPlugin]) -> Status | None:
        """Upstream ``RunFilterPluginsWithNominatedPods``: the two-pass check.

        Pass 1 adds the pods nominated to this node with priority >= the pod's; if the pod
        passes and any were added, pass 2 checks again without them (they may be what an
        inter-pod affinity relied on, yet they are not running).
        """
        pod = state.pod
        nominees = [p for p in self.nominator.on_node(view.node.name)
                    if p.key != pod.key and p.priority >= pod.priority]
        if nominees:
            state1 = state.clone()
            view1 = view.clone()
            for other in nominees:
                add_to_view(state1, view1, other, filters)
            status = self.run_filters(state1, view1, filters)
            if status is not None:
                return status
        return self.run_filters(state, view, filters)

    def find_feasible(self, pod: Pod, state: CycleState | None = None,
                      filters: list[FilterPlugin] | None = None) -> FilterOutcome:
        """Filter all nodes; vector paths for most, the two-pass check where nominees are."""
        if state is None:
            state, prefilter, filters = self.new_state(pod)
            if prefilter is not None:
                statuses = NodeStatuses(len(self.cluster.nodes))
                statuses.set_many(np.arange(len(self.cluster.nodes)), prefilter)
                return FilterOutcome(np.zeros(0, np.int64), statuses, prefilter)
        assert filters is not None
        cluster = self.cluster
        n = len(cluster.nodes)
        remaining = np.arange(n, dtype=np.int64)
        statuses = NodeStatuses(n)
        special = sorted(cluster.node_index[n] for n in
                         self.nominator.nodes_with_nominees(pod.priority, pod.key)
                         if n in cluster.node_index)
        cached = self._cached_statuses(pod, state, filters)
        if cached is not None:
            statuses = cached
            alive = statuses._codes < 0
            if special:
                statuses._codes[special] = -1
                alive[special] = False
            remaining = np.flatnonzero(alive)
            filters_to_run: list[FilterPlugin] = []
        else:
            alive = np.ones(n, bool)
            if special:
                alive[special] = False
                remaining = np.flatnonzero(alive)
            filters_to_run = filters
        if state.node_names is not None:
            # Upstream evaluates only PreFilter's nodes; the rest get one absent-node status.
            outside = np.array([i for i, node in enumerate(cluster.nodes)
                                if node.name not in state.node_names], np.int64)
            if outside.size:
                statuses.set_many(outside, absent_status(filters))
                alive[outside] = False
                remaining = np.flatnonzero(alive)
            special = [i for i in special if cluster.nodes[i].name in state.node_names]
        if filters_to_run:
            remaining = remaining[_filter_rows(state, filters_to_run, remaining, statuses)]
        passed = [remaining]
        for i in special:
            status = self.filter_with_nominated(state, cluster.node_view(i), filters)
            if status is None:
                passed.append(np.array([i], np.int64))
            else:
                statuses[i] = status
        feasible = np.sort(np.concatenate(passed)) if len(passed) > 1 else remaining
        return FilterOutcome(feasible, statuses)

    def _cached_statuses(self, pod: Pod, state: CycleState,
                         filters: list[FilterPlugin]) -> NodeStatuses | None:
        """Every node's filter status (nominees ignored) from a per-signature cache.

        With node-local filters only, a node's status depends on that node and the pod's
        signature, so only nodes in ``Cluster.change_log`` since the last call are filtered
        again. A failed cycle (the preemption workloads) then costs O(changed nodes) plus a
        copy instead of every filter over every node. ``None`` when it does not apply.
        """
        if not filters or not all(getattr(f, "node_local", False) for f in filters):
            return None
        cluster = self.cluster
        try:
            key = (state.request.tobytes(), pod.tolerations, tuple(pod.node_selector.items()),
                   pod.affinity, pod.node_name, pod.host_ports, tuple(f.name for f in filters))
            entry, rows = _refresh(self._status_cache, key, cluster,
                                   lambda n, stamp: _CachedStatuses(NodeStatuses(n), stamp, 0))
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        if rows is not None:
            entry.statuses._codes[rows] = -1
            _filter_rows(state, filters, rows, entry.statuses)
        return entry.statuses.copy()

    # ---- scoring --------------------------------------------------------------------------
    def score(self, state: CycleState, feasible: np.ndarray) -> dict[str, np.ndarray]:
        """Weighted, normalised score per plugin over ``feasible`` nodes."""
        out: dict[str, np.ndarray] = {}
        for plugin in self.profile.scorers:
            if not plugin.score_relevant(state):
                continue
            plugin.pre_score(state, feasible)
            out[plugin.name] = plugin.score(state, feasible) * plugin.weight
        return out

    def select_host(self, state: CycleState, feasible: np.ndarray) -> tuple[int, dict]:
        """Highest total score; ties to the first node by name. One feasible node: no scoring."""
        if feasible.size == 1:
            return int(feasible[0]), {}
        scores = self.score(state, feasible)
        total = np.zeros(feasible.size, np.int64)
        for part in scores.values():
            total += part
        return int(feasible[int(np.argmax(total))]), scores


    # ---- the incremental fast path ----------------------------------------------------------
    def fast_pick(self, pod: Pod, state: CycleState, filters: list[FilterPlugin]) -> int | None:
        """The node ``find_feasible`` + ``select_host`` would pick, from a per-signature cache.

        Applies when every active filter is *node-local* (a node's verdict depends only on
        that node and the pod's scheduling signature: plugins declare ``node_local``) and no
        node holds a nominee that counts for this pod. The cache keeps, per signature, the
        summed node-local scores of every node (``node_local_score``; minimum int64 where
        infeasible) and recomputes only the nodes whose pods changed since
        (``Cluster.change_log``) with the plugins' own code; other scorers run as usual on
        the feasible nodes, so the pick is the same. Returns ``None`` when the full path
        must run (including when no node is feasible: preemption needs every status).
        """
        cluster = self.cluster
        if state.node_names is not None:
            return None  # PreFilter narrowed the nodes: take the full path
        if not all(getattr(f, "node_local", False) for f in filters):
            return None
        scorers, others = [], []
        for s in self.profile.scorers:
            if s.score_relevant(state):
                local = getattr(s, "node_local_score", None)
                (scorers if local is not None and local(state) else others).append(s)
        if self.nominator.nodes_with_nominees(pod.priority, pod.key):
            return None
        try:
            key = (state.request.tobytes(), pod.nonzero_cpu, pod.nonzero_memory,
                   pod.tolerations, tuple(pod.node_selector.items()), pod.affinity,
                   pod.node_name, pod.host_ports, tuple(f.name for f in filters),
                   tuple(s.name for s in scorers), tuple(s.name for s in others))
            entry, rows = _refresh(self._fast_cache, key, cluster,
                                   lambda n, stamp: _Cached(np.empty(n, np.int64), stamp, 0))
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        n = len(cluster.nodes)
        if rows is not None:
            entry.total[rows] = self._local_totals(state, filters, scorers, rows)
        total = entry.total
        if others:
            # Scores normalised over the feasible nodes are computed afresh, over exactly
            # the nodes select_host would score.
            feasible = np.flatnonzero(total != _INFEASIBLE)
            if feasible.size <= 1:
                return int(feasible[0]) if feasible.size else None
            total = np.full(n, _INFEASIBLE, np.int64)
            part = entry.total[feasible].copy()
            for plugin in others:
                plugin.pre_score(state, feasible)
                part += plugin.score(state, feasible) * plugin.weight
            total[feasible] = part
        if not total.size:
            return None  # no nodes at all (a simulation before its first node arrives)
        best = int(np.argmax(total))
        return best if total[best] != _INFEASIBLE else None

    @staticmethod
    def _local_totals(state: CycleState, filters: list[FilterPlugin], scorers: list,
                      rows: np.ndarray) -> np.ndarray:
        """Weighted score sums for ``rows`` (``_INFEASIBLE`` where a filter rejects)."""
        alive = _filter_rows(state, filters, rows)
        remaining = rows[alive]
        out = np.full(rows.size, _INFEASIBLE, np.int64)
        if remaining.size:
            total = np.zeros(remaining.size, np.int64)
            for plugin in scorers:
                plugin.pre_score(state, remaining)
                total += plugin.score(state, remaining) * plugin.weight
            out[alive] = total
        return out


_INFEASIBLE = np.iinfo(np.int64).min


def _filter_rows(state: CycleState, filters: list[FilterPlugin], rows: np.ndarray,
                 statuses: NodeStatuses | None = None) -> np.ndarray:
    """Run ``filters`` in order over ``rows`` (sorted node indices), each plugin on the
    nodes still passing; the mask over ``rows`` of those passing all. A node's first
    failure goes into ``statuses`` when given, as in the full filter pass."""
    alive = np.ones(rows.size, bool)
    remaining = rows
    for plugin in filters:
        if remaining.size == 0:
            break
        failed = plugin.filter_nodes(state, remaining)
        if failed:
            for bad, status in failed:
                if statuses is not None:
                    statuses.set_many(bad, status)
                alive[np.searchsorted(rows, bad)] = False
            remaining = rows[alive]
    return alive


_CACHE_ENTRIES = 256  # signatures kept per cache; a burst of new shapes starts it afresh


def _refresh(cache: dict, key: tuple, cluster: Cluster,
             make: Callable[[int, tuple], Any]) -> tuple[Any, np.ndarray | None]:
    """The per-signature cache entry for ``key`` and the node rows it must recompute.

    A new entry (or one made stale by node changes) covers every node; otherwise only the
    nodes in ``Cluster.change_log`` since the entry was last brought up to date. ``None``
    means the entry is current. Raises TypeError for an unhashable key.
    """
    n = len(cluster.nodes)
    log = cluster.change_log
    stamp = (cluster.node_generation, cluster.change_epoch, n, cluster.alloc.shape[1])
    entry = cache.get(key)
    if entry is None or entry.stamp != stamp:
        if len(cache) >= _CACHE_ENTRIES:
            cache.clear()
        entry = cache[key] = make(n, stamp)
        rows: np.ndarray | None = np.arange(n, dtype=np.int64)
    else:
        fresh = len(log) - entry.pos
        # One bind since the last pod is the common case: skip np.unique's sort.
        rows = (None if fresh == 0 else np.array(log[-1:], np.int64) if fresh == 1
                else np.unique(np.array(log[entry.pos:], np.int64)))
    if rows is not None:
        entry.pos = len(log)
    return entry, rows


@dataclass(slots=True)
class _Cached:
    """One signature's per-node totals and the change-log position they reflect."""

    total: np.ndarray
    stamp: tuple
    pos: int


@dataclass(slots=True)
class _CachedStatuses:
    """One signature's per-node filter statuses and the change-log position they reflect."""

    statuses: NodeStatuses
    stamp: tuple
    pos: int


def absent_status(filters: list[FilterPlugin]) -> Status:
    """Status of nodes a PreFilter node-name result left out (upstream wording)."""
    names = sorted(f.name for f in filters if f.name == "NodeAffinity")
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  (f"node(s) didn't satisfy plugin(s) [{' '.join(names)}]",), "PreFilter")


def add_to_view(state: CycleState, view: NodeView, pod: Pod,
                filters: list[FilterPlugin]) -> None:
    """Hypothetically add ``pod`` to ``view`` (and to plugins' cross-node state)."""
    view.pods.append(pod)
    view.requested = view.requested + state.cluster.request_vector(pod)
    for plugin in filters:
        plugin.add_pod(state, pod, view)


def remove_from_view(state: CycleState, view: NodeView, pod: Pod,
                     filters: list[FilterPlugin]) -> None:
    """Hypothetically remove ``pod`` from ``view`` (and from plugins' cross-node state)."""
    view.pods = [p for p in view.pods if p.key != pod.key]
    view.requested = view.requested - state.cluster.request_vector(pod)
    for plugin in filters:
        plugin.remove_pod(state, pod, view)
