"""Rules of one Kueue scheduling cycle the tables leave open (upstream
``pkg/scheduler/scheduler.go`` at main ff69552e): the quota a Preempt entry without
targets reserves (``quotaResourcesToReserve``, upstream ``TestResourcesToReserve``),
``processEntry`` going on to the next entry after one it leaves for requeueing, the
requeue reasons (``requeueAndUpdate``), and what the cycle reports to its caller."""

from __future__ import annotations

import pytest
from builders.kueue import BASE, CURRENT, NOW, cq, flavor, inputs, pod_set, wl

from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.nomination import Entry, nominate
from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.quota import FR, Snapshot, WorkloadInfo, workload_info
from kubepreempt.kueue.scheduler import (
    ASSUMED,
    nominate_heads,
    quota_to_reserve,
    requeue_reason,
    schedule,
)

# ---- quotaResourcesToReserve (TestResourcesToReserve) ----

# Upstream's ClusterQueue "cq" (cohort eng): memory on-demand 100; spot 0 with borrowing
# limit 100; gpu model-a 10 with borrowing limit 0; model-b 10 with borrowing limit 5.
RESERVE_CQ = cq("cq", [("on-demand", {"memory": "100"}), ("spot", {"memory": ("0", "100")})],
                [("model-a", {"gpu": ("10", "0")}), ("model-b", {"gpu": ("10", "5")})],
                cohort="eng")
RESERVE_FLAVORS = [flavor("on-demand"), flavor("spot"), flavor("model-a"), flavor("model-b")]


def _reserved(cq_usage: dict[FR, int], assigned: dict[FR, int], borrowing: int) -> dict[FR, int]:
    """``resourcesToReserve`` for a Preempt assignment of ``assigned`` (pod set
    ``memory`` and pod set ``gpu``, one flavor each) in upstream's "cq" using
    ``cq_usage``."""
    objs = [*RESERVE_FLAVORS, RESERVE_CQ]
    for i, ((flv, res), amount) in enumerate(cq_usage.items()):
        objs.append(wl(f"workload-{i}", {res: str(amount)}, admitted="cq", flavors={res: flv}))
    requests = {res: str(v) for (_, res), v in assigned.items()}
    objs.append(wl("incoming", pod_sets=[pod_set(res, 1, {res: q})
                                         for res, q in requests.items()]))
    inp = inputs(objs, CURRENT)
    admitted = [w for w in inp.workloads.values() if w.admission_cq]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)
    info = workload_info(inp.workloads["default/incoming"], "cq")
    assignment = Assignment(
        [PodSetAssignment(res, {res: FlavorAssignment(flv, Mode.PREEMPT)}, fits=False)
         for flv, res in assigned], borrowing=borrowing > 0, borrow_level=borrowing)
    return quota_to_reserve(Entry(info, assignment), snap)


CQ_USAGE = {("on-demand", "memory"): 60, ("spot", "memory"): 50,
            ("model-a", "gpu"): 6, ("model-b", "gpu"): 2}
CQ_BORROWING = {("on-demand", "memory"): 60, ("spot", "memory"): 60,
                ("model-a", "gpu"): 2, ("model-b", "gpu"): 10}


@pytest.mark.parametrize(("cq_usage", "assigned", "borrowing", "want"), [
    # "Reserved memory and gpu less than assignment usage, assignment preempts":
    # min(50, 100 - 60) and min(6, 10 - 6).
    (CQ_USAGE, {("on-demand", "memory"): 50, ("model-a", "gpu"): 6}, 0,
     {("on-demand", "memory"): 40, ("model-a", "gpu"): 4}),
    # "Reserved memory equal assignment usage, assignment preempts": the workload's
    # request is below the nominal quota left (model-a usage 2 there).
    ({**CQ_USAGE, ("model-a", "gpu"): 2}, {("on-demand", "memory"): 30, ("model-a", "gpu"): 2},
     0, {("on-demand", "memory"): 30, ("model-a", "gpu"): 2}),
    # "Reserved memory is 0, CQ is borrowing, assignment preempts without borrowing":
    # max(0, min(50, 0 - 60)) and max(0, min(2, 10 - 10)); upstream keeps the zeros,
    # which reserve nothing (left out here).
    (CQ_BORROWING, {("spot", "memory"): 50, ("model-b", "gpu"): 2}, 0, {}),
    # "Reserved memory cut by nominal+borrowing quota, assignment preempts and borrows":
    # min(50, 0 + 100 - 60) and min(2, 10 + 5 - 10).
    (CQ_BORROWING, {("spot", "memory"): 50, ("model-b", "gpu"): 2}, 1,
     {("spot", "memory"): 40, ("model-b", "gpu"): 2}),
    # "Reserved memory equal assignment usage, CQ borrowing limit is nil": on-demand
    # has no borrowing limit, all 50 are reserved although 60 of 100 are used.
    (CQ_BORROWING, {("on-demand", "memory"): 50, ("model-b", "gpu"): 2}, 1,
     {("on-demand", "memory"): 50, ("model-b", "gpu"): 2}),
    # Not upstream's: the same rule where 1 byte of nominal quota is left unused:
    # min(50, 100 - 99) = 1 is reserved.
    ({("on-demand", "memory"): 99}, {("on-demand", "memory"): 50}, 0,
     {("on-demand", "memory"): 1}),
])
def test_quota_to_reserve_follows_upstream_table(cq_usage: dict[FR, int],
                                                 assigned: dict[FR, int], borrowing: int,
                                                 want: dict[FR, int]) -> None:
    """``quotaResourcesToReserve``: without borrowing, what the entry requests up to
    the nominal quota its ClusterQueue leaves unused (never below 0); when the
    assignment borrows, up to nominal + borrowingLimit - usage, all of it without a
    borrowing limit (upstream ``TestResourcesToReserve``)."""
    assert _reserved(cq_usage, assigned, borrowing) == want


