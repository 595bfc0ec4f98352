"""PodTopologySpread: DoNotSchedule constraints filter, ScheduleAnyway constraints score.

Follows upstream ``pkg/scheduler/framework/plugins/podtopologyspread`` (filtering.go,
scoring.go, common.go):

* PreFilter counts, per constraint and topology value, the pods matching the constraint's
  selector in the incoming pod's namespace (terminating pods excluded, an empty selector
  counts nothing) over the nodes that carry every constraint's topology key and pass the
  constraint's nodeAffinityPolicy (default Honor: the pod's nodeSelector and required node
  affinity) and nodeTaintsPolicy (default Ignore). Each such node's domain exists even with
  zero matching pods. Skip when the pod has no DoNotSchedule constraint.
* Filter: a node missing a topology key is UnschedulableAndUnresolvable "node(s) didn't
  match pod topology spread constraints (missing required label)"; otherwise
  ``matchNum + selfMatch - globalMin > maxSkew`` is Unschedulable "node(s) didn't match
  pod topology spread constraints". The global minimum is 0 while fewer domains than
  ``minDomains`` exist.
* Score (ScheduleAnyway): per constraint, ``count * log(domains + 2) + maxSkew - 1``
  summed and rounded, counts over all eligible nodes for domains that hold a feasible node
  (hostname constraints count the node's own pods); nodes missing a key score 0; then
  ``100 * (max + min - s) / max``.

A pod without ``topologySpreadConstraints`` is scored with the system defaults
(``defaultingType: System``): hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway, over
the pods ``helper.DefaultSelector`` picks from the input's Services, ReplicationControllers,
ReplicaSets and StatefulSets (:mod:`kubepreempt.api.spread_sources`); with system defaults
a node need not carry every topology key (``requireAllTopologies`` is false).
Scores, PreFilter's domain counts and Filter are computed with numpy over all nodes;
per-node matching-pod counts are cached per (namespace, selector) and refreshed from
``Snapshot.change_log``, the eligible nodes and their domains per node set.
``matchLabelKeys`` are already merged into each selector when the pod is parsed.

``defaultingType: List`` (``PodTopologySpreadArgs``) replaces the system defaults: a pod
without its own constraints gets the profile's ``defaultConstraints`` (both kinds, so they
may filter), each with the pod's default selector (``buildDefaultConstraints``); no
selector means no constraints, and, unlike system defaults, every topology key is needed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kubepreempt.api.objects import Node, Pod, TopologySpreadConstraint
from kubepreempt.api.selectors import LabelSelector
from kubepreempt.scheduler.cache import node_cached
from kubepreempt.scheduler.framework import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    PreFilterStatePlugin,
    ScorePlugin,
    Status,
    unresolvable,
    unschedulable,
)
from kubepreempt.scheduler.plugins import pod_counts
from kubepreempt.scheduler.plugins.node_match import (
    pod_matches_node_selector_and_affinity,
    pod_tolerates_node_taints,
)
from kubepreempt.snapshot import Snapshot

NAME = "PodTopologySpread"
ERR_CONSTRAINTS = "node(s) didn't match pod topology spread constraints"
ERR_MISSING_LABEL = ERR_CONSTRAINTS + " (missing required label)"
LABEL_HOSTNAME = "kubernetes.io/hostname"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

_SKEW_FAIL = unschedulable(NAME, ERR_CONSTRAINTS)
_LABEL_FAIL = unresolvable(NAME, ERR_MISSING_LABEL)
_SKIP = Status(Code.SKIP, (), NAME)


def count_matching(pods: Iterable[Pod], selector: LabelSelector | None, namespace: str) -> int:
    """Upstream ``countPodsMatchSelector``: an empty (or absent) selector counts nothing."""
    if selector is None or selector.is_empty:
        return 0
    first = selector.requirements[0]
    if first.operator == "In":
        # Most selectors start with a matchLabels entry: reject on that one label first.
        key, values = first.key, first.values
        return sum(1 for p in pods if p.labels.get(key) in values
                   and p.namespace == namespace and p.deletion_timestamp is None
                   and selector.matches(p.labels))
    return sum(1 for p in pods if p.namespace == namespace and p.deletion_timestamp is None
               and selector.matches(p.labels))


def selector_matches(selector: LabelSelector | None, labels) -> bool:
    """``labels.Selector.Matches``: absent selector matches nothing, empty everything."""
    return selector is not None and selector.matches(labels)


def has_all_keys(node: Node, constraints: tuple[TopologySpreadConstraint, ...]) -> bool:
    """Upstream ``nodeLabelsMatchSpreadConstraints``."""
    labels = node.labels
    return all(c.topology_key in labels for c in constraints)


def node_included(c: TopologySpreadConstraint, pod: Pod, node: Node) -> bool:
    """Upstream ``matchNodeInclusionPolicies`` (nodeAffinityPolicy / nodeTaintsPolicy)."""
    if c.node_affinity_policy == "Honor" and not pod_matches_node_selector_and_affinity(
            pod, node):
        return False
    return not (c.node_taints_policy == "Honor" and not pod_tolerates_node_taints(pod, node))


@dataclass(slots=True)
class _FilterState:
    """PreFilter result: per-constraint domain counts and (lazily) their minimum."""

    pod: Pod
    constraints: tuple[TopologySpreadConstraint, ...]
    counts: list[dict[str, int]]
    mins: list[int | None]
    self_match: list[bool]
    # Per constraint, the counts per domain index of its key (pod_counts.domains), for the
    # vector filter; None once what-if updates made the dicts the only truth.
    vec: list[np.ndarray] | None = None

    def clone(self) -> _FilterState:
        return _FilterState(self.pod, self.constraints, [dict(c) for c in self.counts],
                            list(self.mins), self.self_match)

    def min_match(self, i: int) -> int:
        """Global minimum of constraint ``i``; 0 with fewer domains than minDomains."""
        counts = self.counts[i]
        if len(counts) < self.constraints[i].min_domains:
            return 0
        m = self.mins[i]
        if m is None:
            m = self.mins[i] = min(counts.values())
        return m

    def update_with_pod(self, other: Pod, node: Node, delta: int) -> None:
        """Upstream ``updateWithPod`` (no terminating check there, as upstream)."""
        self.vec = None
        pod = self.pod
        if other.namespace != pod.namespace or not has_all_keys(node, self.constraints):
            return
        for i, c in enumerate(self.constraints):
            if not selector_matches(c.selector, other.labels):
                continue
            if not node_included(c, pod, node):
                continue
            counts = self.counts[i]
            value = node.labels[c.topology_key]
            cur = counts.get(value, 0) + delta
            counts[value] = cur
            m = self.mins[i]
            if m is not None:
                if cur < m:
                    self.mins[i] = cur
                elif cur - delta == m:
                    self.mins[i] = None  # a domain left the minimum: recompute lazily

    def check(self, node: Node) -> Status | None:
        """Upstream ``Filter`` for one node."""
        labels = node.labels
        for i, c in enumerate(self.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return _LABEL_FAIL
            skew = self.counts[i].get(value, 0) + self.self_match[i] - self.min_match(i)
            if skew > c.max_skew:
                return _SKEW_FAIL
        return None


@dataclass(frozen=True, slots=True)
class DefaultConstraint:
    """One ``defaultConstraints`` entry of ``PodTopologySpreadArgs`` (no selector)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"

    @staticmethod
    def parse(raw: Mapping[str, Any]) -> DefaultConstraint:
        """From a validated ``v1.TopologySpreadConstraint`` mapping."""
        return DefaultConstraint(int(raw["maxSkew"]), str(raw["topologyKey"]),
                                 str(raw["whenUnsatisfiable"]),
                                 int(raw.get("minDomains") or 1),
                                 str(raw.get("nodeAffinityPolicy") or "Honor"),
                                 str(raw.get("nodeTaintsPolicy") or "Ignore"))

    def with_selector(self, selector: LabelSelector) -> TopologySpreadConstraint:
        """The constraint for one pod (``buildDefaultConstraints``)."""
        return TopologySpreadConstraint(self.max_skew, self.topology_key,
                                        self.when_unsatisfiable, selector, self.min_domains,
                                        self.node_affinity_policy, self.node_taints_policy)


