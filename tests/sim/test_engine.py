"""Engine behaviour beyond the design-doc examples: backoff, latency, kubelet, nodes."""

from __future__ import annotations

from builders.sim import node, pod, run, timeline


def test_backoff_holds_a_pod_moved_too_early() -> None:
    # Classic: y fails at 0 (backoff 1 s). x completes at 0.5 s: y is moved to backoffQ,
    # not activeQ, and binds when its backoff ends at 1 s.
    scen = node("n1", 4) + pod("x", 4, 0, duration="500ms") + pod("y", 4, 0)
    r = run(scen, queue="classic")
    assert timeline(r, "bound", "completed", "unschedulable") == [
        (0.0, "bound", "x", "n1"), (0.0, "unschedulable", "y", None),
        (0.5, "completed", "x", "n1"), (1.0, "bound", "y", "n1")]
    # 1.36: y still goes to backoffQ at 0.5, but activeQ is empty, so the scheduler pops it
    # from backoffQ at once (SchedulerPopFromBackoffQ) and it binds at 0.5.
    assert timeline(run(scen), "bound", "completed", "unschedulable") == [
        (0.0, "bound", "x", "n1"), (0.0, "unschedulable", "y", None),
        (0.5, "completed", "x", "n1"), (0.5, "bound", "y", "n1")]


def test_scheduling_latency_delays_each_attempt() -> None:
    # Each attempt takes 2 s: x binds at 2; y is popped at 2 and fails at 4; x completes at
    # 12, y's backoff (from its pop at 2) is over, so it is popped at 12 and binds at 14.
    r = run(node("n1", 4) + pod("x", 4, 0, duration="10s") + pod("y", 4, 0), latency=2.0)
    assert timeline(r, "bound", "completed", "unschedulable") == [
        (2.0, "bound", "x", "n1"), (4.0, "unschedulable", "y", None),
        (12.0, "completed", "x", "n1"), (14.0, "bound", "y", "n1")]
    assert r.attempts == 3


def test_priority_order_versus_fifo_order() -> None:
    y = node("n1", 4) + pod("lo", 4, 0, arrival="1s") + pod("hi", 4, 100, arrival="1s")
    assert timeline(run(y), "bound") == [(1.0, "bound", "hi", "n1")]
    fifo = run(y, queue="fifo")
    # FIFO: lo binds first; hi then preempts it but is not nominated, and binds when lo
    # has exited (nothing else competes here).
    assert timeline(fifo, "bound", "preempted", "terminated", "nominated") == [
        (1.0, "bound", "lo", "n1"), (1.0, "preempted", "lo", "n1"),
        (31.0, "terminated", "lo", "n1"), (31.0, "bound", "hi", "n1")]


def test_critical_pod_with_node_name_goes_through_kubelet_admission() -> None:
    # k (system-node-critical priority) arrives on full n1 at 5 s: the kubelet evicts v and
    # admits k once v has exited (30 s grace). o, not critical, is rejected (OutOfcpu).
    r = run(node("n1", 4) + pod("v", 4, 0, "n1")
            + pod("k", 2, 2000001000, "n1", arrival="5s")
            + pod("o", 2, 0, "n1", arrival="6s"))
    assert timeline(r, "evicted", "terminated", "bound", "rejected") == [
        (5.0, "evicted", "v", "n1"), (6.0, "rejected", "o", "n1"),
        (35.0, "terminated", "v", "n1"), (35.0, "bound", "k", "n1")]
    assert "OutOfcpu" in [e.detail for e in r.events if e.type == "rejected"][0]
    assert r.records["default/v"].preempted_at == 5.0


def test_node_removal_and_arrival() -> None:
    r = run(node("n1", 4, removal="10s") + node("n2", 4, arrival="20s")
            + pod("r", 4, 0, "n1") + pod("q", 4, 0))
    assert timeline(r, "evicted", "bound", "unschedulable", "node-removed", "node-added") == [
        (0.0, "unschedulable", "q", None),
        (10.0, "node-removed", "", "n1"), (10.0, "evicted", "r", "n1"),
        (10.0, "unschedulable", "q", None),
        (20.0, "node-added", "", "n2"), (20.0, "bound", "q", "n2")]
    assert r.records["default/r"].phase == "Failed"
    # cpu: 4/4 until 10 s, 0/0 until 20 s, then 4/4.
    assert r.series.util[-1][1:] == (1.0, 0.0)


def test_nomination_to_a_removed_node_is_cleared() -> None:
    r = run(node("n1", 4, removal="10s") + pod("v", 4, 0, "n1", grace=60) + pod("h", 4, 10))
    assert timeline(r, "nominated", "nomination-cleared") == [
        (0.0, "nominated", "h", "n1"), (10.0, "nomination-cleared", "h", "n1")]
    assert r.records["default/h"].phase == "Pending"


def test_until_stops_the_clock_and_metrics_add_up() -> None:
    r = run(node("n1", 10) + pod("w", 5, 0, replicas="4", interval="10s", duration="15s"),
            until=30)
    # w-0 0-15, w-1 10-25, w-2 20-35 (running at 30), w-3 30-45 (bound at 30).
    assert timeline(r, "bound", "completed") == [
        (0.0, "bound", "w-0", "n1"), (10.0, "bound", "w-1", "n1"),
        (15.0, "completed", "w-0", "n1"), (20.0, "bound", "w-2", "n1"),
        (25.0, "completed", "w-1", "n1"), (30.0, "bound", "w-3", "n1")]
    assert r.end == 30.0
    # cpu util: .5 (0-10), 1 (10-15), .5 (15-20), 1 (20-25), .5 (25-30): mean 0.667.
    assert abs(r.metrics["utilization"]["cpuMean"] - 20 / 30) < 1e-9
    c = r.metrics["classes"]["(priority 0)"]
    assert (c["pods"], c["scheduled"], c["pending"], c["meanPending"]) == (4, 4, 0, 0.0)


