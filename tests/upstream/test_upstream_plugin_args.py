"""Plugin arguments from a KubeSchedulerConfiguration: upstream's tables for them.

Ported:

* node_affinity_test.go TestNodeAffinity "Matches added affinity and Pod's node affinity",
  "Matches added affinity but not Pod's node affinity", "Doesn't match added affinity";
  TestNodeAffinityPriority "added affinity", "added affinity and pod has default affinity".
* interpodaffinity scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight
  (hardPodAffinityWeight 1 and 0) and TestPreferredAffinity's
  ignorePreferredTermsOfExistingPods cases.
* podtopologyspread filtering_test.go TestPreFilterState "default constraints and a
  service", "... that doesn't match", "... but pod has constraints", "default soft
  constraints and a service" (real Services in the input); plus List defaulting through
  Filter and Score with a given default selector.
* balanced_allocation_test.go with custom ``resources`` (an extended resource).

Each plugin is built from a configuration document (``parse_scheduler_config``), so the
arguments go through upstream's defaulting and validation first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from upstream_harness import UNRES, build, run_filter, run_score, up_node, up_pod

from kubepreempt.api.selectors import LabelSelector
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.plugins import pod_topology_spread
from kubepreempt.scheduler.plugins.node_affinity import ERR_REASON, ERR_REASON_ENFORCED

V1 = "kubescheduler.config.k8s.io/v1"


def plugin_from(name: str, args: dict[str, Any]) -> Any:
    """The ``name`` plugin of a one-profile configuration with these args."""
    config = parse_scheduler_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                     "profiles": [{"pluginConfig": [{"name": name,
                                                                     "args": args}]}]})
    profile = config.profiles[0]
    return next(p for p in [*profile.filters, *profile.scorers] if p.name == name)


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


ADDED_NODE1 = {"addedAffinity": required({"matchFields": [expr("metadata.name", "In",
                                                                "node1")]})}


def zone_pod(zone: str) -> dict[str, Any]:
    return up_pod("p", spec={"affinity": {"nodeAffinity": required(
        {"matchExpressions": [expr("zone", "In", zone)]})}})


@pytest.mark.parametrize(("pod", "args", "node", "want"), [
    (zone_pod("foo"), ADDED_NODE1, "node1", None),
    (zone_pod("bar"), ADDED_NODE1, "node1", ERR_REASON),
    (up_pod("p"), ADDED_NODE1, "node2", ERR_REASON_ENFORCED),
], ids=["Matches added affinity and Pod's node affinity",
        "Matches added affinity but not Pod's node affinity",
        "Doesn't match added affinity"])
def test_node_affinity_added_affinity_filter(pod, args, node, want) -> None:
    plugin = plugin_from("NodeAffinity", args)
    status = run_filter(plugin, pod, [up_node(node, {"zone": "foo"})])[node]
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNRES, (want,))


def test_node_affinity_added_required_checked_before_the_pods_own() -> None:
    """Both fail: the scheduler-enforced reason is the one reported (checked first)."""
    plugin = plugin_from("NodeAffinity", ADDED_NODE1)
    status = run_filter(plugin, zone_pod("bar"), [up_node("node2", {"zone": "foo"})])["node2"]
    assert status.reasons == (ERR_REASON_ENFORCED,)


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 2, "preference": {"matchExpressions": [expr("foo", "In", "bar")]}}]}


def test_node_affinity_priority_added_affinity() -> None:
    plugin = plugin_from("NodeAffinity", {"addedAffinity": AFFINITY1})
    nodes = [up_node("node1", LABEL1), up_node("node2", LABEL2)]
    assert run_score(plugin, up_pod("p"), nodes) == {"node1": 100, "node2": 0}


def test_node_affinity_priority_added_affinity_and_pod_has_default_affinity() -> None:
    plugin = plugin_from("NodeAffinity", {"addedAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 3, "preference": {"matchExpressions": [expr("key", "In", "value")]}}]}})
    pod = up_pod("p", spec={"affinity": {"nodeAffinity": AFFINITY1}})
    nodes = [up_node("node1", LABEL1), up_node("node2", LABEL2), up_node("node3", LABEL5)]
    assert run_score(plugin, pod, nodes) == {"node1": 40, "node2": 60, "node3": 100}


# ---- InterPodAffinity ---------------------------------------------------------------------
HARD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchExpressions": [expr("service", "In", "S1")]},
     "topologyKey": "region"}]}}
NODES_3 = [up_node("node1", {"region": "China"}), up_node("node2", {"region": "India"}),
           up_node("node3", {"az": "az1"})]


@pytest.mark.parametrize(("weight", "want"), [
    (1, {"node1": 100, "node2": 100, "node3": 0}),
    (0, {"node1": 0, "node2": 0, "node3": 0}),
], ids=["hard pod affinity symmetry weights 1 by default",
        "hard pod affinity symmetry is closed(weights 0)"])
def test_hard_pod_affinity_symmetric_weight(weight: int, want: dict[str, int]) -> None:
    plugin = plugin_from("InterPodAffinity", {"hardPodAffinityWeight": weight})
    pod = up_pod("p", {"service": "S1"})
    existing = [up_pod("e1", node="node1", spec={"affinity": HARD_AFFINITY}),
                up_pod("e2", node="node2", spec={"affinity": HARD_AFFINITY})]
    assert run_score(plugin, pod, NODES_3, existing) == want


STAY_WITH_S1 = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 5, "podAffinityTerm": {
        "labelSelector": {"matchExpressions": [expr("security", "In", "S1")]},
        "topologyKey": "region"}}]}}


@pytest.mark.parametrize(("ignore", "want"), [
    (False, {"node1": 100, "node2": 0}),
    (True, {"node1": 0, "node2": 0}),
])
def test_ignore_preferred_terms_of_existing_pods(ignore: bool, want: dict[str, int]) -> None:
    """An existing pod's preferred affinity towards the incoming pod counts (symmetry)
    unless ignorePreferredTermsOfExistingPods, when the incoming pod has no terms."""
    plugin = plugin_from("InterPodAffinity", {"ignorePreferredTermsOfExistingPods": ignore})
    pod = up_pod("p", {"security": "S1"})
    nodes = [up_node("node1", {"region": "China"}), up_node("node2", {"region": "India"})]
    existing = [up_pod("e1", node="node1", spec={"affinity": STAY_WITH_S1})]
    assert run_score(plugin, pod, nodes, existing) == want


def test_ignore_preferred_terms_keeps_the_incoming_pods_own_terms() -> None:
    plugin = plugin_from("InterPodAffinity", {"ignorePreferredTermsOfExistingPods": True})
    pod = up_pod("p", {"security": "S1"}, spec={"affinity": STAY_WITH_S1})
    nodes = [up_node("node1", {"region": "China"}), up_node("node2", {"region": "India"})]
    existing = [up_pod("e1", {"security": "S1"}, node="node1")]
    assert run_score(plugin, pod, nodes, existing) == {"node1": 100, "node2": 0}


# ---- PodTopologySpread List defaulting ---------------------------------------------------
@pytest.fixture
def default_selector(monkeypatch):
    """Set what ``helper.DefaultSelector`` returns for every pod (computing it from the
    input's Services and controllers is ``default_selector``'s job, not the plugin's)."""
    def use(selector: LabelSelector | None) -> None:
        monkeypatch.setattr(pod_topology_spread, "default_selector",
                            lambda _pod, _cluster: selector)
    return use


LIST_ARGS = {"defaultingType": "List", "defaultConstraints": [
    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}
APP = LabelSelector.parse({"matchLabels": {"app": "web"}})
ZONE_NODES = [up_node("a1", {"zone": "a"}), up_node("b1", {"zone": "b"})]
TWO_IN_A = [up_pod("w1", {"app": "web"}, node="a1"), up_pod("w2", {"app": "web"}, node="a1")]


def _spread_filter(plugin, pod) -> dict[str, Any]:
    cluster, _p, state = build(pod, ZONE_NODES, TWO_IN_A)
    if not plugin.relevant(state):
        return {"a1": None, "b1": None}
    status = plugin.pre_filter(state)
    if status is not None:
        return {"a1": None, "b1": None}  # Skip
    return {n: plugin.filter(state, cluster.node_view(cluster.node_index[n]))
            for n in ("a1", "b1")}


def test_list_default_constraints_apply_to_pods_without_constraints(default_selector) -> None:
    default_selector(APP)
    plugin = plugin_from("PodTopologySpread", LIST_ARGS)
    got = _spread_filter(plugin, up_pod("p", {"app": "web"}))
    assert got["b1"] is None
    assert got["a1"] is not None and got["a1"].reasons == (
        "node(s) didn't match pod topology spread constraints",)


def test_no_default_selector_means_no_default_constraints(default_selector) -> None:
    default_selector(None)
    plugin = plugin_from("PodTopologySpread", LIST_ARGS)
    assert _spread_filter(plugin, up_pod("p", {"app": "web"})) == {"a1": None, "b1": None}


def test_pods_own_constraints_win_over_list_defaults(default_selector) -> None:
    default_selector(APP)
    plugin = plugin_from("PodTopologySpread", LIST_ARGS)
    own = up_pod("p", {"app": "web"}, spec={"topologySpreadConstraints": [
        {"maxSkew": 5, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}}]})
    assert _spread_filter(plugin, own) == {"a1": None, "b1": None}


def test_system_defaulting_ignores_the_list(default_selector) -> None:
    default_selector(APP)
    plugin = plugin_from("PodTopologySpread", {})
    assert _spread_filter(plugin, up_pod("p", {"app": "web"})) == {"a1": None, "b1": None}


def test_list_default_soft_constraint_scores(default_selector) -> None:
    default_selector(APP)
    plugin = plugin_from("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]})
    _cluster, _p, state = build(up_pod("p", {"app": "web"}), ZONE_NODES, TWO_IN_A)
    assert plugin.score_relevant(state)
    idx = np.array([0, 1], np.int64)
    plugin.pre_score(state, idx)
    # zone a holds 2 matching pods, zone b none: weight log(2+2); a: 2*1.386=3 (rounded),
    # b: 0; normalised 100 * (3 + 0 - s) / 3.
    assert plugin.score(state, idx).tolist() == [0, 100]


# ---- BalancedAllocation resources --------------------------------------------------------
def test_balanced_allocation_with_an_extended_resource() -> None:
    """Three fractions: the population standard deviation (balanced_allocation_test.go
    "resources requested, pods scheduled with resources, extended resource")."""
    plugin = plugin_from("NodeResourcesBalancedAllocation", {"resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
        {"name": "nvidia.com/gpu", "weight": 1}]})
    nodes = [up_node("node1", alloc={"cpu": "3500m", "memory": "40000", "nvidia.com/gpu": "8",
                                     "pods": "110"})]
    pod = up_pod("p", containers=[{"name": "c", "image": "x", "resources": {"requests": {
        "cpu": "1000m", "memory": "2000", "nvidia.com/gpu": "4"}}}])
    # before: no requests, fractions 0,0,0 -> 100; after: 1/3.5, 0.05, 0.5:
    # mean 0.2786, std sqrt(((0.0071)^2 + (0.2286)^2 + (0.2214)^2)/3) = 0.1838 -> 81;
    # (150 + 81 - 100) // 2 = 65.
    assert run_score(plugin, pod, nodes) == {"node1": 65}


def test_list_defaults_need_every_topology_key(default_selector) -> None:
    """Unlike system defaults (requireAllTopologies false), List defaults ignore a node
    without the topology key: it scores 0 (x1), where the system defaults would give it
    the best score."""
    default_selector(APP)
    plugin = plugin_from("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]})
    nodes = [*ZONE_NODES, up_node("x1", {})]
    _cluster, _p, state = build(up_pod("p", {"app": "web"}), nodes, TWO_IN_A)
    idx = np.array([0, 1, 2], np.int64)
    plugin.pre_score(state, idx)
    # a1: 2 pods * log(2 + 2) = 2.77 -> 3; b1: 0; normalised over the max 3: 0 and 100.
    assert plugin.score(state, idx).tolist() == [0, 100, 0]


def test_list_defaults_are_built_only_for_pods_without_constraints(default_selector) -> None:
    default_selector(APP)
    defaults = (pod_topology_spread.DefaultConstraint(1, "zone", "DoNotSchedule"),)
    own = up_pod("p", {"app": "web"}, spec={"topologySpreadConstraints": [
        {"maxSkew": 5, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}}]})
    cluster, pod, _ = build(own, ZONE_NODES)
    assert pod_topology_spread.list_defaults(pod, cluster, defaults) == ()
    cluster, pod, _ = build(up_pod("q", {"app": "web"}), ZONE_NODES)
    (built,) = pod_topology_spread.list_defaults(pod, cluster, defaults)
    assert (built.max_skew, built.topology_key, built.selector) == (1, "zone", APP)


# filtering_test.go TestPreFilterState, the "default constraints" cases, with real Services
# (``helper.DefaultSelector`` reads the input's Services and controllers).
def service(selector: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "svc", "namespace": "default"}, "spec": {"selector": selector}}


