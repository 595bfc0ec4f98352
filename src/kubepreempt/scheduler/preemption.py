"""DefaultPreemption, as upstream's ``pkg/scheduler/framework/preemption`` does it.

1. Eligibility: not for ``preemptionPolicy: Never``; not while a lower-priority pod on the
   pod's nominated node is terminating *because of preemption*, unless that node has become
   UnschedulableAndUnresolvable for the pod.
2. Candidates: every node whose filter failure was not UnschedulableAndUnresolvable and
   where the pod fits once all lower-priority pods are removed (all filters, with nominated
   pods' two-pass check). A resource-only necessary condition prunes nodes for all nodes
   at once before the exact per-node check.
3. Victims per node: remove all lower-priority pods, then reprieve them most important
   first, PDB-violating ones before the others, keeping each that still lets the pod fit.
4. Node pick: fewest PDB violations, lowest highest-victim priority, smallest sum of
   (priority + 2^31), fewest victims, latest earliest-start-time among the highest-priority
   victims, then the first node by name (upstream: effectively random).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget
from kubepreempt.cluster import PODS, NodeView
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status, unresolvable
from kubepreempt.scheduler.plugins.node_resources import insufficient, reasons_for
from kubepreempt.scheduler.scheduler import (
    NodeStatuses,
    Scheduler,
    add_to_view,
    fit_error_message,
    remove_from_view,
)

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."
_INT32_OFFSET = 2**31
TIE_BREAKS = (
    "fewest PDB violations",
    "lowest highest-victim priority",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start time of the highest-priority victims",
    "first node by name",
)


@dataclass(slots=True)
class Candidate:
    """A node where preemption makes room: its victims (most important first)."""

    node: str
    index: int
    victims: list[Pod]
    pdb_violations: int

    @property
    def highest_priority(self) -> int:
        """Priority of the most important victim."""
        return self.victims[0].priority

    @property
    def priority_sum(self) -> int:
        """Sum of victim priorities, each offset by 2^31 as upstream."""
        return sum(p.priority + _INT32_OFFSET for p in self.victims)

    def earliest_start(self, now: float) -> float:
        """Earliest start time among the highest-priority victims (no start time = now)."""
        top = max(p.priority for p in self.victims)
        return min(start_time(p, now) for p in self.victims if p.priority == top)


@dataclass(slots=True)
class PreemptionResult:
    """What preemption decided for one pod."""

    eligible: bool
    message: str  # upstream PostFilter message ("preemption: ...") when nothing was chosen
    node: str | None = None
    victims: list[Pod] = field(default_factory=list)
    pdb_violations: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    statuses: Mapping[int, Status] = field(default_factory=dict)
    decided_by: str = ""
    cleared_nominations: list[Pod] = field(default_factory=list)


def start_time(pod: Pod, now: float) -> float:
    """``status.startTime``, or now for pods that have not started (upstream)."""
    return pod.start_time if pod.start_time is not None else now


def more_important(a: Pod, b: Pod, now: float) -> bool:
    """Upstream ``MoreImportantPod``: higher priority, then earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time(a, now) < start_time(b, now)


def importance_order(pods: list[Pod], now: float) -> list[Pod]:
    """Most important first (priority desc, start time asc; then name for determinism)."""
    return sorted(pods, key=lambda p: (-p.priority, start_time(p, now), p.key))


