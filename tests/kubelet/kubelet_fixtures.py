"""Builders for kubelet tests: pods and nodes from short keyword arguments."""

from __future__ import annotations

from typing import Any

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Node, Pod, parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver

_RESOLVE = PriorityResolver().resolve


def make_pod(name: str, requests: dict[str, str] | None = None,
             limits: dict[str, str] | None = None, priority: int | None = None,
             namespace: str = "default", annotations: dict[str, str] | None = None,
             node: str = "", **spec: Any) -> Pod:
    """A one-container pod."""
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    body_spec: dict[str, Any] = {"containers": [{"name": "c", "resources": resources}], **spec}
    if priority is not None:
        body_spec["priority"] = priority
    if node:
        body_spec["nodeName"] = node
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace,
                         "annotations": annotations or {}},
            "spec": body_spec}
    return parse_pod(body, Source("test"), _RESOLVE)


def make_node(name: str = "n1", cpu: str = "4", memory: str = "8Gi", pods: int = 110,
              taints: list[dict[str, str]] | None = None, labels: dict[str, str] | None = None,
              **extra: str) -> Node:
    """A node with the given allocatable."""
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods), **extra}
    body = {"kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints or []}, "status": {"allocatable": alloc}}
    return parse_node(body, Source("test"))


def upstream_pods() -> dict[str, Pod]:
    """The pods of upstream preemption_test.go ``getTestPods``."""
    small = {"cpu": "100m", "memory": "100Mi"}
    big = {"cpu": "300m", "memory": "300Mi"}
    return {
        "tiny": make_pod("tiny", {"cpu": "1m", "memory": "1Mi"}),
        "bestEffort": make_pod("bestEffort"),
        "cluster-critical": make_pod("cluster-critical", small, priority=2_000_000_000,
                                     namespace="kube-system",
                                     priorityClassName="system-cluster-critical"),
        "node-critical": make_pod("node-critical", small, priority=2_000_000_100,
                                  namespace="kube-system",
                                  priorityClassName="system-node-critical"),
        "burstable": make_pod("burstable", small),
        "guaranteed": make_pod("guaranteed", small, small),
        "high-request-burstable": make_pod("high-request-burstable", big),
        "high-request-guaranteed": make_pod("high-request-guaranteed", big, big),
    }
