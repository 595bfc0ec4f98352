"""Cluster Autoscaler's replicacount drainability rule (``replicacount.Rule``): which
controller's ``spec.replicas`` it reads, each expected answer worked out from
kubernetes/autoscaler cluster-autoscaler-release-1.37 and the workload API.

n1 and n2 (4 CPU, group pool, min 1) share the workloads' 100m pods; big (2.5 CPU) keeps
n1 above the utilization threshold, so n2 is the one candidate and every pod fits on n1:
n2 goes (one removal) unless a pod on it is blocked (``MinReplicasReached``: its
ReplicaSet has fewer replicas than ``--min-replica-count``). A Deployment's pods belong to
its ReplicaSet ``<deployment>-<pod-template-hash>``, whose replicas are the Deployment's."""

from __future__ import annotations

import pytest
from builders.autoscaler import bare, group_node, run
from builders.controllers import deployment

BASE = group_node("n1", cpu=4) + group_node("n2", cpu=4) + bare("big", "2500m", 0, node="n1")


def dep(name: str, replicas: int | str, ns: str = "default") -> str:
    """A Deployment of ``replicas`` 100m pods (``replicas`` as written in the YAML)."""
    return deployment(name, replicas, "mid", ns=ns).replace('cpu: "1"', 'cpu: "100m"')


def replica_set(name: str, replicas: int) -> str:
    """A stand-alone ReplicaSet of ``replicas`` 100m pods."""
    return f"""
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {{name: {name}, namespace: default}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      priorityClassName: mid
      containers:
      - name: c
        resources: {{requests: {{cpu: "100m"}}}}
"""


def removed(text: str, min_replica_count: int) -> int:
    r = run(BASE + text, until=1500, min_replica_count=min_replica_count)
    return r.metrics["autoscaler"]["nodesRemoved"]


@pytest.mark.parametrize(("min_count", "nodes_removed"), [(3, 1), (4, 0)])
def test_the_replica_count_is_the_controllers_spec_replicas(min_count: int,
                                                           nodes_removed: int) -> None:
    """``rs.Spec.Replicas < MinReplicaCount`` blocks: 3 replicas pass at 3, block at 4."""
    assert removed(dep("web", 3), min_count) == nodes_removed


def test_spec_replicas_null_is_one() -> None:
    """The apiserver defaults an unset ``spec.replicas`` to 1 (``SetDefaults_Deployment``,
    ``SetDefaults_ReplicaSet``; the simulator creates one pod): at minimum 2 it blocks."""
    assert removed(dep("web", "null"), 2) == 0


def test_each_deployment_is_its_own_replica_set() -> None:
    """web's pods belong to ReplicaSet ``web-<hash>`` (1 replica, blocks at 2); api (3
    replicas, listed first) is another ReplicaSet and does not answer for them."""
    assert removed(dep("api", 3) + dep("web", 1), 2) == 0


def test_a_stand_alone_replica_set_is_found_by_name() -> None:
    """cache's pods belong to ReplicaSet ``cache`` (1 replica): at 2 they block."""
    assert removed(replica_set("cache", 1) + dep("web", 3), 2) == 0


def test_another_replica_set_does_not_answer_for_a_deployments_pods() -> None:
    """cache (3 replicas, listed first) is a ReplicaSet but not web's: web's ReplicaSet
    has 1 replica and blocks at 2."""
    assert removed(replica_set("cache", 3) + dep("web", 1), 2) == 0


def test_the_controller_is_looked_up_in_the_pods_namespace() -> None:
    """The ReplicaSet lister is asked in the pod's namespace: db in namespace other
    (listed first) is passed over, web (1 replica, default) blocks at 2; a Deployment in
    namespace team holds its own pods."""
    assert removed(dep("db", 3, ns="other") + dep("web", 1), 2) == 0
    assert removed(dep("web", 1, ns="team"), 2) == 0


def test_a_controller_without_a_namespace_is_in_default() -> None:
    """An object without ``metadata.namespace`` is created in ``default``: web's pods
    there find its 1 replica, which blocks at 2."""
    text = dep("web", 1).replace("  namespace: default\n", "", 1)
    assert "namespace" not in text.split("spec:")[0]
    assert removed(text, 2) == 0


def test_a_pod_without_pod_template_hash_is_no_deployments() -> None:
    """A Deployment's ReplicaSet is ``<name>-<pod-template-hash>`` (``getNewReplicaSet``)
    and its pods carry the label. orphan is owned by ReplicaSet ``web-XXXX`` but has no
    label, so web (0 replicas, which would block at 2) is not its controller; that
    ReplicaSet is not in the input, so its replica count is unknown (the module's named
    simplification) and n2 goes."""
    orphan = """
---
apiVersion: v1
kind: Pod
metadata:
  name: orphan
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-XXXX, uid: u1,
                     controller: true}]
spec:
  priority: 0
  nodeName: n2
  containers:
  - name: c
    resources: {requests: {cpu: "100m"}}
"""
    assert removed(dep("web", 0) + orphan, 2) == 1
