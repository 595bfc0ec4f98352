"""How DefaultPreemption is made fast: vectorised pruning, victims and metrics per node.

Nothing here is a rule of its own. Each function gives, for many nodes at once, exactly
what the reference (``victims.select_victims_on_node`` and ``pick.pick_one_node``) gives
node by node, under conditions checked here:

- :func:`resource_prune`: nodes where the pod does not fit even without every
  lower-priority pod (with the requests of nominees that count there, when given), with
  the NodeResourcesFit (or "no victims") status the reference would record. Exact when
  NodeResourcesFit is the first filter that could still fail there (no NodePorts filter).
- :class:`PreemptionIndex`: each node's bound pods in importance order, as arrays.
- :func:`dry_run`: ``SelectVictimsOnNode`` for many nodes at once (prune, then the greedy
  reprieve one column — the k-th pod — at a time), nominees that count held as running
  (upstream ``addGENominatedPods``; fit only gets harder as pods are added, so the
  second pass without them is implied).
- :class:`PreemptionCache`: per pod signature, each node's dry-run answers, refreshed
  only for nodes changed since (``Snapshot.change_log``); nodes holding counting nominees
  have answers of their own, kept while the node and its nominees' requests are
  unchanged. A node's answer is taken from here only when the reference could not
  differ: every active filter is NodeResourcesFit or pod-independent, no PDB covers its
  pods, and every start time on it is before ``now``.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.cache import caches_of, node_cached
from kubepreempt.scheduler.framework import CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.scheduler.nominated_requests import POD_INDEPENDENT_FILTERS, NominatedRequests
from kubepreempt.scheduler.plugins.node_resources import (
    IGNORED_KEY,
    beyond_allocatable,
    failure_groups,
    fit_request,
    insufficient,
)
from kubepreempt.scheduler.preemption.pick import INT32_OFFSET, Candidate, CandidateMetrics
from kubepreempt.scheduler.preemption.victims import NO_VICTIMS, pdb_covers
from kubepreempt.scheduler.statuses import StatusTable
from kubepreempt.snapshot import PODS, Snapshot


def resource_prune(state: CycleState, cluster: Snapshot, rows: np.ndarray,
                   below: np.ndarray, nominated: np.ndarray | None = None
                   ) -> tuple[np.ndarray, list[tuple[np.ndarray, Status]]]:
    """Rows (node indices) where the pod cannot fit even without every lower-priority pod
    (``below``: their summed requests per row; ``nominated``: requests of nominees held
    as running, per row), and the status of each dropped group."""
    used = cluster.requested[rows] - below
    if nominated is not None:
        used += nominated
    fail = insufficient(state, used, cluster.alloc[rows])
    dropped = fail.any(axis=1)
    groups: list[tuple[np.ndarray, Status]] = []
    if not dropped.any():
        return dropped, groups
    no_lower = dropped & (below[:, PODS] == 0)  # the pods column counts pods
    if no_lower.any():
        groups.append((no_lower, unresolvable("DefaultPreemption", NO_VICTIMS)))
    short = dropped & ~no_lower
    if short.any():
        # One status per distinct failure pattern, as NodeResourcesFit.filter_nodes.
        alloc = cluster.alloc[rows]
        beyond = beyond_allocatable(state, alloc)
        where = np.flatnonzero(short)
        for picked, status in failure_groups(cluster.resources, fail[short], beyond[short]):
            mask = np.zeros(rows.size, bool)
            mask[where[picked]] = True
            groups.append((mask, status))
    return dropped, groups


def reprieve(state: CycleState, base: np.ndarray, alloc: np.ndarray, req: np.ndarray,
             valid: np.ndarray) -> np.ndarray:
    """Victims per row (node) and column (lower-priority pod, most important first):
    each pod is added back to ``base`` (requests without them all; updated in place)
    when it still fits, as the reference reprieve loop, every node at once."""
    victim = np.zeros(valid.shape, bool)
    for k in np.flatnonzero(valid.any(axis=0)).tolist():
        cur = base + req[:, k, :]
        fits = ~insufficient(state, cur, alloc).any(axis=1)
        back = valid[:, k] & fits
        base[back] = cur[back]
        victim[:, k] = valid[:, k] & ~fits
    return victim


class PreemptionIndex:
    """Each node's bound pods, most important first, as arrays; rebuilt per changed node.

    Rows are ordered by (priority desc, start time asc with "not started" last, key), which
    is the reference importance order whenever ``now`` is later than every start time
    on the node (checked per decision). Rows are refreshed lazily from
    ``Snapshot.change_log``, so binds cost nothing until a preemption needs them.
    """

    def __init__(self, cluster: Snapshot) -> None:
        self.cluster = cluster
        n, r = len(cluster.nodes), cluster.alloc.shape[1]
        self.width = 4
        self.stamp = (cluster.change_epoch, r)
        self.pos = len(cluster.change_log)
        self.prio = np.zeros((n, self.width), np.int64)
        self.start = np.zeros((n, self.width), np.float64)
        self.req = np.zeros((n, self.width, r), np.int64)
        self.count = np.zeros(n, np.int64)
        self.pdb_hit = np.zeros(n, bool)
        self.pods: list[list[Pod]] = [[] for _ in range(n)]
        self.pdb_count = len(cluster.pdbs)
        # Request rows by requests (pods of one template are alike); the columns are
        # fixed for the index's life (``stamp``).
        self.vectors: dict[tuple, np.ndarray] = {}
        self._rows(list(range(n)))

    @staticmethod
    def of(cluster: Snapshot) -> PreemptionIndex:
        """The cluster's index, brought up to date."""
        caches = caches_of(cluster)
        index = caches.preemption_index
        stamp = (cluster.change_epoch, cluster.alloc.shape[1])
        if (index is None or stamp != index.stamp or len(cluster.pdbs) != index.pdb_count
                or len(cluster.nodes) < len(index.pods)):
            # Nodes are only ever appended while the epoch holds (pop_nodes starts a new
            # one), so a shorter node list means another cluster state: start afresh.
            index = caches.preemption_index = PreemptionIndex(cluster)
        elif len(cluster.nodes) > len(index.pods):
            index._add_rows()
        log = cluster.change_log
        if index.pos != len(log):
            index._rows(sorted(set(log[index.pos:])))
            index.pos = len(log)
        return index

    def _add_rows(self) -> None:
        """Rows for the nodes appended since the index was built (a churned-in node)."""
        cluster = self.cluster
        old, n = len(self.pods), len(cluster.nodes)
        grow = ((0, n - old), (0, 0))
        self.prio = np.pad(self.prio, grow)
        self.start = np.pad(self.start, grow)
        self.req = np.pad(self.req, (*grow, (0, 0)))
        self.count = np.pad(self.count, (0, n - old))
        self.pdb_hit = np.pad(self.pdb_hit, (0, n - old))
        self.pods.extend([] for _ in range(old, n))
        self._rows(list(range(old, n)))

    def _rows(self, rows: list[int]) -> None:
        """Rebuild ``rows`` (node indices) from the cluster: a few array stores in all."""
        cluster = self.cluster
        inf = float("inf")

        def importance(p: Pod) -> tuple:
            return (-p.priority, inf if p.start_time is None else p.start_time, p.key)

        node_pods, pods_of = cluster.node_pods, self.pods
        widest = 0
        for i in rows:
            pods = pods_of[i] = sorted(node_pods[i].values(), key=importance)
            widest = max(widest, len(pods))
        if widest > self.width:
            grow = max(widest, 2 * self.width) - self.width
            self.width += grow
            self.prio = np.pad(self.prio, ((0, 0), (0, grow)))
            self.start = np.pad(self.start, ((0, 0), (0, grow)))
            self.req = np.pad(self.req, ((0, 0), (0, grow), (0, 0)))
        vectors = self.vectors  # request rows by requests
        shapes: dict[tuple, int] = {}
        # Pods loaded from a dump share their shape's requests dict: by its id first
        # (every dict is alive during the call, so ids are unique), then by content.
        by_id: dict[int, int] = {}
        table: list[np.ndarray] = []
        at_row: list[int] = []
        at_col: list[int] = []
        prio: list[int] = []
        start: list[float] = []
        shape_of: list[int] = []
        for i in rows:
            for j, p in enumerate(pods_of[i]):
                at_row.append(i)
                at_col.append(j)
                prio.append(p.priority)
                start.append(inf if p.start_time is None else p.start_time)
                k = by_id.get(id(p.requests))
                if k is None:
                    shape = tuple(p.requests.items())
                    k = shapes.get(shape)
                    if k is None:
                        vec = vectors.get(shape)
                        if vec is None:
                            vec = vectors[shape] = cluster.request_vector(p)
                        k = shapes[shape] = len(table)
                        table.append(vec)
                    by_id[id(p.requests)] = k
                shape_of.append(k)
        where = np.array(rows, np.int64)
        self.count[where] = [len(pods_of[i]) for i in rows]
        self.prio[where] = 0
        self.start[where] = 0.0
        self.req[where] = 0
        if at_row:
            cells = (np.array(at_row, np.int64), np.array(at_col, np.int64))
            self.prio[cells] = prio
            self.start[cells] = start
            self.req[cells] = np.array(table, np.int64)[np.array(shape_of, np.int64)]
        if cluster.pdbs:
            for i in rows:
                self.pdb_hit[i] = any(pdb_covers(pdb, p) for p in pods_of[i]
                                      for pdb in cluster.pdbs)


