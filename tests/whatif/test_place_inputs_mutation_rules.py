"""What ``schedule -f`` creates from the new documents, and how each pod is admitted.

Expected answers come from the apiserver (a new Pod with ``spec.nodeName`` is already
bound, a name taken is AlreadyExists, ResourceQuota admission: ``count/<resource>`` for
objects, pods charged until they are gone, ``QuotaV1Pod``), the workload controllers
(``getNewReplicaSet`` / ``FindNewReplicaSet``, ``claimPods``, ``nodeShouldRunDaemonPod``,
``getJobName``, StatefulSet ``newStatefulSetPod``), ``helper.DefaultSelector`` for the
default spreading, and the scheduler cycle named in each test.
"""

from __future__ import annotations

import time

import pytest
from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.api.errors import InputError, Source
from kubepreempt.controllers.expand import Names, expand
from kubepreempt.whatif.place import expand_documents, what_if

NOW = 1e9
OLD = "2024-01-01T00:00:00Z"
CONTAINER = {"name": "c", "image": "x:1", "resources": {"requests": {"cpu": "1"}}}


def _workload(kind: str, name: str, ns: str | None = "default", **spec) -> dict:
    meta = {"name": name} if ns is None else {"name": name, "namespace": ns}
    template = {"metadata": {"labels": {"app": name}},
                "spec": spec.pop("pod_spec", {"containers": [CONTAINER]})}
    body = {"selector": {"matchLabels": {"app": name}}, "template": template, **spec}
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": body}


def _quota(ns: str, **hard: str) -> dict:
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "objects", "namespace": ns}, "spec": {"hard": hard}}


def test_a_new_pod_already_bound_is_refused_with_its_document() -> None:
    """A new Pod with ``spec.nodeName`` is not a pod to schedule: a one-line input error
    naming the document, the kind and the pod."""
    with pytest.raises(InputError) as err:
        what_if(cluster_of(node("n1")), docs_of(pod("p", "1", node_name="n1")), now=NOW)
    assert (err.value.message, err.value.source, err.value.kind, err.value.name) == (
        "a new pod must not have spec.nodeName", Source("test.yaml", 0), "Pod", "default/p")


def test_a_new_pod_whose_name_is_taken_is_refused_with_its_document() -> None:
    cluster = cluster_of(node("n1"), pod("p", "1", node_name="n1"))
    with pytest.raises(InputError) as err:
        what_if(cluster, docs_of(pod("q", "1"), pod("p", "1")), now=NOW)
    assert (err.value.message, err.value.source, err.value.name) == (
        "already exists in the cluster", Source("test.yaml", 1), "default/p")


def test_a_bad_new_pod_names_its_document() -> None:
    """A malformed request and an unknown RuntimeClass (refused by the RuntimeClass
    admission plugin) are reported against the pod's own document."""
    with pytest.raises(InputError) as err:
        what_if(cluster_of(node("n1")), docs_of(pod("ok", "1"), pod("p", "lots")), now=NOW)
    assert err.value.source == Source("test.yaml", 1)
    with pytest.raises(InputError) as err:
        what_if(cluster_of(node("n1")),
                docs_of(pod("p", "1", spec_extra={"runtimeClassName": "gvisor"})), now=NOW)
    assert err.value.source == Source("test.yaml", 0)
    assert "gvisor" in err.value.message


def test_object_count_quota_counts_the_input_s_replicasets_and_each_new_one() -> None:
    """``count/replicasets.apps: 2`` in shop, where the cluster input already has one
    ReplicaSet: web's new ReplicaSet is the second (admitted), api's would be the third
    (refused: api creates no pod). The Deployment after it (another namespace) and the
    Job are still created."""
    existing = _workload("ReplicaSet", "old", "shop", replicas=0)
    cluster = cluster_of(node("n1", cpu="8"), _quota("shop", **{"count/replicasets.apps": "2"}),
                         existing)
    refusals: list[tuple[str, str]] = []
    out = expand_documents(cluster, docs_of(
        _workload("Deployment", "web", "shop", replicas=1),
        _workload("Deployment", "api", "shop", replicas=1),
        _workload("Deployment", "late", "other", replicas=1),
        _workload("Job", "etl", "shop")), refusals=refusals)
    assert [(key, len(pods)) for key, pods, _, _ in out] == [
        ("Deployment/shop/web", 1), ("Deployment/other/late", 1), ("Job/shop/etl", 1)]
    ((what, message),) = refusals
    assert what.startswith("ReplicaSet/shop/api-")
    rs = what.rsplit("/", 1)[1]
    assert message == (f'replicasets.apps "{rs}" is forbidden: exceeded quota: objects, '
                       "requested: count/replicasets.apps=1, used: count/replicasets.apps=2, "
                       "limited: count/replicasets.apps=2")


