"""PodTopologySpread rules the upstream-table tests leave implicit, worked from upstream.

Sources: ``pkg/scheduler/framework/plugins/podtopologyspread`` — ``filtering.go``
(``preFilterState.Clone`` keeps the constraints and the incoming pod's self-match;
AddPod/RemovePod change the counts Filter reads), ``scoring.go`` (``initPreScoreState``:
``topologyNormalizingWeight = log(size + 2)``; Score ``cnt * weight + maxSkew - 1``
rounded as ``math.Round``; NormalizeScore ``100 * (max + min - s) / max``, every node 100
when the maximum is 0; scores are int64), ``common.go`` (``filterTopologySpreadConstraints``
keeps a default constraint's minDomains and node inclusion policies) and ``plugin.go``
(``isSchedulableAfterNodeChange``: Queue when the node carries every DoNotSchedule
constraint's topology key).
"""

from __future__ import annotations

import math

import numpy as np
from builders import spread as sc
from builders.plugins import make_cluster, make_node, make_pod, new_state

from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.pod_topology_spread import (
    DefaultConstraint,
    PodTopologySpread,
    is_schedulable_after_node_change,
    pre_filter_state,
    spread_scores,
)
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
UNSCHED = Code.UNSCHEDULABLE


def _zone_nodes():
    return [make_node("node-a", {"zone": "zone1"}), make_node("node-b", {"zone": "zone1"}),
            make_node("node-x", {"zone": "zone2"}), make_node("node-y", {"zone": "zone2"})]


def _on(node: str, labels: dict[str, str]):
    return make_pod(node=node, labels=labels)


def _scores(cluster, pod) -> np.ndarray:
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    idx = np.arange(len(cluster.nodes), dtype=np.int64)
    plugin.pre_score(state, idx)
    return plugin.score(state, idx)


