"""TaintToleration rules a mutation run found unguarded.

Expected answers from upstream ``tainttoleration/taint_toleration.go``:

* Filter rejects a node with a NoSchedule/NoExecute taint no toleration tolerates
  (``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``), as
  UnschedulableAndUnresolvable; the framework names the plugin on the status
  (``frameworkImpl.RunFilterPlugins``: ``WithPlugin(pl.Name())``).
* Score counts a node's PreferNoSchedule taints not tolerated by the pod's tolerations
  whose effect is PreferNoSchedule or empty (``getAllTolerationPreferNoSchedule``:
  "Empty effect means all effects"; ``countIntolerableTaintsPreferNoSchedule``), then
  ``DefaultNormalizeScore(MaxNodeScore, reverse=true)``: 100 - 100 * count / max count,
  100 everywhere when the max count is 0.
* ``isSchedulableAfterNodeChange`` (``TestIsSchedulableAfterNodeChange``): a node added
  whose hard taints the pod all tolerates is Queue, one with an untolerated hard taint
  QueueSkip.

``node_local_score`` / ``score_node`` / ``passes_node`` are the score cache's one-node
forms: they must give what Score + NormalizeScore / Filter give.
"""

from __future__ import annotations

import numpy as np
from builders.plugins import make_cluster, make_node, make_pod, new_state

from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.taint_toleration import (
    ERR_REASON,
    TaintToleration,
    events_to_register,
    is_schedulable_after_node_change,
)
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent

UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
PREFER = "PreferNoSchedule"


def _tol(key: str, value: str, effect: str = "") -> dict[str, str]:
    out = {"key": key, "operator": "Equal", "value": value}
    if effect:
        out["effect"] = effect
    return out


# ---- Filter: the status names its plugin --------------------------------------------------

def _dedicated_cluster():
    """nodeA tainted dedicated=user1:NoSchedule (TestTaintTolerationFilter), nodeB clean."""
    return make_cluster([make_node("nodeA", taints=[("dedicated", "user1", "NoSchedule")]),
                         make_node("nodeB")])


def test_filter_status_on_untolerated_taint_is_taint_tolerations() -> None:
    """"A pod having no tolerations can't be scheduled onto a node with nonempty taints":
    UnschedulableAndUnresolvable, from TaintToleration, on the per-node and the vector
    path alike; the clean node passes."""
    cluster = _dedicated_cluster()
    state = new_state(make_pod("p"), cluster)
    plugin = TaintToleration()
    status = plugin.filter(state, cluster.node_view(0))
    assert (status.code, status.reasons, status.plugin) == (UNRES, (ERR_REASON,),
                                                             "TaintToleration")
    assert plugin.filter(state, cluster.node_view(1)) is None
    groups = plugin.filter_nodes(state, np.arange(2, dtype=np.int64))
    assert [(bad.tolist(), s.code, s.reasons, s.plugin) for bad, s in groups] == \
        [([0], UNRES, (ERR_REASON,), "TaintToleration")]


def test_passes_node_is_the_filter_verdict() -> None:
    """``passes_node``, asked first on a fresh cluster: False on the node whose
    NoSchedule taint the pod does not tolerate, True on the clean node; a pod tolerating
    dedicated=user1:NoSchedule ("A pod which can be scheduled on a dedicated node
    assigned to user1 with effect NoSchedule") passes both."""
    cluster = _dedicated_cluster()
    plugin = TaintToleration()
    state = new_state(make_pod("p"), cluster)
    assert [plugin.passes_node(state, i) for i in (0, 1)] == [False, True]
    tolerant = new_state(make_pod("q", tolerations=[_tol("dedicated", "user1", "NoSchedule")]),
                         cluster)
    assert [plugin.passes_node(tolerant, i) for i in (0, 1)] == [True, True]


# ---- Score: the one-node forms -------------------------------------------------------------

def _prefer_cluster():
    """nodeA with one PreferNoSchedule taint, nodeB with two, nodeC clean."""
    return make_cluster([
        make_node("nodeA", taints=[("cpu-type", "arm64", PREFER)]),
        make_node("nodeB", taints=[("cpu-type", "arm64", PREFER), ("disk-type", "ssd", PREFER)]),
        make_node("nodeC"),
    ])


def test_score_node_is_the_normalisation_over_that_node_alone() -> None:
    """Over one node, DefaultNormalizeScore (reverse) gives 0 where the node has any
    untolerated PreferNoSchedule taint (its count is the max) and 100 where it has none,
    whatever the count (1 or 2); asked first on a fresh cluster."""
    cluster = _prefer_cluster()
    state = new_state(make_pod("p"), cluster)
    plugin = TaintToleration()
    assert [plugin.score_node(state, i) for i in (0, 1, 2)] == [0, 0, 100]
    # Over all three: "the more intolerable taints a node has, the lower score it gets".
    assert plugin.score(state, np.arange(3, dtype=np.int64)).tolist() == [50, 0, 100]


