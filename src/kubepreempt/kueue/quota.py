"""Quota accounting: ClusterQueue usage per flavor and resource, cohort totals and shares.

This mirrors Kueue v0.7's cache snapshot (``pkg/cache``): a ClusterQueue's usage counts
the admitted (quota-reserving) workloads on the flavors and resources the queue defines;
a cohort's requestable quota is the sum of its members' nominal quotas (lending limits
with the LendingLimit gate), and its usage the sum of its members' usage.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubepreempt.kueue.objects import ClusterQueue, KueueConfig, Workload

Usage = dict[str, dict[str, int]]  # flavor -> resource -> amount
MAX_INT = sys.maxsize  # Go's math.MaxInt on 64-bit


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

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.obj.key

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


def _scaled(per_pod: Mapping[str, int], count: int) -> dict[str, int]:
    return {r: v * count for r, v in per_pod.items()}


def workload_info(wl: Workload, cluster_queue: str = "") -> WorkloadInfo:
    """Build the info: from ``status.admission`` when admitted, else from the pod sets."""
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
            if current != count and count:
                requests = {r: go_div(v, count) * current for r, v in requests.items()}
                count = current
            total.append(PodSetResources(psa.name, count, requests, dict(psa.flavors)))
        return WorkloadInfo(wl, wl.admission_cq, total)
    total = [PodSetResources(ps.name, counts[ps.name], _scaled(ps.requests, counts[ps.name]))
             for ps in wl.pod_sets]
    return WorkloadInfo(wl, cluster_queue, total)


@dataclass(slots=True, eq=False)
class CohortState:
    """Cohort totals in the snapshot: requestable quota and lendable resources."""

    name: str
    members: list[CQState] = field(default_factory=list)
    requestable: Usage = field(default_factory=dict)
    lendable: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class CQState:
    """One active ClusterQueue in the snapshot, with its usage and admitted workloads."""

    spec: ClusterQueue
    usage: Usage
    workloads: dict[str, WorkloadInfo] = field(default_factory=dict)
    cohort: CohortState | None = None
    guaranteed: Usage = field(default_factory=dict)
    lendable: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The ClusterQueue's name."""
        return self.spec.name

    def used(self, flavor: str, resource: str) -> int:
        """Usage of ``resource`` in ``flavor`` (0 when not tracked)."""
        return self.usage.get(flavor, {}).get(resource, 0)

    def guaranteed_quota(self, flavor: str, resource: str) -> int:
        """nominal - lendingLimit (only with the LendingLimit gate)."""
        return self.guaranteed.get(flavor, {}).get(resource, 0)

    def requestable_cohort_quota(self, flavor: str, resource: str) -> int:
        """Cohort quota this queue may use: the cohort total plus its own guaranteed part."""
        assert self.cohort is not None
        if flavor not in self.cohort.requestable:
            return 0
        return (self.cohort.requestable[flavor].get(resource, 0)
                + self.guaranteed_quota(flavor, resource))

    def used_cohort_quota(self, flavor: str, resource: str) -> int:
        """Cohort usage as this queue sees it (own guaranteed usage counted back in)."""
        assert self.cohort is not None
        total = 0
        for m in self.cohort.members:
            after = m.used(flavor, resource) - m.guaranteed_quota(flavor, resource)
            if after > 0:
                total += after
        g = self.guaranteed_quota(flavor, resource)
        if g:
            total += min(self.used(flavor, resource), g)
        return total

    def is_borrowing(self) -> bool:
        """True when usage is above nominal quota for any flavor and resource."""
        if self.cohort is None:
            return False
        for rg in self.spec.resource_groups:
            for fq in rg.flavors:
                for res, q in fq.resources.items():
                    if self.used(fq.name, res) > q.nominal:
                        return True
        return False

    def dominant_resource_share(self, req: Usage | None = None, m: int = 0) -> tuple[int, str]:
        """Weighted share, 0..1000 per unit weight, of borrowed over lendable resources.

        ``req`` with ``m`` = 1 adds a workload's requests, -1 removes them
        (``DominantResourceShareWith`` / ``Without``).
        """
        if self.cohort is None:
            return 0, ""
        if self.spec.fair_weight_milli == 0:
            return MAX_INT, ""
        req = req or {}
        borrowing: dict[str, int] = {}
        for rg in self.spec.resource_groups:
            for fq in rg.flavors:
                for res, q in fq.resources.items():
                    b = self.used(fq.name, res) + m * req.get(fq.name, {}).get(res, 0) - q.nominal
                    if b > 0:
                        borrowing[res] = borrowing.get(res, 0) + b
        if not borrowing:
            return 0, ""
        drs, dres = -1, ""
        for res, b in borrowing.items():
            lendable = self.cohort.lendable.get(res, 0)
            if lendable > 0:
                ratio = b * 1000 // lendable
                if ratio > drs or (ratio == drs and res < dres):
                    drs, dres = ratio, res
        return go_div(drs * 1000, self.spec.fair_weight_milli), dres


