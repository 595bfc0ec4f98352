"""Upstream DefaultPreemption test tables, ported case by case.

Sources (kubernetes/kubernetes):
  pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
    (commit 5def93b10a782c40035e7cf3bf5156616b1ce62e): TestPostFilter, TestDryRunPreemption,
    TestSelectBestCandidate (upstream's pickOneNodeForPreemption cases),
    TestPodEligibleToPreemptOthers, TestPreempt.
  pkg/scheduler/framework/preemption/preemption_test.go
    (commit 3e34da6e2a6d908922ad28bda84cb021d22e2b1e): TestNodesWherePreemptionMightHelp.
  Semantics checked against pkg/scheduler/framework/preemption/preemption.go
    (commit 98be7dfc5da8533f62c063206c5751e884d6294d).

Translation rules
  * Upstream's ``st.MakeNode().Capacity(res)`` adds ``pods: 32``; nodes of the DryRun,
    SelectBestCandidate and Preempt tables have ``veryLargeRes`` (500m CPU, 500 bytes).
    A node name ``"node-a/zone1"`` means labels ``hostname=node-a, zone=zone1``.
  * ``epochTimeN`` (N nanoseconds after the epoch) becomes N seconds after the epoch:
    only the order matters and startTime is serialised in seconds.
  * Tables that hand a ``NodeToStatusMap`` to PostFilter / DryRunPreemption are run through
    ``Preemptor.preempt`` with the same statuses (``post_filter`` below); a node missing
    from the map is UnschedulableAndUnresolvable, as in current upstream (NodeToStatus's
    absent-nodes status). DryRunPreemption runs on every node: all get Unschedulable.
  * We run the whole default filter set, not upstream's "NodeResourcesFit only"
    registration: none of the ported cases has taints, selectors, ports or affinities that
    the extra filters would act on, except where the case itself adds them.
  * Fully tied candidates: upstream picks a Go-map-iteration-order node, we pick the first
    by name; such cases assert membership of upstream's allowed set.
  * Candidate sampling (DefaultPreemptionArgs 40%/1 etc.): upstream seeds math/rand with 4
    and documents the offsets it draws (cycle 0 -> 4, cycle 1 -> 1, cycle 2 -> 3); we inject
    exactly those offsets (``Offsets``) instead of reproducing Go's generator.
  * ``expectedNumFilterCalled`` is not asserted: it counts calls of a fake filter plugin,
    and our resource pre-check (``Preemptor._prune``) legitimately skips filter calls.

Skipped upstream cases (Go plumbing, not scheduling decisions)
  TestPostFilter
    - "only one node but failed with TestPlugin": a fake PreFilterExtensions plugin returns
      an Error from RemovePod; kubepreempt's plugins cannot fail at run time.
    - "one failed with TestPlugin and the other pass": same fake error plugin; without it
      node1 and node2 are fully tied and the case tests nothing about our code.
  TestDryRunPreemption (preemption_test.go)
    - "no pdb violation", "pdb violation on each node": FakePostFilterPlugin replaces
      SelectVictimsOnNode with a stub returning a fixed victim and violation count; this
      only exercises the Evaluator/Interface plumbing.
  TestPreempt
    - the extender cases are ported with real equivalents (a nodeSelector that restricts
      the pod to the node(s) the extenders allow; an uninterested or ignorable-error
      extender is simply absent). What is not ported: the fake client's patch/delete
      reactors and the DisruptionTarget patch content (API calls).
  Elsewhere in preemption_test.go: TestPrepareCandidate / async preemption / metrics /
    API-call ordering (not present or not decision logic), not ported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from builders import cluster_of, pdb, pod, reference_preemption
from builders.preemption_tables import (
    NOW,
    Offsets,
    candidates_of,
    epoch,
    post_filter,
    unode,
    upod,
)

from kubepreempt.decide import resolve_pod, schedule
from kubepreempt.scheduler.framework import Code, Status
from kubepreempt.scheduler.preemption import (
    NOT_HELPFUL,
    PreemptionResult,
    Preemptor,
    pod_eligible,
)
from kubepreempt.scheduler.scheduler import Scheduler


@pytest.fixture(autouse=True, params=["fast", "reference"])
def preemption_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case on both DefaultPreemption paths (the vectorised one and the reference)."""
    if request.param == "reference":
        reference_preemption(monkeypatch)
    return request.param


NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def exists(key: str) -> dict[str, Any]:
    """A label selector ``key Exists``."""
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def spread(key: str) -> dict[str, Any]:
    """``SpreadConstraint(1, key, DoNotSchedule, Exists(foo))``."""
    return {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": exists("foo")}


# ---- TestPostFilter ------------------------------------------------------------------------
ONE_POD = {"cpu": "0", "memory": "0", "pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400", "pods": "32"}


def _post_filter_case(nodes: list[dict[str, Any]], pods: list[dict[str, Any]],
                      statuses: dict[str, Code]) -> PreemptionResult:
    return post_filter(cluster_of(*nodes, *pods), "default/p", statuses)


def test_post_filter_higher_priority_pod_can_be_made_schedulable() -> None:
    r = _post_filter_case([unode("node1", **ONE_POD)],
                          [upod("p", prio=HIGH), upod("p1", "node1")], {"node1": U})
    assert (r.node, [p.name for p in r.victims]) == ("node1", ["p1"])


def test_post_filter_tied_priority_is_still_unschedulable() -> None:
    r = _post_filter_case([unode("node1", **ONE_POD)],
                          [upod("p"), upod("p1", "node1")], {"node1": U})
    assert r.node is None
    assert r.message == ("preemption: 0/1 nodes are available: "
                         "1 No preemption victims found for incoming pod.")


def test_post_filter_respects_filtered_nodes_statuses() -> None:
    r = _post_filter_case([unode("node1", **ONE_POD)],
                          [upod("p", prio=HIGH), upod("p1", "node1")], {"node1": UU})
    assert r.node is None
    assert r.message == ("preemption: 0/1 nodes are available: "
                         "1 Preemption is not helpful for scheduling.")


def test_post_filter_respects_filtered_nodes_statuses_end_to_end() -> None:
    # The same case with a real UnschedulableAndUnresolvable reason: a nodeSelector no node has.
    c = cluster_of(unode("node1", **ONE_POD), upod("p1", "node1"),
                   upod("p", prio=HIGH, spec_extra={"nodeSelector": {"no": "such"}}))
    d = schedule(c, "default/p", now=NOW)
    assert (d.result, d.node) == ("unschedulable", None)
    assert d.preemption is not None
    assert d.preemption.message == ("preemption: 0/1 nodes are available: "
                                    "1 Preemption is not helpful for scheduling.")


def test_post_filter_pod_can_be_made_schedulable_on_one_node() -> None:
    r = _post_filter_case([unode("node1", **ONE_POD), unode("node2", **ONE_POD)],
                          [upod("p", prio=MID), upod("p1", "node1", HIGH),
                           upod("p2", "node2", LOW)], {"node1": U, "node2": U})
    assert (r.node, [p.name for p in r.victims]) == ("node2", ["p2"])


def test_post_filter_preemption_result_filtered_out_by_extenders() -> None:
    # Upstream: Node1PredicateExtender keeps only node1. Real equivalent: the pod may only
    # run on node1 (nodeSelector), so node2 is UnschedulableAndUnresolvable.
    c = cluster_of(unode("node1", **ONE_POD), unode("node2", **ONE_POD),
                   upod("p1", "node1"), upod("p2", "node2"),
                   upod("p", prio=HIGH, spec_extra={"nodeSelector": {"hostname": "node1"}}))
    d = schedule(c, "default/p", now=NOW)
    assert (d.result, d.node, d.victims) == ("preempt", "node1", ["default/p1"])


def test_post_filter_no_candidates_not_enough_resource_after_removal() -> None:
    r = _post_filter_case([unode("node1", **NODE_RES), unode("node2", **NODE_RES)],
                          [upod("p", prio=HIGH, res="large"), upod("p1", "node1"),
                           upod("p2", "node2")], {"node1": U, "node2": U})
    assert r.node is None
    assert r.message == "preemption: 0/2 nodes are available: 2 Insufficient cpu."


def test_post_filter_no_candidates_mixed_reasons_no_lower_priority_and_no_cpu() -> None:
    r = _post_filter_case(
        [unode("node1", **ONE_POD), unode("node2", **NODE_RES), unode("node3", **ONE_POD)],
        [upod("p", prio=HIGH, res="large"), upod("p1", "node1", HIGH), upod("p2", "node2"),
         upod("p3", "node3", HIGH)],
        {"node1": U, "node2": U, "node3": U})
    assert r.node is None
    assert r.message == ("preemption: 0/3 nodes are available: 1 Insufficient cpu, "
                         "2 No preemption victims found for incoming pod.")


def test_post_filter_no_candidates_mixed_reasons_unresolvable_and_no_cpu() -> None:
    # node3 is absent from the status map: current upstream treats it as unresolvable.
    r = _post_filter_case([unode(f"node{i}", **NODE_RES) for i in (1, 2, 3, 4)],
                          [upod("p", prio=HIGH, res="large"), upod("p1", "node1"),
                           upod("p2", "node2")],
                          {"node1": U, "node2": U, "node4": UU})
    assert r.node is None
    assert r.message == ("preemption: 0/4 nodes are available: 2 Insufficient cpu, "
                         "2 Preemption is not helpful for scheduling.")


# ---- TestDryRunPreemption --------------------------------------------------------------------
def _dry_run(node_specs: list[str], pods: list[dict[str, Any]],
             pdbs: Sequence[dict[str, Any]] = (),
             pod_key: str = "default/p") -> dict[str, tuple[list[str], int]]:
    c = cluster_of(*[unode(n) for n in node_specs], *pods, *pdbs)
    return candidates_of(post_filter(c, pod_key))


@pytest.mark.parametrize("name", [
    "a pod that does not fit on any node",
    "a pod that fits with no preemption",
    "a pod that fits on one node with no preemption",
    "get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
])
def test_dry_run_filter_rejecting_every_node_gives_no_candidates(name: str) -> None:
    # Upstream: a fake filter rejects every node as Unschedulable whatever is removed
    # (FalseFilter, or FakeFilter with fakeFilterRC=Unschedulable). Real equivalent: the pod
    # requests more CPU than any node has, so removing lower-priority pods never helps.
    assert name
    got = _dry_run(["node1", "node2"],
                   [pod("p", "600m", priority=HIGH), upod("p1", "node1", MID),
                    upod("p2", "node2", MID)])
    assert got == {}


def test_dry_run_fits_on_both_nodes_when_lower_priority_pods_are_preempted() -> None:
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=HIGH, res="large"), upod("p1", "node1", MID, "large"),
                    upod("p2", "node2", MID, "large")])
    assert got == {"node1": (["p1"], 0), "node2": (["p2"], 0)}


