"""Hand-traced timelines of kube-scheduler 1.36's queue, each next to the classic queue.

1.36: queueing hints (an event moves a pool pod only if a plugin that rejected it says
Queue), pop from backoffQ when activeQ is empty, async preemption. Units are cpu cores;
pods use their whole grace period unless ``exit_after_signal`` says otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders.sim import node, pod, run, timeline

from kubepreempt.api.errors import InputError

KEY = ("preempted", "nominated", "nomination-cleared", "bound", "terminated", "completed")


def _pod(name: str, cpu: int, extra_meta: str = "", extra_spec: str = "",
         node_name: str = "", ports: str = "", **ann: str) -> str:
    """A priority-0 pod with extra metadata / spec YAML (indented two spaces)."""
    annotations = "".join(f"\n    kubepreempt.io/{k.replace('_', '-')}: \"{v}\""
                          for k, v in ann.items())
    placed = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  annotations:{annotations or " {}"}{extra_meta}
spec:
  priority: 0{placed}{extra_spec}
  containers:
  - name: c{ports}
    resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def _host(name: str, cpu: int) -> str:
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "{cpu}", memory: 64Gi, pods: "110"}}
"""


def _unsched(r, name: str) -> list[float]:
    return [t for t, _, p, _ in timeline(r, "unschedulable") if p == name]


# ---- pop from backoffQ: the preemptor is retried at each victim's exit ----------------------

VICTIMS = (node("n1", 10)
           + pod("l1", 5, 0, "n1", grace=30, exit_after_signal="500ms")
           + pod("l2", 5, 0, "n1", grace=30, exit_after_signal="800ms")
           + pod("p", 10, 1000))


def test_preemptor_retried_at_each_victims_exit() -> None:
    r = run(VICTIMS)
    # p preempts at 0 and waits in the pool (rejected by NodeResourcesFit). l1's exit at
    # 0.5 is an assigned-pod delete: Queue. p is still backing off (expiry 0 + 1 s, window
    # 1 >= window 0), so it goes to backoffQ, and activeQ being empty it is popped at once;
    # l2 is still terminating, so p fails (not eligible to preempt again). l2's exit at 0.8
    # moves it the same way and it binds at 0.8.
    assert timeline(r, *KEY, "unschedulable") == [
        (0.0, "preempted", "l1", "n1"), (0.0, "preempted", "l2", "n1"),
        (0.0, "nominated", "p", "n1"),
        (0.5, "terminated", "l1", "n1"), (0.5, "unschedulable", "p", "n1"),
        (0.8, "terminated", "l2", "n1"), (0.8, "bound", "p", "n1")]
    assert r.attempts == 3
    assert r.records["default/p"].unschedulable_plugins == frozenset({"NodeResourcesFit"})


def test_classic_preemptor_waits_for_the_backoff_flush() -> None:
    # Classic: l1's exit moves p to backoffQ until its backoff ends at 1 s; l2's exit at 0.8
    # finds p in backoffQ already; the flush at 1 s releases it and it binds.
    r = run(VICTIMS, queue="classic")
    assert timeline(r, *KEY, "unschedulable") == [
        (0.0, "preempted", "l1", "n1"), (0.0, "preempted", "l2", "n1"),
        (0.0, "nominated", "p", "n1"),
        (0.5, "terminated", "l1", "n1"), (0.8, "terminated", "l2", "n1"),
        (1.0, "bound", "p", "n1")]
    assert r.attempts == 2


# ---- queueing hints ---------------------------------------------------------------------------

SELECTOR = (node("n1", 4) + _pod("x", 1, duration="5s")
            + _pod("s", 1, extra_spec="\n  nodeSelector: {disk: ssd}"))


def test_node_selector_rejected_pod_not_moved_by_pod_completions() -> None:
    # s is rejected by NodeAffinity, which registers no pod events: x's completion at 5 s
    # does not move it. It is retried only by the pool flush: failed at 0, more than 5 min
    # in the pool at the 30 s tick of 330 s.
    r = run(SELECTOR)
    assert _unsched(r, "s") == [0.0, 330.0]
    assert r.to_json()["pods"]["default/s"]["unschedulablePlugins"] == ["NodeAffinity"]
    # Classic: every pod deletion moves every pool pod.
    assert _unsched(run(SELECTOR, queue="classic"), "s") == [0.0, 5.0]


ANTI = ("\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:"
        "\n      - labelSelector: {matchLabels: {app: web}}"
        "\n        topologyKey: kubernetes.io/hostname")
AFFINITY = ("\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:"
            "\n      - labelSelector: {matchLabels: {app: db}}"
            "\n        topologyKey: kubernetes.io/hostname")
