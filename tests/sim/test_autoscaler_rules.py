"""Cluster Autoscaler rules at their boundaries, each with kubernetes/autoscaler's answer.

Scenarios run through ``simulate`` with ``AutoscalerOptions`` (upstream flag defaults).
"""

from __future__ import annotations

import textwrap

from builders.autoscaler import group_node

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sim.engine import SimResult


def run(text: str, **options: float) -> SimResult:
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, 0), seed=0, autoscale=AutoscalerOptions(**options))


def bare(name: str, cpu: str, node: str = "") -> str:
    node_line = f"\n  nodeName: {node}" if node else ""
    return f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  priority: 0{node_line}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def deployment(name: str, cpu: str, ns: str = "default") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {ns}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      priority: 0
      containers:
      - name: c
        resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def pdb(name: str, ns: str, max_unavailable: int) -> str:
    return f"""
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: {ns}}}
spec:
  maxUnavailable: {max_unavailable}
  selector: {{matchLabels: {{app: {name}}}}}
"""


def removed(r: SimResult) -> int:
    return r.metrics["autoscaler"]["nodesRemoved"]


def test_node_exactly_at_the_utilization_threshold_is_underutilized() -> None:
    """n1 holds a bare 1-CPU pod (it cannot move, so n1 stays); web (1 CPU) lands on n2
    (least allocated) and would fit n1's free CPU. n2's utilization is exactly 1/2:
    upstream ``isNodeAtOrBelowUtilizationThreshold`` (cluster-autoscaler
    core/scaledown/eligibility/eligibility.go, release-1.37: ``utilInfo.Utilization >
    threshold`` -> not underutilized; ``>=`` before "Fix scale-down eligibility when
    utilization and threshold are zero") -> at the default threshold 0.5 n2 is
    underutilized and removed after the unneeded time; at 0.49 it is above and stays.

    Kills the mutation ``>`` -> ``>=`` of the threshold comparison in
    ``Autoscaler._scale_down``."""
    text = group_node("n1") + group_node("n2") + bare("big", "1", node="n1") \
        + deployment("web", "1")
    assert removed(run(text)) == 1
    assert removed(run(text, scale_down_utilization_threshold=0.49)) == 0


def test_kube_system_pod_covered_by_a_pdb_does_not_block_scale_down() -> None:
    """As above with web at 500m in kube-system: without a PodDisruptionBudget it is an
    ``UnmovableKubeSystemPod`` and n2 stays; with a kube-system PDB matching it (one
    disruption allowed) it may move, and n2 is removed. Upstream: the drainability rule
    for system pods (cluster-autoscaler simulator/drainability/rules/system, the
    "kube-system PDB with matching kube-system pod" case) blocks only a kube-system pod
    that no kube-system PDB covers; a PDB in another namespace does not count.

    Kills the mutation that drops ``and not covering`` from the kube-system check in
    ``Autoscaler._movable``."""
    base = group_node("n1") + group_node("n2") + bare("big", "1500m", node="n1")
    web = deployment("web", "500m", ns="kube-system")
    assert removed(run(base + web)) == 0
    assert removed(run(base + web + pdb("web", "kube-system", 1))) == 1
    assert removed(run(base + web + pdb("web", "default", 1))) == 0


def test_binpacking_estimator_places_the_largest_pods_first() -> None:
    """Four pods pending (2-CPU template, the only node full): a, b at 700m and c, d at
    1300m. Upstream's BinpackingNodeEstimator (cluster-autoscaler estimator/
    binpacking_estimator.go with the DecreasingPodOrderer: pods by decreasing
    cpu/allocatable + memory/allocatable score) takes c, d, a, b: c and d open one node
    each, a joins c (2.0) and b joins d: 2 nodes. Taken in queue order (a, b, c, d) first
    fit would need 3 (a+b, c, d).

    Kills the mutation that sorts the pods by increasing size in
    ``Autoscaler._estimate``."""
    pods = bare("a", "700m") + bare("b", "700m") + bare("c", "1300m") + bare("d", "1300m")
    r = run(group_node("n1", hi="5") + bare("full", "2", node="n1") + pods)
    ups = [(e.time, e.detail) for e in r.events if e.type == "scale-up"]
    # (the scheduler then fills the new nodes in its own queue order, which may leave a
    # pod for a later scale-up: only the estimate is checked here)
    assert ups[0] == (0.0, "group pool: +2 node(s) for 4 pod(s)")
