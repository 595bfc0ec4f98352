"""kube-apiserver's create validation for the fields kubepreempt reads, per kind.

An object the apiserver would refuse could never be in a cluster, so deciding about it is a
wrong answer: the loader rejects it with the apiserver's own message (kube-apiserver 1.36,
``pkg/apis/core/validation/validation.go``, ``pkg/apis/scheduling/validation``,
``pkg/apis/policy/validation`` and apimachinery's validation, :mod:`kubepreempt.apimachinery`).
Fields kubepreempt does not read are not validated. Values of the wrong JSON type (a list
where a mapping belongs), which the apiserver refuses while decoding, are reported as
``Invalid type``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubepreempt.api.core_validation import (
    KNOWN_VALID_TOLERATIONS,
    affinity,
    containers,
    label_selector,
    quantity,
    resources,
    spread,
    taint_effect,
    tolerations,
    tolerations_key,
)
from kubepreempt.api.fieldcheck import INT64, Checker
from kubepreempt.api.metadata_validation import label_name, labels, metadata
from kubepreempt.api.pod_fast_accept import known_valid_pod
from kubepreempt.apimachinery.field import (
    DUPLICATE,
    FieldError,
    GoStruct,
    forbidden,
    invalid,
    not_supported,
)
from kubepreempt.apimachinery.field import invalid_message as new_invalid_message
from kubepreempt.apimachinery.validation import dns1123_label, label_value

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
_QUALIFIED_KIND = {"PriorityClass": "PriorityClass.scheduling.k8s.io",
                   "PodDisruptionBudget": "PodDisruptionBudget.policy"}


def validate_pod(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodCreate`` for the fields kubepreempt reads."""
    return [] if known_valid_pod(body) else pod_errors(body)