def test_dry_run_other_pods_higher_priority_no_preemption() -> None:
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=LOW, res="large"), upod("p1", "node1", MID, "large"),
                    upod("p2", "node2", MID, "large")])
    assert got == {}


def test_dry_run_medium_priority_preempted_lower_small_one_stays() -> None:
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=HIGH, res="large"), upod("p1.1", "node1", LOW, "small"),
                    upod("p1.2", "node1", MID, "large"), upod("p2", "node2", MID, "large")])
    assert got == {"node1": (["p1.2"], 0), "node2": (["p2"], 0)}


def test_dry_run_mixed_priority_pods_are_preempted() -> None:
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=HIGH, res="large"), upod("p1.1", "node1", MID, "small"),
                    upod("p1.2", "node1", LOW, "small"), upod("p1.3", "node1", MID, "medium"),
                    upod("p1.4", "node1", HIGH, "small"), upod("p2", "node2", HIGH, "large")])
    assert got == {"node1": (["p1.2", "p1.3"], 0)}


def test_dry_run_mixed_priority_pick_later_start_time_when_priorities_equal() -> None:
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=HIGH, res="large"),
                    upod("p1.1", "node1", LOW, "small", start=5),
                    upod("p1.2", "node1", LOW, "small", start=4),
                    upod("p1.3", "node1", MID, "medium", start=3),
                    upod("p1.4", "node1", HIGH, "small", start=2),
                    upod("p2", "node2", HIGH, "large", start=1)])
    assert got == {"node1": (["p1.1", "p1.3"], 0)}


