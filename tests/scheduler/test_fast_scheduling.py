"""The scheduling path's shortcuts give exactly the slow paths' answers on random inputs."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from builders.affinity_histories import histories, random_pod
from builders.plugins import make_cluster
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.api.objects import Node, Pod
from kubepreempt.cluster import Cluster
from kubepreempt.decide import schedule
from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins import balanced_allocation as balanced
from kubepreempt.scheduler.plugins import node_resources
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.inter_pod_affinity import affinity_index
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit
from kubepreempt.scheduler.profile import default_profile
from kubepreempt.scheduler.scheduler import Scheduler


def full_scan(cluster: Cluster) -> tuple[list, list]:
    """The index as the original full scan of every bound pod computed it (sorted)."""
    with_aff = sorted((i, p.key) for i, pods in enumerate(cluster.node_pods)
                      for p in pods.values()
                      if p.affinity is not None and p.affinity.has_pod_terms)
    anti = sorted((i, k) for i, k in with_aff
                  if cluster.node_pods[i][k].affinity.anti_required)
    return with_aff, anti


@settings(max_examples=examples(150), deadline=None)
@given(histories())
def test_affinity_index_matches_full_scan(history) -> None:
    nodes, steps = history
    cluster = make_cluster(nodes)
    bound: list[Pod] = []
    for step in steps:
        if step[0] == "bind":
            _, pod, idx = step
            cluster.bind(pod, nodes[idx].name)
            bound.append(pod)
        elif bound:
            cluster.remove(bound.pop(step[1] % len(bound)))
        index = affinity_index(cluster)
        got = (sorted((i, p.key) for i, p in index.with_affinity),
               sorted((i, p.key) for i, p in index.with_required_anti))
        assert got == full_scan(cluster)


def always_scored(sched: Scheduler) -> Scheduler:
    """``sched``'s twin whose cross-pod scorers never declare themselves irrelevant."""
    twin = Scheduler(sched.cluster, default_profile(), sched.nominator)
    for plugin in twin.profile.scorers:
        if plugin.name in ("InterPodAffinity", "PodTopologySpread"):
            plugin.score_relevant = lambda state: True
    return twin


def pick(sched: Scheduler, pod: Pod) -> tuple:
    """(fast_pick's node, select_host's node, score parts) for ``pod``."""
    state, prefilter, filters = sched.new_state(pod)
    if prefilter is not None:
        return (None, None, {})
    fast = sched.fast_pick(pod, state, filters)
    feasible = sched.find_feasible(pod, state, filters).feasible
    if not feasible.size:
        return (fast, None, {})
    best, scores = sched.select_host(state, feasible)
    return (fast, best, {k: v.tolist() for k, v in scores.items()})


@settings(max_examples=examples(200), deadline=None)
@given(histories(), random_pod("incoming"))
def test_skipped_cross_pod_scores_change_no_pick(history, incoming) -> None:
    nodes, steps = history
    cluster = make_cluster(nodes)
    sched = Scheduler(cluster)
    twin = always_scored(sched)
    bound: list[Pod] = []
    for step in steps:  # both caches see every change as it happens, as in a workload
        if step[0] == "bind":
            _, pod, idx = step
            compare(pick(sched, pod), pick(twin, pod))
            cluster.bind(pod, nodes[idx].name)
            bound.append(pod)
        elif bound:
            cluster.remove(bound.pop(step[1] % len(bound)))
    cluster.add_pending(incoming)
    compare(pick(sched, incoming), pick(twin, incoming))


def compare(got: tuple, want: tuple) -> None:
    """Same picks; a scorer left out only where it would have scored every node 0."""
    fast, best, scores = got
    assert (fast, best) == want[:2]
    if best is not None and fast is not None:
        assert fast == best
    for name, part in want[2].items():
        if name in scores:
            assert scores[name] == part
        else:
            assert set(part) == {0}


@settings(max_examples=examples(100), deadline=None)
@given(histories(), random_pod("incoming"))
def test_lazy_decision_scores_match_eager(history, incoming) -> None:
    nodes, steps = history
    cluster = make_cluster(nodes)
    for step in steps:
        if step[0] == "bind":
            cluster.bind(step[1], nodes[step[2]].name)
    cluster.add_pending(incoming)
    decision = schedule(cluster, incoming, preemption=False)
    _, best, parts = pick(Scheduler(cluster), incoming)
    names = [n.name for n in cluster.nodes]
    feasible = Scheduler(cluster).find_feasible(incoming).feasible.tolist()
    eager: dict[str, dict[str, int]] = {}
    for plugin, values in parts.items():  # what schedule() used to build on every call
        for i, value in zip(feasible, values, strict=True):
            eager.setdefault(names[i], {})[plugin] = value
    assert decision.node == (None if best is None else names[best])
    assert decision == schedule(cluster, incoming, preemption=False)  # before reading scores
    assert decision.scores == eager
    assert decision.to_json(explain=True).get("scores", {}) == eager
    assert decision == schedule(cluster, incoming, preemption=False)


AMOUNTS = st.one_of(st.integers(0, 5000), st.integers(0, 2**40), st.sampled_from(
    [0, 1, 2**62, 2**63 - 1]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # int64 wrap in the vector path
@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.lists(AMOUNTS, min_size=5, max_size=5),
                          st.lists(AMOUNTS, min_size=5, max_size=5)), min_size=1, max_size=4),
       st.lists(AMOUNTS, min_size=5, max_size=5), st.integers(0, 4))
def test_few_node_paths_match_vector_paths(rows, request, pick_count) -> None:
    """NodeResourcesFit and BalancedAllocation: Python-int path == numpy path per node."""
    nodes = [Node(f"n{i}", allocatable={"cpu": a[0], "memory": a[1], "ephemeral-storage": a[2],
                                        "pods": a[3] % 200, "example.com/gpu": a[4]})
             for i, (a, _) in enumerate(rows)]
    cluster = make_cluster(nodes)
    for i, (_, used) in enumerate(rows):
        cluster.requested[i] = used
        cluster.nonzero[i] = used[:2]
    requests = {"cpu": request[0], "memory": request[1], "ephemeral-storage": request[2],
                "example.com/gpu": request[4]}
    pod = Pod(namespace="default", name="p", requests=requests, nonzero_cpu=request[0] or 100,
              nonzero_memory=request[1] or 200 * 2**20)
    state = CycleState(pod, cluster, cluster.request_vector(pod))
    idx = np.arange(min(len(rows), max(pick_count, 1)), dtype=np.int64)
    for plugin in (NodeResourcesFit(), BalancedAllocation()):
        few = plugin.score(state, idx)
        with patch.object(node_resources, "SMALL", -1), patch.object(balanced, "SMALL", -1):
            vector = plugin.score(state, idx)
            slow_filter = NodeResourcesFit().filter_nodes(state, idx)
        assert few.tolist() == vector.tolist()
        assert few.dtype == vector.dtype
    fast_filter = NodeResourcesFit().filter_nodes(state, idx)
    assert [(b.tolist(), s) for b, s in fast_filter] == [(b.tolist(), s) for b, s in slow_filter]
