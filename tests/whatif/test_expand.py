"""Workload expansion against the upstream controllers' naming and labelling rules."""

from __future__ import annotations

import re

import pytest
from builders import node

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_node
from kubepreempt.controllers.expand import (
    ALPHANUMS,
    COMPLETION_INDEX,
    JOB_TRACKING_FINALIZER,
    MAX_GENERATED_NAME_LENGTH,
    POD_INDEX,
    POD_TEMPLATE_HASH,
    REVISION_HASH,
    STS_POD_NAME,
    TEMPLATE_GENERATION,
    Names,
    compute_hash,
    expand,
    fnv32,
    fnv32a,
    hash_controller_revision,
    pod_generate_name_with_index,
    safe_encode_string,
    statefulset_revision,
)

SUFFIX = f"[{ALPHANUMS}]{{5}}"
TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


def obj(kind: str, name: str, spec: dict, api: str = "apps/v1", ns: str = "shop",
        **meta) -> dict:
    return {"apiVersion": api, "kind": kind,
            "metadata": {"name": name, "namespace": ns, **meta}, "spec": spec}


def test_fnv_variants_match_go_hash_fnv() -> None:
    # Go hash/fnv test vectors for "a": New32 0x050c5d7e, New32a 0xe40c292c.
    assert fnv32(b"a") == 0x050C5D7E
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32(b"") == fnv32a(b"") == 0x811C9DC5


def test_safe_encode_string_maps_each_rune_into_the_alphabet() -> None:
    # rand.SafeEncodeString: alphanums[int(r) % 27]; '0' is 48 -> 48 % 27 = 21 -> '4'.
    assert safe_encode_string("0") == "4"
    assert safe_encode_string("0123456789") == "456789bcdf"


def test_statefulset_revision_reproduces_upstream_compatibility_vector() -> None:
    """stateful_set_compatibility_test.go / testdata/compatibility_revision_1.34.0.json:
    the set "test" with this template has update revision test-776999688b (FNV-1 of the
    defaulted template patch plus collision count "0"); 1.33 hashed creationTimestamp:null
    too and got test-c77f6d978."""
    set_ = obj("StatefulSet", "test", {
        "selector": {"matchLabels": {"app": "foo"}},
        "template": {"metadata": {"annotations": {"test": "value"}, "labels": {"app": "foo"}},
                     "spec": {"containers": [{"image": "test", "name": "test"}]}}}, ns="test")
    assert statefulset_revision(set_) == "test-776999688b"
    raw133 = (b'{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":'
              b'"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers"'
              b':[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},'
              b'"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":'
              b'"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":'
              b'"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}')
    assert hash_controller_revision(raw133, 0) == "c77f6d978"
    set_["status"] = {"collisionCount": 1}
    assert statefulset_revision(set_) != "test-776999688b"  # the probe is hashed


def test_compute_hash_salts_with_collision_count() -> None:
    a, b = compute_hash(TEMPLATE, None), compute_hash(TEMPLATE, 1)
    assert a != b and set(a + b) <= set(ALPHANUMS)


def test_deployment_creates_replicaset_named_with_pod_template_hash() -> None:
    """deployment/sync.go getNewReplicaSet + controller.GetPodFromTemplate/getPodsPrefix."""
    dep = obj("Deployment", "web", {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                                    "template": TEMPLATE})
    exp = expand(dep, Names(seed=1))
    (rs,) = exp.created
    h = compute_hash(TEMPLATE, None)
    assert rs["metadata"]["name"] == f"web-{h}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", POD_TEMPLATE_HASH: h}
    assert rs["metadata"]["ownerReferences"][0]["kind"] == "Deployment"
    assert len(exp.pods) == 3
    names = set()
    for pod in exp.pods:
        meta = pod["metadata"]
        assert meta["generateName"] == f"web-{h}-"
        assert re.fullmatch(f"web-{h}-{SUFFIX}", meta["name"])
        assert meta["labels"] == {"app": "web", POD_TEMPLATE_HASH: h}
        (ref,) = meta["ownerReferences"]
        assert ref == {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"web-{h}",
                       "uid": rs["metadata"]["uid"], "controller": True,
                       "blockOwnerDeletion": True}
        names.add(meta["name"])
    assert len(names) == 3
    # Deterministic from the seed; another seed gives other suffixes.
    again = expand(dep, Names(seed=1))
    assert [p["metadata"]["name"] for p in again.pods] == [p["metadata"]["name"]
                                                          for p in exp.pods]
    other = expand(dep, Names(seed=2))
    assert {p["metadata"]["name"] for p in other.pods}.isdisjoint(names)


