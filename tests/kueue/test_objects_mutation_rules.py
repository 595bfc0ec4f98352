"""Parsing and validation of Kueue objects (``kubepreempt.kueue.objects``), rule by rule.

The rules come from Kueue (main ff69552e, the v0.20 line, and v0.7.0):
``pkg/webhooks/clusterqueue_webhook.go`` (``validateResourceGroups``,
``validateFlavorQuotas``, ``validateLimit``, ``validateLendingLimit``,
``validatePreemption``, ``validateFlavorFungibility``), ``pkg/webhooks/cohort_webhook.go``
(``validateCohort``: limits need a parent, no lending check), the CRD enums and defaults of
``apis/kueue/v1beta2`` (kubebuilder markers) and the conversions in
``apis/kueue/v1beta1/*_conversion.go``. Where upstream's webhook prints a ``field.Invalid``
the message is upstream's text; elsewhere the test pins which field kubepreempt names.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import Taint, Toleration
from kubepreempt.kueue import objects as o
from kubepreempt.kueue.semantics import SEMANTICS, V0_7, V0_20
from kubepreempt.manifests import RawObject

NOW = SEMANTICS[V0_20]
OLD = SEMANTICS[V0_7]
SRC = Source("f.yaml", 0)
B1 = "kueue.x-k8s.io/v1beta1"
B2 = "kueue.x-k8s.io/v1beta2"


def raw(kind: str, name: str | None = "x", api: str | None = None, ns: str | None = None,
        **body: Any) -> RawObject:
    meta: dict[str, Any] = {}
    if name is not None:
        meta["name"] = name
    if ns is not None:
        meta["namespace"] = ns
    doc: dict[str, Any] = {"metadata": meta, **body}
    if api is not None:
        doc["apiVersion"] = api
    return RawObject(kind, doc, SRC)


def message(fn: Any, *args: Any) -> str:
    with pytest.raises(InputError) as exc:
        fn(*args)
    return exc.value.message


def rq(name: str, nominal: Any = "1", **limits: Any) -> dict[str, Any]:
    return {"name": name, "nominalQuota": nominal, **limits}


def groups(*resources: dict[str, Any], covered: list[str] | None = None,
           flavor: str = "f") -> list[dict[str, Any]]:
    return [{"coveredResources": covered or [r["name"] for r in resources],
             "flavors": [{"name": flavor, "resources": list(resources)}]}]


def cq(spec: dict[str, Any], api: str | None = B1, semantics: Any = NOW) -> o.ClusterQueue:
    return o.parse_cluster_queue(raw("ClusterQueue", "q", api, spec=spec), semantics)


def cq_error(spec: dict[str, Any], api: str | None = B1, semantics: Any = NOW) -> str:
    return message(cq, spec, api, semantics)


# --- integers (int32 fields: WorkloadPriorityClass.value, counts, thresholds) -------------

@pytest.mark.parametrize("value", [2147483647, -2147483648, 0])
def test_int32_bounds_are_accepted(value: int) -> None:
    wpc = o.parse_workload_priority_class(raw("WorkloadPriorityClass", "p", value=value))
    assert wpc == o.WorkloadPriorityClass("p", value)


@pytest.mark.parametrize("value", [2147483648, -2147483649])
def test_int32_overflow_is_refused(value: int) -> None:
    """``value`` is an int32 in the CRD (WorkloadPriorityClass.Value)."""
    got = message(o.parse_workload_priority_class, raw("WorkloadPriorityClass", "p", value=value))
    assert got == f"value {value} does not fit in a 32-bit integer"


@pytest.mark.parametrize("value", [True, "10", 1.5, None])
def test_non_integer_value_is_refused(value: Any) -> None:
    err = pytest.raises(InputError, o.parse_workload_priority_class,
                        raw("WorkloadPriorityClass", "p", value=value)).value
    assert err.message == f"value {str(value)[:40]!r} is not an integer"
    assert str(err) == f"f.yaml, document 1: WorkloadPriorityClass p: {err.message}"


def test_long_non_integer_is_cut_at_40_characters() -> None:
    got = message(o.parse_workload_priority_class,
                  raw("WorkloadPriorityClass", "p", value="9" * 50))
    assert got == f"value {'9' * 40!r} is not an integer"


# --- _guard: object naming -----------------------------------------------------------------

def test_object_without_a_name_is_refused_with_its_kind() -> None:
    err = pytest.raises(InputError, o.parse_local_queue, raw("LocalQueue", None)).value
    assert str(err) == "f.yaml, document 1: LocalQueue: object has no metadata.name"


def test_namespaced_object_is_named_namespace_slash_name() -> None:
    err = pytest.raises(InputError, o.parse_local_queue,
                        raw("LocalQueue", "lq", ns="team", spec={})).value
    assert str(err) == "f.yaml, document 1: LocalQueue team/lq: spec.clusterQueue is required"


def test_type_errors_become_input_errors() -> None:
    err = pytest.raises(InputError, o.parse_local_queue, raw("LocalQueue", "lq", spec=[1])).value
    assert str(err) == "f.yaml, document 1: LocalQueue lq: spec must be a mapping, got list"


def test_local_queue_defaults_to_the_default_namespace() -> None:
    lq = o.parse_local_queue(raw("LocalQueue", "lq", spec={"clusterQueue": "cq"}))
    assert lq == o.LocalQueue("default", "lq", "cq")
    lq = o.parse_local_queue(raw("LocalQueue", "lq", ns="t", spec={"clusterQueue": "cq"}))
    assert lq == o.LocalQueue("t", "lq", "cq")


# --- apiVersion and conversion warnings ----------------------------------------------------

def test_missing_api_version_reads_as_the_oldest_served() -> None:
    assert o.api_version(raw("ClusterQueue"), NOW) == "v1beta1"
    assert o.api_version(raw("ClusterQueue", api=B2), NOW) == "v1beta2"


@pytest.mark.parametrize("api", ["other.io/v1beta1", "kueue.x-k8s.io/v2", "v1beta1"])
def test_unserved_api_version_is_refused(api: str) -> None:
    with pytest.raises(ValueError) as exc:
        o.api_version(raw("ClusterQueue", api=api), NOW)
    assert str(exc.value) == (
        f"apiVersion {api} is not served by Kueue 0.20 (served: kueue.x-k8s.io/v1beta1, "
        "kueue.x-k8s.io/v1beta2, kueue.x-k8s.io/v1alpha1)")


def test_v1beta2_is_not_served_by_v07() -> None:
    with pytest.raises(ValueError) as exc:
        o.api_version(raw("ClusterQueue", api=B2), OLD)
    assert str(exc.value) == ("apiVersion kueue.x-k8s.io/v1beta2 is not served by Kueue v0.7 "
                              "(served: kueue.x-k8s.io/v1beta1)")


def test_conversion_warnings_group_kinds_per_file_and_version() -> None:
    """Kueue 0.20 stores v1beta2; v1beta1 (#14558) and v1alpha1 Cohorts are converted."""
    objs = [RawObject("ClusterQueue", {"apiVersion": B1}, Source("a.yaml", 0)),
            RawObject("LocalQueue", {"apiVersion": B1}, Source("a.yaml", 1)),
            RawObject("ClusterQueue", {"apiVersion": B1}, Source("a.yaml", 2)),
            RawObject("ClusterQueue", {"apiVersion": B2}, Source("a.yaml", 3)),
            RawObject("Cohort", {"apiVersion": "kueue.x-k8s.io/v1alpha1"}, Source("a.yaml", 4)),
            RawObject("Pod", {"apiVersion": "v1"}, Source("a.yaml", 5)),
            RawObject("Foo", {"apiVersion": "other.io/v1beta1"}, Source("a.yaml", 6)),
            RawObject("Bar", {}, Source("a.yaml", 7)),
            RawObject("Workload", {"apiVersion": B1}, Source("b.yaml", 0))]
    assert o.conversion_warnings(objs, NOW) == [
        "warning: a.yaml: ClusterQueue, LocalQueue objects in kueue.x-k8s.io/v1beta1, which "
        "Kueue 0.20 no longer serves (#14558), are converted to v1beta2",
        "warning: a.yaml: Cohort objects in kueue.x-k8s.io/v1alpha1, which Kueue 0.20 no "
        "longer serves (since v0.13), are converted to v1beta2",
        "warning: b.yaml: Workload objects in kueue.x-k8s.io/v1beta1, which Kueue 0.20 no "
        "longer serves (#14558), are converted to v1beta2"]
    assert o.conversion_warnings(objs, OLD) == []


# --- ResourceFlavor (v1beta2 ResourceFlavorSpec; taints as core/v1 Taint) -------------------

def test_resource_flavor_reads_labels_taints_and_tolerations() -> None:
    rf = o.parse_resource_flavor(raw("ResourceFlavor", "rf", spec={
        "nodeLabels": {"zone": "a", "n": 1},
        "nodeTaints": [{"key": "k", "value": "v", "effect": "NoSchedule"},
                       {"key": "k2", "effect": "NoExecute"}],
        "tolerations": [{"key": "t", "operator": "Exists", "effect": "PreferNoSchedule"},
                        {"key": "u", "value": "w"}, {"operator": "Exists"}]}))
    assert rf == o.ResourceFlavor(
        "rf", {"zone": "a", "n": "1"},
        (Taint("k", "v", "NoSchedule"), Taint("k2", "", "NoExecute")),
        (Toleration("t", "Exists", "", "PreferNoSchedule"), Toleration("u", "Equal", "w", ""),
         Toleration("", "Exists", "", "")))  # an empty key with Exists tolerates every taint


def test_resource_flavor_without_spec_is_empty() -> None:
    assert o.parse_resource_flavor(raw("ResourceFlavor", "rf")) == o.ResourceFlavor("rf")


@pytest.mark.parametrize(("taint", "want"), [
    ({"effect": "NoSchedule"}, "spec.nodeTaints: taint without a key"),
    ({"key": "k"}, "spec.nodeTaints: taint without an effect"),
    ({"key": "k", "effect": "Bad"},
     "taint effect 'Bad' is not one of ['NoExecute', 'NoSchedule', 'PreferNoSchedule']"),
    ("k", "taint must be a mapping, got str"),
])
def test_resource_flavor_taints_need_key_and_effect(taint: Any, want: str) -> None:
    """core/v1 Taint: key and effect are required; effect is one of three values."""
    got = message(o.parse_resource_flavor, raw("ResourceFlavor", "rf",
                                                spec={"nodeTaints": [taint]}))
    assert got == want


@pytest.mark.parametrize(("spec", "want"), [
    ({"nodeLabels": [1]}, "nodeLabels must be a mapping, got list"),
    ({"nodeTaints": {}}, "spec.nodeTaints must be a list, got dict"),
    ({"tolerations": {}}, "spec.tolerations must be a list, got dict"),
    ({"tolerations": [1]}, "toleration must be a mapping, got int"),
    ({"tolerations": [{"operator": "In"}]},
     "toleration operator 'In' is not one of ['Equal', 'Exists']"),
    ({"tolerations": [{"effect": "x"}]},
     "toleration effect 'x' is not one of ['NoExecute', 'NoSchedule', 'PreferNoSchedule']"),
])
def test_resource_flavor_shapes(spec: dict[str, Any], want: str) -> None:
    assert message(o.parse_resource_flavor, raw("ResourceFlavor", "rf", spec=spec)) == want


# --- ClusterQueue resource groups (validateResourceGroups / validateFlavorQuotas) -----------

def test_resource_groups_are_read_in_spec_order() -> None:
    q = cq({"cohort": "c", "resourceGroups": [
        {"coveredResources": ["cpu", "memory"], "flavors": [
            {"name": "a", "resources": [rq("cpu", "2", borrowingLimit="500m", lendingLimit=1),
                                        rq("memory", "1Gi")]},
            {"name": "b", "resources": [rq("cpu", 0), rq("memory", 0)]}]},
        {"coveredResources": ["gpu"], "flavors": [{"name": "g", "resources": [rq("gpu", 4)]}]}]})
    assert q.resource_groups == (
        o.ResourceGroup(("cpu", "memory"), (
            o.FlavorQuotas("a", {"cpu": o.ResourceQuota(2000, 500, 1000),
                                 "memory": o.ResourceQuota(1 << 30)}),
            o.FlavorQuotas("b", {"cpu": o.ResourceQuota(0), "memory": o.ResourceQuota(0)}))),
        o.ResourceGroup(("gpu",), (o.FlavorQuotas("g", {"gpu": o.ResourceQuota(4)}),)))
    assert q.cohort == "c" and q.flavor_names() == ["a", "b", "g"]


@pytest.mark.parametrize(("rgs", "want"), [
    ({}, "spec.resourceGroups must be a list, got dict"),
    ([1], "spec.resourceGroups[0] must be a mapping, got int"),
    ([{"coveredResources": "cpu"}], "spec.resourceGroups[0].coveredResources must be a list, "
                                     "got str"),
    ([{"flavors": []}], "spec.resourceGroups[0] has no coveredResources"),
    (groups(rq("cpu")) + groups(rq("cpu"), flavor="g"),
     "resource cpu is covered by more than one resource group"),
    (groups(rq("cpu")) + groups(rq("gpu")),
     "flavor f appears in more than one place"),
    ([{"coveredResources": ["cpu"], "flavors": {}}],
     "spec.resourceGroups[0].flavors must be a list, got dict"),
    ([{"coveredResources": ["cpu"], "flavors": [1]}],
     "spec.resourceGroups[0].flavors[0] must be a mapping, got int"),
    ([{"coveredResources": ["cpu"], "flavors": [{"resources": []}]}],
     "spec.resourceGroups[0].flavors[0] has no name"),
    ([{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": {}}]}],
     "spec.resourceGroups[0].flavors[0].resources must be a list, got dict"),
    ([{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [1]}]}],
     "spec.resourceGroups[0].flavors[0].resources[] must be a mapping, got int"),
    (groups(rq("gpu"), covered=["cpu"]),
     "spec.resourceGroups[0].flavors[0]: resource 'gpu' is not in coveredResources"),
    (groups({"nominalQuota": 1}, covered=["cpu"]),
     "spec.resourceGroups[0].flavors[0]: resource '' is not in coveredResources"),
    (groups({"name": "cpu"}),
     "spec.resourceGroups[0].flavors[0]: resource cpu has no nominalQuota"),
    (groups(rq("cpu"), covered=["cpu", "memory"]),
     "spec.resourceGroups[0].flavors[0]: resources must list the coveredResources "
     "['cpu', 'memory'] in order, got ['cpu']"),
    (groups(rq("memory"), rq("cpu"), covered=["cpu", "memory"]),
     "spec.resourceGroups[0].flavors[0]: resources must list the coveredResources "
     "['cpu', 'memory'] in order, got ['memory', 'cpu']"),
    (groups(rq("cpu", "-1")),
     "spec.resourceGroups[0].flavors[0].cpu.nominalQuota: negative quantity '-1'"),
    (groups(rq("cpu", "1", borrowingLimit="-1")),
     "spec.resourceGroups[0].flavors[0].cpu.borrowingLimit: negative quantity '-1'"),
    (groups(rq("cpu", "1", lendingLimit="-1")),
     "spec.resourceGroups[0].flavors[0].cpu.lendingLimit: negative quantity '-1'"),
    (groups(rq("cpu", "abc")), "spec.resourceGroups[0].flavors[0].cpu.nominalQuota: "
                               "quantity 'abc' is not a valid Kubernetes quantity"),
])
def test_resource_group_errors(rgs: Any, want: str) -> None:
    """validateResourceGroups: a resource in one group only (Duplicate), a flavor once
    per ClusterQueue (Duplicate), resources in coveredResources' order ("must match the
    name in coveredResources"), quantities not negative (validateResourceQuantity)."""
    assert cq_error({"cohort": "c", "resourceGroups": rgs}) == want


def test_second_group_indexes_are_named() -> None:
    rgs = groups(rq("cpu")) + [{"coveredResources": ["gpu"],
                                 "flavors": [{"name": "g", "resources": [rq("gpu")]},
                                             {"name": "h", "resources": [rq("gpu", "-2")]}]}]
    assert cq_error({"cohort": "c", "resourceGroups": rgs}) == \
        "spec.resourceGroups[1].flavors[1].gpu.nominalQuota: negative quantity '-2'"


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("borrowingLimit", "500m", "500m"), ("lendingLimit", "1", "1")])
def test_limits_need_a_cohort_in_current_kueue(field: str, value: str, shown: str) -> None:
    """validateLimit: ``must be nil when cohort is empty`` (field.Invalid with the
    quantity's String())."""
    rgs = groups(rq("gpu"), flavor="a") + [{"coveredResources": ["memory", "cpu"], "flavors": [
        {"name": "b", "resources": [rq("memory"), rq("cpu", "2", **{field: value})]}]}]
    assert cq_error({"resourceGroups": rgs}) == (
        f"spec.resourceGroups[1].flavors[0].resources[1].{field}: Invalid value: "
        f"\"{shown}\": must be nil when cohort is empty")
    assert cq({"resourceGroups": rgs}, semantics=OLD).cohort == ""  # not checked in v0.7


