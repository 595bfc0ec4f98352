"""ResourceQuota admission for pod creation, as the apiserver's ResourceQuota plugin does it.

Upstream: ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
(``CheckRequest``) with the pod evaluator ``pkg/quota/v1/evaluator/core/pods.go``:

* A pod's usage (``PodUsageFunc``): ``count/pods`` = 1 always; unless the pod is terminal
  (or deleted and past ``metadata.deletionGracePeriodSeconds``) also ``pods`` = 1,
  ``cpu``/``requests.cpu``,
  ``memory``/``requests.memory``, ``ephemeral-storage``/``requests.ephemeral-storage``
  from ``PodRequests`` (init containers, sidecars, overhead, pod-level, resize), the
  ``limits.*`` from ``PodLimits``, ``hugepages-*`` / ``requests.hugepages-*`` and
  ``requests.<extended resource>``.
* Scopes (``podMatchesScopeFunc``): ``Terminating`` (``activeDeadlineSeconds >= 0``),
  ``NotTerminating``, ``BestEffort`` (QoS class), ``NotBestEffort``,
  ``CrossNamespacePodAffinity`` and ``PriorityClass`` with ``In``/``NotIn``/``Exists``/
  ``DoesNotExist`` read as a label selector on ``{PriorityClass: priorityClassName}``
  (so ``NotIn`` matches a pod without a class). ``spec.scopes`` are ``Exists``
  requirements.
* A quota applies (``generic.Matches``) when it limits at least one pod resource and every
  one of its scopes matches. Each applying quota checks that containers state the cpu /
  memory requests or limits it limits (``Constraints``: ``must specify ...``); then
  ``limitedResources`` of the ``AdmissionConfiguration`` demand a covering quota
  (``insufficient quota to consume`` / ``insufficient quota to match these scopes``);
  then each applying quota must hold ``used + requested <= hard`` for the resources it
  limits, else ``exceeded quota: NAME, requested: ..., used: ..., limited: ...``.

The pod is seen as the Priority admission plugin left it (``admitPod``, a mutating plugin
that runs before this validating one): a pod without ``priorityClassName`` gets the name
of the ``globalDefault`` PriorityClass, so ``PriorityClass In [default]`` limits it and
``DoesNotExist`` does not.

Usage is recomputed from the pods the caller knows (the snapshot's bound and pending pods
of the namespace) plus the finished pods of the input (:attr:`QuotaAdmission.finished`:
they count for ``count/pods`` only), as the quota controller's resync would; a dump's
``status.used`` is not read. Quantities print as ``resource.Quantity.String()``, each
in its own format as upstream keeps it: ``requested`` in the format the pod wrote the
figure in (its first container stating it), ``used`` in the format the controller's sum
took (``CalculateUsageStats`` starts from a ``DecimalSI`` zero, and ``Quantity.Add`` to a
zero takes the added pod's format; the sum is stored as text and read back), and
``limited`` in the format of the quota's ``hard`` value.

Workload objects (Deployment, ReplicaSet, StatefulSet, Job, DaemonSet, CronJob) go through
the generic object-count evaluator (:meth:`QuotaAdmission.admit_object`):
``count/<resource>.<group>`` (``count/deployments.apps``, ``count/jobs.batch``, ...) in a
quota without scopes (``MatchesNoScopeFunc``: a scoped quota never matches them), and
``limitedResources`` entries for that group and resource.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from typing import Any

from kubepreempt.admission.goquantity import format_quantity, is_binary
from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.fields import as_list as _list
from kubepreempt.api.fields import as_mapping as _mapping
from kubepreempt.api.objects import Pod
from kubepreempt.api.pod_resources import parse_containers
from kubepreempt.api.quantity import QuantityError, parse_quantity, resource_list
from kubepreempt.api.resources import aggregate, has_pod_level, is_supported_pod_level_resource
from kubepreempt.apimachinery.field import forbidden_message

KIND = "ResourceQuota"
CONFIG_KINDS = ("AdmissionConfiguration", "ResourceQuotaConfiguration")

TERMINATING = "Terminating"
NOT_TERMINATING = "NotTerminating"
BEST_EFFORT = "BestEffort"
NOT_BEST_EFFORT = "NotBestEffort"
PRIORITY_CLASS = "PriorityClass"
CROSS_NAMESPACE_POD_AFFINITY = "CrossNamespacePodAffinity"
SCOPES = (TERMINATING, NOT_TERMINATING, BEST_EFFORT, NOT_BEST_EFFORT, PRIORITY_CLASS,
          CROSS_NAMESPACE_POD_AFFINITY)
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
# The group resource the object-count evaluator charges per workload kind.
GROUP_RESOURCE = {"Deployment": ("apps", "deployments"), "ReplicaSet": ("apps", "replicasets"),
                  "StatefulSet": ("apps", "statefulsets"), "DaemonSet": ("apps", "daemonsets"),
                  "Job": ("batch", "jobs"), "CronJob": ("batch", "cronjobs")}

# podResources / podResourcePrefixes of the pod evaluator.
POD_RESOURCES = frozenset((
    "count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
    "pods"))
POD_RESOURCE_PREFIXES = ("hugepages-", "requests.hugepages-")
# validationSet: quota on these makes every container state them (a documented mistake
# upstream keeps for compatibility).
VALIDATION_SET = frozenset(("cpu", "memory", "requests.cpu", "requests.memory",
                            "limits.cpu", "limits.memory"))
# IsResourceQuotaScopeValidForResource
_OBJECT_COUNT = frozenset(("pods",))
_COMPUTE = frozenset(("cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu",
                      "requests.memory"))


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    """``helper.IsExtendedResourceName``: not native and not ``requests.``-prefixed."""
    return not _is_native(name) and not name.startswith("requests.")


def matching_resources(names: Iterable[str]) -> list[str]:
    """``MatchingResources``: the quota resource names the pod evaluator tracks."""
    return [n for n in names
            if n in POD_RESOURCES or n.startswith(POD_RESOURCE_PREFIXES)
            or (not _is_native(n) and n.startswith("requests."))]


@dataclass(frozen=True, slots=True)
class ScopeRequirement:
    """A ``ScopedResourceSelectorRequirement`` (``spec.scopes`` entries are ``Exists``)."""

    scope_name: str
    operator: str = "Exists"
    values: tuple[str, ...] = ()

    def go_string(self) -> str:
        """How Go's ``%v`` prints the struct in ``insufficient quota`` messages."""
        return f"{{{self.scope_name} {self.operator} [{' '.join(self.values)}]}}"


