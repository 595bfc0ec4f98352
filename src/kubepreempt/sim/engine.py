"""The discrete-event loop: scheduler, queue, kubelet and the pods' lives over time.

One ``heapq`` of ``(time, order, seq, kind, payload)``. At equal times, resources are
freed first (terminations, completions), then nodes change, then objects arrive, then
backoff ends, and only then does the scheduler take the next pod: so pods created "at the
same time" are all in activeQ before the first is popped, and the highest priority wins.

The scheduler handles one pod at a time; each attempt takes ``latency`` seconds (the pod
is popped at the start and the decision is taken on the state at the end). Decisions come
from :func:`kubepreempt.scheduler.cycle.schedule_one`, the same cycle as the library and
``bench``; this module only applies them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod
from kubepreempt.api.quantity import parse_quantity
from kubepreempt.cluster import CPU, MEMORY, pdb_disruptions_allowed
from kubepreempt.kubelet.admission import ADMIT, EVICT, admit_pod
from kubepreempt.kubelet.eviction import rank_for_eviction
from kubepreempt.scheduler.cycle import IGNORED, PREEMPT, SCHEDULED, SKIPPED, schedule_one
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.sim import metrics as m
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sim.hints import (
    GATES_REMOVED,
    NODE_ADD,
    NODE_DELETE,
    POD_ADD,
    POD_DELETE,
    TIMEOUT,
    ClusterEvent,
    cross_topology,
    worth_requeuing,
)
from kubepreempt.sim.kernel import Kernel, Priority
from kubepreempt.sim.metrics import Event, PodRecord, Series
from kubepreempt.sim.queue import (
    CLASSIC,
    FIFO,
    MODES,
    UPSTREAM,
    QueuedPod,
    SchedulingQueue,
    leftover_tick,
)
from kubepreempt.sim.scenario import PodPlan, Scenario

# The kubelet's default hard eviction thresholds (pkg/kubelet/apis/config/v1beta1):
# memory.available<100Mi and nodefs.available<10% (imagefs and inodes are not modelled).
MEMORY_AVAILABLE_MIN = 100 * 1024 * 1024
NODEFS_AVAILABLE_FRACTION = 0.10
_SIGNALS = {"memory": "memory.available", "ephemeral-storage": "nodefs.available"}

# A run stops with an error after this many events (simulate --max-events): a bound on time
# and memory for absurd scenarios, and the end of runaway loops (a controller replacing
# a pod that completes at once, for ever). The 24 h, 100,000-pod benchmark handles ~310,000.
DEFAULT_MAX_EVENTS = 10_000_000

_FREE, _NODE, _ARRIVE, _KUBELET = Priority.FREE, Priority.NODE, Priority.ARRIVE, Priority.KUBELET
_BACKOFF, _KICK, _CYCLE = Priority.BACKOFF, Priority.KICK, Priority.CYCLE


@dataclass(slots=True)
class SimResult:
    """Everything a run produced."""

    records: dict[str, PodRecord]
    events: list[Event]
    series: Series
    end: float
    processed: int  # heap events handled
    attempts: int  # scheduling attempts
    queue: str
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``simulate -o json`` object."""
        return {"events": [e.to_json() for e in self.events],
                "pods": {k: r.to_json() for k, r in sorted(self.records.items())},
                "metrics": self.metrics, "queue": self.queue, "end": self.end}


