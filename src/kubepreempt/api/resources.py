"""Pod resource requests and QoS class, computed by upstream's rules.

* ``pod_requests``: max(sum of regular containers + restartable init containers,
  each non-restartable init container plus the sidecars started before it), then
  pod-level ``spec.resources.requests`` replace the figures of every resource
  ``IsSupportedPodLevelResource`` accepts, then ``spec.overhead`` is added (upstream
  ``resourcehelper.PodRequests``).
* ``effective_requests``: a container's figure during an in-place resize
  (``determineEffectiveRequests``).
* ``default_pod_level``: the apiserver's pod-level defaulting (``defaultHugePagePodLimits``,
  ``defaultPodRequests``).
* ``request_quantities``: the kubelet's ``GetResourceRequestQuantity``.
* ``qos_class``: ``v1qos.ComputePodQOS`` on cpu and memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

# Scoring substitutes these for a container's *missing* cpu/memory request
# (upstream DefaultMilliCPURequest / DefaultMemoryRequest).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

BEST_EFFORT = "BestEffort"
BURSTABLE = "Burstable"
GUARANTEED = "Guaranteed"
_QOS_RESOURCES = ("cpu", "memory")
HUGEPAGES_PREFIX = "hugepages-"


@dataclass(slots=True)
class Container:
    """The resource-relevant part of a container (canonical integer amounts)."""

    name: str
    requests: dict[str, int]
    limits: dict[str, int]
    restartable: bool = False  # an init container with restartPolicy: Always (a sidecar)


def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and every ``hugepages-*`` size."""
    return name in _QOS_RESOURCES or name.startswith(HUGEPAGES_PREFIX)


def has_pod_level(resources: Mapping[str, int] | None) -> bool:
    """True when a pod-level list names a supported resource (``IsPodLevelRequestsSet``)."""
    return bool(resources) and any(is_supported_pod_level_resource(r) for r in resources)


def _is_overcommit_allowed(name: str) -> bool:
    # IsOvercommitAllowed: a native resource (no domain, or a kubernetes.io one) that is
    # not hugepages.
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith(HUGEPAGES_PREFIX)


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for key, amount in more.items():
        into[key] = into.get(key, 0) + amount


def _max_into(into: dict[str, int], other: Mapping[str, int]) -> None:
    for key, amount in other.items():
        if key not in into or amount > into[key]:
            into[key] = amount


def effective_requests(spec: Mapping[str, int], actuated: Mapping[str, int] | None,
                       allocated: Mapping[str, int] | None, infeasible: bool) -> dict[str, int]:
    """``determineEffectiveRequests``: per resource the max of spec, actuated
    (``status...resources.requests``) and allocated (``allocatedResources``); the spec is
    left out while the pod's resize is ``Infeasible`` (it will never be granted)."""
    out: dict[str, int] = {} if infeasible else dict(spec)
    _max_into(out, actuated or {})
    _max_into(out, allocated or {})
    return out


def _with_defaults(
    requests: Mapping[str, int], defaults: Mapping[str, int] | None
) -> dict[str, int]:
    out = dict(requests)
    if defaults:
        for key, amount in defaults.items():
            if key not in out:
                out[key] = amount
    return out


def aggregate(containers: Iterable[Container], init_containers: Iterable[Container],
              pick: Callable[[Container], Mapping[str, int]] = lambda c: c.requests,
              missing_defaults: Mapping[str, int] | None = None) -> dict[str, int]:
    """``AggregateContainerRequests`` (or ``...Limits`` with ``pick``): the sidecar formula."""
    reqs: dict[str, int] = {}
    for c in containers:
        _add(reqs, _with_defaults(pick(c), missing_defaults))
    restartable_sum: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in init_containers:
        c_reqs = _with_defaults(pick(c), missing_defaults)
        if c.restartable:
            # A sidecar keeps running next to the app containers ...
            _add(reqs, c_reqs)
            # ... and next to every init container that starts after it.
            _add(restartable_sum, c_reqs)
            effective = dict(restartable_sum)
        else:
            effective = dict(c_reqs)
            _add(effective, restartable_sum)
        _max_into(init_max, effective)
    _max_into(reqs, init_max)
    return reqs