class NodeAnswers:
    """The dry run's answers for some nodes (aligned with the rows it was run on)."""

    __slots__ = ("drop", "fast", "latest", "highest", "psum", "count", "earliest",
                 "victim")

    def __init__(self, drop: np.ndarray, fast: np.ndarray, latest: np.ndarray,
                 highest: np.ndarray, psum: np.ndarray, count: np.ndarray,
                 earliest: np.ndarray, victim: np.ndarray) -> None:
        self.drop = drop  # code of the prune status in the cache's table, or -1
        self.fast = fast  # the answer is the reference path's (given the clock check)
        self.latest = latest  # latest real start among lower-priority pods (-inf: none)
        self.highest = highest  # node-pick metrics of the victims ...
        self.psum = psum
        self.count = count
        self.earliest = earliest
        self.victim = victim  # (rows, index width): which of the node's pods go

    @staticmethod
    def empty(n: int, width: int) -> NodeAnswers:
        """Answers for ``n`` nodes of up to ``width`` pods, none computed yet."""
        return NodeAnswers(np.full(n, -1, np.int32), np.zeros(n, bool), np.zeros(n, np.float64),
                           np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                           np.zeros(n, np.float64), np.zeros((n, width), bool))

    def store(self, into: NodeAnswers, rows: np.ndarray) -> None:
        """Write these answers into ``into`` at ``rows``."""
        for name in NodeAnswers.__slots__:
            getattr(into, name)[rows] = getattr(self, name)

    def take(self, pos: np.ndarray | slice) -> NodeAnswers:
        """The answers at positions ``pos``."""
        return NodeAnswers(*(getattr(self, name)[pos] for name in NodeAnswers.__slots__))


