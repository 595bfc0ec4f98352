"""KubeSchedulerConfiguration validation, worded as upstream.

Ported: pkg/scheduler/apis/config/validation/validation_test.go
TestValidateKubeSchedulerConfigurationV1 (the fields kubepreempt reads: parallelism,
percentageOfNodesToScore global and per profile, schedulerName required and unique,
queue sort must match, removed plugins, backoff seconds, duplicate pluginConfig) and
validation_pluginargs_test.go TestValidateDefaultPreemptionArgs,
TestValidateInterPodAffinityArgs, TestValidatePodTopologySpreadArgs,
TestValidateNodeResourcesBalancedAllocationArgs, TestValidateFitArgs,
TestValidateLeastAllocatedScoringStrategy / MostAllocated / RequestedToCapacityRatio.
Each error is one InputError line naming the kind; several are joined as upstream's
``utilerrors.Aggregate`` does (``[a, b]``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.config.defaults import default_args
from kubepreempt.scheduler.config.validation import (
    validate_balanced_allocation,
    validate_default_preemption,
    validate_fit,
    validate_inter_pod_affinity,
    validate_pod_topology_spread,
)

V1 = "kubescheduler.config.k8s.io/v1"


def error_of(**fields: Any) -> str:
    with pytest.raises(InputError) as err:
        parse_scheduler_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                **fields})
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith("KubeSchedulerConfiguration: ")
    return text.removeprefix("KubeSchedulerConfiguration: ")


@pytest.mark.parametrize(("fields", "want"), [
    ({"parallelism": 0}, "parallelism: Invalid value: 0: should be an integer value greater "
                         "than zero"),
    ({"percentageOfNodesToScore": 110},
     "percentageOfNodesToScore: Invalid value: 110: not in valid range [0-100]"),
    ({"profiles": [{"percentageOfNodesToScore": -1}]},
     "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"),
    ({"profiles": [{"schedulerName": "a"}, {}]},
     "profiles[1].schedulerName: Required value"),
    ({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]},
     'profiles[1].schedulerName: Duplicate value: "profiles[0].schedulerName"'),
    ({"profiles": [{"schedulerName": "a"}, {"schedulerName": "b", "plugins": {
        "queueSort": {"enabled": [{"name": "CustomSort"}], "disabled": [{"name": "*"}]}}}]},
     "profiles[1].plugins.queueSort: Invalid value: "),
    ({"profiles": [{"plugins": {"score": {"enabled": [{"name": "EBSLimits"}]}}}]},
     'profiles[0].plugins.score.enabled[0]: Invalid value: "EBSLimits": was invalid in '
     'version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
     '"kubescheduler.config.k8s.io/v1")'),
    ({"podInitialBackoffSeconds": 0},
     "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
    ({"podInitialBackoffSeconds": 5, "podMaxBackoffSeconds": 2},
     "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
     "PodInitialBackoffSeconds"),
    ({"profiles": [{"pluginConfig": [{"name": "InterPodAffinity"},
                                     {"name": "InterPodAffinity"}]}]},
     'profiles[0].pluginConfig[1]: Duplicate value: "InterPodAffinity"'),
    ({"profiles": [{"pluginConfig": [{"name": "DefaultPreemption", "args": {
        "minCandidateNodesPercentage": 200}}]}]},
     "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: not "
     "in valid range [0, 100]"),
])
def test_configuration_errors(fields: dict, want: str) -> None:
    assert want in error_of(**fields)


def test_several_errors_are_aggregated() -> None:
    text = error_of(parallelism=-1, percentageOfNodesToScore=101)
    assert text == ("[parallelism: Invalid value: -1: should be an integer value greater than "
                    "zero, percentageOfNodesToScore: Invalid value: 101: not in valid range "
                    "[0-100]]")


def test_wrong_version_or_kind() -> None:
    with pytest.raises(InputError, match="v1beta3"):
        parse_scheduler_config({"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                                "kind": "KubeSchedulerConfiguration"})


def test_mistyped_field_is_one_line() -> None:
    assert "parallelism: must be an integer" in error_of(parallelism="many")


def _args(name: str, **given: Any) -> dict[str, Any]:
    out = default_args(name, given)
    assert out is not None
    return out


@pytest.mark.parametrize(("given", "want"), [
    ({}, []),
    ({"minCandidateNodesPercentage": -1},
     ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"]),
    ({"minCandidateNodesPercentage": 900},
     ["minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"]),
    ({"minCandidateNodesAbsolute": -1},
     ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"]),
    ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
     ["minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
      "minCandidateNodesAbsolute",
      "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
      "minCandidateNodesPercentage"]),
])
def test_default_preemption_args(given: dict, want: list[str]) -> None:
    """TestValidateDefaultPreemptionArgs."""
    assert validate_default_preemption("", _args("DefaultPreemption", **given)) == want


@pytest.mark.parametrize(("weight", "ok"), [(1, True), (0, True), (100, True), (-1, False),
                                            (101, False)])
def test_inter_pod_affinity_args(weight: int, ok: bool) -> None:
    """TestValidateInterPodAffinityArgs ("hardPodAffinityWeight less than min/greater
    than max")."""
    errs = validate_inter_pod_affinity("", {"hardPodAffinityWeight": weight})
    assert errs == ([] if ok else [f"hardPodAffinityWeight: Invalid value: {weight}: not in "
                                   "valid range [0, 100]"])


def _constraint(**over: Any) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule", **over}


@pytest.mark.parametrize(("args", "want"), [
    ({"defaultingType": "List", "defaultConstraints": [
        _constraint(), _constraint(maxSkew=2, topologyKey="zone",
                                   whenUnsatisfiable="ScheduleAnyway")]}, []),
    ({"defaultingType": "List", "defaultConstraints": [_constraint(maxSkew=-1)]},
     ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"]),
    ({"defaultingType": "List", "defaultConstraints": [_constraint(topologyKey="")]},
     ["defaultConstraints[0].topologyKey: Required value: can not be empty"]),
    ({"defaultingType": "List", "defaultConstraints": [_constraint(whenUnsatisfiable="")]},
     ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"]),
    ({"defaultingType": "List", "defaultConstraints": [_constraint(whenUnsatisfiable="Foo")]},
     ['defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Foo": supported values: '
      '"DoNotSchedule", "ScheduleAnyway"']),
    ({"defaultingType": "List", "defaultConstraints": [_constraint(), _constraint()]},
     ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"']),
    ({"defaultingType": "List", "defaultConstraints": [
        _constraint(labelSelector={"matchLabels": {"a": "b"}})]},
     ["defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, "
      "as they deduced for each pod"]),
    ({"defaultingType": "System", "defaultConstraints": [_constraint()]},
     ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty']),
    ({"defaultingType": "Unknown"},
     ['defaultingType: Unsupported value: "Unknown": supported values: "System", "List"']),
])
def test_pod_topology_spread_args(args: dict, want: list[str]) -> None:
    """TestValidatePodTopologySpreadArgs."""
    assert validate_pod_topology_spread("", args) == want


@pytest.mark.parametrize(("resources", "want"), [
    ([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}], []),
    ([{"name": "cpu", "weight": 2}],
     ["resources[0].weight: Invalid value: 2: must be 1"]),
    ([{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
     ['resources[1].name: Duplicate value: "cpu"']),
])
def test_balanced_allocation_args(resources: list, want: list[str]) -> None:
    """TestValidateNodeResourcesBalancedAllocationArgs."""
    assert validate_balanced_allocation("", {"resources": resources}) == want


@pytest.mark.parametrize(("args", "want"), [
    ({"ignoredResources": ["example.com/foo"], "ignoredResourceGroups": ["example.com"]}, []),
    ({"ignoredResourceGroups": ["example.com/aaa"]},
     ["ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't "
      "contain '/'"]),
    ({"scoringStrategy": {"type": "Invalid", "resources": [{"name": "cpu", "weight": 1}]}},
     ['scoringStrategy.type: Unsupported value: "Invalid": supported values: '
      '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"']),
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu",
                                                                    "weight": 101}]}},
     ["scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in "
      "valid range (0, 100]"]),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": [
        {"name": "cpu", "weight": 1}]}},
     ["scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type "
      "is RequestedToCapacityRatio"]),
    ({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}],
                          "requestedToCapacityRatio": {"shape": []}}},
     ["scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not "
      "RequestedToCapacityRatio"]),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                          "resources": [{"name": "cpu", "weight": 1}],
                          "requestedToCapacityRatio": {"shape": []}}},
     ["scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point "
      "must be specified"]),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                          "resources": [{"name": "cpu", "weight": 1}],
                          "requestedToCapacityRatio": {"shape": [
                              {"utilization": 10, "score": 1}, {"utilization": 10, "score": 2},
                              {"utilization": 110, "score": 11}]}}},
     ["scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10: "
      "values must be sorted in increasing order",
      "scoringStrategy.requestedToCapacityRatio.shape[2].utilization: Invalid value: 110: not "
      "in valid range [0, 100]",
      "scoringStrategy.requestedToCapacityRatio.shape[2].score: Invalid value: 11: not in "
      "valid range [0, 10]"]),
])
def test_fit_args(args: dict, want: list[str]) -> None:
    """TestValidateFitArgs and the scoring-strategy tables."""
    full = default_args("NodeResourcesFit", args)
    assert validate_fit("", full) == want