def test_borrowing_limit_is_reported_before_lending_limit() -> None:
    rgs = groups(rq("cpu", "2", borrowingLimit="1", lendingLimit="1"))
    assert cq_error({"resourceGroups": rgs}).startswith(
        "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid value: \"1\"")


def test_v1beta2_cohort_name_satisfies_the_limit_rule() -> None:
    q = cq({"cohortName": "c", "resourceGroups": groups(rq("cpu", "1", borrowingLimit="1"))},
           api=B2)
    assert q.cohort == "c"
    # v1beta2 has no ``cohort`` field: a v1beta2 queue naming ``cohort`` has no cohort.
    assert "must be nil when cohort is empty" in cq_error(
        {"cohort": "c", "resourceGroups": groups(rq("cpu", "1", borrowingLimit="1"))}, api=B2)


def test_lending_limit_within_nominal() -> None:
    """validateLendingLimit (enforceNominalGreaterThanLending for ClusterQueues)."""
    ok = cq({"cohort": "c", "resourceGroups": groups(rq("cpu", "2", lendingLimit="2"))})
    assert ok.quota("f", "cpu") == o.ResourceQuota(2000, None, 2000)
    rgs = groups(rq("memory"), rq("cpu", "2", lendingLimit="2001m"))
    assert cq_error({"cohort": "c", "resourceGroups": rgs}) == (
        "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit: Invalid value: "
        "\"2001m\": must be less than or equal to the nominalQuota")
    assert cq({"cohort": "c", "resourceGroups": rgs}, semantics=OLD).quota("f", "cpu") == \
        o.ResourceQuota(2000, None, 2001)


