"""NodeResourcesFit scoring strategies: edge rules the upstream tables leave open.

Answers from upstream ``resource_allocation.go`` (``calculateResourceAllocatableRequest``
skips an extended resource the pod does not request), ``least_allocated.go``,
``requested_to_capacity_ratio.go`` (only positive resource scores are averaged, the mean
rounded with ``math.Round``) and ``helper.BuildBrokenLinearFunction`` (flat after the last
shape point). Each node is held six times so the numpy path (more than four nodes) and the
one-node path both give the worked answer, as int64 scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from builders import cluster_of

from kubepreempt.scheduler.plugins.resource_allocation import (
    LEAST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
    strategy_score_one,
    strategy_scores,
)

COPIES = 6


def _node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "spec": {}, "status": {"allocatable": {"pods": "32", **alloc}}}


def _pod(requests: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": {}},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": dict(requests)}}]},
            "status": {}}


def _scores(strategy: ScoringStrategy, alloc: dict[str, str],
            requests: dict[str, str]) -> set[int]:
    """The scores of ``COPIES`` identical nodes on the numpy and the one-node path."""
    cluster = cluster_of(*[_node(f"n{k}", alloc) for k in range(COPIES)], _pod(requests))
    pod = cluster.pending["default/p"]
    cluster.request_vector(pod)
    idx = np.arange(COPIES, dtype=np.int64)
    many = strategy_scores(strategy, cluster, idx, pod)
    assert many.dtype == np.int64  # upstream's scores are int64
    got = set(many.tolist()) | set(strategy_scores(strategy, cluster, idx[:2], pod).tolist())
    for i in idx.tolist():
        one = strategy_score_one(strategy, cluster, i, pod)
        assert type(one) is int
        got.add(one)
    return got


def test_requested_to_capacity_ratio_counts_a_score_of_one() -> None:
    """Shape (0, 0), (100, 10) scaled to 0..100; node 100 cpu, 1000 bytes; pod 1 cpu
    (utilization 1 -> score 1) and 500 bytes (50 -> 50): both are positive, so
    math.Round((1 + 50) / 2) = 26."""
    strategy = ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, (("cpu", 1), ("memory", 1)),
                               ((0, 0), (100, 10)))
    assert _scores(strategy, {"cpu": "100", "memory": "1000"},
                   {"cpu": "1", "memory": "500"}) == {26}


def test_requested_to_capacity_ratio_flat_after_last_point() -> None:
    """Shape (0, 0), (20, 5), (40, 10): utilization 60 is past the last point, so the
    last point's score 10, scaled 100, for cpu and memory alike: 100."""
    strategy = ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, (("cpu", 1), ("memory", 1)),
                               ((0, 0), (20, 5), (40, 10)))
    assert _scores(strategy, {"cpu": "1000m", "memory": "1000"},
                   {"cpu": "600m", "memory": "600"}) == {100}


def test_unrequested_extended_resource_first_in_the_list() -> None:
    """LeastAllocated over example.com/foo, cpu, memory (weight 1 each); the pod asks for
    no foo, so foo is left out and cpu, memory still count: node 4 cpu, 4000 bytes, pod
    1 cpu, 1000 bytes: (3000 * 100 / 4000 = 75, 75) -> 75."""
    strategy = ScoringStrategy(LEAST_ALLOCATED,
                               (("example.com/foo", 1), ("cpu", 1), ("memory", 1)))
    assert _scores(strategy, {"cpu": "4", "memory": "4000", "example.com/foo": "8"},
                   {"cpu": "1", "memory": "1000"}) == {75}
