"""kube-apiserver's rules for the pod spec fields kubepreempt reads, and for the selectors,
taints and quantities other kinds share (``pkg/apis/core/validation``, metav1
``ValidateLabelSelector``).

Each rule adds its field errors to a :class:`~kubepreempt.api.fieldcheck.Checker`. Stanzas
found valid are remembered by content (``KNOWN_VALID_*``): dumps repeat a few templates
over thousands of pods. The sets are read by :mod:`kubepreempt.api.pod_fast_accept` and
filled only here.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.fieldcheck import INT64, Checker
from kubepreempt.api.metadata_validation import label_name, labels
from kubepreempt.api.quantity import QuantityError, parse_quantity
from kubepreempt.apimachinery.field import (
    GoStruct,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from kubepreempt.apimachinery.validation import (
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
)

EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def quantity(c: Checker, name: str, raw: Any, path: str) -> None:
    """``ValidateResourceQuantityValue``: a quantity, not negative, whole for counts."""
    try:
        value = parse_quantity(raw)
    except (QuantityError, TypeError):
        c.add(invalid(path, raw if isinstance(raw, str | int | float) else str(raw),
                      "quantities must match the regular expression "
                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"))
        return
    if value < 0:
        c.add(invalid(path, str(raw), "must be greater than or equal to 0"))
    elif _is_integer_resource(name) and value.denominator != 1:
        c.add(invalid(path, str(raw), "must be an integer"))


def _is_integer_resource(name: str) -> bool:
    # helper.IsIntegerResourceName: pods (the standard count we read) and extended resources.
    return name == "pods" or ("/" in name and not name.startswith("requests.")
                              and "kubernetes.io/" not in name.split("/")[0] + "/")


def _container_resource_name(c: Checker, name: str, path: str) -> None:
    """``validateContainerResourceName``."""
    for msg in qualified_name(name):
        c.add(invalid(path, name, msg))
    if "/" not in name:
        if name not in ("cpu", "memory", "ephemeral-storage") and not name.startswith(
                "hugepages-"):
            c.add(invalid(path, name, "must be a standard resource for containers"))
    elif not (name.split("/")[0].endswith("kubernetes.io")) and name.startswith("requests."):
        c.add(invalid(path, name, "doesn't follow extended resource name standard"))


def resources(c: Checker, raw: Any, path: str) -> None:
    """``ValidateContainerResourceRequirements``: names, quantities, request <= limit."""
    res = c.mapping(raw, path)
    limits = c.mapping(res.get("limits"), f"{path}.limits")
    requests = c.mapping(res.get("requests"), f"{path}.requests")
    parsed_limits = {}
    for name, qty in limits.items():
        p = f"{path}.limits[{name}]"
        _container_resource_name(c, str(name), p)
        before = len(c.errors)
        quantity(c, str(name), qty, p)
        if len(c.errors) == before:
            parsed_limits[name] = (parse_quantity(qty), qty)
    for name, qty in requests.items():
        p = f"{path}.requests[{name}]"
        _container_resource_name(c, str(name), p)
        before = len(c.errors)
        quantity(c, str(name), qty, p)
        if len(c.errors) == before and name in parsed_limits:
            limit, limit_raw = parsed_limits[name]
            if parse_quantity(qty) > limit:
                c.add(invalid(p, str(qty), f"must be less than or equal to {name} limit of "
                                           f"{limit_raw}"))


def taint_effect(c: Checker, effect: Any, allow_empty: bool, path: str) -> None:
    """``validateTaintEffect``."""
    if not allow_empty and not effect:
        c.add(required(path))
    elif effect and effect not in EFFECTS:
        c.add(not_supported(path, effect, EFFECTS))


def _requirement(c: Checker, raw: Any, p: str, numeric: bool) -> None:
    """One selector requirement (``ValidateLabelSelectorRequirement``, or with ``numeric``
    the node selector's, which also takes ``Gt``/``Lt``): operator, values, key."""
    req = c.mapping(raw, p)
    op = req.get("operator")
    values = c.items(req.get("values"), f"{p}.values")
    if op in ("In", "NotIn"):
        if not values:
            c.add(required(f"{p}.values",
                           "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            c.add(forbidden(f"{p}.values",
                            "may not be specified when `operator` is 'Exists' or "
                            "'DoesNotExist'"))
    elif numeric and op in ("Gt", "Lt"):
        if len(values) != 1:
            c.add(required(f"{p}.values",
                           "must be specified single value when `operator` is 'Lt' or "
                           "'Gt'"))
    else:
        c.add(invalid(f"{p}.operator", op, "not a valid selector operator"))
    key = c.string(req.get("key"), f"{p}.key")
    if key is not None:
        label_name(c, key, f"{p}.key")


def label_selector(c: Checker, raw: Any, path: str) -> None:
    """``ValidateLabelSelector``: matchLabels and matchExpressions."""
    sel = c.mapping(raw, path)
    labels(c, sel.get("matchLabels"), f"{path}.matchLabels")
    for i, req in enumerate(c.items(sel.get("matchExpressions"), f"{path}.matchExpressions")):
        _requirement(c, req, f"{path}.matchExpressions[{i}]", numeric=False)


def _node_selector_term(c: Checker, raw: Any, path: str) -> None:
    """``ValidateNodeSelectorTerm``: its matchExpressions, then its matchFields."""
    term = c.mapping(raw, path)
    for i, req in enumerate(c.items(term.get("matchExpressions"), f"{path}.matchExpressions")):
        _requirement(c, req, f"{path}.matchExpressions[{i}]", numeric=True)
    for i, req in enumerate(c.items(term.get("matchFields"), f"{path}.matchFields")):
        _field_requirement(c, req, f"{path}.matchFields[{i}]")


def _field_requirement(c: Checker, raw: Any, p: str) -> None:
    """``validateNodeFieldSelectorRequirement``: In/NotIn with one value, on
    ``metadata.name`` (the only node field selector key), whose values are node names."""
    req = c.mapping(raw, p)
    values = c.items(req.get("values"), f"{p}.values")
    if req.get("operator") in ("In", "NotIn"):
        if len(values) != 1:
            c.add(required(f"{p}.values", "must be only one value when `operator` is 'In' or "
                                          "'NotIn' for node field selector"))
    else:
        c.add(invalid(f"{p}.operator", req.get("operator"), "not a valid selector operator"))
    key = c.string(req.get("key"), f"{p}.key")
    if key is None:
        return
    if key != "metadata.name":
        c.add(invalid(f"{p}.key", key, "not a valid field selector key"))
        return
    for i, value in enumerate(values):
        name = c.string(value, f"{p}.values[{i}]")
        for msg in dns1123_subdomain(name) if name is not None else ():
            c.add(invalid(f"{p}.values[{i}]", name, msg))


def _weight(c: Checker, raw: Any, path: str) -> None:
    weight = c.integer(raw, path)
    if weight is not None and not 1 <= weight <= 100 or raw is None:
        c.add(invalid(path, 0 if raw is None else weight, "must be in the range 1-100"))


def _pod_affinity_term(c: Checker, raw: Any, path: str) -> None:
    """``validatePodAffinityTerm``: selectors and a non-empty topologyKey."""
    term = c.mapping(raw, path)
    label_selector(c, term.get("labelSelector"), f"{path}.labelSelector")
    label_selector(c, term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for i, ns in enumerate(c.items(term.get("namespaces"), f"{path}.namespaces")):
        name = c.string(ns, f"{path}.namespaces[{i}]")
        if name is not None:
            for msg in dns1123_label(name):
                c.add(invalid(f"{path}.namespace", name, msg))
    key = c.string(term.get("topologyKey"), f"{path}.topologyKey")
    if key == "":
        c.add(required(f"{path}.topologyKey", "can not be empty"))
    elif key is not None:
        label_name(c, key, f"{path}.topologyKey")


def affinity(c: Checker, raw: Any, path: str) -> None:
    """``validateAffinity``: node affinity terms, pod (anti-)affinity terms and weights."""
    aff = c.mapping(raw, path)
    node = c.mapping(aff.get("nodeAffinity"), f"{path}.nodeAffinity")
    p = f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    if node.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        sel = c.mapping(node["requiredDuringSchedulingIgnoredDuringExecution"], p)
        terms = c.items(sel.get("nodeSelectorTerms"), f"{p}.nodeSelectorTerms")
        if not terms and isinstance(sel.get("nodeSelectorTerms"), list | type(None)):
            c.add(required(f"{p}.nodeSelectorTerms",
                           "must have at least one node selector term"))
        for i, t in enumerate(terms):
            _node_selector_term(c, t, f"{p}.nodeSelectorTerms[{i}]")
    p = f"{path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, t in enumerate(c.items(node.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                  p)):
        t = c.mapping(t, f"{p}[{i}]")
        _weight(c, t.get("weight"), f"{p}[{i}].weight")
        _node_selector_term(c, t.get("preference"), f"{p}[{i}].preference")
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = c.mapping(aff.get(kind), f"{path}.{kind}")
        p = f"{path}.{kind}.requiredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(c.items(pod.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                      p)):
            _pod_affinity_term(c, t, f"{p}[{i}]")
        p = f"{path}.{kind}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(c.items(
                pod.get("preferredDuringSchedulingIgnoredDuringExecution"), p)):
            t = c.mapping(t, f"{p}[{i}]")
            _weight(c, t.get("weight"), f"{p}[{i}].weight")
            _pod_affinity_term(c, t.get("podAffinityTerm"), f"{p}[{i}].podAffinityTerm")