# --- ClusterQueue preemption, fungibility, fair sharing and the rest ------------------------

def test_cluster_queue_defaults() -> None:
    """v1beta2 defaults: preemption Never everywhere, whenCanBorrow MayStopSearch (Borrow),
    whenCanPreempt TryNextFlavor, BestEffortFIFO, stopPolicy None, weight 1."""
    q = cq({}, api=None)
    assert q == o.ClusterQueue("q", source=SRC)
    assert q.namespace_selector is None and not q.stopped and q.fair_weight_milli == 1000


def test_cluster_queue_reads_every_field() -> None:
    q = cq({"cohort": "c", "stopPolicy": "Hold", "queueingStrategy": "StrictFIFO",
            "fairSharing": {"weight": "0.5"}, "namespaceSelector": {"matchLabels": {"a": "b"}},
            "preemption": {"withinClusterQueue": "LowerOrNewerEqualPriority",
                           "reclaimWithinCohort": "Any",
                           "borrowWithinCohort": {"policy": "LowerPriority",
                                                  "maxPriorityThreshold": 7}},
            "flavorFungibility": {"whenCanBorrow": "TryNextFlavor",
                                  "whenCanPreempt": "Preempt"}})
    assert q.preemption == o.Preemption("LowerOrNewerEqualPriority", "Any", "LowerPriority", 7)
    assert (q.when_can_borrow, q.when_can_preempt) == ("TryNextFlavor", "Preempt")
    assert (q.stopped, q.queueing_strategy, q.fair_weight_milli) == (True, "StrictFIFO", 500)
    assert q.admits_namespace({"a": "b"}) and not q.admits_namespace({"a": "c"})
    assert cq({"stopPolicy": "None"}).stopped is False
    assert cq({"stopPolicy": "HoldAndDrain"}).stopped is True