# ---- processEntry: the entries after one left for requeueing are processed ----

F = flavor("default")


def _cycle(objs: list[dict], heads: list[str], issued: int | None = None,
           ) -> tuple[list[Entry], list[str], object]:
    """One cycle on ``heads`` (``default/<name>``). ``preempt`` returns ``issued`` (by
    default the number of targets). Returns the entries, the admitted names and the
    cycle's outcome."""
    inp = inputs(objs, CURRENT)
    pending = [inp.workloads[f"default/{h}"] for h in heads]
    admitted = [w for w in inp.workloads.values() if w.admission_cq]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)

    def nominate_one(w: Workload) -> Entry:
        return nominate(workload_info(w, w.queue_name), w.pod_sets, snap, inp.flavors, NOW)

    got: list[str] = []

    def admit(e: Entry, usage: WorkloadInfo) -> None:
        got.append(e.info.obj.name)
        snap.add_workload(usage)

    def preempt(e: Entry) -> int:
        return len(e.targets) if issued is None else issued

    entries = nominate_heads(pending, nominate_one, snap)
    out = schedule(entries, snap, admit, preempt)
    return entries, got, out


def test_an_entry_after_a_no_fit_one_is_still_admitted() -> None:
    """``processEntry`` returns on a NoFit entry (requeue reason ``NoFit``) and the
    iterator goes on: the next entry (lower priority, so ordered after it) is admitted."""
    objs = [F, cq("a", [("default", {"cpu": "2"})]), cq("b", [("default", {"cpu": "2"})]),
            wl("big", {"cpu": "5"}, priority=10, queue="a"),
            wl("small", {"cpu": "1"}, priority=1, queue="b")]
    entries, admitted, out = _cycle(objs, ["big", "small"])
    big = entries[0]
    assert big.assignment is not None and big.assignment.mode == Mode.NO_FIT
    assert requeue_reason(big) == "NoFit"
    assert admitted == ["small"]
    assert out.admitted_queues == ["b"]


def test_an_entry_after_a_preempt_entry_without_targets_is_still_admitted() -> None:
    """A Preempt entry without candidates returns from ``processEntry`` with requeue
    reason ``PreemptionNoCandidates`` (its queue reclaims Any: nothing is reserved); the
    next entry is admitted."""
    objs = [F, cq("a", [("default", {"cpu": "2"})], within="LowerPriority"),
            cq("b", [("default", {"cpu": "2"})]),
            wl("holder", {"cpu": "2"}, priority=100, admitted="a"),
            wl("blocked", {"cpu": "1"}, priority=10, queue="a"),
            wl("small", {"cpu": "1"}, priority=1, queue="b")]
    entries, admitted, _ = _cycle(objs, ["blocked", "small"])
    blocked = entries[0]
    assert blocked.assignment is not None and blocked.assignment.mode == Mode.PREEMPT
    assert blocked.targets == []
    assert requeue_reason(blocked) == "PreemptionNoCandidates"
    assert admitted == ["small"]