def default_selector(pod: Pod, cluster: Snapshot) -> LabelSelector | None:
    """``helper.DefaultSelector`` from the input's Services and controllers (None: empty)."""
    return cluster.spread_sources.default_selector(pod)


def list_defaults(pod: Pod, cluster: Snapshot, defaults: tuple[DefaultConstraint, ...]
                  ) -> tuple[TopologySpreadConstraint, ...]:
    """``buildDefaultConstraints`` for ``defaultingType: List``."""
    if pod.spread or not defaults:
        return ()
    selector = default_selector(pod, cluster)
    if selector is None or selector.is_empty:
        return ()
    return tuple(c.with_selector(selector) for c in defaults)


def _constraints(pod: Pod, when: str, spread: tuple[TopologySpreadConstraint, ...] | None = None
                 ) -> tuple[TopologySpreadConstraint, ...]:
    return tuple(c for c in (pod.spread if spread is None else spread)
                 if c.when_unsatisfiable == when)


def pre_filter_state(pod: Pod, cluster: Snapshot,
                     spread: tuple[TopologySpreadConstraint, ...] | None = None
                     ) -> _FilterState | None:
    """Upstream ``calPreFilterState`` (None when the pod has no hard constraints).

    ``spread``: the constraints to use instead of the pod's own (List defaults). Counts
    come from per-node counts kept incrementally (``pod_counts``) summed per domain over
    the eligible nodes; a domain exists when an eligible node carries it.
    """
    constraints = _constraints(pod, DO_NOT_SCHEDULE, spread)
    if not constraints:
        return None
    counts: list[dict[str, int]] = []
    vec: list[np.ndarray] = []
    for c in constraints:
        domains = _eligible_domains(pod, cluster, constraints, c)
        per_node = match_counts(cluster, c.selector, pod.namespace)
        sums = np.bincount(domains.ids, weights=per_node if domains.rows is None
                           else per_node[domains.rows],
                           minlength=len(domains.values)).astype(np.int64)
        counts.append({domains.values[j]: int(sums[j]) for j in domains.present})
        vec.append(sums)
    return _FilterState(pod, constraints, counts, [None] * len(constraints),
                        [selector_matches(c.selector, pod.labels) for c in constraints], vec)


