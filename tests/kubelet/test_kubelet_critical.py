"""Critical/static/mirror pods and Preemptable: upstream pod_update_test.go tables."""

from __future__ import annotations

import pytest
from kubelet_fixtures import make_pod

from kubepreempt.kubelet.critical import (
    is_critical_pod,
    is_critical_priority,
    is_mirror_pod,
    is_node_critical_pod,
    is_static_pod,
    preemptable,
)

SYS = 2_000_000_000
FILE = {"kubernetes.io/config.source": "file"}
HTTP = {"kubernetes.io/config.source": "http"}
API = {"kubernetes.io/config.source": "api"}
MIRROR = {"kubernetes.io/config.mirror": "abc123"}


def pod(annotations=None, priority=None, pc=""):
    extra = {"priorityClassName": pc} if pc else {}
    return make_pod("p", annotations=annotations, priority=priority, **extra)


@pytest.mark.parametrize(("annotations", "expected"), [
    (FILE, True), (HTTP, True), (API, False), (None, False)])
def test_is_static_pod(annotations, expected):
    assert is_static_pod(pod(annotations)) is expected


@pytest.mark.parametrize(("annotations", "expected"), [(MIRROR, True), (None, False)])
def test_is_mirror_pod(annotations, expected):
    assert is_mirror_pod(pod(annotations)) is expected


@pytest.mark.parametrize(("annotations", "priority", "expected"), [
    (FILE, None, True),          # critical pod with file source
    (MIRROR, None, True),        # critical pod with mirror annotation
    (None, SYS, True),           # critical pod using system priority
    (None, SYS + 1, True),       # greater than system priority
    (API, None, False),          # api server annotation
    (None, None, False),         # not static, mirror, nor critical priority
    (None, SYS - 1, False),
])
def test_is_critical_pod(annotations, priority, expected):
    assert is_critical_pod(pod(annotations, priority)) is expected


def test_is_critical_priority():
    assert is_critical_priority(SYS)
    assert not is_critical_priority(1_000_000_000)  # HighestUserDefinablePriority


@pytest.mark.parametrize(("annotations", "priority", "expected"), [
    (FILE, None, True), (MIRROR, None, True), (None, SYS, True), (None, SYS + 1, True),
    (API, None, False), (None, None, False)])
def test_is_node_critical_pod(annotations, priority, expected):
    # Upstream's table leaves spec.priority nil next to the class name; here the class
    # would resolve to 2000001000, so "nil" is spelled as an explicit 0.
    nil_as_zero = 0 if priority is None else priority
    assert is_node_critical_pod(pod(annotations, nil_as_zero, "system-node-critical")) is expected
    assert not is_node_critical_pod(pod(annotations, priority))


@pytest.mark.parametrize(("preemptor", "preemptee", "expected"), [
    # a critical preemptor pod preempts a non critical pod
    ((FILE, None), (None, None), True),
    # a preemptor pod with higher priority preempts a critical pod
    ((FILE, SYS + 1), (FILE, SYS), True),
    # a not critical pod with higher priority preempts a critical pod
    ((API, SYS + 1), (FILE, SYS), True),
    # a critical pod with less priority does not preempt a critical pod
    ((FILE, SYS), (FILE, SYS + 1), False),
    # a critical pod without priority does not preempt a critical pod without priority
    ((FILE, None), (FILE, None), False),
    # same priority: no
    ((FILE, SYS), (FILE, SYS), False),
    # non-critical: strictly higher priority only
    ((None, 200), (None, 100), True),
    ((None, 100), (None, 100), False),
])
def test_preemptable(preemptor, preemptee, expected):
    assert preemptable(pod(*preemptor), pod(*preemptee)) is expected
