"""Typed Kubernetes objects: the subset of Pod, Node, PDB and Namespace the engine uses.

Objects are parsed from the plain mappings that ``kubectl get -o yaml|json`` prints. Each
``from_dict`` raises :class:`InputError` naming the object when a field is malformed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.fields import as_mapping as _mapping
from kubepreempt.api.pod_resources import PodResources, pod_resource_figures
from kubepreempt.api.ports import HostPort, host_ports
from kubepreempt.api.quantity import resource_list
from kubepreempt.api.resources import (
    BEST_EFFORT,
    BURSTABLE,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    GUARANTEED,
)
from kubepreempt.api.selectors import (
    LabelSelector,
    NodeSelector,
    NodeSelectorTerm,
    Requirement,
    SelectorError,
)

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
_EFFECTS = {NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE}
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"
DEFAULT_GRACE_PERIOD = 30


# Timestamp text -> epoch seconds: pods started in one rollout share their seconds, and a
# lookup is ten times cheaper than parsing.
_TIMES: dict[str, float] = {}


def parse_time(raw: Any) -> float | None:
    """RFC 3339 timestamp -> seconds since the epoch (``None`` stays ``None``)."""
    if raw is None or raw == "":
        return None
    if type(raw) is not str:
        if isinstance(raw, datetime):  # PyYAML turns unquoted timestamps into datetimes
            return raw.timestamp()
        if not isinstance(raw, str):
            raise ValueError(f"timestamp {raw!r} is not a string")
    seconds = _TIMES.get(raw)
    if seconds is None:
        seconds = datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
        if len(_TIMES) >= 65536:
            _TIMES.clear()
        _TIMES[raw] = seconds
    return seconds


def _str_map(raw: Any, what: str) -> dict[str, str]:
    if not raw and type(raw) is dict:
        return {}
    return {str(k): "" if v is None else str(v) for k, v in _mapping(raw, what).items()}


@dataclass(frozen=True, slots=True)
class Taint:
    """A node taint."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod toleration, matched by ``ToleratesTaint``."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """True when this toleration tolerates ``taint`` (empty key + Exists = all)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.operator in ("", "Equal") and self.value == taint.value


def tolerates_all(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    """True when any toleration tolerates ``taint``."""
    return any(t.tolerates(taint) for t in tolerations)


def _taints(raw: Any) -> tuple[Taint, ...]:
    out = []
    for t in raw or []:
        t = _mapping(t, "taint")
        effect = t.get("effect", "")
        if effect not in _EFFECTS:
            raise ValueError(f"taint effect {effect!r} is not one of {sorted(_EFFECTS)}")
        if not t.get("key"):
            raise ValueError("taint without a key")
        out.append(Taint(str(t["key"]), str(t.get("value") or ""), effect))
    return tuple(out)


def _tolerations(raw: Any) -> tuple[Toleration, ...]:
    out = []
    for t in raw or []:
        t = _mapping(t, "toleration")
        op = t.get("operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise ValueError(f"toleration operator {op!r} is not Equal or Exists")
        effect = t.get("effect") or ""
        if effect and effect not in _EFFECTS:
            raise ValueError(f"toleration effect {effect!r} is not one of {sorted(_EFFECTS)}")
        out.append(Toleration(str(t.get("key") or ""), op, str(t.get("value") or ""), effect))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """A pod (anti-)affinity term. ``selector`` None matches no pod."""

    selector: LabelSelector | None
    namespaces: frozenset[str]
    topology_key: str
    namespace_selector: LabelSelector | None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    """A preferred pod (anti-)affinity term with its weight."""

    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class WeightedNodeSelectorTerm:
    """A preferred node affinity term with its weight."""

    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class Affinity:
    """Node affinity, pod affinity and pod anti-affinity of a pod."""

    node_required: NodeSelector | None = None
    node_preferred: tuple[WeightedNodeSelectorTerm, ...] = ()
    pod_required: tuple[PodAffinityTerm, ...] = ()
    pod_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    anti_required: tuple[PodAffinityTerm, ...] = ()
    anti_preferred: tuple[WeightedPodAffinityTerm, ...] = ()

    @property
    def has_pod_terms(self) -> bool:
        """True when any pod (anti-)affinity term is present."""
        return bool(self.pod_required or self.pod_preferred or self.anti_required
                    or self.anti_preferred)


def _pod_affinity_term(raw: Any, namespace: str, labels: Mapping[str, str]) -> PodAffinityTerm:
    raw = _mapping(raw, "pod affinity term")
    selector = LabelSelector.parse(raw.get("labelSelector"))
    ns_selector = LabelSelector.parse(raw.get("namespaceSelector"))
    namespaces = frozenset(str(n) for n in raw.get("namespaces") or [])
    if not namespaces and ns_selector is None:
        namespaces = frozenset({namespace})  # upstream: the pod's own namespace
    match_keys = tuple(str(k) for k in raw.get("matchLabelKeys") or [])
    mismatch_keys = tuple(str(k) for k in raw.get("mismatchLabelKeys") or [])
    # matchLabelKeys / mismatchLabelKeys are merged into the selector at admission
    # (MatchLabelKeysInPodAffinity): key In (value) / key NotIn (value) for present keys.
    if selector is not None and (match_keys or mismatch_keys):
        extra = tuple(Requirement(k, "In", (labels[k],)) for k in match_keys if k in labels)
        extra += tuple(
            Requirement(k, "NotIn", (labels[k],)) for k in mismatch_keys if k in labels
        )
        selector = selector.with_extra(extra)
    topology_key = raw.get("topologyKey")
    if not topology_key:
        raise ValueError("pod affinity term without a topologyKey")
    return PodAffinityTerm(selector, namespaces, str(topology_key), ns_selector, match_keys,
                           mismatch_keys)


def _weighted_pod_terms(raw: Any, namespace: str, labels: Mapping[str, str]):
    out = []
    for w in raw or []:
        w = _mapping(w, "weighted pod affinity term")
        weight = int(w.get("weight", 0))
        if not 1 <= weight <= 100:
            raise ValueError(f"preferred pod affinity weight {weight} is not in 1..100")
        out.append(WeightedPodAffinityTerm(
            weight, _pod_affinity_term(w.get("podAffinityTerm"), namespace, labels)))
    return tuple(out)


def parse_affinity(raw: Any, namespace: str, labels: Mapping[str, str]) -> Affinity | None:
    """Parse ``spec.affinity`` (``None`` when absent or empty)."""
    raw = _mapping(raw, "spec.affinity")
    if not raw:
        return None
    node = _mapping(raw.get("nodeAffinity"), "nodeAffinity")
    pod = _mapping(raw.get("podAffinity"), "podAffinity")
    anti = _mapping(raw.get("podAntiAffinity"), "podAntiAffinity")
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    node_required = None
    if required is not None:
        terms = _mapping(required, "required node affinity").get("nodeSelectorTerms") or []
        node_required = NodeSelector(tuple(NodeSelectorTerm.parse(t) for t in terms))
    node_preferred = []
    for p in node.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        p = _mapping(p, "preferred node affinity")
        weight = int(p.get("weight", 0))
        if not 1 <= weight <= 100:
            raise ValueError(f"preferred node affinity weight {weight} is not in 1..100")
        node_preferred.append(WeightedNodeSelectorTerm(weight, NodeSelectorTerm.parse(
            p.get("preference"))))

    def required_terms(src: Mapping[str, Any]) -> tuple[PodAffinityTerm, ...]:
        return tuple(_pod_affinity_term(t, namespace, labels)
                     for t in src.get("requiredDuringSchedulingIgnoredDuringExecution") or [])

    return Affinity(
        node_required=node_required,
        node_preferred=tuple(node_preferred),
        pod_required=required_terms(pod),
        pod_preferred=_weighted_pod_terms(
            pod.get("preferredDuringSchedulingIgnoredDuringExecution"), namespace, labels),
        anti_required=required_terms(anti),
        anti_preferred=_weighted_pod_terms(
            anti.get("preferredDuringSchedulingIgnoredDuringExecution"), namespace, labels),
    )


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    """One ``spec.topologySpreadConstraints`` entry, with upstream's defaults applied."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: tuple[str, ...] = ()


