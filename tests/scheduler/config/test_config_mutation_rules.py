"""Rules of the KubeSchedulerConfiguration reader that the older tables left unpinned.

Each expected answer comes from upstream ``pkg/scheduler/apis/config``: ``v1/defaults.go``
(``SetDefaults_*``), ``validation/validation.go`` (``ValidateKubeSchedulerConfiguration``,
``validateCommonQueueSort``, ``validatePluginConfig``) and
``validation/validation_pluginargs.go`` (the ``Validate*Args`` functions, called with a nil
path as upstream's ``validation_pluginargs_test.go`` does), plus component-helpers'
``nodeaffinity.NewNodeSelector`` / ``NewPreferredSchedulingTerms`` and apimachinery's
``labels.NewRequirement`` for ``NodeAffinityArgs``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.config.defaults import default_args, set_defaults
from kubepreempt.scheduler.config.validation import (
    validate,
    validate_balanced_allocation,
    validate_default_preemption,
    validate_fit,
    validate_node_affinity,
    validate_pod_topology_spread,
)

V1 = "kubescheduler.config.k8s.io/v1"
REMOVED = ('was invalid in version "kubescheduler.config.k8s.io/v1" '
           '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")')
BAD_KEY = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
           "'123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def errors_of(**fields: Any) -> list[str]:
    """``ValidateKubeSchedulerConfiguration`` of the defaulted document."""
    return validate(set_defaults({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                  **fields}))


# ---- ValidateKubeSchedulerConfiguration ------------------------------------------------
def test_parallelism_one_and_equal_backoffs_are_valid() -> None:
    """``cc.Parallelism <= 0`` and ``cc.PodMaxBackoffSeconds < cc.PodInitialBackoffSeconds``
    are the refused cases: 1 and max == initial pass."""
    assert errors_of(parallelism=1, podInitialBackoffSeconds=3, podMaxBackoffSeconds=3) == []


def test_single_named_profile_keeps_its_name() -> None:
    """``SetDefaults_KubeSchedulerConfiguration`` names the only profile
    default-scheduler only when its schedulerName is unset."""
    cfg = set_defaults({"profiles": [{"schedulerName": "mine"}]})
    assert cfg["profiles"][0]["schedulerName"] == "mine"


def test_removed_plugin_in_plugin_config_and_later_entries_still_checked() -> None:
    """``validatePluginConfig``: a removed plugin's pluginConfig entry is Invalid (its
    args are not validated) and the following entries are still validated."""
    errs = errors_of(profiles=[{"pluginConfig": [
        {"name": "EBSLimits"},
        {"name": "DefaultPreemption", "args": {"minCandidateNodesAbsolute": -1}}]}])
    assert errs == [
        f'profiles[0].pluginConfig[0]: Invalid value: "EBSLimits": {REMOVED}',
        "profiles[0].pluginConfig[1].args.minCandidateNodesAbsolute: Invalid value: -1: not "
        "in valid range [0, inf)"]


# ---- validateCommonQueueSort -------------------------------------------------------------
def _sorts(*names: str) -> dict[str, Any]:
    return {"queueSort": {"enabled": [{"name": n} for n in names]}}


def test_same_explicit_queue_sort_in_every_profile_is_valid() -> None:
    """``apiequality.Semantic.DeepEqual(canon, curr)`` holds: no error."""
    assert errors_of(profiles=[{"schedulerName": "a", "plugins": _sorts("PrioritySort")},
                               {"schedulerName": "b", "plugins": _sorts("PrioritySort")}]) == []


def test_two_queue_sort_plugins_in_the_first_profile() -> None:
    """``length > 1``: Invalid at profiles[0].plugins.queueSort.Enabled with the count."""
    errs = errors_of(profiles=[{"plugins": _sorts("PrioritySort", "Other")}])
    assert errs == ["profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue "
                    "sort plugin can be enabled"]


def test_different_queue_sort_names_the_other_profiles_set() -> None:
    """The bad value is the differing profile's own queueSort set."""
    errs = errors_of(profiles=[{"schedulerName": "a"},
                               {"schedulerName": "b", "plugins": _sorts("CustomSort")}])
    assert len(errs) == 1
    assert errs[0].startswith("profiles[1].plugins.queueSort: Invalid value: ")
    assert "CustomSort" in errs[0]
    assert errs[0].endswith(": must be the same for all profiles")