@dataclass(slots=True)
class QuotaPod:
    """What quota admission reads from a pod."""

    name: str
    namespace: str
    priority_class_name: str
    best_effort: bool
    terminating: bool  # activeDeadlineSeconds >= 0: the Terminating scope, not deletion
    cross_namespace_affinity: bool
    charged: bool  # QuotaV1Pod: not terminal, not past its deletion grace period
    requests: dict[str, Fraction]
    limits: dict[str, Fraction]
    # usage key -> written in BinarySI (Ki, Mi, ...): the format its figure prints in
    binary: dict[str, bool] = field(default_factory=dict)
    # (container name, resources it states as requests/limits) for Constraints
    containers: list[tuple[str, frozenset[str]]] = field(default_factory=list)


def _fractions(amounts: Mapping[str, int]) -> dict[str, Fraction]:
    # canonical ints are milli-CPU for cpu, whole units otherwise
    return {k: Fraction(v, 1000) if k == "cpu" else Fraction(v) for k, v in amounts.items()}


def _cross_namespace(spec: Mapping[str, Any]) -> bool:
    """``usesCrossNamespacePodAffinity``: a term with namespaces or a namespaceSelector."""
    affinity = spec.get("affinity")
    if not isinstance(affinity, Mapping):
        return False
    for kind in ("podAffinity", "podAntiAffinity"):
        part = affinity.get(kind)
        if not isinstance(part, Mapping):
            continue
        terms = list(part.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [t.get("podAffinityTerm") or {} for t in
                  part.get("preferredDuringSchedulingIgnoredDuringExecution") or []
                  if isinstance(t, Mapping)]
        for t in terms:
            if isinstance(t, Mapping) and (t.get("namespaces") or
                                           t.get("namespaceSelector") is not None):
                return True
    return False


def _written_formats(spec: Mapping[str, Any]) -> dict[str, bool]:
    """Per usage key, whether the pod wrote the figure in ``BinarySI``: the pod-level
    value, else the first container (then init container) stating it; ``PodRequests``
    sums into a copy of the first container's quantity, keeping its format. A request
    defaulted from the container's limit has the limit's format."""
    seen: dict[str, dict[str, bool]] = {"requests": {}, "limits": {}}
    pod_level = spec.get("resources")
    sources = [(pod_level, False)] if isinstance(pod_level, Mapping) else []
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, Mapping) and isinstance(c.get("resources"), Mapping):
                sources.append((c["resources"], True))
    for res, is_container in sources:
        parts = {part: res.get(part) if isinstance(res.get(part), Mapping) else {}
                 for part in seen}
        if is_container:
            # SetDefaults_Pod: a container's missing request is a DeepCopy of its limit,
            # so it keeps the limit's format.
            parts["requests"] = {**parts["limits"], **parts["requests"]}
        for part, out in seen.items():
            for name, qty in parts[part].items():
                out.setdefault(str(name), is_binary(qty))
    formats: dict[str, bool] = {}
    for name, binary in seen["requests"].items():
        formats[name] = formats["requests." + name] = binary
    for name, binary in seen["limits"].items():
        formats["limits." + name] = binary
    return formats


