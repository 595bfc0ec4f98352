"""The fast paths give exactly the exact paths' answers on random small clusters."""

from builders import cluster_of, node, pdb, pod
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Pod, parse_node
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
        terminating = PREEMPTED if draw(st.integers(0, 4)) == 0 else {}
        docs.append(pod(f"p{j}", f"{draw(st.integers(0, 1200))}m",
                        f"{draw(st.integers(0, 1024))}Mi",
                        node_name=f"n{draw(st.integers(0, n_nodes - 1))}",
                        priority=draw(st.integers(0, 3)), start=start,
                        labels={"app": draw(st.sampled_from(["a", "b"]))}, **terminating))
    if draw(st.booleans()):
        docs.append(pdb("budget", {"app": "a"}, allowed=draw(st.integers(0, 1))))
    # Pending pods nominated to nodes: below, equal to and above the new pod's priority
    # (1-4), so some count as running there and some do not.
    for j in range(draw(st.integers(0, 4))):
        docs.append(pod(f"nominee{j}", f"{draw(st.integers(0, 1500))}m",
                        f"{draw(st.integers(0, 1024))}Mi", priority=draw(st.integers(0, 5)),
                        status_extra={"nominatedNodeName":
                                      f"n{draw(st.integers(0, n_nodes - 1))}"}))
    docs.append(pod("new", f"{draw(st.integers(100, 3500))}m",
                    f"{draw(st.integers(0, 2048))}Mi", priority=draw(st.integers(1, 4))))
    return docs


# A pod the scheduler preempted: it keeps its node and requests until its grace period ends.
PREEMPTED = {"meta_extra": {"deletionTimestamp": "1970-01-01T00:00:30Z"},
             "status_extra": {"conditions": [{"type": "DisruptionTarget", "status": "True",
                                              "reason": "PreemptionByScheduler"}]}}


def decide(docs, fast: bool, materialize: bool = True, sample: bool = False):
    cluster = cluster_of(*docs)
    sched = Scheduler(cluster)
    if not fast:
        # Every filter over every node, nodes holding nominees one by one.
        sched.use_cached_statuses = False
    target = cluster.pending["default/new"]
    state, prefilter, filters = sched.new_state(target)
    assert prefilter is None
    picked = sched.fast_pick(target, state, filters)
    outcome = sched.find_feasible(target, state, filters)
    failed = dict(outcome.statuses.items())
    if outcome.feasible.size:
        best, _ = sched.select_host(state, outcome.feasible)
        return ("scheduled", best, picked, failed)
    assert picked is None
    result = Preemptor(sched, now=NOW, fast=fast, materialize=materialize, sample=sample,
                       seed=1).preempt(target, state, filters, outcome.statuses)
    statuses = {i: s for i, s in result.statuses.items()}
    return ("preempt", result.node, [p.key for p in result.victims], result.pdb_violations,
            statuses, result.decided_by if materialize else None, failed)


@settings(max_examples=examples(250), deadline=None)
@given(clusters())
def test_fast_paths_match_exact(docs) -> None:
    exact = decide(docs, fast=False)
    if exact[0] == "scheduled":
        # The score cache picks the same node, or declines where a nominee counts.
        nominees = any("nominatedNodeName" in d["status"] for d in docs if d["kind"] == "Pod")
        assert exact[2] == exact[1] or (nominees and exact[2] is None)
        fast = decide(docs, fast=True)
        assert (fast[1], fast[3]) == (exact[1], exact[3])
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


@st.composite
def histories(draw):
    """A cluster, then steps: bind a pod, remove one, add a node, or decide for a
    preemptor."""
    docs = draw(clusters())
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["bind", "remove", "decide", "decide", "node"]))
        # Few distinct shapes, so the per-signature caches are reused across steps.
        shape = (draw(st.sampled_from(["900m", "1500m", "2500m"])),
                 draw(st.sampled_from(["0", "512Mi"])), draw(st.integers(0, 4)))
        steps.append((kind, shape, draw(st.integers(0, 10**6)),
                      draw(st.sampled_from([None, 10.0, 30.0])), draw(st.booleans())))
    return docs, steps


