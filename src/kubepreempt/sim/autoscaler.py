"""The Cluster Autoscaler as an actor of the simulator (``simulate --autoscale``).

Follows kubernetes/autoscaler ``cluster-autoscaler`` (FAQ and ``core/``), with defaults
from its flags:

* Node groups are declared on Nodes: ``kubepreempt.io/node-group: NAME`` with
  ``kubepreempt.io/node-group-min`` / ``-max`` (on any of the group's nodes; they must
  agree). A group's nodes are its template and must share a shape (allocatable, taints,
  labels other than the hostname). ``kubepreempt.io/node-group-priority`` is the group's
  priority for the ``priority`` expander (upstream reads a ConfigMap of name regexes).
* Every ``--scan-interval`` (10 s) the loop runs ``RunOnce``: scale-up, then scale-down
  (since release-1.34 a scale-up no longer ends the loop).
  Its snapshot holds only non-expendable pods (``nonExpendableScheduledPods``): the
  space of a pod below the cutoff counts as free, for scale-up and for utilisation, and a
  node whose only pods are expendable is empty (they go with the node, not evicted).
* Scale-up (``ScaleUp``): pending pods the scheduler found unschedulable, except pods
  below ``--expendable-pods-priority-cutoff`` (-10; ``FilterOutExpendablePods``) and pods
  with a nominated node, which wait for their victims to leave
  (``podsWaitingForLowerPriorityPreemption``: they count as placed on that node). Pods that
  fit on an existing or upcoming node are left to the scheduler (``filterOutSchedulable``);
  of the rest, DaemonSet pods are dropped (``filter_out_daemon_sets.go``). Upcoming and
  new nodes are simulated from a copy of the group's template named
  ``template-node-for-<group>-<n>``, so a pod pinned to a real node never fits them.
  For each group below its maximum, the binpacking estimator (first fit, largest pods
  first) says how many new nodes the remaining pods need; the expander picks one option
  (``random``, ``least-waste`` (default, as upstream): least wasted cpu + memory fraction,
  ``most-pods``, ``priority``; ties broken at random, seeded by ``--seed``). New nodes are
  Ready after ``--provision-time`` (60 s; the cloud's, not CA's).
* Scale-down (``ScaleDown``): a group node above the group minimum, not annotated
  ``cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"``, whose utilisation (the
  larger of requested cpu and memory over allocatable) is at or below
  ``--scale-down-utilization-threshold`` (0.5; ``isNodeAtOrBelowUtilizationThreshold``)
  and whose pods can all move, becomes unneeded; unneeded for
  ``--scale-down-unneeded-time`` (10 min) it is removed, though not within
  ``--scale-down-delay-after-add`` (10 min) of a scale-up (``isScaleDownInCooldown``; the
  unneeded nodes are tracked through that delay all the same): tainted
  ``ToBeDeletedByClusterAutoscaler:NoSchedule`` (so no new pod, daemon pods included,
  lands there) and cordoned, its pods evicted, the node deleted once they are gone.
  Whether a pod may move follows the drainability rules (``rules.Default``): first a
  pod blocks when its ReplicaSet / ReplicationController has fewer replicas than
  ``--min-replica-count`` (0); then DaemonSet pods and pods annotated
  ``cluster-autoscaler.kubernetes.io/safe-to-evict: "true"`` may move; otherwise a pod
  blocks when it has no controller or (with
  ``--skip-nodes-with-custom-controller-pods``, true) a controller other than a
  ReplicationController, Job, ReplicaSet or StatefulSet, when it is a kube-system pod
  without a PodDisruptionBudget (``--skip-nodes-with-system-pods``, true), when it is
  annotated ``safe-to-evict: "false"``, or when it has a local volume (hostPath, or an
  emptyDir not of medium Memory) not named in its
  ``cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes`` annotation
  (``--skip-nodes-with-local-storage``, true), or when a PodDisruptionBudget covering it
  has no disruption left (the budgets as they stood before the node: its pods are taken
  off them once it is found removable, so nodes removed together share them). Any pod
  that fits on no other node blocks; expendable pods (below the cutoff) are not in the
  snapshot. Empty nodes go together, at most one non-empty node per loop.

Simplifications (named): a pod "fits" by requests (all resources and the pod count),
node selector / required node affinity and NoSchedule/NoExecute taints only (no
inter-pod affinity, topology spread or ports in CA's simulation); DaemonSet pods are not
reserved on template nodes; evicted pods get their normal grace period rather than
``--max-graceful-termination-sec``; balancing of similar groups, scale-up cool-downs after
failures and node-provisioning failures are not modelled. A pod whose controller is not
in the input (a snapshot lists pods, not always their ReplicaSets) counts as replicated
with its replica count unknown, where upstream's replicacount rule would block it
(``ControllerNotFound``); ReplicationControllers are not run, so their replica count is
never known. When a scan finds nothing to do and no timer runs, the loop sleeps until
the cluster changes (an unchanged state gives the same answer), so a simulation still
ends.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import (
    NO_EXECUTE,
    NO_SCHEDULE,
    Node,
    Pod,
    Taint,
    parse_node,
    tolerates_all,
)
from kubepreempt.apimachinery.strconv import NumError, parse_int64
from kubepreempt.apimachinery.strconv import parse_bool as go_parse_bool
from kubepreempt.scheduler.plugins.node_match import pod_matches_node_selector_and_affinity
from kubepreempt.sim import metrics as m
from kubepreempt.sim.actors import Actor
from kubepreempt.sim.kernel import Priority
from kubepreempt.sim.scenario import NodePlan

if TYPE_CHECKING:
    from kubepreempt.scheduler.queue.scheduling_queue import SchedulingQueue
    from kubepreempt.sim.world import World

GROUP = "kubepreempt.io/node-group"
GROUP_MIN = "kubepreempt.io/node-group-min"
GROUP_MAX = "kubepreempt.io/node-group-max"
GROUP_PRIORITY = "kubepreempt.io/node-group-priority"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler"  # utils/taints: ToBeDeletedTaint
DAEMONSET_POD = "cluster-autoscaler.kubernetes.io/daemonset-pod"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
# drainability/rules/replicated: the owners that count as replicated under
# --skip-nodes-with-custom-controller-pods (replicatedKind)
REPLICATED_KINDS = frozenset({"ReplicationController", "Job", "ReplicaSet", "StatefulSet"})
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
EXPANDERS = ("random", "least-waste", "most-pods", "priority")
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True, slots=True)
class AutoscalerOptions:
    """The Cluster Autoscaler's flags that the simulation honours (upstream defaults)."""

    scan_interval: float = 10.0
    expendable_pods_priority_cutoff: int = -10
    expander: str = "least-waste"  # config/flags/flags.go: expander.LeastWasteExpanderName
    provision_time: float = 60.0
    scale_down_utilization_threshold: float = 0.5
    scale_down_unneeded_time: float = 600.0
    scale_down_delay_after_add: float = 600.0
    max_empty_bulk_delete: int = 10
    skip_nodes_with_local_storage: bool = True
    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_custom_controller_pods: bool = True
    min_replica_count: int = 0


