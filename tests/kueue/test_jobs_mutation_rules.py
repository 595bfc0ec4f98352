"""The Workload of a queued Job or JobSet at its edges (upstream ``pkg/controller/jobs``
and ``jobframework.ExtractPriority``, main ff69552e): which objects are queued jobs, the
pod-template priority class, the derived name, and errors naming the job."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, NOW, cq, docs, flavor, lq, wl

from kubepreempt.api.errors import InputError, Source
from kubepreempt.kueue.admission import decide, load_inputs
from kubepreempt.kueue.jobs import is_queued_job, job_parallelism, job_workload_body, workload_name
from kubepreempt.manifests import RawObject

QUEUED = {"kueue.x-k8s.io/queue-name": "q"}


def _template(priority_class: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {
        "cpu": "1"}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"spec": spec}


def _job(spec: dict[str, Any], kind: str = "Job") -> RawObject:
    body = {"apiVersion": "batch/v1", "kind": kind,
            "metadata": {"name": "train", "namespace": "ns", "labels": dict(QUEUED)},
            "spec": spec}
    return RawObject(kind, body, Source("jobs.yaml", 0))


def test_only_jobs_and_jobsets_are_queued_jobs() -> None:
    """The queue-name label on another kind (here a Deployment) does not make it a job
    of Kueue's Job or JobSet integration."""
    assert is_queued_job(_job({"template": _template()}))
    assert not is_queued_job(_job({"template": _template()}, kind="Deployment"))


def test_a_bad_parallelism_is_an_error_naming_the_field_and_the_job() -> None:
    with pytest.raises(InputError) as err:
        job_parallelism(_job({"parallelism": -1, "template": _template()}))
    assert str(err.value) == ("jobs.yaml, document 1: Job ns/train: spec.parallelism -1 is "
                              "not a non-negative integer")


def test_the_pod_template_priority_class_names_the_workload_priority() -> None:
    """Without the priority-class label, ``ExtractPriority`` takes the first pod set whose
    template names a ``priorityClassName`` (``extractPriorityFromPodSets``): here the
    JobSet's second replicated job; the Workload refers to it as a PriorityClass."""
    rjobs = [{"name": "a", "template": {"spec": {"template": _template()}}},
             {"name": "b", "template": {"spec": {"template": _template("pc-high")}}}]
    body = job_workload_body(_job({"replicatedJobs": rjobs}, kind="JobSet"))
    assert (body["spec"]["priorityClassName"], body["spec"]["priorityClassSource"]) == (
        "pc-high", "scheduling.k8s.io/priorityclass")
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": "pc-high"}, "value": 30}
    job = _job({"parallelism": 1, "template": _template("pc-high")}).body
    inp = load_inputs(docs([pc, job]), version=CURRENT)
    assert inp.workloads["ns/job-train"].priority == 30


def test_the_workload_of_a_job_is_named_after_it() -> None:
    """``job-NAME`` by default (upstream: the lower-case kind, the name and a hash)."""
    assert workload_name("train") == "job-train"
    assert workload_name("train", "JobSet") == "jobset-train"


@pytest.mark.parametrize("replicated", [[], None])
def test_a_jobset_without_replicated_jobs_is_an_error(replicated: list | None) -> None:
    spec = {} if replicated is None else {"replicatedJobs": replicated}
    with pytest.raises(InputError) as err:
        job_workload_body(_job(spec, kind="JobSet"))
    assert str(err.value) == ("jobs.yaml, document 1: JobSet ns/train: spec.replicatedJobs "
                              "must list at least one replicated job")


