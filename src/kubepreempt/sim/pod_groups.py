"""PodGroups over time (Kubernetes 1.37, ``scheduling.k8s.io/v1beta1``, GenericWorkload).

Which release rules a run plays (:func:`gang_release`), the scenario's PodGroups with
their arrival times (:func:`load_pod_groups`), and :class:`GroupBook`: each group's
members as they are created, bound and preempted, the GangScheduling PreEnqueue check
(``preEnqueueHierarchiesDisabled``: the PodGroup exists and, for a gang, at least
``minCount`` of its pods exist) and the ``podGroups`` metrics.

A group's waiting time runs from the moment it could first be scheduled (the later of
the PodGroup's creation and the creation of its ``minCount``-th pod) to the moment
``minCount`` of its pods are bound at once (a ``basic`` group: its first pod).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import PodGroup, load_group_objects, pod_group_name
from kubepreempt.release import GENERIC_WORKLOAD, WORKLOAD_API_V1BETA1, Modelled
from kubepreempt.sim.metrics import percentile
from kubepreempt.sim.scenario import Scenario, arrival_of

GATE = GENERIC_WORKLOAD


def gang_release(release: Modelled, holds_objects: bool) -> Modelled | None:
    """The release with GenericWorkload on when the run plays PodGroups, else None.

    Only a release serving the v1beta1 workload API (1.37) plays them: GenericWorkload is
    as ``--feature-gates`` sets it, else taken as on when the scenario holds
    ``scheduling.k8s.io`` objects (the API is evidently served). 1.36's alpha API is not
    modelled: its runs schedule every pod on its own, as before.
    """
    chosen = release.with_workload_api(holds_objects)
    return chosen if chosen is not None and chosen.gang_scheduling else None


@dataclass(slots=True)
class GroupRecord:
    """One PodGroup's life in the simulation."""

    group: PodGroup
    arrival: float
    members: set[str] = field(default_factory=set)  # pods that exist (pending or bound)
    bound: set[str] = field(default_factory=set)  # members bound and not yet gone
    created: list[float] = field(default_factory=list)  # members' creation times
    ready_at: float | None = None  # PreEnqueue first let its pods in
    admitted_at: float | None = None  # minCount members first bound together
    cycles: int = 0  # pod group scheduling cycles run for it
    preempted_pods: int = 0  # members preempted by the scheduler (as victims)
    arrived: bool = False

    @property
    def min_count(self) -> int:
        """minCount for a gang; 1 for a basic group (any one pod is enough)."""
        return self.group.min_count if self.group.gang else 1

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``metrics.podGroups.byGroup``."""
        g = self.group
        wait = None if self.admitted_at is None or self.ready_at is None \
            else self.admitted_at - self.ready_at
        return {"policy": g.policy, "minCount": self.min_count, "priority": g.priority,
                "disruptionMode": g.disruption_mode, "arrival": self.arrival,
                "podsCreated": len(self.created), "readyAt": self.ready_at,
                "admittedAt": self.admitted_at, "wait": wait, "cycles": self.cycles,
                "preemptedPods": self.preempted_pods}


class GroupBook:
    """The run's PodGroups by ``namespace/name`` and their members.

    ``pod_groups`` holds the groups that exist now; the scheduler's preemption reads it
    (victims' group priority and disruption mode), so it is shared, not copied.
    """

    def __init__(self, plans: list[tuple[PodGroup, float]], hold_missing: bool = False
                 ) -> None:
        self.records: dict[str, GroupRecord] = {g.key: GroupRecord(g, t) for g, t in plans}
        self.pod_groups: dict[str, PodGroup] = {}
        self._pending_members: dict[str, set[str]] = {}  # group key -> its unbound pods
        # A pod naming a PodGroup the scenario does not hold: held by PreEnqueue when the
        # gate was set explicitly, else scheduled as a plain pod (as ``schedule --pod``).
        self.hold_missing = hold_missing

    def key_of(self, pod: Pod) -> str | None:
        """The ``namespace/name`` of the PodGroup whose cycle decides ``pod`` (None: the
        pod names none, or one the scenario does not hold and is scheduled alone)."""
        name = pod_group_name(pod)
        if name is None:
            return None
        key = f"{pod.namespace}/{name}"
        return key if self.hold_missing or key in self.records else None

    # ---- what happens ----
    def group_arrived(self, key: str, now: float) -> None:
        """The PodGroup object was created."""
        rec = self.records[key]
        rec.arrived = True
        self.pod_groups[key] = rec.group
        self._check_ready(rec, now)

    def member_created(self, key: str, pod: Pod, now: float) -> None:
        """A pod naming group ``key`` was created (the group may not exist yet)."""
        rec = self.records.get(key)
        if rec is None:  # no such PodGroup in the scenario: PreEnqueue holds it for ever
            rec = self.records[key] = GroupRecord(PodGroup(pod.namespace, key.split("/")[1],
                                                           "basic"), float("inf"))
        rec.members.add(pod.key)
        rec.created.append(now)
        self._pending_members.setdefault(key, set()).add(pod.key)
        self._check_ready(rec, now)

    def member_bound(self, key: str, pod: Pod, now: float) -> None:
        """A member was bound; the group is admitted once ``minCount`` are bound."""
        rec = self.records[key]
        rec.bound.add(pod.key)
        self._pending_members.get(key, set()).discard(pod.key)
        if rec.admitted_at is None and len(rec.bound) >= rec.min_count:
            rec.admitted_at = now

    def member_gone(self, key: str, pod: Pod) -> None:
        """A member left (deleted while pending, or its bound pod ended)."""
        rec = self.records[key]
        rec.members.discard(pod.key)
        rec.bound.discard(pod.key)
        self._pending_members.get(key, set()).discard(pod.key)

    def member_preempted(self, key: str) -> None:
        """The scheduler preempted one of the group's bound pods."""
        self.records[key].preempted_pods += 1

    def cycle_ran(self, key: str) -> None:
        """One pod group scheduling cycle ran for ``key``."""
        self.records[key].cycles += 1

    def _check_ready(self, rec: GroupRecord, now: float) -> None:
        if rec.ready_at is None and rec.arrived and len(rec.members) >= rec.min_count:
            rec.ready_at = now

    # ---- the scheduler's questions ----
    def group(self, key: str) -> PodGroup | None:
        """The PodGroup object, once it exists."""
        return self.pod_groups.get(key)

    def pre_enqueue(self, key: str) -> bool:
        """GangScheduling PreEnqueue: the PodGroup exists and, for a gang, at least
        ``minCount`` of its pods exist (``PodGroupState.AllPodsCount``)."""
        rec = self.records.get(key)
        if rec is None or not rec.arrived:
            return False
        return not rec.group.gang or len(rec.members) >= rec.group.min_count

    def pending_members(self, key: str) -> set[str]:
        """The group's pods not bound yet."""
        return self._pending_members.get(key, set())

    # ---- the report ----
    def metrics(self) -> dict[str, Any]:
        """The ``podGroups`` metrics: counts over groups, then one row per group."""
        shown = {k: r for k, r in sorted(self.records.items()) if r.arrival != float("inf")}
        waits = [r.admitted_at - r.ready_at for r in shown.values()
                 if r.admitted_at is not None and r.ready_at is not None]
        return {"groups": len(shown),
                "admitted": sum(r.admitted_at is not None for r in shown.values()),
                "preempted": sum(r.preempted_pods > 0 for r in shown.values()),
                "waiting": sum(r.admitted_at is None for r in shown.values()),
                "meanWait": sum(waits) / len(waits) if waits else None,
                "p95Wait": percentile(waits, 95),
                "missing": sorted(k for k, r in self.records.items()
                                  if r.arrival == float("inf")),
                "byGroup": {k: r.to_json() for k, r in shown.items()}}


def load_pod_groups(scenario: Scenario, release: Modelled) -> list[tuple[PodGroup, float]]:
    """The scenario's PodGroups (validated as kube-apiserver 1.37 does, priority resolved)
    with their arrival times; Workloads are validated and otherwise left alone."""
    docs = scenario.group_objects
    gates = {GATE: True,
             "PodGroupPreemptionPolicy": release.enabled("PodGroupPreemptionPolicy")}
    objects = load_group_objects(docs.of, scenario.cluster.priority, gates)
    arrivals = {f"{obj.namespace or 'default'}/{obj.name}": arrival_of(obj)
                for obj in docs.of("PodGroup")}
    return [(g, arrivals.get(key, 0.0)) for key, g in objects.pod_groups.items()]


def pods_naming_missing_groups(scenario: Scenario) -> list[tuple[str, str]]:
    """(pod, PodGroup) for the scenario's pods (not the controllers' pods, created later)
    naming a PodGroup the scenario does not hold."""
    present = {f"{obj.namespace or 'default'}/{obj.name}"
               for obj in scenario.group_objects.of("PodGroup")}
    out = []
    for plan in [*scenario.initial.values(), *scenario.pods]:
        name = pod_group_name(plan.pod)
        if name is not None and f"{plan.pod.namespace}/{name}" not in present:
            out.append((plan.pod.key, f"{plan.pod.namespace}/{name}"))
    return out


def warn_missing(scenario: Scenario, hold: bool, stream: TextIO | None = None) -> None:
    """One line for the pods naming a PodGroup the scenario does not hold."""
    missing = pods_naming_missing_groups(scenario)
    if not missing:
        return
    shown = ", ".join(f"{p} -> {g}" for p, g in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    then = ("PreEnqueue holds each until its PodGroup exists" if hold else
            f"they are scheduled as plain pods ({GATE}=true holds them for their PodGroup)")
    print(f"warning: {len(missing)} pod(s) name a PodGroup that is not in the scenario "
          f"({shown}{more}); {then}", file=stream or sys.stderr)


def warn_ignored(scenario: Scenario, release: Modelled, stream: TextIO | None = None) -> None:
    """One line when the scenario's PodGroups / Workloads are not played (1.36, or
    GenericWorkload turned off): their pods are scheduled one by one."""
    count = sum(len(v) for v in scenario.group_objects.by_kind.values())
    if not count:
        return
    why = (f"{GATE}=false" if release.overrides.get(GATE) is False else
           f"Kubernetes {release.version} serves no {WORKLOAD_API_V1BETA1} "
           "(--kube-version 1.37 plays them)")
    print(f"warning: {count} scheduling.k8s.io PodGroup/Workload object(s) ignored "
          f"({why}); their pods are scheduled one by one", file=stream or sys.stderr)
