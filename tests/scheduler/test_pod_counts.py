"""The incremental per-node counts behind InterPodAffinity and PodTopologySpread give a
full scan's answers.

After every bind or removal of a random history, the plugin's PreFilter counts, its vector
filter and its raw scores (from ``pod_counts``, refreshed through ``Cluster.change_log``)
must equal the reference computations that scan every bound pod.
"""

from __future__ import annotations

import math

import numpy as np
from builders import spread as sc
from builders.affinity_histories import histories, random_pod
from builders.plugins import make_cluster, make_node, make_pod, new_state
from hypothesis import given, settings

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.framework import group_failures
from kubepreempt.scheduler.plugins import pod_topology_spread as spread
from kubepreempt.scheduler.plugins.inter_pod_affinity import (
    InterPodAffinity,
    _Counts,
    _matches_all,
    node_scores,
    reference_node_scores,
    term_matches,
)


def scanned_counts(pod: Pod, cluster) -> tuple[dict, dict, dict]:
    """PreFilter's three pair counts by scanning every bound pod (upstream's loop)."""
    ns = cluster.namespace_labels
    aff = pod.affinity
    req = aff.pod_required if aff else ()
    anti = aff.anti_required if aff else ()
    existing, affinity, anti_counts = _Counts(), _Counts(), _Counts()
    for i, pods in enumerate(cluster.node_pods):
        node = cluster.nodes[i]
        for other in pods.values():
            if other.affinity is not None:
                for t in other.affinity.anti_required:
                    if term_matches(t, pod, ns):
                        existing.bump(node, t.topology_key, 1)
            if _matches_all(req, other, ns):
                for t in req:
                    affinity.bump(node, t.topology_key, 1)
            for t in anti:
                if term_matches(t, other, ns):
                    anti_counts.bump(node, t.topology_key, 1)
    return dict(existing), dict(affinity), dict(anti_counts)


def check(cluster, pod: Pod) -> None:
    plugin = InterPodAffinity()
    state = new_state(pod, cluster)
    status = plugin.pre_filter(state)
    s = state.data.get(plugin.name)
    want = scanned_counts(pod, cluster)
    if s is None:  # Skip: nothing can reject a node
        assert status is not None and not (want[0] or (pod.affinity and (
            pod.affinity.pod_required or pod.affinity.anti_required)))
    else:
        assert (dict(s.existing_anti), dict(s.affinity), dict(s.anti)) == want
        nodes = np.arange(len(cluster.nodes))
        vector = {st: sorted(ix.tolist()) for ix, st in plugin.filter_nodes(state, nodes)}
        per_node = {st: sorted(ix.tolist()) for ix, st in
                    group_failures(nodes, lambda i: s.check(cluster.nodes[i]))}
        assert vector == per_node
    for hard_weight in (1, 0, 7):  # hardPodAffinityWeight: default, off, other
        raw = node_scores(pod, cluster, hard_weight)
        ref = reference_node_scores(pod, cluster, hard_weight)
        if raw is None:
            assert not ref.any()
        else:
            assert raw.tolist() == ref.tolist()


@settings(max_examples=250, deadline=None)
@given(histories(), random_pod("incoming"))
def test_counts_follow_binds_and_removals(history, incoming) -> None:
    nodes, steps = history
    cluster = make_cluster(nodes)
    bound: list[Pod] = []
    for step in steps:
        if step[0] == "bind":
            _, pod, idx = step
            check(cluster, pod)
            cluster.bind(pod, nodes[idx].name)
            bound.append(pod)
        elif bound:
            cluster.remove(bound.pop(step[1] % len(bound)))
        check(cluster, incoming)


# ---- PodTopologySpread -------------------------------------------------------------------
def scanned_spread_counts(pod: Pod, cluster) -> list[dict[str, int]]:
    """``calPreFilterState`` by scanning every node's pods (upstream's loop)."""
    cons = spread._constraints(pod, spread.DO_NOT_SCHEDULE)
    counts: list[dict[str, int]] = [{} for _ in cons]
    for i, node in enumerate(cluster.nodes):
        if not spread.has_all_keys(node, cons):
            continue
        pods = cluster.node_pods[i].values()
        for ci, c in enumerate(cons):
            if spread.node_included(c, pod, node):
                value = node.labels[c.topology_key]
                counts[ci][value] = counts[ci].get(value, 0) + spread.count_matching(
                    pods, c.selector, pod.namespace)
    return counts


