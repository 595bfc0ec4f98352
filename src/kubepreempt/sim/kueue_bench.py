"""Kueue's own scheduler performance test, simulated (``kubepreempt bench kueue-*``).

Mirrors kubernetes-sigs/kueue ``test/performance/scheduler``: the generator's cohorts of
ClusterQueues (one flavor, cpu quota with a borrowing limit, reclaimWithinCohort and
withinClusterQueue policies), per queue sets of single-pod workloads created every
``creationIntervalMs`` (the k-th of a set at ``k x interval``, the sets of a queue in
parallel), each finishing ``runtimeMs`` after admission (upstream's runner; no pods, as
its ``minimalkueue``). The summary uses the recorder's definitions: per workload class
the mean time from creation to first admission; per ClusterQueue class the cpu usage
integrated over time, divided by the monitored time and the summed nominal quota.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kubepreempt.kueue.objects import Workload, parse_workload
from kubepreempt.kueue.semantics import Semantics, semantics_for
from kubepreempt.manifests import Documents, RawObject, Source
from kubepreempt.sim.engine import Simulator
from kubepreempt.sim.kueue_actor import KueueActor
from kubepreempt.sim.scenario import build_scenario

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True, slots=True)
class WorkloadClass:
    """One ``workloadsSets`` entry: ``count`` workloads every ``interval_ms``."""

    name: str
    count: int
    interval_ms: int
    runtime_ms: int
    priority: int
    request: int  # cpu


@dataclass(frozen=True, slots=True)
class KueueBenchConfig:
    """A generator.yaml plus its rangespec.yaml (upstream's ranges)."""

    name: str
    cohorts: int
    queues: int
    nominal: int
    borrowing_limit: int
    classes: tuple[WorkloadClass, ...]
    max_wall_ms: int
    min_usage_pct: float
    max_avg_admission_ms: dict[str, int]
    upstream_wall_ms: float  # upstream's measured average wall time


# configs/baseline/generator.yaml and rangespec.yaml (averages of upstream's 5 trials).
BASELINE = KueueBenchConfig(
    "kueue-baseline", cohorts=5, queues=6, nominal=20, borrowing_limit=100,
    classes=(WorkloadClass("small", 350, 100, 200, 50, 1),
             WorkloadClass("medium", 100, 500, 500, 100, 5),
             WorkloadClass("large", 50, 1200, 1000, 200, 20)),
    max_wall_ms=425_000, min_usage_pct=55.0,
    max_avg_admission_ms={"large": 11_000, "medium": 90_000, "small": 260_000},
    upstream_wall_ms=351_116.4)
# configs/large-scale/generator.yaml and rangespec.yaml (upstream's placeholders).
LARGE_SCALE = KueueBenchConfig(
    "kueue-large-scale", cohorts=20, queues=100, nominal=20, borrowing_limit=100,
    classes=(WorkloadClass("small", 20, 20, 50, 50, 1),
             WorkloadClass("medium", 7, 50, 100, 100, 5),
             WorkloadClass("large", 3, 200, 200, 200, 20)),
    max_wall_ms=900_000, min_usage_pct=55.0,
    max_avg_admission_ms={"large": 60_000, "medium": 500_000, "small": 1_500_000},
    upstream_wall_ms=19.7 * 60_000)
CONFIGS = {c.name: c for c in (BASELINE, LARGE_SCALE)}


def describe(cfg: KueueBenchConfig) -> str:
    """One line for ``bench --list``."""
    n = cfg.cohorts * cfg.queues * sum(c.count for c in cfg.classes)
    return (f"Kueue scheduler benchmark: {cfg.cohorts} cohorts x {cfg.queues} ClusterQueues, "
            f"{n:,} workloads, no pods (--kueue-version)")


def _obj(kind: str, body: dict[str, Any]) -> RawObject:
    return RawObject(kind, body, Source("<bench>"))


def build_documents(cfg: KueueBenchConfig, api_version: str = "v1beta1") -> Documents:
    """The generator's queues: flavor ``rf``, ClusterQueues ``cq-0-<i>-cohort-<c>`` with a
    LocalQueue each (the workloads are built by :func:`workloads`), in ``api_version`` —
    the release's own, so that nothing is converted (or warned about) on the way in."""
    group_version = f"kueue.x-k8s.io/{api_version}"
    # v1beta2 renamed the ClusterQueue's cohort field.
    cohort_field = "cohortName" if api_version == "v1beta2" else "cohort"
    docs = Documents()
    docs.add(_obj("ResourceFlavor", {"apiVersion": group_version,
                                     "kind": "ResourceFlavor", "metadata": {"name": "rf"}}))
    for name, cohort in _queues(cfg):
        docs.add(_obj("ClusterQueue", {
            "apiVersion": group_version, "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {cohort_field: cohort,
                     "preemption": {"reclaimWithinCohort": "Any",
                                    "withinClusterQueue": "LowerPriority"},
                     "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{
                         "name": "rf", "resources": [{
                             "name": "cpu", "nominalQuota": cfg.nominal,
                             "borrowingLimit": cfg.borrowing_limit}]}]}]}}))
        docs.add(_obj("LocalQueue", {
            "apiVersion": group_version, "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": name}, "spec": {"clusterQueue": name}}))
    return docs


