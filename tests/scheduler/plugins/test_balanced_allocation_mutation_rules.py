"""NodeResourcesBalancedAllocation edge rules the upstream table rows leave open.

Expected answers follow upstream ``balancedResourceScorer`` (balanced_allocation.go): a
resource with zero allocatable is skipped, each fraction is capped at 1, two fractions give
``|f0 - f1| / 2``, more give the population standard deviation, balance is
``int64((1 - std) * MaxNodeScore)``; the 1.36 score is
``(150 + balance_with_pod - balance_without_pod) / 2`` (kubernetes/kubernetes#135573), and
PreScore skips a pod whose requests for the configured resources are all zero
(``isBestEffortPod``). Every node is held ``SMALL + 2`` times so that the numpy path, the
few-nodes path and ``score_node`` must all agree with the worked answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from builders import cluster_of

from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.node_resources import SMALL

COPIES = SMALL + 2


def _node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}},
            "spec": {}, "status": {"allocatable": {"pods": "32", **alloc}}}


def _pod(name: str, requests: dict[str, str], node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": dict(requests)}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {}},
            "spec": spec, "status": {}}


def _state(requests: dict[str, str], nodes: dict[str, dict[str, str]],
           bound: dict[str, dict[str, str]] | None = None) -> tuple[CycleState, dict]:
    objects: list[dict] = []
    origin: dict[str, str] = {}
    for name, alloc in nodes.items():
        for k in range(COPIES):
            copy = f"{name}-{k}"
            origin[copy] = name
            objects.append(_node(copy, alloc))
            if bound and name in bound:
                objects.append(_pod(f"{copy}-e", bound[name], node=copy))
    cluster = cluster_of(*objects, _pod("p", requests))
    pod = cluster.pending["default/p"]
    return CycleState(pod, cluster, cluster.request_vector(pod)), origin


def _scores(plugin: BalancedAllocation, requests: dict[str, str],
            nodes: dict[str, dict[str, str]],
            bound: dict[str, dict[str, str]] | None = None) -> dict[str, set[int]]:
    """Every node's score on every path, grouped by the table node it copies."""
    state, origin = _state(requests, nodes, bound)
    cluster = state.cluster
    assert plugin.score_relevant(state)
    idx = np.array([cluster.node_index[n] for n in origin], np.int64)
    got: dict[str, set[int]] = {name: set() for name in nodes}
    for group in (idx, idx[:1], idx[:SMALL], idx[-SMALL:], idx[::-1]):
        scores = plugin.score(state, group)
        assert scores.shape == group.shape
        assert scores.dtype == np.int64  # upstream's scores are int64
        for i, s in zip(group.tolist(), scores.tolist(), strict=True):
            got[origin[cluster.nodes[i].name]].add(s)
    for i in idx.tolist():
        one = plugin.score_node(state, i)
        assert type(one) is int  # upstream's Score returns an int64, never a fraction
        got[origin[cluster.nodes[i].name]].add(one)
    return got


def _relevant(plugin: BalancedAllocation, requests: dict[str, str]) -> bool:
    state, _origin = _state(requests, {"n": {"cpu": "4", "memory": "8Gi"}})
    return plugin.score_relevant(state)


def test_smallest_request_is_not_best_effort() -> None:
    """``isBestEffortPod`` is true only when every configured request is zero: 1m of cpu
    alone, or 1 byte of memory alone, is scored; nothing requested is skipped."""
    plugin = BalancedAllocation()
    assert _relevant(plugin, {"cpu": "1m"})
    assert _relevant(plugin, {"memory": "1"})
    assert not _relevant(plugin, {})


def test_custom_resource_list_best_effort() -> None:
    """With resources cpu, memory, example.com/foo: a pod asking for nothing is skipped,
    one asking only for the extended resource is scored."""
    plugin = BalancedAllocation(("cpu", "memory", "example.com/foo"))
    assert not _relevant(plugin, {})
    assert _relevant(plugin, {"example.com/foo": "1"})


def test_score_is_per_node() -> None:
    """Upstream's ``ScoreExtensions`` is nil (no NormalizeScore): a node's score depends
    on that node alone."""
    state, _origin = _state({"cpu": "1"}, {"n": {"cpu": "4", "memory": "8Gi"}})
    assert BalancedAllocation().node_local_score(state) is True


# A node with 1m of cpu and 1000 bytes of memory; the pod asks for all its memory and no
# cpu: fractions with the pod (0, 1) -> std 0.5 -> balance 50, without (0, 0) -> 100;
# (150 + 50 - 100) / 2 = 50.
TINY_CPU = {"cpu": "1m", "memory": "1000"}
TINY_MEMORY = {"cpu": "1000m", "memory": "1"}


def test_unrequested_cpu_counts_as_zero() -> None:
    """A pod without a cpu request adds 0 to the cpu fraction (actual requests, no
    non-zero default): 50 as worked above, on the default and the custom-list path."""
    for plugin in (BalancedAllocation(), BalancedAllocation(("memory", "cpu"))):
        assert _scores(plugin, {"memory": "1000"}, {"n": TINY_CPU}) == {"n": {50}}


def test_unrequested_memory_counts_as_zero() -> None:
    """The mirror case: 1000m of cpu on a node with 1000m cpu and 1 byte of memory:
    (0 -> 1, 0) -> balance 100 -> 50, score 50."""
    for plugin in (BalancedAllocation(), BalancedAllocation(("memory", "cpu"))):
        assert _scores(plugin, {"cpu": "1000m"}, {"n": TINY_MEMORY}) == {"n": {50}}


