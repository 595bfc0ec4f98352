"""The top-level Kueue decision for one workload: admit, preempt, or stay pending.

:func:`load_inputs` builds typed objects from loaded manifests (read as current Kueue
or v0.7.0); :func:`decide` resolves the workload's LocalQueue and ClusterQueue, then
runs the scheduler's nomination on a snapshot of every other workload
(:func:`~kubepreempt.kueue.nomination.nominate`: validation, flavors, preemption
targets), the same nomination the simulator's cycles run.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.priority import parse_priority_class
from kubepreempt.kueue.conditions import preempted_conditions
from kubepreempt.kueue.dominant_share import dominant_resource_share
from kubepreempt.kueue.flavors import Assignment, Mode
from kubepreempt.kueue.jobs import JOB_KINDS, is_queued_job, job_workload_body
from kubepreempt.kueue.nomination import admitted_info, nominate
from kubepreempt.kueue.objects import (
    PC_SOURCE,
    WPC_SOURCE,
    ClusterQueue,
    Cohort,
    KueueConfig,
    LocalQueue,
    ResourceFlavor,
    Workload,
    WorkloadPriorityClass,
    conversion_warnings,
    parse_cluster_queue,
    parse_cohort,
    parse_configuration,
    parse_local_queue,
    parse_resource_flavor,
    parse_workload,
    parse_workload_priority_class,
)
from kubepreempt.kueue.preemption.common import Target, Trace
from kubepreempt.kueue.quota import (
    CohortState,
    CQState,
    Snapshot,
    Usage,
    WorkloadInfo,
    queue_path,
    workload_info,
)
from kubepreempt.kueue.semantics import CURRENT, Semantics, semantics_for
from kubepreempt.manifests import Documents, RawObject, reading

KINDS = ("ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass",
         "Workload", "Configuration", "PriorityClass", "Namespace")
# Read from files too: queued batch/v1 Jobs and JobSets (a live cluster's Jobs are not
# listed; their Workloads are).
FILE_KINDS = (*KINDS, *JOB_KINDS)


@dataclass(slots=True)
class KueueInputs:
    """Typed Kueue objects from the input manifests."""

    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    cluster_queues: dict[str, ClusterQueue] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], LocalQueue] = field(default_factory=dict)
    priority_classes: dict[str, WorkloadPriorityClass] = field(default_factory=dict)
    workloads: dict[str, Workload] = field(default_factory=dict)
    config: KueueConfig = field(default_factory=KueueConfig)
    cohorts: dict[str, Cohort] = field(default_factory=dict)
    # Namespace -> labels, for the ClusterQueues' namespaceSelector.
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    # A queued Job's or JobSet's namespace/name -> the key of its Workload (derived from
    # it, or a Workload the job owns).
    job_workloads: dict[str, str] = field(default_factory=dict)

    @property
    def semantics(self) -> Semantics:
        """The Kueue release the decisions follow."""
        return self.config.semantics


def load_inputs(docs: Documents, config: KueueConfig | None = None,
                version: str = CURRENT) -> KueueInputs:
    """Parse every Kueue object in ``docs`` (one-line InputErrors on bad objects), read as
    Kueue ``version`` (``current`` or ``v0.7``) reads them. An explicit ``config`` carries
    its own semantics."""
    sem = config.semantics if config is not None else semantics_for(version)
    out = KueueInputs()
    for line in conversion_warnings((o for kind in KINDS for o in docs.of(kind)), sem):
        print(line, file=sys.stderr)
    for obj in docs.of("ResourceFlavor"):
        with reading(obj):
            rf = parse_resource_flavor(obj)
        out.flavors[rf.name] = rf
    for obj in docs.of("ClusterQueue"):
        with reading(obj):
            cq = parse_cluster_queue(obj, sem)
        out.cluster_queues[cq.name] = cq
    if sem.hierarchical_cohorts:
        for obj in docs.of("Cohort"):
            co = parse_cohort(obj, sem)
            out.cohorts[co.name] = co
    for obj in docs.of("LocalQueue"):
        with reading(obj):
            lq = parse_local_queue(obj)
        out.local_queues[(lq.namespace, lq.name)] = lq
    for obj in docs.of("WorkloadPriorityClass"):
        with reading(obj):
            wpc = parse_workload_priority_class(obj)
        out.priority_classes[wpc.name] = wpc
    for obj in docs.of("Namespace"):
        labels = (obj.body.get("metadata") or {}).get("labels") or {}
        out.namespaces[obj.name] = {str(k): str(v) for k, v in dict(labels).items()}
    pod_classes: dict[str, int] = {}
    for obj in docs.of("PriorityClass"):
        with reading(obj):
            pc = parse_priority_class(obj.body, obj.source)
        pod_classes[pc.name] = pc.value
    configs = docs.of("Configuration")
    if len(configs) > 1:
        raise InputError("more than one Configuration document", configs[1].source,
                         "Configuration")
    if config is not None:
        out.config = config
    elif configs:
        with reading(configs[0]):
            out.config = parse_configuration(configs[0], sem)
        for what in out.config.ignored:
            print(f"warning: {configs[0].source}: Configuration {what}", file=sys.stderr)
    else:
        out.config = KueueConfig(lending_limit=sem.lending_limit_default, semantics=sem)

    def resolve(name: str, source: str) -> int:
        if source in ("", WPC_SOURCE) and name in out.priority_classes:
            return out.priority_classes[name].value
        if source in ("", PC_SOURCE) and name in pod_classes:
            return pod_classes[name]
        raise ValueError(f"unknown priority class {name!r} (spec.priorityClassName)")

    owned: set[tuple[str, str, str]] = set()  # jobs whose Workload is among the inputs
    for obj in docs.of("Workload"):
        with reading(obj):
            wl = parse_workload(obj, resolve, sem)
        out.workloads[wl.key] = wl
        for ref in (obj.body.get("metadata") or {}).get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("kind") in JOB_KINDS:
                owned.add((str(ref["kind"]), wl.namespace, str(ref.get("name"))))
                # --workload may name the job: its Workload (upstream: NAME plus a hash,
                # as a live cluster lists it) is found through the owner reference.
                out.job_workloads.setdefault(f"{wl.namespace}/{ref.get('name')}", wl.key)
    for obj in [o for kind in JOB_KINDS for o in docs.of(kind)]:
        namespace = obj.namespace or "default"
        if not is_queued_job(obj) or (obj.kind, namespace, obj.name) in owned:
            continue
        with reading(obj):
            wl = parse_workload(RawObject("Workload", job_workload_body(obj), obj.source),
                                resolve, sem)
        wl.job_uid = obj.name
        out.workloads[wl.key] = wl
        out.job_workloads[f"{namespace}/{obj.name}"] = wl.key
    return out


@dataclass(slots=True)
class Decision:
    """What Kueue does with one workload; :meth:`to_json` is the CLI's contract."""

    workload: str
    cluster_queue: str | None
    result: str  # "admit" | "preempt" | "pending"
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    borrowing: bool = False
    targets: list[Target] = field(default_factory=list)
    message: str = ""
    mode: str = ""
    trace: Trace = field(default_factory=Trace)
    explain: dict[str, Any] = field(default_factory=dict)
    preemptor_uid: str = ""
    preemptor_job_uid: str = ""
    detailed_conditions: bool = False
    paths: dict[str, str] = field(default_factory=dict)  # ClusterQueue -> /root/.../queue
    now: float = 0.0
    requests: Usage = field(default_factory=dict)  # flavor -> resource -> amount

    @property
    def victims(self) -> list[str]:
        """Preempted workloads, sorted ``namespace/name``."""
        return sorted(t.info.key for t in self.targets)

    @property
    def reasons(self) -> dict[str, str]:
        """Victim -> detailed preemption reason."""
        return {t.info.key: t.reason for t in sorted(self.targets, key=lambda t: t.info.key)}

    def to_json(self) -> dict[str, Any]:
        """The stable JSON object the CLI prints."""
        return {"workload": self.workload, "clusterQueue": self.cluster_queue,
                "result": self.result, "flavors": self.flavors, "borrowing": self.borrowing,
                "victims": self.victims, "reasons": self.reasons, "message": self.message,
                "mode": self.mode}

    def victim_status(self) -> dict[str, dict[str, Any]]:
        """Each victim's ``status.conditions`` as Kueue leaves them (detailed reasons
        and messages in current Kueue, v0.7's otherwise)."""
        out = {}
        for t in sorted(self.targets, key=lambda t: t.info.key):
            paths = (self.paths.get(self.cluster_queue or "", ""),
                     self.paths.get(t.info.cluster_queue, "")) \
                if self.detailed_conditions else None
            out[t.info.key] = {"conditions": preempted_conditions(
                t.info.obj, self.preemptor_uid, self.preemptor_job_uid, t.reason,
                t.info.cluster_queue == self.cluster_queue, self.now, paths)}
        return out


