"""Kueue objects parsed from what ``kubectl get -o yaml`` prints.

Each ``parse_*`` function takes one :class:`RawObject` and returns a typed, validated
object, or raises :class:`InputError` naming the file, kind and object. ``kueue.x-k8s.io``
objects in ``v1beta1`` and ``v1beta2`` (and ``v1alpha1`` Cohorts) are read and converted
as Kueue's conversion functions do: ClusterQueue ``cohort`` -> ``cohortName``, v1alpha1
Cohort ``parent`` -> ``parentName``, Workload ``priorityClassName`` +
``priorityClassSource`` -> ``priorityClassRef``, ``flavorFungibility`` ``Borrow`` /
``Preempt`` -> ``MayStopSearch``. Which versions are read natively and which converted
(with :func:`conversion_warnings`) depends on ``--kueue-version``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.fields import as_list as _list
from kubepreempt.api.fields import as_mapping as _map
from kubepreempt.api.objects import Taint, Toleration, parse_time, resource_list
from kubepreempt.api.quantity import QuantityError, canonical, format_amount
from kubepreempt.api.resources import Container, pod_requests
from kubepreempt.api.selectors import LabelSelector, NodeSelectorTerm, SelectorError
from kubepreempt.apimachinery.field import invalid
from kubepreempt.kueue.semantics import SEMANTICS, V0_7, Semantics
from kubepreempt.manifests import RawObject

# Preemption policies (ClusterQueuePreemption).
NEVER = "Never"
LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
ANY = "Any"
_WITHIN_CQ = {NEVER, LOWER_PRIORITY, LOWER_OR_NEWER_EQUAL_PRIORITY}
_RECLAIM = {NEVER, LOWER_PRIORITY, ANY}
_BORROW_WITHIN = {NEVER, LOWER_PRIORITY}
# FlavorFungibility policies.
BORROW = "Borrow"
PREEMPT = "Preempt"
TRY_NEXT_FLAVOR = "TryNextFlavor"
MAY_STOP_SEARCH = "MayStopSearch"  # v1beta2's name for Borrow / Preempt
BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"
PREFERENCES = (BORROWING_OVER_PREEMPTION, PREEMPTION_OVER_BORROWING)
# Fair sharing preemption strategies (config.kueue.x-k8s.io/v1beta1).
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)
DEFAULT_POD_SET = "main"
_EFFECTS = {"NoSchedule", "PreferNoSchedule", "NoExecute"}

T = TypeVar("T")


def _int(raw: Any, what: str) -> int:
    # Every integer Kueue field read here (counts, priorities, thresholds) is an int32.
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ValueError(f"{what} {str(raw)[:40]!r} is not an integer")
    if not -(1 << 31) <= raw < 1 << 31:
        raise ValueError(f"{what} {raw} does not fit in a 32-bit integer")
    return raw


def _choice(raw: Any, allowed: set[str], default: str, what: str) -> str:
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise ValueError(f"{what} {raw!r} is not one of {sorted(allowed)}")
    return str(raw)


def _amount(resource: str, raw: Any, what: str) -> int:
    try:
        amount = canonical(resource, raw)
    except QuantityError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if amount < 0:
        raise ValueError(f"{what}: negative quantity {raw!r}")
    return amount


def _guard(obj: RawObject, kind: str, build: Callable[[], T]) -> T:
    """Run ``build`` and turn any validation error into an InputError naming ``obj``."""
    name = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
    if not obj.name:
        raise InputError("object has no metadata.name", obj.source, kind)
    try:
        return build()
    except InputError as exc:
        raise exc.located(obj.source, kind, name) from None
    except (ValueError, TypeError, KeyError, SelectorError) as exc:
        raise InputError(str(exc), obj.source, kind, name) from None


GROUP = "kueue.x-k8s.io"


def api_version(obj: RawObject, semantics: Semantics) -> str:
    """The object's ``kueue.x-k8s.io`` version, checked against what the release serves
    (a missing apiVersion reads as the oldest served one)."""
    raw = str(obj.body.get("apiVersion") or "")
    if not raw:
        return semantics.api_versions[0]
    group, _, version = raw.rpartition("/")
    if group != GROUP or version not in semantics.api_versions:
        raise ValueError(f"apiVersion {raw} is not served by Kueue {semantics.version} "
                         f"(served: {', '.join(GROUP + '/' + v for v in semantics.api_versions)})")
    return version


def conversion_warnings(objs: Iterable[RawObject], semantics: Semantics) -> list[str]:
    """One line per file and version of ``kueue.x-k8s.io`` objects in a version the release
    reads only by converting it (v1beta1 or v1alpha1 under 0.20), naming their kinds, e.g.
    ``warning: f.yaml: ClusterQueue, LocalQueue objects in kueue.x-k8s.io/v1beta1, which
    Kueue 0.20 no longer serves (#14558), are converted to v1beta2``."""
    native = semantics.native_api_version
    kinds: dict[tuple[str, str], dict[str, None]] = {}
    for obj in objs:
        group, _, version = str(obj.body.get("apiVersion") or "").rpartition("/")
        if group == GROUP and version != native and version in semantics.api_versions:
            kinds.setdefault((obj.source.path, version), {}).setdefault(obj.kind)
    why = {"v1beta1": " (#14558)", "v1alpha1": " (since v0.13)"}
    return [f"warning: {path}: {', '.join(names)} objects in {GROUP}/{version}, which Kueue "
            f"{semantics.version} no longer serves{why.get(version, '')}, are converted to "
            f"{native}" for (path, version), names in kinds.items()]


@dataclass(frozen=True, slots=True)
class ResourceFlavor:
    """A ResourceFlavor: the node labels and taints that identify a kind of node, and the
    tolerations Kueue adds to the pods admitted to it."""

    name: str
    node_labels: dict[str, str] = field(default_factory=dict)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()


def parse_resource_flavor(obj: RawObject) -> ResourceFlavor:
    """Parse a ResourceFlavor."""

    def build() -> ResourceFlavor:
        spec = _map(obj.body.get("spec"), "spec")
        labels = {str(k): str(v) for k, v in _map(spec.get("nodeLabels"), "nodeLabels").items()}
        taints = []
        for t in _list(spec.get("nodeTaints"), "spec.nodeTaints"):
            t = _map(t, "taint")
            if not t.get("key"):
                raise ValueError("spec.nodeTaints: taint without a key")
            effect = _choice(t.get("effect"), _EFFECTS, "", "taint effect")
            if not effect:
                raise ValueError("spec.nodeTaints: taint without an effect")
            taints.append(Taint(str(t["key"]), str(t.get("value") or ""), effect))
        return ResourceFlavor(obj.name, labels, tuple(taints),
                              _tolerations(spec.get("tolerations"), "spec.tolerations"))

    return _guard(obj, "ResourceFlavor", build)


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    """Quota of one resource in one flavor of a ClusterQueue (canonical units)."""

    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None

    def within_borrowing_limit(self, total: int) -> bool:
        """``total`` usage stays within nominal + borrowingLimit (no limit: always). The one
        borrowing-limit check, shared by flavor assignment and preemption."""
        return self.borrowing_limit is None or total <= self.nominal + self.borrowing_limit


@dataclass(frozen=True, slots=True)
class FlavorQuotas:
    """One flavor of a resource group and its per-resource quotas, in spec order."""

    name: str
    resources: dict[str, ResourceQuota]


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    """Resources that share one ordered list of flavors."""

    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True, slots=True)
