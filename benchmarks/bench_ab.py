"""Before/after timing of ``kubepreempt bench`` workloads: alternating runs of two
installations, medians and their ratio.

    python benchmarks/bench_ab.py BEFORE_KUBEPREEMPT AFTER_KUBEPREEMPT [--runs 5]
        [--only SUBSTRING] [--scale 1.0]

Each workload runs ``--runs`` times per installation, A B A B ..., each in a fresh
process. Two figures per run: the workload's own ``seconds`` (the measured phase, wall
clock) and the process's CPU time (user + system, from the kernel's accounting of the
finished child), which a busy machine disturbs less. Printed per workload: the median of
each figure for A and B, the ratio B/A of the medians, and the spread (max/min) of B.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys


def run_once(exe: str, workload: str, scale: float) -> tuple[float, float]:
    """(measured seconds, CPU seconds) of one ``bench`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([exe, "bench", workload, "--scale", str(scale), "-o", "json",
                           "--no-progress"], capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(json.loads(proc.stdout)["seconds"]), cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--scale", type=float, default=1.0)
    ns = ap.parse_args()
    listing = subprocess.run([ns.after, "bench", "--list", "-o", "json"], capture_output=True,
                             text=True, check=True)
    names = [w["workload"] if isinstance(w, dict) else w for w in json.loads(listing.stdout)]
    names = [n for n in names if ns.only in n and not n.startswith("kueue-")]
    print(f"{'workload':<66} {'A s':>7} {'B s':>7} {'B/A':>6} {'A cpu':>7} {'B cpu':>7} "
          f"{'B/A':>6} {'B spread':>8}")
    for name in names:
        a: list[tuple[float, float]] = []
        b: list[tuple[float, float]] = []
        for _ in range(ns.runs):
            a.append(run_once(ns.before, name, ns.scale))
            b.append(run_once(ns.after, name, ns.scale))
        am, bm = (statistics.median(x[0] for x in a), statistics.median(x[0] for x in b))
        ac, bc = (statistics.median(x[1] for x in a), statistics.median(x[1] for x in b))
        spread = max(x[0] for x in b) / max(min(x[0] for x in b), 1e-9)
        print(f"{name:<66} {am:7.3f} {bm:7.3f} {bm / am:6.3f} {ac:7.2f} {bc:7.2f} "
              f"{bc / ac:6.3f} {spread:8.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
