"""PodTopologySpread: cases reproduced from upstream filtering_test.go (TestSingleConstraint,
TestPreFilterState, TestPreFilterStateRemovePod) plus scoring checks of upstream's formula.
"""

from __future__ import annotations

import math

import pytest
from builders import BAR
from builders import spread as sc
from builders.plugins import indices, make_cluster, make_node, make_pod, new_state

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.node_match import (
    pod_matches_node_selector_and_affinity,
)
from kubepreempt.scheduler.plugins.pod_topology_spread import (
    ERR_CONSTRAINTS,
    ERR_MISSING_LABEL,
    PodTopologySpread,
)

OK = Code.SUCCESS
UNSCHED = Code.UNSCHEDULABLE
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def zn(name: str, zone: str | None = "zone1", zone_key: str = "zone", taints=()) -> Node:
    labels = {"node": name}
    if zone is not None:
        labels[zone_key] = zone
    return make_node(name, labels, taints)


def FOUR():  # noqa: N802 - upstream's usual a/b (zone1), x/y (zone2) cluster
    return [zn("node-a"), zn("node-b"), zn("node-x", "zone2"), zn("node-y", "zone2")]


def foo_on(*nodes: str, ns: str = "default", deleting: bool = False) -> list[Pod]:
    return [make_pod(node=n, ns=ns, labels={"foo": ""}, deleting=deleting) for n in nodes]


def run_filter(pod: Pod, pods: list[Pod], nodes: list[Node]):
    """PreFilter + Filter: {node: code}, or "skip"."""
    cluster = make_cluster(nodes, pods)
    state = new_state(pod, cluster)
    plugin = PodTopologySpread()
    if not plugin.relevant(state):
        return "skip"
    status = plugin.pre_filter(state)
    if status is not None:
        return "skip" if status.code == Code.SKIP else status
    got = {}
    for n in nodes:
        st = plugin.filter(state, cluster.node_view(cluster.node_index[n.name]))
        got[n.name] = OK if st is None else st.code
        if st is not None:
            assert st.message() == (ERR_MISSING_LABEL if st.code == UNRES else ERR_CONSTRAINTS)
    idx = indices(cluster, [n.name for n in nodes])
    vec = {}
    for bad, st in plugin.filter_nodes(state, idx):
        for i in bad.tolist():
            vec[cluster.nodes[i].name] = st.code
    assert {n.name: vec.get(n.name, OK) for n in nodes} == got
    return got


def run_score(pod: Pod, pods: list[Pod], nodes: list[Node], feasible: list[str] | None = None):
    """PreScore + Score + NormalizeScore over ``feasible`` (default: all) nodes."""
    cluster = make_cluster(nodes, pods)
    state = new_state(pod, cluster)
    plugin = PodTopologySpread()
    idx = indices(cluster, feasible or [n.name for n in nodes])
    if not plugin.relevant(state):
        return "skip"
    plugin.pre_score(state, idx)
    return plugin.score(state, idx).tolist()


# ---------------------------------------------------------------------------------------
# TestSingleConstraint
# ---------------------------------------------------------------------------------------
_A_Y = foo_on("node-a", "node-a", "node-b", "node-y", "node-y", "node-y")

