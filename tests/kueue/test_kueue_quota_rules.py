"""Kueue quota accounting rules at their boundaries, each with Kueue's own answer."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, V07, config, cq, flavor, inputs, pod_set, run, wl

from kubepreempt.kueue.quota import Snapshot, lowest_subtree_that_fits, workload_info
from kubepreempt.kueue.semantics import semantics_for

CPU = ("default", "cpu")


def snapshot(objs: list[dict[str, Any]], version: str = CURRENT) -> Snapshot:
    inp = inputs(objs, version)
    return Snapshot(inp.cluster_queues.values(), inp.flavors, inp.workloads.values(),
                    inp.config, inp.cohorts)


def with_reclaimable(w: dict[str, Any], count: int) -> dict[str, Any]:
    w.setdefault("status", {})["reclaimablePods"] = [{"name": "main", "count": count}]
    return w


# ---- reclaimablePods ------------------------------------------------------------------------


def test_reclaimable_pods_reduce_a_pending_workloads_requests() -> None:
    """``workload.NewInfo`` (pkg/workload/workload.go) counts ``podSetsCountsAfterReclaim``
    pods per pod set: 4 pods of 1 CPU with 1 reclaimable request 3 CPUs.

    Kills the mutation that ignores ``wl.reclaimable`` in ``workload_info``'s counts."""
    inp = inputs([flavor("default"), cq("q", [("default", {"cpu": "8"})]),
                  with_reclaimable(wl("w", pod_sets=[pod_set("main", 4, {"cpu": "1"})],
                                      queue="q"), 1)])
    (ps,) = workload_info(inp.workloads["default/w"]).total_requests
    assert (ps.count, ps.requests) == (3, {"cpu": 3000})


@pytest.mark.parametrize("version", [V07, CURRENT])
def test_reclaimable_pods_scale_down_an_admitted_workloads_usage(version: str) -> None:
    """``totalRequestsFromAdmission``: when the count after reclaim (6 - 2 = 4) is lower
    than the admission's count (6), the admission's ``resourceUsage`` is divided by the
    admitted count, then multiplied by the new one (``Requests.Divide`` then ``Mul``, Go
    integer division in milli units): 1000m / 6 = 166m, times 4 -> 664m (not 666m). That
    usage is what the ClusterQueue is charged.

    Kills the mutations that skip the scaling path (``current < count`` -> ``False``) or
    multiply before dividing."""
    w = wl("w", pod_sets=[pod_set("main", 6, {"cpu": "1"})], admitted="q")
    w["status"]["admission"]["podSetAssignments"][0]["resourceUsage"] = {"cpu": "1"}
    objs = [flavor("default"), cq("q", [("default", {"cpu": "8"})]), with_reclaimable(w, 2)]
    inp = inputs(objs, version)
    (ps,) = workload_info(inp.workloads["default/w"]).total_requests
    assert (ps.count, ps.requests) == (4, {"cpu": 664})
    assert snapshot(objs, version).cqs["q"].used("default", "cpu") == 664


@pytest.mark.parametrize(("version", "count", "cpu"), [(V07, 4, 4000), (CURRENT, 2, 2000)])
def test_partially_admitted_workload_keeps_its_admitted_usage(version: str, count: int,
                                                              cpu: int) -> None:
    """Partial admission: the spec asks for 4 pods, the admission granted 2 (2 CPUs). The
    count after reclaim (4) is *higher* than the admitted count, and upstream's
    ``totalRequestsFromAdmission`` only scales when it is lower ("Otherwise if
    countAfterReclaim is higher it means that the podSet was partially admitted and the
    count should be preserved", #3118, v0.10): the queue is charged 2 CPUs. Kueue v0.7.0
    rescaled whenever the counts differed (``count != setRes.Count``): 2 CPUs / 2 pods x 4
    pods = 4 CPUs.

    Kills the mutation ``current < count`` -> ``current != count``, and the release
    switch ``partial_admission_keeps_usage`` either way."""
    w = wl("w", pod_sets=[pod_set("main", 4, {"cpu": "1"})], admitted="q")
    psa = w["status"]["admission"]["podSetAssignments"][0]
    psa["count"], psa["resourceUsage"] = 2, {"cpu": "2"}
    objs = [flavor("default"), cq("q", [("default", {"cpu": "8"})]), w]
    sem = semantics_for(version)
    (ps,) = workload_info(inputs(objs, version).workloads["default/w"], "",
                          sem.partial_admission_keeps_usage).total_requests
    assert (ps.count, ps.requests) == (count, {"cpu": cpu})
    assert snapshot(objs, version).cqs["q"].used("default", "cpu") == cpu


# ---- the lowest subtree that fits, under lending limits ---------------------------------------


