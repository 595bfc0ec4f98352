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

``defaultingType: List`` (``PodTopologySpreadArgs``): a pod without its own constraints
gets the profile's ``defaultConstraints`` (both kinds), each with the pod's default
selector (upstream ``buildDefaultConstraints`` / ``helper.DefaultSelector``, read from the
cluster's ``spread_sources`` when the input carries Services and controllers); no selector
means no constraints. Unlike system defaults, List defaults need every topology key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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


def default_selector(pod: Pod, cluster: Cluster) -> LabelSelector | None:
    """``helper.DefaultSelector`` from the input's Services and controllers (None: empty)."""
    sources = getattr(cluster, "spread_sources", None)
    return sources.default_selector(pod) if sources else None


def list_defaults(pod: Pod, cluster: Cluster, defaults: tuple[DefaultConstraint, ...]
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


def pre_filter_state(pod: Pod, cluster: Cluster,
                     spread: tuple[TopologySpreadConstraint, ...] | None = None
                     ) -> _FilterState | None:
    """Upstream ``calPreFilterState`` (None when the pod has no hard constraints).

    ``spread``: the constraints to use instead of the pod's own (List defaults)."""
    constraints = _constraints(pod, DO_NOT_SCHEDULE, spread)
    if not constraints:
        return None
    counts: list[dict[str, int]] = [{} for _ in constraints]
    ns = pod.namespace
    for i, node in enumerate(cluster.nodes):
        if not has_all_keys(node, constraints):
            continue
        pods = cluster.node_pods[i].values()
        for ci, c in enumerate(constraints):
            if not node_included(c, pod, node):
                continue
            value = node.labels[c.topology_key]
            domain = counts[ci]
            domain[value] = domain.get(value, 0) + count_matching(pods, c.selector, ns)
    return _FilterState(pod, constraints, counts, [None] * len(constraints),
                        [selector_matches(c.selector, pod.labels) for c in constraints])


def _round_half_away(x: float) -> int:
    """Go ``math.Round`` for non-negative values (Python's round is half-to-even)."""
    r = math.floor(x)
    return int(r + 1 if x - r >= 0.5 else r)


def spread_scores(pod: Pod, cluster: Cluster, nodes: np.ndarray,
                  spread: tuple[TopologySpreadConstraint, ...] | None = None
                  ) -> np.ndarray | None:
    """Upstream PreScore + Score + NormalizeScore over feasible ``nodes``.

    None when upstream's PreScore returns Skip (no ScheduleAnyway constraint).
    """
    constraints = _constraints(pod, SCHEDULE_ANYWAY, spread)
    if not constraints or not cluster.nodes:
        return None
    all_nodes = cluster.nodes
    filtered = nodes.tolist()
    ignored = {i for i in filtered if not has_all_keys(all_nodes[i], constraints)}
    domains: list[dict[str, int]] = [{} for _ in constraints]
    for i in filtered:
        if i in ignored:
            continue
        labels = all_nodes[i].labels
        for ci, c in enumerate(constraints):
            if c.topology_key != LABEL_HOSTNAME:  # per-node counts are taken at Score
                domains[ci].setdefault(labels[c.topology_key], 0)
    weights = []
    for ci, c in enumerate(constraints):
        size = len(filtered) - len(ignored) if c.topology_key == LABEL_HOSTNAME \
            else len(domains[ci])
        weights.append(math.log(size + 2))
    ns = pod.namespace
    for i, node in enumerate(all_nodes):
        if not has_all_keys(node, constraints):
            continue
        pods = None
        for ci, c in enumerate(constraints):
            if not node_included(c, pod, node):
                continue
            domain = domains[ci]
            value = node.labels[c.topology_key]
            if value not in domain:  # no feasible node there (or hostname)
                continue
            if pods is None:
                pods = list(cluster.node_pods[i].values())
            domain[value] += count_matching(pods, c.selector, ns)

    raw: list[int] = []
    for i in filtered:
        if i in ignored:
            raw.append(-1)
            continue
        labels = all_nodes[i].labels
        score = 0.0
        for ci, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                cnt = count_matching(cluster.node_pods[i].values(), c.selector, ns)
            else:
                cnt = domains[ci][labels[c.topology_key]]
            score += float(cnt) * weights[ci] + float(c.max_skew - 1)
        raw.append(_round_half_away(score))
    valid = [s for s in raw if s >= 0]
    lo = min(valid) if valid else 0
    hi = max([0, *valid])
    out = np.zeros(len(raw), np.int64)
    for k, s in enumerate(raw):
        if s < 0:
            continue  # ignored nodes score 0
        out[k] = MAX_NODE_SCORE if hi == 0 else MAX_NODE_SCORE * (hi + lo - s) // hi
    return out


class PodTopologySpread(PreFilterStatePlugin, ScorePlugin):
    """Upstream PodTopologySpread (PreFilter/Filter/AddPod/RemovePod, PreScore/Score)."""

    name = NAME
    weight = 2
    score_key = NAME + "/score"
    defaults_key = NAME + "/defaults"

    def __init__(self, default_constraints: tuple[DefaultConstraint, ...] = (),
                 defaulting_type: str = "System") -> None:
        self.default_constraints = default_constraints if defaulting_type == "List" else ()
        self.defaulting_type = defaulting_type

    def cache_key(self) -> tuple:
        """What of this plugin's args changes verdicts or scores."""
        return (self.defaulting_type, self.default_constraints)

    def _spread(self, state: CycleState) -> tuple[TopologySpreadConstraint, ...]:
        """The pod's constraints, or the List defaults built for it (memoised per cycle)."""
        pod = state.pod
        if pod.spread or not self.default_constraints:
            return pod.spread
        built = state.data.get(self.defaults_key)
        if built is None:
            built = state.data[self.defaults_key] = list_defaults(
                pod, state.cluster, self.default_constraints)
        return built

    def relevant(self, state: CycleState) -> bool:
        """Pods with their own constraints, or List defaults (system defaults: see above)."""
        return bool(self._spread(state))

    def score_relevant(self, state: CycleState) -> bool:
        """False without ScheduleAnyway constraints: upstream PreScore Skips (every node 0),
        so no score entry (``--explain`` omits it) and no per-pod pass over feasible nodes."""
        return any(c.when_unsatisfiable == SCHEDULE_ANYWAY for c in self._spread(state))

    # ---- filtering ----------------------------------------------------------------------
    def pre_filter(self, state: CycleState) -> Status | None:
        s = pre_filter_state(state.pod, state.cluster, self._spread(state))
        if s is None:
            return _SKIP
        state.data[NAME] = s
        return None

    # ---- scoring ------------------------------------------------------------------------
    def pre_score(self, state: CycleState, nodes: np.ndarray) -> None:
        state.data[self.score_key] = (nodes, spread_scores(state.pod, state.cluster, nodes,
                                                           self._spread(state)))

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        cached = state.data.get(self.score_key)
        if cached is not None and cached[0] is nodes:
            scores = cached[1]
        else:
            scores = spread_scores(state.pod, state.cluster, nodes, self._spread(state))
        return np.zeros(nodes.size, np.int64) if scores is None else scores
