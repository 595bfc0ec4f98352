"""Whole scheduling cycles: upstream's schedule_one_test.go TestSchedulerSchedulePod table.

Upstream registers a small plugin set per case; a case is ported only where the default
profile gives the same answer. Upstream's nodes have no allocatable (its test profiles
have no NodeResourcesFit); here they get the builders' default capacity, which changes
no outcome. Where upstream accepts a set of nodes (random tie-break among equal scores)
the chosen node must be in that set.

Ported (upstream case name):

* "test 2" (TrueFilter): two empty nodes, an empty pod -> node1 or node2.
* "test podtopologyspread plugin - 2 nodes with maxskew=1" -> node2.
* "test podtopologyspread plugin - 3 nodes with maxskew=2" -> node2 or node3 (the default
  profile's spread scoring prefers node3, inside upstream's set).
* "test all prescore plugins return skip" -> node1 or node2.
* "test without score plugin no extra nodes are evaluated" -> node1, node2 or node3
  (EvaluatedNodes is not modelled; only the chosen node is checked).

Not ported, and why:

* Fake filter / score / prefilter plugins whose behaviour no real plugin has: "test 1",
  "test 3".."test 8" (FalseFilter, MatchFilter, NoPodsFilter, NumericMap,
  ReverseNumericMap), "test error with priority map" (FalseMap), "test with filter plugin
  returning Unschedulable status" / "... UnschedulableAndUnresolvable status" / "test with
  partial failed filter plugin" (FakeFilter keyed by node name; the expected statuses and
  reason text "injecting failure for pod ..." are the fake's), every "test prefilter
  plugin returning ..." case (FakePreFilter results, Skip and Error statuses), "test some
  nodes are filtered out by prefilter plugin and other are filtered out by filter plugin",
  "test prefilter plugin returned an invalid node" and "test no score plugin, prefilter
  plugin returning 2 nodes".
* Extenders: "test with extender which filters out some Nodes" (kubepreempt models no
  scheduler extenders).
* VolumeBinding: "existing PVC", "unknown PVC", "deleted PVC", "hostname and nodename of
  the node do not match" (PVCs / PVs are not loaded).
* TestFindFitAllError / TestFindFitSomeError / TestFindFitPredicateCallCounts (fake
  filters, call counts), TestSchedulerScheduleOne / TestSchedulerMultipleProfilesScheduling
  (binding, events, profiles), Test_prioritizeNodes (fake prioritizers and extenders).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import FOO, cluster_of, node, pod, spread

from kubepreempt.decide import SCHEDULED, schedule


def _pending(name: str, **kw: Any) -> dict[str, Any]:
    return pod(name, **kw)


def _bound(name: str, on: str) -> dict[str, Any]:
    return pod(name, node_name=on, labels={"foo": ""}, status_extra={"phase": "Running"})


HOST = "kubernetes.io/hostname"

CASES: list[tuple[str, list[str], dict[str, Any], list[dict[str, Any]], set[str]]] = [
    ("test 2", ["node1", "node2"], _pending("ignore"), [], {"node1", "node2"}),
    ("test podtopologyspread plugin - 2 nodes with maxskew=1", ["node1", "node2"],
     _pending("p", labels={"foo": ""},
              spec_extra={"topologySpreadConstraints": [spread(1, HOST, selector=FOO)]}),
     [_bound("pod1", "node1")], {"node2"}),
    ("test podtopologyspread plugin - 3 nodes with maxskew=2", ["node1", "node2", "node3"],
     _pending("p", labels={"foo": ""},
              spec_extra={"topologySpreadConstraints": [spread(2, HOST, selector=FOO)]}),
     [_bound("pod1a", "node1"), _bound("pod1b", "node1"), _bound("pod2", "node2")],
     {"node2", "node3"}),
    ("test all prescore plugins return skip", ["node1", "node2"], _pending("ignore"), [],
     {"node1", "node2"}),
    ("test without score plugin no extra nodes are evaluated", ["node1", "node2", "node3"],
     _pending("pod1"), [], {"node1", "node2", "node3"}),
]


@pytest.mark.parametrize(("nodes", "target", "pods", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_schedule_pod(nodes: list[str], target: dict[str, Any], pods: list[dict[str, Any]],
                      want: set[str]) -> None:
    cluster = cluster_of(*(node(n) for n in nodes), *pods, target)
    decision = schedule(cluster, f"default/{target['metadata']['name']}")
    assert decision.result == SCHEDULED, decision.message
    assert decision.node in want
    # every node outside upstream's allowed set was filtered out (none were tie-broken away)
    assert set(decision.statuses) == set(nodes) - want


def test_spread_maxskew_2_default_profile_prefers_emptiest() -> None:
    """Inside upstream's {node2, node3}: the default profile's PodTopologySpread score
    (fewest matching pods) breaks the tie for node3."""
    _, nodes, target, pods, _ = CASES[2]
    cluster = cluster_of(*(node(n) for n in nodes), *pods, target)
    assert schedule(cluster, "default/p").node == "node3"
