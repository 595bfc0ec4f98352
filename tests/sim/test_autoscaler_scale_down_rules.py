"""Cluster Autoscaler scale-down: utilization, the pods' volumes and controllers, the
destinations and the loop around a removal, each expected answer worked out from
kubernetes/autoscaler cluster-autoscaler-release-1.37 (the function is named in each
test)."""

from __future__ import annotations

from builders.autoscaler import SCALE_DOWN, bare, group_node, run
from builders.autoscaler_drain import owned_pod, plain_node, scale_downs
from builders.autoscaler_scale_up import scale_ups


def removed(text: str, **options) -> int:
    return run(text, until=700, **options).metrics["autoscaler"]["nodesRemoved"]


def with_memory(p: str, memory: str) -> str:
    return p.replace('requests: {cpu: "200m"}', f'requests: {{cpu: "200m", memory: {memory}}}')


def test_memory_utilization_counts() -> None:
    """``utilization.Calculate``: the larger of the cpu and memory fractions. w (0.2 CPU,
    40Gi of 64Gi: 0.625) keeps n2 above 0.5; with 8Gi (0.125) n2 goes."""
    assert removed(SCALE_DOWN + with_memory(owned_pod("w", "n2"), "40Gi")) == 0
    assert removed(SCALE_DOWN + with_memory(owned_pod("w", "n2"), "8Gi")) == 1


def test_a_node_without_cpu_is_judged_by_memory() -> None:
    """A resource with zero allocatable is left out of the utilization (no division by
    zero); the memory fraction still counts. Nodes of 0 CPU and 4Gi, n1 kept by big (bare,
    0.5Gi): w's 3Gi (0.75) keeps n2 though it would fit on n1; 1Gi (0.25) does not."""
    def w(name: str, node: str, memory: str, owner: str = "ReplicaSet") -> str:
        return owned_pod(name, node, cpu="0", owner=owner).replace(
            'requests: {cpu: "0"}', f"requests: {{memory: {memory}}}")
    nodes = (group_node("n1", cpu=0, memory="4Gi") + group_node("n2", cpu=0, memory="4Gi")
             + w("big", "n1", "512Mi", owner=""))
    assert removed(nodes + w("w", "n2", "3Gi")) == 0
    assert removed(nodes + w("w", "n2", "1Gi")) == 1


def test_a_volume_that_is_neither_hostpath_nor_emptydir_does_not_block() -> None:
    """drain's ``isLocalVolume`` is hostPath or a non-memory emptyDir: a configMap volume
    is not local storage, so w moves and n2 goes."""
    w = owned_pod("w", "n2").replace(
        "  containers:", "  volumes: [{name: conf, configMap: {name: c}}]\n  containers:")
    assert "configMap" in w
    assert removed(SCALE_DOWN + w) == 1


def test_only_the_controller_reference_makes_a_pod_replicated() -> None:
    """``metav1.GetControllerOf``: an owner reference without ``controller: true`` is not
    the pod's controller, so w is unreplicated and blocks (``NotReplicated``)."""
    w = owned_pod("w", "n2").replace("controller: true", "controller: false")
    assert removed(SCALE_DOWN + w) == 0


def test_an_unreplicated_pod_blocks_without_the_custom_controller_flag_too() -> None:
    """``replicated.Rule`` with ``--skip-nodes-with-custom-controller-pods=false``:
    ``replicated = ControllerRef(pod) != nil``; a bare pod still blocks."""
    assert removed(SCALE_DOWN + owned_pod("w", "n2", owner=""),
                   skip_nodes_with_custom_controller_pods=False) == 0


def test_a_cordoned_node_is_no_destination_but_the_others_are() -> None:
    """``GetPodDestinationCandidates``: a0 (cordoned, listed first) takes no pod, n1 does:
    w moves to n1 and n2 goes at 600."""
    a0 = plain_node("a0").replace("status:", "spec: {unschedulable: true}\nstatus:")
    assert scale_downs(run(a0 + SCALE_DOWN + owned_pod("w", "n2"), until=700)) == [
        (600.0, "n2")]


def test_the_loop_goes_on_after_a_node_deleted_at_once() -> None:
    """n2 (empty) is deleted at 600 in the scan that removes it; the loop still runs
    afterwards: p, arriving at 700 and fitting nowhere, gets a node at the scan at 700."""
    text = SCALE_DOWN + bare("p", "1", 0, arrival="700")
    r = run(text.replace('bare("big"', ""), until=750)
    assert scale_downs(r) == [(600.0, "n2")]
    assert [t for t, _ in scale_ups(r)] == [700.0]


def test_the_node_count_keeps_one_entry_per_instant() -> None:
    """``nodeCount`` is the count after each instant's changes: x and y join at 100 and
    leave at 200."""
    def plain(name: str) -> str:
        return plain_node(name).replace(
            "metadata:\n", 'metadata:\n  annotations: {kubepreempt.io/arrival: "100", '
            'kubepreempt.io/removal: "200"}\n', 1)
    r = run(group_node("n1") + bare("full", "2", 0, node="n1") + plain("x") + plain("y"),
            until=300)
    assert r.metrics["autoscaler"]["nodeCount"] == [[0.0, 1], [100.0, 3], [200.0, 1]]