LABEL = "\n  labels: {{app: {}}}"
AFFINITY_SCEN = (_host("n1", 8)
                 + _pod("web", 1, LABEL.format("web"), node_name="n1")
                 + _pod("a", 1, extra_spec=ANTI) + _pod("d", 1, extra_spec=AFFINITY)
                 + _pod("u", 1, LABEL.format("other"), arrival="5s")
                 + _pod("db", 1, LABEL.format("db"), arrival="10s"))


def test_anti_affinity_pod_not_moved_by_unrelated_binds() -> None:
    # a (anti-affinity to app=web) and d (affinity to app=db) fail at 0 (InterPodAffinity).
    # AssignedPodAdd first keeps only pods with a required affinity term matching the new
    # pod (anti-affinity terms do not count): u's bind at 5 moves neither; db's bind at 10
    # moves d, which binds; a waits for the pool flush at 330 s.
    r = run(AFFINITY_SCEN)
    assert _unsched(r, "a") == [0.0, 330.0]
    assert _unsched(r, "d") == [0.0]
    assert (r.records["default/d"].node, r.records["default/d"].bound_at) == ("n1", 10.0)
    assert r.records["default/a"].unschedulable_plugins == frozenset({"InterPodAffinity"})
    # Classic: every bind moves every pod with inter-pod terms.
    classic = run(AFFINITY_SCEN, queue="classic", until=6)
    assert _unsched(classic, "a") == [0.0, 5.0] and _unsched(classic, "d") == [0.0, 5.0]


HOST_PORT = "\n    ports: [{containerPort: 80, hostPort: 8080}]"
PORTS = (node("n1", 8) + _pod("h1", 1, node_name="n1", ports=HOST_PORT, duration="10s")
         + _pod("o", 1, node_name="n1", duration="5s") + _pod("w", 1, ports=HOST_PORT))


def test_host_port_pod_moved_only_by_the_deletion_of_the_port_holder() -> None:
    # w wants host port 8080, held by h1: rejected by NodePorts. o's completion at 5 s
    # frees no port (skip); h1's at 10 s does (Queue), and w binds.
    r = run(PORTS)
    assert _unsched(r, "w") == [0.0]
    assert timeline(r, "bound") == [(10.0, "bound", "w", "n1")]
    assert r.records["default/w"].unschedulable_plugins == frozenset({"NodePorts"})
    assert _unsched(run(PORTS, queue="classic"), "w") == [0.0, 5.0]


BIG = (node("n1", 4) + pod("r", 4, 0, "n1") + pod("big", 8, 0)
       + node("n2", 4, arrival="10s") + node("n3", 16, arrival="20s"))


def test_large_pod_moved_only_by_a_node_it_fits() -> None:
    # big (8 cores) is rejected by NodeResourcesFit; a new node moves it only if big fits
    # the node's allocatable: n2 (4) does not, n3 (16) does.
    r = run(BIG)
    assert _unsched(r, "big") == [0.0]
    assert timeline(r, "bound") == [(20.0, "bound", "big", "n3")]
    classic = run(BIG, queue="classic")
    assert _unsched(classic, "big") == [0.0, 10.0]
    assert timeline(classic, "bound") == [(20.0, "bound", "big", "n3")]


# ---- async preemption: design-doc Example 4 -----------------------------------------------------

EXAMPLE_4 = (node("node-1", 10)
             + pod("a", 5, 100, "node-1", grace=60) + pod("b", 5, 100, "node-1", grace=30)
             + pod("c", 10, 1000) + pod("d", 2, 50) + pod("f", 10, 2000, arrival="10s"))


def test_example_4_with_async_preemption() -> None:
    r = run(EXAMPLE_4)
    # F's victims A and B are already terminating: prepareCandidateAsync issues no API call
    # and returns before clearing lower-priority nominations, so C keeps node-1. C is not
    # retried at 10 s either. At 30 s (B gone) F, C, D are moved by NodeResourcesFit's hint
    # and all fail: F and C may not preempt while A terminates, D has no victims. At 60 s
    # F binds; C, now eligible, finds no victims and loses its nomination.
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        (10.0, "nominated", "f", "node-1"),
        (30.0, "terminated", "b", "node-1"),
        (60.0, "terminated", "a", "node-1"),
        (60.0, "bound", "f", "node-1"),
        (60.0, "nomination-cleared", "c", "node-1"),
    ]
    assert timeline(r, "unschedulable") == [
        (0.0, "unschedulable", "d", None),
        (30.0, "unschedulable", "f", "node-1"),
        (30.0, "unschedulable", "c", "node-1"),
        (30.0, "unschedulable", "d", None),
        (60.0, "unschedulable", "c", None),
        (60.0, "unschedulable", "d", None),
    ]


