"""The PodGroup scheduler_perf workloads: shapes, per-cycle fidelity, upstream outcomes.

Scaled-down versions run through the bench runner with every group decision also made
on the reference path (``explain=True``: materialised preemption, no cached statuses) on
the same state, and every member's and single pod's cycle checked the same way: the
bench's fast answer must be the exact one. Upstream's ``integration-test`` variants
(2 nodes) have outcomes worked out from their comments, asserted here.
"""

from __future__ import annotations

import json

import pytest

from kubepreempt import gang_workloads, perf_templates
from kubepreempt.cli import main
from kubepreempt.gang_workloads import GangsOp, GangWorkload, PodsOp
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.gang import cycle as gang_cycle
from kubepreempt.scheduler.gang import schedule_pod_group
from tests.builders.one_cycle import NOW, spy

SCALES = {"GangScheduling/5000Nodes_1000Gangs_8Pods": 0.01}


def group_spy(seen: list):
    """Wrap ``schedule_pod_group``: decide on the reference path first, then fast, and
    compare the whole decision."""

    def checked(sched, namespace, name, group, **kw):
        start = sched.sampling.value
        sched.use_cached_statuses = False
        full = schedule_pod_group(sched, namespace, name, group, **{**kw, "explain": True})
        sched.use_cached_statuses = True
        sched.sampling.value = start
        fast = schedule_pod_group(sched, namespace, name, group, **kw)
        assert fast.to_json() == full.to_json(), f"{namespace}/{name}"
        seen.append(fast.result)
        return fast

    return checked


@pytest.fixture
def checked(monkeypatch) -> tuple[list, list]:
    groups: list = []
    pod_check, pods = spy(cycle.schedule_one)
    monkeypatch.setattr(gang_workloads, "schedule_one", pod_check)
    monkeypatch.setattr(gang_cycle, "schedule_one", pod_check)
    monkeypatch.setattr(gang_workloads, "schedule_pod_group", group_spy(groups))
    return pods, groups


def run(workload: GangWorkload) -> gang_workloads.GangStats:
    _, runner = workload.build(now=NOW)
    return runner.run(workload.arrivals(runner))


@pytest.mark.parametrize("name", sorted(gang_workloads.GANG_WORKLOADS))
def test_bench_agrees_with_the_reference_path_group_by_group(name, checked) -> None:
    pods, groups = checked
    w = gang_workloads.get(name, SCALES.get(name, 0.1 if "100Nodes" in name else 0.02))
    stats = run(w)
    assert groups or w.groups == 0
    assert len(pods) >= w.total_pods
    # Every measured pod ends up bound: each workload's preemptors can all fit.
    assert (stats.scheduled, stats.unschedulable) == (w.total_pods, 0)


def test_sizes_match_upstream() -> None:
    g = gang_workloads.GANG_WORKLOADS
    all_ = g["PreemptionPodGroupDisruptionMode/1000Nodes_1000Candidates_DisruptionAll"]
    assert (all_.nodes, all_.initial, all_.total_pods, all_.groups) == (1000, 10000, 100, 0)
    basic = g["GangPreemptionBasic/100Nodes_10PreemptorGangs_10Pods_Evicting_1000InitPods"]
    assert (basic.nodes, basic.initial, basic.total_pods, basic.groups) == (100, 1000, 100, 10)
    groups = g["GangPreemptionPodGroups/100Nodes_1PreemptorGang_100Pods_Evicting_5Gangs"]
    assert (groups.initial, groups.total_pods, groups.groups) == (500, 100, 1)
    affinity = g["GangPreemptionAffinity/100Nodes_1PreemptorGang_100Pods_Evicting_1000InitPods"]
    assert affinity.initial == 100 + 1000  # anchors, then low-priority pods
    assert len(g) == 10


