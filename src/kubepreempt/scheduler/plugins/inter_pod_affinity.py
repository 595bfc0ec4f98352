"""InterPodAffinity: required pod (anti-)affinity filter, preferred terms score.

Follows upstream ``pkg/scheduler/framework/plugins/interpodaffinity`` (filtering.go,
scoring.go, plugin.go):

* PreFilter counts, per topology pair ``(topologyKey, value)``: existing pods whose
  required anti-affinity terms match the incoming pod; existing pods matching *all* of
  the incoming pod's required affinity terms; existing pods matching each of its required
  anti-affinity terms. It returns Skip when the pod has no required terms and no existing
  pod's anti-affinity matches it (the filter then never runs, nor do AddPod/RemovePod).
* Filter, in upstream's order: affinity ("node(s) didn't match pod affinity rules",
  UnschedulableAndUnresolvable — a node lacking a term's topology label also fails here),
  the pod's anti-affinity ("node(s) didn't match pod anti-affinity rules", Unschedulable)
  and existing pods' anti-affinity ("node(s) didn't satisfy existing pods anti-affinity
  rules", Unschedulable). A pod matching its own affinity terms passes when no pod in the
  cluster matches them (the first pod of a group).
* Score sums, per topology pair, the weights of the incoming pod's preferred terms that
  existing pods match (anti-affinity negative), plus existing pods' preferred terms and
  required affinity terms (``hardPodAffinityWeight``, default 1; 0 leaves them out) that
  the incoming pod matches. With ``ignorePreferredTermsOfExistingPods`` a pod without
  preferred terms skips scoring. Scores are min-max normalised to 0..100 over the
  feasible nodes.

Namespace selectors: the incoming pod's terms are resolved against the namespaces'
labels (``Snapshot.namespace_labels``) as upstream merges them into the namespace list;
existing pods' terms are matched with the incoming pod's namespace labels. Terminating
pods count, as upstream (they are still in the node's pod list).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import Node, Pod, PodAffinityTerm
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
from kubepreempt.snapshot import Snapshot

NAME = "InterPodAffinity"
ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
HARD_POD_AFFINITY_WEIGHT = 1  # upstream InterPodAffinityArgs default

_AFFINITY_FAIL = unresolvable(NAME, ERR_AFFINITY)
_ANTI_FAIL = unschedulable(NAME, ERR_ANTI_AFFINITY)
_EXISTING_ANTI_FAIL = unschedulable(NAME, ERR_EXISTING_ANTI_AFFINITY)
_SKIP = Status(Code.SKIP, (), NAME)

NsLabels = Callable[[str], Mapping[str, str]]
Pair = tuple[str, str]


def term_matches(term: PodAffinityTerm, pod: Pod, ns_labels: NsLabels) -> bool:
    """Upstream ``AffinityTerm.Matches``: namespace (list or selector) and label selector.

    A term without a label selector matches no pod; a namespace selector is checked
    against the labels of ``pod``'s namespace.
    """
    selector = term.selector
    if selector is None:
        return False
    if pod.namespace not in term.namespaces:
        ns_sel = term.namespace_selector
        if ns_sel is None or not ns_sel.matches(ns_labels(pod.namespace)):
            return False
    return selector.matches(pod.labels)


def _matches_all(terms: tuple[PodAffinityTerm, ...], pod: Pod, ns_labels: NsLabels) -> bool:
    """Upstream ``podMatchesAllAffinityTerms`` (False for no terms)."""
    return bool(terms) and all(term_matches(t, pod, ns_labels) for t in terms)


def _has_pod_terms(pod: Pod) -> bool:
    aff = pod.affinity
    return aff is not None and aff.has_pod_terms


@dataclass(slots=True)
class _AffinityIndex:
    """Bound pods with pod (anti-)affinity terms, as (node index, pod).

    Upstream's snapshot keeps ``PodsWithAffinity`` / ``PodsWithRequiredAntiAffinity``
    per node. Here they come from ``Snapshot.pod_affinity_pods`` (kept on bind/remove), so
    a refresh after a change costs O(pods with terms), not a scan of every bound pod (that
    scan after every bind made SchedulingBasic quadratic). Order is bind order; every
    consumer sums counts or weights, so order never changes a result.
    """

    generation: int = -1
    with_affinity: list[tuple[int, Pod]] = field(default_factory=list)
    with_required_anti: list[tuple[int, Pod]] = field(default_factory=list)

    def refresh(self, cluster: Snapshot) -> _AffinityIndex:
        if self.generation != cluster.generation:
            keyed = cluster.pod_affinity_pods
            if keyed:
                node_pods = cluster.node_pods
                self.with_affinity = [(i, node_pods[i][key]) for key, i in keyed.items()]
                self.with_required_anti = [(i, p) for i, p in self.with_affinity
                                           if p.affinity.anti_required]
            elif self.with_affinity:
                self.with_affinity, self.with_required_anti = [], []
            self.generation = cluster.generation
        return self


def affinity_index(cluster: Snapshot) -> _AffinityIndex:
    """The (refreshed) index of pods with affinity for ``cluster``."""
    holder = node_cached(cluster, (NAME, "index"), lambda c: _AffinityIndex())
    return holder.refresh(cluster)


class _Counts(dict):
    """topologyPair -> count; entries reaching zero are deleted (upstream ``update``)."""

    def add_domains(self, cluster: Snapshot, key: str, sums: np.ndarray) -> None:
        """Add per-domain counts of topology ``key`` (from ``pod_counts.domain_sums``)."""
        values = pod_counts.domains(cluster, key)[1]
        for j in np.flatnonzero(sums).tolist():
            pair = (key, values[j])
            n = self.get(pair, 0) + int(sums[j])
            if n == 0:
                self.pop(pair, None)
            else:
                self[pair] = n

    def bump(self, node: Node, key: str, delta: int) -> None:
        value = node.labels.get(key)
        if value is None:
            return
        pair = (key, value)
        n = self.get(pair, 0) + delta
        if n == 0:
            self.pop(pair, None)
        else:
            self[pair] = n


@dataclass(slots=True)
class _FilterState:
    """PreFilter result; cloned for what-if checks that add or remove pods."""

    pod: Pod
    ns_labels: NsLabels
    pod_required: tuple[PodAffinityTerm, ...]
    anti_required: tuple[PodAffinityTerm, ...]
    self_match: bool  # the pod matches all its own required affinity terms
    # "existing_anti" / "affinity" / "anti" -> topologyPair counts (upstream's three maps).
    maps: dict[str, _Counts] = field(default_factory=lambda: {
        "existing_anti": _Counts(), "affinity": _Counts(), "anti": _Counts()})
    # Per-domain sums (map name, topology key, sums) not yet added to ``maps``: the vector
    # filter never needs the maps, and building one pair per hostname would dominate.
    pending: list[tuple[str, str, np.ndarray]] = field(default_factory=list)
    cluster: Snapshot | None = None
    # The three as per-node counts (topology key -> array over nodes), for the vector
    # filter; None once what-if updates made the maps the only truth.
    vec: _NodeCounts | None = None
    # ``has`` answers while ``vec`` is set (the maps change only through what-if
    # updates, which drop ``vec``): the pick cache filters one node per bind.
    known: dict[str, bool] = field(default_factory=dict)

    def _map(self, which: str) -> _Counts:
        if self.pending:
            for name, key, sums in self.pending:
                self.maps[name].add_domains(self.cluster, key, sums)
            self.pending = []
        return self.maps[which]

    existing_anti = property(lambda self: self._map("existing_anti"))
    affinity = property(lambda self: self._map("affinity"))
    anti = property(lambda self: self._map("anti"))

    def has(self, which: str) -> bool:
        """Whether map ``which`` has an entry (without building it)."""
        if self.vec is None:
            return self._has(which)
        hit = self.known.get(which)
        if hit is None:
            hit = self.known[which] = self._has(which)
        return hit

    def _has(self, which: str) -> bool:
        return bool(self.maps[which]) or any(
            name == which and sums.any() for name, _, sums in self.pending)

    def clone(self) -> _FilterState:
        return _FilterState(self.pod, self.ns_labels, self.pod_required, self.anti_required,
                            self.self_match, {k: _Counts(self._map(k)) for k in self.maps},
                            cluster=self.cluster)

    def update_with_pod(self, other: Pod, node: Node, delta: int) -> None:
        """Upstream ``preFilterState.updateWithPod``."""
        self.vec = None
        aff = other.affinity
        if aff is not None:
            for t in aff.anti_required:
                if term_matches(t, self.pod, self.ns_labels):
                    self.existing_anti.bump(node, t.topology_key, delta)
        if _matches_all(self.pod_required, other, self.ns_labels):
            for t in self.pod_required:
                self.affinity.bump(node, t.topology_key, delta)
        for t in self.anti_required:
            if term_matches(t, other, self.ns_labels):
                self.anti.bump(node, t.topology_key, delta)

    def check(self, node: Node) -> Status | None:
        """Upstream ``Filter`` for one node."""
        labels = node.labels
        if self.pod_required:
            pods_exist = True
            for t in self.pod_required:
                value = labels.get(t.topology_key)
                if value is None:
                    return _AFFINITY_FAIL  # all topology labels must exist on the node
                if self.affinity.get((t.topology_key, value), 0) <= 0:
                    pods_exist = False
            # First pod of a self-affine group: allowed only when nothing matches anywhere.
            if not pods_exist and not (not self.affinity and self.self_match):
                return _AFFINITY_FAIL
        if self.anti:
            for t in self.anti_required:
                value = labels.get(t.topology_key)
                if value is not None and self.anti.get((t.topology_key, value), 0) > 0:
                    return _ANTI_FAIL
        if self.existing_anti:
            counts = self.existing_anti
            for pair in labels.items():
                if counts.get(pair, 0) > 0:
                    return _EXISTING_ANTI_FAIL
        return None


@dataclass(slots=True)
class _NodeCounts:
    """Per topology key, each node's domain count (0 where the node lacks the label)."""

    existing_anti: dict[str, np.ndarray]
    affinity: dict[str, np.ndarray]
    anti: dict[str, np.ndarray]


