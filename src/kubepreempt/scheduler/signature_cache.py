"""Incremental caches for filtering and scoring, keyed by a pod's scheduling signature.

Nothing here decides anything: each cache returns exactly what the reference path
(``filtering.find_feasible`` then ``scoring.select_host``) would, but recomputes only the
nodes whose pods changed since it was last used (``Snapshot.change_log``). They apply when
every active filter is *node-local* (a node's verdict depends only on that node and the
pod's signature: plugins declare ``node_local``), which covers the bulk of real pods, and
are what make ``bench`` and ``simulate`` fast. Upstream's own analogue is the scheduler
cache's per-node generation numbers (``internal/cache``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.filtering import filter_rows
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, ScorePlugin
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.statuses import NodeStatuses
from kubepreempt.snapshot import Snapshot

_INFEASIBLE = int(np.iinfo(np.int64).min)
_CACHE_ENTRIES = 256  # signatures kept per cache; a burst of new shapes starts it afresh


@dataclass(slots=True)
class _Totals:
    """One signature's per-node score totals and the change-log position they reflect."""

    total: np.ndarray
    stamp: tuple
    pos: int
    # Per node, the part of its total that no bound pod changes (the ``node_static``
    # plugins' verdicts and scores; ``_INFEASIBLE`` when one rejects it), filled as
    # one-node refreshes need it: a group cycle re-scores the node of each assumed pod.
    # The entry is made anew when a node changes (``stamp``), and with it this.
    static: dict[int, int] = field(default_factory=dict)
    split: _Split | None = None  # the key's plugins, node-static or not


@dataclass(slots=True, frozen=True)
class _Split:
    """A signature's node-local filters and scorers, those whose answer for a node
    depends on the node alone (``node_static``) apart from the others."""

    static_filters: list[FilterPlugin]
    static_scorers: list[ScorePlugin]
    filters: list[FilterPlugin]
    scorers: list[ScorePlugin]

    @staticmethod
    def of(filters: list[FilterPlugin], scorers: list[ScorePlugin]) -> _Split:
        """Split the plugins (a scorer with a PreScore stays with the others)."""
        static_f = [f for f in filters if getattr(f, "node_static", False)]
        static_s = [s for s in scorers if getattr(s, "node_static", False)
                    and "pre_score" not in s.hooks]
        return _Split(static_f, static_s, [f for f in filters if f not in static_f],
                      [s for s in scorers if s not in static_s])


@dataclass(slots=True)
class _Statuses:
    """One signature's per-node filter statuses and the change-log position they reflect."""

    statuses: NodeStatuses
    stamp: tuple
    pos: int


def all_node_local(filters: list[FilterPlugin]) -> bool:
    """Whether every filter's verdict on a node depends only on that node and the pod."""
    return all(getattr(f, "node_local", False) for f in filters)


