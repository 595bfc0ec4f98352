"""kube-scheduler as an actor of the simulator: its queue, its timers and its attempts.

The scheduler handles one pod at a time; each attempt takes ``latency`` seconds (the pod
is popped at the start and the decision is taken on the state at the end). Decisions come
from :func:`kubepreempt.scheduler.cycle.schedule_one`, the same cycle as the library and
``bench``; this module only applies them to the world.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.cycle import IGNORED, PREEMPT, SCHEDULED, SKIPPED, schedule_one
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.hints import (
    GATES_REMOVED,
    NODE_ADD,
    NODE_DELETE,
    POD_ADD,
    POD_DELETE,
    TIMEOUT,
    ClusterEvent,
    cross_topology,
    worth_requeuing,
)
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.queue import FIFO, UPSTREAM, QueuedPod, SchedulingQueue, leftover_tick
from kubepreempt.sim.scenario import PodPlan
from kubepreempt.sim.world import World


class SchedulerDriver(Actor):
    """Runs kube-scheduler against the world: queues pending pods, pops them one at a
    time, applies each decision (bind, preempt and nominate, or requeue).

    ``queue``: the queue mode (``1.36``, ``classic`` or ``fifo``); ``best_candidates``
    False samples as upstream (DryRunPreemption window, percentageOfNodesToScore).
    """

    def __init__(self, world: World, queue: str, latency: float, best_candidates: bool,
                 seed: int) -> None:
        self.world = world
        self.kernel = world.kernel
        self.cluster = world.cluster
        self.nominations = queue != FIFO  # FIFO mode: the old scheduler, no nominations
        self.hints = queue == UPSTREAM  # queueing hints and async preemption
        self.queue = SchedulingQueue(queue)
        self.sched = Scheduler(self.cluster, nominator=world.nominator)
        self.evaluator: Evaluator | None = None
        if not best_candidates:
            self.evaluator = Evaluator(self.sched, sample=True, seed=seed, materialize=False)
            self.sched.sample_nodes = True  # percentageOfNodesToScore, nextStartNodeIndex
        self.latency = latency
        self.attempts = 0
        # template -> (version its last pod failed at, the plugins that rejected it)
        self._fail_cache: dict[str, tuple[int, frozenset[str]]] = {}
        self._in_flight_events: list[ClusterEvent] = []
        self._affinity_pending: set[str] = set()
        self._wakes: set[float] = set()
        self._flush_ticks: set[float] = set()  # pending unschedulable-pool flushes
        self._kick_pending = False
        self._in_flight: QueuedPod | None = None
        self._moved = False

    # ---- the kernel's questions ----
    def nothing_left(self, pending: int) -> bool:
        """Only flushes are left on the kernel, and they would retry on the same state."""
        return pending == len(self._flush_ticks) + (len(self._wakes) if self.hints else 0) \
            and self._settled()

    def after_event(self, time: float) -> None:
        """After any event: take the next pod if the scheduler is idle and one is ready."""
        if not self._kick_pending and self._in_flight is None and self.queue.ready():
            self._kick_pending = True
            self.kernel.schedule(time, Priority.KICK, self._on_kick)

    def _settled(self) -> bool:
        """Nothing is queued but pool pods that already failed on the current state (1.36:
        and backoffQ pods that did, e.g. pods failing with an error, which upstream
        retries after every backoff for ever)."""
        queue = self.queue
        version = self.world.version
        if self._in_flight is not None or queue.active_count:
            return False
        if self.hints:
            return all(q.failed_version == version or q.gated for q in queue.info.values())
        return not queue.backoff_count and all(
            q.failed_version == version or q.gated for q in queue.unschedulable.values())

    # ---- the world's hooks ----
    def on_created(self, plan: PodPlan) -> None:
        if plan.via_kubelet:
            return  # the kubelet admits it
        pod = plan.pod
        nominated = pod.nominated_node_name
        pod.nominated_node_name = ""
        if self.nominations and nominated in self.cluster.node_index:
            self.world.nominate(pod, nominated)  # status.nominatedNodeName is honoured
        # Pods whose fit depends on other pods' placement: upstream's InterPodAffinity and
        # PodTopologySpread both requeue on AssignedPodAdd.
        if (pod.affinity is not None and pod.affinity.has_pod_terms) or any(
                c.when_unsatisfiable == "DoNotSchedule" for c in pod.spread):
            self._affinity_pending.add(pod.key)
        self.queue.add(pod, self.world.now)

    def on_withdrawn(self, pod: Pod) -> None:
        self.queue.done(pod.key)

    def on_bound(self, pod: Pod) -> None:
        self.queue.done(pod.key)
        self._affinity_pending.discard(pod.key)
        # Upstream AssignedPodAdd: pods waiting on inter-pod (anti-)affinity or hard
        # topology spread may now fit.
        self._cluster_event(ClusterEvent(POD_ADD, pod=pod))

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
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
        ev = ClusterEvent(GATES_REMOVED, pod=rec.pod)
        q = self.queue.info.get(key)
        if q is not None and q.gated and worth_requeuing(
                rec.pod, q.rejectors, ev, self.cluster.namespace_labels):
            self._wake(self.queue.ungate(key, world.now))

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
        """A cluster event that may make pending pods schedulable.

        1.36: each pool pod moves if a plugin that rejected it says Queue for ``ev``
        (AssignedPodAdd first pre-checks cross-topology terms), and an attempt in flight
        remembers the event. Classic: a deleted pod or an added node moves every pool pod,
        a bound pod moves the pods with inter-pod terms or hard spread constraints.
        """
        queue = self.queue
        now = self.world.now
        if self.hints:
            if self._in_flight is not None:
                self._in_flight_events.append(ev)
            if not queue.unschedulable:
                return
            ns = self.cluster.namespace_labels
            if ev.kind == POD_ADD:
                added = ev.pod
                self._wake(queue.move_all(now, lambda q: cross_topology(
                    q.pod, q.rejectors, added, ns) and worth_requeuing(
                    q.pod, q.rejectors, ev, ns)))
            else:
                self._wake(queue.move_all(
                    now, lambda q: worth_requeuing(q.pod, q.rejectors, ev, ns)))
            return
        if ev.kind == POD_ADD:
            if self._affinity_pending:
                self._wake(queue.move_all(
                    now, only=lambda q: q.pod.key in self._affinity_pending))
            return
        if ev.kind in (POD_DELETE, NODE_ADD):
            if self._in_flight is not None:
                self._moved = True
            self._wake(queue.move_all(now))

    def _clear_nomination(self, pod: Pod, detail: str) -> None:
        self.world.clear_nomination(pod, detail)
        if not self.hints:
            # Classic: the status update moves the pod to activeQ. With queueing hints a
            # status-only update (UpdatePodOther) matches no plugin's events: it stays.
            self._wake(self.queue.activate(pod.key, self.world.now))

    def _on_backoff(self, t: float) -> None:
        self._wakes.discard(t)
        self.queue.flush_backoff(self.world.now)

    def _on_flush(self, t: float) -> None:
        """Upstream's 30-s ``flushUnschedulablePodsLeftover`` tick (only ticks that move a
        pod are simulated: each pool pod schedules the first tick that would move it)."""
        self._flush_ticks.discard(t)
        wake = self.queue.flush_leftover(self.world.now)
        if wake is None:
            return
        if self._in_flight is not None:
            self._moved = True  # a move request during the attempt (moveRequestCycle)
            self._in_flight_events.append(ClusterEvent(TIMEOUT))
        self._wake(wake)

    def _requeue(self, q: QueuedPod) -> None:
        """A failed attempt: back to the queue, with the pool flush that would move it.

        1.36 (``AddUnschedulableIfNotPresent``): to backoffQ / activeQ when no plugin
        rejected the pod or an event during the attempt has a Queue hint, else the pool.
        Classic: to backoffQ when any move request came during the attempt.
        """
        now = self.world.now
        q.failed_version = self.world.version
        if self.hints:
            ns = self.cluster.namespace_labels
            requeue = not q.rejectors or any(
                worth_requeuing(q.pod, q.rejectors, ev, ns) for ev in self._in_flight_events)
        else:
            requeue = self._moved
        self._wake(self.queue.failed(q, now, requeue))
        if q.where == "unschedulable":
            t = leftover_tick(now)
            if t not in self._flush_ticks:
                self._flush_ticks.add(t)
                self.kernel.schedule(t, Priority.BACKOFF, self._on_flush, t)

    # ---- attempts ----
    def _on_kick(self, _: Any) -> None:
        self._kick_pending = False
        if self._in_flight is not None:
            return
        q = self.queue.pop(self.world.now)
        if q is None:
            return
        self._in_flight, self._moved = q, False
        self._in_flight_events = []
        self.attempts += 1
        if self.latency == 0:
            self._on_cycle(q)
        else:
            self.kernel.schedule(self.world.now + self.latency, Priority.CYCLE,
                                 self._on_cycle, q)

    def _on_cycle(self, q: QueuedPod) -> None:
        self._in_flight = None
        world = self.world
        pod, t = q.pod, world.now
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