def test_async_preemption_clears_lower_nominations_when_it_deletes_a_victim() -> None:
    # Example 4 on a 12-core node that also runs e (2 cores, priority 100): C's preemption
    # reprieves e (2 + 10 fit). F (12 cores) needs e's place too: e is a victim that is not
    # terminating, so the goroutine runs and clears C's lower-priority nomination (C stays
    # in the pool: a status-only update moves nothing).
    scen = (node("node-1", 12)
            + pod("a", 5, 100, "node-1", grace=60) + pod("b", 5, 100, "node-1", grace=30)
            + pod("e", 2, 100, "node-1") + pod("c", 10, 1000)
            + pod("f", 12, 2000, arrival="10s"))
    r = run(scen, until=20)
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        (10.0, "preempted", "e", "node-1"),
        (10.0, "nomination-cleared", "c", "node-1"),
        (10.0, "nominated", "f", "node-1"),
    ]
    assert _unsched(r, "c") == []


# ---- scheduling gates -------------------------------------------------------------------------

GATES = "\n  schedulingGates:\n  - name: example.com/wait"


@pytest.mark.parametrize("queue", ["1.36", "classic"])
def test_gated_pod_enters_activeq_only_when_ungated(queue: str) -> None:
    scen = (node("n1", 4) + _pod("g", 1, extra_spec=GATES, ungate_after="30s")
            + _pod("h", 1, extra_spec=GATES))
    r = run(scen, queue=queue)
    assert timeline(r, "ungated", "bound", "unschedulable") == [
        (30.0, "ungated", "g", None), (30.0, "bound", "g", "n1")]
    assert r.attempts == 1  # h is never attempted
    assert r.records["default/h"].phase == "Pending"


def test_ungate_after_needs_scheduling_gates() -> None:
    with pytest.raises(InputError, match="ungate-after is for pods with spec.schedulingGates"):
        run(node("n1", 4) + _pod("g", 1, ungate_after="30s"))


# ---- percentageOfNodesToScore and nextStartNodeIndex --------------------------------------------

def _spread_cluster() -> str:
    """150 nodes of 4 cores; each but n120 runs a 2-core pod; p and q (1 core) arrive."""
    out = ""
    for i in range(150):
        out += node(f"n{i:03d}", 4)
        if i != 120:
            out += pod(f"r{i:03d}", 2, 0, f"n{i:03d}")
    return out + pod("p", 1, 0) + pod("q", 1, 0, arrival="1s")


def test_percentage_of_nodes_to_score_rotates_the_start() -> None:
    # 150 nodes: upstream looks for max(150 * (50 - 150/125) / 100, 100) = 100 feasible
    # nodes. p: nodes n000-n099 from index 0, all alike, so the first wins: n000; the start
    # moves 100 on. q: n100-n149 then n000-n049, which include the empty n120: q lands there.
    r = run(_spread_cluster())
    assert timeline(r, "bound") == [(0.0, "bound", "p", "n000"), (1.0, "bound", "q", "n120")]
    # --best-candidates (and classic) score every feasible node: p takes n120 at once.
    best = run(_spread_cluster(), best_candidates=True)
    assert timeline(best, "bound")[0] == (0.0, "bound", "p", "n120")


def test_design_doc_example_4_file_under_1_36() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "sim" / "design-doc-example-4.yaml"
    from kubepreempt.sim import load_scenario, simulate
    r = simulate(load_scenario([str(path)]))
    assert r.queue == "1.36"
    assert (60.0, "nomination-cleared", "c", "node-1") in timeline(r, *KEY)


def test_pod_failing_without_a_plugin_waits_in_the_error_backoffq() -> None:
    # No nodes at all: ErrNoNodesAvailable is an error, no plugin rejected the pod, so it is
    # requeued at once into podErrorBackoffQ, which activeQ never pops from early. It is
    # retried when each backoff (1, 2, 4, 8, then 10 s from the failure, truncated to the
    # window) is over, one window later: 2, 5, 10, 19, 30, 41, ... 96, 107; the node that
    # arrives at 100 s moves nothing (the pod is not in the pool) and it binds at 107.
    scen = pod("p", 1, 0) + node("n1", 4, arrival="100s")
    r = run(scen)
    assert _unsched(r, "p") == [0.0, 2.0, 5.0, 10.0, 19.0, 30.0, 41.0, 52.0, 63.0, 74.0,
                                85.0, 96.0]
    assert timeline(r, "bound") == [(107.0, "bound", "p", "n1")]
    # Classic: the pod waits in the pool and the new node moves it.
    assert timeline(run(scen, queue="classic"), "bound") == [(100.0, "bound", "p", "n1")]
