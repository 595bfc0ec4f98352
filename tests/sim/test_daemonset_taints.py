"""The simulator's DaemonSet controller on node arrival: upstream ``NodeShouldRunDaemonPod``
(pkg/controller/daemon/daemon_controller.go) decides, through ``predicates``, that a node
with an untolerated NoExecute (or NoSchedule) taint gets no daemon pod."""

from __future__ import annotations

import textwrap

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.engine import SimResult

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


def run(text: str) -> SimResult:
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, 0))


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
    assert [(e.time, e.node) for e in r.events if e.type == "bound"] == [
        (0.0, "n1"), (60.0, "n3")]
    assert r.metrics["podsCreated"] == 2
