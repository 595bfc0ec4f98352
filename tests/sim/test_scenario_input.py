"""Scenario annotations: durations, replicas, arrival patterns, and bad input."""

from __future__ import annotations

import pytest
from builders.sim import node, pod, run

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.queue.scheduling_queue import backoff_duration
from kubepreempt.sim.scenario import parse_duration, parse_rate


@pytest.mark.parametrize(("text", "seconds"), [
    ("90s", 90.0), ("15m", 900.0), ("2h", 7200.0), ("1h30m", 5400.0), ("500ms", 0.5),
    ("45", 45.0), ("2.5", 2.5), (30, 30.0), ("0", 0.0), (" 10s ", 10.0),
])
def test_durations(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "10d", "-5", "5 s", "1h-30m", "s", "1.2.3s",
                                  "10sec", True, -1])
def test_bad_durations(text: object) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_rates() -> None:
    assert parse_rate("2/m") == pytest.approx(2 / 60)
    assert parse_rate("30/h") == pytest.approx(30 / 3600)
    assert parse_rate("0.5") == 0.5
    for bad in ("0/s", "x", "2/d", "-1"):
        with pytest.raises(ValueError):
            parse_rate(bad)


@pytest.mark.parametrize(("ann", "message"), [
    ({"arrival": "soon"}, "Pod default/p: annotation kubepreempt.io/arrival: 'soon' is not"),
    ({"duration": "10d"}, "Pod default/p: annotation kubepreempt.io/duration: '10d'"),
    ({"exit_after_signal": "x"}, "Pod default/p: annotation kubepreempt.io/exit-after-signal"),
    ({"replicas": "0"}, "Pod default/p: annotation kubepreempt.io/replicas: '0' is not a"),
    ({"replicas": "3", "interval": "fast"}, "Pod default/p: annotation kubepreempt.io/interval"),
    ({"replicas": "3", "rate": "lots"}, "Pod default/p: annotation kubepreempt.io/rate: 'lots'"),
    ({"replicas": "3", "rate": "1/s", "interval": "1s"}, "Pod default/p: set"),
])
def test_bad_pod_annotations_name_the_object(ann: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        run(node("n1", 4) + pod("p", 1, 0, **ann))
    text = str(err.value)
    assert message in text and "\n" not in text and text.startswith("test.yaml, document 2: ")


def test_bad_node_removal_names_the_node() -> None:
    with pytest.raises(InputError, match=r"Node n1: annotation kubepreempt.io/removal: "
                                         r"'tomorrow' is not a duration"):
        run(node("n1", 4, removal="tomorrow"))


def test_replicas_with_interval_arrive_on_time() -> None:
    r = run(node("n1", 4) + pod("w", 1, 0, arrival="10s", replicas="3", interval="1m"))
    arrivals = [(e.time, e.pod) for e in r.events if e.type == "arrived"]
    assert arrivals == [(10.0, "default/w-0"), (70.0, "default/w-1"), (130.0, "default/w-2")]


def test_poisson_arrivals_are_seeded() -> None:
    y = node("n1", 100) + pod("w", 1, 0, replicas="50", rate="2/s")
    a = [e.time for e in run(y, seed=7).events if e.type == "arrived"]
    b = [e.time for e in run(y, seed=7).events if e.type == "arrived"]
    c = [e.time for e in run(y, seed=8).events if e.type == "arrived"]
    assert a == b != c and len(a) == 50 and a == sorted(a)
    assert 10 < a[-1] < 50  # 50 arrivals at 2/s: about 25 s


def test_duration_and_exit_after_signal() -> None:
    # v runs 100 s; h preempts it at 20 s; v exits 5 s after SIGTERM (grace 30 s).
    r = run(node("n1", 4) + pod("v", 4, 0, duration="100s", exit_after_signal="5s")
            + pod("h", 4, 10, arrival="20s", duration="1m"))
    got = [(e.time, e.type, e.pod) for e in r.events if e.type != "arrived"]
    assert got == [(0.0, "bound", "default/v"), (20.0, "preempted", "default/v"),
                   (20.0, "nominated", "default/h"), (25.0, "terminated", "default/v"),
                   (25.0, "bound", "default/h"), (85.0, "completed", "default/h")]
    assert r.metrics["classes"]["(priority 0)"]["workLost"] == 20.0


def test_backoff_schedule() -> None:
    assert [backoff_duration(n) for n in range(1, 7)] == [1, 2, 4, 8, 10, 10]
