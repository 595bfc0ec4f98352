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

A pod naming a PodGroup the input does not hold is reported in one warning line and
decided as a plain pod, unless ``--feature-gates GenericWorkload=true`` says the API is
served: then the GangScheduling PreEnqueue holds it for its PodGroup. With the gate off
(the default without such objects) nothing changes.
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
from kubepreempt.release import GENERIC_WORKLOAD, Modelled

GATE = GENERIC_WORKLOAD


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
    chosen = release.with_workload_api(default_on=holds)
    if chosen is None:
        return WorkloadApi(release, explicit=explicit)
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
        say_taken_on(api.release.version, "decides without them")


def say_taken_on(version: str, when_off: str) -> None:
    """The one line saying GenericWorkload was taken as on because the input holds the
    v1beta1 objects; ``when_off``: what ``--feature-gates GenericWorkload=false`` does."""
    print(f"note: the input holds scheduling.k8s.io/v1beta1 objects, so {GATE} is "
          f"taken as on for Kubernetes {version} (--feature-gates {GATE}=false "
          f"{when_off})", file=sys.stderr)


def warn_missing_groups(api: WorkloadApi, docs: Documents, cluster: Cluster) -> None:
    """One warning line for the pods naming a PodGroup the input does not hold."""
    present = set(api.objects.pod_groups) if api.on else {
        f"{obj.namespace or 'default'}/{obj.name}" for obj in docs.of("PodGroup")
        if is_scheduling_object("PodGroup", obj.body)}
    missing = [(p, f"{p.namespace}/{name}") for p in (*cluster.pods.values(),
                                                      *cluster.pending.values())
               if (name := pod_group_name(p)) is not None
               and f"{p.namespace}/{name}" not in present]
    if not missing:
        return
    shown = ", ".join(f"{p.key} -> {g}" for p, g in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    then = ("each is held until its PodGroup exists" if api.on and api.explicit else
            f"they are decided as plain pods ({GATE}=true holds them for their PodGroup)")
    print(f"warning: {len(missing)} pod(s) name a PodGroup that is not in the input "
          f"({shown}{more}); {then}", file=sys.stderr)


def group_to_decide(api: WorkloadApi, pod: Pod) -> str | None:
    """The PodGroup (``namespace/name``) whose cycle decides ``pod``: with gang
    scheduling on, the pod's group when it exists, or when the gate was set explicitly
    (then a missing group holds the pod); None: decide the pod alone."""
    name = pod_group_name(pod)
    if name is None or not api.on or not api.release.gang_scheduling:
        return None
    key = f"{pod.namespace}/{name}"
    return key if key in api.objects.pod_groups or api.explicit else None
