"""Reading Kueue objects at their edges (:mod:`kubepreempt.kueue.objects`): v1beta2's
``spec.priorityClassRef`` (``apis/kueue/v1beta2`` ``PriorityClassRef``, group and kind
of a WorkloadPriorityClass or a PriorityClass, as the v1beta1 conversion maps
``priorityClassSource``)."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, docs

from kubepreempt.api.errors import InputError, Source
from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.objects import (
    parse_local_queue,
    parse_workload,
    parse_workload_priority_class,
)
from kubepreempt.kueue.semantics import semantics_for
from kubepreempt.manifests import RawObject


def _workload(ref: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"queueName": "q", "podSets": [{"name": "main", "count": 1,
                            "template": {"spec": {"containers": [{"name": "c"}]}}}]}
    if ref is not None:
        spec["priorityClassRef"] = ref
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "default"}, "spec": spec}


CLASSES = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "shared"}, "value": 40},
           {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
            "metadata": {"name": "shared"}, "value": 9}]


def _load(ref: Any = None):
    return load_inputs(docs([*CLASSES, _workload(ref)]), version=CURRENT).workloads["default/w"]


def test_a_priority_class_ref_to_a_pod_priority_class() -> None:
    """``{group: scheduling.k8s.io, kind: PriorityClass}`` names the PriorityClass,
    not the WorkloadPriorityClass of the same name."""
    w = _load({"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "shared"})
    assert (w.priority, w.priority_class_name) == (40, "shared")


def test_a_priority_class_ref_to_a_workload_priority_class() -> None:
    w = _load({"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "shared"})
    assert (w.priority, w.priority_class_name) == (9, "shared")


def test_no_priority_class_ref_is_no_class() -> None:
    w = _load()
    assert (w.priority, w.priority_class_name) == (0, "")


@pytest.mark.parametrize(("ref", "why"), [
    ("shared", "spec.priorityClassRef must be a mapping, got str"),
    ({"group": "scheduling.k8s.io", "kind": "WorkloadPriorityClass", "name": "shared"},
     "spec.priorityClassRef: unknown group/kind scheduling.k8s.io/WorkloadPriorityClass"),
])
def test_a_bad_priority_class_ref_is_an_error(ref: Any, why: str) -> None:
    with pytest.raises(InputError) as err:
        _load(ref)
    assert str(err.value) == f"test.yaml, document 3: Workload default/w: {why}"


def _cq(api: str, **spec: Any) -> dict[str, Any]:
    groups = [{"coveredResources": ["cpu"], "flavors": [
        {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}]
    return {"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": "c"},
            "spec": {"resourceGroups": groups, **spec}}


V1B2, V1B1 = "kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1"


@pytest.mark.parametrize(("version", "obj", "why"), [
    # fairSharing.weight is a quantity, never negative
    (CURRENT, _cq(V1B2, fairSharing={"weight": "-1"}),
     "spec.fairSharing.weight must not be negative"),
    (CURRENT, _cq(V1B2, fairSharing={"weight": "abc"}),
     "spec.fairSharing.weight: quantity 'abc' is not a valid Kubernetes quantity"),
    # flavorFungibility: v1beta2 spells the stop policy MayStopSearch, v1beta1 Borrow
    (CURRENT, _cq(V1B2, flavorFungibility={"whenCanBorrow": "Borrow"}),
     "whenCanBorrow 'Borrow' is not one of ['MayStopSearch', 'TryNextFlavor']"),
    ("v0.7", _cq(V1B1, flavorFungibility={"whenCanBorrow": "MayStopSearch"}),
     "whenCanBorrow 'MayStopSearch' is not one of ['Borrow', 'TryNextFlavor']"),
    # a version the release does not serve, with the ones it does
    (CURRENT, _cq("kueue.x-k8s.io/v1alpha2"),
     "apiVersion kueue.x-k8s.io/v1alpha2 is not served by Kueue 0.20 (served: "
     "kueue.x-k8s.io/v1beta1, kueue.x-k8s.io/v1beta2, kueue.x-k8s.io/v1alpha1)"),
])
def test_a_bad_cluster_queue_is_an_error_naming_the_field(version: str, obj: dict[str, Any],
                                                          why: str) -> None:
    with pytest.raises(InputError) as err:
        load_inputs(docs([obj]), version=version)
    assert str(err.value) == f"test.yaml, document 1: ClusterQueue c: {why}"


def _wl_priority(priority: Any) -> dict[str, Any]:
    body = _workload()
    body["spec"]["priority"] = priority
    return body


@pytest.mark.parametrize(("obj", "why"), [
    # quotas are non-negative quantities
    (_cq(V1B2) | {"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "-1"}]}]}]}},
     "ClusterQueue c: spec.resourceGroups[0].flavors[0].cpu.nominalQuota: negative "
     "quantity '-1'"),
    (_cq(V1B2) | {"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "abc"}]}]}]}},
     "ClusterQueue c: spec.resourceGroups[0].flavors[0].cpu.nominalQuota: quantity 'abc' "
     "is not a valid Kubernetes quantity"),
    (_cq(V1B2, namespaceSelector={"matchExpressions": [{"key": "a", "operator": "Bogus"}]}),
     "ClusterQueue c: spec.namespaceSelector: selector operator 'Bogus' is not one of "
     "['DoesNotExist', 'Exists', 'In', 'NotIn']"),
    # spec.priority is an int32
    (_wl_priority(2147483648),
     "Workload default/w: spec.priority 2147483648 does not fit in a 32-bit integer"),
    (_wl_priority(-2147483649),
     "Workload default/w: spec.priority -2147483649 does not fit in a 32-bit integer"),
    (_wl_priority("x" * 50),
     f"Workload default/w: spec.priority {'x' * 40!r} is not an integer"),
])
def test_a_bad_field_is_an_error_naming_it(obj: dict[str, Any], why: str) -> None:
    with pytest.raises(InputError) as err:
        load_inputs(docs([obj]), version=CURRENT)
    assert str(err.value) == f"test.yaml, document 1: {why}"


@pytest.mark.parametrize("priority", [2147483647, -2147483648])
def test_the_int32_bounds_are_valid_priorities(priority: int) -> None:
    w = load_inputs(docs([_wl_priority(priority)]), version=CURRENT).workloads["default/w"]
    assert w.priority == priority


def test_an_empty_queueing_strategy_is_the_default() -> None:
    """``queueingStrategy`` defaults to BestEffortFIFO (the CRD default)."""
    inp = load_inputs(docs([_cq(V1B2, queueingStrategy="")]), version=CURRENT)
    assert inp.cluster_queues["c"].queueing_strategy == "BestEffortFIFO"
    assert inp.cluster_queues["c"].quota("f", "cpu").nominal == 1000
    assert inp.cluster_queues["c"].quota("g", "cpu") is None


def test_parsers_name_the_kind_of_an_object_without_a_name_or_a_bad_spec() -> None:
    src = Source("q.yaml", 0)
    with pytest.raises(InputError) as err:
        parse_local_queue(RawObject("LocalQueue", {"metadata": {}}, src))
    assert str(err.value) == "q.yaml, document 1: LocalQueue: object has no metadata.name"
    with pytest.raises(InputError) as err:
        parse_local_queue(RawObject("LocalQueue", {"metadata": {"name": "l"}, "spec": "x"},
                                    src))
    assert str(err.value) == "q.yaml, document 1: LocalQueue l: spec must be a mapping, got str"
    with pytest.raises(InputError) as err:
        parse_workload_priority_class(RawObject("WorkloadPriorityClass", {
            "metadata": {"name": "p"}, "value": "x"}, src))
    assert str(err.value) == ("q.yaml, document 1: WorkloadPriorityClass p: value 'x' is not "
                              "an integer")


def test_a_local_queue_without_a_namespace_is_in_default() -> None:
    lq = parse_local_queue(RawObject("LocalQueue", {"metadata": {"name": "l"},
                                                    "spec": {"clusterQueue": "c"}},
                                     Source("q.yaml", 0)))
    assert (lq.namespace, lq.name, lq.cluster_queue) == ("default", "l", "c")


@pytest.mark.parametrize(("spec", "why"), [
    # an InputError from inside (a quantity) gets the object's place
    ({"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "abc"}}}]}}}]},
     "spec.podSets[0].template.spec.containers[0].resources.requests.cpu: quantity 'abc' "
     "is not a valid Kubernetes quantity"),
    # and so does a plain validation error
    ({"podSets": "x"}, "spec.podSets must be a list, got str"),
])
def test_a_workload_parsed_directly_is_an_error_naming_it(spec: dict, why: str) -> None:
    """The simulator parses Workloads directly (no loader around it): the error still
    says where the object is."""
    body = {"metadata": {"name": "w", "namespace": "ns"}, "spec": spec}
    with pytest.raises(InputError) as err:
        parse_workload(RawObject("Workload", body, Source("w.yaml", 2)), lambda n, s: 0,
                       semantics_for(CURRENT))
    assert str(err.value) == f"w.yaml, document 3: Workload ns/w: {why}"


def test_an_input_error_of_the_priority_resolver_gets_the_workloads_place() -> None:
    """The simulator's resolver raises InputError for an unknown PriorityClass; the error
    is completed with the Workload's file, kind and name."""
    def resolve(name: str, source: str) -> int:
        raise InputError(f"priority class {name} not found")

    body = {"metadata": {"name": "w", "namespace": "ns"}, "spec": {
        "priorityClassRef": {"group": "scheduling.k8s.io", "kind": "PriorityClass",
                             "name": "gone"},
        "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
            {"name": "c"}]}}}]}}
    body["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    with pytest.raises(InputError) as err:
        parse_workload(RawObject("Workload", body, Source("w.yaml", 0)), resolve,
                       semantics_for(CURRENT))
    assert str(err.value) == "w.yaml, document 1: Workload ns/w: priority class gone not found"