def scanned_spread_scores(pod: Pod, cluster, nodes: np.ndarray) -> list[int]:
    """Upstream PreScore/Score/NormalizeScore node by node (scoring.go)."""
    cons = spread._constraints(pod, spread.SCHEDULE_ANYWAY)
    all_nodes = cluster.nodes
    filtered = nodes.tolist()
    ignored = {i for i in filtered if not spread.has_all_keys(all_nodes[i], cons)}
    domains: list[dict[str, int]] = [{} for _ in cons]
    for i in filtered:
        if i not in ignored:
            for ci, c in enumerate(cons):
                if c.topology_key != spread.LABEL_HOSTNAME:
                    domains[ci].setdefault(all_nodes[i].labels[c.topology_key], 0)
    weights = [math.log((len(filtered) - len(ignored) if c.topology_key == spread.LABEL_HOSTNAME
                         else len(domains[ci])) + 2) for ci, c in enumerate(cons)]
    for i, node in enumerate(all_nodes):
        if not spread.has_all_keys(node, cons):
            continue
        for ci, c in enumerate(cons):
            value = node.labels[c.topology_key]
            if spread.node_included(c, pod, node) and value in domains[ci]:
                domains[ci][value] += spread.count_matching(cluster.node_pods[i].values(),
                                                            c.selector, pod.namespace)
    raw = []
    for i in filtered:
        if i in ignored:
            raw.append(-1)
            continue
        score = 0.0
        for ci, c in enumerate(cons):
            cnt = (spread.count_matching(cluster.node_pods[i].values(), c.selector,
                                         pod.namespace)
                   if c.topology_key == spread.LABEL_HOSTNAME
                   else domains[ci][all_nodes[i].labels[c.topology_key]])
            score += float(cnt) * weights[ci] + float(c.max_skew - 1)
        raw.append(round_half_away(score))
    valid = [s for s in raw if s >= 0]
    lo, hi = (min(valid) if valid else 0), max([0, *valid])
    return [0 if s < 0 else 100 if hi == 0 else 100 * (hi + lo - s) // hi for s in raw]


def round_half_away(x: float) -> int:
    """Go ``math.Round`` for non-negative values."""
    r = math.floor(x)
    return int(r + 1 if x - r >= 0.5 else r)


def check_spread(cluster, pod: Pod) -> None:
    plugin = spread.PodTopologySpread()
    state = new_state(pod, cluster)
    nodes = np.arange(len(cluster.nodes))
    if plugin.pre_filter(state) is None:
        s = state.data[plugin.name]
        assert s.counts == scanned_spread_counts(pod, cluster)
        vector = {st: sorted(ix.tolist()) for ix, st in plugin.filter_nodes(state, nodes)}
        per_node = {st: sorted(ix.tolist()) for ix, st in
                    group_failures(nodes, lambda i: s.check(cluster.nodes[i]))}
        assert vector == per_node
    if spread._constraints(pod, spread.SCHEDULE_ANYWAY):
        for subset in (nodes, nodes[::2]):
            got = spread.spread_scores(pod, cluster, subset)
            assert got.tolist() == scanned_spread_scores(pod, cluster, subset)


@settings(max_examples=250, deadline=None)
@given(histories(), random_pod("incoming"))
def test_spread_counts_and_scores_follow_binds_and_removals(history, incoming) -> None:
    nodes, steps = history
    cluster = make_cluster(nodes)
    bound: list[Pod] = []
    for step in steps:
        if step[0] == "bind":
            _, pod, idx = step
            check_spread(cluster, pod)
            cluster.bind(pod, nodes[idx].name)
            bound.append(pod)
        elif bound:
            cluster.remove(bound.pop(step[1] % len(bound)))
        check_spread(cluster, incoming)


def test_spread_domain_sums_leave_out_nodes_missing_a_required_key() -> None:
    # The pod's own ScheduleAnyway constraints need every topology key on a node (upstream
    # requireAllTopologies): n-b lacks "rack", so pods bound there never count toward
    # zone z1, however many bind after the sums were first taken.
    nodes = [make_node("n-a", {"zone": "z1", "rack": "r1"}), make_node("n-b", {"zone": "z1"}),
             make_node("n-c", {"zone": "z2", "rack": "r2"})]
    cluster = make_cluster(nodes)
    incoming = make_pod("in", labels={"foo": ""},
                        spread=[sc(1, "zone", "ScheduleAnyway"), sc(1, "rack", "ScheduleAnyway")])
    check_spread(cluster, incoming)
    for i in range(2):
        cluster.bind(make_pod(f"b{i}", labels={"foo": ""}), "n-b")
        check_spread(cluster, incoming)
    # n-a and n-c see no matching pod in their domains; n-b is not scored (no rack).
    all_nodes = np.arange(3)
    assert spread.spread_scores(incoming, cluster, all_nodes).tolist() == [100, 0, 100]
