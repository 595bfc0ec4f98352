"""Kueue figures of a simulation: per ClusterQueue, per cohort, and preemption cycles.

``kueue_metrics`` reads the Kueue actor's records after a run. Waits are per admission
(from entering the queue, or from being requeued after an eviction, to quota
reservation); "time to all pods running" is from admission to the last of its pods
binding.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from kubepreempt.sim.metrics import percentile

# A workload preempted, readmitted and preempting its preemptor back within this window
# is reported as a preemption cycle (the fair-sharing flapping users report upstream).
CYCLE_WINDOW = 600.0


class KueueRecords(Protocol):
    """What the Kueue actor records during a run (read here, after it)."""

    workloads: Mapping[str, Any]  # key -> the workload's life (admissions, preemptions)
    series: dict[str, list[tuple[float, float, float]]]
    usage_series: dict[str, dict[str, list[tuple[float, int]]]]
    cohort_series: dict[str, list[tuple[float, float]]]
    cycles: int
    events: list[dict[str, Any]]

    @property
    def cluster_queue_names(self) -> list[str]:
        """Every ClusterQueue of the input."""
        ...


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _time_weighted_mean(points: list[tuple[float, float]], end: float) -> float:
    """Mean of a step function sampled at change points, over [first point, end]."""
    if not points or end <= points[0][0]:
        return points[-1][1] if points else 0.0
    total = 0.0
    for (t, v), (t2, _) in zip(points, [*points[1:], (end, 0.0)], strict=True):
        total += v * (max(t2, t) - t)
    return total / (end - points[0][0])


def preemption_cycles(events: list[dict[str, Any]], window: float) -> list[dict[str, Any]]:
    """Preemption loops within ``window`` seconds, as users report them upstream:

    * ``mutual``: ``a`` preempted by ``b``, then ``b`` preempted by ``a`` (readmitted);
    * ``repeated``: ``a`` preempted by ``b``, readmitted (it took the space first), and
      preempted by ``b`` again.

    One row per pair and kind, with every preemption time of the loop."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    listed: dict[tuple[str, str, str], set[float]] = {}  # the times already in a row
    # (victim, preemptor) -> its preemption times, oldest first, trimmed to the window
    # (events come in time order, so older ones can never be within it again).
    seen: dict[tuple[str, str], deque[float]] = {}

    def add(kind: str, key: tuple[str, str], times: Iterable[float], **extra: str) -> None:
        row = out.setdefault((kind, *key), {"kind": kind, "workloads": list(key),
                                            "times": [], **extra})
        have = listed.setdefault((kind, *key), set())
        for t0 in times:
            if t0 not in have:
                have.add(t0)
                row["times"].append(t0)

    def recent(key: tuple[str, str], t: float) -> deque[float]:
        times = seen.get(key)
        if times is None:
            return deque()
        while times and t - times[0] > window:
            times.popleft()
        return times

    for e in events:
        if e["type"] != "preempted":
            continue
        victim, by, t = e["workload"], e["by"], e["time"]
        back = recent((by, victim), t)
        if back:
            add("mutual", (min(victim, by), max(victim, by)), [*back, t])
        again = recent((victim, by), t)
        if again:
            add("repeated", (victim, by), [*again, t], preemptor=by)
        seen.setdefault((victim, by), deque()).append(t)
    for row in out.values():
        row["times"].sort()
        row["count"] = len(row["times"])
    return sorted(out.values(), key=lambda r: (r["times"][0], r["kind"], r["workloads"]))


def kueue_metrics(actor: KueueRecords, end: float) -> dict[str, Any]:
    """The ``metrics.kueue`` object of ``simulate -o json``."""
    queues: dict[str, dict[str, Any]] = {}
    by_queue: dict[str, list[Any]] = {}
    for sw in actor.workloads.values():
        by_queue.setdefault(sw.cluster_queue, []).append(sw)
    for name in sorted(actor.cluster_queue_names):
        sws = by_queue.get(name, [])
        waits = [a["wait"] for sw in sws for a in sw.admissions]
        running = [a["allRunning"] - a["time"] for sw in sws for a in sw.admissions
                   if a["allRunning"] is not None]
        reasons: dict[str, int] = {}
        for sw in sws:
            for p in sw.preemptions:
                reasons[p["reason"]] = reasons.get(p["reason"], 0) + 1
        series = actor.series.get(name, [])
        queues[name] = {
            "workloads": len(sws),
            "admitted": len(waits),
            "finished": sum(sw.state == "finished" for sw in sws),
            "pending": sum(sw.state == "pending" for sw in sws),
            "preempted": sum(reasons.values()),
            "preemptedByReason": dict(sorted(reasons.items())),
            "meanAdmissionWait": _mean(waits),
            "p95AdmissionWait": percentile(waits, 95),
            "meanTimeToAllPodsRunning": _mean(running),
            "usage": {fr: [[t, u] for t, u in pts]
                      for fr, pts in sorted(actor.usage_series.get(name, {}).items())},
            "borrowed": [[t, b] for t, b, _ in series],
            "weightedShare": [[t, s] for t, _, s in series],
        }
    cohorts = {name: {"utilization": [[t, u] for t, u in pts],
                      "meanUtilization": _time_weighted_mean(pts, end)}
               for name, pts in sorted(actor.cohort_series.items())}
    return {"clusterQueues": queues, "cohorts": cohorts, "cycles": actor.cycles,
            "preemptionCycles": preemption_cycles(actor.events, CYCLE_WINDOW),
            "events": actor.events}


def render_kueue(k: dict[str, Any], console: Any) -> None:
    """Per-ClusterQueue table and the preemption loops, for ``simulate``'s table output."""
    from kubepreempt.text_table import TextTable  # drawn like every other table

    def secs(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    table = TextTable("ClusterQueue", "workloads", "admissions", "finished", "pending",
                      "preempted", "mean wait (s)", "p95 wait (s)", "all pods running (s)",
                      title="Kueue per ClusterQueue (waits: queued to admitted)")
    for name, q in k["clusterQueues"].items():
        table.add_row(name, str(q["workloads"]), str(q["admitted"]), str(q["finished"]),
                      str(q["pending"]), str(q["preempted"]), secs(q["meanAdmissionWait"]),
                      secs(q["p95AdmissionWait"]), secs(q["meanTimeToAllPodsRunning"]))
    console.print(table)
    for loop in k["preemptionCycles"]:
        a, b = loop["workloads"]
        what = f"{a} and {b} preempted each other" if loop["kind"] == "mutual" else \
            f"{a} was preempted by {b}, readmitted and preempted again"
        console.print(f"[red]preemption loop[/]: {what} {loop['count']} times "
                      f"({loop['times'][0]:g} s to {loop['times'][-1]:g} s)")
