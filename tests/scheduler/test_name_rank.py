""""First node by name" holds whatever order nodes join in (``Snapshot.name_rank``).

Upstream breaks equal scores (``selectHost``) and the last preemption tie
(``pickOneNodeForPreemption``) at random; kubepreempt picks the node whose name sorts
first. Loading sorts nodes by name, but a node that joins later (a simulation's arrival,
a churn round, a what-if copy) takes the next index: the tie-breaks must read the name
rank, not the index.
"""

from __future__ import annotations

import random
import textwrap

import numpy as np
from builders import cluster_of, node, pod
from hypothesis import given, settings
from hypothesis import strategies as st

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node, parse_pod
from kubepreempt.cluster import Cluster
from kubepreempt.decide import schedule
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.sim import build_scenario, simulate


def reference_rank(cluster: Cluster) -> list[int]:
    names = [n.name for n in cluster.nodes]
    ordered = sorted(names)
    return [ordered.index(name) for name in names]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "add_many", "pop"]),
                          st.lists(st.text("abcz-", min_size=1, max_size=4), max_size=4)),
                max_size=8))
def test_the_rank_follows_names_as_nodes_join_and_leave(steps) -> None:
    cluster = Cluster()
    for op, names in steps:
        fresh = [n for n in dict.fromkeys(names) if n not in cluster.node_index]
        if op == "add":
            for name in fresh:
                cluster.add_node(parse_node(node(name), Source()))
        elif op == "add_many":
            cluster.add_nodes([parse_node(node(n), Source()) for n in fresh])
        else:
            cluster.pop_nodes(min(len(names), len(cluster.nodes)))
        rank = reference_rank(cluster)
        assert cluster.name_rank.tolist() == rank
        assert cluster.names_in_order == (rank == list(range(len(rank))))


def test_loaded_nodes_are_in_name_order() -> None:
    cluster = cluster_of(node("n-c"), node("n-a"), node("n-b"))
    assert [n.name for n in cluster.nodes] == ["n-a", "n-b", "n-c"]
    assert cluster.names_in_order and cluster.name_rank.tolist() == [0, 1, 2]


def _late_a() -> Cluster:
    """node-b loaded, node-a joined later (index 1), a pending pod both fit equally."""
    cluster = cluster_of(node("node-b"), pod("p", "1"))
    cluster.add_node(parse_node(node("node-a"), Source()))
    return cluster


def test_equal_scores_go_to_the_first_name_not_the_first_index() -> None:
    both = cluster_of(node("node-b"), node("node-a"), pod("p", "1"))
    assert schedule(both, "p").node == "node-a"
    late = _late_a()
    assert [n.name for n in late.nodes] == ["node-b", "node-a"]
    decision = schedule(late, "p")  # the explained path: every node scored
    assert decision.node == "node-a"
    assert decision.scores["node-a"] == decision.scores["node-b"]
    # The incremental path (simulator, bench) answers the same.
    fast = schedule_one(Scheduler(late), late.pending["default/p"], explain=False)
    assert fast.node_name == "node-a"


def test_the_preemption_tie_break_reads_the_same_rank() -> None:
    # Each node holds one equal low-priority pod; the urgent pod needs one of them gone.
    # Every criterion ties, so the first node by name wins: node-a, added last.
    cluster = cluster_of(node("node-b", cpu="2"),
                         pod("vb", "2", node_name="node-b", priority=1),
                         pod("urgent", "2", priority=100))
    cluster.add_node(parse_node(node("node-a", cpu="2"), Source()))
    victim = parse_pod(pod("va", "2", node_name="node-a", priority=1), Source(),
                       cluster.priority.resolve)
    cluster.bind(victim, "node-a")
    decision = schedule(cluster, "urgent")
    assert decision.result == "preempt" and decision.node == "node-a"
    assert decision.victims == ["default/va"]
    assert decision.preemption is not None
    assert decision.preemption.decided_by == "first node by name"
    fast = schedule_one(Scheduler(cluster), cluster.pending["default/urgent"], explain=False,
                        now=1e9)
    assert fast.preemption is not None and fast.preemption.node == "node-a"


def test_a_shuffled_arrival_order_picks_as_the_sorted_one() -> None:
    names = [f"n-{i:02d}" for i in range(12)]
    shuffled = names[:]
    random.Random(7).shuffle(shuffled)
    cluster = cluster_of(pod("p", "1"))
    for name in shuffled:
        cluster.add_node(parse_node(node(name), Source()))
    assert not cluster.names_in_order
    assert np.array_equal(np.argsort(cluster.name_rank), [cluster.node_index[n] for n in names])
    assert schedule(cluster, "p").node == "n-00"


SCENARIO = """
apiVersion: v1
kind: Node
metadata:
  name: node-b
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  annotations: {kubepreempt.io/arrival: "%s"}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  annotations: {kubepreempt.io/arrival: "10s"}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
"""


def _bound(arrival: str) -> list[tuple[float, str | None]]:
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(SCENARIO % arrival), "t.yaml")):
        flatten(doc, Source("t.yaml", i), docs)
    result = simulate(build_scenario(docs, 0))
    return [(e.time, e.node) for e in result.events if e.type == "bound"]


def test_a_node_that_arrives_later_wins_the_tie_as_if_present_from_the_start() -> None:
    assert _bound("0s") == [(10.0, "node-a")]
    assert _bound("5s") == [(10.0, "node-a")]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=10, unique=True),
       st.integers(0, 10), st.data())
def test_the_best_value_ties_to_the_first_name(names, loaded, data) -> None:
    # Some nodes loaded (sorted), the rest joined one by one in the given order.
    cluster = Cluster()
    cluster.add_nodes([parse_node(node(n), Source()) for n in sorted(names[:loaded])])
    for name in names[loaded:]:
        cluster.add_node(parse_node(node(name), Source()))
    n = len(cluster.nodes)
    values = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int64)
    best = values.max()
    expect = min((i for i in range(n) if values[i] == best), key=lambda i: cluster.nodes[i].name)
    assert cluster.best_first_by_name(values) == expect
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))), np.int64)
    sub = values[rows]
    expect_sub = min((k for k in range(rows.size) if sub[k] == sub.max()),
                     key=lambda k: cluster.nodes[rows[k]].name)
    assert cluster.best_first_by_name(sub, rows) == expect_sub