@pytest.mark.parametrize(("spec", "want"), [
    ({"preemption": {"withinClusterQueue": "Any"}},
     "withinClusterQueue 'Any' is not one of ['LowerOrNewerEqualPriority', 'LowerPriority', "
     "'Never']"),
    ({"preemption": {"reclaimWithinCohort": "LowerOrNewerEqualPriority"}},
     "reclaimWithinCohort 'LowerOrNewerEqualPriority' is not one of ['Any', 'LowerPriority', "
     "'Never']"),
    ({"preemption": {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "Any"}}},
     "borrowWithinCohort.policy 'Any' is not one of ['LowerPriority', 'Never']"),
    ({"preemption": {"borrowWithinCohort": {"policy": "LowerPriority"}}},
     "borrowWithinCohort requires reclaimWithinCohort other than Never"),
    ({"preemption": {"reclaimWithinCohort": "Any",
                     "borrowWithinCohort": {"maxPriorityThreshold": "1"}}},
     "maxPriorityThreshold '1' is not an integer"),
    ({"preemption": []}, "spec.preemption must be a mapping, got list"),
    ({"preemption": {"borrowWithinCohort": []}},
     "spec.preemption.borrowWithinCohort must be a mapping, got list"),
    ({"flavorFungibility": []}, "spec.flavorFungibility must be a mapping, got list"),
    ({"fairSharing": []}, "spec.fairSharing must be a mapping, got list"),
    ({"fairSharing": {"weight": "-1"}}, "spec.fairSharing.weight must not be negative"),
    ({"fairSharing": {"weight": "x"}},
     "spec.fairSharing.weight: quantity 'x' is not a valid Kubernetes quantity"),
    ({"queueingStrategy": "FIFO"},
     "queueingStrategy 'FIFO' is not one of ['BestEffortFIFO', 'StrictFIFO']"),
    ({"flavorFungibility": {"whenCanBorrow": "Preempt"}},
     "whenCanBorrow 'Preempt' is not one of ['Borrow', 'TryNextFlavor']"),
    ({"flavorFungibility": {"whenCanPreempt": "Borrow"}},
     "whenCanPreempt 'Borrow' is not one of ['Preempt', 'TryNextFlavor']"),
    ({"namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "Bad"}]}},
     "spec.namespaceSelector: "),
])
def test_cluster_queue_errors(spec: dict[str, Any], want: str) -> None:
    """validatePreemption (``reclaimWithinCohort=Never and borrowWithinCohort.Policy!=
    Never``) and the CRD enums of ClusterQueuePreemption, FlavorFungibility and
    QueueingStrategy."""
    assert cq_error(spec).startswith(want)
    if not want.endswith(": "):
        assert cq_error(spec) == want


@pytest.mark.parametrize("semantics", [OLD, NOW])
def test_stop_policy_is_an_enum(semantics: Any) -> None:
    """``+kubebuilder:validation:Enum=None;Hold;HoldAndDrain`` on ``stopPolicy`` (v0.7's
    v1beta1 and current v1beta2): the apiserver refuses any other value."""
    assert cq_error({"stopPolicy": "Stop"}, semantics=semantics) == (
        "stopPolicy 'Stop' is not one of ['Hold', 'HoldAndDrain', 'None']")
    assert cq({"stopPolicy": ""}, semantics=semantics).stopped is False


def test_borrow_within_cohort_never_needs_no_reclaim() -> None:
    q = cq({"preemption": {"borrowWithinCohort": {"policy": "Never"}}})
    assert q.preemption == o.Preemption()
    q = cq({"preemption": {"reclaimWithinCohort": "LowerPriority",
                           "borrowWithinCohort": {"policy": "LowerPriority"}}})
    assert q.preemption == o.Preemption("Never", "LowerPriority", "LowerPriority", None)


def test_fair_sharing_weight_zero_and_absent() -> None:
    assert cq({"fairSharing": {"weight": "0"}}).fair_weight_milli == 0
    assert cq({"fairSharing": {"weight": None}}).fair_weight_milli == 1000
    assert cq({"fairSharing": {"weight": 3}}).fair_weight_milli == 3000


def test_v1beta2_fungibility_spells_may_stop_search() -> None:
    """v1beta2 FlavorFungibilityPolicy: MayStopSearch | TryNextFlavor; conversion maps
    MayStopSearch to Borrow (whenCanBorrow) and Preempt (whenCanPreempt)."""
    q = cq({"flavorFungibility": {"whenCanBorrow": "MayStopSearch",
                                  "whenCanPreempt": "MayStopSearch"}}, api=B2)
    assert (q.when_can_borrow, q.when_can_preempt) == ("Borrow", "Preempt")
    q = cq({"flavorFungibility": {"whenCanBorrow": "TryNextFlavor",
                                  "whenCanPreempt": "TryNextFlavor"}}, api=B2)
    assert (q.when_can_borrow, q.when_can_preempt) == ("TryNextFlavor", "TryNextFlavor")
    q = cq({"flavorFungibility": {"whenCanBorrow": ""}}, api=B2)
    assert (q.when_can_borrow, q.when_can_preempt) == ("Borrow", "TryNextFlavor")
    assert cq_error({"flavorFungibility": {"whenCanBorrow": "Borrow"}}, api=B2) == (
        "whenCanBorrow 'Borrow' is not one of ['MayStopSearch', 'TryNextFlavor']")
    assert cq_error({"flavorFungibility": {"whenCanPreempt": "Preempt"}}, api=B2) == (
        "whenCanPreempt 'Preempt' is not one of ['MayStopSearch', 'TryNextFlavor']")


