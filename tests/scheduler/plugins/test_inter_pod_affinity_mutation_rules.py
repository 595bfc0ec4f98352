"""InterPodAffinity rules the upstream-table tests leave implicit, worked from upstream.

Sources: ``pkg/scheduler/framework/plugins/interpodaffinity`` — ``filtering.go``
(``preFilterState.Clone`` copies the counts and keeps the incoming pod's ``podInfo`` and
``namespaceLabels``; ``updateWithPod`` for AddPod/RemovePod matches bound pods' required
anti-affinity terms against the incoming pod with its namespace labels, and the incoming
pod's terms with their namespaceSelector merged into the namespaces), ``scoring.go``
(PreScore's ``topologyScore`` map, Score, NormalizeScore) and ``plugin.go``
(``isSchedulableAfterPodChange``). Expected scores are upstream's ``scoring_test.go``
``TestPreferredAffinity`` / ``TestPreferredAffinityWithHardPodAffinitySymmetricWeight``
answers; here they are asked of the full-scan reference (``topology_scores``) as well as
of the incremental counts (``node_scores``).
"""

from __future__ import annotations

import numpy as np
import pytest
from builders.plugins import (
    Exists,
    In,
    NotIn,
    expr,
    make_cluster,
    make_node,
    make_pod,
    new_state,
    term,
    weighted,
)

from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.inter_pod_affinity import (
    ERR_AFFINITY,
    ERR_ANTI_AFFINITY,
    ERR_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
    is_schedulable_after_pod_added,
    node_scores,
    normalize,
    reference_node_scores,
    topology_scores,
)
from kubepreempt.scheduler.queue.events import POD_ADD, ClusterEvent

CHINA = {"region": "China"}
INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}
TEAM1 = {"matchExpressions": [In("team", "team1")]}

STAY_S1 = dict(pref=[weighted(5, term(In("security", "S1"), topo="region"))])
STAY_S2 = dict(pref=[weighted(6, term(In("security", "S2"), topo="region"))])
AFFINITY3 = dict(pref=[
    weighted(8, term(NotIn("security", "S1"), In("security", "S2"), topo="region")),
    weighted(2, term(Exists("security"), expr("wrongkey", "DoesNotExist"), topo="region"))])
HARD = dict(req=[term(In("security", "S1", "value2"), topo="region"),
                 term(Exists("security"), expr("wrongkey", "DoesNotExist"), topo="region")])
AWAY_S1_AZ = dict(anti_pref=[weighted(5, term(In("security", "S1"), topo="az"))])
AWAY_S2_AZ = dict(anti_pref=[weighted(5, term(In("security", "S2"), topo="az"))])
STAY_S1_AWAY_S2 = dict(pref=[weighted(8, term(In("security", "S1"), topo="region"))],
                       anti_pref=[weighted(5, term(In("security", "S2"), topo="az"))])
_NS_TERM = term(In("security", "S1"), topo="region", namespaces=["subteam2.team2"],
                ns_selector=TEAM1)


def _n(*labels_list):
    return [make_node(f"node{i + 1}", labels) for i, labels in enumerate(labels_list)]


def _on(node, labels=None, ns="default", **aff):
    return make_pod(node=node, labels=labels, ns=ns, **aff)


