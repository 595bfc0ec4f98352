"""A small scenario and sweep files for the sweep tests (each run takes milliseconds)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

# Two 4-core nodes; low-priority pods arrive as a Poisson stream (so seeds matter) and
# high-priority pods preempt them once the nodes are full.
SCENARIO = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 0
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: low
  namespace: jobs
  labels: {app: low}
  annotations:
    kubepreempt.io/replicas: "10"
    kubepreempt.io/rate: 6/m
    kubepreempt.io/duration: 3m
spec:
  priorityClassName: low
  terminationGracePeriodSeconds: 10
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: high
  namespace: web
  annotations:
    kubepreempt.io/arrival: 30s
    kubepreempt.io/replicas: "4"
    kubepreempt.io/rate: 2/m
    kubepreempt.io/duration: 1m
spec:
  priorityClassName: high
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: low-pdb, namespace: jobs}
spec:
  minAvailable: 0
  selector: {matchLabels: {app: low}}
"""

# Two variants: as is, and "low" raised to the same priority as "high" (nothing preempts).
SWEEP: dict[str, Any] = {
    "scenario": "scenario.yaml",
    "seeds": 3,
    "variants": [
        {"name": "today"},
        {"name": "low-at-1000", "edits": [
            {"op": "replace", "kind": "PriorityClass", "name": "low", "path": "/value",
             "value": 1000}]},
    ],
    "rank": {"metric": "classes.low.workLost", "order": "min"},
}


def write_sweep(tmp: Path, sweep: dict[str, Any] | None = None, name: str = "sweep.yaml",
                scenario: str = SCENARIO) -> Path:
    """Write the scenario and a sweep file into ``tmp``; return the sweep file's path."""
    (tmp / "scenario.yaml").write_text(scenario)
    path = tmp / name
    path.write_text(yaml.safe_dump(json.loads(json.dumps(sweep or SWEEP)), sort_keys=False))
    return path


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """A sweep's JSON without what legitimately differs between executions."""
    return {k: v for k, v in data.items()
            if k not in ("elapsed", "backend", "runs", "results")}


def crash_on_a1(variant: str, seed: int) -> dict[str, Any]:
    """A pool task that kills its worker process on run (a, 1), as a segfault or OOM would."""
    if (variant, seed) == ("a", 1):
        os._exit(3)
    return {"metrics": {"seed": seed}}
