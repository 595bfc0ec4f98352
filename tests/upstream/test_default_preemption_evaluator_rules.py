"""DefaultPreemption's evaluator: the rules a one-line change breaks.

Worked from upstream ``pkg/scheduler/framework/preemption/preemption.go`` (``Evaluator.Preempt``:
an ineligible pod gets no nominating info, so a nomination it holds stays; with no
candidate, ``NewPostFilterResultWithNominatedNode("")`` clears it;
``DryRunPreemption``: nodes from ``offset`` in a window of ``numCandidates``, stopping once
``nvcSize > 0 && nvcSize+vcSize >= numCandidates``, PDB-violating candidates kept in a list
of capacity ``numCandidates``; ``GetPodStartTime``: a pod without ``startTime`` counts as
started now) and ``defaultpreemption/default_preemption.go`` (``calculateNumCandidates``:
``numNodes * MinCandidateNodesPercentage / 100`` in integer arithmetic, at least
``MinCandidateNodesAbsolute``, at most ``numNodes``; the arguments are the deciding
profile's).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import cluster_of, node, pdb, pod, reference_preemption
from builders.preemption_tables import Offsets, candidates_of, post_filter, unode, upod

from kubepreempt.decide import schedule
from kubepreempt.scheduler.config import load_scheduler_config
from kubepreempt.scheduler.preemption import Preemptor
from kubepreempt.scheduler.scheduler import Scheduler

MID, HIGH = 100, 1000
NOW = 1_000_000_000.0


@pytest.fixture(params=["fast", "reference"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "reference":
        reference_preemption(monkeypatch)
    return request.param


def test_no_candidate_is_an_eligible_attempt() -> None:
    # n1 holds only a pod above the preemptor: no victims, no candidate. Preemption ran
    # (eligible), which is what clears a nomination the pod holds.
    c = cluster_of(node("n1", cpu="1"), pod("high", "1", node_name="n1", priority=100),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.preemption is not None and d.preemption.eligible is True


def test_an_ineligible_pod_is_not_an_attempt() -> None:
    # preemptionPolicy: Never: PodEligibleToPreemptOthers says no; Preempt returns no
    # nominating info (a nomination is kept).
    new = pod("new", "1", priority=10, spec_extra={"preemptionPolicy": "Never"})
    c = cluster_of(node("n1", cpu="1"), pod("low", "1", node_name="n1", priority=0), new)
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.preemption is not None and d.preemption.eligible is False
    assert d.message.endswith("preemption: not eligible due to preemptionPolicy=Never.")


def test_a_pod_not_started_counts_as_started_now(path: str) -> None:
    # pickOneNodeForPreemption's last criterion: the latest start of the highest-priority
    # victims wins. n1's victim has no startTime (GetPodStartTime: now = 2030), n2's
    # started in 2029: n1's is the later start and n1 wins. Were "now" the wall clock
    # (2026), n2 would.
    now = 1_893_456_000.0  # 2030-01-01
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="1"),
                   pod("a", "1", node_name="n1", priority=0),
                   pod("b", "1", node_name="n2", priority=0, start="2029-01-01T00:00:00Z"),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new", now=now)
    assert (d.result, d.node, d.victims) == ("preempt", "n1", ["default/a"])


def test_the_same_seed_samples_the_same_window() -> None:
    # One candidate window of 1 node (0% / 1) from a seeded offset among 30 equal nodes:
    # the seed fixes the offset, so the same seed picks the same node.
    def nodes_picked(seed: int) -> str | None:
        objs: list[dict[str, Any]] = [node(f"n{i:02d}", cpu="1") for i in range(30)]
        objs += [pod(f"low{i:02d}", "1", node_name=f"n{i:02d}", priority=0,
                     start="2026-01-01T00:00:00Z") for i in range(30)]
        c = cluster_of(*objs, pod("new", "1", priority=10))
        ev = Preemptor(Scheduler(c), sample=True, seed=seed, min_candidate_percentage=0,
                       min_candidate_absolute=1, now=NOW)
        res = post_filter(c, "default/new", preemptor=ev)
        assert len(res.candidates) == 1
        return res.node

    for seed in (1, 2, 3):
        assert nodes_picked(seed) == nodes_picked(seed)


FIVE = [unode(f"node{i}") for i in range(1, 6)]


def _window(objs: list[dict[str, Any]], pct: int, absolute: int, offset: int,
            materialize: bool = True) -> dict[str, tuple[list[str], int]]:
    c = cluster_of(*objs)
    pre = Preemptor(Scheduler(c), sample=True, min_candidate_percentage=pct,
                    min_candidate_absolute=absolute, now=NOW, materialize=materialize)
    pre.rng = Offsets([offset])  # type: ignore[assignment]
    return candidates_of(post_filter(c, "default/p", preemptor=pre))


def test_window_size_is_integer_arithmetic(path: str) -> None:
    # 5 nodes * 50% / 100 = 2 (not 2.5), above the absolute 1: two candidates from
    # offset 0, then DryRunPreemption stops (both respect PDBs).
    pods = [upod("p", prio=HIGH, res="large"),
            *[upod(f"p{i}", f"node{i}", MID, "large") for i in range(1, 6)]]
    assert _window(FIVE + pods, 50, 1, 0) == {"node1": (["p1"], 0), "node2": (["p2"], 0)}


def test_window_stops_once_a_pdb_respecting_candidate_is_among_enough(path: str) -> None:
    # 40% / 2 of 5 nodes: numCandidates 2. From offset 0: node1 respects PDBs, node2
    # violates one; nvcSize 1 + vcSize 1 >= 2 with nvcSize > 0: stop. node2 stays (the
    # violating list holds up to 2).
    pods = [upod("p", prio=HIGH, res="large"),
            upod("p1", "node1", MID, "large"),
            upod("p2", "node2", MID, "large", labels={"app": "foo"}),
            *[upod(f"p{i}", f"node{i}", MID, "large") for i in range(3, 6)]]
    budget = pdb("pdb", {"app": "foo"}, allowed=0)
    assert _window(FIVE + pods + [budget], 40, 2, 0) == {
        "node1": (["p1"], 0), "node2": (["p2"], 1)}


def test_preemption_looks_past_num_candidates_for_a_pdb_respecting_node(path: str) -> None:
    # Upstream TestDryRunPreemption "preemption looks past numCandidates until a non-PDB
    # violating node is found" (40% / 2, a budget allowing none over p1, p2, p5):
    # offset 4 => node5 (pdb), node1 (pdb), node2 (pdb: the violating list is full),
    # node3 (respects PDBs: stop).
    foo = {"app": "foo"}
    pods = [upod("p", prio=HIGH, res="large"),
            upod("p1", "node1", MID, "large", labels=foo),
            upod("p2", "node2", MID, "large", labels=foo),
            upod("p3", "node3", MID, "large"), upod("p4", "node4", MID, "large"),
            upod("p5", "node5", MID, "large", labels=foo)]
    budget = pdb("pdb", foo, allowed=0)
    assert _window(FIVE + pods + [budget], 40, 2, 4) == {
        "node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}


def test_sampled_window_holds_without_materialized_candidates() -> None:
    # The simulator's evaluator (sampling, only the winner built) still dry-runs only
    # the window: 0% / 1 from offset 2 is node3 alone, though node1's victim is cheaper.
    pods = [upod("p", prio=HIGH, res="large"), upod("p1", "node1", 0, "large"),
            *[upod(f"p{i}", f"node{i}", MID, "large") for i in range(2, 6)]]
    c = cluster_of(*FIVE, *pods)
    pre = Preemptor(Scheduler(c), sample=True, min_candidate_percentage=0,
                    min_candidate_absolute=1, now=NOW, materialize=False)
    pre.rng = Offsets([2])  # type: ignore[assignment]
    res = post_filter(c, "default/p", preemptor=pre)
    assert (res.node, [v.name for v in res.victims]) == ("node3", ["p3"])


def test_window_arguments_are_the_deciding_profiles(tmp_path) -> None:
    # Two profiles: the default one (10% / 100: every node of 20) and "batch" with
    # 0% / 1. A pod of "batch" samples one node.
    path = tmp_path / "c.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                    "kind: KubeSchedulerConfiguration\nprofiles:\n"
                    "- schedulerName: default-scheduler\n"
                    "- schedulerName: batch\n  pluginConfig:\n"
                    "  - name: DefaultPreemption\n    args:\n"
                    "      minCandidateNodesPercentage: 0\n"
                    "      minCandidateNodesAbsolute: 1\n")
    config = load_scheduler_config(str(path))
    objs: list[dict[str, Any]] = [node(f"n{i:02d}", cpu="1") for i in range(20)]
    objs += [pod(f"low{i:02d}", "1", node_name=f"n{i:02d}", priority=0) for i in range(20)]
    batch = pod("big", "1", priority=10, spec_extra={"schedulerName": "batch"})
    plain = pod("plain", "1", priority=10)
    c = cluster_of(*objs, batch, plain)
    out = schedule(c, "default/big", sample=True, seed=1, config=config)
    assert out.result == "preempt" and len(out.preemption.candidates) == 1
    out = schedule(c, "default/plain", sample=True, seed=1, config=config)
    assert out.result == "preempt" and len(out.preemption.candidates) == 20


def _nominee(name: str, node_name: str, **requests: str) -> dict[str, Any]:
    return pod(name, priority=2000, status_extra={"nominatedNodeName": node_name},
               **requests)


def test_a_node_with_a_nominee_gets_the_status_the_nominee_causes(monkeypatch) -> None:
    # node-a (3 CPU, 2Gi): h (2 CPU, above the preemptor), l (1 CPU, below) and a
    # higher-priority pod nominated there for 1.5Gi. The preemptor (2 CPU, 1Gi) does not
    # fit even without l; SelectVictimsOnNode's filter run counts the nominee
    # (RunFilterPluginsWithNominatedPods), so memory is short too: the node's status
    # names both resources, not only the CPU the bound pods leave short.
    reference_preemption(monkeypatch)
    c = cluster_of(node("node-a", cpu="3", memory="2Gi"),
                   pod("h", "2", node_name="node-a", priority=2000),
                   pod("l", "1", node_name="node-a", priority=0),
                   _nominee("n", "node-a", memory="1536Mi"),
                   pod("new", "2", "1Gi", priority=HIGH))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message.endswith("preemption: 0/1 nodes are available: 1 Insufficient cpu, "
                              "1 Insufficient memory.")


def test_nodes_without_room_keep_their_own_status_beside_a_candidate(monkeypatch) -> None:
    # node-a (a nominee's node) is the candidate (l goes). node-b lacks CPU and node-c
    # memory even without their lower-priority pods: each is no candidate with its own
    # resource, and the candidate node has no status.
    reference_preemption(monkeypatch)
    c = cluster_of(node("node-a", cpu="2"), node("node-b", cpu="1"),
                   node("node-c", cpu="4", memory="1Gi"),
                   pod("l", "1", node_name="node-a", priority=0),
                   _nominee("n", "node-a", cpu="100m"),
                   pod("hb", "1", node_name="node-b", priority=2000),
                   pod("lb", "100m", node_name="node-b", priority=0),
                   pod("hc", memory="1Gi", node_name="node-c", priority=2000),
                   pod("lc", "100m", node_name="node-c", priority=0),
                   pod("new", "1", "512Mi", priority=HIGH))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "node-a", ["default/l"])
    statuses = {c.nodes[i].name: st.reasons for i, st in d.preemption.statuses.items()}
    assert statuses == {"node-b": ("Insufficient cpu",), "node-c": ("Insufficient memory",)}