def _expected(raw: list[int]) -> list[int]:
    """NormalizeScore over the scored nodes' raw scores."""
    hi, lo = max([0, *raw]), min(raw)
    return [100 if hi == 0 else 100 * (hi + lo - s) // hi for s in raw]


def _raw(cnt: int, domains: int, max_skew: int = 1) -> int:
    x = cnt * math.log(domains + 2) + max_skew - 1
    return int(math.floor(x + 0.5))


def test_zone_scores_are_int64_and_per_selector_in_one_snapshot() -> None:
    """One zone constraint: zone1 holds 3 foo pods and zone2 1, while zone2 holds 2 bar
    pods; two pods selecting foo and bar over one snapshot get their own counts."""
    pods = [_on("node-a", {"foo": ""}), _on("node-b", {"foo": ""}), _on("node-b", {"foo": ""}),
            _on("node-x", {"foo": ""}), _on("node-x", {"bar": ""}), _on("node-y", {"bar": ""})]
    cluster = make_cluster(_zone_nodes(), pods)
    foo = _scores(cluster, make_pod("f", spread=[sc(1, "zone", "ScheduleAnyway", FOO)]))
    assert foo.dtype == np.int64
    assert foo.tolist() == _expected([_raw(3, 2)] * 2 + [_raw(1, 2)] * 2)
    bar = _scores(cluster, make_pod("b", spread=[sc(1, "zone", "ScheduleAnyway", BAR)]))
    assert bar.tolist() == _expected([_raw(0, 2)] * 2 + [_raw(2, 2)] * 2)


def test_no_matching_pod_anywhere_scores_every_node_100() -> None:
    """Every raw score 0 (no matching pods, maxSkew 1): NormalizeScore's ``maxScore == 0``
    gives every node MaxNodeScore."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"bar": ""})])
    got = _scores(cluster, make_pod("f", spread=[sc(1, "zone", "ScheduleAnyway", FOO)]))
    assert got.tolist() == [100, 100, 100, 100]


def test_scores_follow_binds_and_removals_in_one_snapshot() -> None:
    """Scores after binding and removing matching pods equal a fresh count (PreScore sums
    the pods bound at that moment). Score adds the constraints' float terms and rounds
    the sum once."""
    nodes = [make_node(n, {"zone": z, "rack": r}) for n, z, r in (
        ("node-a", "zone1", "r1"), ("node-b", "zone1", "r2"),
        ("node-x", "zone2", "r1"), ("node-y", "zone2", "r2"))]
    cluster = make_cluster(nodes, [_on("node-a", {"foo": ""})])
    zone = make_pod("z", spread=[sc(1, "zone", "ScheduleAnyway", FOO)])
    both = make_pod("zr", spread=[sc(1, "zone", "ScheduleAnyway", FOO),
                                  sc(2, "rack", "ScheduleAnyway", FOO)])
    w = math.log(2 + 2)  # two zones, two racks

    def total(zone_cnt: int, rack_cnt: int) -> int:
        return int(math.floor(zone_cnt * w + rack_cnt * w + 1 + 0.5))

    assert _scores(cluster, zone).tolist() == _expected([_raw(1, 2)] * 2 + [0, 0])
    assert _scores(cluster, both).tolist() == _expected(
        [total(1, 1), total(1, 0), total(0, 1), total(0, 0)])
    extra = [_on("node-x", {"foo": ""}), _on("node-y", {"foo": ""}), _on("node-y", {"foo": ""})]
    for p in extra:
        cluster.bind(p, p.node_name)
    # zone1 1, zone2 3; rack r1 2 (a, x), r2 2 (y, y).
    assert _scores(cluster, zone).tolist() == _expected([_raw(1, 2)] * 2 + [_raw(3, 2)] * 2)
    assert _scores(cluster, both).tolist() == _expected(
        [total(1, 2), total(1, 2), total(3, 2), total(3, 2)])
    cluster.remove(extra[2])
    # zone2 2; rack r2 1.
    assert _scores(cluster, zone).tolist() == _expected([_raw(1, 2)] * 2 + [_raw(2, 2)] * 2)
    assert _scores(cluster, both).tolist() == _expected(
        [total(1, 2), total(1, 1), total(2, 2), total(2, 1)])


def test_default_constraint_keeps_its_fields() -> None:
    """A ``defaultConstraints`` entry keeps minDomains and both inclusion policies; the
    per-pod constraint built from it (``buildDefaultConstraints``) too."""
    c = DefaultConstraint.parse({"maxSkew": 2, "topologyKey": "zone",
                                 "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3,
                                 "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"})
    assert c == DefaultConstraint(2, "zone", "DoNotSchedule", 3, "Ignore", "Honor")
    built = c.with_selector(None)  # type: ignore[arg-type]
    assert (built.max_skew, built.topology_key, built.when_unsatisfiable, built.min_domains,
            built.node_affinity_policy, built.node_taints_policy) == (
        2, "zone", "DoNotSchedule", 3, "Ignore", "Honor")
    plain = DefaultConstraint.parse({"maxSkew": 1, "topologyKey": "zone",
                                     "whenUnsatisfiable": "ScheduleAnyway"})
    assert (plain.min_domains, plain.node_affinity_policy, plain.node_taints_policy) == (
        1, "Honor", "Ignore")


def test_clone_keeps_the_self_match() -> None:
    """A clone (preemption's what-if) filters as the original: zone1 1, zone2 0 foo pods,
    the incoming foo pod counts itself: zone1 skew 1 + 1 - 0 = 2 > 1."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    clone = state.clone()
    got = [plugin.filter(clone, cluster.node_view(i)) for i in range(4)]
    assert [None if s is None else s.code for s in got] == [UNSCHED, UNSCHED, None, None]


def test_filter_after_add_pod_on_both_paths() -> None:
    """AddPod of a foo pod to zone2 makes zone2 2 and zone1 1: zone2 is now too full for
    maxSkew 1 (2 + 1 - 1 = 2 > 1); the vector path agrees."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""}),
                                           _on("node-x", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    plugin.add_pod(state, _on("node-y", {"foo": ""}), cluster.node_view(3))
    per_node = [plugin.filter(state, cluster.node_view(i)) for i in range(4)]
    assert [None if s is None else s.code for s in per_node] == [None, None, UNSCHED, UNSCHED]
    vec = {i for bad, _ in plugin.filter_nodes(state, np.arange(4, dtype=np.int64))
           for i in bad.tolist()}
    assert vec == {2, 3}


def test_node_added_hint_needs_every_hard_constraint_key() -> None:
    """``isSchedulableAfterNodeChange``: Queue when the added node has every DoNotSchedule
    constraint's topology key (ScheduleAnyway ones are not asked), else QueueSkip."""
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO),
                                                    sc(1, "node", selector=FOO),
                                                    sc(1, "rack", "ScheduleAnyway", FOO)])

    def hint(labels: dict[str, str]) -> bool:
        ev = ClusterEvent(NODE_ADD, node=make_node("new", labels))
        return is_schedulable_after_node_change(pod, ev, lambda ns: {})

    assert hint({"zone": "z", "node": "new"}) is True
    assert hint({"zone": "z", "rack": "r"}) is False
    assert hint({"node": "new"}) is False


