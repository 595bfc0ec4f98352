"""The scheduling queue: activeQ, backoffQ and the unschedulable pool.

Mirrors upstream's ``PriorityQueue``: activeQ pops the highest priority first, then the
pod that entered the queue first (``QueuedPodInfo.Timestamp``, reset when a pod returns
to the pool); pods that fail wait in the unschedulable pool until a cluster event moves
them, to activeQ if their backoff (1 s doubling per attempt, at most 10 s, counted from
the failure) has passed, else to backoffQ until it has. Pods that stay in the pool longer
than ``podMaxInUnschedulablePodsDuration`` (5 min) are moved by a flush that runs every
30 s (upstream ``flushUnschedulablePodsLeftover``); backoffQ is flushed every second.
``fifo`` mode is the pre-1.9 behaviour: pods are taken in
the order they (re-)entered the queue, whatever their priority.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from kubepreempt.api.objects import Pod

PRIORITY = "priority"
FIFO = "fifo"
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

    def backoff_until(self) -> float:
        """When this pod's backoff ends: upstream ``getBackoffTime`` is Timestamp (reset at
        the failure, after the attempt) plus the backoff for the attempts so far."""
        if self.attempts == 0:
            return self.timestamp
        return self.timestamp + backoff_duration(self.attempts)


class SchedulingQueue:
    """activeQ (heap), backoffQ (heap by expiry) and the unschedulable pool."""

    def __init__(self, mode: str = PRIORITY) -> None:
        if mode not in (PRIORITY, FIFO):
            raise ValueError(f"queue mode must be {PRIORITY} or {FIFO}, not {mode!r}")
        self.mode = mode
        self.info: dict[str, QueuedPod] = {}
        self._active: list[tuple] = []
        self._backoff: list[tuple[float, int, int, str]] = []
        self.unschedulable: dict[str, QueuedPod] = {}
        self._seq = 0
        self.active_count = 0
        self.backoff_count = 0

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    # ---- entering the queue -------------------------------------------------------------
    def add(self, pod: Pod, now: float) -> None:
        """A new pending pod: straight to activeQ."""
        q = QueuedPod(pod, now)
        self.info[pod.key] = q
        self._to_active(q)

    def _to_active(self, q: QueuedPod) -> None:
        self._leave(q)
        q.token = self._next()
        key = (q.timestamp, q.token) if self.mode == FIFO else \
            (-q.pod.priority, q.timestamp, q.token)
        heapq.heappush(self._active, (key, q.token, q.pod.key))
        q.where = "active"
        self.active_count += 1

    def _to_backoff(self, q: QueuedPod) -> float:
        self._leave(q)
        q.token = self._next()
        until = q.backoff_until()
        heapq.heappush(self._backoff, (until, q.token, q.token, q.pod.key))
        q.where = "backoff"
        self.backoff_count += 1
        return until

    def _leave(self, q: QueuedPod) -> None:
        if q.where == "unschedulable":
            del self.unschedulable[q.pod.key]
        elif q.where == "active":
            self.active_count -= 1
        elif q.where == "backoff":
            self.backoff_count -= 1
        q.where = ""

    # ---- the scheduler's side ---------------------------------------------------------------
    def pop(self, now: float) -> QueuedPod | None:
        """The next pod to schedule (its attempt is counted), or None."""
        while self._active:
            _, token, key = heapq.heappop(self._active)
            q = self.info.get(key)
            if q is None or q.token != token or q.where != "active":
                continue
            self._leave(q)
            q.attempts += 1
            return q
        return None

    def failed(self, q: QueuedPod, now: float, moved_meanwhile: bool) -> float | None:
        """A failed attempt: to the pool, or to backoffQ when a move request came during the
        attempt (upstream ``moveRequestCycle``). Returns a backoff expiry to wake up at."""
        q.timestamp = now
        if moved_meanwhile:
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
        if q.backoff_until() <= now:
            self._to_active(q)
            return None
        return self._to_backoff(q)

    def move_all(self, now: float, only=None) -> list[float]:
        """Move pool pods (all, or those ``only(pod)`` accepts) to activeQ or backoffQ.

        Returns backoff expiries the caller must wake up at.
        """
        wake: list[float] = []
        for q in list(self.unschedulable.values()):
            if only is not None and not only(q.pod):
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
        stale = [q for q in self.unschedulable.values() if now - q.timestamp > max_wait]
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
        while self._backoff and self._backoff[0][0] <= now:
            _, token, _, key = heapq.heappop(self._backoff)
            q = self.info.get(key)
            if q is not None and q.token == token and q.where == "backoff":
                self._to_active(q)

    def pending(self) -> int:
        """Pods waiting in any of the three places."""
        return len(self.info)
