"""Cluster Autoscaler's binpacking estimator: the order it takes pods in
(``estimator.DecreasingPodOrderer``), each expected answer worked out from
kubernetes/autoscaler cluster-autoscaler-release-1.37.

Every scenario has group a with one node a1 (2 CPU, 2Gi, max 2: room for one new node)
full, so the estimator opens at most one node and the pods it takes first decide
which others still fit (``BinpackingNodeEstimator.Estimate``: each pod goes on an open
node if it fits, else a new node is refused at the limit)."""

from __future__ import annotations

from builders.autoscaler import bare, run
from builders.autoscaler_scale_up import pod, scale_ups, sized_node

FULL = sized_node("a1", "a", "2", "2Gi", hi=2) + pod("fa", "2", "2Gi", node="a1")


def memory_only_pod(name: str, memory: str) -> str:
    """A bare Pod requesting ``memory`` and no cpu."""
    return f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  priority: 0
  preemptionPolicy: Never
  containers:
  - name: c
    resources: {{requests: {{memory: "{memory}"}}}}
"""


def first_scale_up(text: str) -> str:
    return scale_ups(run(text, until=30))[0][1]


def test_the_memory_fraction_counts_in_the_order() -> None:
    """``calculatePodScore``: cpu/allocatable cpu + memory/allocatable memory. pb (1 CPU,
    1.5Gi) scores 0.5 + 0.75 = 1.25, pa (1.5 CPU, no memory) 0.75, pc (0.8 CPU) 0.4: pb
    opens the node, pa does not fit beside it (1.5 > 1 CPU left), pc does (0.8 <= 1):
    two pods. By cpu alone pa would go first and leave room for neither."""
    text = FULL + pod("pa", "1500m") + pod("pb", "1", "1536Mi") + pod("pc", "800m")
    assert first_scale_up(text) == "group a: +1 node(s) for 2 pod(s)"


def test_the_memory_fraction_is_a_fraction_of_allocatable() -> None:
    """pp (1.5 CPU, 1Mi) scores 0.75 + 1/2048; pq (1 CPU, 256Mi) 0.5 + 0.125 = 0.625;
    pr (0.8 CPU) 0.4. pp opens the node and leaves 0.5 CPU: neither pq nor pr fits,
    one pod (taken in pq's order, pq and pr would share the node)."""
    text = FULL + pod("pp", "1500m", "1Mi") + pod("pq", "1", "256Mi") + pod("pr", "800m")
    assert first_scale_up(text) == "group a: +1 node(s) for 1 pod(s)"


def test_a_pod_without_a_cpu_request_adds_no_cpu_fraction() -> None:
    """``podCPU.MilliValue()`` is 0 for a pod without a cpu request. px (no cpu,
    1878446899 bytes) scores 1878446899 / 2Gi = 0.87469...; py (1 CPU, 768Mi) 0.5 +
    0.375 = 0.875; pw (1 CPU, 512Mi) 0.75. py opens the node; px does not fit beside it
    (memory), pw does: two pods. Had px any cpu fraction (1m of 2000m would do) it would go
    first and leave room for neither."""
    text = (FULL + memory_only_pod("px", "1878446899") + pod("py", "1", "768Mi")
            + pod("pw", "1", "512Mi"))
    assert first_scale_up(text) == "group a: +1 node(s) for 2 pod(s)"


def test_a_pod_without_a_memory_request_adds_no_memory_fraction() -> None:
    """``podMemory.Value()`` is 0 for a pod without a memory request. pu (1.2 CPU, no
    memory) scores 0.6; pv (0.9 CPU, 322122548 bytes) 0.45 + 0.15000000037 (less than one
    byte's fraction, 2^-31, above pu); pz (1 CPU) 0.5. pv opens the node, pu does not fit
    beside it (2.1 CPU), pz does: two pods. Had pu even one byte's fraction it would go
    first and leave room for neither."""
    text = (FULL + bare("pu", "1200m", 0) + pod("pv", "900m", "322122548")
            + pod("pz", "1"))
    assert first_scale_up(text) == "group a: +1 node(s) for 2 pod(s)"


def test_a_template_without_memory_scores_cpu_only() -> None:
    """``memAllocatable.Value() > 0`` guards the memory term: a template with 0 memory
    adds none (no division by zero); p (1 CPU, no memory) gets a node."""
    text = (sized_node("a1", "a", "2", "0") + pod("fa", "2", node="a1") + pod("p", "1"))
    assert first_scale_up(text) == "group a: +1 node(s) for 1 pod(s)"


def test_a_template_without_cpu_scores_memory_only() -> None:
    """``cpuAllocatable.MilliValue() > 0`` guards the cpu term: a template with 0 CPU adds
    none; p (1Gi, no cpu) gets a node."""
    text = (sized_node("a1", "a", "0", "2Gi") + memory_only_pod("fa", "2Gi")
            .replace("metadata: {name: fa, namespace: default}\nspec:",
                     "metadata: {name: fa, namespace: default}\nspec:\n  nodeName: a1")
            + memory_only_pod("p", "1Gi"))
    assert first_scale_up(text) == "group a: +1 node(s) for 1 pod(s)"
