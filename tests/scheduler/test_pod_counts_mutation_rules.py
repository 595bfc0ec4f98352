"""The incremental pod counts after the change log is trimmed, and the one-node-per-domain
test, against the full-scan answer.

The counts have no upstream counterpart of their own: InterPodAffinity and
PodTopologySpread scan every bound pod (``calPreFilterState``, ``getExistingAntiAffinityCounts``);
these counts must give that scan's answer. ``Snapshot`` bounds its change log: when it is
trimmed (``change_log`` cleared, ``change_epoch`` bumped, as ``_log_change`` does at
1,000,000 entries) the rows logged before are gone, and a reader must count afresh.
"""

from __future__ import annotations

from builders.plugins import make_cluster, make_node, make_pod

from kubepreempt.scheduler.plugins import pod_counts


def scanned(cluster) -> list[int]:
    return [len(pods) for pods in cluster.node_pods]


def trim_log(cluster) -> None:
    """What ``Snapshot`` does when its change log reaches its bound."""
    cluster.change_log.clear()
    cluster.change_epoch += 1


def test_counts_after_the_log_is_trimmed() -> None:
    nodes = [make_node("n-a"), make_node("n-b")]
    cluster = make_cluster(nodes)
    for i in range(2):
        cluster.bind(make_pod(f"warm-{i}"), "n-b")
    every = lambda p: True  # noqa: E731 - the predicate of the count
    carried = lambda p: ("t",)  # noqa: E731
    assert pod_counts.node_pod_counts(cluster, "all", every).tolist() == scanned(cluster)
    pod_counts.carried_terms(cluster, "terms", carried)
    cluster.bind(make_pod("lost", anti=[{"topologyKey": "zone"}]), "n-a")  # logged, then lost
    trim_log(cluster)
    for i in range(4):  # the log grows past the readers' old positions again
        cluster.bind(make_pod(f"more-{i}"), "n-b")
    assert pod_counts.node_pod_counts(cluster, "all", every).tolist() == scanned(cluster)
    terms = pod_counts.carried_terms(cluster, "terms", carried)
    assert terms["t"].tolist() == [1, 0]  # only the pod with an affinity carries terms


def test_one_node_per_domain() -> None:
    """True exactly when every label value of the key is on one node."""
    nodes = [make_node("n-a", {"zone": "z1", "host": "a"}),
             make_node("n-b", {"zone": "z1", "host": "b"}),
             make_node("n-c", {"host": "c"})]
    cluster = make_cluster(nodes)
    assert pod_counts.one_node_per_domain(cluster, "host") is True
    assert pod_counts.one_node_per_domain(cluster, "zone") is False
