"""Kueue as an actor of the simulator: quota admission over time, then kube-scheduler.

Workloads (plain ``Workload`` objects, or ``batch/v1`` Jobs and JobSets labelled
``kueue.x-k8s.io/queue-name`` turned into Workloads as Kueue's job integrations do,
:mod:`kubepreempt.kueue.jobs`) wait in their ClusterQueue's
queue (:class:`~kubepreempt.kueue.queue_manager.QueueManager`). Each Kueue scheduling
cycle pops the head of every ClusterQueue with pending workloads and runs Kueue's
scheduler on them (:mod:`kubepreempt.kueue.scheduler`: nomination, order, admit or
preempt); the heads not admitted are requeued per queueing strategy. A head that is not
nominated (inactive ClusterQueue, namespace excluded by the ClusterQueue's
``namespaceSelector``, resource validation failed) is reported once as
``inadmissible`` with the reason.

The loop backs off as ``wait.UntilWithBackoff`` (1 ms doubling to 100 ms after a cycle
that admits nothing). A cycle that changed nothing is not repeated until something
changes (its answer would be the same), so idle waits cost no events.

An admitted workload's pods are created with the flavors' ``nodeLabels`` added to their
``nodeSelector`` and the flavors' ``tolerations`` appended, then go through the
simulated kube-scheduler. A preempted workload gets ``Evicted``/``Preempted``
conditions and its pods are deleted (they terminate with their grace period). When its
quota is released depends on the integration, as upstream's job reconciler clears the
admission once ``job.IsActive()`` is false: a Job (``status.active`` counts no
terminating pod) is inactive as soon as its pods are deleted, so its quota is released
:data:`RECONCILE_DELAY` (plus ``--controller-latency``, the Job controller's sync) after
the eviction, while its pods still terminate; a plain Workload stands for the Pod
integration (a pod is active while Running) and its quota is released once the last
pod is gone. Then the workload is requeued. A workload finishes when all its pods
succeeded. A pod lost otherwise (preempted by kube-scheduler, node removed) is
replaced while the workload stays admitted, as the Job controller does.
"""

from __future__ import annotations

import copy
import math
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod, parse_pod
from kubepreempt.kueue.admission import KueueInputs, load_inputs
from kubepreempt.kueue.conditions import preempted_conditions
from kubepreempt.kueue.dominant_share import dominant_resource_share
from kubepreempt.kueue.jobs import JobPodSet, job_pod_sets, job_workload_body
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.objects import (
    PC_SOURCE,
    WPC_SOURCE,
    Condition,
    Workload,
    conversion_warnings,
    parse_workload,
)
from kubepreempt.kueue.queue_manager import QueueManager
from kubepreempt.kueue.quota import (
    CohortState,
    CQState,
    Snapshot,
    WorkloadInfo,
    queue_path,
    workload_info,
)
from kubepreempt.kueue.scheduler import ASSUMED, nominate_heads, requeue_reason, schedule
from kubepreempt.kueue.semantics import semantics_for
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.kueue_metrics import kueue_metrics
from kubepreempt.sim.scenario import (
    ARRIVAL,
    DURATION,
    EXIT_AFTER,
    PodPlan,
    _arrivals,
    _replicas,
    _time,
)

if TYPE_CHECKING:
    from kubepreempt.sim.world import World

# wait.UntilWithBackoff: 1 ms after the first cycle that admits nothing, doubling to 100 ms.
INITIAL_BACKOFF = 0.001
MAX_BACKOFF = 0.1
# A simplification: the time from a Job's eviction to its admission being cleared.
# Upstream this is a chain of watches and API writes (Kueue's job reconciler suspends the
# Job, the Job controller deletes its pods and writes status.active = 0, the reconciler
# sees the inactive Job and unsets QuotaReserved, the cache releases the quota); taken as
# one fixed delay so that a preemption, the release and the next admission never happen
# at one instant (a configuration that flaps would otherwise loop without time passing).
RECONCILE_DELAY = 1.0
# How an integration's workload gives back its quota after an eviction.
RELEASE_WHEN_INACTIVE = "job"  # batch/v1 Job: when no pod is active (terminating ones aren't)
RELEASE_WHEN_GONE = "pod"  # the Pod integration: when no pod is Running any more


