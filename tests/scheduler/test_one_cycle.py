"""One scheduling cycle behind every caller: library, simulator and bench agree pod by pod.

The library (``decide.schedule``) runs the cycle with everything materialised (every
node's status, every preemption candidate, no incremental caches); the simulator and
``bench`` run the same ``schedule_one`` on their fast paths. Here every example and
scenario in ``examples/`` goes through each caller, and at every attempt the fast answer
is compared with the materialised one on the very same state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kubepreempt import decide, workloads
from kubepreempt.cluster import build_cluster
from kubepreempt.manifests import load_documents
from kubepreempt.scheduler import cycle
from kubepreempt.scheduler.cycle import PREEMPT, SCHEDULED
from kubepreempt.scheduler.gang import cycle as gang_cycle
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.sim import load_scenario, scheduler_driver, simulate
from tests.builders.one_cycle import EXAMPLES, NOW, SCENARIOS, outcome, spy

# Cluster examples with a pending pod to decide (the kubelet ones are about bound pods).
CLUSTERS = [str(p) for p in sorted([*(EXAMPLES / "basic").glob("*.yaml"),
                                    *(EXAMPLES / "kubelet").glob("*.yaml")])
            if build_cluster(load_documents([str(p)]), warn=False).pending]


@pytest.mark.parametrize("path", CLUSTERS, ids=lambda p: Path(p).name)
def test_library_and_fast_cycle_agree_on_every_pending_pod(path: str) -> None:
    cluster = build_cluster(load_documents([path]), warn=False)
    pending = sorted(cluster.pending.values(), key=lambda p: (-p.priority, p.key))
    for pod in pending:
        library = decide.schedule(cluster, pod, now=NOW)
        fast = cycle.schedule_one(Scheduler(cluster), pod, now=NOW)
        assert (library.result, library.node, sorted(library.victims), library.pdb_violations,
                sorted(library.cleared_nominations), library.message) == outcome(fast)


@pytest.mark.parametrize("path", CLUSTERS, ids=lambda p: Path(p).name)
def test_bench_runner_places_each_pod_where_the_library_decides(path: str) -> None:
    """``workloads.run`` (the bench path) on a fresh copy per pod: it binds where the
    library schedules, preempts the library's victims and then binds on the nominated
    node, and leaves pending what the library finds unschedulable."""
    docs = load_documents([path])
    keys = sorted(build_cluster(docs, warn=False).pending)
    for key in keys:
        cluster = build_cluster(docs, warn=False)
        library = decide.schedule(cluster, key, now=NOW)
        pod = cluster.pending.pop(key)
        stats = workloads.run(cluster, [pod], keep_placements=True, now=NOW)
        if library.result in (SCHEDULED, PREEMPT):
            assert stats.placements == {key: library.node}
            assert stats.victims == len(library.victims)
        else:
            assert stats.placements == {} and stats.unschedulable == 1


@pytest.mark.parametrize("queue", ["1.36", "classic"])
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: Path(p).name)
def test_simulator_attempts_agree_with_the_materialised_cycle(path, queue,
                                                              monkeypatch) -> None:
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(scheduler_driver, "schedule_one", checked)
    # A PodGroup's pods: checked too, counted apart (workload-aware preemption runs the
    # group algorithm again on its proposal, so a group attempt may run several cycles).
    group_checked, group_seen = spy(cycle.schedule_one)
    monkeypatch.setattr(gang_cycle, "schedule_one", group_checked)
    result = simulate(load_scenario([path], seed=1), queue=queue)
    assert seen or group_seen, "the scenario made scheduling attempts"
    # Attempts of a template that just failed on the same state skip the cycle.
    assert len(seen) <= result.metrics["attempts"]
    assert {o[0] for o in seen + group_seen} >= {SCHEDULED}
    assert bool(group_seen) == bool(result.metrics.get("podGroups", {}).get("groups"))


@pytest.mark.parametrize("name", sorted(workloads.WORKLOADS))
def test_bench_attempts_agree_with_the_materialised_cycle(name, monkeypatch) -> None:
    checked, seen = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    workload = workloads.get(name, 0.01)
    stats = workloads.run(workload.build(), workload.arrivals(), now=NOW)
    assert len(seen) >= workload.total_pods
    assert stats.scheduled + stats.unschedulable == workload.total_pods


def test_the_bundled_examples_are_covered() -> None:
    assert any(p.endswith("basic/cluster.yaml") for p in CLUSTERS)
    assert len(SCENARIOS) >= 2
