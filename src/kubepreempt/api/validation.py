"""kube-apiserver's create validation for the fields kubepreempt reads.

An object the apiserver would refuse could never be in a cluster, so deciding about it is a
wrong answer: the loader rejects it with the apiserver's own message (kube-apiserver 1.36,
``pkg/apis/core/validation/validation.go``, ``pkg/apis/scheduling/validation``,
``pkg/apis/policy/validation`` and apimachinery's ``util/validation``). Fields kubepreempt
does not read are not validated. Values of the wrong JSON type (a list where a mapping
belongs), which the apiserver refuses while decoding, are reported as ``Invalid type``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from kubepreempt.api.fielderrors import (
    TYPE,
    FieldError,
    GoStruct,
    aggregate,
    duplicate,
    forbidden,
    go_value,
    invalid,
    not_supported,
    required,
)
from kubepreempt.api.quantity import QuantityError, parse_quantity

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
_QUALIFIED_KIND = {"PriorityClass": "PriorityClass.scheduling.k8s.io",
                   "PodDisruptionBudget": "PodDisruptionBudget.policy"}

# apimachinery util/validation: the formats and their messages.
_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME = re.compile(_QNAME_FMT)
_QNAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and "
              "end with an alphanumeric character")
_LABEL_VALUE_FMT = f"({_QNAME_FMT})?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character")
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_LABEL = re.compile(_DNS_LABEL_FMT)
_DNS_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                  "characters or '-', and must start and end with an alphanumeric character")
_DNS_SUBDOMAIN_FMT = _DNS_LABEL_FMT + r"(\." + _DNS_LABEL_FMT + ")*"
_DNS_SUBDOMAIN = re.compile(_DNS_SUBDOMAIN_FMT)
_DNS_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                      "characters, '-' or '.', and must start and end with an alphanumeric "
                      "character")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    # validation.RegexError, including its double space before each "or".
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def dns1123_subdomain(value: str) -> tuple[str, ...]:
    """``IsDNS1123Subdomain`` messages (empty when valid)."""
    # Object names are nearly all unique and valid: one match, no cache to thrash.
    if len(value) <= 253 and _DNS_SUBDOMAIN.fullmatch(value):
        return ()
    errs = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _DNS_SUBDOMAIN.fullmatch(value):
        errs.append(_regex_error(_DNS_SUBDOMAIN_MSG, _DNS_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


# Valid DNS labels seen (namespaces and container names repeat over every pod).
_VALID_DNS_LABELS: set[str] = set()


def dns1123_label(value: str) -> tuple[str, ...]:
    """``IsDNS1123Label`` messages (empty when valid)."""
    if value in _VALID_DNS_LABELS:
        return ()
    if len(value) <= 63 and _DNS_LABEL.fullmatch(value):
        if len(_VALID_DNS_LABELS) < 65536:
            _VALID_DNS_LABELS.add(value)
        return ()
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS_LABEL.fullmatch(value):
        errs.append(_regex_error(_DNS_LABEL_MSG, _DNS_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def qualified_name(value: str) -> tuple[str, ...]:
    """``IsQualifiedName`` messages: label keys, taint and toleration keys."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errs: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs = ["prefix part must be non-empty"]
        else:
            errs = [f"prefix part {m}" for m in dns1123_subdomain(prefix)]
    else:
        return (_regex_error("a qualified name " + _QNAME_MSG, _QNAME_FMT, "MyName",
                             "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. "
                  "'example.com/MyName')",)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if name and not _QNAME.fullmatch(name):
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name",
                                                "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def label_value(value: str) -> tuple[str, ...]:
    """``IsValidLabelValue`` messages."""
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not re.fullmatch(_LABEL_VALUE_FMT, value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value",
                                 "12345"))
    return tuple(errs)


