"""The scheduling queue with its requeue rules (upstream ``PriorityQueue``).

Which pending pods a cluster event moves, where a pod goes after a failed attempt
(``AddUnschedulableIfNotPresent``, with the events seen while it was in flight), what the
leftover flush and an ungating move. The caller owns time: methods that may put pods in
backoffQ return the backoffQ flushes (every second) it must run at.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.queue.events import (
    GATES_REMOVED,
    NODE_ADD,
    POD_ADD,
    POD_DELETE,
    TIMEOUT,
    ClusterEvent,
    NsLabels,
)
from kubepreempt.scheduler.queue.hints import HINTS, HintMap, cross_topology, worth_requeuing
from kubepreempt.scheduler.queue.scheduling_queue import (
    UPSTREAM,
    QueuedPod,
    SchedulingQueue,
    leftover_tick,
)


class PriorityQueue(SchedulingQueue):
    """activeQ, backoffQ and the pool, and the rules that move pods between them.

    ``1.36``: each pool pod moves on an event if a plugin that rejected it says Queue for
    it (AssignedPodAdd first pre-checks cross-topology terms), and an attempt in flight
    remembers the events. ``classic`` / ``fifo``: a deleted pod or an added node moves
    every pool pod, a bound pod moves the pods with inter-pod terms or hard spread
    constraints, and any move request during an attempt (``moveRequestCycle``) sends the
    failed pod to backoffQ.
    """

    def __init__(self, mode: str, namespace_labels: NsLabels,
                 hint_maps: dict[str, HintMap] | None = None) -> None:
        super().__init__(mode)
        self.hints = mode == UPSTREAM  # queueing hints
        self.namespace_labels = namespace_labels
        # spec.schedulerName -> its profile's queueing hints (the default map otherwise)
        self.hint_maps = hint_maps or {}
        self.in_flight: QueuedPod | None = None  # the pod being scheduled
        self._in_flight_events: list[ClusterEvent] = []
        self._moved = False  # classic: a move request during the attempt
        # Pods whose fit depends on other pods' placement: upstream's InterPodAffinity and
        # PodTopologySpread both requeue on AssignedPodAdd.
        self._affinity_pending: set[str] = set()

    def _worth(self, q: QueuedPod, ev: ClusterEvent, pod: Pod | None = None) -> bool:
        """``isPodWorthRequeuing`` with the hints of the profile serving the pod (``pod``:
        the pod as updated, when the event is its own update)."""
        pod = q.pod if pod is None else pod
        return worth_requeuing(pod, q.rejectors, ev, self.namespace_labels,
                               self.hint_maps.get(pod.scheduler_name, HINTS))

    # ---- pods entering and leaving ----
    def add(self, pod: Pod, now: float) -> None:
        """A new pending pod (see :meth:`SchedulingQueue.add`)."""
        if (pod.affinity is not None and pod.affinity.has_pod_terms) or any(
                c.when_unsatisfiable == "DoNotSchedule" for c in pod.spread):
            self._affinity_pending.add(pod.key)
        super().add(pod, now)

    def assigned(self, key: str) -> None:
        """The pod was bound: it leaves the queue."""
        self.done(key)
        self._affinity_pending.discard(key)

    # ---- attempts ----
    def pop(self, now: float) -> QueuedPod | None:
        """The next pod to schedule, now in flight (events from here on are remembered)."""
        q = super().pop(now)
        if q is not None:
            self.in_flight, self._moved = q, False
            self._in_flight_events = []
        return q

    def attempt_done(self) -> None:
        """The attempt in flight has its decision."""
        self.in_flight = None

    def settled(self, version: int) -> bool:
        """Nothing is queued but pool pods that already failed on state ``version`` (1.36:
        and backoffQ pods that did, e.g. pods failing with an error, which upstream
        retries after every backoff for ever)."""
        if self.in_flight is not None or self.active_count:
            return False
        if self.hints:
            return all(q.failed_version == version or q.gated for q in self.info.values())
        return not self.backoff_count and all(
            q.failed_version == version or q.gated for q in self.unschedulable.values())

    def requeue(self, q: QueuedPod, now: float, version: int) -> tuple[float | None,
                                                                      float | None]:
        """A failed attempt on state ``version``: back to the queue.

        1.36 (``AddUnschedulableIfNotPresent``): to backoffQ / activeQ when no plugin
        rejected the pod or an event during the attempt has a Queue hint, else the pool.
        Classic: to backoffQ when any move request came during the attempt. Returns the
        backoffQ flush to wake at, and the leftover flush that would move the pod from the
        pool (None if it is not in the pool).
        """
        q.failed_version = version
        if self.hints:
            requeue = not q.rejectors or any(
                self._worth(q, ev) for ev in self._in_flight_events)
        else:
            requeue = self._moved
        wake = self.failed(q, now, requeue)
        return wake, (leftover_tick(now) if q.where == "unschedulable" else None)

    # ---- events ----
    def on_event(self, ev: ClusterEvent, now: float) -> list[float]:
        """A cluster event that may make pending pods schedulable; returns backoffQ
        flushes to wake at."""
        if self.hints:
            if self.in_flight is not None:
                self._in_flight_events.append(ev)
            if not self.unschedulable:
                return []
            ns = self.namespace_labels
            if ev.kind == POD_ADD:
                added = ev.pod
                assert added is not None
                return self.move_all(now, lambda q: cross_topology(
                    q.pod, q.rejectors, added, ns) and self._worth(q, ev))
            return self.move_all(now, lambda q: self._worth(q, ev))
        if ev.kind == POD_ADD:
            if self._affinity_pending:
                return self.move_all(now, only=lambda q: q.pod.key in self._affinity_pending)
            return []
        if ev.kind in (POD_DELETE, NODE_ADD):
            if self.in_flight is not None:
                self._moved = True
            return self.move_all(now)
        return []

    def nomination_cleared(self, key: str, now: float) -> float | None:
        """Classic: the status update moves the pod to activeQ. With queueing hints a
        status-only update (UpdatePodOther) matches no plugin's events: it stays."""
        return None if self.hints else self.activate(key, now)

    def flush_leftover_pods(self, now: float) -> list[float] | None:
        """Upstream's 30-s ``flushUnschedulablePodsLeftover`` tick; an attempt in flight
        sees it as a move request (the wildcard event). None if nothing moved."""
        wake = self.flush_leftover(now)
        if wake is None:
            return None
        if self.in_flight is not None:
            self._moved = True  # a move request during the attempt (moveRequestCycle)
            self._in_flight_events.append(ClusterEvent(TIMEOUT))
        return wake

    def gates_removed(self, pod: Pod, now: float) -> float | None:
        """The pod's scheduling gates were removed: it enters activeQ if the
        SchedulingGates hint says Queue."""
        q = self.info.get(pod.key)
        if q is not None and q.gated and self._worth(q, ClusterEvent(GATES_REMOVED, pod=pod), pod):
            return self.ungate(pod.key, now)
        return None
