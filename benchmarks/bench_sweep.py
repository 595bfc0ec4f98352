"""Sweep benchmark: a 100-run sweep of the bundled busy-day scenario.

Four variants (batch at priority 0 or 1000, preemptionPolicy as is or Never) x 25 seeds of
examples/sim/busy-day.yaml, into a fresh results file in a temporary folder.

    .venv/bin/python benchmarks/bench_sweep.py                 # all cores
    .venv/bin/python benchmarks/bench_sweep.py --jobs 1        # in this process
    .venv/bin/python benchmarks/bench_sweep.py --cluster tcp://127.0.0.1:8786

Prints the wall time, runs per second and the mean simulation time of one run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import orjson

from kubepreempt.sweep import (
    DaskBackend,
    PoolBackend,
    SerialBackend,
    default_jobs,
    parse_sweep,
    run_sweep,
)

BUSY_DAY = Path(__file__).resolve().parents[1] / "examples" / "sim" / "busy-day.yaml"


def spec_doc(seeds: int) -> dict:
    """The sweep: 2 x 2 grid on batch's PriorityClass, ``seeds`` seeds each."""
    return {
        "scenario": str(BUSY_DAY),
        "seeds": seeds,
        "grid": {
            "priority": {"edit": {"op": "replace", "kind": "PriorityClass", "name": "batch",
                                  "path": "/value"}, "values": [0, 1000]},
            "policy": {"edit": {"op": "add", "kind": "PriorityClass", "name": "batch",
                                "path": "/preemptionPolicy"},
                       "values": ["PreemptLowerPriority", "Never"]},
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--seeds", type=int, default=25, help="per variant (4 variants)")
    ap.add_argument("--cluster", help="Dask scheduler address")
    args = ap.parse_args()
    spec = parse_sweep(spec_doc(args.seeds), str(BUSY_DAY.parent / "bench-sweep.yaml"))
    if args.cluster:
        backend = DaskBackend(args.cluster)
    else:
        backend = SerialBackend() if args.jobs == 1 else PoolBackend(args.jobs)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        result = run_sweep(spec, backend, results=str(Path(tmp) / "bench.results.jsonl"))
        wall = time.perf_counter() - started
        rows = (Path(tmp) / "bench.results.jsonl").read_bytes().splitlines()
        seconds = [orjson.loads(row)["seconds"] for row in rows if b'"seconds"' in row]
    print(f"sweep: {spec.runs} runs ({len(spec.variants)} variants x {len(spec.seeds)} seeds) "
          f"of {BUSY_DAY.name} on {result.backend}")
    print(f"wall {wall:.1f} s, {spec.runs / wall:.1f} runs/s; one run simulates in "
          f"{sum(seconds) / max(1, len(seconds)):.3f} s on average; {len(result.failures)} "
          "failed")
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
