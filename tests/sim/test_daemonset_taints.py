"""The simulator's DaemonSet controller on node arrival: upstream ``NodeShouldRunDaemonPod``
(pkg/controller/daemon/daemon_controller.go) decides, through ``predicates``, that a node
with an untolerated NoExecute (or NoSchedule) taint gets no daemon pod."""

from __future__ import annotations

from helpers import run, timeline

DAEMONSET = """
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priority: 0
      containers:
      - name: c
        resources: {requests: {cpu: "1"}}
"""


def node(name: str, arrival: str, taint: str = "") -> str:
    taints = f"\nspec:\n  taints: [{taint}]" if taint else ""
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
  annotations: {{kubepreempt.io/arrival: "{arrival}"}}{taints}
status:
  allocatable: {{cpu: "2", memory: 64Gi, pods: "110"}}
"""


def test_arriving_node_with_untolerated_no_execute_taint_gets_no_daemon_pod() -> None:
    """n1 is there at 0; n2 (``dedicated=db:NoExecute``, not among the daemon tolerations)
    arrives at 30, n3 (untainted) at 60: the DaemonSet creates pods on n1 and n3 only.

    Kills the mutation that drops ``NO_EXECUTE`` from the taint effects
    ``node_should_run_daemon_pod`` (controllers/expand.py, used by sim/controllers.py's
    ``_sync_daemonset``) checks."""
    r = run(node("n1", "0") + node("n2", "30", "{key: dedicated, value: db, effect: NoExecute}")
            + node("n3", "60") + DAEMONSET)
    assert [(t, n) for t, _, _, n in timeline(r, "bound")] == [(0.0, "n1"), (60.0, "n3")]
    assert r.metrics["podsCreated"] == 2