class Preemption:
    """``spec.preemption`` with Kueue's defaults (everything Never)."""

    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(frozen=True, slots=True)
class ClusterQueue:
    """A ClusterQueue with quotas in canonical units."""

    name: str
    cohort: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()
    preemption: Preemption = field(default_factory=Preemption)
    when_can_borrow: str = BORROW
    when_can_preempt: str = TRY_NEXT_FLAVOR
    # flavorFungibility.preference (v0.15, #7316): how flavors that all need borrowing or
    # preemption rank ("": BorrowingOverPreemption, the default).
    fungibility_preference: str = ""
    queueing_strategy: str = "BestEffortFIFO"
    fair_weight_milli: int = 1000
    stopped: bool = False
    source: Source = field(default_factory=Source)
    # spec.namespaceSelector; None when absent (see docs/CONFORMANCE.md: upstream reads an
    # absent selector as "no namespace", kubepreempt as every namespace).
    namespace_selector: LabelSelector | None = None

    def admits_namespace(self, labels: Mapping[str, str]) -> bool:
        """Whether a namespace with ``labels`` may submit workloads to this queue."""
        return self.namespace_selector is None or self.namespace_selector.matches(labels)

    def group_for(self, resource: str) -> ResourceGroup | None:
        """The resource group covering ``resource`` (None when not covered)."""
        for rg in self.resource_groups:
            if resource in rg.covered:
                return rg
        return None

    def quota(self, flavor: str, resource: str) -> ResourceQuota | None:
        """The quota of ``resource`` in ``flavor`` (None when not defined)."""
        for rg in self.resource_groups:
            for fq in rg.flavors:
                if fq.name == flavor:
                    return fq.resources.get(resource)
        return None

    def flavor_names(self) -> list[str]:
        """All flavors of all resource groups, in spec order."""
        return [fq.name for rg in self.resource_groups for fq in rg.flavors]


