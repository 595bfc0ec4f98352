"""FailedScheduling messages recorded from the real kube-scheduler v1.36.2, word for word.

Each file in ``failedscheduling/`` is a cluster with one pending pod and, in its first
document, what kube-scheduler v1.36.2 (default profile) decided for it and the message it
wrote (``failedscheduling/README.md``). They are upstream facts, copied unchanged. The part
after ``preemption:`` is DefaultPreemption's per-node statuses (docs/CONFORMANCE.md,
"Which status each node gets in the preemption message"): a node whose filter status was
UnschedulableAndUnresolvable — NodeResourcesFit among them when the pod requests more than
the node's whole allocatable — is "Preemption is not helpful for scheduling"; every other
node gets the status ``SelectVictimsOnNode`` returned for it.

The library (everything materialised), the fast cycle the simulator and ``bench`` use, and
the reference evaluator without vectorised paths must all print the recorded message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubepreempt import decide
from kubepreempt.cli import main
from kubepreempt.cluster import build_cluster
from kubepreempt.manifests import load_documents
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

CASES = sorted((Path(__file__).resolve().parent / "failedscheduling").glob("*.yaml"))
NOW = 1.9e9  # after every recorded start time


def header(path: Path) -> dict[str, Any]:
    """The case's first document: subject, result, message."""
    with path.open() as f:
        first = next(yaml.safe_load_all(f))
    assert first["kind"] == "Case"
    return first


def test_every_recorded_case_is_here() -> None:
    assert len(CASES) == 30


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_library_message_equals_kube_scheduler(path: Path) -> None:
    case = header(path)
    cluster = build_cluster(load_documents([str(path)]), warn=False)
    decision = decide.schedule(cluster, case["subject"], now=NOW)
    assert decision.result == case["result"]
    assert decision.message == case["message"]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_fast_and_reference_cycles_print_the_same_message(path: Path) -> None:
    case = header(path)
    cluster = build_cluster(load_documents([str(path)]), warn=False)
    pod = decide.resolve_pod(cluster, case["subject"])
    for fast, materialize in ((True, False), (False, True)):
        sched = Scheduler(cluster)
        res = cycle.schedule_one(sched, pod, now=NOW, evaluator=Evaluator(
            sched, now=NOW, fast=fast, materialize=materialize))
        assert (res.result, res.message) == (case["result"], case["message"]), (fast,
                                                                                 materialize)


@pytest.mark.parametrize("path", CASES[:3], ids=lambda p: p.stem)
def test_cli_prints_the_recorded_message(path: Path, capsys) -> None:
    case = header(path)
    assert main(["schedule", str(path), "--pod", case["subject"], "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["result"], out["message"]) == (case["result"], case["message"])
