"""RequestedToCapacityRatio where ``requested * 100`` would wrap in int64.

Upstream's ``requestedToCapacityRatioScorer`` (requested_to_capacity_ratio.go) maps a
resource with ``requested > capacity`` straight to ``maxUtilization`` (100) and computes
``requested * maxUtilization / capacity`` only below that, so no product of an
over-requested resource is ever formed. A pod asking for 2^62 millicores on a one-core
node: utilization 100, the shape's last point.
"""

from __future__ import annotations

import numpy as np
from builders import cluster_of

from kubepreempt.scheduler.plugins.resource_allocation import (
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
    strategy_score_one,
    strategy_scores,
)


def test_an_over_requested_resource_is_at_full_utilization_without_multiplying() -> None:
    """Shape (0, 0), (100, 10), scaled to 0..100: utilization 100 scores 100. Multiplying
    2^62 by 100 in int64 would wrap to exactly 0 (100 * 2^62 = 25 * 2^64), utilization 0,
    score 0."""
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{k}"},
              "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "32"}}}
             for k in range(6)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {
               "requests": {"cpu": f"{2**62}m", "memory": "1Mi"}}}]}}
    cluster = cluster_of(*nodes, pod)
    p = cluster.pending["default/p"]
    assert p.requests["cpu"] == 2**62
    cluster.request_vector(p)
    strategy = ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, (("cpu", 1),), ((0, 0), (100, 10)))
    idx = np.arange(6, dtype=np.int64)
    assert strategy_scores(strategy, cluster, idx, p).tolist() == [100] * 6  # numpy path
    assert strategy_scores(strategy, cluster, idx[:2], p).tolist() == [100] * 2
    assert strategy_score_one(strategy, cluster, 0, p) == 100
