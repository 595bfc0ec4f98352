"""SchedulingQueue bookkeeping rules the other queue tests leave open: flush timing at
fractional seconds, stale heap entries, tie order, error-backoffQ counting, PreEnqueue
holds, PopSpecificPod and forgetting pods. Expected answers come from upstream
kube-scheduler ``pkg/scheduler/backend/queue`` (podInitialBackoffSeconds 1,
podMaxBackoffSeconds 10, podMaxInUnschedulablePodsDuration 5 min, backoffQ flushed every
second and the pool every 30 s from the scheduler's start)."""

from __future__ import annotations

import pytest

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.queue.scheduling_queue import (
    CLASSIC,
    FIFO,
    UPSTREAM,
    QueuedPod,
    SchedulingQueue,
    backoff_tick,
    leftover_tick,
)

FIT = frozenset({"NodeResourcesFit"})


def _pod(name: str, priority: int = 0, gated: bool = False) -> Pod:
    pod = Pod(name=name, namespace="default", priority=priority)
    if gated:
        pod.scheduling_gates = ("example.com/gate",)
    return pod


def _fail(queue: SchedulingQueue, q: QueuedPod, t: float,
          rejectors: frozenset[str] = FIT, requeue: bool = False) -> None:
    q.rejectors = rejectors
    queue.failed(q, t, requeue=requeue)


# ---- flush timing ------------------------------------------------------------------------

def test_backoff_flush_tick_rounds_a_fractional_expiry_up() -> None:
    """flushBackoffQCompleted runs every whole second; a backoff ending at 2.3 s is still
    running at the 2 s flush (isPodBackingoff: 2.3 is after 2), over at the 3 s one."""
    assert backoff_tick(2.3) == 3.0
    assert backoff_tick(2.0) == 2.0


def test_leftover_flush_tick_for_a_failure_late_in_a_period() -> None:
    """flushUnschedulablePodsLeftover every 30 s moves pods that waited more than 5 min:
    a pod that failed at 20 s has waited 280 s at the 300 s flush, 310 s at the 330 s one."""
    assert leftover_tick(20.0) == 330.0
    assert leftover_tick(10.0) == 330.0


def test_classic_backoff_flush_at_a_fractional_now_uses_now_itself() -> None:
    """Classic flushBackoffQCompleted: a pod leaves backoffQ once its backoff time
    (failure + 1 s) is not after now, whatever fraction of a second now is."""
    queue = SchedulingQueue(CLASSIC)
    queue.add(_pod("p"), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.3)
    assert queue.move_all(0.5) == [2.0]
    queue.flush_backoff(1.5)  # 1.3 is not after 1.5: over
    assert q.where == "active"


def test_upstream_backoff_flush_waits_for_the_window_after_the_expiry() -> None:
    """1.36 isPodBackingoff with SchedulerPopFromBackoffQ: the expiry 0.3 + 1 s truncated
    to 1.0 is backing off while it is not before the current window, so a flush at 1.5 s
    (window 1) keeps the pod, the one at 2 s releases it."""
    queue = SchedulingQueue(UPSTREAM)
    queue.add(_pod("p"), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.3)
    queue.move_all(0.5)
    queue.flush_backoff(1.5)
    assert q.where == "backoff"
    queue.flush_backoff(2.0)
    assert q.where == "active"


def test_leftover_flush_returns_the_backoffq_flush_of_a_pod_still_backing_off() -> None:
    """flushUnschedulablePodsLeftover moves a stale pool pod still in backoff to backoffQ:
    failed at 0 (1 s backoff, until 1.0), moved at 0.5 -> released by the 1 s flush."""
    queue = SchedulingQueue(CLASSIC)
    queue.add(_pod("p"), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.0)
    assert queue.flush_leftover(0.5, max_wait=0.1) == [1.0]
    assert q.where == "backoff"


# ---- ordering and stale heap entries -------------------------------------------------------

def test_mode_is_validated_with_the_allowed_names() -> None:
    with pytest.raises(ValueError, match=r"must be one of 1\.36, classic, fifo, not 'lifo'"):
        SchedulingQueue("lifo")