def quota_pod(pod: Pod, now: float | None = None, default_class: str = "") -> QuotaPod:
    """The quota view of a typed pod (its manifest gives limits and per-container lists).

    ``default_class`` is the ``globalDefault`` PriorityClass's name, which the Priority
    admission plugin writes into a pod without a class before quota admission runs."""
    raw = pod.raw if isinstance(pod.raw, Mapping) else {}
    spec = raw.get("spec") if isinstance(raw.get("spec"), Mapping) else {}
    try:
        containers = parse_containers(spec.get("containers"), "spec.containers", False)
        inits = parse_containers(spec.get("initContainers"), "spec.initContainers", True)
        overhead = resource_list(spec.get("overhead"), "spec.overhead")
        pod_res = spec.get("resources") if isinstance(spec.get("resources"), Mapping) else {}
        pod_limits = resource_list(pod_res.get("limits"), "spec.resources.limits")
    except ValueError as exc:
        raise InputError(str(exc), pod.source, "Pod", pod.key) from None
    # PodLimits: containers' aggregate, pod-level limits for supported resources, and
    # overhead added only to resources that have a limit.
    limits = aggregate(containers, inits, lambda c: c.limits)
    if has_pod_level(pod_limits):
        limits.update({k: v for k, v in pod_limits.items()
                       if is_supported_pod_level_resource(k)})
    for key, amount in overhead.items():
        if key in limits:
            limits[key] += amount
    deadline = spec.get("activeDeadlineSeconds")
    charged = pod.phase not in ("Succeeded", "Failed")
    # QuotaV1Pod: a deleting pod stops being charged once its *deletion* grace period
    # (set by the delete call, not spec.terminationGracePeriodSeconds) has passed; without
    # one it stays charged.
    meta = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
    deletion_grace = meta.get("deletionGracePeriodSeconds")
    if (charged and pod.deletion_timestamp is not None and now is not None
            and isinstance(deletion_grace, int) and not isinstance(deletion_grace, bool)):
        charged = now <= pod.deletion_timestamp + deletion_grace
    return QuotaPod(
        name=pod.name, namespace=pod.namespace,
        priority_class_name=pod.priority_class_name or default_class,
        best_effort=pod.qos == "BestEffort",
        terminating=isinstance(deadline, int) and not isinstance(deadline, bool)
        and deadline >= 0,
        cross_namespace_affinity=_cross_namespace(spec),
        charged=charged,
        requests=_fractions(pod.requests), limits=_fractions(limits),
        binary=_written_formats(spec),
        containers=[(c.name, frozenset(_compute_usage(_fractions(c.requests),
                                                      _fractions(c.limits))))
                    for c in [*containers, *inits]])


def _compute_usage(requests: Mapping[str, Fraction], limits: Mapping[str, Fraction]
                   ) -> dict[str, Fraction]:
    """``podComputeUsageHelper``."""
    out: dict[str, Fraction] = {"pods": Fraction(1)}
    for r in ("cpu", "memory", "ephemeral-storage"):
        if r in requests:
            out[r] = out["requests." + r] = requests[r]
        if r in limits:
            out["limits." + r] = limits[r]
    for r, amount in requests.items():
        if r.startswith("hugepages-"):
            out[r] = out["requests." + r] = amount
        if _is_extended(r):
            out["requests." + r] = amount
    return out