@dataclass(slots=True)
class _Domains:
    """The eligible nodes of a constraint and their domains (pod-independent parts)."""

    rows: np.ndarray | None  # eligible node indices; None: every node
    ids: np.ndarray  # their domain indices (pod_counts.domains)
    values: list[str]
    present: list[int]  # domain indices holding an eligible node


def _eligible_domains(pod: Pod, cluster: Snapshot,
                      constraints: tuple[TopologySpreadConstraint, ...],
                      c: TopologySpreadConstraint) -> _Domains:
    def compute(cl: Snapshot) -> _Domains:
        mask = eligible_nodes(pod, cl, constraints, c)
        all_ids, values = pod_counts.domains(cl, c.topology_key)
        rows = None if mask.all() else np.flatnonzero(mask)
        ids = all_ids if rows is None else all_ids[rows]
        present = np.flatnonzero(np.bincount(ids, minlength=len(values))).tolist()
        return _Domains(rows, ids, values, present)
    key = _eligible_key(pod, constraints, c)
    if key is None:
        return compute(cluster)
    return node_cached(cluster, (*key, "domains", c.topology_key), compute)


def _eligible_key(pod: Pod, constraints: tuple[TopologySpreadConstraint, ...],
                  c: TopologySpreadConstraint) -> tuple | None:
    """What ``eligible_nodes`` depends on besides the nodes (None: unhashable)."""
    affinity = pod.affinity.node_required if pod.affinity is not None else None
    key = (NAME, "eligible", tuple(x.topology_key for x in constraints),
           (tuple(sorted(pod.node_selector.items())), affinity)
           if c.node_affinity_policy == "Honor" else None,
           pod.tolerations if c.node_taints_policy == "Honor" else None)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def eligible_nodes(pod: Pod, cluster: Snapshot,
                   constraints: tuple[TopologySpreadConstraint, ...],
                   c: TopologySpreadConstraint) -> np.ndarray:
    """Nodes carrying every constraint's key that pass ``c``'s inclusion policies, as a
    mask over all nodes (memoised per node set and the fields it depends on)."""
    def compute(cl: Snapshot) -> np.ndarray:
        return np.fromiter((has_all_keys(n, constraints) and node_included(c, pod, n)
                            for n in cl.nodes), bool, len(cl.nodes))
    key = _eligible_key(pod, constraints, c)
    return compute(cluster) if key is None else node_cached(cluster, key, compute)


