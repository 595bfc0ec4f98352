"""Which preemption algorithm finds the targets (upstream ``preemption.go``'s
``GetTargets``): current Kueue's fair sharing or classic plan, or v0.7's search."""

from __future__ import annotations

from kubepreempt.kueue.flavors import Assignment
from kubepreempt.kueue.preemption.classical import classic_targets
from kubepreempt.kueue.preemption.common import Target, Trace, resources_requiring_preemption
from kubepreempt.kueue.preemption.fairsharing import fair_targets
from kubepreempt.kueue.preemption.v07 import v07_targets
from kubepreempt.kueue.quota import FR, Snapshot, Usage, WorkloadInfo


def targets_for(wl: WorkloadInfo, req: Usage, frs: set[FR], snap: Snapshot, now: float,
                trace: Trace) -> list[Target]:
    """Current ``getTargets`` for requests ``req`` whose flavor-resources ``frs`` need
    preemption: fair sharing or classic, as the configuration says."""
    if snap.config.fair_sharing:
        return fair_targets(wl, req, frs, snap, now, trace)
    return classic_targets(wl, req, frs, snap, now, trace)


def get_targets(wl: WorkloadInfo, assignment: Assignment, snap: Snapshot, now: float,
                trace: Trace | None = None) -> list[Target]:
    """Workloads to evict so that ``wl`` fits with ``assignment`` (``GetTargets``).

    ``snap`` is modified during the search and restored before returning.
    """
    trace = trace or Trace()
    sem = snap.config.semantics
    if sem.classified_preemption or sem.fair_sharing_tree:
        res_per_flv = resources_requiring_preemption(assignment)
        frs = {(f, r) for f, rs in res_per_flv.items() for r in rs}
        return targets_for(wl, assignment.total_requests_for(wl), frs, snap, now, trace)
    return v07_targets(wl, assignment, snap, now, trace)
