"""NodeAffinity: upstream's node_affinity_test.go TestNodeAffinity and TestNodeAffinityPriority.

TestNodeAffinity: every case the default profile can express (28 of 31): nodeSelector,
matchExpressions operators, ANDed expressions, ORed terms, nodeSelector + affinity, invalid
values, matchFields ``metadata.name`` (with upstream's ``PreFilterResult`` node-name sets,
which kubepreempt keeps in ``CycleState.node_names``), conflicting matchFields (PreFilter
rejects), and Filter called without PreFilter. Asserted: PreFilter's status and node names,
then Filter's code and reason. A whole-cycle check shows nodes outside the node-name set
get "node(s) didn't satisfy plugin(s) [NodeAffinity]".

TestNodeAffinityPriority: 6 of 9 cases (scores after NormalizeScore, unweighted).

Not ported:

* AddedAffinity ("Matches added affinity and Pod's node affinity", "Matches added affinity
  but not Pod's node affinity", "Doesn't match added affinity"; Priority "added affinity",
  "added affinity and pod has default affinity"): plugin arguments the default profile does
  not set (``NodeAffinityArgs.AddedAffinity`` is empty there).
* Priority "PreScore returns error when an incoming Pod has a broken affinity": a
  preferred term with the label key ``"invalid key"``. The API server rejects such a pod
  (``ValidateNodeSelectorRequirement`` validates keys, unlike In/NotIn values), so it is
  never scheduled; upstream's case tests the Go error path of PreScore.
* Test_isSchedulableAfterNodeChange: queueing hints (Go plumbing).
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import UNRES, build, run_filter, run_score, up_node, up_pod

from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.node_affinity import (
    ERR_REASON,
    ERR_REASON_CONFLICT,
    NodeAffinity,
)
from kubepreempt.scheduler.scheduler import Scheduler


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


NAME_IN_NODE2 = expr("metadata.name", "In", "node2")
FOO_IN_BAR = expr("foo", "In", "bar")

# (name, pod, node labels, node name, PreFilter node names, fits) -- the matchFields cases
# after the first 21, with upstream's PreFilterResult (None: all nodes).
PREFILTER_CASES: list[tuple[str, dict, dict[str, str], str, set[str] | None, bool]] = [
    ("Pod with matchFields using In operator that matches the existing node",
     affinity_pod(fields(NAME_IN_NODE1)), {}, "node1", {"node1"}, True),
    ("Pod with matchFields using In operator that does not match the existing node",
     affinity_pod(fields(NAME_IN_NODE1)), {}, "node2", {"node1"}, False),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     affinity_pod(fields(NAME_IN_NODE1, NAME_IN_NODE2), exprs(FOO_IN_BAR)), {"foo": "bar"},
     "node2", None, True),
    ("Pod with one term: matchFields does not match, but matchExpressions matches",
     affinity_pod({**fields(NAME_IN_NODE1), **exprs(FOO_IN_BAR)}), {"foo": "bar"}, "node2",
     {"node1"}, False),
    ("Pod with one term: both matchFields and matchExpressions match",
     affinity_pod({**fields(NAME_IN_NODE1), **exprs(FOO_IN_BAR)}), {"foo": "bar"}, "node1",
     {"node1"}, True),
    ("Pod with two terms: both matchFields and matchExpressions do not match",
     affinity_pod(fields(NAME_IN_NODE1), exprs(expr("foo", "In", "not-match-to-bar"))),
     {"foo": "bar"}, "node2", None, False),
    ("Pod with two terms of node.Name affinity",
     affinity_pod(fields(NAME_IN_NODE1), fields(NAME_IN_NODE2)), {}, "node2",
     {"node1", "node2"}, True),
]


@pytest.mark.parametrize(("pod", "labels", "node_name", "names", "fits"),
                         [c[1:] for c in PREFILTER_CASES], ids=[c[0] for c in PREFILTER_CASES])
def test_node_affinity_prefilter_result(pod, labels, node_name, names, fits) -> None:
    cluster, _pod, state = build(pod, [up_node(node_name, labels)])
    plugin = NodeAffinity()
    assert plugin.relevant(state)
    assert plugin.pre_filter(state) is None
    assert state.node_names == (None if names is None else frozenset(names))
    status = plugin.filter(state, cluster.node_view(cluster.node_index[node_name]))
    if fits:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNRES, (ERR_REASON,))


def test_two_conflicting_match_field_requirements() -> None:
    """Upstream "Pod with two conflicting mach field requirements": PreFilter rejects with
    errReasonConflict; Filter alone gives the usual reason."""
    pod = affinity_pod(fields(NAME_IN_NODE1, NAME_IN_NODE2))
    cluster, _pod, state = build(pod, [up_node("node2", {"foo": "bar"})])
    plugin = NodeAffinity()
    pre = plugin.pre_filter(state)
    assert (pre.code, pre.reasons) == (UNRES, (ERR_REASON_CONFLICT,))
    status = plugin.filter(state, cluster.node_view(cluster.node_index["node2"]))
    assert (status.code, status.reasons) == (UNRES, (ERR_REASON,))
    # The whole cycle: every node gets the PreFilter status.
    outcome = Scheduler(cluster).find_feasible(_pod)
    assert outcome.feasible.size == 0
    assert outcome.prefilter is not None
    assert outcome.prefilter.reasons == (ERR_REASON_CONFLICT,)


@pytest.mark.parametrize("pod", [
    pytest.param(up_pod("p", spec={"nodeSelector": {"foo": "bar"}}),
                 id="Matches node selector correctly even if PreFilter is not called"),
    pytest.param(affinity_pod(exprs(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
                 id="Matches node affinity correctly even if PreFilter is not called"),
])
def test_filter_without_prefilter(pod) -> None:
    labels = ({"foo": "bar", "baz": "blah"} if "nodeSelector" in pod["spec"]
              else {"GPU": "NVIDIA-GRID-K1"})
    cluster, _pod, state = build(pod, [up_node("node", labels)])
    assert NodeAffinity().filter(state, cluster.node_view(0)) is None


def test_prefilter_node_names_in_whole_cycle() -> None:
    """The PreFilterResult cases through ``find_feasible``: nodes outside the name set are
    not evaluated and get upstream's "didn't satisfy plugin(s)" status."""
    pod = affinity_pod({**fields(NAME_IN_NODE1), **exprs(FOO_IN_BAR)})
    cluster, p, _state = build(pod, [up_node("node1", {"foo": "bar"}),
                                     up_node("node2", {"foo": "bar"}),
                                     up_node("node3")])
    outcome = Scheduler(cluster).find_feasible(p)
    assert [cluster.nodes[i].name for i in outcome.feasible.tolist()] == ["node1"]
    for name in ("node2", "node3"):
        status = outcome.statuses[cluster.node_index[name]]
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("node(s) didn't satisfy plugin(s) [NodeAffinity]",)


