"""Builders for Cluster Autoscaler scenarios: node-group nodes, bare pods, a run with
the autoscaler on, its events, and a two-node group whose second node is unneeded."""

from __future__ import annotations

import textwrap

from builders.controllers import CLASSES, short
from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sim.engine import SimResult


def run(text: str, until: float | None = None, seed: int = 0, **options) -> SimResult:
    """Simulate a scenario (YAML text, after ``CLASSES``) with the Cluster Autoscaler on,
    its random choices seeded by ``seed``."""
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(CLASSES + text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, 0), seed=seed, until=until,
                    autoscale=AutoscalerOptions(**options))


def group_node(name: str, cpu: int | str = 2, group: str = "pool", lo: str = "1",
               hi: str = "3", extra_ann: str = "", labels: str = "",
               memory: str = "64Gi") -> str:
    """A Node of node group ``group`` (sizes ``lo``..``hi``) with ``cpu`` cores and
    ``memory``."""
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}{labels}}}
  annotations:
    kubepreempt.io/node-group: "{group}"
    kubepreempt.io/node-group-min: "{lo}"
    kubepreempt.io/node-group-max: "{hi}"{extra_ann}
status:
  allocatable: {{cpu: "{cpu}", memory: {memory}, pods: "110"}}
"""


def bare(name: str, cpu: str, priority: int, node: str = "", arrival: str = "",
         exit_after: str = "") -> str:
    """A bare Pod (no controller) requesting ``cpu``, optionally bound to ``node``."""
    ann = []
    if arrival:
        ann.append(f'kubepreempt.io/arrival: "{arrival}"')
    if exit_after:
        ann.append(f'kubepreempt.io/exit-after-signal: "{exit_after}"')
    node_line = f"\n  nodeName: {node}" if node else ""
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  annotations: {{{", ".join(ann)}}}
spec:
  priority: {priority}{node_line}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def events(r: SimResult, *types: str) -> list[tuple[float, str, str, str | None]]:
    """``(time, type, workload, node)`` of the events of the given types."""
    return [(e.time, e.type, short(e.pod) if e.pod else "", e.node) for e in r.events
            if e.type in types]


SCALE_DOWN = (group_node("n1") + group_node("n2")
              + bare("big", "1500m", 0, node="n1"))

