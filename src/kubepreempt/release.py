"""Which Kubernetes release kubepreempt models: one engine, named switches, feature gates.

kubepreempt reproduces kube-scheduler (and the kubelet) of one Kubernetes release at a
time. Everything that differs between the modelled releases is named here, the way
:mod:`kubepreempt.kueue.semantics` names Kueue's: a :class:`Release` carries

- its **switches**: behaviour that changed between releases, each with the upstream pull
  request that changed it (:data:`SWITCHES` documents them);
- kube-scheduler's **feature gates** as that release registers them (stage, default,
  locked), from ``pkg/scheduler/features`` / ``pkg/features/kube_features.go``.

A :class:`Modelled` is a release plus the ``--feature-gates`` a user set; decisions read
:meth:`Modelled.enabled` and the switches, and JSON output names it (``modelled``).

For the plain pods kubepreempt models, 1.36 and 1.37 decide identically: every gate whose
default changed in 1.37 guards something kubepreempt does not model (volumes, DRA) or a
PodGroup / Workload path that is off by default (see docs/CONFORMANCE.md, "Releases and
switches"). 1.35 is not offered: it scored NodeResourcesBalancedAllocation differently
(kubernetes/kubernetes#135573 changed it in 1.36) and its Workload API
(``scheduling.k8s.io/v1alpha1``, ``spec.workloadRef``) is gone.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.apimachinery.strconv import NumError, parse_bool

ALPHA, BETA, GA, DEPRECATED = "Alpha", "Beta", "GA", "Deprecated"


@dataclass(frozen=True, slots=True)
class Gate:
    """One feature gate as a release registers it."""

    name: str
    stage: str  # Alpha, Beta, GA or Deprecated at this release
    default: bool
    locked: bool = False  # LockToDefault: setting the other value is an error
    # How kubepreempt treats it: True when what it guards is modelled at the default
    # value (a decision depends on it, so ``modelled`` lists it); False when it guards
    # something kubepreempt does not model (volumes, DRA, API-server-only fields).
    decides: bool = False
    why: str = ""  # what it guards, as kubepreempt sees it
    kep: str = ""  # KEP number, or the PR that added it


# The gates kube-scheduler registers, with each release's (stage, default, locked).
# Source: pkg/scheduler/features (defaultVersionedKubernetesFeatureGates) and
# pkg/features/kube_features.go of release-1.36 / release-1.37; gates 1.37 removed
# (GangScheduling, WorkloadAwarePreemption: kubernetes/kubernetes#139520;
# SchedulerQueueingHints: locked GA since 1.34) are absent from 1.37.
_GATE_INFO: dict[str, tuple[bool, str, str]] = {
    # name: (decides, why, kep)
    "CompositePodGroup": (False, "hierarchical PodGroups (CompositePodGroup API)", "6012"),
    "DRAAdminAccess": (False, "DRA admin access (DRA is not modelled)", "5018"),
    "DRAConsumableCapacity": (False, "DRA consumable capacity (DRA is not modelled)", "5075"),
    "DRADerivedAttributes": (False, "DRA derived attributes (DRA is not modelled)", "6080"),
    "DRADeviceBindingConditions": (False, "DRA binding conditions (DRA is not modelled)",
                                   "5007"),
    "DRADeviceCompatibilityGroups": (False, "DRA compatibility groups (not modelled)",
                                     "5963"),
    "DRADeviceTaintRules": (False, "DRA DeviceTaintRules (DRA is not modelled)", "5055"),
    "DRADeviceTaints": (False, "DRA device taints (DRA is not modelled)", "5055"),
    "DRAExtendedResource": (False, "extended resources backed by DRA DeviceClasses (no "
                            "DeviceClass is read, so extended resources are node-advertised "
                            "in both releases)", "5004"),
    "DRAFractionalCapacityRange": (False, "DRA capacity ranges (DRA is not modelled)",
                                   "5075"),
    "DRAListTypeAttributes": (False, "DRA list attributes (DRA is not modelled)", "5491"),
    "DRANodeAllocatableResources": (False, "DRA node allocatable (DRA is not modelled)",
                                    "5517"),
    "DRAOptionalNodeOperations": (False, "DRA node operations (DRA is not modelled)",
                                  "5945"),
    "DRAPartitionableDevices": (False, "DRA partitionable devices (not modelled)", "4815"),
    "DRAPrioritizedList": (False, "DRA prioritized lists (DRA is not modelled)", "4816"),
    "DRAResourceClaimDeviceStatus": (False, "DRA claim status (DRA is not modelled)", "4817"),
    "DRASchedulerFilterTimeout": (False, "DynamicResources filter timeout (not modelled)",
                                  "4381"),
    "DRAWorkloadResourceClaims": (False, "ResourceClaims shared by a PodGroup (not "
                                  "modelled)", "5729"),
    "DynamicResourceAllocation": (False, "ResourceClaims (DynamicResources plugin: a no-op "
                                  "for pods without claims)", "4381"),
    "GangScheduling": (True, "gang scheduling of PodGroups (1.36; off: pods schedule one "
                       "by one)", "4671"),
    "GenericWorkload": (True, "Workload / PodGroup API; in 1.37 also gang scheduling and "
                        "workload-aware preemption (off: pods schedule one by one)", "4671"),
    "InPlacePodLevelResourcesVerticalScaling": (True, "resized pod-level resources count "
                                                "as the pod's requests", "5419"),
    "InPlacePodVerticalScaling": (True, "a pod's requests include pending resizes", "1287"),
    "InPlacePodVerticalScalingSchedulerPreemption": (False, "preemption for deferred "
                                                     "resizes (not modelled)", "5836"),
    "InterPodAffinityHostnameFastPath": (False, "a faster InterPodAffinity for "
                                         "kubernetes.io/hostname (same answers)", ""),
    "MatchLabelKeysInPodTopologySpread": (True, "PodTopologySpread matchLabelKeys", "3243"),
    "NodeDeclaredFeatures": (False, "NodeDeclaredFeatures filter (node.status."
                             "declaredFeatures is not read)", "5328"),
    "NodeInclusionPolicyInPodTopologySpread": (True, "PodTopologySpread nodeAffinityPolicy "
                                               "/ nodeTaintsPolicy", "3094"),
    "NominatedNodeNameForExpectation": (False, "nominatedNodeName set by other components "
                                        "(read as given)", "5278"),
    "OpportunisticBatching": (False, "reuse of a cycle's result for same-signature pods "
                              "(same answers)", "5598"),
    "PodGroupPreemptionPolicy": (False, "PodGroup preemptionPolicy (PodGroups not modelled "
                                 "yet)", "5710"),
    "PodLevelResources": (True, "spec.resources (pod-level requests)", "2837"),
    "SchedulerAsyncAPICalls": (False, "asynchronous API calls (no API calls are made)",
                               "5229"),
    "SchedulerAsyncPreemption": (True, "victims deleted asynchronously (simulate's queue)",
                                 "4832"),
    "SchedulerPopFromBackoffQ": (True, "popping from backoffQ when activeQ is empty "
                                 "(simulate's queue)", "5142"),
    "SchedulerPreQueueingHints": (False, "PreQueueingHint extension point (no in-tree "
                                  "plugin implements it)", "6132"),
    "SchedulerQueueingHints": (True, "queueing hints (simulate's queue)", "4247"),
    "StorageCapacityScoring": (False, "VolumeBinding scoring (volumes are not modelled)",
                               "4049"),
    "TaintTolerationComparisonOperators": (True, "toleration operators Lt / Gt (off: the "
                                           "loader refuses them)", "5471"),
    "TopologyAwareWorkloadScheduling": (False, "PodGroup placements (PodGroups not "
                                        "modelled yet)", "5732"),
    "VolumeAttributesClass": (False, "VolumeAttributesClass (volumes are not modelled)",
                              "3751"),
    "VolumeLimitScaling": (False, "NodeVolumeLimits scaling (volumes are not modelled)",
                           "5030"),
    "WorkloadAwarePreemption": (True, "preempting whole PodGroups (1.36; off: pods are "
                                "preempted one by one)", "5710"),
}

_F, _T = False, True
# name: {release: (stage, default, locked)}
_GATE_STATES: dict[str, dict[str, tuple[str, bool, bool]]] = {
    "CompositePodGroup": {"1.37": (ALPHA, _F, _F)},
    "DRAAdminAccess": {"1.36": (GA, _T, _T), "1.37": (GA, _T, _T)},
    "DRAConsumableCapacity": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "DRADerivedAttributes": {"1.37": (ALPHA, _F, _F)},
    "DRADeviceBindingConditions": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "DRADeviceCompatibilityGroups": {"1.37": (ALPHA, _F, _F)},
    "DRADeviceTaintRules": {"1.36": (BETA, _F, _F), "1.37": (GA, _T, _F)},
    "DRADeviceTaints": {"1.36": (BETA, _T, _F), "1.37": (GA, _T, _F)},
    "DRAExtendedResource": {"1.36": (BETA, _T, _F), "1.37": (GA, _T, _T)},
    "DRAFractionalCapacityRange": {"1.37": (BETA, _T, _F)},
    "DRAListTypeAttributes": {"1.36": (ALPHA, _F, _F), "1.37": (ALPHA, _F, _F)},
    "DRANodeAllocatableResources": {"1.36": (ALPHA, _F, _F), "1.37": (ALPHA, _F, _F)},
    "DRAOptionalNodeOperations": {"1.37": (ALPHA, _F, _F)},
    "DRAPartitionableDevices": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "DRAPrioritizedList": {"1.36": (GA, _T, _F), "1.37": (GA, _T, _T)},
    "DRAResourceClaimDeviceStatus": {"1.36": (BETA, _T, _F), "1.37": (GA, _T, _T)},
    "DRASchedulerFilterTimeout": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "DRAWorkloadResourceClaims": {"1.36": (ALPHA, _F, _F), "1.37": (BETA, _F, _F)},
    "DynamicResourceAllocation": {"1.36": (GA, _T, _T), "1.37": (GA, _T, _T)},
    "GangScheduling": {"1.36": (ALPHA, _F, _F)},
    "GenericWorkload": {"1.36": (ALPHA, _F, _F), "1.37": (BETA, _F, _F)},
    "InPlacePodLevelResourcesVerticalScaling": {"1.36": (BETA, _T, _F),
                                                "1.37": (BETA, _T, _F)},
    "InPlacePodVerticalScaling": {"1.36": (GA, _T, _T), "1.37": (GA, _T, _T)},
    "InPlacePodVerticalScalingSchedulerPreemption": {"1.37": (ALPHA, _F, _F)},
    "InterPodAffinityHostnameFastPath": {"1.37": (ALPHA, _F, _F)},
    "MatchLabelKeysInPodTopologySpread": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "NodeDeclaredFeatures": {"1.36": (BETA, _T, _F), "1.37": (GA, _T, _T)},
    "NodeInclusionPolicyInPodTopologySpread": {"1.36": (GA, _T, _T), "1.37": (GA, _T, _T)},
    "NominatedNodeNameForExpectation": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "OpportunisticBatching": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "PodGroupPreemptionPolicy": {"1.37": (ALPHA, _F, _F)},
    "PodLevelResources": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "SchedulerAsyncAPICalls": {"1.36": (BETA, _F, _F), "1.37": (BETA, _F, _F)},
    "SchedulerAsyncPreemption": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "SchedulerPopFromBackoffQ": {"1.36": (BETA, _T, _F), "1.37": (BETA, _T, _F)},
    "SchedulerPreQueueingHints": {"1.37": (ALPHA, _F, _F)},
    "SchedulerQueueingHints": {"1.36": (GA, _T, _T)},
    "StorageCapacityScoring": {"1.36": (ALPHA, _F, _F), "1.37": (BETA, _T, _F)},
    "TaintTolerationComparisonOperators": {"1.36": (ALPHA, _F, _F),
                                           "1.37": (ALPHA, _F, _F)},
    "TopologyAwareWorkloadScheduling": {"1.36": (ALPHA, _F, _F), "1.37": (ALPHA, _F, _F)},
    "VolumeAttributesClass": {"1.36": (GA, _T, _T), "1.37": (GA, _T, _T)},
    "VolumeLimitScaling": {"1.36": (ALPHA, _F, _F), "1.37": (BETA, _T, _F)},
    "WorkloadAwarePreemption": {"1.36": (ALPHA, _F, _F)},
}

# Gate -> the gates it needs (kube_features.go's dependency table; checked as
# component-base's featuregate does when --feature-gates enables one).
_DEPENDENCIES: dict[str, dict[str, tuple[str, ...]]] = {
    "1.36": {"GangScheduling": ("GenericWorkload",),
             "WorkloadAwarePreemption": ("GangScheduling",),
             "TopologyAwareWorkloadScheduling": ("GenericWorkload",)},
    "1.37": {"TopologyAwareWorkloadScheduling": ("GenericWorkload",)},
}


@dataclass(frozen=True, slots=True)
class Switch:
    """One behaviour that differs between releases, and where upstream changed it."""

    name: str
    what: str
    upstream: str  # PR / KEP


#: Every named switch :class:`Release` carries, for docs/CONFORMANCE.md and tests.
SWITCHES: tuple[Switch, ...] = (
    Switch("workload_api", "the Workload / PodGroup API version a release serves "
           "(1.36: scheduling.k8s.io/v1alpha2; 1.37: v1beta1, v1alpha3 also served)",
           "kubernetes/kubernetes#140184 (v1beta1), #138572 (v1alpha3)"),
    Switch("gang_scheduling_gate", "the gate that turns gang scheduling on "
           "(1.36: GangScheduling; 1.37: GenericWorkload)", "kubernetes/kubernetes#139520"),
    Switch("workload_preemption_gate", "the gate that turns workload-aware preemption on "
           "(1.36: WorkloadAwarePreemption; 1.37: GenericWorkload)",
           "kubernetes/kubernetes#139520"),
    Switch("pod_group_preemption_policy", "PodGroup spec.preemptionPolicy exists "
           "(1.37, gate PodGroupPreemptionPolicy)", "KEP-5710"),
    Switch("default_preemption_victim_groups", "DefaultPreemption (the single-pod "
           "preemption) weighs a victim by its PodGroup's priority, ranks victims with "
           "MoreImportantVictim and evicts a `disruptionMode: all` group whole, with the "
           "workload-preemption gate on (1.37; 1.36: pod by pod, by the pod's priority)",
           "KEP-5710, pkg/scheduler/framework/preemption types.go / util.go (1.37)"),
)


@dataclass(frozen=True, slots=True)
class Release:
    """The rules of one Kubernetes release kubepreempt models."""

    version: str  # "1.37"
    gates: Mapping[str, Gate]
    dependencies: Mapping[str, tuple[str, ...]]
    workload_api: tuple[str, ...]  # scheduling.k8s.io versions of Workload / PodGroup
    gang_scheduling_gate: str
    workload_preemption_gate: str
    pod_group_preemption_policy: bool
    default_preemption_victim_groups: bool

    def defaults(self) -> dict[str, bool]:
        """Every gate at this release's default."""
        return {name: g.default for name, g in self.gates.items()}


