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
    IGNORED_KEY,
    SMALL,
    NodeResourcesFit,
    is_extended_resource,
    is_schedulable_after_node_change,
)
from kubepreempt.scheduler.plugins.resource_allocation import MOST_ALLOCATED, ScoringStrategy
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


def _least_allocated_every_path(alloc: dict[str, str], *incoming_req: str) -> set[int]:
    """The LeastAllocated scores of an empty node with ``alloc`` (cpu, memory and pods
    given as ``node`` takes them) from ``score`` over many copies (numpy), over one copy
    (Python ints) and from ``score_node``."""
    copies = [node(f"n{k}", **alloc) for k in range(SMALL + 2)]
    cluster, state = _state(*copies, pod("new", *incoming_req), incoming="new")
    plugin = NodeResourcesFit()
    idx = np.arange(len(copies), dtype=np.int64)
    got = set(plugin.score(state, idx).tolist()) | set(plugin.score(state, idx[:1]).tolist())
    one = [plugin.score_node(state, i) for i in idx.tolist()]
    assert all(type(s) is int for s in one)  # an int64 NodeScore, as upstream
    return got | set(one)


def test_least_allocated_counts_a_one_millicore_cpu_node() -> None:
    """``leastResourceScorer`` leaves out only a resource with allocatable 0: a node with
    1m cpu still weighs cpu, ``leastRequestedScore(1, 1)`` = 0, so with memory at
    (1Gi - 256Mi) * 100 / 1Gi = 75 the score is (0 + 75) / 2 = 37 (integer division)."""
    assert _least_allocated_every_path({"cpu": "1m", "memory": "1Gi"}, "1m", "256Mi") == {37}


def test_least_allocated_leaves_out_a_zero_allocatable_resource() -> None:
    """``leastResourceScorer``: ``if allocable[i] == 0 { continue }`` (no score, no
    weight), so a node with cpu 0 scores memory alone: (1Gi - 256Mi) * 100 / 1Gi = 75."""
    assert _least_allocated_every_path({"cpu": "0", "memory": "1Gi"}, "1", "256Mi") == {75}


def test_least_allocated_over_request_scores_zero() -> None:
    """``leastRequestedScore``: ``requested > capacity`` scores 0 (not 1): cpu 5 of 4 is 0,
    memory (10000 - 4900) * 100 / 10000 = 51, (0 + 51) / 2 = 25."""
    assert _least_allocated_every_path({"cpu": "4", "memory": "10000"}, "5", "4900") == {25}


def test_least_allocated_truncates_each_resource_score() -> None:
    """``leastRequestedScore`` is int64 division per resource before the weighted mean:
    cpu (4000 - 2500) * 100 / 4000 = 37 (not 37.5), memory (10000 - 3750) * 100 / 10000
    = 62 (not 62.5), (37 + 62) / 2 = 49."""
    assert _least_allocated_every_path({"cpu": "4", "memory": "10000"},
                                       "2500m", "3750") == {49}


def test_score_node_uses_the_configured_strategy() -> None:
    """``score_node`` with a non-default scoring strategy: most_allocated_test.go
    "nothing scheduled, resources requested, differently sized nodes" (MostAllocated,
    cpu and memory weight 1): node1 62, node2 50 (LeastAllocated would give 37 / 50)."""
    req = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]
    incoming = pod("p")
    incoming["spec"]["containers"] = [{"name": f"c{i}", "image": "x",
                                       "resources": {"requests": r}} for i, r in enumerate(req)]
    cluster, state = _state(node("node1", cpu="4000", memory="10000"),
                            node("node2", cpu="6000", memory="10000"), incoming, incoming="p")
    plugin = NodeResourcesFit(ScoringStrategy(MOST_ALLOCATED))
    got = {n: plugin.score_node(state, cluster.node_index[n]) for n in ("node1", "node2")}
    assert got == {"node1": 62, "node2": 50}


def test_passes_node_reads_that_nodes_own_row() -> None:
    """``fitsRequest`` per node: ``len(nodeInfo.Pods())+1 > allowedPodNumber`` and
    ``allocatable < request + requested`` with *that* node's pods. One empty node first
    (row 0; nodes are kept in name order), then a node with room for exactly one more
    pod (1 + 1 > 2 is false: fits), a full one (pods 1, one running: "Too many pods")
    and one whose running pod leaves 1 cpu for a 2-cpu pod ("Insufficient cpu")."""
    cluster, state = _state(
        node("a-empty", cpu="4", pods="10"),
        node("b-one-slot", cpu="4", pods="2"), pod("r1", "100m", node_name="b-one-slot"),
        node("c-full", cpu="4", pods="1"), pod("r2", "100m", node_name="c-full"),
        node("d-busy-cpu", cpu="4", pods="10"), pod("r3", "3", node_name="d-busy-cpu"),
        pod("new", "2"), incoming="new")
    plugin = NodeResourcesFit()
    names = ("a-empty", "b-one-slot", "c-full", "d-busy-cpu")
    got = {n: plugin.passes_node(state, cluster.node_index[n]) for n in names}
    assert got == {"a-empty": True, "b-one-slot": True, "c-full": False, "d-busy-cpu": False}
    statuses = {n: plugin.filter(state, cluster.node_view(cluster.node_index[n]))
                for n in names}
    assert {n: s and s.reasons for n, s in statuses.items()} == {
        "a-empty": None, "b-one-slot": None, "c-full": ("Too many pods",),
        "d-busy-cpu": ("Insufficient cpu",)}


def test_passes_node_widens_a_narrower_request_row() -> None:
    """A resource column the cluster gained after the pod's request row was built (a
    nominee bringing a new extended resource) is one the pod does not request: upstream's
    ``fitsRequest`` only checks requested resources, so the verdict is unchanged."""
    cluster, state = _state(node("n", cpu="4", pods="10"), pod("new", "2"), incoming="new")
    state.request = state.request[:2].copy()  # only the cpu and memory columns
    assert NodeResourcesFit().passes_node(state, cluster.node_index["n"]) is True


def test_widened_request_row_keeps_ignored_resources_ignored() -> None:
    """fit_test.go "skip checking ignored extended resource" (``ignoredResources``): an
    ignored extended resource is never checked, also when the pod's request row is
    rebuilt for columns the cluster gained during the cycle (the ignored columns are
    kept in the cycle state and applied again)."""
    cluster, state = _state(node("n", cpu="4", pods="10", **{"example.com/foo": "0"}),
                            pod("new", "1", **{"example.com/foo": "5"}), incoming="new")
    plugin = NodeResourcesFit(ignored_resources=frozenset({"example.com/foo"}))
    row, ignored = plugin.request_row(cluster, state.pod)
    assert ignored  # the example.com/foo column
    state.data[IGNORED_KEY] = ignored
    state.request = row[:2].copy()  # built before the extended column existed
    assert plugin.passes_node(state, cluster.node_index["n"]) is True
    assert plugin.filter(state, cluster.node_view(cluster.node_index["n"])) is None
