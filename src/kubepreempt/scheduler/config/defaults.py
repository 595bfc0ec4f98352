"""Defaulting of ``kubescheduler.config.k8s.io/v1`` ``KubeSchedulerConfiguration``.

Mirrors upstream ``pkg/scheduler/apis/config/v1`` (``defaults.go``,
``default_plugins.go``): ``SetDefaults_KubeSchedulerConfiguration``, the default plugin
set (as ``multiPoint``), ``mergePlugins`` (a custom set's ``disabled`` entries, ``"*"``,
and re-configured default plugins keeping their position) and the default arguments of
every plugin that has an ``...Args`` kind. Works on plain mappings (the YAML as parsed);
the result is a new mapping, the input is not changed.
"""

from __future__ import annotations

import copy
from typing import Any

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"

# Extension points of a profile's ``plugins``, in upstream's Plugins struct order.
EXTENSION_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
                    "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind")

# getDefaultPlugins of 1.36 (defaults_test.go TestSchedulerDefaults): DynamicResources
# (GA, now also scoring, weight 2) just before DefaultPreemption, NodeDeclaredFeatures last.
# Name -> weight (None for non-score plugins).
DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
    ("NodeDeclaredFeatures", None),
)

DEFAULT_RESOURCE_SPEC = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def default_plugins() -> dict[str, Any]:
    """``getDefaultPlugins``: every default plugin under ``multiPoint``."""
    enabled = []
    for name, weight in DEFAULT_MULTI_POINT:
        entry: dict[str, Any] = {"name": name}
        if weight is not None:
            entry["weight"] = weight
        enabled.append(entry)
    return {"multiPoint": {"enabled": enabled}}


def merge_plugin_set(default: dict[str, Any], custom: dict[str, Any]) -> dict[str, Any]:
    """``mergePluginSet``: drop disabled defaults (all with ``"*"``), replace re-configured
    defaults in place, append the other custom plugins."""
    default = default or {}
    custom = custom or {}
    disabled_names: set[str] = set()
    disabled: list[dict[str, Any]] = []
    for p in list(custom.get("disabled") or []) + list(default.get("disabled") or []):
        disabled.append({"name": p["name"]})
        disabled_names.add(p["name"])
    custom_enabled = list(custom.get("enabled") or [])
    by_name = {p["name"]: (i, p) for i, p in enumerate(custom_enabled)}
    replaced: set[int] = set()
    enabled: list[dict[str, Any]] = []
    if "*" not in disabled_names:
        for p in default.get("enabled") or []:
            if p["name"] in disabled_names:
                continue
            if p["name"] in by_name:
                index, p = by_name[p["name"]]
                replaced.add(index)
            enabled.append(p)
    enabled.extend(p for i, p in enumerate(custom_enabled) if i not in replaced)
    out: dict[str, Any] = {}
    if enabled:
        out["enabled"] = enabled
    if disabled:
        out["disabled"] = disabled
    return out


def merge_plugins(custom: dict[str, Any] | None) -> dict[str, Any]:
    """``mergePlugins`` of the default set with a profile's ``plugins``."""
    defaults = default_plugins()
    if custom is None:
        return defaults
    out = {}
    for point in ("multiPoint", *EXTENSION_POINTS):
        merged = merge_plugin_set(defaults.get(point, {}), custom.get(point) or {})
        if merged:
            out[point] = merged
    return out


def plugin_names(plugins: dict[str, Any]) -> list[str]:
    """``pluginsNames``: every enabled plugin name, sorted."""
    names = {p["name"] for point in plugins.values() for p in point.get("enabled") or []}
    return sorted(names)


def _weights(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "weight": r.get("weight") or 1} for r in resources]


