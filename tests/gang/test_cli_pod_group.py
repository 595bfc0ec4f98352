"""``kubepreempt schedule DUMP --pod-group NS/NAME`` on examples/gang/cluster.yaml.

Three 4-CPU nodes each run two 1.5-CPU batch pods (1 CPU free per node).
"""

import json
from pathlib import Path

from kubepreempt.cli import main
from kubepreempt.commands.schedule_group import run_pod_group

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gang" / "cluster.yaml"
WAIT = "pod group is unschedulable, pod group is waiting for preemption to complete"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gang_that_fits_is_scheduled(capsys):
    code, out, err = run(capsys, "schedule", str(EXAMPLE), "--pod-group", "team/eval",
                         "-o", "json")
    # One line says the v1beta1 objects turned the API on (GenericWorkload, 1.37).
    assert code == 0 and err.startswith("note: the input holds scheduling.k8s.io/v1beta1")
    assert err.count("\n") == 1
    data = json.loads(out)
    assert data["modelled"]["featureGates"]["GenericWorkload"] is True
    # One free CPU per node: the three 1-CPU pods spread one per node.
    assert data["result"] == "scheduled" and data["message"] == ""
    assert sorted(data["placements"].values()) == ["node-a", "node-b", "node-c"]
    assert data["victims"] == [] and data["podGroup"] == "team/eval"


def test_gang_preempts_and_waits(capsys):
    code, out, _ = run(capsys, "schedule", str(EXAMPLE), "--pod-group", "team/trainer",
                       "-o", "json")
    assert code == 0
    data = json.loads(out)
    # Each 2-CPU pod preempts one batch pod; the group cycle's Permit succeeds only
    # thanks to preemption, so the group waits (PodGroupInitiallyScheduled=False).
    assert data["result"] == "preempt" and data["message"] == WAIT
    assert data["condition"] == {"type": "PodGroupInitiallyScheduled", "status": "False",
                                 "reason": "Unschedulable", "message": WAIT}
    assert len(data["placements"]) == 4 and len(data["victims"]) == 4
    assert all(v.startswith("batch/") for v in data["victims"])
    assert data["priority"] == 100000 and data["minCount"] == 4


def test_gang_short_of_min_count_waits(capsys):
    code, out, _ = run(capsys, "schedule", str(EXAMPLE), "--pod-group", "sweep",
                       "--namespace", "team")
    assert code == 0
    assert "team/sweep (gang, minCount 3) is waiting: waiting for minCount pods from a " \
           "gang to appear in scheduling queue" in out


def test_unknown_pod_group_is_a_one_line_error(capsys):
    code, _, err = run(capsys, "schedule", str(EXAMPLE), "--pod-group", "team/nope")
    assert code == 2
    assert "--pod-group team/nope: no such PodGroup in the input" in err
    assert err.count("\n") == 1


def test_workload_aware_preemption_gate(capsys, tmp_path):
    # With WorkloadAwarePreemption on, a gang whose pods cannot preempt one by one (their
    # pod priority is below the running pods') preempts by its PodGroup's priority.

    manifest = tmp_path / "c.yaml"
    manifest.write_text("""
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: old, namespace: ns}
spec:
  nodeName: n1
  priority: 500
  schedulingGroup: {podGroupName: old}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: old, namespace: ns}
spec: {schedulingPolicy: {basic: {}}, priority: 10}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: new, namespace: ns}
spec: {schedulingPolicy: {gang: {minCount: 1}}, priority: 100}
---
apiVersion: v1
kind: Pod
metadata: {name: new-0, namespace: ns}
spec:
  priority: 100
  schedulingGroup: {podGroupName: new}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
""")
    run_pod_group([str(manifest)], "ns/new", "json", True, 0,
                  gates={"WorkloadAwarePreemption": True})
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == "preempt" and data["victims"] == ["ns/old"]
    assert data["placements"] == {"ns/new-0": "n1"}
    run_pod_group([str(manifest)], "ns/new", "json", True, 0)
    assert json.loads(capsys.readouterr().out)["result"] == "unschedulable"