# (upstream name, incoming pod, bound pods, nodes, hardPodAffinityWeight, normalised scores)
CASES = [
    ("Affinity: pod that matches topology key & pods in nodes will get high score",
     make_pod(labels=S1, **STAY_S1), [_on("node1", S1), _on("node2", S2), _on("node3", S1)],
     _n(CHINA, INDIA, AZ1), 1, [100, 0, 0]),
    ("Affinity: the nodes that have the label with the same value as a matching pod",
     make_pod(**STAY_S1), [_on("node1", S1)], _n(CHINA, CHINA_AZ1, INDIA), 1, [100, 100, 0]),
    ("Affinity: different operators and values, some match failures",
     make_pod(labels=S1, **AFFINITY3), [_on("node1", S1), _on("node2", S2), _on("node3", S1)],
     _n(CHINA, INDIA, AZ1), 1, [20, 100, 0]),
    ("Affinity symmetry: existing pods' preferred affinity terms",
     make_pod(labels=S2), [_on("node1", S1, **STAY_S1), _on("node2", S2, **STAY_S2)],
     _n(CHINA, INDIA, AZ1), 1, [0, 100, 0]),
    ("Anti Affinity symmetry with namespace selector",
     make_pod(ns="subteam1.team1", labels=S1),
     [_on("node1", S1, anti_pref=[weighted(5, _NS_TERM)]), _on("node2", S2, **STAY_S2)],
     _n(CHINA, INDIA, AZ1), 1, [0, 100, 100]),
    ("Affinity symmetry: existing pods' required terms (hardPodAffinityWeight 1)",
     make_pod(labels=S1), [_on("node1", S1, **HARD), _on("node2", S2, **HARD)],
     _n(CHINA, INDIA, AZ1), 1, [100, 100, 0]),
    ("hard pod affinity symmetry weights 7 (any positive weight scales alike)",
     make_pod(labels=S1), [_on("node1", S1, **HARD), _on("node2", S2, **HARD),
                           _on("node2", S2, **HARD)],
     _n(CHINA, CHINA, INDIA), 7, [100, 100, 0]),
    ("hard pod affinity symmetry is closed (weights 0)",
     make_pod(labels=S1), [_on("node1", S1, **HARD), _on("node2", S2, **HARD)],
     _n(CHINA, INDIA, AZ1), 0, [0, 0, 0]),
    ("Anti Affinity: node with more matching pods gets the low score",
     make_pod(labels=S1, **AWAY_S1_AZ), [_on("node1", S1), _on("node1", S1), _on("node2", S2)],
     _n(AZ1, INDIA), 1, [0, 100]),
    ("Anti Affinity symmetry: existing pods' preferred anti-affinity terms",
     make_pod(labels=S2), [_on("node1", S1, **AWAY_S2_AZ), _on("node2", S2, **AWAY_S1_AZ)],
     _n(AZ1, AZ2), 1, [0, 100]),
    ("Affinity and Anti Affinity and symmetry together",
     make_pod(labels=S1, **STAY_S1_AWAY_S2),
     [_on("node1", S1), _on("node2", S2), _on("node3", **STAY_S1_AWAY_S2),
      _on("node4", **AWAY_S1_AZ)], _n(CHINA, AZ1, INDIA, AZ2), 1, [100, 0, 100, 0]),
    ("Avoid panic when partial nodes in a topology don't have pods with affinity",
     make_pod(labels=S1), [_on("node1", S1), _on("node2", **STAY_S1_AWAY_S2)],
     _n(CHINA, CHINA), 1, [0, 0]),
    ("Affinity symmetry with namespace selector",
     make_pod(ns="subteam1.team1", labels=S1),
     [_on("node1", S1, pref=[weighted(5, _NS_TERM)]), _on("node2", S2, **STAY_S2)],
     _n(CHINA, INDIA, AZ1), 1, [100, 0, 0]),
    ("Affinity with pods matching both NamespaceSelector and Namespaces",
     make_pod(ns="subteam1.team1", labels=S1, pref=[weighted(5, _NS_TERM)]),
     [_on("node1", S1, "subteam1.team1"), _on("node1", S1, "subteam1.team1"),
      _on("node1", S1, "subteam2.team2"), _on("node2", S1, "subteam2.team1")],
     _n(CHINA, INDIA), 1, [100, 0]),
    ("Anti Affinity with pods matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=S1, anti_pref=[weighted(5, _NS_TERM)]),
     [_on("node1", S1, "subteam1.team1"), _on("node1", S1, "subteam1.team1"),
      _on("node1", S1, "subteam1.team2"), _on("node2", S1, "subteam2.team1")],
     _n(CHINA, INDIA), 1, [0, 100]),
    ("hard pod affinity symmetry with matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels={"service": "S1"}),
     [_on("node1", req=[term(In("service", "S1"), topo="region",
                             namespaces=["default", "subteam2.team2"], ns_selector=TEAM1)]),
      _on("node2", req=[term(In("service", "S1"), topo="region",
                             namespaces=["default", "subteam2.team2"], ns_selector=TEAM1)])],
     _n(CHINA, INDIA, AZ1), 1, [100, 100, 0]),
    ("a pod on a node without labels adds nothing (processTerm: no labels, no pair)",
     make_pod(labels=S1, **STAY_S1), [_on("node1", S1), _on("node2", S1), _on("node2", S1)],
     _n({}, CHINA, INDIA), 1, [0, 100, 0]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "hard", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_reference_scan_and_counts_give_upstream_scores(pod, pods, nodes, hard, want) -> None:
    cluster = make_cluster(nodes, pods)
    idx = np.arange(len(nodes), dtype=np.int64)
    assert normalize(reference_node_scores(pod, cluster, hard)[idx]).tolist() == want
    raw = node_scores(pod, cluster, hard)
    got = [0] * len(nodes) if raw is None else normalize(raw[idx]).tolist()
    assert got == want


def test_topology_score_map_is_upstreams() -> None:
    """PreScore's ``topologyScore`` for "Affinity and Anti Affinity and symmetry together":
    region China +8 (node1's S1 pod), India +8 (node3's pod prefers S1 pods, the incoming
    pod is S1), az az1 -5 (node2's S2 pod repelled), az az2 -5 (node4's pod repels S1)."""
    pods = [_on("node1", S1), _on("node2", S2), _on("node3", **STAY_S1_AWAY_S2),
            _on("node4", **AWAY_S1_AZ)]
    cluster = make_cluster(_n(CHINA, AZ1, INDIA, AZ2), pods)
    got = topology_scores(make_pod(labels=S1, **STAY_S1_AWAY_S2), cluster)
    assert got == {"region": {"China": 8, "India": 8}, "az": {"az1": -5, "az2": -5}}
    ref = reference_node_scores(make_pod(labels=S1, **STAY_S1_AWAY_S2), cluster)
    assert ref.dtype == np.int64
    assert ref.tolist() == [8, -5, 8, -5]
    # Only pods with affinity are read when the incoming pod has no preferred terms: the
    # symmetric weights (node3's preferred S1 term; node4's anti term) alone.
    assert topology_scores(make_pod(labels=S1), cluster) == {
        "region": {"India": 8}, "az": {"az2": -5}}


def test_normalize_with_negative_raw_scores() -> None:
    """NormalizeScore: ``100 * (s - min) / (max - min)`` truncated: -5, 3, 8 -> 0, 61, 100;
    all equal -> 0; no nodes -> none."""
    assert normalize(np.array([-5, 3, 8], np.int64)).tolist() == [0, 61, 100]
    assert normalize(np.array([4, 4], np.int64)).tolist() == [0, 0]
    out = normalize(np.array([], np.int64))
    assert out.dtype == np.int64 and out.size == 0


# ---- PreFilter state: Clone, AddPod / RemovePod ------------------------------------------------
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
AFF = (UNRES, ERR_AFFINITY)
ANTI = (Code.UNSCHEDULABLE, ERR_ANTI_AFFINITY)
EXIST = (Code.UNSCHEDULABLE, ERR_EXISTING_ANTI_AFFINITY)


def _status(s):
    return None if s is None else (s.code, s.message())


def _prefiltered(pod, pods, nodes):
    cluster = make_cluster(nodes, pods)
    plugin = InterPodAffinity()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    return cluster, plugin, state


def _both_paths(plugin, state, cluster) -> list:
    """Filter per node, checked against the vector path."""
    got = [_status(plugin.filter(state, cluster.node_view(i)))
           for i in range(len(cluster.nodes))]
    vec: dict[int, tuple] = {}
    for bad, st in plugin.filter_nodes(state, np.arange(len(cluster.nodes), dtype=np.int64)):
        for i in bad.tolist():
            vec[i] = _status(st)
    assert [vec.get(i) for i in range(len(cluster.nodes))] == got
    return got


def test_clone_keeps_the_first_pod_of_a_self_affine_group() -> None:
    """A pod matching its own required affinity term, with no matching pod anywhere,
    passes (``satisfyPodAffinity``'s first-pod rule) — in a clone too, which keeps the
    pod's terms; a node without the topology key still fails."""
    pod = make_pod("p", labels={"app": "db"}, req=[term(In("app", "db"), topo="region")])
    cluster, plugin, state = _prefiltered(pod, [_on("node1", {"app": "web"})],
                                          _n(CHINA, INDIA, AZ1))
    clone = state.clone()
    assert _both_paths(plugin, clone, cluster) == [None, None, AFF]
    assert _both_paths(plugin, state, cluster) == [None, None, AFF]


def test_clone_keeps_the_required_affinity_terms() -> None:
    """A pod not matching its own term: only the region holding a matching pod passes,
    in the clone as in the original."""
    pod = make_pod("p", req=[term(In("app", "db"), topo="region")])
    cluster, plugin, state = _prefiltered(pod, [_on("node1", {"app": "db"})],
                                          _n(CHINA, INDIA, CHINA_AZ1))
    assert _both_paths(plugin, state.clone(), cluster) == [None, AFF, None]


def test_remove_victim_whose_anti_affinity_selects_the_pods_namespace() -> None:
    """RemovePod on a clone (preemption's what-if): a bound pod's required anti-affinity
    term with a namespaceSelector matching the incoming pod's namespace labels blocks its
    region; removing that pod from the clone frees the region, the original keeps it."""
    victim = make_pod("victim", node="node1", labels={"app": "x"},
                      anti=[term(In("security", "S1"), topo="region", namespaces=[],
                                 ns_selector=TEAM1)])
    pod = make_pod("p", ns="subteam1.team1", labels=S1)
    cluster, plugin, state = _prefiltered(pod, [victim], _n(CHINA, INDIA))
    assert _both_paths(plugin, state, cluster) == [EXIST, None]
    clone = state.clone()
    plugin.remove_pod(clone, victim, cluster.node_view(0))
    assert _both_paths(plugin, clone, cluster) == [None, None]
    assert _both_paths(plugin, state, cluster) == [EXIST, None]
    plugin.add_pod(clone, victim, cluster.node_view(1))
    assert _both_paths(plugin, clone, cluster) == [None, EXIST]


def test_add_pod_matching_the_pods_namespace_selector_terms() -> None:
    """AddPod of a pod in a namespace the incoming pod's terms select by namespaceSelector:
    it satisfies the required affinity term in its region and, for the anti-affinity
    term, blocks its region."""
    added = make_pod("added", ns="subteam2.team1", labels={"app": "db"})
    aff_pod = make_pod("a", req=[term(In("app", "db"), topo="region", namespaces=[],
                                      ns_selector=TEAM1)])
    cluster, plugin, state = _prefiltered(aff_pod, [_on("node1", {"app": "web"})],
                                          _n(CHINA, INDIA))
    assert _both_paths(plugin, state, cluster) == [AFF, AFF]
    clone = state.clone()
    plugin.add_pod(clone, added, cluster.node_view(1))
    assert _both_paths(plugin, clone, cluster) == [AFF, None]

    anti_pod = make_pod("b", anti=[term(In("app", "db"), topo="region", namespaces=[],
                                        ns_selector=TEAM1)])
    cluster, plugin, state = _prefiltered(anti_pod, [], _n(CHINA, INDIA))
    plugin.add_pod(state, added, cluster.node_view(0))
    assert _both_paths(plugin, state, cluster) == [ANTI, None]
    # A pod in a namespace the selector leaves out changes nothing.
    plugin.add_pod(state, make_pod("other", ns="subteam1.team2", labels={"app": "db"}),
                   cluster.node_view(1))
    assert _both_paths(plugin, state, cluster) == [ANTI, None]


def test_counts_after_add_pod_are_not_node_local() -> None:
    """Once AddPod changed the counts, the per-node verdict cache may not keep the plugin
    per node (its per-node arrays no longer hold the counts)."""
    pod = make_pod("p", labels=S1, anti=[term(In("app", "x"), topo="kubernetes.io/hostname")])
    nodes = [make_node(n, {"kubernetes.io/hostname": n}) for n in ("n1", "n2")]
    cluster, plugin, state = _prefiltered(pod, [], nodes)
    assert plugin.node_local_now(state)
    plugin.add_pod(state, make_pod("x", labels={"app": "x"}), cluster.node_view(0))
    assert not plugin.node_local_now(state)
    assert _both_paths(plugin, state, cluster) == [ANTI, None]


def test_pod_added_hint_for_a_pod_without_affinity_skips() -> None:
    """``isSchedulableAfterPodChange`` for an added pod: Queue only when it matches all the
    target pod's required affinity terms; a target without any terms gets QueueSkip
    (``podMatchesAllAffinityTerms`` is false for no terms)."""
    ev = ClusterEvent(POD_ADD, pod=_on("node1", S1))
    assert is_schedulable_after_pod_added(make_pod("p", labels=S1), ev, lambda ns: {}) is False


def test_every_required_affinity_term_needs_a_pod_in_the_nodes_domain() -> None:
    """``satisfyPodAffinity``: each term's pair must have a count; one term's count does not
    stand for another's (node2 shares node1's region, not its zone)."""
    pod = make_pod("p", req=[term(In("app", "db"), topo="zone"),
                             term(In("app", "db"), topo="region")])
    nodes = [make_node("node1", {"region": "China", "zone": "z1"}),
             make_node("node2", {"region": "China", "zone": "z2"}),
             make_node("node3", {"region": "India", "zone": "z3"})]
    cluster, plugin, state = _prefiltered(pod, [_on("node1", {"app": "db"})], nodes)
    assert _both_paths(plugin, state, cluster) == [None, AFF, AFF]


def test_a_node_gets_only_its_first_failing_check() -> None:
    """Filter's order: affinity, then the pod's anti-affinity, then existing pods'
    anti-affinity; a node failing several gets the first status only."""
    nodes = [make_node("node1", {"region": "China", "zone": "z1"}),
             make_node("node2", {"region": "India", "zone": "z2"}),
             make_node("node3", {"region": "India", "zone": "z3"}),
             make_node("node4", {"zone": "z4"})]
    pod = make_pod("p", labels=S1, req=[term(In("app", "db"), topo="region")],
                   anti=[term(In("app", "web"), topo="zone")])
    pods = [_on("node2", {"app": "db"}), _on("node3", {"app": "web"}),
            _on("node1", {"app": "web"}),
            _on("node1", {"app": "guard"}, anti=[term(In("security", "S1"), topo="region")])]
    cluster, plugin, state = _prefiltered(pod, pods, nodes)
    assert _both_paths(plugin, state, cluster) == [AFF, None, ANTI, AFF]


def test_normalize_dtype_and_single_node() -> None:
    """One node, or equal scores: ``maxMinDiff`` 0 gives 0 (int64 as upstream's
    ``int64(fScore)``)."""
    for raw in ([7], [3, 3, 3]):
        out = normalize(np.array(raw, np.int64))
        assert out.dtype == np.int64
        assert out.tolist() == [0] * len(raw)
    assert normalize(np.array([0, 1, 3], np.int64)).dtype == np.int64


def test_pre_score_skips_only_when_no_term_contributes() -> None:
    """PreScore returns Skip when ``topologyScore`` stays empty: no pod matches the
    incoming pod's preferred terms and no bound pod's terms match it."""
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", S1)])
    plugin = InterPodAffinity()
    assert not plugin.pre_score_skips(new_state(make_pod("a", **STAY_S1), cluster))
    assert plugin.pre_score_skips(new_state(make_pod("b", **STAY_S2), cluster))


def test_first_pod_of_a_group_still_needs_every_topology_key() -> None:
    """``satisfyPodAffinity`` returns false for a node lacking any term's topology key
    before the first-pod rule is considered (node2 has a region but no zone)."""
    pod = make_pod("p", labels={"app": "db"}, req=[term(In("app", "db"), topo="zone"),
                                                   term(In("app", "db"), topo="region")])
    nodes = [make_node("node1", {"region": "China", "zone": "z1"}),
             make_node("node2", {"region": "China"})]
    cluster, plugin, state = _prefiltered(pod, [], nodes)
    assert _both_paths(plugin, state, cluster) == [None, AFF]


HARD_S1 = dict(req=[term(In("security", "S1"), topo="region")])
ANTI_S1 = dict(anti=[term(In("security", "S1"), topo="region")])


@pytest.mark.parametrize(("hard", "pods", "skips"), [
    (1, [_on("node1", S2, **ANTI_S1)], True),
    (0, [_on("node1", S2, **HARD_S1)], True),
    (1, [_on("node1", S2, **HARD_S1)], False),
    (0, [_on("node1", S2, **STAY_S1)], False),
], ids=["existing pod's required anti-affinity is not scored",
        "hardPodAffinityWeight 0 leaves existing required affinity out",
        "hardPodAffinityWeight 1 scores existing required affinity",
        "existing preferred terms count whatever hardPodAffinityWeight"])
def test_what_prescore_counts(hard, pods, skips) -> None:
    """``processExistingPod``: required affinity terms only with a positive
    ``hardPodAffinityWeight``, preferred (anti-)affinity terms always, required
    anti-affinity terms never; PreScore Skips when ``topologyScore`` stays empty."""
    cluster = make_cluster(_n(CHINA, INDIA), pods)
    plugin = InterPodAffinity(hard_pod_affinity_weight=hard)
    state = new_state(make_pod("p", labels=S1), cluster)
    assert plugin.pre_score_skips(state) is skips
    if not skips:
        assert plugin.score(state, np.array([0, 1], np.int64)).tolist() == [100, 0]


def test_required_affinity_counts_are_per_pod_in_one_snapshot() -> None:
    """Two pods with different required affinity terms, prefiltered over one snapshot,
    each count the pods matching their own terms."""
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", {"app": "db"}),
                                              _on("node2", {"app": "web"})])
    plugin = InterPodAffinity()
    want = {"db": [None, AFF], "web": [AFF, None]}
    for app in ("db", "web"):
        state = new_state(make_pod(app, req=[term(In("app", app), topo="region"),
                                             term(Exists("app"), topo="region")]), cluster)
        assert plugin.pre_filter(state) is None
        assert _both_paths(plugin, state, cluster) == want[app]


