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
from dataclasses import dataclass, field

from kubepreempt.api.objects import PREEMPT_LOWER_PRIORITY, Node, Pod
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


def get(name: str, scale: float = 1.0) -> Workload:
    """A workload by name (``KeyError`` with the known names otherwise), optionally scaled."""
    try:
        workload = WORKLOADS[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}") from None
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


def run(cluster: Cluster, pods: Iterable[Pod], progress: Callable[[int], None] | None = None,
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
    for count, pod in enumerate(pods, 1):
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