def test_unschedulable_pool_flush_retries_after_five_minutes() -> None:
    # y fails at 45 s and no event ever moves it: the z pods binding change the cluster
    # but a bind moves only pods with inter-pod affinity (upstream AssignedPodAdd). The pool
    # flush runs every 30 s from 0 and moves pods that waited *more* than 5 min: 345 s is
    # past 45 + 300 and not a tick, so y is retried at 360; after its failure at 360, the
    # tick at 660 is exactly 300 s later (not more), so the next retry is at 690. Then the
    # cluster does not change any more and the run ends rather than retrying forever.
    r = run(node("n1", 10) + pod("x", 8, 0, "n1") + pod("y", 3, 0, arrival="45s")
            + pod("z1", 1, 0, arrival="100s") + pod("z2", 1, 0, arrival="400s"))
    assert timeline(r, "bound", "unschedulable") == [
        (45.0, "unschedulable", "y", None), (100.0, "bound", "z1", "n1"),
        (360.0, "unschedulable", "y", None), (400.0, "bound", "z2", "n1"),
        (690.0, "unschedulable", "y", None)]
    assert r.end == 690.0 and r.attempts == 5


def test_no_pool_retries_when_nothing_changed() -> None:
    # y failed on the state the cluster still has: a flush retry would fail the same way,
    # so the run ends at 0 instead of retrying every 5 min forever.
    r = run(node("n1", 4) + pod("x", 4, 0, "n1") + pod("y", 4, 0))
    assert timeline(r, "unschedulable") == [(0.0, "unschedulable", "y", None)]
    assert r.end == 0.0


def test_backoff_counts_from_the_failure_and_ends_on_a_one_second_flush() -> None:
    # Attempts take 0.3 s. x binds at 0.3 and completes at 1.3. y is popped at 0.3 and fails
    # at 0.6: backoff 1 s from the failure (upstream Timestamp), so until 1.6. x's completion
    # at 1.3 moves y to backoffQ; backoffQ is flushed every second, so y is popped at 2.0
    # and binds at 2.3 (classic).
    scen = node("n1", 4) + pod("x", 4, 0, duration="1s") + pod("y", 4, 0)
    r = run(scen, latency=0.3, queue="classic")
    got = [(round(t, 6), *rest) for t, *rest in
           timeline(r, "bound", "completed", "unschedulable")]
    assert got == [(0.3, "bound", "x", "n1"), (0.6, "unschedulable", "y", None),
                   (1.3, "completed", "x", "n1"), (2.3, "bound", "y", "n1")]
    # 1.36: x's bind during y's attempt does not concern NodeResourcesFit, so y goes to the
    # pool; x's completion at 1.3 moves it to backoffQ (expiry 0.6 + 1 truncated to 1 s is
    # not before the window of 1.3), and with activeQ empty it is popped at once: 1.6.
    r = run(scen, latency=0.3)
    got = [(round(t, 6), *rest) for t, *rest in
           timeline(r, "bound", "completed", "unschedulable")]
    assert got == [(0.3, "bound", "x", "n1"), (0.6, "unschedulable", "y", None),
                   (1.3, "completed", "x", "n1"), (1.6, "bound", "y", "n1")]


_ZONED = """
---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{zone: {zone}}}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 64Gi, pods: "110"}}}}
"""
_WEB = """
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: web}}
  annotations: {{kubepreempt.io/arrival: "{arrival}"}}
spec:
  priority: 0{extra}
  containers:
  - name: c
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""
_SPREAD = """
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: web}}}"""


def test_bind_requeues_pods_rejected_by_hard_topology_spread() -> None:
    # y (web, spread maxSkew 1 over zones) fails at 0: zone a already has w1 and zone b's
    # nodes have no room. At 100 s w2 (web, pinned to zone b) binds on n3, which evens the
    # zones; upstream's PodTopologySpread requeues on that AssignedPodAdd, so y binds at
    # 100 s on n1 instead of waiting for the 5-minute pool flush.
    r = run(_ZONED.format(name="n1", zone="a", cpu=10) + _ZONED.format(name="n2", zone="b", cpu=4)
            + _ZONED.format(name="n3", zone="b", cpu=2)
            + _WEB.format(name="w1", arrival="0s", cpu=1, extra="\n  nodeName: n1")
            + pod("f", 4, 0, "n2")
            + _WEB.format(name="y", arrival="0s", cpu=3, extra=_SPREAD)
            + _WEB.format(name="w2", arrival="100s", cpu=2,
                          extra="\n  nodeSelector: {zone: b}"))
    # (w1 carries an arrival time, so it is admitted by the kubelet at 0: a "bound" event.)
    assert timeline(r, "bound", "unschedulable") == [
        (0.0, "bound", "w1", "n1"), (0.0, "unschedulable", "y", None),
        (100.0, "bound", "w2", "n3"), (100.0, "bound", "y", "n1")]