def _resource_groups(raw: Any) -> tuple[ResourceGroup, ...]:
    groups = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, rg in enumerate(_list(raw, "spec.resourceGroups")):
        rg = _map(rg, f"spec.resourceGroups[{i}]")
        covered = tuple(str(r) for r in _list(rg.get("coveredResources"),
                                              f"spec.resourceGroups[{i}].coveredResources"))
        if not covered:
            raise ValueError(f"spec.resourceGroups[{i}] has no coveredResources")
        for r in covered:
            if r in seen_resources:
                raise ValueError(f"resource {r} is covered by more than one resource group")
            seen_resources.add(r)
        flavors = []
        for j, fq in enumerate(_list(rg.get("flavors"), f"spec.resourceGroups[{i}].flavors")):
            where = f"spec.resourceGroups[{i}].flavors[{j}]"
            fq = _map(fq, where)
            fname = fq.get("name")
            if not fname:
                raise ValueError(f"{where} has no name")
            fname = str(fname)
            if fname in seen_flavors:
                raise ValueError(f"flavor {fname} appears in more than one place")
            seen_flavors.add(fname)
            quotas: dict[str, ResourceQuota] = {}
            for r in _list(fq.get("resources"), f"{where}.resources"):
                r = _map(r, f"{where}.resources[]")
                rname = str(r.get("name") or "")
                if rname not in covered:
                    raise ValueError(f"{where}: resource {rname!r} is not in coveredResources")
                if "nominalQuota" not in r:
                    raise ValueError(f"{where}: resource {rname} has no nominalQuota")
                w = f"{where}.{rname}"
                nominal = _amount(rname, r["nominalQuota"], f"{w}.nominalQuota")
                borrow = r.get("borrowingLimit")
                lend = r.get("lendingLimit")
                quotas[rname] = ResourceQuota(
                    nominal,
                    None if borrow is None else _amount(rname, borrow, f"{w}.borrowingLimit"),
                    None if lend is None else _amount(rname, lend, f"{w}.lendingLimit"))
            if list(quotas) != list(covered):
                raise ValueError(f"{where}: resources must list the coveredResources "
                                 f"{list(covered)} in order, got {list(quotas)}")
            flavors.append(FlavorQuotas(fname, quotas))
        groups.append(ResourceGroup(covered, tuple(flavors)))
    return tuple(groups)


def _fair_weight(fs: Mapping[str, Any], where: str) -> int:
    """``fairSharing.weight`` in milli-units (default 1)."""
    if fs.get("weight") is None:
        return 1000
    try:
        weight = canonical("cpu", fs["weight"])  # MilliValue, as upstream
    except QuantityError as exc:
        raise ValueError(f"{where}.weight: {exc}") from None
    if weight < 0:
        raise ValueError(f"{where}.weight must not be negative")
    return weight


def _limits_need_parent(groups: tuple[ResourceGroup, ...], parent_word: str) -> None:
    """The webhook's ``validateLimit``: borrowing/lending limits need a parent (cohort)."""
    for i, rg in enumerate(groups):
        for j, fq in enumerate(rg.flavors):
            for k, (res, q) in enumerate(fq.resources.items()):
                for field_name, v in (("borrowingLimit", q.borrowing_limit),
                                      ("lendingLimit", q.lending_limit)):
                    if v is not None:
                        raise ValueError(str(invalid(
                            f"spec.resourceGroups[{i}].flavors[{j}].resources[{k}]."
                            f"{field_name}", format_amount(res, v),
                            f"must be nil when {parent_word} is empty")))


