"""Services, ReplicationControllers, ReplicaSets and StatefulSets: what selects a pod.

kube-scheduler's default PodTopologySpread configuration (``defaultingType: System``)
spreads a pod without its own ``topologySpreadConstraints`` over hostnames (maxSkew 3)
and zones (maxSkew 5), ScheduleAnyway, counting the pods matched by upstream
``helper.DefaultSelector`` (pkg/scheduler/framework/plugins/helper/spread.go):

* the ``spec.selector`` maps of the Services in the pod's namespace whose selector matches
  the pod (a Service without a selector matches nothing), merged;
* the pod's controller (the first ownerReference with ``controller: true``): a
  ReplicationController (``v1``) merges its selector map; a ReplicaSet or StatefulSet
  (``apps/v1``) adds its label selector's requirements. Owners missing from the input add
  nothing.

An empty result means no default constraints (``buildDefaultConstraints``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import Pod, TopologySpreadConstraint
from kubepreempt.api.selectors import LabelSelector, Requirement, SelectorError

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
# podtopologyspread/plugin.go systemDefaultConstraints.
SYSTEM_DEFAULT_CONSTRAINTS = ((LABEL_HOSTNAME, 3), (LABEL_ZONE, 5))
SOURCE_KINDS = ("Service", "ReplicationController", "ReplicaSet", "StatefulSet")


def _labels_map(raw: Any, what: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{what} must be a mapping")
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


@dataclass(slots=True)
class SpreadSources:
    """The objects ``DefaultSelector`` reads, indexed by namespace / name."""

    services: dict[str, list[dict[str, str]]] = field(default_factory=lambda: defaultdict(list))
    controllers: dict[tuple[str, str, str], LabelSelector | dict[str, str] | None] = \
        field(default_factory=dict)  # (kind, namespace, name) -> selector
    replicaset_bodies: list[Mapping[str, Any]] = field(default_factory=list)

    def add(self, kind: str, body: Mapping[str, Any], source: Source | None = None) -> None:
        """Index one Service / ReplicationController / ReplicaSet / StatefulSet."""
        meta = body.get("metadata") or {}
        ns, name = str(meta.get("namespace") or "default"), str(meta.get("name") or "")
        spec = body.get("spec") or {}
        try:
            if kind == "Service":
                selector = spec.get("selector")
                if selector is not None:  # nil selects nothing (GetPodServices)
                    self.services[ns].append(_labels_map(selector, "spec.selector"))
            elif kind == "ReplicationController":
                self.controllers[(kind, ns, name)] = _labels_map(spec.get("selector"),
                                                                 "spec.selector")
            elif kind in ("ReplicaSet", "StatefulSet"):
                self.controllers[(kind, ns, name)] = LabelSelector.parse(spec.get("selector"))
                if kind == "ReplicaSet":
                    self.replicaset_bodies.append(body)
        except (ValueError, SelectorError) as exc:
            raise InputError(str(exc), source, kind, f"{ns}/{name}") from None

    def default_selector(self, pod: Pod) -> LabelSelector | None:
        """``helper.DefaultSelector`` for ``pod``; None when it has no requirement."""
        merged: dict[str, str] = {}
        for selector in self.services.get(pod.namespace, ()):
            if all(pod.labels.get(k) == v for k, v in selector.items()):
                merged.update(selector)
        extra: tuple[Requirement, ...] = ()
        owner = controller_of(pod)
        if owner is not None:
            api_version, kind, name = owner
            found = self.controllers.get((kind, pod.namespace, name), _MISSING)
            rc = kind == "ReplicationController" and api_version == "v1"
            apps = kind in ("ReplicaSet", "StatefulSet") and api_version == "apps/v1"
            if rc and isinstance(found, dict):
                merged.update(found)
            elif apps and isinstance(found, LabelSelector):  # nil: labels.Nothing, no reqs
                extra = found.requirements
        reqs = tuple(Requirement(k, "In", (v,)) for k, v in sorted(merged.items())) + extra
        return LabelSelector(reqs) if reqs else None

    def default_constraints(self, pod: Pod) -> tuple[TopologySpreadConstraint, ...]:
        """``buildDefaultConstraints``: the system defaults with the default selector."""
        selector = self.default_selector(pod)
        if selector is None:
            return ()
        return tuple(TopologySpreadConstraint(skew, key, "ScheduleAnyway", selector)
                     for key, skew in SYSTEM_DEFAULT_CONSTRAINTS)

    def __bool__(self) -> bool:
        return bool(self.services or self.controllers)


_MISSING = object()


def controller_of(pod: Pod) -> tuple[str, str, str] | None:
    """``metav1.GetControllerOfNoCopy``: (apiVersion, kind, name) of the controller ref."""
    meta = pod.raw.get("metadata") if isinstance(pod.raw, Mapping) else None
    refs = meta.get("ownerReferences") if isinstance(meta, Mapping) else None
    for ref in refs or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return (str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""),
                    str(ref.get("name") or ""))
    return None