def test_a_workload_that_was_never_nominated_is_requeued_with_the_generic_reason() -> None:
    """``requeueAndUpdate`` turns the generic reason into FailedAfterNomination only for
    an entry that was nominated (``e.status != notNominated``); one that failed before
    nomination (here resource validation: requests above limits) keeps the generic
    reason, the empty ``RequeueReasonGeneric``."""
    bad = wl("bad", queue="a", pod_sets=[{"name": "main", "count": 1, "template": {"spec": {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"},
                                                   "limits": {"cpu": "1"}}}]}}}])
    objs = [F, cq("a", [("default", {"cpu": "4"})]), bad]
    entries, admitted, out = _cycle(objs, ["bad"])
    assert entries[0].assignment is None and entries[0].status == ""
    assert requeue_reason(entries[0]) == ""
    assert (admitted, out.anything) == ([], False)


# ---- what the cycle reports: an admission or an eviction issued ----

def _preempting(extra: list[dict] | None = None) -> list[dict]:
    """``in-a`` (priority 10) preempts ``low`` (priority 0) in ClusterQueue a."""
    return [F, cq("a", [("default", {"cpu": "2"})], within="LowerPriority"),
            cq("b", [("default", {"cpu": "2"})]),
            wl("low", {"cpu": "2"}, priority=0, admitted="a"),
            wl("in-a", {"cpu": "2"}, priority=10, queue="a", created=BASE), *(extra or [])]


def test_a_cycle_that_issues_an_eviction_changed_something() -> None:
    """A Preempt entry whose preemptions were issued (``IssuePreemptions`` counted one):
    the cycle admitted nothing but changed something."""
    entries, admitted, out = _cycle(_preempting(), ["in-a"], issued=1)
    assert [t.info.obj.name for t in entries[0].targets] == ["low"]
    assert (admitted, out.admitted, out.anything) == ([], False, True)


def test_a_cycle_whose_preemptions_issue_nothing_changed_nothing() -> None:
    """Every target already being evicted: no eviction issued, nothing changed."""
    _, _, out = _cycle(_preempting(), ["in-a"], issued=0)
    assert (out.admitted, out.anything) == (False, False)


def test_an_admission_earlier_in_the_cycle_still_counts_after_a_preemption() -> None:
    """An admission (priority 20, ordered first) and then a Preempt entry issuing no
    eviction: the cycle changed something."""
    objs = _preempting([wl("in-b", {"cpu": "1"}, priority=20, queue="b")])
    entries, admitted, out = _cycle(objs, ["in-a", "in-b"], issued=0)
    assert admitted == ["in-b"]
    assert entries[1].status == ASSUMED
    assert (out.admitted, out.anything) == (True, True)


def test_the_snapshot_searches_uncached_after_the_nominations() -> None:
    """The scans shared while the heads are nominated are dropped afterwards: a later
    target search on the same snapshot works and finds the same targets."""
    inp = inputs(_preempting(), CURRENT)
    w = inp.workloads["default/in-a"]
    admitted = [x for x in inp.workloads.values() if x.admission_cq]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, admitted, inp.config,
                    inp.cohorts)
    [e] = nominate_heads([w], lambda x: nominate(workload_info(x, "a"), x.pod_sets, snap,
                                                  inp.flavors, NOW), snap)
    assert e.assignment is not None
    again = get_targets(e.info, e.assignment, snap, NOW, Trace(enabled=False))
    assert [t.info.key for t in again] == [t.info.key for t in e.targets] == ["default/low"]


def test_an_entry_after_one_with_overlapping_targets_is_still_admitted() -> None:
    """``processEntry`` marks an entry whose targets overlap an earlier entry's skipped
    and returns; the iterator goes on. wa and wb both reclaim their nominal quota from v
    (c borrows the cohort's 4 cpu); the older wa evicts v, wb is skipped, and wd (the
    newest, in a queue of its own) is then admitted."""
    objs = [F, cq("a", [("default", {"cpu": "2"})], cohort="co", reclaim="Any"),
            cq("b", [("default", {"cpu": "2"})], cohort="co", reclaim="Any"),
            cq("c", [("default", {"cpu": "0"})], cohort="co"),
            cq("d", [("default", {"cpu": "1"})]),
            wl("v", {"cpu": "4"}, admitted="c"),
            wl("wa", {"cpu": "2"}, queue="a", created=BASE),
            wl("wb", {"cpu": "2"}, queue="b", created=BASE + 1),
            wl("wd", {"cpu": "1"}, queue="d", created=BASE + 2)]
    entries, admitted, _ = _cycle(objs, ["wa", "wb", "wd"])
    wa, wb, wd = entries
    assert [t.info.obj.name for t in wb.targets] == ["v"]
    assert wb.message == "Workload has overlapping preemption targets with another workload"
    assert admitted == ["wd"]
    assert wd.status == ASSUMED