def tolerations(c: Checker, raw: Any, path: str) -> None:
    """``ValidateTolerations``."""
    for i, t in enumerate(c.items(raw, path)):
        p = f"{path}[{i}]"
        t = c.mapping(t, p)
        key = c.string(t.get("key"), f"{p}.key")
        op = c.string(t.get("operator"), f"{p}.operator")
        value = c.string(t.get("value"), f"{p}.value")
        effect = c.string(t.get("effect"), f"{p}.effect")
        seconds = c.integer(t.get("tolerationSeconds"), f"{p}.tolerationSeconds", INT64)
        if None in (key, op, value, effect):
            continue
        if key:
            label_name(c, key, f"{p}.key")
        if not key and op != "Exists":
            c.add(invalid(f"{p}.operator", op, "operator must be Exists when `key` is empty, "
                                              "which means \"match all values and all keys\""))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            c.add(invalid(f"{p}.effect", effect,
                          "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if op in ("Equal", ""):
            msgs = label_value(value)
            if msgs:
                c.add(invalid(f"{p}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                c.add(invalid(f"{p}.operator", GoStruct(
                    Key=key, Operator=op, Value=value, Effect=effect,
                    TolerationSeconds=seconds), "value must be empty when `operator` is "
                                                "'Exists'"))
        else:
            c.add(not_supported(f"{p}.operator", op, ["Equal", "Exists"]))
        if effect:
            taint_effect(c, effect, True, f"{p}.effect")


def spread(c: Checker, raw: Any, path: str) -> None:
    """``validateTopologySpreadConstraints``."""
    items = c.items(raw, path)
    pairs = []
    for i, s in enumerate(items):
        s = c.mapping(s, f"{path}[{i}]")
        pairs.append((s.get("topologyKey"), s.get("whenUnsatisfiable")))
    for i, s in enumerate(items):
        p = f"{path}[{i}]"
        s = c.mapping(s, p)
        skew = c.integer(s.get("maxSkew"), f"{p}.maxSkew")
        if skew is not None and skew <= 0 or s.get("maxSkew") is None:
            c.add(invalid(f"{p}.maxSkew", skew or 0, "must be greater than zero"))
        key = c.string(s.get("topologyKey"), f"{p}.topologyKey")
        if key == "":
            c.add(required(f"{p}.topologyKey", "can not be empty"))
        when = s.get("whenUnsatisfiable")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            c.add(not_supported(f"{p}.whenUnsatisfiable", when if isinstance(when, str) else
                                "", ["DoNotSchedule", "ScheduleAnyway"]))
        if pairs[i] in pairs[i + 1:]:
            c.add(duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}",
                            f"{{{pairs[i][0]}, {pairs[i][1]}}}"))
        if s.get("minDomains") is not None:
            md = c.integer(s.get("minDomains"), f"{p}.minDomains")
            if md is not None:
                if md <= 0:
                    c.add(invalid(f"{p}.minDomains", md, "must be greater than zero"))
                if when != "DoNotSchedule":
                    c.add(invalid(f"{p}.minDomains", md,
                                  f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                                  f"not {when if isinstance(when, str) else ''}"))
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = s.get(policy)
            if v is not None and v not in ("Honor", "Ignore"):
                c.add(not_supported(f"{p}.{policy}", v if isinstance(v, str) else str(v),
                                    ["Honor", "Ignore"]))
        label_selector(c, s.get("labelSelector"), f"{p}.labelSelector")


