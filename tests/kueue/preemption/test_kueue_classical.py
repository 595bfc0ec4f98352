"""Current classic preemption rules, each with a case worked out by hand from upstream's
``classical`` package (``collectCandidatesForHierarchicalReclaim``,
``classifyPreemptionVariant``, ``candidateIsValid``) and ``ClassicalPreemptionPlan``.
"""

from __future__ import annotations

from typing import Any

from builders.kueue import CURRENT, V07, cq, flavor, preempt
from builders.kueue_hierarchy import CPU, adm, cohort, incoming, queue

LP = "LowerPriority"


def test_hierarchical_advantage_is_kept_up_the_tree() -> None:
    # r -> c2 -> c1(2) -> q; q2 (0) under c2 uses 1; q_b (0) under r uses 1. The request
    # of 2 fits c1's quota, so candidates met above c1 are hierarchical even though c2
    # (already holding q2's 1) cannot hold it: q_b's workload is taken while borrowing.
    objs = [flavor("default"), cohort("r"), cohort("c2", "r"), cohort("c1", "c2", "2"),
            queue("q", "c1"), queue("q2", "c2"), queue("q_b", "r"),
            adm("w2", 0, "q2", "1"), adm("wb", 0, "q_b", "1")]
    assert preempt(objs, incoming(0, "2"), "q", CPU, CURRENT) == {"w2", "wb"}


def _equal_priority(prio: int) -> list[dict[str, Any]]:
    return [flavor("default"),
            cq("q", [("default", {"cpu": "2"})], cohort="c", within=LP, reclaim="Any",
               borrow_within=LP),
            cq("qb", [("default", {"cpu": "2"})], cohort="c"),
            adm("wb", prio, "qb", "4")]


def test_borrow_within_cohort_takes_only_lower_priority_while_borrowing() -> None:
    # The preemptor (3 > nominal 2) must borrow; borrowWithinCohort LowerPriority lets it
    # reclaim qb's borrowed quota from a lower priority workload, not an equal one
    # (isAboveBorrowingThreshold: candidate >= incoming).
    assert preempt(_equal_priority(-1), incoming(0, "3"), "q", CPU, CURRENT) == {"wb"}
    assert preempt(_equal_priority(0), incoming(0, "3"), "q", CPU, CURRENT) == set()
    assert preempt(_equal_priority(0), incoming(0, "3"), "q", CPU, V07) == set()


def test_candidate_is_dropped_once_its_cohort_is_back_within_quota() -> None:
    # r(0) holds c(1) -> qa(0) running qa-1, qa-2 (1 cpu each), q(2) and qb2(0) running 1.
    # The tree is full; the incoming 2 cpus fit q's nominal (hierarchical advantage).
    # Taking qa-1 brings c back within its quota, so qa-2 is no longer valid and qb2's
    # workload is taken instead (candidateIsValid walks up to the common ancestor).
    objs = [flavor("default"), cohort("r"), cohort("c", "r", "1"),
            cq("q", [("default", {"cpu": "2"})], cohort="r", within=LP, reclaim=LP),
            queue("qa", "c"), queue("qb2", "r"),
            adm("qa-1", -2, "qa", "1"), adm("qa-2", -1, "qa", "1"), adm("qb2-w", 0, "qb2", "1")]
    assert preempt(objs, incoming(5, "2"), "q", CPU, CURRENT) == {"qa-1", "qb2-w"}
