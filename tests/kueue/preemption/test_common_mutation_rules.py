"""Rules of the shared preemption steps (``kubepreempt.kueue.preemption.common``) that the
ported tables leave open, each worked out from upstream Kueue:
``common.CandidatesOrdering`` and ``quotaReservationTime`` (pkg/scheduler/preemption/
common/ordering.go), ``fillBackWorkloads`` and ``restoreSnapshot`` (preemption.go), and
v0.7's ``workloadFits`` (pkg/scheduler/preemption/preemption.go at v0.7.0).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, NOW, V07, cpu, cq, flavor, inputs, preempt, wl

from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, Mode, PodSetAssignment
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.preemption.common import candidate_rank
from kubepreempt.kueue.quota import Snapshot, workload_info

EPOCH = "1970-01-01T00:00:00Z"


def _reserved(name: str, uid: str, when: str | None, **kw: Any) -> dict[str, Any]:
    """An admitted 1-cpu priority-0 workload in ``q`` whose QuotaReserved=True condition
    has lastTransitionTime ``when`` (None: the field is absent)."""
    w = wl(name, {"cpu": "1"}, 0, admitted="q", uid=uid, **kw)
    cond = w["status"]["conditions"][0]
    if when is None:
        del cond["lastTransitionTime"]
    else:
        cond["lastTransitionTime"] = when
    return w


def _unreserved(name: str, uid: str) -> dict[str, Any]:
    """An admission written without any condition (accepted as holding quota)."""
    w = wl(name, {"cpu": "1"}, 0, admitted="q", uid=uid)
    del w["status"]["conditions"]
    return w


QUEUE = cq("q", [("default", {"cpu": "2"})], within="LowerPriority")
INCOMING = wl("in", {"cpu": "1"}, 5, queue="q")


@pytest.mark.parametrize("version", [CURRENT, V07])
def test_the_more_recently_admitted_candidate_goes_first(version: str) -> None:
    """CandidatesOrdering: equal priority, the later quota reservation goes first; UID
    only breaks ties (here the UID order is the other way round)."""
    objs = [flavor("default"), QUEUE,
            wl("old", {"cpu": "1"}, 0, admitted="q", uid="a", reserved_at=BASE + 10),
            wl("new", {"cpu": "1"}, 0, admitted="q", uid="z", reserved_at=BASE + 20)]
    assert preempt(objs, INCOMING, "q", cpu(), version) == {"new"}


@pytest.mark.parametrize("version", [CURRENT, V07])
def test_a_candidate_without_a_true_quota_reserved_condition_counts_as_admitted_now(
        version: str) -> None:
    """quotaReservationTime: no QuotaReserved=True condition -> the current time, so it
    is the most recent admission and goes first."""
    objs = [flavor("default"), QUEUE,
            wl("old", {"cpu": "1"}, 0, admitted="q", uid="a", reserved_at=BASE + 10),
            _unreserved("bare", "z")]
    assert preempt(objs, INCOMING, "q", cpu(), version) == {"bare"}


def test_a_reservation_without_a_time_is_older_than_the_unix_epoch() -> None:
    """quotaReservationTime returns the condition's LastTransitionTime; absent, it is
    Go's zero time (year 1), older than a reservation at 1970-01-01, so the epoch one
    is the more recent and goes first (the UIDs would pick the other)."""
    objs = [flavor("default"), QUEUE,
            _reserved("epoch", "b", EPOCH), _reserved("timeless", "a", None)]
    assert preempt(objs, INCOMING, "q", cpu(), CURRENT) == {"epoch"}


def _info(obj: dict[str, Any]) -> Any:
    inp = inputs([flavor("default"), QUEUE, obj], CURRENT)
    return workload_info(next(iter(inp.workloads.values())), "q")


def test_the_rank_of_an_unreserved_candidate_follows_the_current_time() -> None:
    """quotaReservationTime is read at each ordering: without a reservation the rank
    uses that call's ``now``, not the one of an earlier search."""
    info = _info(_unreserved("bare", "u"))
    assert candidate_rank(info, NOW)[2] == -NOW
    assert candidate_rank(info, NOW + 50)[2] == -(NOW + 50)


def test_the_rank_with_a_false_quota_reserved_condition_follows_the_current_time() -> None:
    """quotaReservationTime: a QuotaReserved condition that is not True (here False, as
    after an eviction) also means the current time, read at each ordering."""
    info = _info(wl("evicted", {"cpu": "1"}, 0, queue="q", conditions=[
        {"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "",
         "lastTransitionTime": "2023-11-14T22:13:20Z"}]))
    assert candidate_rank(info, NOW)[2] == -NOW
    assert candidate_rank(info, NOW + 50)[2] == -(NOW + 50)