def test_a_workload_without_namespace_is_counted_in_default() -> None:
    """``count/deployments.apps: 0`` in ``default``: a Deployment that names no namespace
    is created there and refused; the next Deployment (another namespace) is created."""
    cluster = cluster_of(node("n1"), _quota("default", **{"count/deployments.apps": "0"}))
    refusals: list[tuple[str, str]] = []
    out = expand_documents(cluster, docs_of(_workload("Deployment", "web", None, replicas=1),
                                            _workload("Deployment", "api", "shop", replicas=1)),
                           refusals=refusals)
    assert [key for key, _, _, _ in out] == ["Deployment/shop/api"]
    assert [what for what, _ in refusals] == ["Deployment/default/web"]


def test_a_new_service_and_a_new_replicaset_select_the_new_pods_for_default_spreading() -> None:
    """``helper.DefaultSelector``: the Services and ReplicaSets selecting a pod give the
    default spreading constraints their selector; the new documents' Service, and the
    ReplicaSet a new Deployment creates, count as the cluster's own."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
               "spec": {"selector": {"app": "p"}}}
    cluster = cluster_of(node("n1"))
    out = expand_documents(cluster, docs_of(
        service, pod("p", "1", labels={"app": "p"}),
        _workload("Deployment", "web", replicas=1)))
    (bare,), (replica,) = (pods for _, pods, _, _ in out)
    assert cluster.spread_sources.default_selector(bare) is not None
    selector = cluster.spread_sources.default_selector(replica)
    assert selector is not None and selector.matches(replica.labels)
    assert not selector.matches({"app": "web"})  # the ReplicaSet's hashed selector


def test_a_malformed_new_service_names_its_document() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
               "spec": ["not", "an", "object"]}
    with pytest.raises(InputError) as err:
        expand_documents(cluster_of(node("n1")), docs_of(pod("p", "1"), service))
    assert str(err.value) == ("test.yaml, document 2: Service default/svc: "
                              "spec must be an object, not list")


def test_a_deployment_reuses_the_hash_of_its_replicaset_in_the_new_documents() -> None:
    """``FindNewReplicaSet``: the Deployment's own ReplicaSet (given in ``-f``, with an
    equal template) is its new ReplicaSet: the pods are named after its hash."""
    dep = _workload("Deployment", "web", replicas=1)
    template = {"metadata": {"labels": {"app": "web", "pod-template-hash": "5b7f9c6d8"}},
                "spec": dep["spec"]["template"]["spec"]}
    rs = _workload("ReplicaSet", "web-5b7f9c6d8", replicas=0)
    rs["spec"]["template"] = template
    rs["spec"]["selector"] = {"matchLabels": template["metadata"]["labels"]}
    rs["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "name": "web", "uid": "u1", "controller": True}]
    out = expand_documents(cluster_of(node("n1")), docs_of(dep, rs))
    pods = [p for key, pods, _, _ in out if key == "Deployment/default/web" for p in pods]
    assert [p.name.rsplit("-", 1)[0] for p in pods] == ["web-5b7f9c6d8"]


def test_a_daemonset_in_the_new_documents_runs_a_pod_per_node() -> None:
    """``nodeShouldRunDaemonPod``: one pod for each of the cluster's nodes."""
    out = expand_documents(cluster_of(node("a"), node("b")),
                           docs_of(_workload("DaemonSet", "agent")))
    ((key, pods, _, _),) = out
    assert key == "DaemonSet/default/agent" and len(pods) == 2


def test_a_cronjob_s_job_is_named_after_the_schedule_time_following_now() -> None:
    """``getJobName``: ``<cronjob>-<scheduled time in minutes>``; "0 2 * * *" after
    2023-11-14 22:14:19 UTC fires at 2023-11-15 02:00 UTC (1700013600)."""
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
          "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {"template": {
              "spec": {"containers": [CONTAINER]}}}}}}
    result = what_if(cluster_of(node("n1")), docs_of(cj), now=1_700_000_059.0)
    (placement,) = result.placements
    assert placement.pod.name.startswith(f"nightly-{1_700_013_600 // 60}-")


def test_a_new_replicaset_adopts_a_new_bare_pod_it_selects() -> None:
    """``claimPods``: an orphan the ReplicaSet's selector matches, given in the same
    ``-f``, is adopted; ``replicas: 2`` then creates one pod."""
    orphan = pod("orphan", "1", labels={"app": "web"})
    result = what_if(cluster_of(node("n1", cpu="8")),
                     docs_of(orphan, _workload("ReplicaSet", "web", replicas=2)), now=NOW)
    assert result.adopted == [("ReplicaSet/default/web", ["default/orphan"])]
    assert [p.workload for p in result.placements] == ["Pod/default/orphan",
                                                       "ReplicaSet/default/web"]


