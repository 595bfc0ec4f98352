"""Filtering: which nodes can run the pod, and why the others cannot.

Mirrors ``findNodesThatPassFilters`` and ``RunFilterPluginsWithNominatedPods``
(``pkg/scheduler/schedule_one.go``, ``framework/runtime/framework.go``): plugins run in
profile order and a node keeps the status of the first plugin that rejects it; nodes
holding nominated pods that count for this pod get the two-pass check. Most nodes are
filtered a plugin at a time over node arrays (``FilterPlugin.filter_nodes``), the rest
one node view at a time (``FilterPlugin.filter``); both give the same verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status
from kubepreempt.scheduler.nominated_requests import NominatedRequests, filter_nominated
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.statuses import NodeStatuses
from kubepreempt.snapshot import NodeView, Snapshot


@dataclass(slots=True)
class FilterOutcome:
    """Feasible node indices and, for every other node, the status that rejected it."""

    feasible: np.ndarray
    statuses: NodeStatuses | dict = field(default_factory=dict)
    prefilter: Status | None = None


def run_filters(state: CycleState, view: NodeView, filters: list[FilterPlugin]) -> Status | None:
    """All filters on one node view; the first rejection wins (upstream ``RunFilterPlugins``)."""
    for plugin in filters:
        status = plugin.filter(state, view)
        if status is not None:
            return status
    return None


def filter_with_nominated(nominator: Nominator, state: CycleState, view: NodeView,
                          filters: list[FilterPlugin]) -> Status | None:
    """Upstream ``RunFilterPluginsWithNominatedPods``: the two-pass check.

    Pass 1 adds the pods nominated to this node that count for this pod (priority >= its
    own); if the pod passes and any were added, pass 2 checks again without them (they may
    be what an inter-pod affinity relied on, yet they are not running).
    """
    nominees = nominator.counting_on(view.node.name, state.pod)
    if nominees:
        state1 = state.clone()
        view1 = view.clone()
        for other in nominees:
            add_to_view(state1, view1, other, filters)
        status = run_filters(state1, view1, filters)
        if status is not None:
            return status
    return run_filters(state, view, filters)


def filter_rows(state: CycleState, filters: list[FilterPlugin], rows: np.ndarray,
                statuses: NodeStatuses | None = None) -> np.ndarray:
    """Run ``filters`` in order over ``rows`` (sorted node indices), each plugin on the
    nodes still passing; the mask over ``rows`` of those passing all. A node's first
    failure goes into ``statuses`` when given, as in the per-node path."""
    alive = np.ones(rows.size, bool)
    remaining = rows
    for plugin in filters:
        if remaining.size == 0:
            break
        failed = plugin.filter_nodes(state, remaining)
        if failed:
            for bad, status in failed:
                if statuses is not None:
                    statuses.set_many(bad, status)
                alive[np.searchsorted(rows, bad)] = False
            remaining = rows[alive]
    return alive


def find_feasible(cluster: Snapshot, nominator: Nominator, pod: Pod, state: CycleState,
                  filters: list[FilterPlugin],
                  known: NodeStatuses | None = None,
                  nominees_at_once: bool = True) -> FilterOutcome:
    """Filter every node (or PreFilter's nodes); statuses for the rejected ones.

    ``known`` is every node's status with nominees ignored, from a cache that already ran
    ``filters`` (see ``signature_cache``); only the nodes holding counting nominees are
    then checked here. ``nominees_at_once``: check those nodes together where
    :func:`filter_nominated` can (same verdicts), else one by one.
    """
    n = len(cluster.nodes)
    nominated = NominatedRequests.of(cluster, nominator, pod, state)
    special = nominated.rows.tolist()
    if known is not None:
        statuses = known
        statuses.clear_many(special)
        alive = statuses.unset_mask()
        alive[special] = False
        to_run: list[FilterPlugin] = []
    else:
        statuses = NodeStatuses(n)
        alive = np.ones(n, bool)
        alive[special] = False
        to_run = filters
    if state.node_names is not None:
        # Upstream evaluates only PreFilter's nodes; the rest get one absent-node status.
        # Looked up by name, not by scanning every node: DaemonSet pods name one node.
        index = cluster.node_index
        outside_mask = np.ones(n, bool)
        outside_mask[[i for name in state.node_names
                      if (i := index.get(name)) is not None]] = False
        outside = np.flatnonzero(outside_mask)
        if outside.size:
            statuses.set_many(outside, absent_status(filters))
            alive[outside] = False
        nominated = nominated.subset(np.array(
            [cluster.nodes[i].name in state.node_names for i in special], bool))
        special = nominated.rows.tolist()
    remaining = np.flatnonzero(alive)
    if to_run:
        remaining = remaining[filter_rows(state, to_run, remaining, statuses)]
    passed = [remaining]
    if special and nominees_at_once:
        alive_special = filter_nominated(state, filters, nominated, statuses)
        if alive_special is not None:
            passed.append(nominated.rows[alive_special])
            special = []
    for i in special:
        status = filter_with_nominated(nominator, state, cluster.node_view(i), filters)
        if status is None:
            passed.append(np.array([i], np.int64))
        else:
            statuses[i] = status
    feasible = np.sort(np.concatenate(passed)) if len(passed) > 1 else remaining
    return FilterOutcome(feasible, statuses)


# The PreFilter plugins that can narrow the nodes to a name list (PreFilterResult).
NODE_NAME_PLUGINS = frozenset({"NodeAffinity"})


def absent_status(filters: list[FilterPlugin]) -> Status:
    """Status of nodes a PreFilter node-name result left out (upstream wording).

    Its plugin is the one whose PreFilter returned node names (NodeAffinity, the only one
    that does): upstream's ``RunPreFilterPlugins`` returns those plugins and
    ``findNodesThatFitPod`` keeps them in ``Diagnosis.UnschedulablePlugins``, which the
    queueing hints read, so NodeAffinity's hint requeues the pod when a named node is added.
    """
    names = sorted(f.name for f in filters if f.name in NODE_NAME_PLUGINS)
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  (f"node(s) didn't satisfy plugin(s) [{' '.join(names)}]",), "NodeAffinity")


def add_to_view(state: CycleState, view: NodeView, pod: Pod,
                filters: list[FilterPlugin]) -> None:
    """Hypothetically add ``pod`` to ``view`` (and to plugins' cross-node state)."""
    view.pods.append(pod)
    view.requested = view.requested + state.cluster.request_vector(pod)
    for plugin in filters:
        plugin.add_pod(state, pod, view)


def remove_from_view(state: CycleState, view: NodeView, pod: Pod,
                     filters: list[FilterPlugin]) -> None:
    """Hypothetically remove ``pod`` from ``view`` (and from plugins' cross-node state)."""
    view.pods = [p for p in view.pods if p.key != pod.key]
    view.requested = view.requested - state.cluster.request_vector(pod)
    for plugin in filters:
        plugin.remove_pod(state, pod, view)