def _spread_constraints(raw: Any, labels: Mapping[str, str]):
    out = []
    for c in raw or []:
        c = _mapping(c, "topology spread constraint")
        max_skew = int(c.get("maxSkew", 0))
        if max_skew < 1:
            raise ValueError("topology spread maxSkew must be at least 1")
        when = c.get("whenUnsatisfiable", "DoNotSchedule")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise ValueError(f"whenUnsatisfiable {when!r} is not DoNotSchedule/ScheduleAnyway")
        key = c.get("topologyKey")
        if not key:
            raise ValueError("topology spread constraint without a topologyKey")
        min_domains = c.get("minDomains")
        if min_domains is not None:
            min_domains = int(min_domains)
            if min_domains < 1 or when != "DoNotSchedule":
                raise ValueError("minDomains must be >= 1 and needs whenUnsatisfiable: "
                                 "DoNotSchedule")
        selector = LabelSelector.parse(c.get("labelSelector"))
        match_keys = tuple(str(k) for k in c.get("matchLabelKeys") or [])
        if selector is not None and match_keys:
            selector = selector.with_extra(tuple(
                Requirement(k, "In", (labels[k],)) for k in match_keys if k in labels))
        nap = c.get("nodeAffinityPolicy") or "Honor"
        ntp = c.get("nodeTaintsPolicy") or "Ignore"
        if nap not in ("Honor", "Ignore") or ntp not in ("Honor", "Ignore"):
            raise ValueError("nodeAffinityPolicy/nodeTaintsPolicy must be Honor or Ignore")
        out.append(TopologySpreadConstraint(max_skew, str(key), when, selector,
                                            min_domains or 1, nap, ntp, match_keys))
    return tuple(out)


