"""An Evaluator built without ``sample`` dry-runs every potential node.

Upstream's ``DryRunPreemption`` walks ``GetOffsetAndNumCandidates``' window from a random
offset and stops once it holds ``max(nodes x minCandidateNodesPercentage / 100,
minCandidateNodesAbsolute)`` PDB-respecting candidates (10 % and 100 by default), so on
more than 1,000 nodes it sees only part of the cluster and its answer depends on the
offset. kubepreempt's library and CLI answer deterministically over every node unless
sampling is asked for (``simulate --sample-nodes``, ``bench --sample-candidates``); the
default must therefore be off. On 1,000 nodes or fewer the default window already covers
every node, so only a larger cluster tells the two apart.
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

NODES = 1100  # the default window would be max(110, 100) = 110 of them


def test_every_node_is_a_candidate_without_sampling() -> None:
    docs = []
    for i in range(NODES):
        docs += [node(f"n{i:04d}", cpu="1"), pod(f"low{i:04d}", "1", node_name=f"n{i:04d}")]
    cluster = cluster_of(*docs, pod("new", "1", priority=10))
    sched = Scheduler(cluster)
    evaluator = Evaluator(sched, now=1e9, fast=False, materialize=True)
    res = schedule_one(sched, cluster.pending["default/new"], now=1e9, evaluator=evaluator)
    assert res.preemption is not None
    assert len(res.preemption.candidates) == NODES
    # Every candidate evicts one equal pod: the pick's last tie-break, the first node
    # in the dry run's order, is the first node by name.
    assert res.preemption.node == "n0000"
