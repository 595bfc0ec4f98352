"""Workload controllers as actors of the simulator (DESIGN.md "Actors around the scheduler").

A scenario's Deployments, ReplicaSets, StatefulSets, Jobs and DaemonSets arrive at their
``kubepreempt.io/arrival`` time; their pods are the ones :mod:`kubepreempt.controllers.expand`
names and labels (shared with ``schedule -f``). The actor reacts to the world's pod and
node events and schedules its own timers on the kernel:

* ReplicaSet / Deployment (``manageReplicas``): keeps ``replicas`` active pods; a pod that
  is terminating (preempted, evicted) no longer counts as active (``FilterActivePods``),
  so its replacement is created at once, while the victim still exits.
* StatefulSet: a lost pod is recreated with the *same name* only once the old one is gone
  (one identity, one pod); ``OrderedReady`` creates the lowest missing ordinal and waits for
  it to be Running before the next (``Parallel`` creates all missing ones).
* Job (``manageJob``): ``min(parallelism, completions - succeeded)`` active pods; a
  Succeeded pod counts towards ``completions`` (Indexed: its index is done; new pods take
  the lowest pending index). A pod that ends Failed (preempted, evicted, node removed: the
  ``DisruptionTarget`` condition upstream sets) is matched against
  ``podFailurePolicy.rules`` in order (``onPodConditions`` ``DisruptionTarget``; actions
  ``Ignore``, ``Count``, ``FailJob``; ``onExitCodes`` rules never match: exit codes are
  not modelled); counted failures above ``backoffLimit`` (default 6) fail the Job and its
  active pods are terminated. Replacements wait the pod failure back-off (10 s doubling,
  at most 6 min, by the counted failures) and, with the default
  ``podReplacementPolicy`` (``TerminatingOrFailed``; ``Failed`` when a pod failure policy
  is set), are created once the pod is terminating (or gone).
* DaemonSet: a pod for every node where ``NodeShouldRunDaemonPod`` holds, at arrival and
  for each node added later; a lost pod is recreated once it is gone (a removed node's
  pod is not).

Every creation takes ``latency`` seconds (``--controller-latency``) and then passes the
apiserver's ResourceQuota admission (:mod:`kubepreempt.admission.quota`). A refused
creation is retried as the controllers' work queue does (``DefaultControllerRateLimiter``:
5 ms doubling to 1000 s per failure): retries before any pod of the namespace goes away
would meet the same quota, so the retry is simulated at the first back-off tick after
quota is freed — or at once when the pod that went was the controller's own (its delete
event enqueues the controller without rate limiting). Refusals are counted per namespace
and PriorityClass.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import Node, Pod, parse_pod
from kubepreempt.controllers.expand import (
    COMPLETION_INDEX,
    Expansion,
    Names,
    expand,
    expand_daemonset,
    pod_generate_name_with_index,
)
from kubepreempt.manifests import RawObject
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.scenario import (
    CONTROLLER_KINDS,
    DURATION,
    EXIT_AFTER,
    PodPlan,
    WorkloadPlan,
    _time,
    _usage,
)

if TYPE_CHECKING:
    from kubepreempt.sim.world import World

__all__ = ["CONTROLLER_KINDS", "Controllers", "WorkloadPlan"]
DEFAULT_BACKOFF_LIMIT = 6
JOB_BACKOFF = 10.0  # DefaultJobPodFailureBackOff
JOB_BACKOFF_MAX = 360.0  # MaxJobPodFailureBackOff
QUEUE_BASE, QUEUE_MAX = 0.005, 1000.0  # workqueue.DefaultControllerRateLimiter
DISRUPTION_TARGET = "DisruptionTarget"


@dataclass(slots=True, eq=False)
class Workload:
    """One controller's state."""

    kind: str
    key: str  # Kind/namespace/name
    namespace: str
    name: str
    body: Mapping[str, Any]
    source: Source
    templates: list[dict[str, Any]]  # pod manifests as first expanded
    pods: dict[str, Pod] = field(default_factory=dict)  # existing pods by key
    # creations scheduled, not yet done (upstream's expectations): name -> manifest
    flight: dict[str, dict[str, Any]] = field(default_factory=dict)
    taken: set[int] = field(default_factory=set)  # templates used (by position)
    parked: float | None = None  # quota refusal: time of the first refused attempt
    refusals: int = 0  # consecutive refusals (work queue back-off)
    created: int = 0
    # Job
    succeeded: int = 0
    failed: int = 0
    done_indexes: set[int] = field(default_factory=set)
    finished: str = ""  # Complete | Failed
    next_create: float = 0.0  # pod failure back-off ends
    ordered: bool = False  # StatefulSet OrderedReady


