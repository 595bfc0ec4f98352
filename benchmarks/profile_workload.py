"""Profile one ``kubepreempt bench`` workload's measured pods with cProfile.

    python benchmarks/profile_workload.py SchedulingPodAffinity/5000Nodes_5000Pods --scale 0.2

Prints the top functions by cumulative and by own time (building the cluster and its
initial pods is not profiled).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

from kubepreempt import workloads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("workload")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    w = workloads.get(args.workload, args.scale)
    cluster = w.build()
    pods = list(w.arrivals())
    prof = cProfile.Profile()
    prof.enable()
    workloads.run(cluster, pods)
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
