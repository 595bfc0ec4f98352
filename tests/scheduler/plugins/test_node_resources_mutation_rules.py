"""NodeResourcesFit rules a mutation run found unguarded, with upstream's answers.

Each test names the upstream function its expected answer comes from
(``pkg/scheduler/framework/plugins/noderesources/fit.go`` unless said otherwise).
"""

from __future__ import annotations

import numpy as np
from builders import cluster_of, node, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.decide import SCHEDULED, UNSCHEDULABLE, schedule
from kubepreempt.scheduler.framework import Code, CycleState
from kubepreempt.scheduler.plugins.node_resources import (
    NodeResourcesFit,
    is_extended_resource,
    is_schedulable_after_node_change,
)
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent

_SOURCE = Source("rules", 0, 1)


def test_requests_prefixed_names_are_not_extended_resources() -> None:
    """``v1helper.IsExtendedResourceName``: a name with the ``requests.`` prefix (a quota
    name) is not an extended resource, though it has a domain; ``IsNativeResource`` names
    (no "/" or a ``kubernetes.io/`` domain) are not either."""
    assert is_extended_resource("example.com/gpu")
    assert not is_extended_resource("requests.example.com/gpu")
    assert not is_extended_resource("cpu")
    assert not is_extended_resource("kubernetes.io/something")


def test_node_without_pods_allocatable_does_not_queue() -> None:
    """``isSchedulableAfterNodeChange`` -> ``isFit``: a node whose allocatable has no
    ``pods`` entry has ``AllowedPodNumber`` 0, so ``fitsRequest`` reports "Too many pods"
    and the hint is QueueSkip, even for a pod that requests nothing the node lacks."""
    raw = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
           "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}
    new_node = parse_node(raw, _SOURCE)
    incoming = parse_pod(pod("p", "1"), _SOURCE, PriorityResolver([]).resolve)
    assert is_schedulable_after_node_change(incoming, ClusterEvent(NODE_ADD, node=new_node),
                                            lambda ns: {}) is False


# ---- filtering with nominated pods (the two-pass check's pass 1) -------------------------

def test_nominee_adds_to_the_pods_already_running() -> None:
    """``RunFilterPluginsWithNominatedPods`` / ``addNominatedPods``: a nominee of higher
    priority is added to the node's NodeInfo *on top of* the pods running there, so
    1 (running) + 0.5 (nominee) + 1 (incoming) > 2 cpu: "Insufficient cpu" (Unschedulable,
    preemption may help since 1 <= 2)."""
    nominee = pod("nominee", "500m", priority=100, status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1", cpu="2"), pod("running", "1", node_name="n1"), nominee,
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new", preemption=False)
    assert (d.result, d.node) == (UNSCHEDULABLE, None)
    assert d.statuses["n1"].code == Code.UNSCHEDULABLE
    assert d.statuses["n1"].reasons == ("Insufficient cpu",)
    # Without the running pod: 0.5 + 1 <= 2 fits (the nominee alone does not block).
    c = cluster_of(node("n1", cpu="2"), nominee, pod("new", "1", priority=10))
    assert schedule(c, "default/new", preemption=False).result == SCHEDULED


def _state(*objects: dict, incoming: str) -> tuple:
    cluster = cluster_of(*objects)
    p = cluster.pending[f"default/{incoming}"]
    return cluster, CycleState(p, cluster, cluster.request_vector(p))


def test_filter_nodes_adding_statuses() -> None:
    """``fitsRequest`` on NodeInfo plus the nominees' summed requests: requested + extra +
    pod > allocatable fails with "Insufficient <r>"; the status is
    UnschedulableAndUnresolvable only where the pod alone exceeds the whole allocatable
    (``InsufficientResource.Unresolvable``), whatever the nominees add."""
    cluster, state = _state(
        node("a", cpu="2"), node("b", cpu="2"), node("c", cpu="1"),
        pod("r", "500m", node_name="a"), pod("new", "1500m"), incoming="new")
    plugin = NodeResourcesFit()
    rows = np.array([cluster.node_index[n] for n in ("a", "b", "c")], np.int64)
    # Nominee requests per node: a +0 (0.5 + 1.5 = 2 fits exactly), b +1 cpu (2.5 > 2),
    # c +0 (1.5 > 1 on its own: unresolvable).
    extra = np.zeros((3, 1), np.int64)  # cpu column only: narrower than the full row
    extra[1, 0] = 1000
    got = {cluster.nodes[i].name: (s.code, s.reasons)
           for bad, s in plugin.filter_nodes_adding(state, rows, extra) for i in bad.tolist()}
    assert got == {
        "b": (Code.UNSCHEDULABLE, ("Insufficient cpu",)),
        "c": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu",)),
    }
    # The running pod counts as well as the nominees: +500m on a is 2.5 cpu.
    extra[0, 0] = 500
    got = {cluster.nodes[i].name for bad, _s in plugin.filter_nodes_adding(state, rows, extra)
           for i in bad.tolist()}
    assert got == {"a", "b", "c"}


def test_least_allocated_counts_a_one_millicore_cpu_node() -> None:
    """``leastResourceScorer`` leaves out only a resource with allocatable 0: a node with
    1m cpu still weighs cpu, ``leastRequestedScore(1, 1)`` = 0, so with memory at
    (1Gi - 256Mi) * 100 / 1Gi = 75 the score is (0 + 75) / 2 = 37 (integer division)."""
    cluster, state = _state(node("tiny", cpu="1m", memory="1Gi"), pod("new", "1m", "256Mi"),
                            incoming="new")
    plugin = NodeResourcesFit()
    i = cluster.node_index["tiny"]
    assert plugin.score_node(state, i) == 37
    assert plugin.score(state, np.array([i], np.int64)).tolist() == [37]
