"""``GetTargets`` / ``getTargets`` (upstream pkg/scheduler/preemption/preemption.go) as
:mod:`kubepreempt.kueue.preemption.targets` dispatches them: the request and the current
time reach the fair-sharing plan, and a caller without a trace still gets its targets."""

from __future__ import annotations

from typing import Any

from builders.kueue import BASE, CURRENT, NOW, config, cpu, cq, flavor, inputs, preempt, wl

from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.preemption import get_targets
from kubepreempt.kueue.quota import Snapshot, workload_info


def _objs() -> list[dict[str, Any]]:
    bare = wl("bare", {"cpu": "1"}, 0, admitted="q", uid="z")
    del bare["status"]["conditions"]  # no QuotaReserved condition: reserved "now"
    return [flavor("default"), cq("q", [("default", {"cpu": "2"})], within="LowerPriority"),
            wl("old", {"cpu": "1"}, 0, admitted="q", uid="a", reserved_at=BASE + 10), bare]


def test_fair_sharing_orders_candidates_with_the_current_time() -> None:
    """Fair sharing sorts candidates with CandidatesOrdering at the current time: the
    workload without a QuotaReserved condition counts as reserved now, the most recent,
    so it is preempted first (the UIDs would pick 'old')."""
    objs = [config(fair=True), *_objs()]
    assert preempt(objs, wl("in", {"cpu": "1"}, 5, queue="q"), "q", cpu(),
                   CURRENT) == {"bare"}


def test_get_targets_without_a_trace() -> None:
    """GetTargets needs no trace from its caller: the same single victim as with one."""
    inp = inputs([*_objs(), wl("in", {"cpu": "1"}, 5, queue="q")], CURRENT)
    others = [w for k, w in inp.workloads.items() if k != "default/in"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts)
    info = workload_info(inp.workloads["default/in"], "q")
    a = Assignment([PodSetAssignment("main", {"cpu": FlavorAssignment("default",
                                                                      Mode.PREEMPT)},
                                     fits=False)])
    assert [t.info.obj.name for t in get_targets(info, a, snap, NOW)] == ["bare"]
