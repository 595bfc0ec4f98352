"""``kubelet.requests.request_quantity`` for a pod built in code, without a manifest.

Upstream ``v1resource.GetResourceRequestQuantity``: the pod's requests of the resource
(pod-level ones when set), plus ``spec.overhead`` only for a resource it requests; a
resource it does not request is zero. A pod built in code carries no overhead, so its
figure is its plain requests.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.kubelet.requests import request_quantity


def test_pod_without_kubelet_figures_uses_its_requests() -> None:
    pod = Pod(namespace="default", name="p", requests={"cpu": 250, "memory": 64 << 20})
    assert pod.kubelet_requests is None
    assert request_quantity(pod, "cpu") == 250
    assert request_quantity(pod, "memory") == 64 << 20
    assert request_quantity(pod, "ephemeral-storage") == 0
