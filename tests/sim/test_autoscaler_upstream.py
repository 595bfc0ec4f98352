"""The Cluster Autoscaler against upstream cluster-autoscaler (release-1.37 branch):
each expected answer is traced to the upstream function named in the test."""

from __future__ import annotations

from test_autoscaler import bare, events, group_node, run


def never_preempts(pod_text: str) -> str:
    return pod_text.replace("spec:\n", "spec:\n  preemptionPolicy: Never\n", 1)


def test_space_held_by_an_expendable_pod_is_free_for_scale_up() -> None:
    """``RunOnce`` loads only ``nonExpendableAllocatedPods`` into the snapshot: on n1
    the -20 filler (below the cutoff -10) is not there, so ``filterOutSchedulable`` places
    p (1 CPU, may not preempt) on n1 and no node is ordered; p stays pending (the real
    scheduler sees the filler)."""
    r = run(group_node("n1") + bare("filler", "2", -20, node="n1")
            + never_preempts(bare("p", "1", 0)))
    assert events(r, "scale-up", "node-added") == []
    assert r.metrics["autoscaler"]["nodesAdded"] == 0
    assert r.records["default/p"].phase == "Pending"


def test_node_holding_only_expendable_pods_is_empty_and_removed() -> None:
    """n2 holds only a 1.5-CPU pod at priority -20: ``utilization.Calculate`` over the
    snapshot (no expendable pods) gives 0 < 0.5, and with no pod to move it is empty.
    Unneeded from 0, it goes at the scan at 600; the actuator's ``createSnapshot`` has no
    expendable pod to evict, so it is deleted at once and the pod goes with it."""
    r = run(group_node("n1") + group_node("n2") + bare("big", "1500m", 0, node="n1")
            + bare("cheap", "1500m", -20, node="n2"))
    assert events(r, "scale-down", "evicted", "node-removed") == [
        (600.0, "scale-down", "", "n2"), (600.0, "node-removed", "", "n2"),
        (600.0, "evicted", "cheap", "n2")]
    assert r.metrics["autoscaler"]["nodesRemoved"] == 1
    assert r.records["default/cheap"].outcome == "removed"
