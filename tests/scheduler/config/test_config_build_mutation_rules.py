"""Reading a KubeSchedulerConfiguration end to end: decoding checks, strict decoding and the
profiles built, on the rules the older tests left unpinned.

Upstream references: kube-scheduler decodes ``--config`` strictly (``strict decoding error:
unknown field "<path>"``, several joined by ", "), ``frameworkruntime.NewFramework``
builds each profile (``updatePluginList``, ``expandMultiPointPlugins``'s three-part
order, ``getScoreWeights``), ``NodeResourcesFit``'s ``NewFit`` reads its scoring strategy
(``RequestedToCapacityRatio`` shape points; an omitted utilization or score is Go's 0).
Decoding type errors and the refusal of unmodelled plugins are kubepreempt's own one-line
messages (upstream refuses such a file while decoding, with Go's wording).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubepreempt.api.errors import InputError, Source
from kubepreempt.scheduler.config import (
    load_scheduler_config,
    parse_scheduler_config,
    use_scheduler_config,
)
from kubepreempt.scheduler.config.build import ProfileError, check_implemented, expand_point
from kubepreempt.scheduler.config.strict import unknown_fields

V1 = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"


def doc(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": V1, "kind": KIND, **fields}


def error_of(raw: dict[str, Any]) -> str:
    with pytest.raises(InputError) as err:
        parse_scheduler_config(raw)
    return str(err.value)


def plugin_of(cfg, name: str):
    profile = cfg.profiles[0]
    return next(p for p in [*profile.filters, *profile.scorers] if p.name == name)


# ---- kind, version, source ---------------------------------------------------------------
def test_wrong_kind_names_it() -> None:
    assert error_of({"apiVersion": V1, "kind": "Pod"}) == \
        "KubeSchedulerConfiguration: expected kind KubeSchedulerConfiguration, got 'Pod'"


def test_old_version_and_disable_preemption_messages() -> None:
    """componentconfig's disablePreemption became the DefaultPreemption plugin in v1."""
    base = {"kind": KIND, "apiVersion": "kubescheduler.config.k8s.io/v1beta3"}
    assert error_of(base) == (
        "KubeSchedulerConfiguration: apiVersion 'kubescheduler.config.k8s.io/v1beta3' is not "
        "supported: kubepreempt reads kubescheduler.config.k8s.io/v1 (the only version "
        "kube-scheduler 1.36 accepts)")
    assert error_of({**base, "disablePreemption": True}).endswith(
        "accepts); disablePreemption is gone: disable the DefaultPreemption plugin "
        "(plugins.multiPoint.disabled)")
    assert error_of(doc(disablePreemption=True)) == (
        "KubeSchedulerConfiguration: disablePreemption is not a v1 field: disable the "
        "DefaultPreemption plugin (plugins.multiPoint.disabled)")


def test_errors_name_the_source_and_the_result_keeps_it() -> None:
    src = Source("sched.yaml", 1)
    with pytest.raises(InputError) as err:
        parse_scheduler_config(doc(parallelism=0), src)
    assert str(err.value).startswith("sched.yaml, document 2: KubeSchedulerConfiguration: ")
    cfg = parse_scheduler_config(doc(percentageOfNodesToScore=40), src)
    assert cfg.source == src
    assert cfg.percentage_of_nodes_to_score == 40
    assert cfg.defaulted["parallelism"] == 16  # SetDefaults_KubeSchedulerConfiguration


def test_load_needs_exactly_one_configuration(tmp_path) -> None:
    empty = tmp_path / "none.yaml"
    empty.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    with pytest.raises(InputError) as err:
        load_scheduler_config(str(empty))
    assert str(err.value) == (f"{empty}: --scheduler-config: expected exactly one "
                              "KubeSchedulerConfiguration document, found 0")
    good = tmp_path / "one.yaml"
    good.write_text(f"apiVersion: {V1}\nkind: {KIND}\n")
    cfg = load_scheduler_config(str(good))
    assert cfg.source is not None and cfg.source.path == str(good)


