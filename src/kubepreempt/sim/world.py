"""The simulated cluster: pods' and nodes' lives, and the verbs that change them.

The world is what the apiserver and the nodes hold: which pods exist and where they run,
their nominations (``status.nominatedNodeName``), the record of what happened, and the
resource series. Every change goes through one of the public verbs below; each verb tells
the observers (the scheduler driver, the kubelet, then the actors around them, in that
order) through the :class:`~kubepreempt.sim.actors.Actor` hooks. The world schedules only
its own timers (a pod's completion, the end of its grace period) on the kernel.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod, Taint
from kubepreempt.cluster import CPU, MEMORY, pdb_disruptions_allowed
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Kernel, Priority
from kubepreempt.sim.metrics import Event, PodRecord, Series
from kubepreempt.sim.scenario import NodePlan, PodPlan, Scenario


class World:
    """The cluster of one simulation, its records, and the verbs actors change it with."""

    def __init__(self, kernel: Kernel, scenario: Scenario, keep_timeline: bool = True) -> None:
        self.kernel = kernel
        self.scen = scenario
        self.cluster = scenario.cluster
        self.keep_timeline = keep_timeline
        self.nominator = Nominator()
        self.records: dict[str, PodRecord] = {}
        self.plans: dict[str, PodPlan] = {}
        self.events: list[Event] = []
        self.series = Series()
        self.version = 0  # bumped on any change that can alter a scheduling answer
        self.removed_nodes: set[str] = set()  # nodes that left (their rows stay, empty)
        self.quota_refusals: dict[str, dict[str, int]] = {}  # namespace -> class -> count
        # Told of every change, in this order: the scheduler driver, the kubelet, actors.
        self.observers: list[Actor] = []
        self._term_at: dict[str, float] = {}
        self._pending_by_prio: dict[int, int] = {}
        self._pdb_version = -1
        self._req = [0, 0]
        alloc = self.cluster.alloc
        self._alloc = [int(alloc[:, CPU].sum()), int(alloc[:, MEMORY].sum())]

    @property
    def now(self) -> float:
        """The simulated time."""
        return self.kernel.now

    # ---- the record ----
    def record(self, etype: str, pod: str, node: str | None = None, detail: str = "") -> None:
        """Add an event to the timeline (when the timeline is kept)."""
        if self.keep_timeline:
            self.events.append(Event(self.kernel.now, etype, pod, node, detail))

    def sample_util(self, t: float) -> None:
        """Append the requested share of cpu and memory at ``t`` to the series."""
        cpu = self._req[0] / self._alloc[0] if self._alloc[0] else 0.0
        mem = self._req[1] / self._alloc[1] if self._alloc[1] else 0.0
        util = self.series.util
        if util and util[-1][0] == t:
            util[-1] = (t, cpu, mem)
        else:
            util.append((t, cpu, mem))

    def _pending_delta(self, prio: int, delta: int) -> None:
        now = self.kernel.now
        n = self._pending_by_prio.get(prio, 0) + delta
        self._pending_by_prio[prio] = n
        points = self.series.pending.setdefault(prio, [])
        if points and points[-1][0] == now:
            points[-1] = (now, n)
        else:
            points.append((now, n))

    def _resources(self, pod: Pod, sign: int) -> None:
        self._req[0] += sign * pod.requests.get("cpu", 0)
        self._req[1] += sign * pod.requests.get("memory", 0)
        self.sample_util(self.kernel.now)

    def exit_time(self, key: str) -> float:
        """When a terminating pod will be gone (now if it is not terminating)."""
        return self._term_at.get(key, self.kernel.now)

    # ---- pods ----
    def place_initial(self, plan: PodPlan) -> None:
        """A pod already running at time 0 (terminating if the input says so)."""
        pod = plan.pod
        if pod.node_name not in self.cluster.node_index:
            raise InputError(f"running at time 0 on node {pod.node_name!r}, which "
                             "arrives later", pod.source, "Pod", pod.key)
        self.plans[pod.key] = plan
        rec = self.records[pod.key] = PodRecord(pod, 0.0)
        self.bind(pod, pod.node_name, 0.0, quiet=True)
        rec.bound_at = 0.0
        if pod.terminating:
            pod.deletion_timestamp = None
            self.signal(pod, 0.0, m.TERMINATED, "terminating in the input", quiet=True)

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
        refusal = quota.admit(pod, existing, self.kernel.now)
        if refusal is not None:
            row = self.quota_refusals.setdefault(pod.namespace, {})
            name = m.class_name(pod)
            row[name] = row.get(name, 0) + 1
        return refusal

    def create(self, plan: PodPlan) -> None:
        """Create the pod of ``plan`` (after quota admission unless already admitted): it
        is pending, and the observers learn of it (``on_created``)."""
        pod = plan.pod
        now = self.kernel.now
        if not plan.admitted:
            refusal = self.admit(pod)
            if refusal is not None:  # a bare pod: nobody retries it
                rec = self.records[pod.key] = PodRecord(pod, now, phase="Failed")
                rec.ended_at = now
                self.record(m.QUOTA_REFUSED, pod.key, None, refusal)
                return
        self.plans[pod.key] = plan
        self.records[pod.key] = PodRecord(pod, now)
        self.record(m.ARRIVED, pod.key, pod.node_name or None)
        self._pending_delta(pod.priority, +1)
        for o in self.observers:
            o.on_created(plan)

    def reject(self, key: str, node: str | None, detail: str) -> None:
        """A pending pod fails for good (the kubelet refused it)."""
        rec = self.records[key]
        rec.phase, rec.ended_at, rec.outcome = "Failed", self.kernel.now, m.REJECTED
        self._pending_delta(rec.pod.priority, -1)
        self.record(m.REJECTED, key, node, detail)

    def bind(self, pod: Pod, node: str, t: float, quiet: bool = False, detail: str = "") -> None:
        """Bind ``pod`` to ``node`` at ``t`` (``quiet``: the initial state, told nobody)."""
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
            self._pending_delta(pod.priority, -1)
            self.record(m.BOUND, pod.key, node, detail)
        self.version += 1
        self._resources(pod, +1)
        plan = self.plans[pod.key]
        if plan.duration is not None:
            self.kernel.schedule(t + plan.duration, Priority.FREE, self._on_complete,
                                 (pod.key, rec.epoch))
        if not quiet:
            for o in self.observers:
                o.on_bound(pod)

    def signal(self, pod: Pod, t: float, etype: str, detail: str, quiet: bool = False,
               cause: str = "") -> bool:
        """Send SIGTERM: the pod keeps its resources until it exits. False if already sent.

        A ``preempted`` signal is the scheduler's; an ``evicted`` one names its ``cause``
        (a :data:`~kubepreempt.sim.metrics.DISRUPTIONS` entry)."""
        if pod.terminating:
            return False
        rec = self.records[pod.key]
        pod.deletion_timestamp = t
        pod.preempted_by_scheduler = etype == m.PREEMPTED
        rec.phase = "Terminating"
        if etype in (m.PREEMPTED, m.EVICTED):
            rec.preempted_at = t
            rec.disruption = m.BY_SCHEDULER if etype == m.PREEMPTED else cause
            self.series.preemptions.append((t, pod.priority))
        plan = self.plans[pod.key]
        grace = float(pod.termination_grace_period)
        delay = grace if plan.exit_after is None else min(plan.exit_after, grace)
        self._term_at[pod.key] = t + delay
        self.kernel.schedule(t + delay, Priority.FREE, self._on_term, (pod.key, rec.epoch))
        if not quiet:
            self.record(etype, pod.key, pod.node_name, detail)
        self.version += 1
        for o in self.observers:
            o.on_terminating(pod, etype)
        return True

    def evict_now(self, key: str, detail: str) -> None:
        """Evict a running pod with grace period 0 (node-pressure eviction)."""
        rec = self.records[key]
        rec.preempted_at = self.kernel.now
        rec.disruption = m.BY_NODE_PRESSURE
        self.series.preemptions.append((self.kernel.now, rec.pod.priority))
        self.remove_pod(key, m.EVICTED, "Failed", detail)

    def remove_pod(self, key: str, etype: str, phase: str, detail: str = "") -> None:
        """The bound pod ``key`` leaves the cluster, ending in ``phase``."""
        rec = self.records[key]
        pod = rec.pod
        self.cluster.remove(pod)
        rec.phase, rec.ended_at = phase, self.kernel.now
        rec.outcome = "removed" if detail == "node removed" else etype
        rec.epoch += 1
        self.version += 1
        self._resources(pod, -1)
        self.record(etype, key, rec.node, detail)
        for o in self.observers:
            o.on_gone(pod, etype, phase)

    def delete(self, pod: Pod, detail: str) -> None:
        """A controller deletes one of its pods: SIGTERM if bound, else out of the queue."""
        rec = self.records.get(pod.key)
        if rec is None or rec.pod is not pod:
            return
        if pod.bound:
            self.signal(pod, self.kernel.now, m.TERMINATED, detail)
        elif rec.phase == "Pending":
            if pod.nominated_node_name:
                self.nominator.remove(pod)
            rec.phase, rec.ended_at = "Failed", self.kernel.now
            self._pending_delta(pod.priority, -1)
            self.record(m.TERMINATED, pod.key, None, detail)
            self.version += 1
            for o in self.observers:
                o.on_withdrawn(pod)

    def _on_term(self, payload: tuple[str, int]) -> None:
        key, epoch = payload
        rec = self.records[key]
        if rec.epoch == epoch and rec.phase == "Terminating":
            self.remove_pod(key, m.TERMINATED, "Failed")

    def _on_complete(self, payload: tuple[str, int]) -> None:
        key, epoch = payload
        rec = self.records[key]
        if rec.epoch != epoch:
            return
        if rec.phase == "Running":
            self.remove_pod(key, m.COMPLETED, "Succeeded")
        elif rec.phase == "Terminating":  # finished its work during the grace period
            self.remove_pod(key, m.TERMINATED, "Failed", "exited during grace period")

    def attempt_failed(self, pod: Pod) -> None:
        """Tell the observers a scheduling attempt for ``pod`` failed."""
        for o in self.observers:
            o.on_unschedulable(pod)

    # ---- nominations (status.nominatedNodeName) ----
    def nominate(self, pod: Pod, node: str) -> None:
        """Set ``pod``'s nominated node."""
        self.nominator.add(pod, node)
        self.records[pod.key].nominated_node = node
        self.version += 1

    def clear_nomination(self, pod: Pod, detail: str) -> None:
        """Clear ``pod``'s nominated node, with the event saying why."""
        node = pod.nominated_node_name
        self.nominator.remove(pod)
        self.records[pod.key].nominated_node = ""
        self.version += 1
        self.record(m.NOMINATION_CLEARED, pod.key, node, detail)

    # ---- nodes ----
    def add_node(self, plan: NodePlan) -> None:
        """The node of ``plan`` joins the cluster."""
        idx = self.cluster.add_node(plan.node)
        self._alloc[0] += int(self.cluster.alloc[idx, CPU])
        self._alloc[1] += int(self.cluster.alloc[idx, MEMORY])
        self.sample_util(self.kernel.now)
        self.version += 1
        self.record(m.NODE_ADDED, "", plan.node.name)
        for o in self.observers:
            o.on_node_added(plan.node)

    def cordon(self, name: str) -> None:
        """Mark node ``name`` unschedulable."""
        c = self.cluster
        idx = c.node_index[name]
        c.nodes[idx] = replace(c.nodes[idx], unschedulable=True)
        c.node_changed()
        self.version += 1

    def taint(self, name: str, taint: Taint) -> None:
        """Add ``taint`` to node ``name`` (replacing one with the same key and effect)."""
        c = self.cluster
        idx = c.node_index[name]
        node = c.nodes[idx]
        kept = tuple(t for t in node.taints if (t.key, t.effect) != (taint.key, taint.effect))
        c.nodes[idx] = replace(node, taints=(*kept, taint))
        c.node_changed()
        self.version += 1

    def remove_node(self, name: str) -> None:
        """The node leaves: its pods are deleted (observers clear nominations to it).

        The snapshot has no node removal, so the row stays with zero allocatable and the
        node unschedulable: nothing fits there and preemption never picks it.
        """
        cluster = self.cluster
        now = self.kernel.now
        idx = cluster.node_index[name]
        self.record(m.NODE_REMOVED, "", name)
        for pod in list(cluster.node_pods[idx].values()):
            rec = self.records[pod.key]
            if rec.phase == "Running" and rec.preempted_at is None:
                rec.preempted_at = now
                rec.disruption = m.BY_NODE_REMOVAL
            self.remove_pod(pod.key, m.EVICTED, "Failed", "node removed")
        self._alloc[0] -= int(cluster.alloc[idx, CPU])
        self._alloc[1] -= int(cluster.alloc[idx, MEMORY])
        cluster.alloc[idx] = 0
        cluster.nodes[idx] = replace(cluster.nodes[idx], unschedulable=True)
        cluster.node_changed()
        self.removed_nodes.add(name)
        self.sample_util(now)
        self.version += 1
        for o in self.observers:
            o.on_node_removed(name)

    # ---- PodDisruptionBudgets ----
    def refresh_pdbs(self) -> None:
        """Recompute each PDB's disruptionsAllowed (the disruption controller) if any pod
        changed since the last time (a PDB whose status gives it is left as given)."""
        if not self.cluster.pdbs or self._pdb_version == self.version:
            return
        self._pdb_version = self.version
        pods = list(self.cluster.pods.values())
        for pdb in self.cluster.pdbs:
            if pdb.status_disruptions_allowed is None:
                pdb.disruptions_allowed = pdb_disruptions_allowed(pdb, pods)