def _check_nodes(s: _FilterState, vec: list[np.ndarray], cluster: Snapshot,
                 nodes: np.ndarray) -> list[tuple[np.ndarray, Status]]:
    """``_FilterState.check`` for many nodes: each gets the first failing constraint's
    status, in constraint order."""
    decided = np.zeros(nodes.size, bool)
    label_fail = np.zeros(nodes.size, bool)
    skew_fail = np.zeros(nodes.size, bool)
    for i, c in enumerate(s.constraints):
        ids = pod_counts.domains(cluster, c.topology_key)[0][nodes]
        missing = (ids < 0) & ~decided
        label_fail |= missing
        decided |= missing
        if not vec[i].size:  # no node carries the key: every node failed above
            continue
        skew = vec[i][np.maximum(ids, 0)] + int(s.self_match[i]) - s.min_match(i)
        bad = (skew > c.max_skew) & ~decided
        skew_fail |= bad
        decided |= bad
    out = []
    if label_fail.any():
        out.append((nodes[label_fail], _LABEL_FAIL))
    if skew_fail.any():
        out.append((nodes[skew_fail], _SKEW_FAIL))
    return out


def soft_constraints(pod: Pod, cluster: Snapshot,
                     list_spread: tuple[TopologySpreadConstraint, ...] | None = None
                     ) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:
    """The pod's ScheduleAnyway constraints and whether they are the system defaults.

    Upstream ``initPreScoreState``: the pod's own constraints when it has any (then only
    its ScheduleAnyway ones), else ``buildDefaultConstraints`` (hostname maxSkew 3, zone
    maxSkew 5, over the pods ``helper.DefaultSelector`` picks).

    ``list_spread``: the pod's List defaults (``defaultingType: List``) replace the system
    ones; like the pod's own constraints they need every topology key.
    """
    if pod.spread:
        return _constraints(pod, SCHEDULE_ANYWAY), False
    if list_spread is not None:
        return _constraints(pod, SCHEDULE_ANYWAY, list_spread), False
    return cluster.spread_sources.default_constraints(pod), True


def _label_codes(cluster: Snapshot, key: str) -> tuple[np.ndarray, np.ndarray]:
    """Per node: whether it has label ``key``, and a code per value (missing = "")."""
    def compute(c: Snapshot) -> tuple[np.ndarray, np.ndarray]:
        values: dict[str, int] = {}
        has = np.fromiter((key in n.labels for n in c.nodes), bool, len(c.nodes))
        codes = np.fromiter((values.setdefault(n.labels.get(key, ""), len(values))
                             for n in c.nodes), np.int64, len(c.nodes))
        return has, codes
    return node_cached(cluster, ("PodTopologySpread/labels", key), compute)


@dataclass(slots=True)
class _MatchCounts:
    """Per node, the pods matching one (namespace, selector); refreshed from the change log."""

    counts: np.ndarray
    epoch: int
    pos: int


