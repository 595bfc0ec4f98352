"""ResourceQuota admission rules that mutation testing found unguarded, each with the
answer worked out from upstream:

* ``pkg/quota/v1/evaluator/core/pods.go``: ``MatchingResources``,
  ``isExtendedResourceNameForQuota``, ``podComputeUsageHelper``, ``isTerminating``,
  ``usesCrossNamespacePodAffinity``, ``podEvaluator.Constraints``;
* ``pkg/apis/core/v1/helper``: ``IsNativeResource`` (no ``/`` or a ``kubernetes.io/``
  prefix);
* ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
  (``CheckRequest``): ``filterLimitedResourcesByGroupResource``, ``limitedByDefault``
  (``v.Sign() == 1``), ``insufficient quota to consume`` / ``to match these scopes``, the
  per-quota loop that skips a quota with nothing requested;
* ``pkg/quota/v1/resources.go`` ``CalculateUsage`` with ``Quantity.Add`` (the sum takes
  the first added quantity's format) and the status written as text and read back.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from builders import cluster_of, docs_of, node, pod

from kubepreempt.admission.quota import (
    QuotaAdmission,
    matching_resources,
    parse_limited_resources,
    parse_resource_quota,
    quota_pod,
)
from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_pod

SRC = Source("test.yaml", 0)
AT = "test.yaml, document 1: "  # how an error names SRC


def quota(name: str, hard: dict[str, Any], ns: str | None = "default", scopes=None,
          selector=None) -> dict[str, Any]:
    spec: dict[str, Any] = {"hard": hard}
    if scopes:
        spec["scopes"] = scopes
    if selector:
        spec["scopeSelector"] = {"matchExpressions": selector}
    meta: dict[str, Any] = {"name": name}
    if ns is not None:
        meta["namespace"] = ns
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta, "spec": spec}


def config(*limited: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AdmissionConfiguration",
            "plugins": [{"name": "ResourceQuota", "configuration": {
                "kind": "ResourceQuotaConfiguration", "limitedResources": list(limited)}}]}


def admit(objects: list[dict[str, Any]], new: dict[str, Any], now: float = 0.0) -> str | None:
    c = cluster_of(node("n1", cpu="64", memory="256Gi"), *objects)
    p = parse_pod(new, SRC, c.priority.resolve)
    return c.quota.admit(p, [*c.pods.values(), *c.pending.values()], now=now)


def two_containers(name: str, first: dict[str, Any], second: dict[str, Any] | None,
                   **kw: Any) -> dict[str, Any]:
    """A pod whose containers ``a`` and ``b`` have the given ``resources`` (``None``: the
    container states no resources at all)."""
    out = pod(name, **kw)
    b: dict[str, Any] = {"name": "b", "image": "x"}
    if second is not None:
        b["resources"] = second
    out["spec"]["containers"] = [{"name": "a", "image": "x", "resources": first}, b]
    return out


# ---- which quota resources the pod evaluator tracks ----------------------------------


def test_matching_resources_native_and_extended_names() -> None:
    """``MatchingResources``: the podResources set, the ``hugepages-`` prefixes, and
    ``requests.<name>`` only for a non-native name (``isExtendedResourceNameForQuota``);
    ``IsNativeResource`` counts ``kubernetes.io/`` names as native, so
    ``requests.kubernetes.io/foo`` is not tracked, and ``limits.`` of an extended
    resource is not either (overcommit is not supported for them)."""
    names = ["requests.example.com/gpu", "example.com/gpu", "requests.kubernetes.io/foo",
             "hugepages-2Mi", "requests.hugepages-1Gi", "services", "count/pods",
             "limits.example.com/gpu"]
    assert sorted(matching_resources(names)) == [
        "count/pods", "hugepages-2Mi", "requests.example.com/gpu", "requests.hugepages-1Gi"]


def test_ephemeral_storage_is_charged() -> None:
    """``podComputeUsageHelper`` charges ``ephemeral-storage`` and
    ``requests.ephemeral-storage`` from the pod's requests."""
    q = quota("disk", {"requests.ephemeral-storage": "1Gi"})
    assert admit([q], pod("p", ephemeral_storage="2Gi")) == (
        'pods "p" is forbidden: exceeded quota: disk, requested: '
        "requests.ephemeral-storage=2Gi, used: requests.ephemeral-storage=0, "
        "limited: requests.ephemeral-storage=1Gi")