def pod_usage(qp: QuotaPod) -> dict[str, Fraction]:
    """``PodUsageFunc``: ``count/pods`` always, compute resources while charged."""
    out = {"count/pods": Fraction(1)}
    if qp.charged:
        out.update(_compute_usage(qp.requests, qp.limits))
    return out


def matches_scope(req: ScopeRequirement, qp: QuotaPod) -> bool:
    """``podMatchesScopeFunc``."""
    name = req.scope_name
    if name == TERMINATING:
        return qp.terminating
    if name == NOT_TERMINATING:
        return not qp.terminating
    if name == BEST_EFFORT:
        return qp.best_effort
    if name == NOT_BEST_EFFORT:
        return not qp.best_effort
    if name == CROSS_NAMESPACE_POD_AFFINITY:
        return qp.cross_namespace_affinity
    if name == PRIORITY_CLASS:
        pc = qp.priority_class_name
        op = req.operator
        if op == "Exists":
            return bool(pc)
        if op == "DoesNotExist":
            return not pc
        if op == "In":
            return bool(pc) and pc in req.values
        if op == "NotIn":  # label selector: a missing key satisfies NotIn
            return not pc or pc not in req.values
    return False


@dataclass(slots=True)
class ResourceQuota:
    """A namespace's ``v1 ResourceQuota``: ``spec.hard`` and its scopes."""

    namespace: str
    name: str
    hard: dict[str, Fraction]
    binary: dict[str, bool]  # hard value written in BinarySI (prints used/requested so)
    selectors: tuple[ScopeRequirement, ...] = ()
    source: Source = field(default_factory=Source)

    def matches(self, qp: QuotaPod) -> bool:
        """``generic.Matches``: limits a pod resource and every scope matches."""
        return bool(matching_resources(self.hard)) and all(
            matches_scope(s, qp) for s in self.selectors)

    def scopes_match(self, qp: QuotaPod) -> bool:
        """Whether the pod counts towards this quota's usage (``CalculateUsageStats``)."""
        return all(matches_scope(s, qp) for s in self.selectors)

    def pretty(self, usage: Mapping[str, Fraction], keys: Iterable[str],
               binary: Mapping[str, bool] | None = None) -> str:
        """``prettyPrint`` of ``usage`` masked to ``keys`` (sorted, ``k=v`` joined by ``,``),
        each in the format ``binary`` gives (default: the hard value's)."""
        formats = self.binary if binary is None else binary
        return ",".join(f"{k}={format_quantity(usage.get(k, Fraction(0)), formats.get(k, False))}"
                        for k in sorted(keys))


@dataclass(frozen=True, slots=True)
class LimitedResource:
    """One ``limitedResources`` entry of the ResourceQuota plugin configuration."""

    resource: str
    api_group: str = ""
    match_contains: tuple[str, ...] = ()
    match_scopes: tuple[ScopeRequirement, ...] = ()


def parse_scope_requirement(raw: Any, what: str) -> ScopeRequirement:
    """``ValidateScopedResourceSelectorRequirement``: a known scope; ``In``/``NotIn`` need
    values, ``Exists``/``DoesNotExist`` take none; scopes other than PriorityClass only
    ``Exists``."""
    req = _mapping(raw, what)
    name = req.get("scopeName")
    if name not in SCOPES:
        raise ValueError(f"{what}.scopeName: unsupported scope {name!r} (one of "
                         f"{', '.join(SCOPES)})")
    op = req.get("operator")
    if op not in OPERATORS:
        raise ValueError(f"{what}.operator: unsupported operator {op!r} (one of "
                         f"{', '.join(OPERATORS)})")
    values = _list(req.get("values"), f"{what}.values")
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{what}.values must be strings")
    if name != PRIORITY_CLASS and op != "Exists":
        raise ValueError(f"{what}.operator: must be 'Exists' when scope is any of "
                         "Terminating, NotTerminating, BestEffort, NotBestEffort or "
                         "CrossNamespacePodAffinity")
    if op in ("In", "NotIn") and not values:
        raise ValueError(f"{what}.values: must be at least one value when operator is {op}")
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError(f"{what}.values: may not be specified when operator is {op}")
    return ScopeRequirement(str(name), str(op), tuple(values))


