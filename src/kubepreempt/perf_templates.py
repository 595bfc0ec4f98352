"""Upstream scheduler_perf pod templates, as the manifests kube-scheduler would see.

Transcribed from kubernetes ``test/integration/scheduler_perf/templates/`` (the file each
template comes from is its key with ``.yaml``). ``generateName`` and the container image
are left out: neither plays a part in scheduling. Every template requests (and limits)
100m / 500Mi except the DaemonSet pod (no requests) and the large high-priority pod.
"""

from __future__ import annotations

import copy
from typing import Any

_RESOURCES = {"requests": {"cpu": "100m", "memory": "500Mi"},
              "limits": {"cpu": "100m", "memory": "500Mi"}}


def _containers(resources: dict | None = _RESOURCES) -> list[dict[str, Any]]:
    container: dict[str, Any] = {"name": "pause", "ports": [{"containerPort": 80}]}
    if resources is not None:
        container["resources"] = resources
    return [container]


def _term(color: str, key: str, namespaces: list[str] | None = None,
          team_selector: bool = False) -> dict[str, Any]:
    term: dict[str, Any] = {"labelSelector": {"matchLabels": {"color": color}},
                            "topologyKey": key}
    if namespaces is not None:
        term["namespaces"] = namespaces
    if team_selector:
        term["namespaceSelector"] = {"matchLabels": {"team": "devops"}}
    return term


def _pod(labels: dict[str, str] | None, spec: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {**spec, "containers": spec.get("containers", _containers())}}


HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SCHED = ["sched-1", "sched-0"]

TEMPLATES: dict[str, dict[str, Any]] = {
    "pod-default": _pod(None, {}),
    "pod-with-pod-anti-affinity": _pod({"color": "green"}, {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            _term("green", HOSTNAME, SCHED)]}}}),
    "pod-with-pod-anti-affinity-label": _pod({"color": "green"}, {}),
    "pod-with-pod-affinity": _pod({"color": "blue"}, {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [_term("blue", ZONE, SCHED)]}}}),
    "pod-with-preferred-pod-affinity": _pod({"color": "red"}, {"affinity": {"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": _term("red", HOSTNAME, SCHED), "weight": 1}]}}}),
    "pod-with-preferred-pod-anti-affinity": _pod({"color": "yellow"}, {"affinity": {
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": _term("yellow", HOSTNAME, SCHED), "weight": 1}]}}}),
    "pod-with-node-affinity": _pod(None, {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In",
                                   "values": ["zone1", "zone2"]}]}]}}}}),
    "pod-anti-affinity-ns-selector": _pod({"color": "green"}, {"affinity": {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("green", HOSTNAME, team_selector=True)]}}}),
    "pod-preferred-anti-affinity-ns-selector": _pod({"color": "green"}, {"affinity": {
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": _term("green", HOSTNAME, team_selector=True),
             "weight": 1}]}}}),
    "pod-affinity-ns-selector": _pod({"color": "blue"}, {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            _term("blue", ZONE, team_selector=True)]}}}),
    "pod-preferred-affinity-ns-selector": _pod({"color": "red"}, {"affinity": {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": _term("red", HOSTNAME, team_selector=True),
             "weight": 1}]}}}),
    "pod-with-topology-spreading": _pod({"color": "blue"}, {"topologySpreadConstraints": [
        {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"color": "blue"}}}]}),
    "pod-with-preferred-topology-spreading": _pod({"color": "blue"}, {
        "topologySpreadConstraints": [
            {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"color": "blue"}}}]}),
    "daemonset-pod": _pod(None, {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In",
                              "values": ["scheduler-perf-node"]}]}]}}},
        "containers": [{"name": "pause"}]}),
    # requests only (no limits): Burstable, as upstream's template.
    "pod-high-priority-large-cpu": _pod(None, {"priority": 10, "containers": _containers(
        {"requests": {"cpu": "9", "memory": "500Mi"}})}),
}


def manifest(template: str, namespace: str, name: str) -> dict[str, Any]:
    """A fresh manifest of ``template`` named ``namespace/name``."""
    doc = copy.deepcopy(TEMPLATES[template])
    doc["metadata"]["name"] = name
    doc["metadata"]["namespace"] = namespace
    return doc


def node(name: str, pods: int = 110, labels: dict[str, str] | None = None,
         sized: bool = True) -> dict[str, Any]:
    """A node manifest: ``node-default.yaml`` (4 cpu, 32Gi, 110 pods), the named node of
    ``node-with-name.yaml`` (``pods`` 90000) or the churn node (``sized=False``: only
    ``pods: 0``). Upstream's node preparer adds ``kubernetes.io/hostname`` = name."""
    capacity: dict[str, str] = {"pods": str(pods)}
    if sized:
        capacity.update(cpu="4", memory="32Gi")
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {**(labels or {}), HOSTNAME: name}},
            "spec": {}, "status": {"capacity": capacity,
                                   "conditions": [{"status": "True", "type": "Ready"}],
                                   "phase": "Running"}}