def test_generated_names_follow_the_seed() -> None:
    """The random suffixes of generated names come from the seed (0 by default)."""
    dep = _workload("Deployment", "web", replicas=2)
    for seed in (0, 7):
        kw = {"seed": seed} if seed else {}
        result = what_if(cluster_of(node("n1", cpu="8")), docs_of(dep), now=NOW, **kw)
        expected = [p["metadata"]["name"] for p in expand(dep, Names(seed)).pods]
        assert [p.pod.name for p in result.placements] == expected


def test_a_workload_s_pods_name_their_document_and_index() -> None:
    docs = docs_of(pod("p", "1"), _workload("Deployment", "web", replicas=2))
    out = expand_documents(cluster_of(node("n1")), docs)
    pods = out[1][1]
    assert [p.source for p in pods] == [
        Source("test.yaml, document 2:Deployment/web", i) for i in range(2)]


def test_runtime_class_admission_keeps_each_pod_s_uid() -> None:
    """RuntimeClass admission adds the class's overhead to each created pod; the pod keeps
    the UID it was created with (each distinct)."""
    rc = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
          "handler": "kata", "overhead": {"podFixed": {"cpu": "250m"}}}
    dep = _workload("Deployment", "web", replicas=2,
                    pod_spec={"runtimeClassName": "kata", "containers": [CONTAINER]})
    out = expand_documents(cluster_of(node("n1"), rc), docs_of(dep))
    pods = out[0][1]
    assert all(p.uid for p in pods) and len({p.uid for p in pods}) == 2
    assert [p.name for p in pods] == [p["metadata"]["name"]
                                      for p in expand(dep, Names(0)).pods]


def test_statefulset_pods_keep_their_own_hostnames() -> None:
    """``newStatefulSetPod``: each pod's hostname is its own name."""
    sts = _workload("StatefulSet", "db", replicas=3, serviceName="db")
    out = expand_documents(cluster_of(node("n1")), docs_of(sts))
    assert [p.raw["spec"]["hostname"] for p in out[0][1]] == ["db-0", "db-1", "db-2"]


def test_an_ordered_ready_statefulset_all_placed_or_of_no_replica() -> None:
    """OrderedReady creates the next pod once the previous is placed: all three fit, one
    after the other; a StatefulSet of 0 replicas creates none."""
    sts = _workload("StatefulSet", "db", replicas=3, serviceName="db")
    empty = _workload("StatefulSet", "none", replicas=0, serviceName="none")
    result = what_if(cluster_of(node("n1", cpu="8")), docs_of(sts, empty), now=NOW)
    assert [(p.pod.name, p.result) for p in result.placements] == [
        ("db-0", "scheduled"), ("db-1", "scheduled"), ("db-2", "scheduled")]


def test_quota_admission_does_not_charge_a_pod_past_its_grace_period() -> None:
    """``QuotaV1Pod``: a terminating pod is charged until its deletion time plus its
    deletion grace period (30 s from 01:46:30), no longer after: under ``pods: 1`` the
    first new pod is refused at 01:46:40 and admitted a minute later, when the second is
    refused. A pod refused at creation is reported under its workload, when created."""
    def cluster():
        gone = pod("gone", "1", node_name="n1", start=OLD,
                   meta_extra={"deletionTimestamp": "2001-09-09T01:46:30Z",
                               "deletionGracePeriodSeconds": 30, "finalizers": ["x/y"]})
        return cluster_of(node("n1", cpu="8"), _quota("default", pods="1"), gone)
    result = what_if(cluster(), docs_of(_workload("Deployment", "web", replicas=1)),
                     now=NOW)  # 2001-09-09 01:46:40 UTC
    assert [p.result for p in result.placements] == ["rejected"]
    result = what_if(cluster(), docs_of(_workload("Deployment", "web", replicas=2)),
                     now=NOW + 60)
    assert [p.result for p in result.placements] == ["rejected", "scheduled"]
    assert result.placements[0].workload == "Deployment/default/web"


def test_a_pending_pod_of_the_cluster_is_not_admitted_again() -> None:
    """A pod that exists already (``--pod``) passed admission when it was created: under
    ``pods: 1`` (itself) it is still decided."""
    cluster = cluster_of(node("n1"), _quota("default", pods="1"), pod("waiting", "1"))
    result = what_if(cluster, docs_of(), now=NOW,
                     extra_pods=[cluster.find_pod("default/waiting")])
    assert [(p.workload, p.result) for p in result.placements] == [
        ("Pod/default/waiting", "scheduled")]