def _codes(plugin, state, cluster) -> list:
    out = [plugin.filter(state, cluster.node_view(i)) for i in range(len(cluster.nodes))]
    return [None if s is None else s.code for s in out]


def test_minimum_follows_add_pod_after_filter_read_it() -> None:
    """Filter reads the global minimum (zone1 1, zone2 0: min 0); AddPod of a foo pod to
    zone2 raises it to 1, so zone1 (1 + 1 - 1 = 1) fits again, as a fresh PreFilter with
    that pod bound says."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    assert _codes(plugin, state, cluster) == [UNSCHED, UNSCHED, None, None]
    added = _on("node-x", {"foo": ""})
    plugin.add_pod(state, added, cluster.node_view(2))
    assert _codes(plugin, state, cluster) == [None, None, None, None]
    assert state.data[plugin.name].min_match(0) == 1
    fresh = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""}), added])
    fresh_state = new_state(pod, fresh)
    assert plugin.pre_filter(fresh_state) is None
    assert _codes(plugin, fresh_state, fresh) == [None, None, None, None]


def test_minimum_follows_remove_pod_after_filter_read_it() -> None:
    """zone1 2, zone2 1 (min 1): zone1 is full (2 + 1 - 1 = 2 > 1). RemovePod of zone2's
    pod lowers the minimum to 0 and zone1 stays full, zone2 fits (0 + 1 - 0)."""
    victim = _on("node-y", {"foo": ""})
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""}),
                                           _on("node-b", {"foo": ""}), victim])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    assert _codes(plugin, state, cluster) == [UNSCHED, UNSCHED, None, None]
    plugin.remove_pod(state, victim, cluster.node_view(3))
    assert state.data[plugin.name].min_match(0) == 0
    assert _codes(plugin, state, cluster) == [UNSCHED, UNSCHED, None, None]
    plugin.add_pod(state, victim, cluster.node_view(3))
    plugin.add_pod(state, _on("node-x", {"foo": ""}), cluster.node_view(2))
    # zone1 2, zone2 2: min 2, every node fits (2 + 1 - 2 = 1).
    assert _codes(plugin, state, cluster) == [None, None, None, None]


def test_add_pod_updates_every_constraint_it_matches() -> None:
    """``updateWithPod`` walks every constraint: an added pod matching only the second
    constraint's selector, or outside the first constraint's node inclusion, still counts
    for the second."""
    nodes = [make_node(n, {"zone": z, "rack": r, "disk": d}) for n, z, r, d in (
        ("node-a", "zone1", "r1", "ssd"), ("node-x", "zone2", "r2", "hdd"))]
    cluster = make_cluster(nodes)
    plugin = PodTopologySpread()
    pod = make_pod("p", labels={"foo": "", "bar": ""},
                   spread=[sc(5, "zone", selector=FOO), sc(5, "rack", selector=BAR)])
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    plugin.add_pod(state, _on("node-x", {"bar": ""}), cluster.node_view(1))
    assert state.data[plugin.name].counts == [{"zone1": 0, "zone2": 0}, {"r1": 0, "r2": 1}]

    honor = make_pod("h", labels={"foo": ""}, node_selector={"disk": "ssd"},
                     spread=[sc(5, "zone", selector=FOO),
                             sc(5, "rack", selector=FOO, nap="Ignore")])
    state = new_state(honor, cluster)
    assert plugin.pre_filter(state) is None
    plugin.add_pod(state, _on("node-x", {"foo": ""}), cluster.node_view(1))
    # zone (nodeAffinityPolicy Honor) leaves out node-x, whose disk is hdd; rack counts it.
    assert state.data[plugin.name].counts == [{"zone1": 0}, {"r1": 0, "r2": 1}]


def test_a_node_missing_the_first_constraints_key_fails_on_both_paths() -> None:
    """Filter: a node without a constraint's topology key is UnschedulableAndUnresolvable
    (missing required label), whichever constraint it is; the vector path agrees."""
    nodes = [make_node("node-a", {"zone": "zone1", "rack": "r1"}),
             make_node("node-b", {"rack": "r1"}),
             make_node("node-c", {"zone": "zone1"})]
    cluster = make_cluster(nodes)
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO),
                                                    sc(1, "rack", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    unres = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert _codes(plugin, state, cluster) == [None, unres, unres]
    vec = {i: st.code for bad, st in plugin.filter_nodes(state, np.arange(3, dtype=np.int64))
           for i in bad.tolist()}
    assert vec == {1: unres, 2: unres}


def test_system_default_zone_missing_label_is_the_empty_value() -> None:
    """System defaults do not require the key (``requireAllTopologies`` false): a node
    without ``zone`` is the pair ``zone=""`` in PreScore (``node.Labels[key]``), the same
    domain as a node labelled ``zone: ""``; Score skips the constraint for the unlabelled
    node. Domains "" and z1: weight log(4); "" holds 2 foo pods (on node2), z1 1:
    raw 2*log 4 + 4 -> 7, 0, 1*log 4 + 4 -> 5; normalised 0, 100, 28."""
    nodes = [make_node("node1", {"zone": ""}), make_node("node2"),
             make_node("node3", {"zone": "z1"})]
    pods = [_on("node2", {"foo": ""}), _on("node2", {"foo": ""}), _on("node3", {"foo": ""})]
    cluster = make_cluster(nodes, pods)
    pod = make_pod("p", spread=[sc(5, "zone", "ScheduleAnyway", FOO)])
    got = spread_scores(pod, cluster, np.arange(3, dtype=np.int64), (pod.spread, True))
    assert got.tolist() == [0, 100, 28]


def test_score_without_soft_constraints_is_int64_zero() -> None:
    """Only DoNotSchedule constraints: PreScore Skips and every node scores 0 (int64)."""
    cluster = make_cluster(_zone_nodes())
    got = _scores(cluster, make_pod("p", spread=[sc(1, "zone", selector=FOO)]))
    assert got.dtype == np.int64
    assert got.tolist() == [0, 0, 0, 0]


def test_each_node_gets_the_first_failing_constraints_status_only() -> None:
    """Filter checks the constraints in order and returns at the first failure: node-b
    lacks zone (missing label) though its rack is also too full; node-a and node-c fail
    zone's skew (zone1 2 + 1 - 0 = 3) before rack's; node-x fits both."""
    nodes = [make_node("node-a", {"zone": "zone1", "rack": "r1"}),
             make_node("node-b", {"rack": "r2"}),
             make_node("node-c", {"zone": "zone1", "rack": "r2"}),
             make_node("node-x", {"zone": "zone2", "rack": "r1"})]
    cluster = make_cluster(nodes, [_on("node-c", {"foo": ""}), _on("node-c", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO),
                                                    sc(1, "rack", selector=FOO)])
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    unres = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert _codes(plugin, state, cluster) == [UNSCHED, unres, UNSCHED, None]
    listed = [(i, st.code) for bad, st in plugin.filter_nodes(state, np.arange(4, dtype=np.int64))
              for i in bad.tolist()]
    assert sorted(listed) == [(0, UNSCHED), (1, unres), (2, UNSCHED)]


def test_system_defaults_without_a_default_selector_skip_scoring() -> None:
    """A pod without constraints and no Service or controller selecting it: the default
    selector is empty, ``buildDefaultConstraints`` gives none and PreScore Skips."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""})])
    assert spread_scores(make_pod("p", labels={"foo": ""}), cluster,
                         np.arange(4, dtype=np.int64)) is None