def _prefilter_constraints(args: dict, pod: dict, objs: list[dict]):
    plugin = plugin_from("PodTopologySpread", {"defaultingType": "List",
                                               "defaultConstraints": args})
    nodes = [up_node("n1", {"node": "n1", "rack": "r1", "zone": "z1", "planet": "p"})]
    _cluster, _pod, state = build(pod, nodes, objs)
    if not plugin.relevant(state) or plugin.pre_filter(state) is not None:
        return []
    s = state.data["PodTopologySpread"]
    return [(c.max_skew, c.topology_key, c.selector, c.min_domains, c.node_affinity_policy,
             c.node_taints_policy) for c in s.constraints]


FOO_BAR = LabelSelector.parse({"matchLabels": {"foo": "bar"}})


def test_prefilter_default_constraints_and_a_service() -> None:
    got = _prefilter_constraints(
        [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
         {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway"},
         {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"}],
        up_pod("p", {"foo": "bar", "baz": "kar"}), [service({"foo": "bar"})])
    assert got == [(3, "node", FOO_BAR, 1, "Honor", "Ignore"),
                   (5, "rack", FOO_BAR, 1, "Honor", "Ignore")]


def test_prefilter_default_constraints_and_a_service_that_does_not_match() -> None:
    got = _prefilter_constraints(
        [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}],
        up_pod("p", {"foo": "bar"}), [service({"baz": "kep"})])
    assert got == []


def test_prefilter_default_constraints_and_a_service_but_pod_has_constraints() -> None:
    pod = up_pod("p", {"foo": "bar", "baz": "tar"}, spec={"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"baz": "tar"}}},
        {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"fot": "rok"}}}]})
    got = _prefilter_constraints(
        [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}],
        pod, [service({"foo": "bar"})])
    assert got == [(1, "zone", LabelSelector.parse({"matchLabels": {"baz": "tar"}}), 1,
                    "Honor", "Ignore")]


def test_prefilter_default_soft_constraints_and_a_service() -> None:
    got = _prefilter_constraints(
        [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway"}],
        up_pod("p", {"foo": "bar"}), [service({"foo": "bar"})])
    assert got == []