def _gates(version: str) -> Mapping[str, Gate]:
    out = {}
    for name, states in sorted(_GATE_STATES.items()):
        if version in states:
            stage, default, locked = states[version]
            decides, why, kep = _GATE_INFO[name]
            out[name] = Gate(name, stage, default, locked, decides, why, kep)
    return MappingProxyType(out)


RELEASES: dict[str, Release] = {
    "1.36": Release("1.36", _gates("1.36"), MappingProxyType(_DEPENDENCIES["1.36"]),
                    workload_api=("scheduling.k8s.io/v1alpha2",),
                    gang_scheduling_gate="GangScheduling",
                    workload_preemption_gate="WorkloadAwarePreemption",
                    pod_group_preemption_policy=False,
                    default_preemption_victim_groups=False),
    "1.37": Release("1.37", _gates("1.37"), MappingProxyType(_DEPENDENCIES["1.37"]),
                    workload_api=("scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"),
                    gang_scheduling_gate="GenericWorkload",
                    workload_preemption_gate="GenericWorkload",
                    pod_group_preemption_policy=True,
                    default_preemption_victim_groups=True),
}
#: The release modelled when none is asked for (the current stable Kubernetes).
DEFAULT_RELEASE = "1.37"
MODELLED = tuple(RELEASES)