def default_args(name: str, args: dict[str, Any] | None) -> dict[str, Any] | None:
    """``scheme.Default`` for the ``<name>Args`` kind; None when the plugin has none."""
    if name not in ARGS_KINDS:
        return None
    out = copy.deepcopy(args) if args else {}
    out.setdefault("kind", name + "Args")
    out.setdefault("apiVersion", API_VERSION)
    if name == "DefaultPreemption":
        out.setdefault("minCandidateNodesPercentage", 10)
        out.setdefault("minCandidateNodesAbsolute", 100)
        if out["minCandidateNodesPercentage"] is None:
            out["minCandidateNodesPercentage"] = 10
        if out["minCandidateNodesAbsolute"] is None:
            out["minCandidateNodesAbsolute"] = 100
    elif name == "InterPodAffinity":
        if out.get("hardPodAffinityWeight") is None:
            out["hardPodAffinityWeight"] = 1
    elif name == "NodeResourcesBalancedAllocation":
        resources = out.get("resources") or []
        out["resources"] = _weights(resources) if resources else \
            [dict(r) for r in DEFAULT_RESOURCE_SPEC]
    elif name == "PodTopologySpread":
        if not out.get("defaultingType"):
            out["defaultingType"] = "System"
    elif name == "NodeResourcesFit":
        strategy = out.get("scoringStrategy")
        if strategy is None:
            strategy = {"type": "LeastAllocated",
                        "resources": [dict(r) for r in DEFAULT_RESOURCE_SPEC]}
        if not strategy.get("resources"):
            strategy["resources"] = [dict(r) for r in DEFAULT_RESOURCE_SPEC]
        strategy["resources"] = _weights(strategy["resources"])
        out["scoringStrategy"] = strategy
    elif name == "VolumeBinding" and out.get("bindTimeoutSeconds") is None:
        out["bindTimeoutSeconds"] = 600
    elif name == "DynamicResources":
        out.setdefault("filterTimeout", "10s")
        out.setdefault("bindingTimeout", "10m0s")
    return out


ARGS_KINDS = frozenset({"DefaultPreemption", "InterPodAffinity", "NodeAffinity",
                        "NodeResourcesBalancedAllocation", "NodeResourcesFit",
                        "PodTopologySpread", "VolumeBinding", "DynamicResources"})


def set_defaults_profile(profile: dict[str, Any]) -> None:
    """``setDefaults_KubeSchedulerProfile``: merged plugins, defaulted plugin args."""
    profile["plugins"] = merge_plugins(profile.get("plugins"))
    configs = profile.get("pluginConfig") or []
    existing = set()
    for cfg in configs:
        existing.add(cfg.get("name"))
        defaulted = default_args(cfg.get("name"), cfg.get("args"))
        if defaulted is not None:
            cfg["args"] = defaulted
    for name in plugin_names(profile["plugins"]):
        if name in existing:
            continue
        defaulted = default_args(name, None)
        if defaulted is not None:
            configs.append({"name": name, "args": defaulted})
    profile["pluginConfig"] = configs


def set_defaults(raw: dict[str, Any]) -> dict[str, Any]:
    """``SetDefaults_KubeSchedulerConfiguration`` on a copy of ``raw`` (the fields
    kubepreempt reads, plus the queue's backoff and ``parallelism``)."""
    cfg = copy.deepcopy(raw)
    if cfg.get("parallelism") is None:
        cfg["parallelism"] = 16
    profiles = cfg.get("profiles") or []
    if not profiles:
        profiles = [{}]
    if len(profiles) == 1 and profiles[0].get("schedulerName") is None:
        profiles[0]["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for profile in profiles:
        set_defaults_profile(profile)
    cfg["profiles"] = profiles
    if cfg.get("percentageOfNodesToScore") is None:
        cfg["percentageOfNodesToScore"] = 0
    if cfg.get("podInitialBackoffSeconds") is None:
        cfg["podInitialBackoffSeconds"] = 1
    if cfg.get("podMaxBackoffSeconds") is None:
        cfg["podMaxBackoffSeconds"] = 10
    return cfg
