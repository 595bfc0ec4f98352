"""Builders for PodGroup (gang) tests: member pods, PodGroups, and DefaultPreemption
decided under a release with the workload API on."""

from __future__ import annotations

from typing import Any

from builders import cluster_of, pod
from kubepreempt.api.errors import Source
from kubepreempt.api.podgroup import GroupObjects, load_group_objects
from kubepreempt.cluster import Cluster
from kubepreempt.decide import schedule
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.release import modelled

LOW, MID, HIGH = 100, 500, 1000
NS = "default"


def member_pod(name: str, node_name: str, cpu: str, priority: int = 10,
               group: str | None = None, start: int | None = None,
               labels=None) -> dict[str, Any]:
    spec = {"schedulingGroup": {"podGroupName": group}} if group else None
    return pod(name, cpu, node_name=node_name, priority=priority, spec_extra=spec,
               labels=labels,
               start=None if start is None else f"2026-01-01T00:00:{start:02d}Z")


def pod_group(name: str, priority: int, mode: str = "single") -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"schedulingPolicy": {"basic": {}} if mode == "single" else
                     {"gang": {"minCount": 1}},
                     "disruptionMode": {mode: {}}, "priority": priority}}


def cluster_and_groups(objects: list[dict[str, Any]]) -> tuple[Cluster, GroupObjects]:
    """The cluster of every object but the PodGroups, and the PodGroups loaded with the
    workload API on (priorities resolved against the cluster's classes)."""
    cluster = cluster_of(*(o for o in objects if o["kind"] != "PodGroup"))
    docs = Documents()
    for i, o in enumerate(objects):
        if o["kind"] == "PodGroup":
            docs.add(RawObject("PodGroup", o, Source("t.yaml", i)))
    return cluster, load_group_objects(docs.of, cluster.priority, {"GenericWorkload": True})


def decide(objects: list[dict[str, Any]], target: str, version: str = "1.37",
           gates: str | None = "GenericWorkload=true"):
    """DefaultPreemption's decision for ``target`` under ``version`` with ``gates``."""
    cluster, groups = cluster_and_groups(objects)
    release = modelled(version, gates, warn=False)
    return schedule(cluster, target, release=release, pod_groups=groups.pod_groups)


def preemptor(cpu: str = "2") -> dict[str, Any]:
    return pod("preemptor", cpu, priority=HIGH)
