"""``kubepreempt kueue``'s loading and decision contract at its edges
(:mod:`kubepreempt.kueue.admission`): priorities from the classes a Workload names, the
Workloads of queued Jobs found by the Job's name, one Configuration, errors naming the
object, and the decision for a workload that holds quota, has no queue or no
ClusterQueue, or needs preemption that finds no targets."""

from __future__ import annotations

import time
from typing import Any

import pytest
from builders.kueue import CURRENT, NOW, V07, cq, docs, flavor, lq, wl

from kubepreempt.api.errors import InputError
from kubepreempt.kueue.admission import decide, load_inputs
from kubepreempt.kueue.objects import KueueConfig
from kubepreempt.kueue.semantics import semantics_for

F = flavor("default")


def _pc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def _wpc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
            "metadata": {"name": name}, "value": value}


def _job(name: str, queued: bool = True, namespace: str | None = "default",
         cpu: str = "1") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if queued:
        meta["labels"] = {"kueue.x-k8s.io/queue-name": "q"}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"parallelism": 1, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}}


# ---- priorities ----

def test_a_workload_takes_the_value_of_the_pod_priority_class_it_names() -> None:
    """A Workload whose class source is ``scheduling.k8s.io/priorityclass`` gets the
    PriorityClass's value (``GetPriorityFromPriorityClass``), even when a
    WorkloadPriorityClass has the same name."""
    w = wl("w", queue="q")
    w["spec"].update(priorityClassName="shared",
                     priorityClassSource="scheduling.k8s.io/priorityclass")
    inp = load_inputs(docs([_pc("shared", 50), _wpc("shared", 7), w]), version=V07)
    assert inp.workloads["default/w"].priority == 50


def test_v07_resolves_a_class_named_without_a_source_among_pod_priority_classes() -> None:
    """v0.7 reads ``priorityClassName`` without a source: with no WorkloadPriorityClass
    of that name, the PriorityClass gives the value."""
    w = wl("w", queue="q")
    w["spec"]["priorityClassName"] = "pc"
    inp = load_inputs(docs([_pc("pc", 7), w]), version=V07)
    assert inp.workloads["default/w"].priority == 7


# ---- queued Jobs ----

def test_a_job_is_found_through_the_owner_reference_of_its_workload() -> None:
    """A Workload owned by a Job (upstream names it after the Job plus a hash) is what
    ``--workload NAMESPACE/JOB`` decides for."""
    owned = wl("job-train-abc12", {"cpu": "1"}, queue="q")
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job",
                                             "name": "train", "uid": "u"}]
    inp = load_inputs(docs([F, cq("q", [("default", {"cpu": "4"})]), lq("q", "q"), owned]),
                      version=CURRENT)
    assert inp.job_workloads == {"default/train": "default/job-train-abc12"}
    assert decide(inp, "default/train", NOW).workload == "default/job-train-abc12"


def test_only_kueue_job_kinds_name_a_workload() -> None:
    """An owner that is not a job integration Kueue models (here a RayJob) does not
    make its name an alias of the Workload."""
    owned = wl("raycluster-x", {"cpu": "1"}, queue="q")
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "ray.io/v1", "kind": "RayJob",
                                             "name": "train", "uid": "u"}]
    inp = load_inputs(docs([owned]), version=CURRENT)
    assert inp.job_workloads == {}
    with pytest.raises(InputError, match="workload default/train not found"):
        decide(inp, "default/train", NOW)


def test_every_queued_job_after_an_unqueued_one_is_derived() -> None:
    """A Job without the queue-name label is not Kueue's; the queued Jobs after it
    still get Workloads (``job-NAME``), a Job without a namespace in ``default``, and
    each remembers its Job as the job UID."""
    inp = load_inputs(docs([_job("plain", queued=False), _job("a"),
                            _job("b", namespace=None)]), version=CURRENT)
    assert sorted(inp.workloads) == ["default/job-a", "default/job-b"]
    assert inp.job_workloads == {"default/a": "default/job-a", "default/b": "default/job-b"}
    assert inp.workloads["default/job-b"].job_uid == "b"


def test_a_bad_job_is_reported_as_the_workload_derived_from_it() -> None:
    """An error in a queued Job names the file and the Workload derived from it."""
    with pytest.raises(InputError) as err:
        load_inputs(docs([_job("j", cpu="abc")]), version=CURRENT)
    assert str(err.value) == (
        "test.yaml, document 1: Workload default/job-j: spec.podSets[0].template.spec."
        "containers[0].resources.requests.cpu: quantity 'abc' is not a valid Kubernetes "
        "quantity")


# ---- errors name the object ----

BAD = {
    "ResourceFlavor": ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                        "metadata": {"name": "rf"}, "spec": {"nodeLabels": ["x"]}},
                       "ResourceFlavor rf: nodeLabels must be a mapping, got list"),
    "ClusterQueue": ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                      "metadata": {"name": "c"}, "spec": {"resourceGroups": "x"}},
                     "ClusterQueue c: spec.resourceGroups must be a list, got str"),
    "LocalQueue": ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                    "metadata": {"name": "l", "namespace": "default"}, "spec": {}},
                   "LocalQueue default/l: spec.clusterQueue is required"),
    "WorkloadPriorityClass": ({"apiVersion": "kueue.x-k8s.io/v1beta2",
                               "kind": "WorkloadPriorityClass", "metadata": {"name": "w"},
                               "value": "abc"},
                              "WorkloadPriorityClass w: value 'abc' is not an integer"),
    "PriorityClass": ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                       "metadata": {"name": "p"}, "value": "abc"},
                      "PriorityClass p: value 'abc' is not an integer"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_object_is_reported_with_its_file_kind_and_name(kind: str) -> None:
    """Every object is read under its own name: the error says where it is."""
    obj, why = BAD[kind]
    with pytest.raises(InputError) as err:
        load_inputs(docs([obj]), version=CURRENT)
    assert str(err.value) == f"test.yaml, document 1: {why}"