def test_fifo_mode_ignores_priority() -> None:
    """Pre-1.9 FIFO queue: pods come out in the order they entered, whatever priority."""
    queue = SchedulingQueue(FIFO)
    queue.add(_pod("low", 0), 0.0)
    queue.add(_pod("high", 100), 1.0)
    assert queue.pop(1.0).pod.name == "low"


def test_equal_priority_and_timestamp_pop_in_arrival_order() -> None:
    """activeQ Less is priority then Timestamp; of two equal pods the heap yields the one
    pushed first (the second is never less, so it stays below)."""
    queue = SchedulingQueue(UPSTREAM)
    queue.add(_pod("a"), 0.0)
    queue.add(_pod("b"), 0.0)
    assert queue.pop(0.0).pod.name == "a"


def test_a_pod_taken_out_of_activeq_keeps_no_old_place() -> None:
    """PopSpecificPod removes the pod from activeQ; back in the queue after failing at 2 s
    its Timestamp is 2, so b (Timestamp 1) goes first (activeQ Less: priority, then
    Timestamp)."""
    queue = SchedulingQueue(CLASSIC)
    queue.add(_pod("a"), 0.0)
    queue.add(_pod("b"), 1.0)
    a = queue.take("default/a")
    assert a is not None
    _fail(queue, a, 2.0)
    queue.move_all(10.0)
    assert queue.pop(10.0).pod.name == "b"
    assert queue.pop(10.0).pod.name == "a"


def test_a_pod_taken_out_of_backoffq_keeps_no_old_expiry() -> None:
    """Second failure at 0.6 s: calculateBackoffDuration(2 attempts) = 2 s, backing off
    until 2.6 s, so the 1 s flush (its old expiry) must not release it."""
    queue = SchedulingQueue(CLASSIC)
    queue.add(_pod("a"), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.0)
    assert queue.move_all(0.5) == [1.0]
    assert queue.take("default/a") is q and q.attempts == 2
    _fail(queue, q, 0.6)
    assert queue.move_all(0.7) == [3.0]
    queue.flush_backoff(1.0)
    assert q.where == "backoff"
    queue.flush_backoff(3.0)
    assert q.where == "active"


# ---- backoffQ and error backoffQ counts -----------------------------------------------------

def _error_backoff(queue: SchedulingQueue, name: str) -> QueuedPod:
    queue.add(_pod(name), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.0, rejectors=frozenset(), requeue=True)
    assert q.where == "error"
    return q


def _backoff(queue: SchedulingQueue, name: str) -> QueuedPod:
    queue.add(_pod(name), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.0, requeue=True)
    assert q.where == "backoff"
    return q


def test_only_error_backoff_pods_leave_nothing_to_pop() -> None:
    """1.36 popBackoff never pops from podErrorBackoffQ."""
    queue = SchedulingQueue(UPSTREAM)
    _error_backoff(queue, "e1")
    _error_backoff(queue, "e2")
    assert not queue.ready() and queue.pop(0.0) is None


def test_a_backoff_pod_beside_an_error_pod_can_be_popped() -> None:
    queue = SchedulingQueue(UPSTREAM)
    _error_backoff(queue, "e")
    _backoff(queue, "b")
    assert queue.ready()
    assert queue.pop(0.0).pod.name == "b"


def test_two_backoff_pods_are_both_poppable() -> None:
    queue = SchedulingQueue(UPSTREAM)
    _backoff(queue, "b1")
    _backoff(queue, "b2")
    assert queue.pop(0.0) is not None
    assert queue.ready() and queue.pop(0.0) is not None
    assert not queue.ready()


def test_an_error_pod_leaving_its_queue_is_uncounted() -> None:
    """The error backoffQ is flushed like backoffQ: expiry 1 is released at 2 s."""
    queue = SchedulingQueue(UPSTREAM)
    q = _error_backoff(queue, "e")
    queue.flush_backoff(2.0)
    assert q.where == "active"
    assert (queue.backoff_count, queue.error_count, queue.active_count) == (0, 0, 1)