def test_use_scheduler_config_samples_only_when_asked(tmp_path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"apiVersion: {V1}\nkind: {KIND}\n")
    cluster = SimpleNamespace(scheduler_config=None)
    use_scheduler_config(cluster, str(path))
    assert cluster.scheduler_config is not None
    assert cluster.scheduler_config.sample_nodes is False


def test_required_has_no_detail_of_its_own() -> None:
    """``field.Required(path, "")`` prints just ``<path>: Required value``."""
    text = error_of(doc(profiles=[{"schedulerName": "a"}, {}]))
    assert text == "KubeSchedulerConfiguration: profiles[1].schedulerName: Required value"


# ---- decoding type checks (kubepreempt's wording) -------------------------------------------
@pytest.mark.parametrize(("fields", "want"), [
    ({"percentageOfNodesToScore": "x"}, "percentageOfNodesToScore: must be an integer, got 'x'"),
    ({"podInitialBackoffSeconds": "x"}, "podInitialBackoffSeconds: must be an integer, got 'x'"),
    ({"podMaxBackoffSeconds": 1.5}, "podMaxBackoffSeconds: must be an integer, got 1.5"),
    ({"profiles": {"a": 1}}, "profiles: must be a list"),
    ({"profiles": [{"percentageOfNodesToScore": "x"}]},
     "profiles[0].percentageOfNodesToScore: must be an integer"),
    ({"profiles": [{"plugins": ["NodeName"]}]}, "profiles[0].plugins: must be a mapping"),
    ({"profiles": [{"plugins": {"filter": None, "score": 5}}]},
     "profiles[0].plugins.score: must be a mapping"),
    ({"profiles": [{"plugins": {"filter": {"enabled": ["NodeName"]}}}]},
     "profiles[0].plugins.filter.enabled[0]: needs a name"),
    ({"profiles": [{"plugins": {"filter": {"disabled": [{"weight": 1}]}}}]},
     "profiles[0].plugins.filter.disabled[0]: needs a name"),
    ({"profiles": [{"plugins": {"score": {"enabled": [{"name": "ImageLocality",
                                                       "weight": "x"}]}}}]},
     "profiles[0].plugins.score.enabled[0].weight: must be an integer"),
    ({"profiles": [{"pluginConfig": ["NodeAffinity"]}]},
     "profiles[0].pluginConfig[0]: needs a name"),
    ({"profiles": [{"pluginConfig": [{"args": {}}]}]},
     "profiles[0].pluginConfig[0]: needs a name"),
    ({"profiles": [{"pluginConfig": [{"name": "NodeAffinity", "args": [1]}]}]},
     "profiles[0].pluginConfig[0].args: must be a mapping"),
])
def test_decoding_type_errors(fields: dict, want: str) -> None:
    assert error_of(doc(**fields)) == f"KubeSchedulerConfiguration: {want}"


def test_a_null_extension_point_is_fine() -> None:
    cfg = parse_scheduler_config(doc(profiles=[{"plugins": {"filter": None}}]))
    assert cfg.scheduler_names == ["default-scheduler"]


def test_malformed_value_met_while_building() -> None:
    """A default constraint whose minDomains is not a number passes validation (upstream's
    decoder refuses it) and fails when the plugin is built."""
    args = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "minDomains": "x"}]}
    text = error_of(doc(profiles=[{"pluginConfig": [{"name": "PodTopologySpread",
                                                     "args": args}]}]))
    assert text.startswith("KubeSchedulerConfiguration: malformed configuration: ")


# ---- strict decoding -----------------------------------------------------------------------
def test_unknown_fields_everywhere_in_document_order() -> None:
    raw = doc(extra=1, profiles=[{
        "schedulerNam": "x",
        "plugins": {"filter": {"enabledd": [], "enabled": [{"name": "NodeName", "wieght": 1}],
                               "disabled": [{"name": "NodePorts", "x": 1}]}},
        "pluginConfig": [{"name": "DefaultPreemption", "argz": {}},
                         {"name": "DefaultPreemption", "args": {"minCandidates": 1}}]}])
    assert unknown_fields(raw) == [
        "extra", "profiles[0].schedulerNam", "profiles[0].plugins.filter.enabledd",
        "profiles[0].plugins.filter.enabled[0].wieght",
        "profiles[0].plugins.filter.disabled[0].x", "profiles[0].pluginConfig[0].argz",
        "minCandidates"]
    assert error_of(doc(extra=1, other=2)) == ('KubeSchedulerConfiguration: strict decoding '
                                               'error: unknown field "extra", unknown field '
                                               '"other"')


