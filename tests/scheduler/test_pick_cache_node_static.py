"""The pick cache keeps a node's node-static part (taints, cordon, node affinity) across
binds.

A one-node refresh (one pod bound or assumed since the last cycle of the signature) takes
the verdicts of NodeUnschedulable, TaintToleration and NodeAffinity on that node from the
cache entry after their first computation, since no bound pod changes them; the other
node-local plugins (NodeResourcesFit here) still run. Every cycle is also run
materialised (no caches) and compared; the placements are worked out by hand.
"""

from __future__ import annotations

from builders import docs_of, node, pod
from builders.one_cycle import NOW, spy

from kubepreempt import workloads
from kubepreempt.cluster import build_cluster
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable

TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
TOLERATION = {"key": "dedicated", "operator": "Equal", "value": "batch",
              "effect": "NoSchedule"}


def test_static_verdicts_are_kept_while_resources_fill(monkeypatch) -> None:
    # n0 is tainted, n2 cordoned: the plain pods fit only on n1, four 1-CPU pods on its
    # 4 CPUs, the fifth nowhere ("0/3 nodes are available"). The tolerating pods then go
    # to n0 (n1 is full), four of them; NodeResourcesFit rejects the fifth everywhere.
    checked, _ = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    calls: list[int] = []
    passes = NodeUnschedulable.passes_node

    def counted(self, state, index):
        calls.append(index)
        return passes(self, state, index)

    monkeypatch.setattr(NodeUnschedulable, "passes_node", counted)
    nodes = [node("n0", taints=[TAINT]), node("n1"), node("n2", unschedulable=True)]
    plain = [pod(f"p{i}", "1", "100Mi") for i in range(5)]
    tolerating = [pod(f"t{i}", "1", "100Mi", spec_extra={"tolerations": [TOLERATION]})
                  for i in range(5)]
    cluster = build_cluster(docs_of(*nodes, *plain, *tolerating), warn=False)
    pending = [cluster.pending.pop(f"default/{p['metadata']['name']}")
               for p in plain + tolerating]
    stats = workloads.run(cluster, pending, keep_placements=True, now=NOW)
    assert stats.placements == {**{f"default/p{i}": "n1" for i in range(4)},
                                **{f"default/t{i}": "n0" for i in range(4)}}
    assert stats.unschedulable == 2
    # The plain pods' refreshes all re-score n1, the tolerating pods' n0 (after a full
    # first pass each): the cordon is checked once per signature and node.
    assert sorted(calls) == [0, 1]
