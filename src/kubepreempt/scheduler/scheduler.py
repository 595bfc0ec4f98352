"""The scheduler over one cluster snapshot: profile, nominator, caches.

A ``Scheduler`` holds what persists between scheduling cycles (upstream's ``Scheduler``
with its profile framework, nominator and cache). The order of one cycle lives in
:mod:`kubepreempt.scheduler.cycle`; filtering, scoring and preemption semantics in their
own modules; the incremental caches in :mod:`kubepreempt.scheduler.signature_cache`.
The methods here are thin: they bind those functions to this snapshot.
"""

from __future__ import annotations

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster, NodeView
from kubepreempt.scheduler import filtering, scoring
from kubepreempt.scheduler.filtering import FilterOutcome
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.profile import Profile, default_profile
from kubepreempt.scheduler.signature_cache import SignatureCache
from kubepreempt.scheduler.statuses import NodeStatuses, fit_error_message

__all__ = ["FilterOutcome", "NodeStatuses", "Scheduler", "fit_error_message"]


class Scheduler:
    """The scheduling algorithm's state over one cluster snapshot."""

    def __init__(self, cluster: Cluster, profile: Profile | None = None,
                 nominator: Nominator | None = None) -> None:
        self.cluster = cluster
        self.profile = profile or default_profile()
        # The spec.schedulerName values a profile serves.
        self.scheduler_names = frozenset({self.profile.scheduler_name})
        self.nominator = nominator if nominator is not None else Nominator.from_pending(
            cluster.pending.values(), cluster.node_index, self.scheduler_names)
        self.cache = SignatureCache()
        self.use_cached_statuses = True  # tests switch it off to compare with the reference

    def responsible_for(self, pod: Pod) -> bool:
        """Upstream ``responsibleForPod``: a profile serves the pod's scheduler name."""
        return pod.scheduler_name in self.scheduler_names

    def new_state(self, pod: Pod) -> tuple[CycleState, Status | None, list[FilterPlugin]]:
        """Run PreFilter (upstream ``RunPreFilterPlugins``): per-pod plugin data, the first
        rejection if any, and the filters that matter for this pod."""
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

    def filter_with_nominated(self, state: CycleState, view: NodeView,
                              filters: list[FilterPlugin]) -> Status | None:
        """The two-pass check of one node (see ``filtering.filter_with_nominated``)."""
        return filtering.filter_with_nominated(self.nominator, state, view, filters)

    def find_feasible(self, pod: Pod, state: CycleState | None = None,
                      filters: list[FilterPlugin] | None = None) -> FilterOutcome:
        """Every node filtered: feasible indices and the others' statuses (PreFilter runs
        first when no ``state`` is given; its rejection applies to every node)."""
        if state is None or filters is None:
            state, prefilter, filters = self.new_state(pod)
            if prefilter is not None:
                n = len(self.cluster.nodes)
                statuses = NodeStatuses(n)
                statuses.set_many(np.arange(n), prefilter)
                return FilterOutcome(np.zeros(0, np.int64), statuses, prefilter)
        known = (self.cache.statuses(self.cluster, pod, state, filters)
                 if self.use_cached_statuses else None)
        return filtering.find_feasible(self.cluster, self.nominator, pod, state, filters, known)

    def select_host(self, state: CycleState, feasible: np.ndarray) -> tuple[int, dict]:
        """The best-scoring feasible node and the per-plugin scores (see ``scoring``)."""
        return scoring.select_host(self.profile.scorers, state, feasible)

    def fast_pick(self, pod: Pod, state: CycleState, filters: list[FilterPlugin]) -> int | None:
        """The node the reference path would pick, from the signature cache (or None)."""
        return self.cache.pick(self.cluster, self.nominator, self.profile.scorers, pod,
                               state, filters)
