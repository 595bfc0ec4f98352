"""Builders for Kueue tests: manifests from short arguments, mirroring upstream's wrappers.

Admitted workloads get QuotaReserved times one second apart in creation order, as
upstream's ``ReserveQuota`` (``time.Now()``) gives later workloads later times.
"""

from __future__ import annotations

import itertools
from typing import Any

from kubepreempt.api.errors import Source
from kubepreempt.kueue.admission import Decision, KueueInputs, decide, load_inputs
from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.objects import KueueConfig, Workload
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.queue_manager import QueueManager
from kubepreempt.kueue.quota import Snapshot, workload_info
from kubepreempt.kueue.semantics import CURRENT, V0_7
from kubepreempt.manifests import Documents, RawObject

V07 = V0_7

BASE = 1_700_000_000.0
NOW = BASE + 100_000
_clock = itertools.count(1)

Quota = str | tuple[str | None, ...]  # nominal, or (nominal, borrowingLimit, lendingLimit)


def iso(ts: float) -> str:
    """Seconds -> RFC 3339."""
    from kubepreempt.kueue.conditions import rfc3339
    return rfc3339(ts)


def flavor(name: str, labels: dict[str, str] | None = None,
           taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A ResourceFlavor."""
    spec: dict[str, Any] = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
            "metadata": {"name": name}, "spec": spec}


def _resources(quotas: dict[str, Quota]) -> list[dict[str, Any]]:
    out = []
    for res, q in quotas.items():
        q = (q,) if isinstance(q, str) else q
        r: dict[str, Any] = {"name": res, "nominalQuota": q[0]}
        if len(q) > 1 and q[1]:
            r["borrowingLimit"] = q[1]
        if len(q) > 2 and q[2]:
            r["lendingLimit"] = q[2]
        out.append(r)
    return out


def cq(name: str, *groups: list[tuple[str, dict[str, Quota]]], cohort: str = "",
       within: str | None = None, reclaim: str | None = None, borrow_within: str | None = None,
       threshold: int | None = None, weight: str | None = None,
       fungibility: dict[str, str] | None = None) -> dict[str, Any]:
    """A ClusterQueue; each group is a list of (flavor, {resource: quota})."""
    spec: dict[str, Any] = {"resourceGroups": [
        {"coveredResources": list(g[0][1]),
         "flavors": [{"name": f, "resources": _resources(q)} for f, q in g]} for g in groups]}
    if cohort:
        spec["cohort"] = cohort
    pre: dict[str, Any] = {}
    if within:
        pre["withinClusterQueue"] = within
    if reclaim:
        pre["reclaimWithinCohort"] = reclaim
    if borrow_within:
        pre["borrowWithinCohort"] = {"policy": borrow_within}
        if threshold is not None:
            pre["borrowWithinCohort"]["maxPriorityThreshold"] = threshold
    if pre:
        spec["preemption"] = pre
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    if fungibility:
        spec["flavorFungibility"] = fungibility
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": name}, "spec": spec}


def lq(name: str, cluster_queue: str, namespace: str = "default") -> dict[str, Any]:
    """A LocalQueue."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": cluster_queue}}


def pod_set(name: str, count: int, requests: dict[str, str], **spec: Any) -> dict[str, Any]:
    """A podSet with one container requesting ``requests``."""
    return {"name": name, "count": count, "template": {"spec": {
        "containers": [{"name": "c", "resources": {"requests": requests}}], **spec}}}