def _check_nodes(s: _FilterState, vec: _NodeCounts, cluster: Snapshot, nodes: np.ndarray
                 ) -> list[tuple[np.ndarray, Status]]:
    """``_FilterState.check`` for many nodes at once, from the per-node counts."""
    failed = np.zeros(nodes.size, bool)
    out: list[tuple[np.ndarray, Status]] = []
    if s.pod_required:
        missing = np.zeros(nodes.size, bool)
        pods_exist = np.ones(nodes.size, bool)
        for t in s.pod_required:
            ids = pod_counts.domains(cluster, t.topology_key)[0][nodes]
            missing |= ids < 0
            pods_exist &= vec.affinity[t.topology_key][nodes] > 0
        first_of_group = not s.has("affinity") and s.self_match
        bad = missing | (~pods_exist & (not first_of_group))
        if bad.any():
            out.append((nodes[bad], _AFFINITY_FAIL))
            failed |= bad
    if s.has("anti"):
        bad = np.zeros(nodes.size, bool)
        for t in s.anti_required:
            bad |= vec.anti[t.topology_key][nodes] > 0
        bad &= ~failed
        if bad.any():
            out.append((nodes[bad], _ANTI_FAIL))
            failed |= bad
    if s.has("existing_anti"):
        bad = np.zeros(nodes.size, bool)
        for arr in vec.existing_anti.values():
            bad |= arr[nodes] > 0
        bad &= ~failed
        if bad.any():
            out.append((nodes[bad], _EXISTING_ANTI_FAIL))
    return out


