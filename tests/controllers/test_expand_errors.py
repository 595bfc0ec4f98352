"""How ``expand`` words a workload it cannot expand: one line, the file and document,
then ``Kind namespace/name`` (the namespace ``default`` when the manifest names none),
then the fault (``InputError``'s format)."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError, Source
from kubepreempt.controllers.expand import Names, expand

WHERE = Source("f.yaml", 2)


def refusal(obj: dict) -> str:
    with pytest.raises(InputError) as err:
        expand(obj, Names(), source=WHERE)
    return str(err.value)


def test_an_object_without_a_name() -> None:
    assert refusal({"kind": "Deployment", "metadata": {}}) == (
        "f.yaml, document 3: Deployment: object has no metadata.name")


def test_an_object_without_a_kind() -> None:
    assert refusal({"metadata": {"name": "x"}}) == (
        "f.yaml, document 3: cannot expand: kind '' is not one of Deployment, ReplicaSet, "
        "StatefulSet, Job, CronJob, DaemonSet")


def test_a_fault_of_a_workload_without_namespace_names_it_in_default() -> None:
    assert refusal({"kind": "Deployment", "metadata": {"name": "web"},
                    "spec": {"replicas": -1}}) == (
        "f.yaml, document 3: Deployment default/web: cannot expand: spec.replicas must be "
        "a non-negative integer, got -1")


def test_a_template_fault_found_while_expanding_is_located_at_the_workload() -> None:
    """An error the expansion raises about the template (here a DaemonSet's, found when
    its pod is checked against the nodes) carries the workload's file, kind and name."""
    ds = {"kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"template": {"spec": {"containers": [{
              "name": "c", "image": "a:1", "resources": {"requests": {"memory": "x"}}}]}}}}
    assert refusal(ds) == (
        "f.yaml, document 3: DaemonSet kube-system/agent: "
        "spec.containers[c].resources.requests.memory: quantity 'x' is not a valid "
        "Kubernetes quantity")
