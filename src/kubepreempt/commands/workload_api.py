"""The workload API as ``kubepreempt schedule --pod`` reads it (Kubernetes 1.37).

In 1.37 one gate, GenericWorkload (Beta, off by default), serves
``scheduling.k8s.io/v1beta1`` PodGroups and Workloads and turns on gang scheduling and
workload-aware preemption. For ``--pod`` it is taken as on when the input holds v1beta1
PodGroups or Workloads (the server evidently serves them; said in one stderr line),
unless ``--feature-gates`` sets it. With it on:

- DefaultPreemption weighs a victim by its PodGroup's priority and evicts a
  ``disruptionMode: all`` group whole (:mod:`kubepreempt.scheduler.preemption.
  victim_units`, the release's ``default_preemption_victim_groups`` switch);
- ``--pod`` of a pod of an existing PodGroup decides the group, as the scheduler pops
  the whole group (:func:`group_to_decide`).

With the gate off (the default without such objects) nothing changes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import (
    KINDS,
    GroupObjects,
    is_scheduling_object,
    load_group_objects,
    pod_group_name,
)
from kubepreempt.cluster_state import Cluster
from kubepreempt.manifests import Documents
from kubepreempt.release import Modelled

GATE = "GenericWorkload"


@dataclass(slots=True)
class WorkloadApi:
    """What ``--pod`` decides with: the release (GenericWorkload as decided), whether
    the gate was set explicitly, and the input's PodGroups / Workloads when it is on."""

    release: Modelled
    on: bool = False
    explicit: bool = False
    taken_on: bool = False  # on because the input holds v1beta1 objects
    objects: GroupObjects = field(default_factory=GroupObjects)

    @property
    def extra_kinds(self) -> tuple[str, ...]:
        """Kinds the cluster loader must not warn about as skipped."""
        return KINDS if self.on else ()


def workload_api(docs: Documents, release: Modelled) -> WorkloadApi:
    """Whether GenericWorkload is on for ``--pod`` under ``release`` (module doc).
    Releases whose workload API is not modelled (1.36's v1alpha2) are left as they are."""
    if not release.release.default_preemption_victim_groups:
        return WorkloadApi(release)
    explicit = GATE in release.overrides
    holds = any(is_scheduling_object(kind, obj.body) for kind in KINDS
                for obj in docs.of(kind))
    on = release.overrides[GATE] if explicit else holds
    if not on:
        return WorkloadApi(release, explicit=explicit)
    chosen = Modelled(release.release, {**release.overrides, GATE: True})
    return WorkloadApi(chosen, True, explicit, taken_on=not explicit)


def load_objects(api: WorkloadApi, docs: Documents, cluster: Cluster) -> None:
    """Read and validate the input's PodGroups and Workloads (when the gate is on), and
    say in one line when the gate was taken as on."""
    if not api.on:
        return
    gates = {GATE: True,
             "PodGroupPreemptionPolicy": api.release.enabled("PodGroupPreemptionPolicy")}
    api.objects = load_group_objects(docs.of, cluster.priority, gates)
    if api.taken_on:
        print(f"note: the input holds scheduling.k8s.io/v1beta1 objects, so {GATE} is "
              f"taken as on for Kubernetes {api.release.version} (--feature-gates "
              f"{GATE}=false decides without them)", file=sys.stderr)


def group_to_decide(api: WorkloadApi, pod: Pod) -> str | None:
    """The PodGroup (``namespace/name``) whose cycle decides ``pod``: with gang
    scheduling on, the pod's group when the input holds it; None: decide the pod alone."""
    name = pod_group_name(pod)
    if name is None or not api.on or not api.release.gang_scheduling:
        return None
    key = f"{pod.namespace}/{name}"
    return key if key in api.objects.pod_groups else None