def test_dry_run_pod_with_anti_affinity_is_preempted() -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": exists("foo"), "topologyKey": "hostname"}]}}
    got = _dry_run(["node1", "node2"],
                   [upod("p", prio=HIGH, res="small", labels={"foo": ""}),
                    upod("p1.1", "node1", LOW, "small", labels={"foo": ""},
                         spec_extra={"affinity": anti}),
                    upod("p1.2", "node1", MID, "small"), upod("p1.3", "node1", HIGH, "small"),
                    upod("p2", "node2", HIGH, "small")])
    assert got == {"node1": (["p1.1"], 0)}


def test_dry_run_preemption_to_resolve_pod_topology_spread_failure() -> None:
    foo = {"foo": ""}
    got = _dry_run(["node-a/zone1", "node-b/zone1", "node-x/zone2"],
                   [upod("p", prio=HIGH, labels=foo,
                         spec_extra={"topologySpreadConstraints": [spread("zone"),
                                                                   spread("hostname")]}),
                    upod("pod-a1", "node-a", MID, labels=foo),
                    upod("pod-a2", "node-a", LOW, labels=foo),
                    upod("pod-b1", "node-b", LOW, labels=foo),
                    upod("pod-x1", "node-x", HIGH, labels=foo),
                    upod("pod-x2", "node-x", HIGH, labels=foo)])
    assert got == {"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}


def _pdb_pods(n: int) -> list[dict[str, Any]]:
    return [upod(f"p1.{i}", "node1", MID, "medium", labels={"app": "foo"})
            for i in range(1, n + 1)]


def _foo_pdb(allowed: int, disrupted: list[str] | None = None) -> dict[str, Any]:
    out = pdb("pdb", {"app": "foo"}, allowed=allowed)
    if disrupted:
        out["status"]["disruptedPods"] = dict.fromkeys(disrupted, "2024-01-01T00:00:00Z")
    return out


def test_dry_run_preemption_with_violation_of_same_pdb() -> None:
    got = _dry_run(["node1"], [upod("p", prio=HIGH, res="veryLarge"), *_pdb_pods(2)],
                   [_foo_pdb(1)])
    assert got == {"node1": (["p1.1", "p1.2"], 1)}


def test_dry_run_pdb_disrupted_pods_victim_not_in_disrupted_pods() -> None:
    got = _dry_run(["node1"], [upod("p", prio=HIGH, res="veryLarge"), *_pdb_pods(2)],
                   [_foo_pdb(1, ["p2"])])
    assert got == {"node1": (["p1.1", "p1.2"], 1)}


def test_dry_run_pdb_disrupted_pods_victim_in_disrupted_pods() -> None:
    got = _dry_run(["node1"], [upod("p", prio=HIGH, res="veryLarge"), *_pdb_pods(2)],
                   [_foo_pdb(1, ["p1.2"])])
    assert got == {"node1": (["p1.1", "p1.2"], 0)}


def test_dry_run_pdb_disrupted_pods_victim_treated_as_non_violating() -> None:
    got = _dry_run(["node1"], [upod("p", prio=HIGH, res="veryLarge"), *_pdb_pods(3)],
                   [_foo_pdb(1, ["p1.3"])])
    assert got == {"node1": (["p1.1", "p1.2", "p1.3"], 1)}


def _sampled(objs: list[dict[str, Any]], pct: int, absolute: int, offsets: list[int],
             pod_keys: list[str]) -> list[dict[str, tuple[list[str], int]]]:
    c = cluster_of(*objs)
    pre = Preemptor(Scheduler(c), sample=True, min_candidate_percentage=pct,
                    min_candidate_absolute=absolute, now=NOW)
    pre.rng = Offsets(offsets)  # type: ignore[assignment]
    return [candidates_of(post_filter(c, key, preemptor=pre)) for key in pod_keys]


FIVE = [unode(f"node{i}") for i in range(1, 6)]


def test_dry_run_all_nodes_candidates_but_args_limit_to_2() -> None:
    pods = [upod("p", prio=HIGH, res="large"),
            *[upod(f"p{i}", f"node{i}", MID, "large") for i in range(1, 6)]]
    # cycle 0 => offset 4 => node5 (yes), node1 (yes)
    assert _sampled(FIVE + pods, 40, 1, [4], ["default/p"]) == [
        {"node1": (["p1"], 0), "node5": (["p5"], 0)}]


def test_dry_run_some_nodes_not_candidates_args_limit_to_2() -> None:
    prios = {1: MID, 2: VERY_HIGH, 3: MID, 4: MID, 5: VERY_HIGH}
    pods = [upod("p", prio=HIGH, res="large"),
            *[upod(f"p{i}", f"node{i}", prios[i], "large") for i in range(1, 6)]]
    # offset 4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
    assert _sampled(FIVE + pods, 40, 1, [4], ["default/p"]) == [
        {"node1": (["p1"], 0), "node3": (["p3"], 0)}]


def test_dry_run_offset_across_cycles_and_wrap_around() -> None:
    pods = [*[upod(f"tp{i}", prio=HIGH, res="large") for i in (1, 2, 3)],
            *[upod(f"p{i}", f"node{i}", MID, "large") for i in range(1, 6)]]
    got = _sampled(FIVE + pods, 40, 1, [4, 1, 3],
                   ["default/tp1", "default/tp2", "default/tp3"])
    assert got == [
        {"node1": (["p1"], 0), "node5": (["p5"], 0)},  # offset 4
        {"node2": (["p2"], 0), "node3": (["p3"], 0)},  # offset 1
        {"node4": (["p4"], 0), "node5": (["p5"], 0)},  # offset 3
    ]


def test_dry_run_looks_past_num_candidates_until_non_pdb_violating_node() -> None:
    foo = {"app": "foo"}
    pods = [upod("p", prio=HIGH, res="large"),
            upod("p1", "node1", MID, "large", labels=foo),
            upod("p2", "node2", MID, "large", labels=foo),
            upod("p3", "node3", MID, "large"),
            upod("p4", "node4", MID, "large"),
            upod("p5", "node5", MID, "large", labels=foo)]
    # offset 4 => node5 (yes, pdb), node1 (yes, pdb), node2 (yes, pdb, but the violating
    # list already holds numCandidates=2), node3 (yes) -> stop.
    got = _sampled(FIVE + pods + [pdb("pdb", foo, allowed=0)], 40, 2, [4], ["default/p"])
    assert got == [{"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}]


# ---- TestSelectBestCandidate (pickOneNodeForPreemption) -------------------------------------
SELECT_BEST: list[tuple[str, list[str], dict[str, Any], list[dict[str, Any]], set[str]]] = [
    ("a pod that fits on both nodes when lower priority pods are preempted",
     ["node1", "node2"], upod("p", prio=HIGH, res="large"),
     [upod("p1", "node1", MID, "large", 0), upod("p2", "node2", MID, "large", 0)],
     {"node1", "node2"}),
    ("node with min highest priority pod is picked",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "medium", 0), upod("p1.2", "node1", MID, "large", 0),
      upod("p2.1", "node2", MID, "medium", 0), upod("p2.2", "node2", LOW, "medium", 0),
      upod("p3.1", "node3", LOW, "medium", 0), upod("p3.2", "node3", LOW, "medium", 0)],
     {"node3"}),
    ("when highest priorities are the same, minimum sum of priorities is picked",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "medium", 0), upod("p1.2", "node1", MID, "large", 0),
      upod("p2.1", "node2", MID, "large", 0), upod("p2.2", "node2", LOW, "medium", 0),
      upod("p3.1", "node3", MID, "medium", 0), upod("p3.2", "node3", MID, "medium", 0)],
     {"node2"}),
    ("when highest priority and sum are the same, minimum number of pods is picked",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "small", 0), upod("p1.2", "node1", NEG, "small", 0),
      upod("p1.3", "node1", MID, "small", 0), upod("p1.4", "node1", NEG, "small", 0),
      upod("p2.1", "node2", MID, "large", 0), upod("p2.2", "node2", NEG, "medium", 0),
      upod("p3.1", "node3", MID, "medium", 0), upod("p3.2", "node3", NEG, "small", 0),
      upod("p3.3", "node3", LOW, "small", 0)],
     {"node2"}),
    ("sum of adjusted priorities is considered",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "small", 0), upod("p1.2", "node1", NEG, "small", 0),
      upod("p1.3", "node1", NEG, "small", 0),
      upod("p2.1", "node2", MID, "large", 0), upod("p2.2", "node2", NEG, "medium", 0),
      upod("p3.1", "node3", MID, "medium", 0), upod("p3.2", "node3", NEG, "small", 0),
      upod("p3.3", "node3", LOW, "small", 0)],
     {"node2"}),
    ("non-overlapping lowest high priority, sum priorities, and number of pods",
     ["node1", "node2", "node3", "node4"], upod("p", prio=VERY_HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "small", 0), upod("p1.2", "node1", LOW, "small", 0),
      upod("p1.3", "node1", LOW, "small", 0),
      upod("p2.1", "node2", HIGH, "large", 0),
      upod("p3.1", "node3", MID, "medium", 0), upod("p3.2", "node3", LOW, "small", 0),
      upod("p3.3", "node3", LOW, "small", 0), upod("p3.4", "node3", LOW, "medium", 0),
      upod("p4.1", "node4", MID, "medium", 0), upod("p4.2", "node4", MID, "small", 0),
      upod("p4.3", "node4", MID, "small", 0), upod("p4.4", "node4", NEG, "small", 0)],
     {"node1"}),
    ("same priority, same number of victims, different start time for each node's pod",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "medium", 2), upod("p1.2", "node1", MID, "medium", 2),
      upod("p2.1", "node2", MID, "medium", 3), upod("p2.2", "node2", MID, "medium", 3),
      upod("p3.1", "node3", MID, "medium", 1), upod("p3.2", "node3", MID, "medium", 1)],
     {"node2"}),
    ("same priority, same number of victims, different start time for all pods",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", MID, "medium", 4), upod("p1.2", "node1", MID, "medium", 2),
      upod("p2.1", "node2", MID, "medium", 5), upod("p2.2", "node2", MID, "medium", 1),
      upod("p3.1", "node3", MID, "medium", 3), upod("p3.2", "node3", MID, "medium", 6)],
     {"node3"}),
    ("different priority, same number of victims, different start time for all pods",
     ["node1", "node2", "node3"], upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", LOW, "medium", 4), upod("p1.2", "node1", MID, "medium", 2),
      upod("p2.1", "node2", MID, "medium", 6), upod("p2.2", "node2", LOW, "medium", 1),
      upod("p3.1", "node3", LOW, "medium", 3), upod("p3.2", "node3", MID, "medium", 5)],
     {"node2"}),
]


