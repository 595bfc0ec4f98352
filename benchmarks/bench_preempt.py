"""5,000 nodes full of low-priority pods; 1,000 high-priority preemptors, decisions/s.

    python benchmarks/bench_preempt.py [--nodes 5000 --preemptors 1000]

Each decision is `Preemptor.preempt` after a failed cycle (the cluster is not changed), so
every preemptor sees all 5,000 nodes as candidates.
"""

from __future__ import annotations

import argparse
import time

from kubepreempt.scheduler.preemption import Preemptor
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.workloads import HIGH_PRIORITY_POD, LOW_PRIORITY_POD, Workload


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--preemptors", type=int, default=1000)
    args = ap.parse_args()
    cluster = Workload("bench", args.nodes, 4 * args.nodes, LOW_PRIORITY_POD, 0,
                       HIGH_PRIORITY_POD).build()
    sched = Scheduler(cluster)
    preemptor = Preemptor(sched, now=1e9, materialize=False)
    victims = 0
    t = time.perf_counter()
    for i in range(args.preemptors):
        pod = HIGH_PRIORITY_POD.make(f"high-{i}")
        state, _, filters = sched.new_state(pod)
        outcome = sched.find_feasible(pod, state, filters)
        victims += len(preemptor.preempt(pod, state, filters, outcome.statuses).victims)
    dt = time.perf_counter() - t
    print(f"{args.preemptors} preemption decisions on {args.nodes} nodes: {dt:.2f} s = "
          f"{args.preemptors / dt:.0f} decisions/s ({victims / args.preemptors:g} victims each)")


if __name__ == "__main__":
    main()
