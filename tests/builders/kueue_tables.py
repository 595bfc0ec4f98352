"""Run upstream Kueue scheduler tables through kubepreempt's whole decision.

The tables (``tests/upstream/kueue/data/*.json``) hold upstream's cases as data: the
objects each case sets up (ResourceFlavors, ClusterQueues, LocalQueues, Cohorts,
Workloads) and what upstream expects. :func:`run_cycle` builds the objects as
``kueue.x-k8s.io/v1beta2`` manifests, queues every pending workload in its
ClusterQueue's heap, and runs one scheduling cycle as the simulator does
(:mod:`kubepreempt.kueue.queue_manager` heads, :func:`~kubepreempt.kueue.nomination.nominate`,
:func:`~kubepreempt.kueue.scheduler.schedule`, requeue per strategy) — upstream
``scheduler.schedule`` once. :func:`decide_incoming` runs ``kubepreempt kueue``'s
decision for one incoming workload (flavor assignment, then preemption).

Times: upstream's ``now`` is the time 0 of the tables; :data:`BASE` seconds here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from builders.kueue import docs
from kubepreempt.kueue.admission import Decision, decide, load_inputs
from kubepreempt.kueue.conditions import rfc3339
from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.queue_manager import QueueManager
from kubepreempt.kueue.quota import Snapshot, WorkloadInfo, workload_info
from kubepreempt.kueue.scheduler import ASSUMED, nominate_heads, requeue_reason, schedule
from kubepreempt.kueue.semantics import CURRENT

DATA = Path(__file__).resolve().parent.parent / "upstream" / "kueue" / "data"
BASE = 1_700_000_000.0
API = "kueue.x-k8s.io/v1beta2"
MODES = {"Fit": Mode.FIT, "Preempt": Mode.PREEMPT, "NoFit": Mode.NO_FIT}
# The namespaces upstream's scheduler tests create (runScheduleTestCases).
NAMESPACES = {"default": {}, "eng-alpha": {"dep": "eng"}, "eng-beta": {"dep": "eng"},
              "eng-gamma": {"dep": "eng"}, "sales": {"dep": "sales"}, "lend": {"dep": "lend"}}


def load_table(name: str) -> dict[str, Any]:
    """A table's data file (``setup``, ``cases``, ``unported`` with the reason each)."""
    return json.loads((DATA / f"{name}.json").read_text())


def _merged(groups: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """Groups covering the same resources merged into one, in order. A few upstream cases
    cover a resource in two groups of one flavor each, which the API refuses (its tests
    fill the cache directly); the flavor assigner takes the first group covering a
    resource and quotas are per flavor, so one group with both flavors in order decides
    the same."""
    out: list[list[dict[str, Any]]] = []
    keys: list[tuple[str, ...]] = []
    for g in groups:
        key = tuple(sorted({r[0] for fq in g for r in fq["resources"]}))
        if key in keys:
            out[keys.index(key)] = out[keys.index(key)] + g
        else:
            keys.append(key)
            out.append(list(g))
    return out


def _groups(groups: list[list[dict[str, Any]]], limits: bool = True) -> list[dict[str, Any]]:
    """resourceGroups; ``limits`` False drops borrowing/lending limits (upstream's tables
    give some to ClusterQueues without a cohort, where they mean nothing; its tests fill
    the cache directly, past the webhook that refuses them)."""
    out = []
    for g in _merged(groups):
        covered: list[str] = []
        flavors = []
        for fq in g:
            res = []
            for r in fq["resources"]:
                q: dict[str, Any] = {"name": r[0], "nominalQuota": r[1] if len(r) > 1 else "0"}
                if limits and len(r) > 2 and r[2] != "":
                    q["borrowingLimit"] = r[2]
                if limits and len(r) > 3 and r[3] != "":
                    q["lendingLimit"] = r[3]
                res.append(q)
                if r[0] not in covered:
                    covered.append(r[0])
            flavors.append({"name": fq["flavor"], "resources": res})
        out.append({"coveredResources": covered, "flavors": flavors})
    return out


def flavor_manifest(f: dict[str, Any]) -> dict[str, Any]:
    """A ResourceFlavor."""
    spec: dict[str, Any] = {}
    if f.get("labels"):
        spec["nodeLabels"] = f["labels"]
    if f.get("taints"):
        spec["nodeTaints"] = f["taints"]
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": f["name"]},
            "spec": spec}


def cq_manifest(c: dict[str, Any]) -> dict[str, Any]:
    """A ClusterQueue."""
    spec: dict[str, Any] = {"resourceGroups": _groups(c["groups"], bool(c.get("cohort"))),
                            # upstream's wrapper leaves the selector empty: every namespace
                            "namespaceSelector": {}}
    if c.get("cohort"):
        spec["cohortName"] = c["cohort"]
    if c.get("strategy"):
        spec["queueingStrategy"] = c["strategy"]
    if c.get("preemption"):
        spec["preemption"] = c["preemption"]
    if c.get("fungibility"):
        spec["flavorFungibility"] = c["fungibility"]
    if "weight" in c:
        spec["fairSharing"] = {"weight": c["weight"]}
    if c.get("stop"):
        spec["stopPolicy"] = c["stop"]
    if c.get("ns_selector"):
        spec["namespaceSelector"] = {"matchExpressions": c["ns_selector"]}
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": c["name"]},
            "spec": spec}


