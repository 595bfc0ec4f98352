"""Small builders for simulator scenarios (YAML text in, result out)."""

from __future__ import annotations

import textwrap

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.release import Modelled
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.engine import SimResult


def run(yaml_text: str, queue: str = "1.36", until: float | None = None,
        seed: int | None = None, latency: float = 0.0,
        node_pressure: bool = False, best_candidates: bool | None = None,
        release: Modelled | None = None) -> SimResult:
    """Simulate a scenario given as YAML text (default queue: kube-scheduler 1.36;
    default release: Kubernetes 1.37 as released)."""
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(yaml_text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, seed), queue=queue, until=until, latency=latency,
                    node_pressure=node_pressure, best_candidates=best_candidates, seed=seed,
                    release=release)


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
        group: str = "", **ann: str) -> str:
    """A Pod requesting ``cpu`` cores at ``priority``; running on ``node_name`` if set;
    a member of PodGroup ``group`` (same namespace) if set."""
    annotations = "".join(f"\n    kubepreempt.io/{k.replace('_', '-')}: \"{v}\""
                          for k, v in ann.items())
    spec = f"\n  nodeName: {node_name}" if node_name else ""
    if grace is not None:
        spec += f"\n  terminationGracePeriodSeconds: {grace}"
    if group:
        spec += f"\n  schedulingGroup: {{podGroupName: {group}}}"
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


def pod_group(name: str, min_count: int | None = None, priority: int | None = None,
              disruption: str = "single", **ann: str) -> str:
    """A ``scheduling.k8s.io/v1beta1`` PodGroup in ``default``: a gang of ``min_count``,
    else basic; ``disruption``: ``single`` or ``all``."""
    annotations = "".join(f"\n    kubepreempt.io/{k.replace('_', '-')}: \"{v}\""
                          for k, v in ann.items())
    policy = f"{{gang: {{minCount: {min_count}}}}}" if min_count else "{basic: {}}"
    prio = f"\n  priority: {priority}" if priority is not None else ""
    return f"""
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: {name}
  namespace: default
  annotations:{annotations or " {}"}
spec:
  schedulingPolicy: {policy}
  disruptionMode: {{{disruption}: {{}}}}{prio}
"""
