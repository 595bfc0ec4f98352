"""The three places pending pods wait: activeQ, backoffQ and the unschedulable pool.

Three modes. ``1.36`` (the default) is kube-scheduler 1.36's ``PriorityQueue``
(``pkg/scheduler/backend/queue``): as ``classic`` below, plus ``SchedulerPopFromBackoffQ``
(beta, on): when activeQ is empty the head of backoffQ is popped even while it is still
backing off (``activeQueue.unlockedPop``); backoffQ is ordered by the backoff expiry
truncated to the 1 s ordering window, then as activeQ; a pod is backing off while that
expiry is not before the current window (``backoffQueue.isPodBackingoff``), so the
backoffQ flush that runs on every whole second releases it one window later. Which pool
pods an event moves is decided by :mod:`.priority_queue` with queueing hints (:mod:`.hints`).

``classic`` is the design document's queue (seed 000): activeQ pops the highest priority
first, then the pod that entered the queue first (``QueuedPodInfo.Timestamp``, reset
when a pod returns to the pool); pods that fail wait in the unschedulable pool until a
cluster event moves them, to activeQ if their backoff (1 s doubling per attempt, at most
10 s, counted from the failure) has passed, else to backoffQ until it has. Pods that
stay in the pool longer than ``podMaxInUnschedulablePodsDuration`` (5 min) are moved by
a flush that runs every 30 s (upstream ``flushUnschedulablePodsLeftover``); backoffQ is
flushed every second. Every pod deletion or node addition moves every pool pod. ``fifo``
mode is the pre-1.9 behaviour: pods are taken in the order they (re-)entered the queue,
whatever their priority.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from kubepreempt.api.objects import Pod

UPSTREAM = "1.36"
CLASSIC = "classic"
FIFO = "fifo"
PRIORITY = CLASSIC  # the name ``classic`` had before 1.36's queue became the default
MODES = (UPSTREAM, CLASSIC, FIFO)
INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
# Upstream DefaultPodMaxInUnschedulablePodsDuration and the flush periods of
# PriorityQueue.Run (wait.Until from the scheduler's start: ticks at 0, 30, 60, ... s).
MAX_IN_UNSCHEDULABLE = 300.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0
BACKOFF_FLUSH_PERIOD = 1.0


def backoff_duration(attempts: int, initial: float = INITIAL_BACKOFF,
                     maximum: float = MAX_BACKOFF) -> float:
    """Upstream ``calculateBackoffDuration``: initial * 2^(attempts-1), capped."""
    duration = initial
    for _ in range(1, attempts):
        duration *= 2
        if duration > maximum:
            return maximum
    return duration


def backoff_tick(until: float) -> float:
    """The first backoffQ flush (every second from 0) at which a backoff ending at ``until``
    is over (upstream: not backing off once ``until`` is not after now)."""
    tick = math.ceil(round(until / BACKOFF_FLUSH_PERIOD, 9)) * BACKOFF_FLUSH_PERIOD
    return float(tick)


def aligned_backoff_expiry(timestamp: float, attempts: int) -> float:
    """Upstream ``getBackoffTime`` with pop-from-backoffQ: ``Timestamp`` plus the backoff,
    truncated to the 1 s ordering window (``alignToWindow``)."""
    return float(math.floor(round(timestamp + backoff_duration(attempts), 9)))


def window(now: float) -> float:
    """The start of the 1 s ordering window ``now`` is in."""
    return float(math.floor(round(now, 9)))


def leftover_tick(failed_at: float) -> float:
    """The first pool flush (every 30 s from 0) that moves a pod which failed at
    ``failed_at``: the pod must have waited strictly longer than 5 minutes."""
    due = round((failed_at + MAX_IN_UNSCHEDULABLE) / UNSCHEDULABLE_FLUSH_PERIOD, 9)
    return float((math.floor(due) + 1) * UNSCHEDULABLE_FLUSH_PERIOD)


@dataclass(slots=True)
class QueuedPod:
    """Queue bookkeeping for one pending pod."""

    pod: Pod
    timestamp: float  # when it (re-)entered the queue
    attempts: int = 0
    where: str = ""  # "active", "backoff", "unschedulable", "" (popped / gone)
    token: int = 0  # invalidates stale heap entries
    failed_version: int = -1  # the simulator's state version at its last failure
    rejectors: frozenset[str] = frozenset()  # UnschedulablePlugins of the last attempt
    gated: bool = False  # held back by PreEnqueue (scheduling gates)

    def backoff_until(self) -> float:
        """When this pod's backoff ends: upstream ``getBackoffTime`` is Timestamp (reset at
        the failure, after the attempt) plus the backoff for the attempts so far."""
        if self.attempts == 0:
            return self.timestamp
        return self.timestamp + backoff_duration(self.attempts)


class SchedulingQueue:
    """activeQ (heap), backoffQ (heap by expiry) and the unschedulable pool."""

    def __init__(self, mode: str = UPSTREAM) -> None:
        if mode not in MODES:
            raise ValueError(f"queue mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.upstream = mode == UPSTREAM
        self.info: dict[str, QueuedPod] = {}
        self._active: list[tuple] = []
        self._backoff: list[tuple[tuple, int, str]] = []
        # 1.36: pods that failed with no rejecting plugin (an error) wait in a separate
        # podErrorBackoffQ, which activeQ never pops from early.
        self._error_backoff: list[tuple[tuple, int, str]] = []
        self.error_count = 0
        self.unschedulable: dict[str, QueuedPod] = {}
        self._seq = 0
        self.active_count = 0
        self.backoff_count = 0

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    # ---- entering the queue -------------------------------------------------------------
    def add(self, pod: Pod, now: float) -> None:
        """A new pending pod: straight to activeQ, or to the pool while it has scheduling
        gates (the SchedulingGates PreEnqueue plugin keeps it out of activeQ)."""
        q = QueuedPod(pod, now)
        self.info[pod.key] = q
        if pod.scheduling_gates:
            q.gated, q.rejectors = True, frozenset({"SchedulingGates"})
            q.where = "unschedulable"
            self.unschedulable[pod.key] = q
            return
        self._to_active(q)

    def ungate(self, key: str, now: float) -> float | None:
        """The pod's last gate was removed: PreEnqueue passes, and a pod never attempted is
        not backing off, so it goes to activeQ."""
        q = self.info.get(key)
        if q is None or not q.gated:
            return None
        q.gated = False
        return self._backoff_or_active(q, now)

    def hold(self, key: str, plugin: str) -> None:
        """A PreEnqueue plugin (``plugin``, e.g. GangScheduling) rejected the pod: it
        waits in the pool, gated, untouched by cluster events and flushes, until
        :meth:`ungate` lets it in."""
        q = self.info.get(key)
        if q is None:
            return
        self._leave(q)
        q.gated, q.rejectors = True, frozenset({plugin})
        q.where = "unschedulable"
        self.unschedulable[key] = q

    def take(self, key: str) -> QueuedPod | None:
        """Upstream ``PopSpecificPod``: take one waiting pod out of activeQ, backoffQ or
        the pool (not a gated one) for the attempt in flight, its attempt counted; None
        when it is not waiting there."""
        q = self.info.get(key)
        if q is None or q.gated or q.where not in ("active", "backoff", "error",
                                                   "unschedulable"):
            return None
        self._leave(q)
        q.attempts += 1
        return q

    def _to_active(self, q: QueuedPod) -> None:
        self._leave(q)
        q.token = self._next()
        key = (q.timestamp, q.token) if self.mode == FIFO else \
            (-q.pod.priority, q.timestamp, q.token)
        heapq.heappush(self._active, (key, q.token, q.pod.key))
        q.where = "active"
        self.active_count += 1

    def _to_backoff(self, q: QueuedPod) -> float:
        """Into backoffQ; returns the backoffQ flush that will release the pod."""
        self._leave(q)
        q.token = self._next()
        heap, where = self._backoff, "backoff"
        if self.upstream:
            expiry = aligned_backoff_expiry(q.timestamp, q.attempts)
            key: tuple = (expiry, -q.pod.priority, q.timestamp, q.token)
            release = expiry + BACKOFF_FLUSH_PERIOD  # the first window after the expiry's
            if not q.rejectors:
                heap, where = self._error_backoff, "error"
                key = (expiry, q.token)  # lessBackoffCompleted: expiry only
                self.error_count += 1
        else:
            key = (q.backoff_until(), q.token)
            release = backoff_tick(key[0])
        heapq.heappush(heap, (key, q.token, q.pod.key))
        q.where = where
        self.backoff_count += 1
        return release

    def backing_off(self, q: QueuedPod, now: float) -> bool:
        """Upstream ``isPodBackingoff`` (aligned to the window in 1.36 mode)."""
        if q.attempts == 0:
            return False
        if self.upstream:
            return aligned_backoff_expiry(q.timestamp, q.attempts) >= window(now)
        return q.backoff_until() > now

    def _leave(self, q: QueuedPod) -> None:
        if q.where == "unschedulable":
            del self.unschedulable[q.pod.key]
        elif q.where == "active":
            self.active_count -= 1
        elif q.where == "backoff":
            self.backoff_count -= 1
        elif q.where == "error":
            self.backoff_count -= 1
            self.error_count -= 1
        q.where = ""

    # ---- the scheduler's side ---------------------------------------------------------------
    def ready(self) -> bool:
        """True when ``pop`` would return a pod."""
        return bool(self.active_count
                    or (self.upstream and self.backoff_count > self.error_count))

    def pop(self, now: float) -> QueuedPod | None:
        """The next pod to schedule (its attempt is counted), or None. In 1.36 mode an
        empty activeQ yields the head of backoffQ, backing off or not (never of the error
        backoffQ: upstream ``popBackoff``)."""
        heaps = (self._active, self._backoff) if self.upstream else (self._active,)
        for heap in heaps:
            while heap:
                _, token, key = heapq.heappop(heap)
                q = self.info.get(key)
                if q is None or q.token != token or q.where not in ("active", "backoff"):
                    continue
                self._leave(q)
                q.attempts += 1
                return q
        return None

    def failed(self, q: QueuedPod, now: float, requeue: bool) -> float | None:
        """A failed attempt: to the pool, or to backoffQ / activeQ when ``requeue`` (classic:
        a move request came during the attempt, upstream ``moveRequestCycle``; 1.36: an
        in-flight event's hint said Queue, or no plugin rejected the pod). Returns a
        backoffQ flush to wake up at."""
        q.timestamp = now
        if requeue:
            return self._backoff_or_active(q, now)
        q.where = "unschedulable"
        self.unschedulable[q.pod.key] = q
        return None

    def done(self, key: str) -> None:
        """The pod was bound or deleted: forget it."""
        q = self.info.pop(key, None)
        if q is not None:
            self._leave(q)

    # ---- cluster events -----------------------------------------------------------------------
    def _backoff_or_active(self, q: QueuedPod, now: float) -> float | None:
        if not self.backing_off(q, now):
            self._to_active(q)
            return None
        return self._to_backoff(q)

    def move_all(self, now: float, only=None) -> list[float]:
        """Move pool pods (all, or those ``only(queued_pod)`` accepts) to activeQ or
        backoffQ. Gated pods stay.

        Returns backoffQ flushes the caller must wake up at.
        """
        wake: list[float] = []
        for q in list(self.unschedulable.values()):
            if q.gated or (only is not None and not only(q)):
                continue
            until = self._backoff_or_active(q, now)
            if until is not None:
                wake.append(until)
        return wake

    def activate(self, key: str, now: float) -> float | None:
        """Move one pool pod (e.g. its nomination was cleared) to activeQ or backoffQ."""
        q = self.info.get(key)
        if q is None or q.where != "unschedulable":
            return None
        return self._backoff_or_active(q, now)

    def flush_leftover(self, now: float,
                       max_wait: float = MAX_IN_UNSCHEDULABLE) -> list[float] | None:
        """Upstream ``flushUnschedulablePodsLeftover``: pool pods that have waited more than
        ``max_wait`` since their failure go to activeQ or backoffQ.

        Returns None if nothing moved, else the backoff expiries to wake up at.
        """
        stale = [q for q in self.unschedulable.values()
                 if not q.gated and now - q.timestamp > max_wait]
        if not stale:
            return None
        wake: list[float] = []
        for q in stale:
            until = self._backoff_or_active(q, now)
            if until is not None:
                wake.append(until)
        return wake

    def flush_backoff(self, now: float) -> None:
        """Move pods whose backoff has ended from backoffQ to activeQ."""
        limit = window(now) if self.upstream else now
        for backoff in (self._backoff, self._error_backoff):
            while backoff and (backoff[0][0][0] < limit if self.upstream
                               else backoff[0][0][0] <= limit):
                _, token, key = heapq.heappop(backoff)
                q = self.info.get(key)
                if q is not None and q.token == token and q.where in ("backoff", "error"):
                    self._to_active(q)

    def pending(self) -> int:
        """Pods waiting in any of the three places."""
        return len(self.info)
