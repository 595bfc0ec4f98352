"""Fidelity of the scheduler_perf workloads on scaled-down versions (no timing asserted)."""

import json
from collections import Counter

from kubepreempt import workloads
from kubepreempt.cli import main


def run_workload(name: str, scale: float) -> tuple[workloads.Workload, workloads.RunStats,
                                                    object]:
    w = workloads.get(name, scale)
    cluster = w.build()
    stats = workloads.run(cluster, w.arrivals(), keep_placements=True)
    return w, stats, cluster


def test_shapes_match_upstream() -> None:
    w = workloads.WORKLOADS["PreemptionBasic/5000Nodes"]
    assert (w.nodes, w.initial, w.measured) == (5000, 20000, 5000)
    low = workloads.LOW_PRIORITY_POD
    assert (low.cpu, low.memory, low.priority, low.grace) == (900, 500 * 2**20, 0, 0)
    assert (workloads.HIGH_PRIORITY_POD.cpu, workloads.HIGH_PRIORITY_POD.priority) == (3000, 10)
    assert len(workloads.WORKLOADS) == 6


def test_preemption_basic_evicts_three_of_four_on_each_node() -> None:
    w, stats, cluster = run_workload("PreemptionBasic/1000Nodes", 0.05)
    assert w.nodes == 50 and w.measured == 50
    assert stats.preempted == 50 and stats.scheduled == 50
    assert stats.victims == 150
    assert stats.victims_per_preemptor == [3] * 50
    # Every preemptor landed on its own node, next to the one reprieved low-priority pod.
    assert sorted(Counter(stats.placements.values()).values()) == [1] * 50
    for i in range(w.nodes):
        prios = sorted(p.priority for p in cluster.node_pods[i].values())
        assert prios == [0, 10]


def test_scheduling_basic_places_every_pod_evenly() -> None:
    w, stats, cluster = run_workload("SchedulingBasic/5000Nodes_10000Pods", 0.02)
    assert (w.nodes, w.initial, w.measured) == (100, 20, 200)
    assert stats.scheduled == 200 and stats.unschedulable == 0 and stats.victims == 0
    # LeastAllocated spreads identical pods: 220 pods over 100 nodes -> 2 or 3 per node.
    per_node = [len(p) for p in cluster.node_pods]
    assert sum(per_node) == 220 and set(per_node) == {2, 3}


def test_unschedulable_big_pods_stay_pending() -> None:
    w, stats, _ = run_workload("Unschedulable/5kNodes/20kInit/10kPods", 0.02)
    assert w.total_pods == 200 + 1
    assert stats.scheduled == 200 and stats.unschedulable == 1 and stats.victims == 0
    assert not any(k.startswith("interleaved/") for k in stats.placements)


def test_preemption_async_high_pods_preempt_and_bind() -> None:
    w, stats, _ = run_workload("PreemptionAsync/5000Nodes", 0.05)
    assert w.total_pods == 250 + 2
    assert stats.scheduled == 252 and stats.unschedulable == 0
    assert stats.preempted == 2 and stats.victims_per_preemptor == [3, 3]


def test_cli_list_and_json(capsys) -> None:
    assert main(["bench", "--list", "-o", "json"]) == 0
    names = [w["workload"] for w in json.loads(capsys.readouterr().out)]
    # the scheduler_perf workloads, the PodGroup ones, then the two Kueue benchmarks
    assert names[0] == "SchedulingBasic/5000Nodes_10000Pods" and len(names) == 6 + 15 + 10 + 2
    assert "GangPreemptionBasic/100Nodes_10PreemptorGangs_10Pods_Evicting_1000InitPods" in names
    assert main(["bench", "PreemptionBasic/1000Nodes", "--scale", "0.02", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"workload", "nodes", "pods", "seconds", "podsPerSecond", "victims",
            "peakRssMiB"} <= out.keys()
    assert (out["nodes"], out["pods"], out["victims"]) == (20, 20, 60)


def test_cli_unknown_workload(capsys) -> None:
    assert main(["bench", "NoSuch/Workload"]) == 2
    assert "unknown workload" in capsys.readouterr().err