def _queues(cfg: KueueBenchConfig) -> list[tuple[str, str]]:
    return [(f"cq-0-{q}-cohort-{c}", f"cohort-{c}")
            for c in range(cfg.cohorts) for q in range(cfg.queues)]


def workloads(cfg: KueueBenchConfig, semantics: Semantics) -> list[tuple[Workload, float,
                                                                           float]]:
    """(workload, arrival s, runtime s) per generated workload: ``<class>-<set>-<k>-0`` in
    each queue's namespace, one pod requesting ``request`` cpu, priority as configured,
    the k-th of a set created at ``(k + 1) x interval``."""
    out = []
    for name, _ in _queues(cfg):
        for set_idx, wc in enumerate(cfg.classes):
            proto = parse_workload(_obj("Workload", {
                "apiVersion": f"kueue.x-k8s.io/{semantics.native_api_version}",
                "kind": "Workload",
                "metadata": {"name": f"{wc.name}-{set_idx}-0-0", "namespace": name},
                "spec": {"queueName": name, "priority": wc.priority,
                         "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                             "containers": [{"name": "c", "resources": {
                                 "requests": {"cpu": str(wc.request)}}}]}}}]}}),
                lambda n, s: 0, semantics)
            for k in range(wc.count):
                wl = replace(proto, name=f"{wc.name}-{set_idx}-{k}-0", conditions=())
                out.append((wl, (k + 1) * wc.interval_ms / 1000, wc.runtime_ms / 1000))
    return out


def run(cfg: KueueBenchConfig, version: str = "current") -> dict[str, Any]:
    """Simulate the benchmark; figures next to upstream's ranges."""
    started = time.perf_counter()
    docs = build_documents(cfg, semantics_for(version).native_api_version)
    scen = build_scenario(docs)
    sim = Simulator(scen, keep_timeline=False, kueue_version=version)
    actor = next(a for a in sim.actors if isinstance(a, KueueActor))
    actor.podless = True
    for wl, arrival, runtime in workloads(cfg, actor.sem):
        actor.add_workload(wl, arrival, runtime)
    built = time.perf_counter()
    res = sim.run()
    wall = time.perf_counter() - started
    classes: dict[str, list[float]] = {}
    evictions: dict[str, int] = {}
    for sw in actor.workloads.values():
        wc = sw.wl.name.split("-")[0]
        if sw.admissions:
            first = sw.admissions[0]["time"] - sw.wl.creation
            classes.setdefault(wc, []).append(first)
        evictions[wc] = evictions.get(wc, 0) + len(sw.preemptions)
    actor.sample()  # close every usage integral at the end
    first = min(t for t, _ in actor.arrivals)
    span = res.end - first
    used = sum(u[0] for u in actor.usage_ms.values())
    nominal = cfg.cohorts * cfg.queues * cfg.nominal * 1000
    usage_pct = 100 * used / span / nominal if span > 0 else 0.0
    out = {
        "benchmark": cfg.name, "kueueVersion": actor.sem.version,
        "workloads": len(actor.workloads), "clusterQueues": cfg.cohorts * cfg.queues,
        "admitted": sum(len(v) for v in classes.values()),
        "cycles": actor.cycles, "events": res.processed,
        "seconds": round(wall, 3), "buildSeconds": round(built - started, 3),
        "simulatedMakespanMs": round(res.end * 1000),
        "upstream": {"wallMsAverage": cfg.upstream_wall_ms, "maxWallMs": cfg.max_wall_ms},
        "clusterQueueClassMinUsage": {"cq": {"valuePct": round(usage_pct, 1),
                                             "upstreamMinPct": cfg.min_usage_pct}},
        "workloadClasses": {
            wc.name: {"count": len(classes.get(wc.name, [])),
                      "avgTimeToAdmissionMs": round(1000 * sum(classes.get(wc.name, [0]))
                                                    / max(1, len(classes.get(wc.name, [])))),
                      "upstreamMaxAvgMs": cfg.max_avg_admission_ms[wc.name],
                      "evictions": evictions.get(wc.name, 0)}
            for wc in cfg.classes},
    }
    return out


def render(result: dict[str, Any], console: Console) -> None:
    """The figures upstream's rangespec.yaml checks, next to its ranges."""
    from kubepreempt.text_table import TextTable

    table = TextTable("figure", "simulated", "upstream range", "within",
                      title=f"{result['benchmark']} (Kueue {result['kueueVersion']})")
    up = result["upstream"]
    table.add_row("makespan (ms)", str(result["simulatedMakespanMs"]),
                  f"<= {up['maxWallMs']} (upstream average {up['wallMsAverage']:.0f})",
                  _yes(result["simulatedMakespanMs"] <= up["maxWallMs"]))
    cq = result["clusterQueueClassMinUsage"]["cq"]
    table.add_row("ClusterQueue class cq usage (%)", str(cq["valuePct"]),
                  f">= {cq['upstreamMinPct']}", _yes(cq["valuePct"] >= cq["upstreamMinPct"]))
    for name, wc in result["workloadClasses"].items():
        table.add_row(f"{name}: mean time to admission (ms)", str(wc["avgTimeToAdmissionMs"]),
                      f"<= {wc['upstreamMaxAvgMs']}",
                      _yes(wc["avgTimeToAdmissionMs"] <= wc["upstreamMaxAvgMs"]))
    table.add_row("wall time of this run (s)", str(result["seconds"]), "", "")
    console.print(table)


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"
