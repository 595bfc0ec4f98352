"""The pod group scheduling cycle: all or nothing for a gang.

Mirrors upstream's ``pkg/scheduler/schedule_one_podgroup.go`` (``podGroupInfoForPod``,
``podGroupSchedulingDefaultAlgorithm``, ``podGroupPodSchedulingAlgorithm``,
``submitPodGroupAlgorithmResult``) with the GangScheduling plugin's PreEnqueue and Permit
(``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``):

1. PreEnqueue: a gang whose PodGroup holds fewer than ``minCount`` pods never leaves the
   queue (``waiting``); a pod whose PodGroup does not exist neither;
2. each unscheduled pod, highest priority first, runs the ordinary single-pod cycle
   (:func:`kubepreempt.scheduler.cycle.schedule_one`); a feasible or preempting pod is
   assumed on its node (victims removed in memory) so the group's later pods see it; an
   unschedulable one is left out. Its DefaultPreemption runs only while workload-aware
   preemption is off: with it on, the group cycle runs no PostFilter plugin and the group
   preempts as a whole (``preemption.py``) once the algorithm has failed;
3. Permit: a gang is allowed once its assigned plus assumed pods reach ``minCount``
   (a basic group at once);
4. the group is ``scheduled`` when Permit allowed it with no preemption, ``preempt`` when
   it did only thanks to preemption (every member waits for its victims to go:
   ``pod group is waiting for preemption to complete``), else ``unschedulable``; every
   assumption is undone (nothing here changes the cluster).

Messages are upstream's ``Status.Message()``: the status' error first, then its reasons
(``pod group is unschedulable, waiting for minCount pods from a gang to be scheduled``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import PodGroup
from kubepreempt.scheduler.cycle import (
    IGNORED,
    PREEMPT,
    SCHEDULED,
    SCHEDULING_GATED,
    SKIPPED,
    UNSCHEDULABLE,
    schedule_one,
)
from kubepreempt.scheduler.gang.assume import Assumptions
from kubepreempt.scheduler.gang.members import Members, members_of
from kubepreempt.scheduler.gang.preemption import PreemptionOutcome, WorkloadPreemption
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

WAITING = "waiting"  # PreEnqueue keeps the group's pods out of the scheduling queue
SCHEDULER_ERROR = "error"

# errPodGroupUnschedulable
GROUP_UNSCHEDULABLE = "pod group is unschedulable"
GROUP_WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"
# GangScheduling PreEnqueue and Permit.
MIN_COUNT_NOT_QUEUED = "waiting for minCount pods from a gang to appear in scheduling queue"
MIN_COUNT_NOT_SCHEDULED = "waiting for minCount pods from a gang to be scheduled"
NO_POD_GROUP = "waiting for pods's pod group {} to appear in scheduling queue"  # %q

# PodGroup status condition (scheduling.k8s.io/v1beta1 well-known type and reasons).
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
REASON_SCHEDULED = "Scheduled"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"


def _joined(*reasons: str) -> str:
    """``Status.Message()``: reasons joined with ", "."""
    return ", ".join(r for r in reasons if r)


@dataclass(slots=True)
class MemberResult:
    """What the group cycle decided for one pod of the group.

    ``result``: ``scheduled`` (bound to ``node``), ``preempt`` (nominated to ``node``,
    waiting for ``victims`` to go), ``unschedulable`` or ``waiting``; ``message`` is the
    pod's PodScheduled condition / FailedScheduling event text (empty when scheduled).
    """

    pod: Pod
    result: str
    node: str | None = None
    message: str = ""
    victims: list[Pod] = field(default_factory=list)
    # The plugins that rejected it in its own cycle (UnschedulablePlugins; empty when
    # the group, not a plugin, turned it down): where the queue puts it back.
    unschedulable_plugins: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``-o json``."""
        return {"pod": self.pod.key, "priority": self.pod.priority, "result": self.result,
                "node": self.node, "message": self.message,
                "victims": [v.key for v in self.victims]}


