"""KubeSchedulerConfiguration defaulting and profile building.

Ported: pkg/scheduler/apis/config/v1/defaults_test.go TestSchedulerDefaults ("empty
config", "no scheduler name", "two profiles" — the merged plugin sets and the default
plugin args, "set non default parallelism", "set non default global/profile
percentageOfNodesToScore", "unknown plugin config") and TestPluginArgsDefaults (the args
kubepreempt reads); default_plugins_test.go TestMergePlugins' disable/"*"/re-configure cases;
frameworkruntime TestNewFrameworkMultiPointExpansion's ordering and score-weight cases.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.config.defaults import (
    DEFAULT_MULTI_POINT,
    default_args,
    merge_plugin_set,
    set_defaults,
)

V1 = "kubescheduler.config.k8s.io/v1"
DEFAULT_PLUGIN_NAMES = [n for n, _w in DEFAULT_MULTI_POINT]


def cfg(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": V1, "kind": "KubeSchedulerConfiguration", **fields}


def test_empty_config() -> None:
    out = set_defaults({})
    assert out["parallelism"] == 16
    assert out["percentageOfNodesToScore"] == 0
    assert (out["podInitialBackoffSeconds"], out["podMaxBackoffSeconds"]) == (1, 10)
    (profile,) = out["profiles"]
    assert profile["schedulerName"] == "default-scheduler"
    assert [p["name"] for p in profile["plugins"]["multiPoint"]["enabled"]] == \
        DEFAULT_PLUGIN_NAMES
    weights = {p["name"]: p.get("weight") for p in profile["plugins"]["multiPoint"]["enabled"]}
    assert weights["TaintToleration"] == 3 and weights["NodeAffinity"] == 2
    assert weights["PodTopologySpread"] == 2 and weights["InterPodAffinity"] == 2
    assert weights["NodeResourcesFit"] == 1 and weights["ImageLocality"] == 1
    args = {c["name"]: c["args"] for c in profile["pluginConfig"]}
    # pluginConfigs: one entry per default plugin with an Args kind, sorted by name.
    assert list(args) == ["DefaultPreemption", "DynamicResources", "InterPodAffinity",
                          "NodeAffinity", "NodeResourcesBalancedAllocation",
                          "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"]
    assert args["DefaultPreemption"]["minCandidateNodesPercentage"] == 10
    assert args["DefaultPreemption"]["minCandidateNodesAbsolute"] == 100
    assert args["InterPodAffinity"]["hardPodAffinityWeight"] == 1
    assert args["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1},
                                                {"name": "memory", "weight": 1}]}
    assert args["PodTopologySpread"]["defaultingType"] == "System"
    assert args["VolumeBinding"]["bindTimeoutSeconds"] == 600


def test_no_scheduler_name_single_profile_gets_default() -> None:
    assert set_defaults({"profiles": [{}]})["profiles"][0]["schedulerName"] == \
        "default-scheduler"


def test_two_profiles() -> None:
    out = set_defaults({"parallelism": 16, "profiles": [
        {"pluginConfig": [{"name": "FooPlugin"}]},
        {"schedulerName": "custom-scheduler", "plugins": {"bind": {
            "enabled": [{"name": "BarPlugin"}], "disabled": [{"name": "DefaultBinder"}]}}}]})
    first, second = out["profiles"]
    # Only a single profile gets the default name; validation then requires one.
    assert "schedulerName" not in first or first["schedulerName"] is None
    assert [c["name"] for c in first["pluginConfig"]][0] == "FooPlugin"
    assert second["plugins"]["bind"] == {"enabled": [{"name": "BarPlugin"}],
                                         "disabled": [{"name": "DefaultBinder"}]}
    assert [p["name"] for p in second["plugins"]["multiPoint"]["enabled"]] == \
        DEFAULT_PLUGIN_NAMES


def test_non_default_parallelism_and_percentages() -> None:
    out = set_defaults({"parallelism": 8, "percentageOfNodesToScore": 50,
                        "profiles": [{"percentageOfNodesToScore": 50}]})
    assert out["parallelism"] == 8
    assert out["percentageOfNodesToScore"] == 50
    assert out["profiles"][0]["percentageOfNodesToScore"] == 50


def test_unknown_plugin_config_is_kept_as_is() -> None:
    out = set_defaults({"profiles": [{"pluginConfig": [{"name": "Foo", "args": {"x": 1}}]}]})
    assert out["profiles"][0]["pluginConfig"][0] == {"name": "Foo", "args": {"x": 1}}


@pytest.mark.parametrize(("name", "given", "want"), [
    ("DefaultPreemption", {}, {"minCandidateNodesPercentage": 10,
                               "minCandidateNodesAbsolute": 100}),
    ("DefaultPreemption", {"minCandidateNodesPercentage": 50},
     {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100}),
    ("InterPodAffinity", {}, {"hardPodAffinityWeight": 1}),
    ("InterPodAffinity", {"hardPodAffinityWeight": 0}, {"hardPodAffinityWeight": 0}),
    ("InterPodAffinity", {"hardPodAffinityWeight": 5}, {"hardPodAffinityWeight": 5}),
    ("NodeResourcesBalancedAllocation", {}, {"resources": [{"name": "cpu", "weight": 1},
                                                           {"name": "memory", "weight": 1}]}),
    ("NodeResourcesBalancedAllocation", {"resources": [{"name": "scalar.io/scalar1",
                                                        "weight": 1}]},
     {"resources": [{"name": "scalar.io/scalar1", "weight": 1}]}),
    ("NodeResourcesBalancedAllocation",
     {"resources": [{"name": "cpu"}, {"name": "scalar.io/scalar0"},
                    {"name": "scalar.io/scalar1", "weight": 1}]},
     {"resources": [{"name": "cpu", "weight": 1}, {"name": "scalar.io/scalar0", "weight": 1},
                    {"name": "scalar.io/scalar1", "weight": 1}]}),
    ("PodTopologySpread", {}, {"defaultingType": "System"}),
    ("PodTopologySpread", {"defaultConstraints": [{"topologyKey": "planet",
                                                   "whenUnsatisfiable": "DoNotSchedule",
                                                   "maxSkew": 2}]},
     {"defaultConstraints": [{"topologyKey": "planet", "whenUnsatisfiable": "DoNotSchedule",
                              "maxSkew": 2}], "defaultingType": "System"}),
    ("NodeResourcesFit", {}, {"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}),
    ("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated"}},
     {"scoringStrategy": {"type": "MostAllocated", "resources": [
         {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}),
])
def test_plugin_args_defaults(name: str, given: dict, want: dict) -> None:
    got = default_args(name, given)
    assert got is not None
    assert {k: v for k, v in got.items() if k not in ("kind", "apiVersion")} == want


# ---- mergePluginSet (default_plugins_test.go TestMergePlugins) ----------------------------
def names(plugin_set: dict) -> list[str]:
    return [p["name"] for p in plugin_set.get("enabled", [])]


DEFAULT_SET = {"enabled": [{"name": "A"}, {"name": "B", "weight": 2}, {"name": "C"}]}


def test_disable_one_default_plugin() -> None:
    out = merge_plugin_set(DEFAULT_SET, {"disabled": [{"name": "B"}]})
    assert names(out) == ["A", "C"]
    assert out["disabled"] == [{"name": "B"}]


def test_disable_all_with_star_keeps_only_custom() -> None:
    out = merge_plugin_set(DEFAULT_SET, {"enabled": [{"name": "X"}, {"name": "A"}],
                                         "disabled": [{"name": "*"}]})
    assert names(out) == ["X", "A"]


def test_reconfigured_default_keeps_its_position() -> None:
    out = merge_plugin_set(DEFAULT_SET, {"enabled": [{"name": "X"}, {"name": "B", "weight": 7}]})
    assert out["enabled"] == [{"name": "A"}, {"name": "B", "weight": 7}, {"name": "C"},
                              {"name": "X"}]


# ---- building profiles (NewFramework: multiPoint expansion, score weights) ---------------
def profile_of(**profile: Any):
    return parse_scheduler_config(cfg(profiles=[profile])).profiles[0]


def test_default_profile_matches_upstream_order() -> None:
    p = profile_of()
    assert [f.name for f in p.filters] == ["NodeUnschedulable", "NodeName", "TaintToleration",
                                           "NodeAffinity", "NodePorts", "NodeResourcesFit",
                                           "PodTopologySpread", "InterPodAffinity"]
    assert [(s.name, s.weight) for s in p.scorers] == [
        ("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
        ("PodTopologySpread", 2), ("InterPodAffinity", 2),
        ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1)]
    assert p.preemption and p.dynamic_resources


def test_score_entry_weight_wins_over_multipoint_and_zero_means_one() -> None:
    p = profile_of(plugins={"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 5},
                                                  {"name": "ImageLocality", "weight": 0}]}})
    weights = {s.name: s.weight for s in p.scorers}
    assert weights["NodeResourcesFit"] == 5
    assert weights["ImageLocality"] == 1


def test_score_point_override_comes_first() -> None:
    """A multiPoint plugin also listed at the extension point is moved to the front."""
    p = profile_of(plugins={"score": {"enabled": [{"name": "ImageLocality", "weight": 4}]}})
    assert p.scorers[0].name == "ImageLocality" and p.scorers[0].weight == 4


def test_disable_at_one_point_keeps_the_other() -> None:
    p = profile_of(plugins={"score": {"disabled": [{"name": "NodeAffinity"}]}})
    assert "NodeAffinity" not in [s.name for s in p.scorers]
    assert "NodeAffinity" in [f.name for f in p.filters]


def test_disable_all_scorers() -> None:
    p = profile_of(plugins={"score": {"disabled": [{"name": "*"}]}})
    assert p.scorers == []
    assert len(p.filters) == 8


def test_default_preemption_disabled() -> None:
    p = profile_of(plugins={"multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}})
    assert not p.preemption and p.dynamic_resources
    p = profile_of(plugins={"postFilter": {"disabled": [{"name": "*"}]}})
    assert not p.preemption and not p.dynamic_resources


def test_same_instance_filters_and_scores() -> None:
    p = profile_of()
    fit_f = next(f for f in p.filters if f.name == "NodeResourcesFit")
    fit_s = next(s for s in p.scorers if s.name == "NodeResourcesFit")
    assert fit_f is fit_s


@pytest.mark.parametrize(("plugins", "message"), [
    ({"multiPoint": {"enabled": [{"name": "Coscheduling"}]}},
     'plugin "Coscheduling" is enabled but not an in-tree plugin'),
    ({"filter": {"enabled": [{"name": "VolumeBinding"}]}},
     'plugin "VolumeBinding" is enabled but an in-tree plugin kubepreempt does not model'),
    ({"multiPoint": {"enabled": [{"name": "DynamicResources"}]}},
     'plugin "DynamicResources" is enabled but an in-tree plugin kubepreempt does not model'),
    ({"filter": {"enabled": [{"name": "ImageLocality"}]}},
     'plugin "ImageLocality" does not extend FilterPlugin plugin'),
    ({"filter": {"enabled": [{"name": "NodeName"}, {"name": "NodeName"}]}},
     'plugin "NodeName" already registered as "FilterPlugin"'),
    ({"queueSort": {"disabled": [{"name": "*"}]}, "multiPoint": {"disabled": [{"name": "*"}]}},
     'only one queue sort plugin required for profile with scheduler name '
     '"default-scheduler", but got 0'),
    ({"bind": {"disabled": [{"name": "DefaultBinder"}]}},
     'at least one bind plugin is needed for profile with scheduler name "default-scheduler"'),
])
def test_framework_errors(plugins: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        profile_of(plugins=plugins)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_unmodelled_plugins_only_disabled_are_fine() -> None:
    p = profile_of(plugins={"multiPoint": {"disabled": [{"name": "VolumeBinding"},
                                                        {"name": "Coscheduling"}]}})
    assert p.preemption


def test_two_profiles_serve_their_names() -> None:
    config = parse_scheduler_config(cfg(profiles=[
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "batch", "plugins": {"multiPoint": {"disabled": [
            {"name": "DefaultPreemption"}]}}}]))
    assert config.scheduler_names == ["default-scheduler", "batch"]
    assert config.profiles[0].preemption and not config.profiles[1].preemption


def test_percentage_of_nodes_to_score_per_profile_and_global() -> None:
    config = parse_scheduler_config(cfg(percentageOfNodesToScore=30, profiles=[
        {"schedulerName": "a"}, {"schedulerName": "b", "percentageOfNodesToScore": 70}]))
    a, b = config.profiles
    assert a.nodes_to_find(1000) == 300
    assert b.nodes_to_find(1000) == 700


@pytest.mark.parametrize(("nodes", "global_pct", "profile_pct", "want"), [
    (10, None, None, 10),        # not set, nodes number not more than 50
    (10, None, 40, 10),          # set profile, nodes number not more than 50
    (1000, None, None, 420),     # not set, more than 50: 50 - 1000/125 = 42%
    (1000, None, 40, 400),       # set profile
    (1000, 100, 40, 400),        # set global and profile: the profile's wins
    (1000, 40, None, 400),       # set global
    (6000, None, None, 300),     # not set, more than 50*125: the 5% floor
    (6000, None, 40, 2400),      # set profile, more than 50*125
])
def test_num_feasible_nodes_to_find(nodes: int, global_pct, profile_pct, want: int) -> None:
    """schedule_one_test.go TestNumFeasibleNodesToFind."""
    top: dict[str, Any] = {} if global_pct is None else {"percentageOfNodesToScore": global_pct}
    profile = {} if profile_pct is None else {"percentageOfNodesToScore": profile_pct}
    p = parse_scheduler_config(cfg(**top, profiles=[profile])).profiles[0]
    assert p.nodes_to_find(nodes) == want
