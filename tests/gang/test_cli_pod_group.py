"""``kubepreempt schedule DUMP --pod-group NS/NAME`` on examples/gang/cluster.yaml.

Three 4-CPU nodes each run two 1.5-CPU batch pods (1 CPU free per node).
"""

import json
from pathlib import Path

from kubepreempt.cli import main
from kubepreempt.commands.schedule_group import run_pod_group

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gang" / "cluster.yaml"
GROUP_UNSCHEDULABLE = "pod group is unschedulable"


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
    # GenericWorkload (1.37) turns workload-aware preemption on: the members' own cycles
    # run no PostFilter (their messages are the bare fit errors), the group algorithm
    # fails, and the group preempts as one. With every batch pod gone the four 2-CPU pods
    # go a, b, c, a (least allocated, ties by name); units are then tried in place, the
    # earliest started first: batch-1 and batch-2 (node-a, full) go, batch-3 fits beside
    # trainer-1 on node-b, batch-4 does not, batch-5 fits on node-c, batch-6 does not.
    assert data["result"] == "preempt" and data["message"] == GROUP_UNSCHEDULABLE
    assert data["condition"] == {"type": "PodGroupInitiallyScheduled", "status": "False",
                                 "reason": "Unschedulable", "message": GROUP_UNSCHEDULABLE}
    assert data["placements"] == {"team/trainer-0": "node-a", "team/trainer-1": "node-b",
                                  "team/trainer-2": "node-c", "team/trainer-3": "node-a"}
    assert data["victims"] == ["batch/batch-1", "batch/batch-2", "batch/batch-4",
                               "batch/batch-6"]
    assert {m["message"] for m in data["members"]} == {
        "0/3 nodes are available: 3 Insufficient cpu."}
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
