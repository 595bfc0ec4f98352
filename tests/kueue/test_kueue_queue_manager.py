"""The ClusterQueue queues (upstream ``pkg/queue``): heads by priority then queue-order
time, and requeueing per queueing strategy (``RequeueWorkload``,
``QueueInadmissibleWorkloads``)."""

from __future__ import annotations

from builders.kueue import BASE, CURRENT, inputs, wl

from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.queue_manager import (
    FAILED_AFTER_NOMINATION,
    NO_FIT,
    PENDING_PREEMPTION,
    QueueManager,
)

BEST_EFFORT, STRICT = "BestEffortFIFO", "StrictFIFO"
# a and b share the cohort tree "co"; c has no cohort.
ROOTS = {"a": "co", "b": "co", "c": "c"}


def _workloads(*objs: dict) -> dict[str, Workload]:
    return {w.name: w for w in inputs(list(objs), CURRENT).workloads.values()}


def _manager(strategy: str = BEST_EFFORT) -> QueueManager[Workload]:
    return QueueManager({name: strategy for name in ROOTS}, ROOTS.__getitem__, True)


def _names(items: list[Workload]) -> list[str]:
    return [w.name for w in items]


def test_heads_are_the_highest_priority_then_the_oldest_of_each_queue() -> None:
    w = _workloads(wl("low", priority=0, created=BASE + 1), wl("high", priority=10,
                   created=BASE + 2), wl("old", priority=0, created=BASE),
                   wl("other", created=BASE + 5))
    qm = _manager()
    for name in ("low", "high", "old"):
        qm.push("a", w[name], w[name])
    qm.push("c", w["other"], w["other"])
    always = lambda _: True  # noqa: E731
    assert _names(qm.heads(always)) == ["high", "other"]  # one head per queue, by queue
    assert _names(qm.heads(always)) == ["old"]
    assert _names(qm.heads(always)) == ["low"]
    assert not qm.has_pending()


def test_heads_drop_items_that_are_no_longer_pending() -> None:
    w = _workloads(wl("gone", priority=5), wl("next", priority=1))
    qm = _manager()
    qm.push("a", w["gone"], w["gone"])
    qm.push("a", w["next"], w["next"])
    assert _names(qm.heads(lambda x: x.name != "gone")) == ["next"]


def test_best_effort_fifo_parks_a_no_fit_head_until_its_cohort_releases_quota() -> None:
    w = _workloads(wl("big"))
    qm = _manager()
    assert qm.requeue("a", w["big"], w["big"], NO_FIT) is True
    assert qm.heads(lambda _: True) == []
    assert list(qm.queue_inadmissible("c", lambda x: x)) == []  # another tree
    assert _names(list(qm.queue_inadmissible("b", lambda x: x))) == ["big"]  # same tree
    assert _names(qm.heads(lambda _: True)) == ["big"]


def test_best_effort_fifo_requeues_pending_preemption_and_failed_nomination_at_once() -> None:
    w = _workloads(wl("p"), wl("f"))
    qm = _manager()
    assert qm.requeue("a", w["p"], w["p"], PENDING_PREEMPTION) is False
    assert qm.requeue("c", w["f"], w["f"], FAILED_AFTER_NOMINATION) is False
    assert _names(qm.heads(lambda _: True)) == ["p", "f"]


def test_strict_fifo_always_puts_the_head_back() -> None:
    w = _workloads(wl("big"))
    qm = _manager(STRICT)
    assert qm.requeue("a", w["big"], w["big"], NO_FIT) is False
    assert _names(qm.heads(lambda _: True)) == ["big"]
