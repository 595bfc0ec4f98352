"""Invariants over random cohorts (hypothesis): victims come only from queues a policy
allows, the workload fits once they leave, and no victim could be spared."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kueue_builders import NOW, config, cq, flavor, inputs, wl
from profiles import examples

from kubepreempt.kueue.admission import decide
from kubepreempt.kueue.preemption import workload_fits
from kubepreempt.kueue.quota import Snapshot

POLICIES = st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
RECLAIM = st.sampled_from(["Never", "LowerPriority", "Any"])


@st.composite
def scenarios(draw):
    fair = draw(st.booleans())
    n = draw(st.integers(2, 3))
    queues = []
    for i in range(n):
        reclaim = draw(RECLAIM)
        bwc = draw(st.sampled_from([None, "LowerPriority"])) if reclaim != "Never" else None
        limit = draw(st.sampled_from([None, "1", "3"]))
        queues.append(cq(f"q{i}", [("default", {"cpu": (str(draw(st.integers(0, 6))), limit)})],
                         cohort="c", within=draw(POLICIES), reclaim=reclaim, borrow_within=bwc,
                         weight=draw(st.sampled_from([None, "1", "2", "500m"]))))
    objs = [flavor("default"), config(fair=fair), *queues]
    inp = inputs(objs)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config)
    for j in range(draw(st.integers(0, 8))):
        q = draw(st.integers(0, n - 1))
        cpu = draw(st.integers(1, 4))
        st_ = snap.cqs[f"q{q}"]
        # Admit only what the real quota accounting would have admitted.
        if workload_fits({"default": {"cpu": cpu * 1000}}, st_, True):
            w = wl(f"w{j}", {"cpu": str(cpu)}, draw(st.integers(-2, 2)), admitted=f"q{q}",
                   created=float(draw(st.integers(0, 5))))
            objs.append(w)
            snap = Snapshot(inputs(objs).cluster_queues.values(), inp.flavors,
                            inputs(objs).workloads.values(), inp.config)
    target = draw(st.integers(0, n - 1))
    objs.append(wl("in", {"cpu": str(draw(st.integers(1, 6)))}, draw(st.integers(-2, 2)),
                   queue=f"q{target}", created=float(draw(st.integers(0, 5)))))
    return objs, f"q{target}"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_preemption_invariants(case) -> None:
    objs, target = case
    inp = inputs(objs)
    d = decide(inp, "default/in", NOW)
    assert d.result in ("admit", "preempt", "pending")
    if d.result != "preempt":
        assert d.victims == []
        return
    pre = inp.workloads["default/in"]
    others = [w for k, w in inp.workloads.items() if k != "default/in"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config)
    own = snap.cqs[target]
    policy = own.spec.preemption
    for t in d.targets:
        v = t.info
        if v.cluster_queue == target:
            assert policy.within_cluster_queue != "Never"
            assert v.obj.priority < pre.priority or (
                v.obj.priority == pre.priority
                and policy.within_cluster_queue == "LowerOrNewerEqualPriority"
                and (pre.creation or 0) < (v.obj.creation or 0))
        else:
            other = snap.cqs[v.cluster_queue]
            assert other.cohort is own.cohort and own.cohort is not None
            assert policy.reclaim_within_cohort != "Never"
            assert other.is_borrowing()
            if policy.reclaim_within_cohort == "LowerPriority":
                assert v.obj.priority < pre.priority
    for t in d.targets:
        snap.remove_workload(t.info)
    assert workload_fits(d.requests, own, True)  # fits once the victims are gone
    for t in d.targets:  # ... and every victim is needed
        snap.add_workload(t.info)
        assert not workload_fits(d.requests, own, False), f"{t.info.key} could be spared"
        snap.remove_workload(t.info)