def dry_run(state: CycleState, index: PreemptionIndex, rows: np.ndarray,
            nominated: np.ndarray | None, indep_ok: np.ndarray,
            table: StatusTable) -> NodeAnswers:
    """``SelectVictimsOnNode`` for ``rows`` at once: every lower-priority pod removed, the
    prune verdict, then the reprieve (most important first), with ``nominated`` (per
    row, requests of nominees that count; None: no nominees) held as running.

    The filters with nominees (pass 1 of the two-pass check) decide alone: fit only gets
    harder when pods are added, so pass 2 passes whenever pass 1 does.
    """
    cluster = state.cluster
    priority = state.pod.priority
    below = cluster.requested_below(priority, rows)
    dropped, groups = resource_prune(state, cluster, rows, below, nominated)
    drop = np.full(rows.size, -1, np.int32)
    for mask, status in groups:
        drop[mask] = table.code(status)
    prio = index.prio[rows]
    start = index.start[rows]
    valid = (np.arange(prio.shape[1]) < index.count[rows][:, None]) & (prio < priority)
    finite = np.isfinite(start)
    latest = np.where(valid & finite, start, -np.inf).max(axis=1)
    base = cluster.requested[rows] - below
    if nominated is not None:
        base += nominated
    victim = reprieve(state, base, cluster.alloc[rows], index.req[rows], valid)
    fast = ~index.pdb_hit[rows] & indep_ok[rows] & ~dropped & victim.any(axis=1)
    highest = np.where(victim, prio, np.iinfo(np.int64).min).max(axis=1)
    psum = np.where(victim, prio + INT32_OFFSET, 0).sum(axis=1)
    count = victim.sum(axis=1)
    top = victim & (prio == highest[:, None]) & finite
    # Earliest real start among the top victims (inf if none started): a victim that
    # has not started counts as ``now``, later than every real start on a fast node.
    earliest = np.where(top, start, np.inf).min(axis=1)
    return NodeAnswers(drop, fast, latest, highest, psum, count, earliest, victim)