def test_default_args_score_existing_pods_preferred_terms() -> None:
    """``ignorePreferredTermsOfExistingPods`` defaults to false: a pod without preferred
    terms is still scored by the bound pods' preferred terms it matches."""
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", S2, **STAY_S1)])
    state = new_state(make_pod("p", labels=S1), cluster)
    assert InterPodAffinity().score_relevant(state)
    assert not InterPodAffinity(ignore_preferred_terms_of_existing_pods=True).score_relevant(
        state)


def test_preferred_term_after_a_required_anti_affinity_term_still_scores() -> None:
    """A bound pod with required anti-affinity (not scored) and a preferred affinity term
    matching the incoming pod: the preferred term's weight counts."""
    pods = [_on("node1", S2, anti=[term(In("app", "x"), topo="region")], **STAY_S1)]
    cluster = make_cluster(_n(CHINA, INDIA), pods)
    assert node_scores(make_pod("p", labels=S1), cluster).tolist() == [5, 0]


def test_hard_pod_affinity_weight_scales_existing_required_terms() -> None:
    """``hardPodAffinityWeight`` 7: node1's pod requires S1 pods (+7 to China), node2's
    prefers them with weight 5 (+5 to India): raw 7, 5, 0 -> 100, 71, 0."""
    pods = [_on("node1", S2, **HARD_S1), _on("node2", S2, **STAY_S1)]
    cluster = make_cluster(_n(CHINA, INDIA, AZ1), pods)
    pod = make_pod("p", labels=S1)
    assert node_scores(pod, cluster, 7).tolist() == [7, 5, 0]
    assert reference_node_scores(pod, cluster, 7).tolist() == [7, 5, 0]
    assert normalize(node_scores(pod, cluster, 7)).tolist() == [100, 71, 0]


