"""The pods of a PodGroup, as the scheduler's PodGroupState sees them."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import pod_group_name
from kubepreempt.cluster_state import Cluster


@dataclass(slots=True)
class Members:
    """A PodGroup's pods: ``assigned`` (bound) and ``unscheduled`` (pending), the latter in
    the order the pod group cycle takes them."""

    assigned: list[Pod] = field(default_factory=list)
    unscheduled: list[Pod] = field(default_factory=list)

    @property
    def count(self) -> int:
        """``PodGroupState.AllPodsCount``: every pod of the group the scheduler knows."""
        return len(self.assigned) + len(self.unscheduled)


_NEVER = float("-inf")


def cycle_order(pods: list[Pod]) -> list[Pod]:
    """``podGroupInfoForPod``'s sort: higher priority first, then the earlier first
    scheduling attempt (here: the earlier creation, then input order)."""
    # (``sorted`` is stable: pods that compare equal keep their input order)
    return sorted(pods, key=_cycle_key)


def _cycle_key(pod: Pod) -> tuple[int, float]:
    created = pod.creation_timestamp
    return -pod.priority, created if created is not None else _NEVER


def members_of(cluster: Cluster, namespace: str, name: str) -> Members:
    """The pods naming PodGroup ``namespace/name`` in ``spec.schedulingGroup``.

    Bound pods come from the snapshot's per-group index (a scan of every bound pod cost
    more than the group's own scheduling); pending pods, few and changed directly by
    several callers, are scanned."""
    out = Members()
    if not name:  # no pod names an empty group
        return out
    out.assigned = cluster.bound_group_members(namespace, name)
    pending = [p for p in cluster.pending.values()
               if p.namespace == namespace and pod_group_name(p) == name]
    out.unscheduled = cycle_order(pending)
    return out