@pytest.mark.parametrize(("name", "nodes", "target", "pods", "allowed"), SELECT_BEST,
                         ids=[c[0] for c in SELECT_BEST])
def test_select_best_candidate(name: str, nodes: list[str], target: dict[str, Any],
                               pods: list[dict[str, Any]], allowed: set[str]) -> None:
    assert name
    r = post_filter(cluster_of(*[unode(n) for n in nodes], target, *pods))
    assert r.node in allowed
    # And end to end: the pod fits nowhere as is, so schedule() preempts on that node.
    d = schedule(cluster_of(*[unode(n) for n in nodes], target, *pods), "default/p", now=NOW)
    assert (d.result, d.node) == ("preempt", r.node)


# ---- TestPodEligibleToPreemptOthers ------------------------------------------------------
def _terminating(name: str, preempted: bool) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if preempted:
        status["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                 "reason": "PreemptionByScheduler"}]
    return upod(name, "node1", LOW, meta_extra={"deletionTimestamp": "2024-01-01T00:00:00Z"},
                status_extra=status)


ELIGIBLE: list[tuple[str, dict[str, Any], list[dict[str, Any]], list[str], Code | None,
                     bool]] = [
    ("Pod with nominated node",
     upod("p", prio=HIGH, status_extra={"nominatedNodeName": "node1"}),
     [_terminating("p1", False)], ["node1"], UU, True),
    ("Pod without nominated node", upod("p", prio=HIGH), [], [], None, True),
    ("Pod with 'PreemptNever' preemption policy",
     upod("p", prio=HIGH, spec_extra={"preemptionPolicy": "Never"}), [], [], None, False),
    ("preemption victim pod terminating, as indicated by the dedicated DisruptionTarget "
     "condition",
     upod("p", prio=HIGH, status_extra={"nominatedNodeName": "node1"}),
     [_terminating("p1", True)], ["node1"], None, False),
    ("non-victim Pods terminating",
     upod("p", prio=HIGH, status_extra={"nominatedNodeName": "node1"}),
     [_terminating("p1", False)], ["node1"], None, True),
]


@pytest.mark.parametrize(("name", "target", "pods", "nodes", "nominated_code", "expected"),
                         ELIGIBLE, ids=[c[0] for c in ELIGIBLE])
def test_pod_eligible_to_preempt_others(name: str, target: dict[str, Any],
                                        pods: list[dict[str, Any]], nodes: list[str],
                                        nominated_code: Code | None, expected: bool) -> None:
    assert name
    c = cluster_of(*[unode(n) for n in nodes], target, *pods)
    status = None if nominated_code is None else Status(nominated_code, ("x",))
    ok, _ = pod_eligible(Scheduler(c), resolve_pod(c, "default/p"), status)
    assert ok is expected


# ---- TestPreempt --------------------------------------------------------------------------
def _only(*names: str) -> dict[str, Any]:
    """A pod spec restricting the pod to ``names`` (stands in for a filtering extender)."""
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "hostname", "operator": "In", "values": list(names)}]}]}}}}


