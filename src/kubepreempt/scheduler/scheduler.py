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
from kubepreempt.cluster_state import Cluster
from kubepreempt.scheduler import filtering, scoring
from kubepreempt.scheduler.config import SchedulerConfig
from kubepreempt.scheduler.filtering import FilterOutcome
from kubepreempt.scheduler.framework import Code, CycleState, FilterPlugin, Status
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.plugins.node_resources import IGNORED_KEY, NodeResourcesFit
from kubepreempt.scheduler.profile import Profile, default_profile
from kubepreempt.scheduler.sampling import NodeSampling
from kubepreempt.scheduler.signature_cache import SignatureCache
from kubepreempt.scheduler.statuses import NodeStatuses, fit_error_message
from kubepreempt.snapshot import NodeView

__all__ = ["FilterOutcome", "NodeStatuses", "Scheduler", "fit_error_message"]


class Scheduler:
    """The scheduling algorithm's state over one cluster snapshot.

    One ``Scheduler`` per profile: the first profile's is the one callers hold;
    :meth:`for_pod` gives the one serving a pod's ``spec.schedulerName``. They share the
    snapshot and the nominator (upstream: one scheduler cache and queue, a framework per
    profile); each keeps its own incremental caches, so those key on the profile.
    ``config`` (a ``SchedulerConfig``) defaults to the one loaded with the cluster
    (``Cluster.scheduler_config``), else upstream's default profile.
    """

    def __init__(self, cluster: Cluster, profile: Profile | None = None,
                 nominator: Nominator | None = None,
                 config: SchedulerConfig | None = None) -> None:
        self.cluster = cluster
        if profile is not None:
            profiles = [profile]
        else:
            config = config if config is not None else cluster.scheduler_config
            profiles = list(config.profiles) if config is not None else [default_profile()]
        self.profile = profiles[0]
        # The spec.schedulerName values the profiles serve.
        self.scheduler_names = frozenset(p.scheduler_name for p in profiles)
        self.nominator = nominator if nominator is not None else Nominator.from_pending(
            cluster.pending.values(), cluster.node_index, self.scheduler_names)
        self.cache = SignatureCache()
        # The filtering fast paths (cached statuses, nominee nodes checked together);
        # tests switch them off to compare with the reference.
        self.use_cached_statuses = True
        # NodeResourcesFit with ignoredResources/Groups: the request row it checks.
        self._fit = next((f for f in self.profile.filters if isinstance(f, NodeResourcesFit)
                          and (f.ignored_resources or f.ignored_groups)), None)
        # percentageOfNodesToScore sampling (off: the globally best node) and upstream's
        # nextStartNodeIndex, shared by the profiles.
        self.sampling = NodeSampling(bool(getattr(config, "sample_nodes", False)))
        self._by_name: dict[str, Scheduler] = {self.profile.scheduler_name: self}
        for other in profiles[1:]:
            sibling = Scheduler(cluster, other, self.nominator)
            sibling.scheduler_names = self.scheduler_names
            sibling.sampling = self.sampling
            sibling._by_name = self._by_name
            self._by_name[other.scheduler_name] = sibling

    @property
    def sample_nodes(self) -> bool:
        """percentageOfNodesToScore sampling on (every profile of this scheduler)."""
        return self.sampling.enabled

    @sample_nodes.setter
    def sample_nodes(self, on: bool) -> None:
        self.sampling.enabled = on

    @property
    def start_index(self) -> NodeSampling:
        """Where the next sampled search starts (``nextStartNodeIndex``, ``.value``)."""
        return self.sampling

    def responsible_for(self, pod: Pod) -> bool:
        """Upstream ``responsibleForPod``: a profile serves the pod's scheduler name."""
        return pod.scheduler_name in self.scheduler_names

    def for_pod(self, pod: Pod) -> Scheduler:
        """The scheduler of the profile serving ``pod`` (this one if none does)."""
        return self._by_name.get(pod.scheduler_name, self)

    def profile_for(self, pod: Pod) -> Scheduler | None:
        """The scheduler of the profile serving ``pod``; None when no profile does."""
        return self._by_name.get(pod.scheduler_name)

    @property
    def profiles(self) -> list[Profile]:
        """Every profile, the first one first."""
        return [s.profile for s in self._by_name.values()]

    def new_state(self, pod: Pod) -> tuple[CycleState, Status | None, list[FilterPlugin]]:
        """Run PreFilter (upstream ``RunPreFilterPlugins``): per-pod plugin data, the first
        rejection if any, and the filters that matter for this pod."""
        if self._fit is None:
            state = CycleState(pod, self.cluster, self.cluster.request_vector(pod))
        else:
            request, ignored = self._fit.request_row(self.cluster, pod)
            state = CycleState(pod, self.cluster, request)
            state.data[IGNORED_KEY] = ignored
        active = []
        for plugin in self.profile.filters:
            hooks = plugin.hooks
            if "relevant" in hooks and not plugin.relevant(state):
                continue
            status = plugin.pre_filter(state) if "pre_filter" in hooks else None
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
        return filtering.find_feasible(self.cluster, self.nominator, pod, state, filters, known,
                                       nominees_at_once=self.use_cached_statuses)

    def select_host(self, state: CycleState, feasible: np.ndarray) -> tuple[int, dict]:
        """The best-scoring feasible node and the per-plugin scores (see ``scoring``)."""
        return scoring.select_host(self.profile.scorers, state, feasible)

    def fast_pick(self, pod: Pod, state: CycleState, filters: list[FilterPlugin]) -> int | None:
        """The node the reference path would pick, from the signature cache (or None)."""
        return self.cache.pick(self.cluster, self.nominator, self.profile.scorers, pod,
                               state, filters)
