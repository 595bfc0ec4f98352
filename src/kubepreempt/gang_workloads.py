"""The upstream scheduler_perf workloads with PodGroups (Kubernetes 1.37), built in memory.

From kubernetes ``test/integration/scheduler_perf``: ``PreemptionPodGroupDisruptionMode``
of ``default_preemption/performance-config.yaml`` (single high-priority pods preempting
gang members whose PodGroups disrupt ``single`` or ``all``, or plain pods) and the
workloads of ``workload_preemption/performance-config.yaml`` without CompositePodGroups
(``GangPreemptionBasic``, ``GangPreemptionPodGroups``, ``GangPreemptionAffinity``: a gang
preempting plain pods, lower-priority gangs, or pods its affinity needs), with their
templates (:mod:`kubepreempt.perf_templates`), plus one large gang workload of ours that
fits without preemption.

Every op is upstream's: ``createNodes`` (node-default), ``createPodGroups`` and the
``createPods`` of their members, the measured ``createPods``. Initial pods and gangs are
scheduled through the same cycles as the measured ones, outside the measured time. A gang
is decided by :func:`~kubepreempt.scheduler.gang.schedule_pod_group` (workload-aware
preemption on, as GenericWorkload turns it on in 1.37) when its pods arrive; a gang that
preempts has its victims deleted at once (grace 0) and is decided again, its members
nominated, as the single-pod runner retries a preemptor (:func:`kubepreempt.workloads.run`).

One approximation: a single pod's DefaultPreemption here picks victims pod by pod; when a
victim belongs to a PodGroup with ``disruptionMode: all``, the rest of that group is
evicted with it (as upstream's scheduler evicts the whole unit), but the choice of node
does not weigh that extra cost.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from kubepreempt import perf_templates
from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Pod, parse_node, parse_pod
from kubepreempt.api.podgroup import ALL, PodGroup, parse_pod_group, pod_group_name
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.cycle import PREEMPT, SCHEDULED, schedule_one
from kubepreempt.scheduler.gang import schedule_pod_group
from kubepreempt.scheduler.gang.preemption import WorkloadPreemption
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

GATES = {"GenericWorkload": True}


@dataclass(frozen=True, slots=True)
class GangsOp:
    """``createPodGroups`` of ``groups`` gangs of ``per_group`` and the ``createPods`` of
    their members (``disruption`` "": no PodGroups, plain pods of the same template)."""

    groups: int
    per_group: int
    namespace: str
    cpu: str
    pod_priority: int
    group_priority: int
    disruption: str = "single"
    memory: str = "100Mi"
    host_port_base: int | None = None
    affinity: bool = False

    @property
    def pods(self) -> int:
        """How many pods the op creates."""
        return self.groups * self.per_group

    def scaled(self, factor: float, nodes: int) -> GangsOp:
        """More or fewer gangs; gangs of one pod per node (``per_group`` = ``nodes``)
        shrink their size instead, as the nodes do."""
        if self.per_group == nodes:
            return replace(self, per_group=max(1, round(self.per_group * factor)))
        return replace(self, groups=max(1, round(self.groups * factor)))

    def pod_group_objects(self) -> list[PodGroup]:
        """The PodGroups, ``gang-0`` first (none for plain pods)."""
        if not self.disruption:
            return []
        return [parse_pod_group(perf_templates.pod_group(
            self.namespace, g, self.per_group, self.group_priority, self.disruption),
            Source(), Cluster().priority, GATES) for g in range(self.groups)]

    def manifests(self) -> Iterator[dict]:
        """The member pods, in creation order."""
        for i in range(self.pods):
            yield perf_templates.gang_pod(self.namespace, i, self.per_group, self.cpu,
                                          self.pod_priority, self.memory,
                                          self.host_port_base, bool(self.disruption),
                                          self.affinity)


@dataclass(frozen=True, slots=True)
class PodsOp:
    """A ``createPods`` of plain pods: ``pod-low-priority`` / ``pod-anchor-high-priority``
    (spread by host port over ``nodes``) or ``pod-high-priority`` (the preemptors)."""

    count: int
    template: str
    namespace: str

    def scaled(self, factor: float, nodes: int = 0) -> PodsOp:
        """``count`` multiplied by ``factor`` (at least 1)."""
        return replace(self, count=max(1, round(self.count * factor)))

    def manifests(self, nodes: int) -> Iterator[dict]:
        """The pods, in creation order."""
        for i in range(self.count):
            if self.template == "pod-high-priority":
                yield perf_templates.preemptor_pod(self.namespace, i)
            else:
                yield perf_templates.spread_pod(self.template, self.namespace, i,
                                                max(1, self.count // nodes))


Op = GangsOp | PodsOp


@dataclass(frozen=True, slots=True)
class GroupArrival:
    """A gang's pods arriving together; the group cycle decides them."""

    group: PodGroup
    pods: list[Pod]


