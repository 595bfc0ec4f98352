"""TaintToleration: upstream's taint_toleration_test.go tables.

Ported: TestTaintTolerationScore (normalised scores) and TestTaintTolerationFilter.

Filter reason: the stored upstream table expects "node(s) had untolerated taint {key:
value}"; current upstream (kubernetes/kubernetes#134740, cherry-picked to 1.34) no longer
names the taint and reports "node(s) had untolerated taint(s)", which is what kubepreempt
prints. The cases assert that wording and upstream's UnschedulableAndUnresolvable code.

Not ported: TestIsSchedulableAfterNodeChange / Test_isSchedulableAfterPodChange (queueing
hints: scheduling-queue plumbing kubepreempt does not model).
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import UNRES, run_filter, run_score, up_node, up_pod

from kubepreempt.scheduler.plugins.taint_toleration import TaintToleration

PREFER = "PreferNoSchedule"
UNTOLERATED = ("node(s) had untolerated taint(s)",)


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, value: str | None = None, effect: str = "", op: str = "Equal"
        ) -> dict[str, str]:
    out = {"key": key, "operator": op}
    if value is not None:
        out["value"] = value
    if effect:
        out["effect"] = effect
    return out


def tpod(*tolerations: dict[str, str]) -> dict[str, Any]:
    return up_pod("pod1", spec={"tolerations": list(tolerations)})


CPU_ARM = taint("cpu-type", "arm64", PREFER)
DISK_SSD = taint("disk-type", "ssd", PREFER)
SCORE_CASES = [
    ("node with taints tolerated by the pod, gets a higher score than those node with "
     "intolerable taints", tpod(tol("foo", "bar", PREFER)),
     [up_node("nodeA", taints=[taint("foo", "bar", PREFER)]),
      up_node("nodeB", taints=[taint("foo", "blah", PREFER)])], {"nodeA": 100, "nodeB": 0}),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no "
     "matter how many tolerable taints a node has",
     tpod(tol("cpu-type", "arm64", PREFER), tol("disk-type", "ssd", PREFER)),
     [up_node("nodeA"), up_node("nodeB", taints=[CPU_ARM]),
      up_node("nodeC", taints=[CPU_ARM, DISK_SSD])],
     {"nodeA": 100, "nodeB": 100, "nodeC": 100}),
    ("the more intolerable taints a node has, the lower score it gets.",
     tpod(tol("foo", "bar", PREFER)),
     [up_node("nodeA"), up_node("nodeB", taints=[CPU_ARM]),
      up_node("nodeC", taints=[CPU_ARM, DISK_SSD])], {"nodeA": 100, "nodeB": 50, "nodeC": 0}),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by "
     "taints-tolerations priority function",
     tpod(tol("cpu-type", "arm64", "NoSchedule"), tol("disk-type", "ssd", "NoSchedule")),
     [up_node("nodeA"), up_node("nodeB", taints=[taint("cpu-type", "arm64", "NoSchedule")]),
      up_node("nodeC", taints=[CPU_ARM, DISK_SSD])],
     {"nodeA": 100, "nodeB": 100, "nodeC": 0}),
    ("Default behaviour No taints and tolerations, lands on node with no taints", tpod(),
     [up_node("nodeA"), up_node("nodeB", taints=[CPU_ARM])], {"nodeA": 100, "nodeB": 0}),
]


@pytest.mark.parametrize(("pod", "nodes", "want"), [c[1:] for c in SCORE_CASES],
                         ids=[c[0] for c in SCORE_CASES])
def test_taint_toleration_score(pod, nodes, want) -> None:
    assert run_score(TaintToleration(), pod, nodes) == want


DEDICATED_USER1 = taint("dedicated", "user1", "NoSchedule")
FILTER_CASES = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     tpod(), [DEDICATED_USER1], False),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect "
     "NoSchedule", tpod(tol("dedicated", "user1", "NoSchedule", op="")), [DEDICATED_USER1],
     True),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
     "NoSchedule", tpod(tol("dedicated", "user2", "NoSchedule")), [DEDICATED_USER1], False),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that "
     "tolerates the taints on the node", tpod(tol("foo", None, "NoSchedule", op="Exists")),
     [taint("foo", "bar", "NoSchedule")], True),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
     "pod can be scheduled onto the node",
     tpod(tol("dedicated", "user2", "NoSchedule"), tol("foo", None, "NoSchedule", op="Exists")),
     [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], True),
    ("A pod has a toleration that keys and values match the taint on the node, but "
     "(non-empty) effect doesn't match, can't be scheduled onto the node",
     tpod(tol("foo", "bar", PREFER)), [taint("foo", "bar", "NoSchedule")], False),
    ("The pod has a toleration that keys and values match the taint on the node, the effect "
     "of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled "
     "onto the node", tpod(tol("foo", "bar")), [taint("foo", "bar", "NoSchedule")], True),
    ("The pod has a toleration that key and value don't match the taint on the node, but the "
     "effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     tpod(tol("dedicated", "user2", "NoSchedule")), [taint("dedicated", "user1", PREFER)],
     True),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod "
     "can be scheduled onto the node", tpod(), [taint("dedicated", "user1", PREFER)], True),
]


@pytest.mark.parametrize(("pod", "taints", "fits"), [c[1:] for c in FILTER_CASES],
                         ids=[c[0] for c in FILTER_CASES])
def test_taint_toleration_filter(pod, taints, fits) -> None:
    status = run_filter(TaintToleration(), pod, [up_node("nodeA", taints=taints)])["nodeA"]
    if fits:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNRES, UNTOLERATED)