def parse_bool(value: str, option: str) -> bool:
    """A boolean flag's value as Go's ``strconv.ParseBool`` reads it."""
    try:
        return go_parse_bool(value)
    except NumError:
        raise InputError(f"{option}: {value!r} is not a boolean (true or false)") from None


@dataclass(slots=True, eq=False)
class NodeGroup:
    """One node group: its template, bounds and bookkeeping."""

    name: str
    template: Node
    min_size: int
    max_size: int
    priority: int = 0
    # the template as the autoscaler simulates it: a copy named
    # template-node-for-<group>-<n> (SanitizedTemplateNodeInfoFromNodeInfo), so a pod
    # pinned to a real node by name never fits a node yet to be made
    sanitized: Node | None = None
    members: set[str] = field(default_factory=set)  # current nodes
    upcoming: int = 0  # ordered, not yet Ready
    added: int = 0
    removed: int = 0
    peak: int = 0
    node_seconds: float = 0.0
    since: float = 0.0  # node_seconds integrated up to here

    @property
    def target(self) -> int:
        return len(self.members) + self.upcoming


def _int_annotation(node: Node, key: str) -> int | None:
    raw = node.annotations.get(key)
    if raw is None:
        return None
    try:  # strconv.Atoi: a Go int, as the autoscaler's own flags parse it
        return parse_int64(str(raw).strip())
    except NumError as exc:
        problem = "is out of range (64-bit integer)" if exc.range else "is not an integer"
        raise InputError(f"annotation {key}: {raw!r} {problem}", node.source, "Node",
                         node.name) from None