def test_fungibility_preference() -> None:
    """FlavorFungibility.preference (v0.15): enum BorrowingOverPreemption |
    PreemptionOverBorrowing, only with both policies TryNextFlavor; ignored by v0.7."""
    both = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}
    q = cq({"flavorFungibility": {**both, "preference": "BorrowingOverPreemption"}})
    assert q.fungibility_preference == "BorrowingOverPreemption"
    assert cq_error({"flavorFungibility": {**both, "preference": "Cheapest"}}) == (
        "preference 'Cheapest' is not one of ['BorrowingOverPreemption', "
        "'PreemptionOverBorrowing']")
    # whenCanPreempt defaults to TryNextFlavor, whenCanBorrow to MayStopSearch (Borrow).
    assert cq({"flavorFungibility": {"whenCanBorrow": "TryNextFlavor",
                                     "preference": "PreemptionOverBorrowing"}}
              ).fungibility_preference == "PreemptionOverBorrowing"
    for half in ({"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "Preempt"},
                 {"whenCanPreempt": "TryNextFlavor"}):
        assert cq_error({"flavorFungibility": {**half, "preference": "PreemptionOverBorrowing"}}) \
            == ("spec.flavorFungibility: preference can only be set when both whenCanBorrow "
                "and whenCanPreempt are TryNextFlavor")
    q = cq({"flavorFungibility": {"preference": "Cheapest"}}, semantics=OLD)
    assert q.fungibility_preference == ""


# --- Cohort (validateCohort; v1alpha1 ``parent`` -> ``parentName``) --------------------------

def cohort(spec: dict[str, Any], api: str = B2) -> o.Cohort:
    return o.parse_cohort(raw("Cohort", "c", api, spec=spec), NOW)


def test_cohort_reads_parent_groups_and_weight() -> None:
    rgs = groups(rq("cpu", "2", borrowingLimit="1", lendingLimit="3"))
    c = cohort({"parentName": "root", "resourceGroups": rgs, "fairSharing": {"weight": "2"}})
    assert c == o.Cohort("c", "root", (o.ResourceGroup(("cpu",), (o.FlavorQuotas(
        "f", {"cpu": o.ResourceQuota(2000, 1000, 3000)}),)),), 2000, SRC)
    assert cohort({"parent": "root"}, "kueue.x-k8s.io/v1alpha1").parent == "root"
    assert cohort({"parentName": "root"}, B1).parent == "root"
    assert cohort({}) == o.Cohort("c", source=SRC)


def test_cohort_errors() -> None:
    """validateLimit with isCohort: ``must be nil when parent is empty``; ``parent`` is
    not a v1beta1/v1beta2 field (strict decoding)."""
    rgs = groups(rq("cpu", "2", lendingLimit="1"))
    assert message(cohort, {"resourceGroups": rgs}) == (
        "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"1\": "
        "must be nil when parent is empty")
    for api in (B1, B2):
        assert message(cohort, {"parent": "root"}, api) == (
            f"spec.parent: unknown field in kueue.x-k8s.io/{api.split('/')[1]} Cohort (the "
            "parent is spec.parentName; parent was v1alpha1's)")
    # v1alpha1 named the parent ``parent``: its ``parentName`` is no parent.
    assert message(cohort, {"parentName": "root", "resourceGroups": rgs},
                   "kueue.x-k8s.io/v1alpha1").endswith("must be nil when parent is empty")
    assert message(cohort, {"fairSharing": {"weight": "-1"}}) == \
        "spec.fairSharing.weight must not be negative"
    assert message(cohort, {"fairSharing": 1}) == "spec.fairSharing must be a mapping, got int"
    assert message(cohort, [], B2) == "spec must be a mapping, got list"


# --- Configuration (config.kueue.x-k8s.io; validateFairSharing, v1beta1 conversion) ---------

CFG1 = "config.kueue.x-k8s.io/v1beta1"
CFG2 = "config.kueue.x-k8s.io/v1beta2"


def config(body: dict[str, Any], semantics: Any = NOW) -> o.KueueConfig:
    return o.parse_configuration(RawObject("Configuration", body, SRC), semantics)


def test_configuration_defaults_per_release() -> None:
    """The LendingLimit gate: alpha and off in v0.7, on (GA) in current Kueue."""
    assert config({}, OLD) == o.KueueConfig(False, o.DEFAULT_STRATEGIES, False, OLD, ())
    assert config({}) == o.KueueConfig(False, o.DEFAULT_STRATEGIES, True, NOW, ())
    assert config({"featureGates": {"LendingLimit": True}}, OLD).lending_limit is True
    assert config({"featureGates": {"LendingLimit": False}}).lending_limit is False


@pytest.mark.parametrize(("body", "fair"), [
    ({"apiVersion": CFG2, "fairSharing": {"preemptionStrategies": ["LessThanInitialShare"]}},
     True),
    ({"apiVersion": CFG2, "fairSharing": None}, False),
    ({"apiVersion": CFG1, "fairSharing": None}, False),
    ({"apiVersion": CFG1, "fairSharing": {"enable": True}}, True),
    ({"fairSharing": {"enable": True}}, True),
    ({"fairSharing": {"enable": False}}, False),
])
def test_fair_sharing_enabled(body: dict[str, Any], fair: bool) -> None:
    """``fairsharing.Enabled(pfs) = pfs != nil`` in v1beta2; v1beta1's conversion keeps
    the block only with ``enable: true``."""
    assert config(body).fair_sharing is fair


@pytest.mark.parametrize(("body", "want"), [
    ({"apiVersion": CFG2, "fairSharing": {"enable": True,
                                          "preemptionStrategies": ["LessThanInitialShare"]}},
     "fairSharing.enable is not a v1beta2 field: fair sharing is on when the fairSharing "
     "block is present; remove the block to turn it off"),
    ({"apiVersion": CFG2, "fairSharing": {}},
     "fairSharing.preemptionStrategies: must be specified"),
    ({"apiVersion": CFG2, "fairSharing": {"preemptionStrategies": []}},
     "fairSharing.preemptionStrategies: must be specified"),
    ({"apiVersion": CFG2, "fairSharing": 1}, "fairSharing must be a mapping, got int"),
    ({"fairSharing": 1}, "fairSharing must be a mapping, got int"),
    ({"fairSharing": {"preemptionStrategies": "x"}},
     "fairSharing.preemptionStrategies must be a list, got str"),
    ({"fairSharing": {"preemptionStrategies": ["Other"]}},
     "preemption strategy 'Other' is not one of ['LessThanInitialShare', "
     "'LessThanOrEqualToFinalShare']"),
    ({"fairSharing": {"preemptionStrategies": ["LessThanInitialShare",
                                               "LessThanOrEqualToFinalShare"]}},
     "fairSharing.preemptionStrategies ['LessThanInitialShare', "
     "'LessThanOrEqualToFinalShare'] is not supported; use [LessThanOrEqualToFinalShare], "
     "[LessThanInitialShare] or both in that order"),
    ({"fairSharing": {"preemptionStrategies": [""]}},
     "fairSharing.preemptionStrategies [''] is not supported; use "
     "[LessThanOrEqualToFinalShare], [LessThanInitialShare] or both in that order"),
    ({"featureGates": 1}, "featureGates must be a mapping, got int"),
    ({"waitForPodsReady": 1}, "waitForPodsReady must be a mapping, got int"),
])
def test_configuration_errors(body: dict[str, Any], want: str) -> None:
    """``pkg/config/validation.go`` ``validateFairSharing``: ``preemptionStrategies: must
    be specified`` (v1beta2), and a list not in ``validStrategySets`` (an empty string
    included) is NotSupported (v0.7.0 and current)."""
    err = pytest.raises(InputError, config, body).value
    assert err.message == want
    assert str(err) == f"f.yaml, document 1: Configuration config: {want}"


@pytest.mark.parametrize("strategies", [["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"],
                                        ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]])