def pod_requests(
    containers: Iterable[Container],
    init_containers: Iterable[Container],
    overhead: Mapping[str, int] | None = None,
    pod_level: Mapping[str, int] | None = None,
    missing_defaults: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Effective requests of a pod, as the scheduler and kubelet account them.

    ``missing_defaults`` fills in requests a container does not state (used for scoring's
    non-zero requests); explicit zeros are kept, as upstream does. ``pod_level`` are the
    pod-level requests (already defaulted); they count only when one names a supported
    resource, and then replace the containers' figure for each supported one they name.
    """
    reqs = aggregate(containers, init_containers, missing_defaults=missing_defaults)
    if has_pod_level(pod_level):
        assert pod_level is not None
        for key, amount in pod_level.items():
            if is_supported_pod_level_resource(key):
                reqs[key] = amount
    if overhead:
        _add(reqs, overhead)
    return reqs


def default_pod_level(containers: list[Container], init_containers: list[Container],
                      requests: dict[str, int], limits: dict[str, int]
                      ) -> tuple[dict[str, int], dict[str, int]]:
    """The apiserver's pod-level defaulting for a pod with ``spec.resources``.

    ``defaultHugePagePodLimits``: a hugepages size the containers limit but the pod names in
    neither list gets the containers' aggregate as its pod-level limit.
    ``defaultPodRequests`` (only with pod-level limits): a missing cpu/memory request
    defaults to the containers' aggregate request where a container states one, and any
    supported resource still missing defaults to its pod-level limit.
    """
    requests, limits = dict(requests), dict(limits)
    if requests or limits:
        for key, amount in aggregate(containers, init_containers, lambda c: c.limits).items():
            if key.startswith(HUGEPAGES_PREFIX) and key not in requests:
                limits.setdefault(key, amount)
    if not limits:
        return requests, limits
    for key, amount in aggregate(containers, init_containers).items():
        if key not in requests and is_supported_pod_level_resource(key) \
                and _is_overcommit_allowed(key):
            requests[key] = amount
    for key, amount in limits.items():
        if key not in requests and is_supported_pod_level_resource(key):
            requests[key] = amount
    return requests, limits


def request_quantities(containers: Iterable[Container], init_containers: Iterable[Container],
                       overhead: Mapping[str, int] | None, pod_requests_: Mapping[str, int],
                       pod_limits: Mapping[str, int]) -> dict[str, int]:
    """The kubelet's ``GetResourceRequestQuantity`` for every resource the pod names.

    Spec requests only (no resize status). With pod-level resources set the containers are
    skipped and only the pod-level requests count. Overhead is added to a resource only
    when the pod requests it at all: an overhead-only resource stays at zero.
    """
    if has_pod_level(pod_requests_) or has_pod_level(pod_limits):
        base = pod_requests([], [], None, pod_requests_)
    else:
        base = aggregate(containers, init_containers)
    out = dict(base)
    for key, amount in (overhead or {}).items():
        if out.get(key, 0) != 0:
            out[key] += amount
    return out


def qos_class(
    containers: Iterable[Container],
    init_containers: Iterable[Container],
    pod_level_requests: Mapping[str, int] | None = None,
    pod_level_limits: Mapping[str, int] | None = None,
) -> str:
    """QoS class by ``v1qos.ComputePodQOS`` (cpu and memory only; zero counts as unset)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    if pod_level_requests or pod_level_limits:
        sources = [(pod_level_requests or {}, pod_level_limits or {})]
    else:
        sources = [(c.requests, c.limits) for c in (*init_containers, *containers)]
    for c_requests, c_limits in sources:
        for key in _QOS_RESOURCES:
            if c_requests.get(key, 0) > 0:
                requests[key] = requests.get(key, 0) + c_requests[key]
        found = set()
        for key in _QOS_RESOURCES:
            if c_limits.get(key, 0) > 0:
                found.add(key)
                limits[key] = limits.get(key, 0) + c_limits[key]
        if len(found) < len(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed:
        for key, amount in requests.items():
            if limits.get(key) != amount:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE
