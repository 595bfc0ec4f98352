"""PodTopologySpread: upstream's filtering_test.go TestPreFilterStateAddPod.

Each case runs PreFilter for the preemptor, then AddPod of one pod on one node (what the
preemption and nominated-pod paths do), and checks upstream's ``TpPairToMatchNum`` (our
per-constraint ``counts``) and the critical-path minimum (``min_match``).

Ported: every case with the NodeInclusionPolicyInPodTopologySpread gate on (GA, the only
setting): 14 of 16. Not ported: "add a pod when scheduling node affinity unmatched pod with
NodeInclusionPolicy disabled" and "add a pod when scheduling node affinity matched pod with
NodeInclusionPolicy disabled" (feature gate switched off; the "taint untolerated ...
disabled" case is kept, as its constraint's default nodeTaintsPolicy Ignore gives the same
state with the gate on).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import cluster_of
from upstream_harness import UNSCHEDULABLE_TAINT, build, up_node, up_pod

from kubepreempt.scheduler.plugins.pod_topology_spread import PodTopologySpread

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


def sc(key: str, selector: dict[str, Any] = FOO) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": selector}


def preemptor(*constraints: dict[str, Any], labels: dict[str, str] | None = None,
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return up_pod("p", labels or {"foo": ""},
                  spec={"topologySpreadConstraints": list(constraints), **(extra or {})})


def n(name: str, zone: str, **labels: str) -> dict[str, Any]:
    return up_node(name, {"zone": zone, "node": name, **labels})


def lp(name: str, node: str, *keys: str, ns: str = "default", **labels: str) -> dict[str, Any]:
    return up_pod(name, {**dict.fromkeys(keys, ""), **labels}, node=node, ns=ns)


AB = [n("node-a", "zone1"), n("node-b", "zone1")]
AX = [n("node-a", "zone1"), n("node-x", "zone2")]
ABX = [n("node-a", "zone1"), n("node-b", "zone1"), n("node-x", "zone2")]
AFF_AB = [n("node-a", "zone1", foo="bar"), n("node-b", "zone2", foo="")]
TAINT_AB = [up_node("node-a", {"zone": "zone1", "node": "node-a"}, taints=[UNSCHEDULABLE_TAINT]),
            n("node-b", "zone2")]
NOT_IN_FOO_BAR = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "foo", "operator": "NotIn", "values": ["bar"]}]}]}}}}
EXISTING_ZONED = [lp("p-a1", "node-a", "foo", zone="zone1"),
                  lp("p-b2", "node-b", "foo", zone="zone2")]

# (name, preemptor, added pod, existing pods, nodes, counts per constraint, minimums)
CASES = [
    ("node a and b both impact current min match", preemptor(sc("node")),
     lp("p-a1", "node-a", "foo"), [], AB, [{"node-a": 1, "node-b": 0}], [0]),
    ("only node a impacts current min match", preemptor(sc("node")),
     lp("p-a1", "node-a", "foo"), [lp("p-b1", "node-b", "foo")], AB,
     [{"node-a": 1, "node-b": 1}], [1]),
    ("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
     preemptor(sc("node")), lp("p-a1", "node-a", "foo", ns="ns1"),
     [lp("p-b1", "node-b", "foo")], AB, [{"node-a": 0, "node-b": 1}], [0]),
    ("add pod on non-critical node won't trigger re-calculation", preemptor(sc("node")),
     lp("p-b2", "node-b", "foo"), [lp("p-b1", "node-b", "foo")], AB,
     [{"node-a": 0, "node-b": 2}], [0]),
    ("node a and x both impact topologyKeyToMinPodsMap on zone and node",
     preemptor(sc("zone"), sc("node")), lp("p-a1", "node-a", "foo"), [], AX,
     [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}], [0, 0]),
    ("only node a impacts topologyKeyToMinPodsMap on zone and node",
     preemptor(sc("zone"), sc("node")), lp("p-a1", "node-a", "foo"),
     [lp("p-x1", "node-x", "foo")], AX,
     [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}], [1, 1]),
    ("node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap "
     "on zone", preemptor(sc("zone"), sc("node")), lp("p-a1", "node-a", "foo"),
     [lp("p-b1", "node-b", "foo"), lp("p-b2", "node-b", "foo"), lp("p-x1", "node-x", "foo")],
     ABX, [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}], [1, 1]),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
     preemptor(sc("zone"), sc("node", BAR), labels={"foo": "", "bar": ""}),
     lp("p-a1", "node-a", "foo"),
     [lp("p-b1", "node-b", "foo", "bar"), lp("p-x1", "node-x", "foo", "bar"),
      lp("p-x2", "node-x", "bar")],
     ABX, [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}], [1, 0]),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on "
     "both zone and node",
     preemptor(sc("zone"), sc("node", BAR), labels={"foo": "", "bar": ""}),
     lp("p-a1", "node-a", "foo", "bar"),
     [lp("p-b1", "node-b", "bar"), lp("p-x1", "node-x", "foo", "bar"),
      lp("p-x2", "node-x", "bar")],
     ABX, [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}], [1, 1]),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
     preemptor(sc("zone"), extra=NOT_IN_FOO_BAR), lp("p-a1", "node-a", "foo", zone="zone1"),
     [lp("p-a2", "node-a", "foo", zone="zone1"), lp("p-b1", "node-b", "foo", zone="zone2")],
     AFF_AB, [{"zone2": 1}], [1]),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
     preemptor(sc("zone")), lp("p-b1", "node-b", "foo", zone="zone2"), EXISTING_ZONED,
     AFF_AB, [{"zone1": 1, "zone2": 2}], [1]),
    ("add a label selector not matched pod when with NodeInclusionPolicy enabled",
     preemptor(sc("zone")), lp("p-b1", "node-b", zone="zone2"), EXISTING_ZONED, AFF_AB,
     [{"zone1": 1, "zone2": 1}], [1]),
    ("add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
     preemptor(sc("zone")), lp("p-b1", "node-b", "foo", zone="zone2"), EXISTING_ZONED,
     TAINT_AB, [{"zone1": 1, "zone2": 2}], [1]),
    ("add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
     preemptor(sc("zone"), extra={"tolerations": [
         {"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
          "effect": "NoSchedule"}]}),
     lp("p-b1", "node-b", "foo", zone="zone2"), EXISTING_ZONED, TAINT_AB,
     [{"zone1": 1, "zone2": 2}], [1]),
]


@pytest.mark.parametrize(("pod", "added", "pods", "nodes", "counts", "minimums"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_prefilter_state_add_pod(pod, added, pods, nodes, counts, minimums) -> None:
    cluster, _pod, state = build(pod, nodes, pods)
    plugin = PodTopologySpread()
    assert plugin.pre_filter(state) is None
    node = added["spec"]["nodeName"]
    meta = added["metadata"]
    added_pod = cluster_of(*nodes, added).find_pod(f"{meta['namespace']}/{meta['name']}")
    plugin.add_pod(state, added_pod, cluster.node_view(cluster.node_index[node]))
    s = state.data[plugin.name]
    assert s.counts == counts
    assert [s.min_match(i) for i in range(len(counts))] == minimums
