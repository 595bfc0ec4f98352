"""kube-scheduler as an actor of the simulator: its queue, its timers and its attempts.

The scheduler handles one pod at a time; each attempt takes ``latency`` seconds (the pod
is popped at the start and the decision is taken on the state at the end). Decisions come
from :func:`kubepreempt.scheduler.cycle.schedule_one`, the same cycle as the library and
``bench``; this module only applies them to the world.

With PodGroups (Kubernetes 1.37, GenericWorkload on: ``groups`` given) the driver plays
kube-scheduler's pod group cycle (``schedule_one_podgroup.go``): the GangScheduling
PreEnqueue holds a group's pods out of activeQ until the PodGroup exists and, for a
gang, ``minCount`` of its pods exist; when one pod of a group is popped, every other
waiting pod of the group is taken out of the queue too (``PopSpecificPod``) and the
group is decided in one cycle by :func:`kubepreempt.scheduler.gang.schedule_pod_group`,
workload-aware preemption included. Bound all at once, or none: each pod goes back
through the failure handler on its own, to the pool when a plugin rejected it, else to
backoffQ (no plugin rejected it: the group did); a group waiting for its victims has its
pods nominated, and binds in a later cycle once they are gone.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.cycle import IGNORED, PREEMPT, SCHEDULED, SKIPPED, schedule_one
from kubepreempt.scheduler.gang import MemberResult, schedule_pod_group
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.preemption.victim_units import VictimGroups
from kubepreempt.scheduler.queue.events import (
    NODE_ADD,
    NODE_DELETE,
    POD_ADD,
    POD_DELETE,
    ClusterEvent,
)
from kubepreempt.scheduler.queue.hints import hint_maps
from kubepreempt.scheduler.queue.priority_queue import PriorityQueue
from kubepreempt.scheduler.queue.scheduling_queue import FIFO, UPSTREAM, QueuedPod
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.pod_groups import GroupBook
from kubepreempt.sim.scenario import PodPlan
from kubepreempt.sim.world import World

GANG_PLUGIN = "GangScheduling"  # the PreEnqueue plugin holding a group's pods


class SchedulerDriver(Actor):
    """Runs kube-scheduler against the world: queues pending pods, pops them one at a
    time, applies each decision (bind, preempt and nominate, or requeue).

    ``queue``: the queue mode (``1.36``, ``classic`` or ``fifo``); ``best_candidates``
    False samples as upstream (DryRunPreemption window, percentageOfNodesToScore).
    ``groups``: the run's PodGroups when GenericWorkload is on (module doc); then
    DefaultPreemption also weighs victims by their PodGroup and evicts ``all`` groups
    whole; ``pod_group_preemption_policy``: that gate is on.
    """

    def __init__(self, world: World, queue: str, latency: float, best_candidates: bool,
                 seed: int, groups: GroupBook | None = None,
                 pod_group_preemption_policy: bool = False) -> None:
        self.world = world
        self.kernel = world.kernel
        self.cluster = world.cluster
        self.nominations = queue != FIFO  # FIFO mode: the old scheduler, no nominations
        self.hints = queue == UPSTREAM  # queueing hints and async preemption
        self.sched = Scheduler(self.cluster, nominator=world.nominator)
        self.queue = PriorityQueue(queue, self.cluster.namespace_labels,
                                   hint_maps(self.sched.profiles))
        self.evaluator: Evaluator | None = None
        self.groups = groups
        self.workload_preemption: WorkloadPreemption | None = None
        victim_groups = None
        if groups is not None:
            victim_groups = VictimGroups(groups.pod_groups)
            self.workload_preemption = WorkloadPreemption(groups.pod_groups,
                                                          pod_group_preemption_policy)
        if not best_candidates:
            self.evaluator = Evaluator(self.sched, sample=True, seed=seed, materialize=False,
                                       victim_groups=victim_groups)
            self.sched.sample_nodes = True  # percentageOfNodesToScore, nextStartNodeIndex
        elif victim_groups is not None:  # as the cycle's own evaluator, with the groups
            self.evaluator = Evaluator(self.sched, materialize=False,
                                       victim_groups=victim_groups)
        self.latency = latency
        self.attempts = 0
        # template -> (version its last pod failed at, the plugins that rejected it)
        self._fail_cache: dict[str, tuple[int, frozenset[str]]] = {}
        self._wakes: set[float] = set()
        self._flush_ticks: set[float] = set()  # pending unschedulable-pool flushes
        self._kick_pending = False

    # ---- the kernel's questions ----
    def nothing_left(self, pending: int) -> bool:
        """Only flushes are left on the kernel, and they would retry on the same state."""
        return pending == len(self._flush_ticks) + (len(self._wakes) if self.hints else 0) \
            and self.queue.settled(self.world.version)

    def after_event(self, time: float) -> None:
        """After any event: take the next pod if the scheduler is idle and one is ready."""
        queue = self.queue
        if not self._kick_pending and queue.in_flight is None and queue.ready():
            self._kick_pending = True
            self.kernel.schedule(time, Priority.KICK, self._on_kick)

    # ---- the world's hooks ----
    def on_created(self, plan: PodPlan) -> None:
        if plan.via_kubelet:
            return  # the kubelet admits it
        pod = plan.pod
        nominated = pod.nominated_node_name
        pod.nominated_node_name = ""
        if self.nominations and nominated in self.cluster.node_index:
            self.world.nominate(pod, nominated)  # status.nominatedNodeName is honoured
        self.queue.add(pod, self.kernel.now)
        key = self._group_key(pod)
        if key is not None:
            self._member_created(key, pod)

    def on_withdrawn(self, pod: Pod) -> None:
        self.queue.done(pod.key)
        key = self._group_key(pod)
        if key is not None and self.groups is not None:
            self.cluster.pending.pop(pod.key, None)
            self.groups.member_gone(key, pod)

    def on_terminating(self, pod: Pod, etype: str) -> None:
        key = self._group_key(pod)
        if key is not None and self.groups is not None and etype == m.PREEMPTED:
            self.groups.member_preempted(key)

    def on_bound(self, pod: Pod) -> None:
        self.queue.assigned(pod.key)
        key = self._group_key(pod)
        if key is not None and self.groups is not None:
            self.groups.member_bound(key, pod, self.kernel.now)
        # Upstream AssignedPodAdd: pods waiting on inter-pod (anti-)affinity or hard
        # topology spread may now fit.
        self._cluster_event(ClusterEvent(POD_ADD, pod=pod))

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
        key = self._group_key(pod)
        if key is not None and self.groups is not None:
            self.groups.member_gone(key, pod)
        self._cluster_event(ClusterEvent(POD_DELETE, pod=pod))

    def on_node_added(self, node: Node) -> None:
        self._cluster_event(ClusterEvent(NODE_ADD, node=node))

    def on_node_removed(self, name: str) -> None:
        for pod in self.world.nominator.on_node(name):
            self._clear_nomination(pod, "node removed")
        node = self.cluster.nodes[self.cluster.node_index[name]]
        self._cluster_event(ClusterEvent(NODE_DELETE, node=node))

    def on_ungate(self, key: str) -> None:
        """``kubepreempt.io/ungate-after``: the pod's scheduling gates are removed."""
        world = self.world
        rec = world.records.get(key)
        if rec is None or rec.phase != "Pending" or not rec.pod.scheduling_gates:
            return
        rec.pod.scheduling_gates = ()
        world.version += 1
        world.record(m.UNGATED, key)
        self._wake(self.queue.gates_removed(rec.pod, self.kernel.now))
        group = self._group_key(rec.pod)
        if group is not None and self.groups is not None and \
                not self.groups.pre_enqueue(group):
            self.queue.hold(key, GANG_PLUGIN)  # the next PreEnqueue plugin holds it

    # ---- PodGroups (GenericWorkload) ----
    def _group_key(self, pod: Pod) -> str | None:
        """The PodGroup whose cycle decides ``pod`` (None: scheduled on its own)."""
        return None if self.groups is None else self.groups.key_of(pod)

    def add_initial_members(self) -> None:
        """Pods running at time 0 count among their groups' pods."""
        if self.groups is None:
            return
        for rec in self.world.records.values():
            key = self._group_key(rec.pod)
            if key is not None and rec.pod.bound:
                self.groups.member_created(key, rec.pod, 0.0)
                self.groups.member_bound(key, rec.pod, 0.0)

    def group_arrived(self, key: str) -> None:
        """The PodGroup ``key`` was created: its held pods may pass PreEnqueue."""
        assert self.groups is not None
        self.groups.group_arrived(key, self.kernel.now)
        self.world.version += 1
        self.world.record(m.GROUP_CREATED, key)
        self._release_held(key)

    def _member_created(self, key: str, pod: Pod) -> None:
        """A pod of group ``key`` was created: it waits among the snapshot's pending
        pods (the group cycle decides from there), held while PreEnqueue says no."""
        assert self.groups is not None
        self.cluster.add_pending(pod)
        self.groups.member_created(key, pod, self.kernel.now)
        if not self.groups.pre_enqueue(key):
            q = self.queue.info.get(pod.key)
            if q is not None and not q.gated:  # SchedulingGates runs first
                self.queue.hold(pod.key, GANG_PLUGIN)
        else:  # UnscheduledPod/Add: the gang may now have its minCount
            self._release_held(key)

    def _release_held(self, key: str) -> None:
        """GangScheduling's hint says Queue: the group's held pods go to activeQ."""
        assert self.groups is not None
        if not self.groups.pre_enqueue(key):
            return
        info = self.queue.info
        for k in sorted(self.groups.pending_members(key)):
            q = info.get(k)
            if q is not None and q.gated and q.rejectors == {GANG_PLUGIN} \
                    and not q.pod.scheduling_gates:
                self._wake(self.queue.ungate(k, self.kernel.now))

    def _take_group(self, key: str, batch: list[QueuedPod]) -> None:
        """``podGroupInfoForPod``: every other waiting pod of the group leaves the queue
        for this cycle (``PopSpecificPod``), its attempt counted."""
        assert self.groups is not None
        taken = {q.pod.key for q in batch}
        for k in sorted(self.groups.pending_members(key) - taken):
            q = self.queue.take(k)
            if q is not None:
                batch.append(q)
                self.attempts += 1

    def _on_group_cycle(self, payload: tuple[str, list[QueuedPod]]) -> None:
        """One pod group scheduling cycle, its result applied to the world."""
        key, batch = payload
        self.queue.attempt_done()
        groups, world, t = self.groups, self.world, self.kernel.now
        assert groups is not None
        self._take_group(key, batch)  # pods created while the cycle ran
        live = {q.pod.key: q for q in batch if world.records[q.pod.key].phase == "Pending"}
        if not live:
            return
        if not groups.pre_enqueue(key):  # members were deleted since: held again
            for k in live:
                self.queue.hold(k, GANG_PLUGIN)
            return
        world.refresh_pdbs()
        if self.evaluator is not None:
            self.evaluator.now = t
        groups.cycle_ran(key)
        namespace, name = key.split("/", 1)
        d = schedule_pod_group(self.sched, namespace, name, groups.group(key), now=t,
                               workload_preemption=self.workload_preemption,
                               evaluator=self.evaluator)
        members = [(live[r.pod.key], r) for r in d.members if r.pod.key in live]
        if d.result == SCHEDULED:
            for q, r in members:
                if r.result == SCHEDULED:
                    assert r.node is not None
                    world.bind(q.pod, r.node, t, detail=f"pod group {key}")
                else:
                    self._member_failed(q, r)
            return
        if d.result == PREEMPT:
            victims = d.victims
            if self.hints:  # async preemption: no second API call for terminating ones
                victims = [v for v in victims if not v.terminating]
            for victim in victims:
                world.signal(victim, t, m.PREEMPTED, f"by pod group {key}")
        for q, r in members:
            if r.result == PREEMPT and r.node is not None:
                # Nominated where it goes once the victims are gone. A pod that needed
                # the preemption itself fails with its own FitError (its plugins: the
                # pool, moved when the victims leave); one that fitted fails with the
                # group's status, no plugin (backoffQ: retried after its backoff).
                if self.nominations:
                    world.nominate(q.pod, r.node)
                    world.record(m.NOMINATED, q.pod.key, r.node, f"pod group {key}")
                q.rejectors = world.records[q.pod.key].unschedulable_plugins = \
                    r.unschedulable_plugins
                self._failed(q, r.message if world.keep_timeline else "")
            else:
                self._member_failed(q, r)

    def _member_failed(self, q: QueuedPod, r: MemberResult) -> None:
        """A pod of a group cycle that is not bound: requeued on its own."""
        world, pod = self.world, q.pod
        if r.result in (IGNORED, SKIPPED):
            world.record(m.UNSCHEDULABLE, pod.key, None, r.message)
            return
        q.rejectors = world.records[pod.key].unschedulable_plugins = r.unschedulable_plugins
        if pod.nominated_node_name and not r.unschedulable_plugins:
            # The group turned it down (clearNominatedNode); a pod its own plugins
            # rejected keeps its nomination (no nominating info).
            self._clear_nomination(pod, "pod group is unschedulable")
        self._failed(q, r.message if world.keep_timeline else "")

    # ---- queue moves ----
    def _wake(self, times: list[float] | float | None) -> None:
        """Wake at these backoffQ flushes (every second) that end backoffs."""
        if times is None:
            return
        for t in (times if isinstance(times, list) else [times]):
            if t not in self._wakes:
                self._wakes.add(t)
                self.kernel.schedule(t, Priority.BACKOFF, self._on_backoff, t)

    def _cluster_event(self, ev: ClusterEvent) -> None:
        """A cluster event that may make pending pods schedulable."""
        self._wake(self.queue.on_event(ev, self.kernel.now))

    def _clear_nomination(self, pod: Pod, detail: str) -> None:
        self.world.clear_nomination(pod, detail)
        self._wake(self.queue.nomination_cleared(pod.key, self.kernel.now))

    def _on_backoff(self, t: float) -> None:
        self._wakes.discard(t)
        self.queue.flush_backoff(self.kernel.now)

    def _on_flush(self, t: float) -> None:
        """Upstream's 30-s ``flushUnschedulablePodsLeftover`` tick (only ticks that move a
        pod are simulated: each pool pod schedules the first tick that would move it)."""
        self._flush_ticks.discard(t)
        self._wake(self.queue.flush_leftover_pods(self.kernel.now))

    def _requeue(self, q: QueuedPod) -> None:
        """A failed attempt: back to the queue, with the pool flush that would move it."""
        wake, flush = self.queue.requeue(q, self.kernel.now, self.world.version)
        self._wake(wake)
        if flush is not None and flush not in self._flush_ticks:
            self._flush_ticks.add(flush)
            self.kernel.schedule(flush, Priority.BACKOFF, self._on_flush, flush)

    # ---- attempts ----
    def _on_kick(self, _: Any) -> None:
        self._kick_pending = False
        if self.queue.in_flight is not None:
            return
        q = self.queue.pop(self.kernel.now)
        if q is None:
            return
        self.attempts += 1
        key = self._group_key(q.pod)
        if key is not None:
            batch = [q]
            self._take_group(key, batch)
            if self.latency == 0:
                self._on_group_cycle((key, batch))
            else:
                self.kernel.schedule(self.kernel.now + self.latency, Priority.CYCLE,
                                     self._on_group_cycle, (key, batch))
            return
        if self.latency == 0:
            self._on_cycle(q)
        else:
            self.kernel.schedule(self.kernel.now + self.latency, Priority.CYCLE,
                                 self._on_cycle, q)

    def _on_cycle(self, q: QueuedPod) -> None:
        self.queue.attempt_done()
        world = self.world
        pod, t = q.pod, self.kernel.now
        rec = world.records[pod.key]
        if rec.phase != "Pending":
            return
        template = world.plans[pod.key].template
        cached = self._fail_cache.get(template) if template else None
        if cached is not None and not pod.nominated_node_name and cached[0] == world.version:
            # A pod of the same template failed on this very state: same answer, skip.
            q.rejectors = rec.unschedulable_plugins = cached[1]
            self._failed(q, "as its template's previous pod")
            return
        world.refresh_pdbs()
        if self.evaluator is not None:
            self.evaluator.now = t
        d = schedule_one(self.sched, pod, now=t, evaluator=self.evaluator)
        if d.result == SCHEDULED:
            assert d.node_name is not None
            world.bind(pod, d.node_name, t)
            return
        if d.result in (IGNORED, SKIPPED):
            # Never attempted by kube-scheduler: not requeued.
            world.record(m.UNSCHEDULABLE, pod.key, None, d.message)
            return
        q.rejectors = rec.unschedulable_plugins = d.unschedulable_plugins
        pre = d.preemption
        if d.result == PREEMPT:
            assert pre is not None and d.node_name is not None
            victims = pre.victims
            if self.hints:
                # Async preemption (prepareCandidateAsync): victims already terminating get
                # no second API call, and when that leaves none the goroutine is never
                # started, so lower-priority nominations on the node are not cleared.
                victims = [v for v in victims if not v.terminating]
            for victim in victims:
                world.signal(victim, t, m.PREEMPTED, f"by {pod.key}")
            if self.nominations:
                if victims or not self.hints:
                    for other in pre.cleared_nominations:
                        self._clear_nomination(other, f"lower priority than {pod.key}")
                world.nominate(pod, d.node_name)
                world.record(m.NOMINATED, pod.key, d.node_name,
                             "victims: " + ", ".join(sorted(v.key for v in pre.victims)))
            self._requeue(q)
            world.attempt_failed(pod)
            return
        if pre is not None and pre.eligible and pod.nominated_node_name:
            # Upstream: preemption ran and found no node, so the old nomination is cleared.
            world.clear_nomination(pod, "preemption found no node")
        if template and not pod.nominated_node_name:
            self._fail_cache[template] = (world.version, q.rejectors)
        self._failed(q, d.message if world.keep_timeline else "")

    def _failed(self, q: QueuedPod, detail: str) -> None:
        self.world.record(m.UNSCHEDULABLE, q.pod.key, q.pod.nominated_node_name or None,
                          detail)
        self._requeue(q)
        self.world.attempt_failed(q.pod)
