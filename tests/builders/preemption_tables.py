"""Builders for upstream's DefaultPreemption test tables (``default_preemption_test.go``,
``preemption_test.go``): nodes and pods as ``st.MakeNode()`` / ``st.MakePod()`` build them,
upstream's sampling offsets, and PostFilter run with explicit filter statuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from builders import node, pod
from kubepreempt.cluster import Cluster
from kubepreempt.decide import resolve_pod
from kubepreempt.scheduler.framework import Code, Status
from kubepreempt.scheduler.preemption import PreemptionResult, Preemptor
from kubepreempt.scheduler.scheduler import Scheduler

NOW = 1_000_000_000.0  # "now" for pods without a start time (fixed for determinism)
U = Code.UNSCHEDULABLE

RES: dict[str, tuple[str, str]] = {
    "small": ("100m", "100"),
    "medium": ("200m", "200"),
    "large": ("300m", "300"),
    "veryLarge": ("500m", "500"),
}


def epoch(n: int) -> str:
    """Upstream's ``epochTimeN``, as N seconds after the Unix epoch."""
    return f"1970-01-01T00:00:{n:02d}Z"


def unode(spec: str, cpu: str = "500m", memory: str = "500", pods: str = "32",
          labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A node like upstream's tables: ``"name/zone/region"`` become hostname/zone/region."""
    parts = spec.split("/")
    lab = dict(zip(("hostname", "zone", "region"), parts, strict=False))
    lab.update(labels or {})
    return node(parts[0], cpu=cpu, memory=memory, pods=pods, labels=lab)


def upod(name: str, node_name: str | None = None, prio: int | None = None,
         res: str | None = None, start: int | None = None,
         labels: dict[str, str] | None = None, **kw: Any) -> dict[str, Any]:
    """A pod like ``st.MakePod().Name(..).Node(..).Priority(..).Req(..).StartTime(..)``."""
    cpu, mem = RES[res] if res else (None, None)
    return pod(name, cpu, mem, node_name=node_name, priority=prio, labels=labels,
               start=None if start is None else epoch(start), **kw)


class Offsets:
    """Stands in for ``Preemptor.rng``: yields upstream's documented sampling offsets."""

    def __init__(self, offsets: list[int]) -> None:
        self._it: Iterator[int] = iter(offsets)

    def randrange(self, n: int) -> int:
        offset = next(self._it)
        assert 0 <= offset < n
        return offset


def post_filter(cluster: Cluster, pod_key: str = "default/p",
                statuses: dict[str, Code] | None = None,
                preemptor: Preemptor | None = None) -> PreemptionResult:
    """Upstream ``PostFilter`` / ``DryRunPreemption`` with explicit filter statuses.

    ``statuses=None`` marks every node Unschedulable (DryRunPreemption on all nodes).
    """
    target = resolve_pod(cluster, pod_key)
    sched = preemptor.scheduler if preemptor else Scheduler(cluster)
    state, prefilter, filters = sched.new_state(target)
    assert prefilter is None
    names = [n.name for n in cluster.nodes]
    given = statuses if statuses is not None else dict.fromkeys(names, U)
    by_index = {names.index(n): Status(code, ()) for n, code in given.items()}
    pre = preemptor or Preemptor(sched, now=NOW)
    return pre.preempt(target, state, filters, by_index)


def candidates_of(result: PreemptionResult) -> dict[str, tuple[list[str], int]]:
    """Node -> (victim names sorted, PDB violations), as upstream's test compares them."""
    return {c.node: (sorted(p.name for p in c.victims), c.pdb_violations)
            for c in result.candidates}