def split_by_pdb(pods: list[Pod], pdbs: list[PodDisruptionBudget]) -> tuple[list[Pod], list[Pod]]:
    """Upstream ``filterPodsWithPDBViolation``: budgets are consumed in the given order.

    A PDB with an empty or null selector matches nothing here; pods listed in the PDB's
    ``status.disruptedPods`` are already counted and do not consume budget.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    ok: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector is None:
                    continue
                if pdb.selector.is_empty or not pdb.selector.matches(pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else ok).append(pod)
    return violating, ok


def pod_eligible(
    scheduler: Scheduler, pod: Pod, nominated_status: Status | None
) -> tuple[bool, str]:
    """Upstream ``PodEligibleToPreemptOthers``."""
    if pod.preemption_policy == PREEMPT_NEVER:
        return False, MSG_NEVER
    nominated = pod.nominated_node_name
    if nominated:
        if nominated_status is not None and nominated_status.unresolvable:
            return True, ""
        idx = scheduler.cluster.node_index.get(nominated)
        if idx is not None:
            for other in scheduler.cluster.node_pods[idx].values():
                if other.priority < pod.priority and other.terminating \
                        and other.preempted_by_scheduler:
                    return False, MSG_TERMINATING
    return True, ""


class Preemptor:
    """Runs DefaultPreemption for pods that fit nowhere."""

    def __init__(self, scheduler: Scheduler, sample: bool = False, seed: int | None = None,
                 min_candidate_percentage: int = 10, min_candidate_absolute: int = 100,
                 now: float | None = None, fast: bool = True,
                 materialize: bool = True) -> None:
        self.scheduler = scheduler
        # fast: vectorised victim search where only resources can fail (same answer).
        # materialize: build every candidate (for --explain and ``decided_by`` over all);
        # without it only the winner is built, which is what bulk replays need.
        self.fast = fast
        self.materialize = materialize
        self.sample = sample
        self.rng = random.Random(seed)
        self.min_pct = min_candidate_percentage
        self.min_abs = min_candidate_absolute
        self.now = now

    # ---- victims on one node --------------------------------------------------------------
    def select_victims(self, state: CycleState, filters: list[FilterPlugin], view: NodeView,
                       now: float) -> tuple[list[Pod], int, Status | None]:
        """Upstream ``SelectVictimsOnNode`` on a copy of the node and the cycle state."""
        scheduler = self.scheduler
        pod = state.pod
        state = state.clone()
        view = view.clone()
        potential = [p for p in view.pods if p.priority < pod.priority]
        if not potential:
            return [], 0, unresolvable("DefaultPreemption", NO_VICTIMS)
        for victim in potential:
            remove_from_view(state, view, victim, filters)
        status = scheduler.filter_with_nominated(state, view, filters)
        if status is not None:
            return [], 0, status
        ordered = importance_order(potential, now)
        violating, non_violating = split_by_pdb(ordered, scheduler.cluster.pdbs)
        victims: list[Pod] = []
        violations = 0

        def reprieve(candidate: Pod) -> bool:
            add_to_view(state, view, candidate, filters)
            if scheduler.filter_with_nominated(state, view, filters) is None:
                return True
            remove_from_view(state, view, candidate, filters)
            victims.append(candidate)
            return False

        for candidate in violating:
            if not reprieve(candidate):
                violations += 1
        for candidate in non_violating:
            reprieve(candidate)
        if violating and non_violating:
            victims = importance_order(victims, now)
        return victims, violations, None

    # ---- the whole PostFilter ---------------------------------------------------------------
    def preempt(self, pod: Pod, state: CycleState, filters: list[FilterPlugin],
                statuses: Mapping[int, Status]) -> PreemptionResult:
        """Decide preemption for ``pod`` given the filter statuses of its failed cycle."""
        scheduler = self.scheduler
        cluster = scheduler.cluster
        now = self.now if self.now is not None else time.time()
        nominated_idx = cluster.node_index.get(pod.nominated_node_name, -1)
        ok, msg = pod_eligible(scheduler, pod, statuses.get(nominated_idx))
        if not ok:
            return PreemptionResult(False, f"preemption: {msg}")
        n = len(cluster.nodes)
        node_statuses = NodeStatuses(n)
        if isinstance(statuses, NodeStatuses):
            potential = statuses.nodes_where(lambda st: not st.unresolvable)
        else:
            potential = np.array([i for i in range(n) if (st := statuses.get(i)) is not None
                                  and not st.unresolvable], np.int64)
        helpless = np.ones(n, bool)
        helpless[potential] = False
        node_statuses.set_many(np.flatnonzero(helpless), unresolvable("DefaultPreemption",
                                                                      NOT_HELPFUL))
        if not potential.size:
            return self._none(pod, n, node_statuses)
        order = potential
        limit = len(order)
        if self.sample:
            offset = self.rng.randrange(len(order))
            order = np.roll(order, -offset)
            limit = max(len(order) * self.min_pct // 100, self.min_abs)
            limit = min(limit, len(order))
        candidates: list[Candidate] = []
        cache = (PreemptionCache.of(self, state, filters)
                 if self.fast and not self.sample and not self.materialize else None)
        if cache is not None:
            # Per-node prune and victim metrics kept up to date from the change log: the
            # same answer as _prune + FastVictims below, in O(changed nodes) + one pass.
            for i in cache.select(self, order, now, node_statuses, candidates).tolist():
                self._exact(state, filters, i, now, candidates, node_statuses)
            return self._result(pod, n, candidates, node_statuses, now)
        order = self._prune(state, filters, order, node_statuses)
        fast = FastVictims.compute(self, state, filters, order, now) if self.fast else None
        if fast is not None and not self.sample and not self.materialize:
            # Only the best fast candidate can win among them: pick_one_node is lexicographic.
            best = fast.best()
            if best is not None:
                candidates.append(best)
            exact = order[~fast.is_fast[order]]
            for i in exact.tolist():
                self._exact(state, filters, i, now, candidates, node_statuses)
        else:
            non_violating = 0
            for i in order.tolist():
                if fast is not None and fast.is_fast[i]:
                    candidates.append(fast.candidate(int(fast.row[i])))
                elif not self._exact(state, filters, i, now, candidates, node_statuses):
                    continue
                non_violating += candidates[-1].pdb_violations == 0
                # Upstream's DryRunPreemption keeps at most numCandidates PDB-violating
                # candidates (its candidateList drops the rest); upstream case "preemption
                # looks past numCandidates until a non-PDB violating node is found".
                if self.sample and candidates[-1].pdb_violations \
                        and len(candidates) - non_violating > limit:
                    candidates.pop()
                    continue
                if self.sample and non_violating > 0 and len(candidates) >= limit:
                    break
        return self._result(pod, n, candidates, node_statuses, now)

    def _exact(self, state: CycleState, filters: list[FilterPlugin], i: int, now: float,
               candidates: list[Candidate], node_statuses: NodeStatuses) -> bool:
        """The exact per-node victim search; appends a candidate and returns True if any."""
        cluster = self.scheduler.cluster
        victims, violations, status = self.select_victims(state, filters,
                                                          cluster.node_view(i), now)
        if status is not None:
            node_statuses[i] = status
            return False
        candidates.append(Candidate(cluster.nodes[i].name, i, victims, violations))
        return True

    def _result(self, pod: Pod, n: int, candidates: list[Candidate],
                node_statuses: NodeStatuses, now: float) -> PreemptionResult:
        """The best candidate (none without candidates), and the lower-priority pods
        nominated to its node, whose nominations the preemption clears."""
        if not candidates:
            return self._none(pod, n, node_statuses)
        best, step = pick_one_node(candidates, now)
        cleared = [p for p in self.scheduler.nominator.on_node(best.node)
                   if p.priority < pod.priority and p.key != pod.key]
        return PreemptionResult(True, "", best.node, best.victims, best.pdb_violations,
                                candidates, node_statuses, step, cleared)

    def _none(self, pod: Pod, n: int, node_statuses: NodeStatuses) -> PreemptionResult:
        return PreemptionResult(True, "preemption: " + fit_error_message(n, node_statuses),
                                statuses=node_statuses)

    def _prune(self, state: CycleState, filters: list[FilterPlugin], order: np.ndarray,
               node_statuses: NodeStatuses) -> np.ndarray:
        """Drop nodes where resources cannot fit even without every lower-priority pod.

        Exact only when NodeResourcesFit is the first filter that could fail after the
        removal: so skipped when host ports matter, and nodes with nominated pods of
        higher-or-equal priority always get the full check.
        """
        if any(f.name == "NodePorts" for f in filters) or not order.size:
            return order
        cluster = self.scheduler.cluster
        pod = state.pod
        below = cluster.requested_below(pod.priority)[order]
        fail = insufficient(state, cluster.requested[order] - below, cluster.alloc[order])
        drop = fail.any(axis=1)
        if not drop.any():
            return order
        nominee_nodes = [cluster.node_index[n] for n in
                         self.scheduler.nominator.nodes_with_nominees(pod.priority, pod.key)
                         if n in cluster.node_index]
        if nominee_nodes:
            drop &= ~np.isin(order, np.array(nominee_nodes, np.int64))
        no_lower = drop & (below[:, PODS] == 0)  # the pods column counts pods
        node_statuses.set_many(order[no_lower], unresolvable("DefaultPreemption", NO_VICTIMS))
        short = drop & ~no_lower
        if short.any():
            # One status per distinct failure pattern, as NodeResourcesFit.filter_nodes.
            bad = fail[short]
            codes = bad.astype(np.int64) @ (1 << np.arange(bad.shape[1], dtype=np.int64))
            nodes = order[short]
            for code in np.unique(codes).tolist():
                pick = codes == code
                reasons = reasons_for(cluster.resources, bad[np.argmax(pick)])
                node_statuses.set_many(nodes[pick], Status(Code.UNSCHEDULABLE, reasons,
                                                           "NodeResourcesFit"))
        return order[~drop]


# Filters whose verdict on a node does not depend on its pods: a candidate node passed
# them in the failed cycle, and removing pods cannot change that.
_POD_INDEPENDENT_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration",
                                      "NodeAffinity"})


class PreemptionIndex:
    """Each node's bound pods, most important first, as arrays; rebuilt per changed node.

    Rows are ordered by (priority desc, start time asc with "not started" last, key), which
    is the exact path's importance order whenever ``now`` is later than every start time
    on the node (checked per decision). Rows are refreshed lazily from
    ``Cluster.change_log``, so binds cost nothing until a preemption needs them.
    """

    def __init__(self, cluster) -> None:
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
        self.names = np.argsort(np.argsort(np.array([nd.name for nd in cluster.nodes])))
        for i in range(n):
            self._row(i)

    @staticmethod
    def of(cluster) -> PreemptionIndex:
        """The cluster's index, brought up to date."""
        index = cluster.node_cached(("preemption-index",), PreemptionIndex)
        stamp = (cluster.change_epoch, cluster.alloc.shape[1])
        if stamp != index.stamp or len(cluster.pdbs) != index.pdb_count:
            index = PreemptionIndex(cluster)
            cluster._node_cache[("preemption-index",)] = index
        log = cluster.change_log
        if index.pos != len(log):
            for i in set(log[index.pos:]):
                index._row(i)
            index.pos = len(log)
        return index

    def _row(self, i: int) -> None:
        cluster = self.cluster
        inf = float("inf")
        pods = sorted(cluster.node_pods[i].values(), key=lambda p: (
            -p.priority, inf if p.start_time is None else p.start_time, p.key))
        k = len(pods)
        if k > self.width:
            grow = max(k, 2 * self.width) - self.width
            self.width += grow
            self.prio = np.pad(self.prio, ((0, 0), (0, grow)))
            self.start = np.pad(self.start, ((0, 0), (0, grow)))
            self.req = np.pad(self.req, ((0, 0), (0, grow), (0, 0)))
        self.pods[i] = pods
        self.count[i] = k
        self.prio[i, :] = 0
        self.start[i, :] = 0.0
        self.req[i] = 0
        for j, p in enumerate(pods):
            self.prio[i, j] = p.priority
            self.start[i, j] = inf if p.start_time is None else p.start_time
            self.req[i, j] = cluster.request_vector(p)
        if cluster.pdbs:
            self.pdb_hit[i] = any(_pdb_matches(pdb, p) for p in pods for pdb in cluster.pdbs)