# Resource stanzas already found valid, by content: dumps repeat a few request templates
# over thousands of pods, so each is validated once.
KNOWN_VALID_RESOURCES: set[tuple] = set()


def resources_key(res: Any) -> tuple | None:
    """A hashable key for a resources stanza of string quantities (None: not that shape)."""
    if type(res) is not dict:
        return None
    parts = []
    for part in (res.get("requests"), res.get("limits")):
        if part is None:
            parts.append(())
        elif type(part) is dict:
            items = tuple(part.items())
            for k, v in items:
                if type(k) is not str or type(v) is not str:
                    return None
            parts.append(items)
        else:
            return None
    return (len(res), *parts)


def containers(c: Checker, raw: Any, path: str, names: set[str]) -> None:
    """``validateContainers`` for the fields read: each name a DNS label, unique across
    ``names`` (shared by containers and init containers), resources, ports."""
    for i, ctr in enumerate(c.items(raw, path)):
        if type(ctr) is not dict:  # paths are built only where an error may need them
            ctr = c.mapping(ctr, f"{path}[{i}]")
        name = ctr.get("name")
        if type(name) is not str:
            name = c.string(name, f"{path}[{i}].name")
        if name:
            for msg in dns1123_label(name):
                c.add(invalid(f"{path}[{i}].name", name, msg))
            if name in names:
                c.add(duplicate(f"{path}[{i}].name", name))
            names.add(name)
        res = ctr.get("resources")
        if res is not None:
            key = resources_key(res)
            if key is None or key not in KNOWN_VALID_RESOURCES:
                before = len(c.errors)
                resources(c, res, f"{path}[{i}].resources")
                if key is not None and len(c.errors) == before:
                    if len(KNOWN_VALID_RESOURCES) >= 4096:
                        KNOWN_VALID_RESOURCES.clear()
                    KNOWN_VALID_RESOURCES.add(key)
        if "ports" in ctr:
            _ports(c, ctr["ports"], f"{path}[{i}].ports")


def _ports(c: Checker, raw: Any, path: str) -> None:
    for j, port in enumerate(c.items(raw, path)):
        port = c.mapping(port, f"{path}[{j}]")
        host = c.integer(port.get("hostPort"), f"{path}[{j}].hostPort")
        if host is not None and host != 0 and not 1 <= host <= 65535:
            c.add(invalid(f"{path}[{j}].hostPort", host,
                          "must be between 1 and 65535, inclusive"))
        proto = port.get("protocol")
        if proto is not None and proto not in ("TCP", "UDP", "SCTP"):
            c.add(not_supported(f"{path}[{j}].protocol", str(proto), ["SCTP", "TCP", "UDP"]))


KNOWN_VALID_TOLERATIONS: set[tuple] = set()


def tolerations_key(raw: Any) -> tuple | None:
    """A hashable key for a list of tolerations (None: not a list of flat mappings)."""
    if type(raw) is not list:
        return None
    for t in raw:
        if type(t) is not dict:
            return None
        for value in t.values():
            # Only strings, ints and null: other values compare equal across types
            # (True == 1) yet validate differently; lists and mappings are unhashable.
            if value is not None and type(value) is not str and type(value) is not int:
                return None
    return tuple(tuple(t.items()) for t in raw)