def _job_spec(w: Workload) -> Mapping[str, Any]:
    return w.body.get("spec") or {}


class Controllers(Actor):
    """The workload controllers of one simulation."""

    def __init__(self, world: World, plans: list[WorkloadPlan], latency: float = 0.0,
                 seed: int = 0) -> None:
        if latency < 0:
            raise InputError(f"--controller-latency must be >= 0, not {latency}")
        self.world = world
        self.latency = latency
        self.plans = plans
        taken = set(world.cluster.pods) | {p.pod.key for p in world.scen.pods}
        self.names = Names(seed, taken)
        self.workloads: dict[str, Workload] = {}
        self.owner: dict[str, Workload] = {}  # pod key -> its controller
        self.lost = 0  # controller-owned pods preempted, evicted or lost with a node
        self._disrupted: set[str] = set()  # pods with the DisruptionTarget condition
        self._counted: set[str] = set()  # Job pods already counted as failed
        self.incarnations: dict[str, int] = {}
        self.objects: dict[tuple[str, str], int] = {}  # (namespace, kind) -> objects
        replicasets = [p.obj.body for p in plans if p.obj.kind == "ReplicaSet"]
        self._replicasets = replicasets

    # ---- the world's hooks ----
    def start(self) -> None:
        """Push every workload's arrival."""
        for plan in self.plans:
            if _owned_by_deployment(plan.obj.body, self.plans):
                continue  # the Deployment's own ReplicaSet: read for its hash only
            self.world.kernel.schedule(plan.arrival, Priority.ARRIVE, self._on_arrive, plan)

    def on_bound(self, pod: Pod) -> None:
        """A pod bound: an OrderedReady StatefulSet may create its next pod."""
        w = self.owner.get(pod.key)
        if w is not None and w.ordered:
            self.sync(w)

    def on_terminating(self, pod: Pod, etype: str) -> None:
        """SIGTERM sent: ReplicaSets (and Jobs replacing terminating pods) act now."""
        w = self.owner.get(pod.key)
        if w is None:
            return
        if etype in (m.PREEMPTED, m.EVICTED):
            self._disrupted.add(pod.key)  # the DisruptionTarget condition
        if w.kind in ("ReplicaSet", "Deployment"):
            self.sync(w)
        elif w.kind == "Job" and not _replace_failed_only(w) and not w.finished:
            # isPodFailed: without a pod failure policy a deleted pod is failed already
            self._counted.add(pod.key)
            self._job_pod_ended(w, pod, "Failed")
            self.sync(w)

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
        """A pod left the cluster: account for it, then let its controller act."""
        self._unpark(pod.namespace)
        w = self.owner.pop(pod.key, None)
        if w is None:
            return
        w.pods.pop(pod.key, None)
        if etype == m.EVICTED:
            self._disrupted.add(pod.key)
        if pod.key in self._disrupted:
            self.lost += 1
        if w.kind == "Job" and not w.finished and pod.key not in self._counted:
            self._job_pod_ended(w, pod, phase)
        self._counted.discard(pod.key)
        self._disrupted.discard(pod.key)
        self.sync(w)

    def on_node_added(self, node: Node) -> None:
        """DaemonSets run a pod on a new node where they should."""
        for w in self.workloads.values():
            if w.kind == "DaemonSet":
                self.sync(w)

    def metrics(self) -> dict[str, Any]:
        """``metrics.controllers``."""
        jobs = {w.key: {"succeeded": w.succeeded, "failed": w.failed,
                        "status": w.finished or "Running"}
                for w in self.workloads.values() if w.kind == "Job"}
        return {"podsCreated": sum(w.created for w in self.workloads.values()),
                "podsLost": self.lost,
                "jobs": dict(sorted(jobs.items()))}

    # ---- events ----
    def _admit_object(self, kind: str, namespace: str, name: str) -> bool:
        """Object-count quota admission of a workload object; a refusal is an event."""
        n = self.objects.get((namespace, kind), 0)
        refusal = self.world.cluster.quota.admit_object(kind, namespace, name, n)
        if refusal is not None:
            self.world.record(m.QUOTA_REFUSED, f"{kind}/{namespace}/{name}", None, refusal)
            return False
        self.objects[(namespace, kind)] = n + 1
        return True

    def _on_arrive(self, plan: WorkloadPlan) -> None:
        obj = plan.obj
        cluster = self.world.cluster
        ns = obj.namespace or "default"
        if not self._admit_object(obj.kind, ns, obj.name):
            return  # the user's create failed: nobody retries it
        nodes = [n for n in cluster.nodes if n.name not in self.world.removed_nodes]
        exp: Expansion = expand(obj.body, self.names, nodes=nodes,
                                replicasets=self._replicasets, source=obj.source)
        for created in exp.created:
            meta = created.get("metadata") or {}
            if not self._admit_object(str(created.get("kind")), ns, str(meta.get("name"))):
                return  # the Deployment's ReplicaSet was refused: no pods
        for created in exp.created:
            cluster.spread_sources.add(str(created.get("kind")), created, obj.source)
        if obj.kind in ("ReplicaSet", "StatefulSet"):
            cluster.spread_sources.add(obj.kind, obj.body, obj.source)
        w = Workload(obj.kind, exp.key, exp.namespace, exp.name, obj.body, obj.source,
                     exp.pods, ordered=exp.ordered_ready)
        if w.key in self.workloads:
            raise InputError("duplicate object", obj.source, obj.kind,
                             f"{exp.namespace}/{exp.name}")
        self.workloads[w.key] = w
        if w.kind == "Job":
            spec = _job_spec(w)
            for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
                if not isinstance(rule, Mapping) or rule.get("action") not in (
                        "FailJob", "Ignore", "Count", "FailIndex"):
                    raise InputError("podFailurePolicy.rules: each rule needs an action "
                                     "FailJob, Ignore, Count or FailIndex", obj.source,
                                     "Job", f"{w.namespace}/{w.name}")
        self.sync(w)

    def _on_create(self, payload: tuple[Workload, dict[str, Any]]) -> None:
        w, manifest = payload
        if w.kind == "Job" and self.world.now < w.next_create:
            # failures meanwhile lengthened the back-off: the Job's sync (one per Job, for
            # all its pod events) waits for it
            self.world.kernel.schedule(w.next_create, Priority.ARRIVE, self._on_create, payload)
            return
        w.flight.pop(manifest["metadata"]["name"], None)
        world = self.world
        source = Source(f"{w.source}:{w.kind}/{w.name}", w.created)
        pod = parse_pod(world.cluster.runtime_classes.admit(manifest, source), source,
                        world.cluster.priority.resolve)
        refusal = world.admit(pod)
        if refusal is not None:
            self._refused(w, pod, refusal)
            for i, t in enumerate(w.templates):
                if t is manifest:
                    w.taken.discard(i)  # never created: the name is free again
            return
        w.refusals, w.parked = 0, None
        old = world.records.get(pod.key)
        if old is not None:  # a StatefulSet's pod again: keep the old life on record
            n = self.incarnations[pod.key] = self.incarnations.get(pod.key, 0) + 1
            world.records[f"{pod.key}~{n}"] = old
        raw = RawObject("Pod", manifest, source)
        plan = PodPlan(pod, world.now, _time(raw, DURATION, None), _time(raw, EXIT_AFTER, None),
                       usage=_usage(raw), admitted=True)
        w.pods[pod.key] = pod
        self.owner[pod.key] = w
        w.created += 1
        world.create(plan)
        if old is not None:
            world.records[pod.key].epoch = old.epoch + 1  # stale events of the old pod
        if w.ordered:
            self.sync(w)

    def _on_sync(self, w: Workload) -> None:
        self.sync(w)

    # ---- quota refusals ----
    def _refused(self, w: Workload, pod: Pod, message: str) -> None:
        self.world.record(m.QUOTA_REFUSED, pod.key, None, message)
        if w.parked is None:
            w.parked = self.world.now
        w.refusals += 1

    def _unpark(self, namespace: str) -> None:
        """Quota was freed in ``namespace``: parked controllers retry at their next
        work-queue back-off tick."""
        for w in self.workloads.values():
            if w.namespace != namespace or w.parked is None:
                continue
            t, step = w.parked, QUEUE_BASE
            while t < self.world.now:
                t += step
                step = min(step * 2, QUEUE_MAX)
            w.parked = None
            self.world.kernel.schedule(t, Priority.ARRIVE, self._on_sync, w)

    # ---- the controllers' sync ----
    def sync(self, w: Workload) -> None:
        """Create what the controller is missing (each after ``latency``)."""
        if w.parked is not None:
            return
        if w.kind in ("ReplicaSet", "Deployment"):
            active = sum(1 for p in w.pods.values() if not p.terminating)
            for _ in range(len(w.templates) - active - len(w.flight)):
                self._create(w, self._renamed(w, w.templates[0]))
        elif w.kind == "StatefulSet":
            self._sync_statefulset(w)
        elif w.kind == "Job":
            self._sync_job(w)
        elif w.kind == "DaemonSet":
            self._sync_daemonset(w)

    def _create(self, w: Workload, manifest: dict[str, Any], at: float | None = None) -> None:
        w.flight[manifest["metadata"]["name"]] = manifest
        self.world.kernel.schedule(max(self.world.now + self.latency, at or 0.0), Priority.ARRIVE,
                                 self._on_create,
                       (w, manifest))

    def _take(self, w: Workload, index: int | None = None) -> dict[str, Any] | None:
        """The first expanded pod not used yet (of completion index ``index``)."""
        for i, t in enumerate(w.templates):
            if i not in w.taken and (index is None or _manifest_index(t) == index):
                w.taken.add(i)
                return t
        return None

    def _renamed(self, w: Workload, template: dict[str, Any]) -> dict[str, Any]:
        """The next expanded pod, or a fresh copy of ``template`` under a new generated
        name once those are used."""
        first = self._take(w)
        if first is not None:
            return first
        out = copy.deepcopy(template)
        meta = out["metadata"]
        meta["name"] = self.names.generate(w.namespace, meta.get("generateName") or "")
        meta["uid"] = self.names.uid("Pod", w.namespace, meta["name"])
        return out

    def _sync_statefulset(self, w: Workload) -> None:
        for template in w.templates:
            name = template["metadata"]["name"]
            key = f"{w.namespace}/{name}"
            if name in w.flight:
                if w.ordered:
                    return
                continue
            pod = w.pods.get(key)
            if pod is None:
                self._create(w, template)
                if w.ordered:
                    return
                continue
            if w.ordered and (not pod.bound or pod.terminating):
                return  # OrderedReady: wait for this one to be Running (or gone)

    def _sync_daemonset(self, w: Workload) -> None:
        world = self.world
        have = {p.node_name or _pinned_node(p) for p in w.pods.values()}
        have |= {_pinned_manifest_node(t) for t in w.flight.values()}
        for node in sorted(world.cluster.nodes, key=lambda n: n.name):
            if node.name in world.removed_nodes or node.name in have:
                continue
            # NodeShouldRunDaemonPod is checked by the expansion (no pod when it fails)
            exp = expand_daemonset(w.body, self.names, [node])
            if exp.pods:
                self._create(w, exp.pods[0])

    # ---- Jobs ----
    def _job_pod_ended(self, w: Workload, pod: Pod, phase: str) -> None:
        index = _index(pod)
        if phase == "Succeeded":
            w.succeeded += 1
            if index is not None:
                w.done_indexes.add(index)
            return
        action = "Count"
        disrupted = pod.key in self._disrupted
        for rule in (_job_spec(w).get("podFailurePolicy") or {}).get("rules") or []:
            conds = rule.get("onPodConditions") or []
            if disrupted and any(c.get("type") == DISRUPTION_TARGET
                                 and str(c.get("status", "True")) == "True" for c in conds):
                action = str(rule["action"])
                break
        if action == "Ignore":
            return
        if action == "FailJob":
            self._fail_job(w, "PodFailurePolicy")
            return
        w.failed += 1
        limit = _job_spec(w).get("backoffLimit")
        limit = DEFAULT_BACKOFF_LIMIT if limit is None else int(limit)
        if w.failed > limit:
            self._fail_job(w, "BackoffLimitExceeded")
            return
        delay = min(JOB_BACKOFF * 2 ** (w.failed - 1), JOB_BACKOFF_MAX)
        w.next_create = max(w.next_create, self.world.now + delay)

    def _fail_job(self, w: Workload, reason: str) -> None:
        """The Job failed: its active pods are deleted (pending ones leave the queue)."""
        w.finished = "Failed"
        for pod in list(w.pods.values()):
            self.world.delete(pod, f"job failed: {reason}")

    def _sync_job(self, w: Workload) -> None:
        if w.finished:
            return
        spec = _job_spec(w)
        parallelism = 0 if spec.get("suspend") else (
            1 if spec.get("parallelism") is None else int(spec["parallelism"]))
        completions = spec.get("completions")
        if completions is not None and w.succeeded >= int(completions):
            w.finished = "Complete"
            return
        if completions is None and w.succeeded:
            if not w.pods:
                w.finished = "Complete"
            return
        replace_failed_only = _replace_failed_only(w)
        active = [p for p in w.pods.values()
                  if not (p.terminating and not replace_failed_only)]
        left = parallelism if completions is None else min(
            parallelism, int(completions) - w.succeeded)
        need = left - len(active) - len(w.flight)
        if need <= 0:
            return
        indexed = spec.get("completionMode") == "Indexed"
        busy = {_index(p) for p in active} | {_manifest_index(t) for t in w.flight.values()}
        for _ in range(need):
            template = w.templates[0] if w.templates else None
            if template is None:
                return
            if indexed:
                index = next(i for i in range(int(completions))
                             if i not in w.done_indexes and i not in busy)
                busy.add(index)
                manifest = self._indexed(w, template, index)
            else:
                manifest = self._renamed(w, template)
            self._create(w, manifest, at=w.next_create)

    def _indexed(self, w: Workload, template: dict[str, Any], index: int) -> dict[str, Any]:
        first = self._take(w, index)
        if first is not None:
            return first
        out = copy.deepcopy(template)
        meta = out["metadata"]
        meta["annotations"][COMPLETION_INDEX] = str(index)
        meta["labels"][COMPLETION_INDEX] = str(index)
        out["spec"]["hostname"] = f"{w.name}-{index}"
        meta["generateName"] = pod_generate_name_with_index(w.name, index)
        meta["name"] = self.names.generate(w.namespace, meta["generateName"])
        meta["uid"] = self.names.uid("Pod", w.namespace, meta["name"])
        return out