def _pdb_matches(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether ``split_by_pdb`` would consider ``pod`` covered by ``pdb`` at all."""
    return (bool(pod.labels) and pdb.namespace == pod.namespace and pdb.selector is not None
            and not pdb.selector.is_empty and pdb.selector.matches(pod.labels))


@dataclass(slots=True)
class FastVictims:
    """Victims on many nodes at once, for nodes where only NodeResourcesFit can fail.

    Conditions (else the node takes the exact path): every active filter is NodeResourcesFit
    or pod-independent; no nominee counts on the node; no PDB covers any of its pods; every
    start time on it is before ``now``; the pod fits once all lower-priority pods leave and
    at least one of them must go. Then the exact path's reprieve loop reduces to: add back
    the lower-priority pods most important first, keeping each that still fits — run here
    for all nodes together, one column (the k-th pod of every node) at a time.
    """

    nodes: np.ndarray  # (m,) node indices
    victim: np.ndarray  # (m, K) bool, columns in importance order
    index: PreemptionIndex
    now: float
    is_fast: np.ndarray  # (nodes,) bool: this node's answer is here
    row: np.ndarray  # (nodes,) its row in ``nodes``/``victim``

    @staticmethod
    def compute(preemptor: Preemptor, state: CycleState, filters: list[FilterPlugin],
                order: np.ndarray, now: float) -> FastVictims | None:
        names = {f.name for f in filters}
        if "NodeResourcesFit" not in names or not names <= (_POD_INDEPENDENT_FILTERS
                                                             | {"NodeResourcesFit"}):
            return None
        scheduler = preemptor.scheduler
        cluster = scheduler.cluster
        pod = state.pod
        if not order.size:
            return None
        index = PreemptionIndex.of(cluster)
        nodes = order
        nominee = [cluster.node_index[n] for n in
                   scheduler.nominator.nodes_with_nominees(pod.priority, pod.key)
                   if n in cluster.node_index]
        keep = ~index.pdb_hit[nodes]
        if nominee:
            keep &= ~np.isin(nodes, np.array(nominee, np.int64))
        for plugin in filters:  # candidate nodes passed these already; cheap to confirm
            if plugin.name in _POD_INDEPENDENT_FILTERS:
                for bad, _st in plugin.filter_nodes(state, nodes):
                    keep &= ~np.isin(nodes, bad)
        prio = index.prio[nodes]
        start = index.start[nodes]
        width = prio.shape[1]
        valid = (np.arange(width) < index.count[nodes][:, None]) & (prio < pod.priority)
        real = np.where(valid & np.isfinite(start), start, -np.inf)
        keep &= (real.max(axis=1) < now) & valid.any(axis=1)
        nodes, prio, valid = nodes[keep], prio[keep], valid[keep]
        if not nodes.size:
            return None
        alloc = cluster.alloc[nodes]
        req = index.req[nodes]
        # Requests without every lower-priority pod (prio_requested sums the same vectors).
        base = cluster.requested[nodes] - cluster.requested_below(pod.priority)[nodes]
        fits0 = ~insufficient(state, base, alloc).any(axis=1)
        victim = _reprieve(state, base, alloc, req, valid)
        keep = fits0 & victim.any(axis=1)
        nodes, victim = nodes[keep], victim[keep]
        if not nodes.size:
            return None
        is_fast = np.zeros(len(cluster.nodes), bool)
        is_fast[nodes] = True
        row = np.zeros(len(cluster.nodes), np.int64)
        row[nodes] = np.arange(nodes.size)
        return FastVictims(nodes, victim, index, now, is_fast, row)

    def candidate(self, row: int) -> Candidate:
        """The exact path's Candidate for one node."""
        i = int(self.nodes[row])
        pods = self.index.pods[i]
        victims = [pods[k] for k in np.flatnonzero(self.victim[row]).tolist()]
        return Candidate(self.index.cluster.nodes[i].name, i, victims, 0)

    def best(self) -> Candidate | None:
        """The candidate ``pick_one_node`` would pick among these nodes."""
        index, nodes, victim = self.index, self.nodes, self.victim
        prio = index.prio[nodes]
        highest = np.where(victim, prio, np.iinfo(np.int64).min).max(axis=1)
        psum = np.where(victim, prio + _INT32_OFFSET, 0).sum(axis=1)
        count = victim.sum(axis=1)
        start = np.where(np.isfinite(index.start[nodes]), index.start[nodes], self.now)
        top = victim & (prio == highest[:, None])
        earliest = np.where(top, start, np.inf).min(axis=1)
        # Fewest violations (all 0 here), lowest highest priority, smallest sum, fewest
        # victims, latest earliest start, first name: lexsort's last key is the primary.
        row = np.lexsort((index.names[nodes], -earliest, count, psum, highest))[0]
        return self.candidate(int(row))


class PreemptionCache:
    """Per node, for one pod signature and priority: what ``_prune`` and ``FastVictims``
    would conclude, refreshed only for nodes in ``Cluster.change_log`` since last use.

    Each value depends only on that node's pods and allocatable, the pod's request and
    priority and the pod-independent filters, so a preemptor costs O(changed nodes) plus
    one vectorised selection over the candidate nodes. What varies per decision (which
    nodes the failed cycle left, nominees, ``now``) is applied in :meth:`select`.
    """

    __slots__ = ("index", "stamp", "pos", "width", "drop", "table", "ids", "fast", "latest",
                 "highest", "psum", "count", "earliest", "victim", "indep_ok", "state")

    def __init__(self, state: CycleState, filters: list[FilterPlugin], index: PreemptionIndex,
                 stamp: tuple) -> None:
        cluster = state.cluster
        n = len(cluster.nodes)
        self.index, self.stamp, self.width = index, stamp, index.width
        self.state = state
        self.pos = len(cluster.change_log)
        self.table: list[Status] = []
        self.ids: dict[Status, int] = {}
        self.drop = np.full(n, -1, np.int32)  # id in ``table`` of the prune status, or -1
        self.fast = np.zeros(n, bool)
        self.latest = np.zeros(n, np.float64)
        self.highest = np.zeros(n, np.int64)
        self.psum = np.zeros(n, np.int64)
        self.count = np.zeros(n, np.int64)
        self.earliest = np.zeros(n, np.float64)
        self.victim = np.zeros((n, index.width), bool)
        everything = np.arange(n, dtype=np.int64)
        # Pod-independent filters never change verdicts when pods move (node_generation
        # is in the stamp), so they are evaluated once.
        self.indep_ok = np.ones(n, bool)
        for plugin in filters:
            if plugin.name in _POD_INDEPENDENT_FILTERS:
                for bad, _st in plugin.filter_nodes(state, everything):
                    self.indep_ok[bad] = False
        self._fill(everything)

    @staticmethod
    def of(preemptor: Preemptor, state: CycleState,
           filters: list[FilterPlugin]) -> PreemptionCache | None:
        """The up-to-date cache for this pod's signature, or None where it does not apply."""
        names = {f.name for f in filters}
        if "NodeResourcesFit" not in names or not names <= (_POD_INDEPENDENT_FILTERS
                                                             | {"NodeResourcesFit"}):
            return None
        cluster = preemptor.scheduler.cluster
        pod = state.pod
        if state.request.shape[0] < cluster.alloc.shape[1]:
            state.request = cluster.request_vector(pod)
        try:
            key = ("preemption-cache", state.request.tobytes(), pod.priority,
                   pod.tolerations, tuple(pod.node_selector.items()), pod.affinity,
                   pod.node_name, tuple(f.name for f in filters))
            hash(key)
        except TypeError:  # an unhashable field: no caching for this pod
            return None
        index = PreemptionIndex.of(cluster)
        stamp = (cluster.node_generation, cluster.change_epoch, len(cluster.nodes),
                 cluster.alloc.shape[1], id(index), index.width)
        caches = cluster.node_cached(("preemption-caches",), lambda _c: {})
        entry = caches.get(key)
        if entry is None or entry.stamp != stamp or entry.index is not index:
            if len(caches) >= 64:
                caches.clear()
            entry = caches[key] = PreemptionCache(state, filters, index, stamp)
            return entry
        entry.state = state  # the same signature, but select() needs this pod's key
        if entry.pos != len(cluster.change_log):
            rows = np.unique(np.array(cluster.change_log[entry.pos:], np.int64))
            entry.pos = len(cluster.change_log)
            entry._fill(rows)
        return entry

    def _status_id(self, status: Status) -> int:
        code = self.ids.get(status)
        if code is None:
            code = self.ids[status] = len(self.table)
            self.table.append(status)
        return code

    def _fill(self, rows: np.ndarray) -> None:
        """Recompute ``rows`` (sorted node indices), as _prune and FastVictims would."""
        state, index = self.state, self.index
        cluster = state.cluster
        priority = state.pod.priority
        below = np.zeros((rows.size, cluster.requested.shape[1]), np.int64)
        for prio in list(cluster.prio_requested):
            if prio < priority:
                below += cluster._prio_rows(prio)[rows]
        alloc = cluster.alloc[rows]
        base = cluster.requested[rows] - below
        fail = insufficient(state, base, alloc)
        dropped = fail.any(axis=1)
        drop = np.full(rows.size, -1, np.int32)
        no_lower = dropped & (below[:, PODS] == 0)
        if no_lower.any():
            drop[no_lower] = self._status_id(unresolvable("DefaultPreemption", NO_VICTIMS))
        short = dropped & ~no_lower
        if short.any():
            bad = fail[short]
            codes = bad.astype(np.int64) @ (1 << np.arange(bad.shape[1], dtype=np.int64))
            ids = np.empty(codes.size, np.int32)
            for code in np.unique(codes).tolist():
                pick = codes == code
                reasons = reasons_for(cluster.resources, bad[np.argmax(pick)])
                ids[pick] = self._status_id(Status(Code.UNSCHEDULABLE, reasons,
                                                   "NodeResourcesFit"))
            drop[short] = ids
        self.drop[rows] = drop
        # FastVictims.compute, row by row independent.
        prio = index.prio[rows]
        start = index.start[rows]
        width = prio.shape[1]
        valid = (np.arange(width) < index.count[rows][:, None]) & (prio < priority)
        finite = np.isfinite(start)
        self.latest[rows] = np.where(valid & finite, start, -np.inf).max(axis=1)
        req = index.req[rows]
        victim = _reprieve(state, base, alloc, req, valid)
        anyv = victim.any(axis=1)
        self.fast[rows] = (~index.pdb_hit[rows] & self.indep_ok[rows] & ~dropped & anyv)
        highest = np.where(victim, prio, np.iinfo(np.int64).min).max(axis=1)
        self.highest[rows] = highest
        self.psum[rows] = np.where(victim, prio + _INT32_OFFSET, 0).sum(axis=1)
        self.count[rows] = victim.sum(axis=1)
        top = victim & (prio == highest[:, None]) & finite
        # Earliest real start among the top victims (inf if none started): a victim that
        # has not started counts as ``now``, later than every real start on a fast node.
        self.earliest[rows] = np.where(top, start, np.inf).min(axis=1)
        self.victim[rows] = victim

    def select(self, preemptor: Preemptor, order: np.ndarray, now: float,
               node_statuses: NodeStatuses, candidates: list[Candidate]) -> np.ndarray:
        """Prune ``order``, append the best fast candidate; return nodes for the exact path."""
        scheduler = preemptor.scheduler
        cluster = scheduler.cluster
        pod = self.state.pod
        nominee = [cluster.node_index[n] for n in
                   scheduler.nominator.nodes_with_nominees(pod.priority, pod.key)
                   if n in cluster.node_index]
        codes = self.drop[order]
        drop = codes >= 0
        if nominee:  # nodes with nominees always get the full check
            not_nominee = ~np.isin(order, np.array(nominee, np.int64))
            drop &= not_nominee
        if drop.any():
            present = np.bincount(codes[drop]).nonzero()[0]
            for code in present.tolist():
                node_statuses.set_many(order[drop & (codes == code)], self.table[code])
            keep = ~drop
            order = order[keep]
            if nominee:
                not_nominee = not_nominee[keep]
        fast = self.fast[order] & (self.latest[order] < now)
        if nominee:
            fast &= not_nominee
        rows = order[fast]
        if rows.size:
            for values in (self.highest, self.psum, self.count):
                v = values[rows]
                rows = rows[v == v.min()]
            if rows.size > 1:
                v = np.minimum(self.earliest[rows], now)
                rows = rows[v == v.max()]
            i = int(rows[int(np.argmin(self.index.names[rows]))])
            pods = self.index.pods[i]
            victims = [pods[k] for k in np.flatnonzero(self.victim[i]).tolist()]
            candidates.append(Candidate(cluster.nodes[i].name, i, victims, 0))
        return order[~fast]


def pick_one_node(candidates: list[Candidate], now: float) -> tuple[Candidate, str]:
    """Upstream ``pickOneNodeForPreemption``; returns the winner and the deciding step."""
    keys = (
        lambda c: -c.pdb_violations,
        lambda c: -c.highest_priority,
        lambda c: -c.priority_sum,
        lambda c: -len(c.victims),
        lambda c: c.earliest_start(now),
    )
    remaining = sorted(candidates, key=lambda c: c.node)
    for step, key in zip(TIE_BREAKS, keys, strict=False):
        best = max(key(c) for c in remaining)
        remaining = [c for c in remaining if key(c) == best]
        if len(remaining) == 1:
            return remaining[0], step
    return remaining[0], TIE_BREAKS[-1]


def _reprieve(state: CycleState, base: np.ndarray, alloc: np.ndarray, req: np.ndarray,
              valid: np.ndarray) -> np.ndarray:
    """Victims per row (node) and column (lower-priority pod, most important first):
    each pod is added back to ``base`` (requests without them all; updated in place)
    when it still fits, as upstream's reprieve loop, every node at once."""
    victim = np.zeros(valid.shape, bool)
    for k in np.flatnonzero(valid.any(axis=0)).tolist():
        cur = base + req[:, k, :]
        fits = ~insufficient(state, cur, alloc).any(axis=1)
        back = valid[:, k] & fits
        base[back] = cur[back]
        victim[:, k] = valid[:, k] & ~fits
    return victim