def test_tolerated_prefer_taints_score_100_on_the_one_node_path() -> None:
    """"the nodes that all of their taints are tolerated by the pod, get the same score":
    a pod tolerating both PreferNoSchedule taints scores 100 on every node, on its own
    (``score_node``, asked first on a fresh cluster) and in ``node_local_score``'s check
    (no node has an untolerated PreferNoSchedule taint)."""
    cluster = _prefer_cluster()
    pod = make_pod("p", tolerations=[_tol("cpu-type", "arm64", PREFER),
                                     _tol("disk-type", "ssd", PREFER)])
    state = new_state(pod, cluster)
    plugin = TaintToleration()
    assert [plugin.score_node(state, i) for i in (0, 1, 2)] == [100, 100, 100]
    assert plugin.node_local_score(state) is True


def test_node_local_score_only_when_no_untolerated_prefer_taint() -> None:
    """A pod with no tolerations has untolerated PreferNoSchedule taints on nodeA/nodeB
    (scores 50/0/100 differ): not node-local. Asked first on a fresh cluster, and the
    answer for a tolerating pod afterwards in the same snapshot is its own (True): the
    counts are kept per set of tolerations."""
    cluster = _prefer_cluster()
    plugin = TaintToleration()
    assert plugin.node_local_score(new_state(make_pod("p"), cluster)) is False
    tolerant = new_state(make_pod("q", tolerations=[_tol("cpu-type", "arm64", PREFER),
                                                    _tol("disk-type", "ssd", PREFER)]), cluster)
    assert plugin.node_local_score(tolerant) is True
    assert [plugin.score_node(tolerant, i) for i in (0, 1, 2)] == [100, 100, 100]


def test_one_node_score_is_per_pod_in_one_snapshot() -> None:
    """Two pods in one snapshot: the tolerating pod is scored first (100 on nodeA), then
    the pod without tolerations gets its own 0 on nodeA, not the first pod's answer."""
    cluster = _prefer_cluster()
    plugin = TaintToleration()
    tolerant = new_state(make_pod("q", tolerations=[_tol("cpu-type", "arm64", PREFER)]),
                         cluster)
    assert plugin.score_node(tolerant, 0) == 100
    assert plugin.score_node(new_state(make_pod("p"), cluster), 0) == 0


def test_empty_effect_toleration_counts_for_prefer_no_schedule() -> None:
    """``getAllTolerationPreferNoSchedule`` keeps a toleration with no effect ("Empty
    effect means all effects which includes PreferNoSchedule"): a pod tolerating
    cpu-type=arm64 with no effect scores nodeA (only that taint) like the clean nodeC,
    100, and nodeB (one untolerated taint, the max) 0."""
    cluster = _prefer_cluster()
    state = new_state(make_pod("p", tolerations=[_tol("cpu-type", "arm64")]), cluster)
    plugin = TaintToleration()
    assert plugin.score(state, np.arange(3, dtype=np.int64)).tolist() == [100, 0, 100]
    assert [plugin.score_node(state, i) for i in (0, 1, 2)] == [100, 0, 100]


# ---- queueing hint (TestIsSchedulableAfterNodeChange) --------------------------------------

def _node_added(*taints: tuple[str, str, str]) -> ClusterEvent:
    return ClusterEvent(NODE_ADD, node=make_node("nodeA", taints=list(taints)))


def _user2_pod():
    return make_pod("pod1", tolerations=[_tol("dedicated", "user2", "NoSchedule")])


def test_node_added_with_untolerated_taint_is_skipped() -> None:
    """"skip-queue-on-untoleratedtaint-node-added": QueueSkip."""
    ev = _node_added(("dedicated", "user1", "NoSchedule"))
    assert is_schedulable_after_node_change(_user2_pod(), ev, lambda ns: {}) is False


def test_node_added_with_tolerated_taint_is_queued() -> None:
    """"queue-on-toleratedtaint-node-added": Queue; registered for Node Add."""
    ev = _node_added(("dedicated", "user2", "NoSchedule"))
    assert is_schedulable_after_node_change(_user2_pod(), ev, lambda ns: {}) is True
    assert events_to_register() == {NODE_ADD: is_schedulable_after_node_change}


def test_node_added_hint_looks_only_at_hard_taints() -> None:
    """``DoNotScheduleTaintsFilterFunc`` keeps NoSchedule and NoExecute: an untolerated
    PreferNoSchedule taint does not stop a Queue, an untolerated NoExecute taint makes it
    QueueSkip, and a node with no taints is Queue."""
    pod = _user2_pod()
    assert is_schedulable_after_node_change(pod, _node_added(("spot", "", PREFER)),
                                            lambda ns: {}) is True
    assert is_schedulable_after_node_change(pod, _node_added(("spot", "", "NoExecute")),
                                            lambda ns: {}) is False
    assert is_schedulable_after_node_change(pod, _node_added(), lambda ns: {}) is True
