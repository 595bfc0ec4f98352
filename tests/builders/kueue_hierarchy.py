"""Builders for hierarchical-cohort Kueue preemption tests: cohorts, queues (withinClusterQueue
LowerPriority), admitted workloads and the incoming one, on flavor ``default``."""

from __future__ import annotations

from typing import Any

from builders.kueue import BASE, cq, wl
from kubepreempt.kueue.flavors import Mode

LP, ANY = "LowerPriority", "Any"
P = Mode.PREEMPT
CPU = {"main": {"cpu": ("default", P)}}


def cohort(name: str, parent: str = "", cpu: str | None = None,
           memory: str | None = None) -> dict[str, Any]:
    """A Kueue Cohort under ``parent``, with nominal cpu/memory quota of flavor default."""
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    quotas = {r: q for r, q in (("cpu", cpu), ("memory", memory)) if q is not None}
    if quotas:
        spec["resourceGroups"] = [{"coveredResources": list(quotas), "flavors": [
            {"name": "default", "resources": [{"name": r, "nominalQuota": q}
                                              for r, q in quotas.items()]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def queue(name: str, parent: str, cpu: str | tuple[str, ...] = "0", reclaim: str = ANY,
          bwc_threshold: int | None = None, memory: str | None = None) -> dict[str, Any]:
    """withinClusterQueue LowerPriority, as every queue of the upstream table."""
    quotas: dict[str, Any] = {"cpu": cpu}
    if memory is not None:
        quotas["memory"] = memory
    return cq(name, [("default", quotas)], cohort=parent, within=LP, reclaim=reclaim,
              borrow_within=LP if bwc_threshold is not None else None,
              threshold=bwc_threshold)


def adm(name: str, prio: int, q: str, cpu: str, usage: str | None = None,
        memory: str | None = None) -> dict[str, Any]:
    """An admitted workload; ``usage`` is the admission's resourceUsage when it differs."""
    requests = {"cpu": cpu} if memory is None else {"cpu": cpu, "memory": memory}
    w = wl(name, requests, prio, admitted=q, reserved_at=BASE)
    if usage is not None:
        w["status"]["admission"]["podSetAssignments"][0]["resourceUsage"] = {"cpu": usage}
    return w


def incoming(prio: int, cpu: str, memory: str | None = None) -> dict[str, Any]:
    """The pending workload ``in`` (uid wl-in, job uid job-in)."""
    requests = {"cpu": cpu} if memory is None else {"cpu": cpu, "memory": memory}
    w = wl("in", requests, prio, uid="wl-in")
    w["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": "job-in"}
    return w

