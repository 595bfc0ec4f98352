"""Nodes holding nominated pods that count, checked all at once (speed only).

Upstream's ``RunFilterPluginsWithNominatedPods`` (``framework/runtime/framework.go``) runs
the filters on such a node with those nominees added (``addGENominatedPods``: priority
higher than or equal to the pod's), then again without them. Node by node that is
``filtering.filter_with_nominated``; here the same verdicts come for many nodes at once:

- :class:`NominatedRequests`: per node, the counting nominees' summed requests, computed
  once per cycle (filtering and preemption both read them);
- :func:`filter_nominated`: the two-pass check over those nodes where every filter
  ignores pods or can take the nominees' requests (NodeResourcesFit). Pass 2 is implied
  there: fit only gets harder as pods are added, so it passes whenever pass 1 does.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.framework import CycleState, FilterPlugin
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.statuses import NodeStatuses
from kubepreempt.snapshot import Snapshot

# Filters whose verdict on a node does not depend on its pods (only on the node and the
# pod being scheduled): adding or removing pods cannot change it.
POD_INDEPENDENT_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration",
                                     "NodeAffinity"})

# CycleState.data key of the cycle's NominatedRequests, with what they were computed for
# (the nominator and its version, the pod and its priority).
NOMINATED_KEY = "kubepreempt/nominated-requests"


class NominatedRequests:
    """The nodes holding nominees that count for a pod (priority >= its own, not the pod
    itself) and, per node, the nominees' summed requests: what upstream's
    ``addGENominatedPods`` adds to a node before running the filters on it."""

    __slots__ = ("rows", "requests")

    def __init__(self, rows: np.ndarray, requests: np.ndarray) -> None:
        self.rows = rows  # sorted node indices
        self.requests = requests  # (rows, resources)

    @staticmethod
    def of(cluster: Snapshot, nominator: Nominator, pod: Pod,
           state: CycleState | None = None) -> NominatedRequests:
        """The nodes of ``cluster`` holding nominees that count for ``pod``, with their
        summed requests. With ``state`` (the pod's cycle), what an earlier call of the
        cycle found is taken while the nominations are unchanged."""
        if state is not None:
            known = state.data.get(NOMINATED_KEY)
            if known is not None and known[0] is nominator and known[2] is pod \
                    and known[1] == nominator.version and known[3] == pod.priority \
                    and known[4].requests.shape[1] == cluster.alloc.shape[1]:
                return known[4]
        found = NominatedRequests._compute(cluster, nominator, pod)
        if state is not None:
            state.data[NOMINATED_KEY] = (nominator, nominator.version, pod, pod.priority,
                                         found)
        return found

    @staticmethod
    def _compute(cluster: Snapshot, nominator: Nominator, pod: Pod) -> NominatedRequests:
        index = cluster.node_index
        by_node = sorted((index[name], pods) for name, pods
                         in nominator.counting_by_node(pod).items() if name in index)
        # Nominees counted per distinct requests (replicas of one template are alike),
        # then one product with those requests' rows.
        shapes: dict[tuple, int] = {}
        vectors: list[np.ndarray] = []
        at_row: list[int] = []
        at_shape: list[int] = []
        for j, (_, pods) in enumerate(by_node):
            for p in pods:
                shape = tuple(p.requests.items())
                k = shapes.get(shape)
                if k is None:
                    k = shapes[shape] = len(vectors)
                    vectors.append(cluster.request_vector(p))
                at_row.append(j)
                at_shape.append(k)
        # A nominee may have brought a resource column of its own: every row is widened.
        width = cluster.alloc.shape[1]
        table = np.zeros((len(vectors), width), np.int64)
        for k, vec in enumerate(vectors):
            table[k, :vec.size] = vec
        counts = np.zeros((len(by_node), len(vectors)), np.int64)
        np.add.at(counts, (np.array(at_row, np.int64), np.array(at_shape, np.int64)), 1)
        return NominatedRequests(np.array([i for i, _ in by_node], np.int64), counts @ table)

    def subset(self, keep: np.ndarray) -> NominatedRequests:
        """Only the rows where ``keep`` (a mask over ``rows``) is set."""
        return NominatedRequests(self.rows[keep], self.requests[keep])


def filter_nominated(state: CycleState, filters: list[FilterPlugin],
                     nominated: NominatedRequests,
                     statuses: NodeStatuses) -> np.ndarray | None:
    """``filter_with_nominated`` on every node of ``nominated`` at once: the mask over
    its rows of the nodes passing, each other node's status put in ``statuses``.

    Only where every filter ignores pods (``POD_INDEPENDENT_FILTERS``) or can take the
    nominees' summed requests (``filter_nodes_adding``); None otherwise, and nothing is
    recorded (the caller goes node by node). Pass 2 of the two-pass check is left out:
    those filters only get stricter as pods are added, so it passes whenever pass 1 does.
    """
    if not all(f.name in POD_INDEPENDENT_FILTERS or hasattr(f, "filter_nodes_adding")
               for f in filters):
        return None
    rows = nominated.rows
    alive = np.ones(rows.size, bool)
    for plugin in filters:
        remaining = np.flatnonzero(alive)
        if not remaining.size:
            break
        if plugin.name in POD_INDEPENDENT_FILTERS:
            failed = plugin.filter_nodes(state, rows[remaining])
        else:
            failed = plugin.filter_nodes_adding(state, rows[remaining],  # type: ignore[attr-defined]
                                                nominated.requests[remaining])
        for bad, status in failed:
            statuses.set_many(bad, status)
            alive[np.searchsorted(rows, bad)] = False
    return alive
