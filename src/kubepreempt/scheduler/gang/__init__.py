"""Scheduling a PodGroup as one unit (Kubernetes 1.37, KEP-4671 gang scheduling).

- ``members``: which pods belong to a PodGroup, in the order the group cycle takes them;
- ``assume``: placing pods (and removing victims) on the snapshot, and undoing it;
- ``cycle``: the pod group scheduling cycle (``schedule_one_podgroup.go``) and the gang
  plugin's PreEnqueue and Permit rules, with upstream's messages.
"""

from kubepreempt.scheduler.gang.cycle import (
    GROUP_UNSCHEDULABLE,
    GROUP_WAITING_FOR_PREEMPTION,
    MIN_COUNT_NOT_QUEUED,
    MIN_COUNT_NOT_SCHEDULED,
    WAITING,
    GroupDecision,
    MemberResult,
    schedule_pod_group,
)

__all__ = [
    "GROUP_UNSCHEDULABLE", "GROUP_WAITING_FOR_PREEMPTION", "MIN_COUNT_NOT_QUEUED",
    "MIN_COUNT_NOT_SCHEDULED", "WAITING", "GroupDecision", "MemberResult",
    "schedule_pod_group",
]
