"""Upstream's preemption table harness with reasons and a chosen trace: ``GetTargets``
on a snapshot of the given objects, for one incoming workload whose requests all need
preemption on their assigned flavors."""

from __future__ import annotations

from typing import Any

from builders.kueue import NOW, inputs
from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.quota import Snapshot, workload_info


def victims(objs: list[dict[str, Any]], incoming: dict[str, Any], target_cq: str,
            version: str, trace: Trace | None = None,
            flavors: dict[str, str] | None = None, scan_cache: dict | None = None,
            now: float = NOW) -> dict[str, str]:
    """{victim name: reason}. ``trace`` defaults to an enabled one; ``flavors`` maps each
    requested resource to its flavor (default: ``default``); ``scan_cache`` is set as
    :attr:`Snapshot.scan_cache`, as the scheduler's nominations share one.
    The snapshot must come back as it was."""
    inp = inputs([*objs, incoming], version)
    key = f"{incoming['metadata']['namespace']}/{incoming['metadata']['name']}"
    others = [w for k, w in inp.workloads.items() if k != key]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts)
    snap.scan_cache = scan_cache
    info = workload_info(inp.workloads[key], target_cq)
    pod_sets = incoming["spec"]["podSets"]
    fa = {}
    for ps in pod_sets:
        reqs = ps["template"]["spec"]["containers"][0]["resources"]["requests"]
        fa[ps["name"]] = {r: FlavorAssignment((flavors or {}).get(r, "default"), Mode.PREEMPT)
                          for r in reqs}
    a = Assignment([PodSetAssignment(name, f, fits=False) for name, f in fa.items()])
    nodes = [*snap.cqs.values(), *snap.cohorts.values()]
    before = [dict(n.usage) for n in nodes]
    got = get_targets(info, a, snap, now, trace if trace is not None else Trace())
    assert [dict(n.usage) for n in nodes] == before, "the snapshot must be restored"
    return {t.info.obj.name: t.reason for t in got}
