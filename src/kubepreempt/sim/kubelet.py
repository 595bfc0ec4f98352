"""The hollow kubelets of the simulated nodes: admission of pods that name their node, and
node-pressure eviction from modelled usage (``simulate --node-pressure``)."""

from __future__ import annotations

import math

from kubepreempt.api.objects import Pod
from kubepreempt.api.quantity import parse_quantity
from kubepreempt.kubelet.admission import ADMIT, EVICT, admit_pod
from kubepreempt.kubelet.eviction import rank_for_eviction
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.scenario import PodPlan
from kubepreempt.sim.world import World

# The kubelet's default hard eviction thresholds (pkg/kubelet/apis/config/v1beta1):
# memory.available<100Mi and nodefs.available<10% (imagefs and inodes are not modelled).
MEMORY_AVAILABLE_MIN = 100 * 1024 * 1024
NODEFS_AVAILABLE_FRACTION = 0.10
_SIGNALS = {"memory": "memory.available", "ephemeral-storage": "nodefs.available"}


class Kubelet(Actor):
    """Every node's kubelet: admits pods created with ``spec.nodeName`` (critical pods may
    evict others) and, with ``node_pressure``, evicts pods when a hard threshold is crossed."""

    def __init__(self, world: World, node_pressure: bool = False) -> None:
        self.world = world
        self.node_pressure = node_pressure
        self._thresholds: dict[str, list[tuple[str, int, int]]] = {}

    def check_all_nodes(self) -> None:
        """Run the eviction manager on every node (the initial state)."""
        if self.node_pressure:
            for idx in range(len(self.world.cluster.nodes)):
                self._check_pressure(idx)

    # ---- hooks ----
    def on_created(self, plan: PodPlan) -> None:
        if plan.via_kubelet:
            self.admit(plan.pod.key)

    def on_bound(self, pod: Pod) -> None:
        if self.node_pressure:
            self._check_pressure(self.world.cluster.node_index[pod.node_name])

    # ---- admission ----
    def admit(self, key: str) -> None:
        """Kubelet admission of a pod that names its node (critical pods may evict)."""
        world = self.world
        rec = world.records[key]
        pod = rec.pod
        if rec.phase != "Pending":
            return
        idx = world.cluster.node_index.get(pod.node_name)
        if idx is None or pod.node_name in world.removed_nodes:
            world.reject(key, pod.node_name, "node is not in the cluster")
            return
        node_pods = world.cluster.node_pods[idx].values()
        res = admit_pod(pod, world.cluster.nodes[idx], node_pods)
        now = world.now
        if res.result == ADMIT:
            name = pod.node_name
            pod.node_name = ""  # Cluster.bind sets it again
            world.bind(pod, name, now, detail="kubelet admission")
        elif res.result == EVICT:
            for victim in res.victims:
                world.signal(victim, now, m.EVICTED, f"kubelet admission of {key}",
                             cause=m.BY_KUBELET_ADMISSION)
            done = max(world.exit_time(v.key) for v in res.victims)
            world.kernel.schedule(done, Priority.KUBELET, self.admit, key)
        else:
            world.reject(key, pod.node_name, f"{res.reason}: {res.message}")

    # ---- node-pressure eviction ----
    def _usage(self, pod: Pod, resource: str) -> int:
        """Modelled usage: the pod's ``*-usage`` annotation, else its request."""
        return self.world.plans[pod.key].usage.get(resource, pod.requests.get(resource, 0))

    def _node_thresholds(self, idx: int) -> list[tuple[str, int, int]]:
        """(resource, capacity, minimum available) per signal the node can have, memory
        first (upstream ranks memory signals before the others).

        Capacity is ``status.capacity`` when the node gives it; else allocatable plus the
        hard threshold the kubelet subtracts from capacity to get allocatable (no
        kube/system-reserved): so pods using only their requests never cause pressure.
        """
        node = self.world.cluster.nodes[idx]
        cached = self._thresholds.get(node.name)
        if cached is not None:
            return cached
        status = node.raw.get("status") if isinstance(node.raw, dict) else None
        capacity = status.get("capacity") if isinstance(status, dict) else None
        out = []
        for resource in _SIGNALS:
            alloc = node.allocatable.get(resource, 0)
            raw = capacity.get(resource) if isinstance(capacity, dict) else None
            if raw is not None:
                cap = math.ceil(parse_quantity(str(raw)))
            elif resource == "memory":
                cap = alloc + MEMORY_AVAILABLE_MIN if alloc else 0
            else:
                cap = int(alloc / (1 - NODEFS_AVAILABLE_FRACTION))
            if cap <= 0:
                continue  # the node does not report this resource: no signal
            minimum = (MEMORY_AVAILABLE_MIN if resource == "memory"
                       else int(cap * NODEFS_AVAILABLE_FRACTION))
            out.append((resource, cap, minimum))
        self._thresholds[node.name] = out
        return out

    def _check_pressure(self, idx: int) -> None:
        """The hollow kubelet's eviction manager on one node after a change.

        While a hard threshold is crossed (available = capacity - summed usage of the
        node's pods, terminating ones included, below the minimum), evict one pod: the
        first non-critical, non-terminating pod of ``rank_for_eviction`` for the starved
        resource. Hard evictions use grace period 0, so the pod is gone at once.
        """
        world = self.world
        if world.cluster.nodes[idx].name in world.removed_nodes:
            return
        thresholds = self._node_thresholds(idx)
        if not thresholds:
            return
        pods_on = world.cluster.node_pods[idx]
        while pods_on:
            pods = list(pods_on.values())
            starved = ""
            for resource, cap, minimum in thresholds:
                available = cap - sum(self._usage(p, resource) for p in pods)
                if available < minimum:
                    starved = resource
                    detail = (f"node pressure: {_SIGNALS[resource]} {available} < "
                              f"{minimum}")
                    break
            if not starved:
                return
            live = [p for p in pods if not p.terminating]
            usage = {p.key: {starved: self._usage(p, starved)} for p in live}
            key = rank_for_eviction(live, starved, usage).next
            if key is None:
                return  # only critical or already terminating pods left
            world.evict_now(key, detail)
