"""Nominated pods: pending pods that preempted and wait for their node (nominatedNodeName).

When a pod is checked against a node, pods nominated there with higher-or-equal priority
count as already running (the design doc's two-pass feasibility check).
"""

from __future__ import annotations

from collections import defaultdict

from kubepreempt.api.objects import Pod


class Nominator:
    """Node name -> pods nominated to it, kept in sync with the pods' nominations."""

    def __init__(self) -> None:
        self._by_node: dict[str, dict[str, Pod]] = defaultdict(dict)

    def add(self, pod: Pod, node_name: str) -> None:
        """Nominate ``pod`` to ``node_name`` (replacing an earlier nomination)."""
        self.remove(pod)
        pod.nominated_node_name = node_name
        if node_name:
            self._by_node[node_name][pod.key] = pod

    def remove(self, pod: Pod) -> None:
        """Clear ``pod``'s nomination."""
        old = pod.nominated_node_name
        if old and old in self._by_node:
            self._by_node[old].pop(pod.key, None)
            if not self._by_node[old]:
                del self._by_node[old]
        pod.nominated_node_name = ""

    def on_node(self, node_name: str) -> list[Pod]:
        """Pods nominated to ``node_name``."""
        return list(self._by_node.get(node_name, {}).values())

    def nodes_with_nominees(self, min_priority: int, exclude: str = "") -> set[str]:
        """Nodes holding a nominee of priority >= ``min_priority`` (other than ``exclude``)."""
        return {node for node, pods in self._by_node.items()
                if any(p.priority >= min_priority and k != exclude for k, p in pods.items())}

    def __len__(self) -> int:
        return sum(len(p) for p in self._by_node.values())

    @staticmethod
    def from_pending(pods, node_names) -> Nominator:
        """Nominations of the input's pending pods (to nodes that exist)."""
        nominator = Nominator()
        for pod in pods:
            if pod.nominated_node_name and pod.nominated_node_name in node_names:
                nominator.add(pod, pod.nominated_node_name)
        return nominator