def test_the_rank_follows_a_changed_uid() -> None:
    """CandidatesOrdering compares the UIDs the workloads have now."""
    info = _info(wl("w", {"cpu": "1"}, 0, admitted="q", uid="first"))
    assert candidate_rank(info, NOW)[3] == "first"
    info.obj.uid = "second"
    assert candidate_rank(info, NOW)[3] == "second"


def _targets(objs: list[dict[str, Any]], incoming: dict[str, Any], version: str,
             flv: str = "default") -> tuple[set[str], Trace]:
    inp = inputs([*objs, incoming], version)
    key = f"default/{incoming['metadata']['name']}"
    others = [w for k, w in inp.workloads.items() if k != key]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts)
    info = workload_info(inp.workloads[key], "q")
    a = Assignment([PodSetAssignment("main", {"cpu": FlavorAssignment(flv, Mode.PREEMPT)},
                                     fits=False)])
    trace = Trace()
    found = get_targets(info, a, snap, NOW, trace)
    return {t.info.obj.name for t in found}, trace


@pytest.mark.parametrize("version", [CURRENT, V07])
def test_fill_back_spares_a_candidate_and_says_so(version: str) -> None:
    """fillBackWorkloads: 'low' (lowest priority) is taken first, 'mid' is still needed;
    re-adding 'low' in reverse order still fits (1 + 2 <= 3), so only 'mid' goes."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "3"})], within="LowerPriority"),
            wl("low", {"cpu": "1"}, -2, admitted="q"),
            wl("mid", {"cpu": "2"}, -1, admitted="q")]
    got, trace = _targets(objs, wl("in", {"cpu": "2"}, 0, queue="q"), version)
    assert got == {"mid"}
    assert "spared default/low: the workload still fits with it" in trace.lines


@pytest.mark.parametrize("version", [CURRENT, V07])
def test_no_targets_when_even_all_candidates_are_not_enough(version: str) -> None:
    """Removing the only lower-priority workload leaves 2 + 3 > 3: no targets, and the
    trace ends with why."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "3"})], within="LowerPriority"),
            wl("hi", {"cpu": "2"}, 9, admitted="q"), wl("low", {"cpu": "1"}, -1, admitted="q")]
    got, trace = _targets(objs, wl("in", {"cpu": "3"}, 0, queue="q"), version)
    assert got == set()
    assert trace.lines[-1].strip().startswith("the workload does not fit")
    assert all(isinstance(line, str) for line in trace.lines)


def test_v0_7_fits_checks_the_assigned_flavor_after_an_unrequested_one() -> None:
    """v0.7 workloadFits walks every flavor of the queue, skipping those the workload
    does not request: the request in f2 (second flavor) needs both 1-cpu workloads gone."""
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "2"})], within="LowerPriority"),
            wl("lo1", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "f2"}),
            wl("lo2", {"cpu": "1"}, -1, admitted="q", flavors={"cpu": "f2"})]
    got, _ = _targets(objs, wl("in", {"cpu": "2"}, 0, queue="q"), V07, "f2")
    assert got == {"lo1", "lo2"}


def test_v0_7_fits_respects_the_borrowing_limit_when_borrowing() -> None:
    """v0.7 workloadFits with borrowing: usage + request must stay within nominal +
    borrowingLimit (2 + 0) even though the cohort has room, so both workloads go."""
    objs = [flavor("default"),
            cq("q", [("default", {"cpu": ("2", "0")})], cohort="c", within="LowerPriority"),
            cq("o", [("default", {"cpu": "10"})], cohort="c"),
            wl("lo1", {"cpu": "1"}, -1, admitted="q"), wl("lo2", {"cpu": "1"}, -1, admitted="q")]
    got, _ = _targets(objs, wl("in", {"cpu": "2"}, 0, queue="q"), V07)
    assert got == {"lo1", "lo2"}


def test_v0_7_fits_checks_the_cohort_usage() -> None:
    """v0.7 workloadFits: within q's nominal is not enough, the cohort's usage plus the
    request must fit its requestable quota (4): o borrows 2, so two of o's workloads go
    (the most recently admitted first)."""
    objs = [flavor("default"),
            cq("q", [("default", {"cpu": "2"})], cohort="c", reclaim="Any"),
            cq("o", [("default", {"cpu": "2"})], cohort="c"),
            *[wl(f"o{i}", {"cpu": "1"}, 0, admitted="o") for i in range(1, 5)]]
    got, _ = _targets(objs, wl("in", {"cpu": "2"}, 0, queue="q"), V07)
    assert got == {"o3", "o4"}
