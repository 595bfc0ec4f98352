"""``victims.more_important``: upstream ``MoreImportantPod`` (``pkg/scheduler/util/utils.go``).

``MoreImportantPod(pod1, pod2)``: the higher ``PodPriority`` wins; on equal priority,
``GetPodStartTime(pod1).Before(GetPodStartTime(pod2))`` — strictly earlier, so two pods
started at the same instant are not more important than each other; a pod without
``status.startTime`` counts as started now.
"""

from __future__ import annotations

import dataclasses

import pytest
from builders import cluster_of, node, pod

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.preemption import more_important

NOW = 1000.0


@pytest.fixture(scope="module")
def base() -> Pod:
    return cluster_of(node("n"), pod("p", "1", node_name="n")).pods["default/p"]


def make(base: Pod, priority: int, start: float | None) -> Pod:
    return dataclasses.replace(base, priority=priority, start_time=start)


@pytest.mark.parametrize(("a", "b", "expected"), [
    ((10, 900.0), (5, 100.0), True),     # higher priority wins over an earlier start
    ((5, 100.0), (10, 900.0), False),
    ((5, 100.0), (5, 900.0), True),      # equal priority: earlier start
    ((5, 900.0), (5, 100.0), False),
    ((5, 500.0), (5, 500.0), False),     # Before is strict
    ((5, 500.0), (5, None), True),       # not started = now (1000)
    ((5, None), (5, 500.0), False),
    ((5, None), (5, NOW + 1), True),     # now (1000) is before 1001
    ((-3, 1.0), (-2, 900.0), False),     # negative priorities compare as numbers
])
def test_more_important_pod(base: Pod, a: tuple, b: tuple, expected: bool) -> None:
    assert more_important(make(base, *a), make(base, *b), NOW) is expected
