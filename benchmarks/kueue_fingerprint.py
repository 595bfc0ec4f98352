"""Fingerprint a simulated Kueue scheduler benchmark run, to check that an optimisation
changed no decision: a digest of every Kueue event (creation, admission, preemption with
its reason, requeue, finish, each with its time), the cycle count, the usage integrals, the
per-queue and per-cohort series and the bench's figures (wall times left out).

    python benchmarks/kueue_fingerprint.py kueue-baseline [--kueue-version v0.7]
        [--cohorts N] [--queues N] [--profile]

``--cohorts`` / ``--queues`` shrink the generator (large-scale at a reduced scale).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import time
from dataclasses import replace
from typing import Any

from kubepreempt.sim import kueue_actor, kueue_bench


def fingerprint(cfg: kueue_bench.KueueBenchConfig, version: str) -> tuple[str, dict[str, Any]]:
    """(digest, figures) of one run."""
    actors: list[kueue_actor.KueueActor] = []
    orig = kueue_actor.KueueActor.__init__

    def spy(self: kueue_actor.KueueActor, *a: Any, **kw: Any) -> None:
        orig(self, *a, **kw)
        actors.append(self)

    kueue_actor.KueueActor.__init__ = spy  # type: ignore[method-assign]
    try:
        result = kueue_bench.run(cfg, version)
    finally:
        kueue_actor.KueueActor.__init__ = orig  # type: ignore[method-assign]
    actor = actors[-1]
    h = hashlib.sha256()
    for e in actor.events:
        h.update(repr(sorted(e.items())).encode())
    h.update(repr(sorted((k, v[0]) for k, v in actor.usage_ms.items())).encode())
    for series in (actor.series, actor.cohort_series, actor.usage_series):
        h.update(repr(sorted(series.items())).encode())
    for key in sorted(actor.workloads):
        sw = actor.workloads[key]
        h.update(repr((key, sw.state, sw.admissions, sw.preemptions)).encode())
    figures = {k: v for k, v in result.items() if k not in ("seconds", "buildSeconds")}
    h.update(json.dumps(figures, sort_keys=True).encode())
    return h.hexdigest()[:16], figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("config", choices=sorted(kueue_bench.CONFIGS))
    ap.add_argument("--kueue-version", default="current")
    ap.add_argument("--cohorts", type=int)
    ap.add_argument("--queues", type=int)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    cfg = kueue_bench.CONFIGS[args.config]
    if args.cohorts:
        cfg = replace(cfg, cohorts=args.cohorts)
    if args.queues:
        cfg = replace(cfg, queues=args.queues)
    prof = cProfile.Profile() if args.profile else None
    w0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    digest, figures = fingerprint(cfg, args.kueue_version)
    if prof:
        prof.disable()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(json.dumps({"digest": digest, "wall": round(wall, 2), "cpu": round(cpu, 2),
                      **figures}))
    if prof:
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(args.top)
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
