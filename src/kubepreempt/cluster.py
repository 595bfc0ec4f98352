"""The cluster snapshot: nodes, bound pods, pending pods, PDBs, in struct-of-arrays form.

``alloc`` and ``requested`` are ``(nodes, resources)`` int64 arrays in canonical units
(milli-CPU, bytes, counts; column ``pods`` counts pods). ``nonzero`` holds the cpu/memory
requests with scoring's defaults for missing requests. Binding or evicting a pod updates
one row in O(resources); nothing is ever rebuilt.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubepreempt.admission.quota import CONFIG_KINDS as QUOTA_CONFIG_KINDS
from kubepreempt.admission.quota import KIND as QUOTA_KIND
from kubepreempt.admission.quota import QuotaAdmission
from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import (
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    parse_node,
    parse_pdb,
    parse_pod,
)
from kubepreempt.api.priority import PriorityClass, PriorityResolver, parse_priority_class
from kubepreempt.api.runtimeclass import RuntimeClassAdmission, parse_runtime_class
from kubepreempt.api.spread_sources import SOURCE_KINDS, SpreadSources
from kubepreempt.manifests import Documents, paused_gc, reading

BASE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")
CPU, MEMORY, EPHEMERAL, PODS = range(4)
INT64_MAX = np.iinfo(np.int64).max
SCHEDULER_CONFIG_KIND = "KubeSchedulerConfiguration"
SCHEDULER_KINDS = ("Node", "Pod", "PriorityClass", "PodDisruptionBudget", "Namespace",
                   "RuntimeClass", QUOTA_KIND, *QUOTA_CONFIG_KINDS, *SOURCE_KINDS,
                   SCHEDULER_CONFIG_KIND)


def _clamp(amount: int) -> int:
    return amount if amount <= INT64_MAX else int(INT64_MAX)


@dataclass(slots=True)
class NodeView:
    """One node's state for per-node filters: its pods and summed requests.

    The snapshot hands out views of real nodes; preemption builds modified copies
    (pods removed or added) without touching the snapshot.
    """

    index: int
    node: Node
    pods: list[Pod]
    requested: np.ndarray  # (resources,) int64

    def clone(self) -> NodeView:
        """A copy whose pod list and requests can be changed independently."""
        return NodeView(self.index, self.node, list(self.pods), self.requested.copy())


@dataclass(slots=True, eq=False)
class Cluster:
    """A cluster snapshot. Build it with :func:`build_cluster` or :meth:`Cluster.empty`."""

    nodes: list[Node] = field(default_factory=list)
    node_index: dict[str, int] = field(default_factory=dict)
    resources: list[str] = field(default_factory=lambda: list(BASE_RESOURCES))
    resource_index: dict[str, int] = field(default_factory=dict)
    alloc: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.int64))
    requested: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.int64))
    nonzero: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    pods: dict[str, Pod] = field(default_factory=dict)
    node_pods: list[dict[str, Pod]] = field(default_factory=list)
    pending: dict[str, Pod] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    priority: PriorityResolver = field(default_factory=PriorityResolver)
    # Applies RuntimeClass overhead and scheduling to pods the apiserver has not admitted.
    runtime_classes: RuntimeClassAdmission = field(default_factory=RuntimeClassAdmission)
    # ResourceQuota admission for pods created after loading (schedule -f, the simulator).
    quota: QuotaAdmission = field(default_factory=QuotaAdmission)
    generation: int = 0  # bumped on every change
    node_generation: int = 0  # bumped when nodes are added, removed or changed
    _node_cache: dict = field(default_factory=dict)
    # The preemption index (scheduler/preemption/fast.py) lives outside ``_node_cache``:
    # a node added in a simulation extends it by a row instead of rebuilding every row.
    preemption_index: Any = None
    # priority -> (nodes, resources) requests of the bound pods of that priority; lets
    # preemption ask "would it fit without every lower-priority pod?" for all nodes at once.
    prio_requested: dict[int, np.ndarray] = field(default_factory=dict)
    # Node indices whose pods changed, in order; incremental consumers (the scheduler's
    # per-signature score cache) remember a position and recompute only those rows.
    change_log: list[int] = field(default_factory=list)
    change_epoch: int = 0  # bumped when the log is trimmed: positions become invalid
    # Bound pods with pod (anti-)affinity terms: key -> node index, kept on bind/remove so
    # InterPodAffinity need not scan every pod after each change.
    pod_affinity_pods: dict[str, int] = field(default_factory=dict)
    # Services / ReplicationControllers / ReplicaSets / StatefulSets: the selectors of
    # PodTopologySpread's system-default constraints.
    spread_sources: SpreadSources = field(default_factory=SpreadSources)
    # A KubeSchedulerConfiguration among the inputs (or set by --scheduler-config): the
    # profiles a Scheduler over this snapshot uses. None = upstream's default profile.
    scheduler_config: Any = None
    # "namespace/name" -> kind of the input's namespaced objects other than pods: hints
    # for a user who names a Deployment (say) where a pod is expected.
    # ns/name -> (kind, where it was read) of the input's other namespaced objects, so a
    # --pod that names one of them gets a precise hint.
    other_objects: dict[str, tuple[str, Source]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.resource_index = {r: i for i, r in enumerate(self.resources)}

    # ---- construction -------------------------------------------------------------------
    def add_node(self, node: Node) -> int:
        """Add a node (its resources may add columns). Returns its index."""
        if node.name in self.node_index:
            raise InputError("duplicate node", node.source, "Node", node.name)
        for r in node.allocatable:
            self._column(r)
        row = np.zeros((1, len(self.resources)), np.int64)
        for r, amount in node.allocatable.items():
            row[0, self.resource_index[r]] = _clamp(amount)
        self.alloc = np.vstack([self.alloc, row])
        self.requested = np.vstack([self.requested, np.zeros_like(row)])
        self.nonzero = np.vstack([self.nonzero, np.zeros((1, 2), np.int64)])
        self.node_index[node.name] = len(self.nodes)
        self.nodes.append(node)
        self.node_pods.append({})
        self.generation += 1
        self.node_generation += 1
        return len(self.nodes) - 1

    def add_nodes(self, nodes: Iterable[Node]) -> None:
        """Add many nodes with one array allocation (``add_node`` per node is quadratic)."""
        nodes = list(nodes)
        for node in nodes:
            if node.name in self.node_index:
                raise InputError("duplicate node", node.source, "Node", node.name)
            self.node_index[node.name] = -1  # reserved: catches duplicates within ``nodes``
            for r in node.allocatable:
                self._column(r)
        rows = np.zeros((len(nodes), len(self.resources)), np.int64)
        index = self.resource_index
        start = len(self.nodes)
        for k, node in enumerate(nodes):
            for r, amount in node.allocatable.items():
                rows[k, index[r]] = _clamp(amount)
            self.node_index[node.name] = start + k
        self.alloc = np.vstack([self.alloc, rows])
        self.requested = np.vstack([self.requested, np.zeros_like(rows)])
        self.nonzero = np.vstack([self.nonzero, np.zeros((len(nodes), 2), np.int64)])
        self.nodes.extend(nodes)
        self.node_pods.extend({} for _ in nodes)
        self.generation += 1
        self.node_generation += 1

    def pop_nodes(self, count: int) -> list[Node]:
        """Remove the ``count`` most recently added nodes, which must hold no pods (a
        what-if that added nodes undoes itself)."""
        if count <= 0:
            return []
        keep = len(self.nodes) - count
        gone = self.nodes[keep:]
        if any(self.node_pods[i] for i in range(keep, len(self.nodes))):
            raise ValueError("pop_nodes: a node to remove still holds pods")
        for node in gone:
            del self.node_index[node.name]
        del self.nodes[keep:]
        del self.node_pods[keep:]
        self.alloc, self.requested = self.alloc[:keep].copy(), self.requested[:keep].copy()
        self.nonzero = self.nonzero[:keep].copy()
        for prio, rows in list(self.prio_requested.items()):
            self.prio_requested[prio] = rows[:keep].copy()
        # Logged rows may point past the end now: incremental consumers start afresh.
        self.change_log.clear()
        self.change_epoch += 1
        self.generation += 1
        self.node_generation += 1
        return gone

    def _column(self, resource: str) -> int:
        col = self.resource_index.get(resource)
        if col is None:
            col = len(self.resources)
            self.resources.append(resource)
            self.resource_index[resource] = col
            pad = np.zeros((self.alloc.shape[0], 1), np.int64)
            self.alloc = np.hstack([self.alloc, pad])
            self.requested = np.hstack([self.requested, pad.copy()])
        return col

    def request_vector(self, pod: Pod) -> np.ndarray:
        """The pod's requests as a row over this cluster's resource columns (pods = 1)."""
        for r in pod.requests:
            if r not in self.resource_index:
                self._column(r)
        vec = np.zeros(len(self.resources), np.int64)
        for r, amount in pod.requests.items():
            vec[self.resource_index[r]] = _clamp(amount)
        vec[PODS] = 1
        return vec

    # ---- pod bookkeeping ----------------------------------------------------------------
    def bind(self, pod: Pod, node_name: str) -> None:
        """Place ``pod`` on ``node_name`` (it holds its requests there until removed)."""
        idx = self.node_index.get(node_name)
        if idx is None:
            raise InputError(f"bound to node {node_name!r}, which is not in the input",
                             pod.source, "Pod", pod.key)
        self.pending.pop(pod.key, None)
        pod.node_name = node_name
        self.pods[pod.key] = pod
        self.node_pods[idx][pod.key] = pod
        vec = self.request_vector(pod)
        self.requested[idx] += vec
        self._prio_rows(pod.priority)[idx] += vec
        self.nonzero[idx, 0] += pod.nonzero_cpu
        self.nonzero[idx, 1] += pod.nonzero_memory
        if pod.affinity is not None and pod.affinity.has_pod_terms:
            self.pod_affinity_pods[pod.key] = idx
        elif self.pod_affinity_pods:  # a re-bound key may have lost its terms
            self.pod_affinity_pods.pop(pod.key, None)
        self.generation += 1
        self._log_change(idx)

    def bind_many(self, pods: list[Pod]) -> None:
        """``bind`` each pod to its ``node_name`` (which must exist), with a few numpy
        scatter-adds instead of per-pod row updates: loading a 50,000-pod dump."""
        if not pods:
            return
        index, col = self.node_index, self.resource_index
        pending, all_pods, node_pods = self.pending, self.pods, self.node_pods
        affinity_pods = self.pod_affinity_pods
        rows: list[int] = []
        prio_list: list[int] = []
        nonzero: list[tuple[int, int]] = []
        # Request rows per distinct requests dict: pods loaded from a dump share their
        # resource shape's dict, so most pods cost one lookup here, not a loop.
        shape_of: dict[int, int] = {}
        shape_entries: list[list[tuple[int, int]]] = []
        shape_index: list[int] = []
        for pod in pods:  # one pass: attribute reads dominate at 50,000 pods
            idx = index[pod.node_name]
            rows.append(idx)
            prio_list.append(pod.priority)
            nonzero.append((pod.nonzero_cpu, pod.nonzero_memory))
            requests = pod.requests
            shape = shape_of.get(id(requests))  # (every dict is alive: ids are unique)
            if shape is None:
                shape = shape_of[id(requests)] = len(shape_entries)
                entries = []
                for r, amount in requests.items():
                    c = col.get(r)
                    entries.append((self._column(r) if c is None else c,
                                    amount if amount <= INT64_MAX else int(INT64_MAX)))
                shape_entries.append(entries)
            shape_index.append(shape)
            key = f"{pod.namespace}/{pod.name}"  # Pod.key, without the property call
            if pending:
                pending.pop(key, None)
            all_pods[key] = pod
            node_pods[idx][key] = pod
            if pod.affinity is not None and pod.affinity.has_pod_terms:
                affinity_pods[key] = idx
            elif affinity_pods:  # a re-bound key may have lost its terms
                affinity_pods.pop(key, None)
        table = np.zeros((len(shape_entries), len(self.resources)), np.int64)
        for shape, entries in enumerate(shape_entries):
            for c, amount in entries:
                table[shape, c] = amount  # as request_vector
        table[:, PODS] = 1
        vecs = table[np.array(shape_index, np.int64)]
        row_array = np.array(rows, np.int64)
        np.add.at(self.requested, row_array, vecs)
        prios = np.array(prio_list, np.int64)
        for prio in np.unique(prios).tolist():
            pick = prios == prio
            np.add.at(self._prio_rows(prio), row_array[pick], vecs[pick])
        np.add.at(self.nonzero, row_array, np.array(nonzero, np.int64))
        self.generation += len(pods)
        if len(self.change_log) + len(rows) < 1_000_000:
            self.change_log.extend(rows)
        else:  # _log_change's trimming, pod by pod
            for idx in rows:
                self._log_change(idx)

    def remove(self, pod: Pod) -> None:
        """Remove a bound pod from its node (it terminated or was deleted)."""
        idx = self.node_index[pod.node_name]
        if self.node_pods[idx].pop(pod.key, None) is None:
            return
        self.pods.pop(pod.key, None)
        vec = self.request_vector(pod)
        self.requested[idx] -= vec
        self._prio_rows(pod.priority)[idx] -= vec
        self.nonzero[idx, 0] -= pod.nonzero_cpu
        self.nonzero[idx, 1] -= pod.nonzero_memory
        self.pod_affinity_pods.pop(pod.key, None)
        self.generation += 1
        self._log_change(idx)

    def _log_change(self, idx: int) -> None:
        log = self.change_log
        if len(log) >= 1_000_000:  # bound memory on long simulations
            log.clear()
            self.change_epoch += 1
        log.append(idx)

    def _prio_rows(self, priority: int) -> np.ndarray:
        rows = self.prio_requested.get(priority)
        if rows is None or rows.shape != self.requested.shape:
            fresh = np.zeros_like(self.requested)
            if rows is not None:
                fresh[: rows.shape[0], : rows.shape[1]] = rows
            rows = self.prio_requested[priority] = fresh
        return rows

    def requested_below(self, priority: int, rows: np.ndarray | None = None) -> np.ndarray:
        """(nodes, resources) summed requests of bound pods with priority < ``priority``,
        for every node or only for the node indices ``rows``."""
        if rows is None:
            total = np.zeros_like(self.requested)
            for prio in list(self.prio_requested):
                if prio < priority:
                    total += self._prio_rows(prio)
            return total
        total = np.zeros((rows.size, self.requested.shape[1]), np.int64)
        for prio in list(self.prio_requested):
            if prio < priority:
                total += self._prio_rows(prio)[rows]
        return total

    def add_pending(self, pod: Pod) -> None:
        """Register a pod that waits for scheduling."""
        self.pending[pod.key] = pod
        self.generation += 1

    def node_view(self, index: int) -> NodeView:
        """A view of node ``index`` as it is now (do not mutate; clone first)."""
        return NodeView(index, self.nodes[index], list(self.node_pods[index].values()),
                        self.requested[index])

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """Labels of a namespace; namespaces not in the input have only the name label."""
        ns = self.namespaces.get(namespace)
        if ns is None:
            return {"kubernetes.io/metadata.name": namespace}
        return ns.labels

    def find_pod(self, key: str) -> Pod | None:
        """A bound or pending pod by ``namespace/name``."""
        return self.pods.get(key) or self.pending.get(key)

    def node_cached(self, key, compute):
        """``compute(cluster)`` memoised until the node set changes.

        Per-node masks that depend only on node objects and a pod's scheduling signature
        (selectors, tolerations) are computed once for a thousand pods of one template.
        """
        if self._node_cache.get("__generation__") != self.node_generation:
            self._node_cache = {"__generation__": self.node_generation}
        hit = self._node_cache.get(key)
        if hit is None:
            hit = self._node_cache[key] = compute(self)
        return hit

    def node_changed(self) -> None:
        """Invalidate node-derived caches after a node's labels, taints or flags change."""
        self.node_generation += 1
        self.generation += 1

    @staticmethod
    def empty() -> Cluster:
        """An empty cluster."""
        return Cluster()


