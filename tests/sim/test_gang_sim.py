"""PodGroups over time (Kubernetes 1.37, GenericWorkload): ``simulate`` plays the pod group
cycle of ``pkg/scheduler/schedule_one_podgroup.go`` and the GangScheduling plugin.

Expected answers, by the upstream function that decides them:

- ``GangScheduling.PreEnqueue`` (``preEnqueueHierarchiesDisabled``): a pod whose PodGroup
  does not exist, or whose gang has fewer than ``minCount`` pods, never enters activeQ,
  so it is never attempted; its ``isSchedulableAfterPodAdded`` / ``...PodGroupAdded``
  hints let the group in when the last needed pod or the PodGroup is created.
- ``podGroupInfoForPod``: one popped pod brings every other unscheduled pod of its group
  (``PopSpecificPod``), and ``podGroupCycle`` decides them on one snapshot.
- ``submitPodGroupAlgorithmResult``: all pods of a schedulable group go to binding in
  that cycle (one time); an unschedulable group binds none, each pod through the
  FailureHandler: its own FitError -> the pool with its plugins; rejected by the group
  (Permit's ``waiting for minCount pods from a gang to be scheduled``, no plugin) ->
  backoffQ (``determineSchedulingHintForInFlightPod``: no rejector plugin ->
  queueAfterBackoff), hence retried after its backoff.
- Workload-aware preemption / 1.37 DefaultPreemption: a victim of an ``all`` PodGroup
  brings every scheduled pod of its group, on any node (``searchCrossNodesVictimPods``);
  victims get their grace period; the group's pods are nominated (ModeOverride) and bound
  once the victims are gone.
- Kubernetes 1.36 (its alpha API is not modelled) or GenericWorkload=false: pods are
  scheduled one by one, as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders.sim import node, pod, pod_group, run, timeline

from kubepreempt.cli import main
from kubepreempt.release import modelled
from kubepreempt.scheduler.gang.cycle import MIN_COUNT_NOT_SCHEDULED

GROUP_REJECTED = f"pod group is unschedulable, {MIN_COUNT_NOT_SCHEDULED}"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sim" / "gang-training.yaml"


def bound_times(result, *names: str) -> dict[str, float | None]:
    return {n: result.records[f"default/{n}"].bound_at for n in names}


def test_gang_below_min_count_is_never_attempted() -> None:
    # minCount 3, two pods exist, room for both: PreEnqueue holds them, no attempt at all.
    r = run(node("n1", 8) + pod_group("pg", 3) + pod("a", 1, 0, group="pg")
            + pod("b", 1, 0, group="pg"))
    assert timeline(r, "bound", "unschedulable") == []
    assert r.attempts == 0
    groups = r.metrics["podGroups"]
    assert (groups["groups"], groups["admitted"], groups["waiting"]) == (1, 0, 1)
    assert groups["byGroup"]["default/pg"]["readyAt"] is None


def test_gang_waits_for_its_pod_group_object() -> None:
    # The pods exist from 0, the PodGroup from 10 s: PreEnqueue lets them in at 10 s.
    r = run(node("n1", 8) + pod_group("pg", 2, arrival="10s") + pod("a", 1, 0, group="pg")
            + pod("b", 1, 0, group="pg"))
    assert bound_times(r, "a", "b") == {"a": 10.0, "b": 10.0}
    assert r.metrics["podGroups"]["byGroup"]["default/pg"]["readyAt"] == 10.0


def test_gang_that_fits_binds_all_members_in_one_cycle_at_one_time() -> None:
    # Members arrive at 0, 5 and 10 s; the third completes minCount: one cycle binds all.
    r = run(node("n1", 8) + pod_group("pg", 3) + pod("a", 1, 0, group="pg")
            + pod("b", 1, 0, group="pg", arrival="5s")
            + pod("c", 1, 0, group="pg", arrival="10s"))
    assert timeline(r, "bound", "unschedulable") == [
        (10.0, "bound", "a", "n1"), (10.0, "bound", "b", "n1"), (10.0, "bound", "c", "n1")]
    row = r.metrics["podGroups"]["byGroup"]["default/pg"]
    assert (row["cycles"], row["readyAt"], row["admittedAt"], row["wait"]) == (1, 10.0, 10.0,
                                                                               0.0)
    assert r.attempts == 3  # one popped, two taken with it: each pod attempted once


def test_gang_that_does_not_fit_binds_none_and_is_retried_after_backoff() -> None:
    # Two 4-CPU nodes, a gang of three 3-CPU pods: two fit, the third does not, so none
    # binds. The two that Permit turned down have no rejecting plugin: backoffQ, retried
    # once their 1 s backoff has passed (1.36 queue: released by the flush at 2 s); each
    # retry takes the third pod out of the pool with them. A node joins at 20 s: all bind.
    r = run(node("n1", 4) + node("n2", 4) + node("n3", 4, arrival="20s")
            + pod_group("pg", 3) + "".join(pod(n, 3, 0, group="pg") for n in "abc"))
    assert timeline(r, "bound")[:1] == [(20.0, "bound", "a", "n1")]
    assert set(bound_times(r, "a", "b", "c").values()) == {20.0}
    first = [e for e in r.events if e.type == "unschedulable" and e.time == 0.0]
    assert [e.detail for e in first][:2] == [GROUP_REJECTED, GROUP_REJECTED]
    assert "Insufficient cpu" in first[2].detail
    assert r.records["default/c"].unschedulable_plugins == {"NodeResourcesFit"}
    retries = sorted({e.time for e in r.events if e.type == "unschedulable"})
    assert retries[:2] == [0.0, 2.0]
    assert r.metrics["podGroups"]["byGroup"]["default/pg"]["cycles"] == len(retries) + 1


@pytest.mark.parametrize("mode, victims", [("all", ["low-0", "low-1"]), ("single", ["low-0"])])
def test_workload_preemption_evicts_whole_all_groups(mode: str, victims: list[str]) -> None:
    # n1 runs low-0 (PodGroup low, priority 10) and solo (priority 50); n2 runs low-1.
    # The high gang (two 2-CPU pods) needs 2 CPUs on n1: the lowest-priority victim there
    # is low-0. With disruptionMode all its whole group goes (low-1 on n2 too); with
    # single only low-0. Victims exit after their 5 s grace period; the gang, nominated,
    # binds both pods then (15 s).
    scen = (node("n1", 4) + node("n2", 4) + pod_group("low", 2, priority=10, disruption=mode)
            + pod("low-0", 2, 10, "n1", grace=5, group="low")
            + pod("low-1", 2, 10, "n2", grace=5, group="low")
            + pod("solo", 2, 50, "n1", grace=5)
            + pod_group("high", 2, priority=1000, arrival="10s")
            + pod("high-0", 2, 1000, group="high", arrival="10s")
            + pod("high-1", 2, 1000, group="high", arrival="10s"))
    r = run(scen)
    assert [(t, n) for t, _, n, _ in timeline(r, "preempted")] == [(10.0, v) for v in victims]
    assert bound_times(r, "high-0", "high-1") == {"high-0": 15.0, "high-1": 15.0}
    assert {n for _, _, n, _ in timeline(r, "nominated")} == {"high-0", "high-1"}
    # high-0 fitted on n2 (no plugin: backoffQ, retried at 12 s, bringing high-1 along);
    # at 12 s the victims still run, so both fail again; their deletion at 15 s moves
    # high-1 (NodeResourcesFit) and the cycle binds both.
    assert [(t, n) for t, _, n, _ in timeline(r, "unschedulable")] == [
        (10.0, "high-0"), (10.0, "high-1"), (12.0, "high-0"), (12.0, "high-1")]
    groups = r.metrics["podGroups"]
    assert groups["preempted"] == 1
    assert groups["byGroup"]["default/low"]["preemptedPods"] == len(victims)
    assert groups["byGroup"]["default/high"]["wait"] == 5.0


SPREAD = (node("n1", 8) + pod_group("pg", 3) + pod("a", 1, 0, group="pg")
          + pod("b", 1, 0, group="pg", arrival="5s") + pod("c", 1, 0, group="pg", arrival="10s"))


@pytest.mark.parametrize("release", [modelled("1.36", warn=False),
                                     modelled("1.37", {"GenericWorkload": False}, warn=False)])
def test_without_the_workload_api_pods_are_scheduled_one_by_one(release) -> None:
    r = run(SPREAD, release=release)
    assert bound_times(r, "a", "b", "c") == {"a": 0.0, "b": 5.0, "c": 10.0}
    assert "podGroups" not in r.metrics
    assert not [e for e in r.events if e.type == "podgroup-created"]


def test_a_missing_pod_group_holds_its_pods_only_when_the_gate_says_so() -> None:
    # No PodGroup object in the scenario: the API is not evidently on, so the pods are
    # plain pods; with GenericWorkload=true, PreEnqueue holds them for the PodGroup.
    scen = node("n1", 8) + pod("a", 1, 0, group="ghost")
    assert bound_times(run(scen), "a") == {"a": 0.0}
    held = run(scen, release=modelled("1.37", {"GenericWorkload": True}, warn=False))
    assert bound_times(held, "a") == {"a": None}
    assert held.attempts == 0
    assert held.metrics["podGroups"]["missing"] == ["default/ghost"]
    # With a PodGroup in the scenario the gate is taken as on, but a pod naming one the
    # scenario does not hold is still a plain pod (as ``schedule --pod`` decides it).
    taken = run(scen + pod_group("pg", 1) + pod("b", 1, 0, group="pg", arrival="5s"))
    assert bound_times(taken, "a", "b") == {"a": 0.0, "b": 5.0}
    assert taken.metrics["podGroups"]["missing"] == []
    assert taken.metrics["podGroups"]["byGroup"]["default/pg"]["cycles"] == 1


def test_gang_training_example(capsys) -> None:
    # examples/sim/gang-training.yaml: the trainer's 8th pod arrives at 2m + 7 x 10 s =
    # 190 s; workload-aware preemption then evicts the whole sweep (all, 8 pods) and no
    # ETL pod; the sweep exits 20 s later, and all 8 trainer pods bind at 210 s. The eval
    # gang (6 GPUs, 4 free) binds none until the trainer's 20 minutes end (1410 s).
    assert main(["simulate", str(EXAMPLE), "-o", "json"]) == 0
    out = capsys.readouterr()
    assert "GenericWorkload is taken as on for Kubernetes 1.37" in out.err
    data = json.loads(out.out)
    pods = data["pods"]
    assert {k: p["boundAt"] for k, p in pods.items() if k.startswith("ml/train")} == {
        f"ml/train-{i}": 210.0 for i in range(8)}
    preempted = sorted(e["pod"] for e in data["events"] if e["type"] == "preempted")
    assert preempted == [f"research/sweep-{i}" for i in range(8)]
    assert {e["time"] for e in data["events"] if e["type"] == "preempted"} == {190.0}
    assert {p["boundAt"] for k, p in pods.items() if k.startswith("ml/eval")} == {1410.0}
    groups = data["metrics"]["podGroups"]
    assert (groups["groups"], groups["admitted"], groups["preempted"]) == (3, 3, 1)
    assert groups["byGroup"]["ml/train"]["wait"] == 20.0
    assert data["modelled"]["featureGates"]["GenericWorkload"] is True


def test_gang_training_example_under_1_36(capsys) -> None:
    # 1.36: the v1beta1 objects are ignored (one warning line), the trainer's pods are
    # scheduled one by one: the first four take the free GPUs as they arrive.
    assert main(["simulate", str(EXAMPLE), "-o", "json", "--kube-version", "1.36"]) == 0
    out = capsys.readouterr()
    assert "PodGroup/Workload object(s) ignored" in out.err
    data = json.loads(out.out)
    assert "podGroups" not in data["metrics"]
    assert data["pods"]["ml/train-0"]["boundAt"] == 120.0


JOB = """
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default, annotations: {kubepreempt.io/arrival: 5s}}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      schedulingGroup: {podGroupName: pg}
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
"""


@pytest.mark.parametrize("min_count, bound", [(3, 5.0), (4, None)])
def test_a_controllers_pods_join_their_pod_group(min_count: int, bound: float | None) -> None:
    # The Job controller creates 3 pods naming the gang at 5 s: minCount 3 binds them in
    # one cycle then; minCount 4 is never reached, so PreEnqueue never lets them in.
    r = run(node("n1", 8) + pod_group("pg", min_count) + JOB)
    assert {rec.bound_at for rec in r.records.values()} == {bound}
    assert r.metrics["podGroups"]["byGroup"]["default/pg"]["cycles"] == (1 if bound else 0)


def test_report_lists_the_pod_groups() -> None:
    from kubepreempt.sim.report import render_html

    r = run(node("n1", 8) + pod_group("pg", 2) + pod("a", 1, 0, group="pg")
            + pod("b", 1, 0, group="pg", arrival="4s"))
    page = render_html(r)
    assert "<table id='pod-groups'>" in page
    assert "<td>default/pg</td><td>gang/single</td><td>2</td>" in page
    assert "<td>4.0</td><td>4.0</td><td>0.0</td><td>1</td>" in page


def test_pods_beyond_min_count_bind_later_on_their_own() -> None:
    # minCount 2, three 3-CPU pods, two 4-CPU nodes: Permit allows the group once two are
    # assumed, so two bind at 0 and the third fails on its own (its FitError, to the
    # pool; the pod group cycle runs no PostFilter with workload-aware preemption on,
    # #140412, so the message is the fit error alone). When a third node joins at 30 s its
    # queueing hint moves it; its cycle counts the two assigned pods towards minCount and
    # it binds alone.
    r = run(node("n1", 4) + node("n2", 4) + node("n3", 4, arrival="30s")
            + pod_group("pg", 2) + "".join(pod(n, 3, 0, group="pg") for n in "abc"))
    assert bound_times(r, "a", "b", "c") == {"a": 0.0, "b": 0.0, "c": 30.0}
    assert [e.detail for e in r.events if e.type == "unschedulable"] == [
        "0/2 nodes are available: 2 Insufficient cpu."]
    row = r.metrics["podGroups"]["byGroup"]["default/pg"]
    assert (row["admittedAt"], row["cycles"]) == (0.0, 2)


def test_a_pod_that_needed_the_preemption_waits_in_the_pool() -> None:
    # A gang of one pod that fits only by preempting v: submitPodGroupAlgorithmResult
    # fails it with its own FitError (NodeResourcesFit), so it waits in the pool, not in
    # backoffQ: no retry before v's deletion at 30 s moves it, and it binds then.
    r = run(node("n1", 4) + pod("v", 4, 0, "n1") + pod_group("pg", 1, priority=100)
            + pod("p", 4, 100, group="pg", arrival="1s"))
    assert timeline(r, "preempted", "unschedulable", "terminated", "bound") == [
        (1.0, "preempted", "v", "n1"), (1.0, "unschedulable", "p", "n1"),
        (31.0, "terminated", "v", "n1"), (31.0, "bound", "p", "n1")]
    assert r.records["default/p"].unschedulable_plugins == {"NodeResourcesFit"}


def test_a_basic_group_binds_what_fits() -> None:
    # A basic PodGroup has no minCount: Permit allows it as soon as one pod is assumed,
    # so the pod that fits binds and the other fails on its own (to the pool).
    r = run(node("n1", 4) + pod_group("pg") + pod("a", 3, 0, group="pg")
            + pod("b", 3, 0, group="pg"))
    assert bound_times(r, "a", "b") == {"a": 0.0, "b": None}
    assert r.records["default/b"].unschedulable_plugins == {"NodeResourcesFit"}
    assert r.metrics["podGroups"]["byGroup"]["default/pg"]["admittedAt"] == 0.0


def test_scheduling_latency_is_one_per_group_cycle() -> None:
    # --latency 2s: the group's pods are popped together at 0 and all bind when the one
    # cycle ends, at 2 s.
    r = run(node("n1", 8) + pod_group("pg", 3) + "".join(pod(n, 1, 0, group="pg")
                                                          for n in "abc"), latency=2.0)
    assert set(bound_times(r, "a", "b", "c").values()) == {2.0}
    assert r.metrics["podGroups"]["byGroup"]["default/pg"]["cycles"] == 1