def _scope_valid_for(scope: str, resource: str) -> bool:
    """``IsResourceQuotaScopeValidForResource``."""
    if scope == BEST_EFFORT:
        return resource in _OBJECT_COUNT
    if scope in (TERMINATING, NOT_TERMINATING, NOT_BEST_EFFORT, PRIORITY_CLASS,
                 CROSS_NAMESPACE_POD_AFFINITY):
        return resource in _OBJECT_COUNT or resource in _COMPUTE
    return True


def parse_resource_quota(raw: Mapping[str, Any], source: Source) -> ResourceQuota:
    """Build and validate a ResourceQuota (``ValidateResourceQuotaSpec``)."""
    meta = raw.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not name:
        raise InputError("object has no metadata.name", source, KIND)
    ns = str((meta or {}).get("namespace") or "default")
    key = f"{ns}/{name}"
    try:
        spec = _mapping(raw.get("spec"), "spec")
        hard: dict[str, Fraction] = {}
        binary: dict[str, bool] = {}
        for res, qty in _mapping(spec.get("hard"), "spec.hard").items():
            try:
                amount = parse_quantity(qty)
            except QuantityError as exc:
                raise ValueError(f"spec.hard.{res}: {exc}") from None
            if amount < 0:
                raise ValueError(f"spec.hard.{res}: must be greater than or equal to 0")
            hard[str(res)] = amount
            binary[str(res)] = is_binary(qty)
        selectors: list[ScopeRequirement] = []
        for i, scope in enumerate(_list(spec.get("scopes"), "spec.scopes")):
            if scope not in SCOPES:
                raise ValueError(f"spec.scopes[{i}]: unsupported scope {scope!r}")
            selectors.append(ScopeRequirement(str(scope)))
        selector = _mapping(spec.get("scopeSelector"), "spec.scopeSelector")
        for i, req in enumerate(_list(selector.get("matchExpressions"),
                                      "spec.scopeSelector.matchExpressions")):
            selectors.append(parse_scope_requirement(
                req, f"spec.scopeSelector.matchExpressions[{i}]"))
        names = {s.scope_name for s in selectors}
        for a, b in ((TERMINATING, NOT_TERMINATING), (BEST_EFFORT, NOT_BEST_EFFORT)):
            if a in names and b in names:
                raise ValueError(f"conflicting scopes: {a} and {b}")
        for s in selectors:
            for res in hard:
                if not _scope_valid_for(s.scope_name, res):
                    raise ValueError(f"spec.hard.{res}: unsupported scope applied to "
                                     f"resource (scope {s.scope_name})")
    except ValueError as exc:
        raise InputError(str(exc), source, KIND, key) from None
    return ResourceQuota(ns, str(name), hard, binary, tuple(selectors), source)


def parse_limited_resources(raw: Mapping[str, Any], source: Source) -> list[LimitedResource]:
    """``limitedResources`` of an ``AdmissionConfiguration`` (the ``ResourceQuota``
    plugin's inline ``configuration``) or of a bare ``ResourceQuotaConfiguration``."""
    kind = str(raw.get("kind"))
    try:
        config: Mapping[str, Any] | None = raw if kind == "ResourceQuotaConfiguration" else None
        if kind == "AdmissionConfiguration":
            for i, plugin in enumerate(_list(raw.get("plugins"), "plugins")):
                plugin = _mapping(plugin, f"plugins[{i}]")
                if plugin.get("name") != "ResourceQuota":
                    continue
                if plugin.get("path") and plugin.get("configuration") is None:
                    raise ValueError(f"plugins[{i}].path: a configuration file path is not "
                                     "read; give the configuration inline")
                config = _mapping(plugin.get("configuration"), f"plugins[{i}].configuration")
        out = []
        for i, lr in enumerate(_list((config or {}).get("limitedResources"),
                                     "limitedResources")):
            what = f"limitedResources[{i}]"
            lr = _mapping(lr, what)
            resource = lr.get("resource")
            if not resource or not isinstance(resource, str):
                raise ValueError(f"{what}.resource must be a non-empty string")
            contains = _list(lr.get("matchContains"), f"{what}.matchContains")
            if not all(isinstance(c, str) for c in contains):
                raise ValueError(f"{what}.matchContains must be strings")
            scopes = tuple(parse_scope_requirement(s, f"{what}.matchScopes[{j}]")
                           for j, s in enumerate(_list(lr.get("matchScopes"),
                                                       f"{what}.matchScopes")))
            out.append(LimitedResource(resource, str(lr.get("apiGroup") or ""),
                                       tuple(contains), scopes))
    except ValueError as exc:
        name = ((raw.get("metadata") or {}).get("name") if isinstance(raw.get("metadata"),
                                                                      Mapping) else None)
        raise InputError(str(exc), source, kind, name) from None
    return out


