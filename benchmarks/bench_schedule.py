"""Load a 5,000-node / 50,000-pod dump (YAML and JSON), then time 1,000 `schedule` decisions.

    python benchmarks/bench_schedule.py [--nodes 5000 --pods 50000 --decisions 1000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import orjson
import yaml
from gen_dump import dump

from kubepreempt import load_cluster, schedule
from kubepreempt.api.objects import Pod


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--decisions", type=int, default=1000)
    args = ap.parse_args()
    obj = dump(args.nodes, args.pods)
    with tempfile.TemporaryDirectory() as tmp:
        js, ym = Path(tmp, "dump.json"), Path(tmp, "dump.yaml")
        js.write_bytes(orjson.dumps(obj))
        ym.write_text(yaml.dump(obj, Dumper=yaml.CSafeDumper, sort_keys=False))
        for path in (ym, js):
            t = time.perf_counter()
            cluster = load_cluster([str(path)], warn=False)
            print(f"load {path.suffix}: {time.perf_counter() - t:.2f} s "
                  f"({len(cluster.nodes)} nodes, {len(cluster.pods)} bound pods)")
    template = cluster.pending["default/pending"]
    pods = []
    for i in range(args.decisions):
        p = Pod(namespace="default", name=f"bench-{i}", priority=template.priority,
                requests=dict(template.requests), nonzero_cpu=template.nonzero_cpu,
                nonzero_memory=template.nonzero_memory, qos=template.qos)
        cluster.add_pending(p)
        pods.append(p)
    t = time.perf_counter()
    for p in pods:  # decisions only: the cluster is not changed, as `kubepreempt schedule`
        schedule(cluster, p)
    dt = time.perf_counter() - t
    print(f"{args.decisions} schedule decisions: {dt:.2f} s = {args.decisions / dt:.0f} "
          "decisions/s")


if __name__ == "__main__":
    main()
