"""The scheduler owns its caches of node-derived data; the snapshot beneath it is data.

``scheduler/cache.py`` keeps, per snapshot, the ``node_cached`` entries (dropped when
``node_generation`` moves) and the preemption index (kept across node changes, grown by a
row when a node joins). These tests pin those conditions down; the property tests in
``tests/scheduler/test_fast_preemption.py`` and ``tests/scheduler/test_fast_scheduling.py``
check that the cached answers equal the exact ones.
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from builders import node, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node, parse_pod
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.cache import caches_of, node_cached
from kubepreempt.scheduler.preemption.fast import PreemptionIndex
from kubepreempt.snapshot import Snapshot

SRC = Path(__file__).resolve().parents[2] / "src" / "kubepreempt"


def counting(calls: list[int]):
    def compute(snapshot: Snapshot) -> int:
        calls.append(1)
        return len(snapshot.nodes)
    return compute


def snapshot_with(*names: str) -> Cluster:
    cluster = Cluster()
    cluster.add_nodes([parse_node(node(n), Source()) for n in names])
    return cluster


def test_an_entry_is_computed_once_until_the_node_set_changes() -> None:
    cluster = snapshot_with("n1", "n2")
    calls: list[int] = []
    assert node_cached(cluster, ("k",), counting(calls)) == 2
    assert node_cached(cluster, ("k",), counting(calls)) == 2
    assert len(calls) == 1
    # Pods moving is not a node change: the entry stays.
    p = parse_pod(pod("p", node_name="n1"), Source(), cluster.priority.resolve)
    cluster.bind(p, "n1")
    cluster.remove(p)
    assert node_cached(cluster, ("k",), counting(calls)) == 2
    assert len(calls) == 1
    # A node joining, a node's flags changing, nodes leaving: every entry is dropped.
    cluster.add_node(parse_node(node("n3"), Source()))
    assert node_cached(cluster, ("k",), counting(calls)) == 3
    cluster.node_changed()
    assert node_cached(cluster, ("k",), counting(calls)) == 3
    cluster.pop_nodes(1)
    assert node_cached(cluster, ("k",), counting(calls)) == 2
    assert len(calls) == 4


def test_entries_belong_to_one_snapshot_and_go_with_it() -> None:
    a, b = snapshot_with("n1"), snapshot_with("n1", "n2")
    calls: list[int] = []
    assert node_cached(a, ("k",), counting(calls)) == 1
    assert node_cached(b, ("k",), counting(calls)) == 2  # same key, another snapshot
    assert len(calls) == 2
    assert caches_of(a) is not caches_of(b)
    assert not hasattr(a, "node_cached")  # the snapshot holds no scheduler cache
    held = caches_of.__globals__["_CACHES"]
    key = id(a)
    assert key in held
    del a
    gc.collect()
    assert key not in held  # the caches left with their snapshot


def test_the_preemption_index_survives_node_changes_and_grows_by_a_row() -> None:
    cluster = snapshot_with("n1", "n2")
    index = PreemptionIndex.of(cluster)
    assert caches_of(cluster).preemption_index is index
    cluster.node_changed()  # drops node_cached entries, not the index
    assert PreemptionIndex.of(cluster) is index
    cluster.add_node(parse_node(node("n0"), Source()))
    grown = PreemptionIndex.of(cluster)
    assert grown is index and len(grown.pods) == 3
    cluster.pop_nodes(2)  # a new change epoch: the index starts afresh
    assert PreemptionIndex.of(cluster) is not index


def test_the_snapshot_module_imports_nothing_of_the_scheduler_admission_or_loader() -> None:
    tree = ast.parse((SRC / "snapshot.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    ours = sorted(m for m in imported if m and m.startswith("kubepreempt"))
    assert ours == ["kubepreempt.api.errors", "kubepreempt.api.objects",
                    "kubepreempt.api.podgroup", "kubepreempt.api.spread_sources"]