def test_two_configurations_are_refused_at_the_second() -> None:
    """Kueue runs with one Configuration; a second document is an error naming it."""
    conf = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    with pytest.raises(InputError) as err:
        load_inputs(docs([conf, dict(conf)]), version=CURRENT)
    assert str(err.value) == ("test.yaml, document 2: Configuration: more than one "
                              "Configuration document")


def test_an_explicit_configuration_carries_its_release() -> None:
    """A given configuration's semantics decide how the objects are read: under v0.7
    Cohort objects do not exist (``hierarchical_cohorts`` off), whatever ``version``
    says."""
    cohort = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort",
              "metadata": {"name": "co"}, "spec": {}}
    config = KueueConfig(semantics=semantics_for(V07))
    inp = load_inputs(docs([cohort]), config=config, version=CURRENT)
    assert inp.config is config
    assert inp.cohorts == {}
    assert inp.semantics.version == V07


# ---- decisions ----

def _inputs(*objs: dict[str, Any]):
    return load_inputs(docs([F, cq("q", [("default", {"cpu": "4"})]), lq("q", "q"),
                             *objs]), version=CURRENT)


def test_unknown_workload_is_an_input_error_naming_it() -> None:
    with pytest.raises(InputError) as err:
        decide(_inputs(), "default/nope", NOW)
    assert str(err.value) == "Workload default/nope: workload default/nope not found in the input"


def test_a_workload_holding_quota_is_reported_as_admitted_where_it_is() -> None:
    """A Workload with a quota reservation is not scheduled again (upstream ``nominate``
    skips workloads already in the cache): the decision reports its admission."""
    held = wl("held", {"cpu": "1", "memory": "1Gi"}, queue="q", admitted="q",
              flavors={"memory": "default", "cpu": "default"})
    d = decide(_inputs(held), "default/held", NOW)
    assert d.to_json() == {
        "workload": "default/held", "clusterQueue": "q", "result": "admit",
        "flavors": {"main": {"cpu": "default", "memory": "default"}}, "borrowing": False,
        "victims": [], "reasons": {}, "message": "the workload already holds a quota reservation",
        "mode": ""}
    assert list(d.flavors["main"]) == ["cpu", "memory"]


def test_missing_queue_and_missing_cluster_queue_leave_the_workload_pending() -> None:
    """Upstream's messages: ``LocalQueue NAME doesn't exist``, ``ClusterQueue NAME
    doesn't exist``; a Workload without ``spec.queueName`` is never queued."""
    orphan = wl("orphan", queue="gone")
    unqueued = wl("unqueued")
    dangling = wl("dangling", queue="dangling")
    inp = _inputs(orphan, unqueued, dangling, lq("dangling", "no-such-cq"))
    got = {k: (d.result, d.cluster_queue, d.message) for k in ("orphan", "unqueued", "dangling")
           for d in [decide(inp, f"default/{k}", NOW)]}
    assert got == {
        "orphan": ("pending", None, "LocalQueue gone doesn't exist"),
        "unqueued": ("pending", None, "the workload has no spec.queueName"),
        "dangling": ("pending", "no-such-cq", "ClusterQueue no-such-cq doesn't exist")}


def test_an_admitted_decision_has_no_message_and_explains_fair_sharing() -> None:
    d = decide(_inputs(wl("w", {"cpu": "1"}, queue="q")), "default/w", NOW)
    assert (d.result, d.message, d.to_json()["message"], d.to_json()["mode"]) == (
        "admit", "", "", "Fit")
    assert d.explain["fairSharing"] is False


def test_preemption_without_targets_keeps_the_flavor_message() -> None:
    """Preempt mode but nothing to preempt (the only workload has a higher priority):
    the flavor assigner's reason, then that no target was found."""
    objs = [F, cq("q", [("default", {"cpu": "2"})], within="LowerPriority"), lq("q", "q"),
            wl("high", {"cpu": "2"}, priority=100, admitted="q"),
            wl("w", {"cpu": "1"}, priority=1, queue="q")]
    d = decide(load_inputs(docs(objs), version=CURRENT), "default/w", NOW)
    assert (d.result, d.mode) == ("pending", "Preempt")
    assert d.message == ("couldn't assign flavors to pod set main: insufficient unused quota "
                         "for cpu in flavor default, 1 more needed; no preemption targets found")


def test_without_a_time_the_decision_is_taken_now() -> None:
    """``now`` defaults to the current time: the victims' conditions carry it."""
    objs = [F, cq("q", [("default", {"cpu": "2"})], within="LowerPriority"), lq("q", "q"),
            wl("low", {"cpu": "2"}, priority=0, admitted="q"),
            wl("w", {"cpu": "2"}, priority=10, queue="q")]
    before = time.time()
    d = decide(load_inputs(docs(objs), version=CURRENT), "default/w")
    assert d.result == "preempt"
    assert before <= d.now <= time.time()