def test_active_deadline_zero_is_terminating() -> None:
    """``isTerminating``: ``activeDeadlineSeconds >= 0``, so 0 is in the Terminating
    scope and 1 too; a pod without the field is not."""
    q = quota("t", {"pods": "0"}, scopes=["Terminating"])
    for deadline in (0, 1):
        msg = admit([q], pod("p", spec_extra={"activeDeadlineSeconds": deadline}))
        assert msg is not None and "exceeded quota: t" in msg
    assert admit([q], pod("p")) is None


def test_cross_namespace_scope_needs_namespaces_or_a_selector() -> None:
    """``crossNamespacePodAffinityTerm``: ``len(term.Namespaces) != 0 ||
    term.NamespaceSelector != nil``; a term with neither is same-namespace."""
    q = quota("x", {"pods": "0"}, scopes=["CrossNamespacePodAffinity"])
    term = {"labelSelector": {"matchLabels": {"app": "a"}},
            "topologyKey": "kubernetes.io/hostname"}
    same_ns = {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
    assert admit([q], pod("p", spec_extra=same_ns)) is None
    cross = {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{**term, "namespaces": ["o"]}]}}}
    assert "exceeded quota: x" in (admit([q], pod("p", spec_extra=cross)) or "")


# ---- formats of the printed figures --------------------------------------------------


def test_pod_level_limits_and_their_format() -> None:
    """``PodLimits`` takes pod-level ``spec.resources.limits`` for supported resources
    (cpu, memory) over the containers' sum; ``requested`` prints in the format the pod
    wrote the figure in, here the pod-level ``2Gi``."""
    q = quota("lim", {"limits.memory": "1Gi"})
    new = pod("p", "100m", "100M", limits={"memory": "200M"},
              spec_extra={"resources": {"limits": {"memory": "2Gi"}}})
    assert admit([q], new) == (
        'pods "p" is forbidden: exceeded quota: lim, requested: limits.memory=2Gi, '
        "used: limits.memory=0, limited: limits.memory=1Gi")


def test_init_container_format_is_kept() -> None:
    """``PodRequests`` takes the max of the init containers and the sum of the
    containers; ephemeral storage stated only by an init container (container ``b``
    states no resources) prints in its ``BinarySI`` format."""
    q = quota("disk", {"requests.ephemeral-storage": "1Gi"})
    new = two_containers("p", {"requests": {"cpu": "100m"}}, None,
                         spec_extra={"initContainers": [
                             {"name": "i", "image": "x",
                              "resources": {"requests": {"ephemeral-storage": "2Gi"}}}]})
    assert admit([q], new) == (
        'pods "p" is forbidden: exceeded quota: disk, requested: '
        "requests.ephemeral-storage=2Gi, used: requests.ephemeral-storage=0, "
        "limited: requests.ephemeral-storage=1Gi")


def test_limits_print_in_the_written_format() -> None:
    """``limits.memory`` requested as ``512Mi`` prints ``512Mi`` (the limit keeps its
    BinarySI format), the used sum of a decimal-written ``1073741824`` prints decimal:
    ``CalculateUsage`` adds to a DecimalSI zero, which takes the added quantity's format,
    and the status text ``1073741824`` reads back DecimalSI."""
    q = quota("lim", {"limits.memory": "1Gi"})
    existing = pod("a", "100m", "1073741824", limits={"memory": "1073741824"},
                   node_name="n1")
    assert admit([q, existing], pod("p", "100m", "1Mi", limits={"memory": "512Mi"})) == (
        'pods "p" is forbidden: exceeded quota: lim, requested: limits.memory=512Mi, '
        "used: limits.memory=1073741824, limited: limits.memory=1Gi")