def _preempt_pods(n2_pod: str) -> list[dict[str, Any]]:
    return [upod("p1.1", "node1", MID, "small"), upod("p1.2", "node1", LOW, "small"),
            upod("p2.1", n2_pod, MID, "large")]


PREEMPT: list[tuple[str, list[str], dict[str, Any], list[dict[str, Any]], str | None,
                    list[str]]] = [
    ("basic preemption logic", ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge", spec_extra={"preemptionPolicy": "PreemptLowerPriority"}),
     [upod("p1.1", "node1", LOW, "small"), upod("p1.2", "node1", LOW, "small"),
      upod("p2.1", "node2", HIGH, "large"), upod("p3.1", "node3", MID, "medium")],
     "node1", ["p1.1", "p1.2"]),
    ("preemption for topology spread constraints", ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
     upod("p", prio=HIGH, labels={"foo": ""},
          spec_extra={"topologySpreadConstraints": [spread("zone"), spread("hostname")]}),
     [upod("p-a1", "node-a", HIGH, labels={"foo": ""}),
      upod("p-a2", "node-a", HIGH, labels={"foo": ""}),
      upod("p-b1", "node-b", LOW, labels={"foo": ""}),
      upod("p-x1", "node-x", HIGH, labels={"foo": ""}),
      upod("p-x2", "node-x", HIGH, labels={"foo": ""})],
     "node-b", ["p-b1"]),
    ("Scheduler extenders allow only node1, otherwise node3 would have been chosen",
     ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge", spec_extra=_only("node1")),
     _preempt_pods("node3"), "node1", ["p1.1", "p1.2"]),
    ("Scheduler extenders do not allow any preemption", ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge", spec_extra=_only("none")),
     _preempt_pods("node2"), None, []),
    ("One scheduler extender allows only node1, the other returns error but ignorable. "
     "Only node1 would be chosen", ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge", spec_extra=_only("node1")),
     _preempt_pods("node2"), "node1", ["p1.1", "p1.2"]),
    ("One scheduler extender allows only node1, but it is not interested in given pod, "
     "otherwise node1 would have been chosen", ["node1", "node2"],
     upod("p", prio=HIGH, res="veryLarge"), _preempt_pods("node2"), "node2", ["p2.1"]),
    ("no preempting in pod", ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge", spec_extra={"preemptionPolicy": "Never"}),
     [upod("p1.1", "node1", LOW, "small"), upod("p1.2", "node1", LOW, "small"),
      upod("p2.1", "node2", HIGH, "large"), upod("p3.1", "node3", MID, "medium")],
     None, []),
    ("PreemptionPolicy is nil", ["node1", "node2", "node3"],
     upod("p", prio=HIGH, res="veryLarge"),
     [upod("p1.1", "node1", LOW, "small"), upod("p1.2", "node1", LOW, "small"),
      upod("p2.1", "node2", HIGH, "large"), upod("p3.1", "node3", MID, "medium")],
     "node1", ["p1.1", "p1.2"]),
]