def test_term_without_label_selector_matches_no_pod() -> None:
    """A nil labelSelector is ``labels.Nothing()``: an anti-affinity term without one
    repels nobody, an affinity term without one is satisfied by nobody (and not by the
    pod itself)."""
    pods = [_on("node1", {"app": "x"})]
    anti = make_pod("a", labels={"app": "x"}, anti=[term(topo="region", selector=None)])
    cluster, plugin, state = _prefiltered(anti, pods, _n(CHINA, INDIA))
    assert _both_paths(plugin, state, cluster) == [None, None]
    req = make_pod("r", labels={"app": "x"}, req=[term(topo="region", selector=None)])
    cluster, plugin, state = _prefiltered(req, pods, _n(CHINA, INDIA))
    assert _both_paths(plugin, state, cluster) == [AFF, AFF]


def test_node_score_sums_every_topology_key_of_the_node() -> None:
    """Score: a node collects ``topologyScore[key][value]`` for each of its labels; node1
    is in region China (+8) and az az1 (-5): 3."""
    pods = [_on("node1", S1), _on("node1", S2)]
    cluster = make_cluster(_n(CHINA_AZ1, INDIA), pods)
    pod = make_pod(labels=S1, **STAY_S1_AWAY_S2)
    assert topology_scores(pod, cluster) == {"region": {"China": 8}, "az": {"az1": -5}}
    assert reference_node_scores(pod, cluster).tolist() == [3, 0]
    raw = node_scores(pod, cluster)
    assert raw.dtype == np.int64
    assert raw.tolist() == [3, 0]


def test_hard_weight_zero_leaves_the_topology_map_empty() -> None:
    """``hardPodAffinityWeight`` 0: existing pods' required terms add no entry, so
    PreScore's ``topologyScore`` stays empty (Skip)."""
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", S2, **HARD_S1)])
    pod = make_pod("p", labels=S1)
    assert topology_scores(pod, cluster, 0) == {}
    assert topology_scores(pod, cluster, 1) == {"region": {"China": 1}}