# Items of the bound pods' terms as CarriedTerms counts them: (kind, term, weight).
_ANTI, _AFF, _PREF, _ANTI_PREF = "anti", "aff", "pref", "anti-pref"


def _carried(pod: Pod) -> Iterable[tuple[str, PodAffinityTerm, int]]:
    aff = pod.affinity
    for t in aff.anti_required:
        yield (_ANTI, t, 0)
    for t in aff.pod_required:
        yield (_AFF, t, HARD_POD_AFFINITY_WEIGHT)
    for wt in aff.pod_preferred:
        yield (_PREF, wt.term, wt.weight)
    for wt in aff.anti_preferred:
        yield (_ANTI_PREF, wt.term, -wt.weight)


def _carried_terms(cluster: Snapshot) -> dict:
    return pod_counts.carried_terms(cluster, NAME, _carried)


def _matching(cluster: Snapshot, terms: tuple[PodAffinityTerm, ...], all_of: bool,
              ns_labels: NsLabels) -> np.ndarray:
    """Per node, bound pods matching ``terms`` (all of them, or the one term)."""
    if all_of:
        return pod_counts.node_pod_counts(
            cluster, (NAME, "all", terms), lambda p: _matches_all(terms, p, ns_labels))
    term = terms[0]
    return pod_counts.node_pod_counts(
        cluster, (NAME, "one", term), lambda p: term_matches(term, p, ns_labels))


