"""Validation of a defaulted ``KubeSchedulerConfiguration``, worded as upstream.

Mirrors ``pkg/scheduler/apis/config/validation`` (``validation.go``,
``validation_pluginargs.go``) for the fields kubepreempt reads: ``parallelism``,
``percentageOfNodesToScore`` (global and per profile), profiles' ``schedulerName``
(required, unique), the common queue sort, duplicate ``pluginConfig`` entries, plugins
removed in v1, the backoff seconds, and the arguments of DefaultPreemption,
InterPodAffinity, NodeAffinity, NodeResourcesBalancedAllocation, NodeResourcesFit and
PodTopologySpread. Returns the list of field errors (empty when valid).
"""

from __future__ import annotations

from typing import Any

from kubepreempt.apimachinery.strconv import NumError, parse_int64
from kubepreempt.apimachinery.validation import label_value, qualified_name
from kubepreempt.scheduler.config.defaults import API_VERSION, EXTENSION_POINTS
from kubepreempt.scheduler.config.fielderrors import (
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)

# invalidPluginsByVersion for v1.
REMOVED_IN_V1 = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
STRATEGIES = ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]
MAX_CUSTOM_PRIORITY_SCORE = 10


def label_name_errors(path: str, name: str) -> list[str]:
    """``metav1validation.ValidateLabelName``: one error per ``IsQualifiedName`` message."""
    return [invalid(path, name, msg) for msg in qualified_name(name)]