class SignatureCache:
    """Per-signature node totals (for the pick) and filter statuses (for failed cycles)."""

    def __init__(self) -> None:
        self._totals: dict[tuple, _Totals] = {}
        self._statuses: dict[tuple, _Statuses] = {}

    def statuses(self, cluster: Snapshot, pod: Pod, state: CycleState,
                 filters: list[FilterPlugin]) -> NodeStatuses | None:
        """Every node's filter status (nominees ignored), or None where it does not apply.

        A failed cycle (the preemption workloads) then costs O(changed nodes) plus a copy
        instead of every filter over every node.
        """
        if not filters or not all_node_local(filters):
            return None
        try:
            key = (state.request.tobytes(), pod.tolerations, tuple(pod.node_selector.items()),
                   pod.affinity, pod.node_name, pod.host_ports, tuple(f.name for f in filters))
            entry, rows = _refresh(self._statuses, key, cluster,
                                   lambda n, stamp: _Statuses(NodeStatuses(n), stamp, 0))
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        if rows is not None:
            entry.statuses.clear_many(rows)
            filter_rows(state, filters, rows, entry.statuses)
        return entry.statuses.copy()

    def pick(self, cluster: Snapshot, nominator: Nominator, scorers: list[ScorePlugin],
             pod: Pod, state: CycleState, filters: list[FilterPlugin]) -> int | None:
        """The node ``find_feasible`` + ``select_host`` would pick, or None.

        Applies when no node holds a nominee that counts for this pod. Per signature it
        keeps the node-local filters' verdict and summed node-local scores of every node
        (``node_local_score``; minimum int64 where infeasible); cross-pod filters run on
        the nodes those pass and other scorers on the feasible nodes, so the pick is the
        same. ``None`` means the reference
        path must run (including when no node is feasible: preemption needs statuses).
        """
        if state.node_names is not None:
            return _pick_named(cluster, nominator, pod, state, filters)
        # Cross-pod filters (InterPodAffinity, PodTopologySpread) run afresh, over the
        # nodes the cached node-local filters pass: the feasible set is the same whatever
        # the order filters run in (only statuses depend on it, and a pick has none).
        # A cross-pod filter that is node-local this cycle (InterPodAffinity with only
        # hostname-keyed terms: ``node_local_now``) is cached with the node-local ones.
        cross = [f for f in filters if not getattr(f, "node_local", False)]
        pod_matched: tuple = ()
        if cross:
            local_now = [f for f in cross if (now := getattr(f, "node_local_now", None))
                         is not None and now(state)]
            filters = [f for f in filters if getattr(f, "node_local", False) or f in local_now]
            cross = [f for f in cross if f not in local_now]
            if local_now:  # term matching reads the pod's labels and namespace
                pod_matched = (tuple(sorted(pod.labels.items())), pod.namespace,
                               tuple(sorted(cluster.namespace_labels(pod.namespace).items())))
        local, others = [], []
        prescored: list[ScorePlugin] = []
        for s in scorers:
            if "score_relevant" not in s.hooks or s.score_relevant(state):
                node_local = getattr(s, "node_local_score", None)
                if node_local is not None and node_local(state):
                    local.append(s)
                    continue
                # A PreScore that Skips scores every node 0: it cannot change the pick.
                skips = getattr(s, "pre_score_skips", None)
                if skips is not None:
                    if skips(state):
                        continue
                    prescored.append(s)
                others.append(s)
        if nominator.counting_by_node(pod):
            return None
        try:
            key = (state.request.tobytes(), pod.nonzero_cpu, pod.nonzero_memory,
                   pod.tolerations, tuple(pod.node_selector.items()), pod.affinity,
                   pod.node_name, pod.host_ports, tuple(f.name for f in filters),
                   tuple(s.name for s in local), tuple(s.name for s in others), pod_matched)
            entry, rows = _refresh(self._totals, key, cluster,
                                   lambda n, stamp: _Totals(np.empty(n, np.int64), stamp, 0))
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        n = len(cluster.nodes)
        if rows is not None:
            if rows.size == 1:  # one pod bound or assumed since: no per-row arrays
                split = entry.split
                if split is None:  # (the key names the filters and scorers: same split)
                    split = entry.split = _Split.of(filters, local)
                entry.total[int(rows[0])] = _local_total_one_cached(state, split, rows,
                                                                    entry.static)
            else:
                entry.total[rows] = _local_totals(state, filters, local, rows)
        total = entry.total
        if others or cross:
            # Scores normalised over the feasible nodes are computed afresh, over exactly
            # the nodes select_host would score.
            feasible = np.flatnonzero(total != _INFEASIBLE)
            for plugin in cross:
                if not feasible.size:
                    break
                failed = [ix for ix, _ in plugin.filter_nodes(state, feasible)]
                if failed:
                    keep = np.ones(feasible.size, bool)
                    for ix in failed:  # subsets of the sorted feasible nodes
                        keep[np.searchsorted(feasible, ix)] = False
                    feasible = feasible[keep]
            if feasible.size <= 1:
                return int(feasible[0]) if feasible.size else None
            total = np.full(n, _INFEASIBLE, np.int64)
            part = entry.total[feasible].copy()
            for plugin in others:
                if "pre_score" in plugin.hooks and plugin not in prescored:
                    plugin.pre_score(state, feasible)
                part += plugin.score(state, feasible) * plugin.weight
            total[feasible] = part
        best = cluster.best_first_by_name(total)  # select_host's tie-break
        return best if total[best] != _INFEASIBLE else None


