"""The upstream scheduler_perf workloads, built in memory.

Shapes follow kubernetes ``test/integration/scheduler_perf`` (config/performance-config.yaml
and config/templates): node = cpu 4, memory 32Gi, pods 110; default pod = requests = limits
100m / 500Mi; low-priority pod = 900m / 500Mi, priority 0, grace 0; high-priority pod =
priority 10, 3000m / 500Mi.

Initial pods are placed round-robin over the nodes in name order. For identical pods on
identical nodes this is exactly where the default profile puts them (LeastAllocated and
BalancedAllocation both prefer the node with fewer such pods; ties go to the first name),
and it keeps building a 20,000-pod workload out of the measured time.

Interleaved arrivals (PreemptionAsync, Unschedulable) use virtual time at upstream's
threshold throughput, so a run is deterministic: PreemptionAsync's 5 high-priority pods per
second at 570 pods/s is one every 114 measured pods; Unschedulable's one large pod per
200 ms at 600 pods/s is one every 120.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from kubepreempt import perf_templates
from kubepreempt.api.errors import Source
from kubepreempt.api.objects import (
    PREEMPT_LOWER_PRIORITY,
    Namespace,
    Node,
    Pod,
    parse_node,
    parse_pod,
)
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.api.resources import GUARANTEED
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.cycle import PREEMPT, SCHEDULED, schedule_one
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

MI = 1024**2
GI = 1024**3
NODE_ALLOCATABLE = {"cpu": 4000, "memory": 32 * GI, "pods": 110}


@dataclass(frozen=True, slots=True)
class PodTemplate:
    """The resource-relevant shape of one upstream pod template (requests = limits)."""

    name: str
    cpu: int  # milli-CPU
    memory: int  # bytes
    priority: int = 0
    grace: int = 30

    def make(self, name: str, namespace: str = "default") -> Pod:
        """A fresh pending pod of this shape."""
        requests = {"cpu": self.cpu, "memory": self.memory}
        return Pod(namespace=namespace, name=name, priority=self.priority,
                   preemption_policy=PREEMPT_LOWER_PRIORITY, requests=requests,
                   nonzero_cpu=self.cpu, nonzero_memory=self.memory, qos=GUARANTEED,
                   termination_grace_period=self.grace,
                   labels={"template": self.name})


DEFAULT_POD = PodTemplate("default", 100, 500 * MI)
LOW_PRIORITY_POD = PodTemplate("low-priority", 900, 500 * MI, priority=0, grace=0)
HIGH_PRIORITY_POD = PodTemplate("high-priority", 3000, 500 * MI, priority=10)
# Unschedulable's pod that fits no node (more cpu than a node has), at high priority so it
# runs the whole preemption path before giving up, as upstream's large-cpu template does.
LARGE_POD = PodTemplate("large-cpu", 9000, 500 * MI, priority=10)


@dataclass(frozen=True, slots=True)
class Workload:
    """One benchmark: nodes, initial pods, measured pods, and interleaved arrivals."""

    name: str
    nodes: int
    initial: int
    initial_template: PodTemplate
    measured: int
    measured_template: PodTemplate
    interleaved_template: PodTemplate | None = None
    interleave_every: int = 0  # one interleaved pod after this many measured pods
    description: str = ""

    def scaled(self, factor: float) -> Workload:
        """The same shape with node and pod counts multiplied by ``factor`` (at least 1)."""
        def s(n: int) -> int:
            return max(1, round(n * factor)) if n else 0
        return Workload(f"{self.name}@{factor:g}", s(self.nodes), s(self.initial),
                        self.initial_template, s(self.measured), self.measured_template,
                        self.interleaved_template, self.interleave_every, self.description)

    def build(self) -> Cluster:
        """The cluster with its nodes and initial pods bound."""
        width = len(str(self.nodes - 1))
        nodes = [Node(f"node-{i:0{width}d}", labels={"kubernetes.io/hostname":
                                                      f"node-{i:0{width}d}"},
                      allocatable=dict(NODE_ALLOCATABLE)) for i in range(self.nodes)]
        cluster = Cluster()
        cluster.add_nodes(nodes)
        for i in range(self.initial):
            pod = self.initial_template.make(f"init-{i}", "init")
            pod.start_time = float(i)  # started in creation order, as upstream's would be
            cluster.bind(pod, nodes[i % self.nodes].name)
        return cluster

    def arrivals(self) -> Iterator[Pod]:
        """The pods to schedule, in arrival order."""
        extra = 0
        for i in range(self.measured):
            yield self.measured_template.make(f"pod-{i}", "measured")
            if self.interleaved_template is not None and (i + 1) % self.interleave_every == 0:
                yield self.interleaved_template.make(f"extra-{extra}", "interleaved")
                extra += 1

    @property
    def total_pods(self) -> int:
        """How many pods :meth:`arrivals` yields."""
        extra = self.measured // self.interleave_every if self.interleaved_template else 0
        return self.measured + extra


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("SchedulingBasic/5000Nodes_10000Pods", 5000, 1000, DEFAULT_POD, 10000,
             DEFAULT_POD, description="default pods onto a mostly empty cluster"),
    Workload("SchedulingBasic/5000Nodes_50000Pods", 5000, 5000, DEFAULT_POD, 50000,
             DEFAULT_POD, description="default pods onto a mostly empty cluster"),
    Workload("PreemptionBasic/1000Nodes", 1000, 4000, LOW_PRIORITY_POD, 1000,
             HIGH_PRIORITY_POD, description="each high-priority pod evicts 3 low ones"),
    Workload("PreemptionBasic/5000Nodes", 5000, 20000, LOW_PRIORITY_POD, 5000,
             HIGH_PRIORITY_POD, description="each high-priority pod evicts 3 low ones"),
    Workload("PreemptionAsync/5000Nodes", 5000, 20000, LOW_PRIORITY_POD, 5000, DEFAULT_POD,
             HIGH_PRIORITY_POD, 114,
             description="default pods while 5 high-priority pods per second preempt"),
    Workload("Unschedulable/5kNodes/20kInit/10kPods", 5000, 20000, DEFAULT_POD, 10000,
             DEFAULT_POD, LARGE_POD, 120,
             description="default pods while a too-large pod arrives every 200 ms"),
)}


@dataclass(frozen=True, slots=True)
class PodsOp:
    """Upstream ``createPods`` (or ``createPodSets``: ``sets`` namespaces, ``count`` each)."""

    count: int
    template: str  # key of perf_templates.TEMPLATES
    namespace: str  # or the namespace prefix of a pod set
    sets: int = 0  # > 0: createPodSets over namespaces ``namespace-0 .. namespace-(sets-1)``

    def scaled(self, factor: float) -> PodsOp:
        """A pod set scales its number of namespaces; a plain op its pod count."""
        if self.sets:
            return replace(self, sets=max(1, round(self.sets * factor)))
        return replace(self, count=max(1, round(self.count * factor)))

    @property
    def total(self) -> int:
        """How many pods the op creates."""
        return self.count * (self.sets or 1)

    def pods(self, resolve: PriorityResolver) -> Iterator[Pod]:
        """The op's pods, in creation order, named ``<template>-<i>``."""
        for ns in ([f"{self.namespace}-{k}" for k in range(self.sets)] if self.sets
                   else [self.namespace]):
            for i in range(self.count):
                doc = perf_templates.manifest(self.template, ns, f"{self.template}-{i}")
                yield parse_pod(doc, Source(), resolve)


