"""Each disruption cause is counted under its own name (metrics, accounting, per pod):
``preempted`` is the scheduler's preemption only; kubelet and node-removal losses are
``evictedKubeletAdmission``, ``evictedNodePressure``, ``evictedScaleDown``,
``evictedNodeRemoved`` (upstream's DisruptionTarget reasons PreemptionByScheduler,
TerminationByKubelet, EvictionByEvictionAPI, DeletionByPodGC)."""

from __future__ import annotations

import json

from builders.autoscaler import SCALE_DOWN
from builders.autoscaler import run as run_autoscaled
from builders.controllers import deployment
from builders.node_pressure import SEED_EXAMPLE
from builders.sim import node, pod, run

from kubepreempt.sim.metrics import DISRUPTIONS


def counts(metrics: dict, cls: str) -> dict[str, int]:
    return {k: metrics["classes"][cls][k] for k in DISRUPTIONS}


def test_scheduler_preemption_and_node_pressure_are_counted_apart() -> None:
    """The design doc's eviction workflow (test_node_pressure): the scheduler preempts
    burstable, then the kubelet evicts best-effort under memory pressure: class
    "(priority 100)" has 1 preempted and 1 evictedNodePressure, not 2 preempted."""
    r = run(SEED_EXAMPLE, node_pressure=True)
    m = r.metrics
    assert counts(m, "(priority 100)") == {
        "preempted": 1, "evictedKubeletAdmission": 0, "evictedNodePressure": 1,
        "evictedScaleDown": 0, "evictedNodeRemoved": 0}
    assert (m["preemptions"], m["evictedNodePressure"]) == (1, 1)
    acc = m["accounting"]
    assert (acc["preempted"], acc["evicted"]) == (1, 1)
    pods = {k: v.to_json()["disruption"] for k, v in r.records.items()}
    assert pods == {"default/burstable": "preempted",
                    "default/best-effort": "evictedNodePressure", "default/high": None}


def test_pod_lost_with_its_node_is_evicted_node_removed() -> None:
    """n1 leaves at 100 s (kubepreempt.io/removal) with x running on it: x is deleted
    with the node (upstream PodGC: DeletionByPodGC), counted as evictedNodeRemoved, not
    preempted; its end state is removed."""
    r = run(node("n1", 1, removal="100") + pod("x", 1, 0, node_name="n1"))
    m = r.metrics
    assert counts(m, "(priority 0)")["evictedNodeRemoved"] == 1
    assert (m["preemptions"], m["evictedNodeRemoved"]) == (0, 1)
    assert m["accounting"]["removed"] == 1


def test_simulate_json_and_terminal_name_each_cause(tmp_path, capsys) -> None:
    from kubepreempt.cli import main
    path = tmp_path / "s.yaml"
    path.write_text(SEED_EXAMPLE)
    assert main(["simulate", str(path), "--node-pressure", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["classes"]["(priority 100)"]["preempted"] == 1
    assert out["metrics"]["evictedNodePressure"] == 1
    assert main(["simulate", str(path), "--node-pressure"]) == 0
    text = capsys.readouterr().out
    assert "Evicted (counted apart from preempted): 1 by node-pressure eviction." in text


def test_scale_down_drain_is_evicted_scale_down() -> None:
    """test_autoscaler's scale-down: web (class mid) is evicted from n2 by the drain
    (upstream: the Eviction API, EvictionByEvictionAPI) and its replacement binds on n1."""
    web = deployment("web", 1, "mid").replace('cpu: "1"', 'cpu: "500m"')
    m = run_autoscaled(SCALE_DOWN + web).metrics
    assert counts(m, "mid")["evictedScaleDown"] == 1
    assert (m["preemptions"], m["evictedScaleDown"], m["accounting"]["evicted"]) == (0, 1, 1)