@dataclass(slots=True)
class SimWorkload:
    """One workload's life: its Kueue object, pods, and what happened to it."""

    wl: Workload
    pod_sets: tuple[JobPodSet, ...]  # name, pod count and pod template of each pod set
    # The pods' name prefix per pod set; None: the Workload's name (one pod set). A bulk
    # caller adds tens of thousands of workloads, and every container made per workload
    # is work for the collector over the whole run (kueue-baseline: 5 % of its time).
    pod_prefixes: tuple[str, ...] | None
    duration: float | None
    exit_after: float | None
    release: str = RELEASE_WHEN_GONE  # RELEASE_WHEN_INACTIVE for Jobs
    state: str = "pending"  # pending, admitted, evicting, finished
    queued_at: float = 0.0
    cluster_queue: str = ""
    info: WorkloadInfo | None = None  # while it holds quota
    pods: dict[str, Pod] = field(default_factory=dict)  # live pods by key
    # live pod -> its pod set, kept only with several pod sets (made on the first pod)
    pod_set_of: dict[str, int] | None = None
    succeeded: int = 0
    created: int = 0  # pods created so far (names)
    admitted_at: float | None = None
    running: int = 0
    admissions: list[dict[str, Any]] = field(default_factory=list)
    preemptions: list[dict[str, Any]] = field(default_factory=list)
    # (state of its cohort tree, its own state) -> the nomination made on that state
    nomination: tuple[tuple[int, int], Entry] | None = None
    inadmissible: str = ""  # why it was last not nominated (reported once per reason)

    @property
    def count(self) -> int:
        """Pods of all pod sets."""
        return sum(ps.count for ps in self.pod_sets)

    def flavors(self, pod_set: int) -> dict[str, str]:
        """The flavor of each resource of pod set number ``pod_set`` (while admitted)."""
        assert self.info is not None, "flavors are known while the workload holds quota"
        return self.info.total_requests[pod_set].flavors

    def pod_prefix(self, pod_set: int) -> str:
        """The name prefix of pod set number ``pod_set``'s pods."""
        return self.wl.name if self.pod_prefixes is None else self.pod_prefixes[pod_set]

    def add_pod(self, pod: Pod, pod_set: int) -> None:
        """A live pod of pod set number ``pod_set``."""
        self.pods[pod.key] = pod
        if len(self.pod_sets) > 1:
            if self.pod_set_of is None:
                self.pod_set_of = {}
            self.pod_set_of[pod.key] = pod_set

    def drop_pod(self, key: str) -> int | None:
        """Forget live pod ``key``: its pod set number, None if it was not live."""
        if self.pods.pop(key, None) is None:
            return None
        return 0 if self.pod_set_of is None else self.pod_set_of.pop(key)

    def drop_pods(self) -> None:
        """Forget every live pod (an inactive Job's pods terminate on their own)."""
        self.pods.clear()
        if self.pod_set_of is not None:
            self.pod_set_of.clear()