def pdb_disruptions_allowed(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> int:
    """``status.disruptionsAllowed``, or what the disruption controller would compute.

    Without the owning controllers' scale, the expected pod count is the number of
    matching pods; healthy pods are the bound, non-terminating ones.
    """
    if pdb.status_disruptions_allowed is not None:
        return pdb.status_disruptions_allowed
    selector = pdb.selector
    if selector is None:
        return 0
    matching = [p for p in pods if p.namespace == pdb.namespace and selector.matches(p.labels)]
    expected = len(matching)
    healthy = sum(1 for p in matching if p.bound and not p.terminating)
    if pdb.max_unavailable is not None:
        mu = pdb.max_unavailable
        mu = math.ceil(int(mu[:-1]) * expected / 100) if isinstance(mu, str) else mu
        desired = expected - mu
    elif pdb.min_available is not None:
        ma = pdb.min_available
        desired = math.ceil(int(ma[:-1]) * expected / 100) if isinstance(ma, str) else ma
    else:
        desired = expected  # policy/v1 with neither field: no disruption allowed
    return max(0, healthy - desired)


#: Kinds whose controllers create pods (for hints when one is named where a pod is expected).
POD_CREATORS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "Job", "CronJob",
                          "DaemonSet", "ReplicationController"})


def build_cluster(docs: Documents, warn: bool = True, extra_kinds: Iterable[str] = ()) -> Cluster:
    """Typed cluster snapshot from loaded documents.

    Kinds outside the scheduler's (and ``extra_kinds``) are skipped with one warning line.
    Pods that finished (phase Succeeded/Failed) are ignored, as the scheduler's informer
    ignores them; ResourceQuota admission keeps them (``cluster.quota.finished``). Pods
    not yet admitted get their RuntimeClass's overhead and scheduling
    (:mod:`kubepreempt.api.runtimeclass`).
    """
    with paused_gc(freeze=True):
        return _build_cluster(docs, warn, extra_kinds)


