"""Node sampling: ``percentageOfNodesToScore`` as upstream's ``findNodesThatPassFilters``.

Off by default (kubepreempt answers with the globally best node). When a configuration
asks for it (``SchedulerConfig.sample_nodes``, the CLI's ``--sample-nodes``), filtering
stops once ``Profile.nodes_to_find`` feasible nodes are found, walking the nodes from the
scheduler's ``nextStartNodeIndex``, which then advances by the number of nodes processed;
only those feasible nodes are scored. Upstream filters 16 nodes at a time in parallel, so
which nodes past the cut-off were also checked varies from run to run; here the walk is
sequential (deterministic). The walk order is the scheduler cache's node tree: nodes
round-robin over zones (region + zone, ``GetZoneKey``), zones in order of
their first node, nodes by name within a zone (upstream: informer insertion order).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kubepreempt.scheduler.cache import node_cached
from kubepreempt.scheduler.framework import CycleState, Status
from kubepreempt.snapshot import Snapshot

LABEL_REGION = "topology.kubernetes.io/region"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def zone_key(labels: Mapping[str, str]) -> str:
    """Upstream ``utilnode.GetZoneKey``: region and zone joined; empty without either.

    The deprecated ``failure-domain.beta`` label wins over the stable one whenever it is
    present, even empty (upstream looks the stable one up only when the beta key is absent).
    """
    zone = labels[LABEL_BETA_ZONE] if LABEL_BETA_ZONE in labels else labels.get(LABEL_ZONE, "")
    region = labels[LABEL_BETA_REGION] if LABEL_BETA_REGION in labels \
        else labels.get(LABEL_REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(cluster: Snapshot) -> np.ndarray:
    """Node indices in the node tree's ``list()`` order (zones round-robin)."""
    def compute(c: Snapshot) -> np.ndarray:
        zones: dict[str, list[int]] = {}
        for i, node in enumerate(c.nodes):
            zones.setdefault(zone_key(node.labels), []).append(i)
        out: list[int] = []
        lists = list(zones.values())
        for depth in range(max((len(z) for z in lists), default=0)):
            out.extend(z[depth] for z in lists if depth < len(z))
        return np.array(out, np.int64)
    return node_cached(cluster, ("node-tree-order",), compute)


class NodeSampling:
    """Whether sampling is on, and ``Scheduler.nextStartNodeIndex``: one per scheduler,
    shared by its profiles (callers such as the simulator's 1.36 queue switch it on)."""

    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled
        self.value = 0  # nextStartNodeIndex


def sample_feasible(cluster: Snapshot, state: CycleState, nodes_to_find, start: NodeSampling,
                    feasible: np.ndarray, statuses: Mapping[int, Status]
                    ) -> tuple[np.ndarray, Mapping[int, Status]]:
    """The feasible nodes a sampled search finds, and the statuses of the nodes it
    rejected before stopping; advances ``start``.

    As upstream's ``findNodesThatFitPod``: the walk starts at ``start`` modulo the nodes
    walked (PreFilter may narrow them), but ``start`` then advances by the nodes processed
    modulo *all* the cluster's nodes.
    """
    order = node_tree_order(cluster)
    if state.node_names is not None:  # PreFilter narrowed the nodes: only those are walked
        order = np.array([i for i in order.tolist()
                          if cluster.nodes[i].name in state.node_names], np.int64)
    total = order.size
    if total == 0:
        return feasible, statuses
    want = nodes_to_find(total)
    first = start.value % total
    walk = np.concatenate([order[first:], order[:first]])
    ok = np.zeros(len(cluster.nodes), bool)
    ok[feasible] = True
    found = np.cumsum(ok[walk])
    processed = total if found[-1] <= want else int(np.searchsorted(found, want)) + 1
    start.value = (start.value + processed) % len(cluster.nodes)
    if processed == total:
        return feasible, statuses
    seen = walk[:processed]
    chosen = np.sort(seen[ok[seen]])
    rejected = {i: statuses[i] for i in seen[~ok[seen]].tolist() if i in statuses}
    return chosen, rejected
