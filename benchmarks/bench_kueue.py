"""`kubepreempt kueue` on a large cohort tree: time beyond loading (issue 21 item 6).

A root Cohort with 100 child Cohorts of 20 ClusterQueues each (2,000 queues, 4 cpu
nominal each). Odd queues run twice ``--workloads`` admitted 1-cpu workloads (borrowing
what the idle even queues lend), so every cohort is full, and one pending workload in an
idle queue must reclaim its quota from the borrowers. Reports load (typed objects from
parsed manifests) and decide times, for current Kueue and for v0.7, classic and fair
sharing. Target: decide under 1 s.

    python benchmarks/bench_kueue.py [--workloads 3]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from kubepreempt.api.errors import Source
from kubepreempt.kueue.admission import decide, load_inputs
from kubepreempt.manifests import Documents, RawObject

COHORTS, QUEUES_PER_COHORT = 100, 20
BASE = "2024-01-01T00:00:00Z"


def _cq(name: str, cohort: str) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {"cohortName": cohort,
                     "preemption": {"withinClusterQueue": "LowerPriority",
                                    "reclaimWithinCohort": "Any"},
                     "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
                         {"name": "default", "resources": [
                             {"name": "cpu", "nominalQuota": "4"},
                             {"name": "memory", "nominalQuota": "16Gi"}]}]}]}}


def _wl(name: str, queue: str, prio: int, admitted: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": "default", "uid": name,
                     "creationTimestamp": BASE},
        "spec": {"queueName": queue, "priority": prio, "podSets": [
            {"name": "main", "count": 1, "template": {"spec": {"containers": [
                {"name": "c", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}}}]}}
    if admitted:
        body["status"] = {
            "admission": {"clusterQueue": queue, "podSetAssignments": [
                {"name": "main", "count": 1,
                 "flavors": {"cpu": "default", "memory": "default"}}]},
            "conditions": [{"type": "QuotaReserved", "status": "True",
                            "reason": "QuotaReserved", "lastTransitionTime": BASE}]}
    return body


def objects(per_queue: int, fair: bool) -> list[dict[str, Any]]:
    """The tree, its workloads and the pending workload ``default/incoming``."""
    out: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
         "metadata": {"name": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "root"}}]
    if fair:
        out.append({"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
                    "fairSharing": {"enable": True}})
    for c in range(COHORTS):
        out.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
                    "metadata": {"name": f"c{c}"}, "spec": {"parentName": "root"}})
        for q in range(QUEUES_PER_COHORT):
            name = f"c{c}-q{q}"
            out.append(_cq(name, f"c{c}"))
            out.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                        "metadata": {"name": name, "namespace": "default"},
                        "spec": {"clusterQueue": name}})
            for w in range(2 * per_queue if q % 2 else 0):
                out.append(_wl(f"{name}-w{w}", name, w - 2 * per_queue, True))
    out.append(_wl("incoming", "c0-q0", 10, False))
    return out


def _docs(objs: list[dict[str, Any]]) -> Documents:
    docs = Documents()
    for i, o in enumerate(objs):
        docs.add(RawObject(o["kind"], o, Source("bench.yaml", i)))
    return docs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", type=int, default=4, help="admitted per queue")
    args = ap.parse_args()
    for fair in (False, True):
        for version in ("current", "v0.7"):
            objs = objects(args.workloads, fair)
            if version == "v0.7":  # v0.7 serves v1beta1 only, with flat cohorts
                objs = [{**o, "apiVersion": o["apiVersion"].replace("v1beta2", "v1beta1")}
                        for o in objs if o["kind"] != "Cohort"]
                for o in objs:
                    if o["kind"] == "ClusterQueue":
                        o["spec"] = {**o["spec"], "cohort": o["spec"]["cohortName"]}
            t0 = time.perf_counter()
            inp = load_inputs(_docs(objs), version=version)
            t1 = time.perf_counter()
            d = decide(inp, "default/incoming", 1_800_000_000.0)
            t2 = time.perf_counter()
            print(f"{'fair' if fair else 'classic':7} {version:7}: "
                  f"{len(inp.cluster_queues)} ClusterQueues, {len(inp.workloads)} workloads; "
                  f"load {t1 - t0:.2f} s, decide {t2 - t1:.3f} s -> {d.result} "
                  f"({len(d.victims)} victims)")


if __name__ == "__main__":
    main()