def test_deployment_reuses_hash_of_its_replicaset_in_the_input() -> None:
    """FindNewReplicaSet / EqualIgnoreHash: an owned ReplicaSet with an equal template."""
    dep = obj("Deployment", "web", {"replicas": 1, "template": TEMPLATE})
    rs_template = {"metadata": {"labels": {"app": "web", POD_TEMPLATE_HASH: "7d4b9c8f5"}},
                   "spec": TEMPLATE["spec"]}
    rs = obj("ReplicaSet", "web-7d4b9c8f5", {"template": rs_template},
             ownerReferences=[{"kind": "Deployment", "name": "web", "controller": True}])
    exp = expand(dep, Names(), replicasets=[rs])
    assert exp.created[0]["metadata"]["name"] == "web-7d4b9c8f5"
    other = dict(rs, spec={"template": {**rs_template, "spec": {"containers": []}}})
    assert expand(dep, Names(), replicasets=[other]).created[0]["metadata"]["name"] != \
        "web-7d4b9c8f5"


def test_replicaset_pods_default_to_one_replica() -> None:
    exp = expand(obj("ReplicaSet", "rs", {"template": TEMPLATE}), Names())
    assert len(exp.pods) == 1
    assert exp.pods[0]["metadata"]["generateName"] == "rs-"


def test_long_generate_name_is_cut_to_58_characters() -> None:
    """names.SimpleNameGenerator: base[:maxGeneratedNameLength] + 5 random characters."""
    name = "r" * 70
    pod = expand(obj("ReplicaSet", name, {"template": TEMPLATE}), Names()).pods[0]
    assert len(pod["metadata"]["name"]) == 63
    assert pod["metadata"]["name"].startswith("r" * MAX_GENERATED_NAME_LENGTH)


def test_statefulset_pods_have_ordinal_identity_and_revision_labels() -> None:
    """newStatefulSetPod / initIdentity / updateIdentity / setPodRevision."""
    set_ = obj("StatefulSet", "db", {"replicas": 3, "serviceName": "db-headless",
                                     "ordinals": {"start": 2}, "template": TEMPLATE})
    exp = expand(set_, Names())
    assert exp.ordered_ready
    rev = statefulset_revision(set_)
    assert rev.startswith("db-")
    assert [p["metadata"]["name"] for p in exp.pods] == ["db-2", "db-3", "db-4"]
    for i, pod in enumerate(exp.pods, 2):
        assert pod["metadata"]["labels"] == {"app": "web", STS_POD_NAME: f"db-{i}",
                                             POD_INDEX: str(i), REVISION_HASH: rev}
        assert pod["spec"]["hostname"] == f"db-{i}"
        assert pod["spec"]["subdomain"] == "db-headless"
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    parallel = dict(set_, spec={**set_["spec"], "podManagementPolicy": "Parallel"})
    assert not expand(parallel, Names()).ordered_ready


def test_job_parallelism_completions_and_selector_labels() -> None:
    """manageJob: min(parallelism, completions) pods; generateSelector labels."""
    job = obj("Job", "etl", {"parallelism": 5, "completions": 2, "template": TEMPLATE},
              api="batch/v1", uid="u-1")
    exp = expand(job, Names())
    assert len(exp.pods) == 2
    for pod in exp.pods:
        meta = pod["metadata"]
        assert re.fullmatch(f"etl-{SUFFIX}", meta["name"])
        assert meta["labels"] == {"app": "web", "batch.kubernetes.io/controller-uid": "u-1",
                                  "batch.kubernetes.io/job-name": "etl",
                                  "controller-uid": "u-1", "job-name": "etl"}
        assert meta["finalizers"] == [JOB_TRACKING_FINALIZER]
        assert meta["ownerReferences"][0]["kind"] == "Job"
    assert len(expand(dict(job, spec={"template": TEMPLATE}), Names()).pods) == 1