def test_hostname_constraint_counts_each_nodes_own_pods() -> None:
    """Score: for ``kubernetes.io/hostname`` the count is the node's own matching pods
    and the weight is log(scored nodes + 2), not per label value (two nodes here share a
    hostname value): raw round(2 log 5) = 3, 0, 0 -> 0, 100, 100."""
    host = "kubernetes.io/hostname"
    nodes = [make_node("n1", {host: "h"}), make_node("n2", {host: "h"}),
             make_node("n3", {host: "h3"})]
    cluster = make_cluster(nodes, [_on("n1", {"foo": ""}), _on("n1", {"foo": ""})])
    got = _scores(cluster, make_pod("p", spread=[sc(1, host, "ScheduleAnyway", FOO)]))
    assert got.tolist() == [0, 100, 100]


def test_own_soft_constraints_ignore_nodes_missing_any_key() -> None:
    """The pod's own constraints require every topology key (``requireAllTopologies``):
    node-b, without zone, is ignored (score 0) and leaves the normalisation; node-a
    (zone1 1 pod, rack r1 1 pod) raw round(log 4 + log 4) = 3, node-x 0 -> 0, 0, 100."""
    nodes = [make_node("node-a", {"zone": "zone1", "rack": "r1"}),
             make_node("node-b", {"rack": "r1"}),
             make_node("node-x", {"zone": "zone2", "rack": "r2"})]
    cluster = make_cluster(nodes, [_on("node-a", {"foo": ""})])
    pod = make_pod("p", spread=[sc(1, "zone", "ScheduleAnyway", FOO),
                                sc(1, "rack", "ScheduleAnyway", FOO)])
    got = _scores(cluster, pod)
    assert got.dtype == np.int64
    assert got.tolist() == [0, 0, 100]


