"""The unschedulable pool's leftover flush, as upstream ``flushUnschedulablePodsLeftover``
(pkg/scheduler/backend/queue/scheduling_queue.go): a pool pod moves when
``currentTime.Sub(lastScheduleTime) > podMaxInUnschedulablePodsDuration`` (5 min) —
strictly longer, so a pod that has waited exactly 5 min stays until the next 30 s tick of
``wait.Until(p.flushUnschedulablePodsLeftover, 30*time.Second, ...)``."""

from __future__ import annotations

import pytest
from builders import cluster_of, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.scheduler.queue.scheduling_queue import (
    MAX_IN_UNSCHEDULABLE,
    MODES,
    SchedulingQueue,
    leftover_tick,
)


def _parked(mode: str, failed_at: float) -> SchedulingQueue:
    """A queue whose one pod was tried and failed at ``failed_at`` (into the pool)."""
    queue = SchedulingQueue(mode)
    queue.add(parse_pod(pod("p", "1"), Source("test.yaml", 0), cluster_of().priority.resolve), 0.0)
    popped = queue.pop(0.0)
    assert popped is not None
    assert queue.failed(popped, failed_at, requeue=False) is None
    return queue


@pytest.mark.parametrize("mode", MODES)
def test_pod_that_waited_exactly_the_maximum_stays_in_the_pool(mode: str) -> None:
    """Failed at 20: at 320 it has waited exactly 300 s, not more, and stays; at 320.5 it
    has waited longer and moves out of the pool (its 1 s backoff long over: to activeQ).

    Kills the mutation ``>`` -> ``>=`` in ``SchedulingQueue.flush_leftover``."""
    assert MAX_IN_UNSCHEDULABLE == 300.0
    queue = _parked(mode, 20.0)
    assert queue.flush_leftover(320.0) is None
    assert set(queue.unschedulable) == {"default/p"}
    assert queue.flush_leftover(320.5) == []
    assert queue.unschedulable == {}
    assert queue.info["default/p"].where == "active"


def test_leftover_tick_is_the_first_30s_flush_after_strictly_more_than_five_minutes() -> None:
    """The flush runs at 0, 30, 60, ... s. A pod failed at 0 has waited exactly 300 s at
    the 300 s tick (not moved), so the 330 s tick moves it; failed at 0.5, the 330 s tick
    too (329.5 s > 300 s); failed at 30.5, the 360 s tick (at 330 it waited 299.5 s).

    Kills the mutation of ``leftover_tick`` that moves a pod at the tick where it has
    waited exactly the maximum (``math.floor(due) + 1`` -> ``math.ceil(due)``)."""
    assert leftover_tick(0.0) == 330.0
    assert leftover_tick(0.5) == 330.0
    assert leftover_tick(30.5) == 360.0
    # the same answers from the queue itself at those ticks
    for failed_at, tick in ((0.0, 330.0), (30.5, 360.0)):
        queue = _parked("1.36", failed_at)
        assert queue.flush_leftover(tick - 30.0) is None
        assert queue.flush_leftover(tick) == []