# ---- defaults ------------------------------------------------------------------------------
def test_args_carry_their_kind_and_version() -> None:
    """TestSchedulerDefaults: each defaulted args object has TypeMeta
    ``{Kind: "<Plugin>Args", APIVersion: "kubescheduler.config.k8s.io/v1"}``;
    NodeAffinityArgs have no other default."""
    assert default_args("NodeAffinity", None) == {"kind": "NodeAffinityArgs",
                                                  "apiVersion": V1}


def test_explicit_null_preemption_args_get_the_defaults() -> None:
    """``SetDefaults_DefaultPreemptionArgs``: nil pointers become 10 and 100."""
    out = default_args("DefaultPreemption", {"minCandidateNodesPercentage": None,
                                             "minCandidateNodesAbsolute": None})
    assert out is not None
    assert (out["minCandidateNodesPercentage"], out["minCandidateNodesAbsolute"]) == (10, 100)


def test_volume_binding_timeout_given_is_kept() -> None:
    """``SetDefaults_VolumeBindingArgs`` sets 600 only when BindTimeoutSeconds is nil."""
    out = default_args("VolumeBinding", {"bindTimeoutSeconds": 30})
    assert out is not None and out["bindTimeoutSeconds"] == 30


def test_dynamic_resources_defaults() -> None:
    """``SetDefaults_DynamicResourcesArgs``: filterTimeout 10s, bindingTimeout 600s
    (metav1.Duration prints as Go's Duration: ``10m0s``); given values are kept."""
    assert default_args("DynamicResources", None) == {
        "kind": "DynamicResourcesArgs", "apiVersion": V1, "filterTimeout": "10s",
        "bindingTimeout": "10m0s"}
    given = default_args("DynamicResources", {"filterTimeout": "1s", "bindingTimeout": "2s"})
    assert given is not None
    assert (given["filterTimeout"], given["bindingTimeout"]) == ("1s", "2s")


def test_defaulting_args_leaves_the_callers_mapping_alone() -> None:
    """``scheme.Default`` works on the decoded copy: the caller's nested scoringStrategy
    is not given default resources."""
    given: dict[str, Any] = {"scoringStrategy": {"type": "MostAllocated"}}
    out = default_args("NodeResourcesFit", given)
    assert out is not None and out["scoringStrategy"]["resources"]
    assert given == {"scoringStrategy": {"type": "MostAllocated"}}


# ---- ValidateDefaultPreemptionArgs / ValidatePodTopologySpreadArgs ------------------------
def test_min_candidate_percentage_100_is_valid() -> None:
    """``validateMinCandidateNodesPercentage``: only < 0 or > 100 is refused."""
    assert validate_default_preemption("", {"minCandidateNodesPercentage": 100,
                                            "minCandidateNodesAbsolute": 0}) == []


@pytest.mark.parametrize(("constraint", "want"), [
    # MaxSkew's zero value (omitted) and 0 itself: ``c.MaxSkew <= 0``.
    ({"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
     ["defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"]),
    ({"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
     ["defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"]),
    # validateTopologyKey: metav1validation.ValidateLabelName at the key's path.
    ({"maxSkew": 1, "topologyKey": "-zone", "whenUnsatisfiable": "DoNotSchedule"},
     [f'defaultConstraints[0].topologyKey: Invalid value: "-zone": {BAD_KEY}']),
])
def test_spread_constraint_rules(constraint: dict, want: list[str]) -> None:
    """TestValidatePodTopologySpreadArgs ("maxSkew less than zero", key checks)."""
    args = {"defaultingType": "List", "defaultConstraints": [constraint]}
    assert validate_pod_topology_spread("", args) == want


# ---- ValidateNodeResourcesFitArgs / validateFunctionShape ---------------------------------
def _rtcr(shape: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                "resources": [{"name": "cpu", "weight": 1}],
                                "requestedToCapacityRatio": {"shape": shape}, **extra}}


SHAPE = "scoringStrategy.requestedToCapacityRatio.shape"


@pytest.mark.parametrize(("shape", "want"), [
    # Valid: increasing, bounds included (utilization 0..100, score 0..10).
    ([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}], []),
    ([{"utilization": 10, "score": 1}, {"utilization": 20, "score": 2},
      {"utilization": 30, "score": 3}], []),
    # Omitted fields are Go's zero: utilization 0 then 1 is increasing.
    ([{"score": 1}, {"utilization": 1, "score": 2}], []),
    ([{"utilization": 0, "score": 1}, {"score": 2}],
     [f"{SHAPE}[1].utilization: Invalid value: 0: values must be sorted in increasing order"]),
    ([{"utilization": 5, "score": 1}, {"score": 2}],
     [f"{SHAPE}[1].utilization: Invalid value: 0: values must be sorted in increasing order"]),
    ([{"utilization": 101, "score": 11}],
     [f"{SHAPE}[0].utilization: Invalid value: 101: not in valid range [0, 100]",
      f"{SHAPE}[0].score: Invalid value: 11: not in valid range [0, 10]"]),
    ([{"utilization": 1}, {"utilization": 2, "score": -1}],
     [f"{SHAPE}[1].score: Invalid value: -1: not in valid range [0, 10]"]),
])
def test_function_shape(shape: list, want: list[str]) -> None:
    """TestValidateFitArgs / TestValidateRequestedToCapacityRatioScoringStrategy rows:
    ``validateFunctionShape``."""
    assert validate_fit("", _rtcr(shape)) == want