SINGLE_CASES = [
    ("no existing pods", make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]), [], FOUR(),
     [OK, OK, OK, OK]),
    ("no existing pods, incoming pod doesn't match itself",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone", selector=BAR)]), [], FOUR(),
     [OK, OK, OK, OK]),
    ("existing pods in a different namespace do not count",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]),
     foo_on("node-a", ns="ns1") + foo_on("node-a", ns="ns2") + foo_on("node-x", "node-y"),
     FOUR(), [OK, OK, UNSCHED, UNSCHED]),
    ("existing pods do not match null selector",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone", selector=None)]),
     foo_on("node-x", "node-y"), FOUR(), [OK, OK, OK, OK]),
    ("pods spread across zones as 3/3, all nodes fit",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]), _A_Y, FOUR(), [OK, OK, OK, OK]),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]),
     foo_on("node-a", "node-b", "node-x", "node-y"),
     [zn("node-a"), zn("node-b", zone_key="zon"), zn("node-x", "zone2"), zn("node-y", "zone2")],
     [OK, UNRES, UNSCHED, UNSCHED]),
    ("pod cannot be scheduled as all nodes don't have label 'rack'",
     make_pod(labels={"foo": ""}, spread=[sc(1, "rack")]), [],
     [zn("node-a"), zn("node-x", "zone2")], [UNRES, UNRES]),
    ("pods spread across nodes as 2/1/0/3, only node-x fits",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node")]), _A_Y, FOUR(),
     [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
     make_pod(labels={"foo": ""}, spread=[sc(2, "node")]), _A_Y, FOUR(),
     [UNSCHED, OK, OK, UNSCHED]),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
     make_pod(labels={"bar": ""}, spread=[sc(1, "node")]), _A_Y, FOUR(),
     [UNSCHED, OK, OK, UNSCHED]),
    ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node")], node_affinity={
         "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
             {"matchExpressions": [{"key": "node", "operator": "In",
                                    "values": ["node-a", "node-y"]}]}]}}),
     _A_Y, FOUR(), [OK, OK, OK, UNSCHED]),
    ("terminating Pods should be excluded",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node")]),
     foo_on("node-a", deleting=True) + foo_on("node-b"),
     [make_node("node-a", {"node": "node-a"}), make_node("node-b", {"node": "node-b"})],
     [OK, UNSCHED]),
    ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")], node_affinity={
         "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
             {"matchExpressions": [{"key": "node", "operator": "NotIn",
                                    "values": ["node-b"]}]}]}}),
     foo_on("node-b", "node-b", "node-y"), FOUR(), [OK, OK, UNSCHED, UNSCHED]),
    ("2/2/1, maxSkew 2, domains < minDomains: the third node fits",
     make_pod(labels={"foo": ""}, spread=[sc(2, "node", min_domains=4)]),
     foo_on("node-a", "node-a", "node-b", "node-b", "node-c"),
     [make_node(n, {"node": n}) for n in ("node-a", "node-b", "node-c")],
     [UNSCHED, UNSCHED, OK]),
    ("2/2/1, maxSkew 2, domains > minDomains: all nodes fit",
     make_pod(labels={"foo": ""}, spread=[sc(2, "node", min_domains=2)]),
     foo_on("node-a", "node-a", "node-b", "node-b", "node-c"),
     [make_node(n, {"node": n}) for n in ("node-a", "node-b", "node-c")], [OK, OK, OK]),
    ("zone 2/1, maxSkew 2, domains < minDomains: third and fourth nodes fit",
     make_pod(labels={"foo": ""}, spread=[sc(2, "zone", min_domains=3)]),
     foo_on("node-a", "node-b", "node-y"), FOUR(), [UNSCHED, UNSCHED, OK, OK]),
    ("zone 2/1, maxSkew 2, domains > minDomains: all nodes fit",
     make_pod(labels={"foo": ""}, spread=[sc(2, "zone", min_domains=1)]),
     foo_on("node-a", "node-b", "node-y"), FOUR(), [OK, OK, OK, OK]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want"), [c[1:] for c in SINGLE_CASES],
                         ids=[c[0] for c in SINGLE_CASES])
def test_single_constraint(pod, pods, nodes, want):
    assert run_filter(pod, pods, nodes) == dict(zip([n.name for n in nodes], want, strict=True))


