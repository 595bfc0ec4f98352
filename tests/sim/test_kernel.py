"""The event kernel: time, then priority, then the order scheduled."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.sim.kernel import Kernel, Priority


def test_same_time_events_run_by_priority_then_in_the_order_scheduled() -> None:
    k = Kernel()
    seen: list[tuple[float, str]] = []

    def note(label: str) -> None:
        seen.append((k.now, label))

    k.schedule(1.0, Priority.CYCLE, note, "cycle")
    k.schedule(1.0, Priority.ARRIVE, note, "arrive-1")
    k.schedule(0.5, Priority.SCAN, note, "early scan")
    k.schedule(1.0, Priority.FREE, note, "free")
    k.schedule(1.0, Priority.ARRIVE, note, "arrive-2")
    k.run()
    assert seen == [(0.5, "early scan"), (1.0, "free"), (1.0, "arrive-1"),
                    (1.0, "arrive-2"), (1.0, "cycle")]
    assert k.processed == 5 and k.pending() == 0


def test_a_handler_may_schedule_at_the_current_time() -> None:
    # A KICK scheduled while handling an ARRIVE at t=2 runs before a later-priority
    # CYCLE already waiting at t=2, and after every ARRIVE at t=2.
    k = Kernel()
    seen: list[str] = []

    def arrive(label: str) -> None:
        seen.append(label)
        k.schedule(k.now, Priority.KICK, seen.append, "kick")

    k.schedule(2.0, Priority.CYCLE, seen.append, "cycle")
    k.schedule(2.0, Priority.ARRIVE, arrive, "a")
    k.schedule(2.0, Priority.ARRIVE, seen.append, "b")
    k.run()
    assert seen == ["a", "b", "kick", "cycle"]


def test_run_until_leaves_later_events_and_after_runs_after_each() -> None:
    k = Kernel()
    seen: list[float] = []
    for t in (1.0, 2.0, 3.0):
        k.schedule(t, Priority.ARRIVE, lambda _: None)
    k.run(until=2.0, after=seen.append)
    assert seen == [1.0, 2.0] and k.pending() == 1 and k.now == 2.0


def test_settled_ends_the_run_and_max_events_is_an_input_error() -> None:
    k = Kernel()
    for t in range(5):
        k.schedule(float(t), Priority.BACKOFF, lambda _: None)
    k.run(settled=lambda pending: pending == 2)
    assert k.processed == 3
    with pytest.raises(InputError, match="reached 4 events"):
        k.run(max_events=4)
