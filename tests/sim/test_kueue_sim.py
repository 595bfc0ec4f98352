"""Kueue in the simulator: hand-worked timelines (issue 14 item 5).

Times are worked out from the rules in ``sim/kueue_actor.py``'s docstring: a Kueue cycle
runs at once when the loop is blocked in ``Heads`` (no pending head), else at the loop's
next ``UntilWithBackoff`` tick after a change (1 ms doubling to 100 ms after cycles that
admit nothing); kube-scheduler binds at the same instant; pods run their duration.
"""

from __future__ import annotations

import pytest

from kubepreempt.manifests import load_documents
from kubepreempt.sim.engine import simulate
from kubepreempt.sim.kueue_actor import RECONCILE_DELAY
from kubepreempt.sim.kueue_metrics import percentile, preemption_cycles
from kubepreempt.sim.scenario import build_scenario, load_scenario

approx = pytest.approx


def _kueue_events(res, etype: str) -> list[tuple[float, str]]:
    return [(e.time, e.pod) for e in res.events if e.type == f"kueue-{etype}"]


def _tick(last: float, until: float) -> float:
    """The first UntilWithBackoff tick at or after ``until`` after a no-op cycle at
    ``last`` (waits 1, 2, 4, ... 64 ms, then 100 ms)."""
    t, b = last + 0.001, 0.001
    while t < until and b < 0.1:
        b = min(2 * b, 0.1)
        t += b
    while t < until - 1e-9:
        t += 0.1
    return t


@pytest.mark.parametrize("version", ["current", "v0.7"])
def test_borrowing_team_is_reclaimed_from_requeues_and_runs_later(version: str) -> None:
    res = simulate(load_scenario(["examples/sim/kueue-reclaim.yaml"]), kueue_version=version)
    # 0 s: team-b's 8-cpu Job is admitted borrowing 4 cpu; 10 s: team-a's Job reclaims.
    pre = [e for e in res.metrics["kueue"]["events"] if e["type"] == "preempted"]
    assert [(p["time"], p["workload"], p["by"], p["reason"]) for p in pre] == [
        (10.0, "team-b/job-b1", "team-a/job-a1", "InCohortReclamation")]
    # Upstream's job reconciler clears b1's admission once the suspended Job is inactive
    # (status.active == 0: its pods are terminating, not active), not when they are gone:
    # quota released and b1 requeued RECONCILE_DELAY (1 s) after the eviction, at 11 s.
    assert RECONCILE_DELAY == 1.0
    assert _kueue_events(res, "requeued") == [(11.0, "team-b/job-b1")]
    # a1 was left spinning at the head since 10 s: admitted at the first tick after 11 s.
    a1_at = _tick(10.0, 11.0)
    assert a1_at == approx(11.027)
    # Its pods wait for node room: b1's pods still hold the node's 8 cpu until their 5 s
    # grace period ends at 15 s; a1 runs 50 s from there.
    bound = {e.pod: e.time for e in res.events if e.type == "bound"}
    assert bound["team-a/a1-0"] == approx(15.0)
    a1_end = 15.0 + 50
    admitted = _kueue_events(res, "admitted")
    assert [k for _, k in admitted] == ["team-b/job-b1", "team-a/job-a1", "team-b/job-b1"]
    assert [t for t, _ in admitted] == approx([0.0, a1_at, a1_end])
    # b1 cannot reclaim (team-a is within nominal): inadmissible until a1 finishes, then
    # it runs its full 100 s again.
    finished = _kueue_events(res, "finished")
    assert [k for _, k in finished] == ["team-a/job-a1", "team-b/job-b1"]
    assert [t for t, _ in finished] == approx([a1_end, a1_end + 100])
    assert bound["team-b/b1-8"] == approx(a1_end)  # the requeued Job's new pods
    q = res.metrics["kueue"]["clusterQueues"]
    assert q["team-b"]["admitted"] == 2 and q["team-b"]["preempted"] == 1
    assert q["team-b"]["preemptedByReason"] == {"InCohortReclamation": 1}
    assert q["team-b"]["meanAdmissionWait"] == approx((0 + (a1_end - 11)) / 2)
    assert q["team-a"]["meanAdmissionWait"] == approx(a1_at - 10)
    assert q["team-b"]["borrowed"][0] == [0.0, 4000]  # milli-cpu above nominal
    # Quota usage per flavor-resource, at changes: b holds 8 cpu until it is released at
    # 11 s and again for its second 100 s run; a holds 4 cpu from admission to its end.
    assert q["team-b"]["usage"] == {"default/cpu": [
        [0.0, 8000], [11.0, 0], [approx(a1_end), 8000], [approx(a1_end + 100), 0]]}
    assert q["team-a"]["usage"] == {"default/cpu": [
        [approx(a1_at), 4000], [approx(a1_end), 0]]}
    assert res.metrics["kueue"]["preemptionCycles"] == []