@dataclass(frozen=True, slots=True)
class TemplateWorkload:
    """A scheduler_perf workload built from upstream's node and pod templates.

    Unlike :class:`Workload`, the initial pods are scheduled one by one through the same
    cycle as the measured ones (outside the measured time), as upstream creates them
    through the scheduler: with affinity terms, round-robin would not be where the
    scheduler puts them.

    Zone labels (``labelNodePrepareStrategy``) go round-robin over ``zones``; upstream
    picks one at random per node. ``churn_every`` models ``SchedulingWithMixedChurn``'s
    ``churn`` op (recreate, one node, one large high-priority pod and one Service per
    second) in virtual time at the upstream threshold: one round per ``churn_every``
    measured pods.
    """

    name: str
    nodes: int
    init_ops: tuple[PodsOp, ...]
    measured_op: PodsOp
    threshold: int  # upstream's pods/s threshold for the performance-labelled size
    zones: tuple[str, ...] = ()
    labelled_namespaces: tuple[str, ...] = ()  # namespaces labelled team=devops
    named_node: bool = False  # SchedulingDaemonset: scheduler-perf-node first
    churn_every: int = 0
    description: str = ""

    @property
    def initial(self) -> int:
        """How many pods are scheduled before the measured ones."""
        return sum(op.total for op in self.init_ops)

    @property
    def measured(self) -> int:
        """How many measured pods of the measured template."""
        return self.measured_op.total

    @property
    def total_pods(self) -> int:
        """How many pods :meth:`arrivals` yields (churn pods included)."""
        extra = self.measured // self.churn_every if self.churn_every else 0
        return self.measured + extra

    def scaled(self, factor: float) -> TemplateWorkload:
        """Node and pod counts (pod sets: namespaces) multiplied by ``factor``."""
        labelled = self.labelled_namespaces
        sets = [op for op in self.init_ops if op.sets]
        if sets:  # keep the labelled init namespaces in step with the scaled pod sets
            keep = {f"{op.namespace}-{k}" for op in sets for k in range(op.scaled(factor).sets)}
            labelled = tuple(ns for ns in labelled
                             if ns in keep or not any(ns.startswith(op.namespace + "-")
                                                      for op in sets))
        return replace(self, name=f"{self.name}@{factor:g}",
                       nodes=max(1, round(self.nodes * factor)),
                       init_ops=tuple(op.scaled(factor) for op in self.init_ops),
                       measured_op=self.measured_op.scaled(factor),
                       labelled_namespaces=labelled,
                       churn_every=max(1, round(self.churn_every * factor))
                       if self.churn_every else 0)

    def node_manifests(self) -> Iterator[dict]:
        """The nodes, in creation order."""
        if self.named_node:
            yield perf_templates.node("scheduler-perf-node", pods=90000)
        width = len(str(self.nodes - 1))
        zones = self.zones
        for i in range(self.nodes):
            labels = {perf_templates.ZONE: zones[i % len(zones)]} if zones else None
            yield perf_templates.node(f"node-{i:0{width}d}", labels=labels)

    def build(self) -> Cluster:
        """The cluster: nodes, labelled namespaces, initial pods scheduled and bound."""
        cluster = Cluster()
        cluster.add_nodes([parse_node(doc, Source()) for doc in self.node_manifests()])
        for ns in self.labelled_namespaces:
            cluster.namespaces[ns] = Namespace(ns, {"team": "devops",
                                                    "kubernetes.io/metadata.name": ns})
        resolve = cluster.priority.resolve
        init = [p for op in self.init_ops for p in op.pods(resolve)]
        if init:
            run(cluster, init)
        return cluster

    def arrivals(self) -> Iterator[Pod | Node]:
        """The measured pods in arrival order, with churn nodes and pods interleaved."""
        resolve = PriorityResolver().resolve
        rounds = 0
        for i, pod in enumerate(self.measured_op.pods(resolve), 1):
            yield pod
            if self.churn_every and i % self.churn_every == 0:
                yield parse_node(perf_templates.node(f"node-churn-{rounds}", pods=0,
                                                     sized=False), Source())
                doc = perf_templates.manifest("pod-high-priority-large-cpu", "churn",
                                              f"pod-h-{rounds}")
                yield parse_pod(doc, Source(), resolve)
                rounds += 1