def test_used_sum_takes_the_first_pods_format() -> None:
    """``Quantity.Add`` sets the format only when adding to zero: ``1Gi`` then ``1024k``
    sums to 1074765824 in BinarySI, printed ``1049576Ki``."""
    q = quota("mem", {"requests.memory": "2Gi"})
    existing = [pod("a", "100m", "1Gi", node_name="n1"),
                pod("b", "100m", "1024k", node_name="n1")]
    assert admit([q, *existing], pod("p", "100m", "1Gi")) == (
        'pods "p" is forbidden: exceeded quota: mem, requested: requests.memory=1Gi, '
        "used: requests.memory=1049576Ki, limited: requests.memory=2Gi")


def test_usage_skips_pods_outside_the_scope() -> None:
    """``CalculateUsageStats`` sums only the pods matching every scope; a pod outside the
    scope listed first does not end the sum."""
    q = quota("t", {"pods": "1"}, scopes=["Terminating"])
    existing = [pod("plain", "100m", node_name="n1"),
                pod("term", "100m", spec_extra={"activeDeadlineSeconds": 60})]
    assert admit([q, *existing], pod("p", "100m", spec_extra={"activeDeadlineSeconds": 5})) == (
        'pods "p" is forbidden: exceeded quota: t, requested: pods=1, used: pods=1, '
        "limited: pods=1")


def test_a_deleting_pod_past_its_grace_period_is_not_charged() -> None:
    """``QuotaV1Pod``: an existing pod whose ``deletionTimestamp +
    deletionGracePeriodSeconds`` has passed is no longer charged ``pods``, judged at the
    admission time."""
    q = quota("one", {"pods": "1"})
    deleting = pod("old", "100m", node_name="n1",
                   meta_extra={"deletionTimestamp": "2026-01-01T00:00:00Z",
                               "deletionGracePeriodSeconds": 30})
    c = cluster_of(node("n1", cpu="64", memory="256Gi"), q, deleting)
    existing = list(c.pods.values())
    old = existing[0]
    assert old.deletion_timestamp is not None
    new = parse_pod(pod("p", "100m"), SRC, c.priority.resolve)
    assert c.quota.admit(new, existing, now=old.deletion_timestamp + 31) is None
    assert "exceeded quota: one" in (
        c.quota.admit(new, existing, now=old.deletion_timestamp + 30) or "")


def test_a_quota_with_nothing_requested_is_skipped_not_the_last() -> None:
    """``CheckRequest`` checks every interesting quota; one limiting only a resource the
    pod does not request (an extended resource) is passed over, and the next one still
    refuses."""
    gpu = quota("a-gpu", {"requests.example.com/gpu": "1"})
    pods = quota("b-pods", {"pods": "0"})
    assert admit([gpu, pods], pod("p", "100m")) == (
        'pods "p" is forbidden: exceeded quota: b-pods, requested: pods=1, used: pods=0, '
        "limited: pods=0")


def test_constraints_list_every_container() -> None:
    """``Constraints``: the containers missing a required resource are listed sorted and
    joined by commas."""
    q = quota("lim", {"limits.cpu": "4"})
    assert admit([q], two_containers("p", {}, {})) == (
        'pods "p" is forbidden: failed quota: lim: must specify limits.cpu for: a,b')


# ---- limitedResources --------------------------------------------------------------


def test_limited_resources_only_for_their_group_resource() -> None:
    """``filterLimitedResourcesByGroupResource``: an entry for another resource
    (``services``) does not limit pods, and the pods entry after it still does;
    ``limitedByDefault`` lists the consumed names sorted and comma-joined."""
    cfg = config({"resource": "services", "matchContains": ["pods"]},
                 {"resource": "pods", "matchContains": ["requests.cpu", "requests.memory"]})
    assert admit([cfg], pod("p", "500m", "1Mi")) == (
        'pods "p" is forbidden: insufficient quota to consume: '
        "requests.cpu,requests.memory")