def test_zero_allocatable_resource_is_skipped() -> None:
    """A node with no cpu allocatable keeps one fraction (memory): std 0 with and without
    the pod, balance 100 both, score 75; next to it a normal node (4 cpu, 4000 bytes) with
    the pod's 1 cpu, 3000 bytes: (0.25, 0.75) -> std 0.25 -> 75, before 100 -> 62."""
    nodes = {"nocpu": {"cpu": "0", "memory": "4000"},
             "nomem": {"cpu": "4", "memory": "0"},
             "normal": {"cpu": "4", "memory": "4000"}}
    want = {"nocpu": {75}, "nomem": {75}, "normal": {62}}
    for plugin in (BalancedAllocation(), BalancedAllocation(("memory", "cpu"))):
        assert _scores(plugin, {"cpu": "1", "memory": "3000"}, nodes) == want


def test_fraction_capped_at_one_with_the_pod() -> None:
    """Node 1000m / 1000 bytes, pod 2000m / 500: cpu fraction 2 capped to 1, memory 0.5 ->
    std 0.25 -> 75, before 100 -> (150 + 75 - 100) / 2 = 62 (uncapped it would be 37)."""
    nodes = {"n": {"cpu": "1000m", "memory": "1000"}}
    for plugin in (BalancedAllocation(), BalancedAllocation(("memory", "cpu"))):
        assert _scores(plugin, {"cpu": "2000m", "memory": "500"}, nodes) == {"n": {62}}


def test_fraction_capped_at_one_before_the_pod() -> None:
    """Node 1000m / 1000 bytes already over-committed by a bound pod: cpu 2000m on node
    ``cpu``, memory 2000 bytes on node ``mem``; the pod adds the other resource at half.
    With the pod (1, 0.5) -> 75; without (1, 0) -> 50; (150 + 75 - 50) / 2 = 87 on both;
    a third node with nothing bound: (0.5, 0.5) -> 100 vs (0, 0) -> 100 -> 75."""
    alloc = {"cpu": "1000m", "memory": "1000"}
    nodes = {"cpu": alloc, "mem": alloc, "empty": alloc}
    bound = {"cpu": {"cpu": "2000m"}, "mem": {"memory": "2000"}}
    for plugin in (BalancedAllocation(), BalancedAllocation(("memory", "cpu"))):
        assert _scores(plugin, {"cpu": "500m", "memory": "500"}, nodes, bound) == \
            {"cpu": {87}, "mem": {87}, "empty": {75}}


def test_extended_resource_no_node_has_is_skipped() -> None:
    """Resources example.com/foo, cpu, memory; the pod asks for 1 foo, which no node has
    (allocatable 0: skipped), so only cpu and memory count: the normal node's 62 from
    ``test_zero_allocatable_resource_is_skipped``. A listed extended resource the pod does
    not ask for is left out too and the resources after it still count."""
    nodes = {"normal": {"cpu": "4", "memory": "4000"}}
    plugin = BalancedAllocation(("example.com/foo", "cpu", "memory"))
    assert _scores(plugin, {"cpu": "1", "memory": "3000", "example.com/foo": "1"},
                   nodes) == {"normal": {62}}
    assert _scores(plugin, {"cpu": "1", "memory": "3000"}, nodes) == {"normal": {62}}


def test_no_fraction_at_all_scores_no_change() -> None:
    """Resources example.com/foo only, requested by the pod but on no node: no fraction
    with or without the pod, std 0 both, (150 + 100 - 100) / 2 = 75 on every node."""
    nodes = {"a": {"cpu": "4", "memory": "4000"}, "b": {"cpu": "2", "memory": "1000"}}
    plugin = BalancedAllocation(("example.com/foo",))
    assert _scores(plugin, {"example.com/foo": "1"}, nodes) == {"a": {75}, "b": {75}}


def test_three_equal_fractions() -> None:
    """Resources cpu, memory, example.com/foo on a node with 1000m, 1000 bytes, 10 foo;
    the pod asks for 100m, 100, 1: three fractions of 0.1, population std 0 (to float
    rounding, far below one score point), balance 100 with and without the pod: 75."""
    nodes = {"n": {"cpu": "1000m", "memory": "1000", "example.com/foo": "10"}}
    plugin = BalancedAllocation(("cpu", "memory", "example.com/foo"))
    assert _scores(plugin, {"cpu": "100m", "memory": "100", "example.com/foo": "1"},
                   nodes) == {"n": {75}}


def test_three_fractions_one_capped() -> None:
    """Resources cpu, memory, example.com/foo on a node with 1000m, 1000 bytes, 2 foo; the
    pod asks for 0, 0, 4 foo: fractions with the pod (0, 0, 1) (4/2 capped at 1), mean
    1/3, std sqrt(2/9) = 0.4714 -> balance 52; without (0, 0, 0) -> 100;
    (150 + 52 - 100) / 2 = 51."""
    nodes = {"n": {"cpu": "1000m", "memory": "1000", "example.com/foo": "2"}}
    plugin = BalancedAllocation(("cpu", "memory", "example.com/foo"))
    assert _scores(plugin, {"example.com/foo": "4"}, nodes) == {"n": {51}}
