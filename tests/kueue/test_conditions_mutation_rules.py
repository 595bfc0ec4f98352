"""The conditions Kueue leaves on a preempted workload, rules the tables leave unchecked:
``apimeta.SetStatusCondition`` (k8s.io/apimachinery meta/conditions.go), metav1.Time's
RFC 3339 form in UTC, current ``preemptionMessage`` (pkg/scheduler/preemption/
preemption.go, kueue main ff69552e) and the Evicted condition's ``observedGeneration``
(``workloadevict.Evict``: the workload's generation, omitted when 0)."""

from __future__ import annotations

import time

import pytest

from kubepreempt.kueue.conditions import (
    current_preemption_message,
    rfc3339,
    set_condition,
    victim_conditions,
)
from kubepreempt.kueue.objects import Workload

T0, T1 = "2023-11-14T22:13:20Z", "2023-11-14T22:30:00Z"


def test_rfc3339_is_utc_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """metav1.Time marshals ``t.UTC().Format(time.RFC3339)``, seconds truncated."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert rfc3339(1_700_000_000.9) == T0
    finally:
        monkeypatch.undo()
        time.tzset()


def test_preemption_message_unknown_parts() -> None:
    """``preemptionMessage``: empty UID, job UID and paths read UNKNOWN
    (``cmp.Or``); the reason goes through ``HumanReadablePreemptionReasons``, where ""
    maps to UNKNOWN and a reason the map lacks to the empty string."""
    assert current_preemption_message("", "", "", "", "") == (
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to UNKNOWN; "
        "preemptor path: UNKNOWN; preemptee path: UNKNOWN")
    assert current_preemption_message("u1", "j1", "Other", "/c/q", "/c/p") == (
        "Preempted to accommodate a workload (UID: u1, JobUID: j1) due to ; "
        "preemptor path: /c/q; preemptee path: /c/p")


def _cond(ctype: str, status: str, reason: str, when: str, **extra: object) -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": f"{reason} msg",
            "lastTransitionTime": when, **extra}


def test_set_status_condition_merges_by_type() -> None:
    """``SetStatusCondition``: a condition of a new type is appended; an existing one of
    the same type takes the new status and, only when the status changes, the new
    lastTransitionTime; reason, message and observedGeneration are always the new ones
    (a new condition without observedGeneration sets it to 0, which is not printed)."""
    conds = [_cond("Evicted", "False", "Old", T0, observedGeneration=1),
             _cond("Other", "True", "Keep", T0)]
    set_condition(conds, _cond("Evicted", "True", "Preempted", T1, observedGeneration=2))
    assert conds[0] == _cond("Evicted", "True", "Preempted", T1, observedGeneration=2)
    set_condition(conds, _cond("Evicted", "True", "Again", "2030-01-01T00:00:00Z"))
    assert conds[0] == _cond("Evicted", "True", "Again", T1)
    set_condition(conds, _cond("Preempted", "True", "InClusterQueue", T1))
    assert [c["type"] for c in conds] == ["Evicted", "Other", "Preempted"]
    assert conds[1] == _cond("Other", "True", "Keep", T0)


def test_evicted_observed_generation() -> None:
    """``Evict`` sets the Evicted condition's observedGeneration to the workload's
    generation (omitted when 0 or unset); Preempted carries none, so an old one goes."""
    old = (_cond("Preempted", "False", "Old", T0, observedGeneration=4),)
    for gen, want in ((3, {"observedGeneration": 3}), (0, {}), (None, {})):
        w = Workload(namespace="default", name="v", generation=gen, raw_conditions=old)
        conds = victim_conditions(w, "u1", True, 1_700_001_000.0)
        evicted = next(c for c in conds if c["type"] == "Evicted")
        preempted = next(c for c in conds if c["type"] == "Preempted")
        assert {k: v for k, v in evicted.items() if k == "observedGeneration"} == want
        assert "observedGeneration" not in preempted
        assert preempted["lastTransitionTime"] == T1 and preempted["reason"] == "InClusterQueue"


def test_set_status_condition_without_observed_generation_on_either_side() -> None:
    """``SetStatusCondition`` with no observedGeneration on the existing condition nor the
    new one (both 0): nothing to remove, the rest is merged as usual."""
    conds = [_cond("Other", "True", "Keep", T0)]
    set_condition(conds, _cond("Other", "True", "Changed", T1))
    assert conds == [_cond("Other", "True", "Changed", T0)]