def _ns_selector(name: str, nodes: int, per_ns: int, measured: int, template: str,
                 threshold: int, zones: tuple[str, ...] = ()) -> TemplateWorkload:
    """The ``...WithNSSelector`` shape: 100 labelled init namespaces and one measured."""
    return TemplateWorkload(
        name, nodes, (PodsOp(per_ns, template, "init-ns", sets=100),),
        PodsOp(measured, template, "measure-ns-0"), threshold, zones=zones,
        labelled_namespaces=(*(f"init-ns-{k}" for k in range(100)), "measure-ns-0"),
        description=f"{template} pods; terms select namespaces by label")


ZONE1 = ("zone1",)
MOONS = ("moon-1", "moon-2", "moon-3")

TEMPLATE_WORKLOADS: dict[str, TemplateWorkload] = {w.name: w for w in (
    TemplateWorkload("SchedulingPodAntiAffinity/5000Nodes_2000Pods", 5000,
                     (PodsOp(1000, "pod-with-pod-anti-affinity", "sched-0"),),
                     PodsOp(2000, "pod-with-pod-anti-affinity", "sched-1"), 60,
                     description="required anti-affinity per hostname"),
    TemplateWorkload("SchedulingPodMatchingAntiAffinity/5000Nodes_5000Pods", 5000,
                     (PodsOp(1000, "pod-with-pod-anti-affinity", "sched-0"),),
                     PodsOp(5000, "pod-with-pod-anti-affinity-label", "sched-1"), 595,
                     description="pods matched by existing pods' anti-affinity"),
    TemplateWorkload("SchedulingPodAffinity/5000Nodes_5000Pods", 5000,
                     (PodsOp(5000, "pod-with-pod-affinity", "sched-0"),),
                     PodsOp(5000, "pod-with-pod-affinity", "sched-1"), 35, zones=ZONE1,
                     description="required affinity per zone"),
    TemplateWorkload("SchedulingPreferredPodAffinity/5000Nodes_5000Pods", 5000,
                     (PodsOp(5000, "pod-with-preferred-pod-affinity", "sched-0"),),
                     PodsOp(5000, "pod-with-preferred-pod-affinity", "sched-1"), 90,
                     description="preferred affinity per hostname"),
    TemplateWorkload("SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods", 5000,
                     (PodsOp(5000, "pod-with-preferred-pod-anti-affinity", "sched-0"),),
                     PodsOp(5000, "pod-with-preferred-pod-anti-affinity", "sched-1"), 90,
                     description="preferred anti-affinity per hostname"),
    TemplateWorkload("SchedulingNodeAffinity/5000Nodes_10000Pods", 5000,
                     (PodsOp(5000, "pod-with-node-affinity", "namespace-1"),),
                     PodsOp(10000, "pod-with-node-affinity", "namespace-2"), 220,
                     zones=ZONE1, description="required node affinity on the zone"),
    TemplateWorkload("MixedSchedulingBasePod/5000Nodes_5000Pods", 5000,
                     tuple(PodsOp(2000, t, "sched-0") for t in (
                         "pod-default", "pod-with-pod-affinity",
                         "pod-with-pod-anti-affinity", "pod-with-preferred-pod-affinity",
                         "pod-with-preferred-pod-anti-affinity")),
                     PodsOp(5000, "pod-default", "namespace-7"), 140, zones=ZONE1,
                     description="default pods among pods with every kind of affinity"),
    _ns_selector("SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods",
                 6000, 40, 2000, "pod-anti-affinity-ns-selector", 24),
    _ns_selector("SchedulingPreferredAntiAffinityWithNSSelector/5000Nodes_2000Pods",
                 5000, 40, 2000, "pod-preferred-anti-affinity-ns-selector", 55),
    _ns_selector("SchedulingRequiredPodAffinityWithNSSelector/5000Nodes_2000Pods",
                 5000, 50, 2000, "pod-affinity-ns-selector", 35, zones=ZONE1),
    _ns_selector("SchedulingPreferredAffinityWithNSSelector/5000Nodes_5000Pods",
                 5000, 50, 5000, "pod-preferred-affinity-ns-selector", 90),
    TemplateWorkload("TopologySpreading/5000Nodes_5000Pods", 5000,
                     (PodsOp(5000, "pod-default", "namespace-1"),),
                     PodsOp(5000, "pod-with-topology-spreading", "namespace-2"), 460,
                     zones=MOONS, description="DoNotSchedule spread over 3 zones"),
    TemplateWorkload("PreferredTopologySpreading/5000Nodes_5000Pods", 5000,
                     (PodsOp(5000, "pod-default", "namespace-1"),),
                     PodsOp(5000, "pod-with-preferred-topology-spreading", "namespace-2"),
                     340, zones=MOONS, description="ScheduleAnyway spread over 3 zones"),
    TemplateWorkload("SchedulingWithMixedChurn/5000Nodes_10000Pods", 5000, (),
                     PodsOp(10000, "pod-default", "namespace-2"), 710, churn_every=710,
                     description="default pods while nodes and large pods churn"),
    TemplateWorkload("SchedulingDaemonset/15000Nodes", 15000, (),
                     PodsOp(30000, "daemonset-pod", "namespace-2"), 1100, named_node=True,
                     description="DaemonSet-style pods pinned to one node by name"),
)}

