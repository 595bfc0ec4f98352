"""percentageOfNodesToScore sampling (``--sample-nodes``), as findNodesThatPassFilters.

Hand-worked: 200 identical nodes, the adaptive percentage is 50 - 200/125 = 49%, i.e. 98
nodes, raised to minFeasibleNodesToFind = 100. A filter-passing pod is scored over the
first 100 nodes of the walk only, and the next attempt starts where this one stopped.
"""

from __future__ import annotations

import numpy as np
from builders import cluster_of, node, pod

from kubepreempt.decide import schedule
from kubepreempt.scheduler.config import default_scheduler_config, use_scheduler_config
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.sampling import node_tree_order
from kubepreempt.scheduler.scheduler import Scheduler


def _cluster(n: int = 200):
    # node-000 .. node-199; node-199 is the emptiest (LeastAllocated prefers it), the
    # others hold a 1-CPU pod each.
    objs = [node(f"node-{i:03d}", cpu="4") for i in range(n)]
    objs += [pod(f"busy-{i:03d}", "1", node_name=f"node-{i:03d}") for i in range(n - 1)]
    objs += [pod("web", "500m"), pod("web2", "500m")]
    return cluster_of(*objs)


def test_without_sampling_the_globally_best_node_wins() -> None:
    assert schedule(_cluster(), "web").node == "node-199"


def test_sampling_scores_only_the_first_nodes_found() -> None:
    cluster = _cluster()
    use_scheduler_config(cluster, None, sample_nodes=True)
    sched = Scheduler(cluster)
    first = schedule_one(sched, cluster.pending["default/web"], explain=True)
    # 100 feasible nodes found (node-000..node-099): all tie; the first by name wins.
    assert first.feasible.size == 100 and first.node_name == "node-000"
    assert sched.start_index.value == 100
    second = schedule_one(sched, cluster.pending["default/web2"], explain=True)
    # The walk resumes at node-100 and reaches node-199, the emptiest.
    assert second.node_name == "node-199"
    assert sched.start_index.value == 0


def test_sampling_on_the_fast_path_gives_the_same_node() -> None:
    cluster = _cluster()
    use_scheduler_config(cluster, None, sample_nodes=True)
    sched = Scheduler(cluster)
    assert schedule_one(sched, cluster.pending["default/web"]).node_name == "node-000"


def test_small_clusters_are_searched_whole() -> None:
    cluster = _cluster(60)
    config = default_scheduler_config()
    config.sample_nodes = True
    cluster.scheduler_config = config
    assert schedule(cluster, "web").node == "node-059"


def test_node_tree_order_round_robins_zones() -> None:
    zone = "topology.kubernetes.io/zone"
    cluster = cluster_of(node("a1", labels={zone: "a"}), node("a2", labels={zone: "a"}),
                         node("a3", labels={zone: "a"}), node("b1", labels={zone: "b"}),
                         node("c1"))
    names = [cluster.nodes[i].name for i in node_tree_order(cluster).tolist()]
    # zones in order of their first node (a, b, then no zone), one node from each in turn
    assert names == ["a1", "b1", "c1", "a2", "a3"]
    assert np.unique(node_tree_order(cluster)).size == 5


def test_sampling_can_be_switched_on_after_construction_for_every_profile() -> None:
    """The simulator's 1.36 queue switches it on for its scheduler; siblings follow."""
    from kubepreempt.scheduler.config import parse_scheduler_config

    cluster = _cluster()
    cluster.scheduler_config = parse_scheduler_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch"}]})
    sched = Scheduler(cluster)
    sched.sample_nodes = True
    batch = sched.profile_for(type("P", (), {"scheduler_name": "batch"})())
    assert batch is not None and batch.sample_nodes and batch.start_index is sched.start_index
