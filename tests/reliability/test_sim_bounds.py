"""Absurd scenarios end with a clear error or a bounded run, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubepreempt.cli import main
from kubepreempt.sim.engine import DEFAULT_MAX_EVENTS
from kubepreempt.sim.scenario import DEFAULT_MAX_PODS

BASE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: blocker, namespace: default}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  annotations: {ANN}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""


def run(capsys, tmp_path: Path, annotations: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "s.yaml"
    path.write_text(BASE.replace("{ANN}", "{" + annotations + "}"))
    code = main(["simulate", str(path), "-o", "json", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_defaults_are_documented_numbers() -> None:
    assert DEFAULT_MAX_PODS == 1_000_000
    assert DEFAULT_MAX_EVENTS == 10_000_000


def test_runaway_replicas_are_refused(capsys, tmp_path) -> None:
    code, _, err = run(capsys, tmp_path, "kubepreempt.io/replicas: '1000000000000'")
    assert code == 2
    assert err.endswith(", document 3: Pod default/p: the scenario expands to more than "
                        "1000000 pods here (raise the limit with simulate --max-pods)\n")
    code, _, err = run(capsys, tmp_path, "kubepreempt.io/replicas: '11'", "--max-pods", "10")
    assert code == 2 and "more than 10 pods" in err
    code, _, err = run(capsys, tmp_path, "kubepreempt.io/replicas: '9'", "--max-pods", "10")
    assert code == 0, err  # 9 replicas + the blocker = 10 pods: within the limit


def test_event_limit_ends_a_far_future_run(capsys, tmp_path) -> None:
    # p cannot fit before its far-future peer arrives: the queue is flushed every 60 s
    # until then, billions of events. The limit ends it with a clear error...
    ann = "kubepreempt.io/arrival: '0'"
    far = BASE.replace("{ANN}", "{" + ann + "}") + (
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: late\n  namespace: default\n"
        "  annotations: {kubepreempt.io/arrival: '18446744073709551616'}\n"
        "spec: {containers: [{name: c}]}\n")
    path = tmp_path / "far.yaml"
    path.write_text(far)
    code = main(["simulate", str(path), "-o", "json", "--max-events", "2000"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith(f"error: {path}: the simulation reached 2000 events at simulated "
                          "time ")
    assert err.endswith("s; bound it with --until or raise --max-events\n")
    # ... and --until bounds it instead.
    code = main(["simulate", str(path), "-o", "json", "--until", "1h"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '"end": 3600.0' in out


@pytest.mark.parametrize("ann,message", [
    ("kubepreempt.io/duration: '" + "9" * 400 + "'", "is too large a number of seconds"),
    ("kubepreempt.io/arrival: " + "9" * 400, "is not a non-negative number of seconds"),
    ("kubepreempt.io/arrival: .inf", "is not a non-negative number of seconds"),
    ("kubepreempt.io/replicas: '3', kubepreempt.io/rate: 0.0000000000001/s",
     "is outside 1e-12..1e12 per second"),
    ("kubepreempt.io/replicas: '3', kubepreempt.io/rate: 10000000000000/s",
     "is outside 1e-12..1e12 per second"),
    ("kubepreempt.io/replicas: '５'", "is not a positive integer"),
])
def test_absurd_times_and_rates_are_refused(capsys, tmp_path, ann, message) -> None:
    code, _, err = run(capsys, tmp_path, ann)
    assert code == 2 and err.count("\n") == 1
    assert ", document 3: Pod default/p: annotation kubepreempt.io/" in err
    assert message in err
