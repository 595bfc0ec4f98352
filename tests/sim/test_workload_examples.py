"""examples/sim/cascade.yaml and overprovisioning.yaml: the timelines their comments
describe, worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubepreempt.sim import load_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sim"


def _owner(pod: str) -> str:
    return pod.split("/")[-1].split("-")[0]


def test_cascade_example() -> None:
    """checkout (high) preempts one api pod on each web node at 300; the two api
    replacements preempt the four etl pods on batch-1 (2 CPU each: two 1-CPU victims).
    etl victims exit after 5 s: the api replacements bind at 305; api victims after 10 s:
    checkout binds at 310. The Job counted 4 failures at 300, so its 4 new pods wait the
    back-off for 4 failures, 10 s * 2^3 = 80 s: created at 380, pending (nothing lower)."""
    r = simulate(load_scenario([str(EXAMPLES / "cascade.yaml")], seed=1), seed=1)
    preempted = sorted((e.time, _owner(e.pod), e.node) for e in r.events
                       if e.type == "preempted")
    assert preempted == [(300.0, "api", "web-1"), (300.0, "api", "web-2")] + [
        (300.0, "etl", "batch-1")] * 4
    bound_late = sorted((e.time, _owner(e.pod), e.node) for e in r.events
                        if e.type == "bound" and e.time >= 300)
    assert bound_late == [(305.0, "api", "batch-1"), (305.0, "api", "batch-1"),
                          (310.0, "checkout", "web-1"), (310.0, "checkout", "web-2")]
    etl_arrivals = sorted(e.time for e in r.events
                          if e.type == "arrived" and _owner(e.pod) == "etl")
    assert etl_arrivals == [0.0] * 4 + [380.0] * 4
    assert r.metrics["jobs"]["Job/jobs/etl"] == {"succeeded": 0, "failed": 4,
                                                 "status": "Running"}
    assert sum(1 for rec in r.records.values() if rec.phase == "Pending") == 4


@pytest.mark.parametrize(("queue", "burst_bound"), [("classic", 301.0), ("1.36", 300.0)])
def test_overprovisioning_example(queue: str, burst_bound: float) -> None:
    """The burst preempts both pause pods at 300 (grace 0: gone at once) and binds at
    301 with the classic queue, after its 1-s scheduling back-off; with 1.36's the pause
    pods' deletion moves it to backoffQ and, activeQ running dry, it is popped at once and
    binds at 300. The pause ReplicaSet's two new pods (priority -10, not below the cutoff)
    are pending; the scan at 300 binpacks them onto one 4-CPU template node, Ready at 360,
    where both bind."""
    scen = load_scenario([str(EXAMPLES / "overprovisioning.yaml")], seed=1)
    r = simulate(scen, queue=queue, seed=1, autoscale=AutoscalerOptions())
    ups = [(e.time, e.detail) for e in r.events if e.type == "scale-up"]
    assert ups == [(300.0, "group pool: +1 node(s) for 2 pod(s)")]
    bound_late = sorted((e.time, _owner(e.pod), e.node) for e in r.events
                        if e.type == "bound" and e.time >= 300)
    assert [(t, o) for t, o, _ in bound_late] == [
        (burst_bound, "burst"), (burst_bound, "burst"), (360.0, "overprovisioning"),
        (360.0, "overprovisioning")]
    assert {n for *_, n in bound_late[2:]} == {"pool-1"}
    a = r.metrics["autoscaler"]
    assert (a["nodesAdded"], a["peakNodes"], a["nodeCount"][:2]) == (1, 3, [[0.0, 2],
                                                                          [360.0, 3]])
    # Without the autoscaler the pause pods stay pending.
    r = simulate(load_scenario([str(EXAMPLES / "overprovisioning.yaml")], seed=1), seed=1)
    assert sum(1 for rec in r.records.values() if rec.phase == "Pending") == 2
