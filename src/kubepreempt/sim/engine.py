"""The simulator: a kernel, a world and the actors in it, put together for one run.

:mod:`.kernel` keeps time and the ordered events; :mod:`.world` holds the cluster and the
verbs that change it; the actors react to the world's hooks: the scheduler
(:mod:`.scheduler_driver`), the kubelets (:mod:`.kubelet`), and when the scenario asks for
them the workload controllers, the Cluster Autoscaler and Kueue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod
from kubepreempt.release import DEFAULT, Modelled
from kubepreempt.scheduler.queue.priority_queue import PriorityQueue
from kubepreempt.scheduler.queue.scheduling_queue import CLASSIC, MODES, UPSTREAM
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.autoscaler import Autoscaler, AutoscalerOptions
from kubepreempt.sim.kernel import Kernel, Priority
from kubepreempt.sim.kubelet import Kubelet
from kubepreempt.sim.metrics import Event, PodRecord, Series
from kubepreempt.sim.pod_groups import GATE, GroupBook, gang_release, load_pod_groups
from kubepreempt.sim.scenario import Scenario
from kubepreempt.sim.scheduler_driver import SchedulerDriver
from kubepreempt.sim.world import World

# A run stops with an error after this many events (simulate --max-events): a bound on time
# and memory for absurd scenarios, and the end of runaway loops (a controller replacing
# a pod that completes at once, for ever). The 24 h, 100,000-pod benchmark handles ~310,000.
DEFAULT_MAX_EVENTS = 10_000_000


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
    and percentageOfNodesToScore (the default for 1.36). ``release``: the Kubernetes
    release and feature gates (default 1.37 as released); with 1.37's workload API on
    (:func:`kubepreempt.sim.pod_groups.gang_release`) the scenario's PodGroups are
    played, else every pod is scheduled on its own.
    """

    def __init__(self, scenario: Scenario, queue: str = UPSTREAM, latency: float = 0.0,
                 keep_timeline: bool = True, node_pressure: bool = False,
                 controller_latency: float = 0.0, seed: int = 0,
                 autoscale: AutoscalerOptions | None = None,
                 kueue_version: str = "current",
                 best_candidates: bool | None = None,
                 release: Modelled | None = None) -> None:
        if latency < 0:
            raise InputError(f"--latency must be >= 0, not {latency}")
        queue = CLASSIC if queue == "priority" else queue
        if best_candidates is None:
            best_candidates = queue != UPSTREAM
        self.scen = scenario
        self.cluster = scenario.cluster
        self.kernel = Kernel()
        self.world = World(self.kernel, scenario, keep_timeline)
        holds = any(scenario.group_objects.by_kind.values())
        #: The release with GenericWorkload on when PodGroups are played, else None.
        self.gang = gang_release(release or DEFAULT, holds)
        self.groups: GroupBook | None = None
        if self.gang is not None:
            self.groups = GroupBook(load_pod_groups(scenario, self.gang),
                                    hold_missing=GATE in (release or DEFAULT).overrides)
        self.scheduler = SchedulerDriver(
            self.world, queue, latency, best_candidates, seed, self.groups,
            self.gang is not None and self.gang.enabled("PodGroupPreemptionPolicy"))
        self.kubelet = Kubelet(self.world, node_pressure)
        # The actors around the scheduler (controllers, autoscaler, Kueue).
        self.actors: list[Actor] = []
        if scenario.workloads:
            from kubepreempt.sim.controllers import Controllers  # only when there are any
            self.actors.append(Controllers(self.world, scenario.workloads, controller_latency,
                                           seed))
        if autoscale is not None:
            self.actors.append(Autoscaler(self.world, autoscale, seed, self.scheduler.queue))
        if scenario.kueue is not None:
            from kubepreempt.sim.kueue_actor import KueueActor
            self.actors.append(KueueActor(self.world, scenario.kueue, kueue_version,
                                          controller_latency))
        self.world.observers = [self.scheduler, self.kubelet, *self.actors]
        self._setup()

    def _setup(self) -> None:
        world, kernel = self.world, self.kernel
        for plan in self.scen.initial.values():
            world.place_initial(plan)
        world.sample_util(0.0)
        self.kubelet.check_all_nodes()
        if self.groups is not None:
            self.scheduler.add_initial_members()
            for key, rec in self.groups.records.items():
                if rec.arrival != float("inf"):  # inf: named by pods, not in the scenario
                    kernel.schedule(rec.arrival, Priority.ARRIVE,
                                    self.scheduler.group_arrived, key)
        for n in self.scen.nodes:
            if n.arrival > 0:
                kernel.schedule(n.arrival, Priority.NODE, world.add_node, n)
            if n.removal is not None:
                kernel.schedule(max(n.removal, n.arrival), Priority.NODE, world.remove_node,
                                n.node.name)
        for plan in self.scen.pods:
            kernel.schedule(plan.arrival, Priority.ARRIVE, world.create, plan)
            if plan.ungate_after is not None:
                kernel.schedule(plan.arrival + plan.ungate_after, Priority.ARRIVE,
                                self.scheduler.on_ungate, plan.pod.key)
        for actor in self.actors:
            actor.start()

    # ---- the loop ----
    def run(self, until: float | None = None,
            progress: Callable[[float], None] | None = None,
            max_events: int | None = DEFAULT_MAX_EVENTS) -> SimResult:
        """Process events up to ``until`` (default: until nothing is left to happen);
        more than ``max_events`` events is an :class:`InputError`."""
        self.kernel.run(until, settled=self.scheduler.nothing_left,
                        after=self.scheduler.after_event, max_events=max_events,
                        progress=progress)
        world = self.world
        end = until if until is not None else self.kernel.now
        world.sample_util(end)
        processed, attempts = self.kernel.processed, self.scheduler.attempts
        res = SimResult(world.records, world.events, world.series, end, processed,
                        attempts, self.scheduler.queue.mode)
        res.metrics = m.summarize(world.records, world.series, end)
        res.metrics.update(events=processed, attempts=attempts)
        if self.cluster.quota.active:
            res.metrics["quotaRefusals"] = {ns: dict(sorted(c.items())) for ns, c in
                                            sorted(world.quota_refusals.items())}
        for actor in self.actors:
            res.metrics.update(actor.metrics())
        if self.groups is not None:
            res.metrics["podGroups"] = self.groups.metrics()
        return res

    # ---- views of the world ----
    @property
    def now(self) -> float:
        """The simulated time."""
        return self.kernel.now

    @property
    def processed(self) -> int:
        """Events handled so far."""
        return self.kernel.processed

    @property
    def records(self) -> dict[str, PodRecord]:
        """Every pod's record, by key."""
        return self.world.records

    @property
    def events(self) -> list[Event]:
        """The timeline so far."""
        return self.world.events

    @property
    def series(self) -> Series:
        """The utilisation, pending and preemption series so far."""
        return self.world.series

    @property
    def queue(self) -> PriorityQueue:
        """The scheduler's queue."""
        return self.scheduler.queue

    def admit(self, pod: Pod) -> str | None:
        """The apiserver's ResourceQuota admission (:meth:`World.admit`)."""
        return self.world.admit(pod)

    def delete(self, pod: Pod, detail: str) -> None:
        """Delete a pod (:meth:`World.delete`)."""
        self.world.delete(pod, detail)


