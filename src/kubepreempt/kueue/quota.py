"""Quota accounting: a tree of ClusterQueues and cohorts with quota and usage per
flavor-resource, as Kueue's cache snapshot keeps it (``pkg/cache/scheduler``
``resource_node.go``).

Every node has its own quotas, a *subtree quota* (its nominal plus what its children lend
up, i.e. their subtree quota minus the part a lending limit keeps local) and a usage
(what its children use beyond their local part). A ClusterQueue's usage counts its
admitted (quota-reserving) workloads on the flavor-resources it defines. Kueue v0.7's
flat cohort is the same tree with one level: a cohort without quota or parent, whose
subtree quota is the sum of what its members lend (their nominal quota, or lending limit
with the LendingLimit gate) -- v0.7's "requestable cohort quota".
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubepreempt.kueue.objects import ClusterQueue, Cohort, KueueConfig, ResourceQuota, Workload

Usage = dict[str, dict[str, int]]  # flavor -> resource -> amount
FR = tuple[str, str]  # (flavor, resource)
MAX_INT = sys.maxsize  # Go's math.MaxInt on 64-bit

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on ints."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclass(slots=True)
class PodSetResources:
    """Total requests of one pod set (count x per-pod) and, once known, its flavors."""

    name: str
    count: int
    requests: dict[str, int]
    flavors: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class WorkloadInfo:
    """A workload with its total requests and ClusterQueue (``workload.Info``)."""

    obj: Workload
    cluster_queue: str
    total_requests: list[PodSetResources]
    # ``namespace/name``, read on every snapshot update (a Workload's name never changes).
    key: str = field(init=False, repr=False)
    # Memo of preemption's candidate order key: (conditions it was computed on, key).
    order_memo: tuple | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.key = self.obj.key

    def usage(self) -> Usage:
        """Requests per flavor and resource (``FlavorResourceUsage``)."""
        out: Usage = {}
        for ps in self.total_requests:
            for res, amount in ps.requests.items():
                flv = ps.flavors.get(res)
                if flv is None:
                    continue
                out.setdefault(flv, {})
                out[flv][res] = out[flv].get(res, 0) + amount
        return out

    def flat_usage(self) -> dict[FR, int]:
        """Requests per (flavor, resource)."""
        out: dict[FR, int] = {}
        for ps in self.total_requests:
            for res, amount in ps.requests.items():
                flv = ps.flavors.get(res)
                if flv is not None:
                    out[(flv, res)] = out.get((flv, res), 0) + amount
        return out


def _scaled(per_pod: Mapping[str, int], count: int) -> dict[str, int]:
    return {r: v * count for r, v in per_pod.items()}


def workload_info(wl: Workload, cluster_queue: str = "",
                  partial_admission_keeps_usage: bool = True) -> WorkloadInfo:
    """Build the info: from ``status.admission`` when admitted, else from the pod sets.

    ``partial_admission_keeps_usage``: the release's rule for a count after reclaim above
    the admitted one (``Semantics.partial_admission_keeps_usage``)."""
    counts = {ps.name: max(0, ps.count - wl.reclaimable.get(ps.name, 0)) for ps in wl.pod_sets}
    by_name = {ps.name: ps for ps in wl.pod_sets}
    if wl.admission_cq:
        total = []
        for psa in wl.assignments:
            ps = by_name.get(psa.name)
            count = psa.count if psa.count is not None else (ps.count if ps else 0)
            if psa.resource_usage is not None:
                requests = dict(psa.resource_usage)
            else:  # hand-written admission without resourceUsage: derive it from the spec
                requests = _scaled(ps.requests, count) if ps else {}
            current = counts.get(psa.name, count)
            # totalRequestsFromAdmission: reclaimable pods scale the usage down; a count
            # above the admitted one is a partial admission and keeps the admitted usage
            # (v0.7: rescaled whenever the counts differ).
            if current < count or (current != count and not partial_admission_keeps_usage):
                requests = {r: go_div(v, count) * current for r, v in requests.items()}
                count = current
            total.append(PodSetResources(psa.name, count, requests, dict(psa.flavors)))
        return WorkloadInfo(wl, wl.admission_cq, total)
    total = [PodSetResources(ps.name, counts[ps.name], _scaled(ps.requests, counts[ps.name]))
             for ps in wl.pod_sets]
    return WorkloadInfo(wl, cluster_queue, total)


def queue_order_time(info: WorkloadInfo, admission_check_evictions: bool) -> float:
    """``GetQueueOrderTimestamp``: the eviction time when requeued after a PodsReady
    timeout (or, with ``admission_check_evictions``, an AdmissionCheck), else creation."""
    ev = info.obj.condition("Evicted")
    reasons = ("PodsReadyTimeout", "AdmissionCheck") if admission_check_evictions \
        else ("PodsReadyTimeout",)
    if ev is not None and ev.status == "True" and ev.reason in reasons and ev.time is not None:
        return ev.time
    return info.obj.creation if info.obj.creation is not None else 0.0


class QuotaNode:
    """A ClusterQueue or cohort in the quota tree (upstream's ``resourceNode``)."""

    __slots__ = ("name", "parent", "quotas", "subtree", "usage", "lending", "keeps_local")

    def __init__(self, name: str, quotas: dict[FR, ResourceQuota], lending: bool) -> None:
        self.name = name
        self.parent: CohortState | None = None
        self.quotas = quotas
        self.subtree: dict[FR, int] = {fr: q.nominal for fr, q in quotas.items()}
        self.usage: dict[FR, int] = dict.fromkeys(quotas, 0)
        self.lending = lending  # lending limits count (the LendingLimit gate)
        # Some lending limit counts: else every local quota is 0 (asked on every update).
        self.keeps_local = lending and any(q.lending_limit is not None
                                           for q in quotas.values())

    def local_quota(self, fr: FR) -> int:
        """Quota only this subtree sees: what a lending limit keeps back from the parent."""
        if not self.keeps_local:
            return 0
        q = self.quotas.get(fr)
        if q is None or q.lending_limit is None:
            return 0
        return max(0, self.subtree.get(fr, 0) - q.lending_limit)

    def local_available(self, fr: FR) -> int:
        """Unused local quota (``LocalAvailable``)."""
        if not self.keeps_local:
            used = self.usage.get(fr, 0)
            return -used if used < 0 else 0
        return max(0, self.local_quota(fr) - self.usage.get(fr, 0))

    def available(self, fr: FR) -> int:
        """Capacity left for this node, own and borrowed, within borrowing limits (may be
        negative when over-admitted)."""
        if self.parent is None:
            return self.subtree.get(fr, 0) - self.usage.get(fr, 0)
        parent_available = self.parent.available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            lq = self.local_quota(fr)
            stored_in_parent = self.subtree.get(fr, 0) - lq
            used_in_parent = max(0, self.usage.get(fr, 0) - lq)
            parent_available = min(stored_in_parent - used_in_parent + q.borrowing_limit,
                                   parent_available)
        return self.local_available(fr) + parent_available

    def potential_available(self, fr: FR) -> int:
        """The most this node could use with no usage anywhere (``potentialAvailable``)."""
        if self.parent is None:
            return self.subtree.get(fr, 0)
        avail = self.local_quota(fr) + self.parent.potential_available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            avail = min(self.subtree.get(fr, 0) + q.borrowing_limit, avail)
        return avail

    def add_usage(self, fr: FR, val: int) -> None:
        """Add usage; what exceeds the unused local quota bubbles up to the parent."""
        local = self.local_available(fr)
        self.usage[fr] = self.usage.get(fr, 0) + val
        if self.parent is not None and val > local:
            self.parent.add_usage(fr, val - local)

    def remove_usage(self, fr: FR, val: int) -> None:
        """Remove usage, and the part of it that was stored in the parent."""
        stored_in_parent = self.usage.get(fr, 0) - self.local_quota(fr)
        self.usage[fr] = self.usage.get(fr, 0) - val
        if stored_in_parent > 0 and self.parent is not None:
            self.parent.remove_usage(fr, min(val, stored_in_parent))

    def borrowing_with(self, fr: FR, val: int) -> bool:
        """Usage plus ``val`` exceeds the subtree quota (a ClusterQueue's: its nominal)."""
        return self.usage.get(fr, 0) + val > self.subtree.get(fr, 0)

    def within_nominal(self, frs: Iterable[FR]) -> bool:
        """``IsWithinNominalInResources``: no usage above subtree quota in ``frs``."""
        subtree, usage = self.subtree, self.usage
        for fr in frs:  # noqa: SIM110 -- a plain loop: no generator on this hot path
            if subtree.get(fr, 0) < usage.get(fr, 0):
                return False
        return True

    def path_to_root(self) -> list[CohortState]:
        """Ancestors from the parent up to the root."""
        out = []
        node = self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def root(self) -> QuotaNode:
        """The root of this node's tree (itself when it has no parent)."""
        node: QuotaNode = self
        while node.parent is not None:
            node = node.parent
        return node


def subtree_height(node: CohortState) -> int:
    """``getNodeHeight``: distance to the furthest leaf (1 for a cohort of queues)."""
    height = min(len(node.members) + len(node.children), 1)
    for child in node.children:
        height = max(height, subtree_height(child) + 1)
    return height


def lowest_subtree_that_fits(cq: CQState, fr: FR, val: int) -> tuple[int, bool]:
    """``FindHeightOfLowestSubtreeThatFits``: the height of the lowest subtree around
    ``cq`` whose quota holds ``val`` more of ``fr`` (0: the queue's own nominal), and
    whether that subtree is smaller than the whole tree."""
    if not (cq.borrowing_with(fr, val) and cq.parent is not None):
        return 0, cq.parent is not None
    remaining = val - cq.local_available(fr)
    node = cq.parent
    for node in cq.path_to_root():
        if not node.borrowing_with(fr, remaining):
            return subtree_height(node), node.parent is not None
        remaining -= node.local_available(fr)
    return subtree_height(node), node.parent is not None


class CohortState(QuotaNode):
    """A cohort in the snapshot: its own quota (a Cohort object), child cohorts and
    member ClusterQueues."""

    __slots__ = ("members", "children", "fair_weight_milli", "spec")

    def __init__(self, name: str, spec: Cohort | None, lending: bool) -> None:
        quotas = {(fq.name, r): q for rg in (spec.resource_groups if spec else ())
                  for fq in rg.flavors for r, q in fq.resources.items()}
        super().__init__(name, quotas, lending)
        self.spec = spec
        self.members: list[CQState] = []
        self.children: list[CohortState] = []
        self.fair_weight_milli = spec.fair_weight_milli if spec else 1000

    def subtree_cluster_queues(self) -> list[CQState]:
        """Every ClusterQueue below this cohort."""
        out = list(self.members)
        for c in self.children:
            out.extend(c.subtree_cluster_queues())
        return out

    def accumulate(self) -> None:
        """Recompute subtree quota bottom-up (``updateCohortResourceNode``)."""
        self.subtree = {fr: q.nominal for fr, q in self.quotas.items()}
        for child in [*self.children, *self.members]:
            if isinstance(child, CohortState):
                child.accumulate()
            for fr, v in child.subtree.items():
                self.subtree[fr] = self.subtree.get(fr, 0) + v - child.local_quota(fr)
        for fr in self.subtree:
            self.usage.setdefault(fr, 0)


class CQState(QuotaNode):
    """One active ClusterQueue in the snapshot, with its usage and admitted workloads."""

    __slots__ = ("spec", "workloads")

    def __init__(self, spec: ClusterQueue, lending: bool) -> None:
        quotas = {(fq.name, r): q for rg in spec.resource_groups for fq in rg.flavors
                  for r, q in fq.resources.items()}
        super().__init__(spec.name, quotas, lending)
        self.spec = spec
        self.workloads: dict[str, WorkloadInfo] = {}

    @property
    def cohort(self) -> CohortState | None:
        """The parent cohort (None without one)."""
        return self.parent

    def used(self, flavor: str, resource: str) -> int:
        """Usage of ``resource`` in ``flavor`` (0 when not tracked)."""
        return self.usage.get((flavor, resource), 0)

    def guaranteed_quota(self, flavor: str, resource: str) -> int:
        """nominal - lendingLimit (only with the LendingLimit gate)."""
        return self.local_quota((flavor, resource))

    def requestable_cohort_quota(self, flavor: str, resource: str) -> int:
        """v0.7: cohort quota this queue may use, the cohort total plus its own guaranteed
        part (one-level cohorts only)."""
        assert self.parent is not None
        fr = (flavor, resource)
        return self.parent.subtree.get(fr, 0) + self.local_quota(fr)

    def used_cohort_quota(self, flavor: str, resource: str) -> int:
        """v0.7: cohort usage as this queue sees it (own guaranteed usage counted back)."""
        assert self.parent is not None
        fr = (flavor, resource)
        return self.parent.usage.get(fr, 0) + min(self.usage.get(fr, 0), self.local_quota(fr))

    def fits(self, req: Usage, allow_borrowing: bool) -> bool:
        """Current ``workloadFits``: every requested flavor-resource fits the available
        quota (``Available``, which walks the cohort tree with borrowing and lending
        limits); without borrowing, none may go above nominal."""
        for flv, per_res in req.items():
            for res, amount in per_res.items():
                fr = (flv, res)
                if not allow_borrowing and self.borrowing_with(fr, amount):
                    return False
                if amount > max(0, self.available(fr)):
                    return False
        return True

    def is_borrowing(self) -> bool:
        """True when usage is above nominal quota for any flavor and resource."""
        if self.parent is None:
            return False
        return any(self.usage.get(fr, 0) > q.nominal for fr, q in self.quotas.items())

    def lendable(self, resource: str) -> int:
        """What the cohort tree could lend, per resource (``calculateLendable``): the
        potential capacity of the parent over every flavor of ``resource``."""
        assert self.parent is not None
        return sum(self.parent.potential_available(fr) for fr in self.root().subtree
                   if fr[1] == resource)

    def dominant_resource_share(self, req: Usage | None = None, m: int = 0) -> tuple[int, str]:
        """Weighted share, 0..1000 per unit weight, of borrowed over lendable resources.

        ``req`` with ``m`` = 1 adds a workload's requests, -1 removes them
        (``DominantResourceShareWith`` / ``Without``).
        """
        if self.parent is None:
            return 0, ""
        if self.spec.fair_weight_milli == 0:
            return MAX_INT, ""
        req = req or {}
        borrowing: dict[str, int] = {}
        for (flv, res), q in self.quotas.items():
            b = self.usage.get((flv, res), 0) + m * req.get(flv, {}).get(res, 0) - q.nominal
            if b > 0:
                borrowing[res] = borrowing.get(res, 0) + b
        if not borrowing:
            return 0, ""
        drs, dres = -1, ""
        for res, b in borrowing.items():
            lendable = self.lendable(res)
            if lendable > 0:
                ratio = b * 1000 // lendable
                if ratio > drs or (ratio == drs and res < dres):
                    drs, dres = ratio, res
        return go_div(drs * 1000, self.spec.fair_weight_milli), dres


def queue_path(st: CQState) -> str:
    """``buildCQPath``: ``/root/.../cohort/queue``."""
    return "/" + "/".join([n.name for n in reversed(st.path_to_root())] + [st.name])


class Snapshot:
    """Active ClusterQueues and cohorts with the usage of the admitted workloads."""

    def __init__(self, cluster_queues: Iterable[ClusterQueue], flavors: Iterable[str],
                 admitted: Iterable[Workload], config: KueueConfig | None = None,
                 cohorts: Mapping[str, Cohort] | None = None,
                 namespaces: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.config = config or KueueConfig()
        self.namespaces = namespaces or {}
        hierarchical = self.config.semantics.hierarchical_cohorts
        specs = dict(cohorts or {}) if hierarchical else {}
        known = set(flavors)
        lending = self.config.lending_limit
        self.inactive: dict[str, str] = {}
        # Set (to {}) by a caller that runs many preemption searches on one unchanged
        # snapshot (each search restores what it removes), e.g. the simulator's
        # nominations: searches then share which queues are over quota and which of their
        # workloads use a flavor-resource. None whenever the snapshot may change between
        # searches.
        self.scan_cache: dict | None = None
        self.cqs: dict[str, CQState] = {}
        self.cohorts: dict[str, CohortState] = {}
        cyclic = _cyclic_cohorts(specs)
        for name in specs:  # every Cohort object is a node, with or without queues
            if name not in cyclic:
                self._cohort(name, specs, lending)
        for cq in cluster_queues:
            missing = [f for f in cq.flavor_names() if f not in known]
            if missing:
                self.inactive[cq.name] = f"FlavorNotFound ({', '.join(missing)})"
                continue
            if cq.stopped:
                self.inactive[cq.name] = "Stopped"
                continue
            if cq.cohort and cq.cohort in cyclic:
                self.inactive[cq.name] = "cohort has a cycle"
                continue
            st = CQState(cq, lending)
            self.cqs[cq.name] = st
            if cq.cohort:
                cohort = self._cohort(cq.cohort, specs, lending)
                st.parent = cohort
                cohort.members.append(st)
        for root in [c for c in self.cohorts.values() if c.parent is None]:
            root.accumulate()
        for wl in admitted:
            if not wl.has_quota_reservation:
                continue
            st = self.cqs.get(wl.admission_cq)
            if st is None:
                continue  # its queue is gone or inactive: upstream's snapshot skips it too
            info = workload_info(
                wl, partial_admission_keeps_usage=self.config.semantics
                .partial_admission_keeps_usage)
            st.workloads[info.key] = info
            self._update(st, info, 1)

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """A namespace's labels, with the ``kubernetes.io/metadata.name`` label the
        apiserver sets on every namespace (so a namespace absent from the input has it)."""
        return {**self.namespaces.get(namespace, {}), NAMESPACE_NAME_LABEL: namespace}

    def _cohort(self, name: str, specs: Mapping[str, Cohort], lending: bool) -> CohortState:
        """The cohort node ``name`` with its ancestors (implicit when no object exists)."""
        node = self.cohorts.get(name)
        if node is not None:
            return node
        spec = specs.get(name)
        node = CohortState(name, spec, lending)
        self.cohorts[name] = node
        if spec is not None and spec.parent:
            parent = self._cohort(spec.parent, specs, lending)
            node.parent = parent
            parent.children.append(node)
        return node

    def _update(self, st: CQState, info: WorkloadInfo, m: int) -> None:
        every = self.config.semantics.usage_of_undeclared
        quotas = st.quotas
        for ps in info.total_requests:
            requests = ps.requests
            for res, flv in ps.flavors.items():
                if res in requests:
                    fr = (flv, res)
                    if every or fr in quotas:
                        if m > 0:
                            st.add_usage(fr, requests[res])
                        else:
                            st.remove_usage(fr, requests[res])

    def remove_workload(self, info: WorkloadInfo) -> None:
        """Take an admitted workload out of its queue's usage (a simulated eviction)."""
        st = self.cqs[info.cluster_queue]
        del st.workloads[info.key]
        self._update(st, info, -1)

    def add_workload(self, info: WorkloadInfo) -> None:
        """Put a workload back (or admit one) into its queue's usage."""
        st = self.cqs[info.cluster_queue]
        st.workloads[info.key] = info
        self._update(st, info, 1)

    def all_workloads(self) -> list[WorkloadInfo]:
        """Every admitted workload in the active queues."""
        return [w for st in self.cqs.values() for w in st.workloads.values()]


def _cyclic_cohorts(specs: Mapping[str, Cohort]) -> set[str]:
    """Cohorts whose parent chain runs into a cycle (``hierarchy.HasCycle``): Kueue
    stops admission in such a tree."""
    bad: set[str] = set()
    ok: set[str] = set()
    for start in specs:
        path: list[str] = []
        seen: set[str] = set()
        node: str | None = start
        while node is not None and node not in ok and node not in bad:
            if node in seen:
                bad.update(path)
                break
            seen.add(node)
            path.append(node)
            spec = specs.get(node)
            node = spec.parent if spec is not None and spec.parent else None
        else:
            (bad if node in bad else ok).update(path)
    return bad