# ---------------------------------------------------------------------------------------
# TestPreFilterState (domain counts) and TestPreFilterStateRemovePod
# ---------------------------------------------------------------------------------------
PREFILTER_CASES = [
    ("clean cluster with one spreadConstraint",
     make_pod(labels={"foo": ""}, spread=[sc(5, "zone", selector={
         "matchLabels": {"foo": "bar"}})]), [], FOUR(), [{"zone1": 0, "zone2": 0}]),
    ("normal case with one spreadConstraint",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]),
     foo_on("node-a", "node-a", "node-b", "node-y", "node-y"), FOUR(),
     [{"zone1": 3, "zone2": 2}]),
    ("normal case with null label selector",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone", selector=None)]),
     foo_on("node-a", "node-a", "node-b", "node-y", "node-y"), FOUR(),
     [{"zone1": 0, "zone2": 0}]),
    ("one spreadConstraint on a 3-zone cluster",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]),
     foo_on("node-a", "node-a", "node-b", "node-y", "node-y"),
     [*FOUR(), zn("node-o", "zone3"), zn("node-p", "zone3")],
     [{"zone1": 3, "zone2": 2, "zone3": 0}]),
    ("namespace mismatch doesn't count",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone")]),
     foo_on("node-a", "node-b", "node-y") + foo_on("node-a", ns="ns1")
     + foo_on("node-y", ns="ns2"), FOUR(), [{"zone1": 2, "zone2": 1}]),
    ("normal case with two spreadConstraints",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone"), sc(1, "node")]),
     foo_on("node-a", "node-a", "node-b", "node-y", "node-y", "node-y", "node-y"), FOUR(),
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}]),
    ("soft spreadConstraints should be bypassed",
     make_pod(labels={"foo": ""}, spread=[sc(1, "zone", "ScheduleAnyway"), sc(1, "zone"),
                                          sc(1, "node", "ScheduleAnyway"), sc(1, "node")]),
     foo_on("node-a", "node-a", "node-b", "node-y", "node-y", "node-y", "node-y"),
     [zn("node-a"), zn("node-b"), zn("node-y", "zone2")],
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}]),
    ("nodeTaintsPolicy Honor excludes tainted nodes",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node", ntp="Honor")]),
     foo_on("node-a", "node-b"),
     [zn("node-a"), zn("node-b", taints=[("node.kubernetes.io/unschedulable", "",
                                          "NoSchedule")])], [{"node-a": 1}]),
    # filtering.go countPodsMatchSelector/ nodeTaintsPolicy Honor: a node whose taints the
    # pod tolerates (helper.DoNotScheduleTaintsFilterFunc) still counts.
    ("nodeTaintsPolicy Honor keeps tainted nodes the pod tolerates",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node", ntp="Honor")],
              tolerations=[{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]),
     foo_on("node-a", "node-b"),
     [zn("node-a"), zn("node-b", taints=[("dedicated", "db", "NoSchedule")])],
     [{"node-a": 1, "node-b": 1}]),
    ("nodeAffinityPolicy Ignore counts nodes outside the pod's node affinity",
     make_pod(labels={"foo": ""}, spread=[sc(1, "node", nap="Ignore")],
              node_selector={"node": "node-a"}),
     foo_on("node-a", "node-b"), [zn("node-a"), zn("node-b")],
     [{"node-a": 1, "node-b": 1}]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want"), [c[1:] for c in PREFILTER_CASES],
                         ids=[c[0] for c in PREFILTER_CASES])
def test_prefilter_state(pod, pods, nodes, want):
    state = new_state(pod, make_cluster(nodes, pods))
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    s = state.data[plugin.name]
    assert s.counts == want
    for i, counts in enumerate(want):
        assert s.min_match(i) == min(counts.values())


def test_prefilter_skips_without_hard_constraints():
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone", "ScheduleAnyway")])
    state = new_state(pod, make_cluster(FOUR()))
    assert PodTopologySpread().pre_filter(state).code == Code.SKIP
    assert not PodTopologySpread().relevant(new_state(make_pod(), make_cluster(FOUR())))


REMOVE_CASES = [
    ("delete an irrelevant pod won't help", foo_on("node-a", "node-b", "node-x", "node-y"),
     make_pod(node="node-a", labels={"bar": ""}), "node-a", [{"zone1": 2, "zone2": 2}]),
    ("delete a matching pod", foo_on("node-a", "node-b", "node-x", "node-x", "node-y"),
     "first-x", "node-x", [{"zone1": 2, "zone2": 2}]),
]


@pytest.mark.parametrize(("pods", "victim", "node", "want"), [c[1:] for c in REMOVE_CASES],
                         ids=[c[0] for c in REMOVE_CASES])
def test_prefilter_state_remove_pod(pods, victim, node, want):
    if victim == "first-x":
        victim = next(p for p in pods if p.node_name == "node-x")
    cluster = make_cluster(FOUR(), pods)
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone")])
    state = new_state(pod, cluster)
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    before = [dict(c) for c in state.data[plugin.name].counts]
    what_if = state.clone()
    plugin.remove_pod(what_if, victim, cluster.node_view(cluster.node_index[node]))
    assert what_if.data[plugin.name].counts == want
    assert state.data[plugin.name].counts == before  # the original is untouched


def test_two_constraints_remove_pod_updates_minimum():
    # Upstream "two spreadConstraints": remove p-x1 from node-x.
    pods = foo_on("node-a", "node-a", "node-b", "node-x", "node-x")
    nodes = [zn("node-a"), zn("node-b"), zn("node-x", "zone2")]
    cluster = make_cluster(nodes, pods)
    state = new_state(make_pod(labels={"foo": ""}, spread=[sc(1, "zone"), sc(1, "node")]),
                      cluster)
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    plugin.remove_pod(state, pods[3], cluster.node_view(cluster.node_index["node-x"]))
    s = state.data[plugin.name]
    assert s.counts == [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}]
    assert (s.min_match(0), s.min_match(1)) == (1, 1)


