"""ImageLocality: favour nodes that already hold the pod's container images.

Upstream arithmetic: each image present on a node contributes ``size * (nodes having it /
all nodes)``; the sum is clamped to [23Mi, 1000Mi x containers] and scaled to 0..100.
Images come from ``node.status.images`` (``names`` and ``sizeBytes``); a pod's image name
without a tag means ``:latest``. Init containers count too. Weight 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from kubepreempt.scheduler.framework import MAX_NODE_SCORE, CycleState, ScorePlugin
from kubepreempt.snapshot import Snapshot

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Add ``:latest`` when the last ``:`` is not after the last ``/``, as upstream."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


def _node_images(raw_node) -> dict[str, int]:
    status = raw_node.get("status") or {}
    out: dict[str, int] = {}
    for image in status.get("images") or []:
        if not isinstance(image, dict):
            continue
        size = int(image.get("sizeBytes") or 0)
        for name in image.get("names") or []:
            out[str(name)] = size  # upstream matches node names as the kubelet reports them
    return out


def _image_table(cluster: Snapshot) -> tuple[list[dict[str, int]], Counter[str]]:
    per_node = [_node_images(n.raw) for n in cluster.nodes]
    spread: Counter[str] = Counter()
    for images in per_node:
        spread.update(images.keys())
    return per_node, spread


def _pod_images(raw_pod) -> tuple[list[str], int]:
    spec = raw_pod.get("spec") or {}
    containers = list(spec.get("containers") or [])
    inits = list(spec.get("initContainers") or [])
    images = [normalized_image_name(str(c.get("image"))) for c in [*inits, *containers]
              if isinstance(c, dict) and c.get("image")]
    return images, len(containers) + len(inits)


class ImageLocality(ScorePlugin):
    """Score by the (spread-scaled) size of the pod's images already on each node."""

    name = "ImageLocality"
    weight = 1

    def relevant(self, state: CycleState) -> bool:
        table, spread = state.cluster_cache("image-locality", _image_table)
        if not spread:
            return False
        images, _ = _pod_images(state.pod.raw)
        return any(i in spread for i in images)

    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        table, spread = state.cluster_cache("image-locality", _image_table)
        images, containers = _pod_images(state.pod.raw)
        total_nodes = len(state.cluster.nodes)
        max_threshold = MAX_CONTAINER_THRESHOLD * max(containers, 1)
        out = np.zeros(nodes.size, np.int64)
        for pos, i in enumerate(nodes.tolist()):
            out[pos] = _priority(_sum_scores(table[i], images, spread, total_nodes),
                                 max_threshold)
        return out


def _sum_scores(node_images: dict[str, int], images: Iterable[str], spread: Counter[str],
                total_nodes: int) -> int:
    total = 0
    for image in images:
        size = node_images.get(image)
        if size is not None:
            total += int(size * (spread[image] / total_nodes))
    return total


def _priority(total: int, max_threshold: int) -> int:
    total = min(max(total, MIN_THRESHOLD), max_threshold)
    return MAX_NODE_SCORE * (total - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