@pytest.mark.parametrize(("name", "nodes", "target", "pods", "want", "victims"), PREEMPT,
                         ids=[c[0] for c in PREEMPT])
def test_preempt(name: str, nodes: list[str], target: dict[str, Any],
                 pods: list[dict[str, Any]], want: str | None, victims: list[str]) -> None:
    assert name
    d = schedule(cluster_of(*[unode(n) for n in nodes], target, *pods), "default/p", now=NOW)
    assert d.node == want
    assert sorted(v.split("/")[1] for v in d.victims) == victims
    if want is None:
        assert d.result == "unschedulable"
        return
    assert d.result == "preempt"
    # Upstream then marks the victims deleted (with the DisruptionTarget condition it
    # patches), nominates the pod and preempts again: no further preemption must happen.
    condition = {"type": "DisruptionTarget", "status": "True",
                 "reason": "PreemptionByScheduler"}
    after = []
    for p in pods:
        if p["metadata"]["name"] in victims:
            p = {**p, "metadata": {**p["metadata"], "deletionTimestamp": epoch(9)},
                 "status": {**p["status"], "conditions": [condition]}}
        after.append(p)
    nominated = {**target, "status": {**target["status"], "nominatedNodeName": want}}
    d2 = schedule(cluster_of(*[unode(n) for n in nodes], nominated, *after), "default/p",
                  now=NOW)
    # Upstream's second Preempt call only checks that nothing more is preempted. Through
    # schedule() the pod may even fit now: PodTopologySpread ignores terminating pods.
    assert d2.result in ("unschedulable", "scheduled")
    assert d2.victims == []
    if d2.result == "scheduled":
        assert d2.node == want