def _percentage(path: str, value: Any) -> list[str]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def validate(cfg: dict[str, Any]) -> list[str]:
    """``ValidateKubeSchedulerConfiguration`` for the fields kubepreempt reads."""
    errs: list[str] = []
    if cfg["parallelism"] <= 0:
        errs.append(invalid("parallelism", cfg["parallelism"],
                            "should be an integer value greater than zero"))
    profiles = cfg["profiles"]
    seen: dict[str, int] = {}
    for i, profile in enumerate(profiles):
        path = f"profiles[{i}]"
        name = profile.get("schedulerName") or ""
        if not name:
            errs.append(required(f"{path}.schedulerName"))
        errs += _percentage(f"{path}.percentageOfNodesToScore",
                            profile.get("percentageOfNodesToScore"))
        errs += _validate_plugin_config(path, profile)
        if name in seen:
            errs.append(duplicate(f"{path}.schedulerName",
                                  f"profiles[{seen[name]}].schedulerName"))
        seen[name] = i
    errs += _validate_common_queue_sort(profiles)
    errs += _percentage("percentageOfNodesToScore", cfg["percentageOfNodesToScore"])
    if cfg["podInitialBackoffSeconds"] <= 0:
        errs.append(invalid("podInitialBackoffSeconds", cfg["podInitialBackoffSeconds"],
                            "must be greater than 0"))
    if cfg["podMaxBackoffSeconds"] < cfg["podInitialBackoffSeconds"]:
        errs.append(invalid("podMaxBackoffSeconds", cfg["podMaxBackoffSeconds"],
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    return errs


def _validate_common_queue_sort(profiles: list[dict[str, Any]]) -> list[str]:
    errs = []
    canon = profiles[0]["plugins"].get("queueSort", {})
    if len(canon.get("enabled") or []) > 1:
        errs.append(invalid("profiles[0].plugins.queueSort.Enabled",
                            len(canon["enabled"]), "only one queue sort plugin can be enabled"))
    for i in range(1, len(profiles)):
        curr = profiles[i]["plugins"].get("queueSort", {})
        if curr != canon:
            errs.append(invalid(f"profiles[{i}].plugins.queueSort", curr,
                                "must be the same for all profiles"))
    return errs


def _validate_plugin_config(path: str, profile: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    plugins = profile["plugins"]
    for point in EXTENSION_POINTS:
        for j, p in enumerate(plugins.get(point, {}).get("enabled") or []):
            if p["name"] in REMOVED_IN_V1:
                errs.append(invalid(f"{path}.plugins.{point}.enabled[{j}]", p["name"],
                                    f'was invalid in version "{API_VERSION}" '
                                    f'(KubeSchedulerConfiguration is version "{API_VERSION}")'))
    seen: set[str] = set()
    for j, cfg in enumerate(profile.get("pluginConfig") or []):
        cpath = f"{path}.pluginConfig[{j}]"
        name = cfg.get("name")
        if name in seen:
            errs.append(duplicate(cpath, name))
        seen.add(name)
        if name in REMOVED_IN_V1:
            errs.append(invalid(cpath, name, f'was invalid in version "{API_VERSION}" '
                                f'(KubeSchedulerConfiguration is version "{API_VERSION}")'))
            continue
        check = ARGS_VALIDATORS.get(name)
        if check is not None:
            # NodeResourcesFit's args are validated when the plugin is built (NewFit), with
            # paths relative to the args, as upstream.
            prefix = "" if name == "NodeResourcesFit" else f"{cpath}.args."
            errs += check(prefix, cfg.get("args") or {})
    return errs


def validate_default_preemption(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidateDefaultPreemptionArgs``."""
    errs = []
    pct, absolute = args["minCandidateNodesPercentage"], args["minCandidateNodesAbsolute"]
    if not 0 <= pct <= 100:
        errs.append(invalid(p + "minCandidateNodesPercentage", pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(p + "minCandidateNodesAbsolute", absolute,
                            "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(p + "minCandidateNodesPercentage", pct,
                            "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(p + "minCandidateNodesAbsolute", absolute,
                            "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def validate_inter_pod_affinity(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidateInterPodAffinityArgs``."""
    w = args["hardPodAffinityWeight"]
    if not 0 <= w <= 100:
        return [invalid(p + "hardPodAffinityWeight", w, "not in valid range [0, 100]")]
    return []


def validate_pod_topology_spread(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidatePodTopologySpreadArgs``."""
    errs = []
    kind = args["defaultingType"]
    constraints = args.get("defaultConstraints") or []
    if kind not in ("System", "List"):
        errs.append(not_supported(p + "defaultingType", kind, ["System", "List"]))
    elif kind == "System" and constraints:
        errs.append(invalid(p + "defaultingType", kind, "when .defaultConstraints are not empty"))
    base = p + "defaultConstraints"
    for i, c in enumerate(constraints):
        cp = f"{base}[{i}]"
        skew = c.get("maxSkew", 0)
        if skew <= 0:
            errs.append(invalid(cp + ".maxSkew", skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(cp + ".topologyKey", "can not be empty"))
        else:
            errs += label_name_errors(cp + ".topologyKey", key)
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(required(cp + ".whenUnsatisfiable", "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(cp + ".whenUnsatisfiable", when,
                                      ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(cp + ".labelSelector", "constraint must not define a "
                                  "selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if other.get("topologyKey") == key and other.get("whenUnsatisfiable") == when:
                errs.append(duplicate(f"{base}[{i}]", f"{{{key}, {when}}}"))
                break
    return errs


def _function_shape(path: str, shape: list[dict[str, Any]]) -> list[str]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(invalid(f"{path}[{i}].utilization", shape[i].get("utilization", 0),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        u, s = point.get("utilization", 0), point.get("score", 0)
        if not 0 <= u <= 100:
            errs.append(invalid(f"{path}[{i}].utilization", u, "not in valid range [0, 100]"))
        if not 0 <= s <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(f"{path}[{i}].score", s,
                                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def validate_fit(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidateNodeResourcesFitArgs``."""
    errs = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        errs += label_name_errors(f"{p}ignoredResources[{i}]", res)
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        gp = f"{p}ignoredResourceGroups[{i}]"
        if "/" in group:
            errs.append(invalid(gp, group, "resource group name can't contain '/'"))
        errs += label_name_errors(gp, group)
    sp = p + "scoringStrategy"
    strategy = args.get("scoringStrategy")
    if strategy is None:
        return [*errs, required(sp, "ScoringStrategy field is required")]
    kind = strategy.get("type", "")
    if kind not in STRATEGIES:
        errs.append(not_supported(sp + ".type", kind, STRATEGIES))
    for i, r in enumerate(strategy.get("resources") or []):
        w = r.get("weight", 0)
        if not 0 < w <= 100:
            errs.append(invalid(f"{sp}.resources[{i}].weight", w,
                                f"resource weight of {r.get('name', '')} not in valid range "
                                "(0, 100]"))
    rtcr = strategy.get("requestedToCapacityRatio")
    if kind == "RequestedToCapacityRatio":
        if rtcr is None:
            errs.append(required(sp + ".requestedToCapacityRatio",
                                 "must be specified when type is RequestedToCapacityRatio"))
        else:
            errs += _function_shape(sp + ".requestedToCapacityRatio.shape",
                                    rtcr.get("shape") or [])
    elif rtcr is not None:
        errs.append(forbidden(sp + ".requestedToCapacityRatio",
                              "must be nil when type is not RequestedToCapacityRatio"))
    return errs


def validate_balanced_allocation(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidateNodeResourcesBalancedAllocationArgs``."""
    errs = []
    seen: set[str] = set()
    for i, r in enumerate(args.get("resources") or []):
        name = r.get("name", "")
        if name in seen:
            errs.append(duplicate(f"{p}resources[{i}].name", name))
        seen.add(name)
        if r.get("weight") != 1:
            errs.append(invalid(f"{p}resources[{i}].weight", r.get("weight"), "must be 1"))
    return errs


# validSelectorOperators and validFieldSelectorOperators of component-helpers' nodeaffinity.
NODE_SELECTOR_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
FIELD_SELECTOR_OPERATORS = ["In", "NotIn"]


def _is_int64(value: str) -> bool:
    """``strconv.ParseInt(value, 10, 64)`` succeeds."""
    try:
        parse_int64(value)
    except NumError:
        return False
    return True


def _requirement_errors(p: str, expr: dict[str, Any]) -> list[str]:
    """``labels.NewRequirement`` with a path: every problem of one match expression."""
    key, op = expr.get("key") or "", expr.get("operator") or ""
    values = [str(v) for v in expr.get("values") or []]
    # validateLabelKey: one error, IsQualifiedName's messages joined (unlike
    # ValidateLabelName's one error per message).
    key_msgs = qualified_name(key)
    errs = [invalid(p + ".key", key, "; ".join(key_msgs))] if key_msgs else []
    vp = p + ".values"
    if op in ("In", "NotIn"):
        if not values:
            errs.append(invalid(vp, values, "for 'in', 'notin' operators, values set can't "
                                "be empty"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(invalid(vp, values, "values set must be empty for exists and does "
                                "not exist"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(invalid(vp, values, "for 'Gt', 'Lt' operators, exactly one value is "
                                "required"))
        errs += [invalid(f"{vp}[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an "
                         "integer") for i, v in enumerate(values) if not _is_int64(v)]
    else:  # nodeSelectorRequirementsAsSelector refuses it before NewRequirement
        return [not_supported(p + ".operator", op, NODE_SELECTOR_OPERATORS)]
    for i, v in enumerate(values):
        msgs = label_value(v)
        if msgs:
            errs.append(invalid(f"{vp}[{i}][{key}]", v, "; ".join(msgs)))
    return errs


def _term_errors(p: str, term: dict[str, Any]) -> list[str]:
    """``newNodeSelectorTerm``'s parse errors (matchExpressions, then matchFields)."""
    errs = []
    for i, expr in enumerate(term.get("matchExpressions") or []):
        errs += _requirement_errors(f"{p}.matchExpressions[{i}]", expr)
    for i, expr in enumerate(term.get("matchFields") or []):
        fp = f"{p}.matchFields[{i}]"
        op, values = expr.get("operator") or "", expr.get("values") or []
        if op not in FIELD_SELECTOR_OPERATORS:
            errs.append(not_supported(fp + ".operator", op, FIELD_SELECTOR_OPERATORS))
        elif len(values) != 1:
            errs.append(invalid(fp + ".values", values, "must have one element"))
    return errs


def _is_empty_term(term: dict[str, Any]) -> bool:
    """``isEmptyNodeSelectorTerm``: such a term selects nothing and is not parsed."""
    return not term.get("matchExpressions") and not term.get("matchFields")


def validate_node_affinity(p: str, args: dict[str, Any]) -> list[str]:
    """``ValidateNodeAffinityArgs``: ``nodeaffinity.NewNodeSelector`` and
    ``NewPreferredSchedulingTerms`` with the ``addedAffinity`` paths."""
    added = args.get("addedAffinity")
    if not added:
        return []
    errs = []
    base = p + "addedAffinity"
    req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        rp = base + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(req.get("nodeSelectorTerms") or []):
            if not _is_empty_term(term):
                errs += _term_errors(f"{rp}[{i}]", term)
    pp = base + ".preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(added.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        term = pref.get("preference") or {}
        # A zero weight term is skipped, and its errors with it; the path has no
        # ".preference" (NewPreferredSchedulingTerms indexes the list only).
        if pref.get("weight", 0) != 0 and not _is_empty_term(term):
            errs += _term_errors(f"{pp}[{i}]", term)
    return errs


ARGS_VALIDATORS = {
    "DefaultPreemption": validate_default_preemption,
    "InterPodAffinity": validate_inter_pod_affinity,
    "NodeAffinity": validate_node_affinity,
    "NodeResourcesBalancedAllocation": validate_balanced_allocation,
    "NodeResourcesFit": validate_fit,
    "PodTopologySpread": validate_pod_topology_spread,
}