def pod_errors(body: Mapping[str, Any]) -> list[FieldError]:
    """:func:`validate_pod` without the fast acceptor: every check, every error."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    # Upstream also requires at least one container, each with a name; kubepreempt's
    # inputs (and upstream's own scheduler test tables) often leave them out, and a pod
    # without containers simply requests nothing, so those two rules are not enforced.
    names: set[str] = set()
    get = spec.get
    containers(c, get("containers"), "spec.containers", names)
    # The sections below are absent from most pods: test before building any path.
    if get("initContainers") is not None:
        containers(c, get("initContainers"), "spec.initContainers", names)
    if get("overhead") is not None:
        resources(c, {"limits": get("overhead")}, "spec.overhead")
    if get("resources") is not None:
        resources(c, get("resources"), "spec.resources")
    if get("tolerations") is not None:
        before = len(c.errors)
        tolerations(c, get("tolerations"), "spec.tolerations")
        key = tolerations_key(get("tolerations"))
        if key is not None and len(c.errors) == before:
            if len(KNOWN_VALID_TOLERATIONS) >= 4096:
                KNOWN_VALID_TOLERATIONS.clear()
            KNOWN_VALID_TOLERATIONS.add(key)
    if get("nodeSelector") is not None:
        labels(c, get("nodeSelector"), "spec.nodeSelector")
    if get("affinity") is not None:
        affinity(c, get("affinity"), "spec.affinity")
    if get("topologySpreadConstraints") is not None:
        spread(c, get("topologySpreadConstraints"), "spec.topologySpreadConstraints")
    priority = get("priority")
    if priority is not None and (type(priority) is not int
                                 or not -2147483648 <= priority <= 2147483647):
        c.integer(priority, "spec.priority")
    grace = get("terminationGracePeriodSeconds")
    if grace is not None:
        grace = c.integer(grace, "spec.terminationGracePeriodSeconds", INT64)
        if grace is not None and grace < 0:
            c.add(invalid("spec.terminationGracePeriodSeconds", grace,
                          "must be greater than or equal to 0"))
    for field in ("nodeName", "priorityClassName", "schedulerName"):
        value = get(field)
        if value is not None and type(value) is not str:
            c.string(value, f"spec.{field}")
    policy = get("preemptionPolicy")
    if policy is not None and policy not in ("PreemptLowerPriority", "Never"):
        c.add(not_supported("spec.preemptionPolicy", str(policy),
                            ["Never", "PreemptLowerPriority"]))
    return c.errors


# (resource name, quantity text) pairs of node capacity already found valid.
_VALID_QUANTITIES: set[tuple[str, str]] = set()


def validate_node(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNode`` for the fields kubepreempt reads (taints under ``metadata.taints``,
    as upstream's field path has it)."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), False)
    spec = c.mapping(body.get("spec"), "spec")
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(c.items(spec.get("taints"), "spec.taints")):
        p = f"metadata.taints[{i}]"
        t = c.mapping(t, f"spec.taints[{i}]")
        key = c.string(t.get("key"), f"{p}.key")
        value = c.string(t.get("value"), f"{p}.value")
        effect = c.string(t.get("effect"), f"{p}.effect")
        if None in (key, value, effect):
            continue
        label_name(c, key, f"{p}.key")
        msgs = label_value(value)
        if msgs:
            c.add(invalid(f"{p}.value", value, ";".join(msgs)))
        taint_effect(c, effect, False, f"{p}.effect")
        if (key, effect) in seen:
            added = t.get("timeAdded")
            c.add(FieldError(DUPLICATE, p, GoStruct(
                Key=key, Value=value, Effect=effect,
                TimeAdded=None if added is None else str(added)),
                "taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))
    status = c.mapping(body.get("status"), "status")
    for part in ("capacity", "allocatable"):
        for name, qty in c.mapping(status.get(part), f"status.{part}").items():
            if type(qty) is str and (name, qty) in _VALID_QUANTITIES:
                continue  # nodes of one instance type repeat their figures
            before = len(c.errors)
            quantity(c, str(name), qty, f"status.{part}.{name}")
            if type(qty) is str and type(name) is str and len(c.errors) == before:
                if len(_VALID_QUANTITIES) >= 4096:
                    _VALID_QUANTITIES.clear()
                _VALID_QUANTITIES.add((name, qty))
    return c.errors



def validate_priority_class(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClass``: name, value range, preemptionPolicy."""
    c = Checker()
    meta = c.mapping(body.get("metadata"), "metadata")
    metadata(c, meta, False)
    value = c.integer(body.get("value"), "value")
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    if value is not None and value > HIGHEST_USER_DEFINABLE_PRIORITY and not name.startswith(
            "system-"):
        c.add(forbidden("value", f"maximum allowed value of a user defined priority is "
                                 f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = body.get("preemptionPolicy")
    if policy is not None and policy not in ("PreemptLowerPriority", "Never"):
        c.add(not_supported("preemptionPolicy", str(policy), ["Never", "PreemptLowerPriority"]))
    return c.errors


def validate_pdb(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodDisruptionBudget`` for its selector and min/max fields."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        c.add(invalid("spec", GoStruct(), "minAvailable and maxUnavailable cannot be both set"))
    if spec.get("selector") is not None:
        label_selector(c, spec.get("selector"), "spec.selector")
    status = c.mapping(body.get("status"), "status")
    c.integer(status.get("disruptionsAllowed"), "status.disruptionsAllowed")
    return c.errors


def validate_namespace(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNamespace``: a DNS label name and valid labels."""
    c = Checker()
    metadata(c, c.mapping(body.get("metadata"), "metadata"), False, dns1123_label)
    return c.errors


VALIDATORS: dict[str, Callable[[Mapping[str, Any]], list[FieldError]]] = {
    "Pod": validate_pod,
    "Node": validate_node,
    "PriorityClass": validate_priority_class,
    "PodDisruptionBudget": validate_pdb,
    "Namespace": validate_namespace,
}


def invalid_message(kind: str, name: str, errors: list[FieldError]) -> str:
    """``NewInvalid``'s message for a ``kind`` of :data:`VALIDATORS`: ``<Kind.group>
    "<name>" is invalid: <errors>``."""
    return new_invalid_message(_QUALIFIED_KIND.get(kind, kind), name, errors)