def test_remove_pod_outside_node_affinity_is_ignored():
    # Upstream "remove a pod when scheduling node affinity unmatched pod": node-a is not
    # eligible (pod's affinity NotIn foo=bar), so removing its pod changes nothing.
    nodes = [make_node("node-a", {"zone": "zone1", "node": "node-a", "foo": "bar"}),
             make_node("node-b", {"zone": "zone2", "node": "node-b", "foo": ""})]
    pods = [make_pod("p-a2", node="node-a", labels={"foo": "", "zone": "zone1"}),
            make_pod("p-b1", node="node-b", labels={"foo": "", "zone": "zone2"})]
    cluster = make_cluster(nodes, pods)
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone")], node_affinity={
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "foo", "operator": "NotIn", "values": ["bar"]}]}]}})
    state = new_state(pod, cluster)
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    deleted = make_pod("p-a1", node="node-a", labels={"foo": "", "zone": "zone1"})
    plugin.remove_pod(state, deleted, cluster.node_view(0))
    assert state.data[plugin.name].counts == [{"zone2": 1}]


def test_add_pod_raises_minimum_and_empty_selector_counts_added_pods():
    cluster = make_cluster(FOUR(), foo_on("node-a", "node-x"))
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone")])
    state = new_state(pod, cluster)
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    view = cluster.node_view(cluster.node_index["node-x"])
    plugin.add_pod(state, foo_on("node-x")[0], view)
    s = state.data[plugin.name]
    assert (s.counts, s.min_match(0)) == ([{"zone1": 1, "zone2": 2}], 1)
    assert plugin.filter(state, view).code == UNSCHED


def test_node_match_helper():
    node = make_node("n1", {"disk": "ssd"})
    assert pod_matches_node_selector_and_affinity(make_pod(node_selector={"disk": "ssd"}), node)
    assert not pod_matches_node_selector_and_affinity(make_pod(node_selector={"disk": "hdd"}),
                                                      node)


# ---------------------------------------------------------------------------------------
# Scoring (upstream scoring.go formula)
# ---------------------------------------------------------------------------------------
def _expected(raw: list[int]) -> list[int]:
    hi, lo = max([0, *raw]), min(raw)
    return [100 if hi == 0 else 100 * (hi + lo - s) // hi for s in raw]


def test_score_zone_counts_weighted_by_domain_count():
    # zone1 has 3 matching pods, zone2 has 1: raw = round(cnt * log(2 + 2)) + maxSkew - 1.
    pods = foo_on("node-a", "node-a", "node-b", "node-y")
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone", "ScheduleAnyway")])
    w = math.log(4)
    raw = [round(3 * w), round(3 * w), round(1 * w), round(1 * w)]
    assert run_score(pod, pods, FOUR()) == _expected(raw)


def test_score_hostname_counts_node_pods_and_feasible_node_count():
    pods = foo_on("node-a", "node-a", "node-b")
    nodes = [make_node(n, {"kubernetes.io/hostname": n, "node": n})
             for n in ("node-a", "node-b", "node-c")]
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "kubernetes.io/hostname",
                                                  "ScheduleAnyway")])
    w = math.log(3 + 2)
    raw = [int(math.floor(2 * w + 0.5)), int(math.floor(w + 0.5)), 0]
    assert run_score(pod, pods, nodes) == _expected(raw)


def test_score_nodes_missing_labels_get_zero():
    pods = foo_on("node-a")
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone", "ScheduleAnyway")])
    nodes = [zn("node-a"), zn("node-b", None), zn("node-x", "zone2")]
    # node-b is ignored (0); zone1 raw round(log 4) = 1, zone2 raw 0 -> 100*(1+0-1)/1 = 0.
    assert run_score(pod, pods, nodes) == [0, 0, 100]


def test_score_only_counts_domains_of_feasible_nodes_and_max_skew_offset():
    pods = foo_on("node-a", "node-x", "node-x")
    pod = make_pod(labels={"foo": ""}, spread=[sc(3, "zone", "ScheduleAnyway")])
    # Only zone2 nodes are feasible: one domain, weight log(3); raw = round(2*log 3) + 2.
    raw = round(2 * math.log(3)) + 2
    assert run_score(pod, pods, FOUR(), ["node-x", "node-y"]) == _expected([raw, raw])


def test_score_without_soft_constraints_is_zero():
    pod = make_pod(labels={"foo": ""}, spread=[sc(1, "zone")])
    assert run_score(pod, foo_on("node-a"), FOUR()) == [0, 0, 0, 0]