# ---- TestNodesWherePreemptionMightHelp (preemption_test.go) -------------------------------
MIGHT_HELP: list[tuple[str, dict[str, Code], set[str]]] = [
    ("No node should be attempted",
     {"node1": UU, "node2": UU, "node3": UU, "node4": UU}, set()),
    ("ErrReasonAntiAffinityRulesNotMatch should be tried",
     {"node1": U, "node2": UU, "node3": UU, "node4": U}, {"node1", "node4"}),
    ("ErrReasonAffinityRulesNotMatch should not be tried, anti-affinity should",
     {"node1": UU, "node2": U, "node3": U, "node4": U}, {"node2", "node3", "node4"}),
    ("Mix of failed predicates works fine",
     {"node1": UU, "node2": U, "node3": U, "node4": U}, {"node2", "node3", "node4"}),
    ("Node condition errors should be considered unresolvable",
     {"node1": UU, "node2": U, "node3": U, "node4": U}, {"node2", "node3", "node4"}),
    ("ErrVolume... errors should not be tried",
     {"node1": UU, "node2": UU, "node3": UU, "node4": U}, {"node4"}),
    ("ErrReasonConstraintsNotMatch should be tried",
     {"node1": U, "node2": UU, "node3": U, "node4": U}, {"node1", "node3", "node4"}),
    ("UnschedulableAndUnresolvable status should be skipped but Unschedulable should be tried",
     {"node1": U, "node2": UU, "node3": U, "node4": UU}, {"node1", "node3"}),
    ("ErrReasonNodeLabelNotMatch should not be tried",
     {"node1": U, "node2": UU, "node3": U, "node4": UU}, {"node1", "node3"}),
]


@pytest.mark.parametrize(("name", "statuses", "expected"), MIGHT_HELP,
                         ids=[c[0] for c in MIGHT_HELP])
def test_nodes_where_preemption_might_help(name: str, statuses: dict[str, Code],
                                           expected: set[str]) -> None:
    # Upstream's table keys on the status code only (the reason strings are documentation).
    # Nodes are empty, so every node tried ends "No preemption victims found"; the others
    # "Preemption is not helpful for scheduling".
    assert name
    c = cluster_of(*[unode(f"node{i}") for i in (1, 2, 3, 4)], upod("p", prio=HIGH))
    r = post_filter(c, statuses=statuses)
    names = [n.name for n in c.nodes]
    tried = {names[i] for i, st in r.statuses.items() if st.reasons != (NOT_HELPFUL,)}
    assert tried == expected
