"""The scheduling path's shortcuts give exactly the slow paths' answers on random clusters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from plugins.test_inter_pod_affinity import In, make_cluster, make_node, make_pod, term, weighted

from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster
from kubepreempt.scheduler.plugins.inter_pod_affinity import affinity_index

ZONES = ("z1", "z2")
APPS = ("a", "b")


def full_scan(cluster: Cluster) -> tuple[list, list]:
    """The index as the original full scan of every bound pod computed it (sorted)."""
    with_aff = sorted((i, p.key) for i, pods in enumerate(cluster.node_pods)
                      for p in pods.values()
                      if p.affinity is not None and p.affinity.has_pod_terms)
    anti = sorted((i, k) for i, k in with_aff
                  if cluster.node_pods[i][k].affinity.anti_required)
    return with_aff, anti


@st.composite
def random_pod(draw, name: str) -> Pod:
    """A pod with a random mix of no terms, required/preferred (anti-)affinity."""
    app = draw(st.sampled_from(APPS))
    kind = draw(st.sampled_from(["none", "none", "req", "anti", "pref", "anti_pref"]))
    other = draw(st.sampled_from(APPS))
    t = term(In("app", other), topo=draw(st.sampled_from(["zone", "kubernetes.io/hostname"])))
    terms = {"req": {"req": [t]}, "anti": {"anti": [t]}, "pref": {"pref": [weighted(5, t)]},
             "anti_pref": {"anti_pref": [weighted(3, t)]}}.get(kind, {})
    return make_pod(name, labels={"app": app}, **terms)


@st.composite
def histories(draw):
    """Nodes, then a sequence of binds (pod, node) and removes (index into bound pods)."""
    n = draw(st.integers(1, 4))
    nodes = [make_node(f"n{i}", {"zone": draw(st.sampled_from(ZONES)),
                                  "kubernetes.io/hostname": f"n{i}"}) for i in range(n)]
    steps = []
    for j in range(draw(st.integers(0, 12))):
        if draw(st.booleans()) or not steps:
            steps.append(("bind", draw(random_pod(f"p{j}")), draw(st.integers(0, n - 1))))
        else:
            steps.append(("remove", draw(st.integers(0, 100))))
    return nodes, steps


@settings(max_examples=150, deadline=None)
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
