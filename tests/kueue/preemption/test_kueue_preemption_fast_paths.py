"""The fast paths of the Kueue decisions give the straightforward computation's answers.

The simulator's nominations run classic preemption with the trace off, which takes the
hoisted candidate classification and the remembered candidate order; the quota tree keeps
incremental figures. Each is compared here with the plain computation (the per-workload
``classify``, a sort by ``candidate_order_key`` with the evicted split, sums recomputed
from the admitted workloads) on many small random cohort trees: two levels of cohorts,
two flavors, borrowing limits, every preemption policy, evicted workloads, workloads
without a reservation time, equal priorities and times.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from builders.kueue import BASE, NOW, cq, flavor, inputs, wl

from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.objects import Condition
from kubepreempt.kueue.preemption import classical as classic
from kubepreempt.kueue.preemption import get_targets
from kubepreempt.kueue.preemption.common import Trace, candidate_order_key, candidate_rank
from kubepreempt.kueue.quota import PodSetResources, Snapshot, WorkloadInfo, workload_info
from kubepreempt.kueue.semantics import CURRENT, V0_7

FLAVORS = ("f0", "f1")
POLICIES = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
RECLAIM = ("Never", "LowerPriority", "Any")


def _cohort(name: str, parent: str, cpu: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"parentName": parent} if parent else {}
    if cpu is not None:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": f, "resources": [{"name": "cpu", "nominalQuota": str(cpu)}]}
            for f in FLAVORS]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def _tree(rng: random.Random, version: str = CURRENT) -> tuple[list[dict[str, Any]],
                                                               list[str]]:
    objs: list[dict[str, Any]] = [flavor(f) for f in FLAVORS]
    cohorts = [_cohort("r", "", rng.choice([None, 0, 2])), _cohort("c0", "r", None),
               _cohort("c1", "r", rng.choice([None, 1]))]
    if version == CURRENT:  # v0.7's cohorts are flat, named by the queues only
        objs += cohorts
    names = []
    for i in range(rng.randint(2, 6)):
        cohort = rng.choice(["r", "c0", "c1", "c1", ""])
        quotas = []
        for f in FLAVORS:
            nominal = rng.randint(0, 5)
            lend = rng.choice([None, None, 0, min(2, nominal)]) if cohort else None
            quotas.append((f, {"cpu": (str(nominal),
                                       rng.choice([None, "1", "4"]) if cohort else None,
                                       None if lend is None else str(lend))}))
        reclaim = rng.choice(RECLAIM)
        bwc = rng.choice([None, "LowerPriority"]) if reclaim != "Never" else None
        objs.append(cq(f"q{i}", quotas, cohort=cohort,
                       within=rng.choice(POLICIES), reclaim=reclaim,
                       borrow_within=bwc,
                       threshold=rng.choice([None, 1]) if bwc else None))
        names.append(f"q{i}")
    return objs, names


def _workloads(rng: random.Random, names: list[str]) -> list[dict[str, Any]]:
    out = []
    for j in range(rng.randint(0, 14)):
        conds = []
        if rng.random() < 0.2:
            conds.append({"type": "Evicted", "status": rng.choice(["True", "False"]),
                          "reason": "Preempted", "message": "",
                          "lastTransitionTime": "2023-11-14T22:13:20Z"})
        body = wl(f"w{j}", {"cpu": str(rng.randint(1, 3))}, priority=rng.randint(0, 3),
                  admitted=rng.choice(names), flavors={"cpu": rng.choice(FLAVORS)},
                  reserved_at=BASE + rng.choice([1, 2, 3]), created=BASE - rng.randint(0, 2),
                  uid=rng.choice([f"w{j}", "same-uid"]), conditions=conds)
        if rng.random() < 0.15:  # no QuotaReserved condition: the order uses "now"
            body["status"]["conditions"] = conds
        out.append(body)
    return out


def _case(seed: int, version: str = CURRENT) -> tuple[Snapshot, WorkloadInfo,
                                                      dict[str, dict[str, int]], set]:
    rng = random.Random(seed)
    objs, names = _tree(rng, version)
    objs += _workloads(rng, names)
    flv = rng.choice(FLAVORS)
    amount = rng.randint(1, 6)
    objs.append(wl("incoming", {"cpu": str(amount)}, priority=rng.randint(0, 3),
                   created=BASE - rng.randint(0, 2)))
    inp = inputs(objs, version)
    admitted = [w for k, w in inp.workloads.items() if k != "default/incoming"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)
    queue = rng.choice([n for n in names if n in snap.cqs])
    info = workload_info(inp.workloads["default/incoming"], queue)
    return snap, info, {flv: {"cpu": amount}}, {(flv, "cpu")}


def _usage(snap: Snapshot) -> list[dict]:
    return [dict(n.usage) for n in [*snap.cqs.values(), *snap.cohorts.values()]]


def _plain_order(groups: list[list[classic.Candidate]], cq_name: str,
                 now: float) -> list[classic.Candidate]:
    """The order as first written: sort each group by the full ``candidatesOrdering``
    key, split each into evicted and the rest, evicted parts first."""
    key = candidate_order_key(cq_name, now)
    splits = []
    for g in groups:
        g = sorted(g, key=lambda c: key(c.info))
        splits.append(([c for c in g if c.info.obj.is_true("Evicted")],
                       [c for c in g if not c.info.obj.is_true("Evicted")]))
    return [c for part in ([s[0] for s in splits] + [s[1] for s in splits]) for c in part]


def _cands(cs: list[classic.Candidate]) -> list[tuple]:
    return [(c.info.key, c.variant, c.lca.name if c.lca else None) for c in cs]


@pytest.mark.parametrize("seed", range(300))
def test_classic_fast_paths_match_plain_computation(seed: int) -> None:
    snap, info, req, frs = _case(seed)
    st = snap.cqs[info.cluster_queue]
    # Candidate classification: hoisted loop (trace off) == per-workload classify.
    plain = classic._Context(info, st, frs, req, False, Trace())
    fast = classic._Context(info, st, frs, req, False, Trace(enabled=False))
    assert _cands(fast.from_queue(st, None, False)) == _cands(plain.from_queue(st, None, False))
    for advantage in (False, True):
        for other in snap.cqs.values():
            assert _cands(fast.from_queue(other, None, advantage)) == \
                _cands(plain.from_queue(other, None, advantage))
    groups = [*classic._collect_cohort(plain), plain.from_queue(st, None, False)]
    assert [_cands(g) for g in classic._collect_cohort(fast)] == \
        [_cands(g) for g in groups[:2]]
    # Order: remembered ranks == the full key sorted afresh (twice: the memo is warm).
    for _ in range(2):
        assert _cands(classic._ordered(*groups, NOW)) == \
            _cands(_plain_order(groups, st.name, NOW))
    # Targets: trace off == trace on, and the snapshot is restored either way.
    before = _usage(snap)
    with_trace = classic.classic_targets(info, req, frs, snap, NOW, Trace())
    assert _usage(snap) == before
    without = classic.classic_targets(info, req, frs, snap, NOW, Trace(enabled=False))
    assert _usage(snap) == before
    assert [(t.info.key, t.reason) for t in without] == \
        [(t.info.key, t.reason) for t in with_trace]


def test_candidate_rank_follows_condition_changes() -> None:
    snap, _, _, _ = _case(3)
    infos = [w for st in snap.cqs.values() for w in st.workloads.values()
             if w.obj.is_true("QuotaReserved") and not w.obj.is_true("Evicted")]
    assert infos, "the case must hold a reserved workload"
    w = infos[0]
    assert candidate_rank(w, NOW)[0] is True
    w.obj.conditions = (*w.obj.conditions, Condition("Evicted", "True", "Preempted", "", NOW))
    assert candidate_rank(w, NOW)[0] is False  # not the remembered rank
    w.obj.priority += 5
    assert candidate_rank(w, NOW)[1] == w.obj.priority
    # Without a reservation the rank depends on "now" and is not remembered.
    w.obj.conditions = ()
    assert candidate_rank(w, NOW)[2] == -NOW
    assert candidate_rank(w, NOW + 1)[2] == -(NOW + 1)


def _plain_local_quota(node: Any, fr: tuple[str, str]) -> int:
    q = node.quotas.get(fr)
    if not node.lending or q is None or q.lending_limit is None:
        return 0
    return max(0, node.subtree.get(fr, 0) - q.lending_limit)


@pytest.mark.parametrize("seed", range(150))
def test_quota_tree_fast_paths_match_plain_formulas(seed: int) -> None:
    snap, _, _, _ = _case(seed)
    rng = random.Random(seed)
    infos = snap.all_workloads()
    held = set(range(len(infos)))
    nodes = [*snap.cqs.values(), *snap.cohorts.values()]
    frs = [(f, "cpu") for f in FLAVORS]
    for _ in range(12):
        for node in nodes:
            for fr in frs:
                local = _plain_local_quota(node, fr)
                assert node.local_quota(fr) == local
                assert node.local_available(fr) == max(0, local - node.usage.get(fr, 0))
            for subset in ([frs[0]], [frs[1]], frs, []):
                assert node.within_nominal(subset) == all(
                    node.subtree.get(fr, 0) >= node.usage.get(fr, 0) for fr in subset)
        if not infos:
            break
        i = rng.randrange(len(infos))
        if i in held:
            snap.remove_workload(infos[i])
            held.discard(i)
        else:
            snap.add_workload(infos[i])
            held.add(i)


@pytest.mark.parametrize("seed", range(150))
def test_shared_scans_give_each_search_its_own_answer(seed: int) -> None:
    """A nomination phase: one preemptor per queue searches the same snapshot in turn,
    sharing the scan cache; each gets what a search without the cache gets."""
    snap, info, _, _ = _case(seed)
    rng = random.Random(seed)
    asks = []
    for name in snap.cqs:
        wl_info = WorkloadInfo(info.obj, name, info.total_requests)
        flv = rng.choice(FLAVORS)
        asks.append((wl_info, {flv: {"cpu": rng.randint(1, 6)}}, {(flv, "cpu")}))
        info.obj.priority = rng.randint(0, 4)  # the next preemptor differs in priority

    def answers() -> list[list[tuple[str, str]]]:
        return [[(t.info.key, t.reason) for t in classic.classic_targets(
            w, req, frs, snap, NOW, Trace(enabled=False))] for w, req, frs in asks]

    plain = answers()
    snap.scan_cache = {}
    shared = answers()
    scanning = any(st.spec.preemption.within_cluster_queue != "Never" or (
        st.parent is not None and st.spec.preemption.reclaim_within_cohort != "Never")
        for st in snap.cqs.values())
    assert bool(snap.scan_cache) == scanning
    snap.scan_cache = None
    assert shared == plain


@pytest.mark.parametrize("seed", range(150))
@pytest.mark.parametrize("version", [V0_7, CURRENT])
def test_get_targets_same_with_trace_off_and_shared_scans(seed: int, version: str) -> None:
    """``GetTargets`` for one preemptor per queue: the trace read (every reason
    composed, no cache), the trace off, and the trace off sharing one scan cache."""
    snap, info, _, _ = _case(seed, version)
    rng = random.Random(seed)
    asks = []
    for name in snap.cqs:
        flv = rng.choice(FLAVORS)
        wl_info = WorkloadInfo(info.obj, name, [
            PodSetResources("main", 1, {"cpu": rng.randint(1, 6)})])
        assignment = Assignment([PodSetAssignment(
            "main", {"cpu": FlavorAssignment(flv, Mode.PREEMPT)}, fits=False)])
        asks.append((wl_info, assignment, rng.randint(0, 4)))

    def answers(trace_on: bool) -> list[list[tuple[str, str]]]:
        out = []
        for w, a, prio in asks:
            w.obj.priority = prio
            out.append([(t.info.key, t.reason) for t in get_targets(
                w, a, snap, NOW, Trace(enabled=trace_on))])
        return out

    before = _usage(snap)
    plain = answers(True)
    assert answers(False) == plain
    snap.scan_cache = {}
    shared = answers(False)
    snap.scan_cache = None
    assert shared == plain
    assert _usage(snap) == before
