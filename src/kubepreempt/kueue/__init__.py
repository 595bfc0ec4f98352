"""Kueue quota admission and workload preemption, classic and fair sharing: current
Kueue, or v0.7.0 on request (:mod:`kubepreempt.kueue.semantics`).

Library entry points: :func:`load_inputs` (typed objects from loaded manifests) and
:func:`decide` (the decision for one workload). Lower level: :class:`Snapshot`,
:class:`FlavorAssigner`, :func:`get_targets`; :func:`nominate` (one head of a scheduling
cycle) and :mod:`kubepreempt.kueue.scheduler` (the cycle) with
:class:`~kubepreempt.kueue.queue_manager.QueueManager`.
"""

from kubepreempt.kueue.admission import Decision, KueueInputs, decide, load_inputs
from kubepreempt.kueue.flavors import Assignment, FlavorAssigner, Mode
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.preemption import Target, Trace, get_targets
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info

__all__ = ["Assignment", "Decision", "Entry", "FlavorAssigner", "KueueInputs", "Mode",
           "Snapshot", "Target", "Trace", "WorkloadInfo", "decide", "get_targets",
           "load_inputs", "nominate", "workload_info"]
