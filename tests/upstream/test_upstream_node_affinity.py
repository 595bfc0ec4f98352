"""NodeAffinity: upstream's node_affinity_test.go TestNodeAffinity (Filter) table.

Ported: the first 21 TestNodeAffinity cases (nodeSelector, matchExpressions operators,
ANDed expressions, ORed terms, nodeSelector + affinity, invalid values, matchFields
metadata.name), asserting Filter's verdict (code and reason). The ``PreFilterResult``
node-name sets upstream also checks are Go plumbing (a node-list shortcut, same verdicts).

Not yet ported (time): the remaining TestNodeAffinity cases (AddedAffinity plugin args are
configuration plumbing anyway) and TestNodeAffinityPriority (score table).
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import UNRES, run_filter, up_node, up_pod

from kubepreempt.scheduler.plugins.node_affinity import ERR_REASON, NodeAffinity


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def affinity_pod(*terms: dict[str, Any], selector: dict[str, str] | None = None,
                 required: bool = True) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if selector:
        spec["nodeSelector"] = selector
    if required:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": list(terms)}}}
    else:
        spec["affinity"] = {"nodeAffinity": {}}
    return up_pod("p", spec=spec)


def exprs(*e: dict[str, Any]) -> dict[str, Any]:
    return {"matchExpressions": list(e)}


def fields(*e: dict[str, Any]) -> dict[str, Any]:
    return {"matchFields": list(e)}


NAME_IN_NODE1 = expr("metadata.name", "In", "node1")

# (name, pod, node labels, node name, fits)
CASES: list[tuple[str, dict, dict[str, str], str, bool]] = [
    ("missing labels", up_pod("p", spec={"nodeSelector": {"foo": "bar"}}), {}, "node", False),
    ("same labels", up_pod("p", spec={"nodeSelector": {"foo": "bar"}}), {"foo": "bar"}, "node",
     True),
    ("node labels are superset", up_pod("p", spec={"nodeSelector": {"foo": "bar"}}),
     {"foo": "bar", "baz": "blah"}, "node", True),
    ("node labels are subset", up_pod("p", spec={"nodeSelector": {"foo": "bar", "baz": "blah"}}),
     {"foo": "bar"}, "node", False),
    ("Pod with matchExpressions using In operator that matches the existing node",
     affinity_pod(exprs(expr("foo", "In", "bar", "value2"))), {"foo": "bar"}, "node", True),
    ("Pod with matchExpressions using Gt operator that matches the existing node",
     affinity_pod(exprs(expr("kernel-version", "Gt", "0204"))), {"kernel-version": "0206"},
     "node", True),
    ("Pod with matchExpressions using NotIn operator that matches the existing node",
     affinity_pod(exprs(expr("mem-type", "NotIn", "DDR", "DDR2"))), {"mem-type": "DDR3"},
     "node", True),
    ("Pod with matchExpressions using Exists operator that matches the existing node",
     affinity_pod(exprs(expr("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, "node", True),
    ("Pod with affinity that don't match node's labels won't schedule onto the node",
     affinity_pod(exprs(expr("foo", "In", "value1", "value2"))), {"foo": "bar"}, "node",
     False),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't "
     "schedule onto the node", affinity_pod(exprs()), {"foo": "bar"}, "node", False),
    ("Pod with no Affinity will schedule onto a node", up_pod("p"), {"foo": "bar"}, "node",
     True),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node",
     affinity_pod(required=False), {"foo": "bar"}, "node", True),
    ("Pod with multiple matchExpressions ANDed that matches the existing node",
     affinity_pod(exprs(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
     {"GPU": "NVIDIA-GRID-K1"}, "node", True),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
     affinity_pod(exprs(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))),
     {"GPU": "NVIDIA-GRID-K1"}, "node", False),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and "
     "will schedule onto the node",
     affinity_pod(exprs(expr("foo", "In", "bar", "value2")),
                  exprs(expr("diffkey", "In", "wrong", "value2"))), {"foo": "bar"}, "node",
     True),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
     "both are satisfied, will schedule onto the node",
     affinity_pod(exprs(expr("foo", "Exists")), selector={"foo": "bar"}), {"foo": "bar"},
     "node", True),
    ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
     "that we are deprecating) is not satisfied, won't schedule onto the node",
     affinity_pod(exprs(expr("foo", "Exists")), selector={"foo": "bar"}),
     {"foo": "barrrrrr"}, "node", False),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
     affinity_pod(exprs(expr("foo", "NotIn", "invalid value: ___@#$%^"))), {"foo": "bar"},
     "node", False),
    ("Pod with matchFields using In operator that matches the existing node",
     affinity_pod(fields(NAME_IN_NODE1)), {}, "node1", True),
    ("Pod with matchFields using In operator that does not match the existing node",
     affinity_pod(fields(NAME_IN_NODE1)), {}, "node2", False),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     affinity_pod(fields(NAME_IN_NODE1, expr("metadata.name", "In", "node2")),
                  exprs(expr("foo", "In", "bar"))), {"foo": "bar"}, "node2", True),
]


@pytest.mark.parametrize(("pod", "labels", "node_name", "fits"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_node_affinity_filter(pod, labels, node_name, fits) -> None:
    status = run_filter(NodeAffinity(), pod, [up_node(node_name, labels)])[node_name]
    if fits:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNRES, (ERR_REASON,))