def _build_cluster(docs: Documents, warn: bool, extra_kinds: Iterable[str]) -> Cluster:
    classes: list[PriorityClass] = []
    for o in docs.of("PriorityClass"):
        with reading(o):
            classes.append(parse_priority_class(o.body, o.source))
    runtime_classes = []
    for o in docs.of("RuntimeClass"):
        with reading(o):
            runtime_classes.append(parse_runtime_class(o.body, o.source))
    cluster = Cluster(priority=PriorityResolver(classes),
                      runtime_classes=RuntimeClassAdmission(runtime_classes),
                      quota=QuotaAdmission.from_documents(docs))
    for o in docs.of("Namespace"):
        meta = o.body.get("metadata") or {}
        labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        labels.setdefault("kubernetes.io/metadata.name", o.name)
        cluster.namespaces[o.name] = Namespace(o.name, labels)
    nodes: list[Node] = []
    for o in docs.of("Node"):
        with reading(o):
            nodes.append(parse_node(o.body, o.source))
    nodes.sort(key=lambda n: n.name)
    cluster.add_nodes(nodes)
    finished = 0
    all_pods: list[Pod] = []
    bound: list[Pod] = []
    seen: set[str] = set()
    resolve = cluster.priority.resolve
    admit = cluster.runtime_classes.admit
    node_index = cluster.node_index
    o = None
    try:  # one handler for the loop: a `with reading(o)` per pod costs ~1 us
        for o in docs.of("Pod"):
            # A pod that passed apiserver validation (manifests.check_object) or came from
            # an apiserver (RawObject.checked), bound and of the common shape, parses its
            # rarely read fields lazily; not once RuntimeClass admission merged fields
            # into it (its tolerations were never validated), nor when a sweep edit or
            # code built it: their errors are reported while loading.
            body = o.body
            spec = body.get("spec")
            if type(spec) is not dict or spec.get("runtimeClassName"):
                body = admit(body, o.source)
            pod = parse_pod(body, o.source, resolve, lazy=o.checked and body is o.body)
            if pod.phase in ("Succeeded", "Failed"):
                finished += 1
                cluster.quota.finished.append(pod)  # quota still charges its count/pods
                continue
            key = f"{pod.namespace}/{pod.name}"  # Pod.key
            if key in seen:
                raise InputError("duplicate object", pod.source, "Pod", key)
            seen.add(key)
            all_pods.append(pod)
            if pod.node_name:
                if pod.node_name not in node_index:  # the error Cluster.bind would raise
                    raise InputError(f"bound to node {pod.node_name!r}, which is not in the "
                                     "input", pod.source, "Pod", key)
                bound.append(pod)
            else:
                cluster.add_pending(pod)
    except Exception as exc:
        assert o is not None
        with reading(o):
            raise exc
    cluster.bind_many(bound)  # one batch: per-pod numpy row updates dominated loading
    configs = docs.of(SCHEDULER_CONFIG_KIND)
    if len(configs) > 1:
        raise InputError(f"more than one {SCHEDULER_CONFIG_KIND} in the input",
                         configs[1].source, SCHEDULER_CONFIG_KIND)
    if configs:
        from kubepreempt.scheduler.config import parse_scheduler_config  # avoids an import cycle
        cluster.scheduler_config = parse_scheduler_config(configs[0].body, configs[0].source)
    for kind in SOURCE_KINDS:
        for o in docs.of(kind):
            cluster.spread_sources.add(kind, o.body, o.source)
    # Kinds whose controllers create pods go last: a Deployment's name wins over the
    # Service of the same name.
    for kind, objs in sorted(docs.by_kind.items(), key=lambda kv: kv[0] in POD_CREATORS):
        if kind != "Pod":
            cluster.other_objects.update((f"{o.namespace}/{o.name}", (kind, o.source))
                                         for o in objs if o.namespace)
    for o in docs.of("PodDisruptionBudget"):
        with reading(o):
            pdb = parse_pdb(o.body, o.source)
        pdb.disruptions_allowed = pdb_disruptions_allowed(pdb, all_pods)
        cluster.pdbs.append(pdb)
    if warn:
        docs.warn_unused((*SCHEDULER_KINDS, *extra_kinds))
        if finished:
            print(f"warning: ignored {finished} finished pod(s) (phase Succeeded/Failed), as "
                  "the scheduler does", file=sys.stderr)
    return cluster