# --- TestNodeAffinityPriority ---------------------------------------------------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def preferred_pod(*terms: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return up_pod("p", spec={"affinity": {"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "preference": {"matchExpressions": e}} for w, e in terms]}}})


AFFINITY1 = preferred_pod((2, [FOO_IN_BAR]))
AFFINITY2 = preferred_pod((2, [FOO_IN_BAR]), (4, [expr("key", "In", "value")]),
                          (5, [FOO_IN_BAR, expr("key", "In", "value"), expr("az", "In", "az1")]))

# (name, pod, [(node, labels)], expected scores)
PRIORITY_CASES = [
    ("all nodes are same priority as NodeAffinity is nil", up_pod("p"),
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
     {"node1": 0, "node2": 0, "node3": 0}),
    ("no node matches preferred scheduling requirements in NodeAffinity of pod so all "
     "nodes' priority is zero", AFFINITY1,
     [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
     {"node1": 0, "node2": 0, "node3": 0}),
    ("only node1 matches the preferred scheduling requirements of pod", AFFINITY1,
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
     {"node1": 100, "node2": 0, "node3": 0}),
    ("all nodes matches the preferred scheduling requirements of pod but with different "
     "priorities ", AFFINITY2, [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
     {"node1": 18, "node5": 100, "node2": 36}),
    ("calculate the priorities correctly even if PreScore is not called", AFFINITY2,
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
     {"node1": 18, "node5": 100, "node2": 36}),
]


@pytest.mark.parametrize(("pod", "nodes", "want"), [c[1:] for c in PRIORITY_CASES],
                         ids=[c[0] for c in PRIORITY_CASES])
def test_node_affinity_priority(pod, nodes, want) -> None:
    assert run_score(NodeAffinity(), pod, [up_node(n, lbl) for n, lbl in nodes]) == want


def test_skip_is_returned_in_prescore_when_node_affinity_is_nil() -> None:
    """Upstream "Skip is returned in PreScore when NodeAffinity is nil"."""
    _cluster, _pod, state = build(up_pod("p"), [up_node("node1", LABEL1)])
    assert not NodeAffinity().score_relevant(state)