def test_system_and_own_constraints_count_different_nodes_in_one_snapshot() -> None:
    """The same hostname + zone constraints as system defaults (every node counts, none
    is ignored) and as the pod's own (``requireAllTopologies``: n2, without a hostname
    label, is ignored and its pod not counted), scored over one snapshot.
    System: weights log 6 (4 nodes) and log 4 (z1, z2), zone counts z1 2, z2 1:
    raw 5, 3, 1, 3 -> 20, 60, 100, 60. Own: weights log 5 (3 nodes) and log 4, zone
    counts z1 1, z2 1: raw 3, -, 1, 3 -> 33, 0, 100, 33."""
    host = "kubernetes.io/hostname"
    nodes = [make_node("n1", {host: "n1", "zone": "z1"}), make_node("n2", {"zone": "z1"}),
             make_node("n3", {host: "n3", "zone": "z2"}),
             make_node("n4", {host: "n4", "zone": "z2"})]
    cluster = make_cluster(nodes, [_on("n1", {"foo": ""}), _on("n2", {"foo": ""}),
                                   _on("n4", {"foo": ""})])
    pod = make_pod("p", spread=[sc(1, host, "ScheduleAnyway", FOO),
                                sc(1, "zone", "ScheduleAnyway", FOO)])
    idx = np.arange(4, dtype=np.int64)
    assert spread_scores(pod, cluster, idx, (pod.spread, True)).tolist() == [20, 60, 100, 60]
    assert spread_scores(pod, cluster, idx, (pod.spread, False)).tolist() == [33, 0, 100, 33]


def _filter_codes(pod, cluster) -> list:
    plugin = PodTopologySpread()
    state = new_state(pod, cluster)
    assert plugin.pre_filter(state) is None
    return _codes(plugin, state, cluster)


def test_inclusion_policies_are_per_pod_in_one_snapshot() -> None:
    """``matchNodeInclusionPolicies`` reads each pod's own nodeSelector, required node
    affinity and tolerations: pods differing only there, prefiltered over one snapshot,
    count different nodes. zone1 holds 2 foo pods, both on node-b (hdd, tainted)."""
    nodes = [make_node("node-a", {"zone": "zone1", "disk": "ssd"}),
             make_node("node-b", {"zone": "zone1", "disk": "hdd"},
                       taints=[("dedicated", "hdd", "NoSchedule")]),
             make_node("node-x", {"zone": "zone2", "disk": "ssd"}),
             make_node("node-y", {"zone": "zone2", "disk": "hdd"},
                       taints=[("dedicated", "hdd", "NoSchedule")])]
    cluster = make_cluster(nodes, [_on("node-b", {"foo": ""}), _on("node-b", {"foo": ""})])
    zone = [sc(1, "zone", selector=FOO)]
    fits = [None] * 4
    full = [UNSCHED, UNSCHED, None, None]  # zone1 2 + 1 - 0 = 3 > 1
    # nodeAffinityPolicy Honor (default), by nodeSelector: ssd nodes count 0 in zone1.
    assert _filter_codes(make_pod("s", labels={"foo": ""}, node_selector={"disk": "ssd"},
                                  spread=zone), cluster) == fits
    assert _filter_codes(make_pod("h", labels={"foo": ""}, node_selector={"disk": "hdd"},
                                  spread=zone), cluster) == full

    def required(disk: str) -> dict:
        return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "disk", "operator": "In", "values": [disk]}]}]}}

    # ... by required node affinity.
    assert _filter_codes(make_pod("as", labels={"foo": ""}, node_affinity=required("ssd"),
                                  spread=zone), cluster) == fits
    assert _filter_codes(make_pod("ah", labels={"foo": ""}, node_affinity=required("hdd"),
                                  spread=zone), cluster) == full
    # nodeTaintsPolicy Honor: only a pod tolerating the taint counts the tainted nodes.
    honor = [sc(1, "zone", selector=FOO, ntp="Honor")]
    tolerate = [{"key": "dedicated", "operator": "Equal", "value": "hdd",
                 "effect": "NoSchedule"}]
    assert _filter_codes(make_pod("t0", labels={"foo": ""}, spread=honor), cluster) == fits
    assert _filter_codes(make_pod("t1", labels={"foo": ""}, spread=honor,
                                  tolerations=tolerate), cluster) == full


