"""Property tests of preemption on random small clusters (resources and priorities).

Invariants from the design doc and upstream's algorithm:
* victims all have lower priority than the preemptor;
* after removing the victims the pod fits on the chosen node;
* no preemption when the pod fits somewhere without it;
* no node is chosen where removing every lower-priority pod would not make room;
* no needless victim: each victim added back alone would make the pod not fit.
"""

from builders import cluster_of, node, pod
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.decide import schedule

pod_st = st.tuples(st.integers(1, 4), st.integers(0, 5))  # (cpu units, priority)
node_st = st.tuples(st.integers(1, 8), st.lists(pod_st, max_size=4))


@settings(max_examples=examples(150), deadline=None)
@given(nodes=st.lists(node_st, min_size=1, max_size=4),
       want=st.integers(1, 6), prio=st.integers(0, 6))
def test_preemption_invariants(nodes, want: int, prio: int) -> None:
    objects = []
    running: dict[str, list[tuple[str, int, int]]] = {}
    capacity: dict[str, int] = {}
    for i, (cap, pods) in enumerate(nodes):
        name = f"n{i}"
        capacity[name] = cap
        running[name] = []
        objects.append(node(name, cpu=str(cap)))
        used = 0
        for j, (cpu, p) in enumerate(pods):
            if used + cpu > cap:
                continue  # keep the input valid: running pods fit their node
            used += cpu
            key = f"{name}-p{j}"
            running[name].append((f"default/{key}", cpu, p))
            objects.append(pod(key, str(cpu), node_name=name, priority=p,
                               start="2026-11-23T08:00:00Z"))
    objects.append(pod("new", str(want), priority=prio))
    d = schedule(cluster_of(*objects), "default/new")

    def free(name: str, gone: set[str]) -> int:
        return capacity[name] - sum(c for k, c, _ in running[name] if k not in gone)

    fits_somewhere = any(free(n, set()) >= want for n in capacity)
    if fits_somewhere:
        assert d.result == "scheduled"
        assert free(d.node, set()) >= want
        return
    if d.result == "unschedulable":
        for n in capacity:
            lower = {k for k, _, p in running[n] if p < prio}
            assert free(n, lower) < want or not lower
        return
    assert d.result == "preempt"
    victims = set(d.victims)
    by_key = {k: (c, p) for k, c, p in running[d.node]}
    assert victims and victims <= set(by_key)
    assert all(by_key[v][1] < prio for v in victims)
    assert free(d.node, victims) >= want
    lower = {k for k, _, p in running[d.node] if p < prio}
    assert free(d.node, lower) >= want
    for v in victims:
        assert free(d.node, victims - {v}) < want, f"{v} was a needless victim"
