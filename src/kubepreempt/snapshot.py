"""The snapshot beneath the scheduler: nodes, bound and pending pods, PDBs, in
struct-of-arrays form.

``alloc`` and ``requested`` are ``(nodes, resources)`` int64 arrays in canonical units
(milli-CPU, bytes, counts; column ``pods`` counts pods). ``nonzero`` holds the cpu/memory
requests with scoring's defaults for missing requests. Binding or evicting a pod updates
one row in O(resources); nothing is ever rebuilt. ``name_rank`` orders the nodes by name
whatever order they joined in: every "first node by name" tie-break reads it.

This module knows nothing of the scheduler, admission or loading: the scheduler keeps
its own caches per snapshot (:mod:`kubepreempt.scheduler.cache`), and
:class:`kubepreempt.cluster.Cluster` adds the apiserver-side state (admission, the
scheduler configuration, input hints) on top.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Namespace, Node, Pod, PodDisruptionBudget
from kubepreempt.api.podgroup import pod_group_name
from kubepreempt.api.spread_sources import SpreadSources

BASE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")
CPU, MEMORY, EPHEMERAL, PODS = range(4)
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


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


@dataclass(slots=True, eq=False, weakref_slot=True)
class Snapshot:
    """What the scheduler reads: nodes and their pods as arrays, pending pods, PDBs,
    namespaces and the objects behind default spreading. The scheduler keeps its caches
    per snapshot, weakly (:mod:`kubepreempt.scheduler.cache`)."""

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
    generation: int = 0  # bumped on every change
    node_generation: int = 0  # bumped when nodes are added, removed or changed
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
    # Bound pods by the PodGroup they name, ``(namespace, podGroupName) -> key -> pod``,
    # in ``pods`` order: built on the first ``bound_group_members`` call, then kept by
    # bind and remove (None until then, so clusters without gangs pay nothing for it).
    _group_index: dict[tuple[str, str], dict[str, Pod]] | None = None
    # The name rank (see ``name_rank``); None until read after nodes joined or left.
    _name_rank: np.ndarray | None = None
    # Nodes [0, _sorted_prefix) are in name order. Loading adds nodes sorted by name, so
    # it usually covers every node; nodes that join later out of order stay past it.
    _sorted_prefix: int = 0

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
        self._names_joined(len(self.nodes) - 1)
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
        self._names_joined(start)
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
        self._name_rank = None
        self._sorted_prefix = min(self._sorted_prefix, keep)
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

    def _names_joined(self, start: int) -> None:
        """Nodes from index ``start`` on joined: the rank is read afresh, and the sorted
        prefix grows while each name sorts after the one before it."""
        self._name_rank = None
        k = self._sorted_prefix
        if k == start:
            nodes = self.nodes
            while k < len(nodes) and (k == 0 or nodes[k - 1].name < nodes[k].name):
                k += 1
            self._sorted_prefix = k

    @property
    def name_rank(self) -> np.ndarray:
        """Each node's place in name order: ``name_rank[i] < name_rank[j]`` when node
        ``i``'s name sorts before node ``j``'s, whatever order they joined in (a node
        added during a simulation gets the index after the others, not its name's
        place). Kept as nodes join and leave; read-only."""
        rank = self._name_rank
        if rank is None:
            n = len(self.nodes)
            rank = np.arange(n, dtype=np.int64)
            if self._sorted_prefix < n:
                names = [node.name for node in self.nodes]
                rank[np.array(sorted(range(n), key=names.__getitem__), np.int64)] = \
                    np.arange(n, dtype=np.int64)
            self._name_rank = rank
        return rank

    @property
    def names_in_order(self) -> bool:
        """Whether node indices follow name order (the lowest index is the first name)."""
        return self._sorted_prefix == len(self.nodes)

    def best_first_by_name(self, values: np.ndarray, nodes: np.ndarray | None = None) -> int:
        """The position of the highest of ``values``; among equal ones, that of the node
        whose name sorts first. ``values[k]`` belongs to node ``nodes[k]`` (ascending
        indices), or to node ``k`` when ``nodes`` is None."""
        pick = int(np.argmax(values))
        prefix = self._sorted_prefix
        if prefix == len(self.nodes):
            return pick  # the first maximum is the first name
        # Within the sorted prefix the first maximum has the first name; it competes
        # with the equal values of the nodes past the prefix, by rank.
        start = prefix if nodes is None else int(np.searchsorted(nodes, prefix))
        rivals = np.flatnonzero(values[start:] == values[pick]) + start
        if rivals.size and (rivals.size > 1 or int(rivals[0]) != pick):
            candidates = np.concatenate(([pick], rivals))
            rows = candidates if nodes is None else nodes[candidates]
            pick = int(candidates[np.argmin(self.name_rank[rows])])
        return pick

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
        key = pod.key  # (a property building the string: read once)
        self.pending.pop(key, None)
        pod.node_name = node_name
        if self._group_index is not None:
            previous = self.pods.get(key)
            if previous is None or previous is pod:
                self._index_group(pod)
            else:  # ``pods`` keeps the key's old place: the index is built again on read
                self._group_index = None
        self.pods[key] = pod
        self.node_pods[idx][key] = pod
        self._add_requests(idx, pod, 1)
        if pod.affinity is not None and pod.affinity.has_pod_terms:
            self.pod_affinity_pods[key] = idx
        elif self.pod_affinity_pods:  # a re-bound key may have lost its terms
            self.pod_affinity_pods.pop(key, None)
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
        self._group_index = None  # (loading: built again on the next read)
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
        key = pod.key
        if self.node_pods[idx].pop(key, None) is None:
            return
        self.pods.pop(key, None)
        self._add_requests(idx, pod, -1)
        self.pod_affinity_pods.pop(key, None)
        if self._group_index is not None:
            group = pod_group_name(pod)
            if group is not None:
                members = self._group_index.get((pod.namespace, group))
                if members is not None and members.get(key) is pod:
                    del members[key]
        self.generation += 1
        self._log_change(idx)

    def _add_requests(self, idx: int, pod: Pod, sign: int) -> None:
        """Add (``sign`` 1) or subtract (-1) ``pod``'s requests to node ``idx``'s rows of
        ``requested``, its priority's ``prio_requested`` and ``nonzero``.

        A pod requests a few resources: setting those cells from Python ints costs less
        than building its request row and adding whole rows. Where a cell would leave
        int64 (it would wrap), or a resource has no column yet, the row arithmetic runs
        instead, so the result is the same either way.
        """
        requested, nonzero, columns = self.requested, self.nonzero, self.resource_index
        prio = self.prio_requested.get(pod.priority)
        if prio is None or prio.shape != requested.shape:
            prio = self._prio_rows(pod.priority)
        low, high = INT64_MIN, INT64_MAX
        cpu = nonzero.item(idx, 0) + sign * pod.nonzero_cpu
        memory = nonzero.item(idx, 1) + sign * pod.nonzero_memory
        count, prio_count = requested.item(idx, PODS) + sign, prio.item(idx, PODS) + sign
        fits = (low <= cpu <= high and low <= memory <= high and low <= count <= high
                and low <= prio_count <= high)
        cells = []
        for resource, amount in pod.requests.items():
            col = columns.get(resource)
            if col is None or not fits:
                fits = False
                break
            if col != PODS:  # the pod count is always 1 (``request_vector``)
                delta = sign * (amount if amount <= high else high)
                total, prio_total = requested.item(idx, col) + delta, prio.item(idx, col) + delta
                fits = low <= total <= high and low <= prio_total <= high
                cells.append((col, total, prio_total))
        if fits:
            for col, total, prio_total in cells:
                requested[idx, col] = total
                prio[idx, col] = prio_total
            requested[idx, PODS] = count
            prio[idx, PODS] = prio_count
            nonzero[idx, 0] = cpu
            nonzero[idx, 1] = memory
            return
        vec = self.request_vector(pod)
        if sign > 0:
            self.requested[idx] += vec
            self._prio_rows(pod.priority)[idx] += vec
            self.nonzero[idx, 0] += pod.nonzero_cpu
            self.nonzero[idx, 1] += pod.nonzero_memory
        else:
            self.requested[idx] -= vec
            self._prio_rows(pod.priority)[idx] -= vec
            self.nonzero[idx, 0] -= pod.nonzero_cpu
            self.nonzero[idx, 1] -= pod.nonzero_memory

    def bound_group_members(self, namespace: str, name: str) -> list[Pod]:
        """The bound pods naming PodGroup ``namespace/name`` in ``spec.schedulingGroup``,
        in the order they appear in ``pods``, from an index instead of a scan of every
        pod (a group cycle asks once per group)."""
        index = self._group_index
        if index is None:
            index = self._group_index = {}
            for pod in self.pods.values():
                self._index_group(pod)
        members = index.get((namespace, name))
        if not members:
            return []
        pods = self.pods
        # A key re-bound to another pod object leaves the old entry: identity decides.
        return [pod for key, pod in members.items() if pods.get(key) is pod]

    def _index_group(self, pod: Pod) -> None:
        group = pod_group_name(pod)
        if group is not None:
            assert self._group_index is not None
            self._group_index.setdefault((pod.namespace, group), {})[pod.key] = pod

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

    def node_changed(self) -> None:
        """Invalidate node-derived caches after a node's labels, taints or flags change."""
        self.node_generation += 1
        self.generation += 1

    @staticmethod
    def empty() -> Snapshot:
        """An empty snapshot."""
        return Snapshot()


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