class Simulator:
    """Plays a :class:`Scenario` forward in time.

    ``queue``: ``1.36`` (kube-scheduler 1.36: queueing hints, pop from backoffQ, async
    preemption), ``classic`` (the design document's queue, synchronous preemption) or
    ``fifo`` (pre-1.9, no nominations). ``best_candidates``: preemption takes the globally
    best candidate and every feasible node is scored (the default for classic and fifo);
    otherwise upstream's DryRunPreemption window from a random offset (seeded by ``seed``)
    and percentageOfNodesToScore (the default for 1.36).
    """

    def __init__(self, scenario: Scenario, queue: str = UPSTREAM, latency: float = 0.0,
                 keep_timeline: bool = True, node_pressure: bool = False,
                 controller_latency: float = 0.0, seed: int = 0,
                 autoscale: AutoscalerOptions | None = None,
                 kueue_version: str = "current",
                 best_candidates: bool | None = None) -> None:
        if latency < 0:
            raise InputError(f"--latency must be >= 0, not {latency}")
        queue = CLASSIC if queue == "priority" else queue
        self.scen = scenario
        self.cluster = scenario.cluster
        self.nominations = queue != FIFO  # FIFO mode: the old scheduler, no nominations
        self.hints = queue == UPSTREAM  # queueing hints and async preemption
        self.queue = SchedulingQueue(queue)
        self.nominator = Nominator()
        self.sched = Scheduler(self.cluster, nominator=self.nominator)
        if best_candidates is None:
            best_candidates = queue != UPSTREAM
        self.evaluator: Evaluator | None = None
        if not best_candidates:
            self.evaluator = Evaluator(self.sched, sample=True, seed=seed, materialize=False)
            self.sched.sample_nodes = True  # percentageOfNodesToScore, nextStartNodeIndex
        self._in_flight_events: list[ClusterEvent] = []
        self.latency = latency
        self.keep_timeline = keep_timeline
        self.node_pressure = node_pressure
        self._thresholds: dict[str, list[tuple[str, int, int]]] = {}
        self.kernel = Kernel()
        self.records: dict[str, PodRecord] = {}
        self.plans: dict[str, PodPlan] = {}
        self.events: list[Event] = []
        self.series = Series()
        self.version = 0  # bumped on any change that can alter a scheduling answer
        # template -> (version its last pod failed at, the plugins that rejected it)
        self._fail_cache: dict[str, tuple[int, frozenset[str]]] = {}
        self._term_at: dict[str, float] = {}
        self._removed: set[str] = set()
        self._affinity_pending: set[str] = set()
        self._wakes: set[float] = set()
        self._flush_ticks: set[float] = set()  # pending unschedulable-pool flushes
        self._kick_pending = False
        self._in_flight: QueuedPod | None = None
        self._moved = False
        self._pending_by_prio: dict[int, int] = {}
        self._pdb_version = -1
        self.attempts = 0
        self._req = [0, 0]
        alloc = self.cluster.alloc
        self._alloc = [int(alloc[:, CPU].sum()), int(alloc[:, MEMORY].sum())]
        self.handlers: dict[str, Callable[[Any], None]] = {
            "arrive": self._on_arrive, "term": self._on_term, "complete": self._on_complete,
            "node-add": self._on_node_add, "node-remove": self._on_node_remove,
            "kubelet": self._on_kubelet, "backoff": self._on_backoff, "flush": self._on_flush,
            "kick": self._on_kick, "cycle": self._on_cycle, "ungate": self._on_ungate}
        # Actors around the scheduler (controllers, ...): they register their own event
        # kinds in ``handlers`` and get on_bound / on_terminating / on_gone / on_node_added.
        self.actors: list[Any] = []
        self.quota_refusals: dict[str, dict[str, int]] = {}  # namespace -> class -> count
        if scenario.workloads:
            from kubepreempt.sim.controllers import Controllers
            self.actors.append(Controllers(self, scenario.workloads, controller_latency,
                                           seed))
        if autoscale is not None:
            from kubepreempt.sim.autoscaler import Autoscaler
            self.actors.append(Autoscaler(self, autoscale, seed))
        if scenario.kueue is not None:
            from kubepreempt.sim.kueue_actor import KueueActor
            self.actors.append(KueueActor(self, scenario.kueue, kueue_version))
        self._setup()

    # ---- setup ----
    @property
    def now(self) -> float:
        """The simulated time."""
        return self.kernel.now

    @property
    def processed(self) -> int:
        """Events handled so far."""
        return self.kernel.processed

    def _push(self, time: float, order: int, kind: str, payload: Any = None) -> None:
        self.kernel.schedule(time, order, self.handlers[kind], payload)

    def _setup(self) -> None:
        for plan in self.scen.initial.values():
            pod = plan.pod
            if pod.node_name not in self.cluster.node_index:
                raise InputError(f"running at time 0 on node {pod.node_name!r}, which "
                                 "arrives later", pod.source, "Pod", pod.key)
            self.plans[pod.key] = plan
            rec = self.records[pod.key] = PodRecord(pod, 0.0)
            self._bind(pod, pod.node_name, 0.0, quiet=True)
            rec.bound_at = 0.0
            if pod.terminating:
                pod.deletion_timestamp = None
                self._signal(pod, 0.0, m.TERMINATED, "terminating in the input", quiet=True)
        self._sample_util(0.0)
        if self.node_pressure:
            for idx in range(len(self.cluster.nodes)):
                self._check_pressure(idx)
        for n in self.scen.nodes:
            if n.arrival > 0:
                self._push(n.arrival, _NODE, "node-add", n)
            if n.removal is not None:
                self._push(max(n.removal, n.arrival), _NODE, "node-remove", n.node.name)
        for plan in self.scen.pods:
            self._push(plan.arrival, _ARRIVE, "arrive", plan)
            if plan.ungate_after is not None:
                self._push(plan.arrival + plan.ungate_after, _ARRIVE, "ungate", plan.pod.key)
        for actor in self.actors:
            actor.start()

    # ---- the loop ----
    def run(self, until: float | None = None,
            progress: Callable[[float], None] | None = None,
            max_events: int | None = DEFAULT_MAX_EVENTS) -> SimResult:
        """Process events up to ``until`` (default: until nothing is left to happen);
        more than ``max_events`` events is an :class:`InputError`."""
        self.kernel.run(until, settled=self._nothing_left, after=self._after_event,
                        max_events=max_events, progress=progress)
        end = until if until is not None else self.now
        self._sample_util(end)
        res = SimResult(self.records, self.events, self.series, end, self.processed,
                        self.attempts, self.queue.mode)
        res.metrics = m.summarize(self.records, self.series, end)
        res.metrics.update(events=self.processed, attempts=self.attempts)
        if self.cluster.quota.active:
            res.metrics["quotaRefusals"] = {ns: dict(sorted(c.items())) for ns, c in
                                            sorted(self.quota_refusals.items())}
        for actor in self.actors:
            res.metrics.update(actor.metrics())
        return res

    def _nothing_left(self, pending: int) -> bool:
        """Only flushes are left, and they would retry on the same state."""
        return pending == len(self._flush_ticks) + (len(self._wakes) if self.hints else 0) \
            and self._settled()

    def _after_event(self, time: float) -> None:
        if not self._kick_pending and self._in_flight is None and self.queue.ready():
            self._kick_pending = True
            self._push(time, _KICK, "kick")

    # ---- bookkeeping helpers ----
    def _event(self, etype: str, pod: str, node: str | None = None, detail: str = "") -> None:
        if self.keep_timeline:
            self.events.append(Event(self.now, etype, pod, node, detail))

    def _sample_util(self, t: float) -> None:
        cpu = self._req[0] / self._alloc[0] if self._alloc[0] else 0.0
        mem = self._req[1] / self._alloc[1] if self._alloc[1] else 0.0
        util = self.series.util
        if util and util[-1][0] == t:
            util[-1] = (t, cpu, mem)
        else:
            util.append((t, cpu, mem))

    def _pending_delta(self, prio: int, delta: int) -> None:
        n = self._pending_by_prio.get(prio, 0) + delta
        self._pending_by_prio[prio] = n
        points = self.series.pending.setdefault(prio, [])
        if points and points[-1][0] == self.now:
            points[-1] = (self.now, n)
        else:
            points.append((self.now, n))

    def _settled(self) -> bool:
        """Nothing is queued but pool pods that already failed on the current state (1.36:
        and backoffQ pods that did, e.g. pods failing with an error, which upstream
        retries after every backoff for ever)."""
        queue = self.queue
        if self._in_flight is not None or queue.active_count:
            return False
        if self.hints:
            return all(q.failed_version == self.version or q.gated
                       for q in queue.info.values())
        return not queue.backoff_count and all(
            q.failed_version == self.version or q.gated for q in queue.unschedulable.values())

    def _wake(self, times: list[float] | float | None) -> None:
        """Wake at these backoffQ flushes (every second) that end backoffs."""
        if times is None:
            return
        for t in (times if isinstance(times, list) else [times]):
            if t not in self._wakes:
                self._wakes.add(t)
                self._push(t, _BACKOFF, "backoff", t)

    def _cluster_event(self, ev: ClusterEvent) -> None:
        """A cluster event that may make pending pods schedulable.

        1.36: each pool pod moves if a plugin that rejected it says Queue for ``ev``
        (AssignedPodAdd first pre-checks cross-topology terms), and an attempt in flight
        remembers the event. Classic: a deleted pod or an added node moves every pool pod,
        a bound pod moves the pods with inter-pod terms or hard spread constraints.
        """
        queue = self.queue
        if self.hints:
            if self._in_flight is not None:
                self._in_flight_events.append(ev)
            if not queue.unschedulable:
                return
            ns = self.cluster.namespace_labels
            if ev.kind == POD_ADD:
                added = ev.pod
                self._wake(queue.move_all(self.now, lambda q: cross_topology(
                    q.pod, q.rejectors, added, ns) and worth_requeuing(
                    q.pod, q.rejectors, ev, ns)))
            else:
                self._wake(queue.move_all(
                    self.now, lambda q: worth_requeuing(q.pod, q.rejectors, ev, ns)))
            return
        if ev.kind == POD_ADD:
            if self._affinity_pending:
                self._wake(queue.move_all(
                    self.now, only=lambda q: q.pod.key in self._affinity_pending))
            return
        if ev.kind in (POD_DELETE, NODE_ADD):
            if self._in_flight is not None:
                self._moved = True
            self._wake(queue.move_all(self.now))

    def _resources(self, pod: Pod, sign: int) -> None:
        self._req[0] += sign * pod.requests.get("cpu", 0)
        self._req[1] += sign * pod.requests.get("memory", 0)
        self._sample_util(self.now)

    # ---- pod lifecycle ----
    def _bind(self, pod: Pod, node: str, t: float, quiet: bool = False, detail: str = "") -> None:
        rec = self.records[pod.key]
        if pod.nominated_node_name:
            self.nominator.remove(pod)  # upstream forgets the nomination once assumed
        rec.nominated_node = ""
        self.cluster.bind(pod, node)
        pod.start_time = t if not quiet else pod.start_time
        rec.phase, rec.node = "Running", node
        if rec.bound_at is None:
            rec.bound_at = t
        if not quiet:
            self.queue.done(pod.key)
            self._affinity_pending.discard(pod.key)
            self._pending_delta(pod.priority, -1)
            self._event(m.BOUND, pod.key, node, detail)
        self.version += 1
        self._resources(pod, +1)
        plan = self.plans[pod.key]
        if plan.duration is not None:
            self._push(t + plan.duration, _FREE, "complete", (pod.key, rec.epoch))
        if not quiet:
            # Upstream AssignedPodAdd: pods waiting on inter-pod (anti-)affinity or hard
            # topology spread may now fit.
            self._cluster_event(ClusterEvent(POD_ADD, pod=pod))
        if self.node_pressure and not quiet:
            self._check_pressure(self.cluster.node_index[node])
        if not quiet:
            for actor in self.actors:
                actor.on_bound(pod)

    def _signal(self, pod: Pod, t: float, etype: str, detail: str, quiet: bool = False) -> bool:
        """Send SIGTERM: the pod keeps its resources until it exits. False if already sent."""
        if pod.terminating:
            return False
        rec = self.records[pod.key]
        pod.deletion_timestamp = t
        pod.preempted_by_scheduler = etype == m.PREEMPTED
        rec.phase = "Terminating"
        if etype in (m.PREEMPTED, m.EVICTED):
            rec.preempted_at = t
            self.series.preemptions.append((t, pod.priority))
        plan = self.plans[pod.key]
        grace = float(pod.termination_grace_period)
        delay = grace if plan.exit_after is None else min(plan.exit_after, grace)
        self._term_at[pod.key] = t + delay
        self._push(t + delay, _FREE, "term", (pod.key, rec.epoch))
        if not quiet:
            self._event(etype, pod.key, pod.node_name, detail)
        self.version += 1
        for actor in self.actors:
            actor.on_terminating(pod, etype)
        return True

    def _gone(self, key: str, etype: str, phase: str, detail: str = "") -> None:
        rec = self.records[key]
        pod = rec.pod
        self.cluster.remove(pod)
        rec.phase, rec.ended_at = phase, self.now
        rec.outcome = "removed" if detail == "node removed" else etype
        rec.epoch += 1
        self.version += 1
        self._resources(pod, -1)
        self._event(etype, key, rec.node, detail)
        self._cluster_event(ClusterEvent(POD_DELETE, pod=pod))
        for actor in self.actors:
            actor.on_gone(pod, etype, phase)

    def _on_term(self, payload: tuple[str, int]) -> None:
        key, epoch = payload
        rec = self.records[key]
        if rec.epoch == epoch and rec.phase == "Terminating":
            self._gone(key, m.TERMINATED, "Failed")

    def _on_complete(self, payload: tuple[str, int]) -> None:
        key, epoch = payload
        rec = self.records[key]
        if rec.epoch != epoch:
            return
        if rec.phase == "Running":
            self._gone(key, m.COMPLETED, "Succeeded")
        elif rec.phase == "Terminating":  # finished its work during the grace period
            self._gone(key, m.TERMINATED, "Failed", "exited during grace period")

    # ---- node-pressure eviction (--node-pressure) ----
    def _usage(self, pod: Pod, resource: str) -> int:
        """Modelled usage: the pod's ``*-usage`` annotation, else its request."""
        return self.plans[pod.key].usage.get(resource, pod.requests.get(resource, 0))

    def _node_thresholds(self, idx: int) -> list[tuple[str, int, int]]:
        """(resource, capacity, minimum available) per signal the node can have, memory
        first (upstream ranks memory signals before the others).

        Capacity is ``status.capacity`` when the node gives it; else allocatable plus the
        hard threshold the kubelet subtracts from capacity to get allocatable (no
        kube/system-reserved): so pods using only their requests never cause pressure.
        """
        node = self.cluster.nodes[idx]
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
        if self.cluster.nodes[idx].name in self._removed:
            return
        thresholds = self._node_thresholds(idx)
        if not thresholds:
            return
        pods_on = self.cluster.node_pods[idx]
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
            rec = self.records[key]
            rec.preempted_at = self.now
            self.series.preemptions.append((self.now, rec.pod.priority))
            self._gone(key, m.EVICTED, "Failed", detail)

    # ---- arrivals ----
    def admit(self, pod: Pod) -> str | None:
        """The apiserver's ResourceQuota admission of a pod being created (None: created);
        a refusal is counted per namespace and PriorityClass."""
        quota = self.cluster.quota
        if not quota.active:
            return None
        # the pods that exist: bound ones and those still pending (read only if needed)
        existing = itertools.chain(self.cluster.pods.values(),
                                   (r.pod for r in self.records.values()
                                    if r.phase == "Pending"))
        refusal = quota.admit(pod, existing, self.now)
        if refusal is not None:
            row = self.quota_refusals.setdefault(pod.namespace, {})
            name = m.class_name(pod)
            row[name] = row.get(name, 0) + 1
        return refusal

    def delete(self, pod: Pod, detail: str) -> None:
        """A controller deletes one of its pods: SIGTERM if bound, else out of the queue."""
        rec = self.records.get(pod.key)
        if rec is None or rec.pod is not pod:
            return
        if pod.bound:
            self._signal(pod, self.now, m.TERMINATED, detail)
        elif rec.phase == "Pending":
            self.queue.done(pod.key)
            if pod.nominated_node_name:
                self.nominator.remove(pod)
            rec.phase, rec.ended_at = "Failed", self.now
            self._pending_delta(pod.priority, -1)
            self._event(m.TERMINATED, pod.key, None, detail)
            self.version += 1

    def _on_arrive(self, plan: PodPlan) -> None:
        pod = plan.pod
        if not plan.admitted:
            refusal = self.admit(pod)
            if refusal is not None:  # a bare pod: nobody retries it
                rec = self.records[pod.key] = PodRecord(pod, self.now, phase="Failed")
                rec.ended_at = self.now
                self._event(m.QUOTA_REFUSED, pod.key, None, refusal)
                return
        self.plans[pod.key] = plan
        self.records[pod.key] = PodRecord(pod, self.now)
        self._event(m.ARRIVED, pod.key, pod.node_name or None)
        self._pending_delta(pod.priority, +1)
        if plan.via_kubelet:
            self._on_kubelet(pod.key)
            return
        nominated = pod.nominated_node_name
        pod.nominated_node_name = ""
        if self.nominations and nominated in self.cluster.node_index:
            self.nominator.add(pod, nominated)  # status.nominatedNodeName is honoured
            self.records[pod.key].nominated_node = nominated
            self.version += 1
        # Pods whose fit depends on other pods' placement: upstream's InterPodAffinity and
        # PodTopologySpread both requeue on AssignedPodAdd.
        if (pod.affinity is not None and pod.affinity.has_pod_terms) or any(
                c.when_unsatisfiable == "DoNotSchedule" for c in pod.spread):
            self._affinity_pending.add(pod.key)
        self.queue.add(pod, self.now)

    def _on_kubelet(self, key: str) -> None:
        """Kubelet admission of a pod that names its node (critical pods may evict)."""
        rec = self.records[key]
        pod = rec.pod
        if rec.phase != "Pending":
            return
        idx = self.cluster.node_index.get(pod.node_name)
        if idx is None or pod.node_name in self._removed:
            rec.phase, rec.ended_at, rec.outcome = "Failed", self.now, m.REJECTED
            self._pending_delta(pod.priority, -1)
            self._event(m.REJECTED, key, pod.node_name, "node is not in the cluster")
            return
        node_pods = self.cluster.node_pods[idx].values()
        res = admit_pod(pod, self.cluster.nodes[idx], node_pods)
        if res.result == ADMIT:
            name = pod.node_name
            pod.node_name = ""  # Cluster.bind sets it again
            self._bind(pod, name, self.now, detail="kubelet admission")
        elif res.result == EVICT:
            for victim in res.victims:
                self._signal(victim, self.now, m.EVICTED, f"kubelet admission of {key}")
            done = max(self._term_at.get(v.key, self.now) for v in res.victims)
            self._push(done, _KUBELET, "kubelet", key)
        else:
            rec.phase, rec.ended_at, rec.outcome = "Failed", self.now, m.REJECTED
            self._pending_delta(pod.priority, -1)
            self._event(m.REJECTED, key, pod.node_name, f"{res.reason}: {res.message}")

    # ---- nodes ----
    def _on_node_add(self, plan) -> None:
        idx = self.cluster.add_node(plan.node)
        self._alloc[0] += int(self.cluster.alloc[idx, CPU])
        self._alloc[1] += int(self.cluster.alloc[idx, MEMORY])
        self._sample_util(self.now)
        self.version += 1
        self._event(m.NODE_ADDED, "", plan.node.name)
        self._cluster_event(ClusterEvent(NODE_ADD, node=self.cluster.nodes[idx]))
        for actor in self.actors:
            actor.on_node_added(plan.node)

    def _on_node_remove(self, name: str) -> None:
        """The node leaves: its pods are deleted, nominations to it cleared.

        The snapshot has no node removal, so the row stays with zero allocatable and the
        node unschedulable: nothing fits there and preemption never picks it.
        """
        cluster = self.cluster
        idx = cluster.node_index[name]
        node = cluster.nodes[idx]
        self._event(m.NODE_REMOVED, "", name)
        for pod in list(cluster.node_pods[idx].values()):
            rec = self.records[pod.key]
            if rec.phase == "Running" and rec.preempted_at is None:
                rec.preempted_at = self.now
            self._gone(pod.key, m.EVICTED, "Failed", "node removed")
        self._alloc[0] -= int(cluster.alloc[idx, CPU])
        self._alloc[1] -= int(cluster.alloc[idx, MEMORY])
        cluster.alloc[idx] = 0
        cluster.nodes[idx] = replace(cluster.nodes[idx], unschedulable=True)
        cluster.node_changed()
        self._removed.add(name)
        self._sample_util(self.now)
        for pod in self.nominator.on_node(name):
            self._clear_nomination(pod, "node removed")
        self.version += 1
        self._cluster_event(ClusterEvent(NODE_DELETE, node=node))
        for actor in self.actors:
            actor.on_node_removed(name)

    def _clear_nomination(self, pod: Pod, detail: str) -> None:
        node = pod.nominated_node_name
        self.nominator.remove(pod)
        self.records[pod.key].nominated_node = ""
        self.version += 1
        self._event(m.NOMINATION_CLEARED, pod.key, node, detail)
        if not self.hints:
            # Classic: the status update moves the pod to activeQ. With queueing hints a
            # status-only update (UpdatePodOther) matches no plugin's events: it stays.
            self._wake(self.queue.activate(pod.key, self.now))

    # ---- the scheduler ----
    def _on_backoff(self, t: float) -> None:
        self._wakes.discard(t)
        self.queue.flush_backoff(self.now)

    def _on_flush(self, t: float) -> None:
        """Upstream's 30-s ``flushUnschedulablePodsLeftover`` tick (only ticks that move a
        pod are simulated: each pool pod schedules the first tick that would move it)."""
        self._flush_ticks.discard(t)
        wake = self.queue.flush_leftover(self.now)
        if wake is None:
            return
        if self._in_flight is not None:
            self._moved = True  # a move request during the attempt (moveRequestCycle)
            self._in_flight_events.append(ClusterEvent(TIMEOUT))
        self._wake(wake)

    def _on_ungate(self, key: str) -> None:
        """``kubepreempt.io/ungate-after``: the pod's scheduling gates are removed."""
        rec = self.records.get(key)
        if rec is None or rec.phase != "Pending" or not rec.pod.scheduling_gates:
            return
        rec.pod.scheduling_gates = ()
        self.version += 1
        self._event(m.UNGATED, key)
        ev = ClusterEvent(GATES_REMOVED, pod=rec.pod)
        q = self.queue.info.get(key)
        if q is not None and q.gated and worth_requeuing(
                rec.pod, q.rejectors, ev, self.cluster.namespace_labels):
            self._wake(self.queue.ungate(key, self.now))

    def _requeue(self, q: QueuedPod) -> None:
        """A failed attempt: back to the queue, with the pool flush that would move it.

        1.36 (``AddUnschedulableIfNotPresent``): to backoffQ / activeQ when no plugin
        rejected the pod or an event during the attempt has a Queue hint, else the pool.
        Classic: to backoffQ when any move request came during the attempt.
        """
        q.failed_version = self.version
        if self.hints:
            ns = self.cluster.namespace_labels
            requeue = not q.rejectors or any(
                worth_requeuing(q.pod, q.rejectors, ev, ns) for ev in self._in_flight_events)
        else:
            requeue = self._moved
        self._wake(self.queue.failed(q, self.now, requeue))
        if q.where == "unschedulable":
            t = leftover_tick(self.now)
            if t not in self._flush_ticks:
                self._flush_ticks.add(t)
                self._push(t, _BACKOFF, "flush", t)

    def _on_kick(self, _: Any) -> None:
        self._kick_pending = False
        if self._in_flight is not None:
            return
        q = self.queue.pop(self.now)
        if q is None:
            return
        self._in_flight, self._moved = q, False
        self._in_flight_events = []
        self.attempts += 1
        if self.latency == 0:
            self._on_cycle(q)
        else:
            self._push(self.now + self.latency, _CYCLE, "cycle", q)

    def _refresh_pdbs(self) -> None:
        if not self.cluster.pdbs or self._pdb_version == self.version:
            return
        self._pdb_version = self.version
        pods = list(self.cluster.pods.values())
        for pdb in self.cluster.pdbs:
            if pdb.status_disruptions_allowed is None:
                pdb.disruptions_allowed = pdb_disruptions_allowed(pdb, pods)

    def _on_cycle(self, q: QueuedPod) -> None:
        self._in_flight = None
        pod, t = q.pod, self.now
        if self.records[pod.key].phase != "Pending":
            return
        template = self.plans[pod.key].template
        cached = self._fail_cache.get(template) if template else None
        if cached is not None and not pod.nominated_node_name and cached[0] == self.version:
            # A pod of the same template failed on this very state: same answer, skip.
            q.rejectors = self.records[pod.key].unschedulable_plugins = cached[1]
            self._failed(q, "as its template's previous pod")
            return
        self._refresh_pdbs()
        if self.evaluator is not None:
            self.evaluator.now = t
        d = schedule_one(self.sched, pod, now=t, evaluator=self.evaluator)
        if d.result == SCHEDULED:
            assert d.node_name is not None
            self._bind(pod, d.node_name, t)
            return
        if d.result in (IGNORED, SKIPPED):
            # Never attempted by kube-scheduler: not requeued.
            self._event(m.UNSCHEDULABLE, pod.key, None, d.message)
            return
        q.rejectors = self.records[pod.key].unschedulable_plugins = d.unschedulable_plugins
        pre = d.preemption
        if d.result == PREEMPT:
            assert pre is not None and d.node_name is not None
            victims = pre.victims
            if self.hints:
                # Async preemption (prepareCandidateAsync): victims already terminating get
                # no second API call, and when that leaves none the goroutine is never
                # started, so lower-priority nominations on the node are not cleared.
                victims = [v for v in victims if not v.terminating]
            for victim in victims:
                self._signal(victim, t, m.PREEMPTED, f"by {pod.key}")
            if self.nominations:
                if victims or not self.hints:
                    for other in pre.cleared_nominations:
                        self._clear_nomination(other, f"lower priority than {pod.key}")
                self.nominator.add(pod, d.node_name)
                self.records[pod.key].nominated_node = d.node_name
                self.version += 1
                self._event(m.NOMINATED, pod.key, d.node_name,
                            "victims: " + ", ".join(sorted(v.key for v in pre.victims)))
            self._requeue(q)
            for actor in self.actors:
                actor.on_unschedulable(pod)
            return
        if pre is not None and pre.eligible and pod.nominated_node_name:
            # Upstream: preemption ran and found no node, so the old nomination is cleared.
            node = pod.nominated_node_name
            self.nominator.remove(pod)
            self.records[pod.key].nominated_node = ""
            self.version += 1
            self._event(m.NOMINATION_CLEARED, pod.key, node, "preemption found no node")
        if template and not pod.nominated_node_name:
            self._fail_cache[template] = (self.version, q.rejectors)
        self._failed(q, d.message if self.keep_timeline else "")

    def _failed(self, q: QueuedPod, detail: str) -> None:
        self._event(m.UNSCHEDULABLE, q.pod.key, q.pod.nominated_node_name or None, detail)
        self._requeue(q)
        for actor in self.actors:
            actor.on_unschedulable(q.pod)


