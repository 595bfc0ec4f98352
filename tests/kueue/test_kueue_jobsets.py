"""A queued JobSet is a Workload (issue 30): one pod set per replicated job, of
``replicas`` x ``PodsCountPerReplica`` pods (the job template's parallelism capped by its
completions), as upstream's ``pkg/controller/jobs/jobset`` ``PodSets()`` computes; the
same derivation serves ``kubepreempt kueue`` and ``simulate``."""

from __future__ import annotations

import json
from typing import Any

from builders.kueue import CURRENT, NOW, cq, docs, flavor, lq, wl

from kubepreempt.api.errors import Source
from kubepreempt.cli import main
from kubepreempt.kueue.admission import decide, load_inputs
from kubepreempt.kueue.jobs import job_pod_sets
from kubepreempt.manifests import RawObject, load_documents
from kubepreempt.sim.engine import simulate
from kubepreempt.sim.scenario import build_scenario


def _jobset(name: str, *replicated: tuple[str, int, int, int | None], cpu: str = "1",
            queue: str = "q", namespace: str = "default",
            annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """A suspended, queue-labelled JobSet; each replicated job is (name, replicas,
    parallelism, completions)."""
    rjobs = []
    for rname, replicas, parallelism, completions in replicated:
        job_spec: dict[str, Any] = {"parallelism": parallelism, "template": {"spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}
        if completions is not None:
            job_spec["completions"] = completions
        rjobs.append({"name": rname, "replicas": replicas, "template": {"spec": job_spec}})
    meta: dict[str, Any] = {"name": name, "namespace": namespace,
                            "labels": {"kueue.x-k8s.io/queue-name": queue}}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
            "spec": {"suspend": True, "replicatedJobs": rjobs}}


def _counts(obj: dict[str, Any]) -> list[tuple[str, int]]:
    return [(ps.name, ps.count) for ps in job_pod_sets(RawObject(obj["kind"], obj, Source()))]


def test_pod_set_counts_follow_upstreams_jobset_integration() -> None:
    # TestReclaimablePods' JobSet: replicated-job-1 (1 replica, parallelism 2,
    # completions 2) and replicated-job-2 (2 replicas, parallelism 3, completions 6):
    # "all done" reclaims the whole pod sets, 2 and 6 pods.
    js = _jobset("jobset", ("replicated-job-1", 1, 2, 2), ("replicated-job-2", 2, 3, 6))
    assert _counts(js) == [("replicated-job-1", 2), ("replicated-job-2", 6)]
    # TestPodSets-style: job1 (2 replicas x 1) and job2 (3 replicas, parallelism 2,
    # completions 3: min(2, 3) = 2 per replica).
    js = _jobset("jobset", ("job1", 2, 1, 1), ("job2", 3, 2, 3))
    assert _counts(js) == [("job1", 2), ("job2", 6)]
    # Completions below parallelism cap the pods per replica; no completions: parallelism.
    js = _jobset("jobset", ("a", 2, 4, 1), ("b", 1, 3, None))
    assert _counts(js) == [("a", 2), ("b", 3)]


def test_a_jobs_pod_count_is_capped_by_completions() -> None:
    # Job.podsCount(): parallelism, or completions when smaller.
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
           "spec": {"parallelism": 5, "completions": 2, "template": {"spec": {
               "containers": [{"name": "c"}]}}}}
    assert _counts(job) == [("main", 2)]


def _queue_objs() -> list[dict[str, Any]]:
    return [flavor("default"), cq("q", [("default", {"cpu": "6"})], within="LowerPriority"),
            lq("q", "q")]


def test_kueue_decides_for_a_jobset_by_its_name() -> None:
    # 6 cpu; a priority -1 Workload holds 3. The JobSet needs 1 + 2 x 2 = 5 cpu: 3 are
    # free, so it preempts the lower-priority Workload (InClusterQueue).
    objs = [*_queue_objs(), wl("low", {"cpu": "3"}, priority=-1, queue="q", admitted="q"),
            _jobset("train", ("driver", 1, 1, None), ("workers", 2, 2, 2))]
    inp = load_inputs(docs(objs), version=CURRENT)
    d = decide(inp, "default/train", NOW)
    assert d.workload == "default/jobset-train"
    assert (d.result, d.victims) == ("preempt", ["default/low"])
    assert d.flavors == {"driver": {"cpu": "default"}, "workers": {"cpu": "default"}}
    assert [(p.name, p.count) for p in inp.workloads["default/jobset-train"].pod_sets] == [
        ("driver", 1), ("workers", 4)]


def test_cli_takes_a_jobset_file(tmp_path, capsys) -> None:
    import yaml
    path = tmp_path / "js.yaml"
    path.write_text(yaml.safe_dump_all([*_queue_objs(), _jobset(
        "train", ("driver", 1, 1, None), ("workers", 2, 2, 2))]))
    assert main(["kueue", str(path), "--workload", "default/train", "-o", "json"]) in (0, None)
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert (out["workload"], out["result"]) == ("default/jobset-train", "admit")
    assert "JobSet" not in captured.err  # not a kind "kubepreempt does not use"


def test_simulate_runs_a_jobset_pod_set_by_pod_set(tmp_path) -> None:
    import yaml
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}
    js = _jobset("train", ("driver", 1, 1, None), ("workers", 2, 2, 2),
                 annotations={"kubepreempt.io/duration": "10s"})
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump_all([node, *_queue_objs(), js]))
    res = simulate(build_scenario(load_documents([str(path)])))
    kueue = [(e.time, e.type, e.pod, e.detail) for e in res.events
             if e.type.startswith("kueue-")]
    # Admitted at 0 s with both pod sets' flavors; 5 pods, named per replicated job.
    assert kueue[:2] == [
        (0.0, "kueue-created", "default/jobset-train", "queue q"),
        (0.0, "kueue-admitted", "default/jobset-train",
         "driver: cpu=default; workers: cpu=default")]
    bound = sorted(e.pod for e in res.events if e.type == "bound")
    assert bound == ["default/train-driver-0", *(f"default/train-workers-{i}"
                                                 for i in range(1, 5))]
    # Finished when all 5 pods succeeded, after their 10 s.
    assert kueue[-1][:3] == (10.0, "kueue-finished", "default/jobset-train")
    usage = res.metrics["kueue"]["clusterQueues"]["q"]["usage"]["default/cpu"]
    assert usage == [[0.0, 5000], [10.0, 0]]


def test_simulate_runs_a_workload_of_two_pod_sets(tmp_path) -> None:
    import yaml
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}
    two = wl("two", pod_sets=[
        {"name": "head", "count": 1, "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}},
        {"name": "workers", "count": 3, "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}], queue="q")
    two["metadata"]["annotations"] = {"kubepreempt.io/duration": "5s"}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump_all([node, *_queue_objs(), two]))
    res = simulate(build_scenario(load_documents([str(path)])))
    # 2 + 3 x 1 = 5 cpu of the queue's 6: admitted at once, pods named per pod set.
    assert sorted(e.pod for e in res.events if e.type == "bound") == [
        "default/two-head-0", "default/two-workers-1", "default/two-workers-2",
        "default/two-workers-3"]
    usage = res.metrics["kueue"]["clusterQueues"]["q"]["usage"]["default/cpu"]
    assert usage == [[0.0, 5000], [5.0, 0]]