def test_limited_resources_need_positive_usage() -> None:
    """``limitedByDefault`` considers only resources with ``v.Sign() == 1``: a zero cpu
    request needs no covering quota, half a CPU does."""
    cfg = config({"resource": "pods", "matchContains": ["requests.cpu"]})
    assert admit([cfg], pod("zero", "0", "1Mi")) is None
    assert admit([cfg], pod("half", "500m")) == (
        'pods "half" is forbidden: insufficient quota to consume: requests.cpu')


def test_uncovered_scopes_print_as_go_structs() -> None:
    """``insufficient quota to match these scopes: %v`` of the
    ``ScopedResourceSelectorRequirement`` list: values space-separated in brackets."""
    cfg = config({"resource": "pods", "matchScopes": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high", "low"]}]})
    c = cluster_of(node("n1"), cfg, {"apiVersion": "scheduling.k8s.io/v1",
                                     "kind": "PriorityClass", "metadata": {"name": "high"},
                                     "value": 10})
    p = parse_pod(pod("p", "100m", spec_extra={"priorityClassName": "high"}), SRC,
                  c.priority.resolve)
    assert c.quota.admit(p, [], now=0.0) == (
        "insufficient quota to match these scopes: [{PriorityClass In [high low]}]")


def test_object_count_limited_resources_match_group_and_resource() -> None:
    """Object-count admission: a limitedResources entry applies only when both its
    ``apiGroup`` and ``resource`` are the object's; a covering unscoped quota satisfies
    it; a namespace without quotas and a non-workload kind are let through."""
    adm = QuotaAdmission.from_documents(docs_of(
        quota("jobs", {"count/jobs.batch": "5"}, ns="team"),
        config({"apiGroup": "", "resource": "jobs", "matchContains": ["count/jobs.batch"]},
               {"apiGroup": "batch", "resource": "cronjobs",
                "matchContains": ["count/cronjobs.batch"]})))
    assert adm.admit_object("Job", "other", "j", 0) is None
    assert adm.admit_object("Service", "team", "s", 0) is None
    assert adm.admit_object("CronJob", "team", "c", 0) == (
        'cronjobs.batch "c" is forbidden: insufficient quota to consume: '
        "count/cronjobs.batch")
    adm.limited.append(parse_limited_resources(config(
        {"apiGroup": "batch", "resource": "jobs", "matchContains": ["count/jobs.batch"]}),
        SRC)[0])
    assert adm.admit_object("Job", "team", "j", 4) is None


def test_object_count_used_prints_decimal() -> None:
    """The object count's ``used`` is a DecimalSI sum: 1024 jobs print ``1024`` even
    when ``hard`` is written ``1Ki`` (printed in its own format)."""
    adm = QuotaAdmission.from_documents(docs_of(quota("jobs", {"count/jobs.batch": "1Ki"})))
    assert adm.admit_object("Job", "default", "j", 1024) == (
        'jobs.batch "j" is forbidden: exceeded quota: jobs, requested: count/jobs.batch=1, '
        "used: count/jobs.batch=1024, limited: count/jobs.batch=1Ki")


def test_used_lists_every_hard_resource() -> None:
    """``status.used`` has every hard resource, zero when unused."""
    q = parse_resource_quota(quota("q", {"pods": "5", "requests.cpu": "4", "services": "1"}),
                             SRC)
    c = cluster_of(node("n1", cpu="8"), pod("a", "1500m", node_name="n1"),
                   pod("other", "1", ns="elsewhere", node_name="n1"))
    pods = [quota_pod(p) for p in c.pods.values()]
    assert QuotaAdmission().used(q, pods) == {
        "pods": Fraction(1), "requests.cpu": Fraction(3, 2), "services": Fraction(0)}


def test_quota_without_namespace_is_in_default() -> None:
    """A quota written without ``metadata.namespace`` is created in ``default``."""
    assert admit([quota("q", {"pods": "0"}, ns=None)], pod("p")) == (
        'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, '
        "limited: pods=0")


# ---- bad input: the whole one-line message ---------------------------------------


@pytest.mark.parametrize(("raw", "message"), [
    ({"kind": "ResourceQuota", "metadata": {}, "spec": {}},
     AT + "ResourceQuota: object has no metadata.name"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": []},
     AT + "ResourceQuota default/q: spec must be a mapping, got list"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": []}},
     AT + "ResourceQuota default/q: spec.hard must be a mapping, got list"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopes": "BestEffort"}},
     AT + "ResourceQuota default/q: spec.scopes must be a list, got str"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": []}},
     AT + "ResourceQuota default/q: spec.scopeSelector must be a mapping, got list"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": {}}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions must be a "
     "list, got dict"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "Someday", "operator": "Exists"}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].scopeName: "
     "unsupported scope 'Someday' (one of Terminating, NotTerminating, BestEffort, "
     "NotBestEffort, PriorityClass, CrossNamespacePodAffinity)"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "PriorityClass", "operator": "Near"}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].operator: "
     "unsupported operator 'Near' (one of In, NotIn, Exists, DoesNotExist)"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "PriorityClass", "operator": "In", "values": "a"}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].values "
     "must be a list, got str"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "PriorityClass", "operator": "In", "values": [1]}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].values "
     "must be strings"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "CrossNamespacePodAffinity", "operator": "DoesNotExist"}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].operator: "
     "must be 'Exists' when scope is any of Terminating, NotTerminating, BestEffort, "
     "NotBestEffort or CrossNamespacePodAffinity"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "PriorityClass", "operator": "NotIn"}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].values: "
     "must be at least one value when operator is NotIn"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
          {"scopeName": "PriorityClass", "operator": "DoesNotExist", "values": ["a"]}]}}},
     AT + "ResourceQuota default/q: spec.scopeSelector.matchExpressions[0].values: "
     "may not be specified when operator is DoesNotExist"),
    ({"kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"services": "1"}, "scopes": ["Terminating"]}},
     AT + "ResourceQuota default/q: spec.hard.services: unsupported scope applied "
     "to resource (scope Terminating)"),
])
def test_resource_quota_input_errors(raw: dict[str, Any], message: str) -> None:
    """``ValidateResourceQuotaSpec`` / ``ValidateScopedResourceSelectorRequirement``
    refusals, each one line naming the file, the object and the field; a scope that
    is not PriorityClass takes only ``Exists``, and Terminating applies only to pods and
    compute resources (``IsResourceQuotaScopeValidForResource``)."""
    with pytest.raises(InputError) as err:
        parse_resource_quota(raw, SRC)
    assert str(err.value) == message


