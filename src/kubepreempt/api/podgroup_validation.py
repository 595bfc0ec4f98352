"""kube-apiserver 1.37's create validation of ``scheduling.k8s.io/v1beta1`` Workload and
PodGroup, worded as its declarative validation words it.

The rules are the ``+k8s:`` markers of ``staging/src/k8s.io/api/scheduling/v1beta1/types.go``
(``required``, ``minimum``, ``maximum``, ``format``, ``unionMember``, ``maxItems``,
``listMapKey``, ``ifDisabled(...)=forbidden``), worded as apimachinery's ``validate``
package words them (``union.go``: ``must specify one of: `a`, `b```), plus the one
cross-field rule declarative validation cannot express: a PodGroup scheduled pod by pod
(``basic``) cannot be disrupted all together (``the disruptionMode `all` is not
supported with the Basic scheduling policy``, the workload building block's wording).
Fields kubepreempt does not read are not validated beyond their feature gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubepreempt.api.fieldcheck import Checker
from kubepreempt.api.metadata_validation import metadata
from kubepreempt.apimachinery.field import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from kubepreempt.apimachinery.validation import dns1123_label, dns1123_subdomain

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
WORKLOAD_MAX_POD_GROUP_TEMPLATES = 8
MAX_POD_GROUP_RESOURCE_CLAIMS = 4
TOO_MANY = "Too many"

# Kubernetes 1.37's defaults of the gates these objects' fields depend on
# (pkg/features/kube_features.go): GenericWorkload is beta but off by default.
DEFAULT_GATES: dict[str, bool] = {
    "GenericWorkload": False,
    "CompositePodGroup": False,
    "TopologyAwareWorkloadScheduling": False,
    "PodGroupPreemptionPolicy": False,
    "DRAWorkloadResourceClaims": False,
    # Alpha in 1.36; its 1.37 default is not modelled as on.
    "WorkloadAwarePreemption": False,
}

BASIC_WITH_ALL = "the disruptionMode `all` is not supported with the Basic scheduling policy"
PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"]


def gate(gates: Mapping[str, bool] | None, name: str) -> bool:
    """The value of feature gate ``name`` (1.37's default when ``gates`` does not say)."""
    if gates is not None and name in gates:
        return bool(gates[name])
    return DEFAULT_GATES.get(name, False)


def _union(c: Checker, raw: Mapping[str, Any], path: str, members: tuple[str, ...]) -> str | None:
    """``validate.Union``: exactly one member set; returns it (None when not exactly one)."""
    present = [m for m in members if raw.get(m) is not None]
    names = ", ".join(f"`{m}`" for m in members)
    if not present:
        c.add(invalid(path, "", f"must specify one of: {names}"))
        return None
    if len(present) > 1:
        c.add(invalid(path, "{" + ", ".join(f"`{m}`" for m in present) + "}",
                      f"must specify exactly one of: {names}"))
        return None
    return present[0]


def _min_count(c: Checker, raw: Any, path: str) -> None:
    """``+k8s:required`` then ``+k8s:minimum=1``: 0 counts as missing."""
    value = c.integer(raw, path)
    if value is None and raw is None or value == 0:
        c.add(required(path))
    elif value is not None and value < 1:
        c.add(invalid(path, value, "must be greater than or equal to 1"))


def scheduling_policy(c: Checker, raw: Any, path: str) -> str | None:
    """``PodGroupSchedulingPolicy``: ``basic`` or ``gang`` (with its minCount)."""
    policy = c.mapping(raw, path)
    chosen = _union(c, policy, path, ("basic", "gang"))
    if chosen == "gang":
        gang = c.mapping(policy.get("gang"), f"{path}.gang")
        _min_count(c, gang.get("minCount"), f"{path}.gang.minCount")
    elif chosen == "basic":
        c.mapping(policy.get("basic"), f"{path}.basic")
    return chosen


def _long_name(c: Checker, raw: Any, path: str) -> str:
    """An optional ``+k8s:format=k8s-long-name`` string (a DNS subdomain)."""
    value = c.string(raw, path)
    if value:
        for msg in dns1123_subdomain(value):
            c.add(invalid(path, value, msg))
    return value or ""


def _short_name(c: Checker, raw: Any, path: str) -> None:
    """A ``+k8s:required`` ``+k8s:format=k8s-short-name`` string (a DNS label)."""
    value = c.string(raw, path)
    if value == "":
        c.add(required(path))
    elif value is not None:
        for msg in dns1123_label(value):
            c.add(invalid(path, value, msg))


def _group_fields(c: Checker, spec: Mapping[str, Any], path: str,
                  gates: Mapping[str, bool] | None) -> None:
    """The fields a PodGroupTemplate and a PodGroup's spec share."""
    policy = scheduling_policy(c, spec.get("schedulingPolicy"), f"{path}.schedulingPolicy")
    mode_raw = spec.get("disruptionMode")
    if mode_raw is not None:
        mode = _union(c, c.mapping(mode_raw, f"{path}.disruptionMode"),
                      f"{path}.disruptionMode", ("single", "all"))
        if mode == "all" and policy == "basic":
            c.add(invalid(f"{path}.disruptionMode", "", BASIC_WITH_ALL))
    _long_name(c, spec.get("priorityClassName"), f"{path}.priorityClassName")
    priority = c.integer(spec.get("priority"), f"{path}.priority")
    if priority is not None and priority > HIGHEST_USER_DEFINABLE_PRIORITY:
        c.add(invalid(f"{path}.priority", priority,
                      f"must be less than or equal to {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy_raw = spec.get("preemptionPolicy")
    if policy_raw is not None:
        if not gate(gates, "PodGroupPreemptionPolicy"):
            c.add(forbidden(f"{path}.preemptionPolicy", ""))
        elif policy_raw not in PREEMPTION_POLICIES:
            c.add(not_supported(f"{path}.preemptionPolicy", str(policy_raw),
                                PREEMPTION_POLICIES))
    if spec.get("schedulingConstraints") is not None and not gate(
            gates, "TopologyAwareWorkloadScheduling"):
        c.add(forbidden(f"{path}.schedulingConstraints", ""))
    claims = spec.get("resourceClaims")
    if claims is not None:
        if not gate(gates, "DRAWorkloadResourceClaims"):
            c.add(forbidden(f"{path}.resourceClaims", ""))
        else:
            items = c.items(claims, f"{path}.resourceClaims")
            if len(items) > MAX_POD_GROUP_RESOURCE_CLAIMS:
                c.add(FieldError(TOO_MANY, f"{path}.resourceClaims", len(items),
                                 f"must have at most {MAX_POD_GROUP_RESOURCE_CLAIMS} items"))


def validate_pod_group(body: Mapping[str, Any], gates: Mapping[str, bool] | None = None
                       ) -> list[FieldError]:
    """``ValidatePodGroup`` plus the declarative rules of ``PodGroupSpec``."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    if spec.get("parentCompositePodGroupName") is not None and not gate(
            gates, "CompositePodGroup"):
        c.add(forbidden("spec.parentCompositePodGroupName", ""))
    ref = spec.get("workloadRef")
    if ref is not None:
        ref = c.mapping(ref, "spec.workloadRef")
        name = c.string(ref.get("workloadName"), "spec.workloadRef.workloadName")
        if name == "":
            c.add(required("spec.workloadRef.workloadName"))
        else:
            _long_name(c, name, "spec.workloadRef.workloadName")
        _short_name(c, ref.get("templateName"), "spec.workloadRef.templateName")
    _group_fields(c, spec, "spec", gates)
    return c.errors


def validate_workload(body: Mapping[str, Any], gates: Mapping[str, bool] | None = None
                      ) -> list[FieldError]:
    """``ValidateWorkload`` plus the declarative rules of ``WorkloadSpec``."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    composite = spec.get("compositePodGroupTemplates")
    if composite is not None and not gate(gates, "CompositePodGroup"):
        c.add(forbidden("spec.compositePodGroupTemplates", ""))
    ref = spec.get("controllerRef")
    if ref is not None:
        ref = c.mapping(ref, "spec.controllerRef")
        _long_name(c, ref.get("apiGroup"), "spec.controllerRef.apiGroup")
        for key in ("kind", "name"):
            value = c.string(ref.get(key), f"spec.controllerRef.{key}")
            if value == "":
                c.add(required(f"spec.controllerRef.{key}"))
            elif value is not None and ("/" in value or "%" in value or value in (".", "..")):
                c.add(invalid(f"spec.controllerRef.{key}", value,
                              "may not contain '/'" if "/" in value else
                              "may not contain '%'" if "%" in value else
                              f"may not be '{value}'"))
    templates = c.items(spec.get("podGroupTemplates"), "spec.podGroupTemplates")
    if not templates and composite is None:
        c.add(invalid("spec", "", "must specify one of: `podGroupTemplates`"))
    elif len(templates) > WORKLOAD_MAX_POD_GROUP_TEMPLATES:
        c.add(FieldError(TOO_MANY, "spec.podGroupTemplates", len(templates),
                         f"must have at most {WORKLOAD_MAX_POD_GROUP_TEMPLATES} items"))
    seen: set[str] = set()
    for i, raw in enumerate(templates):
        path = f"spec.podGroupTemplates[{i}]"
        tmpl = c.mapping(raw, path)
        _short_name(c, tmpl.get("name"), f"{path}.name")
        name = tmpl.get("name")
        if isinstance(name, str) and name:
            if name in seen:
                c.add(duplicate(path, {"name": name}))
            seen.add(name)
        _group_fields(c, tmpl, path, gates)
    return c.errors