def _add_node_counts(target: dict[str, np.ndarray], cluster: Snapshot, key: str,
                     per_node: np.ndarray) -> np.ndarray:
    """Add ``per_node`` counts into ``target[key]`` as domain totals spread back to nodes;
    returns the domain sums added."""
    sums = pod_counts.domain_sums(cluster, key, per_node)
    spread = pod_counts.per_node(cluster, key, sums)
    prev = target.get(key)
    target[key] = spread if prev is None else prev + spread
    return sums


def _weighted(terms, weight_sign: int):
    return [(t.term, t.weight * weight_sign) for t in terms]


class InterPodAffinity(PreFilterStatePlugin, ScorePlugin):
    """Upstream InterPodAffinity (PreFilter/Filter/AddPod/RemovePod, PreScore/Score)."""

    name = NAME
    weight = 2
    score_key = NAME + "/score"

    def __init__(self, hard_pod_affinity_weight: int = HARD_POD_AFFINITY_WEIGHT,
                 ignore_preferred_terms_of_existing_pods: bool = False) -> None:
        self.hard_weight = hard_pod_affinity_weight
        self.ignore_existing_preferred = ignore_preferred_terms_of_existing_pods

    def cache_key(self) -> tuple:
        """What of this plugin's args changes scores (the signature caches)."""
        return (self.hard_weight, self.ignore_existing_preferred)

    # ---- relevance ----------------------------------------------------------------------
    def relevant(self, state: CycleState) -> bool:
        """False when neither the pod nor any bound pod has pod (anti-)affinity terms."""
        return _has_pod_terms(state.pod) or bool(state.cluster.pod_affinity_pods)

    def score_relevant(self, state: CycleState) -> bool:
        """False when PreScore would Skip (every node 0): the pod has no preferred terms
        and no bound pod has pod (anti-)affinity terms.

        Upstream skips the plugin then, so it gets no score entry (``--explain`` omits it)
        and the per-signature cache need not re-run it over the feasible nodes per pod.
        """
        aff = state.pod.affinity
        if aff is not None and (aff.pod_preferred or aff.anti_preferred):
            return True
        if self.ignore_existing_preferred:
            return False  # upstream PreScore: Skip for a pod without preferred terms
        return bool(state.cluster.pod_affinity_pods)

    # ---- filtering ----------------------------------------------------------------------
    def pre_filter(self, state: CycleState) -> Status | None:
        pod, cluster = state.pod, state.cluster
        ns_labels = cluster.namespace_labels
        aff = pod.affinity
        pod_required = aff.pod_required if aff is not None else ()
        anti_required = aff.anti_required if aff is not None else ()
        s = _FilterState(pod, ns_labels, pod_required, anti_required,
                         _matches_all(pod_required, pod, ns_labels), cluster=cluster)
        vec = _NodeCounts({}, {}, {})
        pending = s.pending
        # Bound pods' required anti-affinity terms that match this pod, counted per node.
        for (kind, term, _), counts in _carried_terms(cluster).items():
            if kind == _ANTI and term_matches(term, pod, ns_labels):
                key = term.topology_key
                pending.append(("existing_anti", key, _add_node_counts(
                    vec.existing_anti, cluster, key, counts)))
        if pod_required or anti_required:
            if pod_required:
                counts = _matching(cluster, pod_required, True, ns_labels)
                for t in pod_required:
                    key = t.topology_key
                    pending.append(("affinity", key, _add_node_counts(
                        vec.affinity, cluster, key, counts)))
            for t in anti_required:
                counts = _matching(cluster, (t,), False, ns_labels)
                key = t.topology_key
                pending.append(("anti", key,
                                _add_node_counts(vec.anti, cluster, key, counts)))
        elif not s.has("existing_anti"):
            return _SKIP  # upstream: nothing can reject a node
        s.vec = vec
        state.data[NAME] = s
        return None

    def node_local_now(self, state: CycleState) -> bool:
        """Whether, after PreFilter, this cycle's verdict on a node depends only on that
        node and its pods (the per-signature pick cache may then keep it per node).

        So when the pod has no required affinity terms (the first-of-group rule looks at
        the whole cluster) and every topology key counted (the pod's anti-affinity terms,
        bound pods' anti-affinity terms matching it) has one node per domain, as
        ``kubernetes.io/hostname`` has: a node's count is then its own pods'. The cache's
        key must then also hold what term matching reads of the pod (labels, namespace).
        """
        s = state.data.get(NAME)
        if not isinstance(s, _FilterState) or s.vec is None or s.pod_required:
            return False
        cluster = state.cluster
        return all(pod_counts.one_node_per_domain(cluster, key)
                   for counts in (s.vec.existing_anti, s.vec.anti) for key in counts)

    def filter_nodes(self, state: CycleState, nodes: np.ndarray) -> list[tuple[np.ndarray, Status]]:
        s = self._state(state)
        if isinstance(s, _FilterState) and s.vec is not None:
            return _check_nodes(s, s.vec, state.cluster, nodes)
        return super().filter_nodes(state, nodes)

    # ---- scoring ------------------------------------------------------------------------
    def pre_score(self, state: CycleState, nodes: np.ndarray) -> None:
        # () when upstream's PreScore returns Skip, else (raw scores of every node,).
        raw = node_scores(state.pod, state.cluster, self.hard_weight)
        state.data[self.score_key] = () if raw is None else (raw,)

    def pre_score_skips(self, state: CycleState) -> bool:
        """Run PreScore (its result does not depend on the nodes) and say whether it
        Skips, every node then scoring 0: the pick cache leaves the plugin out."""
        self.pre_score(state, np.empty(0, np.int64))
        return not state.data[self.score_key]

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        entry = state.data.get(self.score_key)
        if entry is None:
            raw = node_scores(state.pod, state.cluster, self.hard_weight)
            entry = () if raw is None else (raw,)
        if not entry:  # upstream PreScore returns Skip: every node scores 0
            return np.zeros(nodes.size, np.int64)
        return normalize(entry[0][nodes])