def test_scope_valid_for_unscoped_kinds() -> None:
    """``IsResourceQuotaScopeValidForResource``: PriorityClass applies to pods and compute
    resources, so a PriorityClass-scoped quota on ``limits.memory`` is valid."""
    raw = quota("q", {"limits.memory": "1Gi", "pods": "2"},
                selector=[{"scopeName": "PriorityClass", "operator": "Exists"}])
    assert parse_resource_quota(raw, SRC).selectors[0].scope_name == "PriorityClass"


CFG = {"kind": "AdmissionConfiguration", "metadata": {"name": "adm"}}


@pytest.mark.parametrize(("raw", "message"), [
    ({**CFG, "plugins": {}}, AT + "AdmissionConfiguration adm: plugins must be a "
     "list, got dict"),
    ({**CFG, "plugins": ["x"]}, AT + "AdmissionConfiguration adm: plugins[0] must be "
     "a mapping, got str"),
    ({**CFG, "plugins": [{"name": "ResourceQuota", "path": "/etc/quota.yaml"}]},
     AT + "AdmissionConfiguration adm: plugins[0].path: a configuration file path "
     "is not read; give the configuration inline"),
    ({**CFG, "plugins": [{"name": "ResourceQuota", "configuration": []}]},
     AT + "AdmissionConfiguration adm: plugins[0].configuration must be a mapping, "
     "got list"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": {}},
     AT + "ResourceQuotaConfiguration: limitedResources must be a list, got dict"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": ["pods"]},
     AT + "ResourceQuotaConfiguration: limitedResources[0] must be a mapping, "
     "got str"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": [{"resource": 5}]},
     AT + "ResourceQuotaConfiguration: limitedResources[0].resource must be a "
     "non-empty string"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": [
        {"resource": "pods", "matchContains": "cpu"}]},
     AT + "ResourceQuotaConfiguration: limitedResources[0].matchContains must be a "
     "list, got str"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": [
        {"resource": "pods", "matchContains": [1]}]},
     AT + "ResourceQuotaConfiguration: limitedResources[0].matchContains must be "
     "strings"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": [
        {"resource": "pods", "matchScopes": {}}]},
     AT + "ResourceQuotaConfiguration: limitedResources[0].matchScopes must be a "
     "list, got dict"),
    ({"kind": "ResourceQuotaConfiguration", "limitedResources": [
        {"resource": "pods", "matchScopes": ["BestEffort"]}]},
     AT + "ResourceQuotaConfiguration: limitedResources[0].matchScopes[0] must be a "
     "mapping, got str"),
])
def test_admission_configuration_input_errors(raw: dict[str, Any], message: str) -> None:
    """Malformed plugin configuration: one line naming the file, the kind, the object
    (when named) and the field."""
    with pytest.raises(InputError) as err:
        parse_limited_resources(raw, SRC)
    assert str(err.value) == message


