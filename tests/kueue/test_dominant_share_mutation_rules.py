"""Dominant-resource-share rules the upstream tables leave unchecked
(``pkg/cache/scheduler/fair_sharing.go``, kueue main ff69552e: ``dominantResourceShare``,
``CompareDRS``, ``zeroWeightBorrows``)."""

from __future__ import annotations

from builders.kueue import CURRENT, config, cq, flavor, inputs, wl

from kubepreempt.kueue.dominant_share import DRS, compare_drs, dominant_resource_share
from kubepreempt.kueue.quota import Snapshot


def _share(objs: list[dict], name: str) -> DRS:
    inp = inputs([*objs, config(fair=True)], CURRENT)
    admitted = [w for w in inp.workloads.values() if w.has_quota_reservation]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)
    return dominant_resource_share(snap.cqs[name])


def test_compare_drs_returns_minus_one_zero_or_one() -> None:
    """``CompareDRS``: two zero-weight borrowers compare by unweighted ratio
    (``cmp.Compare``: equal is 0); a zero-weight borrower is above anything else (1, and
    -1 the other way round)."""
    zero_a = DRS(weight=0.0, ratio=100.0, resource="cpu", borrowing=True)
    zero_b = DRS(weight=0.0, ratio=100.0, resource="cpu", borrowing=True)
    plain = DRS(weight=1.0, ratio=900.0, resource="cpu", borrowing=True)
    assert compare_drs(zero_a, zero_b) == 0
    assert compare_drs(zero_a, DRS(weight=0.0, ratio=50.0, borrowing=True)) == 1
    assert compare_drs(zero_a, plain) == 1
    assert compare_drs(plain, zero_a) == -1


def test_zero_weight_with_a_zero_ratio_is_not_infinite() -> None:
    """``zeroWeightBorrows`` is weight 0 *and* a non-zero ratio: a node with weight 0 that
    uses more than its quota of a resource nobody in its tree can lend (no lendable, so
    no ratio) has share 0 (``PreciseWeightedShare``: IsZero first), rounded 0."""
    objs = [flavor("default"),
            cq("q", [("default", {"cpu": "0"})], cohort="c", weight="0"),
            cq("peer", [("default", {"cpu": "0"})], cohort="c"),
            wl("over", {"cpu": "2"}, admitted="q")]
    drs = _share(objs, "q")
    assert drs.borrowing and drs.ratio == 0
    assert (drs.precise(), drs.rounded()) == (0.0, 0)
    assert compare_drs(drs, DRS(weight=1.0)) == 0


def test_borrowing_adds_up_over_flavors_and_counts_a_lendable_of_one() -> None:
    """``dominantResourceShare``: what a node borrows of a resource is summed over its
    flavors; any positive lendable amount counts (here 1 of 4 gpus borrowed twice: 2 of
    lendable 4 -> 500)."""
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"example.com/gpu": "0"}), ("f2", {"example.com/gpu": "0"})],
               cohort="c"),
            cq("lender", [("f1", {"example.com/gpu": "2"}), ("f2", {"example.com/gpu": "2"})],
               cohort="c"),
            wl("a", {"example.com/gpu": "1"}, admitted="q", flavors={"example.com/gpu": "f1"}),
            wl("b", {"example.com/gpu": "1"}, admitted="q", flavors={"example.com/gpu": "f2"})]
    drs = _share(objs, "q")
    assert (drs.ratio, drs.resource) == (500.0, "example.com/gpu")
    one = [flavor("f1"), cq("q", [("f1", {"example.com/gpu": "0"})], cohort="c"),
           cq("lender", [("f1", {"example.com/gpu": "1"})], cohort="c"),
           wl("a", {"example.com/gpu": "1"}, admitted="q", flavors={"example.com/gpu": "f1"})]
    assert _share(one, "q").ratio == 1000.0


def test_dominant_resource_is_the_largest_ratio_then_the_first_name() -> None:
    """``dominantResourceShare`` keeps the largest ratio; only an equal ratio goes to the
    alphabetically first resource. q borrows 3 of lendable 4 memory (750) and 1 of 4 cpu
    (250): memory, whatever order the resources come in; 2 of 4 of each: cpu."""
    def objs(cpu: str, mem: str, first: str) -> list[dict]:
        quota = {first: "0", "memory" if first == "cpu" else "cpu": "0"}
        lend = dict.fromkeys(quota, "4")
        return [flavor("default"), cq("q", [("default", quota)], cohort="c"),
                cq("lender", [("default", lend)], cohort="c"),
                wl("a", {"memory": mem, "cpu": cpu}, admitted="q")]
    for first in ("cpu", "memory"):
        drs = _share(objs("1", "3", first), "q")
        assert (drs.ratio, drs.resource) == (750.0, "memory")
        drs = _share(objs("2", "2", first), "q")
        assert (drs.ratio, drs.resource) == (500.0, "cpu")


def test_usage_exactly_at_quota_is_not_borrowing() -> None:
    """``dominantResourceShare`` counts a flavor-resource as borrowed only when usage is
    above the subtree quota (``amountBorrowed > 0``): at exactly its quota a node neither
    borrows nor ``IsBorrowingOn`` that flavor-resource."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "2"})], cohort="c"),
            cq("lender", [("default", {"cpu": "4"})], cohort="c"),
            wl("a", {"cpu": "2"}, admitted="q")]
    drs = _share(objs, "q")
    assert (drs.borrowing, drs.ratio) == (False, 0.0)
    assert not drs.is_borrowing_on({"default": {"cpu": 1000}})
