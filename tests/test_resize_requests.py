"""In-place resize: a bound pod's requests while a resize is pending or in progress.

Expected answers from release-1.36 ``component-helpers/resource`` ``PodRequests`` with
``UseStatusResources`` (the scheduler's ``PodInfo.CalculateResource``): per container
that reports ``status.containerStatuses[].resources``, ``determineEffectiveRequests`` =
max(spec, actuated, allocated), without the spec while ``PodResizePending`` says
``Infeasible``; regular init containers always count their spec. Cases named after
upstream's ``TestPodResourceRequests`` rows carry its expected values.
"""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.decide import schedule

INFEASIBLE = [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]
DEFERRED = [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]


def _pod(spec: dict, status: dict | None = None):
    raw = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": spec,
           "status": status or {}}
    return parse_pod(raw, Source("t.yaml"), PriorityResolver().resolve)


def _c(name: str, cpu: str, restart: str | None = None) -> dict:
    c: dict = {"name": name, "resources": {"requests": {"cpu": cpu}}}
    if restart:
        c["restartPolicy"] = restart
    return c


def _cs(name: str, actual: dict | None = None, allocated: dict | None = None) -> dict:
    cs: dict = {"name": name}
    if actual is not None:
        cs["resources"] = {"requests": actual}
    if allocated is not None:
        cs["allocatedResources"] = allocated
    return cs


@pytest.mark.parametrize(("spec", "status", "expected"), [
    pytest.param({"containers": [_c("container-1", "4")]},
                 {"conditions": INFEASIBLE,
                  "containerStatuses": [_cs("container-1", {"cpu": "2"})]},
                 {"cpu": 2000}, id="resized, infeasible"),
    pytest.param({"containers": [_c("container-1", "4")]},
                 {"conditions": INFEASIBLE,
                  "containerStatuses": [_cs("container-1", {"cpu": "2"}, {"cpu": "4"})]},
                 {"cpu": 4000}, id="resized, infeasible & in-progress"),
    pytest.param({"containers": [_c("container-1", "4")]},
                 {"containerStatuses": [_cs("container-1", {"cpu": "2"})]},
                 {"cpu": 4000}, id="resized, no resize status"),
    pytest.param({"containers": [{"name": "container-1", "resources": {"requests": {
                     "cpu": "30m", "memory": "20M", "ephemeral-storage": "10G"}}}]},
                 {"containerStatuses": [_cs(
                     "container-1", {"cpu": "10m", "memory": "30M", "ephemeral-storage": "20G"},
                     {"cpu": "20m", "memory": "10M", "ephemeral-storage": "30G"})]},
                 {"cpu": 30, "memory": 30_000_000, "ephemeral-storage": 30_000_000_000},
                 id="resized: per-resource 3-way maximum"),
    pytest.param({"containers": [], "initContainers": [_c("restartable-init-1", "4", "Always")]},
                 {"conditions": INFEASIBLE,
                  "initContainerStatuses": [_cs("restartable-init-1", {"cpu": "2"})]},
                 {"cpu": 2000}, id="resized, restartable init container, infeasible"),
    pytest.param({"containers": [], "initContainers": [_c("restartable-init-1", "4", "Always")]},
                 {"initContainerStatuses": [_cs("restartable-init-1", {"cpu": "2"})]},
                 {"cpu": 4000}, id="resized, restartable init container, no resize status"),
    # Hand-worked from the same function:
    # a Deferred resize still counts the spec (only Infeasible drops it).
    pytest.param({"containers": [_c("c", "4")]},
                 {"conditions": DEFERRED, "containerStatuses": [_cs("c", {"cpu": "2"},
                                                                    {"cpu": "1"})]},
                 {"cpu": 4000}, id="deferred: the spec still counts"),
    # A status without `resources` is not consulted, even with allocatedResources.
    pytest.param({"containers": [_c("c", "1")]},
                 {"containerStatuses": [_cs("c", None, {"cpu": "3"})]},
                 {"cpu": 1000}, id="status without resources: spec only"),
    # Regular init containers cannot be resized: their status is never read.
    pytest.param({"containers": [_c("c", "1")], "initContainers": [_c("init", "4")]},
                 {"conditions": INFEASIBLE,
                  "initContainerStatuses": [_cs("init", {"cpu": "2"})]},
                 {"cpu": 4000}, id="regular init container: spec even when infeasible"),
    # The max is taken per container, then summed (release-1.36 AggregateContainerRequests).
    pytest.param({"containers": [_c("c1", "1"), _c("c2", "2")]},
                 {"containerStatuses": [_cs("c1", {"cpu": "2"}), _cs("c2", {"cpu": "1"})]},
                 {"cpu": 4000}, id="per-container maximum, summed"),
])
def test_pod_requests_with_resize_status(spec, status, expected):
    assert _pod(spec, status).requests == expected