def _fungibility(raw: Any, stop: str, default: str, version: str, what: str) -> str:
    """A flavorFungibility policy; v1beta2 spells Borrow/Preempt ``MayStopSearch``."""
    if version == "v1beta2":
        got = _choice(raw, {MAY_STOP_SEARCH, TRY_NEXT_FLAVOR}, "", what)
        return default if not got else stop if got == MAY_STOP_SEARCH else got
    return _choice(raw, {stop, TRY_NEXT_FLAVOR}, default, what)


def _lending_within_nominal(groups: tuple[ResourceGroup, ...]) -> None:
    """The ClusterQueue webhook's ``validateLendingLimit``."""
    for i, rg in enumerate(groups):
        for j, fq in enumerate(rg.flavors):
            for k, (res, q) in enumerate(fq.resources.items()):
                if q.lending_limit is not None and q.lending_limit > q.nominal:
                    raise ValueError(str(invalid(
                        f"spec.resourceGroups[{i}].flavors[{j}].resources[{k}].lendingLimit",
                        format_amount(res, q.lending_limit),
                        "must be less than or equal to the nominalQuota")))


def parse_cluster_queue(obj: RawObject, semantics: Semantics = SEMANTICS[V0_7]) -> ClusterQueue:
    """Parse a ClusterQueue (``spec.cohort`` in v1beta1, ``spec.cohortName`` in v1beta2)."""

    def build() -> ClusterQueue:
        version = api_version(obj, semantics)
        spec = _map(obj.body.get("spec"), "spec")
        pre = _map(spec.get("preemption"), "spec.preemption")
        bwc = _map(pre.get("borrowWithinCohort"), "spec.preemption.borrowWithinCohort")
        threshold = bwc.get("maxPriorityThreshold")
        preemption = Preemption(
            _choice(pre.get("withinClusterQueue"), _WITHIN_CQ, NEVER, "withinClusterQueue"),
            _choice(pre.get("reclaimWithinCohort"), _RECLAIM, NEVER, "reclaimWithinCohort"),
            _choice(bwc.get("policy"), _BORROW_WITHIN, NEVER, "borrowWithinCohort.policy"),
            None if threshold is None else _int(threshold, "maxPriorityThreshold"))
        if preemption.borrow_within_cohort != NEVER and preemption.reclaim_within_cohort == NEVER:
            raise ValueError("borrowWithinCohort requires reclaimWithinCohort other than Never")
        fung = _map(spec.get("flavorFungibility"), "spec.flavorFungibility")
        weight = _fair_weight(_map(spec.get("fairSharing"), "spec.fairSharing"),
                              "spec.fairSharing")
        # The CRD enum (v0.7 and current): None, Hold or HoldAndDrain.
        stop = _choice(spec.get("stopPolicy"), {"None", "Hold", "HoldAndDrain"}, "None",
                       "stopPolicy")
        cohort = str(spec.get("cohortName" if version == "v1beta2" else "cohort") or "")
        groups = _resource_groups(spec.get("resourceGroups"))
        if semantics.validate_limits:
            if not cohort:
                _limits_need_parent(groups, "cohort")
            _lending_within_nominal(groups)
        preference = _choice(fung.get("preference"), set(PREFERENCES), "", "preference") \
            if semantics.fungibility_preference else ""
        when_can_borrow = _fungibility(fung.get("whenCanBorrow"), BORROW, BORROW, version,
                                       "whenCanBorrow")
        when_can_preempt = _fungibility(fung.get("whenCanPreempt"), PREEMPT, TRY_NEXT_FLAVOR,
                                        version, "whenCanPreempt")
        if preference and (when_can_borrow, when_can_preempt) != (TRY_NEXT_FLAVOR,
                                                                  TRY_NEXT_FLAVOR):
            raise ValueError("spec.flavorFungibility: preference can only be set when both "
                             "whenCanBorrow and whenCanPreempt are TryNextFlavor")
        return ClusterQueue(
            name=obj.name,
            cohort=cohort,
            resource_groups=groups,
            preemption=preemption,
            when_can_borrow=when_can_borrow,
            when_can_preempt=when_can_preempt,
            fungibility_preference=preference,
            queueing_strategy=_choice(spec.get("queueingStrategy"),
                                      {"BestEffortFIFO", "StrictFIFO"}, "BestEffortFIFO",
                                      "queueingStrategy"),
            fair_weight_milli=weight,
            stopped=stop != "None",
            source=obj.source,
            namespace_selector=_namespace_selector(spec.get("namespaceSelector")),
        )

    return _guard(obj, "ClusterQueue", build)