def cohort_manifest(c: dict[str, Any]) -> dict[str, Any]:
    """A Cohort."""
    spec: dict[str, Any] = {}
    if c.get("parent"):
        spec["parentName"] = c["parent"]
    if c.get("groups"):
        spec["resourceGroups"] = _groups(c["groups"])
    if "weight" in c:
        spec["fairSharing"] = {"weight": c["weight"]}
    return {"apiVersion": API, "kind": "Cohort", "metadata": {"name": c["name"]}, "spec": spec}


def lq_manifest(q: dict[str, Any]) -> dict[str, Any]:
    """A LocalQueue."""
    return {"apiVersion": API, "kind": "LocalQueue",
            "metadata": {"name": q["name"], "namespace": q["ns"]},
            "spec": {"clusterQueue": q["cq"]}}


def workload_manifest(w: dict[str, Any]) -> dict[str, Any]:
    """A Workload; ``t`` of conditions and ``created`` are seconds after :data:`BASE`."""
    ns = w["ns"] or "default"
    meta: dict[str, Any] = {"name": w["name"], "namespace": ns, "uid": w.get("uid", ""),
                            "creationTimestamp": rfc3339(BASE + w.get("created", 0))}
    if w.get("job_uid"):
        meta["labels"] = {"kueue.x-k8s.io/job-uid": w["job_uid"]}
    pod_sets = []
    for ps in w["pod_sets"]:
        res: dict[str, Any] = {"requests": ps["requests"]}
        if ps.get("limits"):
            res["limits"] = ps["limits"]
        spec: dict[str, Any] = {"containers": [{"name": "c", "resources": res}]}
        if ps.get("node_selector"):
            spec["nodeSelector"] = ps["node_selector"]
        if ps.get("tolerations"):
            spec["tolerations"] = ps["tolerations"]
        if ps.get("affinity_terms"):
            spec["affinity"] = {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": ps["affinity_terms"]}}}
        pod_sets.append({"name": ps["name"], "count": ps["count"], "template": {"spec": spec}})
    spec = {"podSets": pod_sets}
    if w.get("queue"):
        spec["queueName"] = w["queue"]
    if w.get("priority") is not None:
        spec["priority"] = w["priority"]
    if w.get("active") is False:
        spec["active"] = False
    body: dict[str, Any] = {"apiVersion": API, "kind": "Workload", "metadata": meta,
                            "spec": spec}
    status: dict[str, Any] = {}
    if w.get("admission"):
        counts = {ps["name"]: ps["count"] for ps in w["pod_sets"]}
        psas = []
        for a in w["admission"]["pod_sets"]:
            psa: dict[str, Any] = {"name": a["name"], "flavors": a["flavors"],
                                   "count": a.get("count", counts.get(a["name"], 1))}
            usage = a.get("usage") or {}
            # SimpleReserveQuota's usage is count x request: left for the loader to compute
            if usage and not any("*" in str(v) for v in usage.values()):
                psa["resourceUsage"] = usage
            psas.append(psa)
        status["admission"] = {"clusterQueue": w["admission"]["cq"], "podSetAssignments": psas}
    conds = [{"type": c["type"], "status": c["status"], "reason": c["reason"] or "ByTest",
              "message": "", "lastTransitionTime": rfc3339(BASE + (c["t"] or 0))}
             for c in w.get("conditions", [])]
    if conds:
        status["conditions"] = conds
    if w.get("reclaimable"):
        status["reclaimablePods"] = w["reclaimable"]
    if status:
        body["status"] = status
    return body


def namespace_manifest(name: str, labels: dict[str, str]) -> dict[str, Any]:
    """A Namespace."""
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": labels}}


def config_manifest(fair: bool, strategies: list[str] | None = None) -> dict[str, Any]:
    """A v1beta2 Configuration: fair sharing on when the block is present."""
    body: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2",
                            "kind": "Configuration"}
    if fair:
        body["fairSharing"] = {"preemptionStrategies": strategies or [
            "LessThanOrEqualToFinalShare", "LessThanInitialShare"]}
    return body