# ---- gates, PreEnqueue holds, PopSpecificPod, delete ----------------------------------------

def test_ungate_of_an_unknown_or_ungated_pod_does_nothing() -> None:
    queue = SchedulingQueue(UPSTREAM)
    assert queue.ungate("default/missing", 0.0) is None
    queue.add(_pod("p"), 0.0)
    assert queue.ungate("default/p", 0.0) is None and queue.active_count == 1


def test_an_ungated_pod_can_be_taken() -> None:
    queue = SchedulingQueue(UPSTREAM)
    queue.add(_pod("p", gated=True), 0.0)
    assert queue.take("default/p") is None  # gated: not in activeQ
    queue.ungate("default/p", 0.0)
    assert queue.take("default/p") is not None


def test_an_attempted_pod_ungated_while_backing_off_goes_to_backoffq() -> None:
    """Failed at 0 (expiry 1), gate-held, released at 0.5: still backing off, so
    backoffQ, released by the flush one window after the expiry (2 s)."""
    queue = SchedulingQueue(UPSTREAM)
    queue.add(_pod("p"), 0.0)
    q = queue.pop(0.0)
    _fail(queue, q, 0.0)
    queue.hold("default/p", "GangScheduling")
    assert queue.ungate("default/p", 0.5) == 2.0
    assert q.where == "backoff"


def test_hold_parks_the_pod_gated_in_the_pool() -> None:
    """A PreEnqueue rejection keeps the pod out of activeQ; cluster events and the
    leftover flush do not move it, only removing the gate does."""
    queue = SchedulingQueue(UPSTREAM)
    queue.hold("default/missing", "GangScheduling")  # unknown pod: nothing happens
    queue.add(_pod("p"), 0.0)
    queue.hold("default/p", "GangScheduling")
    q = queue.info["default/p"]
    assert queue.active_count == 0 and not queue.ready()
    assert q.where == "unschedulable" and queue.unschedulable["default/p"] is q
    assert q.gated and q.rejectors == {"GangScheduling"}
    assert queue.move_all(1.0) == [] and queue.flush_leftover(1000.0) is None
    assert q.where == "unschedulable"
    queue.ungate("default/p", 1000.0)
    assert q.where == "active" and "default/p" not in queue.unschedulable


def test_take_finds_the_pod_in_each_place_and_counts_the_attempt() -> None:
    queue = SchedulingQueue(UPSTREAM)
    queue.add(_pod("act"), 0.0)
    assert queue.take("default/act").attempts == 1
    b = _backoff(queue, "bo")
    assert queue.take("default/bo") is b and b.attempts == 2
    e = _error_backoff(queue, "err")
    assert queue.take("default/err") is e and e.attempts == 2
    queue.add(_pod("pool"), 0.0)
    p = queue.pop(0.0)
    _fail(queue, p, 0.0)
    assert queue.take("default/pool") is p and p.attempts == 2
    assert "default/pool" not in queue.unschedulable
    assert (queue.active_count, queue.backoff_count, queue.error_count) == (0, 0, 0)


def test_take_refuses_unknown_gated_and_in_flight_pods() -> None:
    queue = SchedulingQueue(UPSTREAM)
    assert queue.take("default/missing") is None
    queue.add(_pod("g", gated=True), 0.0)
    assert queue.take("default/g") is None
    queue.add(_pod("p"), 0.0)
    assert queue.pop(0.0).pod.name == "p"
    assert queue.take("default/p") is None  # its attempt is in flight


def test_done_forgets_a_waiting_pod_and_ignores_an_unknown_one() -> None:
    queue = SchedulingQueue(UPSTREAM)
    queue.done("default/missing")
    queue.add(_pod("p"), 0.0)
    queue.done("default/p")
    assert queue.active_count == 0 and not queue.ready() and queue.pending() == 0


def test_activate_of_an_unknown_pod_does_nothing() -> None:
    queue = SchedulingQueue(UPSTREAM)
    assert queue.activate("default/missing", 0.0) is None
    queue.add(_pod("p"), 0.0)
    assert queue.activate("default/p", 0.0) is None and queue.active_count == 1