def simulate(scenario: Scenario, queue: str = UPSTREAM, latency: float = 0.0,
             until: float | None = None, keep_timeline: bool = True,
             progress: Callable[[float], None] | None = None,
             node_pressure: bool = False, controller_latency: float = 0.0,
             seed: int | None = 0, autoscale: AutoscalerOptions | None = None,
             max_events: int | None = DEFAULT_MAX_EVENTS,
             kueue_version: str = "current",
             best_candidates: bool | None = None,
             release: Modelled | None = None) -> SimResult:
    """Run ``scenario`` and return the result (events, per-pod outcomes, metrics).

    ``node_pressure`` turns on the kubelet's node-pressure eviction from modelled usage;
    ``controller_latency`` is how long a workload controller takes to create a pod;
    ``seed`` fixes the controllers' generated pod names (and the random expander) and the
    preemption candidate window's offsets; ``autoscale`` runs the Cluster Autoscaler with
    these options; more than ``max_events`` events (None: no limit) ends the run with an
    InputError; ``kueue_version`` (``current`` or ``v0.7``) is the Kueue release a
    scenario's Kueue objects follow; ``queue``, ``best_candidates`` and ``release`` are
    as for :class:`Simulator`.
    """
    if queue not in (*MODES, "priority"):
        raise InputError(f"--queue must be one of {', '.join(MODES)}, not {queue!r}")
    return Simulator(scenario, queue, latency, keep_timeline, node_pressure,
                     controller_latency, seed or 0, autoscale,
                     kueue_version, best_candidates, release).run(until, progress,
                                                                  max_events)