#: Upstream changes after 1.37.0 that 1.37 here does not follow (docs/CONFORMANCE.md).
NOT_IN_1_37_0: tuple[tuple[str, str], ...] = (
    ("kubernetes/kubernetes#141785", "a PodDisruptionBudget with an empty selector"),
    ("kubernetes/kubernetes#141340", "PodTopologySpread with `labelSelector: {}`"),
    ("kubernetes/kubernetes#135486", "scheduler extenders"),
    ("CompositePodGroup rank", "ranking of CompositePodGroup members"),
)


def _minor(text: str) -> str | None:
    """``1.37`` for ``1.37``, ``v1.37``, ``1.37.2`` or ``v1.37.0-rc.1``; None otherwise."""
    parts = text.strip().lstrip("v").split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    minor = "".join(ch for ch in parts[1] if ch.isdigit())
    return f"{int(parts[0])}.{int(minor)}" if minor else None


def release_for(version: str, option: str = "--kube-version") -> Release:
    """The modelled release ``version`` names (an input error lists the modelled ones)."""
    minor = _minor(version)
    if minor is None or minor not in RELEASES:
        raise InputError(f"{option} {version}: not a modelled Kubernetes release; "
                         f"modelled: {', '.join(MODELLED)}")
    return RELEASES[minor]


