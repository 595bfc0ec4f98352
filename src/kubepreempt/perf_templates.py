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


# --- PodGroup workloads (test/integration/scheduler_perf/default_preemption and
# workload_preemption, Kubernetes 1.37; GenericWorkload on) ---------------------------

def _sized(cpu: str, memory: str) -> dict[str, dict[str, str]]:
    amounts = {"cpu": cpu, "memory": memory}
    return {"requests": dict(amounts), "limits": dict(amounts)}


def _ported(port: int | None, resources: dict) -> list[dict[str, Any]]:
    container: dict[str, Any] = {"name": "pause", "resources": resources}
    if port is not None:
        container["ports"] = [{"containerPort": 80, "hostPort": port}]
    return [container]


_BLUE = {"app": "blue", "label1": "value1", "label2": "value2", "label3": "value3",
         "label4": "value4"}


def pod_group(namespace: str, index: int, min_count: int, priority: int,
              disruption: str = "single") -> dict[str, Any]:
    """``podgroup.yaml``: PodGroup ``gang-<index>``, a gang of ``min_count``, the given
    priority and disruption mode (``single`` or ``all``)."""
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": f"gang-{index}", "namespace": namespace},
            "spec": {"priority": priority, "disruptionMode": {disruption: {}},
                     "schedulingPolicy": {"gang": {"minCount": min_count}}}}


def gang_pod(namespace: str, index: int, per_group: int, cpu: str, priority: int,
             memory: str = "100Mi", host_port_base: int | None = None, grouped: bool = True,
             affinity: bool = False) -> dict[str, Any]:
    """A member of PodGroup ``gang-<index // per_group>`` named ``pod-gang-<index>``:
    ``workload_preemption/templates/gang-pod.yaml`` (100Mi; ``host_port_base``: one host
    port per group, so a group's pods land on different nodes), ``pod-gang-affinity.yaml``
    (``affinity``: 3970m / 500Mi, required affinity to the blue pods per hostname) or
    ``default_preemption/templates/gang-pod.yaml`` (50Mi; ``grouped`` False: a plain pod,
    upstream's empty disruptionMode)."""
    group = index // per_group
    port = None if host_port_base is None else host_port_base + group
    spec: dict[str, Any] = {"priority": priority, "terminationGracePeriodSeconds": 0,
                            "containers": _ported(port, _sized(cpu, memory))}
    if grouped:
        spec["schedulingGroup"] = {"podGroupName": f"gang-{group}"}
    if affinity:
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": dict(_BLUE)}, "topologyKey": HOSTNAME,
             "namespaceSelector": {}}]}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-gang-{index}", "namespace": namespace}, "spec": spec}


def spread_pod(template: str, namespace: str, index: int, per_node: int) -> dict[str, Any]:
    """``workload_preemption/templates/pod-low-priority.yaml`` (40m, priority = index,
    host port 8000 + index mod per_node) or ``pod-anchor-high-priority.yaml`` (10m,
    priority 9999999, host port 7000 + ...): the host port spreads them evenly."""
    low = template == "pod-low-priority"
    port = (8000 if low else 7000) + index % per_node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{template}-{index}", "namespace": namespace,
                         "labels": dict(_BLUE)},
            "spec": {"priority": index if low else 9999999,
                     "terminationGracePeriodSeconds": 0,
                     "containers": _ported(port, _sized("40m" if low else "10m", "100Mi"))}}


def preemptor_pod(namespace: str, index: int) -> dict[str, Any]:
    """``default_preemption/templates/pod-high-priority.yaml``: 3970m / 500Mi, priority
    9999999, grace 0."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-high-priority-{index}", "namespace": namespace},
            "spec": {"priority": 9999999, "terminationGracePeriodSeconds": 0,
                     "containers": _ported(None, _sized("3970m", "500Mi"))}}