def _shape(node: Node) -> tuple:
    labels = tuple(sorted((k, v) for k, v in node.labels.items() if k != HOSTNAME))
    taints = tuple(sorted((t.key, t.value, t.effect) for t in node.taints))
    return (tuple(sorted(node.allocatable.items())), taints, labels)


def node_groups(nodes: list[Node]) -> dict[str, NodeGroup]:
    """Node groups declared on ``nodes``; malformed annotations are input errors."""
    groups: dict[str, NodeGroup] = {}
    for node in nodes:
        name = node.annotations.get(GROUP)
        if name is None:
            continue
        if not str(name).strip():
            raise InputError(f"annotation {GROUP}: empty group name", node.source, "Node",
                             node.name)
        lo, hi = _int_annotation(node, GROUP_MIN), _int_annotation(node, GROUP_MAX)
        prio = _int_annotation(node, GROUP_PRIORITY)
        g = groups.get(name)
        if g is None:
            if hi is None:
                raise InputError(f"annotation {GROUP_MAX} is required on a node of group "
                                 f"{name!r}", node.source, "Node", node.name)
            lo = 0 if lo is None else lo
            if lo < 0 or hi < 0:
                raise InputError(f"node group {name!r}: sizes must not be negative",
                                 node.source, "Node", node.name)
            if lo > hi:
                raise InputError(f"node group {name!r}: min {lo} is above max {hi}",
                                 node.source, "Node", node.name)
            g = groups[name] = NodeGroup(name, node, lo, hi, prio or 0)
        else:
            if (lo is not None and lo != g.min_size) or (hi is not None and hi != g.max_size):
                raise InputError(f"node group {name!r}: min/max differ from node "
                                 f"{g.template.name}'s", node.source, "Node", node.name)
            if _shape(node) != _shape(g.template):
                raise InputError(f"node group {name!r}: node differs in shape (allocatable, "
                                 f"taints or labels) from {g.template.name}", node.source,
                                 "Node", node.name)
    return groups


def sanitized_template(g: NodeGroup, n: int) -> Node:
    """``createSanitizedNode``: the template node renamed ``template-node-for-<group>-<n>``
    (its hostname label too); upstream's suffix is random, ``n`` keeps runs repeatable."""
    name = f"template-node-for-{g.name}-{n}"
    return replace(g.template, name=name, labels={**g.template.labels, HOSTNAME: name})


def _fits_node(pod: Pod, node: Node) -> bool:
    if node.unschedulable or not pod_matches_node_selector_and_affinity(pod, node):
        return False
    return all(tolerates_all(pod.tolerations, t) for t in node.taints
               if t.effect in (NO_SCHEDULE, NO_EXECUTE))


def _fits(pod: Pod, free: dict[str, int]) -> bool:
    if free.get("pods", 0) < 1:
        return False
    return all(v <= free.get(r, 0) for r, v in pod.requests.items() if v)


def _take(pod: Pod, free: dict[str, int]) -> None:
    free["pods"] = free.get("pods", 0) - 1
    for r, v in pod.requests.items():
        if v:  # as _fits: a zero request takes nothing, of a resource the node may lack
            free[r] = free.get(r, 0) - v


def _fraction(free: int, total: int) -> float:
    """``float64(free) / float64(total)`` as Go computes it (0/0 is NaN)."""
    return free / total if total else math.nan


def _waste(option: tuple) -> float:
    """``leastwaste``'s score of a ``(group, nodes, pods)`` option: the wasted fraction of
    the new nodes' cpu plus that of their memory (capacity, here allocatable)."""
    g, count, pods = option
    cpu = g.template.allocatable.get("cpu", 0) * count
    mem = g.template.allocatable.get("memory", 0) * count
    rc = sum(p.requests.get("cpu", 0) for p in pods)
    rm = sum(p.requests.get("memory", 0) for p in pods)
    return _fraction(cpu - rc, cpu) + _fraction(mem - rm, mem)


