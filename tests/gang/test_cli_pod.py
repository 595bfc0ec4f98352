"""``kubepreempt schedule DUMP --pod NS/NAME`` with the 1.37 workload API in the input.

examples/gang/cluster.yaml: three 4-CPU nodes each run two 1.5-CPU batch pods (1 CPU
free per node); team/trainer is a gang of four 2-CPU pods (minCount 4).
"""

import json
from pathlib import Path

from kubepreempt.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gang" / "cluster.yaml"
TAKEN_ON = "note: the input holds scheduling.k8s.io/v1beta1 objects, so GenericWorkload"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_gang_member_decides_its_group(capsys):
    # kube-scheduler pops the whole PodGroup when one of its pods is popped, so --pod of
    # a member answers as --pod-group team/trainer does, and says so in one line.
    code, out, err = run(capsys, "schedule", str(EXAMPLE), "--pod", "team/trainer-2",
                         "-o", "json")
    assert code == 0
    lines = err.splitlines()
    assert lines[0].startswith(TAKEN_ON)
    assert lines[1] == ("note: pod team/trainer-2 belongs to PodGroup team/trainer, and "
                        "kube-scheduler pops the whole group: deciding the group (as "
                        "--pod-group)")
    assert len(lines) == 2
    data = json.loads(out)
    _, group_out, _ = run(capsys, "schedule", str(EXAMPLE), "--pod-group", "team/trainer",
                          "-o", "json")
    assert data == json.loads(group_out)
    assert data["podGroup"] == "team/trainer" and data["result"] == "preempt"


def test_with_the_gate_off_a_member_is_a_plain_pod(capsys):
    # GenericWorkload=false: no gang scheduling; the 2-CPU pod preempts one batch pod.
    code, out, err = run(capsys, "schedule", str(EXAMPLE), "--pod", "team/trainer-2",
                         "--feature-gates", "GenericWorkload=false", "-o", "json")
    assert code == 0 and "belongs to PodGroup" not in err and TAKEN_ON not in err
    data = json.loads(out)
    assert data["result"] == "preempt" and len(data["victims"]) == 1
    assert data["modelled"]["featureGates"]["GenericWorkload"] is False


def test_a_plain_pod_with_podgroups_in_the_input_takes_the_gate_on(capsys, tmp_path):
    dump = tmp_path / "c.yaml"
    dump.write_text(EXAMPLE.read_text() + """
---
apiVersion: v1
kind: Pod
metadata: {name: lone, namespace: team}
spec:
  priorityClassName: training-high
  containers: [{name: c, image: job, resources: {requests: {cpu: "1"}}}]
""")
    code, out, err = run(capsys, "schedule", str(dump), "--pod", "team/lone", "-o", "json")
    assert code == 0 and err.startswith(TAKEN_ON) and err.count("\n") == 1
    data = json.loads(out)
    assert data["result"] == "scheduled"
    assert data["modelled"]["featureGates"]["GenericWorkload"] is True


MISSING = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: absent}
  containers: [{name: c, image: job, resources: {requests: {cpu: "1"}}}]
"""


def test_a_pod_naming_a_missing_podgroup_is_reported_and_scheduled_plain(capsys, tmp_path):
    dump = tmp_path / "c.yaml"
    dump.write_text(MISSING)
    code, out, err = run(capsys, "schedule", str(dump), "--pod", "ml/w-0", "-o", "json")
    assert code == 0
    assert err == ("warning: 1 pod(s) name a PodGroup that is not in the input (ml/w-0 -> "
                   "ml/absent); they are decided as plain pods (GenericWorkload=true holds "
                   "them for their PodGroup)\n")
    data = json.loads(out)
    assert data["result"] == "scheduled" and data["node"] == "n1"


def test_with_the_gate_set_a_missing_podgroup_holds_the_pod(capsys, tmp_path):
    # GenericWorkload=true: the GangScheduling PreEnqueue holds a pod until its PodGroup
    # exists (schedule_pod_group with no PodGroup object: waiting).
    dump = tmp_path / "c.yaml"
    dump.write_text(MISSING)
    code, out, err = run(capsys, "schedule", str(dump), "--pod", "ml/w-0",
                         "--feature-gates", "GenericWorkload=true", "-o", "json")
    assert code == 0
    assert "each is held until its PodGroup exists" in err
    assert "belongs to PodGroup ml/absent" in err
    data = json.loads(out)
    assert data["podGroup"] == "ml/absent" and data["result"] == "waiting"
    assert data["placements"] == {}