def schedule_objects(setup: dict[str, Any], case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every object of a TestSchedule-style case (the table's setup plus the case's)."""
    objs = [flavor_manifest(f) for f in setup["flavors"]]
    objs += [cq_manifest(c) for c in setup["cqs"] + case.get("cqs", [])]
    objs += [lq_manifest(q) for q in setup["lqs"] + case.get("lqs", [])]
    objs += [cohort_manifest(c) for c in case.get("cohorts", [])]
    objs += [namespace_manifest(n, labels) for n, labels in NAMESPACES.items()]
    objs += [workload_manifest(w) for w in case["workloads"]]
    objs.append(config_manifest(case.get("fair", False)))
    return objs


@dataclass
class CycleResult:
    """What one scheduling cycle left behind, in upstream's test terms."""

    # workload key -> (ClusterQueue, {podSet: {resource: flavor}}) of every workload
    # holding quota after the cycle (``wantAssignments``)
    assignments: dict[str, tuple[str, dict[str, dict[str, str]]]] = field(default_factory=dict)
    preempted: dict[str, str] = field(default_factory=dict)  # victim key -> reason
    left: dict[str, list[str]] = field(default_factory=dict)  # ``wantLeft``
    inadmissible: dict[str, list[str]] = field(default_factory=dict)  # ``wantInadmissibleLeft``
    entries: list[Entry] = field(default_factory=list)


def run_cycle(objs: list[dict[str, Any]], version: str = CURRENT,
              **switches: bool) -> CycleResult:
    """One Kueue scheduling cycle over every pending workload of ``objs``; ``switches``
    override the release's :class:`~kubepreempt.kueue.semantics.Semantics` switches."""
    inp = load_inputs(docs(objs), version=version)
    if switches:
        inp.config = replace(inp.config, semantics=replace(inp.config.semantics, **switches))
    admitted = [w for w in inp.workloads.values() if w.has_quota_reservation]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts, inp.namespaces)
    qm: QueueManager[WorkloadInfo] = QueueManager(
        {n: c.queueing_strategy for n, c in inp.cluster_queues.items()},
        lambda cq: cq, inp.semantics.admission_check_eviction_orders)
    for w in inp.workloads.values():
        if w.admission_cq or w.is_true("Finished"):
            continue
        lq = inp.local_queues.get((w.namespace, w.queue_name))
        if lq is None or not qm.has_queue(lq.cluster_queue):
            continue  # upstream's manager does not queue it
        qm.push(lq.cluster_queue, w, workload_info(w, lq.cluster_queue))
    heads = qm.heads(lambda _: True)
    out = CycleResult()
    for w in admitted:
        out.assignments[w.key] = (w.admission_cq, _flavors(w))
    preempted: dict[str, str] = {}

    def nominate_one(info: WorkloadInfo) -> Entry:
        w = info.obj
        return nominate(info, w.pod_sets, snap, inp.flavors, BASE)

    def admit(e: Entry, usage: WorkloadInfo) -> None:
        snap.add_workload(usage)
        assert e.assignment is not None
        out.assignments[e.key] = (e.cluster_queue, {
            ps.name: {r: fa.name for r, fa in (ps.flavors or {}).items()}
            for ps in e.assignment.pod_sets})

    def preempt(e: Entry) -> int:
        for t in e.targets:
            preempted.setdefault(t.info.key, t.reason)
        return len(e.targets)

    entries = nominate_heads(heads, nominate_one, snap)
    schedule(entries, snap, admit, preempt)
    for e in entries:
        if e.status != ASSUMED:
            qm.requeue(e.cluster_queue, e.info.obj, e.info, requeue_reason(e))
    out.preempted = preempted
    out.left = {n: sorted(item[-1].key for item in heap)
                for n, heap in qm.heaps.items() if heap}
    out.inadmissible = {n: sorted(v) for n, v in qm.inadmissible.items() if v}
    out.entries = entries
    return out


def _flavors(w: Any) -> dict[str, dict[str, str]]:
    info = workload_info(w, w.admission_cq)
    return {ps.name: dict(ps.flavors) for ps in info.total_requests}


def want_assignments(case: dict[str, Any]) -> dict[str, tuple[str, dict[str, dict[str, str]]]]:
    """``wantAssignments`` as :attr:`CycleResult.assignments` spells them."""
    return {k: (a["cq"], {ps["name"]: ps["flavors"] for ps in a["pod_sets"]})
            for k, a in case["want_assignments"].items()}


def decide_incoming(objs: list[dict[str, Any]], key: str, version: str = CURRENT) -> Decision:
    """``kubepreempt kueue``'s decision for ``key`` (flavor assignment, then preemption)."""
    return decide(load_inputs(docs(objs), version=version), key, BASE)


def targets_for_assignment(objs: list[dict[str, Any]], key: str, cluster_queue: str,
                           assignment: dict[str, dict[str, list[str]]],
                           version: str = CURRENT) -> dict[str, str]:
    """Upstream's preemption-table harness: ``GetTargets`` for ``key`` in
    ``cluster_queue`` with the given assignment (``{podSet: {resource: [flavor, mode]}}``)
    on a snapshot of every other workload -> {victim key: reason}."""
    inp = load_inputs(docs(objs), version=version)
    others = [w for k, w in inp.workloads.items() if k != key and w.has_quota_reservation]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts, inp.namespaces)
    info = workload_info(inp.workloads[key], cluster_queue)
    a = Assignment([PodSetAssignment(ps, {r: FlavorAssignment(f, MODES[m]) for r, (f, m)
                                          in fl.items()}, fits=False)
                    for ps, fl in assignment.items()])
    return {t.info.key: t.reason for t in get_targets(info, a, snap, BASE, Trace())}
