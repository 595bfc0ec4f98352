"""SchedulingGates (upstream ``pkg/scheduler/framework/plugins/schedulinggates``).

Its PreEnqueue keeps a pod with ``spec.schedulingGates`` out of activeQ (the scheduling
queue does this when the pod is added); its queueing hint lets the pod in once the
update that removed its last gate arrives.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.queue.events import GATES_REMOVED, ClusterEvent, NsLabels, QueueingHint

NAME = "SchedulingGates"


def is_schedulable_after_update_pod(pod: Pod, ev: ClusterEvent, ns: NsLabels) -> bool:
    """``isSchedulableAfterUpdatePodSchedulingGatesEliminated``: the pod's own update
    removed its last gate."""
    return ev.pod is pod and not pod.scheduling_gates


def events_to_register() -> dict[str, QueueingHint]:
    """SchedulingGates' ``EventsToRegister``: the pod's scheduling gates eliminated."""
    return {GATES_REMOVED: is_schedulable_after_update_pod}