@dataclass(slots=True, eq=False)
class GroupDecision:
    """The outcome of one pod group cycle.

    ``result``: ``scheduled`` | ``preempt`` | ``unschedulable`` | ``waiting`` (PreEnqueue
    holds the pods) | ``error`` (SchedulerError). ``message`` is the PodGroup's
    ``PodGroupInitiallyScheduled`` condition message (empty when scheduled or waiting).
    """

    pod_group: str
    result: str
    message: str = ""
    members: list[MemberResult] = field(default_factory=list)
    assigned: list[Pod] = field(default_factory=list)
    group: PodGroup | None = None
    # Workload-aware preemption's victims (whole units, most important first), when it ran.
    unit_victims: list[Pod] | None = None
    # Its candidate's ``numPodGroupDisruptions``: victim units that belong to a PodGroup
    # (upstream's scheduler_preemption_workload_disruptions metric; decides nothing).
    # 0 when the members' own DefaultPreemption found the victims.
    pod_group_disruptions: int = 0

    @property
    def placements(self) -> dict[str, str]:
        """Pod -> node for the members placed (bound or nominated)."""
        return {m.pod.key: m.node for m in self.members if m.node is not None}

    @property
    def victims(self) -> list[Pod]:
        """Every pod the group's preemption evicts, once each, in decision order."""
        if self.unit_victims is not None:
            return list(self.unit_victims)
        seen: dict[str, Pod] = {}
        for m in self.members:
            for v in m.victims:
                seen.setdefault(v.key, v)
        return list(seen.values())

    @property
    def condition(self) -> dict[str, str] | None:
        """The ``PodGroupInitiallyScheduled`` condition the scheduler writes (None when
        no cycle ran)."""
        if self.result == SCHEDULED:
            return {"type": INITIALLY_SCHEDULED, "status": "True", "reason": REASON_SCHEDULED,
                    "message": self.message}
        if self.result in (PREEMPT, UNSCHEDULABLE):
            return {"type": INITIALLY_SCHEDULED, "status": "False",
                    "reason": REASON_UNSCHEDULABLE, "message": self.message}
        if self.result == SCHEDULER_ERROR:
            return {"type": INITIALLY_SCHEDULED, "status": "False",
                    "reason": REASON_SCHEDULER_ERROR, "message": self.message}
        return None

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``-o json``."""
        group = self.group
        return {
            "podGroup": self.pod_group,
            "policy": group.policy if group else None,
            "minCount": group.min_count if group and group.gang else None,
            "priority": group.priority if group else None,
            "result": self.result,
            "placements": self.placements,
            "victims": [v.key for v in self.victims],
            "message": self.message,
            "condition": self.condition,
            "assigned": [p.key for p in self.assigned],
            "members": [m.to_json() for m in self.members],
        }


def schedule_pod_group(sched: Scheduler, namespace: str, name: str,
                       group: PodGroup | None, *, preemption: bool = True,
                       now: float | None = None, explain: bool = False,
                       workload_preemption: WorkloadPreemption | None = None,
                       evaluator: Evaluator | None = None) -> GroupDecision:
    """Decide PodGroup ``namespace/name`` as kube-scheduler 1.37's pod group cycle would
    (``group`` None: the PodGroup object does not exist). The cluster is not changed.

    ``workload_preemption`` (the WorkloadAwarePreemption gate on): when the group is
    unschedulable, victims are searched across the whole cluster for the group as one
    preemptor (:mod:`kubepreempt.scheduler.gang.preemption`). ``evaluator``: the
    DefaultPreemption every member's own cycle runs with (its sampling, its victim
    groups); by default each cycle makes its own."""
    key = f"{namespace}/{name}"
    members = members_of(sched.cluster, namespace, name)
    if group is None:  # GangScheduling PreEnqueue: the PodGroup must exist
        return _waiting(key, members, NO_POD_GROUP.format(json.dumps(name)), None)
    if group.gang and members.count < group.min_count:
        return _waiting(key, members, MIN_COUNT_NOT_QUEUED, group)
    queued: list[Pod] = []
    held: list[MemberResult] = []
    for pod in members.unscheduled:
        if pod.scheduling_gates:  # SchedulingGates PreEnqueue: never popped
            held.append(MemberResult(pod, UNSCHEDULABLE, message=SCHEDULING_GATED))
        elif pod.terminating:  # skipPodGroupPodSchedule
            held.append(MemberResult(pod, SKIPPED, message=f"skip schedule deleting pod: "
                                     f"{pod.key}"))
        elif sched.profile_for(pod) is None:  # responsibleForPod: never queued
            held.append(MemberResult(pod, IGNORED, message=(
                f'no scheduler profile serves schedulerName "{pod.scheduler_name}"; '
                "kube-scheduler does not queue this pod")))
        else:
            queued.append(pod)
    if not queued:
        return GroupDecision(key, SCHEDULED if len(members.assigned) >= group.min_count
                             else WAITING, members=held, assigned=members.assigned,
                             group=group)
    names = list(dict.fromkeys(p.scheduler_name for p in queued))
    if len(names) > 1:  # frameworkForPodGroup
        message = ("all pods in a single pod group should have the same .spec.schedulerName "
                   f'set, got: "{names[1]}" and "{names[0]}"')
        return GroupDecision(key, SCHEDULER_ERROR, message,
                             [MemberResult(p, UNSCHEDULABLE, message=message) for p in queued]
                             + held, members.assigned, group)
    return _run(sched, key, group, members, queued, held, preemption, now, explain,
                workload_preemption if preemption else None, evaluator)


def _waiting(key: str, members: Members, message: str, group: PodGroup | None
             ) -> GroupDecision:
    return GroupDecision(key, WAITING, "", [MemberResult(p, WAITING, message=message)
                                            for p in members.unscheduled],
                         members.assigned, group)


@dataclass(slots=True)
class Outcome:
    """One pod's result in a group algorithm run: ``node`` where it was assumed (None:
    its own cycle rejected it, ``message`` saying why), the victims its preemption
    needs, and its Permit message (None when rejected, "" when Permit allowed)."""

    pod: Pod
    node: str | None
    message: str
    victims: list[Pod]
    permit: str | None
    plugins: frozenset[str] = frozenset()  # its cycle's UnschedulablePlugins


@dataclass(slots=True)
class AlgorithmResult:
    """``podGroupAlgorithmResult``: per-pod outcomes, the group status (``scheduled``,
    ``preempt`` = waiting on preemption, ``unschedulable``)."""

    outcomes: list[Outcome]
    status: str

    @property
    def assumed(self) -> dict[str, str]:
        """Pod -> node of the pods assumed in this run (``ProposedAssignments``)."""
        return {o.pod.key: o.node for o in self.outcomes if o.node is not None}


def group_algorithm(sched: Scheduler, group: PodGroup, assigned: int, queued: list[Pod],
                    preemption: bool, now: float | None, explain: bool = False,
                    evaluator: Evaluator | None = None, *, post_filters: bool = True
                    ) -> AlgorithmResult:
    """``podGroupSchedulingDefaultAlgorithm``. ``preemption=False``: without the members'
    DefaultPreemption; ``post_filters=False``: without any PostFilter plugin (the pod
    group cycle with workload-aware preemption on), so a rejected member's message is its
    fit error alone. ``evaluator``: DefaultPreemption's options for every member (see
    :func:`schedule_pod_group`). Every assumption is undone."""
    assumptions = Assumptions(sched)
    outcomes: list[Outcome] = []
    status = UNSCHEDULABLE  # NewStatus(Unschedulable).WithError(errPodGroupUnschedulable)
    requires_preemption = False
    scheduled = assigned  # ScheduledPodsCount: assigned + assumed
    preempts = preemption and post_filters
    # Permit allows a basic group at once, a gang from its minCount-th pod on.
    allowed_from = group.min_count if group.gang else 0
    no_plugins: frozenset[str] = frozenset()
    try:
        for pod in queued:
            # The pod's own profile is ``sched``: the cycle makes this very evaluator
            # itself, and only when DefaultPreemption runs (a pod that fits saves it).
            member_evaluator = None
            if preempts and evaluator is not None:
                member_evaluator = evaluator
            elif preempts and sched.profile_for(pod) is not sched:
                member_evaluator = Evaluator(sched, now=now, materialize=explain)
            cycle = schedule_one(sched, pod, preemption=preempts, explain=explain, now=now,
                                 evaluator=member_evaluator)
            if not post_filters:
                cycle.post_filter = ""  # no PostFilter plugin ran: nothing to report
            result = cycle.result
            if result == SCHEDULED:  # (no message, no rejecting plugin, no victims)
                message, plugins, victims = "", no_plugins, []
            elif result == PREEMPT:
                message, plugins = cycle.message, cycle.unschedulable_plugins
                victims = list(cycle.preemption.victims) if cycle.preemption is not None \
                    else []
                requires_preemption = True
            else:
                outcomes.append(Outcome(pod, None, cycle.message, [], None,
                                        cycle.unschedulable_plugins))
                continue  # IsRejected: the group may still be schedulable
            node_name = cycle.node_name
            assert node_name is not None
            # AssumePod for every member, the last too: its victims are removed and
            # re-bound on revert, which moves them to the end of their node's pod order.
            assumptions.assume(pod, node_name, victims)
            scheduled += 1
            permit = "" if scheduled >= allowed_from else MIN_COUNT_NOT_SCHEDULED
            outcomes.append(Outcome(pod, node_name, message, victims, permit, plugins))
            if not permit:  # Permit allowed the group
                status = PREEMPT if requires_preemption else SCHEDULED
    finally:
        assumptions.revert()
    return AlgorithmResult(outcomes, status)


def _run(sched: Scheduler, key: str, group: PodGroup, members: Members, queued: list[Pod],
         held: list[MemberResult], preemption: bool, now: float | None, explain: bool,
         workload_preemption: WorkloadPreemption | None = None,
         evaluator: Evaluator | None = None) -> GroupDecision:
    """``podGroupCycle``: the algorithm, workload-aware preemption when it failed, then
    ``submitPodGroupAlgorithmResult``."""
    # With workload-aware preemption on, the members' own cycles preempt nothing: the
    # pod group cycle runs no PostFilter plugin (DefaultPreemption itself refuses a pod
    # of a scheduling group); only the group as a whole preempts, below.
    post_filters = workload_preemption is None
    algo = group_algorithm(sched, group, len(members.assigned), queued, preemption, now,
                           explain, evaluator, post_filters=post_filters)
    status = algo.status
    if status == SCHEDULED:  # the fitting group: no message, nothing to preempt
        return GroupDecision(key, SCHEDULED, "", [
            MemberResult(o.pod, SCHEDULED, o.node) if o.permit is not None else
            MemberResult(o.pod, UNSCHEDULABLE, message=o.message,
                         unschedulable_plugins=o.plugins)
            for o in algo.outcomes] + held, members.assigned, group)
    group_message = _joined(GROUP_UNSCHEDULABLE, GROUP_WAITING_FOR_PREEMPTION) \
        if status == PREEMPT else GROUP_UNSCHEDULABLE
    preempted: PreemptionOutcome | None = None
    if workload_preemption is not None and status == UNSCHEDULABLE:
        preempted = workload_preemption.preempt(
            sched, group, members, queued,
            lambda: group_algorithm(sched, group, len(members.assigned), queued, False, now,
                                    post_filters=False))
        if preempted.ok:
            status = PREEMPT
        else:  # result.status.AppendReason(status.String())
            group_message = _joined(group_message, preempted.message)
    results: list[MemberResult] = []
    for o in algo.outcomes:
        if preempted is not None and preempted.ok:
            node = preempted.placements.get(o.pod.key)
            message = o.message if o.permit is None else group_message
            results.append(MemberResult(o.pod, PREEMPT if node else UNSCHEDULABLE, node,
                                        message, unschedulable_plugins=o.plugins))
        elif o.permit is None:  # the pod's own FitError / preemption message
            results.append(MemberResult(o.pod, UNSCHEDULABLE, message=o.message,
                                        unschedulable_plugins=o.plugins))
        elif status == SCHEDULED:
            results.append(MemberResult(o.pod, SCHEDULED, o.node))
        elif status == PREEMPT:  # waiting on the pods' own preemptions
            results.append(MemberResult(o.pod, PREEMPT, o.node, group_message, o.victims,
                                        o.plugins))
        else:  # its permit status' message, the preemption no longer relevant
            results.append(MemberResult(o.pod, UNSCHEDULABLE, message=_joined(
                GROUP_UNSCHEDULABLE, o.permit)))
    decision = GroupDecision(key, status, group_message, results + held, members.assigned,
                             group)
    if preempted is not None and preempted.ok:
        decision.unit_victims = preempted.victims
        decision.pod_group_disruptions = preempted.pod_group_disruptions
    return decision