def test_unknown_fields_of_the_args_kubepreempt_reads() -> None:
    """Args are decoded on their own: paths relative to ``args``; only the in-tree kinds'
    own nested structs are checked (a field of another kind's name is just unknown)."""
    raw = doc(profiles=[{"pluginConfig": [
        {"name": "NodeResourcesFit", "args": {
            "ignoredResources": [], "x": 1,
            "scoringStrategy": {"type": "RequestedToCapacityRatio", "y": 1,
                                "resources": [{"name": "cpu", "weight": 1, "z": 1}],
                                "requestedToCapacityRatio": {"shape": [], "w": 1}},
            "resources": [{"name": "cpu", "q": 1}]}},
        {"name": "NodeResourcesBalancedAllocation", "args": {
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "r": 1}]}},
        {"name": "DefaultPreemption", "args": {"scoringStrategy": {"s": 1}}}]}])
    assert unknown_fields(raw) == [
        "x", "resources", "scoringStrategy.y", "scoringStrategy.resources[0].z",
        "scoringStrategy.requestedToCapacityRatio.w", "resources[1].r", "scoringStrategy"]


# ---- building profiles -------------------------------------------------------------------
def test_fit_strategy_and_ignored_resources_reach_the_plugin() -> None:
    """NewFit: the strategy type, resources with weights, RequestedToCapacityRatio's shape
    points (omitted fields are 0) and the ignored resources and groups."""
    cfg = parse_scheduler_config(doc(profiles=[{"pluginConfig": [{
        "name": "NodeResourcesFit", "args": {
            "ignoredResources": ["example.com/foo"], "ignoredResourceGroups": ["example.org"],
            "scoringStrategy": {"type": "RequestedToCapacityRatio",
                                "resources": [{"name": "cpu", "weight": 3}],
                                "requestedToCapacityRatio": {"shape": [
                                    {"score": 2}, {"utilization": 50},
                                    {"utilization": 100, "score": 10}]}}}}]}]))
    fit = plugin_of(cfg, "NodeResourcesFit")
    assert fit.scoring.type == "RequestedToCapacityRatio"
    assert fit.scoring.resources == (("cpu", 3),)
    assert fit.scoring.shape == ((0, 2), (50, 0), (100, 10))
    assert fit.ignored_resources == frozenset({"example.com/foo"})
    assert fit.ignored_groups == frozenset({"example.org"})


