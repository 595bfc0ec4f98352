"""A pod manifest's resource figures: what the scheduler, scoring and the kubelet count.

``pod_resource_figures(spec, status)`` reads containers, init containers, overhead,
pod-level ``spec.resources`` and the in-place resize status, applies the apiserver's
defaulting (a container limit without a request sets the request; pod-level requests per
``defaultPodRequests``) and returns:

* ``requests`` — the scheduler's ``PodInfo.CalculateResource``: ``PodRequests`` with
  ``UseStatusResources`` (InPlacePodVerticalScaling is GA) and pod-level resize
  (InPlacePodLevelResourcesVerticalScaling is beta, on, in 1.36). A container with a
  status that reports ``resources`` counts ``max(spec, actuated, allocated)`` per resource,
  without the spec while the resize is ``Infeasible``; non-restartable init containers
  always count their spec (they cannot be resized).
* ``nonzero_cpu`` / ``nonzero_memory`` — the same with scoring's defaults for a missing
  cpu/memory request (``getNonMissingContainerRequests``).
* ``qos`` — ``ComputePodQOS``.
* ``kubelet_requests`` — ``GetResourceRequestQuantity`` per resource (spec only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from kubepreempt.api.fields import as_mapping as _mapping
from kubepreempt.api.quantity import resource_list
from kubepreempt.api.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Container,
    default_pod_level,
    effective_requests,
    has_pod_level,
    pod_requests,
    qos_class,
    request_quantities,
)

RESIZE_PENDING = "PodResizePending"
INFEASIBLE = "Infeasible"


class PodResources(NamedTuple):
    """The resource figures of one pod (see the module docstring)."""

    requests: dict[str, int]
    nonzero_cpu: int
    nonzero_memory: int
    qos: str
    kubelet_requests: dict[str, int]


def parse_containers(raw: Any, what: str, init: bool) -> list[Container]:
    """Containers with requests defaulted from limits (``SetDefaults_Pod``)."""
    out = []
    for i, c in enumerate(raw or []):
        c = _mapping(c, what)
        res = _mapping(c.get("resources"), f"{what}.resources")
        name = str(c.get("name") or i)
        requests = resource_list(res.get("requests"), f"{what}[{name}].resources.requests")
        limits = resource_list(res.get("limits"), f"{what}[{name}].resources.limits")
        # API defaulting: a limit without a request sets the request to the limit.
        for key, amount in limits.items():
            requests.setdefault(key, amount)
        out.append(Container(name, requests, limits,
                             restartable=init and c.get("restartPolicy") == "Always"))
    return out


def resize_infeasible(status: Mapping[str, Any]) -> bool:
    """``IsPodResizeInfeasible``: the first PodResizePending condition says Infeasible."""
    for cond in status.get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == RESIZE_PENDING:
            return cond.get("reason") == INFEASIBLE
    return False


def _statuses(status: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    # Upstream indexes containerStatuses then initContainerStatuses by name; a later entry
    # with the same name wins, as in its map.
    out: dict[str, Mapping[str, Any]] = {}
    for field in ("containerStatuses", "initContainerStatuses"):
        for i, cs in enumerate(status.get(field) or []):
            cs = _mapping(cs, f"status.{field}[{i}]")
            out[str(cs.get("name") or "")] = cs
    return out


def _resized(c: Container, statuses: Mapping[str, Mapping[str, Any]],
             infeasible: bool) -> Container:
    cs = statuses.get(c.name)
    if cs is None or cs.get("resources") is None:
        return c  # no resources reported: the spec counts
    what = f"status.containerStatuses[{c.name}]"
    res = _mapping(cs.get("resources"), f"{what}.resources")
    actuated = resource_list(res.get("requests"), f"{what}.resources.requests")
    allocated = resource_list(cs.get("allocatedResources"), f"{what}.allocatedResources")
    return Container(c.name, effective_requests(c.requests, actuated, allocated, infeasible),
                     c.limits, c.restartable)


def _pod_level_resized(spec_requests: dict[str, int], status: Mapping[str, Any],
                       infeasible: bool) -> dict[str, int]:
    status_res = status.get("resources")
    if status_res is None or not has_pod_level(spec_requests):
        return spec_requests
    res = _mapping(status_res, "status.resources")
    effective = effective_requests(
        spec_requests, resource_list(res.get("requests"), "status.resources.requests"),
        resource_list(status.get("allocatedResources"), "status.allocatedResources"),
        infeasible)
    # Only the resources the spec names are replaced, each by its effective figure (zero
    # when an infeasible resize leaves no status figure for it).
    return {k: effective.get(k, 0) for k in spec_requests}


def pod_resource_figures(spec: Mapping[str, Any], status: Mapping[str, Any]) -> PodResources:
    """The resource figures of a pod from its ``spec`` and ``status`` mappings."""
    containers = parse_containers(spec.get("containers"), "spec.containers", False)
    inits = parse_containers(spec.get("initContainers"), "spec.initContainers", True)
    overhead = resource_list(spec.get("overhead"), "spec.overhead")
    pod_res = spec.get("resources")
    pod_req: dict[str, int] = {}
    pod_lim: dict[str, int] = {}
    if pod_res is not None:
        pod_res = _mapping(pod_res, "spec.resources")
        pod_req, pod_lim = default_pod_level(
            containers, inits, resource_list(pod_res.get("requests"),
                                             "spec.resources.requests"),
            resource_list(pod_res.get("limits"), "spec.resources.limits"))
    kubelet_requests = request_quantities(containers, inits, overhead, pod_req, pod_lim)
    qos = qos_class(containers, inits, pod_req if pod_res else None,
                    pod_lim if pod_res else None)
    statuses = _statuses(status)
    infeasible = resize_infeasible(status)
    if statuses:
        containers = [_resized(c, statuses, infeasible) for c in containers]
        inits = [_resized(c, statuses, infeasible) if c.restartable else c for c in inits]
    pod_level = _pod_level_resized(pod_req, status, infeasible)
    requests = pod_requests(containers, inits, overhead, pod_level)
    if has_pod_level(pod_req):
        # getNonMissingContainerRequests: with pod-level requests a default applies only
        # to cpu/memory that neither the pod level nor any container names.
        defaults = {k: v for k, v in (("cpu", DEFAULT_MILLI_CPU_REQUEST),
                                      ("memory", DEFAULT_MEMORY_REQUEST)) if k not in requests}
    else:
        defaults = {"cpu": DEFAULT_MILLI_CPU_REQUEST, "memory": DEFAULT_MEMORY_REQUEST}
    nonzero = (pod_requests(containers, inits, overhead, pod_level, defaults) if defaults
               else requests)
    return PodResources(requests, nonzero.get("cpu", 0), nonzero.get("memory", 0), qos,
                        kubelet_requests)
