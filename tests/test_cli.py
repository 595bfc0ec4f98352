"""The command line: inputs in every form, JSON contract, and one-line input errors."""

import io
import json
import sys
from pathlib import Path

import pytest

from kubepreempt.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "basic"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_example_preempts_on_the_node_with_the_youngest_victim(capsys) -> None:
    code, out, _ = run(capsys, "schedule", str(EXAMPLE), "--pod", "shop/checkout", "-o", "json")
    assert code == 0
    # node-a and node-b each need one priority-1000 victim; batch-2 started later -> node-b.
    got = json.loads(out)
    # the release decided as: the default, Kubernetes 1.37
    assert got.pop("modelled")["kubernetes"] == "1.37"
    assert got == {"pod": "shop/checkout", "result": "preempt", "node": "node-b",
                               "victims": ["jobs/batch-2"], "pdbViolations": 0,
                               "clearedNominations": [],
                               # no --seed: the fixed default, recorded
                               "seed": 0,
                               # the profile that decided (no configuration: the default)
                               "profile": "default-scheduler",
                               # A successful PostFilter's empty message replaces the others':
                               # the pod's condition carries only the filter histogram.
                               "message": "0/3 nodes are available: 1 node(s) had untolerated "
                                          "taint(s), 2 Insufficient cpu."}


def test_readable_output_and_explain(capsys) -> None:
    code, out, _ = run(capsys, "schedule", str(EXAMPLE), "--pod", "shop/checkout", "--explain")
    assert code == 0
    assert "preempts 1 pod(s) on node-b" in out
    assert "Preemption candidates" in out
    assert "latest start time" in out


def test_json_list_and_stdin(capsys, monkeypatch) -> None:
    items = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "2", "memory": "1Gi", "pods": "10"}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "a"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
    ]
    doc = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(doc.encode())))
    code, out, err = run(capsys, "schedule", "-", "--pod", "a/p", "-o", "json")
    assert code == 0
    assert json.loads(out)["node"] == "n1"
    assert err.strip() == ("warning: skipped objects of kinds kubepreempt does not use here: "
                           "1 ConfigMap")


def test_multi_document_yaml_and_directories(tmp_path: Path, capsys) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "nodes.yaml").write_text(
        "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: '5'}}\n---\n"
        "kind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: '4', pods: '5'}}\n")
    (tmp_path / "sub" / "pod.yml").write_text(
        "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources: {requests: {cpu: '2'}}\n")
    code, out, _ = run(capsys, "schedule", str(tmp_path), "--pod", "default/p", "-o", "json")
    assert code == 0
    assert json.loads(out)["node"] == "n2"


def test_unschedulable_message_as_upstream(tmp_path: Path, capsys) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(
        "kind: Node\nmetadata: {name: a}\nspec: {taints: [{key: k, effect: NoSchedule}]}\n"
        "status: {allocatable: {cpu: '8', pods: '5'}}\n---\n"
        "kind: Node\nmetadata: {name: b}\nstatus: {allocatable: {cpu: '1', pods: '5'}}\n---\n"
        "kind: Node\nmetadata: {name: c}\nstatus: {allocatable: {cpu: '1', pods: '5'}}\n---\n"
        "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources: {requests: {cpu: '2'}}\n")
    code, out, _ = run(capsys, "schedule", str(f), "--pod", "default/p", "-o", "json",
                       "--no-preemption")
    assert code == 0
    got = json.loads(out)
    assert got["result"] == "unschedulable" and got["node"] is None
    # DefaultPreemption off; the DynamicResources PostFilter still reports (no claims).
    assert got["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                              "2 Insufficient cpu. no new claims to deallocate")


BAD_INPUTS = {
    "malformed": ("kind: Pod\nmetadata: {name: [\n", "line 3"),
    "no-name": ("kind: Node\nmetadata: {}\n",
                "Node: metadata.name: Required value: name or generateName is required"),
    "bad-quantity": ("kind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: 1x}}\n",
                     'Node n: Node "n" is invalid: status.allocatable.cpu: Invalid value: "1x"'),
    "unknown-class": ("kind: Pod\nmetadata: {name: p}\nspec: {priorityClassName: gold, "
                      "containers: []}\n", "Pod default/p: unknown PriorityClass 'gold'"),
    "duplicate": ("kind: Node\nmetadata: {name: n}\n---\nkind: Node\nmetadata: {name: n}\n",
                  "Node n: duplicate object"),
    "missing-node": ("kind: Pod\nmetadata: {name: p}\nspec: {nodeName: ghost, containers: []}\n",
                     "Pod default/p: bound to node 'ghost', which is not in the input"),
    "no-kind": ("metadata: {name: x}\n", "document has no kind"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_exit_2(case: str, tmp_path: Path, capsys) -> None:
    text, expected = BAD_INPUTS[case]
    f = tmp_path / f"{case}.yaml"
    f.write_text(text)
    code, out, err = run(capsys, "schedule", str(f), "--pod", "default/p")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert str(f) in err
    assert expected in err
    assert "Traceback" not in err


def test_pod_selection_errors(capsys) -> None:
    code, _, err = run(capsys, "schedule", str(EXAMPLE), "--pod", "shop/nope")
    assert code == 2 and "no such pod" in err
    code, _, err = run(capsys, "schedule", str(EXAMPLE), "--pod", "shop/web-1")
    assert code == 2 and "already bound to node node-a" in err


def test_missing_file(capsys) -> None:
    code, _, err = run(capsys, "schedule", "/no/such/file.yaml", "--pod", "a/b")
    assert code == 2 and "no such file" in err


def test_console_entry_point_flushes_output_and_exit_status() -> None:
    import subprocess

    ok = subprocess.run([sys.executable, "-m", "kubepreempt", "schedule", str(EXAMPLE),
                         "--pod", "shop/checkout", "-o", "json"], capture_output=True, text=True)
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["node"] == "node-b"
    bad = subprocess.run([sys.executable, "-m", "kubepreempt", "schedule", str(EXAMPLE),
                          "--pod", "shop/nope"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.strip() == "error: --pod shop/nope: no such pod in the input"