def _make(name: str, shape, start: float | None) -> Pod:
    cpu, memory, priority = shape
    made = cluster_of(pod(name, cpu, memory, priority=priority,
                          labels={"app": "a" if priority % 2 else "b"}))
    target = made.pending[f"default/{name}"]
    target.start_time = start
    return target


@settings(max_examples=examples(150), deadline=None)
@given(histories())
def test_caches_follow_changes(history) -> None:
    """Cached statuses and preemption metrics, kept across binds, removals and nominations,
    match a fresh exact computation at every step. A preemption's victims either leave at
    once or stay terminating on their node (``schedule -f``: for their grace period) while
    the preemptor is nominated there, a nominee that counts for later pods of its priority
    or lower."""
    docs, steps = history
    cluster = cluster_of(*docs)
    sched = Scheduler(cluster)
    cached = Preemptor(sched, now=NOW, materialize=False)
    for step, (kind, shape, pick, start, linger) in enumerate(steps):
        if kind == "node":  # a node joins (the simulator's churn): its name ranks anywhere
            name = f"{'amz'[pick % 3]}{step}"
            cluster.add_node(parse_node(node(name, cpu=shape[0], memory="4Gi", pods="4"),
                                        Source()))
            continue
        if kind == "bind":
            cluster.bind(_make(f"b{step}", shape, start),
                         cluster.nodes[pick % len(cluster.nodes)].name)
            continue
        if kind == "remove":
            if cluster.pods:
                cluster.remove(sorted(cluster.pods.values(), key=lambda p: p.key)[
                    pick % len(cluster.pods)])
            continue
        target = _make(f"d{step}", shape, None)
        fresh = Scheduler(cluster, nominator=sched.nominator)
        # Every filter over every node, nodes holding nominees one by one.
        fresh.use_cached_statuses = False
        got, want = [], []
        for sch, preemptor in ((sched, cached),
                               (fresh, Preemptor(fresh, now=NOW, fast=False))):
            state, prefilter, filters = sch.new_state(target)
            assert prefilter is None
            outcome = sch.find_feasible(target, state, filters)
            out = [outcome.feasible.tolist(), dict(outcome.statuses.items())]
            if not outcome.feasible.size:
                res = preemptor.preempt(target, state, filters, outcome.statuses)
                out += [res.node, [p.key for p in res.victims], res.pdb_violations,
                        dict(res.statuses.items())]
            (got if sch is sched else want).append(out)
        assert got == want
        if len(got[0]) > 2 and got[0][2] is not None:
            # Apply it as the scheduler would: victims go, the pod is nominated there.
            for victim in res.victims:
                if victim.terminating:
                    continue  # already going: no second delete
                node_name = victim.node_name
                cluster.remove(victim)
                if linger:
                    victim.deletion_timestamp = NOW
                    victim.preempted_by_scheduler = True
                    cluster.bind(victim, node_name)
            sched.nominator.add(target, res.node)


def test_a_node_added_after_the_index_was_built_takes_its_place_by_name() -> None:
    """Equal candidates are told apart by node name last; a node that joins later (the
    simulator's churn) ranks by its name, not by when it joined."""
    docs = [node(n, cpu="1", memory="4Gi", pods="4") for n in ("b", "c")]
    docs += [pod(f"low-{n}", "1", node_name=n, priority=0) for n in ("b", "c")]
    cluster = cluster_of(*docs)
    sched = Scheduler(cluster)
    preemptor = Preemptor(sched, now=NOW, materialize=False)

    def preempt_for(name: str) -> str | None:
        target = _make(name, ("1", "0", 5), None)
        state, _, filters = sched.new_state(target)
        outcome = sched.find_feasible(target, state, filters)
        return preemptor.preempt(target, state, filters, outcome.statuses).node

    assert preempt_for("first") == "b"  # builds the index over b and c
    cluster.add_node(parse_node(node("a", cpu="1", memory="4Gi", pods="4"), Source()))
    low_a = _make("low-a", ("1", "0", 0), None)
    cluster.bind(low_a, "a")
    assert preempt_for("second") == "a"