class KueueActor(Actor):
    """Kueue's scheduler, queue manager and Job integration in the simulation."""

    def __init__(self, world: World, docs: Documents, version: str,
                 controller_latency: float = 0.0) -> None:
        self.world = world
        self.sem = semantics_for(version)
        # Eviction -> quota released, for workloads released when inactive (Jobs).
        self.release_delay = controller_latency + RECONCILE_DELAY
        # Podless (Kueue's own scheduler benchmark, "minimalkueue"): an admitted workload
        # creates no pods and finishes its duration after admission.
        self.podless = False
        self.started = False
        wl_docs = docs.of("Workload")
        jobs = [*docs.of("Job"), *docs.of("JobSet")]
        base = Documents()
        for kind, objs in docs.by_kind.items():
            if kind not in ("Workload", "Job", "JobSet"):
                for obj in objs:
                    base.add(obj)
        self.inputs: KueueInputs = load_inputs(base, version=version)
        for line in conversion_warnings(wl_docs, self.sem):  # the rest warned as loaded
            print(line, file=sys.stderr)
        self.tolerations = {
            obj.name: list((obj.body.get("spec") or {}).get("tolerations") or [])
            for obj in docs.of("ResourceFlavor")}
        self.snap = Snapshot(self.inputs.cluster_queues.values(), self.inputs.flavors, [],
                             self.inputs.config, self.inputs.cohorts, self.inputs.namespaces)
        self.workloads: dict[str, SimWorkload] = {}
        self.arrivals: list[tuple[float, SimWorkload]] = []
        self.pod_owner: dict[str, SimWorkload] = {}
        self._shared_pod_sets: dict[tuple[str, int], tuple[JobPodSet, ...]] = {}
        self.queues: QueueManager[SimWorkload] = QueueManager(
            {name: cq.queueing_strategy for name, cq in self.inputs.cluster_queues.items()},
            self._root, self.sem.admission_check_eviction_orders,
            self.sem.uid_queue_tie_break)
        self.to_release: list[SimWorkload] = []
        self.tree_version: dict[str, int] = {}
        self.backoff = 0.0
        self.cycle_pending = False
        self.spinning = False  # the loop has pending heads (else it blocks in Heads)
        self.last_cycle = 0.0
        self.dirty = True  # something changed since the last cycle that changed nothing
        self.cycles = 0
        self.events: list[dict[str, Any]] = []
        self.series: dict[str, list[tuple[float, float, float]]] = {}  # cq -> (t, borrowed, share)
        self.cohort_series: dict[str, list[tuple[float, float]]] = {}
        # cohort -> (its ClusterQueues, their nominal quota per resource): the tree and
        # its quotas are fixed for the run, and every sample of a cohort asks for them.
        self.cohort_quota: dict[str, tuple[list[CQState], dict[str, int]]] = {}
        # cq -> "flavor/resource" -> [(t, usage in canonical units)], at changes only
        self.usage_series: dict[str, dict[str, list[tuple[float, int]]]] = {}
        # cq -> [usage integral (units x s), time of the last change, current usage]
        self.usage_ms: dict[str, list] = {}
        for obj in wl_docs:
            self._add_workload_objects(obj)
        for obj in jobs:
            self._add_job_objects(obj)

    # ---- input ----
    def _resolve(self, name: str, source: str) -> int:
        if source in ("", WPC_SOURCE) and name in self.inputs.priority_classes:
            return self.inputs.priority_classes[name].value
        pcs = self.world.cluster.priority
        if source in ("", PC_SOURCE):
            value, _ = pcs.resolve({"priorityClassName": name})
            return value
        raise ValueError(f"unknown priority class {name!r}")

    def _timing(self, obj: RawObject, template: dict[str, Any]) -> tuple[float | None,
                                                                          float | None]:
        tmeta = template.get("metadata") or {}
        tann = tmeta.get("annotations") or {}
        fake = RawObject(obj.kind, {"metadata": {"name": obj.name, "annotations": {
            **tann, **((obj.body.get("metadata") or {}).get("annotations") or {})}}},
            obj.source)
        return _time(fake, DURATION, None), _time(fake, EXIT_AFTER, None)

    def _copies(self, obj: RawObject) -> list[tuple[str, float]]:
        """(name, arrival) per copy: the ``replicas``/``interval``/``rate`` annotations."""
        start = _time(obj, ARRIVAL, 0.0) or 0.0
        n = _replicas(obj)
        ann = (obj.body.get("metadata") or {}).get("annotations") or {}
        if n == 1 and "kubepreempt.io/rate" not in ann:
            return [(obj.name, start)]
        times = _arrivals(obj, start, n, self.world.scen.rng)
        return [(f"{obj.name}-{i}", t) for i, t in enumerate(times)]

    def _add_workload_objects(self, obj: RawObject) -> None:
        copies = self._copies(obj)
        for name, t in copies:
            body = obj.body if len(copies) == 1 else copy.deepcopy(obj.body)
            if len(copies) > 1 or "status" in body:
                body = {**body, "metadata": {**body["metadata"], "name": name}}
                body.pop("status", None)
            wl = parse_workload(RawObject("Workload", body, obj.source), self._resolve,
                                self.sem)
            pod_sets = tuple(JobPodSet(ps.name, ps.count, raw.get("template") or {})
                             for ps, raw in zip(wl.pod_sets, body["spec"]["podSets"],
                                                strict=True))
            # A Workload named like a Job's (job-NAME) names its pods after NAME.
            base = wl.name[4:] if wl.name.startswith("job-") else wl.name
            prefixes = (base,) if len(pod_sets) == 1 else tuple(
                f"{base}-{ps.name}" for ps in pod_sets)
            # Timing annotations: the Workload's, else its first pod template's.
            duration, exit_after = self._timing(obj, pod_sets[0].template)
            self._plan(SimWorkload(wl, pod_sets, prefixes, duration, exit_after), t)

    def _add_job_objects(self, obj: RawObject) -> None:
        pod_sets = tuple(job_pod_sets(obj))
        # Timing annotations: the Job's (JobSet's), else its first pod template's.
        duration, exit_after = self._timing(obj, pod_sets[0].template)
        for name, t in self._copies(obj):
            body = job_workload_body(obj, name)
            wl = parse_workload(RawObject("Workload", body, obj.source), self._resolve,
                                self.sem)
            # Pods are named as their controllers name them, less the hashes: NAME-i for
            # a Job, NAME-REPLICATEDJOB-i for a JobSet.
            prefixes = (name,) if obj.kind == "Job" else tuple(
                f"{name}-{ps.name}" for ps in pod_sets)
            sw = SimWorkload(wl, pod_sets, prefixes, duration, exit_after,
                             RELEASE_WHEN_INACTIVE)
            sw.wl.job_uid = name
            self._plan(sw, t)

    def _plan(self, sw: SimWorkload, t: float) -> None:
        if sw.wl.key in self.workloads:
            raise InputError("duplicate object", sw.wl.source, "Workload", sw.wl.key)
        sw.wl.uid = sw.wl.uid or sw.wl.key
        self.workloads[sw.wl.key] = sw
        self.arrivals.append((t, sw))
        if self.started:
            self.world.kernel.schedule(t, Priority.ARRIVE, self._on_arrive, sw)

    def add_workload(self, wl: Workload, arrival: float, duration: float | None) -> None:
        """Add a parsed single-pod-set Workload arriving at ``arrival`` (bulk callers
        such as the benchmark build Workloads directly)."""
        ps = wl.pod_sets[0]
        # One frozen pod-set tuple per (name, count), shared: a bulk caller adds thousands
        # of workloads, and a copy each was a measurable share of the collector's work.
        pod_sets = self._shared_pod_sets.get((ps.name, ps.count))
        if pod_sets is None:
            pod_sets = self._shared_pod_sets[(ps.name, ps.count)] = (
                JobPodSet(ps.name, ps.count, {}),)
        self._plan(SimWorkload(wl, pod_sets, None, duration, None), arrival)

    # ---- actor hooks ----
    def start(self) -> None:
        """Push every workload's arrival."""
        self.started = True
        for t, sw in self.arrivals:
            # with the pods' arrivals
            self.world.kernel.schedule(t, Priority.ARRIVE, self._on_arrive, sw)

    def on_bound(self, pod: Pod) -> None:
        """Count running pods; the last one starting is the workload's 'all running'."""
        sw = self.pod_owner.get(pod.key)
        if sw is None or sw.state != "admitted":
            return
        sw.running += 1
        if sw.running == sw.count and sw.admissions:
            sw.admissions[-1]["allRunning"] = self.world.now

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
        """A workload's pod left: completion, the end of an eviction, or a replacement."""
        sw = self.pod_owner.pop(pod.key, None)
        if sw is None or (pod_set := sw.drop_pod(pod.key)) is None:
            return
        if self.world.records[pod.key].bound_at is not None:
            sw.running = max(0, sw.running - 1)
        if sw.state == "evicting":
            if not sw.pods:
                self._release(sw)
                self._requeue_evicted(sw)
            return
        if sw.state != "admitted":
            return
        if phase == "Succeeded":
            sw.succeeded += 1
            if sw.succeeded >= sw.count:
                self._finish(sw)
        else:  # the Job controller replaces a pod it lost
            self._create_pods(sw, pod_set, 1)

    # ---- queues ----
    def _on_arrive(self, sw: SimWorkload) -> None:
        now = self.world.now
        sw.wl.creation = now
        sw.queued_at = now
        self._event("created", sw, f"queue {sw.wl.queue_name}")
        lq = self.inputs.local_queues.get((sw.wl.namespace, sw.wl.queue_name))
        if lq is None or not self.queues.has_queue(lq.cluster_queue):
            why = f"LocalQueue {sw.wl.queue_name} doesn't exist" if lq is None else \
                f"ClusterQueue {lq.cluster_queue} doesn't exist"
            self._event("inadmissible", sw, why)
            return
        sw.cluster_queue = lq.cluster_queue
        self._push_active(sw)

    def _push_active(self, sw: SimWorkload) -> None:
        self.queues.push(sw.cluster_queue, sw.wl, sw)
        self._changed()

    def _queue_inadmissible(self, cq_name: str) -> None:
        """Quota was released in ``cq_name``'s cohort tree: its inadmissible workloads
        go back to their heaps."""
        if self.queues.queue_inadmissible(cq_name, lambda sw: sw.wl):
            self._changed()

    def _requeue(self, e: Entry) -> None:
        sw = self.workloads[e.key]
        if e.assignment is None and sw.inadmissible != e.message:
            sw.inadmissible = e.message
            self._event("inadmissible", sw, e.message)
        # Back to the heap: the same head, the same answer (nothing changed). Parked as
        # inadmissible: the queue has a new head, so the next cycle differs.
        if self.queues.requeue(sw.cluster_queue, sw.wl, sw, requeue_reason(e)):
            self.dirty = True

    def _changed(self) -> None:
        """Something changed that may change a cycle's answer: run the next cycle at the
        loop's next tick."""
        self.dirty = True
        if not self.cycle_pending:
            self.cycle_pending = True
            self.world.kernel.schedule(self._next_tick(self.world.now), Priority.CYCLE,
                                           self._on_cycle)

    def _next_tick(self, t: float) -> float:
        """When upstream's loop next runs ``schedule`` at or after ``t``.

        Blocked in ``Heads`` (no pending head after the last cycle): at once. Else it
        has been spinning since the last cycle with ``UntilWithBackoff``'s waits (1 ms
        doubling to 100 ms while cycles admit nothing); those skipped no-op cycles cost
        no events here, only their ticks are counted.
        """
        if not self.spinning:
            return t
        b = self.backoff
        tick = self.last_cycle + b
        if b == 0:
            return max(t, tick)
        while tick < t and b < MAX_BACKOFF:
            b = min(b * 2, MAX_BACKOFF)
            tick += b
        if tick < t:
            tick += math.ceil((t - tick) / MAX_BACKOFF - 1e-9) * MAX_BACKOFF
        self.backoff = b
        return tick

    # ---- the scheduling cycle ----
    def _on_cycle(self, _: Any) -> None:
        self.cycle_pending = False
        if not self.dirty:
            return
        heads = self.queues.heads(lambda sw: sw.state == "pending")
        if not heads:
            self.dirty = False
            return
        self.cycles += 1
        self.dirty = False
        admitted = self._schedule(heads)
        # wait.UntilWithBackoff: no wait after a cycle that admitted, else 1 ms doubling.
        self.backoff = 0.0 if admitted else (
            INITIAL_BACKOFF if self.backoff == 0 else min(self.backoff * 2, MAX_BACKOFF))
        self.last_cycle = self.world.now
        self.spinning = self.queues.has_pending()
        if self.dirty and self.spinning and not self.cycle_pending:
            self.cycle_pending = True
            self.world.kernel.schedule(self.world.now + self.backoff, Priority.CYCLE,
                                       self._on_cycle)

    def _root(self, cq: str) -> str:
        st = self.snap.cqs.get(cq)
        return st.root().name if st is not None else cq

    def _bump(self, cq: str) -> None:
        """The admitted set of ``cq``'s cohort tree changed: its nominations are stale."""
        root = self._root(cq)
        self.tree_version[root] = self.tree_version.get(root, 0) + 1

    def _nominate(self, sw: SimWorkload) -> Entry:
        """Flavors and targets for a head; reused while neither its cohort tree's
        admitted workloads nor the workload itself changed (same input, same answer)."""
        key = (self.tree_version.get(self._root(sw.cluster_queue), 0),
               len(sw.admissions) + len(sw.preemptions))
        if sw.nomination is not None and sw.nomination[0] == key:
            old = sw.nomination[1]
            return Entry(old.info, old.assignment, old.targets, reason=old.reason,
                         message=old.message)
        e = nominate(workload_info(sw.wl, sw.cluster_queue), sw.wl.pod_sets, self.snap,
                     self.inputs.flavors, self.world.now)
        sw.nomination = (key, e)
        return e

    def _schedule(self, heads: list[SimWorkload]) -> bool:
        """Run Kueue's scheduler on the heads; requeue those not admitted. True when
        it admitted a workload; ``self.dirty`` when anything changed."""
        entries = nominate_heads(heads, self._nominate, self.snap)
        outcome = schedule(entries, self.snap, self._admit, self._issue_preemptions)
        released, self.to_release = self.to_release, []
        for sw in released:
            self._release(sw)
            self._requeue_evicted(sw)
        for e in entries:
            if e.status != ASSUMED:
                self._requeue(e)
        if outcome.admitted_queues:
            self.sample(outcome.admitted_queues)
        if outcome.anything:
            self.dirty = True
        return outcome.admitted

    # ---- admission, eviction, release ----
    def _admit(self, e: Entry, info: WorkloadInfo) -> None:
        sw, now = self.workloads[e.key], self.world.now
        wl = sw.wl
        wl.admission_cq = sw.cluster_queue
        wl.conditions = tuple(c for c in wl.conditions
                              if c.type not in ("QuotaReserved", "Evicted", "Admitted")) + (
            Condition("QuotaReserved", "True", "QuotaReserved", "", now),
            Condition("Admitted", "True", "Admitted", "", now))
        sw.info = info
        self.snap.add_workload(info)
        self._bump(sw.cluster_queue)
        sw.state = "admitted"
        sw.admitted_at = now
        sw.succeeded = 0
        sw.running = 0
        sw.admissions.append({"time": now, "wait": now - sw.queued_at,
                              "borrowing": e.assignment.borrowing if e.assignment else False,
                              "allRunning": None})
        def flavors_text(i: int) -> str:
            return ", ".join(f"{r}={f}" for r, f in sorted(sw.flavors(i).items()))

        if len(sw.pod_sets) == 1:  # the usual Workload: its flavors alone
            detail = flavors_text(0)
        else:
            detail = "; ".join(f"{ps.name}: {flavors_text(i)}"
                               for i, ps in enumerate(sw.pod_sets))
        self._event("admitted", sw, detail)
        if self.podless:
            if sw.duration is not None:
                self.world.kernel.schedule(now + sw.duration, Priority.FREE, self._on_finish,
                                           (sw, len(sw.admissions)))
            return
        for i, ps in enumerate(sw.pod_sets):
            self._create_pods(sw, i, ps.count)

    def _on_finish(self, payload: tuple[SimWorkload, int]) -> None:
        sw, admission = payload
        if sw.state == "admitted" and len(sw.admissions) == admission:
            self._finish(sw)

    def _finish(self, sw: SimWorkload) -> None:
        sw.state = "finished"
        sw.wl.conditions = (*sw.wl.conditions, Condition("Finished", "True", "Succeeded", "",
                                                          self.world.now))
        self._release(sw)
        self._event("finished", sw, "")

    def _issue_preemptions(self, e: Entry) -> int:
        """Evict the targets not already evicted (``IssuePreemptions``)."""
        issued = 0
        now = self.world.now
        preemptor = self.workloads[e.key]
        for t in e.targets:
            victim = self.workloads.get(t.info.key)
            if victim is None or victim.state != "admitted":
                continue
            same_queue = victim.cluster_queue == preemptor.cluster_queue
            paths = (queue_path(self.snap.cqs[preemptor.cluster_queue]),
                     queue_path(self.snap.cqs[victim.cluster_queue])) \
                if self.sem.detailed_preempted_condition else None
            conds = preempted_conditions(victim.wl, preemptor.wl.uid, preemptor.wl.job_uid,
                                         t.reason, same_queue, now, paths)
            reason = next(c["reason"] for c in conds if c["type"] == "Preempted")
            victim.wl.conditions = tuple(c for c in victim.wl.conditions
                                         if c.type not in ("Evicted", "Preempted")) + (
                Condition("Evicted", "True", "Preempted", "", now),
                Condition("Preempted", "True", reason, "", now))
            victim.state = "evicting"
            self._bump(victim.cluster_queue)
            victim.preemptions.append({"time": now, "by": preemptor.wl.key,
                                       "reason": t.reason})
            self.events.append({"time": now, "type": "preempted", "workload": victim.wl.key,
                                "by": preemptor.wl.key, "reason": t.reason,
                                "clusterQueue": victim.cluster_queue})
            self.world.record("kueue-preempted", victim.wl.key, None,
                            f"by {preemptor.wl.key} ({t.reason})")
            pods = list(victim.pods.values())
            for pod in pods:
                self.world.delete(pod, f"workload {victim.wl.key} preempted")
            if not victim.pods:  # nothing to wait for: released once the cycle is over
                self.to_release.append(victim)
            elif victim.release == RELEASE_WHEN_INACTIVE:
                # The Job is inactive once its pods are deleted; they terminate on their
                # own from here, no longer the workload's (a re-admission makes new ones).
                for pod in pods:
                    self.pod_owner.pop(pod.key, None)
                victim.drop_pods()
                victim.running = 0
                self.world.kernel.schedule(now + self.release_delay, Priority.FREE,
                                           self._on_inactive, (victim, len(victim.preemptions)))
            issued += 1
        return issued

    def _on_inactive(self, payload: tuple[SimWorkload, int]) -> None:
        """Kueue saw the evicted Job inactive: its admission is cleared and it requeues."""
        sw, eviction = payload
        if sw.state == "evicting" and len(sw.preemptions) == eviction:
            self._release(sw)
            self._requeue_evicted(sw)

    def _release(self, sw: SimWorkload) -> None:
        """The workload's quota is released (upstream: QuotaReserved unset)."""
        if sw.info is not None:
            self.snap.remove_workload(sw.info)
            self._bump(sw.cluster_queue)
            sw.info = None
        sw.wl.admission_cq = ""
        sw.wl.conditions = tuple(c for c in sw.wl.conditions
                                 if c.type not in ("QuotaReserved", "Admitted"))
        self.sample([sw.cluster_queue])
        self._queue_inadmissible(sw.cluster_queue)
        self._changed()

    def _requeue_evicted(self, sw: SimWorkload) -> None:
        sw.state = "pending"
        sw.queued_at = self.world.now
        self._event("requeued", sw, "")
        self._push_active(sw)

    # ---- pods ----
    def _create_pods(self, sw: SimWorkload, pod_set: int, n: int) -> None:
        """Create ``n`` pods of pod set number ``pod_set`` with its flavors' node labels
        and tolerations."""
        sim = self.world
        tmpl = sw.pod_sets[pod_set].template
        spec = copy.deepcopy(tmpl.get("spec") or {})
        selector = dict(spec.get("nodeSelector") or {})
        tolerations = list(spec.get("tolerations") or [])
        for flavor in dict.fromkeys(sw.flavors(pod_set).values()):
            rf = self.inputs.flavors.get(flavor)
            if rf is not None:
                selector.update(rf.node_labels)
            tolerations.extend(copy.deepcopy(self.tolerations.get(flavor, [])))
        if selector:
            spec["nodeSelector"] = selector
        if tolerations:
            spec["tolerations"] = tolerations
        meta = tmpl.get("metadata") or {}
        base = sw.pod_prefix(pod_set)
        for _ in range(n):
            name = f"{base}-{sw.created}"
            sw.created += 1
            body = {"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "namespace": sw.wl.namespace,
                                 "labels": dict(meta.get("labels") or {})},
                    "spec": copy.deepcopy(spec)}
            body = sim.cluster.runtime_classes.admit(body, sw.wl.source)
            pod = parse_pod(body, sw.wl.source, sim.cluster.priority.resolve)
            sw.add_pod(pod, pod_set)
            self.pod_owner[pod.key] = sw
            sim.create(PodPlan(pod, sim.now, sw.duration, sw.exit_after,
                                   template=f"kueue:{sw.wl.key}"))

    # ---- records ----
    def _event(self, etype: str, sw: SimWorkload, detail: str) -> None:
        self.events.append({"time": self.world.now, "type": etype, "workload": sw.wl.key,
                            "clusterQueue": sw.cluster_queue, "detail": detail})
        self.world.record(f"kueue-{etype}", sw.wl.key, None, detail)

    def sample(self, names: list[str] | None = None) -> None:
        """Record borrowed quota and weighted share of the ClusterQueues ``names`` (all
        when None) and the utilisation of their cohorts, at changes only."""
        now = self.world.now
        cohorts: dict[str, CohortState] = {}
        for name in (self.snap.cqs if names is None else names):
            st = self.snap.cqs.get(name)
            if st is None:
                continue
            root = st.root()
            if isinstance(root, CohortState):
                for co in [*st.path_to_root()]:
                    cohorts[co.name] = co
            borrowed = 0
            for fr, used in st.usage.items():
                borrowed += max(0, used - st.quotas[fr].nominal) if fr in st.quotas else used
            share = dominant_resource_share(st).precise() \
                if self.sem.fair_sharing_tree else float(st.dominant_resource_share()[0])
            row = (now, float(borrowed), share if math.isfinite(share) else -1.0)
            points = self.series.setdefault(name, [])
            if points and points[-1][0] == now:
                points[-1] = row
            elif not points or points[-1][1:] != row[1:]:
                points.append(row)
            per_fr = self.usage_series.setdefault(name, {})
            for flv, res in sorted(st.quotas):
                pts = per_fr.setdefault(f"{flv}/{res}", [])
                used = st.usage.get((flv, res), 0)
                if pts and pts[-1][0] == now:
                    pts[-1] = (now, used)
                elif not pts or pts[-1][1] != used:
                    pts.append((now, used))
            usage = self.usage_ms.setdefault(name, [0.0, now, 0])
            usage[0] += usage[2] * (now - usage[1])
            usage[1], usage[2] = now, sum(st.usage.values())
        for name, co in cohorts.items():
            # Utilisation: the busiest resource's usage over the member queues' nominal.
            members, total = self._cohort_quota(co)
            used: dict[str, int] = {}
            for st in members:
                for (_, res), v in st.usage.items():
                    used[res] = used.get(res, 0) + v
            util = max((used.get(r, 0) / t for r, t in total.items() if t), default=0.0)
            points2 = self.cohort_series.setdefault(name, [])
            if points2 and points2[-1][0] == now:
                points2[-1] = (now, util)
            elif not points2 or points2[-1][1] != util:
                points2.append((now, util))

    def _cohort_quota(self, co: CohortState) -> tuple[list[CQState], dict[str, int]]:
        """The ClusterQueues below ``co`` and their summed nominal quota per resource."""
        got = self.cohort_quota.get(co.name)
        if got is None:
            members = co.subtree_cluster_queues()
            total: dict[str, int] = {}
            for st in members:
                for (_, res), q in st.quotas.items():
                    total[res] = total.get(res, 0) + q.nominal
            got = self.cohort_quota[co.name] = (members, total)
        return got

    @property
    def cluster_queue_names(self) -> list[str]:
        """Every ClusterQueue of the input."""
        return list(self.inputs.cluster_queues)

    def metrics(self) -> dict[str, Any]:
        """``metrics.kueue``: per ClusterQueue and cohort figures, preemption cycles."""
        return {"kueue": kueue_metrics(self, self.world.now)}
