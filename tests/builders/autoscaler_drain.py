"""Builders for Cluster Autoscaler scale-down scenarios: pods bound to a node with a
chosen owner, labels and annotations, and PodDisruptionBudgets with a given status."""

from __future__ import annotations

from kubepreempt.sim.engine import SimResult


def owned_pod(name: str, node: str, cpu: str = "200m", owner: str = "ReplicaSet",
              labels: str = "{app: web}", annotations: str = "", priority: int = 0,
              namespace: str = "default") -> str:
    """A Pod bound to ``node`` whose controller is a ``owner`` named ``x`` (not in the
    scenario, so nothing recreates it); ``owner=""`` makes a bare pod."""
    refs = (f"\n  ownerReferences: [{{apiVersion: apps/v1, kind: {owner}, name: x, uid: u1, "
            f"controller: true}}]" if owner else "")
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {namespace}
  labels: {labels}
  annotations: {{{annotations}}}{refs}
spec:
  priority: {priority}
  nodeName: {node}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def pdb_with_status(name: str, allowed: int, app: str = "web",
                    namespace: str = "default") -> str:
    """A PodDisruptionBudget over ``app: <app>`` whose status gives ``allowed``
    disruptions (the simulation leaves a given status as it is)."""
    return f"""
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  minAvailable: 0
  selector: {{matchLabels: {{app: {app}}}}}
status: {{disruptionsAllowed: {allowed}}}
"""


def scale_downs(r: SimResult) -> list[tuple[float, str | None]]:
    """``(time, node)`` of each scale-down."""
    return [(e.time, e.node) for e in r.events if e.type == "scale-down"]


def plain_node(name: str, cpu: int = 2) -> str:
    """A Node in no node group."""
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "{cpu}", memory: 64Gi, pods: "110"}}
"""


DISABLED = '\n    cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"'