def test_shape_errors_follow_resource_errors() -> None:
    """``validateResources`` errors, then the shape's: both reported."""
    args = _rtcr([])
    args["scoringStrategy"]["resources"] = [{"name": "cpu", "weight": 0}]
    assert validate_fit("", args) == [
        "scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in "
        "valid range (0, 100]",
        f"{SHAPE}: Required value: at least one point must be specified"]


@pytest.mark.parametrize(("resources", "want"), [
    ([{"name": "cpu", "weight": 100}], []),
    ([{"name": "cpu"}], ["scoringStrategy.resources[0].weight: Invalid value: 0: resource "
                         "weight of cpu not in valid range (0, 100]"]),
    ([{"weight": 0}], ["scoringStrategy.resources[0].weight: Invalid value: 0: resource "
                       "weight of  not in valid range (0, 100]"]),
])
def test_fit_resource_weights(resources: list, want: list[str]) -> None:
    """``validateResources``: ``Weight <= 0 || Weight > 100``; the name prints with %v."""
    args = {"scoringStrategy": {"type": "LeastAllocated", "resources": resources}}
    assert validate_fit("", args) == want


def test_fit_without_strategy_or_type() -> None:
    """TestValidateFitArgs: nil ScoringStrategy is Required; an empty type is
    NotSupported."""
    assert validate_fit("", {}) == ["scoringStrategy: Required value: ScoringStrategy field "
                                    "is required"]
    assert validate_fit("", {"scoringStrategy": {"resources": [{"name": "cpu",
                                                                  "weight": 1}]}}) == [
        'scoringStrategy.type: Unsupported value: "": supported values: "LeastAllocated", '
        '"MostAllocated", "RequestedToCapacityRatio"']


def test_fit_every_ignored_name_is_checked() -> None:
    """``ValidateNodeResourcesFitArgs``: each ignoredResources entry and each group (which
    also must not contain '/') is validated at its own index."""
    args = {"ignoredResources": ["-a", "b"], "ignoredResourceGroups": ["x/y/z"],
            "scoringStrategy": {"type": "LeastAllocated",
                                "resources": [{"name": "cpu", "weight": 1}]}}
    errs = validate_fit("", args)
    assert errs[0] == f'ignoredResources[0]: Invalid value: "-a": {BAD_KEY}'
    assert errs[1] == ("ignoredResourceGroups[0]: Invalid value: \"x/y/z\": resource group "
                       "name can't contain '/'")
    assert errs[2].startswith('ignoredResourceGroups[0]: Invalid value: "x/y/z": a valid '
                              "label key must consist of")
    assert len(errs) == 3


def test_balanced_allocation_nameless_resources_are_duplicates() -> None:
    """``ValidateNodeResourcesBalancedAllocationArgs``: Name's zero value "" repeats."""
    errs = validate_balanced_allocation("", {"resources": [{"weight": 1}, {"weight": 1}]})
    assert errs == ['resources[1].name: Duplicate value: ""']


