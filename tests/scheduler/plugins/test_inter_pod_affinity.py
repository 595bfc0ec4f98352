"""InterPodAffinity: cases reproduced from upstream filtering_test.go and scoring_test.go.

Upstream pods without a namespace live in "" there; here they are in "default". Terms
with an empty topologyKey (rejected by API validation) use "region" with the same outcome.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.plugins import (
    Exists,
    In,
    NotIn,
    expr,
    indices,
    make_cluster,
    make_node,
    make_pod,
    new_state,
    term,
    weighted,
)

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.inter_pod_affinity import (
    ERR_AFFINITY,
    ERR_ANTI_AFFINITY,
    ERR_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
)

AFF = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY)
ANTI = (Code.UNSCHEDULABLE, ERR_ANTI_AFFINITY)
EXIST = (Code.UNSCHEDULABLE, ERR_EXISTING_ANTI_AFFINITY)
SKIP = "skip"


def _as_tuple(status):
    return None if status is None else (status.code, status.message())


def run_filter(pod: Pod, pods: list[Pod], nodes: list[Node]):
    """PreFilter + Filter on every node (in ``nodes`` order); SKIP when skipped."""
    cluster = make_cluster(nodes, pods)
    state = new_state(pod, cluster)
    plugin = InterPodAffinity()
    if not plugin.relevant(state):
        return SKIP
    status = plugin.pre_filter(state)
    if status is not None:
        return SKIP if status.code == Code.SKIP else _as_tuple(status)
    got = [_as_tuple(plugin.filter(state, cluster.node_view(cluster.node_index[n.name])))
           for n in nodes]
    # The vector path must agree with the per-node one.
    idx = indices(cluster, [n.name for n in nodes])
    vec: dict[int, Any] = {}
    for bad, status in plugin.filter_nodes(state, idx):
        for i in bad.tolist():
            vec[i] = _as_tuple(status)
    assert [vec.get(int(i)) for i in idx] == got
    return got


def run_score(pod: Pod, pods: list[Pod], nodes: list[Node]):
    """PreScore + Score + NormalizeScore over ``nodes``; SKIP when PreScore skips."""
    cluster = make_cluster(nodes, pods)
    state = new_state(pod, cluster)
    plugin = InterPodAffinity()
    idx = indices(cluster, [n.name for n in nodes])
    if not plugin.relevant(state):
        return SKIP
    plugin.pre_score(state, idx)
    if not state.data[plugin.score_key]:
        assert plugin.score(state, idx).tolist() == [0] * len(nodes)
        return SKIP
    return plugin.score(state, idx).tolist()


# ---------------------------------------------------------------------------------------
# TestRequiredAffinitySingleNode
# ---------------------------------------------------------------------------------------
POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = make_node("node1", {"region": "r1", "zone": "z11"})


def _existing() -> Pod:
    return make_pod(labels=POD_LABEL, node="node1")


TEAM1 = {"matchExpressions": [In("team", "team1")]}

SINGLE_NODE_CASES = [
    ("no required pod affinity, no existing pods", make_pod(), [], SKIP),
    ("affinity In matches the existing pod",
     make_pod(labels=POD_LABEL2, req=[term(In("service", "securityscan", "value2"),
                                           topo="region")]), [_existing()], None),
    ("affinity NotIn matches the existing pod",
     make_pod(labels=POD_LABEL2, req=[term(NotIn("service", "securityscan3", "value3"),
                                           topo="region")]), [_existing()], None),
    ("affinity does not match because of a different namespace",
     make_pod(labels=POD_LABEL2, req=[term(In("service", "securityscan", "value2"),
                                           topo="region", namespaces=["DiffNameSpace"])]),
     [make_pod(ns="ns", labels=POD_LABEL, node="node1")], AFF),
    ("affinity selector does not match the existing pod",
     make_pod(labels=POD_LABEL, req=[term(In("service", "antivirusscan", "value2"),
                                          topo="region")]), [_existing()], AFF),
    ("different operators in multiple required terms",
     make_pod(labels=POD_LABEL2, req=[
         term(Exists("service"), expr("wrongkey", "DoesNotExist"), topo="region"),
         term(In("service", "securityscan"), NotIn("service", "WrongValue"), topo="region")]),
     [_existing()], None),
    ("matchExpressions are ANDed: one item does not match",
     make_pod(labels=POD_LABEL2, req=[
         term(Exists("service"), expr("wrongkey", "DoesNotExist"), topo="region"),
         term(In("service", "securityscan2"), NotIn("service", "WrongValue"), topo="region")]),
     [_existing()], AFF),
    ("satisfies affinity and anti-affinity",
     make_pod(labels=POD_LABEL2,
              req=[term(In("service", "securityscan", "value2"), topo="region")],
              anti=[term(In("service", "antivirusscan", "value2"), topo="node")]),
     [_existing()], None),
    ("satisfies affinity, anti-affinity and anti-affinity symmetry",
     make_pod(labels=POD_LABEL2,
              req=[term(In("service", "securityscan", "value2"), topo="region")],
              anti=[term(In("service", "antivirusscan", "value2"), topo="node")]),
     [make_pod(labels=POD_LABEL, node="node1",
               anti=[term(In("service", "antivirusscan", "value2"), topo="node")])], None),
    ("satisfies affinity but not anti-affinity",
     make_pod(labels=POD_LABEL2,
              req=[term(In("service", "securityscan", "value2"), topo="region")],
              anti=[term(In("service", "securityscan", "value2"), topo="zone")]),
     [_existing()], ANTI),
    ("satisfies affinity and anti-affinity but not anti-affinity symmetry",
     make_pod(labels=POD_LABEL,
              req=[term(In("service", "securityscan", "value2"), topo="region")],
              anti=[term(In("service", "antivirusscan", "value2"), topo="node")]),
     [make_pod(labels=POD_LABEL, node="node1",
               anti=[term(In("service", "securityscan", "value2"), topo="zone")])], EXIST),
    ("pod matches its own affinity, matching pod is on a node not in the snapshot",
     make_pod(labels=POD_LABEL, req=[term(NotIn("service", "securityscan", "value2"),
                                          topo="region")]),
     [make_pod(labels=POD_LABEL, node="node2")], AFF),
    ("existing pod's anti-affinity applies to a pod without anti-affinity",
     make_pod(labels=POD_LABEL),
     [make_pod(labels=POD_LABEL, node="node1",
               anti=[term(In("service", "securityscan", "value2"), topo="zone")])], EXIST),
    ("existing pod's anti-affinity does not match: PreFilter skips",
     make_pod(labels=POD_LABEL),
     [make_pod(labels=POD_LABEL, node="node1",
               anti=[term(NotIn("service", "securityscan", "value2"), topo="zone")])], SKIP),
    ("anti-affinity matches the existing pod, symmetry does not",
     make_pod(labels=POD_LABEL, anti=[term(Exists("service"), topo="region"),
                                      term(Exists("security"), topo="region")]),
     [make_pod(labels=POD_LABEL2, node="node1", anti=[term(Exists("security"), topo="zone")])],
     ANTI),
    ("symmetry a1: partial match on terms",
     make_pod(labels=POD_LABEL, anti=[term(Exists("service"), topo="zone"),
                                      term(Exists("security"), topo="zone")]),
     [make_pod(labels=POD_LABEL2, node="node1", anti=[term(Exists("security"), topo="zone")])],
     ANTI),
    ("symmetry a2: partial match on terms",
     make_pod(labels=POD_LABEL2, anti=[term(Exists("security"), topo="zone")]),
     [make_pod(labels=POD_LABEL, node="node1", anti=[term(Exists("service"), topo="zone"),
                                                     term(Exists("security"), topo="zone")])],
     EXIST),
    ("symmetry b1: partial match on terms",
     make_pod(labels={"abc": "", "xyz": ""}, anti=[term(Exists("abc"), topo="zone"),
                                                   term(Exists("def"), topo="zone")]),
     [make_pod(labels={"def": "", "xyz": ""}, node="node1",
               anti=[term(Exists("abc"), topo="zone"), term(Exists("def"), topo="zone")])],
     ANTI),
    ("symmetry b2: partial match on terms",
     make_pod(labels={"def": "", "xyz": ""}, anti=[term(Exists("abc"), topo="zone"),
                                                   term(Exists("def"), topo="zone")]),
     [make_pod(labels={"abc": "", "xyz": ""}, node="node1",
               anti=[term(Exists("abc"), topo="zone"), term(Exists("def"), topo="zone")])],
     ANTI),
    ("affinity with NamespaceSelector",
     make_pod(labels=POD_LABEL2, req=[term(In("service", "securityscan", "value2"),
                                           topo="region", ns_selector=TEAM1)]),
     [make_pod(ns="subteam1.team1", labels=POD_LABEL, node="node1")], None),
    ("affinity with non-matching NamespaceSelector",
     make_pod(labels=POD_LABEL2, req=[term(In("service", "securityscan", "value2"),
                                           topo="region", ns_selector=TEAM1)]),
     [make_pod(ns="subteam1.team2", labels=POD_LABEL, node="node1")], AFF),
    ("anti-affinity with matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=POD_LABEL2,
              anti=[term(In("service", "securityscan", "value2"), topo="zone",
                         ns_selector=TEAM1)]),
     [make_pod(ns="subteam2.team1", labels=POD_LABEL, node="node1")], ANTI),
    ("anti-affinity with matching all NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=POD_LABEL2,
              anti=[term(In("service", "securityscan", "value2"), topo="zone",
                         ns_selector={})]),
     [make_pod(ns="subteam2.team1", labels=POD_LABEL, node="node1")], ANTI),
    ("anti-affinity with non-matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=POD_LABEL2,
              anti=[term(In("service", "securityscan", "value2"), topo="zone",
                         ns_selector=TEAM1)]),
     [make_pod(ns="subteam1.team2", labels=POD_LABEL, node="node1")], None),
    # The symmetric direction (PreFilter's existingAntiAffinityCounts: an existing pod's
    # term is matched against the incoming pod, its namespaceSelector against the
    # incoming pod's namespace labels).
    ("existing pod's anti-affinity with matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=POD_LABEL),
     [make_pod(ns="subteam2.team2", labels=POD_LABEL2, node="node1",
               anti=[term(In("service", "securityscan"), topo="zone", ns_selector=TEAM1)])],
     EXIST),
    ("existing pod's anti-affinity with non-matching NamespaceSelector",
     make_pod(ns="subteam1.team2", labels=POD_LABEL),
     [make_pod(ns="subteam2.team2", labels=POD_LABEL2, node="node1",
               anti=[term(In("service", "securityscan"), topo="zone", ns_selector=TEAM1)])],
     SKIP),  # nothing to check: no own terms, no existing term matches the pod
]


@pytest.mark.parametrize(("pod", "pods", "want"), [c[1:] for c in SINGLE_NODE_CASES],
                         ids=[c[0] for c in SINGLE_NODE_CASES])
def test_required_affinity_single_node(pod, pods, want):
    got = run_filter(pod, pods, [NODE1])
    assert got == (SKIP if want == SKIP else [want])


# ---------------------------------------------------------------------------------------
# TestRequiredAffinityMultipleNodes
# ---------------------------------------------------------------------------------------
CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}


def _nodes3(a="nodeA", b="nodeB", c="nodeC"):
    return [make_node(a, CHINA), make_node(b, CHINA_AZ1), make_node(c, INDIA)]


def _rz(name, region, zone):
    return make_node(name, {"region": region, "zone": zone, "hostname": name})


MULTI_NODE_CASES = [
    ("nodes sharing the topology value with a matching pod pass",
     make_pod(req=[term(In("foo", "bar"), topo="region")]),
     [make_pod(node="node1", labels={"foo": "bar"})],
     _nodes3("node1", "node2", "node3"), [None, None, AFF]),
    ("first pod of a self-affine collection is not blocked",
     make_pod(labels={"foo": "bar", "service": "securityscan"},
              req=[term(In("foo", "bar"), topo="zone"),
                   term(In("service", "securityscan"), topo="zone")]),
     [make_pod(node="nodeA", labels={"foo": "bar"})],
     [make_node("nodeA", {"zone": "az1", "hostname": "h1"}),
      make_node("nodeB", {"zone": "az2", "hostname": "h2"})], [None, None]),
    ("first pod of the collection needs nodes with the topology keys",
     make_pod(labels={"foo": "bar", "service": "securityscan"},
              req=[term(In("foo", "bar"), topo="zone"),
                   term(In("service", "securityscan"), topo="zone")]),
     [make_pod(node="nodeA", labels={"foo": "bar"})],
     [make_node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
      make_node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})], [AFF, AFF]),
    ("anti-affinity: same topology value as the matching pod fails",
     make_pod(anti=[term(In("foo", "abc"), topo="region")]),
     [make_pod(node="nodeA", labels={"foo": "abc"})],
     [make_node("nodeA", {"region": "r1", "hostname": "nodeA"}),
      make_node("nodeB", {"region": "r1", "hostname": "nodeB"})], [ANTI, ANTI]),
    ("anti-affinity matches when any term matches",
     make_pod(anti=[term(In("foo", "abc"), topo="region"),
                    term(In("service", "securityscan"), topo="zone")]),
     [make_pod(node="nodeA", labels={"foo": "abc", "service": "securityscan"})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("anti-affinity: other region passes",
     make_pod(anti=[term(In("foo", "abc"), topo="region")]),
     [make_pod(node="nodeA", labels={"foo": "abc"})], _nodes3(), [ANTI, ANTI, None]),
    ("anti-affinity: matching pod in another namespace is ignored",
     make_pod(ns="NS1", labels={"foo": "123"}, anti=[term(In("foo", "bar"), topo="region")]),
     [make_pod(node="nodeA", ns="NS1", labels={"foo": "bar"}),
      make_pod(node="nodeC", ns="NS2", anti=[term(In("foo", "123"), topo="region")])],
     _nodes3(), [ANTI, ANTI, None]),
    ("existing pod's term with a topologyKey no node has: PreFilter skips",
     make_pod(labels={"foo": ""}),
     [make_pod(node="nodeA", anti=[term(Exists("foo"), topo="invalid-node-label")])],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z1")], SKIP),
    ("incoming anti-affinity: topologyKey is checked after the selector",
     make_pod(anti=[term(Exists("foo"), topo="invalid-node-label")]),
     [make_pod(node="nodeA", labels={"foo": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z1")], [None, None]),
    ("existing pods' anti-affinity violated on all nodes",
     make_pod(labels={"foo": "", "bar": ""}),
     [make_pod(node="nodeA", anti=[term(Exists("foo"), topo="zone")]),
      make_pod(node="nodeA", anti=[term(Exists("bar"), topo="region")])],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [EXIST, EXIST]),
    ("incoming anti-affinity violated on all nodes",
     make_pod(anti=[term(Exists("foo"), topo="zone"), term(Exists("bar"), topo="region")]),
     [make_pod(node="nodeA", labels={"foo": ""}), make_pod(node="nodeB", labels={"bar": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("existing anti-affinity: one term with an invalid topologyKey",
     make_pod(labels={"foo": "", "bar": ""}),
     [make_pod(node="nodeA", anti=[term(Exists("foo"), topo="invalid-node-label"),
                                   term(Exists("bar"), topo="zone")])],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [EXIST, None]),
    ("incoming anti-affinity: one term with an invalid topologyKey",
     make_pod(anti=[term(Exists("foo"), topo="invalid-node-label"),
                    term(Exists("bar"), topo="zone")]),
     [make_pod("podA", node="nodeA", labels={"foo": "", "bar": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [ANTI, None]),
    ("existing anti-affinity: all terms have valid topologyKeys",
     make_pod(labels={"foo": "", "bar": ""}),
     [make_pod(node="nodeA", anti=[term(Exists("foo"), topo="region"),
                                   term(Exists("bar"), topo="zone")])],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [EXIST, EXIST]),
    ("incoming anti-affinity: all terms have valid topologyKeys",
     make_pod(anti=[term(Exists("foo"), topo="region"), term(Exists("bar"), topo="zone")]),
     [make_pod(node="nodeA", labels={"foo": "", "bar": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("existing anti-affinity on two nodes leaves only nodeC",
     make_pod(labels={"foo": "", "bar": ""}),
     [make_pod(node="nodeA", anti=[term(Exists("foo"), topo="zone"),
                                   term(Exists("labelA"), topo="zone")]),
      make_pod(node="nodeB", anti=[term(Exists("bar"), topo="zone"),
                                   term(Exists("labelB"), topo="zone")])],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2"), _rz("nodeC", "r1", "z3")],
     [EXIST, EXIST, None]),
    ("affinity: all terms matched by one pod, then topology keys",
     make_pod(req=[term(Exists("foo"), topo="region"), term(Exists("bar"), topo="zone")]),
     [make_pod("pod1", node="nodeA", labels={"foo": "", "bar": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z1")], [None, None]),
    ("affinity: terms matched by different pods do not count",
     make_pod(req=[term(Exists("foo"), topo="region"), term(Exists("bar"), topo="zone")]),
     [make_pod("pod1", node="nodeA", labels={"foo": ""}),
      make_pod("pod2", node="nodeB", labels={"bar": ""})],
     [_rz("nodeA", "r1", "z1"), _rz("nodeB", "r1", "z2")], [AFF, AFF]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want"), [c[1:] for c in MULTI_NODE_CASES],
                         ids=[c[0] for c in MULTI_NODE_CASES])
def test_required_affinity_multiple_nodes(pod, pods, nodes, want):
    assert run_filter(pod, pods, nodes) == want


# ---------------------------------------------------------------------------------------
# TestPreFilterStateAddRemovePod / TestGetTPMapMatchingIncomingAffinityAntiAffinity
# ---------------------------------------------------------------------------------------
L1 = {"region": "r1", "zone": "z11"}
L2 = {"region": "r1", "zone": "z12"}
L3 = {"region": "r2", "zone": "z21"}
FOO_BAR = {"foo": "bar"}
ANTI_FOO_BAR = [term(In("foo", "bar"), topo="region")]
COMPLEX = [term(In("foo", "bar", "buzz"), topo="region"),
           term(NotIn("service", "bar", "security", "test"), topo="zone")]

ADD_REMOVE_CASES = [
    ("anti-affinity counts after adding and removing a pod",
     dict(anti=ANTI_FOO_BAR), "nodeB", dict(anti=ANTI_FOO_BAR),
     {("region", "r1"): 2}, {}),
    ("complex anti-affinity counts after adding and removing a pod",
     dict(anti=COMPLEX), "nodeA", dict(anti=COMPLEX),
     {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
    ("affinity counts after adding and removing a pod",
     dict(req=COMPLEX), "nodeA", dict(anti=COMPLEX),
     {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
]


@pytest.mark.parametrize(("pending_aff", "added_node", "added_aff", "want_anti", "want_aff"),
                         [c[1:] for c in ADD_REMOVE_CASES], ids=[c[0] for c in ADD_REMOVE_CASES])
def test_prefilter_state_add_remove_pod(pending_aff, added_node, added_aff, want_anti,
                                        want_aff):
    nodes = [make_node("nodeA", L1), make_node("nodeB", L2), make_node("nodeC", L3)]
    p2_aff = {"anti": ANTI_FOO_BAR}
    if "req" in pending_aff:
        p2_aff["req"] = COMPLEX
    existing = [make_pod("p1", labels=FOO_BAR, node="nodeA"),
                make_pod("p2", node="nodeC", **p2_aff)]
    added = make_pod("addedPod", labels=FOO_BAR, node=added_node, **added_aff)
    pending = make_pod("pending", labels=FOO_BAR, **pending_aff)
    plugin = InterPodAffinity()

    all_state = new_state(pending, make_cluster(nodes, [*existing, added]))
    assert plugin.pre_filter(all_state) is None
    cluster = make_cluster(nodes, existing)
    state = new_state(pending, cluster)
    assert plugin.pre_filter(state) is None
    original = state.clone()
    view = cluster.node_view(cluster.node_index[added_node])
    plugin.add_pod(state, added, view)
    s = state.data[plugin.name]
    assert dict(s.anti) == want_anti
    assert dict(s.affinity) == want_aff
    full = all_state.data[plugin.name]
    assert (s.anti, s.affinity, s.existing_anti) == (full.anti, full.affinity,
                                                     full.existing_anti)
    plugin.remove_pod(state, added, view)
    o = original.data[plugin.name]
    assert (s.anti, s.affinity, s.existing_anti) == (o.anti, o.affinity, o.existing_anti)


def _normal(*labels: str) -> Pod:
    return make_pod("normal", node="nodeA", labels=dict.fromkeys(labels, ""))


TP_MAP_CASES = [
    ("no pod violates incoming affinity and anti-affinity", [_normal("bbb")],
     dict(req=[term(Exists("aaa"), topo="hostname")], anti=[term(Exists("aaa"), topo="hostname")]),
     {}, {}),
    ("existing pod matches affinity and anti-affinity, single term", [_normal("aaa")],
     dict(req=[term(Exists("aaa"), topo="hostname")], anti=[term(Exists("aaa"), topo="hostname")]),
     {("hostname", "nodeA"): 1}, {("hostname", "nodeA"): 1}),
    ("existing pod matches affinity and anti-affinity, multiple terms", [_normal("aaa", "bbb")],
     dict(req=[term(Exists("aaa"), topo="hostname"), term(Exists("bbb"), topo="hostname")],
          anti=[term(Exists("aaa"), topo="hostname")]),
     {("hostname", "nodeA"): 2}, {("hostname", "nodeA"): 1}),
    ("existing pod matches anti-affinity but not all affinity terms", [_normal("aaa")],
     dict(req=[term(Exists("aaa"), topo="hostname"), term(Exists("bbb"), topo="hostname")],
          anti=[term(Exists("aaa"), topo="hostname"), term(Exists("bbb"), topo="hostname")]),
     {}, {("hostname", "nodeA"): 1}),
    ("anti-affinity with more than one term, partial violation 1", [_normal("aaa", "bbb")],
     dict(req=[term(Exists("aaa"), topo="hostname"), term(Exists("ccc"), topo="hostname")],
          anti=[term(Exists("aaa"), topo="hostname"), term(Exists("ccc"), topo="hostname")]),
     {}, {("hostname", "nodeA"): 1}),
    ("anti-affinity with more than one term, partial violation 2", [_normal("bbb")],
     dict(req=[term(Exists("aaa"), topo="hostname"), term(Exists("bbb"), topo="hostname")],
          anti=[term(Exists("aaa"), topo="hostname"), term(Exists("bbb"), topo="hostname")]),
     {}, {("hostname", "nodeA"): 1}),
]


@pytest.mark.parametrize(("pods", "aff", "want_aff", "want_anti"), [c[1:] for c in TP_MAP_CASES],
                         ids=[c[0] for c in TP_MAP_CASES])
def test_incoming_affinity_anti_affinity_counts(pods, aff, want_aff, want_anti):
    cluster = make_cluster([make_node("nodeA", {"hostname": "nodeA"})], pods)
    state = new_state(make_pod("affi-antiaffi", **aff), cluster)
    plugin = InterPodAffinity()
    assert plugin.pre_filter(state) is None
    s = state.data[plugin.name]
    assert dict(s.affinity) == want_aff
    assert dict(s.anti) == want_anti


# ---------------------------------------------------------------------------------------
# TestPreferredAffinity / TestPreferredAffinityWithHardPodAffinitySymmetricWeight
# ---------------------------------------------------------------------------------------
S1 = {"security": "S1"}
S2 = {"security": "S2"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
STAY_S1_REGION = dict(pref=[weighted(5, term(In("security", "S1"), topo="region"))])
STAY_S2_REGION = dict(pref=[weighted(6, term(In("security", "S2"), topo="region"))])
AFFINITY3 = dict(pref=[
    weighted(8, term(NotIn("security", "S1"), In("security", "S2"), topo="region")),
    weighted(2, term(Exists("security"), expr("wrongkey", "DoesNotExist"), topo="region"))])
HARD_AFFINITY = dict(req=[
    term(In("security", "S1", "value2"), topo="region"),
    term(Exists("security"), expr("wrongkey", "DoesNotExist"), topo="region")])
AWAY_S1_AZ = dict(anti_pref=[weighted(5, term(In("security", "S1"), topo="az"))])
AWAY_S2_AZ = dict(anti_pref=[weighted(5, term(In("security", "S2"), topo="az"))])
STAY_S1_AWAY_S2 = dict(pref=[weighted(8, term(In("security", "S1"), topo="region"))],
                       anti_pref=[weighted(5, term(In("security", "S2"), topo="az"))])
_NS_TERM = term(In("security", "S1"), topo="region", namespaces=["subteam2.team2"],
                ns_selector=TEAM1)
AFFINITY_NS_SELECTOR = dict(pref=[weighted(5, _NS_TERM)])
ANTI_NS_SELECTOR = dict(anti_pref=[weighted(5, _NS_TERM)])


def _n(*labels_list):
    return [make_node(f"node{i + 1}", labels) for i, labels in enumerate(labels_list)]


def _on(node, labels=None, ns="default", **aff):
    return make_pod(node=node, labels=labels, ns=ns, **aff)


def _ns_pods(third_ns):
    return [_on("node1", S1, "subteam1.team1"), _on("node1", S1, "subteam1.team1"),
            _on("node1", S1, third_ns), _on("node2", S1, "subteam2.team1")]


SCORE_CASES = [
    ("all nodes are same priority as Affinity is nil", make_pod(labels=S1), [],
     _n(CHINA, INDIA, AZ1), SKIP),
    ("affinity: matching topology key and pods scores high",
     make_pod(labels=S1, **STAY_S1_REGION),
     [_on("node1", S1), _on("node2", S2), _on("node3", S1)], _n(CHINA, INDIA, AZ1),
     [100, 0, 0]),
    ("nodes sharing topology value with a matching pod score the same",
     make_pod(**STAY_S1_REGION), [_on("node1", S1)], _n(CHINA, CHINA_AZ1, INDIA), [100, 100, 0]),
    ("region with more matching pods scores high",
     make_pod(labels=S1, **STAY_S2_REGION),
     [_on("node1", S2), _on("node1", S2), _on("node2", S2), _on("node3", S2), _on("node4", S2),
      _on("node5", S2)], _n(CHINA, INDIA, CHINA, CHINA, INDIA), [100, 0, 100, 100, 0]),
    ("different operators and values, some match failures",
     make_pod(labels=S1, **AFFINITY3),
     [_on("node1", S1), _on("node2", S2), _on("node3", S1)], _n(CHINA, INDIA, AZ1),
     [20, 100, 0]),
    ("affinity symmetry: existing pods' preferred terms",
     make_pod(labels=S2),
     [_on("node1", S1, **STAY_S1_REGION), _on("node2", S2, **STAY_S2_REGION)],
     _n(CHINA, INDIA, AZ1), [0, 100, 0]),
    ("affinity symmetry with namespace selector",
     make_pod(ns="subteam1.team1", labels=S1),
     [_on("node1", S1, **AFFINITY_NS_SELECTOR), _on("node2", S2, **STAY_S2_REGION)],
     _n(CHINA, INDIA, AZ1), [100, 0, 0]),
    ("anti-affinity symmetry with namespace selector",
     make_pod(ns="subteam1.team1", labels=S1),
     [_on("node1", S1, **ANTI_NS_SELECTOR), _on("node2", S2, **STAY_S2_REGION)],
     _n(CHINA, INDIA, AZ1), [0, 100, 100]),
    ("affinity symmetry: existing pods' required terms (hardPodAffinityWeight)",
     make_pod(labels=S1),
     [_on("node1", S1, **HARD_AFFINITY), _on("node2", S2, **HARD_AFFINITY)],
     _n(CHINA, INDIA, AZ1), [100, 100, 0]),
    ("anti-affinity: pod not matching existing pods scores high",
     make_pod(labels=S1, **AWAY_S1_AZ), [_on("node1", S1), _on("node2", S2)], _n(AZ1, CHINA),
     [0, 100]),
    ("anti-affinity: node without the topology key scores high",
     make_pod(labels=S1, **AWAY_S1_AZ), [_on("node1", S1), _on("node2", S1)], _n(AZ1, CHINA),
     [0, 100]),
    ("anti-affinity: node with more matching pods scores low",
     make_pod(labels=S1, **AWAY_S1_AZ), [_on("node1", S1), _on("node1", S1), _on("node2", S2)],
     _n(AZ1, INDIA), [0, 100]),
    ("anti-affinity symmetry",
     make_pod(labels=S2), [_on("node1", S1, **AWAY_S2_AZ), _on("node2", S2, **AWAY_S1_AZ)],
     _n(AZ1, AZ2), [0, 100]),
    ("affinity and anti-affinity preferred terms",
     make_pod(labels=S1, **STAY_S1_AWAY_S2), [_on("node1", S1), _on("node2", S1)],
     _n(CHINA, AZ1), [100, 0]),
    ("affinity and anti-affinity with same-labelled pods",
     make_pod(labels=S1, **STAY_S1_AWAY_S2),
     [_on("node1", S1), _on("node1", S1), _on("node2", S1), _on("node3", S1), _on("node3", S1),
      _on("node4", S1), _on("node5", S1)], _n(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
     [100, 0, 100, 100, 0]),
    ("affinity, anti-affinity and symmetry together",
     make_pod(labels=S1, **STAY_S1_AWAY_S2),
     [_on("node1", S1), _on("node2", S2), _on("node3", **STAY_S1_AWAY_S2),
      _on("node4", **AWAY_S1_AZ)], _n(CHINA, AZ1, INDIA, AZ2), [100, 0, 100, 0]),
    ("partial nodes in a topology have pods with affinity (issue 82796)",
     make_pod(labels=S1), [_on("node1", S1), _on("node2", **STAY_S1_AWAY_S2)],
     _n(CHINA, CHINA), [0, 0]),
    ("affinity with pods matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=S1, **AFFINITY_NS_SELECTOR),
     _ns_pods("subteam1.team2"), _n(CHINA, INDIA), [100, 0]),
    ("affinity with pods matching NamespaceSelector and Namespaces",
     make_pod(ns="subteam1.team1", labels=S1, **AFFINITY_NS_SELECTOR),
     _ns_pods("subteam2.team2"), _n(CHINA, INDIA), [100, 0]),
    ("anti-affinity with pods matching NamespaceSelector",
     make_pod(ns="subteam1.team1", labels=S1, **ANTI_NS_SELECTOR),
     _ns_pods("subteam1.team2"), _n(CHINA, INDIA), [0, 100]),
    ("anti-affinity with pods matching NamespaceSelector and Namespaces",
     make_pod(ns="subteam1.team1", labels=S1, **ANTI_NS_SELECTOR),
     _ns_pods("subteam2.team2"), _n(CHINA, INDIA), [0, 100]),
    ("preferred terms of existing pods are not ignored (default args)",
     make_pod(labels=S2),
     [_on("node1", S1, **STAY_S1_AWAY_S2), _on("node2", S2, **STAY_S2_REGION)],
     _n(CHINA, INDIA), [0, 100]),
    ("no nodes to score", make_pod(labels=S2), [], [], SKIP),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want"), [c[1:] for c in SCORE_CASES],
                         ids=[c[0] for c in SCORE_CASES])
def test_preferred_affinity(pod, pods, nodes, want):
    assert run_score(pod, pods, nodes) == want


_HARD_POD_AFFINITY = dict(req=[term(In("service", "S1"), topo="region",
                                    namespaces=["default", "subteam2.team2"],
                                    ns_selector=TEAM1)])

HARD_WEIGHT_CASES = [
    ("with default weight", "default", [100, 100, 0]),
    ("with no matching namespace", "subteam1.team2", SKIP),
    ("with matching NamespaceSelector", "subteam1.team1", [100, 100, 0]),
    ("with matching Namespaces", "subteam2.team2", [100, 100, 0]),
]


@pytest.mark.parametrize(("ns", "want"), [c[1:] for c in HARD_WEIGHT_CASES],
                         ids=[c[0] for c in HARD_WEIGHT_CASES])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(ns, want):
    pods = [_on("node1", **_HARD_POD_AFFINITY), _on("node2", **_HARD_POD_AFFINITY)]
    pod = make_pod(ns=ns, labels={"service": "S1"})
    assert run_score(pod, pods, _n(CHINA, INDIA, AZ1)) == want


# ---------------------------------------------------------------------------------------
# Behaviour beyond the upstream tables (still upstream semantics)
# ---------------------------------------------------------------------------------------
def test_normalize_is_min_max_not_zero_based():
    # Current upstream starts min at MaxInt64 (older releases at 0): raw 10 and 5 -> 100, 0.
    pod = make_pod(labels=S1, **STAY_S1_REGION)
    pods = [_on("node1", S1), _on("node1", S1), _on("node2", S1)]
    assert run_score(pod, pods, _n(CHINA, INDIA)) == [100, 0]


def test_no_affinity_anywhere_is_irrelevant():
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", S1)])
    assert not InterPodAffinity().relevant(new_state(make_pod(labels=S1), cluster))


def test_terminating_pods_still_count():
    pod = make_pod(labels=S1, anti=[term(In("security", "S1"), topo="region")])
    pods = [make_pod(node="node1", labels=S1, deleting=True)]
    assert run_filter(pod, pods, _n(CHINA, INDIA)) == [ANTI, None]


def test_clone_is_independent_for_what_if_checks():
    pod = make_pod(labels=S1, anti=[term(In("security", "S1"), topo="region")])
    victim = make_pod("victim", node="node1", labels=S1)
    cluster = make_cluster(_n(CHINA, INDIA), [victim])
    plugin = InterPodAffinity()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    view = cluster.node_view(0)
    what_if = state.clone()
    plugin.remove_pod(what_if, victim, view)
    assert plugin.filter(what_if, view) is None
    assert _as_tuple(plugin.filter(state, view)) == ANTI


def test_nominated_pod_anti_affinity_is_added():
    # A pod added to the state (e.g. a nominated pod) whose anti-affinity matches the
    # incoming pod blocks that topology domain.
    pod = make_pod(labels=S1, req=[term(In("app", "x"), topo="region")])
    cluster = make_cluster(_n(CHINA, INDIA), [_on("node1", {"app": "x"})])
    plugin = InterPodAffinity()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    view = cluster.node_view(0)
    plugin.add_pod(state, make_pod("nominee", labels={"app": "y"},
                                   anti=[term(In("security", "S1"), topo="region")]), view)
    assert _as_tuple(plugin.filter(state, view)) == EXIST