def test_supported_strategy_lists(strategies: list[str]) -> None:
    cfg = config({"fairSharing": {"enable": True, "preemptionStrategies": strategies}})
    assert cfg.strategies == tuple(strategies)


def test_requeuing_strategy_is_reported_as_ignored() -> None:
    assert config({"waitForPodsReady": {"requeuingStrategy": {}}}).ignored == (
        "waitForPodsReady.requeuingStrategy is ignored: PodsReady-timeout evictions and "
        "their requeuing are not modelled",)
    assert config({"waitForPodsReady": {"enable": True}}).ignored == ()


def test_named_configuration_keeps_its_name() -> None:
    err = pytest.raises(InputError, o.parse_configuration,
                        raw("Configuration", "mine", featureGates=1)).value
    assert str(err) == "f.yaml, document 1: Configuration mine: featureGates must be a " \
        "mapping, got int"


# --- Workload -------------------------------------------------------------------------------

def resolve(name: str, source: str) -> int:
    return {"wpc": 100, "pc": 50}[name] + (1 if source == o.WPC_SOURCE else 0)


def container(name: str = "c", requests: Any = None, limits: Any = None,
              **extra: Any) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    return {"name": name, "resources": res, **extra}


def pod_set(name: str | None = "main", count: Any = 1, **spec: Any) -> dict[str, Any]:
    ps: dict[str, Any] = {"template": {"spec": {"containers": [container(
        requests={"cpu": "1"})], **spec}}}
    if name is not None:
        ps["name"] = name
    if count is not None:
        ps["count"] = count
    return ps


def workload(spec: dict[str, Any] | None = None, api: str | None = B1, semantics: Any = NOW,
             ns: str | None = "team", status: Any = None, **meta: Any) -> o.Workload:
    body: dict[str, Any] = {"metadata": {"name": "w", **meta},
                            "spec": {"podSets": [pod_set()]} if spec is None else spec}
    if ns is not None:
        body["metadata"]["namespace"] = ns
    if api is not None:
        body["apiVersion"] = api
    if status is not None:
        body["status"] = status
    return o.parse_workload(RawObject("Workload", body, SRC), resolve, semantics)


def _workload_error(spec: dict[str, Any] | None, **kw: Any) -> str:
    with pytest.raises(InputError) as exc:
        workload(spec, **kw)
    return exc.value.message


def test_workload_reads_metadata_and_defaults() -> None:
    w = workload(uid="u1", generation=3, creationTimestamp="2024-01-01T00:00:00Z",
                 labels={o.JOB_UID_LABEL: "job-1"})
    assert (w.namespace, w.name, w.key, w.uid, w.generation, w.job_uid) == (
        "team", "w", "team/w", "u1", 3, "job-1")
    assert w.creation == 1704067200.0 and w.source == SRC
    assert (w.queue_name, w.priority, w.priority_class_name, w.admission_cq) == ("", 0, "", "")
    assert w.pod_sets == (o.PodSet("main", 1, {"cpu": 1000}),)
    bare = workload(ns=None, generation=True)
    assert (bare.namespace, bare.generation, bare.uid, bare.job_uid, bare.creation) == (
        "default", None, "", "", None)
    assert workload(generation="3").generation is None
    assert workload({"podSets": [pod_set()], "queueName": "lq"}).queue_name == "lq"


def test_pod_set_defaults_name_main_and_count_one() -> None:
    w = workload({"podSets": [pod_set(name=None, count=None)]})
    assert w.pod_sets[0].name == "main" and w.pod_sets[0].count == 1
    assert workload({"podSets": [pod_set(count=0)]}).pod_sets[0].count == 0


