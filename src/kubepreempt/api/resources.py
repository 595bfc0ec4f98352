"""Pod resource requests and QoS class, computed by upstream's rules.

* ``pod_requests``: max(sum of regular containers + restartable init containers,
  each non-restartable init container plus the sidecars started before it), plus
  ``spec.overhead`` (upstream ``resourcehelper.PodRequests``). Pod-level
  ``spec.resources`` (PodLevelResources) replaces the cpu/memory figures when set.
* ``qos_class``: ``v1qos.ComputePodQOS`` on cpu and memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Scoring substitutes these for a container's *missing* cpu/memory request
# (upstream DefaultMilliCPURequest / DefaultMemoryRequest).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

BEST_EFFORT = "BestEffort"
BURSTABLE = "Burstable"
GUARANTEED = "Guaranteed"
_QOS_RESOURCES = ("cpu", "memory")


@dataclass(slots=True)
class Container:
    """The resource-relevant part of a container (canonical integer amounts)."""

    name: str
    requests: dict[str, int]
    limits: dict[str, int]
    restartable: bool = False  # an init container with restartPolicy: Always (a sidecar)


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for key, amount in more.items():
        into[key] = into.get(key, 0) + amount


def _max_into(into: dict[str, int], other: Mapping[str, int]) -> None:
    for key, amount in other.items():
        if amount > into.get(key, 0):
            into[key] = amount


def _with_defaults(
    requests: Mapping[str, int], defaults: Mapping[str, int] | None
) -> dict[str, int]:
    out = dict(requests)
    if defaults:
        for key, amount in defaults.items():
            if key not in out:
                out[key] = amount
    return out


def pod_requests(
    containers: Iterable[Container],
    init_containers: Iterable[Container],
    overhead: Mapping[str, int] | None = None,
    pod_level: Mapping[str, int] | None = None,
    missing_defaults: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Effective requests of a pod, as the scheduler and kubelet account them.

    ``missing_defaults`` fills in requests a container does not state (used for scoring's
    non-zero requests); explicit zeros are kept, as upstream does.
    """
    reqs: dict[str, int] = {}
    for c in containers:
        _add(reqs, _with_defaults(c.requests, missing_defaults))
    restartable_sum: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in init_containers:
        c_reqs = _with_defaults(c.requests, missing_defaults)
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
    if pod_level:
        for key in _QOS_RESOURCES:
            if key in pod_level:
                reqs[key] = pod_level[key]
    if overhead:
        _add(reqs, overhead)
    return reqs


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
