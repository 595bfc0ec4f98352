"""NodeAffinity rules the upstream tables leave implicit, worked from upstream's source.

Sources: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` (PreFilter,
Filter, Score, ``isSchedulableAfterNodeChange``), ``k8s.io/component-helpers/scheduling/
corev1/nodeaffinity`` (``PreferredSchedulingTerms.Score`` matches a term against the node's
labels *and* its ``metadata.name`` field) and the framework runtime, which labels each
rejecting status with the plugin's name (``Diagnosis.UnschedulablePlugins``, read by the
queueing hints).
"""

from __future__ import annotations

import numpy as np
from builders.plugins import expr, make_cluster, make_node, make_pod, new_state, term

from kubepreempt.api.selectors import NodeSelector, NodeSelectorTerm, Requirement
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.node_affinity import (
    ERR_REASON,
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    NodeAffinity,
    is_schedulable_after_node_change,
)
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent

ZONE_A = NodeSelector((NodeSelectorTerm((Requirement("zone", "In", ("a",)),)),))


def required(*terms: dict) -> dict:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def preferred(*weighted: tuple[int, dict]) -> dict:
    return {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": t} for w, t in weighted]}


def _nodes():
    return [make_node("n1", {"zone": "a", "disk": "ssd"}),
            make_node("n2", {"zone": "b", "disk": "ssd"}),
            make_node("n3", {"zone": "a", "disk": "hdd"}),
            make_node("n4", {"zone": "b"})]


def _vector(plugin: NodeAffinity, state, cluster) -> dict[str, tuple | None]:
    idx = np.arange(len(cluster.nodes), dtype=np.int64)
    out: dict[str, tuple | None] = {n.name: None for n in cluster.nodes}
    for bad, status in plugin.filter_nodes(state, idx):
        for i in bad.tolist():
            out[cluster.nodes[i].name] = (status.code, status.reasons, status.plugin)
    return out


def _scalar(plugin: NodeAffinity, state, cluster) -> dict[str, tuple | None]:
    out: dict[str, tuple | None] = {}
    for i, n in enumerate(cluster.nodes):
        st = plugin.filter(state, cluster.node_view(i))
        out[n.name] = None if st is None else (st.code, st.reasons, st.plugin)
    return out


UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
ENFORCED = (UNRES, (ERR_REASON_ENFORCED,), "NodeAffinity")
POD_REASON = (UNRES, (ERR_REASON,), "NodeAffinity")


def test_prefilter_without_required_node_affinity_evaluates_every_node() -> None:
    """PreFilter: ``noNodeAffinity`` (affinity without nodeAffinity.required) with a
    nodeSelector returns ``nil, nil``: no PreFilterResult, every node is evaluated."""
    pod = make_pod("p", node_selector={"zone": "a"},
                   req=[term(expr("app", "In", "x"), topo="zone")])
    cluster = make_cluster(_nodes())
    state = new_state(pod, cluster)
    plugin = NodeAffinity()
    assert plugin.relevant(state)
    assert plugin.pre_filter(state) is None
    assert state.node_names is None


def test_statuses_name_the_plugin() -> None:
    """The framework labels a rejecting status with the plugin's name; the conflict
    PreFilter status too (``RunPreFilterPlugins``: ``s.SetPlugin(pl.Name())``)."""
    pod = make_pod("p", node_affinity=required(
        {"matchFields": [expr("metadata.name", "In", "n1"),
                         expr("metadata.name", "In", "n2")]}))
    cluster = make_cluster(_nodes())
    status = NodeAffinity().pre_filter(new_state(pod, cluster))
    assert (status.code, status.reasons, status.plugin) == (
        UNRES, (ERR_REASON_CONFLICT,), "NodeAffinity")


def test_added_affinity_and_pod_affinity_per_node_both_paths() -> None:
    """Filter: the added (scheduler-enforced) selector first, then the pod's own
    nodeSelector/affinity; both UnschedulableAndUnresolvable. The vector path, the
    one-node ``passes_node`` and Filter agree node by node."""
    pod = make_pod("p", node_selector={"disk": "ssd"})
    cluster = make_cluster(_nodes())
    plugin = NodeAffinity(added_required=ZONE_A)
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    want = {"n1": None, "n2": ENFORCED, "n3": POD_REASON, "n4": ENFORCED}
    assert _scalar(plugin, state, cluster) == want
    assert _vector(plugin, state, cluster) == want
    assert [plugin.passes_node(state, i) for i in range(4)] == [True, False, False, False]
    # A pod the added affinity alone rejects: passes_node says so on the enforced check.
    free = new_state(make_pod("q"), cluster)
    assert [plugin.passes_node(free, i) for i in range(4)] == [True, False, True, False]
    assert _vector(plugin, free, cluster) == {"n1": None, "n2": ENFORCED, "n3": None,
                                              "n4": ENFORCED}


def test_vector_masks_are_per_pod_and_per_added_selector() -> None:
    """Two pods (and two profiles) in one snapshot: each gets its own verdicts, as
    upstream evaluates each pod's ``GetRequiredNodeAffinity`` and each profile's
    ``addedNodeSelector`` afresh."""
    cluster = make_cluster(_nodes())
    hdd = make_pod("hdd", node_selector={"disk": "hdd"})
    ssd = make_pod("ssd", node_affinity=required(
        {"matchExpressions": [expr("disk", "In", "ssd")]}))
    plain = NodeAffinity()
    assert _vector(plain, new_state(hdd, cluster), cluster) == {
        "n1": POD_REASON, "n2": POD_REASON, "n3": None, "n4": POD_REASON}
    assert _vector(plain, new_state(ssd, cluster), cluster) == {
        "n1": None, "n2": None, "n3": POD_REASON, "n4": POD_REASON}
    assert [plain.passes_node(new_state(ssd, cluster), i) for i in range(4)] == [
        True, True, False, False]
    zone_b = NodeSelector((NodeSelectorTerm((Requirement("zone", "In", ("b",)),)),))
    anyone = make_pod("any")
    assert _vector(NodeAffinity(added_required=ZONE_A), new_state(anyone, cluster),
                   cluster) == {"n1": None, "n2": ENFORCED, "n3": None, "n4": ENFORCED}
    assert _vector(NodeAffinity(added_required=zone_b), new_state(anyone, cluster),
                   cluster) == {"n1": ENFORCED, "n2": None, "n3": ENFORCED, "n4": None}
    assert [NodeAffinity(added_required=zone_b).passes_node(new_state(anyone, cluster), i)
            for i in range(4)] == [False, True, False, True]


def test_added_affinity_by_node_name() -> None:
    """The added selector is matched with the node's ``metadata.name`` field too."""
    by_name = NodeSelector((NodeSelectorTerm((), (Requirement("metadata.name", "In",
                                                                ("n3",)),)),))
    cluster = make_cluster(_nodes())
    plugin = NodeAffinity(added_required=by_name)
    state = new_state(make_pod("p"), cluster)
    assert _vector(plugin, state, cluster) == {"n1": ENFORCED, "n2": ENFORCED, "n3": None,
                                               "n4": ENFORCED}
    assert [plugin.passes_node(state, i) for i in range(4)] == [False, False, True, False]


def _scores(plugin: NodeAffinity, pod, cluster) -> list[int]:
    state = new_state(pod, cluster)
    return plugin.score(state, np.arange(len(cluster.nodes), dtype=np.int64)).tolist()


def test_preferred_term_matches_the_node_name_field() -> None:
    """``PreferredSchedulingTerms.Score`` matches ``matchFields`` against
    ``metadata.name``: weight 5 on n2, 3 on the ssd nodes, normalised by the maximum 8
    (``DefaultNormalizeScore``): n1 3*100//8 = 37, n2 100, n3 and n4 0."""
    pod = make_pod("p", node_affinity=preferred(
        (5, {"matchFields": [expr("metadata.name", "In", "n2")]}),
        (3, {"matchExpressions": [expr("disk", "In", "ssd")]})))
    assert _scores(NodeAffinity(), pod, make_cluster(_nodes())) == [37, 100, 0, 0]


def test_preferred_scores_are_per_pod_in_one_snapshot() -> None:
    """Two pods with different preferences scored over the same snapshot each get their
    own weights (Score reads the pod's own ``PreferredSchedulingTerms``)."""
    cluster = make_cluster(_nodes())
    zone_a = make_pod("a", node_affinity=preferred(
        (1, {"matchExpressions": [expr("zone", "In", "a")]})))
    hdd = make_pod("h", node_affinity=preferred(
        (1, {"matchExpressions": [expr("disk", "In", "hdd")]})))
    assert _scores(NodeAffinity(), zone_a, cluster) == [100, 0, 100, 0]
    assert _scores(NodeAffinity(), hdd, cluster) == [0, 0, 100, 0]


def test_score_without_preferred_terms_is_zero_everywhere() -> None:
    """Score with neither the pod's nor added preferred terms: ``count`` stays 0."""
    cluster = make_cluster(_nodes())
    got = NodeAffinity().score(new_state(make_pod("p"), cluster),
                               np.array([0, 2, 3], np.int64))
    assert got.dtype == np.int64
    assert got.tolist() == [0, 0, 0]


def test_node_added_hint_queues_only_a_matching_node() -> None:
    """``isSchedulableAfterNodeChange`` for an added node: Queue when the pod's
    ``GetRequiredNodeAffinity`` matches it (nodeSelector and matchFields by name),
    QueueSkip otherwise."""
    pod = make_pod("p", node_selector={"disk": "ssd"}, node_affinity=required(
        {"matchFields": [expr("metadata.name", "In", "n9")]}))
    ev = ClusterEvent(NODE_ADD, node=make_node("n9", {"disk": "ssd"}))
    assert is_schedulable_after_node_change(pod, ev, lambda ns: {}) is True
    for node in (make_node("n9", {"disk": "hdd"}), make_node("n8", {"disk": "ssd"})):
        assert is_schedulable_after_node_change(
            pod, ClusterEvent(NODE_ADD, node=node), lambda ns: {}) is False