def test_pod_set_reads_requests_selectors_affinity_and_tolerations() -> None:
    """Kueue totals a pod's requests as the kubelet does (max of init containers, sum of
    containers, plus overhead) and takes a missing request from the limit."""
    ps = pod_set("p", 2, containers=[container("a", {"cpu": "1"}, {"memory": "1Gi"}),
                                     container("b", limits={"cpu": "2"})],
                 initContainers=[container("i", {"cpu": "4"})],
                 overhead={"cpu": "100m"}, nodeSelector={"zone": "a"},
                 tolerations=[{"key": "k", "operator": "Exists"}],
                 affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                     "nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "zone", "operator": "In", "values": ["a"]}]}]}}})
    got = workload({"podSets": [ps]}).pod_sets[0]
    assert (got.name, got.count, got.requests) == ("p", 2, {"cpu": 4100, "memory": 1 << 30})
    assert got.node_selector == {"zone": "a"}
    assert got.tolerations == (Toleration("k", "Exists", "", ""),)
    assert got.node_terms is not None and len(got.node_terms) == 1
    assert got.node_terms[0].matches({"zone": "a"}, "n") and not got.node_terms[0].matches({}, "n")
    assert got.resource_errors == ()
    assert workload().pod_sets[0].node_terms is None


def test_restartable_init_containers_run_alongside() -> None:
    """A sidecar (restartPolicy: Always init container) adds to the containers' sum."""
    ps = pod_set(containers=[container(requests={"cpu": "1"})],
                 initContainers=[container("s", {"cpu": "1"}, restartPolicy="Always"),
                                 container("i", {"cpu": "1"})])
    assert workload({"podSets": [ps]}).pod_sets[0].requests == {"cpu": 2000}
    ps = pod_set(containers=[container(requests={"cpu": "1"})],
                 initContainers=[container("s", {"cpu": "1"}, restartPolicy="Never")])
    assert workload({"podSets": [ps]}).pod_sets[0].requests == {"cpu": 1000}


def test_requests_above_limits_are_resource_errors() -> None:
    """``validateResources``: ``podSets.<name>.<kind>[i][<keys>] requests exceed it's
    limits`` (init containers first; keys sorted here, a Go map range upstream)."""
    ps = pod_set("p", containers=[container("ok", {"cpu": "1"}, {"cpu": "1"}),
                                  container("bad", {"cpu": "2", "memory": "2Gi", "gpu": 1},
                                            {"cpu": "1", "memory": "1Gi"})],
                 initContainers=[container("i", {"cpu": "3"}, {"cpu": "2"})])
    assert workload({"podSets": [ps]}).pod_sets[0].resource_errors == (
        "podSets.p.initContainers[0][cpu] requests exceed it's limits",
        "podSets.p.containers[1][cpu, memory] requests exceed it's limits")


@pytest.mark.parametrize(("spec", "want"), [
    ({}, "spec.podSets must have at least one pod set"),
    ({"podSets": {}}, "spec.podSets must be a list, got dict"),
    ({"podSets": [1]}, "spec.podSets[0] must be a mapping, got int"),
    ({"podSets": [pod_set("a"), pod_set("a")]}, "spec.podSets has duplicate names ['a', 'a']"),
    ({"podSets": [pod_set("a"), pod_set(count=-1)]}, "spec.podSets[1].count must not be "
                                                     "negative"),
    ({"podSets": [pod_set(count="2")]}, "spec.podSets[0].count '2' is not an integer"),
    ({"podSets": [{"template": 1}]}, "spec.podSets[0].template must be a mapping, got int"),
    ({"podSets": [{"template": {"spec": 1}}]},
     "spec.podSets[0].template.spec must be a mapping, got int"),
    ({"podSets": [pod_set(containers=1)]},
     "spec.podSets[0].template.spec.containers must be a list, got int"),
    ({"podSets": [pod_set(containers=[1])]},
     "spec.podSets[0].template.spec.containers[0] must be a mapping, got int"),
    ({"podSets": [pod_set(containers=[{"resources": 1}])]},
     "spec.podSets[0].template.spec.containers[0].resources must be a mapping, got int"),
    ({"podSets": [pod_set(initContainers=1)]},
     "spec.podSets[0].template.spec.initContainers must be a list, got int"),
    ({"podSets": [pod_set(nodeSelector=1)]}, "nodeSelector must be a mapping, got int"),
    ({"podSets": [pod_set(affinity=1)]}, "affinity must be a mapping, got int"),
    ({"podSets": [pod_set(affinity={"nodeAffinity": 1})]},
     "nodeAffinity must be a mapping, got int"),
    ({"podSets": [pod_set(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": 1}})]},
     "required node affinity must be a mapping, got int"),
    ({"podSets": [pod_set(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": 1}}})]},
     "nodeSelectorTerms must be a list, got int"),
    ({"podSets": [pod_set(tolerations=1)]}, "tolerations must be a list, got int"),
    ({"podSets": [pod_set(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "Bad"}]}]}}})]},
     "selector operator 'Bad' is not one of ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', "
     "'NotIn']"),
    ({"podSets": [pod_set(containers=[container(requests={"cpu": "x"})])]},
     "spec.podSets[0].template.spec.containers[0].resources.requests.cpu: quantity 'x' is "
     "not a valid Kubernetes quantity"),
    ({"podSets": [pod_set(initContainers=[container(limits={"memory": "y"})])]},
     "spec.podSets[0].template.spec.initContainers[0].resources.limits.memory: quantity 'y' "
     "is not a valid Kubernetes quantity"),
    ({"podSets": [pod_set(overhead={"cpu": "z"})]},
     "spec.podSets[0].template.spec.overhead.cpu: quantity 'z' is not a valid Kubernetes "
     "quantity"),
    ({"podSets": [pod_set()], "priority": 2147483648},
     "spec.priority 2147483648 does not fit in a 32-bit integer"),
    ({"podSets": [pod_set()], "priority": "1"}, "spec.priority '1' is not an integer"),
    ({"podSets": [pod_set()], "priorityClassRef": {"group": "x", "kind": "Y", "name": "n"}},
     "spec.priorityClassRef: unknown group/kind x/Y"),
])
def test_workload_errors(spec: dict[str, Any], want: str) -> None:
    api = B2 if "priorityClassRef" in spec else B1
    assert _workload_error(spec, api=api) == want


def test_v1beta2_priority_class_ref() -> None:
    """v1beta2 ``priorityClassRef`` {group, kind, name}; the v1beta1 conversion maps
    ``kueue.x-k8s.io/workloadpriorityclass`` and ``scheduling.k8s.io/priorityclass``."""
    wpc = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "wpc"}
    pc = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "pc"}
    w = workload({"podSets": [pod_set()], "priorityClassRef": wpc}, api=B2)
    assert (w.priority, w.priority_class_name) == (101, "wpc")
    w = workload({"podSets": [pod_set()], "priorityClassRef": pc}, api=B2)
    assert (w.priority, w.priority_class_name) == (50, "pc")
    w = workload({"podSets": [pod_set()], "priorityClassRef": None}, api=B2)
    assert (w.priority, w.priority_class_name) == (0, "")
    assert _workload_error({"podSets": [pod_set()], "priorityClassRef": {}}, api=B2) == \
        "spec.priorityClassRef: unknown group/kind None/None"
    # v1beta2 has no priorityClassName: the field is not read.
    w = workload({"podSets": [pod_set()], "priorityClassName": "wpc",
                  "priorityClassSource": o.WPC_SOURCE}, api=B2)
    assert (w.priority, w.priority_class_name) == (0, "")
    assert _workload_error({"podSets": [pod_set()], "priorityClassRef": 1}, api=B2) == \
        "spec.priorityClassRef must be a mapping, got int"
    assert _workload_error({"podSets": [pod_set()], "priorityClassRef": {
        "group": "kueue.x-k8s.io", "kind": "PriorityClass"}}, api=B2) == \
        "spec.priorityClassRef: unknown group/kind kueue.x-k8s.io/PriorityClass"


@pytest.mark.parametrize("name", [None, ""])
def test_v1beta2_priority_class_ref_needs_a_name(name: Any) -> None:
    """``PriorityClassRef.name``: ``+required``, ``MinLength=1`` (apis/kueue/v1beta2
    workload_types.go): the apiserver refuses a reference without a name, it is not read
    as "no priority class"."""
    for ref in ({"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass"},
                {"group": "scheduling.k8s.io", "kind": "PriorityClass"}):
        spec = {"podSets": [pod_set()], "priorityClassRef": {**ref, "name": name}}
        assert _workload_error(spec, api=B2) == "spec.priorityClassRef.name: Required value"


