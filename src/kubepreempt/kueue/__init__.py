"""Kueue (v0.7.0) quota admission and workload preemption, classic and fair sharing.

Library entry points: :func:`load_inputs` (typed objects from loaded manifests) and
:func:`decide` (the decision for one workload). Lower level: :class:`Snapshot`,
:class:`FlavorAssigner`, :func:`get_targets`.
"""

from kubepreempt.kueue.admission import Decision, KueueInputs, decide, load_inputs
from kubepreempt.kueue.flavors import Assignment, FlavorAssigner, Mode
from kubepreempt.kueue.preemption import Target, Trace, get_targets
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info

__all__ = ["Assignment", "Decision", "FlavorAssigner", "KueueInputs", "Mode", "Snapshot",
           "Target", "Trace", "WorkloadInfo", "decide", "get_targets", "load_inputs",
           "workload_info"]
