"""Profiles from a defaulted, validated ``KubeSchedulerConfiguration``.

Mirrors what upstream's ``frameworkruntime.NewFramework`` does with a profile:
``updatePluginList`` for each extension point's own ``enabled`` list (unknown plugin,
plugin not extending the point, duplicates), ``expandMultiPointPlugins`` (``multiPoint``
plugins go to every point they implement unless disabled there or ``"*"``; a plugin also
listed at the point keeps that entry, first), ``getScoreWeights`` (the ``score`` entry's
weight wins over ``multiPoint``'s; 0 means 1), and the queue-sort and bind checks. Each
plugin is built once per profile with its ``pluginConfig`` arguments.

A plugin kubepreempt does not model (out-of-tree, volume plugins, DynamicResources'
allocation) is an error when the configuration enables it itself; the default profile's
volume and DRA plugins stay, as no-ops for inputs without volumes or resource claims.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.objects import WeightedNodeSelectorTerm
from kubepreempt.api.selectors import NodeSelector, NodeSelectorTerm
from kubepreempt.scheduler.framework import FilterPlugin, ScorePlugin
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.image_locality import ImageLocality
from kubepreempt.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from kubepreempt.scheduler.plugins.node_affinity import NodeAffinity
from kubepreempt.scheduler.plugins.node_name import NodeName
from kubepreempt.scheduler.plugins.node_ports import NodePorts
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit
from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable
from kubepreempt.scheduler.plugins.pod_topology_spread import DefaultConstraint, PodTopologySpread
from kubepreempt.scheduler.plugins.resource_allocation import ScoringStrategy
from kubepreempt.scheduler.plugins.taint_toleration import TaintToleration
from kubepreempt.scheduler.profile import Profile

# In-tree plugins and the extension points they implement (1.36 registry).
_FILTERING = ("preFilter", "filter")
_SCORING = ("preScore", "score")
REGISTRY: dict[str, tuple[str, ...]] = {
    "SchedulingGates": ("preEnqueue",),
    "PrioritySort": ("queueSort",),
    "NodeUnschedulable": ("filter",),
    "NodeName": ("filter",),
    "TaintToleration": ("filter", *_SCORING),
    "NodeAffinity": (*_FILTERING, *_SCORING),
    "NodePorts": _FILTERING,
    "NodeResourcesFit": (*_FILTERING, *_SCORING),
    "VolumeRestrictions": _FILTERING,
    "NodeVolumeLimits": _FILTERING,
    "VolumeBinding": (*_FILTERING, "reserve", "preBind", *_SCORING),
    "VolumeZone": _FILTERING,
    "PodTopologySpread": (*_FILTERING, *_SCORING),
    "InterPodAffinity": (*_FILTERING, *_SCORING),
    "DynamicResources": ("preEnqueue", *_FILTERING, "postFilter", *_SCORING, "reserve",
                         "preBind"),
    "NodeDeclaredFeatures": _FILTERING,
    "DefaultPreemption": ("postFilter",),
    "NodeResourcesBalancedAllocation": _SCORING,
    "ImageLocality": ("score",),
    "DefaultBinder": ("bind",),
}
# Plugins kubepreempt runs (the rest of the registry is accepted only from the defaults).
IMPLEMENTED = frozenset({"SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName",
                         "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
                         "PodTopologySpread", "InterPodAffinity", "DefaultPreemption",
                         "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder"})
_TYPE = {"preEnqueue": "PreEnqueuePlugin", "queueSort": "QueueSortPlugin",
         "preFilter": "PreFilterPlugin", "filter": "FilterPlugin",
         "postFilter": "PostFilterPlugin", "preScore": "PreScorePlugin",
         "score": "ScorePlugin", "reserve": "ReservePlugin", "permit": "PermitPlugin",
         "preBind": "PreBindPlugin", "bind": "BindPlugin", "postBind": "PostBindPlugin"}


class ProfileError(ValueError):
    """A profile upstream's framework would refuse to build."""


def user_enabled(raw_profile: dict[str, Any]) -> list[str]:
    """Plugin names the user's own configuration enables (any extension point)."""
    names: list[str] = []
    for point in (raw_profile.get("plugins") or {}).values():
        for p in (point or {}).get("enabled") or []:
            names.append(p.get("name", ""))
    return names


def check_implemented(raw_profile: dict[str, Any]) -> None:
    """Refuse plugins the user enables that kubepreempt does not run."""
    for name in user_enabled(raw_profile):
        if name in IMPLEMENTED:
            continue
        what = "an in-tree plugin kubepreempt does not model" if name in REGISTRY \
            else "not an in-tree plugin (out-of-tree plugins cannot be simulated)"
        raise ProfileError(f'plugin "{name}" is enabled but {what}; disable it or remove it '
                           "from the configuration")


def expand_point(plugins: dict[str, Any], point: str) -> list[str]:
    """The enabled plugin names of one extension point after multiPoint expansion."""
    kind = _TYPE[point]
    spec = plugins.get(point) or {}
    enabled: list[str] = []
    for p in spec.get("enabled") or []:
        name = p["name"]
        if name not in REGISTRY:
            raise ProfileError(f'{kind} "{name}" does not exist')
        if point not in REGISTRY[name]:
            raise ProfileError(f'plugin "{name}" does not extend {kind} plugin')
        if name in enabled:
            raise ProfileError(f'plugin "{name}" already registered as "{kind}"')
        enabled.append(name)
    disabled = {p["name"] for p in spec.get("disabled") or []}
    if "*" in disabled:
        return enabled
    overrides: list[str] = []
    multi: list[str] = []
    for p in (plugins.get("multiPoint") or {}).get("enabled") or []:
        name = p["name"]
        if name not in REGISTRY:
            raise ProfileError(f'{kind} "{name}" does not exist')
        if point not in REGISTRY[name] or name in disabled:
            continue
        if name in enabled:
            overrides.append(name)
            continue
        if name in multi:
            raise ProfileError(f'plugin "{name}" already registered as "{kind}"')
        multi.append(name)
    return ([n for n in enabled if n in overrides] + multi
            + [n for n in enabled if n not in overrides])


