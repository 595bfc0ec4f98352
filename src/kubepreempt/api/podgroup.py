"""``scheduling.k8s.io/v1beta1`` PodGroup and Workload (Kubernetes 1.37, GenericWorkload).

A Workload holds templates (``spec.podGroupTemplates``); controllers create PodGroups from
them; a pod joins a PodGroup with ``spec.schedulingGroup.podGroupName`` (same namespace).
kube-scheduler reads only PodGroups (and the pods naming them): a gang (``schedulingPolicy.
gang.minCount``) is placed all or nothing. A PodGroup's priority comes from its
``priorityClassName`` through the Priority admission plugin's rules, as a pod's does
(``spec.priority`` if set, else the class, else the ``globalDefault`` class, else 0).

kube-apiserver 1.37 serves these kinds only as ``v1beta1`` and only with the
GenericWorkload gate on; other versions of ``scheduling.k8s.io`` (``v1alpha2`` of 1.36)
are refused as kubectl refuses a kind the server does not serve. Objects of the same kind
in other groups (Kueue's Workload, Volcano's or the coscheduling plugin's PodGroup) are
not these and are left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import PREEMPT_LOWER_PRIORITY, Pod, parse_time
from kubepreempt.api.podgroup_validation import gate, validate_pod_group, validate_workload
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.apimachinery.field import invalid_message

GROUP = "scheduling.k8s.io"
VERSION = "v1beta1"
KINDS = ("PodGroup", "Workload")
BASIC = "basic"
GANG = "gang"
SINGLE = "single"
ALL = "all"


class RawLike(Protocol):
    """What the loader hands over for one object (``manifests.RawObject``)."""

    kind: str
    body: Mapping[str, Any]
    source: Source


@dataclass(slots=True)
class PodGroup:
    """A PodGroup: its policy, disruption mode and resolved priority."""

    namespace: str
    name: str
    policy: str  # BASIC or GANG
    min_count: int = 1  # gang.minCount (1 for basic: any one pod is enough)
    disruption_mode: str = SINGLE  # defaulted to single (+default={"single": {}})
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    workload_name: str = ""
    template_name: str = ""
    creation_timestamp: float | None = None
    source: Source = field(default_factory=Source)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @property
    def gang(self) -> bool:
        """True for the all-or-nothing policy."""
        return self.policy == GANG


@dataclass(slots=True)
class SchedulingWorkload:
    """A ``scheduling.k8s.io`` Workload: its PodGroup templates by name."""

    namespace: str
    name: str
    templates: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    source: Source = field(default_factory=Source)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


def is_scheduling_object(kind: str, body: Mapping[str, Any]) -> bool:
    """True for a PodGroup or Workload of the ``scheduling.k8s.io`` group."""
    if kind not in KINDS:
        return False
    api_version = body.get("apiVersion")
    return isinstance(api_version, str) and api_version.split("/")[0] == GROUP


def check_served(kind: str, body: Mapping[str, Any], source: Source,
                 generic_workload: bool) -> None:
    """Refuse what kube-apiserver 1.37 does not serve, in kubectl's words (one line)."""
    api_version = str(body.get("apiVersion"))
    version = api_version.split("/", 1)[1] if "/" in api_version else ""
    if version != VERSION:
        raise InputError(f'no matches for kind "{kind}" in version "{api_version}": '
                         f"kube-apiserver 1.37 serves {kind} only as {GROUP}/{VERSION}",
                         source, kind)
    if not generic_workload:
        raise InputError(f'no matches for kind "{kind}" in version "{api_version}": '
                         "the GenericWorkload feature gate is off (--feature-gates "
                         "GenericWorkload=true serves it)", source, kind)


def _name(body: Mapping[str, Any]) -> tuple[str, str]:
    meta = body.get("metadata") or {}
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _checked(kind: str, body: Mapping[str, Any], source: Source, errors: list) -> None:
    if errors:
        namespace, name = _name(body)
        raise InputError(invalid_message(f"{kind}.{GROUP}", name, errors), source, kind,
                         f"{namespace}/{name}")


