"""The Cluster Autoscaler against upstream cluster-autoscaler (release-1.37 branch):
each expected answer is traced to the upstream function named in the test."""

from __future__ import annotations

import pytest
from builders.autoscaler import SCALE_DOWN, bare, events, group_node, run
from builders.controllers import CLASSES, deployment


def never_preempts(pod_text: str) -> str:
    return pod_text.replace("spec:\n", "spec:\n  preemptionPolicy: Never\n", 1)


def test_space_held_by_an_expendable_pod_is_free_for_scale_up() -> None:
    """``RunOnce`` loads only ``nonExpendableAllocatedPods`` into the snapshot: on n1
    the -20 filler (below the cutoff -10) is not there, so ``filterOutSchedulable`` places
    p (1 CPU, may not preempt) on n1 and no node is ordered; p stays pending (the real
    scheduler sees the filler)."""
    r = run(group_node("n1") + bare("filler", "2", -20, node="n1")
            + never_preempts(bare("p", "1", 0)))
    assert events(r, "scale-up", "node-added") == []
    assert r.metrics["autoscaler"]["nodesAdded"] == 0
    assert r.records["default/p"].phase == "Pending"


def test_node_holding_only_expendable_pods_is_empty_and_removed() -> None:
    """n2 holds only a 1.5-CPU pod at priority -20: ``utilization.Calculate`` over the
    snapshot (no expendable pods) gives 0 < 0.5, and with no pod to move it is empty.
    Unneeded from 0, it goes at the scan at 600; the actuator's ``createSnapshot`` has no
    expendable pod to evict, so it is deleted at once and the pod goes with it."""
    r = run(group_node("n1") + group_node("n2") + bare("big", "1500m", 0, node="n1")
            + bare("cheap", "1500m", -20, node="n2"))
    assert events(r, "scale-down", "evicted", "node-removed") == [
        (600.0, "scale-down", "", "n2"), (600.0, "node-removed", "", "n2"),
        (600.0, "evicted", "cheap", "n2")]
    assert r.metrics["autoscaler"]["nodesRemoved"] == 1
    assert r.records["default/cheap"].outcome == "removed"


# ---- scale-down blockers: simulator/drainability/rules (rules.Default) ----

def web_with(volumes: str = "", annotations: str = "", ns: str = "default",
             replicas: int = 1) -> str:
    """The 0.5-CPU Deployment of SCALE_DOWN, with pod-template volumes/annotations."""
    web = deployment("web", replicas, "mid", ns=ns).replace('cpu: "1"', 'cpu: "500m"')
    if volumes:
        web = web.replace("      containers:", f"      volumes: {volumes}\n      containers:")
    if annotations:
        web = web.replace("annotations: {kubepreempt.io/exit-after-signal",
                          f"annotations: {{{annotations}, kubepreempt.io/exit-after-signal")
    return web


@pytest.mark.parametrize(("volumes", "annotations", "removed"), [
    # isLocalVolume: an emptyDir with medium Memory is not local storage
    ("[{name: cache, emptyDir: {medium: Memory}}]", "", 1),
    ("[{name: cache, emptyDir: {}}]", "", 0),
    ("[{name: logs, hostPath: {path: /var/log}}]", "", 0),
    # HasBlockingLocalStorage: volumes named in safe-to-evict-local-volumes do not block
    ("[{name: cache, emptyDir: {}}, {name: logs, hostPath: {path: /l}}]",
     'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: "cache,logs"', 1),
    ("[{name: cache, emptyDir: {}}, {name: logs, hostPath: {path: /l}}]",
     'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: "cache"', 0),
])
def test_local_storage_rule(volumes: str, annotations: str, removed: int) -> None:
    """web's pod on n2 (below 50 %) fits on n1: n2 goes unless the localstorage rule
    (``--skip-nodes-with-local-storage``, default true) blocks the move."""
    r = run(SCALE_DOWN + web_with(volumes, annotations))
    assert r.metrics["autoscaler"]["nodesRemoved"] == removed


def test_local_storage_does_not_block_without_skip_nodes_with_local_storage() -> None:
    """``rules.Default`` leaves the localstorage rule out when the flag is false."""
    web = web_with("[{name: cache, emptyDir: {}}]")
    assert run(SCALE_DOWN + web, skip_nodes_with_local_storage=False
               ).metrics["autoscaler"]["nodesRemoved"] == 1


def custom_owned(name: str, kind: str, node: str) -> str:
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  ownerReferences: [{{apiVersion: argoproj.io/v1alpha1, kind: {kind}, name: x, uid: u1,
                     controller: true}}]
spec:
  priority: 0
  nodeName: {node}
  containers:
  - name: c
    resources: {{requests: {{cpu: "500m"}}}}
"""


@pytest.mark.parametrize(("kind", "skip_custom", "removed"), [
    ("Rollout", True, 0),   # replicated rule: not a replicatedKind -> NotReplicated
    ("Rollout", False, 1),  # any controller counts as replicated
    ("ReplicaSet", True, 1),
    ("StatefulSet", True, 1),
    ("Job", True, 1),
    ("ReplicationController", True, 1),
])
def test_custom_controller_pods_block_under_skip_nodes_with_custom_controller_pods(
        kind: str, skip_custom: bool, removed: int) -> None:
    """``replicated.Rule``: with ``--skip-nodes-with-custom-controller-pods`` (default
    true) only ReplicationController, Job, ReplicaSet and StatefulSet owners make a pod
    replicated; a pod owned by another controller blocks its node's removal."""
    r = run(SCALE_DOWN + custom_owned("p", kind, "n2"),
            skip_nodes_with_custom_controller_pods=skip_custom)
    assert r.metrics["autoscaler"]["nodesRemoved"] == removed