def _size(pod: Pod, node: Node) -> float:
    cpu, mem = node.allocatable.get("cpu", 0), node.allocatable.get("memory", 0)
    return (pod.requests.get("cpu", 0) / cpu if cpu else 0.0) + (
        pod.requests.get("memory", 0) / mem if mem else 0.0)


class Autoscaler(Actor):
    """The Cluster Autoscaler loop over the simulator's cluster."""

    def __init__(self, world: World, options: AutoscalerOptions, seed: int,
                 queue: SchedulingQueue) -> None:
        if options.expander not in EXPANDERS:
            raise InputError(f"--expander must be one of {', '.join(EXPANDERS)}, not "
                             f"{options.expander!r}")
        for what, v in (("--provision-time", options.provision_time),
                        ("--scale-down-unneeded-time", options.scale_down_unneeded_time)):
            if v < 0:
                raise InputError(f"{what} must be >= 0, not {v}")
        if not options.scan_interval > 0:
            # a loop that never waits would never let the simulated time move on
            raise InputError(f"--scan-interval must be > 0, not {options.scan_interval}")
        if not 0 <= options.scale_down_utilization_threshold <= 1:
            raise InputError("--scale-down-utilization-threshold must be within 0..1")
        self.world = world
        # The scheduler's queue: the pods it has tried and not placed (upstream CA reads
        # their PodScheduled=False condition).
        self.queue = queue
        self.opt = options
        self.rng = random.Random(seed)
        self.groups = node_groups([*world.cluster.nodes, *(p.node for p in world.scen.nodes)])
        self.group_of: dict[str, NodeGroup] = {}
        for node in world.cluster.nodes:
            g = self.groups.get(node.annotations.get(GROUP))
            if g is not None:
                g.members.add(node.name)
                self.group_of[node.name] = g
        for n, g in enumerate(sorted(self.groups.values(), key=lambda g: g.name), 1):
            g.peak = len(g.members)
            g.sanitized = sanitized_template(g, n)
        self.unneeded: dict[str, float] = {}
        self.deleting: set[str] = set()
        self.last_scale_up = -math.inf
        self.scan_at: float | None = None
        self._pushed: set[float] = set()  # scan times scheduled on the kernel
        self.count = 0
        self.series: list[tuple[float, int]] = []

    # ---- hooks: any change may wake the sleeping loop ----
    def start(self) -> None:
        self._record()
        self._wake()

    def on_bound(self, pod: Pod) -> None:
        self._wake()

    def on_unschedulable(self, pod: Pod) -> None:
        self._wake()

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
        self._wake()

    def on_node_added(self, node: Node) -> None:
        g = self.groups.get(node.annotations.get(GROUP))
        if g is not None and node.name not in g.members:
            self._integrate()
            g.members.add(node.name)
            self.group_of[node.name] = g
            g.peak = max(g.peak, len(g.members))
        self._record()
        self._wake()

    def on_node_removed(self, name: str) -> None:
        g = self.group_of.get(name)
        if g is not None and name in g.members:
            self._integrate()
            g.members.discard(name)  # nodesRemoved counts only the autoscaler's removals
        self._record()
        self._wake()

    def _wake(self) -> None:
        """Run the loop at the next scan tick (a grid of ``scan_interval`` from 0)."""
        step = self.opt.scan_interval
        t = math.ceil(self.world.now / step) * step
        if self.scan_at is not None and self.scan_at <= t:
            return
        self._schedule(t)

    def _schedule(self, t: float) -> None:
        self.scan_at = t
        if t not in self._pushed:
            self._pushed.add(t)
            # after everything else at the same instant: a scan sees every pod tried then
            self.world.kernel.schedule(t, Priority.SCAN, self._on_scan, t)

    # ---- metrics ----
    def _integrate(self) -> None:
        now = self.world.now
        for g in self.groups.values():
            g.node_seconds += len(g.members) * (now - g.since)
            g.since = now

    def _record(self) -> None:
        n = sum(1 for node in self.world.cluster.nodes if node.name not in self.world.removed_nodes)
        if self.series and self.series[-1][0] == self.world.now:
            self.series[-1] = (self.world.now, n)
        else:
            self.series.append((self.world.now, n))

    def metrics(self) -> dict[str, Any]:
        """``metrics.autoscaler``."""
        self._integrate()
        groups = {g.name: {"nodesAdded": g.added, "nodesRemoved": g.removed,
                           "peakNodes": g.peak, "nodeSeconds": g.node_seconds,
                           "min": g.min_size, "max": g.max_size}
                  for g in sorted(self.groups.values(), key=lambda g: g.name)}
        return {"autoscaler": {
            "nodesAdded": sum(g.added for g in self.groups.values()),
            "nodesRemoved": sum(g.removed for g in self.groups.values()),
            "peakNodes": max((n for _, n in self.series), default=0),
            "nodeSeconds": {k: v["nodeSeconds"] for k, v in groups.items()},
            "groups": groups,
            "nodeCount": [list(p) for p in self.series]}}

    # ---- the loop ----
    def _on_scan(self, t: float) -> None:
        self._pushed.discard(t)
        if self.scan_at != t:
            return  # superseded by an earlier wake
        self.scan_at = None
        # since release-1.34 ("Remove exit after scale-up is performed") RunOnce goes on to
        # scale-down after a successful scale-up; the delay after add holds back deletion only
        acted = self._scale_up()
        acted = self._scale_down() or acted
        timers = bool(self.unneeded) or any(g.upcoming for g in self.groups.values())
        if acted or timers:
            self._schedule(t + self.opt.scan_interval)

    def _expendable(self, pod: Pod) -> bool:
        """Below ``--expendable-pods-priority-cutoff`` (``IsExpendablePod``)."""
        return pod.priority < self.opt.expendable_pods_priority_cutoff

    def _held(self) -> Any:
        """(nodes, resources) requests of the bound non-expendable pods: the autoscaler's
        snapshot holds only those (``RunOnce`` and the actuator's ``createSnapshot`` load
        ``nonExpendableScheduledPods``), so an expendable pod's space counts as free."""
        c = self.world.cluster
        return c.requested - c.requested_below(self.opt.expendable_pods_priority_cutoff)

    def _free(self) -> dict[str, dict[str, int]]:
        """Free requests per schedulable node in the autoscaler's snapshot, non-expendable
        pods with a nominated node counted as placed there."""
        c = self.world.cluster
        held = self._held()
        out: dict[str, dict[str, int]] = {}
        for idx, node in enumerate(c.nodes):
            if node.name in self.world.removed_nodes or node.unschedulable \
                    or node.name in self.deleting:
                continue
            out[node.name] = {r: int(c.alloc[idx, j] - held[idx, j])
                              for j, r in enumerate(c.resources)}
        for rec in self.world.records.values():
            if rec.phase == "Pending" and rec.nominated_node in out \
                    and not self._expendable(rec.pod):
                _take(rec.pod, out[rec.nominated_node])
        return out

    def _unschedulable(self) -> list[Pod]:
        """Pods that can trigger scale-up (see the module docstring)."""
        info = self.queue.info
        out = []
        for key, q in info.items():
            pod = q.pod
            if q.attempts == 0 or self.world.records[key].phase != "Pending":
                continue
            if self._expendable(pod):
                continue  # expendable: never causes scale-up
            if pod.nominated_node_name:
                continue  # waiting for its victims (seed 000: no scale-up for it)
            out.append(pod)
        out.sort(key=lambda p: (-p.priority, p.key))
        return out

    def _scale_up(self) -> bool:
        pods = self._unschedulable()
        if not pods:
            return False
        free = self._free()
        nodes = {n.name: n for n in self.world.cluster.nodes}
        # upcoming nodes count as there (filterOutSchedulable also sees them)
        slots: list[tuple[Node, dict[str, int]]] = [(nodes[k], v) for k, v in free.items()]
        for g in self.groups.values():
            slots += [(g.sanitized, dict(g.template.allocatable)) for _ in range(g.upcoming)]
        remaining = []
        for pod in pods:
            for node, f in slots:
                if _fits_node(pod, node) and _fits(pod, f):
                    _take(pod, f)
                    break
            else:
                remaining.append(pod)
        # filter_out_daemon_sets.go: no new node can help a daemon pod (it is pinned)
        remaining = [p for p in remaining if not _is_daemonset_pod(p)]
        if not remaining:
            return False
        options = []
        for g in sorted(self.groups.values(), key=lambda g: g.name):
            room = g.max_size - g.target
            if room <= 0:
                continue
            count, helped = self._estimate(g, remaining, room)
            if count:
                options.append((g, count, helped))
        if not options:
            return False
        g, count, helped = self._expand(options)
        g.upcoming += count
        self.last_scale_up = self.world.now
        for _ in range(count):
            node = self._new_node(g)
            self.world.kernel.schedule(self.world.now + self.opt.provision_time, Priority.NODE,
                                     self._on_ready, (g, node))
        self.world.record(m.SCALE_UP, "", None,
                        f"group {g.name}: +{count} node(s) for {len(helped)} pod(s)")
        return True

    def _estimate(self, g: NodeGroup, pods: list[Pod], room: int) -> tuple[int, list[Pod]]:
        """BinpackingNodeEstimator: largest pods first onto new template nodes."""
        t = g.sanitized
        fitting = sorted((p for p in pods if _fits_node(p, t) and _fits(p, dict(t.allocatable))),
                         key=lambda p: -_size(p, t))
        bins: list[dict[str, int]] = []
        helped = []
        for pod in fitting:
            for f in bins:
                if _fits(pod, f):
                    _take(pod, f)
                    helped.append(pod)
                    break
            else:
                if len(bins) == room:
                    continue
                f = dict(t.allocatable)
                _take(pod, f)
                bins.append(f)
                helped.append(pod)
        return len(bins), helped

    def _expand(self, options: list) -> tuple:
        """The expander's choice among ``(group, nodes, pods)`` options."""
        kind = self.opt.expander
        best = options
        if kind == "most-pods":
            top = max(len(o[2]) for o in options)
            best = [o for o in options if len(o[2]) == top]
        elif kind == "least-waste":
            # leastwaste.BestOptions, its loop as written: a template without cpu or
            # memory wastes 0/0, NaN in Go's float division, which compares false both
            # ways, so it wins only as the first option and is passed over after it
            best, low = [], 0.0
            for o in options:
                w = _waste(o)
                if w == low:
                    best.append(o)
                if not best or w < low:
                    best, low = [o], w
        elif kind == "priority":
            top = max(o[0].priority for o in options)
            best = [o for o in options if o[0].priority == top]
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _new_node(self, g: NodeGroup) -> Node:
        """A Node made from the group's template: a copy under a name no node of the
        cluster or the scenario has (removed and yet to arrive included), its hostname
        label the new name. The template's ``kubepreempt.io/arrival`` and ``removal`` are
        read only when the scenario is built, so the copy keeps them to no effect."""
        taken = set(self.world.cluster.node_index) | {p.node.name for p in self.world.scen.nodes}
        self.count += 1
        name = f"{g.name}-{self.count}"
        while name in taken:
            self.count += 1
            name = f"{g.name}-{self.count}"
        raw = copy.deepcopy(dict(g.template.raw))
        meta = raw["metadata"]  # parse_node has required metadata.name
        meta["name"] = name
        meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
        return parse_node(raw, g.template.source)

    def _on_ready(self, payload: tuple[NodeGroup, Node]) -> None:
        g, node = payload
        g.upcoming -= 1
        g.added += 1
        self.world.add_node(NodePlan(node, self.world.now))

    # ---- scale-down ----
    def _utilization(self, idx: int, held: Any) -> float:
        """``utilization.Calculate`` over the snapshot: the larger of the non-expendable
        pods' cpu and memory requests over allocatable."""
        c = self.world.cluster
        out = 0.0
        for r in ("cpu", "memory"):
            j = c.resource_index.get(r)
            if j is None or not c.alloc[idx, j]:
                continue
            out = max(out, float(held[idx, j]) / float(c.alloc[idx, j]))
        return out

    def _below_min_replicas(self, pod: Pod) -> bool:
        """The replicacount rule (``MinReplicasReached``): the pod's ReplicaSet /
        ReplicationController has fewer replicas than ``--min-replica-count``. In
        ``rules.Default`` it comes before the interrupting rules, so it holds for
        ``safe-to-evict: "true"`` pods too; it is left out without
        ``--skip-nodes-with-custom-controller-pods``."""
        opt = self.opt
        if not opt.skip_nodes_with_custom_controller_pods or _owner_kind(pod) not in (
                "ReplicaSet", "ReplicationController"):
            return False
        replicas = self._replicas(pod)
        return replicas is not None and replicas < opt.min_replica_count

    def _blocks(self, pod: Pod, covered: bool) -> bool:
        """The blocking drainability rules (``rules.Default``) in upstream's order, after
        the interrupting ones let DaemonSet and ``safe-to-evict: "true"`` pods through:
        replicated, system, notsafetoevict, localstorage (the pdb rule is the caller's)."""
        opt = self.opt
        kind = _owner_kind(pod)
        if not kind or (opt.skip_nodes_with_custom_controller_pods
                        and kind not in REPLICATED_KINDS):
            return True  # NotReplicated
        if opt.skip_nodes_with_system_pods and pod.namespace == "kube-system" and not covered:
            return True  # UnmovableKubeSystemPod
        if pod.annotations.get(SAFE_TO_EVICT) == "false":
            return True  # NotSafeToEvictAnnotation
        return opt.skip_nodes_with_local_storage and has_blocking_local_storage(pod)

    def _replicas(self, pod: Pod) -> int | None:
        """``spec.replicas`` of the pod's ReplicaSet or ReplicationController (a
        Deployment's ReplicaSet has the Deployment's), None if not in the scenario (the
        simulator runs no ReplicationController, so one is never found)."""
        kind, owner = _owner_kind(pod), _owner_name(pod)
        hash_ = pod.labels.get("pod-template-hash", "")
        for plan in self.world.scen.workloads:
            obj = plan.obj
            if (obj.namespace or "default") != pod.namespace:
                continue
            # the lister of the owner's own kind (ReplicationControllerLister or
            # ReplicaSetLister): a same-named object of the other kind is not it
            if obj.kind == kind and obj.name == owner or (
                    kind == "ReplicaSet" and obj.kind == "Deployment" and hash_
                    and owner == f"{obj.name}-{hash_}"):
                # the apiserver defaults an unset or null spec.replicas to 1; the
                # workload's expansion has already refused anything but an integer
                raw = (obj.body.get("spec") or {}).get("replicas")
                return 1 if raw is None else int(raw)
        return None

    def _movable(self, pods: list[Pod], free: dict[str, dict[str, int]], here: str,
                 budgets: dict[int, int]) -> bool:
        nodes = {n.name: n for n in self.world.cluster.nodes}
        # the pdb rule reads the remaining budgets as they were before this node: the
        # planner's RemovePods takes the node's pods off them only once it is removable
        before = dict(budgets)
        for pod in pods:
            if pod.terminating or _is_daemonset_pod(pod):
                continue
            if self._expendable(pod):
                continue  # not in the snapshot: dropped, not moved
            covering = [i for i, pdb in enumerate(self.world.cluster.pdbs)
                        if pdb.namespace == pod.namespace and pdb.selector is not None
                        and pdb.selector.matches(pod.labels)]
            if self._below_min_replicas(pod):
                return False
            # safe-to-evict "true" is DrainOk: no blocking rule and no pdb rule after it
            if pod.annotations.get(SAFE_TO_EVICT) != "true" and (
                    self._blocks(pod, bool(covering)) or any(before[i] < 1 for i in covering)):
                return False  # a blocking rule, or NotEnoughPdb
            for i in covering:
                budgets[i] -= 1
            for name, f in free.items():
                if name != here and _fits_node(pod, nodes[name]) and _fits(pod, f):
                    _take(pod, f)
                    break
            else:
                return False
        return True

    def _scale_down(self) -> bool:
        now = self.world.now
        c = self.world.cluster
        free = self._free()
        held = self._held()
        self.world.refresh_pdbs()
        budgets = {i: pdb.disruptions_allowed for i, pdb in enumerate(c.pdbs)}
        size = {g.name: len(g.members) for g in self.groups.values()}
        unneeded: dict[str, float] = {}
        for node in sorted(c.nodes, key=lambda n: n.name):
            g = self.group_of.get(node.name)
            if g is None or node.name in self.deleting or node.name in self.world.removed_nodes:
                continue
            if node.annotations.get(SCALE_DOWN_DISABLED) == "true":
                continue
            idx = c.node_index[node.name]
            # underutilized means at or below the threshold (release-1.37 eligibility)
            if size[g.name] - 1 < g.min_size or \
                    self._utilization(idx, held) > self.opt.scale_down_utilization_threshold:
                continue
            trial_free = {k: dict(v) for k, v in free.items() if k not in unneeded}
            trial_budgets = dict(budgets)
            if not self._movable(list(c.node_pods[idx].values()), trial_free, node.name,
                                 trial_budgets):
                continue
            # the pods would move: commit the simulated placement, as upstream removes
            # candidates one after another
            free = {**free, **trial_free}
            free.pop(node.name, None)
            budgets = trial_budgets
            size[g.name] -= 1
            unneeded[node.name] = self.unneeded.get(node.name, now)
        self.unneeded = unneeded
        # isScaleDownInCooldown: the planner has tracked the unneeded nodes all the same
        # (UpdateClusterState runs first), only their deletion waits
        if now < self.last_scale_up + self.opt.scale_down_delay_after_add:
            return False
        ready = [n for n, since in unneeded.items()
                 if now - since >= self.opt.scale_down_unneeded_time]
        if not ready:
            return False
        empty = [n for n in ready if not any(
            not p.terminating and not _is_daemonset_pod(p) and not self._expendable(p)
            for p in c.node_pods[c.node_index[n]].values())]
        chosen = empty[:self.opt.max_empty_bulk_delete] or ready[:1]
        for name in chosen:
            self._remove(name)
        return True

    def _remove(self, name: str) -> None:
        """Cordon, evict the node's pods, delete the node once they are gone."""
        world, c = self.world, self.world.cluster
        idx = c.node_index[name]
        # MarkToBeDeleted: the taint keeps new pods off, daemon pods included (they
        # tolerate the cordon, not the taint: the DaemonSet controller recreates none
        # there); it cordons too (--cordon-node-before-terminating, default true)
        world.taint(name, Taint(TO_BE_DELETED, str(int(world.now)), NO_SCHEDULE))
        world.cordon(name)
        self.deleting.add(name)
        self.unneeded.pop(name, None)
        done = world.now
        for pod in list(c.node_pods[idx].values()):
            if self._expendable(pod):
                continue  # not in the actuator's snapshot: it goes with the node
            world.signal(pod, world.now, m.EVICTED, "scale-down", cause=m.BY_SCALE_DOWN)
            done = max(done, world.exit_time(pod.key))
        world.record(m.SCALE_DOWN, "", name, f"group {self.group_of[name].name}")
        world.kernel.schedule(done, Priority.NODE, self._on_delete, name)

    def _on_delete(self, name: str) -> None:
        g = self.group_of[name]
        self.world.remove_node(name)  # on_node_removed updates members and the series
        g.removed += 1
        self.deleting.discard(name)


