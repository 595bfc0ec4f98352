"""ImageLocality rules a mutation run found unguarded, with upstream's arithmetic
(``imagelocality/image_locality.go``: ``sumImageScores``, ``scaledImageScore``,
``calculatePriority``)."""

from __future__ import annotations

import numpy as np
from builders import cluster_of

from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins.image_locality import MB, ImageLocality


def test_image_without_size_adds_nothing_at_a_score_boundary() -> None:
    """An image in ``node.status.images`` without ``sizeBytes`` has size 0 (Go's zero
    value), and the sum starts at 0. Two containers: maxThreshold 2000Mi, so
    ``100 * (sum - 23Mi) / (1977Mi)``; an image of 23Mi + 1977Mi/4 - 1 bytes on the only
    node (spread 1/1) scores 24, one byte short of 25."""
    size = 23 * MB + 1977 * MB // 4 - 1
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                       "images": [{"names": ["a:v1"], "sizeBytes": size},
                                  {"names": ["b:v1"]}]}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "a", "image": "a:v1"},
                                   {"name": "b", "image": "b:v1"}]}}
    cluster = cluster_of(node, pod)
    p = cluster.pending["default/p"]
    state = CycleState(p, cluster, cluster.request_vector(p))
    assert ImageLocality().score(state, np.array([0], np.int64)).tolist() == [24]