def test_fit_default_strategy_has_no_shape() -> None:
    cfg = parse_scheduler_config(doc(profiles=[{"pluginConfig": [{
        "name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]))
    fit = plugin_of(cfg, "NodeResourcesFit")
    assert (fit.scoring.type, fit.scoring.shape) == ("MostAllocated", ())
    assert fit.ignored_resources == frozenset() and fit.ignored_groups == frozenset()


def test_preemption_window_defaults_without_the_plugin() -> None:
    """DefaultPreemptionArgs' defaults (10%, 100) stay the profile's window."""
    cfg = parse_scheduler_config(doc(profiles=[{"plugins": {"multiPoint": {
        "disabled": [{"name": "DefaultPreemption"}]}}}]))
    profile = cfg.profiles[0]
    assert profile.preemption is False
    assert (profile.min_candidate_percentage, profile.min_candidate_absolute) == (10, 100)


def test_expand_point_errors_and_order() -> None:
    """updatePluginList / expandMultiPointPlugins."""
    with pytest.raises(ProfileError, match='^ScorePlugin "Nope" does not exist$'):
        expand_point({"score": {"enabled": [{"name": "Nope"}]}}, "score")
    with pytest.raises(ProfileError, match='^FilterPlugin "Nope" does not exist$'):
        expand_point({"multiPoint": {"enabled": [{"name": "Nope"}]}}, "filter")
    with pytest.raises(ProfileError,
                       match='^plugin "NodeName" already registered as "FilterPlugin"$'):
        expand_point({"multiPoint": {"enabled": [{"name": "NodeName"},
                                                 {"name": "NodeName"}]}}, "filter")
    # Part 1: multiPoint plugins also listed at the point; part 2: the other multiPoint
    # plugins; part 3: the point's own remaining plugins.
    plugins = {"multiPoint": {"enabled": [{"name": "TaintToleration"}, {"name": "NodeName"}]},
               "filter": {"enabled": [{"name": "NodeUnschedulable"},
                                      {"name": "TaintToleration"}]}}
    assert expand_point(plugins, "filter") == ["TaintToleration", "NodeName",
                                               "NodeUnschedulable"]


def test_check_implemented_looks_at_every_enabled_plugin() -> None:
    with pytest.raises(ProfileError) as err:
        check_implemented({"plugins": {"filter": {"enabled": [{"name": "NodeName"},
                                                               {"name": "VolumeZone"}]}}})
    assert str(err.value) == ('plugin "VolumeZone" is enabled but an in-tree plugin '
                              "kubepreempt does not model; disable it or remove it from the "
                              "configuration")


def test_unknown_fields_go_past_a_profile_that_is_not_a_mapping() -> None:
    assert unknown_fields({"profiles": ["x", {"bad": 1}]}) == ["profiles[1].bad"]


def test_check_implemented_names_a_nameless_entry_as_empty() -> None:
    """A plugin entry's Name zero value is ""; it is no in-tree plugin."""
    with pytest.raises(ProfileError) as err:
        check_implemented({"plugins": {"filter": {"enabled": [{}]}}})
    assert str(err.value).startswith('plugin "" is enabled but not an in-tree plugin')


def test_added_affinity_preferred_weights_as_new_preferred_scheduling_terms() -> None:
    """NodeAffinity's New uses ``NewPreferredSchedulingTerms``: a zero-weight term is
    skipped (not an error) and the args' weights are not limited to 1..100 as a pod's
    are (``ValidateNodeAffinityArgs`` only parses the terms)."""
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    cfg = parse_scheduler_config(doc(profiles=[{"pluginConfig": [{
        "name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 0, "preference": term}, {"preference": term},
                {"weight": 150, "preference": term}]}}}]}]))
    plugin = plugin_of(cfg, "NodeAffinity")
    assert [p.weight for p in plugin.added_preferred] == [150]
    assert plugin.added_required is not None and len(plugin.added_required.terms) == 1
    assert plugin_of(parse_scheduler_config(doc()), "NodeAffinity").added_required is None


def test_every_balanced_allocation_resource_is_checked_for_unknown_fields() -> None:
    raw = doc(profiles=[{"pluginConfig": [{"name": "NodeResourcesBalancedAllocation",
                                           "args": {"resources": [{"a": 1}, {"b": 1}]}}]}])
    assert unknown_fields(raw) == ["resources[0].a", "resources[1].b"]


def test_malformed_value_met_while_validating() -> None:
    """A weight given as text fails the range comparison: a one-line error (upstream's
    decoder refuses the string for an int32)."""
    text = error_of(doc(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {
        "hardPodAffinityWeight": "5"}}]}]))
    assert text.startswith("KubeSchedulerConfiguration: malformed configuration: ")


def test_added_affinity_with_only_preferred_terms_has_no_required_selector() -> None:
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    cfg = parse_scheduler_config(doc(profiles=[{"pluginConfig": [{
        "name": "NodeAffinity", "args": {"addedAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": term}]}}}]}]))
    plugin = plugin_of(cfg, "NodeAffinity")
    assert plugin.added_required is None
    assert [p.weight for p in plugin.added_preferred] == [5]
