"""ResourceQuota admission: hand-worked answers and upstream's tables.

Ported cases name their upstream test: ``TestPodEvaluatorMatchingScopes`` and
``TestPodEvaluatorUsage`` (pkg/quota/v1/evaluator/core/pods_test.go) and
``TestAdmitLimitedScopeWithCoverQuota`` / ``TestAdmitBelowBestEffortQuotaLimit`` /
``TestAdmitBelowTerminatingQuotaLimit`` (plugin/pkg/admission/resourcequota/admission_test.go).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.admission.goquantity import format_quantity
from kubepreempt.admission.quota import (
    QuotaAdmission,
    ScopeRequirement,
    matches_scope,
    parse_limited_resources,
    parse_resource_quota,
    pod_usage,
    quota_pod,
)
from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_pod

SRC = Source("test.yaml", 0)
CLASSES = (priority_class("high", 1000), priority_class("low", 100),
           priority_class("class1", 10), priority_class("fake-priority", 1),
           priority_class("cluster-services", 2000))


def quota(name: str, hard: dict[str, Any], ns: str = "default", scopes=None,
          selector=None) -> dict[str, Any]:
    spec: dict[str, Any] = {"hard": hard}
    if scopes:
        spec["scopes"] = scopes
    if selector:
        spec["scopeSelector"] = {"matchExpressions": selector}
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def pc_pod(name: str, pc: str | None = None, cpu: str | None = None, memory: str | None = None,
           **kw: Any) -> dict[str, Any]:
    spec = dict(kw.pop("spec_extra", {}) or {})
    if pc:
        spec["priorityClassName"] = pc
    return pod(name, cpu, memory, spec_extra=spec, **kw)


def typed(manifest: dict[str, Any]):
    c = cluster_of(*CLASSES)
    return parse_pod(manifest, SRC, c.priority.resolve)


def admit(objects: list[dict[str, Any]], new: dict[str, Any]) -> str | None:
    """Admission of ``new`` into the cluster built from ``objects`` (+ the classes)."""
    c = cluster_of(*CLASSES, node("n1", cpu="64", memory="256Gi"), *objects)
    p = parse_pod(new, SRC, c.priority.resolve)
    return c.quota.admit(p, [*c.pods.values(), *c.pending.values()], now=0.0)


# ---- the example and hand-worked messages -----------------------------------


def test_priority_scoped_pods_quota_refuses_the_second_high_pod() -> None:
    """high-pods allows one pod of class high; p1 is one: p2 (high) is refused with the
    apiserver's message, p3 (low) is outside the quota's scope and admitted."""
    high_pods = quota("high-pods", {"pods": "1"},
                      selector=[{"scopeName": "PriorityClass", "operator": "In",
                                 "values": ["high"]}])
    existing = [high_pods, pc_pod("p1", "high", "100m", node_name="n1")]
    assert admit(existing, pc_pod("p2", "high", "100m")) == (
        'pods "p2" is forbidden: exceeded quota: high-pods, requested: pods=1, used: pods=1, '
        "limited: pods=1")
    assert admit(existing, pc_pod("p3", "low", "100m")) is None
    # Without p1 the quota has room.
    assert admit([high_pods], pc_pod("p2", "high", "100m")) is None


def test_memory_and_cpu_messages_use_quantity_strings() -> None:
    """requests.memory 1Gi with 768Mi used: a 512Mi pod exceeds it (1280Mi > 1Gi); cpu 2
    with 1500m used: a 1-CPU pod exceeds it. Only the exceeded resources are printed."""
    q = quota("compute", {"requests.memory": "1Gi", "cpu": "2", "pods": "10"})
    existing = [q, pc_pod("a", None, "500m", "768Mi", node_name="n1"),
                pc_pod("b", None, "1", "1Mi", node_name="n1")]
    assert admit(existing, pc_pod("m", None, "100m", "512Mi")) == (
        'pods "m" is forbidden: exceeded quota: compute, requested: requests.memory=512Mi, '
        "used: requests.memory=769Mi, limited: requests.memory=1Gi")
    assert admit(existing, pc_pod("c", None, "1", "1Mi")) == (
        'pods "c" is forbidden: exceeded quota: compute, requested: cpu=1, used: cpu=1500m, '
        "limited: cpu=2")
    # Exactly at the limit is allowed (used + requested <= hard).
    assert admit(existing, pc_pod("ok", None, "500m", "255Mi")) is None


def test_two_exceeded_resources_are_listed_sorted() -> None:
    q = quota("q", {"requests.cpu": "1", "pods": "1"})
    existing = [q, pc_pod("a", None, "1", node_name="n1")]
    assert admit(existing, pc_pod("b", None, "1")) == (
        'pods "b" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=1, '
        "used: pods=1,requests.cpu=1, limited: pods=1,requests.cpu=1")


def test_constraints_must_specify() -> None:
    """A quota on limits.cpu makes every container state a cpu limit (Constraints)."""
    q = quota("lim", {"limits.cpu": "4", "requests.memory": "1Gi"})
    assert admit([q], pc_pod("x", None, "1")) == (
        'pods "x" is forbidden: failed quota: lim: must specify limits.cpu for: c; '
        "requests.memory for: c")
    assert admit([q], pc_pod("y", None, "1", "1Mi", limits={"cpu": "1"})) is None


def test_pending_pods_count_and_other_namespaces_do_not() -> None:
    q = quota("q", {"pods": "1"}, ns="team")
    assert admit([q, pc_pod("other", ns="default")], pc_pod("a", ns="team")) is None
    assert admit([q, pc_pod("waiting", ns="team")], pc_pod("a", ns="team")) == (
        'pods "a" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
        "limited: pods=1")


def test_terminal_and_deleted_pods_are_not_charged() -> None:
    """QuotaV1Pod: a terminal pod or one past its deletion grace period uses no ``pods``."""
    gone = typed(pc_pod("gone", meta_extra={"deletionTimestamp": "1970-01-01T00:00:10Z",
                                            "deletionGracePeriodSeconds": 30},
                        spec_extra={"terminationGracePeriodSeconds": 30}))
    assert quota_pod(gone, now=41.0).charged is False
    assert quota_pod(gone, now=40.0).charged is True
    assert pod_usage(quota_pod(gone, now=41.0)) == {"count/pods": 1}


# ---- scopes -----------------------------------------------------------------------


ALL_SCOPES = [ScopeRequirement("Terminating"), ScopeRequirement("NotTerminating"),
              ScopeRequirement("BestEffort"), ScopeRequirement("NotBestEffort"),
              ScopeRequirement("PriorityClass", "In", ("class1",)),
              ScopeRequirement("CrossNamespacePodAffinity")]
TERM, NOTTERM, BE, NOTBE, PC1, XNS = ALL_SCOPES


def _affinity(kind: str, required: bool, term: dict[str, Any]) -> dict[str, Any]:
    base = {"labelSelector": {}, "topologyKey": "zone", **term}
    if required:
        return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [base]}}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": base}]}}


DEADLINE = {"activeDeadlineSeconds": 30}
MATCHING_SCOPES = {  # TestPodEvaluatorMatchingScopes
    "EmptyPod": ({}, None, ALL_SCOPES, [NOTTERM, BE]),
    "PriorityClass": ({"priorityClassName": "class1"}, None, ALL_SCOPES, [NOTTERM, BE, PC1]),
    "NotBestEffort": ({}, {"requests": {"cpu": "1", "memory": "50M", "example.com/dongle": "1"},
                           "limits": {"cpu": "2", "memory": "100M",
                                      "example.com/dongle": "1"}},
                      ALL_SCOPES, [NOTTERM, NOTBE]),
    "Terminating": (DEADLINE, None, ALL_SCOPES, [TERM, BE]),
    "OnlyTerminating": (DEADLINE, None, [TERM], [TERM]),
    "CrossNamespaceRequiredAffinity": (
        {**DEADLINE, "affinity": _affinity("podAffinity", True, {
            "namespaces": ["ns1"], "namespaceSelector": {}})}, None, ALL_SCOPES,
        [TERM, BE, XNS]),
    "CrossNamespaceRequiredAffinityWithSlice": (
        {**DEADLINE, "affinity": _affinity("podAffinity", True, {"namespaces": ["ns1"]})},
        None, ALL_SCOPES, [TERM, BE, XNS]),
    "CrossNamespacePreferredAffinity": (
        {**DEADLINE, "affinity": _affinity("podAffinity", False, {
            "namespaces": ["ns2"], "namespaceSelector": {}})}, None, ALL_SCOPES,
        [TERM, BE, XNS]),
    "CrossNamespacePreferredAffinityWithSelector": (
        {**DEADLINE, "affinity": _affinity("podAffinity", False, {"namespaceSelector": {}})},
        None, ALL_SCOPES, [TERM, BE, XNS]),
    "CrossNamespacePreferredAntiAffinity": (
        {**DEADLINE, "affinity": _affinity("podAntiAffinity", False,
                                           {"namespaceSelector": {}})},
        None, ALL_SCOPES, [TERM, BE, XNS]),
    "CrossNamespaceRequiredAntiAffinity": (
        {**DEADLINE, "affinity": _affinity("podAntiAffinity", True, {"namespaces": ["ns3"]})},
        None, ALL_SCOPES, [TERM, BE, XNS]),
}


@pytest.mark.parametrize("case", MATCHING_SCOPES, ids=list(MATCHING_SCOPES))
def test_upstream_pod_evaluator_matching_scopes(case: str) -> None:
    spec, resources, selectors, want = MATCHING_SCOPES[case]
    manifest = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "resources": resources or {}}], **spec}}
    qp = quota_pod(typed(manifest))
    assert [s for s in selectors if matches_scope(s, qp)] == want


@pytest.mark.parametrize(("op", "values", "pc", "want"), [
    ("In", ("high",), "high", True), ("In", ("high",), "low", False),
    ("In", ("high",), "", False),
    ("NotIn", ("high",), "high", False), ("NotIn", ("high",), "low", True),
    ("NotIn", ("high",), "", True),  # a label selector's NotIn holds for a missing key
    ("Exists", (), "low", True), ("Exists", (), "", False),
    ("DoesNotExist", (), "", True), ("DoesNotExist", (), "low", False),
])
def test_priority_class_operators(op: str, values: tuple, pc: str, want: bool) -> None:
    qp = quota_pod(typed(pc_pod("p", pc or None)))
    assert matches_scope(ScopeRequirement("PriorityClass", op, values), qp) is want


def test_upstream_pod_evaluator_usage_init_containers_and_overhead() -> None:
    """TestPodEvaluatorUsage "init container CPU" / "pod overhead" style: the max of init
    containers against the sum of app containers, overhead on requests and on existing
    limits only."""
    manifest = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"initContainers": [{"name": "i", "resources": {
                    "requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}],
                         "containers": [{"name": "c", "resources": {
                             "requests": {"cpu": "500m", "memory": "1Gi"},
                             "limits": {"cpu": "1"}}}],
                         "overhead": {"cpu": "100m", "memory": "10Mi"}}}
    got = pod_usage(quota_pod(typed(manifest)))
    assert got == {"count/pods": 1, "pods": 1,
                   "cpu": Fraction(11, 10), "requests.cpu": Fraction(11, 10),
                   "limits.cpu": Fraction(21, 10),
                   "memory": 1024 ** 3 + 10 * 1024 ** 2,
                   "requests.memory": 1024 ** 3 + 10 * 1024 ** 2}


def test_upstream_pod_evaluator_usage_extended_and_hugepages() -> None:
    """TestPodEvaluatorUsage "extended resources" / "hugepages": requests.<name> for an
    extended resource (no bare name); hugepages-<size> and requests.hugepages-<size>."""
    manifest = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "resources": {
                    "requests": {"example.com/dongle": "3", "hugepages-1Gi": "1Gi"},
                    "limits": {"example.com/dongle": "3", "hugepages-1Gi": "1Gi"}}}]}}
    got = pod_usage(quota_pod(typed(manifest)))
    assert got == {"count/pods": 1, "pods": 1, "requests.example.com/dongle": 3,
                   "hugepages-1Gi": 1024 ** 3, "requests.hugepages-1Gi": 1024 ** 3}


def test_upstream_admit_below_terminating_quota_limit() -> None:
    """TestAdmitBelowTerminatingQuotaLimit: a pod with activeDeadlineSeconds is charged to
    the Terminating quota only; the NotTerminating one is full but does not apply."""
    term = quota("quota-terminating", {"cpu": "3", "memory": "100Gi", "pods": "5"},
                 ns="test", scopes=["Terminating"])
    nonterm = quota("quota-non-terminating", {"cpu": "3", "memory": "100Gi", "pods": "5"},
                    ns="test", scopes=["NotTerminating"])
    full = [pc_pod(f"x{i}", None, "100m", "1Gi", ns="test", node_name="n1")
            for i in range(5)]
    new = pc_pod("allowed-pod", None, "100m", "2Gi", ns="test",
                 spec_extra={"activeDeadlineSeconds": 60})
    assert admit([term, nonterm, *full], new) is None
    long_running = pc_pod("refused", None, "100m", "2Gi", ns="test")
    assert admit([term, nonterm, *full], long_running) == (
        'pods "refused" is forbidden: exceeded quota: quota-non-terminating, requested: '
        "pods=1, used: pods=5, limited: pods=5")


def test_upstream_admit_below_best_effort_quota_limit() -> None:
    """TestAdmitBelowBestEffortQuotaLimit / TestAdmitBestEffortQuotaLimitIgnoresBurstable:
    the BestEffort quota applies to a pod without requests and ignores a burstable one."""
    be = quota("quota-besteffort", {"pods": "5"}, ns="test", scopes=["BestEffort"])
    full = [pc_pod(f"x{i}", ns="test", node_name="n1") for i in range(5)]
    assert admit([be, *full], pc_pod("burstable", None, "100m", ns="test")) is None
    assert admit([be, *full], pc_pod("besteffort", ns="test")) == (
        'pods "besteffort" is forbidden: exceeded quota: quota-besteffort, requested: '
        "pods=1, used: pods=5, limited: pods=5")


# ---- limitedResources (AdmissionConfiguration) ------------------------------------------


def config(*limited: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AdmissionConfiguration",
            "plugins": [{"name": "ResourceQuota", "configuration": {
                "apiVersion": "apiserver.config.k8s.io/v1",
                "kind": "ResourceQuotaConfiguration", "limitedResources": list(limited)}}]}


PC_EXISTS = {"scopeName": "PriorityClass", "operator": "Exists"}
BE_EXISTS = {"scopeName": "BestEffort", "operator": "Exists"}
PC_CS = {"scopeName": "PriorityClass", "operator": "In", "values": ["cluster-services"]}
CS_QUOTA = quota("quota", {"pods": "10"}, ns="test", selector=[PC_CS])
BE_QUOTA = quota("quota-besteffort", {"pods": "5"}, ns="test", scopes=["BestEffort"])
LIMITED_SCOPE_CASES = {  # TestAdmitLimitedScopeWithCoverQuota, by description
    "Covering quota exists for configured limited scope PriorityClassNameExists.": (
        [quota("quota", {}, ns="test", selector=[PC_EXISTS])],
        [{"resource": "pods", "matchScopes": [PC_EXISTS]}],
        pc_pod("allowed-pod", "fake-priority", "3", "2Gi", ns="test"), None),
    "configured limited scope PriorityClassNameExists and limited cpu resource. No covering "
    "quota for cpu and pod admit fails.": (
        [quota("quota", {}, ns="test", selector=[PC_EXISTS])],
        [{"resource": "pods", "matchScopes": [PC_EXISTS], "matchContains": ["requests.cpu"]}],
        pc_pod("not-allowed-pod", "fake-priority", "3", "2Gi", ns="test"),
        'pods "not-allowed-pod" is forbidden: insufficient quota to consume: requests.cpu'),
    "Covering quota does not exist for configured limited scope PriorityClassNameExists.": (
        [], [{"resource": "pods", "matchScopes": [PC_EXISTS]}],
        pc_pod("not-allowed-pod", "fake-priority", "3", "2Gi", ns="test"),
        "insufficient quota to match these scopes: [{PriorityClass Exists []}]"),
    "Covering quota does not exist for configured limited scope resourceQuotaBestEffort": (
        [], [{"resource": "pods", "matchScopes": [BE_EXISTS]}],
        pc_pod("not-allowed-pod", "fake-priority", ns="test"),
        "insufficient quota to match these scopes: [{BestEffort Exists []}]"),
    "Covering quota exist for configured limited scope resourceQuotaBestEffort": (
        [BE_QUOTA], [{"resource": "pods", "matchScopes": [BE_EXISTS]}],
        pc_pod("allowed-pod", "fake-priority", ns="test"), None),
    "Two scopes,BestEffort and PriorityClassIN, in two LimitedResources. Neither matches "
    "pod. Pod allowed": (
        [], [{"resource": "pods", "matchScopes": [BE_EXISTS]},
             {"resource": "pods", "matchScopes": [PC_CS]}],
        pc_pod("allowed-pod", "fake-priority", "100m", "1Gi", ns="test"), None),
    "Two scopes,BestEffort and PriorityClassIN, in two LimitedResources. Only PriorityClass "
    "scope matches pod. Pod admit fails because covering quota is missing for PriorityClass "
    "scope": (
        [], [{"resource": "pods", "matchScopes": [BE_EXISTS]},
             {"resource": "pods", "matchScopes": [PC_CS]}],
        pc_pod("allowed-pod", "cluster-services", "100m", "1Gi", ns="test"),
        "insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]"),
    "Two scopes,BestEffort and PriorityClassIN, in two LimitedResources. Both the scopes "
    "matches pod. Pod admit fails because covering quota is missing for PriorityClass scope "
    "and BestEffort scope": (
        [], [{"resource": "pods", "matchScopes": [BE_EXISTS]},
             {"resource": "pods", "matchScopes": [PC_CS]}],
        pc_pod("allowed-pod", "cluster-services", ns="test"),
        "insufficient quota to match these scopes: [{BestEffort Exists []} "
        "{PriorityClass In [cluster-services]}]"),
    "Two scopes,BestEffort and PriorityClassIN, in two LimitedResources. Both the scopes "
    "matches pod. Quota available only for BestEffort scope. Pod admit fails because "
    "covering quota is missing for PriorityClass scope": (
        [BE_QUOTA], [{"resource": "pods", "matchScopes": [BE_EXISTS]},
                     {"resource": "pods", "matchScopes": [PC_CS]}],
        pc_pod("allowed-pod", "cluster-services", ns="test"),
        "insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]"),
    "Two scopes,BestEffort and PriorityClassIN, in two LimitedResources. Both the scopes "
    "matches pod. Quota available only for both the scopes. Pod admit success. No Error": (
        [BE_QUOTA, CS_QUOTA], [{"resource": "pods", "matchScopes": [BE_EXISTS]},
                               {"resource": "pods", "matchScopes": [PC_CS]}],
        pc_pod("allowed-pod", "cluster-services", ns="test"), None),
    "Pod allowed with priorityclass if limited scope PriorityClassNameExists not "
    "configured.": (
        [], [], pc_pod("allowed-pod", "fake-priority", "3", "2Gi", ns="test"), None),
}


@pytest.mark.parametrize("case", LIMITED_SCOPE_CASES, ids=range(len(LIMITED_SCOPE_CASES)))
def test_upstream_admit_limited_scope_with_cover_quota(case: str) -> None:
    quotas, limited, new, want = LIMITED_SCOPE_CASES[case]
    assert admit([*quotas, config(*limited)], new) == want


# ---- quantities and bad input ----------------------------------------------------------


@pytest.mark.parametrize(("value", "binary", "text"), [
    (Fraction(1), False, "1"), (Fraction(1, 2), False, "500m"), (Fraction(3, 2), False, "1500m"),
    (Fraction(2000), False, "2k"), (Fraction(1500), False, "1500"),
    (Fraction(1024 ** 3), True, "1Gi"), (Fraction(1536 * 1024 ** 2), True, "1536Mi"),
    (Fraction(100), True, "100"),
    # BinarySI keeps a whole value >= 1024 in base 1024 even with no 1024 factor.
    (Fraction(500 * 10 ** 6), True, "500000000"), (Fraction(500 * 10 ** 6), False, "500M"),
    (Fraction(0), True, "0"),
])
def test_quantity_strings(value: Fraction, binary: bool, text: str) -> None:
    """``Quantity.String()`` (CanonicalizeBytes): BinarySI below 1024 or inexact prints as
    DecimalSI; decimal exponents are multiples of three."""
    assert format_quantity(value, binary) == text


@pytest.mark.parametrize(("spec", "message"), [
    ({"hard": {"pods": "lots"}}, "spec.hard.pods: quantity 'lots' is not a valid"),
    ({"hard": {"pods": "-1"}}, "spec.hard.pods: must be greater than or equal to 0"),
    ({"hard": {"pods": "1"}, "scopes": ["Sometimes"]}, "unsupported scope 'Sometimes'"),
    ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "Within", "values": ["a"]}]}},
     "unsupported operator 'Within'"),
    ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In"}]}},
     "must be at least one value when operator is In"),
    ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "Exists", "values": ["a"]}]}},
     "may not be specified when operator is Exists"),
    ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "BestEffort", "operator": "DoesNotExist"}]}}, "must be 'Exists'"),
    ({"hard": {"cpu": "1"}, "scopes": ["BestEffort"]},
     "spec.hard.cpu: unsupported scope applied to resource"),
    ({"hard": {"pods": "1"}, "scopes": ["Terminating", "NotTerminating"]},
     "conflicting scopes: Terminating and NotTerminating"),
])
def test_malformed_quota_is_one_line_input_error(spec: dict, message: str) -> None:
    raw = {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "team"},
           "spec": spec}
    with pytest.raises(InputError) as err:
        parse_resource_quota(raw, SRC)
    text = str(err.value)
    assert message in text and "ResourceQuota team/q" in text and "\n" not in text


def test_malformed_admission_configuration() -> None:
    bad = config({"resource": "pods", "matchScopes": [{"scopeName": "PriorityClass",
                                                       "operator": "In"}]})
    with pytest.raises(InputError, match="limitedResources\\[0\\].matchScopes\\[0\\].values"):
        parse_limited_resources(bad, SRC)
    with pytest.raises(InputError, match="resource must be a non-empty string"):
        parse_limited_resources(config({"matchContains": ["cpu"]}), SRC)


def test_duplicate_quota_and_cli_exit_2(tmp_path) -> None:
    from kubepreempt.cli import main
    q = quota("q", {"pods": "1"})
    with pytest.raises(InputError, match="duplicate object"):
        QuotaAdmission.from_documents(docs_of(q, q))
    import yaml
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump_all([node("n1"), quota("q", {"pods": "x"})]))
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(pc_pod("p")))
    assert main(["schedule", str(f), "-f", str(new)]) == 2


def test_object_count_admission_and_limited_resources() -> None:
    """count/jobs.batch: an unscoped quota applies, a scoped one never does
    (MatchesNoScopeFunc); limitedResources for batch/jobs demands a covering quota."""
    adm = QuotaAdmission.from_documents(docs_of(
        quota("jobs", {"count/jobs.batch": "2"}, ns="team"),
        quota("scoped", {"pods": "1"}, ns="team", scopes=["BestEffort"])))
    assert adm.admit_object("Job", "team", "j3", 1) is None
    assert adm.admit_object("Job", "team", "j3", 2) == (
        'jobs.batch "j3" is forbidden: exceeded quota: jobs, requested: count/jobs.batch=1, '
        "used: count/jobs.batch=2, limited: count/jobs.batch=2")
    assert adm.admit_object("Deployment", "team", "d", 5) is None  # no quota on it
    adm.limited.append(parse_limited_resources(config(
        {"apiGroup": "apps", "resource": "deployments",
         "matchContains": ["count/deployments.apps"]}), SRC)[0])
    assert adm.admit_object("Deployment", "team", "d", 0) == (
        'deployments.apps "d" is forbidden: insufficient quota to consume: '
        "count/deployments.apps")


# ---- what the pod looks like when quota admission sees it ----------------------------


def test_global_default_class_name_is_written_before_quota_matches() -> None:
    """plugin/pkg/admission/priority/admission.go ``admitPod``: a pod created without
    ``priorityClassName`` gets the globalDefault class's name (``getDefaultPriority``)
    before the ResourceQuota plugin runs, so ``PriorityClass In [default]`` limits it and
    ``DoesNotExist`` does not."""
    default = priority_class("default", 5, global_default=True)
    in_default = quota("in-default", {"pods": "1"},
                       selector=[{"scopeName": "PriorityClass", "operator": "In",
                                  "values": ["default"]}])
    c = cluster_of(*CLASSES, default, node("n1", cpu="64", memory="256Gi"), in_default,
                   pc_pod("first", None, "100m", node_name="n1"))
    new = parse_pod(pc_pod("second", None, "100m"), SRC, c.priority.resolve)
    assert c.quota.admit(new, list(c.pods.values()), now=0.0) == (
        'pods "second" is forbidden: exceeded quota: in-default, requested: pods=1, '
        "used: pods=1, limited: pods=1")
    classless = quota("classless", {"pods": "0"},
                      selector=[{"scopeName": "PriorityClass", "operator": "DoesNotExist"}])
    c = cluster_of(*CLASSES, default, node("n1", cpu="64", memory="256Gi"), classless)
    new = parse_pod(pc_pod("x", None, "100m"), SRC, c.priority.resolve)
    assert c.quota.admit(new, [], now=0.0) is None
    # Without a globalDefault class the pod keeps no class: DoesNotExist limits it.
    assert admit([classless], pc_pod("y", None, "100m")) == (
        'pods "y" is forbidden: exceeded quota: classless, requested: pods=1, used: pods=0, '
        "limited: pods=0")


def test_message_quantities_keep_each_figure_s_format() -> None:
    """``CheckRequest`` prints ``requested`` from the pod's usage (``PodRequests`` keeps
    the container's ``500M``), ``used`` from ``status.used`` (``CalculateUsageStats``
    starts from a DecimalSI zero and ``Quantity.Add`` takes the first pod's format: 1G)
    and ``limited`` from ``spec.hard`` (1Gi). 500M + 1G > 1Gi (1073741824)."""
    q = quota("mem", {"requests.memory": "1Gi"})
    existing = [q, pc_pod("a", None, "100m", "500M", node_name="n1"),
                pc_pod("b", None, "100m", "500M", node_name="n1")]
    assert admit(existing, pc_pod("c", None, "100m", "500M")) == (
        'pods "c" is forbidden: exceeded quota: mem, requested: requests.memory=500M, '
        "used: requests.memory=1G, limited: requests.memory=1Gi")


def test_used_binary_sum_reads_back_decimal_when_it_has_no_binary_suffix() -> None:
    """The controller stores ``status.used`` as text: 1Gi + 1000M (BinarySI, not a whole
    number of Ki) prints ``2073741824``, which parses back DecimalSI: ``2073741824``
    again (no trailing zeros to fold); 600Mi + 424Mi prints ``1Gi``."""
    q = quota("mem", {"requests.memory": "2Gi"})
    existing = [q, pc_pod("a", None, "100m", "1Gi", node_name="n1"),
                pc_pod("b", None, "100m", "1000M", node_name="n1")]
    assert admit(existing, pc_pod("c", None, "100m", "100Mi")) == (
        'pods "c" is forbidden: exceeded quota: mem, requested: requests.memory=100Mi, '
        "used: requests.memory=2073741824, limited: requests.memory=2Gi")
    existing = [q, pc_pod("a", None, "100m", "600Mi", node_name="n1"),
                pc_pod("b", None, "100m", "424Mi", node_name="n1")]
    assert admit(existing, pc_pod("c", None, "100m", "1500M")) == (
        'pods "c" is forbidden: exceeded quota: mem, requested: requests.memory=1500M, '
        "used: requests.memory=1Gi, limited: requests.memory=2Gi")


def test_finished_pods_count_for_count_pods_only() -> None:
    """``PodUsageFunc`` charges ``count/pods`` for every pod; ``QuotaV1Pod`` is false for
    a Succeeded/Failed pod, so it is not charged ``pods`` or requests. The scheduler never
    sees it (it occupies no node)."""
    done = pc_pod("done", None, "1", node_name="n1", status_extra={"phase": "Succeeded"})
    running = pc_pod("running", None, "1", node_name="n1")
    count = quota("count", {"count/pods": "2"})
    assert admit([count, done, running], pc_pod("new", None, "1")) == (
        'pods "new" is forbidden: exceeded quota: count, requested: count/pods=1, '
        "used: count/pods=2, limited: count/pods=2")
    assert admit([quota("pods", {"pods": "2", "requests.cpu": "2"}), done, running],
                 pc_pod("new", None, "1")) is None
    c = cluster_of(node("n1", cpu="64", memory="256Gi"), done, running)
    assert list(c.pods) == ["default/running"]
    assert [p.name for p in c.quota.finished] == ["done"]