def test_prefilter_state_reads_the_pods_own_constraints_by_default() -> None:
    """``calPreFilterState`` with no List defaults given: the pod's DoNotSchedule
    constraints, zone1 1 foo pod, zone2 0 (``whatif advise`` calls it this way)."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO),
                                                    sc(1, "zone", "ScheduleAnyway", FOO)])
    s = pre_filter_state(pod, cluster)
    assert s is not None and s.counts == [{"zone1": 1, "zone2": 0}]


def test_match_labels_selector_counts_only_live_pods_of_the_namespace() -> None:
    """``countPodsMatchSelector`` skips terminating pods and pods of other namespaces,
    for a matchLabels selector too: zone1 counts 1 (node-a's live default pod), zone2 0."""
    pods = [make_pod(node="node-a", labels={"app": "web"}),
            make_pod(node="node-a", labels={"app": "web"}, deleting=True),
            make_pod(node="node-x", ns="other", labels={"app": "web"}),
            make_pod(node="node-x", labels={"app": "db"})]
    cluster = make_cluster(_zone_nodes(), pods)
    pod = make_pod("p", labels={"app": "web"},
                   spread=[sc(1, "zone", selector={"matchLabels": {"app": "web"}})])
    s = pre_filter_state(pod, cluster)
    assert s is not None and s.counts == [{"zone1": 1, "zone2": 0}]


def test_counts_survive_a_change_log_trim() -> None:
    """The snapshot trims its change log past 1,000,000 entries and starts a new epoch;
    matching-pod counts kept from before are then recounted: after binding a foo pod to
    node-x across the trim, zone2 counts 1."""
    cluster = make_cluster(_zone_nodes(), [_on("node-a", {"foo": ""})])
    pod = make_pod("p", labels={"foo": ""}, spread=[sc(1, "zone", selector=FOO)])
    assert pre_filter_state(pod, cluster).counts == [{"zone1": 1, "zone2": 0}]
    cluster.change_log.extend([0] * (1_000_000 - len(cluster.change_log)))
    epoch = cluster.change_epoch
    added = _on("node-x", {"foo": ""})
    cluster.bind(added, added.node_name)
    assert cluster.change_epoch == epoch + 1
    assert pre_filter_state(pod, cluster).counts == [{"zone1": 1, "zone2": 1}]


def test_one_constraint_scores_per_topology_key_in_one_snapshot() -> None:
    """The same selector spread by zone and then by rack over one snapshot: each pod
    counts per its own key's domains. foo pods: node-a 2 (zone1, r1), node-x 1 (zone2,
    r1). Zone: raw round(2 log 4) = 3, 3, 1, 1 -> 33, 33, 100, 100; rack (r1 3, r2 0):
    raw round(3 log 4) = 4, 0, 4, 0 -> 0, 100, 0, 100."""
    nodes = [make_node(n, {"zone": z, "rack": r}) for n, z, r in (
        ("node-a", "zone1", "r1"), ("node-b", "zone1", "r2"),
        ("node-x", "zone2", "r1"), ("node-y", "zone2", "r2"))]
    cluster = make_cluster(nodes, [_on("node-a", {"foo": ""}), _on("node-a", {"foo": ""}),
                                   _on("node-x", {"foo": ""})])
    zone = make_pod("z", spread=[sc(1, "zone", "ScheduleAnyway", FOO)])
    rack = make_pod("r", spread=[sc(1, "rack", "ScheduleAnyway", FOO)])
    assert _scores(cluster, zone).tolist() == [33, 33, 100, 100]
    assert _scores(cluster, rack).tolist() == [0, 100, 0, 100]
