"""Simulator benchmark: a synthetic day on a large cluster with mixed priorities.

Default: 5,000 nodes (24 cpu, 96 GiB), 100,000 pods arriving over 24 hours as Poisson
streams in three priority classes (batch, web, urgent), long enough to keep the cluster
around 80-90% requested so that urgent pods preempt batch pods all day.

    .venv/bin/python benchmarks/bench_simulate.py            # the full day
    .venv/bin/python benchmarks/bench_simulate.py --scale 0.1
    .venv/bin/python benchmarks/bench_simulate.py --queue classic   # the design doc's queue

Prints simulated (heap) events per second, scheduling attempts, preemptions and peak
memory (max RSS).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.sim import build_scenario, simulate

# (name, class, share of pods, cpu, memory GiB, duration, grace seconds)
TEMPLATES = [
    ("batch-long", "batch", 0.20, 8, 16, "8h", 30),
    ("batch-short", "batch", 0.20, 4, 8, "2h", 30),
    ("web-a", "web", 0.25, 2, 4, "6h", 30),
    ("web-b", "web", 0.25, 1, 2, "3h", 30),
    ("urgent", "urgent", 0.10, 16, 32, "1h", 10),
]
CLASSES = {"batch": 0, "web": 1000, "urgent": 100000}


def scenario_docs(nodes: int, pods: int, hours: float) -> Documents:
    """The synthetic scenario as in-memory documents."""
    docs = Documents()
    src = Source("<bench>")
    for name, value in CLASSES.items():
        docs.add(RawObject("PriorityClass", {"apiVersion": "scheduling.k8s.io/v1",
                                             "kind": "PriorityClass",
                                             "metadata": {"name": name}, "value": value}, src))
    for i in range(nodes):
        docs.add(RawObject("Node", {"kind": "Node", "metadata": {
            "name": f"node-{i:05d}", "labels": {"topology.kubernetes.io/zone": f"z{i % 3}"}},
            "status": {"allocatable": {"cpu": "24", "memory": "96Gi", "pods": "110"}}}, src))
    span = hours * 3600
    for name, cls, share, cpu, mem, duration, grace in TEMPLATES:
        n = max(1, round(pods * share))
        docs.add(RawObject("Pod", {"kind": "Pod", "metadata": {
            "name": name, "namespace": cls,
            "annotations": {"kubepreempt.io/replicas": str(n),
                            "kubepreempt.io/rate": f"{n / span:.9f}",
                            "kubepreempt.io/duration": duration}},
            "spec": {"priorityClassName": cls, "terminationGracePeriodSeconds": grace,
                     "containers": [{"name": "c", "resources": {"requests": {
                         "cpu": str(cpu), "memory": f"{mem}Gi"}}}]}}, src))
    return docs


def peak_rss_mib() -> float:
    """Peak resident memory of this process in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Scale nodes and pods.")
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queue", default="1.36", help="1.36 (default), classic or fifo.")
    parser.add_argument("--best-candidates", action="store_true",
                        help="Globally best preemption candidate, every feasible node scored.")
    args = parser.parse_args()
    nodes, pods = int(5000 * args.scale), int(100_000 * args.scale)
    t0 = time.perf_counter()
    scen = build_scenario(scenario_docs(nodes, pods, args.hours), args.seed)
    t1 = time.perf_counter()
    res = simulate(scen, queue=args.queue, until=args.hours * 3600, keep_timeline=False,
                   best_candidates=True if args.best_candidates else None, seed=args.seed)
    t2 = time.perf_counter()
    m = res.metrics
    bound = sum(c["scheduled"] for c in m["classes"].values())
    print(f"scenario: {nodes} nodes, {len(scen.pods)} pods, {args.hours:g} h, queue "
          f"{res.queue} (built in {t1 - t0:.1f} s)")
    print(f"simulated in {t2 - t1:.1f} s: {res.processed} events "
          f"({res.processed / (t2 - t1):,.0f} events/s), {res.attempts} scheduling attempts, "
          f"{bound} pods bound, {m['preemptions']} preemptions")
    print(f"cpu requested/allocatable: mean {m['utilization']['cpuMean'] * 100:.1f}%, "
          f"peak {m['utilization']['cpuPeak'] * 100:.1f}%")
    for name, c in m["classes"].items():
        mean = "-" if c["meanPending"] is None else f"{c['meanPending']:.1f} s"
        p95 = "-" if c.get("p95Pending") is None else f"{c['p95Pending']:.1f} s"
        print(f"  {name:8} pods {c['pods']:6}  scheduled {c['scheduled']:6}  preempted "
              f"{c['preempted']:5}  pending {c['pending']:5}  mean wait {mean}  p95 {p95}"
              f"  work lost {c['workLost']:,.0f} pod-s")
    print(f"peak memory: {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