def _namespace_selector(raw: Any) -> LabelSelector | None:
    try:
        return LabelSelector.parse(raw)
    except SelectorError as exc:
        raise ValueError(f"spec.namespaceSelector: {exc}") from None


@dataclass(frozen=True, slots=True)
class Cohort:
    """A Cohort object: its parent, its own quota and its fair-sharing weight."""

    name: str
    parent: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()
    fair_weight_milli: int = 1000
    source: Source = field(default_factory=Source)


def parse_cohort(obj: RawObject, semantics: Semantics) -> Cohort:
    """Parse a Cohort (``spec.parent`` in v1alpha1, ``spec.parentName`` in v1beta1 and
    v1beta2). Limits on a root Cohort are refused, as Kueue's webhook refuses them."""

    def build() -> Cohort:
        version = api_version(obj, semantics)
        spec = _map(obj.body.get("spec"), "spec")
        # v1alpha1 named the parent ``parent``; v1beta1 (v0.13+) and v1beta2 ``parentName``.
        if version != "v1alpha1" and "parent" in spec:
            raise ValueError(f"spec.parent: unknown field in {GROUP}/{version} Cohort (the "
                             "parent is spec.parentName; parent was v1alpha1's)")
        parent = str(spec.get("parent" if version == "v1alpha1" else "parentName") or "")
        groups = _resource_groups(spec.get("resourceGroups"))
        if not parent:
            _limits_need_parent(groups, "parent")
        weight = _fair_weight(_map(spec.get("fairSharing"), "spec.fairSharing"),
                              "spec.fairSharing")
        return Cohort(obj.name, parent, groups, weight, obj.source)

    return _guard(obj, "Cohort", build)


@dataclass(frozen=True, slots=True)
class LocalQueue:
    """A LocalQueue: a namespaced name pointing at a ClusterQueue."""

    namespace: str
    name: str
    cluster_queue: str


def parse_local_queue(obj: RawObject) -> LocalQueue:
    """Parse a LocalQueue."""

    def build() -> LocalQueue:
        spec = _map(obj.body.get("spec"), "spec")
        cq = spec.get("clusterQueue")
        if not cq:
            raise ValueError("spec.clusterQueue is required")
        return LocalQueue(obj.namespace or "default", obj.name, str(cq))

    return _guard(obj, "LocalQueue", build)


@dataclass(frozen=True, slots=True)
class WorkloadPriorityClass:
    """A WorkloadPriorityClass (cluster scoped)."""

    name: str
    value: int


def parse_workload_priority_class(obj: RawObject) -> WorkloadPriorityClass:
    """Parse a WorkloadPriorityClass."""
    return _guard(obj, "WorkloadPriorityClass", lambda: WorkloadPriorityClass(
        obj.name, _int(obj.body.get("value"), "value")))


@dataclass(frozen=True, slots=True)
class KueueConfig:
    """The parts of a ``config.kueue.x-k8s.io`` Configuration (v1beta1 or v1beta2) the
    decisions use."""

    fair_sharing: bool = False
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    lending_limit: bool = False  # the LendingLimit feature gate (alpha, off, in v0.7)
    semantics: Semantics = SEMANTICS[V0_7]
    # Settings read but not modelled, each a one-line warning for the user.
    ignored: tuple[str, ...] = ()


CONFIG_V1BETA2 = "config.kueue.x-k8s.io/v1beta2"


def _fair_sharing_enabled(obj: RawObject) -> bool:
    """Whether fair sharing is on, as Kueue reads the Configuration's version.

    ``config.kueue.x-k8s.io/v1beta2`` has no ``enable`` field: fair sharing is on when the
    ``fairSharing`` block is present (``fairsharing.Enabled(pfs) = pfs != nil``); v1beta1's
    conversion drops the block unless ``enable: true``."""
    if "fairSharing" not in obj.body or obj.body.get("fairSharing") is None:
        return False
    if obj.body.get("apiVersion") == CONFIG_V1BETA2:
        fs = _map(obj.body.get("fairSharing"), "fairSharing")
        # Kueue decodes its Configuration strictly and validates the v1beta2 block.
        if "enable" in fs:
            raise ValueError("fairSharing.enable is not a v1beta2 field: fair sharing is on "
                             "when the fairSharing block is present; remove the block to "
                             "turn it off")
        if not fs.get("preemptionStrategies"):
            raise ValueError("fairSharing.preemptionStrategies: must be specified")
        return True
    return bool(_map(obj.body.get("fairSharing"), "fairSharing").get("enable"))