def node_scores(pod: Pod, cluster: Snapshot,
                hard_weight: int = HARD_POD_AFFINITY_WEIGHT) -> np.ndarray | None:
    """Each node's raw score: the summed weights of its topology domains (upstream PreScore
    and Score before normalising), from the incremental per-node counts. None when no
    term contributes (upstream's PreScore Skip)."""
    ns_labels = cluster.namespace_labels
    aff = pod.affinity
    weighted: dict[str, np.ndarray] = {}  # topology key -> per-node weight, before domains
    contributes = False  # upstream's topologyScore map gets an entry (else PreScore Skip)

    def add(key: str, counts: np.ndarray, weight: int) -> None:
        nonlocal contributes
        if not contributes:
            contributes = bool(counts[pod_counts.domains(cluster, key)[0] >= 0].any())
        prev = weighted.get(key)
        weighted[key] = counts * weight if prev is None else prev + counts * weight

    if aff is not None:
        for terms, sign in ((aff.pod_preferred, 1), (aff.anti_preferred, -1)):
            for wt in terms:
                add(wt.term.topology_key, _matching(cluster, (wt.term,), False, ns_labels),
                    wt.weight * sign)
    for (kind, term, weight), counts in _carried_terms(cluster).items():
        if kind == _ANTI or (kind == _AFF and hard_weight <= 0):
            continue
        if term_matches(term, pod, ns_labels):
            add(term.topology_key, counts, hard_weight if kind == _AFF else weight)
    if not contributes:
        return None
    raw = np.zeros(len(cluster.nodes), np.int64)
    for key, per_node in weighted.items():
        sums = pod_counts.domain_sums(cluster, key, per_node)
        raw += pod_counts.per_node(cluster, key, sums)
    return raw


def _node_score(topo: dict[str, dict[str, int]], labels: Mapping[str, str]) -> int:
    total = 0
    for key, values in topo.items():
        value = labels.get(key)
        if value is not None:
            total += values.get(value, 0)
    return total


def topology_scores(pod: Pod, cluster: Snapshot,
                    hard_weight: int = HARD_POD_AFFINITY_WEIGHT) -> dict[str, dict[str, int]]:
    """Upstream PreScore by a full scan: topologyKey -> value -> summed weights (empty
    means Skip). The reference for :func:`node_scores` (tests compare the two)."""
    ns_labels = cluster.namespace_labels
    aff = pod.affinity
    incoming: list[tuple[PodAffinityTerm, int]] = []
    if aff is not None:
        incoming = _weighted(aff.pod_preferred, 1) + _weighted(aff.anti_preferred, -1)
    topo: dict[str, dict[str, int]] = {}

    def add(node: Node, key: str, weight: int) -> None:
        value = node.labels.get(key)
        if value is not None:
            values = topo.setdefault(key, {})
            values[value] = values.get(value, 0) + weight

    pods: Iterable[tuple[int, Pod]]
    if incoming:  # the pod's preferred terms need every pod; otherwise pods with affinity
        pods = ((i, p) for i, ps in enumerate(cluster.node_pods) for p in ps.values())
    else:
        pods = affinity_index(cluster).with_affinity
    nodes = cluster.nodes
    for i, existing in pods:
        node = nodes[i]
        if not node.labels:
            continue
        for term, weight in incoming:
            if term_matches(term, existing, ns_labels):
                add(node, term.topology_key, weight)
        eaff = existing.affinity
        if eaff is None:
            continue
        if hard_weight > 0:
            for term in eaff.pod_required:
                if term_matches(term, pod, ns_labels):
                    add(node, term.topology_key, hard_weight)
        for wt in eaff.pod_preferred:
            if term_matches(wt.term, pod, ns_labels):
                add(node, wt.term.topology_key, wt.weight)
        for wt in eaff.anti_preferred:
            if term_matches(wt.term, pod, ns_labels):
                add(node, wt.term.topology_key, -wt.weight)
    return topo


