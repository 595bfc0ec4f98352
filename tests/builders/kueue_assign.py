"""Run the flavor assigner alone, as upstream's ``TestAssignFlavors`` does: the pending
workload's ClusterQueue snapshot with every other workload of the input holding its quota,
and an optional stubbed preemption oracle (``None``: every flavor-resource needing
preemption is Preempt at the borrowing level of the lowest subtree that fits, without a
simulation)."""

from __future__ import annotations

from typing import Any

from builders.kueue import V07, inputs
from kubepreempt.kueue.flavors import Assignment, FlavorAssigner, Oracle
from kubepreempt.kueue.objects import ResourceFlavor
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info


def assigner(objs: list[dict[str, Any]], key: str = "default/in", version: str = V07,
             oracle: Oracle | None = None,
             flavors: dict[str, ResourceFlavor] | None = None
             ) -> tuple[FlavorAssigner, WorkloadInfo]:
    """The assigner for ``key`` in the ClusterQueue its LocalQueue points to (``flavors``
    replaces the input's ResourceFlavors), and the workload's info."""
    inp = inputs(objs, version)
    w = inp.workloads[key]
    others = [o for k, o in inp.workloads.items() if k != key]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts, inp.namespaces)
    cq = inp.local_queues[(w.namespace, w.queue_name)].cluster_queue
    info = workload_info(w, cq)
    fa = FlavorAssigner(info, w.pod_sets, snap.cqs[cq],
                        inp.flavors if flavors is None else flavors,
                        inp.config.fair_sharing, inp.semantics, oracle)
    return fa, info


def assign(objs: list[dict[str, Any]], key: str = "default/in", version: str = V07,
           oracle: Oracle | None = None,
           flavors: dict[str, ResourceFlavor] | None = None) -> Assignment:
    """The flavor assignment of ``key`` (see :func:`assigner`)."""
    return assigner(objs, key, version, oracle, flavors)[0].assign()
