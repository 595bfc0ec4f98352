"""percentageOfNodesToScore sampling, rule by rule (``scheduler.sampling``).

Expected answers come from upstream ``pkg/scheduler/schedule_one.go``
(``findNodesThatFitPod``, ``findNodesThatPassFilters``, ``numFeasibleNodesToFind``) and
``utilnode.GetZoneKey`` (``pkg/util/node/topology``). The walk is sequential here, so the
nodes processed are exactly the nodes up to the one that completes ``numNodesToFind``.

200 nodes without zones: the tree order is the name order, and ``numFeasibleNodesToFind(200)``
is 200 * (50 - 200/125)% = 98, raised to ``minFeasibleNodesToFind`` = 100.
"""

from __future__ import annotations

import numpy as np
from builders import cluster_of, node, pod

from kubepreempt.scheduler.config import use_scheduler_config
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.sampling import node_tree_order, zone_key
from kubepreempt.scheduler.scheduler import Scheduler

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", \
    "failure-domain.beta.kubernetes.io/region"


def test_zone_key_as_get_zone_key() -> None:
    """``GetZoneKey``: ``region + ":\\x00:" + zone``, "" when both are empty; the beta
    label is read first and the stable one only when the beta key is absent."""
    assert zone_key({}) == ""
    assert zone_key({REGION: "r", ZONE: "z"}) == "r:\x00:z"
    assert zone_key({ZONE: "z"}) == ":\x00:z"
    assert zone_key({REGION: "r"}) == "r:\x00:"
    assert zone_key({REGION: "", ZONE: ""}) == ""
    assert zone_key({BETA_ZONE: "b", ZONE: "s", BETA_REGION: "br", REGION: "sr"}) == "br:\x00:b"
    # present but empty beta labels still win: both empty gives no zone
    assert zone_key({BETA_ZONE: "", ZONE: "s", BETA_REGION: "", REGION: "sr"}) == ""


def test_nodes_with_beta_zone_labels_share_the_stable_labelled_zone() -> None:
    """Node tree zones come from ``GetZoneKey``: a node labelled only with the beta zone
    ``a`` is in the same zone as one labelled only with the stable zone ``a``."""
    cluster = cluster_of(node("a1", labels={ZONE: "a"}), node("a2", labels={BETA_ZONE: "a"}),
                         node("b1", labels={ZONE: "b"}))
    names = [cluster.nodes[i].name for i in node_tree_order(cluster).tolist()]
    assert names == ["a1", "b1", "a2"]


def test_node_tree_order_of_no_nodes_is_empty() -> None:
    """``nodeTree.list()`` of an empty tree is empty."""
    assert node_tree_order(cluster_of(pod("web", "1"))).size == 0


def _cluster(unschedulable=(), extra=()):
    objs = [node(f"node-{i:03d}", cpu="4", unschedulable=i in unschedulable)
            for i in range(200)]
    return cluster_of(*objs, pod("web", "500m"), *extra)


def _cycle(cluster, name="web", start=0):
    use_scheduler_config(cluster, None, sample_nodes=True)
    sched = Scheduler(cluster)
    sched.sampling.value = start
    return sched, schedule_one(sched, cluster.pending[f"default/{name}"], explain=True)


def test_rejected_nodes_before_the_cut_count_as_processed() -> None:
    """node-000..009 unschedulable: the walk rejects 10, finds 100 (node-010..109) and
    stops; processedNodes = 100 feasible + 10 statuses = 110 = the next start index. Only
    the statuses of the nodes walked are kept."""
    sched, result = _cycle(_cluster(unschedulable=range(10)))
    assert result.feasible.tolist() == list(range(10, 110))
    assert sorted(result.statuses) == list(range(10))
    assert sched.sampling.value == 110


def test_fewer_feasible_than_wanted_walks_every_node() -> None:
    """50 feasible of 200 (< 100 wanted): every node is processed, so the start index
    advances by 200 and wraps back to where it was (30)."""
    sched, result = _cycle(_cluster(unschedulable=range(50, 200)), start=30)
    assert result.feasible.tolist() == list(range(50))
    assert sorted(result.statuses) == list(range(50, 200))
    assert sched.sampling.value == 30


def test_exactly_the_wanted_number_feasible_still_walks_every_node() -> None:
    """100 feasible: the search never finds a 101st, so all 200 nodes are checked
    (100 feasible + 100 statuses) and the start index wraps to 0, not 100."""
    sched, result = _cycle(_cluster(unschedulable=range(100, 200)))
    assert result.feasible.size == 100
    assert len(result.statuses) == 100
    assert sched.sampling.value == 0


def test_one_more_feasible_than_wanted_stops_at_the_hundredth() -> None:
    """101 feasible (node-000..099 and node-199): the 100th is node-099, so 100 nodes are
    processed; node-199 is never reached."""
    sched, result = _cycle(_cluster(unschedulable=range(100, 199)))
    assert result.feasible.tolist() == list(range(100))
    assert sched.sampling.value == 100


def _pinned(name, *nodes):
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(nodes)}]}
    return pod(name, "500m", spec_extra={"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}})


def test_prefilter_narrowed_walk_advances_the_index_modulo_all_nodes() -> None:
    """NodeAffinity's PreFilter names 3 nodes: numFeasibleNodesToFind(3) = 3, all 3 are
    processed, and ``nextStartNodeIndex = (10 + 3) % len(allNodes)`` = 13 (not modulo 3)."""
    cluster = _cluster(extra=[_pinned("pinned", "node-005", "node-150", "node-199")])
    sched, result = _cycle(cluster, "pinned", start=10)
    assert result.feasible.tolist() == [5, 150, 199]
    assert sched.sampling.value == 13


def test_prefilter_narrowed_to_one_node_still_advances_the_index() -> None:
    """One named node: processedNodes = 1, so the index moves from 10 to 11."""
    cluster = _cluster(extra=[_pinned("pinned", "node-050")])
    sched, result = _cycle(cluster, "pinned", start=10)
    assert result.node_name == "node-050"
    assert sched.sampling.value == 11


def test_narrowed_walk_only_counts_the_named_nodes() -> None:
    """150 named nodes (node-000..149), node-000..009 unschedulable: numFeasibleNodesToFind
    (150) = 150 * (50 - 1)% = 73, raised to 100; the walk over the named nodes rejects 10,
    finds 100, and the index advances by 110 (modulo 200)."""
    names = [f"node-{i:03d}" for i in range(150)]
    cluster = _cluster(unschedulable=range(10), extra=[_pinned("pinned", *names)])
    sched, result = _cycle(cluster, "pinned", start=0)
    assert result.feasible.tolist() == list(range(10, 110))
    assert sorted(result.statuses) == list(range(10))
    assert sched.sampling.value == 110
    assert np.all(result.feasible < 150)


def test_a_narrowed_walk_that_finds_nothing_still_advances_the_index() -> None:
    """Three named nodes, all unschedulable (node-000..009 are): nothing is feasible,
    yet ``findNodesThatFitPod``
    advances ``nextStartNodeIndex`` by ``processedNodes`` = 0 feasible + 3 statuses,
    from 10 to 13."""
    cluster = _cluster(unschedulable=range(10),
                       extra=[_pinned("pinned", "node-001", "node-002", "node-003")])
    sched, result = _cycle(cluster, "pinned", start=10)
    assert result.feasible.size == 0
    assert sched.sampling.value == 13
