"""A gang's group decision against its members' single-pod decisions (issue item 5).

    python benchmarks/bench_gang.py [--workload NAME] [--scale 1] [--runs 5] [--gangs 5]
    python benchmarks/bench_gang.py --table [--scale 1]   # docs/PERFORMANCE.md's rows

Builds a PodGroup workload whose gangs fit without preemption (default: ours,
``GangScheduling/5000Nodes_1000Gangs_8Pods``), then, for each of the first ``--gangs``
gangs, on the same snapshot (nothing applied in between):

- the group decision: one ``schedule_pod_group`` (every member's cycle, assumed in turn,
  Permit, every assumption undone);
- the members' single-pod decisions: one ``schedule_one`` per member on that snapshot,
  summed.

Each is timed ``--runs`` times, the two alternating (so the first single-pod decision after
a group decision refreshes the nodes that decision assumed pods on, as the next cycle of a
real scheduler would); the medians and their ratio are printed, then the median ratio over
the gangs and the machine's load average (the target: the group at most 1.2x the sum).
The gang is applied (bound) before the next one is measured, as the bench does.

``--table`` instead runs every PodGroup workload once (``kubepreempt bench NAME -o json``,
a fresh process each) and prints one Markdown row per workload.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kubepreempt import gang_workloads
from kubepreempt.gang_workloads import GroupArrival
from kubepreempt.scheduler.cycle import SCHEDULED, schedule_one
from kubepreempt.scheduler.gang import schedule_pod_group


def table(scale: float) -> None:
    """One ``kubepreempt bench`` process per PodGroup workload, one Markdown row each."""
    exe = str(Path(sys.executable).with_name("kubepreempt"))
    print("| workload | nodes | pods | groups | pods/s | groups/s | median latency | victims |")
    print("|---|---|---|---|---|---|---|---|")
    for name in gang_workloads.GANG_WORKLOADS:
        out = json.loads(subprocess.run(
            [exe, "bench", name, "-o", "json", "--no-progress", "--scale", str(scale)],
            check=True, capture_output=True, text=True).stdout)
        groups = out["groupsPerSecond"]
        print(f"| {out['workload']} | {out['nodes']:,} | {out['pods']:,} | {out['groups']:,} "
              f"| {out['podsPerSecond']:,.0f} | {f'{groups:,.1f}' if groups else '-'} | "
              f"{out['latencyMedianMs']:.2f} ms per {out['latencyPer']} | {out['victims']:,} |",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", default="GangScheduling/5000Nodes_1000Gangs_8Pods")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gangs", type=int, default=5)
    parser.add_argument("--table", action="store_true", help="every PodGroup workload")
    args = parser.parse_args()
    if args.table:
        table(args.scale)
        return
    workload = gang_workloads.get(args.workload, args.scale)
    cluster, runner = workload.build()
    sched = runner.sched
    rows = []
    arrivals = [a for a in workload.arrivals(runner) if isinstance(a, GroupArrival)]
    for arrival in arrivals[:args.gangs]:
        for pod in arrival.pods:
            cluster.add_pending(pod)
        group = arrival.group
        group_times, single_times = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            decision = schedule_pod_group(sched, group.namespace, group.name, group,
                                          now=runner.now,
                                          workload_preemption=runner.workload_preemption)
            group_times.append(time.perf_counter() - start)
            assert decision.result == SCHEDULED, decision.message
            total = 0.0
            for pod in arrival.pods:
                start = time.perf_counter()
                single = schedule_one(sched, pod, now=runner.now, evaluator=runner.evaluator)
                total += time.perf_counter() - start
                assert single.result == SCHEDULED
            single_times.append(total)
        g, s = statistics.median(group_times), statistics.median(single_times)
        rows.append({"group": group.key, "pods": len(arrival.pods),
                     "groupMs": round(g * 1000, 3), "singlePodsMs": round(s * 1000, 3),
                     "ratio": round(g / s, 3)})
        print(json.dumps(rows[-1]), flush=True)
        for member in decision.members:  # apply, as the bench does
            assert member.node is not None
            cluster.bind(member.pod, member.node)
    # Other processes share the CPU: say how busy it was (1-minute load average).
    print(json.dumps({"workload": workload.name, "nodes": workload.nodes, "runs": args.runs,
                      "medianRatio": statistics.median(r["ratio"] for r in rows),
                      "loadAverage": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