class Snapshot:
    """Active ClusterQueues and cohorts with the usage of the admitted workloads."""

    def __init__(self, cluster_queues: Iterable[ClusterQueue], flavors: Iterable[str],
                 admitted: Iterable[Workload], config: KueueConfig | None = None) -> None:
        self.config = config or KueueConfig()
        known = set(flavors)
        self.inactive: dict[str, str] = {}
        self.cqs: dict[str, CQState] = {}
        self.cohorts: dict[str, CohortState] = {}
        for cq in cluster_queues:
            missing = [f for f in cq.flavor_names() if f not in known]
            if missing:
                self.inactive[cq.name] = f"FlavorNotFound ({', '.join(missing)})"
                continue
            if cq.stopped:
                self.inactive[cq.name] = "Stopped"
                continue
            self.cqs[cq.name] = self._state(cq)
        for wl in admitted:
            if not wl.has_quota_reservation:
                continue
            st = self.cqs.get(wl.admission_cq)
            if st is None:
                continue  # its queue is gone or inactive: upstream's snapshot skips it too
            info = workload_info(wl)
            st.workloads[info.key] = info
            self._update(st, info, 1)
        for st in self.cqs.values():
            if st.spec.cohort:
                cohort = self.cohorts.setdefault(st.spec.cohort, CohortState(st.spec.cohort))
                self._accumulate(cohort, st)

    def _state(self, cq: ClusterQueue) -> CQState:
        usage: Usage = {}
        guaranteed: Usage = {}
        lendable: dict[str, int] = {}
        for rg in cq.resource_groups:
            for fq in rg.flavors:
                usage[fq.name] = {r: 0 for r in fq.resources}
                for r, q in fq.resources.items():
                    if self.config.lending_limit and q.lending_limit is not None:
                        guaranteed.setdefault(fq.name, {})[r] = q.nominal - q.lending_limit
                        lendable[r] = lendable.get(r, 0) + q.lending_limit
                    else:
                        lendable[r] = lendable.get(r, 0) + q.nominal
        return CQState(cq, usage, guaranteed=guaranteed, lendable=lendable)

    def _accumulate(self, cohort: CohortState, st: CQState) -> None:
        st.cohort = cohort
        cohort.members.append(st)
        for rg in st.spec.resource_groups:
            for fq in rg.flavors:
                req = cohort.requestable.setdefault(fq.name, {})
                for r, q in fq.resources.items():
                    lend = q.lending_limit if (self.config.lending_limit
                                               and q.lending_limit is not None) else q.nominal
                    req[r] = req.get(r, 0) + lend
        for r, v in st.lendable.items():
            cohort.lendable[r] = cohort.lendable.get(r, 0) + v

    @staticmethod
    def _update(st: CQState, info: WorkloadInfo, m: int) -> None:
        for ps in info.total_requests:
            for res, flv in ps.flavors.items():
                if res in ps.requests and flv in st.usage and res in st.usage[flv]:
                    st.usage[flv][res] += ps.requests[res] * m

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