def parse_configuration(obj: RawObject, semantics: Semantics = SEMANTICS[V0_7]) -> KueueConfig:
    """Parse a Configuration document (fairSharing and featureGates.LendingLimit)."""

    def build() -> KueueConfig:
        fs = _map(obj.body.get("fairSharing"), "fairSharing")
        raw = _list(fs.get("preemptionStrategies"), "fairSharing.preemptionStrategies")
        allowed = {LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE}
        strategies = tuple(_choice(s, allowed, "", "preemption strategy") for s in raw)
        # v0.7 validation: the list is [S2-a], [S2-b] or [S2-a, S2-b].
        if strategies and strategies not in ((LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,),
                                             (LESS_THAN_INITIAL_SHARE,), DEFAULT_STRATEGIES):
            raise ValueError(f"fairSharing.preemptionStrategies {list(strategies)} is not "
                             "supported; use [LessThanOrEqualToFinalShare], "
                             "[LessThanInitialShare] or both in that order")
        gates = _map(obj.body.get("featureGates"), "featureGates")
        ready = _map(obj.body.get("waitForPodsReady"), "waitForPodsReady")
        ignored = ("waitForPodsReady.requeuingStrategy is ignored: PodsReady-timeout "
                   "evictions and their requeuing are not modelled",) \
            if ready.get("requeuingStrategy") is not None else ()
        return KueueConfig(_fair_sharing_enabled(obj), strategies or DEFAULT_STRATEGIES,
                           bool(gates.get("LendingLimit", semantics.lending_limit_default)),
                           semantics, ignored)

    if not obj.name:  # a Configuration has no metadata.name; don't require one
        obj = RawObject(obj.kind, {**obj.body, "metadata": {"name": "config"}}, obj.source)
    return _guard(obj, "Configuration", build)


@dataclass(frozen=True, slots=True)
class PodSet:
    """A podSet: ``count`` pods of one template, with per-pod requests."""

    name: str
    count: int
    requests: dict[str, int]  # per pod, canonical units
    node_selector: dict[str, str] = field(default_factory=dict)
    node_terms: tuple[NodeSelectorTerm, ...] | None = None  # required node affinity terms
    tolerations: tuple[Toleration, ...] = ()
    # validateResources: containers whose request exceeds their limit keep it pending.
    resource_errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PodSetAssignment:
    """One ``status.admission.podSetAssignments`` entry."""

    name: str
    flavors: dict[str, str]
    resource_usage: dict[str, int] | None
    count: int | None


@dataclass(frozen=True, slots=True)
class Condition:
    """A status condition (type, status, reason, time)."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    time: float | None = None


@dataclass(slots=True, eq=False)
class Workload:
    """A Workload: its queue, priority, pod sets and (when admitted) its admission."""

    namespace: str
    name: str
    uid: str = ""
    queue_name: str = ""
    priority: int = 0
    priority_class_name: str = ""
    creation: float | None = None
    pod_sets: tuple[PodSet, ...] = ()
    admission_cq: str = ""
    assignments: tuple[PodSetAssignment, ...] = ()
    conditions: tuple[Condition, ...] = ()
    reclaimable: dict[str, int] = field(default_factory=dict)
    generation: int | None = None
    source: Source = field(default_factory=Source)
    raw_conditions: tuple[Mapping[str, Any], ...] = ()
    job_uid: str = ""  # label kueue.x-k8s.io/job-uid (current Preempted messages)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def condition(self, ctype: str) -> Condition | None:
        """The condition of type ``ctype`` (None when absent)."""
        for c in self.conditions:
            if c.type == ctype:
                return c
        return None

    def is_true(self, ctype: str) -> bool:
        """True when condition ``ctype`` is present with status True."""
        c = self.condition(ctype)
        return c is not None and c.status == "True"

    @property
    def has_quota_reservation(self) -> bool:
        """True when the workload holds quota: admission set and QuotaReserved not False.

        Kueue requires QuotaReserved=True; a hand-written admission without conditions is
        accepted as reserved too, so small examples stay short.
        """
        if not self.admission_cq or self.is_true("Finished"):
            return False
        c = self.condition("QuotaReserved")
        return c is None or c.status == "True"


def _containers(raw: Any, what: str, init: bool) -> tuple[list[Container], list[list[str]]]:
    """Containers (missing requests taken from limits, as Kueue does) and, per container,
    the resources whose request exceeds the limit as written."""
    out = []
    greater = []
    for i, c in enumerate(_list(raw, what)):
        c = _map(c, f"{what}[{i}]")
        res = _map(c.get("resources"), f"{what}[{i}].resources")
        requests = resource_list(res.get("requests"), f"{what}[{i}].resources.requests")
        limits = resource_list(res.get("limits"), f"{what}[{i}].resources.limits")
        # GetGreaterKeys ranges over a Go map; sorted keeps the message reproducible.
        greater.append(sorted(k for k, v in requests.items() if k in limits and v > limits[k]))
        for key, amount in limits.items():  # Kueue uses limits as missing requests
            requests.setdefault(key, amount)
        out.append(Container(str(c.get("name") or i), requests, limits,
                             restartable=init and c.get("restartPolicy") == "Always"))
    return out, greater


def _resource_errors(pod_set: str, inits: list[list[str]], mains: list[list[str]]) -> tuple[
        str, ...]:
    """The scheduler's ``validateResources`` reasons for one pod set (init containers
    first), e.g. ``podSets.main.containers[0][cpu] requests exceed it's limits``."""
    out = []
    for kind, per_container in (("initContainers", inits), ("containers", mains)):
        for i, keys in enumerate(per_container):
            if keys:
                out.append(f"podSets.{pod_set}.{kind}[{i}][{', '.join(keys)}] requests "
                           "exceed it's limits")
    return tuple(out)


