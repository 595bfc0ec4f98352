"""NodeName, NodeUnschedulable and NodePorts rules a mutation run found unguarded.

Expected answers from upstream's plugin tests (``node_name_test.go`` TestNodeName,
``node_unschedulable_test.go`` TestNodeUnschedulable, ``node_ports_test.go``) and from the
framework: a failing Filter's status carries its plugin's name
(``frameworkImpl.RunFilterPlugins`` sets ``WithPlugin(pl.Name())``), which is what
``Diagnosis.UnschedulablePlugins`` and so the queueing hints see.
"""

from __future__ import annotations

import numpy as np
from builders import cluster_of, node, pod
from builders.plugins import make_cluster, make_node, make_pod, new_state

from kubepreempt.decide import schedule
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.node_name import ERR_REASON as NODE_NAME_REASON
from kubepreempt.scheduler.plugins.node_name import NodeName
from kubepreempt.scheduler.plugins.node_unschedulable import ERR_REASON as CORDON_REASON
from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable

UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


# ---- NodeName (node_name_test.go TestNodeName) --------------------------------------------

def test_node_name_no_host_specified() -> None:
    """"no host specified": every node passes (the plugin has nothing to check)."""
    cluster = make_cluster([make_node("foo"), make_node("bar")])
    state = new_state(make_pod("p"), cluster)
    plugin = NodeName()
    assert not plugin.relevant(state)
    assert [plugin.filter(state, cluster.node_view(i)) for i in range(2)] == [None, None]


def test_node_name_host_matches_or_not() -> None:
    """"host matches": success; "host doesn't match": UnschedulableAndUnresolvable with
    ``ErrReason`` "node(s) didn't match the requested node name", from NodeName."""
    cluster = make_cluster([make_node("bar"), make_node("foo")])
    state = new_state(make_pod("p", node="foo"), cluster)
    plugin = NodeName()
    assert plugin.relevant(state)
    assert plugin.filter(state, cluster.node_view(cluster.node_index["foo"])) is None
    status = plugin.filter(state, cluster.node_view(cluster.node_index["bar"]))
    assert (status.code, status.reasons, status.plugin) == (UNRES, (NODE_NAME_REASON,),
                                                             "NodeName")


# ---- NodeUnschedulable (node_unschedulable_test.go TestNodeUnschedulable) ----------------

def _cordon_state(tolerate: bool):
    cordoned = make_node("a-cordoned")
    cordoned.unschedulable = True
    cluster = make_cluster([cordoned, make_node("b-normal")])
    tolerations = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                    "effect": "NoSchedule"}] if tolerate else None
    return cluster, new_state(make_pod("p", tolerations=tolerations), cluster)


def test_node_unschedulable_one_node_check() -> None:
    """"Does not schedule pod to unschedulable node": rejected; "Schedule pod to normal
    node": passes. ``passes_node`` (the score cache's one-node check, asked first on a
    fresh cluster) says the same as ``filter_nodes``."""
    cluster, state = _cordon_state(tolerate=False)
    plugin = NodeUnschedulable()
    assert plugin.relevant(state)
    assert [plugin.passes_node(state, i) for i in range(2)] == [False, True]
    groups = plugin.filter_nodes(state, np.arange(2, dtype=np.int64))
    assert [(bad.tolist(), s.code, s.reasons, s.plugin) for bad, s in groups] == \
        [([0], UNRES, (CORDON_REASON,), "NodeUnschedulable")]


def test_node_unschedulable_toleration() -> None:
    """"Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)":
    success, the plugin does not take part for that pod."""
    cluster, state = _cordon_state(tolerate=True)
    plugin = NodeUnschedulable()
    assert not plugin.relevant(state)
    assert plugin.filter(state, cluster.node_view(0)) is None


def test_node_unschedulable_filter_names_its_plugin() -> None:
    """``Filter``'s status on a cordoned node is from NodeUnschedulable."""
    cluster, state = _cordon_state(tolerate=False)
    status = NodeUnschedulable().filter(state, cluster.node_view(0))
    assert (status.code, status.plugin) == (UNRES, "NodeUnschedulable")


# ---- the rejecting plugin as the scheduler records it --------------------------------------

def test_rejecting_plugins_are_named_in_the_node_statuses() -> None:
    """A cordoned node's status is NodeUnschedulable's, a node whose pod holds the host
    port is NodePorts' (``fitsPorts``: "node(s) didn't have free ports for the requested
    pod ports", Unschedulable)."""
    def with_port(name: str, **kw) -> dict:
        p = pod(name, "100m", **kw)
        p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80,
                                               "protocol": "TCP"}]
        return p
    c = cluster_of(node("cordoned", unschedulable=True), node("taken"),
                   with_port("holder", node_name="taken"), with_port("new"))
    d = schedule(c, "default/new", preemption=False)
    got = {n: (s.plugin, s.code, s.reasons) for n, s in d.statuses.items()}
    assert got == {
        "cordoned": ("NodeUnschedulable", UNRES, (CORDON_REASON,)),
        "taken": ("NodePorts", Code.UNSCHEDULABLE,
                  ("node(s) didn't have free ports for the requested pod ports",)),
    }