@dataclass(frozen=True, slots=True)
class GangWorkload:
    """One PodGroup benchmark: nodes, initial ops, the measured op."""

    name: str
    nodes: int
    init_ops: tuple[Op, ...]
    measured_op: Op
    description: str = ""

    @property
    def initial(self) -> int:
        """How many pods are scheduled before the measured ones."""
        return sum(op.pods if isinstance(op, GangsOp) else op.count for op in self.init_ops)

    @property
    def total_pods(self) -> int:
        """How many measured pods."""
        op = self.measured_op
        return op.pods if isinstance(op, GangsOp) else op.count

    @property
    def groups(self) -> int:
        """How many measured PodGroups (0: the measured pods are single pods)."""
        op = self.measured_op
        return op.groups if isinstance(op, GangsOp) and op.disruption else 0

    def scaled(self, factor: float) -> GangWorkload:
        """Nodes and ops multiplied by ``factor``."""
        return replace(self, name=f"{self.name}@{factor:g}",
                       nodes=max(1, round(self.nodes * factor)),
                       init_ops=tuple(op.scaled(factor, self.nodes) for op in self.init_ops),
                       measured_op=self.measured_op.scaled(factor, self.nodes))

    def pod_groups(self) -> dict[str, PodGroup]:
        """Every PodGroup of the workload by ``namespace/name``."""
        return {g.key: g for op in (*self.init_ops, self.measured_op)
                if isinstance(op, GangsOp) for g in op.pod_group_objects()}

    def items(self, op: Op, groups: dict[str, PodGroup]) -> Iterator[Pod | GroupArrival]:
        """An op's arrivals: its plain pods one by one, its gangs group by group."""
        resolve = Cluster().priority.resolve
        manifests = op.manifests() if isinstance(op, GangsOp) else op.manifests(self.nodes)
        pods = (parse_pod(doc, Source(), resolve) for doc in manifests)
        if not isinstance(op, GangsOp) or not op.disruption:
            yield from pods
            return
        members: list[Pod] = []
        for pod in pods:
            members.append(pod)
            if len(members) == op.per_group:
                yield GroupArrival(groups[f"{op.namespace}/{pod_group_name(pod)}"], members)
                members = []

    def build(self, now: float = 1e9) -> tuple[Cluster, GangRunner]:
        """The cluster with its nodes and initial pods and gangs scheduled, and the
        runner (which holds the PodGroups) to run the measured op with."""
        width = len(str(self.nodes - 1))
        cluster = Cluster()
        cluster.add_nodes([parse_node(perf_templates.node(f"node-{i:0{width}d}"), Source())
                           for i in range(self.nodes)])
        runner = GangRunner(cluster, self.pod_groups(), now)
        for op in self.init_ops:
            runner.run(self.items(op, runner.pod_groups))
        runner.stats = GangStats()
        return cluster, runner

    def arrivals(self, runner: GangRunner) -> list[Pod | GroupArrival]:
        """The measured arrivals, in order."""
        return list(self.items(self.measured_op, runner.pod_groups))


@dataclass(slots=True)
class GangStats:
    """What a run did, pod by pod and group by group, with each item's latency."""

    scheduled: int = 0
    preempted: int = 0  # pods nominated after a preemption (then bound)
    unschedulable: int = 0
    victims: int = 0
    # Sum of the preemptions' numPodGroupDisruptions (victim units of a PodGroup), what
    # upstream's scheduler_preemption_workload_disruptions histogram adds up.
    pod_group_disruptions: int = 0
    groups_scheduled: int = 0
    groups_preempted: int = 0
    groups_unschedulable: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds per pod / per group
    placements: dict[str, str] = field(default_factory=dict)