def _fifo_scenario(strategy: str) -> str:
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: n}}
status: {{allocatable: {{cpu: "8", memory: 8Gi, pods: "110"}}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  queueingStrategy: {strategy}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: default, resources: [{{name: cpu, nominalQuota: 4}}]}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: q, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {{name: high}}
value: 100
---
apiVersion: batch/v1
kind: Job
metadata:
  name: r
  namespace: ns
  labels: {{kueue.x-k8s.io/queue-name: q}}
  annotations: {{kubepreempt.io/duration: 100s}}
spec:
  parallelism: 2
  template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: big
  namespace: ns
  labels: {{kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: high}}
  annotations: {{kubepreempt.io/arrival: 1s, kubepreempt.io/duration: 50s}}
spec:
  parallelism: 4
  template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: small
  namespace: ns
  labels: {{kueue.x-k8s.io/queue-name: q}}
  annotations: {{kubepreempt.io/arrival: 1s, kubepreempt.io/duration: 20s}}
spec:
  parallelism: 1
  template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
"""


def _run_text(tmp_path, text: str, **kw):
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return simulate(build_scenario(load_documents([str(path)])), **kw)


def test_strict_fifo_head_blocks_its_queue(tmp_path) -> None:
    res = _run_text(tmp_path, _fifo_scenario("StrictFIFO"))
    admitted = dict((k, t) for t, k in _kueue_events(res, "admitted"))
    # big (priority 100) heads the queue at 1 s and does not fit (2 + 4 > 4 cpu, no
    # preemption): StrictFIFO puts it straight back, so small (1 cpu, would fit) waits.
    big_at = _tick(1.0, 100.0)  # r finishes at 100 s; big was spinning since 1 s
    assert admitted["ns/job-r"] == 0.0
    assert admitted["ns/job-big"] == approx(big_at)
    # After big is admitted the loop goes on at once: small does not fit (4 + 1 > 4) and
    # goes back; big finishes 50 s later and small is admitted at the next tick.
    assert admitted["ns/job-small"] == approx(_tick(big_at, big_at + 50))


def test_best_effort_fifo_skips_an_inadmissible_head(tmp_path) -> None:
    res = _run_text(tmp_path, _fifo_scenario("BestEffortFIFO"))
    admitted = dict((k, t) for t, k in _kueue_events(res, "admitted"))
    # big goes to the inadmissible set at 1 s; the next cycle (1 ms later) admits small.
    assert admitted["ns/job-small"] == approx(1.001)
    # small's release (21.001 s) requeues big, still too big; r's release at 100 s
    # requeues it again and, the loop being blocked in Heads, it is admitted at once.
    assert admitted["ns/job-big"] == approx(100.0)


def _fair_scenario() -> str:
    jobs = []
    for team, n, arrival in (("b", 8, 0), ("a", 4, 10)):
        for i in range(n):
            jobs.append(f"""
apiVersion: batch/v1
kind: Job
metadata:
  name: {team}{i}
  namespace: {team}
  labels: {{kueue.x-k8s.io/queue-name: q}}
  annotations: {{kubepreempt.io/arrival: {arrival}s, kubepreempt.io/duration: 1000s}}
spec:
  parallelism: 1
  template:
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
""")
    queues = []
    for team in "ab":
        queues.append(f"""
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: team-{team}}}
spec:
  cohort: org
  preemption: {{reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: default, resources: [{{name: cpu, nominalQuota: 4}}]}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: q, namespace: {team}}}