class Checker:
    """Collects field errors for one object; type mismatches stop the descent."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def add(self, error: FieldError) -> None:
        self.errors.append(error)

    def type_error(self, path: str, expected: str, got: Any) -> None:
        self.errors.append(FieldError(TYPE, path, None,
                                      f"must be {expected}, not {_type_name(got)}"))

    def mapping(self, raw: Any, path: str) -> Mapping[str, Any]:
        if type(raw) is dict:  # the common case; isinstance(.., Mapping) is a slow ABC check
            return raw
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.type_error(path, "an object", raw)
            return {}
        return raw

    def items(self, raw: Any, path: str) -> list[Any]:
        if type(raw) is list:
            return raw
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.type_error(path, "a list", raw)
            return []
        return raw

    def string(self, raw: Any, path: str) -> str | None:
        if raw is None:
            return ""
        if isinstance(raw, str):
            return raw
        self.type_error(path, "a string", raw)
        return None

    def integer(self, raw: Any, path: str, bounds: tuple[int, int] = INT32) -> int | None:
        """An int32/int64 field: JSON decoding refuses other types and out-of-range values."""
        if raw is None:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int):
            if isinstance(raw, float) and raw.is_integer() and bounds[0] <= raw <= bounds[1]:
                return int(raw)
            self.type_error(path, "an integer", raw)
            return None
        if not bounds[0] <= raw <= bounds[1]:
            bits = 32 if bounds == INT32 else 64
            self.add(FieldError(TYPE, path, None,
                                f"{raw} does not fit in a {bits}-bit integer"))
            return None
        return raw

    def string_map(self, raw: Any, path: str) -> dict[str, str]:
        if not raw and (raw is None or type(raw) is dict):
            return {}
        out: dict[str, str] = {}
        for k, v in self.mapping(raw, path).items():
            if not isinstance(k, str):
                self.type_error(f"{path}[{k}]", "a string key", k)
            elif isinstance(v, Mapping | list):
                self.type_error(f"{path}[{k}]", "a string", v)
            else:  # YAML scalars (numbers, booleans) are read as their text
                out[k] = "" if v is None else str(v)
        return out


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(
        type(value), type(value).__name__)


# ---- shared field validations ---------------------------------------------------------

def label_name(c: Checker, key: str, path: str) -> None:
    """``ValidateLabelName``."""
    for msg in qualified_name(key):
        c.add(invalid(path, key, msg))


# (key, value) label pairs already found valid: a cluster repeats a few hundred pairs over
# all its pods, so most label maps are checked with set lookups alone.
_VALID_LABELS: set[tuple[str, str]] = set()


def labels(c: Checker, raw: Any, path: str) -> None:
    """``ValidateLabels``: every key a qualified name, every value a label value."""
    if type(raw) is dict:
        known = _VALID_LABELS
        for pair in raw.items():
            if type(pair[1]) is not str or pair not in known:  # (lists are unhashable)
                break
        else:
            return  # also an empty map
    for k, v in c.string_map(raw, path).items():
        before = len(c.errors)
        label_name(c, k, path)
        for msg in label_value(v):
            c.add(invalid(path, v, msg))
        if len(c.errors) == before and type(raw.get(k)) is str:
            if len(_VALID_LABELS) >= 65536:
                _VALID_LABELS.clear()
            _VALID_LABELS.add((k, v))


def _quantity(c: Checker, name: str, raw: Any, path: str) -> None:
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


def _resources(c: Checker, raw: Any, path: str) -> None:
    """``ValidateContainerResourceRequirements``: names, quantities, request <= limit."""
    res = c.mapping(raw, path)
    limits = c.mapping(res.get("limits"), f"{path}.limits")
    requests = c.mapping(res.get("requests"), f"{path}.requests")
    parsed_limits = {}
    for name, qty in limits.items():
        p = f"{path}.limits[{name}]"
        _container_resource_name(c, str(name), p)
        before = len(c.errors)
        _quantity(c, str(name), qty, p)
        if len(c.errors) == before:
            parsed_limits[name] = (parse_quantity(qty), qty)
    for name, qty in requests.items():
        p = f"{path}.requests[{name}]"
        _container_resource_name(c, str(name), p)
        before = len(c.errors)
        _quantity(c, str(name), qty, p)
        if len(c.errors) == before and name in parsed_limits:
            limit, limit_raw = parsed_limits[name]
            if parse_quantity(qty) > limit:
                c.add(invalid(p, str(qty), f"must be less than or equal to {name} limit of "
                                           f"{limit_raw}"))


def _taint_effect(c: Checker, effect: Any, allow_empty: bool, path: str) -> None:
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


def _label_selector(c: Checker, raw: Any, path: str) -> None:
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
    _label_selector(c, term.get("labelSelector"), f"{path}.labelSelector")
    _label_selector(c, term.get("namespaceSelector"), f"{path}.namespaceSelector")
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


def _affinity(c: Checker, raw: Any, path: str) -> None:
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


def _tolerations(c: Checker, raw: Any, path: str) -> None:
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
            _taint_effect(c, effect, True, f"{p}.effect")


def _spread(c: Checker, raw: Any, path: str) -> None:
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
        _label_selector(c, s.get("labelSelector"), f"{p}.labelSelector")


# Resource stanzas already found valid, by content: dumps repeat a few request templates
# over thousands of pods, so each is validated once.
_VALID_RESOURCES: set[tuple] = set()


def _resources_key(res: Any) -> tuple | None:
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


def _containers(c: Checker, raw: Any, path: str, names: set[str]) -> None:
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
            key = _resources_key(res)
            if key is None or key not in _VALID_RESOURCES:
                before = len(c.errors)
                _resources(c, res, f"{path}[{i}].resources")
                if key is not None and len(c.errors) == before:
                    if len(_VALID_RESOURCES) >= 4096:
                        _VALID_RESOURCES.clear()
                    _VALID_RESOURCES.add(key)
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


def _metadata(c: Checker, meta: Mapping[str, Any], namespaced: bool,
              name_check: Callable[[str], tuple[str, ...]] = dns1123_subdomain) -> None:
    name = meta.get("name")
    if isinstance(name, str) and name:
        for msg in name_check(name):
            c.add(invalid("metadata.name", name, msg))
    ns = meta.get("namespace")
    if namespaced and isinstance(ns, str) and ns:
        for msg in dns1123_label(ns):
            c.add(invalid("metadata.namespace", ns, msg))
    labels(c, meta.get("labels"), "metadata.labels")
    c.string_map(meta.get("annotations"), "metadata.annotations")


# ---- per kind -------------------------------------------------------------------------

# Spec sections the fast acceptor leaves to the full validation (tolerations it checks by
# content against the lists already found valid).
_FULL_CHECK_SECTIONS = frozenset({"initContainers", "overhead", "resources", "nodeSelector",
                                  "affinity", "topologySpreadConstraints"})
_VALID_TOLERATIONS: set[tuple] = set()
_PROTOCOLS = (None, "TCP", "UDP", "SCTP")
_POLICIES = (None, "PreemptLowerPriority", "Never")


def _tolerations_key(raw: Any) -> tuple | None:
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


def _known_valid_containers(containers: Any) -> bool:
    """:func:`_known_valid_pod` for ``spec.containers``."""
    if type(containers) is not list:
        return False
    names = set()
    for ctr in containers:
        if type(ctr) is not dict:
            return False
        ctr_name = ctr.get("name")
        if ctr_name is not None:
            if type(ctr_name) is not str or ctr_name in names or (
                    ctr_name and ctr_name not in _VALID_DNS_LABELS):
                return False
            if ctr_name:
                names.add(ctr_name)
        res = ctr.get("resources")
        if res is not None and _resources_key(res) not in _VALID_RESOURCES:
            return False
        ports = ctr.get("ports")
        if ports is not None and (type(ports) is not list or not all(
                type(port) is dict and _known_valid_port(port) for port in ports)):
            return False
    return True


def _known_valid_port(port: dict) -> bool:
    """:func:`_known_valid_pod` for one container port."""
    host = port.get("hostPort")
    if host is not None and (type(host) is not int or not 0 <= host <= 65535):
        return False
    return port.get("protocol") in _PROTOCOLS


def _known_valid_pod(body: Mapping[str, Any]) -> bool:
    """True when ``body`` is certainly valid: the common pod, whose every checked value is
    of the expected type and is, or is made of, values already found valid (names by one
    regex match). False says nothing: the full validation decides and words the errors.
    A 50,000-pod dump is validated in half the time (tests/test_validation_fast.py checks
    that it never accepts what :func:`pod_errors` refuses)."""
    meta, spec = body.get("metadata"), body.get("spec")
    if type(meta) is not dict or type(spec) is not dict:
        return False
    name, namespace = meta.get("name"), meta.get("namespace")
    if type(name) is not str or len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        return False
    if namespace is not None and (type(namespace) is not str or (
            namespace and namespace not in _VALID_DNS_LABELS)):
        return False
    labels = meta.get("labels")
    if labels is not None:
        if type(labels) is not dict:
            return False
        for pair in labels.items():
            if type(pair[1]) is not str or pair not in _VALID_LABELS:
                return False
    annotations = meta.get("annotations")
    if annotations is not None:
        if type(annotations) is not dict:
            return False
        for key, value in annotations.items():
            if type(key) is not str or type(value) is not str:
                return False
    if not _FULL_CHECK_SECTIONS.isdisjoint(spec):
        return False
    tolerations = spec.get("tolerations")
    if tolerations is not None and _tolerations_key(tolerations) not in _VALID_TOLERATIONS:
        return False
    containers = spec.get("containers")
    if containers is not None and not _known_valid_containers(containers):
        return False
    priority = spec.get("priority")
    if priority is not None and (type(priority) is not int
                                 or not -2147483648 <= priority <= 2147483647):
        return False
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and (type(grace) is not int or not 0 <= grace <= INT64[1]):
        return False
    for value in (spec.get("nodeName"), spec.get("priorityClassName"),
                  spec.get("schedulerName")):
        if value is not None and type(value) is not str:
            return False
    return spec.get("preemptionPolicy") in _POLICIES


def validate_pod(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodCreate`` for the fields kubepreempt reads."""
    return [] if _known_valid_pod(body) else pod_errors(body)