def test_indexed_job_pods_carry_completion_index() -> None:
    """addCompletionIndexAnnotation / addCompletionIndexLabel / podGenerateNameWithIndex."""
    job = obj("Job", "train", {"parallelism": 3, "completions": 10,
                               "completionMode": "Indexed", "template": TEMPLATE},
              api="batch/v1")
    exp = expand(job, Names())
    assert len(exp.pods) == 3
    for i, pod in enumerate(exp.pods):
        meta = pod["metadata"]
        assert meta["annotations"][COMPLETION_INDEX] == str(i)
        assert meta["labels"][COMPLETION_INDEX] == str(i)
        assert meta["generateName"] == f"train-{i}-"
        assert re.fullmatch(f"train-{i}-{SUFFIX}", meta["name"])
        assert pod["spec"]["hostname"] == f"train-{i}"
    long = "j" * 60
    assert pod_generate_name_with_index(long, 12) == "j" * 54 + "-12-"
    assert len(pod_generate_name_with_index(long, 12)) == MAX_GENERATED_NAME_LENGTH
    assert pod_generate_name_with_index("short", 7) == "short-7-"


def test_cronjob_job_is_named_by_its_next_schedule_minute() -> None:
    """cronjob getJobName: <name>-<scheduled unix time / 60>; getJobFromTemplate2: the
    scheduled-timestamp annotation in spec.timeZone (RFC 3339). now = 2023-11-14
    22:14:19 UTC; "0 2 * * *" next fires 2023-11-15 02:00 UTC = 1700013600, or 02:00 in
    Berlin (UTC+1) = 1700010000."""
    cj = obj("CronJob", "nightly", {"schedule": "0 2 * * *", "jobTemplate": {
        "metadata": {"labels": {"team": "a"}}, "spec": {"template": TEMPLATE}}},
        api="batch/v1")
    exp = expand(cj, Names(), now=1_700_000_059.0)
    (job,) = exp.created
    assert job["metadata"]["name"] == f"nightly-{1_700_013_600 // 60}"
    assert job["metadata"]["annotations"][
        "batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2023-11-15T02:00:00Z"
    assert job["metadata"]["labels"] == {"team": "a"}
    assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    (pod,) = exp.pods
    assert pod["metadata"]["generateName"] == f"nightly-{1_700_013_600 // 60}-"
    assert pod["metadata"]["labels"]["job-name"] == job["metadata"]["name"]
    berlin = dict(cj, spec={**cj["spec"], "timeZone": "Europe/Berlin"})
    (job,) = expand(berlin, Names(), now=1_700_000_059.0).created
    assert job["metadata"]["name"] == f"nightly-{1_700_010_000 // 60}"
    assert job["metadata"]["annotations"][
        "batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2023-11-15T02:00:00+01:00"
    bad = dict(cj, spec={**cj["spec"], "schedule": "61 * * * *"})
    with pytest.raises(InputError, match="is not a cron expression"):
        expand(bad, Names(), now=0.0)


def _nodes():
    return [parse_node(n, Source()) for n in (
        node("a"), node("b", labels={"disk": "ssd"}),
        node("c", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
        node("d", taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
             unschedulable=True),
        node("e", taints=[{"key": "soft", "effect": "PreferNoSchedule"}]))]


def test_daemonset_runs_where_node_should_run_daemon_pod() -> None:
    """NodeShouldRunDaemonPod: untolerated NoSchedule taint (c) excluded; the cordon taint
    (d) is tolerated by AddOrUpdateDaemonPodTolerations; PreferNoSchedule (e) never
    excludes. Each pod is pinned by ReplaceDaemonSetPodNodeNameNodeAffinity."""
    ds = obj("DaemonSet", "agent", {"template": TEMPLATE}, ns="kube-system",
             annotations={"deprecated.daemonset.template.generation": "4"})
    exp = expand(ds, Names(), nodes=_nodes())
    pinned = []
    for pod in exp.pods:
        terms = pod["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        assert len(terms) == 1 and list(terms[0]) == ["matchFields"]
        (req,) = terms[0]["matchFields"]
        assert req["key"] == "metadata.name" and req["operator"] == "In"
        pinned.append(req["values"][0])
        labels = pod["metadata"]["labels"]
        assert labels[TEMPLATE_GENERATION] == "4"
        assert labels[REVISION_HASH] == compute_hash(TEMPLATE, None)
        keys = [(t["key"], t["effect"]) for t in pod["spec"]["tolerations"]]
        assert keys == [("node.kubernetes.io/not-ready", "NoExecute"),
                        ("node.kubernetes.io/unreachable", "NoExecute"),
                        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                        ("node.kubernetes.io/unschedulable", "NoSchedule")]
        assert re.fullmatch(f"agent-{SUFFIX}", pod["metadata"]["name"])
    assert pinned == ["a", "b", "d", "e"]
    # A new DaemonSet (no annotation yet): the API server's templateGeneration 1.
    fresh = obj("DaemonSet", "agent", {"template": TEMPLATE}, ns="kube-system")
    assert expand(fresh, Names(), nodes=_nodes()).pods[0]["metadata"]["labels"][
        TEMPLATE_GENERATION] == "1"
    # A node selector narrows the nodes; hostNetwork adds the network-unavailable toleration.
    sel = dict(ds, spec={"template": {**TEMPLATE, "spec": {**TEMPLATE["spec"],
                                                           "nodeSelector": {"disk": "ssd"},
                                                           "hostNetwork": True}}})
    (pod,) = expand(sel, Names(), nodes=_nodes()).pods
    assert pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchFields"][0]["values"] == ["b"]
    assert pod["spec"]["tolerations"][-1]["key"] == "node.kubernetes.io/network-unavailable"


def test_daemonset_required_affinity_is_replaced_not_merged() -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity keeps preferred terms, replaces required."""
    aff = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [
                {"key": "x", "operator": "Exists"}]}}]}}
    ds = obj("DaemonSet", "agent", {"template": {**TEMPLATE, "spec": {
        **TEMPLATE["spec"], "affinity": aff}}})
    (pod,) = expand(ds, Names(), nodes=_nodes()).pods
    na = pod["spec"]["affinity"]["nodeAffinity"]
    assert na["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] == [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]
    assert len(na["preferredDuringSchedulingIgnoredDuringExecution"]) == 1


def test_bad_workload_is_one_line_input_error() -> None:
    with pytest.raises(InputError, match=r"x.yaml: Deployment shop/web: cannot expand: "
                                         r"spec.replicas must be a non-negative integer"):
        expand(obj("Deployment", "web", {"replicas": "three", "template": TEMPLATE}), Names(),
               source=Source("x.yaml"))


def test_paused_deployment_and_suspended_job_or_cronjob_create_no_pods() -> None:
    """deployment sync: a paused Deployment gets no new ReplicaSet; manageJob: a suspended
    Job has no active pods; a suspended CronJob creates no Job."""
    dep = obj("Deployment", "web", {"replicas": 3, "paused": True, "template": TEMPLATE})
    assert expand(dep, Names()).pods == []
    job = obj("Job", "j", {"parallelism": 3, "suspend": True, "template": TEMPLATE},
              api="batch/v1")
    assert expand(job, Names()).pods == []
    cj = obj("CronJob", "c", {"suspend": True, "schedule": "* * * * *",
                              "jobTemplate": {"spec": {"template": TEMPLATE}}}, api="batch/v1")
    assert expand(cj, Names(), now=60.0).pods == []