def score_weights(plugins: dict[str, Any], scorers: list[str]) -> dict[str, int]:
    """``getScoreWeights``: score entries first, then multiPoint; 0 means 1."""
    weights: dict[str, int] = {}
    entries = list((plugins.get("score") or {}).get("enabled") or []) + \
        list((plugins.get("multiPoint") or {}).get("enabled") or [])
    for p in entries:
        name = p["name"]
        if "score" not in REGISTRY.get(name, ()) or name in weights:
            continue
        weights[name] = int(p.get("weight") or 0) or 1
    return {n: weights.get(n, 1) for n in scorers}


def _strategy(args: dict[str, Any]) -> ScoringStrategy:
    s = args["scoringStrategy"]
    resources = tuple((r["name"], int(r["weight"])) for r in s.get("resources") or [])
    shape: tuple[tuple[int, int], ...] = ()
    if s.get("type") == "RequestedToCapacityRatio":
        shape = tuple((int(p.get("utilization", 0)), int(p.get("score", 0)))
                      for p in s["requestedToCapacityRatio"]["shape"])
    return ScoringStrategy(s["type"], resources, shape)


def _node_affinity(added: dict[str, Any] | None) -> NodeAffinity:
    """NodeAffinity's ``New``: ``NewNodeSelector`` and ``NewPreferredSchedulingTerms``,
    which skip a zero-weight preferred term (the args' weights are not range-checked as
    a pod's are)."""
    if not added:
        return NodeAffinity()
    required = None
    req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        required = NodeSelector(tuple(NodeSelectorTerm.parse(t)
                                      for t in req.get("nodeSelectorTerms") or []))
    preferred = []
    for pref in added.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        weight = int(pref.get("weight") or 0)
        if weight != 0:
            preferred.append(WeightedNodeSelectorTerm(weight,
                                                      NodeSelectorTerm.parse(pref.get("preference"))))
    return NodeAffinity(required, tuple(preferred))


def make_plugin(name: str, args: dict[str, Any]) -> Any:
    """One plugin instance with its (defaulted) arguments."""
    if name == "NodeResourcesFit":
        return NodeResourcesFit(_strategy(args),
                                frozenset(args.get("ignoredResources") or ()),
                                frozenset(args.get("ignoredResourceGroups") or ()))
    if name == "NodeResourcesBalancedAllocation":
        return BalancedAllocation(tuple(r["name"] for r in args["resources"]))
    if name == "InterPodAffinity":
        return InterPodAffinity(int(args["hardPodAffinityWeight"]),
                                bool(args.get("ignorePreferredTermsOfExistingPods", False)))
    if name == "NodeAffinity":
        return _node_affinity(args.get("addedAffinity"))
    if name == "PodTopologySpread":
        return PodTopologySpread(
            tuple(DefaultConstraint.parse(c) for c in args.get("defaultConstraints") or ()),
            args["defaultingType"])
    simple = {"NodeUnschedulable": NodeUnschedulable, "NodeName": NodeName,
              "TaintToleration": TaintToleration, "NodePorts": NodePorts,
              "ImageLocality": ImageLocality}
    return simple[name]()


def build_profile(profile: dict[str, Any], global_percentage: int) -> Profile:
    """A :class:`Profile` from one defaulted, validated profile."""
    name = profile["schedulerName"]
    plugins = profile["plugins"]
    try:
        points = {p: expand_point(plugins, p) for p in _TYPE}
    except ProfileError as exc:
        raise ProfileError(f'creating profile for scheduler name "{name}": {exc}') from None
    if len(points["queueSort"]) != 1:
        raise ProfileError(f"only one queue sort plugin required for profile with scheduler "
                           f'name "{name}", but got {len(points["queueSort"])}')
    if not points["bind"]:
        raise ProfileError(f'at least one bind plugin is needed for profile with scheduler '
                           f'name "{name}"')
    args = {c["name"]: c.get("args") or {} for c in profile.get("pluginConfig") or []}
    instances: dict[str, Any] = {}

    def plugin(n: str) -> Any:
        if n not in instances:
            instances[n] = make_plugin(n, args.get(n, {}))
        return instances[n]

    filters: list[FilterPlugin] = [plugin(n) for n in points["filter"] if n in IMPLEMENTED]
    scorer_names = [n for n in points["score"] if n in IMPLEMENTED]
    weights = score_weights(plugins, scorer_names)
    scorers: list[ScorePlugin] = []
    for n in scorer_names:
        p = plugin(n)
        p.weight = weights[n]
        scorers.append(p)
    preemption_args = args.get("DefaultPreemption", {})
    return Profile(
        filters, scorers, name,
        dynamic_resources="DynamicResources" in points["postFilter"],
        preemption="DefaultPreemption" in points["postFilter"],
        min_candidate_percentage=int(preemption_args.get("minCandidateNodesPercentage", 10)),
        min_candidate_absolute=int(preemption_args.get("minCandidateNodesAbsolute", 100)),
        percentage_of_nodes_to_score=profile.get("percentageOfNodesToScore"),
        global_percentage_of_nodes_to_score=global_percentage,
    )
