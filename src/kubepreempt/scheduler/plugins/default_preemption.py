"""DefaultPreemption's queueing hints (upstream ``plugins/defaultpreemption``); the
preemption itself is :mod:`kubepreempt.scheduler.preemption`."""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.queue.events import POD_DELETE, ClusterEvent, NsLabels, QueueingHint


def is_schedulable_after_pod_deleted(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """Always Skip: the plugins whose failure preemption resolves (a victim leaving) are in
    the pod's UnschedulablePlugins too, and their own hints decide."""
    return False


def events_to_register() -> dict[str, QueueingHint]:
    """DefaultPreemption's ``EventsToRegister`` with async preemption: AssignedPod Delete."""
    return {POD_DELETE: is_schedulable_after_pod_deleted}
