"""Builders for workload-aware preemption (KEP-5710) tests: victims and preemptors with
PodGroups, and ``selectVictimsOnDomain`` run for preemptor-pg on a cluster."""

from __future__ import annotations

from typing import Any

from builders import node, pod
from builders.gang import cluster_and_groups
from kubepreempt.scheduler.gang.cycle import group_algorithm
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.scheduler import Scheduler

LOW, MID, HIGH = 10, 100, 1000
NS = "default"


def victim(name: str, node_name: str, priority: int = LOW, group: str | None = None,
           start: int | None = None, cpu: str = "1", labels=None) -> dict[str, Any]:
    """A bound Pod requesting ``cpu``, a member of PodGroup ``group`` if given."""
    spec = {"schedulingGroup": {"podGroupName": group}} if group else None
    return pod(name, cpu, node_name=node_name, priority=priority, labels=labels,
               spec_extra=spec, start=None if start is None else
               f"1970-01-01T00:00:{start:02d}Z")


def preemptor_pod(name: str, cpu: str = "1", never: bool = False) -> dict[str, Any]:
    """A pending HIGH-priority member of preemptor-pg (policy Never if ``never``)."""
    spec: dict[str, Any] = {"schedulingGroup": {"podGroupName": "preemptor-pg"}}
    if never:
        spec["preemptionPolicy"] = "Never"
    return pod(name, cpu, priority=HIGH, spec_extra=spec)


def pod_group(name: str, priority: int, mode: str = "single", min_count: int = 1
              ) -> dict[str, Any]:
    """A gang PodGroup with the given disruption mode and priority."""
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}},
                     "disruptionMode": {mode: {}}, "priority": priority}}


def setup(objects: list[dict[str, Any]], min_count: int = 1, in_place: bool = False):
    """The cluster, the scheduler and the evaluator, with preemptor-pg at HIGH."""
    objects = [*objects, pod_group("preemptor-pg", HIGH, min_count=min_count)]
    cluster, groups = cluster_and_groups(objects)
    return cluster, Scheduler(cluster), WorkloadPreemption(
        groups.pod_groups, reprieve_in_place=in_place), groups


def select(objects: list[dict[str, Any]], min_count: int = 1, in_place: bool = False):
    """``selectVictimsOnDomain`` for preemptor-pg's pending pods."""
    cluster, sched, evaluator, groups = setup(objects, min_count, in_place)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    members = members_of(cluster, NS, "preemptor-pg")
    before = (dict(cluster.pods), cluster.requested.copy())
    outcome = evaluator.preempt(
        sched, group, members, members.unscheduled,
        lambda: group_algorithm(sched, group, 0, members.unscheduled, False, None))
    assert (dict(cluster.pods), cluster.requested.tolist()) == (before[0],
                                                                 before[1].tolist())
    return outcome


def names(outcome) -> list[str]:
    """The victims' pod names, in order."""
    return [p.name for p in outcome.victims]


def one_cpu_nodes(count: int) -> list[dict[str, Any]]:
    """Nodes node1..node<count> with one CPU each."""
    return [node(f"node{i}", cpu="1") for i in range(1, count + 1)]