def test_admission_configuration_picks_the_resource_quota_plugin() -> None:
    """Other plugins are skipped (not the end of the list); a bare
    ``ResourceQuotaConfiguration`` is read as the configuration itself; a plugin with
    both a path and an inline configuration uses the inline one."""
    raw = {"kind": "AdmissionConfiguration", "plugins": [
        {"name": "PodSecurity", "configuration": {}},
        {"name": "ResourceQuota", "path": "/etc/q.yaml", "configuration": {
            "limitedResources": [{"resource": "pods", "matchContains": ["cpu"]}]}}]}
    assert [lr.match_contains for lr in parse_limited_resources(raw, SRC)] == [("cpu",)]
    bare = {"kind": "ResourceQuotaConfiguration",
            "limitedResources": [{"resource": "pods", "matchContains": ["memory"]}]}
    assert [lr.match_contains for lr in parse_limited_resources(bare, SRC)] == [("memory",)]
    other = {"kind": "Something", "limitedResources": [{"resource": "pods"}]}
    assert parse_limited_resources(other, SRC) == []


def test_duplicate_quota_message() -> None:
    """A second quota of one name in a namespace is a one-line input error naming the
    file and the object."""
    q = quota("q", {"pods": "1"}, ns="team")
    with pytest.raises(InputError) as err:
        QuotaAdmission.from_documents(docs_of(q, q))
    assert str(err.value) == "test.yaml, document 2: ResourceQuota team/q: duplicate object"


def test_request_defaulted_from_a_limit_keeps_its_format() -> None:
    """``SetDefaults_Pod`` (pkg/apis/core/v1/defaults.go) sets a container's missing
    request to ``value.DeepCopy()`` of its limit before admission, so the request keeps
    the limit's BinarySI format: ``requests.memory=2Gi``, not ``2147483648``."""
    q = quota("m", {"requests.memory": "1Gi"})
    assert admit([q], pod("p", limits={"memory": "2Gi", "cpu": "1"})) == (
        'pods "p" is forbidden: exceeded quota: m, requested: requests.memory=2Gi, '
        "used: requests.memory=0, limited: requests.memory=1Gi")