class GangRunner:
    """Schedules plain pods (``schedule_one``) and gangs (``schedule_pod_group``) and
    applies each decision to the cluster, as :func:`kubepreempt.workloads.run` does."""

    def __init__(self, cluster: Cluster, pod_groups: dict[str, PodGroup],
                 now: float = 1e9) -> None:
        self.cluster = cluster
        self.pod_groups = pod_groups
        self.now = now
        self.sched = Scheduler(cluster)
        self.evaluator = Evaluator(self.sched, seed=0, now=now, materialize=False)
        self.workload_preemption = WorkloadPreemption(pod_groups)
        self.stats = GangStats()
        self.bound_members: dict[str, dict[str, Pod]] = defaultdict(dict)

    def run(self, items: Iterator[Pod | GroupArrival] | list[Pod | GroupArrival],
            progress: Callable[[int], None] | None = None) -> GangStats:
        """Schedule every arrival in order; ``progress`` gets the pods done so far."""
        done = 0
        clock = time.perf_counter
        for item in items:
            start = clock()
            if isinstance(item, GroupArrival):
                self._group(item)
                done += len(item.pods)
            else:
                self._pod(item)
                done += 1
            self.stats.latencies.append(clock() - start)
            if progress is not None:
                progress(done)
        return self.stats

    def _bind(self, pod: Pod, node: str) -> None:
        self.cluster.bind(pod, node)
        self.sched.nominator.remove(pod)
        self.stats.scheduled += 1
        self.stats.placements[pod.key] = node
        group = pod_group_name(pod)
        if group is not None:
            self.bound_members[f"{pod.namespace}/{group}"][pod.key] = pod

    def _evict(self, victims: list[Pod]) -> None:
        """Delete the victims (grace 0); a member of an ``all`` group takes the rest of
        its group with it."""
        for victim in victims:
            name = pod_group_name(victim)
            group = self.pod_groups.get(f"{victim.namespace}/{name}") if name else None
            unit = [victim]
            if group is not None:
                members = self.bound_members[group.key]
                unit = list(members.values()) if group.disruption_mode == ALL else unit
                for pod in unit:
                    members.pop(pod.key, None)
            for pod in unit:
                if self.cluster.find_pod(pod.key) is pod:
                    self.cluster.remove(pod)
                    self.stats.victims += 1

    def _group_units(self, victims: Iterable[Pod]) -> int:
        """A single pod's candidate's ``numPodGroupDisruptions``: its victims' units
        (an ``all`` group is one, any other pod one) whose pods name a PodGroup."""
        units: set[str] = set()
        for victim in victims:
            name = pod_group_name(victim)
            if name is None:
                continue
            group = self.pod_groups.get(f"{victim.namespace}/{name}")
            units.add(group.key if group is not None and group.disruption_mode == ALL
                      else victim.key)
        return len(units)

    def _pod(self, pod: Pod) -> None:
        self.cluster.add_pending(pod)
        for attempt in range(2):
            res = schedule_one(self.sched, pod, preemption=attempt == 0, now=self.now,
                               evaluator=self.evaluator)
            if res.result == SCHEDULED:
                assert res.node_name is not None
                self._bind(pod, res.node_name)
                return
            if res.result != PREEMPT or res.preemption is None:
                break
            result = res.preemption
            assert result.node is not None
            self.stats.pod_group_disruptions += self._group_units(result.victims)
            self._evict(list(result.victims))
            for other in result.cleared_nominations:
                self.sched.nominator.remove(other)
            self.sched.nominator.add(pod, result.node)
            self.stats.preempted += 1
        self.stats.unschedulable += 1

    def _group(self, arrival: GroupArrival) -> None:
        for pod in arrival.pods:
            self.cluster.add_pending(pod)
        group = arrival.group
        stats = self.stats
        for attempt in range(2):
            decision = schedule_pod_group(
                self.sched, group.namespace, group.name, group, preemption=attempt == 0,
                now=self.now, workload_preemption=self.workload_preemption
                if attempt == 0 else None)
            if decision.result == SCHEDULED:
                for member in decision.members:
                    if member.result == SCHEDULED and member.node is not None:
                        self._bind(member.pod, member.node)
                stats.groups_scheduled += attempt == 0
                return
            if decision.result != PREEMPT:
                break
            # Workload-aware preemption is one candidate; otherwise each member's own
            # DefaultPreemption was one, with its own count.
            stats.pod_group_disruptions += (
                decision.pod_group_disruptions if decision.unit_victims is not None
                else sum(self._group_units(m.victims) for m in decision.members))
            self._evict(decision.victims)
            for member in decision.members:
                if member.node is not None:
                    self.sched.nominator.add(member.pod, member.node)
                    stats.preempted += 1
            stats.groups_preempted += 1
        stats.groups_unschedulable += 1
        stats.unschedulable += sum(p.node_name is None for p in arrival.pods)


def _basic(name: str, nodes: int, init: int, groups: int, per_group: int) -> GangWorkload:
    return GangWorkload(
        f"GangPreemptionBasic/{name}", nodes,
        (PodsOp(init, "pod-low-priority", "gang-preempt-1"),),
        GangsOp(groups, per_group, "gang-preempt-0", "3970m", 8888888, 10000),
        "gangs of 3970m pods preempting 40m plain pods")


