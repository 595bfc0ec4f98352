"""busy-day as bare pods versus as workloads with the Cluster Autoscaler (issue 20).

    .venv/bin/python benchmarks/bench_sim_workloads.py [--repeat 20]

Times loading + simulating ``examples/sim/busy-day.yaml`` (bare pods, fixed nodes) and
``examples/sim/busy-day-workloads.yaml`` (Deployments and Jobs, ``--autoscale``), best
of ``--repeat`` runs each (CPU time of this process), and prints the ratio.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from kubepreempt.sim import load_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "sim"


def best(path: Path, autoscale: bool, repeat: int) -> tuple[float, dict]:
    """Best CPU seconds over ``repeat`` runs, and the last run's metrics."""
    times, metrics = [], {}
    for _ in range(repeat):
        start = time.process_time()
        res = simulate(load_scenario([str(path)], seed=1), seed=1, keep_timeline=False,
                       autoscale=AutoscalerOptions() if autoscale else None)
        times.append(time.process_time() - start)
        metrics = res.metrics
    return min(times), metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    bare, mb = best(EXAMPLES / "busy-day.yaml", False, args.repeat)
    work, mw = best(EXAMPLES / "busy-day-workloads.yaml", True, args.repeat)
    print(f"busy-day (bare pods):            {bare * 1000:.1f} ms CPU, {mb['events']} events")
    print(f"busy-day-workloads (autoscale):  {work * 1000:.1f} ms CPU, {mw['events']} events, "
          f"{mw['autoscaler']['nodesAdded']} nodes added, "
          f"{mw['autoscaler']['nodesRemoved']} removed")
    print(f"ratio: {work / bare:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
