"""Time `schedule -f` and `advise` on the 5,000-node / 50,000-pod dump.

    python benchmarks/bench_whatif.py [--nodes 5000 --pods 50000 --replicas 1000]

Places a Deployment of ``--replicas`` pods (500m / 512Mi, priority 1500, so the ones that
do not fit preempt) one by one, and reports the time beyond loading. A second row places,
on a fresh load of the same seeded dump, ``--replicas`` pods that must preempt: a
Deployment at a PriorityClass of 1000 requesting cpu 28 / memory 8Gi plus a Service
selecting it (348 of 1,000 preempt on the default dump).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import orjson
from gen_dump import dump

from kubepreempt import load_cluster
from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.whatif.advise import advise, parse_shape
from kubepreempt.whatif.place import what_if


def deployment(replicas: int) -> dict:
    """The new workload: a Deployment whose ReplicaSet also drives default spreading."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"priority": 1500, "containers": [{
                                      "name": "web", "image": "nginx:1.27",
                                      "resources": {"requests": {"cpu": "500m",
                                                                 "memory": "512Mi"}}}]}}}}


#: The preempting row's clock: 2025-06-15, after every start time of the dump.
PREEMPTING_NOW = 1.75e9


def preempting_documents(replicas: int) -> Documents:
    """The preempting row: PriorityClass ``bench-1000`` (1000), Deployment ``big`` of
    ``replicas`` pods at cpu 28 / memory 8Gi in it, and a Service selecting them."""
    docs = Documents()
    source = Source("bench")
    docs.add(RawObject("PriorityClass", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "bench-1000"}, "value": 1000}, source))
    docs.add(RawObject("Deployment", {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "big"}},
                 "template": {"metadata": {"labels": {"app": "big"}},
                              "spec": {"priorityClassName": "bench-1000", "containers": [{
                                  "name": "big", "image": "nginx:1.27",
                                  "resources": {"requests": {"cpu": "28",
                                                             "memory": "8Gi"}}}]}}}},
        source))
    docs.add(RawObject("Service", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"selector": {"app": "big"}, "ports": [{"port": 80}]}}, source))
    return docs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--replicas", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "dump.json")
        path.write_bytes(orjson.dumps(dump(args.nodes, args.pods)))
        t = time.perf_counter()
        cluster = load_cluster([str(path)], warn=False)
        print(f"load: {time.perf_counter() - t:.2f} s ({len(cluster.nodes)} nodes, "
              f"{len(cluster.pods)} bound pods)")
        fresh = load_cluster([str(path)], warn=False)
    docs = Documents()
    docs.add(RawObject("Deployment", deployment(args.replicas), Source("bench")))
    t, c = time.perf_counter(), time.process_time()
    result = what_if(cluster, docs, now=1.7e9)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    s = result.summary()
    print(f"schedule -f: {args.replicas}-replica Deployment placed in {dt:.2f} s "
          f"(CPU {dc:.2f} s; "
          f"{s['scheduled']} scheduled, {s['preempting']} preempting, {s['pending']} "
          f"pending)")
    t, c = time.perf_counter(), time.process_time()
    # A clock after the dump's start times (2024-01-01), as a real run's is: victims that
    # started "in the future" would take the node-by-node reference path everywhere.
    result = what_if(fresh, preempting_documents(args.replicas), now=PREEMPTING_NOW)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    s = result.summary()
    print(f"schedule -f: {args.replicas}-replica Deployment of cpu 28 at priority 1000 "
          f"placed in {dt:.2f} s (CPU {dc:.2f} s; {s['scheduled']} scheduled, "
          f"{s['preempting']} preempting, {s['pending']} pending; {s['victims']} victims)")
    # advise on the dump's pending pod, made to need preemption (a 30-CPU request at
    # priority 500: only priority-0 pods may go), with the node question on a shape.
    pod = cluster.pending["default/pending"]
    pod.requests = {**pod.requests, "cpu": 30000}
    pod.priority = 500
    t, c = time.perf_counter(), time.process_time()
    a = advise(cluster, [("Pod/default/pending", [pod], False)], subject="default/pending",
               node_template=parse_shape("cpu=32,memory=128Gi"), now=1.7e9)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(f"advise: {dt:.2f} s (CPU {dc:.2f} s; now {a.current.get('result')}; lowest priority "
          f"{a.priority['lowestValue']}; nodes to add {a.nodes and a.nodes['needed']}; "
          f"{len(a.pdbs['blocking'])} blocking PDBs)")


if __name__ == "__main__":
    main()
