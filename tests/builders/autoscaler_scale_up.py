"""Builders for Cluster Autoscaler scale-up scenarios: node-group nodes with a given cpu
and memory, pods requesting both, a run under a chosen seed, and the scale-ups made."""

from __future__ import annotations

import textwrap

from builders.controllers import CLASSES
from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sim.engine import SimResult


def run_seeded(text: str, seed: int, until: float | None = None, **options) -> SimResult:
    """Simulate a scenario (YAML text, after ``CLASSES``) with the Cluster Autoscaler on,
    its random choices seeded by ``seed``."""
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(CLASSES + text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, 0), seed=seed, until=until,
                    autoscale=AutoscalerOptions(**options))


def sized_node(name: str, group: str, cpu: str, memory: str, hi: int = 3,
               priority: int | None = None) -> str:
    """A Node of node group ``group`` (sizes 1..``hi``) with ``cpu`` and ``memory``."""
    prio = (f'\n    kubepreempt.io/node-group-priority: "{priority}"'
            if priority is not None else "")
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
  annotations:
    kubepreempt.io/node-group: "{group}"
    kubepreempt.io/node-group-min: "1"
    kubepreempt.io/node-group-max: "{hi}"{prio}
status:
  allocatable: {{cpu: "{cpu}", memory: {memory}, pods: "110"}}
"""


def pod(name: str, cpu: str, memory: str = "0", node: str = "") -> str:
    """A bare Pod (priority 0, may not preempt) requesting ``cpu`` and ``memory``,
    optionally bound to ``node``."""
    node_line = f"\n  nodeName: {node}" if node else ""
    return f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  priority: 0
  preemptionPolicy: Never{node_line}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}", memory: "{memory}"}}}}
"""


def scale_ups(r: SimResult) -> list[tuple[float, str]]:
    """``(time, detail)`` of each scale-up."""
    return [(e.time, e.detail) for e in r.events if e.type == "scale-up"]