def test_a_job_preemptor_is_named_by_its_workload_and_its_job() -> None:
    """The victims' Preempted condition names the preemptor as upstream's
    ``preemptionMessage`` does, ``(UID: <Workload UID>, JobUID: <job-uid label>)``: the
    derived Workload's UID is its name (``job-train``) and its job UID the Job's."""
    job = _job({"parallelism": 2, "template": _template()}).body
    job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "high"
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
           "metadata": {"name": "high"}, "value": 100}
    objs = [flavor("default"), cq("q", [("default", {"cpu": "2"})], within="LowerPriority"),
            lq("q", "q", namespace="ns"), wpc,
            wl("low", {"cpu": "2"}, priority=0, admitted="q", namespace="ns"), job]
    d = decide(load_inputs(docs(objs), version=CURRENT), "ns/train", NOW)
    assert d.victims == ["ns/low"]
    [preempted] = [c for c in d.victim_status()["ns/low"]["conditions"]
                   if c["type"] == "Preempted"]
    assert preempted["message"].startswith(
        "Preempted to accommodate a workload (UID: job-train, JobUID: train) due to ")


def _rj(name: str | None = "w", replicas: Any = 1, **job_spec: Any) -> dict[str, Any]:
    rj: dict[str, Any] = {"replicas": replicas,
                          "template": {"spec": {"template": _template(), **job_spec}}}
    if name is not None:
        rj["name"] = name
    return rj


@pytest.mark.parametrize(("replicated", "why"), [
    ([_rj(), _rj(None)], "spec.replicatedJobs[1].name is required"),
    (["w"], "spec.replicatedJobs[0].name is required"),
    ([_rj(replicas=-1)], "spec.replicatedJobs[0].replicas -1 is not a non-negative integer"),
    ([_rj(completions="2")], "spec.replicatedJobs[0].template.spec.completions '2' is not a "
                             "non-negative integer"),
    ([_rj(parallelism=True)], "spec.replicatedJobs[0].template.spec.parallelism True is not "
                              "a non-negative integer"),
])
def test_a_bad_replicated_job_is_an_error_naming_its_field(replicated: list, why: str) -> None:
    with pytest.raises(InputError) as err:
        job_workload_body(_job({"replicatedJobs": replicated}, kind="JobSet"))
    assert str(err.value) == f"jobs.yaml, document 1: JobSet ns/train: {why}"


@pytest.mark.parametrize(("spec", "count"), [
    ({}, 1),                                   # parallelism defaults to 1
    ({"parallelism": 0}, 0),
    ({"parallelism": 3, "completions": 0}, 0),
    ({"parallelism": 3, "completions": 3}, 3),
    ({"parallelism": 3, "completions": 5}, 3),
    ({"parallelism": 3, "completions": 2}, 2),
])
def test_a_jobs_pod_count_is_parallelism_capped_by_completions(spec: dict, count: int) -> None:
    """``podsCount()``: parallelism (defaulted to 1), replaced by completions only when
    completions is set and smaller."""
    assert job_parallelism(_job({**spec, "template": _template()})) == count


@pytest.mark.parametrize(("replicas", "spec", "count"), [
    (0, {"parallelism": 2}, 0),
    (2, {}, 2),
    (3, {"parallelism": 2, "completions": 1}, 3),
])
def test_a_replicated_jobs_pods_are_replicas_times_pods_per_replica(
        replicas: int, spec: dict, count: int) -> None:
    """JobSet ``PodSets()``: ``replicas`` x ``PodsCountPerReplica`` (parallelism, default
    1, capped by completions)."""
    body = job_workload_body(_job({"replicatedJobs": [_rj("w", replicas, **spec)]},
                                  kind="JobSet"))
    assert [(ps["name"], ps["count"]) for ps in body["spec"]["podSets"]] == [("w", count)]


def test_a_replicated_job_without_replicas_runs_once() -> None:
    """``replicas`` defaults to 1 (the JobSet CRD's ``+kubebuilder:default=1``)."""
    rj = _rj("w", parallelism=2)
    del rj["replicas"]
    body = job_workload_body(_job({"replicatedJobs": [rj]}, kind="JobSet"))
    assert body["spec"]["podSets"][0]["count"] == 2