def match_counts(cluster: Snapshot, selector: LabelSelector | None, namespace: str
                 ) -> np.ndarray:
    """``countPodsMatchSelector`` for every node, kept up to date incrementally."""
    n = len(cluster.nodes)
    if selector is None or selector.is_empty:
        return np.zeros(n, np.int64)

    def count(i: int) -> int:
        return count_matching(cluster.node_pods[i].values(), selector, namespace)

    def compute(c: Snapshot) -> _MatchCounts:
        return _MatchCounts(np.fromiter((count(i) for i in range(n)), np.int64, n),
                            c.change_epoch, len(c.change_log))
    entry = node_cached(cluster, ("PodTopologySpread/counts", namespace, selector), compute)
    log = cluster.change_log
    if entry.epoch != cluster.change_epoch:
        entry.counts = compute(cluster).counts
    elif entry.pos < len(log):
        for i in set(log[entry.pos:]):
            entry.counts[i] = count(i)
    entry.epoch, entry.pos = cluster.change_epoch, len(log)
    return entry.counts


class _DomainSums:
    """Per domain, the summed per-node counts of the eligible nodes, and the per-node
    counts they were summed from (a bind then updates one domain, not a bincount)."""

    __slots__ = ("sums", "folded")

    def __init__(self) -> None:
        self.sums: np.ndarray | None = None
        self.folded: np.ndarray | None = None


def _domain_sums(cluster: Snapshot, key: tuple, codes: np.ndarray, eligible: np.ndarray,
                 counts: np.ndarray, width: int) -> np.ndarray:
    """``bincount(codes[eligible], counts[eligible])`` kept incrementally; ``key`` names
    the counts (namespace, selector) and the eligibility (topology key, keys required).
    Memoised per node generation, so codes and eligibility stand. Do not mutate."""
    entry = node_cached(cluster, ("PodTopologySpread/domain-sums", key), lambda c: _DomainSums())
    if entry.sums is None or entry.folded is None:
        entry.sums = np.bincount(codes[eligible], weights=counts[eligible],
                                 minlength=width).astype(np.int64)
        entry.folded = counts.copy()
        return entry.sums
    changed = np.flatnonzero(counts != entry.folded)
    if changed.size:
        add = changed[eligible[changed]]
        np.add.at(entry.sums, codes[add], counts[add] - entry.folded[add])
        entry.folded[changed] = counts[changed]
    return entry.sums


def _included(c: TopologySpreadConstraint, pod: Pod, cluster: Snapshot) -> np.ndarray | None:
    """``matchNodeInclusionPolicies`` per node; None when every node is included."""
    affinity = c.node_affinity_policy == "Honor" and (
        pod.node_selector or (pod.affinity is not None
                              and pod.affinity.node_required is not None))
    taints = c.node_taints_policy == "Honor"
    if not affinity and not taints:
        return None
    return np.fromiter((node_included(c, pod, node) for node in cluster.nodes), bool,
                       len(cluster.nodes))