def _pod_set(raw: Any, i: int) -> PodSet:
    where = f"spec.podSets[{i}]"
    raw = _map(raw, where)
    name = str(raw.get("name") or DEFAULT_POD_SET)
    count = _int(raw.get("count", 1), f"{where}.count")
    if count < 0:
        raise ValueError(f"{where}.count must not be negative")
    tmpl = _map(raw.get("template"), f"{where}.template")
    spec = _map(tmpl.get("spec"), f"{where}.template.spec")
    containers, main_greater = _containers(spec.get("containers"),
                                           f"{where}.template.spec.containers", False)
    inits, init_greater = _containers(spec.get("initContainers"),
                                      f"{where}.template.spec.initContainers", True)
    overhead = resource_list(spec.get("overhead"), f"{where}.template.spec.overhead")
    requests = pod_requests(containers, inits, overhead)
    selector = {str(k): str(v) for k, v in _map(spec.get("nodeSelector"),
                                                 "nodeSelector").items()}
    affinity = _map(spec.get("affinity"), "affinity")
    node_aff = _map(affinity.get("nodeAffinity"), "nodeAffinity")
    required = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None
    if required is not None:
        raw_terms = _list(_map(required, "required node affinity").get("nodeSelectorTerms"),
                          "nodeSelectorTerms")
        terms = tuple(NodeSelectorTerm.parse(t) for t in raw_terms)
    return PodSet(name, count, requests, selector, terms,
                  _tolerations(spec.get("tolerations"), "tolerations"),
                  _resource_errors(name, init_greater, main_greater))


def _tolerations(raw: Any, what: str) -> tuple[Toleration, ...]:
    """A list of tolerations (a pod spec's, or a ResourceFlavor's ``spec.tolerations``)."""
    out = []
    for t in _list(raw, what):
        t = _map(t, "toleration")
        op = _choice(t.get("operator"), {"Equal", "Exists"}, "Equal", "toleration operator")
        effect = _choice(t.get("effect"), _EFFECTS, "", "toleration effect")
        out.append(Toleration(str(t.get("key") or ""), op, str(t.get("value") or ""), effect))
    return tuple(out)


def _conditions(raw: Any) -> tuple[Condition, ...]:
    out = []
    for c in _list(raw, "status.conditions"):
        c = _map(c, "condition")
        out.append(Condition(str(c.get("type") or ""), str(c.get("status") or ""),
                             str(c.get("reason") or ""), str(c.get("message") or ""),
                             parse_time(c.get("lastTransitionTime"))))
    return tuple(out)