def test_v1beta1_priority_class_needs_a_source_in_current_kueue() -> None:
    """Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec: a name without a source
    converts to no reference (priority 0); v0.7 resolved the name alone."""
    spec = {"podSets": [pod_set()], "priorityClassName": "pc"}
    w = workload(spec)
    assert (w.priority, w.priority_class_name) == (0, "pc")
    assert workload(spec, semantics=OLD).priority == 50
    w = workload({**spec, "priorityClassName": "wpc", "priorityClassSource": o.WPC_SOURCE})
    assert (w.priority, w.priority_class_name) == (101, "wpc")
    assert workload({**spec, "priority": 7}).priority == 7
    assert workload({**spec, "priority": None, "priorityClassSource": o.PC_SOURCE}).priority \
        == 50


def test_admission_and_status() -> None:
    status = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "flavors": {"cpu": "f"}, "resourceUsage": {"cpu": "2"}, "count": 2},
        {"flavors": {}}]},
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "R",
                        "message": "m", "lastTransitionTime": "2024-01-01T00:00:01Z"},
                       {"type": "Admitted"}, {"status": "False"}, "junk"],
        "reclaimablePods": [{"name": "main", "count": 1}, {"name": "x"}]}
    # a non-mapping condition is refused when typed (see below); check the rest first.
    ok = {**status, "conditions": status["conditions"][:3]}
    w = workload(status=ok)
    assert w.admission_cq == "cq"
    assert w.assignments == (o.PodSetAssignment("main", {"cpu": "f"}, {"cpu": 2000}, 2),
                             o.PodSetAssignment("main", {}, None, None))
    assert w.conditions == (o.Condition("QuotaReserved", "True", "R", "m", 1704067201.0),
                            o.Condition("Admitted", ""), o.Condition("", "False"))
    assert w.raw_conditions == tuple(ok["conditions"])
    assert w.reclaimable == {"main": 1, "x": 0}
    assert w.has_quota_reservation
    assert _workload_error(None, status=status) == "condition must be a mapping, got str"


@pytest.mark.parametrize(("status", "want"), [
    ({"admission": {"podSetAssignments": []}}, "status.admission.clusterQueue is required"),
    ({"admission": 1}, "status.admission must be a mapping, got int"),
    ({"admission": {"clusterQueue": "cq", "podSetAssignments": 1}},
     "status.admission.podSetAssignments must be a list, got int"),
    ({"admission": {"clusterQueue": "cq", "podSetAssignments": [1]}},
     "podSetAssignments[0] must be a mapping, got int"),
    ({"admission": {"clusterQueue": "cq", "podSetAssignments": [{"flavors": 1}]}},
     "flavors must be a mapping, got int"),
    ({"admission": {"clusterQueue": "cq", "podSetAssignments": [{"count": "1"}]}},
     "podSetAssignments[0].count '1' is not an integer"),
    ({"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {}, {"resourceUsage": {"cpu": "x"}}]}},
     "podSetAssignments[1].resourceUsage.cpu: quantity 'x' is not a valid Kubernetes "
     "quantity"),
    ({"conditions": 1}, "status.conditions must be a list, got int"),
    ({"reclaimablePods": 1}, "status.reclaimablePods must be a list, got int"),
    ({"reclaimablePods": [1]}, "reclaimablePods[] must be a mapping, got int"),
    ({"reclaimablePods": [{"name": "m", "count": "1"}]},
     "reclaimablePods.count '1' is not an integer"),
    (1, "status must be a mapping, got int"),
])
def test_status_errors(status: Any, want: str) -> None:
    """Kueue's Workload webhook requires admission.clusterQueue (validateAdmission)."""
    assert _workload_error(None, status=status) == want


def test_workload_spec_must_be_a_mapping() -> None:
    assert _workload_error([1]) == "spec must be a mapping, got list"
    err = pytest.raises(InputError, workload, [1]).value
    assert str(err) == "f.yaml, document 1: Workload team/w: spec must be a mapping, got list"


def test_spec_must_be_a_mapping() -> None:
    assert cq_error([1]) == "spec must be a mapping, got list"  # type: ignore[arg-type]
    err = pytest.raises(InputError, o.parse_resource_flavor,
                        raw("ResourceFlavor", "rf", spec="x")).value
    assert str(err) == "f.yaml, document 1: ResourceFlavor rf: spec must be a mapping, got str"
    err = pytest.raises(InputError, o.parse_cohort, raw("Cohort", "c", spec="x"), NOW).value
    assert str(err) == "f.yaml, document 1: Cohort c: spec must be a mapping, got str"
    err = pytest.raises(InputError, cq, {"queueingStrategy": "x"}).value
    assert str(err).startswith("f.yaml, document 1: ClusterQueue q: queueingStrategy 'x'")


def test_workload_metadata_errors() -> None:
    assert _workload_error(None, labels=1) == "metadata.labels must be a mapping, got int"
    assert _workload_error(None, api="kueue.x-k8s.io/v9").startswith(
        "apiVersion kueue.x-k8s.io/v9 is not served")


def test_has_quota_reservation() -> None:
    adm = {"clusterQueue": "cq", "podSetAssignments": []}
    assert not workload().has_quota_reservation
    assert workload(status={"admission": adm}).has_quota_reservation
    for conds, want in (([{"type": "QuotaReserved", "status": "False"}], False),
                        ([{"type": "QuotaReserved", "status": "True"}], True),
                        ([{"type": "Finished", "status": "True"}], False),
                        ([{"type": "Finished", "status": "False"}], True)):
        w = workload(status={"admission": adm, "conditions": conds})
        assert w.has_quota_reservation is want
    w = workload(status={"conditions": [{"type": "Evicted", "status": "True"}]})
    assert w.is_true("Evicted") and not w.is_true("Admitted")
    assert w.condition("Admitted") is None


def test_input_errors_from_the_priority_resolver_are_located() -> None:
    """An InputError raised while resolving a priority (the simulator resolves pod
    PriorityClasses with the cluster's admission) is completed with the Workload's file,
    kind and name; details it already carries are kept."""
    def unknown(name: str, source: str) -> int:
        raise InputError(f"no PriorityClass with name {name} was found")

    def located(name: str, source: str) -> int:
        raise InputError("bad class", Source("pc.yaml", 2), "PriorityClass", name)

    spec = {"podSets": [pod_set()], "priorityClassName": "pc",
            "priorityClassSource": o.PC_SOURCE}
    body = {"apiVersion": B1, "metadata": {"name": "w", "namespace": "t"}, "spec": spec}
    err = pytest.raises(InputError, o.parse_workload, RawObject("Workload", body, SRC),
                        unknown, NOW).value
    assert str(err) == "f.yaml, document 1: Workload t/w: no PriorityClass with name pc was found"
    err = pytest.raises(InputError, o.parse_workload, RawObject("Workload", body, SRC),
                        located, NOW).value
    assert str(err) == "pc.yaml, document 3: PriorityClass pc: bad class"
