"""Upstream's ``TestEntryOrdering`` (pkg/scheduler/scheduler_test.go, kueue main ff69552e):
the classical iterator's order of a cycle's entries (borrowing level, then priority, then
queue-order time) through :func:`kubepreempt.kueue.entry_order.ordered_entries`.

Ported: the three cases at the defaults kubepreempt models (PrioritySortingWithinCohort
on, the pods-ready requeuing timestamp ``Eviction``, PrioritizePreemptorWorkloads off).
Not modelled: PrioritySortingWithinCohort off (2 cases, and a third with preempted
workloads), the ``Creation`` requeuing timestamp (1), PrioritizePreemptorWorkloads on (1).
"""

from __future__ import annotations

import pytest
from builders.kueue import docs
from builders.kueue_tables import config_manifest

from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.entry_order import ordered_entries
from kubepreempt.kueue.flavors import Assignment
from kubepreempt.kueue.nomination import Entry
from kubepreempt.kueue.objects import Condition, Workload
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo
from kubepreempt.kueue.semantics import CURRENT

NOW = 1_700_000_000.0


def _entry(name: str, created: float, priority: int = 0, borrow: int = 0,
           conditions: tuple[Condition, ...] = ()) -> Entry:
    wl = Workload(namespace="default", name=name, creation=NOW + created, priority=priority,
                  conditions=conditions)
    return Entry(WorkloadInfo(wl, "cq", []), Assignment(borrowing=borrow > 0,
                                                       borrow_level=borrow))


def _evicted(at: float) -> tuple[Condition, ...]:
    return (Condition("Evicted", "True", "PodsReadyTimeout", "", NOW + at),)


def _preempted(reason: str, at: float) -> tuple[Condition, ...]:
    return (Condition("Preempted", "True", reason, "", NOW + at),)


INPUT = [
    _entry("old_borrowing", 0, borrow=1), _entry("old", 1), _entry("new", 3),
    _entry("high_pri_borrowing", 3, priority=1, borrow=1), _entry("new_high_pri", 4, 1),
    _entry("new_borrowing", 3, borrow=1),
    _entry("evicted_borrowing", 1, borrow=1, conditions=_evicted(2)),
    _entry("recently_evicted", 0, conditions=_evicted(2)),
    _entry("high_pri_borrowing_more", 3, priority=1, borrow=2),
]
PREEMPTED = [
    _entry("old-mid-recently-preempted-in-queue", 0, 1,
           conditions=_preempted("InClusterQueue", 5)),
    _entry("old-mid-recently-reclaimed-while-borrowing", 0, 1,
           conditions=_preempted("InCohortReclaimWhileBorrowing", 6)),
    _entry("old-mid-more-recently-reclaimed-while-borrowing", 0, 1,
           conditions=_preempted("InCohortReclaimWhileBorrowing", 7)),
    _entry("old-mid-not-preempted-yet", 1, 1), _entry("preemptor", 7, 2),
]
PREEMPTORS = [  # IsPreemptor only matters with PrioritizePreemptorWorkloads on
    _entry("preemptor-borrowing", 1, 1, borrow=1), _entry("preemptor-not-borrowing", 2, 1),
    _entry("not-preemptor-not-borrowing", 0, 2),
]

CASES = {
    "Priority sorting is enabled (default) using pods-ready Eviction timestamp (default)": (
        INPUT, ["new_high_pri", "old", "recently_evicted", "new", "high_pri_borrowing",
                "old_borrowing", "evicted_borrowing", "new_borrowing",
                "high_pri_borrowing_more"]),
    "Some workloads are preempted; Priority sorting is enabled": (
        PREEMPTED, ["preemptor", "old-mid-recently-preempted-in-queue",
                    "old-mid-recently-reclaimed-while-borrowing",
                    "old-mid-more-recently-reclaimed-while-borrowing",
                    "old-mid-not-preempted-yet"]),
    "Some workloads are preemptors; PrioritizePreemptorWorkloads is disabled": (
        PREEMPTORS, ["not-preemptor-not-borrowing", "preemptor-not-borrowing",
                     "preemptor-borrowing"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_entry_ordering(name: str) -> None:
    entries, want = CASES[name]
    inp = load_inputs(docs([config_manifest(False)]), version=CURRENT)
    snap = Snapshot([], {}, [], inp.config, {})
    assert [e.info.obj.name for e in ordered_entries(list(entries), snap)] == want
