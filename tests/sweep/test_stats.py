"""Sweep statistics: flattening, sums, Student-t intervals, ranking."""

from __future__ import annotations

import math

import pytest

from kubepreempt.sweep.stats import (
    Estimate,
    add_sums,
    estimate,
    flatten,
    rank,
    select,
    summarize_variant,
    t_quantile,
)


def test_flatten_keeps_numbers_and_missing_values_only() -> None:
    metrics = {"classes": {"batch": {"priority": 0, "workLost": 12.5, "meanPending": None,
                                     "name": "x", "flag": True}},
               "utilization": {"cpuMean": 0.5}, "preemptions": 3, "series": [1, 2]}
    assert flatten(metrics) == {"classes.batch.priority": 0, "classes.batch.workLost": 12.5,
                                "classes.batch.meanPending": None,
                                "utilization.cpuMean": 0.5, "preemptions": 3}


def test_t_quantiles_match_the_tables() -> None:
    # Two-sided 95% critical values of Student's t (any statistics table).
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(0.975, 3) == pytest.approx(3.182, abs=1e-3)
    assert t_quantile(0.975, 29) == pytest.approx(2.045, abs=1e-3)


def test_estimate_is_mean_plus_minus_t_times_standard_error() -> None:
    est = estimate([1.0, 2.0, 3.0, 4.0])
    # mean 2.5; sample sd sqrt(5/3); half-width t(0.975, 3) * sd / sqrt(4) = 2.0543
    assert est.n == 4 and est.mean == 2.5
    assert est.stdev == pytest.approx(math.sqrt(5 / 3))
    assert est.low == pytest.approx(2.5 - 2.0543, abs=1e-3)
    assert est.high == pytest.approx(2.5 + 2.0543, abs=1e-3)
    assert estimate([7.0, 7.0, 7.0]) == Estimate(3, 7.0, 0.0, 7.0, 7.0)


def test_estimate_of_one_or_no_value_has_no_interval() -> None:
    assert estimate([5.0]) == Estimate(1, 5.0, None, None, None)
    assert estimate([]) == Estimate(0, None, None, None, None)


def test_estimate_does_not_depend_on_value_order() -> None:
    values = [0.1, 1e16, 0.3, -1e16, 0.7, 2.2]
    a, b = estimate(values), estimate(list(reversed(values)))
    assert a == b
    assert a.mean == pytest.approx(3.3 / 6)  # exact sum: the 1e16s cancel, nothing is lost


def test_summarize_variant_skips_missing_values_per_metric() -> None:
    runs = {2: {"a": 1.0, "b": None}, 0: {"a": 3.0, "b": 4.0}, 1: {"a": 5.0}}
    out = summarize_variant(runs)
    assert list(out) == ["a", "b"]  # as the runs (by seed) list them
    assert (out["a"].n, out["a"].mean) == (3, 3.0)
    assert (out["b"].n, out["b"].mean, out["b"].low) == (1, 4.0, None)


def test_sums_add_matching_metrics_of_one_run() -> None:
    run = {"classes.a.workLost": 1.5, "classes.b.workLost": 2.0, "classes.c.workLost": None,
           "classes.a.pods": 7}
    out = add_sums(run, {"lost": ["classes.*.workLost"], "none": ["nothing.*"],
                         "mixed": ["classes.a.*", "classes.b.workLost"]})
    assert out["lost"] == 3.5
    assert out["none"] is None
    assert out["mixed"] == 1.5 + 7 + 2.0
    assert out["classes.a.pods"] == 7  # the run's own metrics stay


def test_select_orders_by_first_matching_pattern() -> None:
    names = ["classes.a.x", "classes.b.x", "classes.a.y", "preemptions"]
    assert select(names, []) == names
    assert select(names, ["preemptions", "classes.*.x"]) == \
        ["preemptions", "classes.a.x", "classes.b.x"]
    assert select(names, ["classes.a.*"]) == ["classes.a.x", "classes.a.y"]


def _est(mean: float | None, half: float | None = None) -> Estimate:
    if mean is None:
        return Estimate(0, None, None, None, None)
    if half is None:
        return Estimate(1, mean, None, None, None)
    return Estimate(5, mean, 1.0, mean - half, mean + half)


def test_rank_lowest_or_highest_first_ties_keep_file_order() -> None:
    ests = [("a", _est(3.0, 0.5)), ("b", _est(1.0, 0.5)), ("c", _est(3.0, 0.5)),
            ("d", None), ("e", _est(None)), ("f", _est(2.2, 0.5))]
    low = rank(ests, "min")
    assert [r.variant for r in low] == ["b", "f", "a", "c", "d", "e"]
    assert [r.rank for r in low] == [1, 2, 3, 4, 5, 6]
    # b's interval is 0.5..1.5: f (1.7..2.7) does not overlap it, a and c do not either.
    assert [r.overlaps_best for r in low] == [True, False, False, False, False, False]
    high = rank(ests, "max")
    assert [r.variant for r in high] == ["a", "c", "f", "b", "d", "e"]
    # a: 2.5..3.5; f: 1.7..2.7 overlaps it; b: 0.5..1.5 does not.
    assert [r.overlaps_best for r in high][:4] == [True, True, True, False]


def test_rank_touching_intervals_overlap() -> None:
    ranked = rank([("a", _est(1.0, 1.0)), ("b", _est(3.0, 1.0))], "min")
    assert ranked[1].overlaps_best  # 0..2 and 2..4 share 2


def test_member_metrics_group_into_families_whatever_the_group() -> None:
    from kubepreempt.sweep.display import families

    names = list(flatten({"classes": {"web": {"workLost": 1.0}, "my.class": {"workLost": 2.0}},
                          "clusterQueues": {"team-a": {"p95Wait": 3.0},
                                            "team-b": {"p95Wait": 4.0}},
                          "utilization": {"cpuMean": 0.5}, "preemptions": 1}))
    assert families(names) == {
        "classes.*.workLost": [("web", "classes.web.workLost"),
                               ("my.class", "classes.my.class.workLost")],
        "clusterQueues.*.p95Wait": [("team-a", "clusterQueues.team-a.p95Wait"),
                                    ("team-b", "clusterQueues.team-b.p95Wait")],
        "utilization.cpuMean": [("", "utilization.cpuMean")],
        "preemptions": [("", "preemptions")]}
