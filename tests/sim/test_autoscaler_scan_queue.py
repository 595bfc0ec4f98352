"""The autoscaler loop queues each scan time on the simulator kernel once.

``StaticAutoscaler`` runs one ``RunOnce`` per ``--scan-interval`` tick; a loop woken early
(a node deleted by the scan itself, a pod arriving) runs its scan then, and a later wake
at a time already queued must not queue that time again. A second copy would run no scan
(it finds the loop's next scan elsewhere) but would still be a kernel event: it would count
in ``metrics.events`` and use up one of ``--max-events``. The bundled busy day with the
autoscaler and node pressure on has a scan that runs twice at one instant, both runs
scheduling the next tick.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kubepreempt.manifests import load_documents
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.autoscaler import Autoscaler, AutoscalerOptions
from kubepreempt.sim.kernel import Kernel, Priority

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sim" / "busy-day-workloads.yaml"


def test_no_scan_time_is_queued_twice(monkeypatch) -> None:
    pending: Counter[float] = Counter()
    doubled: list[float] = []
    schedule = Kernel.schedule

    def watched(self, at, priority, handler, payload=None):
        if priority == Priority.SCAN and getattr(handler, "__func__", None) \
                is Autoscaler._on_scan:
            if pending[at]:
                doubled.append(at)
            pending[at] += 1
        return schedule(self, at, priority, handler, payload)

    on_scan = Autoscaler._on_scan

    def scanned(self, t):
        pending[t] -= 1
        return on_scan(self, t)

    monkeypatch.setattr(Kernel, "schedule", watched)
    monkeypatch.setattr(Autoscaler, "_on_scan", scanned)
    scenario = build_scenario(load_documents([str(EXAMPLE)]), 0)
    result = simulate(scenario, node_pressure=True, autoscale=AutoscalerOptions())
    assert result.metrics["autoscaler"]["groups"]  # the autoscaler ran
    assert doubled == []