def reference_node_scores(pod: Pod, cluster: Snapshot,
                          hard_weight: int = HARD_POD_AFFINITY_WEIGHT) -> np.ndarray:
    """Each node's raw score from :func:`topology_scores` (the full scan)."""
    topo = topology_scores(pod, cluster, hard_weight)
    return np.fromiter((_node_score(topo, n.labels) for n in cluster.nodes), np.int64,
                       len(cluster.nodes))


def normalize(raw: np.ndarray) -> np.ndarray:
    """Upstream NormalizeScore: ``int(100 * (s - min) / (max - min))``, 0 when all equal."""
    if raw.size == 0:
        return raw.astype(np.int64)
    lo, hi = int(raw.min()), int(raw.max())
    diff = hi - lo
    if diff <= 0:
        return np.zeros(raw.size, np.int64)
    # float64 as upstream: MaxNodeScore * (float(s - min) / float(diff)), truncated (the
    # operands are >= 0, so truncation is the floor numpy's cast takes).
    return (MAX_NODE_SCORE * ((raw - lo).astype(np.float64) / float(diff))).astype(np.int64)


# ---- queueing hints (EnqueueExtensions) ----------------------------------------------------

from kubepreempt.scheduler.queue.events import (  # noqa: E402
    NODE_ADD,
    POD_ADD,
    POD_DELETE,
    ClusterEvent,
    QueueingHint,
)


def _no_namespace_labels(_: str) -> Mapping[str, str]:
    return {}


def _hint_matches_all(terms: Iterable[PodAffinityTerm], other: Pod) -> bool:
    """Upstream ``podMatchesAllAffinityTerms`` as the hints call it (False for no terms).

    The hints match with ``nsLabels`` nil and terms whose namespaceSelector was not
    merged into their namespaces, so a term selecting namespaces by a non-empty
    namespaceSelector matches no pod here (kubernetes#141954, open).
    """
    terms = tuple(terms)
    return bool(terms) and all(term_matches(t, other, _no_namespace_labels) for t in terms)


def is_schedulable_after_pod_added(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterPodChange`` for an added pod: it matches all the pod's
    required affinity terms."""
    assert ev.pod is not None
    aff = pod.affinity
    return _hint_matches_all(aff.pod_required if aff else (), ev.pod)


def is_schedulable_after_pod_deleted(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterPodChange`` for a deleted pod: it matched all the pod's
    required anti-affinity terms, or all its own required anti-affinity terms match the
    pod (the two no longer repel each other, kubernetes#135325, 1.35)."""
    deleted = ev.pod
    assert deleted is not None
    aff = pod.affinity
    if _hint_matches_all(aff.anti_required if aff else (), deleted):
        return True
    theirs = deleted.affinity
    return _hint_matches_all(theirs.anti_required if theirs else (), pod)


def is_schedulable_after_node_change(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterNodeChange`` for an added node: it has the topology key of a
    required affinity term, or the pod has any required anti-affinity term (a new node
    may be a domain free of the pods it repels, whatever its labels)."""
    assert ev.node is not None
    aff = pod.affinity
    if aff is None:
        return False
    labels = ev.node.labels
    return any(t.topology_key in labels for t in aff.pod_required) or bool(aff.anti_required)


def events_to_register() -> dict[str, QueueingHint]:
    """InterPodAffinity's ``EventsToRegister``: Pod Add / UpdatePodLabel / Delete, Node
    Add / UpdateNodeLabel."""
    return {POD_ADD: is_schedulable_after_pod_added,
            POD_DELETE: is_schedulable_after_pod_deleted,
            NODE_ADD: is_schedulable_after_node_change}
