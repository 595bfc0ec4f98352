"""Victims keep their room until their grace period ends: ``schedule -f``, ``advise -f``
and ``simulate`` agree replica by replica.

Upstream: preemption only deletes the victims (``prepareCandidate``); the scheduler
cache keeps a terminating pod, with its requests, until the pod is gone
(``internal/cache``), and ``PodEligibleToPreemptOthers`` / ``SelectVictimsOnNode`` see it
there: a later replica cannot use the room, its dry run removes the same terminating
victim, and it is nominated to wait for it (``prepareCandidateAsync`` sends no second
delete)."""

from __future__ import annotations

import textwrap

from builders import cluster_of

from kubepreempt.api.errors import Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.whatif.advise import advise
from kubepreempt.whatif.place import expand_documents, what_if

# n1 (4 CPU): agent (system, 1 CPU) and batch (low, 2 CPU, 30 s grace): 1 CPU free.
# web: 3 replicas of 1 CPU at high.
CLUSTER = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: kube-system}
spec:
  nodeName: n1
  priorityClassName: system-node-critical
  containers: [{name: c, image: a, resources: {requests: {cpu: "1"}}}]
status: {phase: Running, startTime: "2024-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: default}
spec:
  nodeName: n1
  priorityClassName: low
  terminationGracePeriodSeconds: 30
  containers: [{name: c, image: b, resources: {requests: {cpu: "2"}}}]
status: {phase: Running, startTime: "2024-01-01T00:00:00Z"}
"""
WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      containers: [{name: c, image: w, resources: {requests: {cpu: "1"}}}]
"""


def documents(text: str) -> Documents:
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return docs


def test_schedule_f_advise_f_and_simulate_agree_per_replica() -> None:
    """Replica 1 takes the free CPU at 0. Replica 2 preempts batch and is nominated.
    Replica 3 sees batch (terminating) and the nominee: 1+1+2+1 > 4; its dry run removes
    batch again (1+1+1+1 = 4), so it is nominated to n1 waiting for the same victim —
    not scheduled into batch's room at once. batch leaves at 30 s: 2 and 3 bind."""
    cluster = cluster_of(*[d.body for objs in documents(CLUSTER).by_kind.values()
                           for d in objs])
    result = what_if(cluster, documents(WEB), now=0.0)
    got = [(p.result, p.bound_node or p.node, p.bound_at, [v.key for v in p.victims],
            p.message) for p in result.placements]
    assert got == [
        ("scheduled", "n1", 0.0, [], ""),
        ("preempt", "n1", 30.0, ["default/batch"], ""),
        ("preempt", "n1", 30.0, [], "waiting for preemption victims on n1")]
    assert result.summary()["victims"] == 1

    # simulate, up to the end of the grace period (batch deleted at 0, gone at 30)
    sim = simulate(build_scenario(documents(CLUSTER + "---\n" + WEB), 0), until=31.0)
    web = sorted((r for r in sim.records.values() if r.pod.name.startswith("web-")),
                 key=lambda r: (r.bound_at or 0.0, r.nominated_node))
    assert [(r.phase, r.node, r.bound_at) for r in web] == [
        ("Running", "n1", 0.0), ("Running", "n1", 30.0), ("Running", "n1", 30.0)]
    assert sorted(p.bound_at for p in result.placements) == [r.bound_at for r in web]

    # advise -f: the same trial, the cluster left as it was
    cluster = cluster_of(*[d.body for objs in documents(CLUSTER).by_kind.values()
                           for d in objs])
    workloads = [(k, pods, o) for k, pods, o, _ in expand_documents(cluster, documents(WEB))]
    current = advise(cluster, workloads, subject="web", now=0.0).current
    assert (current["scheduled"], current["preempting"], current["pending"],
            current["victims"]) == (1, 2, 0, ["default/batch"])
    assert cluster.pods["default/batch"].deletion_timestamp is None
    assert sorted(cluster.pods) == ["default/batch", "kube-system/agent"]


STS = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      priorityClassName: low
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: db}}
            topologyKey: kubernetes.io/hostname
      containers: [{name: c, image: d, resources: {requests: {cpu: "100m"}}}]
"""
TWO_NODES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
"""


def test_advise_analyses_the_pending_replica_where_schedule_f_left_it() -> None:
    """db-0 and db-1 take n1 and n2; db-2's required anti-affinity (hostname) rejects
    both nodes (``InterPodAffinity``: ``node(s) didn't match pod anti-affinity rules``).
    The filter table is taken in that state: before the earlier replicas were placed
    nothing rejected db-2."""
    cluster = cluster_of(*[d.body for objs in documents(TWO_NODES).by_kind.values()
                           for d in objs])
    workloads = [(k, pods, o) for k, pods, o, _ in expand_documents(cluster, documents(STS))]
    got = advise(cluster, workloads, subject="db", now=0.0)
    assert got.filters_pod == "default/db-2"
    assert [(f["plugin"], f["nodes"], f["reasons"]) for f in got.filters] == [
        ("InterPodAffinity", 2, {"node(s) didn't match pod anti-affinity rules": 2})]
    # Dropping db-2's own term is no way out: db-0 and db-1 carry the same term, and
    # existing pods' anti-affinity rejects db-2 too (satisfyExistingPodsAntiAffinity).
    assert "suggestion" not in got.filters[0]
    assert sorted(cluster.pods) == []  # the trials were undone
