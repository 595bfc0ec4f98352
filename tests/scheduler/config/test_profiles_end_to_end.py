"""Scheduler configurations change decisions: hand-worked cases on examples/scheduler-config.

The cluster (``examples/scheduler-config/cluster.yaml``): node-a and node-b, 4 CPUs and
16Gi each; batch-a (3 CPUs, 4Gi) runs on node-a, batch-b (1 CPU, 4Gi, started later) on
node-b. Pending: web (1 CPU, 1Gi), urgent (4 CPUs, 1Gi, priority 1000), report (1 CPU,
1Gi, ``schedulerName: batch``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kubepreempt.cli import main
from kubepreempt.decide import IGNORED, PREEMPT, SCHEDULED, UNSCHEDULABLE, load_cluster, schedule
from kubepreempt.scheduler.config import load_scheduler_config
from kubepreempt.sim.engine import simulate
from kubepreempt.sim.scenario import load_scenario

DIR = Path(__file__).resolve().parents[3] / "examples" / "scheduler-config"
CLUSTER = str(DIR / "cluster.yaml")


def decide(pod: str, config: str | None = None):
    cluster = load_cluster([CLUSTER], warn=False)
    cfg = load_scheduler_config(str(DIR / config)) if config else None
    return schedule(cluster, pod, config=cfg, now=1.8e9)


def test_least_allocated_spreads_most_allocated_packs() -> None:
    # LeastAllocated (cpu, memory weight 1), web added:
    #   node-a cpu (4-4)/4 -> 0, memory (16-5)/16 -> 68  => 34
    #   node-b cpu (4-2)/4 -> 50, memory 68              => 59   -> node-b
    # MostAllocated: node-a cpu 100, memory 31 => 65; node-b cpu 50, memory 31 => 40 -> node-a
    # (BalancedAllocation favours node-b by less than that: 1.36 scores the change.)
    least = decide("web")
    most = decide("web", "bin-packing.yaml")
    assert (least.result, least.node) == (SCHEDULED, "node-b")
    assert (most.result, most.node) == (SCHEDULED, "node-a")
    assert least.scores["node-b"]["NodeResourcesFit"] == 59
    assert least.scores["node-a"]["NodeResourcesFit"] == 34
    assert most.scores["node-a"]["NodeResourcesFit"] == 65
    assert most.scores["node-b"]["NodeResourcesFit"] == 40


def test_preemption_disabled_leaves_the_pod_pending() -> None:
    default = decide("urgent")
    assert default.result == PREEMPT and default.victims == ["default/batch-b"]
    off = decide("urgent", "no-preemption.yaml")
    assert off.result == UNSCHEDULABLE
    assert off.victims == [] and off.preemption is None
    # RunPostFilterPlugins without DefaultPreemption: only DynamicResources' reason.
    assert off.message == ("0/2 nodes are available: 2 Insufficient cpu. "
                           "no new claims to deallocate")


def test_preemption_and_dra_disabled_message_has_no_post_filter_part(tmp_path) -> None:
    config = tmp_path / "off.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                      "kind: KubeSchedulerConfiguration\n"
                      "profiles:\n- plugins:\n    postFilter:\n      disabled:\n"
                      "      - name: '*'\n")
    cluster = load_cluster([CLUSTER], warn=False)
    out = schedule(cluster, "urgent", config=load_scheduler_config(str(config)))
    assert out.result == UNSCHEDULABLE
    assert out.message == "0/2 nodes are available: 2 Insufficient cpu."


def test_batch_pod_is_scheduled_by_the_second_profile() -> None:
    report = decide("report", "batch-profile.yaml")
    # The batch profile bin-packs (MostAllocated, as bin-packing.yaml): node-a.
    assert (report.result, report.node, report.profile) == (SCHEDULED, "node-a", "batch")
    web = decide("web", "batch-profile.yaml")
    assert (web.result, web.node, web.profile) == (SCHEDULED, "node-b", "default-scheduler")
    # The batch profile scores without ImageLocality; the default one keeps it.
    assert "ImageLocality" not in report.scores["node-a"]


def test_batch_profile_does_not_preempt(tmp_path) -> None:
    batch_urgent = tmp_path / "pod.yaml"
    batch_urgent.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\n"
        "spec:\n  schedulerName: batch\n  priorityClassName: high\n"
        "  containers: [{name: c, image: x, resources: {requests: {cpu: '4'}}}]\n")
    cluster = load_cluster([CLUSTER, str(batch_urgent)], warn=False)
    out = schedule(cluster, "big", config=load_scheduler_config(str(DIR / "batch-profile.yaml")))
    assert (out.result, out.profile) == (UNSCHEDULABLE, "batch")


def test_no_profile_for_the_scheduler_name_is_ignored() -> None:
    out = decide("report")
    assert (out.result, out.node, out.profile) == (IGNORED, None, None)


def test_configuration_document_among_the_inputs(tmp_path) -> None:
    cluster = load_cluster([CLUSTER, str(DIR / "batch-profile.yaml")], warn=False)
    out = schedule(cluster, "report")
    assert (out.result, out.node, out.profile) == (SCHEDULED, "node-a", "batch")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_schedule_with_scheduler_config(capsys) -> None:
    code, out, _ = run(capsys, "schedule", CLUSTER, "--pod", "web", "-o", "json",
                       "--scheduler-config", str(DIR / "bin-packing.yaml"))
    assert code == 0
    assert '"node": "node-a"' in out and '"profile": "default-scheduler"' in out


def test_cli_bad_configuration_is_one_line_exit_2(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\n"
                   "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n"
                   "      - name: Coscheduling\n")
    code, _, err = run(capsys, "schedule", CLUSTER, "--pod", "web",
                       "--scheduler-config", str(bad))
    assert code == 2
    assert err.count("\n") == 1
    assert str(bad) in err and 'plugin "Coscheduling"' in err


@pytest.mark.parametrize("flag", [True, False])
def test_simulate_uses_the_profiles(flag: bool) -> None:
    scenario = load_scenario([CLUSTER, str(DIR / "batch-profile.yaml")] if not flag
                             else [CLUSTER])
    if flag:
        scenario.cluster.scheduler_config = load_scheduler_config(
            str(DIR / "batch-profile.yaml"))
    result = simulate(scenario)
    attempts = [e for e in result.events if e.pod == "default/report"
                and e.type != "arrived"]
    # Handled by the batch profile (attempted; the nodes are full by then), not ignored.
    assert attempts and all(e.type == "unschedulable" for e in attempts)
    assert all(e.detail.startswith("0/2 nodes are available") for e in attempts)


def test_simulate_without_a_batch_profile_never_attempts_the_batch_pod() -> None:
    result = simulate(load_scenario([CLUSTER]))
    details = [e.detail for e in result.events if e.pod == "default/report"
               and e.type != "arrived"]
    assert details == ['no scheduler profile serves schedulerName "batch"; kube-scheduler '
                       "does not queue this pod"]


def _full_cluster(n: int):
    from builders import cluster_of, node, pod, priority_class
    objs = [priority_class("high", 1000)]
    objs += [node(f"n{i:02d}", cpu="2") for i in range(n)]
    objs += [pod(f"low{i:02d}", "2", node_name=f"n{i:02d}") for i in range(n)]
    objs.append(pod("big", "2", spec_extra={"priorityClassName": "high"}))
    return cluster_of(*objs)


def _preemption_config(tmp_path, pct: int, absolute: int):
    path = tmp_path / "c.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                    "kind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n"
                    "  - name: DefaultPreemption\n    args:\n"
                    f"      minCandidateNodesPercentage: {pct}\n"
                    f"      minCandidateNodesAbsolute: {absolute}\n")
    return load_scheduler_config(str(path))


def test_min_candidate_nodes_from_the_profile_when_sampling(tmp_path) -> None:
    """DryRunPreemption evaluates max(nodes * pct / 100, absolute) candidates (capped at
    the node count) when sampling: 50 nodes, defaults 10% / 100 -> all 50; 0% / 1 -> 1;
    20% / 3 -> 10."""
    def candidates(config) -> int:
        out = schedule(_full_cluster(50), "big", sample=True, seed=1, config=config)
        assert out.result == PREEMPT
        return len(out.preemption.candidates)

    assert candidates(None) == 50
    assert candidates(_preemption_config(tmp_path, 0, 1)) == 1
    assert candidates(_preemption_config(tmp_path, 20, 3)) == 10
    # Without sampling every potential node is a candidate, whatever the arguments.
    out = schedule(_full_cluster(50), "big", config=_preemption_config(tmp_path, 0, 1))
    assert len(out.preemption.candidates) == 50


def test_cli_table_names_a_non_default_profile(capsys) -> None:
    code, out, _ = run(capsys, "schedule", CLUSTER, "--pod", "report",
                       "--scheduler-config", str(DIR / "batch-profile.yaml"))
    assert code == 0
    assert 'Decided by the scheduler profile "batch".' in out
    code, out, _ = run(capsys, "schedule", CLUSTER, "--pod", "web")
    assert "scheduler profile" not in out