def test_sidecar_limits_add_to_the_containers() -> None:
    """``PodLimits`` (component-helpers ``AggregateContainerLimits``): a restartable init
    container (``restartPolicy: Always``, a sidecar) runs beside the containers, so its
    limit adds to theirs: 1 + 1 = 2 CPUs, over a ``limits.cpu`` quota of 1500m."""
    q = quota("lim", {"limits.cpu": "1500m"})
    new = pod("p", "100m", limits={"cpu": "1"}, spec_extra={"initContainers": [
        {"name": "proxy", "image": "x", "restartPolicy": "Always",
         "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}}]})
    assert admit([q], new) == (
        'pods "p" is forbidden: exceeded quota: lim, requested: limits.cpu=2, '
        "used: limits.cpu=0, limited: limits.cpu=1500m")


def test_every_configuration_document_applies() -> None:
    """The limitedResources of every configuration document given apply together (an
    AdmissionConfiguration and a bare ResourceQuotaConfiguration)."""
    adm = QuotaAdmission.from_documents(docs_of(
        config({"resource": "pods", "matchContains": ["requests.cpu"]}),
        {"kind": "ResourceQuotaConfiguration",
         "limitedResources": [{"resource": "pods", "matchContains": ["requests.memory"]}]}))
    assert [lr.match_contains for lr in adm.limited] == [("requests.cpu",),
                                                         ("requests.memory",)]
    with pytest.raises(InputError) as err:
        QuotaAdmission.from_documents(docs_of(
            {"kind": "ResourceQuotaConfiguration", "limitedResources": {}}))
    assert str(err.value) == (AT + "ResourceQuotaConfiguration: limitedResources must be "
                              "a list, got dict")


def test_metadata_that_is_not_a_mapping_is_an_input_error() -> None:
    """A ``metadata`` that is not a mapping names no object: a ResourceQuota without a
    name, a configuration error without an object name."""
    with pytest.raises(InputError) as err:
        parse_resource_quota({"kind": "ResourceQuota", "metadata": "q", "spec": {}}, SRC)
    assert str(err.value) == AT + "ResourceQuota: object has no metadata.name"
    with pytest.raises(InputError) as err:
        parse_limited_resources({"kind": "ResourceQuotaConfiguration", "metadata": "c",
                                 "limitedResources": {}}, SRC)
    assert str(err.value) == (AT + "ResourceQuotaConfiguration: limitedResources must be "
                              "a list, got dict")


def test_pod_counts_sum_in_decimal() -> None:
    """``PodUsageFunc`` charges ``pods`` and ``count/pods`` as
    ``resource.NewQuantity(1, DecimalSI)``: 1024 of them print ``1024``, not ``1Ki``."""
    q = parse_resource_quota(quota("q", {"pods": "2000", "count/pods": "2000"}), SRC)
    c = cluster_of(node("n1"), pod("a", "100m", node_name="n1"))
    [qp] = [quota_pod(p) for p in c.pods.values()]
    used, binary = QuotaAdmission().used_with_formats(q, [qp] * 1024)
    assert used == {"pods": 1024, "count/pods": 1024}
    assert binary == {"pods": False, "count/pods": False}


def test_pod_level_request_defaulted_from_containers_keeps_their_format() -> None:
    """``defaultPodRequests`` (pkg/apis/core/v1/defaults.go): with pod-level limits and
    no pod-level request, a resource the containers request gets the pod-level request
    ``aggrCtrReqs[key].DeepCopy()`` (the containers' sum, in the first container's
    format), not the pod-level limit: ``requests.memory=1024M``, not the ``2Gi``
    limit's BinarySI (``1000000Ki``)."""
    q = quota("mem", {"requests.memory": "1G"})
    new = pod("p", "100m", "1024M", spec_extra={"resources": {"limits": {"memory": "2Gi"}}})
    assert admit([q], new) == (
        'pods "p" is forbidden: exceeded quota: mem, requested: requests.memory=1024M, '
        "used: requests.memory=0, limited: requests.memory=1G")