def test_system_pods_move_without_skip_nodes_with_system_pods() -> None:
    """``rules.Default`` leaves the system rule out when the flag is false: the
    kube-system pod (no PDB) moves and n2 goes."""
    web = web_with(ns="kube-system")
    assert run(SCALE_DOWN + web).metrics["autoscaler"]["nodesRemoved"] == 0
    assert run(SCALE_DOWN + web, skip_nodes_with_system_pods=False
               ).metrics["autoscaler"]["nodesRemoved"] == 1


@pytest.mark.parametrize(("min_replicas", "removed"), [(0, 1), (1, 1), (2, 0)])
def test_min_replica_count(min_replicas: int, removed: int) -> None:
    """``replicacount.Rule``: a ReplicaSet pod blocks when the ReplicaSet's spec.replicas
    (1, the Deployment's) is below ``--min-replica-count`` (default 0)."""
    r = run(SCALE_DOWN + web_with(), min_replica_count=min_replicas)
    assert r.metrics["autoscaler"]["nodesRemoved"] == removed


@pytest.mark.parametrize(("value", "removed"), [("true", 0), ("false", 1), ("0", 1)])
def test_cli_skip_flags_take_go_boolean_values(tmp_path, capsys, value: str,
                                               removed: int) -> None:
    """``--skip-nodes-with-custom-controller-pods=false`` as upstream spells it."""
    import json
    import textwrap

    from kubepreempt.cli import main
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(CLASSES + SCALE_DOWN + custom_owned("p", "Rollout", "n2")))
    assert main(["simulate", str(path), "--autoscale", "-o", "json",
                 f"--skip-nodes-with-custom-controller-pods={value}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["autoscaler"]["nodesRemoved"] == removed


def test_cli_bad_boolean_is_an_input_error(tmp_path, capsys) -> None:
    from kubepreempt.cli import main
    path = tmp_path / "s.yaml"
    path.write_text(group_node("n1"))
    assert main(["simulate", str(path), "--autoscale",
                 "--skip-nodes-with-local-storage=maybe"]) == 2
    assert "'maybe' is not a boolean" in capsys.readouterr().err


# ---- the scale-up loop after draining a node with a daemon pod ----

AGENT = """
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priority: 0
      containers:
      - name: c
        resources: {requests: {cpu: "100m"}}
"""


def test_draining_a_node_with_a_daemon_pod_adds_no_nodes() -> None:
    """n1 (the group's first node) holds web (0.5 CPU) and a daemon pod, n2 a 1.4-CPU pod
    and a daemon pod: n1 is at 0.3 and web fits on n2, so n1 goes at 600. The actuator
    taints it ``ToBeDeletedByClusterAutoscaler:NoSchedule`` (``MarkToBeDeleted``), so
    the DaemonSet controller (``NodeShouldRunDaemonPod``) makes no new daemon pod there
    when the evicted one exits at 630; n1 is deleted at 630. In 40 minutes: one node
    removed, none added, two daemon pods created."""
    web = deployment("web", 1, "mid").replace('cpu: "1"', 'cpu: "500m"')
    r = run(group_node("n1", hi="5") + group_node("n2", hi="5")
            + bare("big", "1400m", 0, node="n2") + web + AGENT, until=2400)
    a = r.metrics["autoscaler"]
    assert (a["nodesAdded"], a["nodesRemoved"]) == (0, 1)
    assert events(r, "scale-up", "scale-down", "node-removed") == [
        (600.0, "scale-down", "", "n1"), (630.0, "node-removed", "", "n1")]
    assert sum(1 for k in r.records if k.startswith("default/agent-")) == 2


def test_pending_daemonset_pod_causes_no_scale_up() -> None:
    """``filter_out_daemon_sets.go``: a pod with the ``daemonset-pod`` annotation
    (``IsDaemonSetPod``) that fits no node is dropped from scale-up; the same pod without
    it orders one node."""
    pod = bare("d", "1", 0)
    marked = pod.replace("annotations: {}",
                         'annotations: {cluster-autoscaler.kubernetes.io/daemonset-pod: "true"}')
    base = group_node("n1") + bare("full", "2", 0, node="n1")
    assert run(base + pod).metrics["autoscaler"]["nodesAdded"] == 1
    assert run(base + marked).metrics["autoscaler"]["nodesAdded"] == 0


def test_pod_pinned_to_a_node_by_hostname_does_not_fit_the_template() -> None:
    """n1 is full; p selects ``kubernetes.io/hostname: n1``. The template node is a copy
    named ``template-node-for-pool-<n>`` with that hostname label
    (``SanitizedTemplateNodeInfoFromNodeInfo``), so p fits no new node: no scale-up."""
    p = bare("p", "1", 0).replace(
        "spec:\n", "spec:\n  nodeSelector: {kubernetes.io/hostname: n1}\n", 1)
    r = run(group_node("n1") + bare("full", "2", 0, node="n1") + p, until=1200)
    assert r.metrics["autoscaler"]["nodesAdded"] == 0
    assert r.records["default/p"].phase == "Pending"
