"""``metrics.k8s.io/v1beta1`` PodMetrics: per-pod usage as ``kubectl get podmetrics`` prints.

A pod's usage of a resource is the sum over ``containers[].usage``; quantities such as
``12345Ki``, ``250m`` and ``100n`` (metrics-server's nano-cores) are rounded up to canonical
units like every other quantity (milli-CPU, bytes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import resource_list
from kubepreempt.manifests import RawObject, reading

KIND = "PodMetrics"
GROUP = "metrics.k8s.io"


@dataclass(slots=True)
class PodUsage:
    """Summed container usage of one pod. A resource no container reports is absent."""

    key: str
    usage: dict[str, int] = field(default_factory=dict)
    source: Source = field(default_factory=Source)


def parse_one(body: Mapping, source: Source) -> PodUsage:
    """Parse one PodMetrics object; malformed ones raise :class:`InputError`."""
    meta = body.get("metadata")
    if not isinstance(meta, Mapping) or not meta.get("name"):
        raise InputError("object has no metadata.name", source, KIND)
    key = f"{meta.get('namespace') or 'default'}/{meta['name']}"
    api_version = str(body.get("apiVersion") or "")
    if api_version and not api_version.startswith(GROUP + "/"):
        raise InputError(f"apiVersion {api_version!r} is not {GROUP}/v1beta1", source, KIND, key)
    containers = body.get("containers")
    if containers is None:
        containers = []
    if not isinstance(containers, list):
        raise InputError("containers must be a list", source, KIND, key)
    total: dict[str, int] = {}
    for i, c in enumerate(containers):
        if not isinstance(c, Mapping):
            raise InputError(f"containers[{i}] must be a mapping", source, KIND, key)
        try:
            usage = resource_list(c.get("usage"), f"containers[{i}].usage")
        except ValueError as exc:
            raise InputError(str(exc), source, KIND, key) from None
        for r, q in usage.items():
            total[r] = total.get(r, 0) + q
    return PodUsage(key, total, source)


def parse_pod_metrics(objects: Iterable[RawObject]) -> dict[str, PodUsage]:
    """PodMetrics objects -> usage by pod key (``namespace/name``); duplicates are errors."""
    out: dict[str, PodUsage] = {}
    for o in objects:
        with reading(o):
            pu = parse_one(o.body, o.source)
        if pu.key in out:
            raise InputError("duplicate PodMetrics for the same pod", o.source, KIND, pu.key)
        out[pu.key] = pu
    return out
