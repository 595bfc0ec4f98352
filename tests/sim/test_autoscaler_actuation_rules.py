"""Cluster Autoscaler's actuation and bookkeeping: the nodes it makes, the node it takes
down (taint, cordon, evictions, events) and the per-group metrics, each expected answer
worked out from kubernetes/autoscaler cluster-autoscaler-release-1.37 (the function is
named in each test) or from the simulator's event format where it is the simulator's."""

from __future__ import annotations

import pytest
from builders.autoscaler import SCALE_DOWN, bare, group_node, run
from builders.autoscaler_drain import owned_pod, plain_node, scale_downs
from builders.autoscaler_scale_up import pod, sized_node

FULL = sized_node("a1", "a", "2", "8Gi") + pod("fa", "2", node="a1")


def added_nodes(r) -> list[tuple[float, str | None]]:
    return [(e.time, e.node) for e in r.events if e.type == "node-added"]


def test_new_nodes_get_fresh_names_while_earlier_ones_are_upcoming() -> None:
    """Each node ordered has its own name (the cloud provider's instance, here
    ``<group>-<n>``): p1's node is ordered at 0 and p2's at 20, before the first is
    Ready, and they join as a-1 at 60 and a-2 at 80."""
    text = FULL + bare("p1", "1500m", 0) + bare("p2", "1500m", 0, arrival="15")
    assert added_nodes(run(text, until=100)) == [(60.0, "a-1"), (80.0, "a-2")]


@pytest.mark.parametrize("arrival", [None, "500"])
def test_a_new_name_avoids_every_node_of_the_cluster_and_the_scenario(
        arrival: str | None) -> None:
    """A plain node named a-1 is in the cluster, or joins the scenario at 500: the node
    ordered at 0 is a-2 (two nodes may not share a name)."""
    other = plain_node("a-1", cpu=0)
    if arrival:
        other = other.replace("metadata:\n", 'metadata:\n  annotations: '
                              f'{{kubepreempt.io/arrival: "{arrival}"}}\n', 1)
    added = added_nodes(run(FULL + other + bare("p", "1", 0), until=600))
    assert (60.0, "a-2") in added and (60.0, "a-1") not in added


def test_a_new_nodes_hostname_label_is_its_name() -> None:
    """The kubelet sets ``kubernetes.io/hostname`` to the node's name; the template's
    other labels are the group's: q, selecting zone z1 and hostname a-1 and arriving after
    a-1 joined, binds there (the template a1's own hostname label is replaced)."""
    template = (group_node("a1", 2, "a", memory="8Gi", labels=", zone: z1")
                + pod("fa", "2", node="a1"))
    q = bare("q", "500m", 0, arrival="100").replace(
        "spec:\n", "spec:\n  nodeSelector: {kubernetes.io/hostname: a-1, zone: z1}\n", 1)
    r = run(template + bare("p", "1", 0) + q, until=200)
    assert r.records["default/q"].node == "a-1"


def test_a_template_without_labels_still_gets_the_hostname_label() -> None:
    """A template node without ``metadata.labels``: the new node has only the hostname
    label, and q selecting it binds there."""
    template = FULL.replace("  labels: {kubernetes.io/hostname: a1}\n", "")
    assert "labels" not in template
    q = bare("q", "500m", 0, arrival="100").replace(
        "spec:\n", "spec:\n  nodeSelector: {kubernetes.io/hostname: a-1}\n", 1)
    r = run(template + bare("p", "1", 0) + q, until=200)
    assert r.records["default/q"].node == "a-1"


def test_nodes_added_and_peak_nodes_per_group() -> None:
    """Two 1.5-CPU pods need two new nodes (one each): ``nodesAdded`` counts both, per
    group and in total, and the group's peak is three nodes."""
    r = run(FULL + bare("p1", "1500m", 0) + bare("p2", "1500m", 0), until=100)
    a = r.metrics["autoscaler"]
    assert (a["nodesAdded"], a["groups"]["a"]["nodesAdded"]) == (2, 2)
    assert a["groups"]["a"]["peakNodes"] == 3


def test_a_node_the_autoscaler_added_can_be_scaled_down() -> None:
    """a-1 (added for p) belongs to group a like a1 (``NodeGroupForNode``). p runs 100 s
    from 60; at the scan at 160 a-1 is empty, and with no delay after add and no unneeded
    time it goes then."""
    p = bare("p", "1", 0).replace("annotations: {}",
                                  'annotations: {kubepreempt.io/duration: "100"}')
    r = run(FULL + p, until=300, scale_down_delay_after_add=0, scale_down_unneeded_time=0)
    assert scale_downs(r) == [(160.0, "a-1")]
    assert r.metrics["autoscaler"]["groups"]["a"]["nodesRemoved"] == 1


def test_a_node_in_no_group_may_come_and_go() -> None:
    """Nodes outside every node group join and leave the count but no group: x joins at
    100 and leaves at 200."""
    x = plain_node("x").replace(
        "metadata:\n", 'metadata:\n  annotations: {kubepreempt.io/arrival: "100", '
        'kubepreempt.io/removal: "200"}\n', 1)
    r = run(group_node("n1") + x, until=300)
    assert r.metrics["autoscaler"]["nodeCount"] == [[0.0, 1], [100.0, 2], [200.0, 1]]
    assert r.metrics["autoscaler"]["groups"]["pool"]["peakNodes"] == 1


def test_the_node_taken_down_is_tainted_with_the_time() -> None:
    """``MarkToBeDeleted``: taint ``ToBeDeletedByClusterAutoscaler=<unix time>:NoSchedule``
    and cordon. w (exiting 100 s after its eviction) keeps n2 until 700; tol, arriving at
    610 and tolerating that taint with value 600 and the cordon, binds to n2."""
    w = owned_pod("w", "n2", annotations='kubepreempt.io/exit-after-signal: "100s"')
    tol = bare("tol", "1", 0, arrival="610").replace("spec:\n", """spec:
  tolerations:
  - {key: ToBeDeletedByClusterAutoscaler, operator: Equal, value: "600", effect: NoSchedule}
  - {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}
""", 1)
    r = run(SCALE_DOWN + w + tol, until=650)
    assert scale_downs(r) == [(600.0, "n2")]
    assert r.records["default/tol"].node == "n2"


def test_scale_down_evicts_every_non_expendable_pod_and_says_so() -> None:
    """The actuator drains the pods of its snapshot: cheap (priority -20, below the
    cutoff) is not in it and goes with the node at 630, when w, evicted after it at 600,
    has used its 30 s grace period. The eviction's detail is ``scale-down``; the
    scale-down event names the node and its group, no pod."""
    text = (SCALE_DOWN + owned_pod("cheap", "n2", priority=-20)
            + owned_pod("w", "n2"))
    r = run(text, until=650)
    evicted = [(e.time, e.pod, e.node, e.detail) for e in r.events if e.type == "evicted"]
    assert evicted == [(600.0, "default/w", "n2", "scale-down"),
                       (630.0, "default/cheap", "n2", "node removed")]
    downs = [e.to_json() for e in r.events if e.type == "scale-down"]
    assert downs == [{"time": 600.0, "type": "scale-down", "pod": "", "node": "n2",
                      "detail": "group pool"}]