def pod_errors(body: Mapping[str, Any]) -> list[FieldError]:
    """:func:`validate_pod` without the fast acceptor: every check, every error."""
    c = Checker()
    _metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    # Upstream also requires at least one container, each with a name; kubepreempt's
    # inputs (and upstream's own scheduler test tables) often leave them out, and a pod
    # without containers simply requests nothing, so those two rules are not enforced.
    names: set[str] = set()
    get = spec.get
    _containers(c, get("containers"), "spec.containers", names)
    # The sections below are absent from most pods: test before building any path.
    if get("initContainers") is not None:
        _containers(c, get("initContainers"), "spec.initContainers", names)
    if get("overhead") is not None:
        _resources(c, {"limits": get("overhead")}, "spec.overhead")
    if get("resources") is not None:
        _resources(c, get("resources"), "spec.resources")
    if get("tolerations") is not None:
        before = len(c.errors)
        _tolerations(c, get("tolerations"), "spec.tolerations")
        key = _tolerations_key(get("tolerations"))
        if key is not None and len(c.errors) == before:
            if len(_VALID_TOLERATIONS) >= 4096:
                _VALID_TOLERATIONS.clear()
            _VALID_TOLERATIONS.add(key)
    if get("nodeSelector") is not None:
        labels(c, get("nodeSelector"), "spec.nodeSelector")
    if get("affinity") is not None:
        _affinity(c, get("affinity"), "spec.affinity")
    if get("topologySpreadConstraints") is not None:
        _spread(c, get("topologySpreadConstraints"), "spec.topologySpreadConstraints")
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
    _metadata(c, c.mapping(body.get("metadata"), "metadata"), False)
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
        _taint_effect(c, effect, False, f"{p}.effect")
        if (key, effect) in seen:
            added = t.get("timeAdded")
            c.add(FieldError("Duplicate value", p, GoStruct(
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
            _quantity(c, str(name), qty, f"status.{part}.{name}")
            if type(qty) is str and type(name) is str and len(c.errors) == before:
                if len(_VALID_QUANTITIES) >= 4096:
                    _VALID_QUANTITIES.clear()
                _VALID_QUANTITIES.add((name, qty))
    return c.errors



def validate_priority_class(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClass``: name, value range, preemptionPolicy."""
    c = Checker()
    meta = c.mapping(body.get("metadata"), "metadata")
    _metadata(c, meta, False)
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
    _metadata(c, c.mapping(body.get("metadata"), "metadata"), True)
    spec = c.mapping(body.get("spec"), "spec")
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        c.add(invalid("spec", GoStruct(), "minAvailable and maxUnavailable cannot be both set"))
    if spec.get("selector") is not None:
        _label_selector(c, spec.get("selector"), "spec.selector")
    status = c.mapping(body.get("status"), "status")
    c.integer(status.get("disruptionsAllowed"), "status.disruptionsAllowed")
    return c.errors


def validate_namespace(body: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNamespace``: a DNS label name and valid labels."""
    c = Checker()
    _metadata(c, c.mapping(body.get("metadata"), "metadata"), False, dns1123_label)
    return c.errors


VALIDATORS: dict[str, Callable[[Mapping[str, Any]], list[FieldError]]] = {
    "Pod": validate_pod,
    "Node": validate_node,
    "PriorityClass": validate_priority_class,
    "PodDisruptionBudget": validate_pdb,
    "Namespace": validate_namespace,
}


def invalid_message(kind: str, name: str, errors: list[FieldError]) -> str:
    """``NewInvalid``'s message: ``<Kind> "<name>" is invalid: <errors>``."""
    return f"{_QUALIFIED_KIND.get(kind, kind)} {go_value(name)} is invalid: {aggregate(errors)}"
