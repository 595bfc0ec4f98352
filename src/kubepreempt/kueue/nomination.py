"""One workload's nomination in a Kueue scheduling cycle (upstream ``scheduler.go``'s
``nominate`` for one head, and ``getAssignments``).

In upstream's order: a head whose ClusterQueue is inactive, whose namespace the
ClusterQueue's ``namespaceSelector`` excludes, or whose pod sets fail
``validateResources`` (a container requesting more than its limit), is not nominated;
otherwise flavors are assigned (asking the preemption oracle per flavor in current
Kueue) and, when the representative mode is Preempt, preemption targets are found.
``kubepreempt kueue`` (:func:`kubepreempt.kueue.admission.decide`) and the simulator's
cycles (:mod:`kubepreempt.kueue.scheduler`) both call :func:`nominate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubepreempt.kueue.flavors import Assignment, FlavorAssigner, Mode
from kubepreempt.kueue.objects import PodSet, ResourceFlavor
from kubepreempt.kueue.preemption.common import Target, Trace, resources_requiring_preemption
from kubepreempt.kueue.preemption.oracle import preemption_oracle
from kubepreempt.kueue.preemption.targets import get_targets
from kubepreempt.kueue.queue_manager import NAMESPACE_MISMATCH as NAMESPACE_MISMATCH_REASON
from kubepreempt.kueue.quota import FR, PodSetResources, Snapshot, WorkloadInfo

# Requeue reason of a head whose ClusterQueue is inactive (upstream requeues it with the
# generic reason; the name only tells it apart from a head that was nominated).
INACTIVE = "Inactive"
RESOURCE_VALIDATION_FAILED = "resource validation failed"
# workload.ErrNamespaceMismatch, and the QuotaReserved reason upstream gives it.
NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"
MISCONFIGURED = NAMESPACE_MISMATCH_REASON


@dataclass(slots=True)
class Entry:
    """A head of a ClusterQueue in one scheduling cycle (upstream ``entry``)."""

    info: WorkloadInfo
    assignment: Assignment | None = None  # None: not nominated (see ``message``)
    targets: list[Target] = field(default_factory=list)
    reason: str = ""  # requeue reason
    status: str = ""  # "", skipped, assumed
    message: str = ""  # why it was not admitted (upstream ``inadmissibleMsg``)

    @property
    def cluster_queue(self) -> str:
        """The ClusterQueue the workload is queued in."""
        return self.info.cluster_queue

    @property
    def key(self) -> str:
        """The workload's ``namespace/name``."""
        return self.info.key

    @property
    def priority(self) -> int:
        """The workload's priority."""
        return self.info.obj.priority


def nominate(info: WorkloadInfo, pod_sets: tuple[PodSet, ...], snap: Snapshot,
             flavors: dict[str, ResourceFlavor], now: float,
             trace: Trace | None = None) -> Entry:
    """Nominate the pending workload ``info`` in its ClusterQueue of ``snap``.

    ``trace``: the preemption steps, for ``--explain``; None when nobody reads them
    (then a target search the oracle already ran on the same snapshot is not repeated).
    ``snap`` is left as it was found.
    """
    e = Entry(info)
    cq = info.cluster_queue
    if cq in snap.inactive:
        # upstream's message names no cause; --explain says why (the ClusterQueue's
        # Active=False condition upstream)
        e.message = f"ClusterQueue {cq} is inactive"
        if trace is not None:
            trace.note(f"ClusterQueue {cq} is inactive: {snap.inactive[cq]}")
        e.reason = INACTIVE
        return e
    spec = snap.cqs[cq].spec
    if spec.namespace_selector is not None and not spec.admits_namespace(
            snap.namespace_labels(info.obj.namespace)):
        # ValidateAdmissibility: QuotaReserved=False, reason Misconfigured.
        e.message = NAMESPACE_MISMATCH
        e.reason = MISCONFIGURED
        return e
    invalid = [err for ps in pod_sets for err in ps.resource_errors]
    if invalid:  # validateResources, checked before flavors are assigned
        e.message = f"{RESOURCE_VALIDATION_FAILED}: " + "; ".join(invalid)
        return e
    sem = snap.config.semantics
    memo: dict[tuple[FR, int], list[Target]] | None = {} if trace is None else None
    oracle = preemption_oracle(info, snap, now, memo) if sem.flavor_preemption_oracle \
        else None
    e.assignment = FlavorAssigner(info, pod_sets, snap.cqs[cq], flavors,
                                  snap.config.fair_sharing, sem, oracle).assign()
    e.message = e.assignment.message()
    if e.assignment.mode == Mode.PREEMPT:
        found = _oracle_answer(info, e.assignment, snap, memo) if memo else None
        e.targets = found if found is not None else get_targets(
            info, e.assignment, snap, now, trace or Trace(enabled=False))
    return e


def _oracle_answer(info: WorkloadInfo, assignment: Assignment, snap: Snapshot,
                   memo: dict[tuple[FR, int], list[Target]]) -> list[Target] | None:
    """``GetTargets``' answer when the oracle already asked the same question: one
    flavor-resource needing preemption and requested (current ``getTargets`` then calls
    ``targets_for`` with exactly the oracle's request, on the same snapshot)."""
    sem = snap.config.semantics
    if not (sem.classified_preemption or sem.fair_sharing_tree):
        return None
    req = assignment.total_requests_for(info)
    flat = [((f, r), v) for f, rs in req.items() for r, v in rs.items()]
    need = resources_requiring_preemption(assignment)
    frs = {(f, r) for f, rs in need.items() for r in rs}
    if len(flat) != 1 or frs != {flat[0][0]}:
        return None
    return memo.get(flat[0])


def admitted_info(info: WorkloadInfo, assignment: Assignment) -> WorkloadInfo:
    """``info`` with the flavors of ``assignment``: the usage its admission adds."""
    return WorkloadInfo(info.obj, info.cluster_queue, [
        PodSetResources(ps.name, ps.count, dict(ps.requests),
                        {r: fa.name for r, fa in (assignment.pod_sets[i].flavors or {}).items()})
        for i, ps in enumerate(info.total_requests)])
