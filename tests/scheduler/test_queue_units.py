"""The 1.36 queue's pieces against upstream's formulas: aligned backoff, pop from backoffQ
(and not from the error backoffQ)."""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.queue.scheduling_queue import CLASSIC, UPSTREAM, SchedulingQueue


def _pod(name: str, priority: int = 0) -> Pod:
    return Pod(name=name, namespace="default", priority=priority)


def _failed_at(queue: SchedulingQueue, name: str, t: float, priority: int = 0,
               rejectors: frozenset[str] = frozenset({"NodeResourcesFit"})):
    queue.add(_pod(name, priority), 0.0)
    q = queue.pop(0.0)
    assert q is not None and q.pod.name == name
    q.rejectors = rejectors
    queue.failed(q, t, requeue=False)
    return q


def test_backoff_expiry_is_truncated_to_the_window() -> None:
    # getBackoffTime: Timestamp 0.3 + 1 s = 1.3, truncated to 1.0; isPodBackingoff while
    # 1.0 is not before the window of now: through 1.999, over at 2.0.
    q1 = SchedulingQueue(UPSTREAM)
    q = _failed_at(q1, "p", 0.3)
    assert q1.backing_off(q, 1.0) and q1.backing_off(q, 1.999)
    assert not q1.backing_off(q, 2.0)
    # The classic queue counts 1 s from the failure exactly.
    q2 = SchedulingQueue(CLASSIC)
    q = _failed_at(q2, "p", 0.3)
    assert q2.backing_off(q, 1.299) and not q2.backing_off(q, 1.3)


def test_backoffq_flush_releases_one_window_after_the_expiry() -> None:
    queue = SchedulingQueue(UPSTREAM)
    q = _failed_at(queue, "p", 0.3)
    assert queue.move_all(0.5) == [2.0]  # moved while backing off: the flush at 2 s
    queue.flush_backoff(1.0)
    assert q.where == "backoff"
    queue.flush_backoff(2.0)
    assert q.where == "active"


def test_pop_from_backoffq_when_activeq_is_empty() -> None:
    queue = SchedulingQueue(UPSTREAM)
    low = _failed_at(queue, "low", 0.2, priority=0)
    high = _failed_at(queue, "high", 0.7, priority=10)
    queue.move_all(0.8)
    assert low.where == high.where == "backoff" and queue.ready()
    # Same window (expiry 1.0 for both): ordered as activeQ, higher priority first.
    assert queue.pop(0.8) is high
    assert queue.pop(0.8) is low and high.attempts == low.attempts == 2
    # A pod in activeQ goes first.
    queue.add(_pod("new"), 0.9)
    queue.move_all(0.9)
    assert queue.pop(0.9).pod.name == "new"
    # A pod that failed with no rejecting plugin waits in podErrorBackoffQ: never popped
    # early, released by the flush.
    err = _failed_at(queue, "err", 1.2, rejectors=frozenset())
    assert queue.move_all(1.3) == [3.0] and err.where == "error"
    assert not queue.ready() and queue.pop(1.3) is None
    queue.flush_backoff(3.0)
    assert queue.pop(3.0) is err
    # Classic never pops a backing-off pod.
    classic = SchedulingQueue(CLASSIC)
    _failed_at(classic, "x", 0.2)
    classic.move_all(0.5)
    assert not classic.ready() and classic.pop(0.5) is None