def wl(name: str, requests: dict[str, str] | None = None, priority: int | None = None,
       queue: str = "", admitted: str = "", flavors: dict[str, str] | None = None,
       pod_sets: list[dict[str, Any]] | None = None, reserved_at: float | None = None,
       created: float | None = None, uid: str | None = None, namespace: str = "default",
       conditions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Workload; ``admitted`` names the ClusterQueue holding its quota reservation."""
    if pod_sets is None:
        pod_sets = [pod_set("main", 1, requests or {"cpu": "1"})]
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or name}
    meta["creationTimestamp"] = iso(created if created is not None else BASE)
    spec: dict[str, Any] = {"podSets": pod_sets}
    if queue:
        spec["queueName"] = queue
    if priority is not None:
        spec["priority"] = priority
    body: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                            "metadata": meta, "spec": spec}
    status: dict[str, Any] = {}
    if admitted:
        when = reserved_at if reserved_at is not None else BASE + next(_clock)
        psas = []
        for ps in pod_sets:
            reqs = ps["template"]["spec"]["containers"][0]["resources"]["requests"]
            fl = flavors or {r: "default" for r in reqs}
            psas.append({"name": ps["name"], "count": ps["count"],
                         "flavors": {r: fl[r] for r in reqs}})
        status["admission"] = {"clusterQueue": admitted, "podSetAssignments": psas}
        status["conditions"] = [{"type": "QuotaReserved", "status": "True",
                                 "reason": "QuotaReserved", "message": "",
                                 "lastTransitionTime": iso(when)}]
    if conditions:
        status.setdefault("conditions", []).extend(conditions)
    if status:
        body["status"] = status
    return body


def config(fair: bool = True, strategies: list[str] | None = None,
           lending_limit: bool = False) -> dict[str, Any]:
    """A Kueue Configuration document."""
    body: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta1",
                            "kind": "Configuration", "fairSharing": {"enable": fair}}
    if strategies is not None:
        body["fairSharing"]["preemptionStrategies"] = strategies
    if lending_limit:
        body["featureGates"] = {"LendingLimit": True}
    return body


def docs(objs: list[dict[str, Any]]) -> Documents:
    """Documents as load_documents would return them."""
    out = Documents()
    for i, o in enumerate(objs):
        out.add(RawObject(o["kind"], o, Source("test.yaml", i)))
    return out


def inputs(objs: list[dict[str, Any]], version: str = V07) -> KueueInputs:
    """Typed inputs, with a LocalQueue per ClusterQueue (same name) added. The tests
    written for Kueue v0.7 keep running under it; others pass ``version``."""
    lqs = [lq(o["metadata"]["name"], o["metadata"]["name"]) for o in objs
           if o["kind"] == "ClusterQueue"]
    return load_inputs(docs(objs + lqs), version=version)


def run(objs: list[dict[str, Any]], key: str, version: str = V07) -> Decision:
    """The full decision for ``key`` (``ns/name`` or a name in ``default``)."""
    return decide(inputs(objs, version), key if "/" in key else f"default/{key}", NOW)


def preempt(objs: list[dict[str, Any]], incoming: dict[str, Any], target_cq: str,
            assignment: dict[str, dict[str, tuple[str, Mode]]],
            version: str = V07) -> set[str]:
    """Upstream's table harness: GetTargets with an explicit assignment -> victim names."""
    inp = inputs([*objs, incoming], version)
    key = f"{incoming['metadata']['namespace']}/{incoming['metadata']['name']}"
    others = [w for k, w in inp.workloads.items() if k != key]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts)
    info = workload_info(inp.workloads[key], target_cq)
    a = Assignment([PodSetAssignment(ps, {r: FlavorAssignment(f, m) for r, (f, m) in fl.items()},
                                     fits=False) for ps, fl in assignment.items()])
    nodes = [*snap.cqs.values(), *snap.cohorts.values()]
    before = [dict(n.usage) for n in nodes]
    targets = get_targets(info, a, snap, NOW, Trace())
    after = [dict(n.usage) for n in nodes]
    assert before == after, "the snapshot must be restored"
    return {t.info.obj.name for t in targets}


def cpu(flv: str = "default", mode: Mode = Mode.PREEMPT) -> dict[str, dict[str, tuple]]:
    """Single pod set 'main' with cpu assigned to ``flv``."""
    return {"main": {"cpu": (flv, mode)}}


__all__ = ["CURRENT", "V07", "KueueConfig", "Mode", "config", "cpu", "cq", "flavor", "inputs",
           "lq", "pod_set", "preempt", "run", "wl"]


def popped_in_order(docs: list[dict[str, Any]], admission_check_evictions: bool = True,
                    uid_tie_break: bool = False) -> list[str]:
    """The Workloads ``docs`` pushed, in that order, onto one BestEffortFIFO
    ClusterQueue's heap and popped one head at a time: their names in pop order."""
    by_name = {w.name: w for w in inputs(docs, CURRENT).workloads.values()}
    qm: QueueManager[Workload] = QueueManager({"q": "BestEffortFIFO"}, lambda q: q,
                                              admission_check_evictions, uid_tie_break)
    for doc in docs:
        w = by_name[doc["metadata"]["name"]]
        qm.push("q", w, w)
    out: list[str] = []
    while qm.has_pending():
        out += [w.name for w in qm.heads(lambda _: True)]
    return out