def _admission(raw: Any) -> tuple[str, tuple[PodSetAssignment, ...]]:
    adm = _map(raw, "status.admission")
    if not adm:
        return "", ()
    cq = adm.get("clusterQueue")
    if not cq:
        raise ValueError("status.admission.clusterQueue is required")
    out = []
    for i, psa in enumerate(_list(adm.get("podSetAssignments"),
                                  "status.admission.podSetAssignments")):
        psa = _map(psa, f"podSetAssignments[{i}]")
        flavors = {str(k): str(v) for k, v in _map(psa.get("flavors"), "flavors").items()}
        usage = psa.get("resourceUsage")
        count = psa.get("count")
        out.append(PodSetAssignment(
            str(psa.get("name") or DEFAULT_POD_SET), flavors,
            None if usage is None else resource_list(usage, f"podSetAssignments[{i}]"
                                                     ".resourceUsage"),
            None if count is None else _int(count, f"podSetAssignments[{i}].count")))
    return str(cq), tuple(out)


def _priority_class(spec: Mapping[str, Any], version: str) -> tuple[str, str]:
    """(name, source) of the workload's priority class. v1beta2's ``priorityClassRef``
    maps back to v1beta1's source strings; a v1beta1 name without a source converts to no
    reference at all, as ``Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec`` does."""
    if version != "v1beta2":
        return str(spec.get("priorityClassName") or ""), str(spec.get("priorityClassSource")
                                                             or "")
    if spec.get("priorityClassRef") is None:
        return "", ""
    ref = _map(spec.get("priorityClassRef"), "spec.priorityClassRef")
    group, kind = ref.get("group"), ref.get("kind")
    if (group, kind) == (GROUP, "WorkloadPriorityClass"):
        source = WPC_SOURCE
    elif (group, kind) == ("scheduling.k8s.io", "PriorityClass"):
        source = PC_SOURCE
    else:
        raise ValueError(f"spec.priorityClassRef: unknown group/kind {group}/{kind}")
    # PriorityClassRef.name: +required, MinLength=1 (the apiserver refuses a ref without).
    if not ref.get("name"):
        raise ValueError("spec.priorityClassRef.name: Required value")
    return str(ref["name"]), source


JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
WPC_SOURCE = "kueue.x-k8s.io/workloadpriorityclass"
PC_SOURCE = "scheduling.k8s.io/priorityclass"


def parse_workload(obj: RawObject, resolve_priority: Callable[[str, str], int],
                   semantics: Semantics = SEMANTICS[V0_7]) -> Workload:
    """Parse a Workload; ``resolve_priority(class_name, source)`` resolves its class."""

    def build() -> Workload:
        version = api_version(obj, semantics)
        meta = _map(obj.body.get("metadata"), "metadata")
        spec = _map(obj.body.get("spec"), "spec")
        status = _map(obj.body.get("status"), "status")
        pod_sets = tuple(_pod_set(ps, i) for i, ps in enumerate(_list(spec.get("podSets"),
                                                                       "spec.podSets")))
        if not pod_sets:
            raise ValueError("spec.podSets must have at least one pod set")
        names = [ps.name for ps in pod_sets]
        if len(set(names)) != len(names):
            raise ValueError(f"spec.podSets has duplicate names {names}")
        class_name, class_source = _priority_class(spec, version)
        if spec.get("priority") is not None:
            priority = _int(spec["priority"], "spec.priority")
        elif class_name and (class_source or not semantics.priority_class_needs_source):
            priority = resolve_priority(class_name, class_source)
        else:
            priority = 0
        cq, assignments = _admission(status.get("admission"))
        reclaimable = {}
        for r in _list(status.get("reclaimablePods"), "status.reclaimablePods"):
            r = _map(r, "reclaimablePods[]")
            reclaimable[str(r.get("name"))] = _int(r.get("count", 0), "reclaimablePods.count")
        gen = meta.get("generation")
        return Workload(
            namespace=obj.namespace or "default",
            name=obj.name,
            uid=str(meta.get("uid") or ""),
            queue_name=str(spec.get("queueName") or ""),
            priority=priority,
            priority_class_name=class_name,
            creation=parse_time(meta.get("creationTimestamp")),
            pod_sets=pod_sets,
            admission_cq=cq,
            assignments=assignments,
            conditions=_conditions(status.get("conditions")),
            reclaimable=reclaimable,
            generation=gen if isinstance(gen, int) and not isinstance(gen, bool) else None,
            source=obj.source,
            raw_conditions=tuple(c for c in _list(status.get("conditions"), "conditions")
                                 if isinstance(c, Mapping)),
            job_uid=str(_map(meta.get("labels"), "metadata.labels").get(JOB_UID_LABEL) or ""),
        )

    return _guard(obj, "Workload", build)

