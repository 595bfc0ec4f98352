"""What a run records (events, per-pod outcomes, time series) and the summary it yields."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.objects import Pod

# Event types (the JSON ``type`` field).
ARRIVED = "arrived"
BOUND = "bound"
NOMINATED = "nominated"
NOMINATION_CLEARED = "nomination-cleared"
PREEMPTED = "preempted"
TERMINATED = "terminated"
COMPLETED = "completed"
EVICTED = "evicted"
UNSCHEDULABLE = "unschedulable"
UNGATED = "ungated"  # the scenario removed the pod's scheduling gates
REJECTED = "rejected"
SCALE_UP = "scale-up"  # the Cluster Autoscaler ordered nodes
SCALE_DOWN = "scale-down"  # the Cluster Autoscaler removes a node (cordon, evict, delete)
QUOTA_REFUSED = "quota-refused"  # the apiserver's ResourceQuota admission refused a pod
NODE_ADDED = "node-added"
NODE_REMOVED = "node-removed"
GROUP_CREATED = "podgroup-created"  # a scheduling.k8s.io PodGroup object was created

# Why a pod was disrupted (``PodRecord.disruption``): each is counted under its own name
# in ``metrics`` (per class and in total). Upstream's DisruptionTarget reasons:
# PreemptionByScheduler; TerminationByKubelet (kubelet admission, node pressure);
# EvictionByEvictionAPI (the Cluster Autoscaler's drain); DeletionByPodGC (node removed).
BY_SCHEDULER = "preempted"
BY_KUBELET_ADMISSION = "evictedKubeletAdmission"
BY_NODE_PRESSURE = "evictedNodePressure"
BY_SCALE_DOWN = "evictedScaleDown"
BY_NODE_REMOVAL = "evictedNodeRemoved"
DISRUPTIONS = (BY_SCHEDULER, BY_KUBELET_ADMISSION, BY_NODE_PRESSURE, BY_SCALE_DOWN,
               BY_NODE_REMOVAL)


@dataclass(slots=True)
class PodRecord:
    """One pod's life in the simulation."""

    pod: Pod
    arrival: float
    phase: str = "Pending"  # Pending, Running, Terminating, Succeeded, Failed
    node: str = ""
    bound_at: float | None = None
    preempted_at: float | None = None
    ended_at: float | None = None
    epoch: int = 0  # invalidates stale completion/termination events
    nominated_node: str = ""
    outcome: str = ""  # once gone: completed, terminated, evicted, removed or rejected
    disruption: str = ""  # the DISRUPTIONS entry of its first preemption or eviction
    # The plugins that rejected it in its last failed attempt (UnschedulablePlugins).
    unschedulable_plugins: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """The per-pod JSON object."""
        return {"phase": self.phase, "node": self.node or None, "boundAt": self.bound_at,
                "preemptedAt": self.preempted_at, "endedAt": self.ended_at,
                "nominatedNode": self.nominated_node or None, "arrival": self.arrival,
                "priority": self.pod.priority, "disruption": self.disruption or None,
                "unschedulablePlugins": sorted(self.unschedulable_plugins),
                "state": state(self)}


# Where each arrived pod is at the end of a run; together they account for every pod.
STATES = ("pending", "running", "terminating", "completed", "preempted", "evicted",
          "removed", "rejected", "terminated")


def state(rec: PodRecord) -> str:
    """The pod's :data:`STATES` entry: ``preempted`` is preempted by the scheduler and
    gone, ``evicted`` evicted (kubelet admission, node pressure, scale-down) and gone,
    ``removed`` deleted with its node, ``terminated`` deleted otherwise (e.g. already
    terminating in the input)."""
    if rec.phase in ("Pending", "Running", "Terminating"):
        return rec.phase.lower()
    if rec.phase == "Succeeded":
        return "completed"
    if rec.outcome in ("removed", "rejected"):
        return rec.outcome
    if rec.preempted_at is None:
        return "terminated"
    return "preempted" if rec.disruption == BY_SCHEDULER else "evicted"


def accounting(records: dict[str, PodRecord]) -> dict[str, int]:
    """``arrived`` and the count of each end state; the states sum to ``arrived``."""
    counts = dict.fromkeys(STATES, 0)
    for rec in records.values():
        counts[state(rec)] += 1
    return {"arrived": len(records), **counts}


@dataclass(slots=True)
class Event:
    """One timeline entry."""

    time: float
    type: str
    pod: str
    node: str | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"time", "type", "pod", "node", "detail"}``."""
        return {"time": self.time, "type": self.type, "pod": self.pod, "node": self.node,
                "detail": self.detail}


@dataclass(slots=True)
class Series:
    """Step functions of time, appended as the run goes (used by the report)."""

    util: list[tuple[float, float, float]] = field(default_factory=list)  # t, cpu, memory
    pending: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # by priority
    preemptions: list[tuple[float, int]] = field(default_factory=list)  # t, victim priority


def class_name(pod: Pod) -> str:
    """The PriorityClass a summary row belongs to."""
    return pod.priority_class_name or f"(priority {pod.priority})"


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize(records: dict[str, PodRecord], series: Series, end: float) -> dict[str, Any]:
    """Per-PriorityClass summary and cluster utilisation.

    Pending time is arrival to first bind, over pods that were bound; each disrupted pod
    counts once, under its :data:`DISRUPTIONS` cause (``preempted``: by the scheduler
    only); work lost is the run time of disrupted pods (all causes) before they were
    signalled (bare pods do not resume, so that work is gone).
    """
    classes: dict[str, dict[str, Any]] = {}
    waits: dict[str, list[float]] = {}
    totals = dict.fromkeys(DISRUPTIONS, 0)
    for rec in records.values():
        name = class_name(rec.pod)
        row = classes.get(name)
        if row is None:
            row = classes[name] = {"priority": rec.pod.priority, "pods": 0, "scheduled": 0,
                                   **dict.fromkeys(DISRUPTIONS, 0), "pending": 0,
                                   "workLost": 0.0}
        row["pods"] += 1
        if rec.bound_at is not None:
            row["scheduled"] += 1
            waits.setdefault(name, []).append(rec.bound_at - rec.arrival)
        if rec.preempted_at is not None:
            row[rec.disruption] += 1
            totals[rec.disruption] += 1
            if rec.bound_at is not None:
                row["workLost"] += rec.preempted_at - rec.bound_at
        if rec.phase == "Pending":
            row["pending"] += 1
    for name, row in classes.items():
        w = waits.get(name, [])
        row["meanPending"] = sum(w) / len(w) if w else None
        row["p95Pending"] = percentile(w, 95)
    cpu_mean, mem_mean = _time_mean(series.util, end)
    return {"classes": dict(sorted(classes.items(), key=lambda kv: -kv[1]["priority"])),
            "end": end,
            "utilization": {"cpuMean": cpu_mean, "memoryMean": mem_mean,
                            "cpuPeak": max((u[1] for u in series.util), default=0.0)},
            "preemptions": totals[BY_SCHEDULER],
            **{k: v for k, v in totals.items() if k != BY_SCHEDULER},
            "accounting": accounting(records)}


def _time_mean(util: list[tuple[float, float, float]], end: float) -> tuple[float, float]:
    if not util or end <= util[0][0]:
        return (util[-1][1], util[-1][2]) if util else (0.0, 0.0)
    cpu = mem = 0.0
    for (t0, c, m), (t1, _, _) in zip(util, [*util[1:], (end, 0.0, 0.0)], strict=True):
        span = max(0.0, min(t1, end) - t0)
        cpu += c * span
        mem += m * span
    total = end - util[0][0]
    return cpu / total, mem / total
