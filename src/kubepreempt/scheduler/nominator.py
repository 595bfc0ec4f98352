"""Nominated pods: pending pods that preempted and wait for their node (nominatedNodeName).

When a pod is checked against a node, pods nominated there with higher-or-equal priority
count as already running (the design doc's two-pass feasibility check).
"""

from __future__ import annotations

from collections import defaultdict

from kubepreempt.api.objects import Pod


def counts_for(nominee: Pod, pod: Pod) -> bool:
    """Whether ``nominee`` counts as running when ``pod`` is checked (upstream
    ``addNominatedPods``): priority higher than or equal to the pod's, and not the pod."""
    return nominee.priority >= pod.priority and nominee.key != pod.key


def lower_priority_nominees(nominees: list[Pod], pod: Pod) -> list[Pod]:
    """Upstream ``getLowerPriorityNominatedPods``: the nominees a preemption for ``pod``
    on their node displaces (their nominations are cleared)."""
    return [p for p in nominees if p.priority < pod.priority and p.key != pod.key]


class Nominator:
    """Node name -> pods nominated to it, kept in sync with the pods' nominations."""

    def __init__(self) -> None:
        self._by_node: dict[str, dict[str, Pod]] = defaultdict(dict)
        self.version = 0  # changes with every nomination added or cleared
        # the last counting_by_node answer: (version, pod, its priority, answer)
        self._memo: tuple[int, Pod, int, dict[str, list[Pod]]] | None = None

    def add(self, pod: Pod, node_name: str) -> None:
        """Nominate ``pod`` to ``node_name`` (replacing an earlier nomination)."""
        self.remove(pod)
        self.version += 1
        pod.nominated_node_name = node_name
        if node_name:
            self._by_node[node_name][pod.key] = pod

    def remove(self, pod: Pod) -> None:
        """Clear ``pod``'s nomination."""
        self.version += 1
        old = pod.nominated_node_name
        if old and old in self._by_node:
            self._by_node[old].pop(pod.key, None)
            if not self._by_node[old]:
                del self._by_node[old]
        pod.nominated_node_name = ""

    def on_node(self, node_name: str) -> list[Pod]:
        """Pods nominated to ``node_name``."""
        return list(self._by_node.get(node_name, {}).values())

    def counting_on(self, node_name: str, pod: Pod) -> list[Pod]:
        """The pods nominated to ``node_name`` that count as running for ``pod``."""
        return [p for p in self._by_node.get(node_name, {}).values() if counts_for(p, pod)]

    def nodes_counting_for(self, pod: Pod) -> set[str]:
        """Nodes holding a nominee that counts as running for ``pod``."""
        return set(self.counting_by_node(pod))

    def counting_by_node(self, pod: Pod) -> dict[str, list[Pod]]:
        """Node name -> the pods nominated there that count as running for ``pod``
        (``counts_for``; nodes with none left out). Shared with later calls for the same
        pod while the nominations are unchanged: read it, do not change it."""
        memo = self._memo
        if memo is not None and memo[0] == self.version and memo[1] is pod \
                and memo[2] == pod.priority:
            return memo[3]
        out: dict[str, list[Pod]] = {}
        priority, key = pod.priority, pod.key
        for node, pods in self._by_node.items():
            for k, p in pods.items():  # (a loop, not a comprehension: called per node)
                if p.priority >= priority and k != key:  # counts_for, inlined (hot)
                    counting = out.get(node)
                    if counting is None:
                        out[node] = [p]
                    else:
                        counting.append(p)
        self._memo = (self.version, pod, pod.priority, out)
        return out

    def __len__(self) -> int:
        return sum(len(p) for p in self._by_node.values())

    @staticmethod
    def from_pending(pods, node_names, scheduler_names=None) -> Nominator:
        """Nominations of the input's pending pods (to nodes that exist).

        With ``scheduler_names``, pods of other schedulers are left out: kube-scheduler
        never queues them (``responsibleForPod``), so their nominations are not its own.
        """
        nominator = Nominator()
        for pod in pods:
            if scheduler_names is not None and pod.scheduler_name not in scheduler_names:
                continue
            if pod.nominated_node_name and pod.nominated_node_name in node_names:
                nominator.add(pod, pod.nominated_node_name)
        return nominator
