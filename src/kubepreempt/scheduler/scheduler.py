"""``schedule_one``: filter every node, score the feasible ones, or run preemption.

The decision is pure: the cluster is not changed. Callers (the CLI, the simulator) apply
it. Evaluating all nodes is the default; ties between equal best scores go to the node
whose name sorts first (upstream picks randomly among them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster, NodeView
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.profile import Profile, default_profile


@dataclass(slots=True)
class FilterOutcome:
    """Feasible node indices and, for every other node, the status that rejected it."""

    feasible: np.ndarray
    statuses: dict[int, Status] = field(default_factory=dict)
    prefilter: Status | None = None


def fit_error_message(num_nodes: int, statuses: dict[int, Status] | list[Status],
                      prefilter: Status | None = None) -> str:
    """Upstream ``FitError.Error()``: "0/N nodes are available: <count reason>, ...."."""
    msg = f"0/{num_nodes} nodes are available"
    if prefilter is not None:
        return f"{msg}: {prefilter.message()}."
    counts: Counter[str] = Counter()
    for status in (statuses.values() if isinstance(statuses, dict) else statuses):
        for reason in status.reasons:
            counts[reason] += 1
    parts = sorted(f"{n} {reason}" for reason, n in counts.items())
    return f"{msg}: {', '.join(parts)}." if parts else f"{msg}."


class Scheduler:
    """The scheduling algorithm over one cluster snapshot."""

    def __init__(self, cluster: Cluster, profile: Profile | None = None,
                 nominator: Nominator | None = None) -> None:
        self.cluster = cluster
        self.profile = profile or default_profile()
        self.nominator = nominator if nominator is not None else Nominator.from_pending(
            cluster.pending.values(), cluster.node_index)

    # ---- cycle state ----------------------------------------------------------------------
    def new_state(self, pod: Pod) -> tuple[CycleState, Status | None, list[FilterPlugin]]:
        """Run PreFilter: per-pod plugin data, and the filters that matter for this pod."""
        state = CycleState(pod, self.cluster, self.cluster.request_vector(pod))
        active = []
        for plugin in self.profile.filters:
            if not plugin.relevant(state):
                continue
            status = plugin.pre_filter(state)
            if status is not None and status.code != Code.SUCCESS:
                if status.code == Code.SKIP:
                    continue
                return state, status, []
            active.append(plugin)
        return state, None, active

    # ---- filtering ------------------------------------------------------------------------
    @staticmethod
    def run_filters(
        state: CycleState, view: NodeView, filters: list[FilterPlugin]
    ) -> Status | None:
        """All filters on one node view; the first rejection wins, as upstream."""
        for plugin in filters:
            status = plugin.filter(state, view)
            if status is not None:
                return status
        return None

    def filter_with_nominated(self, state: CycleState, view: NodeView,
                              filters: list[FilterPlugin]) -> Status | None:
        """Upstream ``RunFilterPluginsWithNominatedPods``: the two-pass check.

        Pass 1 adds the pods nominated to this node with priority >= the pod's; if the pod
        passes and any were added, pass 2 checks again without them (they may be what an
        inter-pod affinity relied on, yet they are not running).
        """
        pod = state.pod
        nominees = [p for p in self.nominator.on_node(view.node.name)
                    if p.key != pod.key and p.priority >= pod.priority]
        if nominees:
            state1 = state.clone()
            view1 = view.clone()
            for other in nominees:
                add_to_view(state1, view1, other, filters)
            status = self.run_filters(state1, view1, filters)
            if status is not None:
                return status
        return self.run_filters(state, view, filters)

    def find_feasible(self, pod: Pod, state: CycleState | None = None,
                      filters: list[FilterPlugin] | None = None) -> FilterOutcome:
        """Filter all nodes; vector paths for most, the two-pass check where nominees are."""
        if state is None:
            state, prefilter, filters = self.new_state(pod)
            if prefilter is not None:
                statuses = dict.fromkeys(range(len(self.cluster.nodes)), prefilter)
                return FilterOutcome(np.zeros(0, np.int64), statuses, prefilter)
        assert filters is not None
        cluster = self.cluster
        remaining = np.arange(len(cluster.nodes), dtype=np.int64)
        statuses: dict[int, Status] = {}
        special = sorted(cluster.node_index[n] for n in
                         self.nominator.nodes_with_nominees(pod.priority, pod.key)
                         if n in cluster.node_index)
        if special:
            remaining = np.setdiff1d(remaining, np.array(special, np.int64))
        for plugin in filters:
            if remaining.size == 0:
                break
            for bad, status in plugin.filter_nodes(state, remaining):
                for i in bad.tolist():
                    statuses[i] = status
                remaining = np.setdiff1d(remaining, bad, assume_unique=True)
        passed = [remaining]
        for i in special:
            status = self.filter_with_nominated(state, cluster.node_view(i), filters)
            if status is None:
                passed.append(np.array([i], np.int64))
            else:
                statuses[i] = status
        feasible = np.sort(np.concatenate(passed)) if len(passed) > 1 else remaining
        return FilterOutcome(feasible, statuses)

    # ---- scoring --------------------------------------------------------------------------
    def score(self, state: CycleState, feasible: np.ndarray) -> dict[str, np.ndarray]:
        """Weighted, normalised score per plugin over ``feasible`` nodes."""
        out: dict[str, np.ndarray] = {}
        for plugin in self.profile.scorers:
            if not plugin.score_relevant(state):
                continue
            plugin.pre_score(state, feasible)
            out[plugin.name] = plugin.score(state, feasible) * plugin.weight
        return out

    def select_host(self, state: CycleState, feasible: np.ndarray) -> tuple[int, dict]:
        """Highest total score; ties to the first node by name. One feasible node: no scoring."""
        if feasible.size == 1:
            return int(feasible[0]), {}
        scores = self.score(state, feasible)
        total = np.zeros(feasible.size, np.int64)
        for part in scores.values():
            total += part
        return int(feasible[int(np.argmax(total))]), scores


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
