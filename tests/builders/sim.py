"""Small builders for simulator scenarios (YAML text in, result out)."""

from __future__ import annotations

import textwrap

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.engine import SimResult


def run(yaml_text: str, queue: str = "1.36", until: float | None = None,
        seed: int | None = None, latency: float = 0.0,
        node_pressure: bool = False, best_candidates: bool | None = None) -> SimResult:
    """Simulate a scenario given as YAML text (default queue: kube-scheduler 1.36)."""
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(yaml_text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, seed), queue=queue, until=until, latency=latency,
                    node_pressure=node_pressure, best_candidates=best_candidates, seed=seed)


def node(name: str, cpu: int, **ann: str) -> str:
    """A Node with ``cpu`` cores (and plenty of memory and pods)."""
    annotations = "".join(f"\n    kubepreempt.io/{k.replace('_', '-')}: \"{v}\""
                          for k, v in ann.items())
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  annotations:{annotations or " {}"}
status:
  allocatable: {{cpu: "{cpu}", memory: 64Gi, pods: "110"}}
"""


def pod(name: str, cpu: int, priority: int, node_name: str = "", grace: int | None = None,
        **ann: str) -> str:
    """A Pod requesting ``cpu`` cores at ``priority``; running on ``node_name`` if set."""
    annotations = "".join(f"\n    kubepreempt.io/{k.replace('_', '-')}: \"{v}\""
                          for k, v in ann.items())
    spec = f"\n  nodeName: {node_name}" if node_name else ""
    if grace is not None:
        spec += f"\n  terminationGracePeriodSeconds: {grace}"
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  annotations:{annotations or " {}"}
spec:
  priority: {priority}{spec}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def timeline(result: SimResult, *types: str) -> list[tuple[float, str, str, str | None]]:
    """(time, type, pod name, node) for events of ``types`` (all when none given)."""
    return [(e.time, e.type, e.pod.split("/")[-1], e.node) for e in result.events
            if not types or e.type in types]
