"""The affinity and spreading scheduler_perf workloads: shapes, fidelity, upstream outcomes.

Scaled-down versions (60-120 nodes) run through ``workloads.run`` with every cycle also
run materialised (``explain=True``, no incremental caches) on the same state: the bench's
fast answer must be the exact one pod by pod. Where upstream's integration variant has an
expected outcome (every pod scheduled, the spread's skew) it is asserted.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from kubepreempt import perf_templates, workloads
from kubepreempt.cli import main
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.cycle import SCHEDULED
from tests.builders.one_cycle import NOW, spy

SCALES = {"SchedulingDaemonset/15000Nodes": 0.005,
          "SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods": 0.01}


def scaled(name: str) -> workloads.TemplateWorkload:
    return workloads.TEMPLATE_WORKLOADS[name].scaled(SCALES.get(name, 0.02))


def test_performance_sizes_and_thresholds_match_upstream() -> None:
    w = workloads.TEMPLATE_WORKLOADS
    anti = w["SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods"]
    assert (anti.nodes, anti.initial, anti.measured, anti.threshold) == (6000, 4000, 2000, 24)
    aff = w["SchedulingPodAffinity/5000Nodes_5000Pods"]
    assert (aff.nodes, aff.initial, aff.measured, aff.threshold, aff.zones) == (
        5000, 5000, 5000, 35, ("zone1",))
    mixed = w["MixedSchedulingBasePod/5000Nodes_5000Pods"]
    assert (mixed.initial, mixed.measured, mixed.threshold) == (10000, 5000, 140)
    ds = w["SchedulingDaemonset/15000Nodes"]
    assert (ds.nodes, ds.measured, ds.threshold, ds.named_node) == (15000, 30000, 1100, True)
    spread = w["TopologySpreading/5000Nodes_5000Pods"]
    assert (spread.initial, spread.measured, spread.threshold) == (5000, 5000, 460)
    assert w["SchedulingWithMixedChurn/5000Nodes_10000Pods"].total_pods == 10000 + 14
    assert len(w) == 15 and set(w).isdisjoint(workloads.WORKLOADS)


def test_templates_parse_as_upstream_pods() -> None:
    doc = perf_templates.manifest("pod-with-pod-anti-affinity", "sched-1", "p")
    term = doc["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term == {"labelSelector": {"matchLabels": {"color": "green"}},
                    "topologyKey": "kubernetes.io/hostname",
                    "namespaces": ["sched-1", "sched-0"]}
    pod = next(workloads.PodsOp(1, "pod-with-pod-anti-affinity", "sched-1").pods(
        workloads.PriorityResolver().resolve))
    assert pod.requests["cpu"] == 100 and pod.requests["memory"] == 500 * 2**20
    assert pod.qos == "Guaranteed" and pod.labels == {"color": "green"}
    large = next(workloads.PodsOp(1, "pod-high-priority-large-cpu", "x").pods(
        workloads.PriorityResolver().resolve))
    assert (large.priority, large.requests["cpu"], large.qos) == (10, 9000, "Burstable")
    ds = next(workloads.PodsOp(1, "daemonset-pod", "x").pods(
        workloads.PriorityResolver().resolve))
    assert ds.qos == "BestEffort" and (ds.nonzero_cpu, ds.nonzero_memory) == (100, 200 * 2**20)


@pytest.mark.parametrize("name", sorted(workloads.TEMPLATE_WORKLOADS))
def test_bench_agrees_with_the_exact_path_pod_by_pod(name, monkeypatch) -> None:
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    w = scaled(name)
    cluster = w.build()  # initial pods go through the spied cycle too
    stats = workloads.run(cluster, w.arrivals(), keep_placements=True, now=NOW)
    assert len(seen) >= w.initial + w.total_pods
    # Upstream's integration variants: every measured pod is scheduled (churn pods
    # fit nowhere and stay pending).
    churn = w.total_pods - w.measured
    assert (stats.scheduled, stats.unschedulable) == (w.measured, churn)


def zone_counts(cluster, namespace: str) -> Counter:
    counts: Counter = Counter()
    for i, pods in enumerate(cluster.node_pods):
        zone = cluster.nodes[i].labels.get(perf_templates.ZONE)
        counts[zone] += sum(p.namespace == namespace for p in pods.values())
    return counts


def test_topology_spreading_keeps_the_skew() -> None:
    w = workloads.TEMPLATE_WORKLOADS["TopologySpreading/5000Nodes_5000Pods"].scaled(0.02)
    cluster = w.build()
    stats = workloads.run(cluster, w.arrivals(), now=NOW)
    assert stats.scheduled == 100
    counts = zone_counts(cluster, "namespace-2")
    assert set(counts) == {"moon-1", "moon-2", "moon-3"} and sum(counts.values()) == 100
    assert max(counts.values()) - min(counts.values()) <= 5  # maxSkew


def test_required_anti_affinity_puts_one_green_pod_per_node() -> None:
    w = scaled("SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods")
    assert (w.nodes, w.initial, w.measured) == (60, 40, 20)
    cluster = w.build()
    stats = workloads.run(cluster, w.arrivals(), now=NOW)
    assert stats.scheduled == 20
    assert [len(p) for p in cluster.node_pods] == [1] * 60


def test_pod_anti_affinity_spreads_by_hostname() -> None:
    w = scaled("SchedulingPodAntiAffinity/5000Nodes_2000Pods")
    cluster = w.build()
    workloads.run(cluster, w.arrivals(), now=NOW)
    assert max(len(p) for p in cluster.node_pods) == 1


def test_daemonset_pods_all_land_on_the_named_node() -> None:
    w = scaled("SchedulingDaemonset/15000Nodes")
    cluster = w.build()
    stats = workloads.run(cluster, w.arrivals(), keep_placements=True, now=NOW)
    assert stats.scheduled == w.measured == 150
    assert set(stats.placements.values()) == {"scheduler-perf-node"}


def test_cli_runs_a_template_workload(capsys) -> None:
    assert main(["bench", "SchedulingWithMixedChurn/5000Nodes_10000Pods", "--scale", "0.01",
                 "-o", "json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    # One churn round per 7 measured pods (710 at scale 0.01): 14 large pods, pending.
    assert (out["nodes"], out["pods"], out["scheduled"], out["unschedulable"]) == (
        50, 114, 100, 14)


def test_a_pod_naming_a_node_that_fails_a_filter_is_not_picked(monkeypatch) -> None:
    """The fast pick for PreFilter-named nodes (DaemonSet pods) still runs the filters."""
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    w = scaled("SchedulingDaemonset/15000Nodes")
    cluster = w.build()
    idx = cluster.node_index["scheduler-perf-node"]
    cluster.nodes[idx] = replace(cluster.nodes[idx], unschedulable=True)
    cluster.node_changed()
    stats = workloads.run(cluster, list(w.arrivals())[:3], keep_placements=True, now=NOW)
    assert (stats.scheduled, stats.unschedulable) == (0, 3) and len(seen) == 3
    assert not any(o[0] == SCHEDULED for o in seen)
