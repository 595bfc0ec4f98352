"""``kubepreempt kueue`` end to end: JSON/YAML contracts, examples, one-line input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from builders.kueue import cq, flavor, lq, wl

from kubepreempt.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kueue"
CLASSIC = str(EXAMPLES / "classic.yaml")
FAIR = str(EXAMPLES / "fair-sharing.yaml")


def _run(capsys, *args: str) -> tuple[int, str, str]:
    """Run the CLI as Kueue v0.7 (these tests were written for it)."""
    code = main([*args, "--kueue-version", "v0.7"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_classic_example_json(capsys) -> None:
    code, out, _ = _run(capsys, "kueue", CLASSIC, "--workload", "team-a/training", "-o", "json")
    assert code == 0
    got = json.loads(out)
    assert got["result"] == "preempt"
    assert got["clusterQueue"] == "team-a"
    assert got["victims"] == ["team-a/a-low", "team-b/b-job-2"]
    assert got["reasons"] == {"team-a/a-low": "InClusterQueue",
                              "team-b/b-job-2": "InCohortReclamation"}
    assert got["flavors"] == {"workers": {"cpu": "default-flavor", "memory": "default-flavor"}}
    assert got["borrowing"] is False


def test_classic_example_yaml_conditions(capsys) -> None:
    code, out, _ = _run(capsys, "kueue", CLASSIC, "--workload", "team-a/training", "-o", "yaml",
                        "--now", "2024-05-31T18:42:33Z")
    assert code == 0
    status = yaml.safe_load(out)["victimStatus"]
    msg = ("Preempted to accommodate a workload (UID: 5515f7da-d2ea-4851-9e9c-6b8b3333734d) "
           "in the ClusterQueue")
    conds = {c["type"]: c for c in status["team-a/a-low"]["conditions"]}
    # The seed's example, verbatim.
    assert conds["Evicted"] == {"lastTransitionTime": "2024-05-31T18:42:33Z", "message": msg,
                                "observedGeneration": 1, "reason": "Preempted",
                                "status": "True", "type": "Evicted"}
    assert conds["Preempted"] == {"lastTransitionTime": "2024-05-31T18:42:33Z", "message": msg,
                                  "reason": "InClusterQueue", "status": "True",
                                  "type": "Preempted"}
    cohort = {c["type"]: c for c in status["team-b/b-job-2"]["conditions"]}
    assert cohort["Preempted"]["reason"] == "InCohort"
    assert cohort["Evicted"]["message"].endswith("in the cohort")


def test_fair_example(capsys) -> None:
    code, out, _ = _run(capsys, "kueue", FAIR, "--workload", "team-c/c-new", "-o", "json",
                        "--explain")
    got = json.loads(out)
    assert code == 0
    assert got["victims"] == ["team-b/b5"]  # highest share, most recently admitted
    assert got["reasons"] == {"team-b/b5": "InCohortFairSharing"}
    assert got["explain"]["sharesBefore"] == {"team-a": 0, "team-b": 222, "team-c": 0}
    assert got["explain"]["sharesAfter"] == {"team-a": 0, "team-b": 111, "team-c": 0}


def test_table_and_explain_output(capsys) -> None:
    code, out, _ = _run(capsys, "kueue", CLASSIC, "--workload", "team-a/training", "--explain")
    assert code == 0
    assert "preempt" in out and "InCohortReclamation" in out
    assert "skip team-b/b-job-1: team-b no longer borrows" in out


def _write(tmp_path: Path, objs: list[dict]) -> str:
    p = tmp_path / "in.yaml"
    p.write_text(yaml.safe_dump_all(objs))
    return str(p)


def test_admit_and_pending(tmp_path: Path, capsys) -> None:
    objs = [flavor("f"), cq("q", [("f", {"cpu": "2"})]), lq("lq", "q"),
            wl("small", {"cpu": "1"}, queue="lq"), wl("big", {"cpu": "3"}, queue="lq")]
    path = _write(tmp_path, objs)
    _, out, _ = _run(capsys, "kueue", path, "--workload", "default/small", "-o", "json")
    assert json.loads(out)["result"] == "admit"
    _, out, _ = _run(capsys, "kueue", path, "--workload", "big", "-o", "json")
    got = json.loads(out)
    assert got["result"] == "pending" and got["victims"] == []
    assert got["message"] == ("couldn't assign flavors to pod set main: insufficient quota for "
                              "cpu in flavor f in ClusterQueue")


BAD = [
    ([cq("q", [("f", {"cpu": "lots"})])], "ClusterQueue q"),
    ([cq("q", [("f", {"cpu": "1"})], within="Sometimes")], "withinClusterQueue"),
    ([wl("w", {"cpu": "1"}, priority=None) | {"spec": {"podSets": []}}], "Workload default/w"),
    ([wl("w", {"cpu": "-1"})], "negative"),
    ([{"kind": "Workload", "metadata": {"name": "w", "namespace": "default"},
       "spec": {"podSets": [{"name": "main", "count": 1, "template": {}}],
                "priorityClassName": "nope"}}], "unknown priority class"),
    ([{"kind": "Configuration", "fairSharing": {"enable": True,
                                                 "preemptionStrategies": ["Whatever"]}}],
     "Configuration"),
    ([{"kind": "LocalQueue", "metadata": {"name": "l", "namespace": "x"}, "spec": {}}],
     "LocalQueue x/l"),
]


@pytest.mark.parametrize("objs,needle", BAD)
def test_bad_input_is_one_line_exit_2(tmp_path: Path, capsys, objs, needle) -> None:
    path = _write(tmp_path, [*objs, wl("target", {"cpu": "1"}, namespace="t")])
    code, out, err = _run(capsys, "kueue", path, "--workload", "t/target", "-o", "json")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert needle in err
    assert "in.yaml" in err


def test_unknown_workload_is_input_error(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, [flavor("f")])
    code, _, err = _run(capsys, "kueue", path, "--workload", "ns/missing")
    assert code == 2 and "ns/missing" in err and err.count("\n") == 1
