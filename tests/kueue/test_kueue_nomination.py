"""One nomination for ``kubepreempt kueue`` and ``kubepreempt simulate``.

Upstream's ``nominate`` (pkg/scheduler/scheduler.go) rejects a head whose pod sets fail
``validateResources`` (a container requesting more than its limit) before any flavor is
assigned: the Workload stays pending with "resource validation failed: ...", and its
pods are never created. Both commands run the same nomination, so both say so.
"""

from __future__ import annotations

import json

import pytest

from kubepreempt.cli import main

# A 4-cpu ClusterQueue; over-limit asks 2 cpu with a 1 cpu limit, within-limit 1 of 1.
SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: over-limit, namespace: ns}
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: within-limit, namespace: ns}
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
"""
INVALID = ("resource validation failed: podSets.main.containers[0][cpu] requests exceed "
           "it's limits")


@pytest.mark.parametrize("version", ["current", "v0.7"])
def test_requests_above_limits_stay_pending_in_kueue_and_simulate(tmp_path, capsys,
                                                                   version: str) -> None:
    path = tmp_path / "over-limit.yaml"
    path.write_text(SCENARIO)

    assert main(["kueue", str(path), "--workload", "ns/over-limit", "-o", "json",
                 "--kueue-version", version]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert (decision["result"], decision["message"], decision["flavors"]) == \
        ("pending", INVALID, {})

    assert main(["simulate", str(path), "-o", "json", "--kueue-version", version]) == 0
    out = json.loads(capsys.readouterr().out)
    kueue = out["metrics"]["kueue"]
    events = [(e["type"], e["workload"], e["detail"]) for e in kueue["events"]
              if e["type"] != "created"]
    # over-limit heads the queue at t=0 (equal priority and creation; by name) and is
    # reported inadmissible once; within-limit is admitted at the loop's next tick.
    assert events == [("inadmissible", "ns/over-limit", INVALID),
                      ("admitted", "ns/within-limit", "cpu=default")]
    cq = kueue["clusterQueues"]["cq"]
    assert (cq["workloads"], cq["admitted"], cq["pending"]) == (2, 1, 1)
    assert list(out["pods"]) == ["ns/within-limit-0"]  # over-limit's pod never exists