@dataclass(slots=True, eq=False)
class Pod:
    """A pod, with its effective requests, QoS class and priority resolved."""

    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    node_name: str = ""
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    requests: dict[str, int] = field(default_factory=dict)
    nonzero_cpu: int = DEFAULT_MILLI_CPU_REQUEST
    nonzero_memory: int = DEFAULT_MEMORY_REQUEST
    qos: str = "BestEffort"
    # GetResourceRequestQuantity per resource, what the kubelet frees and ranks by (spec
    # requests; overhead only on a resource the pod requests). None: same as ``requests``.
    kubelet_requests: dict[str, int] | None = None
    tolerations: tuple[Toleration, ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    spread: tuple[TopologySpreadConstraint, ...] = ()
    host_ports: tuple[HostPort, ...] = ()  # GetHostPorts: (hostIP, protocol, hostPort)
    deletion_timestamp: float | None = None
    preempted_by_scheduler: bool = False
    nominated_node_name: str = ""
    start_time: float | None = None
    creation_timestamp: float | None = None
    termination_grace_period: int = DEFAULT_GRACE_PERIOD
    phase: str = ""
    scheduler_name: str = "default-scheduler"
    scheduling_gates: tuple[str, ...] = ()  # spec.schedulingGates names
    source: Source = field(default_factory=Source)
    raw: Mapping[str, Any] = field(default_factory=dict)
    # ``namespace/name``: stored, not a property, because every layer reads it (the
    # snapshot, the queue, the simulator's records); names never change after creation.
    key: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.key = f"{self.namespace}/{self.name}"

    @property
    def terminating(self) -> bool:
        """True once ``metadata.deletionTimestamp`` is set."""
        return self.deletion_timestamp is not None

    @property
    def bound(self) -> bool:
        """True when the pod has a node (``spec.nodeName``)."""
        return bool(self.node_name)

    def __repr__(self) -> str:
        return f"Pod({self.key}, prio={self.priority}, node={self.node_name or '-'})"


# Parsed resource figures by the pod's resource shape: dumps repeat a few request
# templates over thousands of pods.
_RESOURCE_CACHE: dict[tuple, PodResources] = {}
_NO_STATUS_RESOURCES: tuple = ()


def _status_shape(status: Mapping[str, Any]) -> tuple | None:
    """The resize-relevant part of a status as a hashable key (None: take the full path)."""
    parts: list = []
    for list_name in ("containerStatuses", "initContainerStatuses"):
        entries = status.get(list_name)
        if not entries:
            continue
        if type(entries) is not list:
            return None
        for cs in entries:
            if type(cs) is not dict:
                return None
            res, alloc = cs.get("resources"), cs.get("allocatedResources")
            if res is None and alloc is None:
                continue
            if (res is not None and type(res) is not dict) or (
                    alloc is not None and type(alloc) is not dict):
                return None
            req = (res or {}).get("requests")
            if req is not None and type(req) is not dict:
                return None
            try:
                parts.append((cs.get("name"), res is not None,
                              tuple(sorted((req or {}).items())),
                              tuple(sorted((alloc or {}).items()))))
            except TypeError:
                return None
    if status.get("resources") is not None or status.get("allocatedResources") is not None:
        return None
    if not parts:
        return _NO_STATUS_RESOURCES
    for cond in status.get("conditions") or []:
        if type(cond) is dict and cond.get("type") == "PodResizePending":
            parts.append(("PodResizePending", cond.get("reason")))
            break
    return tuple(parts)


def _resource_shape(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple | None:
    """A hashable key for the common shape: plain containers whose requests and limits
    are string quantities, no init containers, overhead or pod-level resources, and the
    resize status. Anything else (including anything that would fail to parse) takes the
    full path."""
    if ("initContainers" in spec or "overhead" in spec or "resources" in spec
            or type(spec.get("containers")) is not list):
        return None
    status_key = _status_shape(status)
    if status_key is None:
        return None
    key: list = [status_key]
    for c in spec["containers"]:
        if type(c) is not dict:
            return None
        res = c.get("resources")
        if res is None:
            key.append((c.get("name"), (), ()))
            continue
        if type(res) is not dict:
            return None
        parts = [c.get("name")]
        for part in (res.get("requests"), res.get("limits")):
            if part is None:
                parts.append(())
                continue
            if type(part) is not dict:
                return None
            items = tuple(part.items())
            for k, v in items:
                if type(k) is not str or type(v) is not str:
                    return None
            parts.append(items)
        key.append(tuple(parts))
    try:
        hash(key[0])
    except TypeError:
        return None
    return tuple(key)


def _gate_names(value: Any) -> tuple[str, ...]:
    """``spec.schedulingGates`` as names (a gate is ``{name: ...}``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("spec.schedulingGates must be a list")
    return tuple(str(g.get("name", "")) if isinstance(g, dict) else str(g) for g in value)


_QOS_CLASSES = (BEST_EFFORT, BURSTABLE, GUARANTEED)


def _qos(status: Mapping[str, Any], computed: str) -> str:
    """``GetPodQOS``: the stored ``status.qosClass`` (immutable once set), else computed."""
    stored = status.get("qosClass")
    if not stored:
        return computed
    if stored not in _QOS_CLASSES:
        raise ValueError(f"status.qosClass {stored!r} is not one of {', '.join(_QOS_CLASSES)}")
    return str(stored)


# Fields a bound pod read from a dump rarely needs (only once a plugin, preemption or
# --explain looks at that pod): a :class:`LazyPod` parses them on first read.
_LAZY_FIELDS = ("uid", "labels", "annotations", "priority_class_name", "tolerations",
                "node_selector", "spread", "host_ports", "preempted_by_scheduler",
                "nominated_node_name", "termination_grace_period", "scheduler_name")
_LAZY_SET = frozenset(_LAZY_FIELDS)
# Spec fields whose presence makes even a bound pod parse at once: affinity is read when
# the pod is bound (InterPodAffinity's index), and the others hold values that the
# apiserver validation in api/object_validation.py does not fully check, so a bad value must be
# reported while loading, not when a plugin first reads it.
_EAGER_SPEC_FIELDS = ("affinity", "topologySpreadConstraints", "schedulingGates",
                      "hostNetwork")


class LazyPod(Pod):
    """A :class:`Pod` whose rarely read fields (``_LAZY_FIELDS``) are parsed from ``raw``
    on first read. Loading a 50,000-pod dump builds these for bound pods: the scheduling
    cycle reads their requests, priority and node, and only a few pods' labels or
    tolerations. Only pods whose lazy fields passed apiserver validation are made lazy
    (``parse_pod(lazy=True)``), so the later parse cannot fail."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        # Called only when a slot is unset: a lazy field not yet parsed.
        if name not in _LAZY_SET:
            raise AttributeError(f"'Pod' object has no attribute {name!r}")
        meta = self.raw.get("metadata") or {}
        try:
            values = _lazy_values(meta, self.raw.get("spec") or {},
                                  self.raw.get("status") or {}, self.namespace)
        except (ValueError, TypeError, SelectorError, AttributeError, KeyError,
                IndexError) as exc:  # (an AttributeError must not pass for "no such field")
            raise InputError(str(exc), self.source, "Pod", self.key) from None
        for field_name, value in zip(_LAZY_FIELDS, values, strict=True):
            try:  # a field set since loading (say a new nomination) keeps its value
                object.__getattribute__(self, field_name)
            except AttributeError:
                object.__setattr__(self, field_name, value)
        return object.__getattribute__(self, name)


def _lazy_values(meta: Mapping[str, Any], spec: Mapping[str, Any],
                 status: Mapping[str, Any], namespace: str) -> tuple:
    """The values of ``_LAZY_FIELDS``, in that order."""
    labels = _str_map(meta.get("labels"), "metadata.labels")
    grace = spec.get("terminationGracePeriodSeconds")
    return (
        str(meta.get("uid") or ""),
        labels,
        _str_map(meta.get("annotations"), "metadata.annotations"),
        str(spec.get("priorityClassName") or ""),
        _tolerations(spec.get("tolerations")),
        _str_map(spec.get("nodeSelector"), "spec.nodeSelector"),
        _spread_constraints(spec.get("topologySpreadConstraints"), labels),
        host_ports(spec),
        any(isinstance(c, Mapping) and c.get("type") == "DisruptionTarget"
            and c.get("reason") == "PreemptionByScheduler" and c.get("status", "True") == "True"
            for c in status.get("conditions") or []),
        str(status.get("nominatedNodeName") or ""),
        DEFAULT_GRACE_PERIOD if grace is None else int(grace),
        str(spec.get("schedulerName") or "default-scheduler"),
    )


def _resource_figures(spec: Mapping[str, Any], status: Mapping[str, Any]) -> PodResources:
    """``pod_resource_figures``, shared by pods of one resource shape."""
    shape = _resource_shape(spec, status)
    cached = _RESOURCE_CACHE.get(shape) if shape is not None else None
    if cached is None:
        cached = pod_resource_figures(spec, status)
        if shape is not None:
            if len(_RESOURCE_CACHE) >= 4096:
                _RESOURCE_CACHE.clear()
            _RESOURCE_CACHE[shape] = cached
    return cached


def parse_pod(raw: Mapping[str, Any], source: Source, resolve_priority,
              lazy: bool = False) -> Pod:
    """Build a :class:`Pod`; ``resolve_priority(pod_spec)`` gives ``(priority, policy)``.

    With ``lazy`` a bound pod of the common shape becomes a :class:`LazyPod`; pass it
    only for bodies that passed :func:`kubepreempt.api.object_validation.validate_pod` or were
    read from an apiserver (a later failing read would still raise :class:`InputError`
    naming the pod, but only once something reads the field).
    """
    meta = raw.get("metadata")
    if type(meta) is not dict:  # (a call per field costs at 50,000 pods)
        meta = _mapping(meta, "metadata")
    name = meta.get("name")
    namespace = str(meta.get("namespace") or "default")
    if not name:
        raise InputError("object has no metadata.name", source, "Pod")
    try:
        spec = raw.get("spec")
        if type(spec) is not dict:
            spec = _mapping(spec, "spec")
        status = raw.get("status")
        if type(status) is not dict:
            status = _mapping(status, "status")
        cached = _resource_figures(spec, status)
        priority, policy = resolve_priority(spec)
        core = (namespace, str(name), str(spec.get("nodeName") or ""), priority, policy,
                cached.requests, cached.nonzero_cpu, cached.nonzero_memory,
                _qos(status, cached.qos) if "qosClass" in status else cached.qos,
                cached.kubelet_requests,
                parse_time(meta.get("deletionTimestamp")), parse_time(status.get("startTime")),
                parse_time(meta.get("creationTimestamp")), str(status.get("phase") or ""),
                source, raw)
        if lazy and core[2] and _lazy_shape(spec, status):
            # A loaded bound pod shares its shape's request dicts (nothing edits a pod's
            # requests in place; an edit assigns a new dict): 2 dicts less per pod.
            pod = _new(LazyPod)
            _set_core(pod, core)
            pod.affinity = None
            pod.scheduling_gates = ()
            return pod
        pod = _new(Pod)  # every field is set below: one tuple store instead of 30 kwargs
        _set_core(pod, core)
        pod.requests, pod.kubelet_requests = dict(cached.requests), dict(
            cached.kubelet_requests)  # each pod owns its dicts
        _set_lazy(pod, _lazy_values(meta, spec, status, namespace))
        pod.affinity = parse_affinity(spec.get("affinity"), namespace, pod.labels)
        pod.scheduling_gates = _gate_names(spec.get("schedulingGates"))
        return pod
    except InputError as exc:
        raise exc.located(source, "Pod", f"{namespace}/{name}") from None
    except (ValueError, TypeError, SelectorError) as exc:
        raise InputError(str(exc), source, "Pod", f"{namespace}/{name}") from None


_new = object.__new__


def _set_core(pod: Pod, core: tuple) -> None:
    (pod.namespace, pod.name, pod.node_name, pod.priority, pod.preemption_policy,
     pod.requests, pod.nonzero_cpu, pod.nonzero_memory, pod.qos, pod.kubelet_requests,
     pod.deletion_timestamp, pod.start_time, pod.creation_timestamp, pod.phase,
     pod.source, pod.raw) = core
    pod.key = f"{pod.namespace}/{pod.name}"


def _set_lazy(pod: Pod, values: tuple) -> None:
    # The order of _LAZY_FIELDS.
    (pod.uid, pod.labels, pod.annotations, pod.priority_class_name, pod.tolerations,
     pod.node_selector, pod.spread, pod.host_ports, pod.preempted_by_scheduler,
     pod.nominated_node_name, pod.termination_grace_period, pod.scheduler_name) = values


def _lazy_shape(spec: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """True when a validated pod's lazy fields cannot fail to parse later."""
    for field_name in _EAGER_SPEC_FIELDS:
        if field_name in spec:
            return False
    conditions = status.get("conditions")
    return conditions is None or type(conditions) is list


@dataclass(slots=True, eq=False)
class Node:
    """A node: labels, taints, schedulability and allocatable resources."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: dict[str, int] = field(default_factory=dict)
    source: Source = field(default_factory=Source)
    raw: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Node({self.name})"


def parse_node(raw: Mapping[str, Any], source: Source) -> Node:
    """Build a :class:`Node`; capacity from ``status.allocatable`` (else ``capacity``)."""
    meta = _mapping(raw.get("metadata"), "metadata")
    name = meta.get("name")
    if not name:
        raise InputError("object has no metadata.name", source, "Node")
    try:
        spec = _mapping(raw.get("spec"), "spec")
        status = _mapping(raw.get("status"), "status")
        alloc_raw = status.get("allocatable")
        if alloc_raw is None:
            alloc_raw = status.get("capacity")
        allocatable = resource_list(alloc_raw, "status.allocatable")
        labels = _str_map(meta.get("labels"), "metadata.labels")
        return Node(
            name=str(name),
            labels=labels,
            annotations=_str_map(meta.get("annotations"), "metadata.annotations"),
            taints=_taints(spec.get("taints")),
            unschedulable=bool(spec.get("unschedulable")),
            allocatable=allocatable,
            source=source,
            raw=raw,
        )
    except (ValueError, TypeError, SelectorError) as exc:
        raise InputError(str(exc), source, "Node", str(name)) from None


@dataclass(slots=True, eq=False)
class PodDisruptionBudget:
    """A policy/v1 PodDisruptionBudget; ``disruptions_allowed`` is filled in on load."""

    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    status_disruptions_allowed: int | None = None
    disrupted_pods: frozenset[str] = frozenset()
    disruptions_allowed: int = 0
    source: Source = field(default_factory=Source)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


def _int_or_percent(raw: Any, what: str) -> int | str | None:
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise ValueError(f"{what} must be an integer or a percentage")
    if isinstance(raw, int):
        if raw < 0:
            raise ValueError(f"{what} must not be negative")
        return raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.endswith("%") and text[:-1].isdigit():
            return text
        if text.isdigit():
            return int(text)
    raise ValueError(f"{what} {raw!r} is not an integer or a percentage")


def parse_pdb(raw: Mapping[str, Any], source: Source) -> PodDisruptionBudget:
    """Build a :class:`PodDisruptionBudget` (policy/v1 semantics for selectors)."""
    meta = _mapping(raw.get("metadata"), "metadata")
    name = meta.get("name")
    namespace = str(meta.get("namespace") or "default")
    if not name:
        raise InputError("object has no metadata.name", source, "PodDisruptionBudget")
    try:
        spec = _mapping(raw.get("spec"), "spec")
        status = _mapping(raw.get("status"), "status")
        selector = LabelSelector.parse(spec.get("selector"))
        min_avail = _int_or_percent(spec.get("minAvailable"), "spec.minAvailable")
        max_unavail = _int_or_percent(spec.get("maxUnavailable"), "spec.maxUnavailable")
        if min_avail is not None and max_unavail is not None:
            raise ValueError("minAvailable and maxUnavailable are mutually exclusive")
        allowed = status.get("disruptionsAllowed")
        return PodDisruptionBudget(
            namespace=namespace,
            name=str(name),
            selector=selector,
            min_available=min_avail,
            max_unavailable=max_unavail,
            status_disruptions_allowed=None if allowed is None else int(allowed),
            disrupted_pods=frozenset(str(k) for k in _mapping(status.get("disruptedPods"),
                                                              "status.disruptedPods")),
            source=source,
        )
    except (ValueError, TypeError, SelectorError) as exc:
        raise InputError(str(exc), source, "PodDisruptionBudget",
                         f"{namespace}/{name}") from None


@dataclass(slots=True)
class Namespace:
    """A namespace and its labels (for namespaceSelector in pod affinity)."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