def _quota_table(snap: Snapshot, names: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in names:
        st = snap.cqs[name]
        for rg in st.spec.resource_groups:
            for fq in rg.flavors:
                for res, q in fq.resources.items():
                    rows.append({"clusterQueue": name, "flavor": fq.name, "resource": res,
                                 "nominal": q.nominal, "borrowingLimit": q.borrowing_limit,
                                 "usage": st.used(fq.name, res)})
    return rows


def _shares(snap: Snapshot, names: list[str]) -> dict[str, int]:
    """Weighted shares as ``status.fairSharing.weightedShare`` shows them."""
    if snap.config.semantics.fair_sharing_tree:
        return {n: dominant_resource_share(snap.cqs[n]).rounded() for n in names}
    return {n: snap.cqs[n].dominant_resource_share()[0] for n in names}


def _related(st: CQState) -> list[str]:
    """The queues of the preemptor's cohort tree."""
    root = st.root()
    if root is st:
        return [st.name]
    assert isinstance(root, CohortState)
    return sorted(m.name for m in root.subtree_cluster_queues())


def decide(inputs: KueueInputs, key: str, now: float | None = None) -> Decision:
    """Decide what Kueue (the inputs' release) does with workload ``key``
    (``namespace/name``) at ``now`` (default: the current time)."""
    now = time.time() if now is None else now
    if key not in inputs.workloads:  # a queued Job names its Workload
        key = inputs.job_workloads.get(key, key)
    wl = inputs.workloads.get(key)
    if wl is None:
        raise InputError(f"workload {key} not found in the input", kind="Workload", name=key)
    d = Decision(key, None, "pending", preemptor_uid=wl.uid, now=now,
                 preemptor_job_uid=wl.job_uid,
                 detailed_conditions=inputs.semantics.detailed_preempted_condition)
    if wl.has_quota_reservation:
        d.cluster_queue = wl.admission_cq
        d.result = "admit"
        d.flavors = {a.name: dict(sorted(a.flavors.items())) for a in wl.assignments}
        d.message = "the workload already holds a quota reservation"
        return d
    lq = inputs.local_queues.get((wl.namespace, wl.queue_name))
    if lq is None:
        d.message = f"LocalQueue {wl.queue_name} doesn't exist" if wl.queue_name else \
            "the workload has no spec.queueName"
        return d
    d.cluster_queue = lq.cluster_queue
    if lq.cluster_queue not in inputs.cluster_queues:
        d.message = f"ClusterQueue {lq.cluster_queue} doesn't exist"
        return d
    others = [w for k, w in inputs.workloads.items() if k != key]
    snap = Snapshot(inputs.cluster_queues.values(), inputs.flavors, others, inputs.config,
                    inputs.cohorts, inputs.namespaces)
    info = workload_info(wl, lq.cluster_queue)
    e = nominate(info, wl.pod_sets, snap, inputs.flavors, now, d.trace)
    d.message = e.message
    assignment = e.assignment
    if assignment is None:
        return d
    st = snap.cqs[lq.cluster_queue]
    d.flavors = assignment.flavors()
    d.requests = assignment.total_requests_for(info)
    d.borrowing = assignment.borrowing
    d.mode = str(assignment.mode)
    related = _related(st)
    d.explain = {"quotas": _quota_table(snap, related), "sharesBefore": _shares(snap, related),
                 "fairSharing": inputs.config.fair_sharing}
    if assignment.mode == Mode.FIT:
        d.result = "admit"
        d.message = ""
        _explain_after(d, snap, info, assignment, related)
        return d
    if assignment.mode == Mode.NO_FIT:
        return d
    d.targets = e.targets
    if not d.targets:
        d.message += "; no preemption targets found" if d.message else "no targets found"
        return d
    d.result = "preempt"
    for name in {st.name, *(t.info.cluster_queue for t in d.targets)}:
        d.paths[name] = queue_path(snap.cqs[name])
    _explain_after(d, snap, info, assignment, related)
    return d


def _explain_after(d: Decision, snap: Snapshot, info: WorkloadInfo, assignment: Assignment,
                   related: list[str]) -> None:
    """Shares once the victims are gone and the workload is admitted (then undone)."""
    for t in d.targets:
        snap.remove_workload(t.info)
    admitted = admitted_info(info, assignment)
    snap.add_workload(admitted)
    d.explain["sharesAfter"] = _shares(snap, related)
    d.explain["quotasAfter"] = _quota_table(snap, related)
    snap.remove_workload(admitted)
    for t in d.targets:
        snap.add_workload(t.info)