def _pick_named(cluster: Snapshot, nominator: Nominator, pod: Pod, state: CycleState,
                filters: list[FilterPlugin]) -> int | None:
    """PreFilter named one node (a DaemonSet pod's ``metadata.name`` affinity): it is
    picked when it passes every filter, as the reference path's only feasible node would
    be. Several named nodes (they need scoring), nominees that count, or a failure (the
    statuses of every node are needed) take the reference path."""
    assert state.node_names is not None
    if len(state.node_names) != 1 or nominator.counting_by_node(pod):
        return None
    idx = cluster.node_index.get(next(iter(state.node_names)))
    if idx is None:
        return None
    rows = np.array([idx], np.int64)
    return idx if filter_rows(state, filters, rows).all() else None


def _local_totals(state: CycleState, filters: list[FilterPlugin], scorers: list[ScorePlugin],
                  rows: np.ndarray) -> np.ndarray:
    """Weighted score sums for ``rows`` (``_INFEASIBLE`` where a filter rejects)."""
    alive = filter_rows(state, filters, rows)
    remaining = rows[alive]
    out = np.full(rows.size, _INFEASIBLE, np.int64)
    if remaining.size:
        total = np.zeros(remaining.size, np.int64)
        for plugin in scorers:
            if "pre_score" in plugin.hooks:
                plugin.pre_score(state, remaining)
            total += plugin.score(state, remaining) * plugin.weight
        out[alive] = total
    return out


def _local_total_one(state: CycleState, filters: list[FilterPlugin],
                     scorers: list[ScorePlugin], row: np.ndarray) -> int:
    """``_local_totals`` for one node (``row`` holds its index), with Python ints: a
    group cycle refreshes one node per assumed member. A plugin's ``passes_node`` /
    ``score_node`` decide that node alone without arrays (they give what ``filter_nodes``
    / ``score`` would on it; tests compare); plugins without them get a one-node array."""
    index = int(row[0])
    for plugin in filters:
        passes = getattr(plugin, "passes_node", None)
        if passes is not None:
            if not passes(state, index):
                return _INFEASIBLE
        # (a plugin may list a failure group with no node in it: that rejects nothing)
        elif any(len(bad) for bad, _ in plugin.filter_nodes(state, row)):
            return _INFEASIBLE
    total = 0
    for plugin in scorers:
        if "pre_score" in plugin.hooks:
            plugin.pre_score(state, row)
        score_node = getattr(plugin, "score_node", None)
        total += (int(plugin.score(state, row)[0]) if score_node is None
                  else score_node(state, index)) * plugin.weight
    return total


def _local_total_one_cached(state: CycleState, split: _Split, row: np.ndarray,
                            static: dict[int, int]) -> int:
    """``_local_total_one`` over every plugin of ``split``, the node-static plugins'
    part taken from ``static`` (computed and kept there the first time): the same sum,
    since a node's total is the sum of its plugins' weighted scores, or infeasible when
    any filter rejects it, in whatever order they run."""
    index = int(row[0])
    part = static.get(index)
    if part is None:
        part = static[index] = _local_total_one(state, split.static_filters,
                                                split.static_scorers, row)
    if part == _INFEASIBLE:
        return _INFEASIBLE
    rest = _local_total_one(state, split.filters, split.scorers, row)
    return _INFEASIBLE if rest == _INFEASIBLE else part + rest


def _refresh(cache: dict, key: tuple, cluster: Snapshot,
             make: Callable[[int, tuple], Any]) -> tuple[Any, np.ndarray | None]:
    """The cache entry for ``key`` and the node rows it must recompute.

    A new entry (or one made stale by node changes) covers every node; otherwise only the
    nodes in ``Snapshot.change_log`` since the entry was last brought up to date. ``None``
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
