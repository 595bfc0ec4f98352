"""The ``Cluster`` class: the scheduler's snapshot plus what the apiserver side holds.

:class:`Cluster` is a :class:`~kubepreempt.snapshot.Snapshot` with the state that is not
the scheduler's to read: priority-class resolution, RuntimeClass and ResourceQuota
admission for pods created after loading, the KubeSchedulerConfiguration the input
carried, and hints for names that are not pods. :mod:`kubepreempt.loader` builds one from
manifests; :mod:`kubepreempt.cluster` offers both under one name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubepreempt.admission.quota import CONFIG_KINDS as QUOTA_CONFIG_KINDS
from kubepreempt.admission.quota import KIND as QUOTA_KIND
from kubepreempt.admission.quota import QuotaAdmission
from kubepreempt.api.errors import Source
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.api.runtimeclass import RuntimeClassAdmission
from kubepreempt.api.spread_sources import SOURCE_KINDS
from kubepreempt.snapshot import Snapshot

if TYPE_CHECKING:  # the type only: importing the scheduler's plugins costs ~30 ms
    from kubepreempt.scheduler.config import SchedulerConfig

SCHEDULER_CONFIG_KIND = "KubeSchedulerConfiguration"  # scheduler.config.KIND
#: The kinds a Cluster is loaded from (:func:`kubepreempt.loader.build_cluster`).
SCHEDULER_KINDS = ("Node", "Pod", "PriorityClass", "PodDisruptionBudget", "Namespace",
                   "RuntimeClass", QUOTA_KIND, *QUOTA_CONFIG_KINDS, *SOURCE_KINDS,
                   SCHEDULER_CONFIG_KIND)
#: Kinds whose controllers create pods (for hints when one is named where a pod is expected).
POD_CREATORS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "Job", "CronJob",
                          "DaemonSet", "ReplicationController"})


@dataclass(slots=True, eq=False)
class Cluster(Snapshot):
    """A cluster: the snapshot the scheduler reads, and the admission state, scheduler
    configuration and input hints around it. Build it with
    :func:`kubepreempt.loader.build_cluster` or :meth:`Cluster.empty`."""

    priority: PriorityResolver = field(default_factory=PriorityResolver)
    # Applies RuntimeClass overhead and scheduling to pods the apiserver has not admitted.
    runtime_classes: RuntimeClassAdmission = field(default_factory=RuntimeClassAdmission)
    # ResourceQuota admission for pods created after loading (schedule -f, the simulator).
    quota: QuotaAdmission = field(default_factory=QuotaAdmission)
    # A KubeSchedulerConfiguration among the inputs (or set by --scheduler-config): the
    # profiles a Scheduler over this cluster uses. None = upstream's default profile.
    scheduler_config: SchedulerConfig | None = None
    # ns/name -> (kind, where it was read) of the input's other namespaced objects, so a
    # --pod that names one of them gets a precise hint.
    other_objects: dict[str, tuple[str, Source]] = field(default_factory=dict)

    @staticmethod
    def empty() -> Cluster:
        """An empty cluster."""
        return Cluster()
