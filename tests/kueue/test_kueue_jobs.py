"""``kubepreempt kueue`` decides for a queued ``batch/v1`` Job through the Workload Kueue's
Job integration derives for it (one pod set ``main`` of ``parallelism`` pods), the same
derivation the simulator uses."""

from __future__ import annotations

import json
from typing import Any

from builders.kueue import CURRENT, NOW, cq, docs, flavor, lq, wl

from kubepreempt.cli import main
from kubepreempt.kueue.admission import decide, load_inputs


def _job(name: str, cpu: str, parallelism: int, priority_class: str = "",
         namespace: str = "default") -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/queue-name": "q"}
    if priority_class:
        labels["kueue.x-k8s.io/priority-class"] = priority_class
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"parallelism": parallelism, "suspend": True, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}}


def _wpc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
            "metadata": {"name": name}, "value": value}


def test_a_queued_job_preempts_through_its_workload() -> None:
    # cq: 4 cpu, withinClusterQueue LowerPriority; a 3-cpu Workload of priority 0 holds
    # quota. The Job (2 pods x 1 cpu, WorkloadPriorityClass high = 100) needs 2 cpu of
    # which 1 is free: it preempts the lower-priority Workload in its queue.
    objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})], within="LowerPriority"),
            lq("q", "q"), _wpc("high", 100),
            wl("low", {"cpu": "3"}, priority=0, queue="q", admitted="q"),
            _job("train", "1", 2, priority_class="high")]
    inp = load_inputs(docs(objs), version=CURRENT)
    d = decide(inp, "default/train", NOW)
    assert d.workload == "default/job-train"
    assert d.result == "preempt"
    assert d.victims == ["default/low"]
    assert inp.workloads["default/job-train"].priority == 100
    assert inp.workloads["default/job-train"].pod_sets[0].count == 2


def test_a_job_whose_workload_is_given_is_not_derived_again() -> None:
    owned = wl("job-train-abc12", {"cpu": "1"}, queue="q")
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job",
                                             "name": "train", "uid": "u"}]
    objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]), lq("q", "q"), owned,
            _job("train", "1", 2)]
    inp = load_inputs(docs(objs), version=CURRENT)
    assert sorted(inp.workloads) == ["default/job-train-abc12"]


def test_cli_workload_names_a_job(capsys) -> None:
    code = main(["kueue", "examples/sim/kueue-reclaim.yaml", "--workload", "team-a/a1",
                 "-o", "json", "--now", "2026-01-01T00:00:00Z"])
    out = json.loads(capsys.readouterr().out)
    # Nothing holds quota in the file: a1's 4 cpu fit team-a's nominal 4.
    assert code in (0, None)
    assert (out["workload"], out["result"], out["flavors"]) == (
        "team-a/job-a1", "admit", {"main": {"cpu": "default"}})