def test_templates_parse_as_upstreams() -> None:
    pod = perf_templates.gang_pod("ns", 13, 10, "3500m", 9999999, host_port_base=9000)
    assert pod["spec"]["schedulingGroup"] == {"podGroupName": "gang-1"}
    assert pod["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "hostPort": 9001}]
    low = perf_templates.spread_pod("pod-low-priority", "ns", 23, 10)
    assert low["spec"]["priority"] == 23
    assert low["spec"]["containers"][0]["ports"][0]["hostPort"] == 8003
    plain = perf_templates.gang_pod("ns", 0, 2, "1500m", 1000, "50Mi", grouped=False)
    assert "schedulingGroup" not in plain["spec"]
    (group,) = GangsOp(1, 10, "ns", "300m", 1000, 1000, "all").pod_group_objects()
    assert (group.min_count, group.priority, group.disruption_mode) == (10, 1000, "all")


def short(name: str, nodes: int, init: tuple, measured) -> GangWorkload:
    return GangWorkload(name, nodes, init, measured)


def test_gang_preemption_basic_2_nodes_evicts_every_low_pod(checked) -> None:
    # 10 low pods of 40m (5 per node, by host port); a gang of two 3970m pods needs all
    # but 30m of a node: every low pod goes.
    w = short("b", 2, (PodsOp(10, "pod-low-priority", "gang-preempt-1"),),
              GangsOp(1, 2, "gang-preempt-0", "3970m", 8888888, 10000))
    stats = run(w)
    assert (stats.victims, stats.scheduled, stats.groups_preempted) == (10, 2, 1)
    assert sorted(stats.placements.values()) == ["node-0", "node-1"]


def test_gang_preemption_pod_groups_2_nodes_evicts_both_low_gangs(checked) -> None:
    # Two low gangs of two 600m pods, one pod per node each (host port per gang): 2800m
    # free per node; the 3500m preemptors need both low pods of their node gone.
    w = short("g", 2, (GangsOp(2, 2, "gang-preempt-1", "600m", 1000, 1000,
                               host_port_base=8000),),
              GangsOp(1, 2, "gang-preempt-0", "3500m", 9999999, 9999999,
                      host_port_base=9000))
    stats = run(w)
    assert (stats.victims, stats.scheduled, stats.groups_preempted) == (4, 2, 1)


def test_gang_preemption_affinity_2_nodes_keeps_the_anchors(checked) -> None:
    w = short("a", 2, (PodsOp(2, "pod-anchor-high-priority", "gang-preempt-2"),
                       PodsOp(10, "pod-low-priority", "gang-preempt-1")),
              GangsOp(1, 2, "gang-preempt-0", "3970m", 8888888, 10000, memory="500Mi",
                      affinity=True))
    cluster, runner = w.build(now=NOW)
    stats = runner.run(w.arrivals(runner))
    assert (stats.victims, stats.scheduled) == (10, 2)
    assert sorted(p.namespace for p in cluster.pods.values()) == ["gang-preempt-0"] * 2 + [
        "gang-preempt-2"] * 2


@pytest.mark.parametrize(("mode", "victims"), [("", 2), ("single", 2), ("all", 4)])
def test_disruption_mode_fast_tests(mode, victims, checked) -> None:
    # Two gangs of two 1500m pods over 2 nodes (one pod of each gang per node); a 3970m
    # preemptor needs both pods of one node gone; "all" takes their gangs' other pods too.
    w = short("d", 2, (GangsOp(2, 2, "gang-preempt-1", "1500m", 1000, 1000, mode, "50Mi"),),
              PodsOp(1, "pod-high-priority", "gang-preempt-0"))
    cluster, runner = w.build(now=NOW)
    assert runner.stats.victims == 0 and len(cluster.pods) == 4
    assert sorted(len(p) for p in cluster.node_pods) == [2, 2]
    stats = runner.run(w.arrivals(runner))
    assert (stats.victims, stats.scheduled, stats.preempted) == (victims, 1, 1)
    assert len(cluster.pods) == 5 - victims


def test_cli_runs_a_gang_workload(capsys) -> None:
    assert main(["bench", "GangScheduling/5000Nodes_1000Gangs_8Pods", "--scale", "0.01",
                 "-o", "json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["nodes"], out["pods"], out["groups"], out["groupsScheduled"]) == (
        50, 80, 10, 10)
    assert out["latencyPer"] == "group" and out["latencyMedianMs"] > 0


def test_cli_refuses_profile_options_for_a_gang_workload(capsys) -> None:
    assert main(["bench", "GangScheduling/5000Nodes_1000Gangs_8Pods", "--scale", "0.01",
                 "--sample-candidates"]) == 2
    assert "do not apply" in capsys.readouterr().err