def _is_local_volume(volume: Mapping[str, Any]) -> bool:
    """drain's ``isLocalVolume``: hostPath, or an emptyDir not backed by memory."""
    if volume.get("hostPath") is not None:
        return True
    empty_dir = volume.get("emptyDir")
    if empty_dir is None:
        return False
    return not isinstance(empty_dir, Mapping) or empty_dir.get("medium") != "Memory"


def has_blocking_local_storage(pod: Pod) -> bool:
    """drain's ``HasBlockingLocalStorage``: a local volume not named in the pod's
    ``safe-to-evict-local-volumes`` annotation (a comma-separated list)."""
    volumes = (pod.raw.get("spec") or {}).get("volumes") or []
    listed = pod.annotations.get(SAFE_TO_EVICT_LOCAL_VOLUMES)
    safe = set(listed.split(",")) if listed else set()
    return any(isinstance(v, Mapping) and _is_local_volume(v) and v.get("name") not in safe
               for v in volumes)


def _controller_ref(pod: Pod) -> Mapping[str, Any] | None:
    for ref in (pod.raw.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


def _owner_kind(pod: Pod) -> str:
    ref = _controller_ref(pod)
    return str(ref.get("kind") or "") if ref is not None else ""


def _owner_name(pod: Pod) -> str:
    ref = _controller_ref(pod)
    return str(ref.get("name") or "") if ref is not None else ""


def _is_daemonset_pod(pod: Pod) -> bool:
    """``pod.IsDaemonSetPod``: a DaemonSet controller, or the daemonset-pod annotation."""
    return _owner_kind(pod) == "DaemonSet" or pod.annotations.get(DAEMONSET_POD) == "true"