def test_fit_args_error_in_a_config_is_relative_to_the_args() -> None:
    """NewFit validates its args with a nil path, so the message has no profile prefix."""
    text = error_of(profiles=[{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "Bogus"}}}]}])
    assert text.startswith('scoringStrategy.type: Unsupported value: "Bogus"')


def test_old_disable_preemption_switch_points_to_the_plugin() -> None:
    """Seed 003's ``componentconfig/v1alpha1`` ``disablePreemption: true`` is long gone;
    the error says what replaced it."""
    with pytest.raises(InputError) as err:
        parse_scheduler_config({"apiVersion": "componentconfig/v1alpha1",
                                "kind": "KubeSchedulerConfiguration",
                                "disablePreemption": True})
    assert "disable the DefaultPreemption plugin" in str(err.value)


@pytest.mark.parametrize(("fields", "want"), [
    ({"profiles": [{"pluginConfg": []}]}, 'unknown field "profiles[0].pluginConfg"'),
    ({"percentageOfNodeToScore": 10}, 'unknown field "percentageOfNodeToScore"'),
    ({"profiles": [{"plugins": {"scores": {"enabled": []}}}]},
     'unknown field "profiles[0].plugins.scores"'),
    ({"profiles": [{"plugins": {"score": {"enabled": [{"name": "ImageLocality",
                                                       "wieght": 2}]}}}]},
     'unknown field "profiles[0].plugins.score.enabled[0].wieght"'),
    ({"profiles": [{"pluginConfig": [{"name": "DefaultPreemption", "args": {
        "minCandidateNodesPercentag": 5}}]}]}, 'unknown field "minCandidateNodesPercentag"'),
    ({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resource": []}}}]}]},
     'unknown field "scoringStrategy.resource"'),
])
def test_unknown_fields_are_strict_decoding_errors(fields: dict, want: str) -> None:
    assert error_of(**fields) == f"strict decoding error: {want}"


def test_out_of_tree_plugin_args_are_opaque() -> None:
    cfg = parse_scheduler_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                  "profiles": [{"pluginConfig": [
                                      {"name": "Coscheduling", "args": {"anything": 1}}]}]})
    assert cfg.profiles[0].preemption
