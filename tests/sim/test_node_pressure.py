"""Node-pressure eviction by the hollow kubelet (``--node-pressure``) from modelled usage."""

from __future__ import annotations

import pytest
from builders.node_pressure import SEED_EXAMPLE
from builders.sim import run, timeline

from kubepreempt.api.errors import InputError

EVENTS = ("preempted", "nominated", "terminated", "bound", "evicted")


def test_seed_example_scheduler_preempts_burstable_then_kubelet_evicts_best_effort() -> None:
    # The scheduler preempts only the burstable pod (the best-effort one requests nothing,
    # so removing it frees nothing). high binds once burstable has exited (30 s grace).
    # Usage is then 1Gi + 1.5Gi against a capacity of 2Gi + 100Mi (allocatable plus the
    # hard threshold): memory.available < 100Mi. best-effort ranks first (usage above its
    # zero request; high is below its request) and is evicted at once (hard eviction,
    # grace 0); available is then 612Mi and eviction stops.
    r = run(SEED_EXAMPLE, node_pressure=True)
    assert timeline(r, *EVENTS) == [
        (0.0, "preempted", "burstable", "n1"), (0.0, "nominated", "high", "n1"),
        (30.0, "terminated", "burstable", "n1"), (30.0, "bound", "high", "n1"),
        (30.0, "evicted", "best-effort", "n1")]
    gi, mi = 1024**3, 1024**2
    evicted = [e for e in r.events if e.type == "evicted"][0]
    available = 2 * gi + 100 * mi - (gi + 3 * gi // 2)
    assert evicted.detail == f"node pressure: memory.available {available} < {100 * mi}"
    phases = {k.split("/")[1]: (v.phase, v.preempted_at) for k, v in r.records.items()}
    assert phases == {"burstable": ("Failed", 0.0), "best-effort": ("Failed", 30.0),
                      "high": ("Running", None)}


def test_node_pressure_is_off_by_default() -> None:
    r = run(SEED_EXAMPLE)
    assert timeline(r, *EVENTS) == [
        (0.0, "preempted", "burstable", "n1"), (0.0, "nominated", "high", "n1"),
        (30.0, "terminated", "burstable", "n1"), (30.0, "bound", "high", "n1")]
    assert r.records["default/best-effort"].phase == "Running"


STORAGE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: "4", memory: 64Gi, pods: "110", ephemeral-storage: 10Gi}
  allocatable: {cpu: "4", memory: 64Gi, pods: "110", ephemeral-storage: 9Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: static
  annotations: {kubernetes.io/config.source: file,
                kubepreempt.io/ephemeral-storage-usage: 4Gi}
spec: {nodeName: n1, priority: 0, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: w
  annotations: {kubepreempt.io/ephemeral-storage-usage: 3Gi}
spec: {nodeName: n1, priority: 0, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: x
  annotations: {kubepreempt.io/arrival: 10s, kubepreempt.io/ephemeral-storage-usage: 2.5Gi}
spec:
  priority: 0
  containers: [{name: c, resources: {requests: {ephemeral-storage: 1Gi}}}]
"""


def test_nodefs_pressure_skips_critical_pods() -> None:
    # Capacity 10Gi from status.capacity; the threshold is 10% (1Gi). At 0: 7Gi used, 3Gi
    # available. x binds at 10: 9.5Gi used, 0.5Gi available. All three use more than they
    # request at priority 0; the static pod is above by most but is critical, so w (3Gi
    # above) is evicted; 3.5Gi available ends the pressure.
    r = run(STORAGE, node_pressure=True)
    assert timeline(r, "bound", "evicted") == [
        (10.0, "bound", "x", "n1"), (10.0, "evicted", "w", "n1")]
    assert [e.detail for e in r.events if e.type == "evicted"] == [
        f"node pressure: nodefs.available {1024**3 // 2} < {1024**3}"]


def test_bad_usage_annotation_is_an_error_naming_the_pod() -> None:
    bad = SEED_EXAMPLE.replace("memory-usage: 1.5Gi", "memory-usage: lots")
    with pytest.raises(InputError) as exc:
        run(bad, node_pressure=True)
    assert "kubepreempt.io/memory-usage" in str(exc.value)
    assert "default/high" in str(exc.value)