def nearest(server_version: str) -> str:
    """The modelled release closest to a server's ``major.minor`` (the newer on a tie)."""
    minor = _minor(server_version)
    if minor is None:
        return DEFAULT_RELEASE
    major, want = (int(p) for p in minor.split("."))

    def distance(version: str) -> tuple[int, int]:
        v_major, v_minor = (int(p) for p in version.split("."))
        apart = abs(v_minor - want) if v_major == major else 1000  # another major: last
        return apart, -v_minor

    return min(MODELLED, key=distance)


def parse_gates(text: str) -> dict[str, bool]:
    """``--feature-gates A=true,B=false`` as kube-scheduler parses it (component-base
    ``featureGate.Set``), with its error wording."""
    out: dict[str, bool] = {}
    for item in text.split(","):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise _flag_error(text, f"missing bool value for {key}")
        raw = raw.strip()
        try:
            out[key] = parse_bool(raw)
        except NumError:
            raise _flag_error(text, f"invalid value of {key}={raw}, err: strconv.ParseBool: "
                              f'parsing "{raw}": invalid syntax') from None
    return out


def _flag_error(text: str, detail: str) -> InputError:
    return InputError(f'invalid argument "{text}" for "--feature-gates" flag: {detail}')


GENERIC_WORKLOAD = "GenericWorkload"
WORKLOAD_API_V1BETA1 = "scheduling.k8s.io/v1beta1"


