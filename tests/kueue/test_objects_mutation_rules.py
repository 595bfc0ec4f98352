"""Reading Kueue objects at their edges (:mod:`kubepreempt.kueue.objects`): v1beta2's
``spec.priorityClassRef`` (``apis/kueue/v1beta2`` ``PriorityClassRef``, group and kind
of a WorkloadPriorityClass or a PriorityClass, as the v1beta1 conversion maps
``priorityClassSource``)."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, docs

from kubepreempt.api.errors import InputError
from kubepreempt.kueue.admission import load_inputs


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