def _pod_groups(name: str, nodes: int, low: int, high: int, per_group: int
                ) -> GangWorkload:
    # Upstream's names end in "..._Evicting_<n>LowPriorityGangs"; shortened here so a name
    # fits an 80-column table.
    return GangWorkload(
        f"GangPreemptionPodGroups/{name}", nodes,
        (GangsOp(low, per_group, "gang-preempt-1", "600m", 1000, 1000,
                 host_port_base=8000),),
        GangsOp(high, per_group, "gang-preempt-0", "3500m", 9999999, 9999999,
                host_port_base=9000),
        "high-priority gangs preempting low-priority gangs")


def _affinity(name: str, nodes: int, init: int, groups: int, per_group: int) -> GangWorkload:
    return GangWorkload(
        f"GangPreemptionAffinity/{name}", nodes,
        (PodsOp(nodes, "pod-anchor-high-priority", "gang-preempt-2"),
         PodsOp(init, "pod-low-priority", "gang-preempt-1")),
        GangsOp(groups, per_group, "gang-preempt-0", "3970m", 8888888, 10000,
                memory="500Mi", affinity=True),
        "gangs with required pod affinity preempting plain pods")


def _disruption(name: str, mode: str) -> GangWorkload:
    return GangWorkload(
        f"PreemptionPodGroupDisruptionMode/1000Nodes_1000Candidates_{name}", 1000,
        (GangsOp(1000, 10, "gang-preempt-1", "300m", 1000, 1000, mode, "50Mi"),),
        PodsOp(100, "pod-high-priority", "gang-preempt-0"),
        f"3970m pods preempting 10 gang members each (disruptionMode {mode or 'none'})")


GANG_WORKLOADS: dict[str, GangWorkload] = {w.name: w for w in (
    _disruption("NoPodGroup", ""),
    _disruption("DisruptionSingle", "single"),
    _disruption("DisruptionAll", "all"),
    _basic("100Nodes_1PreemptorGang_100Pods_Evicting_1000InitPods", 100, 1000, 1, 100),
    _basic("100Nodes_10PreemptorGangs_10Pods_Evicting_1000InitPods", 100, 1000, 10, 10),
    _pod_groups("100Nodes_1PreemptorGang_100Pods_Evicting_5Gangs", 100, 5, 1, 100),
    _pod_groups("100Nodes_10PreemptorGangs_10Pods_Evicting_50Gangs", 100, 50, 10, 10),
    _affinity("100Nodes_1PreemptorGang_100Pods_Evicting_1000InitPods", 100, 1000, 1, 100),
    _affinity("100Nodes_10PreemptorGangs_10Pods_Evicting_1000InitPods", 100, 1000, 10, 10),
    GangWorkload("GangScheduling/5000Nodes_1000Gangs_8Pods", 5000,
                 (PodsOp(10000, "pod-low-priority", "init"),),
                 GangsOp(1000, 8, "gangs", "500m", 8888888, 10000),
                 "gangs of 8 that fit without preemption (ours, not upstream's)"),
)}


def get(name: str, scale: float = 1.0) -> GangWorkload:
    """A PodGroup workload by name (``KeyError`` otherwise), optionally scaled."""
    workload = GANG_WORKLOADS[name]
    return workload if scale == 1.0 else workload.scaled(scale)


def bench(workload: GangWorkload, progress: Callable[[int], None] | None = None
          ) -> dict:
    """Build, run the measured op timed, and report as ``kubepreempt bench`` does, with
    groups per second and the median latency per group (per pod without groups)."""
    cluster, runner = workload.build()
    arrivals = workload.arrivals(runner)
    start = time.perf_counter()
    stats = runner.run(arrivals, progress)
    seconds = time.perf_counter() - start
    pods = workload.total_pods
    groups = workload.groups
    median_ms = round(statistics.median(stats.latencies) * 1000, 3) if stats.latencies \
        else None
    return {"workload": workload.name, "nodes": workload.nodes, "pods": pods,
            "groups": groups, "seconds": round(seconds, 3),
            "podsPerSecond": round(pods / seconds, 1) if seconds else None,
            "groupsPerSecond": round(groups / seconds, 1) if seconds and groups else None,
            "latencyMedianMs": median_ms, "latencyPer": "group" if groups else "pod",
            "victims": stats.victims, "podGroupDisruptions": stats.pod_group_disruptions,
            "scheduled": stats.scheduled,
            "preemptors": stats.preempted, "unschedulable": stats.unschedulable,
            "groupsScheduled": stats.groups_scheduled,
            "groupsPreempted": stats.groups_preempted,
            "groupsUnschedulable": stats.groups_unschedulable, "featureGates": dict(GATES)}