@dataclass(slots=True)
class QuotaAdmission:
    """The ResourceQuota admission plugin: every namespace's quotas and the plugin's
    ``limitedResources``. :meth:`admit` answers for one pod about to be created."""

    quotas: dict[str, list[ResourceQuota]] = field(default_factory=dict)
    limited: list[LimitedResource] = field(default_factory=list)
    # the globalDefault PriorityClass's name (the Priority plugin gives it to classless pods)
    default_class: str = ""
    # finished (Succeeded/Failed) pods of the input: the scheduler ignores them, but they
    # exist until deleted and are charged count/pods (PodUsageFunc)
    finished: list[Pod] = field(default_factory=list)

    @classmethod
    def from_documents(cls, docs: Any) -> QuotaAdmission:
        """Quotas and configuration from loaded :class:`Documents`."""
        out = cls()
        for o in docs.of("PriorityClass"):
            if o.body.get("globalDefault") is True:
                out.default_class = str((o.body.get("metadata") or {}).get("name") or "")
        for o in docs.of(KIND):
            out.add(parse_resource_quota(o.body, o.source))
        for kind in CONFIG_KINDS:
            for o in docs.of(kind):
                out.limited += parse_limited_resources(o.body, o.source)
        return out

    def add(self, quota: ResourceQuota) -> None:
        """Add a quota; a second quota of the same name in a namespace is an input error."""
        same = self.quotas.setdefault(quota.namespace, [])
        if any(q.name == quota.name for q in same):
            raise InputError("duplicate object", quota.source, KIND,
                             f"{quota.namespace}/{quota.name}")
        same.append(quota)

    @property
    def active(self) -> bool:
        """Whether admission can refuse anything (any quota or limited resource)."""
        return bool(self.quotas or self.limited)

    def used(self, quota: ResourceQuota, pods: Iterable[QuotaPod]) -> dict[str, Fraction]:
        """``status.used`` as the quota controller computes it: every hard resource (zero
        when unused), summed over the namespace's pods that match the quota's scopes."""
        return self.used_with_formats(quota, pods)[0]

    def used_with_formats(self, quota: ResourceQuota, pods: Iterable[QuotaPod]
                          ) -> tuple[dict[str, Fraction], dict[str, bool]]:
        """:meth:`used` and the format each sum prints in as ``status.used``: the
        ``DecimalSI`` zero takes the first added pod's format (``Quantity.Add``), and the
        stored text is parsed back (a BinarySI figure printed without a suffix reads back
        decimal)."""
        out = {k: Fraction(0) for k in quota.hard}
        binary = dict.fromkeys(quota.hard, False)
        for qp in pods:
            if qp.namespace != quota.namespace or not quota.scopes_match(qp):
                continue
            for k, v in pod_usage(qp).items():
                if k in out:
                    if out[k] == 0:
                        binary[k] = qp.binary.get(k, False)
                    out[k] += v
        for k, b in binary.items():
            binary[k] = b and is_binary(format_quantity(out[k], True))
        return out, binary

    def admit(self, pod: Pod, existing: Iterable[Pod], now: float | None = None) -> str | None:
        """None when the apiserver would create ``pod``, else its error message.

        ``existing`` are the pods that exist (any namespace; others are skipped).
        """
        quotas = self.quotas.get(pod.namespace, [])
        if not quotas and not self.limited:
            return None
        qp = quota_pod(pod, None, self.default_class)
        # rest.BeforeCreate clears deletionTimestamp/deletionGracePeriodSeconds and the pod
        # strategy's PrepareForCreate resets status to Pending before this validating
        # plugin runs: the pod being created is charged in full whatever its manifest says.
        qp.charged = True
        return self._check(qp, quotas, lambda: [
            quota_pod(p, now, self.default_class) for p in chain(existing, self.finished)
            if p.namespace == pod.namespace])

    def admit_object(self, kind: str, namespace: str, name: str, existing: int) -> str | None:
        """Admission of a new workload object: None when created, else the message.

        ``existing`` is how many objects of ``kind`` the namespace already has.
        """
        if kind not in GROUP_RESOURCE or not self.active:
            return None
        group, resource = GROUP_RESOURCE[kind]
        qualified = f"{resource}.{group}"
        key = f"count/{qualified}"
        forbidden = forbidden_message(qualified, name, "")
        covered = False
        interesting = []
        for q in self.quotas.get(namespace, []):
            if key in q.hard and not q.selectors:  # generic.Matches, MatchesNoScopeFunc
                covered = True
                interesting.append(q)
        limited = any(lr.api_group == group and lr.resource == resource
                      and any(c in key for c in lr.match_contains) for lr in self.limited)
        if limited and not covered:
            return f"{forbidden}insufficient quota to consume: {key}"
        for q in interesting:
            if existing + 1 > q.hard[key]:
                used = {key: Fraction(existing)}
                return (f"{forbidden}exceeded quota: {q.name}, requested: "
                        f"{q.pretty({key: Fraction(1)}, [key], {})}, "
                        f"used: {q.pretty(used, [key], {})}, "
                        f"limited: {q.pretty(q.hard, [key])}")
        return None

    def _check(self, qp: QuotaPod, quotas: list[ResourceQuota], others: Any) -> str | None:
        forbidden = forbidden_message("pods", qp.name, "")
        limited_scopes = [s for lr in self.limited for s in lr.match_scopes
                          if matches_scope(s, qp)]
        usage = pod_usage(qp)
        limited_names: set[str] = set()
        for lr in self.limited:
            if lr.api_group != "" or lr.resource != "pods":
                continue
            for k, v in usage.items():
                if v > 0 and any(c in k for c in lr.match_contains):
                    limited_names.add(k)
        interesting: list[ResourceQuota] = []
        restricted: set[str] = set()
        restricted_scopes: list[ScopeRequirement] = []
        for q in quotas:
            restricted_scopes += [s for s in q.selectors if matches_scope(s, qp)]
            if not q.matches(qp):
                continue
            names = matching_resources(q.hard)
            err = constraints(names, qp)
            if err:
                return f"{forbidden}failed quota: {q.name}: {err}"
            interesting.append(q)
            restricted.update(names)
        delta = {k: v for k, v in usage.items() if v != 0}
        if not delta:
            return None
        missing = limited_names - restricted
        if missing:
            return f"{forbidden}insufficient quota to consume: {','.join(sorted(missing))}"
        uncovered = [s for s in limited_scopes
                     if not any(r.scope_name == s.scope_name for r in restricted_scopes)]
        if uncovered:
            # A plain error upstream (not Forbidden): the apiserver returns its text.
            return ("insufficient quota to match these scopes: ["
                    + " ".join(s.go_string() for s in uncovered) + "]")
        if not interesting:
            return None
        pods = others()
        for q in interesting:
            requested = {k: v for k, v in delta.items() if k in q.hard}
            if not requested:
                continue
            used, used_binary = self.used_with_formats(q, pods)
            exceeded = [k for k, v in requested.items() if used[k] + v > q.hard[k]]
            if exceeded:
                return (f"{forbidden}exceeded quota: {q.name}, requested: "
                        f"{q.pretty(requested, exceeded, qp.binary)}, "
                        f"used: {q.pretty(used, exceeded, used_binary)}, "
                        f"limited: {q.pretty(q.hard, exceeded)}")
        return None


def constraints(required: Iterable[str], qp: QuotaPod) -> str | None:
    """``podEvaluator.Constraints``: each container must state the cpu/memory requests or
    limits a quota limits, else ``must specify R for: c1,c2; ...``."""
    required_set = set(required) & VALIDATION_SET
    missing: dict[str, set[str]] = {}
    for name, stated in qp.containers:
        for res in required_set - stated:
            missing.setdefault(res, set()).add(name)
    if not missing:
        return None
    return "must specify " + "; ".join(f"{r} for: {','.join(sorted(missing[r]))}"
                                       for r in sorted(missing))
