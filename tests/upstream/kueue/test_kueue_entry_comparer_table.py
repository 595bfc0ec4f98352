"""Upstream's ``TestEntryComparerLess`` (pkg/scheduler/scheduler_test.go, kueue main
ff69552e): the fair-sharing tournament's comparison of two entries under one cohort, with
the shares and requested flavor-resources the table gives. The four cases about
``FairSharingPrioritizeNonBorrowing`` (on by default) are ported; the three about the
alpha gate ``PrioritizePreemptorWorkloads`` (off by default) are not modelled.

Upstream's zero ``DRS{}`` (a missing map entry too) has weight 0 and no borrowing;
``BorrowingDRS(fr)`` has weight 1 and borrows on ``fr``; ``NegativeDRS()`` is the
comparison's starting point (ratio -1)."""

from __future__ import annotations

import pytest

from kubepreempt.kueue.dominant_share import DRS, NEGATIVE
from kubepreempt.kueue.entry_order import EntryComparer
from kubepreempt.kueue.nomination import Entry
from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.quota import WorkloadInfo, queue_order_time

NOW = 1_700_000_000.0
COHORT = "test-cohort"
CPU = ("default", "cpu")
ZERO = DRS(weight=0.0)
BORROWING = DRS(weight=1.0, borrowing=True, borrowed_frs=(CPU,))
ONE_CPU = {"default": {"cpu": 1}}

# name -> (a (name, created), b (name, created), drs of a, drs of b, requested, a first)
CASES = {
    "non-borrowing subtree preferred over borrowing subtree": (
        ("nominal", NOW + 1), ("borrowing", NOW), ZERO, BORROWING,
        {"default/nominal": ONE_CPU, "default/borrowing": ONE_CPU}, True),
    "both borrowing on requested flavors falls through to FIFO": (
        ("borrow-a", NOW + 1), ("borrow-b", NOW), BORROWING, BORROWING,
        {"default/borrow-a": ONE_CPU, "default/borrow-b": ONE_CPU}, False),
    "lower DRS preferred over higher DRS": (
        ("lower-drs", NOW + 1), ("higher-drs", NOW), NEGATIVE, ZERO, {}, True),
    "both non-borrowing falls through to FIFO": (
        ("older", NOW), ("newer", NOW + 1), ZERO, ZERO, {}, True),
}


def _entry(name: str, created: float) -> Entry:
    return Entry(WorkloadInfo(Workload(namespace="default", name=name, creation=created),
                              "cq", []))


@pytest.mark.parametrize("name", list(CASES))
def test_entry_comparer_less(name: str) -> None:
    (an, at), (bn, bt), adrs, bdrs, requested, want = CASES[name]
    a, b = _entry(an, at), _entry(bn, bt)
    drs = {(COHORT, a.key): adrs, (COHORT, b.key): bdrs}
    comparer = EntryComparer(drs, requested, lambda info: queue_order_time(info, True))
    assert comparer.less(a, b, COHORT) is want


def test_without_the_gate_shares_and_then_time_decide() -> None:
    # The first case with FairSharingPrioritizeNonBorrowing off: both shares are 0
    # (BorrowingDRS carries no ratio), priorities are equal, so the older "borrowing"
    # entry goes first.
    (an, at), (bn, bt), adrs, bdrs, _, _ = CASES[
        "non-borrowing subtree preferred over borrowing subtree"]
    a, b = _entry(an, at), _entry(bn, bt)
    comparer = EntryComparer({(COHORT, a.key): adrs, (COHORT, b.key): bdrs}, None,
                             lambda info: queue_order_time(info, True))
    assert comparer.less(a, b, COHORT) is False
    assert comparer.less(b, a, COHORT) is True
