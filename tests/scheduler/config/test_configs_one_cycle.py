"""Under any configuration the incremental caches answer as the materialised cycle does.

The bench workloads and the simulator scenarios run with non-default profiles
(MostAllocated, RequestedToCapacityRatio, ignoredResources, addedAffinity, a weighted and
partly disabled score set, preemption off); at every attempt the fast answer (signature
caches, preemption caches) is compared with ``explain=True`` (no caches) on the same state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubepreempt import workloads
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.gang import cycle as gang_cycle
from kubepreempt.sim import load_scenario, scheduler_driver, simulate
from tests.builders.one_cycle import NOW, SCENARIOS, spy

V1 = "kubescheduler.config.k8s.io/v1"


def config(*plugin_config: dict[str, Any], plugins: dict | None = None):
    profile: dict[str, Any] = {"pluginConfig": list(plugin_config)}
    if plugins:
        profile["plugins"] = plugins
    return parse_scheduler_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration",
                                   "profiles": [profile]})


CONFIGS = {
    "most-allocated": lambda: config({"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}),
    "rtcr": lambda: config({"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": "RequestedToCapacityRatio", "resources": [{"name": "cpu", "weight": 3},
                                                          {"name": "memory", "weight": 1}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                               {"utilization": 60, "score": 10},
                                               {"utilization": 100, "score": 2}]}}}}),
    "ignored-and-added": lambda: config(
        {"name": "NodeResourcesFit", "args": {"ignoredResourceGroups": ["example.com"]}},
        {"name": "NodeAffinity", "args": {"addedAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": {"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "Exists"}]}}]}}}),
    "weights-no-preemption": lambda: config(plugins={
        "score": {"enabled": [{"name": "NodeResourcesBalancedAllocation", "weight": 7}],
                  "disabled": [{"name": "ImageLocality"}]},
        "multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}),
}


@pytest.mark.parametrize("conf", sorted(CONFIGS))
@pytest.mark.parametrize("name", sorted(workloads.WORKLOADS))
def test_bench_attempts_agree_under_configurations(conf, name, monkeypatch) -> None:
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    workload = workloads.get(name, 0.01)
    cluster = workload.build()
    cluster.scheduler_config = CONFIGS[conf]()
    stats = workloads.run(cluster, workload.arrivals(), now=NOW)
    assert len(seen) >= workload.total_pods
    assert stats.scheduled + stats.unschedulable == workload.total_pods


@pytest.mark.parametrize("conf", sorted(CONFIGS))
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: Path(p).name)
def test_simulator_attempts_agree_under_configurations(conf, path, monkeypatch) -> None:
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(scheduler_driver, "schedule_one", checked)
    monkeypatch.setattr(gang_cycle, "schedule_one", checked)  # a PodGroup's pods
    scenario = load_scenario([path], seed=1)
    scenario.cluster.scheduler_config = CONFIGS[conf]()
    simulate(scenario)
    assert seen
