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

System default constraints (applied upstream to pods without constraints, from the
Services/ReplicaSets/StatefulSets selecting them) are NOT applied: those objects are not
loaded, so a pod without ``topologySpreadConstraints`` is untouched by this plugin.
``matchLabelKeys`` are already merged into each selector when the pod is parsed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from kubepreempt.api.objects import Node, Pod, TopologySpreadConstraint
from kubepreempt.api.selectors import LabelSelector
from kubepreempt.cluster import Cluster
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


def _constraints(pod: Pod, when: str) -> tuple[TopologySpreadConstraint, ...]:
    return tuple(c for c in pod.spread if c.when_unsatisfiable == when)


def pre_filter_state(pod: Pod, cluster: Cluster) -> _FilterState | None:
    """Upstream ``calPreFilterState`` (None when the pod has no hard constraints).

    Counts come from per-node counts kept incrementally (``pod_counts``) summed per domain
    over the eligible nodes; a domain exists when an eligible node carries it.
    """
    constraints = _constraints(pod, DO_NOT_SCHEDULE)
    if not constraints:
        return None
    counts: list[dict[str, int]] = []
    vec: list[np.ndarray] = []
    for c in constraints:
        domains = _eligible_domains(pod, cluster, constraints, c)
        per_node = matching_per_node(cluster, c.selector, pod.namespace)
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


def _eligible_domains(pod: Pod, cluster: Cluster,
                      constraints: tuple[TopologySpreadConstraint, ...],
                      c: TopologySpreadConstraint) -> _Domains:
    def compute(cl: Cluster) -> _Domains:
        mask = eligible_nodes(pod, cl, constraints, c)
        all_ids, values = pod_counts.domains(cl, c.topology_key)
        rows = None if mask.all() else np.flatnonzero(mask)
        ids = all_ids if rows is None else all_ids[rows]
        present = np.flatnonzero(np.bincount(ids, minlength=len(values))).tolist()
        return _Domains(rows, ids, values, present)
    key = _eligible_key(pod, constraints, c)
    if key is None:
        return compute(cluster)
    return cluster.node_cached((*key, "domains", c.topology_key), compute)


def matching_per_node(cluster: Cluster, selector: LabelSelector | None,
                      namespace: str) -> np.ndarray:
    """Per node, ``count_matching`` of its pods (kept incrementally)."""
    if selector is None or selector.is_empty:
        return np.zeros(len(cluster.nodes), np.int64)
    return pod_counts.node_pod_counts(
        cluster, (NAME, selector, namespace),
        lambda p: (p.namespace == namespace and p.deletion_timestamp is None
                   and selector.matches(p.labels)))


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


def eligible_nodes(pod: Pod, cluster: Cluster,
                   constraints: tuple[TopologySpreadConstraint, ...],
                   c: TopologySpreadConstraint) -> np.ndarray:
    """Nodes carrying every constraint's key that pass ``c``'s inclusion policies, as a
    mask over all nodes (memoised per node set and the fields it depends on)."""
    def compute(cl: Cluster) -> np.ndarray:
        return np.fromiter((has_all_keys(n, constraints) and node_included(c, pod, n)
                            for n in cl.nodes), bool, len(cl.nodes))
    key = _eligible_key(pod, constraints, c)
    return compute(cluster) if key is None else cluster.node_cached(key, compute)


def _check_nodes(s: _FilterState, vec: list[np.ndarray], cluster: Cluster,
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


def _round_half_away(x: float) -> int:
    """Go ``math.Round`` for non-negative values (Python's round is half-to-even)."""
    r = math.floor(x)
    return int(r + 1 if x - r >= 0.5 else r)


def spread_scores(pod: Pod, cluster: Cluster, nodes: np.ndarray) -> np.ndarray | None:
    """Upstream PreScore + Score + NormalizeScore over feasible ``nodes``.

    None when upstream's PreScore returns Skip (no ScheduleAnyway constraint). Vectorised
    over nodes; the float arithmetic is upstream's, term by term in constraint order.
    Domain counts are summed over every eligible node; only the domains of feasible
    nodes are read, as upstream counts only those.
    """
    constraints = _constraints(pod, SCHEDULE_ANYWAY)
    if not constraints or not cluster.nodes:
        return None
    n = len(cluster.nodes)
    has_keys = np.ones(n, bool)
    for c in constraints:
        has_keys &= pod_counts.domains(cluster, c.topology_key)[0] >= 0
    ignored = ~has_keys[nodes]  # a feasible node missing a key scores 0
    kept = nodes[~ignored]
    score = np.zeros(kept.size, np.float64)
    for c in constraints:
        ids, values = pod_counts.domains(cluster, c.topology_key)
        per_node = matching_per_node(cluster, c.selector, pod.namespace)
        if c.topology_key == LABEL_HOSTNAME:
            size = kept.size
            cnt = per_node[kept]  # the node's own pods, per upstream's Score
        else:
            in_filtered = np.zeros(len(values), bool)
            in_filtered[ids[kept]] = True
            size = int(in_filtered.sum())
            mask = eligible_nodes(pod, cluster, constraints, c)
            sums = np.bincount(ids[mask], weights=per_node[mask], minlength=len(values))
            cnt = sums.astype(np.int64)[ids[kept]]
        weight = math.log(size + 2)
        score += cnt.astype(np.float64) * weight + float(c.max_skew - 1)
    floor = np.floor(score)
    rounded = np.where(score - floor >= 0.5, floor + 1, floor).astype(np.int64)
    out = np.zeros(nodes.size, np.int64)
    if rounded.size == 0:
        return out
    lo = int(rounded.min())
    hi = max(0, int(rounded.max()))
    out[~ignored] = MAX_NODE_SCORE if hi == 0 else MAX_NODE_SCORE * (hi + lo - rounded) // hi
    return out


class PodTopologySpread(PreFilterStatePlugin, ScorePlugin):
    """Upstream PodTopologySpread (PreFilter/Filter/AddPod/RemovePod, PreScore/Score)."""

    name = NAME
    weight = 2
    score_key = NAME + "/score"

    def relevant(self, state: CycleState) -> bool:
        """Only pods with their own constraints (system defaults are not modelled)."""
        return bool(state.pod.spread)

    def score_relevant(self, state: CycleState) -> bool:
        """False without ScheduleAnyway constraints: upstream PreScore Skips (every node 0),
        so no score entry (``--explain`` omits it) and no per-pod pass over feasible nodes."""
        return any(c.when_unsatisfiable == SCHEDULE_ANYWAY for c in state.pod.spread)

    # ---- filtering ----------------------------------------------------------------------
    def pre_filter(self, state: CycleState) -> Status | None:
        s = pre_filter_state(state.pod, state.cluster)
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
        state.data[self.score_key] = (nodes, spread_scores(state.pod, state.cluster, nodes))

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cached = state.data.get(self.score_key)
        if cached is not None and cached[0] is nodes:
            scores = cached[1]
        else:
            scores = spread_scores(state.pod, state.cluster, nodes)
        return np.zeros(nodes.size, np.int64) if scores is None else scores
