"""How sweep figures are written for people (tables and the HTML report)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubepreempt.sweep.stats import Estimate


def fmt(value: float | None) -> str:
    """A figure with as many digits as people read: ``10,233``, ``43.22``, ``0.0745``."""
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def cell(est: Estimate | None) -> str:
    """``mean ± half-width`` (just the mean when there is no interval; ``-`` for no value)."""
    if est is None or est.mean is None:
        return "-"
    if est.high is None or est.low is None:
        return fmt(est.mean)
    return f"{fmt(est.mean)} ± {fmt((est.high - est.low) / 2)}"


def interval(est: Estimate) -> str:
    """``low .. high`` or ``-``."""
    return "-" if est.low is None else f"{fmt(est.low)} .. {fmt(est.high)}"


def families(names: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """Group ``group.member.measure`` metrics: ``"group.*.measure"`` -> [(member, name)].

    ``classes.batch.workLost`` and ``classes.web.workLost`` share ``classes.*.workLost``
    (likewise per-ClusterQueue metrics); a metric with fewer parts is its own family with
    the member ``""``.
    """
    out: dict[str, list[tuple[str, str]]] = {}
    for name in names:
        parts = name.split(".")
        if len(parts) >= 3:
            family, member = f"{parts[0]}.*.{parts[-1]}", ".".join(parts[1:-1])
        else:
            family, member = name, ""
        out.setdefault(family, []).append((member, name))
    return out


#: Units of the simulator's metrics, by measure (the last part of a metric's name);
#: counts and fractions have none.
UNITS = {
    "workLost": "pod-seconds",  # run time of preempted or evicted pods, lost
    "meanPending": "seconds", "p95Pending": "seconds", "end": "seconds",
    "meanAdmissionWait": "seconds", "p95AdmissionWait": "seconds",
    "meanTimeToAllPodsRunning": "seconds",
    "nodeSeconds": "node-seconds",
}


def unit(name: str, sums: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """The unit of metric ``name``: its measure's; for a sum (``sums``), the unit its
    metrics share (None when they have none or differ)."""
    if sums and name in sums:
        members = {UNITS.get(p.rsplit(".", 1)[-1]) for p in sums[name]}
        return members.pop() if len(members) == 1 else None
    return UNITS.get(name.rsplit(".", 1)[-1])


def labelled(name: str, sums: Mapping[str, Sequence[str]] | None = None) -> str:
    """``name (unit)``, or just ``name`` for a metric without a unit."""
    u = unit(name, sums)
    return f"{name} ({u})" if u else name
