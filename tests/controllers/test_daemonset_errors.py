"""Where an error in a DaemonSet's pod template points: like a Deployment's, at the
file, document and DaemonSet (the controller never creates a pod from an invalid
template, so no pod is named)."""

from __future__ import annotations

import pytest
from builders import cluster_of, docs_of, node

from kubepreempt.api.errors import InputError
from kubepreempt.whatif.place import expand_documents


def test_a_bad_template_quantity_names_the_daemonset() -> None:
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"template": {"metadata": {"labels": {"app": "agent"}},
                                "spec": {"containers": [{
                                    "name": "c", "image": "agent:1",
                                    "resources": {"requests": {"cpu": "lots"}}}]}}}}
    with pytest.raises(InputError) as err:
        expand_documents(cluster_of(node("n1")), docs_of(ds))
    assert str(err.value) == (
        "test.yaml, document 1: DaemonSet kube-system/agent: "
        "spec.containers[c].resources.requests.cpu: quantity 'lots' is not a valid "
        "Kubernetes quantity")