class PreemptionCache:
    """Per node, for one pod signature and priority: the prune verdict, the victims and
    the node-pick metrics, refreshed only for nodes in ``Snapshot.change_log`` since last
    use. What varies per decision (which nodes the failed cycle left, nominees, ``now``)
    is applied in :meth:`prune`.

    Nodes holding nominees that count have answers of their own (``with_nominees``),
    each for the nominees' summed requests it was computed with (``nominee_sums``): a
    node is dry-run again only when those requests or the node changed.
    """

    __slots__ = ("index", "stamp", "pos", "table", "answers", "indep_ok", "state",
                 "with_nominees", "nominee_sums", "nominee_known", "counting", "changed")

    def __init__(self, state: CycleState, filters: list[FilterPlugin], index: PreemptionIndex,
                 stamp: tuple) -> None:
        cluster = state.cluster
        n = len(cluster.nodes)
        self.index, self.stamp = index, stamp
        self.state = state
        self.pos = len(cluster.change_log)
        self.table = StatusTable()  # prune statuses by code
        self.answers = NodeAnswers.empty(n, index.width)
        self.with_nominees = NodeAnswers.empty(n, index.width)
        # the nominees' requests each node's ``with_nominees`` answer is for (valid where
        # ``nominee_known``)
        self.nominee_sums = np.zeros((n, stamp[3]), np.int64)
        self.nominee_known = np.zeros(n, bool)
        self.counting = np.zeros(n, bool)  # this decision's nodes with counting nominees
        self.changed = np.zeros(0, np.int64)  # nodes changed since their answers were computed
        everything = np.arange(n, dtype=np.int64)
        # Pod-independent filters never change verdicts when pods move (node_generation
        # is in the stamp), so they are evaluated once.
        self.indep_ok = np.ones(n, bool)
        for plugin in filters:
            if plugin.name in POD_INDEPENDENT_FILTERS:
                for bad, _st in plugin.filter_nodes(state, everything):
                    self.indep_ok[bad] = False
        dry_run(state, index, everything, None, self.indep_ok,
                self.table).store(self.answers, everything)

    @staticmethod
    def applies(filters: list[FilterPlugin]) -> bool:
        """Whether only NodeResourcesFit (and pod-independent filters) can fail."""
        names = {f.name for f in filters}
        return "NodeResourcesFit" in names and names <= (POD_INDEPENDENT_FILTERS
                                                         | {"NodeResourcesFit"})

    @staticmethod
    def of(state: CycleState, filters: list[FilterPlugin]) -> PreemptionCache | None:
        """The up-to-date cache for this pod's signature, or None where it does not apply."""
        if not PreemptionCache.applies(filters):
            return None
        cluster = state.cluster
        pod = state.pod
        if state.request.shape[0] < cluster.alloc.shape[1]:
            state.request = fit_request(cluster, pod, state.data.get(IGNORED_KEY, ()))
        try:
            key = ("preemption-cache", state.request.tobytes(), pod.priority,
                   pod.tolerations, tuple(pod.node_selector.items()), pod.affinity,
                   pod.node_name, tuple(f.name for f in filters),
                   # plugin args (the cache is per cluster, shared by every profile)
                   tuple(f.cache_key() for f in filters if hasattr(f, "cache_key")))
            hash(key)
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        index = PreemptionIndex.of(cluster)
        stamp = (cluster.node_generation, cluster.change_epoch, len(cluster.nodes),
                 cluster.alloc.shape[1], id(index), index.width)
        caches = node_cached(cluster, ("preemption-caches",), lambda _c: {})
        entry = caches.get(key)
        if entry is None or entry.stamp != stamp or entry.index is not index:
            if len(caches) >= 64:
                caches.clear()
            entry = caches[key] = PreemptionCache(state, filters, index, stamp)
            return entry
        entry.state = state  # the same signature, but this pod's key and nominees
        entry.counting[:] = False
        if entry.pos != len(cluster.change_log):
            rows = np.array(cluster.change_log[entry.pos:], np.int64)
            entry.pos = len(cluster.change_log)
            entry.changed = np.union1d(entry.changed, rows)
        return entry

    def _refresh(self, nominated: NominatedRequests | None) -> None:
        """Recompute the nodes changed since last use and, for the nodes of
        ``nominated``, the answers with nominees whose nominees or pods changed since:
        one dry run over both (its per-call cost is most of it for a few nodes)."""
        changed = self.changed
        self.changed = np.zeros(0, np.int64)
        self.nominee_known[changed] = False
        rows, extra = changed, None
        if nominated is not None:
            stale_rows, requests = nominated.rows, nominated.requests
            stale = ~self.nominee_known[stale_rows] \
                | (self.nominee_sums[stale_rows] != requests).any(axis=1)
            if stale.any():
                stale_rows, requests = stale_rows[stale], requests[stale]
                rows = np.concatenate([changed, stale_rows])
                extra = np.concatenate([np.zeros((changed.size, requests.shape[1]),
                                                 np.int64), requests])
                self.nominee_sums[stale_rows] = requests
                self.nominee_known[stale_rows] = True
            self.counting[nominated.rows] = True
        if not rows.size:
            return
        answers = dry_run(self.state, self.index, rows, extra, self.indep_ok, self.table)
        cut = changed.size
        if cut:
            answers.take(slice(0, cut)).store(self.answers, changed)
        if rows.size > cut:
            answers.take(slice(cut, None)).store(self.with_nominees, rows[cut:])

    def prune(self, order: np.ndarray, nominated: NominatedRequests, now: float,
              statuses) -> tuple[np.ndarray, np.ndarray]:
        """Drop pruned nodes from ``order`` (recording their statuses); return the rest and
        the mask of those whose answer this cache holds.

        The nodes in ``nominated`` are answered with their nominees' requests added.
        Should a nominee have brought a resource column the cached answers lack, those
        nodes take the reference path.
        """
        hit = self._nominated_mask(nominated)[order]
        usable = hit.any() and nominated.requests.shape[1] == self.stamp[3]
        self._refresh(nominated if usable else None)
        base = self.answers
        codes, fast, latest = base.drop[order], base.fast[order], base.latest[order]
        if hit.any():
            if usable:
                at, extra = order[hit], self.with_nominees
                codes[hit], fast[hit], latest[hit] = extra.drop[at], extra.fast[at], \
                    extra.latest[at]
            else:
                codes[hit], fast[hit] = -1, False
        drop = codes >= 0
        if drop.any():
            for code in np.unique(codes[drop]).tolist():
                statuses.set_many(order[drop & (codes == code)], self.table.statuses[code])
            keep = ~drop
            order, fast, latest = order[keep], fast[keep], latest[keep]
        return order, fast & (latest < now)

    def _nominated_mask(self, nominated: NominatedRequests) -> np.ndarray:
        """Boolean over the nodes: those of ``nominated``."""
        mask = np.zeros(self.counting.size, bool)
        mask[nominated.rows] = True
        return mask

    def _answers(self, rows: np.ndarray, fields: tuple[str, ...]) -> list[np.ndarray]:
        """``fields`` of the answers for ``rows``: with this decision's nominees where
        they count."""
        if self.changed.size:
            self._refresh(None)
        out = [getattr(self.answers, name)[rows] for name in fields]
        hit = self.counting[rows]
        if hit.any():
            at = rows[hit]
            for arr, name in zip(out, fields, strict=True):
                arr[hit] = getattr(self.with_nominees, name)[at]
        return out

    def candidate(self, i: int) -> Candidate:
        """The reference path's candidate for node ``i`` (no PDB covers its pods)."""
        pods = self.index.pods[i]
        victim = self._answers(np.array([i], np.int64), ("victim",))[0][0]
        victims = [pods[k] for k in np.flatnonzero(victim).tolist()]
        return Candidate(self.state.cluster.nodes[i].name, i, victims, 0)

    def metrics(self, rows: np.ndarray, now: float) -> CandidateMetrics:
        """Node-pick metrics of the cached nodes ``rows``."""
        highest, psum, count, earliest = self._answers(
            rows, ("highest", "psum", "count", "earliest"))
        return CandidateMetrics(np.zeros(rows.size, np.int64), highest, psum, count,
                                np.minimum(earliest, now), self.state.cluster.name_rank[rows])
