"""Hypothesis strategies for random pod (anti-)affinity and spread mixes, and random
bind/remove histories over a few zoned nodes."""

from __future__ import annotations

from hypothesis import strategies as st

from builders.plugins import In, make_node, make_pod, term, weighted
from kubepreempt.api.objects import Pod

ZONES = ("z1", "z2")
APPS = ("a", "b")


@st.composite
def random_pod(draw, name: str) -> Pod:
    """A pod with a random mix of no terms, required/preferred (anti-)affinity."""
    app = draw(st.sampled_from(APPS))
    kind = draw(st.sampled_from(["none", "none", "req", "anti", "pref", "anti_pref"]))
    other = draw(st.sampled_from(APPS))
    topo = draw(st.sampled_from(["zone", "kubernetes.io/hostname"]))
    t = term(In("app", other), topo=topo)
    terms = {"req": {"req": [t]}, "anti": {"anti": [t]}, "pref": {"pref": [weighted(5, t)]},
             "anti_pref": {"anti_pref": [weighted(3, t)]}}.get(kind, {})
    when = draw(st.sampled_from([None, None, "ScheduleAnyway", "DoNotSchedule"]))
    if when is not None:
        terms["spread"] = [{"maxSkew": draw(st.integers(1, 2)), "topologyKey": topo,
                            "whenUnsatisfiable": when,
                            "labelSelector": {"matchLabels": {"app": other}}}]
    return make_pod(name, labels={"app": app}, **terms)


@st.composite
def histories(draw):
    """Nodes, then a sequence of binds (pod, node) and removes (index into bound pods)."""
    n = draw(st.integers(1, 4))
    nodes = [make_node(f"n{i}", {"zone": draw(st.sampled_from(ZONES)),
                                  "kubernetes.io/hostname": f"n{i}"}) for i in range(n)]
    for node in nodes:
        node.allocatable = {"cpu": 4000, "memory": 2**33, "pods": draw(st.integers(2, 8))}
    steps = []
    for j in range(draw(st.integers(0, 12))):
        if draw(st.booleans()) or not steps:
            steps.append(("bind", draw(random_pod(f"p{j}")), draw(st.integers(0, n - 1))))
        else:
            steps.append(("remove", draw(st.integers(0, 100))))
    return nodes, steps
