"""Per-variant statistics over seeds: mean and Student-t confidence interval; ranking.

Every figure is computed from the runs sorted by seed with exactly rounded sums
(``math.fsum``; ``statistics.stdev`` works in exact fractions), so the numbers do not depend
on the order in which runs finished.
"""

from __future__ import annotations

import fnmatch
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CONFIDENCE = 0.95


def flatten(metrics: Mapping[str, Any], prefix: str = "") -> dict[str, float | None]:
    """Numeric leaves of a simulation's ``metrics`` as ``a.b.c`` keys.

    ``{"classes": {"batch": {"workLost": 3.0}}}`` gives ``{"classes.batch.workLost": 3.0}``.
    ``None`` (e.g. no pod of the class was bound) is kept as a missing value; strings,
    booleans and lists are not metrics.
    """
    out: dict[str, float | None] = {}
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        elif value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            out[name] = value
    return out


def select(names: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """``names`` matching a glob of ``patterns`` (all when there are none).

    Ordered by the first pattern each matches, then as given.
    """
    names = list(names)
    if not patterns:
        return names
    keyed = []
    for i, name in enumerate(names):
        first = next((k for k, p in enumerate(patterns) if fnmatch.fnmatchcase(name, p)), None)
        if first is not None:
            keyed.append((first, i, name))
    return [name for _, _, name in sorted(keyed)]


def add_sums(metrics: Mapping[str, float | None], sums: Mapping[str, Sequence[str]]
             ) -> dict[str, float | None]:
    """``metrics`` plus, per ``name: patterns``, the sum of the metrics matching the globs.

    Missing values are left out of a sum; a sum of nothing is missing (None).
    """
    out = dict(metrics)
    for name, patterns in sums.items():
        values = [metrics[m] for m in select(metrics, patterns) if metrics[m] is not None]
        out[name] = math.fsum(values) if values else None  # type: ignore[arg-type]
    return out


@dataclass(frozen=True, slots=True)
class Estimate:
    """Mean of ``n`` values and its two-sided confidence interval (None when n < 2)."""

    n: int
    mean: float | None
    stdev: float | None
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, Any]:
        """``{"n", "mean", "stdev", "ciLow", "ciHigh"}``."""
        return {"n": self.n, "mean": self.mean, "stdev": self.stdev, "ciLow": self.low,
                "ciHigh": self.high}


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t  # imported when needed: scipy.stats takes a while to load

    return float(t.ppf(p, df))


def estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean and t-interval ``mean ± t(1-(1-c)/2, n-1) · s/√n`` of ``values``."""
    n = len(values)
    if n == 0:
        return Estimate(0, None, None, None, None)
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(1, mean, None, None, None)
    sd = statistics.stdev(values)
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(n, mean, sd, mean - half, mean + half)


def summarize_variant(runs: Mapping[int, Mapping[str, float | None]],
                      confidence: float = CONFIDENCE) -> dict[str, Estimate]:
    """Per metric, the estimate over the successful runs of one variant (seed -> metrics).

    Metrics keep the order in which the runs (by seed) list them: the simulator's.
    """
    names: dict[str, None] = {}
    for seed in sorted(runs):
        names.update(dict.fromkeys(runs[seed]))
    out = {}
    for name in names:
        values = [v for seed in sorted(runs) if (v := runs[seed].get(name)) is not None]
        out[name] = estimate(values, confidence)
    return out


@dataclass(frozen=True, slots=True)
class Ranked:
    """A variant's place on the ranking metric."""

    rank: int
    variant: str
    estimate: Estimate
    overlaps_best: bool  # its interval overlaps the best variant's: not clearly worse

    def to_json(self) -> dict[str, Any]:
        """``{"rank", "variant", "n", "mean", ..., "overlapsBest"}``."""
        return {"rank": self.rank, "variant": self.variant, **self.estimate.to_json(),
                "overlapsBest": self.overlaps_best}


def rank(estimates: Sequence[tuple[str, Estimate | None]], order: str) -> list[Ranked]:
    """Variants best first by mean (``min``: lowest first; ``max``: highest first).

    Equal means keep the sweep file's order; variants without a value come last. A
    variant whose interval overlaps the best one's is flagged: the data do not tell them
    apart at this confidence.
    """
    sign = 1.0 if order == "min" else -1.0
    keyed = [(i, name, est) for i, (name, est) in enumerate(estimates)]
    keyed.sort(key=lambda x: (x[2] is None or x[2].mean is None,
                              sign * x[2].mean if x[2] and x[2].mean is not None else 0.0,
                              x[0]))
    out: list[Ranked] = []
    best = keyed[0][2] if keyed else None
    for place, (_, name, est) in enumerate(keyed, 1):
        est = est or Estimate(0, None, None, None, None)
        out.append(Ranked(place, name, est, _overlaps(est, best)))
    return out


def _overlaps(a: Estimate, b: Estimate | None) -> bool:
    if b is None or a.mean is None or b.mean is None:
        return False
    lo_a, hi_a = (a.low, a.high) if a.low is not None else (a.mean, a.mean)
    lo_b, hi_b = (b.low, b.high) if b.low is not None else (b.mean, b.mean)
    return lo_a <= hi_b and lo_b <= hi_a
