"""scheduling.k8s.io/v1beta1 Workload and PodGroup: serving, validation, defaulting.

Expected messages: the declarative validation of ``staging/src/k8s.io/api/scheduling/
v1beta1/types.go`` as apimachinery words it (``validate/union.go``: ``must specify one
of``, ``must specify exactly one of``; ``+k8s:required``: ``Required value``;
``+k8s:minimum``/``maximum``: ``must be greater/less than or equal to``), the cases of
``pkg/registry/scheduling/workload/declarative_validation_test.go``, and the building
block's ``the disruptionMode `all` is not supported with the Basic scheduling policy``.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import cluster_of, docs_of, pod, priority_class

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.podgroup import (
    ALL,
    SINGLE,
    load_group_objects,
    parse_pod_group,
    pod_group_name,
)
from kubepreempt.api.podgroup_validation import validate_pod_group, validate_workload
from kubepreempt.api.priority import PriorityResolver, parse_priority_class
from kubepreempt.cluster import build_cluster

ON = {"GenericWorkload": True}


def group(**spec: Any) -> dict[str, Any]:
    spec.setdefault("schedulingPolicy", {"gang": {"minCount": 2}})
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "ns"}, "spec": spec}


def workload(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": "wl", "namespace": "ns"},
            "spec": {"podGroupTemplates": list(templates), **spec}}


def template(name: str = "main", **fields: Any) -> dict[str, Any]:
    fields.setdefault("schedulingPolicy", {"gang": {"minCount": 4}})
    return {"name": name, **fields}


def errors(body: dict[str, Any], gates=None) -> list[str]:
    check = validate_pod_group if body["kind"] == "PodGroup" else validate_workload
    return [str(e) for e in check(body, gates)]


@pytest.mark.parametrize(("spec", "expected"), [
    ({}, []),
    ({"schedulingPolicy": {}},
     ['spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']),
    ({"schedulingPolicy": {"basic": {}, "gang": {"minCount": 1}}},
     ['spec.schedulingPolicy: Invalid value: "{`basic`, `gang`}": must specify exactly '
      "one of: `basic`, `gang`"]),
    # Declarative validation reads 0 as missing: Required, not the minimum.
    ({"schedulingPolicy": {"gang": {"minCount": 0}}},
     ["spec.schedulingPolicy.gang.minCount: Required value"]),
    ({"schedulingPolicy": {"gang": {"minCount": -1}}},
     ["spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or "
      "equal to 1"]),
    ({"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}},
     ['spec.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported '
      "with the Basic scheduling policy"]),
    ({"disruptionMode": {"all": {}}}, []),
    ({"disruptionMode": {}},
     ['spec.disruptionMode: Invalid value: "": must specify one of: `single`, `all`']),
    ({"disruptionMode": {"single": {}, "all": {}}},
     ['spec.disruptionMode: Invalid value: "{`single`, `all`}": must specify exactly one '
      "of: `single`, `all`"]),
    ({"priority": 1_000_000_001},
     ["spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"]),
    ({"priority": -2147483648}, []),
    # PodGroupPreemptionPolicy is alpha (off) in 1.37: +k8s:ifDisabled=forbidden.
    ({"preemptionPolicy": "Never"}, ["spec.preemptionPolicy: Forbidden"]),
    ({"schedulingConstraints": {"topology": [{"key": "rack"}]}},
     ["spec.schedulingConstraints: Forbidden"]),
    ({"parentCompositePodGroupName": "root"}, ["spec.parentCompositePodGroupName: Forbidden"]),
    ({"workloadRef": {"workloadName": "wl"}},
     ["spec.workloadRef.templateName: Required value"]),
])
def test_pod_group_validation(spec, expected):
    assert errors(group(**spec)) == expected


def test_pod_group_priority_class_name_format():
    [msg] = errors(group(priorityClassName="high/priority"))
    assert msg.startswith('spec.priorityClassName: Invalid value: "high/priority": a '
                          "lowercase RFC 1123 subdomain")


def test_preemption_policy_with_its_gate():
    gates = {"PodGroupPreemptionPolicy": True}
    assert errors(group(preemptionPolicy="Never"), gates) == []
    assert errors(group(preemptionPolicy="Invalid"), gates) == [
        'spec.preemptionPolicy: Unsupported value: "Invalid": supported values: "Never", '
        '"PreemptLowerPriority"']


@pytest.mark.parametrize(("body", "expected"), [
    (workload(template()), []),
    (workload(), ['spec: Invalid value: "": must specify one of: `podGroupTemplates`']),
    (workload(*(template(f"t{i}") for i in range(9))),
     ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"]),
    (workload(template("")), ["spec.podGroupTemplates[0].name: Required value"]),
    (workload(template("main"), template("main")),
     ['spec.podGroupTemplates[1]: Duplicate value: {"name":"main"}']),
    (workload(template(schedulingPolicy={"gang": {"minCount": 0}})),
     ["spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value"]),
    (workload(template(schedulingPolicy={"basic": {}}, disruptionMode={"all": {}})),
     ['spec.podGroupTemplates[0].disruptionMode: Invalid value: "": the disruptionMode '
      "`all` is not supported with the Basic scheduling policy"]),
    (workload(template(), controllerRef={"apiGroup": "apps", "kind": "", "name": "x"}),
     ["spec.controllerRef.kind: Required value"]),
    (workload(template(), controllerRef={"kind": "Deploy/ment", "name": "x"}),
     ['spec.controllerRef.kind: Invalid value: "Deploy/ment": may not contain \'/\'']),
])
def test_workload_validation(body, expected):
    assert errors(body) == expected


def test_invalid_pod_group_is_refused_in_apiserver_words():
    with pytest.raises(InputError) as exc:
        parse_pod_group(group(schedulingPolicy={"basic": {}}, disruptionMode={"all": {}}),
                        Source("pg.yaml", 0), PriorityResolver())
    assert str(exc.value) == (
        'pg.yaml, document 1: PodGroup ns/pg: PodGroup.scheduling.k8s.io "pg" is invalid: '
        'spec.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported '
        "with the Basic scheduling policy")


def test_defaults_and_priority():
    resolver = PriorityResolver(
        [parse_priority_class(priority_class("batch", 700, global_default=True), Source())])
    g = parse_pod_group(group(), Source(), resolver)
    assert (g.policy, g.min_count, g.disruption_mode, g.priority) == ("gang", 2, SINGLE, 700)
    g = parse_pod_group(group(disruptionMode={"all": {}}, priority=5), Source(), resolver)
    assert (g.disruption_mode, g.priority) == (ALL, 5)
    with pytest.raises(InputError, match="unknown PriorityClass 'nope'"):
        parse_pod_group(group(priorityClassName="nope"), Source(), resolver)


def test_loader_serves_v1beta1_only_with_generic_workload():
    docs = docs_of(group(), workload(template()))
    cluster = build_cluster(docs, warn=False)
    objs = load_group_objects(docs.of, cluster.priority, ON)
    assert list(objs.pod_groups) == ["ns/pg"] and list(objs.workloads) == ["ns/wl"]
    with pytest.raises(InputError) as exc:
        load_group_objects(docs.of, cluster.priority, {"GenericWorkload": False})
    assert "the GenericWorkload feature gate is off" in str(exc.value)


def test_loader_refuses_v1alpha2():
    old = group()
    old["apiVersion"] = "scheduling.k8s.io/v1alpha2"
    docs = docs_of(old)
    with pytest.raises(InputError) as exc:
        load_group_objects(docs.of, PriorityResolver(), ON)
    assert str(exc.value) == (
        'test.yaml, document 1: PodGroup: no matches for kind "PodGroup" in version '
        '"scheduling.k8s.io/v1alpha2": kube-apiserver 1.37 serves PodGroup only as '
        "scheduling.k8s.io/v1beta1")
    assert "\n" not in str(exc.value)


def test_loader_leaves_other_groups_alone():
    kueue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
             "metadata": {"name": "w", "namespace": "ns"}, "spec": {}}
    volcano = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
               "metadata": {"name": "v", "namespace": "ns"}, "spec": {"minMember": 2}}
    docs = docs_of(kueue, volcano)
    objs = load_group_objects(docs.of, PriorityResolver(), ON)
    assert objs.pod_groups == {} and objs.workloads == {}


def test_pod_group_name_of_a_pod():
    cluster = cluster_of(pod("a", spec_extra={"schedulingGroup": {"podGroupName": "pg"}}),
                         pod("b"))
    assert pod_group_name(cluster.pending["default/a"]) == "pg"
    assert pod_group_name(cluster.pending["default/b"]) is None