def spread_scores(pod: Pod, cluster: Snapshot, nodes: np.ndarray,
                  soft: tuple[tuple[TopologySpreadConstraint, ...], bool] | None = None
                  ) -> np.ndarray | None:
    """Upstream PreScore + Score + NormalizeScore over feasible ``nodes`` (vectorised).

    None when upstream's PreScore returns Skip (no soft constraints). System-default
    constraints do not require every topology key on a node (``requireAllTopologies``).
    """
    constraints, system = soft if soft is not None else soft_constraints(pod, cluster)
    if not constraints or not cluster.nodes:
        return None
    require_all = not system
    keyed = [_label_codes(cluster, c.topology_key) for c in constraints]
    if (require_all and len(constraints) == 1 and constraints[0].topology_key != LABEL_HOSTNAME
            and _included(constraints[0], pod, cluster) is None):
        return _one_domain_constraint_scores(pod, cluster, nodes, constraints[0], *keyed[0])
    all_keys = np.ones(len(cluster.nodes), bool)
    if require_all:
        for has, _ in keyed:
            all_keys &= has
    ignored = ~all_keys[nodes]
    scored = nodes[~ignored]
    ns = pod.namespace
    raw = np.zeros(nodes.size, np.float64)
    for c, (has, codes) in zip(constraints, keyed, strict=True):
        counts = match_counts(cluster, c.selector, ns)
        if c.topology_key == LABEL_HOSTNAME:
            weight = math.log(scored.size + 2)
            cnt = counts[nodes]  # the node's own pods (Score counts them directly)
        else:
            width = int(codes.max()) + 1 if codes.size else 0
            seen = np.zeros(width, bool)  # the distinct codes, without np.unique's sort
            seen[codes[scored]] = True
            weight = math.log(int(seen.sum()) + 2)
            inc = _included(c, pod, cluster)
            if inc is None:
                required = tuple(sorted({k.topology_key for k in constraints})
                                 ) if require_all else ()
                per_domain = _domain_sums(cluster, (ns, c.selector, c.topology_key, required),
                                          codes, all_keys, counts, width)
            else:
                eligible = all_keys & inc
                per_domain = np.bincount(codes[eligible], weights=counts[eligible],
                                         minlength=width).astype(np.int64)
            cnt = per_domain[codes[nodes]]  # only feasible nodes' domains are read
        part = cnt.astype(np.float64) * weight + float(c.max_skew - 1)
        raw += np.where(has[nodes], part, 0.0)  # Score skips a constraint without the label
    floor = np.floor(raw)
    rounded = (floor + (raw - floor >= 0.5)).astype(np.int64)  # Go math.Round
    out = np.zeros(nodes.size, np.int64)
    valid = rounded[~ignored]
    if not valid.size:
        return out
    lo, hi = int(valid.min()), max(0, int(valid.max()))
    if hi == 0:
        out[~ignored] = MAX_NODE_SCORE
    else:
        out[~ignored] = MAX_NODE_SCORE * (hi + lo - valid) // hi
    return out