# ---- ValidateNodeAffinityArgs ----------------------------------------------------------------
REQ = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
PREF = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def _added(required: list | None = None, preferred: list | None = None) -> dict[str, Any]:
    aff: dict[str, Any] = {}
    if required is not None:
        aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": required}
    if preferred is not None:
        aff["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return {"addedAffinity": aff}


def test_node_affinity_upstream_rows() -> None:
    """TestValidateNodeAffinityArgs: "empty", "valid added affinity" and "invalid added
    affinity" (an invalid label key in a required term, two values for a matchFields In
    in a preferred term, whose path has no ``.preference``)."""
    assert validate_node_affinity("", {}) == []
    valid = _added([{"matchExpressions": [_expr("label-1", "In", "label-1-val")]}],
                   [{"weight": 1, "preference": {
                       "matchFields": [_expr("metadata.name", "In", "node-1")]}}])
    assert validate_node_affinity("", valid) == []
    bad = _added([{"matchExpressions": [_expr("invalid/label/key", "In", "label-1-val")]}],
                 [{"weight": 1, "preference": {
                     "matchFields": [_expr("metadata.name", "In", "node-1", "node-2")]}}])
    errs = validate_node_affinity("", bad)
    assert len(errs) == 2
    assert errs[0].startswith(f'{REQ}[0].matchExpressions[0].key: Invalid value: '
                              '"invalid/label/key": a valid label key must consist of')
    assert errs[1].startswith(f"{PREF}[0].matchFields[0].values: Invalid value: ")
    assert errs[1].endswith(": must have one element")


@pytest.mark.parametrize(("expr", "want"), [
    (_expr("k", "In"), ["values: Invalid value: [", "for 'in', 'notin' operators, values "
                                                    "set can't be empty"]),
    (_expr("k", "NotIn"), ["values: Invalid value: [", "values set can't be empty"]),
    (_expr("k", "Exists", "v"), ["values: Invalid value: [", "values set must be empty for "
                                                             "exists and does not exist"]),
    (_expr("k", "DoesNotExist", "v"), ["values: Invalid value: [", "must be empty"]),
    (_expr("k", "Gt", "1", "2"), ["values: Invalid value: [", "for 'Gt', 'Lt' operators, "
                                                              "exactly one value is required"]),
    (_expr("k", "Lt", "x"), ['values[0]: Invalid value: "x"', "for 'Gt', 'Lt' operators, "
                                                              "the value must be an integer"]),
    (_expr("k", "Near", "x"), ['operator: Unsupported value: "Near"', 'supported values: "In", '
                               '"NotIn", "Exists", "DoesNotExist", "Gt", "Lt"']),
    (_expr("k", "In", "-bad-"), ['values[0][k]: Invalid value: "-bad-"', "a valid label must "
                                                                          "be an empty string"]),
])
def test_node_affinity_requirement_errors(expr: dict, want: list[str]) -> None:
    """``labels.NewRequirement(key, op, vals, field.WithPath(p))``: the values checks per
    operator, Gt/Lt integers at values[i], label values at values[i][key];
    ``nodeSelectorRequirementsAsSelector`` refuses an unknown operator at .operator."""
    errs = validate_node_affinity("", _added([{"matchExpressions": [expr]}]))
    assert len(errs) == 1
    head, detail = want
    assert errs[0].startswith(f"{REQ}[0].matchExpressions[0].{head}")
    assert detail in errs[0]


@pytest.mark.parametrize(("value", "ok"), [("12", True), ("-3", True), ("+4", True),
                                           ("1.5", False), ("", False),
                                           ("9223372036854775808", False)])
def test_node_affinity_gt_value_is_an_int64(value: str, ok: bool) -> None:
    """``strconv.ParseInt(v, 10, 64)``: signs allowed, no fractions, int64 range (a sign
    still fails the label value check that follows, as upstream)."""
    errs = validate_node_affinity("", _added([{"matchExpressions": [_expr("k", "Gt",
                                                                           value)]}]))
    assert (not any("must be an integer" in e for e in errs)) is ok


def test_node_affinity_field_operator_and_skipped_terms() -> None:
    """``nodeSelectorRequirementsAsFieldSelector``: only In/NotIn; empty terms and zero
    weight preferred terms are not parsed (``isEmptyNodeSelectorTerm``,
    ``term.Weight == 0``), so their errors are not reported."""
    args = _added([{}, {"matchFields": [_expr("metadata.name", "Exists")]}],
                  [{"weight": 0, "preference": {"matchExpressions": [_expr("k", "In")]}},
                   {"weight": 2, "preference": {}},
                   {"weight": 3, "preference": {"matchFields": [
                       _expr("metadata.name", "NotIn")]}}])
    assert validate_node_affinity("", args) == [
        f'{REQ}[1].matchFields[0].operator: Unsupported value: "Exists": supported values: '
        '"In", "NotIn"',
        f"{PREF}[2].matchFields[0].values: Invalid value: []: must have one element"]


def test_node_affinity_errors_reach_the_config_error() -> None:
    """Through ``validatePluginConfig`` the path starts at the profile's pluginConfig."""
    with pytest.raises(InputError) as err:
        parse_scheduler_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                "profiles": [{"pluginConfig": [{"name": "NodeAffinity", "args":
                                    _added([{"matchExpressions": [_expr("k", "In")]}])}]}]})
    assert (f"profiles[0].pluginConfig[0].args.{REQ}[0].matchExpressions[0].values: Invalid "
            "value: []: for 'in', 'notin' operators, values set can't be empty") in str(err.value)


