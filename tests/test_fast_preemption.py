"""The fast paths give exactly the exact paths' answers on random small clusters."""

from builders import cluster_of, node, pdb, pod
from hypothesis import given, settings
from hypothesis import strategies as st

from kubepreempt.scheduler.preemption import Preemptor
from kubepreempt.scheduler.scheduler import Scheduler

NOW = 1_000_000.0


@st.composite
def clusters(draw):
    n_nodes = draw(st.integers(1, 5))
    docs = [node(f"n{i}", cpu=str(draw(st.integers(1, 4))), memory="4Gi",
                 pods=str(draw(st.integers(2, 6)))) for i in range(n_nodes)]
    for j in range(draw(st.integers(0, 14))):
        start = draw(st.sampled_from([None, "1970-01-01T00:00:10Z", "1970-01-01T00:00:20Z"]))
        docs.append(pod(f"p{j}", f"{draw(st.integers(0, 1200))}m",
                        f"{draw(st.integers(0, 1024))}Mi",
                        node_name=f"n{draw(st.integers(0, n_nodes - 1))}",
                        priority=draw(st.integers(0, 3)), start=start,
                        labels={"app": draw(st.sampled_from(["a", "b"]))}))
    if draw(st.booleans()):
        docs.append(pdb("budget", {"app": "a"}, allowed=draw(st.integers(0, 1))))
    docs.append(pod("new", f"{draw(st.integers(100, 3500))}m",
                    f"{draw(st.integers(0, 2048))}Mi", priority=draw(st.integers(1, 4))))
    return docs


def decide(docs, fast: bool, materialize: bool = True, sample: bool = False):
    cluster = cluster_of(*docs)
    sched = Scheduler(cluster)
    target = cluster.pending["default/new"]
    state, prefilter, filters = sched.new_state(target)
    assert prefilter is None
    picked = sched.fast_pick(target, state, filters)
    outcome = sched.find_feasible(target, state, filters)
    if outcome.feasible.size:
        best, _ = sched.select_host(state, outcome.feasible)
        return ("scheduled", best, picked)
    assert picked is None
    result = Preemptor(sched, now=NOW, fast=fast, materialize=materialize, sample=sample,
                       seed=1).preempt(target, state, filters, outcome.statuses)
    statuses = {i: s for i, s in result.statuses.items()}
    return ("preempt", result.node, [p.key for p in result.victims], result.pdb_violations,
            statuses, result.decided_by if materialize else None)


@settings(max_examples=250, deadline=None)
@given(clusters())
def test_fast_paths_match_exact(docs) -> None:
    exact = decide(docs, fast=False)
    if exact[0] == "scheduled":
        assert exact[1] == exact[2]  # the score cache picks the same node
        return
    assert decide(docs, fast=True) == exact
    lean = decide(docs, fast=True, materialize=False)
    assert lean[:4] == exact[:4]
    assert decide(docs, fast=True, sample=True) == decide(docs, fast=False, sample=True)


def test_score_cache_follows_binds() -> None:
    c = cluster_of(node("a", cpu="2"), node("b", cpu="2"), pod("x", "500m"), pod("y", "500m"))
    sched = Scheduler(c)
    picks = []
    for key in ("default/x", "default/y"):
        p = c.pending[key]
        state, _, filters = sched.new_state(p)
        picks.append(sched.fast_pick(p, state, filters))
        c.bind(p, c.nodes[picks[-1]].name)
    assert picks == [0, 1]  # the second pod sees the first on node a