@dataclass(frozen=True, slots=True)
class Modelled:
    """A release and the feature gates a decision runs with."""

    release: Release
    overrides: Mapping[str, bool] = field(default_factory=dict)  # as --feature-gates set

    @property
    def version(self) -> str:
        """The release's ``major.minor``."""
        return self.release.version

    def enabled(self, gate: str) -> bool:
        """Whether ``gate`` is on (its release default unless set)."""
        if gate in self.overrides:
            return self.overrides[gate]
        spec = self.release.gates.get(gate)
        return spec is not None and spec.default

    @property
    def gang_scheduling(self) -> bool:
        """Gang scheduling of PodGroups is on (the release's gate for it)."""
        return self.enabled(self.release.gang_scheduling_gate)

    @property
    def workload_aware_preemption(self) -> bool:
        """Preemption of whole PodGroups is on (the release's gate for it)."""
        gate = self.release.workload_preemption_gate
        return self.enabled(gate) and self.gang_scheduling

    @property
    def victim_groups(self) -> bool:
        """DefaultPreemption weighs victims by their PodGroup and evicts ``all`` groups
        whole (the release's ``default_preemption_victim_groups`` switch, with
        workload-aware preemption on)."""
        return self.release.default_preemption_victim_groups and \
            self.workload_aware_preemption

    def with_workload_api(self, default_on: bool) -> Modelled | None:
        """This release with GenericWorkload on, when it serves the v1beta1 Workload API
        (1.36's alpha API is not modelled) and the gate is on: as ``--feature-gates`` sets
        it, else ``default_on`` (the caller's reason to take the API as served, e.g. the
        input holds ``scheduling.k8s.io`` objects); None otherwise."""
        if WORKLOAD_API_V1BETA1 not in self.release.workload_api:
            return None
        if not self.overrides.get(GENERIC_WORKLOAD, default_on):
            return None
        return Modelled(self.release, {**self.overrides, GENERIC_WORKLOAD: True})

    def decided_gates(self) -> dict[str, bool]:
        """The gates ``modelled`` names: those a decision depends on, and any set."""
        return {name: self.enabled(name) for name, g in self.release.gates.items()
                if g.decides or name in self.overrides}

    def to_json(self, kueue: str | None = None) -> dict[str, Any]:
        """The ``modelled`` object of every JSON output."""
        out: dict[str, Any] = {"kubernetes": self.version, "featureGates":
                               self.decided_gates()}
        if kueue is not None:
            out["kueue"] = kueue
        return out