def test_min_candidate_percentage_101_is_refused() -> None:
    """``validateMinCandidateNodesPercentage``: > 100 is out of range."""
    assert validate_default_preemption("", {"minCandidateNodesPercentage": 101,
                                            "minCandidateNodesAbsolute": 1}) == [
        "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"]


@pytest.mark.parametrize(("value", "ok"), [("-9223372036854775808", True),
                                           ("-9223372036854775809", False),
                                           ("9223372036854775807", True), ("-200", True)])
def test_node_affinity_gt_value_int64_bounds(value: str, ok: bool) -> None:
    """``strconv.ParseInt(v, 10, 64)`` accepts exactly [-2^63, 2^63-1]."""
    errs = validate_node_affinity("", _added([{"matchExpressions": [_expr("k", "Lt",
                                                                           value)]}]))
    assert (not any("must be an integer" in e for e in errs)) is ok


def test_node_affinity_omitted_key_and_operators() -> None:
    """An omitted key is "" (IsQualifiedName refuses it); an omitted operator is "" and
    NotSupported, in matchExpressions and matchFields alike."""
    errs = validate_node_affinity("", _added([{"matchExpressions": [{"operator": "Exists"}]},
                                              {"matchExpressions": [{"key": "k"}]},
                                              {"matchFields": [{"key": "metadata.name",
                                                                "values": ["n"]}]}]))
    assert errs[0].startswith(f'{REQ}[0].matchExpressions[0].key: Invalid value: "": name '
                              "part must be non-empty; name part must consist of")
    assert errs[1:] == [
        f'{REQ}[1].matchExpressions[0].operator: Unsupported value: "": supported values: '
        '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
        f'{REQ}[2].matchFields[0].operator: Unsupported value: "": supported values: "In", '
        '"NotIn"']


def test_node_affinity_label_value_messages_are_joined() -> None:
    """``validateLabelValue`` joins IsValidLabelValue's messages with "; "."""
    value = "-" + "a" * 63
    errs = validate_node_affinity("", _added([{"matchExpressions": [_expr("k", "In",
                                                                           value)]}]))
    assert errs == [f'{REQ}[0].matchExpressions[0].values[0][k]: Invalid value: "{value}": '
                    "must be no more than 63 bytes; a valid label must be an empty "
                    "string or consist of alphanumeric characters, '-', '_' or '.', and must "
                    "start and end with an alphanumeric character (e.g. 'MyValue',  or "
                    "'my_value',  or '12345', regex used for validation is "
                    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]


def test_node_affinity_every_term_and_expression_reports() -> None:
    """NewNodeSelector collects every term's errors, each term every expression's; a
    preferred term without a weight has weight 0 and is skipped."""
    args = _added([{"matchExpressions": [_expr("a", "In"), _expr("b", "In")]},
                   {"matchExpressions": [_expr("c", "In")]}],
                  [{"preference": {"matchExpressions": [_expr("d", "In")]}}])
    errs = validate_node_affinity("", args)
    assert [e.split(":")[0] for e in errs] == [
        f"{REQ}[0].matchExpressions[0].values", f"{REQ}[0].matchExpressions[1].values",
        f"{REQ}[1].matchExpressions[0].values"]
