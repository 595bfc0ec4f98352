"""Per-node counts of bound pods, kept up to date incrementally (speed only).

InterPodAffinity and PodTopologySpread sum, per topology domain, the bound pods that
match a selector or carry a term. Rescanning every bound pod for every incoming pod is
quadratic over a workload; here each count is an array over nodes that is recounted only
for the nodes in ``Snapshot.change_log`` since it was last read (a bind or removal changes
one node), and summed per domain with one ``np.bincount``. Everything is memoised on the
cluster (``scheduler.cache.node_cached``), so it starts afresh when nodes change.

The counts are exactly what a full scan gives; ``tests/scheduler/test_pod_counts.py`` compares them
with one after random binds and removals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.cache import node_cached
from kubepreempt.snapshot import Snapshot

_MAX_ENTRIES = 512  # predicates kept per cluster; a burst of new shapes starts afresh


class _Tracked:
    """A consumer of ``Snapshot.change_log``: the nodes changed since it last looked."""

    __slots__ = ("pos", "epoch")

    def __init__(self) -> None:
        self.pos = -1  # -1: never read, everything must be counted
        self.epoch = -1

    def changed(self, cluster: Snapshot) -> np.ndarray | None | bool:
        """True: recount every node; None: nothing changed; else the changed rows."""
        log = cluster.change_log
        if self.pos < 0 or self.epoch != cluster.change_epoch or self.pos > len(log):
            self.pos, self.epoch = len(log), cluster.change_epoch
            return True
        if self.pos == len(log):
            return None
        rows = log[self.pos:]
        self.pos = len(log)
        return np.unique(np.array(rows, np.int64)) if len(rows) > 1 else np.array(rows)


class NodePodCounts(_Tracked):
    """Per node, how many bound pods satisfy ``predicate``."""

    __slots__ = ("predicate", "counts")

    def __init__(self, predicate: Callable[[Pod], bool], n: int) -> None:
        super().__init__()
        self.predicate = predicate
        self.counts = np.zeros(n, np.int64)

    def get(self, cluster: Snapshot) -> np.ndarray:
        """The up-to-date counts (do not mutate)."""
        rows = self.changed(cluster)
        if rows is None:
            return self.counts
        node_pods = cluster.node_pods
        match = self.predicate
        it: Iterable[int] = range(len(node_pods)) if rows is True else rows.tolist()
        counts = self.counts
        for i in it:
            pods = node_pods[i]
            counts[i] = sum(1 for p in pods.values() if match(p)) if pods else 0
        return counts


def node_pod_counts(cluster: Snapshot, key: Hashable,
                    predicate: Callable[[Pod], bool]) -> np.ndarray:
    """Per node, the bound pods satisfying ``predicate``; ``key`` must identify it."""
    table = node_cached(cluster, ("pod-counts",), lambda c: {})
    entry = table.get(key)
    if entry is None:
        if len(table) >= _MAX_ENTRIES:
            table.clear()
        entry = table[key] = NodePodCounts(predicate, len(cluster.nodes))
    return entry.get(cluster)


class CarriedTerms(_Tracked):
    """Per node, how many bound pods carry each of ``terms_of(pod)``'s hashable items."""

    __slots__ = ("terms_of", "per_node", "arrays")

    def __init__(self, terms_of: Callable[[Pod], Iterable[Hashable]], n: int) -> None:
        super().__init__()
        self.terms_of = terms_of
        self.per_node: list[Counter | None] = [None] * n
        self.arrays: dict[Hashable, np.ndarray] = {}

    def get(self, cluster: Snapshot) -> dict[Hashable, np.ndarray]:
        """item -> per-node counts (items no bound pod carries are dropped)."""
        rows = self.changed(cluster)
        if rows is None:
            return self.arrays
        n = len(cluster.nodes)
        node_pods = cluster.node_pods
        it: Iterable[int] = range(n) if rows is True else rows.tolist()
        arrays = self.arrays
        for i in it:
            fresh: Counter | None = None
            for p in node_pods[i].values():
                if p.affinity is not None:
                    for item in self.terms_of(p):
                        if fresh is None:
                            fresh = Counter()
                        fresh[item] += 1
            old = self.per_node[i]
            if old == fresh:
                continue
            for item, k in (old or {}).items():
                arrays[item][i] -= k
            for item, k in (fresh or {}).items():
                arr = arrays.get(item)
                if arr is None:
                    arr = arrays[item] = np.zeros(n, np.int64)
                arr[i] += k
            self.per_node[i] = fresh
        for item in [item for item, arr in arrays.items() if not arr.any()]:
            del arrays[item]
        return arrays


def carried_terms(cluster: Snapshot, key: Hashable,
                  terms_of: Callable[[Pod], Iterable[Hashable]]) -> dict[Hashable, np.ndarray]:
    """item -> per-node count of bound pods carrying it (``terms_of`` lists a pod's)."""
    table = node_cached(cluster, ("carried-terms",), lambda c: {})
    entry = table.get(key)
    if entry is None:
        entry = table[key] = CarriedTerms(terms_of, len(cluster.nodes))
    return entry.get(cluster)


def domains(cluster: Snapshot, key: str) -> tuple[np.ndarray, list[str]]:
    """Each node's domain index for topology ``key`` (-1: no such label) and the values."""
    def compute(c: Snapshot) -> tuple[np.ndarray, list[str]]:
        index: dict[str, int] = {}
        ids = np.fromiter((index.setdefault(v, len(index)) if (v := n.labels.get(key))
                           is not None else -1 for n in c.nodes), np.int64, len(c.nodes))
        return ids, list(index)
    return node_cached(cluster, ("domains", key), compute)


def one_node_per_domain(cluster: Snapshot, key: str) -> bool:
    """Whether every domain of topology ``key`` holds exactly one node (hostname): a
    count per domain is then that node's own count."""
    def compute(c: Snapshot) -> bool:
        ids, values = domains(c, key)
        return len(values) == int((ids >= 0).sum())
    return node_cached(cluster, ("one-node-per-domain", key), compute)


def domain_sums(cluster: Snapshot, key: str, per_node: np.ndarray) -> np.ndarray:
    """Per domain of ``key``, the sum of ``per_node`` over the nodes carrying the label."""
    ids, values = domains(cluster, key)
    if len(values) == ids.size:  # a domain per node (hostname): ids are 0..n-1 in order
        return per_node.copy()  # the caller may keep it; counts change on refresh
    has = ids >= 0
    # float64 sums are exact for any count a cluster can hold (< 2**53).
    return np.bincount(ids[has], weights=per_node[has], minlength=len(values)).astype(np.int64)


def per_node(cluster: Snapshot, key: str, per_domain: np.ndarray) -> np.ndarray:
    """Each node's domain value of ``per_domain`` (0 where the node lacks the label)."""
    ids, values = domains(cluster, key)
    if len(values) == ids.size:  # a domain per node, in node order
        return per_domain
    out = np.zeros(ids.size, per_domain.dtype)
    has = ids >= 0
    out[has] = per_domain[ids[has]]
    return out