def modelled(version: str | None = None, gates: str | Mapping[str, bool] | None = None,
             warn: bool = True) -> Modelled:
    """The :class:`Modelled` for ``--kube-version`` (default :data:`DEFAULT_RELEASE`) and
    ``--feature-gates``, checked as kube-scheduler checks its flag."""
    release = release_for(version) if version else RELEASES[DEFAULT_RELEASE]
    wanted = parse_gates(gates) if isinstance(gates, str) else dict(gates or {})
    return with_gates(release, wanted, warn=warn)


def with_gates(release: Release, wanted: Mapping[str, bool], warn: bool = True) -> Modelled:
    """``release`` with ``wanted`` set, or kube-scheduler's error (``unsafeSetFromMap``)."""
    text = ",".join(f"{k}={str(v).lower()}" for k, v in wanted.items())
    for name, value in wanted.items():
        spec = release.gates.get(name)
        if spec is None:
            raise _flag_error(text, f"unrecognized feature gate: {name}")
        if spec.locked and spec.default != value:
            raise _flag_error(text, f"cannot set feature gate {name} to {str(value).lower()}, "
                              f"feature is locked to {str(spec.default).lower()}")
    chosen = Modelled(release, MappingProxyType(dict(wanted)))
    for name, deps in sorted(release.dependencies.items()):
        if chosen.enabled(name):
            off = [d for d in deps if not chosen.enabled(d)]
            if off:
                raise _flag_error(text, f"{name} is enabled, but depends on features that "
                                  f"are disabled: [{' '.join(off)}]")
    if warn:
        for name, value in wanted.items():
            spec = release.gates[name]
            if spec.stage == GA:
                print(f"warning: Setting GA feature gate {name}={str(value).lower()}. It will "
                      "be removed in a future release.", file=sys.stderr)
            if value != spec.default and not spec.decides:
                print(f"warning: --feature-gates {name}={str(value).lower()}: kubepreempt "
                      f"does not model {spec.why}; decisions are as with the default",
                      file=sys.stderr)
            elif value != spec.default and not _reproduced(release, name):
                print(f"warning: --feature-gates {name}={str(value).lower()}: kubepreempt "
                      "models only this gate's default so far; decisions are as with the "
                      "default", file=sys.stderr)
    return chosen


def _reproduced(release: Release, gate: str) -> bool:
    """Whether kubepreempt reproduces ``gate`` at its non-default value: only 1.37's
    GenericWorkload (``schedule --pod`` / ``--pod-group`` decide PodGroups with it)."""
    return release.default_preemption_victim_groups and \
        gate == release.workload_preemption_gate

#: The modelled release when nothing is chosen (library default).
DEFAULT = Modelled(RELEASES[DEFAULT_RELEASE])