def parse_pod_group(body: Mapping[str, Any], source: Source, resolver: PriorityResolver,
                    gates: Mapping[str, bool] | None = None) -> PodGroup:
    """Validate (kube-apiserver's words), default and resolve one PodGroup."""
    _checked("PodGroup", body, source, validate_pod_group(body, gates))
    namespace, name = _name(body)
    spec = body.get("spec") or {}
    policy = spec.get("schedulingPolicy") or {}
    gang = policy.get("gang")
    mode = spec.get("disruptionMode") or {}
    try:
        priority, preemption_policy = resolver.resolve(spec)
    except ValueError as exc:
        raise InputError(str(exc), source, "PodGroup", f"{namespace}/{name}") from None
    ref = spec.get("workloadRef") or {}
    meta = body.get("metadata") or {}
    return PodGroup(namespace, name, GANG if gang is not None else BASIC,
                    int(gang["minCount"]) if gang is not None else 1,
                    ALL if mode.get("all") is not None else SINGLE, priority,
                    str(spec.get("priorityClassName") or ""), preemption_policy,
                    str(ref.get("workloadName") or ""), str(ref.get("templateName") or ""),
                    parse_time(meta.get("creationTimestamp")), source)


def parse_scheduling_workload(body: Mapping[str, Any], source: Source,
                              gates: Mapping[str, bool] | None = None) -> SchedulingWorkload:
    """Validate one ``scheduling.k8s.io`` Workload (kube-apiserver's words)."""
    _checked("Workload", body, source, validate_workload(body, gates))
    namespace, name = _name(body)
    templates = {str(t["name"]): t for t in (body.get("spec") or {}).get("podGroupTemplates")
                 or []}
    return SchedulingWorkload(namespace, name, templates, source)


@dataclass(slots=True)
class GroupObjects:
    """The input's PodGroups and Workloads by ``namespace/name``."""

    pod_groups: dict[str, PodGroup] = field(default_factory=dict)
    workloads: dict[str, SchedulingWorkload] = field(default_factory=dict)


def load_group_objects(of_kind: Callable[[str], Iterable[RawLike]], resolver: PriorityResolver,
                       gates: Mapping[str, bool] | None = None) -> GroupObjects:
    """Every ``scheduling.k8s.io`` PodGroup and Workload among the loaded objects.

    ``of_kind`` is ``Documents.of``; ``gates`` the feature gates (GenericWorkload must be
    on for these kinds to be served; Kubernetes 1.37's defaults where it is silent).
    """
    out = GroupObjects()
    generic_workload = gate(gates, "GenericWorkload")
    for kind in KINDS:
        for obj in of_kind(kind):
            if not is_scheduling_object(kind, obj.body):
                continue
            check_served(kind, obj.body, obj.source, generic_workload)
            if kind == "PodGroup":
                group = parse_pod_group(obj.body, obj.source, resolver, gates)
                target: dict[str, Any] = out.pod_groups
                key = group.key
                value: Any = group
            else:
                value = parse_scheduling_workload(obj.body, obj.source, gates)
                target, key = out.workloads, value.key
            if key in target:
                raise InputError("duplicate object", obj.source, kind, key)
            target[key] = value
    return out


def pod_group_name(pod: Pod) -> str | None:
    """The PodGroup a pod belongs to (``spec.schedulingGroup.podGroupName``), if any."""
    raw = pod.raw
    if not raw:
        return None
    # Plain dicts (what a manifest is made of) skip the abstract Mapping checks: this runs
    # on every bind and remove once the snapshot's group index is built, and over every
    # pending pod per group cycle.
    if type(raw) is dict:
        spec = raw.get("spec")
        if type(spec) is dict:
            group = spec.get("schedulingGroup")
            if group is None:
                return None
            if type(group) is dict:
                name = group.get("podGroupName")
                return name if type(name) is str and name else None
    spec = raw.get("spec")
    if not isinstance(spec, Mapping):
        return None
    group = spec.get("schedulingGroup")
    if not isinstance(group, Mapping):
        return None
    name = group.get("podGroupName")
    return name if isinstance(name, str) and name else None