def _replace_failed_only(w: Workload) -> bool:
    """``onlyReplaceFailedPods``: podReplacementPolicy Failed, the default with a pod
    failure policy."""
    spec = _job_spec(w)
    return bool(spec.get("podFailurePolicy")) or spec.get("podReplacementPolicy") == "Failed"


def _index(pod: Pod) -> int | None:
    raw = pod.annotations.get(COMPLETION_INDEX)
    return int(raw) if raw is not None and raw.isdigit() else None


def _manifest_index(manifest: Mapping[str, Any]) -> int | None:
    raw = ((manifest.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX)
    return int(raw) if isinstance(raw, str) and raw.isdigit() else None


def _pinned_node(pod: Pod) -> str:
    return _pinned_manifest_node(pod.raw)


def _pinned_manifest_node(manifest: Mapping[str, Any]) -> str:
    """The node a daemon pod's ``metadata.name`` node affinity pins it to."""
    try:
        terms = manifest["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        return str(terms[0]["matchFields"][0]["values"][0])
    except (KeyError, IndexError, TypeError):
        return ""


def _owned_by_deployment(body: Mapping[str, Any], plans: list[WorkloadPlan]) -> bool:
    if body.get("kind") != "ReplicaSet":
        return False
    refs = (body.get("metadata") or {}).get("ownerReferences") or []
    deployments = {(p.obj.namespace or "default", p.obj.name) for p in plans
                   if p.obj.kind == "Deployment"}
    ns = (body.get("metadata") or {}).get("namespace") or "default"
    return any(isinstance(r, Mapping) and r.get("kind") == "Deployment"
               and (ns, r.get("name")) in deployments for r in refs)