def simulate(scenario: Scenario, queue: str = UPSTREAM, latency: float = 0.0,
             until: float | None = None, keep_timeline: bool = True,
             progress: Callable[[float], None] | None = None,
             node_pressure: bool = False, controller_latency: float = 0.0,
             seed: int | None = 0, autoscale: AutoscalerOptions | None = None,
             max_events: int | None = DEFAULT_MAX_EVENTS,
             kueue_version: str = "current",
             best_candidates: bool | None = None) -> SimResult:
    """Run ``scenario`` and return the result (events, per-pod outcomes, metrics).

    ``node_pressure`` turns on the kubelet's node-pressure eviction from modelled usage;
    ``controller_latency`` is how long a workload controller takes to create a pod;
    ``seed`` fixes the controllers' generated pod names (and the random expander) and the
    preemption candidate window's offsets; ``autoscale`` runs the Cluster Autoscaler with
    these options; more than ``max_events`` events (None: no limit) ends the run with an
    InputError; ``kueue_version`` (``current`` or ``v0.7``) is the Kueue release a
    scenario's Kueue objects follow; ``queue`` and ``best_candidates`` are as for
    :class:`Simulator`.
    """
    if queue not in (*MODES, "priority"):
        raise InputError(f"--queue must be one of {', '.join(MODES)}, not {queue!r}")
    return Simulator(scenario, queue, latency, keep_timeline, node_pressure,
                     controller_latency, seed or 0, autoscale,
                     kueue_version, best_candidates).run(until, progress, max_events)