def _one_domain_constraint_scores(pod: Pod, cluster: Snapshot, nodes: np.ndarray,
                                  c: TopologySpreadConstraint, has: np.ndarray,
                                  codes: np.ndarray) -> np.ndarray:
    """:func:`spread_scores` for the common case of one pod constraint on a domain key
    (zone, region) with no inclusion policy in effect: a node's raw score depends only on
    its domain, so the score is computed per domain (a handful) and gathered once, not
    computed per feasible node. Same arithmetic, same order, so the same integers
    (``tests/scheduler/test_pod_counts.py`` checks both against upstream's node-by-node scoring)."""
    codes_n, has_n = codes[nodes], has[nodes]
    scored = codes_n[has_n]  # nodes without the key are ignored (requireAllTopologies)
    out = np.zeros(nodes.size, np.int64)
    if not scored.size:
        return out
    width = int(codes.max()) + 1
    seen = np.zeros(width, bool)
    seen[scored] = True
    weight = math.log(int(seen.sum()) + 2)
    per_domain = _domain_sums(cluster, (pod.namespace, c.selector, c.topology_key,
                                        (c.topology_key,)), codes, has,
                              match_counts(cluster, c.selector, pod.namespace), width)
    raw = per_domain.astype(np.float64) * weight + float(c.max_skew - 1)
    floor = np.floor(raw)
    rounded = (floor + (raw - floor >= 0.5)).astype(np.int64)  # Go math.Round
    present = rounded[seen]
    lo, hi = int(present.min()), max(0, int(present.max()))
    out[has_n] = MAX_NODE_SCORE if hi == 0 else (MAX_NODE_SCORE * (hi + lo - rounded)
                                                 // hi)[scored]
    return out


class PodTopologySpread(PreFilterStatePlugin, ScorePlugin):
    """Upstream PodTopologySpread (PreFilter/Filter/AddPod/RemovePod, PreScore/Score)."""

    name = NAME
    weight = 2
    score_key = NAME + "/score"
    soft_key = NAME + "/soft"
    defaults_key = NAME + "/defaults"

    def __init__(self, default_constraints: tuple[DefaultConstraint, ...] = (),
                 defaulting_type: str = "System") -> None:
        self.default_constraints = default_constraints if defaulting_type == "List" else ()
        self.defaulting_type = defaulting_type

    def cache_key(self) -> tuple:
        """What of this plugin's args changes verdicts or scores."""
        return (self.defaulting_type, self.default_constraints)

    def _list_spread(self, state: CycleState) -> tuple[TopologySpreadConstraint, ...] | None:
        """The pod's List defaults (memoised per cycle); None with System defaulting."""
        if self.defaulting_type != "List":
            return None
        built = state.data.get(self.defaults_key)
        if built is None:
            built = state.data[self.defaults_key] = list_defaults(
                state.pod, state.cluster, self.default_constraints)
        return built

    def _hard_source(self, state: CycleState) -> tuple[TopologySpreadConstraint, ...]:
        """The constraints PreFilter reads: the pod's own, else its List defaults (the
        system defaults are all ScheduleAnyway)."""
        spread = state.pod.spread
        if spread or not self.default_constraints:
            return spread
        return self._list_spread(state) or ()

    def relevant(self, state: CycleState) -> bool:
        """Pods with constraints of their own or from List defaults (the filter side)."""
        return bool(self._hard_source(state))

    def score_relevant(self, state: CycleState) -> bool:
        """False without soft constraints (own ScheduleAnyway ones, or the system defaults
        when the pod has none): upstream PreScore Skips (every node 0), so no score entry
        (``--explain`` omits it) and no per-pod pass over feasible nodes."""
        return bool(self._soft(state)[0])

    def _soft(self, state: CycleState) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:
        soft = state.data.get(self.soft_key)
        if soft is None:
            list_spread = None if state.pod.spread or self.defaulting_type != "List" \
                else self._list_spread(state)
            soft = state.data[self.soft_key] = soft_constraints(state.pod, state.cluster,
                                                                list_spread)
        return soft

    # ---- filtering ----------------------------------------------------------------------
    def pre_filter(self, state: CycleState) -> Status | None:
        s = pre_filter_state(state.pod, state.cluster, self._hard_source(state))
        if s is None:
            return _SKIP
        state.data[NAME] = s
        return None

    def filter_nodes(self, state: CycleState, nodes: np.ndarray) -> list[tuple[np.ndarray, Status]]:
        s = self._state(state)
        if isinstance(s, _FilterState) and s.vec is not None:
            return _check_nodes(s, s.vec, state.cluster, nodes)
        return super().filter_nodes(state, nodes)

    # ---- scoring ------------------------------------------------------------------------
    def pre_score(self, state: CycleState, nodes: np.ndarray) -> None:
        state.data[self.score_key] = (nodes, spread_scores(state.pod, state.cluster, nodes,
                                                           self._soft(state)))

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cached = state.data.get(self.score_key)
        if cached is not None and cached[0] is nodes:
            scores = cached[1]
        else:
            scores = spread_scores(state.pod, state.cluster, nodes, self._soft(state))
        return np.zeros(nodes.size, np.int64) if scores is None else scores


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    NODE_DELETE,
    POD_ADD,
    POD_DELETE,
    ClusterEvent,
    NsLabels,
    QueueingHint,
)


def is_schedulable_after_pod_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterPodChange``: the other pod is in the same namespace
    (``involvedInTopologySpreading``) and its labels match a hard constraint."""
    other = ev.pod
    assert other is not None
    if other.namespace != pod.namespace:
        return False
    return any(c.selector is not None and c.selector.matches(other.labels)
               for c in pod.spread if c.when_unsatisfiable == DO_NOT_SCHEDULE)


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange``: the node has every hard constraint's topology
    key."""
    constraints = tuple(c for c in pod.spread if c.when_unsatisfiable == DO_NOT_SCHEDULE)
    return has_all_keys(ev.node, constraints)  # type: ignore[arg-type]


def events_to_register() -> dict[str, QueueingHint]:
    """PodTopologySpread's ``EventsToRegister``: Pod Add / UpdatePodLabel / Delete, Node
    Add / Delete / UpdateNodeLabel."""
    return {POD_ADD: is_schedulable_after_pod_change,
            POD_DELETE: is_schedulable_after_pod_change,
            NODE_ADD: is_schedulable_after_node_change,
            NODE_DELETE: is_schedulable_after_node_change}
