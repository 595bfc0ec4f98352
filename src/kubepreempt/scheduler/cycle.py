"""One scheduling cycle: the only place that orders the steps of an attempt.

Mirrors ``ScheduleOne`` / ``schedulingCycle`` / ``schedulePod`` in upstream's
``pkg/scheduler/schedule_one.go``:

1. pods kube-scheduler does not take: a ``spec.schedulerName`` no profile serves
   (``responsibleForPod``: never queued), scheduling gates (the SchedulingGates
   PreEnqueue keeps the pod out of activeQ), ``metadata.deletionTimestamp``
   (``skipPodSchedule``);
2. no nodes at all: ``ErrNoNodesAvailable``, no PostFilter;
3. PreFilter; then the nominated node first (``evaluateNominatedNode``), taken if it
   passes every filter; else every node (``findNodesThatPassFilters``);
4. one feasible node is taken as is, several are scored (``prioritizeNodes``,
   ``selectHost``);
5. none: the PostFilter plugins in profile order (``RunPostFilterPlugins``) —
   DynamicResources, then DefaultPreemption — and the FitError message.

``explain`` decides only what is materialised (every node's status, the score table,
every preemption candidate), never the decision: without it the incremental caches
answer where they can (``signature_cache``, ``preemption.fast``), with the same result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.filtering import NODE_NAME_PLUGINS
from kubepreempt.scheduler.framework import Code, Status
from kubepreempt.scheduler.preemption import Evaluator, PreemptionResult
from kubepreempt.scheduler.sampling import sample_feasible
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.scheduler.statuses import NO_NODES_AVAILABLE, NodeStatuses, fit_error_message

SCHEDULED = "scheduled"
PREEMPT = "preempt"
UNSCHEDULABLE = "unschedulable"
IGNORED = "ignored"  # no profile serves the pod's schedulerName
SKIPPED = "skipped"  # the pod is being deleted

SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"
# DynamicResources PostFilter for a pod without resource claims.
NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
# DynamicResources PostFilter when its PreFilter never ran (an earlier PreFilter plugin
# rejected the pod as UnschedulableAndUnresolvable): CycleState.Read's ErrNotFound. It is
# an Error status, so RunPostFilterPlugins stops and DefaultPreemption does not run.
DRA_STATE_NOT_FOUND = "not found"


@dataclass(slots=True, eq=False)
class CycleResult:
    """The outcome of one scheduling cycle for one pod.

    ``node`` is the index of the node the pod lands on (``scheduled``) or is nominated to
    (``preempt``). ``statuses`` maps every rejected node to its filter status (all nodes
    when ``explain``; on the fast path it may be empty). ``message`` is the text upstream
    writes in the PodScheduled condition / FailedScheduling event (empty when scheduled).
    """

    pod: Pod
    result: str
    node: int | None = None
    node_name: str | None = None
    num_nodes: int = 0
    statuses: Mapping[int, Status] = field(default_factory=dict)
    prefilter: Status | None = None
    feasible: np.ndarray | None = None
    scores: dict[str, np.ndarray] | None = None  # with explain and several feasible nodes
    preemption: PreemptionResult | None = None
    post_filter: str = ""  # the PostFilter plugins' joined message
    fixed_message: str = ""  # messages that are not a FitError
    profile: str | None = None  # schedulerName of the profile that decided (None: ignored)
    # PreFilter plugins that narrowed the nodes to a name list (NodeAffinity)
    node_name_plugins: frozenset[str] = frozenset()

    @property
    def unschedulable_plugins(self) -> frozenset[str]:
        """The plugins that rejected the pod (upstream ``Diagnosis.UnschedulablePlugins``,
        kept in ``QueuedPodInfo`` for queueing hints): the PreFilter plugin that rejected
        it, else the plugin of every node's status and every PreFilter plugin that returned
        node names (``RunPreFilterPlugins``' third result, even when the names cover every
        node). Empty when scheduled or when no plugin ran (no nodes, gates, other
        schedulers)."""
        if self.result == SCHEDULED or self.fixed_message:
            return frozenset()
        if self.prefilter is not None:
            return frozenset({self.prefilter.plugin})
        statuses = (st for st, _ in self.statuses.counts()) \
            if isinstance(self.statuses, NodeStatuses) else self.statuses.values()
        return frozenset(st.plugin for st in statuses) | self.node_name_plugins

    @property
    def message(self) -> str:
        """Upstream's message for this outcome (built on first use: the fit-error
        histogram counts every node)."""
        if self.result == SCHEDULED:
            return ""
        if self.fixed_message:
            return self.fixed_message
        return fit_error_message(self.num_nodes, self.statuses, self.prefilter,
                                 self.post_filter)


def schedule_one(sched: Scheduler, pod: Pod, *, preemption: bool = True,
                 explain: bool = False, now: float | None = None,
                 evaluator: Evaluator | None = None) -> CycleResult:
    """Decide where ``pod`` goes, as one kube-scheduler cycle would (nothing changes).

    ``preemption=False`` disables DefaultPreemption for this cycle (the other PostFilter
    plugins of the profile still run, as with DefaultPreemption disabled in the profile).
    ``evaluator`` carries DefaultPreemption's options (candidate sampling and its seeded
    random offset); by default every potential node is evaluated.
    """
    cluster = sched.cluster
    nodes = cluster.nodes
    n = len(nodes)
    serving = sched.profile_for(pod)  # the profile named by spec.schedulerName
    if serving is None:  # upstream responsibleForPod: never queued
        return CycleResult(pod, IGNORED, num_nodes=n, fixed_message=(
            f'no scheduler profile serves schedulerName "{pod.scheduler_name}"; '
            "kube-scheduler does not queue this pod"))
    result = _schedule(serving, pod, n, preemption, explain, now, evaluator)
    result.profile = pod.scheduler_name
    return result


def _schedule(sched: Scheduler, pod: Pod, n: int, preemption: bool, explain: bool,
              now: float | None, evaluator: Evaluator | None) -> CycleResult:
    """``schedule_one`` once the profile is known."""
    cluster = sched.cluster
    nodes = cluster.nodes
    if pod.scheduling_gates:
        return CycleResult(pod, UNSCHEDULABLE, num_nodes=n, fixed_message=SCHEDULING_GATED)
    if pod.terminating:
        return CycleResult(pod, SKIPPED, num_nodes=n,
                           fixed_message=f"skip schedule deleting pod: {pod.key}")
    if n == 0:
        return CycleResult(pod, UNSCHEDULABLE, fixed_message=NO_NODES_AVAILABLE)
    state, prefilter, filters = sched.new_state(pod)
    statuses: Mapping[int, Status] = {}
    if prefilter is not None:
        statuses = dict.fromkeys(range(n), prefilter)  # upstream: the absent-node status
        feasible = np.zeros(0, np.int64)
    else:
        feasible = None
        idx = cluster.node_index.get(pod.nominated_node_name)
        if idx is not None and sched.filter_with_nominated(
                state, cluster.node_view(idx), filters) is None:
            feasible = np.array([idx], np.int64)
        elif not explain and not sched.sampling.enabled:
            best = sched.fast_pick(pod, state, filters)
            if best is not None:
                return CycleResult(pod, SCHEDULED, best, nodes[best].name, n)
        if feasible is None:
            outcome = sched.find_feasible(pod, state, filters)
            feasible, statuses = outcome.feasible, outcome.statuses
            # percentageOfNodesToScore; with no feasible node too, for the start index
            # (upstream advances it by the nodes processed, the narrowed ones if PreFilter
            # named nodes, whatever the walk found)
            if sched.sampling.enabled:
                feasible, statuses = sample_feasible(
                    cluster, state, sched.profile.nodes_to_find, sched.sampling,
                    feasible, statuses)
    if feasible.size:
        best, scores = sched.select_host(state, feasible)
        return CycleResult(pod, SCHEDULED, best, nodes[best].name, n, statuses,
                           feasible=feasible, scores=scores if explain else None)
    failed = CycleResult(pod, UNSCHEDULABLE, num_nodes=n, statuses=statuses,
                         prefilter=prefilter, feasible=feasible,
                         node_name_plugins=NODE_NAME_PLUGINS if state.node_names is not None
                         else frozenset())
    _post_filter(sched, failed, state, filters, preemption, explain, now, evaluator)
    return failed


def _post_filter(sched: Scheduler, failed: CycleResult, state, filters, preemption: bool,
                 explain: bool, now: float | None, evaluator: Evaluator | None) -> None:
    """Upstream ``RunPostFilterPlugins``: each plugin in order until one succeeds or
    errs; the Unschedulable ones' reasons are joined with ", "."""
    reasons: list[str] = []
    profile = sched.profile
    if profile.dynamic_resources:
        prefilter = failed.prefilter
        if prefilter is not None and prefilter.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            failed.post_filter = DRA_STATE_NOT_FOUND
            return
        reasons.append(NO_CLAIMS_TO_DEALLOCATE)  # no pod here has resource claims
    if profile.preemption and preemption:
        ev = evaluator or Evaluator(sched, now=now, materialize=explain)
        result = ev.preempt(failed.pod, state, filters, failed.statuses, profile=profile)
        failed.preemption = result
        if result.node is not None:
            # Success ends the PostFilter run; its (empty) message replaces the others'.
            failed.result, failed.node_name = PREEMPT, result.node
            failed.node = sched.cluster.node_index[result.node]
            return
        reasons.append(result.message)
    failed.post_filter = ", ".join(reasons)
