"""Pod-level resources (PodLevelResources, beta and on in 1.36).

Expected answers from ``component-helpers/resource`` (``PodRequests``,
``IsSupportedPodLevelResource``: cpu, memory and every ``hugepages-*``), the apiserver's
defaulting (``pkg/apis/core/v1/defaults.go`` ``defaultPodRequests``,
``defaultHugePagePodLimits``), the scheduler's ``getNonMissingContainerRequests`` and the
kubelet's ``GetResourceRequestQuantity``.
"""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.decide import schedule

MI = 1 << 20
GI = 1 << 30


def _pod(spec: dict):
    raw = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": spec}
    return parse_pod(raw, Source("t.yaml"), PriorityResolver().resolve)


def _c(name: str, requests: dict | None = None, limits: dict | None = None) -> dict:
    res: dict = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {"name": name, "resources": res}


def test_pod_level_hugepages_request_replaces_the_containers_total():
    p = _pod({"containers": [_c("c", limits={"hugepages-2Mi": "100Mi", "memory": "1Gi"})],
              "resources": {"requests": {"hugepages-2Mi": "300Mi", "memory": "1Gi"},
                            "limits": {"hugepages-2Mi": "300Mi", "memory": "1Gi"}}})
    assert p.requests["hugepages-2Mi"] == 300 * MI


def test_pod_level_hugepages_count_in_node_resources_fit():
    p = pod("p", memory="1Gi", spec_extra={"resources": {
        "requests": {"hugepages-2Mi": "300Mi", "memory": "1Gi"},
        "limits": {"hugepages-2Mi": "300Mi", "memory": "1Gi"}}})
    p["spec"]["containers"][0]["resources"]["limits"] = {"hugepages-2Mi": "100Mi",
                                                         "memory": "1Gi"}
    cluster = cluster_of(node("n1", **{"hugepages-2Mi": "256Mi"}), p)
    decision = schedule(cluster, "default/p", preemption=False)
    # 300Mi at the pod level, not the containers' 100Mi, against 256Mi allocatable.
    assert decision.result == "unschedulable"
    assert decision.message.startswith("0/1 nodes are available: 1 Insufficient hugepages-2Mi.")


def test_unsupported_pod_level_resource_is_ignored():
    # ephemeral-storage is not a pod-level resource: the pod level is "not set".
    p = _pod({"containers": [_c("c", {"cpu": "1", "ephemeral-storage": "1Gi"})],
              "resources": {"requests": {"ephemeral-storage": "5Gi"}}})
    assert p.requests == {"cpu": 1000, "ephemeral-storage": GI}


@pytest.mark.parametrize(("containers", "pod_resources", "expected"), [
    # defaultPodRequests: with pod-level limits, a missing pod-level request is the
    # containers' total where they state one (cpu 1 + 500m), else the pod-level limit.
    ([_c("a", {"cpu": "1"}), _c("b", {"cpu": "500m"})],
     {"limits": {"cpu": "4", "memory": "4Gi"}},
     {"cpu": 1500, "memory": 4 * GI}),
    # An explicit pod-level request is kept.
    ([_c("a", {"cpu": "1"})], {"requests": {"cpu": "2"}, "limits": {"cpu": "4"}},
     {"cpu": 2000}),
    # Container requests defaulted from container limits count as stated requests.
    ([_c("a", limits={"memory": "1Gi"})], {"limits": {"memory": "2Gi"}},
     {"memory": GI}),
    # Without pod-level limits nothing is defaulted: the containers' figures stand.
    ([_c("a", {"cpu": "1", "memory": "1Gi"})], {"requests": {"cpu": "3"}},
     {"cpu": 3000, "memory": GI}),
])
def test_default_pod_requests(containers, pod_resources, expected):
    assert _pod({"containers": containers, "resources": pod_resources}).requests == expected


def test_no_request_defaulting_without_pod_level_limits():
    # Pod-level requests name cpu only and there are no pod-level limits: memory is not
    # defaulted, so the kubelet's GetResourceRequestQuantity (pod level only) sees none,
    # while PodRequests falls back to the containers' 1Gi for the scheduler.
    p = _pod({"containers": [_c("a", {"cpu": "1", "memory": "1Gi"})],
              "resources": {"requests": {"cpu": "3"}}})
    assert p.kubelet_requests == {"cpu": 3000}
    assert p.requests == {"cpu": 3000, "memory": GI}


def test_nonzero_defaults_with_pod_level_requests_only_for_unnamed_resources():
    # Pod-level requests set: getNonMissingContainerRequests adds a default only for a
    # resource neither the pod level nor any container names. cpu is named (500m), so b
    # gets no 100m default; memory is set at the pod level.
    p = _pod({"containers": [_c("a", {"cpu": "500m"}), _c("b")],
              "resources": {"requests": {"memory": "1Gi"}}})
    assert (p.nonzero_cpu, p.nonzero_memory) == (500, GI)
    # Without pod-level resources every container missing cpu gets the 100m default.
    p = _pod({"containers": [_c("a", {"cpu": "500m"}), _c("b")]})
    assert p.nonzero_cpu == 600


def test_nonzero_defaults_with_pod_level_requests_and_no_cpu_anywhere():
    p = _pod({"containers": [_c("a"), _c("b")],
              "resources": {"requests": {"memory": "1Gi"}}})
    assert (p.nonzero_cpu, p.nonzero_memory) == (200, GI)


def test_kubelet_request_quantity_uses_only_the_pod_level_when_set():
    # GetResourceRequestQuantity skips container-level resources when pod-level resources
    # are set: ephemeral-storage (not a pod-level resource) counts zero.
    p = _pod({"containers": [_c("a", {"cpu": "500m", "ephemeral-storage": "1Gi"})],
              "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}})
    assert p.kubelet_requests == {"cpu": 1000, "memory": GI}
    assert p.requests["ephemeral-storage"] == GI  # the scheduler still counts it


def test_hugepage_pod_limit_defaults_from_containers_then_sets_the_request():
    # defaultHugePagePodLimits: the containers' 100Mi hugepages limit becomes the pod-level
    # limit; defaultPodRequests then defaults the pod-level request to that limit
    # (hugepages are not overcommittable, so not from the container requests directly).
    p = _pod({"containers": [_c("a", {"cpu": "1"}, {"hugepages-2Mi": "100Mi",
                                                    "memory": "1Gi"})],
              "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}})
    assert p.kubelet_requests == {"cpu": 1000, "memory": GI, "hugepages-2Mi": 100 * MI}


def test_hugepage_request_defaults_to_the_pod_limit_not_the_containers():
    # Hugepages are not overcommittable: a missing pod-level request takes the pod-level
    # limit (300Mi), not the containers' 100Mi.
    p = _pod({"containers": [_c("a", limits={"hugepages-2Mi": "100Mi", "memory": "1Gi"})],
              "resources": {"limits": {"hugepages-2Mi": "300Mi", "memory": "2Gi"}}})
    assert p.requests == {"hugepages-2Mi": 300 * MI, "memory": GI}
