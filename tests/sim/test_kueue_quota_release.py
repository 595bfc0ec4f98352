"""When a preempted workload's quota is free again, per integration (issue 30 item 5).

Upstream's job reconciler (``pkg/controller/jobframework/reconciler.go``, "handle
eviction") stops the Job and, once ``job.IsActive()`` is false, unsets the Workload's
``QuotaReserved`` (its admission). For ``batch/v1`` Jobs ``IsActive`` is
``status.active != 0``, and the Job controller's ``active`` counts no terminating pod:
the quota is free while the pods still run out their grace period. For the Pod
integration ``IsActive`` is true while a pod is Running (``FastQuotaReleaseInPodIntegration``
is alpha, off), so the quota waits until the pods are gone. The simulator takes the chain
of reconciles as ``RECONCILE_DELAY`` (plus ``--controller-latency``).
"""

from __future__ import annotations

import pytest

from kubepreempt.manifests import load_documents
from kubepreempt.sim.engine import simulate
from kubepreempt.sim.kueue_actor import RECONCILE_DELAY
from kubepreempt.sim.scenario import build_scenario

approx = pytest.approx

QUEUES = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohortName: org
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohortName: org
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: a, namespace: team-a}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: b, namespace: team-b}
spec: {clusterQueue: team-b}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: a1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: a}
  annotations: {kubepreempt.io/arrival: 10s, kubepreempt.io/duration: 50s}
spec:
  parallelism: 4
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""

# team-b's 8 pods of 1 cpu borrow team-a's 4 cpu from 0 s, with a 60 s grace period.
B_JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  name: b1
  namespace: team-b
  labels: {kueue.x-k8s.io/queue-name: b}
  annotations: {kubepreempt.io/duration: 1h}
spec:
  parallelism: 8
  template:
    spec:
      terminationGracePeriodSeconds: 60
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""

B_WORKLOAD = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: b1
  namespace: team-b
  annotations: {kubepreempt.io/duration: 1h}
spec:
  queueName: b
  podSets:
  - name: main
    count: 8
    template:
      spec:
        terminationGracePeriodSeconds: 60
        containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""


def _tick(last: float, until: float) -> float:
    """The first UntilWithBackoff tick at or after ``until`` after a no-op cycle at
    ``last`` (waits 1, 2, 4, ... 64 ms, then 100 ms)."""
    t, b = last + 0.001, 0.001
    while t < until and b < 0.1:
        b = min(2 * b, 0.1)
        t += b
    while t < until - 1e-9:
        t += 0.1
    return t


def _run(tmp_path, victim: str, **kw):
    path = tmp_path / "scenario.yaml"
    path.write_text(QUEUES + "---" + victim)
    res = simulate(build_scenario(load_documents([str(path)])), until=200.0, **kw)
    events = [(e.time, e.type, e.pod) for e in res.events if e.type.startswith("kueue-")]
    usage = res.metrics["kueue"]["clusterQueues"]["team-b"]["usage"]["default/cpu"]
    return events, usage, {e.pod: e.time for e in res.events if e.type == "bound"}


def test_a_preempted_jobs_quota_is_free_once_its_pods_are_terminating(tmp_path) -> None:
    events, usage, bound = _run(tmp_path, B_JOB)
    # 10 s: a1 reclaims team-a's quota from b1 (its pods get SIGTERM, 60 s to go). The
    # suspended Job has status.active 0 at once, so Kueue clears b1's admission after
    # RECONCILE_DELAY: b1 requeued at 11 s, a1 admitted at the loop's next tick (issue
    # 30: "with a 60 s grace period the preemptor is admitted at ~10 s, not 70 s").
    assert RECONCILE_DELAY == 1.0
    assert (10.0, "kueue-preempted", "team-b/job-b1") in events
    assert (11.0, "kueue-requeued", "team-b/job-b1") in events
    admitted = [t for t, etype, key in events
                if etype == "kueue-admitted" and key == "team-a/job-a1"]
    assert admitted == [approx(_tick(10.0, 11.0))] == [approx(11.027)]
    assert usage[:2] == [[0.0, 8000], [11.0, 0]]
    # The node is another matter: b1's terminating pods hold its 8 cpu until 70 s.
    assert bound["team-a/a1-0"] == approx(70.0)


def test_the_job_controllers_latency_adds_to_the_release(tmp_path) -> None:
    events, usage, _ = _run(tmp_path, B_JOB, controller_latency=2.0)
    assert (13.0, "kueue-requeued", "team-b/job-b1") in events
    assert usage[:2] == [[0.0, 8000], [13.0, 0]]


def test_a_plain_pod_workloads_quota_waits_until_its_pods_are_gone(tmp_path) -> None:
    events, usage, bound = _run(tmp_path, B_WORKLOAD)
    # A hand-written Workload stands for the Pod integration: active while a pod is
    # Running, so its quota comes back when the 60 s grace period ends at 70 s.
    assert (10.0, "kueue-preempted", "team-b/b1") in events
    assert (70.0, "kueue-requeued", "team-b/b1") in events
    admitted = [t for t, etype, key in events
                if etype == "kueue-admitted" and key == "team-a/job-a1"]
    assert admitted == [approx(_tick(10.0, 70.0))]
    assert usage[:2] == [[0.0, 8000], [70.0, 0]]
    assert bound["team-a/a1-0"] == approx(_tick(10.0, 70.0))
