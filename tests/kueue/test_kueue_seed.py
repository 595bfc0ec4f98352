"""The seed's statements (Kueue v0.7 preemption doc), each with a hand-worked scenario.

Quotas are cpu counts; "n" below means n cpus. Comments give the arithmetic.
"""

from __future__ import annotations

from builders.kueue import config, cq, flavor, run, wl

LP, ANY, NEVER, LONEP = "LowerPriority", "Any", "Never", "LowerOrNewerEqualPriority"
F = flavor("default")


def test_same_queue_lower_priority_is_preempted_in_cluster_queue() -> None:
    # q: 4; low(-1)=2 + mid(0)=2 = 4. Incoming 2 at priority 0 -> only low is lower.
    objs = [F, cq("q", [("default", {"cpu": "4"})], within=LP),
            wl("low", {"cpu": "2"}, -1, admitted="q"), wl("mid", {"cpu": "2"}, 0, admitted="q"),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run(objs, "in")
    assert (d.result, d.victims, d.reasons) == ("preempt", ["default/low"],
                                                {"default/low": "InClusterQueue"})
    # At priority -1 nothing is lower: no candidates, the workload stays pending.
    objs[-1] = wl("in", {"cpu": "2"}, -1, queue="q")
    assert run(objs, "in").result == "pending"


def test_lower_or_newer_equal_priority_uses_creation_time() -> None:
    # Equal priority: only workloads created after the preemptor are candidates.
    objs = [F, cq("q", [("default", {"cpu": "2"})], within=LONEP),
            wl("older", {"cpu": "2"}, 0, admitted="q", created=1000.0),
            wl("in", {"cpu": "2"}, 0, queue="q", created=2000.0)]
    assert run(objs, "in").result == "pending"
    objs[-1] = wl("in", {"cpu": "2"}, 0, queue="q", created=500.0)
    assert run(objs, "in").victims == ["default/older"]


def _cohort(q2_workloads: list[dict], incoming_cpu: str, **q1: object) -> list[dict]:
    return [F, cq("q1", [("default", {"cpu": "4"})], cohort="c", **q1),
            cq("q2", [("default", {"cpu": "4"})], cohort="c"),
            *q2_workloads, wl("in", {"cpu": incoming_cpu}, 1, queue="q1")]


def test_cohort_queue_above_nominal_is_reclaimed() -> None:
    # q2 uses 3+3 = 6 > 4 (borrows 2). q1 needs 4 <= nominal: Preempt mode. Cohort 6+4 > 8.
    # Most recently admitted first: w2b; then q2 = 3 and 3+4 <= 8 fits.
    objs = _cohort([wl("w2a", {"cpu": "3"}, 0, admitted="q2"),
                    wl("w2b", {"cpu": "3"}, 0, admitted="q2")], "4", reclaim=ANY)
    d = run(objs, "in")
    assert d.victims == ["default/w2b"]
    assert d.reasons == {"default/w2b": "InCohortReclamation"}
    assert d.borrowing is False


def test_cohort_queue_at_nominal_is_not_reclaimed() -> None:
    # q2 uses exactly its nominal 4: not borrowing, so nothing in it is a candidate.
    objs = _cohort([wl("w2a", {"cpu": "4"}, 0, admitted="q2"),
                    wl("w2b", {"cpu": "3"}, 0, admitted="q1")], "4", reclaim=ANY, within=NEVER)
    d = run(objs, "in")
    assert d.result == "pending" and d.victims == []


def test_reclaim_lower_priority_only_takes_lower_priority() -> None:
    objs = _cohort([wl("w2a", {"cpu": "3"}, 1, admitted="q2"),
                    wl("w2b", {"cpu": "3"}, 1, admitted="q2")], "4", reclaim=LP)
    assert run(objs, "in").result == "pending"  # same priority 1 as the preemptor


def test_requests_above_nominal_need_borrow_within_cohort() -> None:
    # q1 needs 5 > nominal 4: NoFit without borrowWithinCohort, even though q2 borrows.
    q2 = [wl("w2a", {"cpu": "3"}, 0, admitted="q2"), wl("w2b", {"cpu": "3"}, 0, admitted="q2")]
    d = run(_cohort(q2, "5", reclaim=ANY), "in")
    assert (d.result, d.mode) == ("pending", "NoFit")
    # With it (threshold = preemptor priority 1): preempt w2b (priority 0 < 1) and borrow 1.
    # q2 -> 3, cohort 3 + 5 = 8 <= 8.
    d = run(_cohort(q2, "5", reclaim=ANY, borrow_within=LP), "in")
    assert (d.result, d.victims, d.borrowing) == ("preempt", ["default/w2b"], True)
    assert d.reasons == {"default/w2b": "InCohortReclaimWhileBorrowing"}


def test_max_priority_threshold_limits_borrow_within_cohort() -> None:
    # maxPriorityThreshold -1: only priorities below 0 may be preempted while borrowing.
    q2 = [wl("w2a", {"cpu": "3"}, 0, admitted="q2"), wl("w2b", {"cpu": "3"}, 0, admitted="q2")]
    d = run(_cohort(q2, "5", reclaim=ANY, borrow_within=LP, threshold=-1), "in")
    assert d.result == "pending"


def test_all_candidates_in_own_queue_may_borrow_up_to_borrowing_limit() -> None:
    # q1: nominal 4, borrowingLimit 2. low(-1)=2 + high(5)=3 -> 5. Incoming 3 (prio 0).
    # Only low is a candidate: 5-2+3 = 6 <= 4+2, so q1 borrows 2 after the preemption.
    def objs(limit: str) -> list[dict]:
        return [F, cq("q1", [("default", {"cpu": ("4", limit)})], cohort="c", within=LP),
                cq("q2", [("default", {"cpu": "4"})], cohort="c"),
                wl("low", {"cpu": "2"}, -1, admitted="q1"),
                wl("high", {"cpu": "3"}, 5, admitted="q1"),
                wl("in", {"cpu": "3"}, 0, queue="q1")]
    d = run(objs("2"), "in")
    assert (d.result, d.victims) == ("preempt", ["default/low"])
    assert d.explain["quotasAfter"][0]["usage"] == 6000
    # With borrowingLimit 1 the same preemption leaves 6 > 5: no targets.
    assert run(objs("1"), "in").result == "pending"


def test_under_nominal_reclaims_in_cohort_without_borrowing() -> None:
    # q1 (2 of 4 used) needs 4: reclaim b (q2 borrows 1) then a-low; fill-back keeps both
    # because cohort 5 + 4 > 8 with b back.
    objs = [F, cq("q1", [("default", {"cpu": "4"})], cohort="c", within=LP, reclaim=LP),
            cq("q2", [("default", {"cpu": "4"})], cohort="c"),
            wl("a-low", {"cpu": "2"}, -1, admitted="q1"), wl("b", {"cpu": "5"}, 0, admitted="q2"),
            wl("in", {"cpu": "4"}, 1, queue="q1")]
    d = run(objs, "in")
    assert d.reasons == {"default/a-low": "InClusterQueue", "default/b": "InCohortReclamation"}
    assert d.trace.lines[0] == "candidates in order: default/b, default/a-low"


def test_at_nominal_only_own_queue_candidates_with_borrowing() -> None:
    # q1 is at nominal (2+2 = 4): heuristic 3 is skipped; heuristic 4 preempts own workloads
    # only, even though q2 borrows. a-low alone leaves cohort 7 + 2 > 8; a-mid too fits.
    objs = [F, cq("q1", [("default", {"cpu": "4"})], cohort="c", within=LP, reclaim=LP),
            cq("q2", [("default", {"cpu": "4"})], cohort="c"),
            wl("a-low", {"cpu": "2"}, -1, admitted="q1"), wl("a-mid", {"cpu": "2"}, 0,
                                                             admitted="q1"),
            wl("b", {"cpu": "5"}, 0, admitted="q2"), wl("in", {"cpu": "2"}, 1, queue="q1")]
    d = run(objs, "in")
    assert d.victims == ["default/a-low", "default/a-mid"]


def test_final_minimisation_in_reverse() -> None:
    # q: 6 used by w1(-3)=1, w2(-2)=4, w3(-1)=1. Incoming 4: take w1 (5+4 > 6), then w2
    # (1+4 <= 6). In reverse, w1 is given back (2+4 <= 6): only w2 is preempted.
    objs = [F, cq("q", [("default", {"cpu": "6"})], within=LP),
            wl("w1", {"cpu": "1"}, -3, admitted="q"), wl("w2", {"cpu": "4"}, -2, admitted="q"),
            wl("w3", {"cpu": "1"}, -1, admitted="q"), wl("in", {"cpu": "4"}, 0, queue="q")]
    d = run(objs, "in")
    assert d.victims == ["default/w2"]
    assert "spared default/w1: the workload still fits with it" in d.trace.lines


def _fair(weight_a: str | None, strategies: list[str] | None = None) -> list[dict]:
    pre = {"within": LP, "reclaim": ANY}
    objs = [F, config(fair=True, strategies=strategies),
            cq("a", [("default", {"cpu": "3"})], cohort="all", weight=weight_a, **pre),
            cq("b", [("default", {"cpu": "3"})], cohort="all", **pre),
            cq("c", [("default", {"cpu": "3"})], cohort="all", **pre)]
    objs += [wl(f"a{i}", {"cpu": "1"}, admitted="a") for i in range(4)]
    objs += [wl(f"b{i}", {"cpu": "1"}, admitted="b") for i in range(4)]
    return [*objs, wl("in", {"cpu": "2"}, queue="c")]


def test_fair_sharing_weight_decides_the_highest_share() -> None:
    # a and b borrow 1 of 9 lendable each: share 111 per unit weight. Cohort 8 + 2 > 9.
    # a with weight 2 -> 55, so b has the highest share and loses its newest workload.
    d = run(_fair("2"), "in")
    assert d.victims == ["default/b3"]
    assert d.reasons == {"default/b3": "InCohortFairSharing"}
    assert d.explain["sharesBefore"] == {"a": 55, "b": 111, "c": 0}
    # a with weight 0.5 -> 222: a is preempted instead.
    assert run(_fair("500m"), "in").victims == ["default/a3"]


def test_fair_sharing_strategy_order() -> None:
    # Upstream: b1=2, b2=1, b3=2 (b borrows 2 -> 222), c1=1; a needs 3.5 (share 55 with it).
    # LessThanOrEqualToFinalShare: b1 would leave b at 0 >= 55? no (0 < 55); b2 leaves
    # 111 >= 55: b2. With only LessThanInitialShare: 55 < 222, the first candidate, b1.
    def objs(strategies: list[str] | None) -> list[dict]:
        pre = {"within": LP, "reclaim": ANY}
        return [F, config(fair=True, strategies=strategies),
                *[cq(n, [("default", {"cpu": "3"})], cohort="all", **pre) for n in "abc"],
                wl("b1", {"cpu": "2"}, admitted="b", reserved_at=5.0),
                wl("b2", {"cpu": "1"}, admitted="b", reserved_at=5.0),
                wl("b3", {"cpu": "2"}, admitted="b", reserved_at=5.0),
                wl("c1", {"cpu": "1"}, admitted="c", reserved_at=5.0),
                wl("in", {"cpu": "3.5"}, queue="a")]
    assert run(objs(None), "in").victims == ["default/b2"]
    assert run(objs(["LessThanInitialShare"]), "in").victims == ["default/b1"]
    assert run(objs(["LessThanOrEqualToFinalShare"]), "in").victims == ["default/b2"]


def test_fair_sharing_enables_preemption_while_borrowing() -> None:
    # With fair sharing and reclaimWithinCohort, requests above nominal may still preempt.
    objs = [F, config(fair=True),
            cq("a", [("default", {"cpu": "3"})], cohort="all", reclaim=ANY),
            cq("b", [("default", {"cpu": "3"})], cohort="all"),
            wl("b1", {"cpu": "2"}, admitted="b"), wl("b2", {"cpu": "3"}, admitted="b"),
            wl("in", {"cpu": "4"}, queue="a")]
    d = run(objs, "in")
    # a with 4 borrows 1 -> 166; b without b2 (most recent) borrows 0 -> 0 < 166: S2-a fails.
    # b without b1: 3 -> 0 too. S2-b: 166 < b's 333: take b2; 2 + 4 <= 6 fits.
    assert (d.result, d.victims, d.borrowing) == ("preempt", ["default/b2"], True)