def test_overhead_adds_to_the_resized_requests():
    p = _pod({"containers": [_c("c", "1")], "overhead": {"cpu": "250m"}},
             {"containerStatuses": [_cs("c", {"cpu": "1"}, {"cpu": "2"})]})
    assert p.requests == {"cpu": 2250}


def test_scoring_defaults_apply_after_the_resize_max():
    # nonzero: the container's effective requests, then 200Mi for the missing memory.
    p = _pod({"containers": [_c("c", "1")]},
             {"containerStatuses": [_cs("c", {"cpu": "1"}, {"cpu": "3"})]})
    assert (p.nonzero_cpu, p.nonzero_memory) == (3000, 200 * 1024 * 1024)


def _bound(name: str, cpu: str, status: dict) -> dict:
    out = pod(name, cpu, node_name="n1", status_extra=status)
    out["spec"]["containers"][0]["name"] = "c"
    return out


def test_allocated_resize_holds_node_capacity_for_the_scheduler():
    # Spec was resized down to 1 cpu but the kubelet still holds 3 allocated: a 2-cpu pod
    # does not fit a 4-cpu node (3 + 2 > 4).
    cluster = cluster_of(node("n1", cpu="4"),
                         _bound("running", "1", {"containerStatuses": [
                             _cs("c", {"cpu": "3"}, {"cpu": "3"})]}),
                         pod("new", "2"))
    decision = schedule(cluster, "default/new", preemption=False)
    assert decision.result == "unschedulable"
    assert decision.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_infeasible_resize_does_not_hold_the_requested_spec():
    # A resize to 8 cpu on a 4-cpu node is Infeasible: the pod holds its actual 1 cpu, and
    # a 2-cpu pod fits next to it.
    cluster = cluster_of(node("n1", cpu="4"),
                         _bound("running", "8", {"conditions": INFEASIBLE,
                                                 "containerStatuses": [
                                                     _cs("c", {"cpu": "1"}, {"cpu": "1"})]}),
                         pod("new", "2"))
    decision = schedule(cluster, "default/new", preemption=False)
    assert (decision.result, decision.node) == ("scheduled", "n1")


@pytest.mark.parametrize(("status", "expected"), [
    # pod-level resize (InPlacePodLevelResourcesVerticalScaling, beta in 1.36): the pod
    # level takes max(spec, status.resources.requests, status.allocatedResources) ...
    ({"resources": {"requests": {"cpu": "3"}}, "allocatedResources": {"cpu": "2"}}, 3000),
    # ... without the spec while the resize is Infeasible,
    ({"conditions": INFEASIBLE, "resources": {"requests": {"cpu": "1"}}}, 1000),
    # and only when status.resources is reported at all.
    ({"allocatedResources": {"cpu": "4"}}, 2000),
])
def test_pod_level_resize(status, expected):
    p = _pod({"containers": [_c("c", "500m")], "resources": {"requests": {"cpu": "2"}}},
             status)
    assert p.requests["cpu"] == expected