def cohort(name: str, parent: str = "", cpu: str = "0",
           lending_limit: str | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {"name": "cpu", "nominalQuota": cpu}
    if lending_limit is not None:
        res["lendingLimit"] = lending_limit
    spec: dict[str, Any] = {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "default", "resources": [res]}]}]}
    if parent:
        spec["parentName"] = parent
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def test_lowest_subtree_counts_what_remains_after_the_queues_local_quota() -> None:
    """Kueue's ``FindHeightOfLowestSubtreeThatFits`` (pkg/scheduler/preemption/
    preemption_hierarchical.go): ``remaining := val - LocalAvailable(c, fr)``, then the
    first ancestor that is not ``BorrowingWith(fr, remaining)``.

    Queue a (nominal 10, lendingLimit 4 with the LendingLimit gate) keeps 6 local and
    uses 4: 2 local available. Cohort mid (own 2) holds 2 + 4 lent = 6; root holds mid's
    6 and b's 3. Asking 8 more: a would borrow (4 + 8 > 10); 8 - 2 = 6 fits mid
    (0 + 6 <= 6), so the lowest subtree is mid, height 1, smaller than the tree. Counting
    all 8 at mid would not fit and climb to the root (height 2).

    Kills the mutation ``remaining = val - cq.local_available(fr)`` -> ``remaining =
    val``."""
    objs = [flavor("default"), config(fair=False, lending_limit=True),
            cohort("root"), cohort("mid", parent="root", cpu="2"),
            cq("a", [("default", {"cpu": ("10", None, "4")})], cohort="mid"),
            cq("b", [("default", {"cpu": "3"})], cohort="root"),
            wl("a1", {"cpu": "4"}, admitted="a")]
    snap = snapshot(objs)
    a = snap.cqs["a"]
    assert (a.local_available(CPU), snap.cohorts["mid"].subtree[CPU]) == (2000, 6000)
    assert lowest_subtree_that_fits(a, CPU, 8000) == (1, True)
    assert lowest_subtree_that_fits(a, CPU, 9000) == (2, False)  # 7 > 6: the root


def test_lowest_subtree_counts_what_remains_after_each_cohorts_local_quota() -> None:
    """The same walk one level up: ``remaining -= LocalAvailable(trackingNode, fr)`` for
    each ancestor passed.

    a (nominal 4, no lending limit) uses 4; mid (own 6, lendingLimit 1) holds 10 and keeps
    9 local, 4 of it used (a's usage stays in mid's local part): 5 local available. top
    holds mid's 1 lent plus its own 3: 4; root adds b's 5: 9. Asking 8: a borrows; mid:
    4 + 8 > 10, passed, 8 - 5 = 3 remain; top: 0 + 3 <= 4 fits, height 2, smaller than
    the tree. Without subtracting mid's local part, 8 > 4 at top and the walk reaches the
    root (height 3).

    Kills the mutation that drops ``remaining -= node.local_available(fr)``."""
    objs = [flavor("default"), config(fair=False, lending_limit=True),
            cohort("root"), cohort("top", parent="root", cpu="3"),
            cohort("mid", parent="top", cpu="6", lending_limit="1"),
            cq("a", [("default", {"cpu": "4"})], cohort="mid"),
            cq("b", [("default", {"cpu": "5"})], cohort="root"),
            wl("a1", {"cpu": "4"}, admitted="a")]
    snap = snapshot(objs)
    mid, top = snap.cohorts["mid"], snap.cohorts["top"]
    assert (mid.subtree[CPU], mid.local_available(CPU), top.subtree[CPU]) == (
        10000, 5000, 4000)
    assert lowest_subtree_that_fits(snap.cqs["a"], CPU, 8000) == (2, True)


# ---- fair sharing: LessThanInitialShare alone ------------------------------------------------


@pytest.mark.parametrize("version", [V07, CURRENT])
@pytest.mark.parametrize(("b_uses", "victims"), [(4, []), (5, ["default/b5"])])
def test_less_than_initial_share_is_strict_when_it_is_the_first_strategy(
        version: str, b_uses: int, victims: list[str]) -> None:
    """Fair sharing with ``preemptionStrategies: [LessThanInitialShare]``: a candidate
    queue's workload may be preempted only when the preemptor's share with its workload
    is strictly below the candidate queue's share before preemption (Kueue
    pkg/scheduler/preemption/fairsharing/strategy.go: ``LessThanInitialShare`` is
    ``preemptorNewShare < preempteeOldShare``).

    Queues a, b, c of nominal 3 in one cohort (9 lendable). a uses 3, c the rest; the
    incoming 1-CPU workload makes a borrow 1: share 1/9. With b using 4 (borrowing 1) b's
    share is also 1/9: equal, not less, so nothing is preempted. With b using 5 (share
    2/9) b's newest workload goes.

    Kills the mutation ``<`` -> ``<=`` in the LessThanInitialShare strategy (both the v0.7
    and the current fair-sharing code)."""
    pre = {"within": "LowerPriority", "reclaim": "Any"}
    objs = [flavor("default"), config(fair=True, strategies=["LessThanInitialShare"]),
            *[cq(n, [("default", {"cpu": "3"})], cohort="all", **pre) for n in "abc"]]
    objs += [wl(f"a{i}", {"cpu": "1"}, admitted="a", reserved_at=5.0) for i in range(3)]
    objs += [wl(f"b{i}", {"cpu": "1"}, admitted="b", reserved_at=float(i))
             for i in range(1, b_uses + 1)]
    objs += [wl(f"c{i}", {"cpu": "1"}, admitted="c", reserved_at=5.0)
             for i in range(6 - b_uses)]
    d = run([*objs, wl("in", {"cpu": "1"}, queue="a")], "in", version)
    assert d.victims == victims
