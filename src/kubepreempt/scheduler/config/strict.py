"""Unknown fields: kube-scheduler decodes its configuration strictly.

A misspelt field (``pluginConfg``, ``minCandidateNodesPercentag``) is an error there
(``strict decoding error: unknown field "..."``), not a silently ignored setting; the same
here, for the configuration's structure and the arguments of the in-tree plugins
kubepreempt reads (other plugins' arguments are opaque, as upstream's
``runtime.Unknown``). Argument paths are relative to ``args``, as they are decoded on
their own upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubepreempt.scheduler.config.defaults import EXTENSION_POINTS

TOP = frozenset({"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
                 "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
                 "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
                 "delayCacheUntilActive"})
PROFILE = frozenset({"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"})
PLUGINS = frozenset({"multiPoint", *EXTENSION_POINTS})
PLUGIN_SET = frozenset({"enabled", "disabled"})
PLUGIN = frozenset({"name", "weight"})
PLUGIN_CONFIG = frozenset({"name", "args"})
TYPE_META = frozenset({"kind", "apiVersion"})
RESOURCE_SPEC = frozenset({"name", "weight"})
ARGS: dict[str, frozenset[str]] = {
    "DefaultPreemption": frozenset({"minCandidateNodesPercentage",
                                    "minCandidateNodesAbsolute"}),
    "InterPodAffinity": frozenset({"hardPodAffinityWeight",
                                   "ignorePreferredTermsOfExistingPods"}),
    "NodeAffinity": frozenset({"addedAffinity"}),
    "NodeResourcesBalancedAllocation": frozenset({"resources"}),
    "NodeResourcesFit": frozenset({"ignoredResources", "ignoredResourceGroups",
                                   "scoringStrategy"}),
    "PodTopologySpread": frozenset({"defaultConstraints", "defaultingType"}),
    "VolumeBinding": frozenset({"bindTimeoutSeconds", "shape"}),
    "DynamicResources": frozenset({"filterTimeout", "bindingTimeout"}),
}
STRATEGY = frozenset({"type", "resources", "requestedToCapacityRatio"})


def _extra(obj: Any, known: frozenset[str], path: str) -> list[str]:
    if not isinstance(obj, Mapping):
        return []
    prefix = f"{path}." if path else ""
    return [f"{prefix}{k}" for k in obj if k not in known]


def _args_unknown(name: str, args: Mapping[str, Any]) -> list[str]:
    out = _extra(args, ARGS[name] | TYPE_META, "")
    if name == "NodeResourcesFit" and isinstance(args.get("scoringStrategy"), Mapping):
        strategy = args["scoringStrategy"]
        out += _extra(strategy, STRATEGY, "scoringStrategy")
        for i, r in enumerate(strategy.get("resources") or []):
            out += _extra(r, RESOURCE_SPEC, f"scoringStrategy.resources[{i}]")
        rtcr = strategy.get("requestedToCapacityRatio")
        out += _extra(rtcr, frozenset({"shape"}), "scoringStrategy.requestedToCapacityRatio")
    if name == "NodeResourcesBalancedAllocation":
        for i, r in enumerate(args.get("resources") or []):
            out += _extra(r, RESOURCE_SPEC, f"resources[{i}]")
    return out


def unknown_fields(doc: Mapping[str, Any]) -> list[str]:
    """Every field path of ``doc`` a strict decoder would reject, in document order."""
    out = _extra(doc, TOP, "")
    for i, profile in enumerate(doc.get("profiles") or []):
        path = f"profiles[{i}]"
        out += _extra(profile, PROFILE, path)
        if not isinstance(profile, Mapping):
            continue
        plugins = profile.get("plugins") or {}
        out += _extra(plugins, PLUGINS, f"{path}.plugins")
        if isinstance(plugins, Mapping):
            for point, spec in plugins.items():
                ppath = f"{path}.plugins.{point}"
                out += _extra(spec, PLUGIN_SET, ppath)
                for part in ("enabled", "disabled"):
                    entries = spec.get(part) if isinstance(spec, Mapping) else None
                    for j, entry in enumerate(entries or []):
                        out += _extra(entry, PLUGIN, f"{ppath}.{part}[{j}]")
        for j, cfg in enumerate(profile.get("pluginConfig") or []):
            out += _extra(cfg, PLUGIN_CONFIG, f"{path}.pluginConfig[{j}]")
            if isinstance(cfg, Mapping) and cfg.get("name") in ARGS \
                    and isinstance(cfg.get("args"), Mapping):
                out += _args_unknown(cfg["name"], cfg["args"])
    return out


def strict_error(doc: Mapping[str, Any]) -> str | None:
    """``strict decoding error: unknown field "a", unknown field "b"`` or None."""
    unknown = unknown_fields(doc)
    if not unknown:
        return None
    return "strict decoding error: " + ", ".join(f'unknown field "{u}"' for u in unknown)
