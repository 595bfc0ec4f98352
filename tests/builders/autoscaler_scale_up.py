"""Builders for Cluster Autoscaler scale-up scenarios: node-group nodes with a given cpu
and memory, pods requesting both, and the scale-ups made."""

from __future__ import annotations

from builders.autoscaler import group_node
from kubepreempt.sim.engine import SimResult


def sized_node(name: str, group: str, cpu: str, memory: str, hi: int = 3,
               priority: int | None = None) -> str:
    """A Node of node group ``group`` (sizes 1..``hi``) with ``cpu`` and ``memory``, and
    the group's expander priority if given."""
    prio = (f'\n    kubepreempt.io/node-group-priority: "{priority}"'
            if priority is not None else "")
    return group_node(name, cpu, group, hi=str(hi), extra_ann=prio, memory=memory)


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