def test_the_victim_s_start_time_is_read_at_the_given_time() -> None:
    """``pickOneNodeForPreemption``: equal victims apart from their start; the node
    whose victims started latest is chosen, a victim without ``startTime`` counting as
    started at the time of the decision (2001 here, before the other's 2024): n2."""
    cluster = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("v1", "1", node_name="n1", priority=1),
        pod("v2", "1", node_name="n2", priority=1, start=OLD))
    result = what_if(cluster, docs_of(pod("p", "1", priority=10)), now=NOW)
    (p,) = result.placements
    assert (p.result, p.node) == ("preempt", "n2")


def test_an_indexed_job_s_pods_are_decided_one_by_one() -> None:
    """Indexed Job pods differ in their completion-index label, so each gets its own
    cycle. Spread over ``zone`` (maxSkew 1) of the pods labelled index 0: zone a (n1)
    holds one, zone b (n2, full) none. Pod 0 matches itself: 1 + 1 - 0 = 2 > 1 on n1,
    unschedulable; pod 1 does not: 1 + 0 - 0 = 1, it fits on n1
    (``podtopologyspread`` Filter)."""
    index = "batch.kubernetes.io/job-completion-index"
    spread = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {index: "0"}}}]
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "idx"},
           "spec": {"completionMode": "Indexed", "completions": 2, "parallelism": 2,
                    "template": {"spec": {"topologySpreadConstraints": spread,
                                          "containers": [CONTAINER]}}}}
    cluster = cluster_of(
        node("n1", labels={"zone": "a"}), node("n2", cpu="1", labels={"zone": "b"}),
        pod("old", "100m", node_name="n1", labels={index: "0"}),
        pod("fill", "1", node_name="n2"))
    result = what_if(cluster, docs_of(job), now=NOW)
    assert [(p.pod.labels[index], p.result) for p in result.placements] == [
        ("0", "unschedulable"), ("1", "scheduled")]


def test_replicas_answered_by_the_first_keep_their_workload() -> None:
    """Identical pending replicas: the first one's cycle answers the others, each under
    the Deployment."""
    result = what_if(cluster_of(node("n1")),
                     docs_of(_workload("Deployment", "big", replicas=3,
                                       pod_spec={"containers": [
                                           {"name": "c", "resources": {
                                               "requests": {"cpu": "64"}}}]})), now=NOW)
    first = result.placements[0].pod.key
    assert [(p.workload, p.result, p.answered_by) for p in result.placements] == [
        ("Deployment/default/big", "unschedulable", None),
        ("Deployment/default/big", "unschedulable", first),
        ("Deployment/default/big", "unschedulable", first)]


def test_without_a_time_the_pods_start_now_and_without_preemption_none_preempts() -> None:
    cluster = cluster_of(node("n1", cpu="1"), pod("v", "1", node_name="n1", priority=1))
    before = time.time()
    result = what_if(cluster, docs_of(pod("a", "1", priority=10)), preemption=False)
    assert [p.result for p in result.placements] == ["unschedulable"]
    cluster = cluster_of(node("n1", cpu="1"))
    result = what_if(cluster, docs_of(pod("a", "1", priority=10)))
    start = cluster.find_pod("default/a").start_time
    assert before <= start <= time.time()


def test_without_a_time_a_cronjob_fires_after_the_current_time() -> None:
    """``getJobName`` with the schedule time following now (the current time)."""
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
          "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {
              "spec": {"containers": [CONTAINER]}}}}}}
    before = int(time.time()) // 60
    result = what_if(cluster_of(node("n1")), docs_of(cj))
    minute = int(result.placements[0].pod.name.split("-")[1])
    assert minute % 5 == 0 and before < minute <= before + 5


def test_explain_keeps_the_scores() -> None:
    """Scores are kept only with explain."""
    docs = docs_of(pod("a", "1"))
    plain = what_if(cluster_of(node("n1"), node("n2")), docs, now=NOW)
    explained = what_if(cluster_of(node("n1"), node("n2")), docs_of(pod("a", "1")), now=NOW,
                        explain=True)
    assert not plain.placements[0].decision.scores
    assert explained.placements[0].decision.scores


def test_priority_classes_of_the_new_documents_are_applied_first() -> None:
    """A class given in ``-f`` types the new pods; a malformed one names its document."""
    out = expand_documents(cluster_of(node("n1")), docs_of(
        priority_class("team", 700), pod("p", "1", spec_extra={"priorityClassName": "team"})))
    assert out[0][1][0].priority == 700
    bad = priority_class("bad", 1)
    bad["value"] = "high"
    with pytest.raises(InputError) as err:
        expand_documents(cluster_of(node("n1")), docs_of(pod("p", "1"), bad))
    assert err.value.source == Source("test.yaml", 1)
