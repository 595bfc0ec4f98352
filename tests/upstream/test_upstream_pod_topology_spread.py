"""PodTopologySpread: upstream's podtopologyspread test tables, ported case by case.

Ported: ``scoring_test.go`` TestPodTopologySpreadScore (exact normalised scores),
``filtering_test.go`` TestMultipleConstraints and the nodeAffinityPolicy/nodeTaintsPolicy
cases of TestSingleConstraint (its other cases, minDomains included, and TestPreFilterState
are in ``tests/scheduler/plugins/test_pod_topology_spread.py``).

Also ported: "system defaulting, nodes don't have zone, pods match service" (the system
default constraints from a Service's selector; more in tests/whatif/test_default_spread.py).

Not ported:
* "matchLabelKeys ignored when feature gate disabled": feature-gate plumbing; the
  MatchLabelKeysInPodTopologySpread gate is on (GA) and not switchable here.
* ``enableNodeInclusionPolicy`` is always on (the gate is GA), as in every ported case.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import BAR, spread
from upstream_harness import (
    OK,
    UNRES,
    UNSCHED,
    UNSCHEDULABLE_TAINT,
    codes,
    run_filter,
    run_score,
    up_node,
    up_pod,
)

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.plugins.pod_topology_spread import PodTopologySpread

HOST = "kubernetes.io/hostname"
ANY = "ScheduleAnyway"


def host(name: str, **labels: str) -> dict[str, Any]:
    return up_node(name, {HOST: name, **labels})


def zh(name: str, zone: str) -> dict[str, Any]:
    return up_node(name, {"zone": zone, HOST: name})


def zn(name: str, zone: str, *, foo: bool = False, taint: bool = False, node_label: bool = True
       ) -> dict[str, Any]:
    labels = {"zone": zone}
    if node_label:
        labels["node"] = name
    if foo:
        labels["foo"] = ""
    return up_node(name, labels, taints=[UNSCHEDULABLE_TAINT] if taint else ())


def nl(name: str, *, foo: bool = False, taint: bool = False) -> dict[str, Any]:
    labels = {"node": name, **({"foo": ""} if foo else {})}
    return up_node(name, labels, taints=[UNSCHEDULABLE_TAINT] if taint else ())


def foo_pods(**per_node: int) -> list[dict[str, Any]]:
    """``p-<n><i>`` pods labelled foo: ``foo_pods(a=2, b=1)`` puts 2 on node-a, 1 on node-b."""
    return [up_pod(f"p-{n}{i}", {"foo": ""}, node=f"node-{n}")
            for n, count in per_node.items() for i in range(1, count + 1)]


def lp(name: str, node: str, *labels: str) -> dict[str, Any]:
    """A pod with the given (empty-valued) labels on ``node-<node>``."""
    return up_pod(name, dict.fromkeys(labels, ""), node=f"node-{node}")


def incoming(*constraints: dict[str, Any], labels: tuple[str, ...] = ("foo",),
             spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return up_pod("p", dict.fromkeys(labels, ""),
                  spec={"topologySpreadConstraints": list(constraints), **(spec or {})})


NODE_SELECTOR_FOO = {"nodeSelector": {"foo": ""}}
AFFINITY_FOO_IN = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "foo", "operator": "In", "values": [""]}]}]}}}}
HOSTS_ABCD = [host("node-a"), host("node-b"), host("node-c"), host("node-d")]
ZONES_ABCD = [zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-c", "zone2"),
              zh("node-d", "zone2")]
ZONES_ABXY = [zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-x", "zone2"),
              zh("node-y", "zone2")]
NODE_ABC_FOO = [nl("node-a", foo=True), nl("node-b", foo=True), nl("node-c")]
NODE_ABC_TAINT = [nl("node-a"), nl("node-b"), nl("node-c", taint=True)]
PODS_A2_B1_C1 = foo_pods(a=2, b=1, c=1)
DIFF_SELECTOR_PODS = [lp("p-a1", "a", "foo"), lp("p-b1", "b", "foo", "bar"),
                      lp("p-y1", "y", "foo"), lp("p-y2", "y", "bar")]

# (name, incoming pod, existing pods, all nodes, candidate node names or None, want)
SCORE_CASES: list[tuple[str, dict, list, list, list[str] | None, dict[str, int]]] = [
    ("one constraint on node, no existing pods",
     incoming(spread(1, HOST, ANY)), [], [host("node-a"), host("node-b")], None,
     {"node-a": 100, "node-b": 100}),
    ("one constraint on node, only one node is candidate",
     incoming(spread(1, HOST, ANY)), foo_pods(a=2, b=1), [host("node-a"), host("node-b")],
     ["node-a"], {"node-a": 100}),
    ("one constraint on node, all nodes have the same number of matching pods",
     incoming(spread(1, HOST, ANY)), foo_pods(a=1, b=1), [host("node-a"), host("node-b")],
     None, {"node-a": 100, "node-b": 100}),
    ("one constraint on node, all 4 nodes are candidates",
     incoming(spread(1, HOST, ANY)), foo_pods(a=2, b=1, d=3), HOSTS_ABCD, None,
     {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    ("one constraint on node, null selector",
     incoming(spread(1, HOST, ANY, None)), foo_pods(a=2, b=1, d=3), HOSTS_ABCD, None,
     {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=2",
     incoming(spread(2, HOST, ANY)), foo_pods(a=2, b=1, d=3), HOSTS_ABCD, None,
     {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=3",
     incoming(spread(3, HOST, ANY)), foo_pods(a=4, b=3, c=2, d=1), HOSTS_ABCD, None,
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates",
     incoming(spread(1, HOST, ANY)), foo_pods(a=4, b=2, x=1, y=3),
     [host("node-a"), host("node-b"), host("node-x"), host("node-y")],
     ["node-a", "node-b", "node-x"], {"node-a": 33, "node-b": 83, "node-x": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match "
     "topology key",
     incoming(spread(1, HOST, ANY)), foo_pods(a=4, b=2, x=1, y=3),
     [host("node-a"), up_node("node-b", {"n": "node-b"}), host("node-x"), host("node-y")],
     ["node-a", "node-b", "node-x"], {"node-a": 16, "node-b": 0, "node-x": 100}),
    ("one constraint on zone, 3 out of 4 nodes are candidates",
     incoming(spread(1, "zone", ANY)), foo_pods(a=4, b=2, x=1, y=3), ZONES_ABXY,
     ["node-a", "node-b", "node-x"], {"node-a": 75, "node-b": 75, "node-x": 100}),
    ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
     incoming(spread(1, "zone", ANY), spread(1, HOST, ANY)), foo_pods(a=2, b=1, x=2, y=4),
     ZONES_ABXY, ["node-a", "node-x"], {"node-a": 100, "node-x": 63}),
    ("two Constraints on zone and node, with different labelSelectors",
     incoming(spread(1, "zone", ANY), spread(1, HOST, ANY, BAR), labels=("foo", "bar")),
     DIFF_SELECTOR_PODS, ZONES_ABXY, None,
     {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}),
    ("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
     incoming(spread(1, "zone", ANY), spread(1, HOST, ANY, BAR), labels=("foo", "bar")),
     [lp("p-b1", "b", "bar"), lp("p-x1", "x", "foo"), lp("p-y1", "y", "foo", "bar")],
     ZONES_ABXY, None, {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}),
    ("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
     "candidates",
     incoming(spread(1, "zone", ANY), spread(1, HOST, ANY, BAR), labels=("foo", "bar")),
     DIFF_SELECTOR_PODS, ZONES_ABXY, ["node-a", "node-b", "node-x"],
     {"node-a": 50, "node-b": 25, "node-x": 100}),
    ("existing pods in a different namespace do not count",
     incoming(spread(1, HOST, ANY)),
     [up_pod("p-a1", {"foo": ""}, node="node-a", ns="ns1"), *foo_pods(a=0, b=2),
      up_pod("p-a2", {"foo": ""}, node="node-a")],
     [host("node-a"), host("node-b")], None, {"node-a": 100, "node-b": 33}),
    ("terminating Pods should be excluded",
     incoming(spread(1, HOST, ANY)),
     [up_pod("p-a", {"foo": ""}, node="node-a", terminating=True),
      up_pod("p-b", {"foo": ""}, node="node-b")],
     [host("node-a"), host("node-b")], None, {"node-a": 100, "node-b": 0}),
    # Upstream sets minDomains=10 here and calls the case artificial: the API server rejects
    # minDomains with ScheduleAnyway, and so does our input validation (see
    # test_min_domains_with_schedule_anyway_is_rejected); scoring never reads it.
    ("minDomains has no effect when ScheduleAnyway",
     incoming(spread(2, "node", ANY)), foo_pods(a=2, b=2, c=1),
     [nl("node-a"), nl("node-b"), nl("node-c")], None,
     {"node-a": 75, "node-b": 75, "node-c": 100}),
    ("NodeAffinityPolicy honoed with labelSelectors",
     incoming(spread(1, "node", ANY), spec=NODE_SELECTOR_FOO), PODS_A2_B1_C1, NODE_ABC_FOO,
     None, {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeAffinityPolicy ignored with labelSelectors",
     incoming(spread(1, "node", ANY, nap="Ignore"), spec=NODE_SELECTOR_FOO), PODS_A2_B1_C1,
     NODE_ABC_FOO, None, {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("NodeAffinityPolicy honoed with nodeAffinity",
     incoming(spread(1, "node", ANY), spec=AFFINITY_FOO_IN), PODS_A2_B1_C1, NODE_ABC_FOO,
     None, {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     incoming(spread(1, "node", ANY, nap="Ignore"), spec=AFFINITY_FOO_IN), PODS_A2_B1_C1,
     NODE_ABC_FOO, None, {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("NodeTaintsPolicy honored",
     incoming(spread(1, "node", ANY, ntp="Honor")), PODS_A2_B1_C1, NODE_ABC_TAINT, None,
     {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeTaintsPolicy ignored",
     incoming(spread(1, "node", ANY)), PODS_A2_B1_C1, NODE_ABC_TAINT, None,
     {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
     incoming(spread(1, "zone", ANY, {}, match_label_keys=["foo"]),
              spread(1, HOST, ANY, {}, match_label_keys=["bar"]), labels=("foo", "bar")),
     [lp("p-a1", "a", "foo"), lp("p-b1", "b", "foo", "bar"), lp("p-y1", "c", "foo"),
      lp("p-y2", "c", "bar")], ZONES_ABCD, None,
     {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
     incoming(spread(1, "zone", ANY), spread(1, HOST, ANY, BAR, match_label_keys=["baz"]),
              labels=("foo", "bar", "baz")),
     [lp("p-a1", "a", "foo"), lp("p-b1", "b", "foo", "bar", "baz"), lp("p-c1", "c", "foo"),
      lp("p-c2", "c", "bar"), lp("p-d3", "c", "bar", "baz")], ZONES_ABCD, None,
     {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "candidates", "want"),
                         [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_pod_topology_spread_score(pod, pods, nodes, candidates, want) -> None:
    assert run_score(PodTopologySpread(), pod, nodes, pods, candidates) == want


def test_min_domains_with_schedule_anyway_is_rejected() -> None:
    with pytest.raises(InputError, match="minDomains"):
        run_score(PodTopologySpread(), incoming(spread(2, "node", ANY, min_domains=10)),
                  [nl("node-a")])


# ---------------------------------------------------------------------------------------
# TestMultipleConstraints and TestSingleConstraint's node inclusion policy cases
# ---------------------------------------------------------------------------------------
FOUR = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"),
        zn("node-y", "zone2")]
ZONE_NODE = (spread(1, "zone"), spread(1, "node"))
ZONE_FOO_NODE_BAR = (spread(1, "zone"), spread(1, "node", selector=BAR))
POLICY_NODES = [nl("node-a", foo=True), nl("node-b", foo=True), nl("node-x", foo=True),
                nl("node-y")]
POLICY_TAINT_NODES = [nl("node-a", foo=True), nl("node-b", foo=True), nl("node-x", foo=True),
                      nl("node-y", taint=True)]
POLICY_PODS = [lp("p-b1", "a", "foo"), lp("p-b2", "b", "foo"), lp("p-y1", "y", "foo")]
INCLUSION_PODS = [lp("p-a1", "a", "foo"), lp("p-b1", "b", "foo"), lp("p-y1", "y", "foo")]
MIXED_NODES = [zn("node-a", "zone1", foo=True), zn("node-b", "zone1"),
               zn("node-x", "zone2", foo=True), zn("node-y", "zone2", foo=True, taint=True)]

FILTER_CASES: list[tuple[str, dict, list, list, list]] = [
    ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
     incoming(*ZONE_NODE), foo_pods(a=2, b=1, y=3), FOUR, [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
     incoming(*ZONE_NODE), foo_pods(a=2, b=1, y=4), FOUR, [UNSCHED] * 4),
    ("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
     incoming(*ZONE_FOO_NODE_BAR, labels=("foo", "bar")),
     [lp("p-a1", "a", "foo"), lp("p-y1", "y", "bar")], FOUR,
     [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
     incoming(*ZONE_FOO_NODE_BAR, labels=("foo", "bar")),
     [lp("p-a1", "a", "foo"), lp("p-x1", "x", "bar"), lp("p-y1", "y", "bar")], FOUR,
     [UNSCHED] * 4),
    ("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
     incoming(*ZONE_FOO_NODE_BAR, labels=("foo", "bar")),
     [lp("p-a1", "a", "foo"), lp("p-a2", "a", "foo", "bar"), lp("p-y1", "y", "foo"),
      lp("p-y2", "y", "foo", "bar"), lp("p-y3", "y", "foo")], FOUR,
     [UNSCHED, OK, UNSCHED, UNSCHED]),
    ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
     "constraint",
     incoming(*ZONE_FOO_NODE_BAR, labels=("bar",)),
     [lp("p-a1", "a", "foo"), lp("p-x1", "x", "bar"), lp("p-y1", "y", "bar")], FOUR,
     [OK, OK, UNSCHED, UNSCHED]),
    ("two Constraints on zone and node, absence of label 'node' on node-x, "
     "spreads = [1/1, 1/0/0/1]",
     incoming(*ZONE_NODE), [lp("p-a1", "a", "foo"), lp("p-y3", "y", "foo")],
     [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2", node_label=False),
      zn("node-y", "zone2")], [UNSCHED, OK, UNRES, UNSCHED]),
    ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
     incoming(spread(1, "zone"), spread(1, "node", nap="Ignore"), spec=NODE_SELECTOR_FOO),
     INCLUSION_PODS,
     [zn("node-a", "zone1", foo=True), zn("node-b", "zone1", foo=True),
      zn("node-x", "zone2", foo=True), zn("node-y", "zone2")],
     [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
     incoming(spread(1, "zone", ntp="Honor"), spread(1, "node")), INCLUSION_PODS,
     [zn("node-a", "zone1", foo=True), zn("node-b", "zone1", foo=True),
      zn("node-x", "zone2", foo=True), zn("node-y", "zone2", taint=True)],
     [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
     incoming(*ZONE_NODE, spec=NODE_SELECTOR_FOO), INCLUSION_PODS, MIXED_NODES,
     [UNSCHED, OK, OK, UNSCHED]),
    ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
     incoming(spread(1, "zone", ntp="Honor"), spread(1, "node", nap="Ignore"),
              spec=NODE_SELECTOR_FOO), INCLUSION_PODS, MIXED_NODES,
     [UNSCHED, UNSCHED, OK, UNSCHED]),
    # TestSingleConstraint: node inclusion policies.
    ("NodeAffinityPolicy honored with labelSelectors",
     incoming(spread(1, "node"), spec=NODE_SELECTOR_FOO), POLICY_PODS, POLICY_NODES,
     [UNSCHED, UNSCHED, OK, OK]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     incoming(spread(1, "node", nap="Ignore"), spec=NODE_SELECTOR_FOO), POLICY_PODS,
     POLICY_NODES, [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("NodeAffinityPolicy honored with nodeAffinity",
     incoming(spread(1, "node"), spec=AFFINITY_FOO_IN), POLICY_PODS, POLICY_NODES,
     [UNSCHED, UNSCHED, OK, OK]),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     incoming(spread(1, "node", nap="Ignore"), spec=AFFINITY_FOO_IN), POLICY_PODS,
     POLICY_NODES, [UNSCHED, UNSCHED, OK, UNSCHED]),
    ("NodeTaintsPolicy honored",
     incoming(spread(1, "node", ntp="Honor")), POLICY_PODS, POLICY_TAINT_NODES,
     [UNSCHED, UNSCHED, OK, OK]),
    ("NodeTaintsPolicy ignored",
     incoming(spread(1, "node")), POLICY_PODS, POLICY_TAINT_NODES,
     [UNSCHED, UNSCHED, OK, UNSCHED]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want"), [c[1:] for c in FILTER_CASES],
                         ids=[c[0] for c in FILTER_CASES])
def test_pod_topology_spread_filter(pod, pods, nodes, want) -> None:
    got = codes(run_filter(PodTopologySpread(), pod, nodes, pods))
    names = [n["metadata"]["name"] for n in nodes]
    assert got == dict(zip(names, want, strict=True))


def test_system_defaulting_nodes_without_zone_pods_match_service() -> None:
    """scoring_test.go TestPodTopologySpreadScore "system defaulting, nodes don't have
    zone, pods match service": the same scores as one hostname constraint (4/3/2/1)."""
    pods = [up_pod(f"p-{n}{i}", {"foo": ""}, node=f"node-{n}")
            for n, k in (("a", 4), ("b", 3), ("c", 2), ("d", 1)) for i in range(1, k + 1)]
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
               "spec": {"selector": {"foo": ""}}}
    nodes = [host(f"node-{n}") for n in "abcd"]
    got = run_score(PodTopologySpread(), up_pod("p", {"foo": ""}), nodes, [*pods, service])
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}
    # Without the Service nothing selects the pod: PreScore skips (all 0).
    assert set(run_score(PodTopologySpread(), up_pod("p", {"foo": ""}), nodes,
                         pods).values()) == {0}