spec: {{clusterQueue: team-{team}}}
""")
    return "\n---\n".join([
        """apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing: {enable: true}""", *queues, *jobs])


@pytest.mark.parametrize("version", ["current", "v0.7"])
def test_fair_sharing_settles_at_nominal(tmp_path, version: str) -> None:
    res = _run_text(tmp_path, _fair_scenario(), until=500.0, kueue_version=version)
    k = res.metrics["kueue"]
    q = k["clusterQueues"]
    # team-b borrowed team-a's 4 cpu; team-a's 4 Jobs reclaim one each, then both queues
    # sit at their nominal 4 cpu: nothing more is preempted and team-b's 4 wait.
    assert q["team-b"]["preempted"] == 4
    assert q["team-a"]["preempted"] == 0
    assert q["team-a"]["admitted"] == 4 and q["team-a"]["pending"] == 0
    assert q["team-b"]["admitted"] == 8 and q["team-b"]["pending"] == 4
    assert q["team-b"]["borrowed"][-1][1] == 0 and q["team-b"]["weightedShare"][-1][1] == 0
    assert k["preemptionCycles"] == []
    running = [r for r in res.records.values() if r.phase == "Running"]
    assert len(running) == 8


def test_preemption_cycles_are_pairs_preempting_each_other_within_the_window() -> None:
    ev = [{"type": "preempted", "time": 10.0, "workload": "ns/x", "by": "ns/y"},
          {"type": "preempted", "time": 50.0, "workload": "ns/y", "by": "ns/x"},
          {"type": "preempted", "time": 90.0, "workload": "ns/x", "by": "ns/y"},
          {"type": "preempted", "time": 95.0, "workload": "ns/z", "by": "ns/y"},
          {"type": "preempted", "time": 2000.0, "workload": "ns/y", "by": "ns/z"}]
    mutual = {"kind": "mutual", "workloads": ["ns/x", "ns/y"], "times": [10.0, 50.0, 90.0],
              "count": 3}
    # x is preempted by y at 10 and again at 90: a repeated loop when the window allows.
    repeated = {"kind": "repeated", "workloads": ["ns/x", "ns/y"], "preemptor": "ns/y",
                "times": [10.0, 90.0], "count": 2}
    assert preemption_cycles(ev, 600.0) == [mutual, repeated]
    # z -> y comes 1905 s after y -> z: outside the window, not a cycle; 80 s between
    # the two preemptions of x by y is outside a 50 s window.
    assert preemption_cycles(ev, 50.0) == [mutual]
    assert preemption_cycles(ev, 30.0) == []


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 95) == 5.0
    assert percentile(list(map(float, range(1, 21))), 95) == 19.0
    assert percentile([], 95) is None


def _flapping_rounds(until: float) -> list[float]:
    """kueue-flapping.yaml's preemption times up to ``until``: one at 10 s, then one at
    the first loop tick after each release (RECONCILE_DELAY after the preemption)."""
    times = [10.0]
    while (nxt := _tick(times[-1], times[-1] + RECONCILE_DELAY)) <= until:
        times.append(nxt)
    return times


@pytest.mark.parametrize("version", ["current", "v0.7"])
def test_fair_sharing_flapping_configuration_is_flagged(version: str) -> None:
    res = simulate(load_scenario(["examples/sim/kueue-flapping.yaml"]), until=60.0,
                   kueue_version=version)
    k = res.metrics["kueue"]
    pre = [(e["time"], e["workload"], e["by"], e["reason"]) for e in k["events"]
           if e["type"] == "preempted"]
    # 10 s: p-train (share with it 3/4 cpu = 750) may preempt q-train (q's share without
    # it: 3Gi/4Gi memory = 750). q-train's Job is inactive once its pods are deleted: its
    # quota is released RECONCILE_DELAY (1 s) later; the loop, spinning since 10 s, next
    # runs at 11.027 s: equal shares (750 each), q-train wins on priority and is
    # readmitted, p-train no longer fits; the cycle right after (same instant) preempts
    # q-train again. Every round takes the 1 s delay plus 27 ms of loop ticks.
    times = _flapping_rounds(60.0)
    assert len(times) == 49
    assert {p[1:] for p in pre} == {("q/job-q-train", "p/job-p-train", "InCohortFairSharing")}
    loops = k["preemptionCycles"]
    assert [(r["kind"], r["workloads"], r["count"]) for r in loops] == [
        ("repeated", ["q/job-q-train", "p/job-p-train"], len(times))]
    assert k["clusterQueues"]["team-p"]["admitted"] == 0


def test_simulate_cli_kueue_version_json_and_table(capsys, monkeypatch) -> None:
    import json

    from kubepreempt.cli import main

    scenario = "examples/sim/kueue-flapping.yaml"
    assert main(["simulate", scenario, "--until", "30s", "-o", "json",
                 "--kueue-version", "v0.7"]) == 0
    k = json.loads(capsys.readouterr().out)["metrics"]["kueue"]
    assert k["clusterQueues"]["team-q"]["preemptedByReason"] == {
        "InCohortFairSharing": len(_flapping_rounds(30.0))}
    assert k["preemptionCycles"][0]["kind"] == "repeated"
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["simulate", scenario, "--until", "30s"]) == 0
    out = capsys.readouterr().out
    assert "Kueue per ClusterQueue" in out
    assert ("preemption loop: q/job-q-train was preempted by p/job-p-train, readmitted and "
            f"preempted again {len(_flapping_rounds(30.0))} times") in out
    assert main(["simulate", scenario, "--kueue-version", "v0.9"]) == 2
    assert "--kueue-version 'v0.9' is not one of" in capsys.readouterr().err


def test_flapping_configuration_ends_with_time_passing() -> None:
    """Guard: a preemption, the victim's release and its readmission never share one
    instant, so the flapping example runs to its end (a loop at one instant would never
    return; the alarm turns that into a failure)."""
    import signal

    def stuck(*_: object) -> None:
        raise AssertionError("kueue-flapping.yaml did not end: a loop without time passing")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(300)
    try:
        res = simulate(load_scenario(["examples/sim/kueue-flapping.yaml"]))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    k = res.metrics["kueue"]
    pre = [e["time"] for e in k["events"] if e["type"] == "preempted"]
    # The loop lasts while q-data holds team-q's memory (its 1 h duration): then team-q's
    # share without q-train is 0, p-train wins the tie-free tournament and runs.
    rounds = _flapping_rounds(3600.0)
    assert len(pre) == len(rounds) == 3496
    assert pre[-1] == approx(rounds[-1])
    assert k["clusterQueues"]["team-p"]["admitted"] == 1
    assert k["clusterQueues"]["team-p"]["finished"] == 1