ALL_WORKLOADS: dict[str, Workload | TemplateWorkload] = {**WORKLOADS, **TEMPLATE_WORKLOADS}


def get(name: str, scale: float = 1.0) -> Workload | TemplateWorkload:
    """A workload by name (``KeyError`` with the known names otherwise), optionally scaled."""
    try:
        workload = ALL_WORKLOADS[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(ALL_WORKLOADS)}"
                       ) from None
    return workload if scale == 1.0 else workload.scaled(scale)


@dataclass(slots=True)
class RunStats:
    """What one run did: pods handled, where they went, and the victims."""

    scheduled: int = 0
    preempted: int = 0  # pods that preempted (then bound on their nominated node)
    unschedulable: int = 0
    victims: int = 0
    victims_per_preemptor: list[int] = field(default_factory=list)
    placements: dict[str, str] = field(default_factory=dict)  # pod key -> node (if kept)


def run(cluster: Cluster, pods: Iterable[Pod | Node], progress: Callable[[int], None] | None = None,
        keep_placements: bool = False, now: float = 1e9, sample: bool = False) -> RunStats:
    """Schedule ``pods`` one by one through the cluster's profiles (default: upstream's
    default profile; ``Cluster.scheduler_config``), applying each decision.

    Each attempt is one :func:`~kubepreempt.scheduler.cycle.schedule_one`. A pod that fits
    is bound. A pod that preempts is nominated to the chosen node, its victims are deleted
    at once (grace 0, as the workloads' low-priority pods have) and the pod is tried again
    right away: it heads the active queue with the highest priority, and its nominated
    node is checked first, as upstream does. A pod that fits nowhere even with preemption,
    or that kube-scheduler would not attempt (gated, another scheduler's, being deleted),
    stays pending (upstream parks it in the unschedulable pool).
    """
    sched = Scheduler(cluster)
    evaluator = Evaluator(sched, sample=sample, seed=0, now=now, materialize=False)
    stats = RunStats()
    names = [n.name for n in cluster.nodes]
    count = 0
    for pod in pods:
        if isinstance(pod, Node):  # a churn node joins the cluster
            cluster.add_node(pod)
            names.append(pod.name)
            continue
        count += 1
        cluster.add_pending(pod)
        for attempt in range(2):
            # Preemption runs once; the retry is the next cycle on the nominated node.
            res = schedule_one(sched, pod, preemption=attempt == 0, now=now,
                               evaluator=evaluator)
            if res.result == SCHEDULED:
                assert res.node is not None
                cluster.bind(pod, names[res.node])
                sched.nominator.remove(pod)
                stats.scheduled += 1
                if keep_placements:
                    stats.placements[pod.key] = names[res.node]
                break
            if res.result != PREEMPT:
                stats.unschedulable += 1
                break
            result = res.preemption
            assert result is not None and result.node is not None
            for victim in result.victims:
                cluster.remove(victim)
            for other in result.cleared_nominations:
                sched.nominator.remove(other)
            sched.nominator.add(pod, result.node)
            stats.preempted += 1
            stats.victims += len(result.victims)
            stats.victims_per_preemptor.append(len(result.victims))
        if progress is not None:
            progress(count)
    return stats
