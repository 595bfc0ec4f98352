"""Current upstream's ``TestHierarchicalPreemptions``
(pkg/scheduler/preemption/preemption_hierarchical_test.go), with the same cohort trees,
queues, workloads and expected victims and reasons. Hierarchical cohorts do not exist in
Kueue v0.7, so these run under current semantics only.

Upstream's queues written ``q(0)`` have a flavor without cpu quota; here they declare
cpu nominal 0, which holds the same quota and tracks the same usage. All admitted
workloads reserved quota at the same instant, as upstream's ``ReserveQuotaAt(..., now)``.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, NOW, flavor, inputs, preempt
from builders.kueue_hierarchy import CPU, LP, P, adm, cohort, incoming, queue

from kubepreempt.kueue.admission import decide
from kubepreempt.kueue.flavors import Assignment, FlavorAssignment, PodSetAssignment
from kubepreempt.kueue.preemption import Trace, get_targets
from kubepreempt.kueue.quota import Snapshot, workload_info

R_C2 = [flavor("default"), cohort("r"), cohort("c", "r", "2")]
R1_C4 = [flavor("default"), cohort("r", cpu="1"), cohort("c", "r", "4")]

# name -> (objects, incoming, {victim: reason})
CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any], dict[str, str]]] = {
    "preempt with hierarchical advantage": (
        [*R_C2, queue("q", "c"), queue("q_borrowing", "r"),
         adm("admitted2", 0, "q_borrowing", "2")],
        incoming(0, "2"), {"admitted2": "InCohortReclamation"}),
    "avoid queues within nominal quota": (
        [*R_C2, queue("q_nominal", "r", "2"), queue("q", "c"), queue("q_borrowing", "r"),
         adm("admitted1", -10, "q_nominal", "2"), adm("admitted2", 0, "q_borrowing", "2")],
        incoming(0, "2"), {"admitted2": "InCohortReclamation"}),
    "preempt multiple with hierarchical advantage": (
        [*R_C2, queue("q", "c"), queue("q_borrowing", "r"),
         adm("admitted1", 1, "q_borrowing", "1"), adm("admitted2", 2, "q_borrowing", "1")],
        incoming(0, "2"), {"admitted1": "InCohortReclamation",
                           "admitted2": "InCohortReclamation"}),
    "preempt in cohort and own CQ": (
        [flavor("default"), cohort("r"), cohort("c", "r", "3"),
         queue("q", "c", bwc_threshold=0), queue("q_same_cohort", "c"),
         adm("admitted_not_preemptible", 1, "q_same_cohort", "1"),
         adm("admitted_preemptible", 0, "q_same_cohort", "1", usage="2"),
         adm("admitted_own_queue", -1, "q", "1")],
        incoming(1, "2"), {"admitted_own_queue": "InClusterQueue",
                           "admitted_preemptible": "InCohortReclaimWhileBorrowing"}),
    "prefer to preempt hierarchical candidate": (
        [*R_C2, queue("q", "c"), queue("q_borrowing", "r"),
         adm("admitted_borrowing", 1, "q_borrowing", "1"),
         adm("admitted_same_queue", -2, "q", "1")],
        incoming(0, "1"), {"admitted_borrowing": "InCohortReclamation"}),
    "forced to preempt priority candidate": (
        [*R_C2, queue("q", "c", bwc_threshold=0), queue("q_nominal", "r", "2"),
         queue("q_same_cohort", "c"), adm("admitted_nominal", -10, "q_nominal", "2"),
         adm("admitted_same_cohort", -1, "q_same_cohort", "2")],
        incoming(0, "2"), {"admitted_same_cohort": "InCohortReclaimWhileBorrowing"}),
    "incoming workload fits in CQ nominal quota": (
        [*R_C2, queue("q", "c", "4"), queue("q_borrowing", "r"), queue("q_same_cohort", "c"),
         adm("admitted_borrowing", 10, "q_borrowing", "3"),
         adm("admitted_same_cohort", 10, "q_same_cohort", "3")],
        incoming(0, "4"), {"admitted_borrowing": "InCohortReclamation",
                           "admitted_same_cohort": "InCohortReclamation"}),
    "preempt hierarchical and priority candidates": (
        [*R1_C4, queue("q", "c", reclaim=LP, bwc_threshold=0), queue("q_borrowing", "r"),
         queue("q_same_cohort", "c"), adm("admitted_borrowing", -1, "q_borrowing", "2"),
         adm("admitted_same_cohort_preemptible", -1, "q_same_cohort", "1"),
         adm("admitted_borrowing_not_preemptible", 1, "q_borrowing", "2")],
        incoming(0, "3"), {"admitted_borrowing": "InCohortReclamation",
                           "admitted_same_cohort_preemptible":
                               "InCohortReclaimWhileBorrowing"}),
    "preempt hierarchical candidates and inside CQ": (
        [*R1_C4, queue("q", "c", reclaim=LP, bwc_threshold=0), queue("q_borrowing", "r"),
         queue("q_same_cohort", "c"), adm("admitted_borrowing", -1, "q_borrowing", "2"),
         adm("admitted_same_queue_preemptible", -1, "q", "1"),
         adm("admitted_borrowing_not_preemptible", 1, "q_borrowing", "2")],
        incoming(0, "3"), {"admitted_borrowing": "InCohortReclamation",
                           "admitted_same_queue_preemptible": "InClusterQueue"}),
    "reclaim nominal quota from lowest priority workload, excluding non-borrowing": (
        [flavor("default"), cohort("r"), cohort("c", "r", "3"), queue("q", "c"),
         queue("q_borrowing", "r"), queue("q_nominal", "r", "2"),
         adm("admitted_borrowing_prio_8", 8, "q_borrowing", "1"),
         adm("admitted_borrowing_prio_9", 9, "q_borrowing", "1"),
         adm("admitted_borrowing_prio_10", 9, "q_borrowing", "1"),
         adm("admitted_nominal", -2, "q_nominal", "2")],
        incoming(0, "1"), {"admitted_borrowing_prio_8": "InCohortReclamation"}),
    "infeasible preemption all available workloads in pruned subtrees": (
        [flavor("default"), cohort("r"), cohort("c", "r", "2"), cohort("c_other", "r", "2"),
         queue("q_other", "c_other"), queue("q", "c"), queue("q_same_cohort", "c"),
         adm("admitted_other_1", -10, "q_other", "1"),
         adm("admitted_other_2", -10, "q_other", "1"),
         adm("admitted_same_cohort", 0, "q_same_cohort", "2")],
        incoming(0, "2"), {}),
    "respect lending limits": (
        [flavor("default"), cohort("r"), cohort("c", "r", "2"),
         queue("q", "c", ("3", "", "2")), queue("q_borrowing", "r"),
         adm("admitted_borrowing", 0, "q_borrowing", "4")],
        incoming(-2, "5"), {"admitted_borrowing": "InCohortReclamation"}),
    "reclaim in complex hierarchy": (
        [flavor("default"), cohort("r"), cohort("c11", "r", "4"), cohort("c12", "r", "4"),
         cohort("c21", "c11", "4"), cohort("c22", "c11", "4"), cohort("c23", "c11", "4"),
         cohort("c31", "c21", "4"), cohort("c32", "c21", "4"),
         queue("q1", "c12"), queue("q2", "c23"), queue("q3", "c22"), queue("q4", "c32"),
         queue("q5", "c31"),
         adm("admitted_borrowing_1", -6, "q1", "4"), adm("admitted_borrowing_2", -5, "q1", "4"),
         adm("admitted_borrowing_3", -9, "q2", "4"),
         adm("admitted_borrowing_4", -10, "q2", "4"),
         adm("admitted_borrowing_5", -4, "q3", "4"), adm("admitted_borrowing_6", -3, "q3", "3"),
         adm("admitted_borrowing_7", 4, "q4", "2"), adm("admitted_borrowing_8", 2, "q4", "3")],
        # Upstream: only one of q2's workloads goes, because after the first the usage of
        # cohort c23 is back within its nominal quota.
        incoming(-2, "7"), {"admitted_borrowing_1": "InCohortReclamation",
                            "admitted_borrowing_4": "InCohortReclamation"}),
}
# Their incoming workload is for another queue than "q".
TARGET_CQ = {"reclaim in complex hierarchy": "q5"}

MEM = {"main": {"cpu": ("default", P), "memory": ("default", P)}}
# "hiearchical preemption with multiple resources" (upstream's spelling): R(3 cpu, 0 memory)
# over C(4 cpu, 4Gi) and q_borrowing; the queues hold no quota of either resource.
MULTI_RESOURCE = (
    [flavor("default"), cohort("r", cpu="3", memory="0"),
     cohort("c", "r", "4", memory="4Gi"), queue("q", "c", memory="0"),
     queue("q_borrowing", "r", memory="0"), queue("q_same_cohort", "c", memory="0"),
     adm("admitted_borrowing", 0, "q_borrowing", "3", memory="1Gi"),
     adm("admitted_same_cohort", -2, "q_same_cohort", "1", memory="3Gi")],
    incoming(-2, "2", memory="1Gi"), {"admitted_borrowing": "InCohortReclamation"})


def _targets(objs: list[dict[str, Any]], inc: dict[str, Any], target: str = "q",
             resources: tuple[str, ...] = ("cpu",)) -> dict[str, str]:
    inp = inputs([*objs, inc], CURRENT)
    others = [w for k, w in inp.workloads.items() if k != "default/in"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config, inp.cohorts)
    a = Assignment([PodSetAssignment("main", {r: FlavorAssignment("default", P)
                                              for r in resources}, fits=False)])
    got = get_targets(workload_info(inp.workloads["default/in"], target), a, snap, NOW,
                      Trace())
    return {t.info.obj.name: t.reason for t in got}


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_hierarchical_preemptions(name: str) -> None:
    objs, inc, want = CASES[name]
    target = TARGET_CQ.get(name, "q")
    assert _targets(objs, inc, target) == want
    assert preempt(objs, inc, target, CPU, CURRENT) == set(want)  # snapshot restored


def test_upstream_hierarchical_preemption_with_multiple_resources() -> None:
    objs, inc, want = MULTI_RESOURCE
    assert _targets(objs, inc, "q", ("cpu", "memory")) == want
    assert preempt(objs, inc, "q", MEM, CURRENT) == set(want)


def test_preempted_condition_names_both_paths() -> None:
    # "preempt with hierarchical advantage": the message upstream's table expects.
    objs, inc, _ = CASES["preempt with hierarchical advantage"]
    inc = dict(inc, spec={**inc["spec"], "queueName": "q"})
    inp = inputs([*objs, inc], CURRENT)
    d = decide(inp, "default/in", BASE + 100)
    assert d.result == "preempt"
    conds = {c["type"]: c for c in d.victim_status()["default/admitted2"]["conditions"]}
    msg = ("Preempted to accommodate a workload (UID: wl-in, JobUID: job-in) due to "
           "reclamation within the cohort; preemptor path: /r/c/q; preemptee path: "
           "/r/q_borrowing")
    assert (conds["Evicted"]["reason"], conds["Evicted"]["message"]) == ("Preempted", msg)
    assert (conds["Preempted"]["reason"], conds["Preempted"]["message"]) == (
        "InCohortReclamation", msg)


def test_upstream_prefer_to_preempt_evicted_workloads() -> None:
    """Upstream "prefer to preempt evicted workloads": the already-evicted workload of the
    same cohort is the one target (its preemption is under way: upstream counts it as
    preempted and patches nothing), not the lower-priority borrowing one."""
    evicted = adm("evicted_same_cohort", -1, "q_same_cohort", "1")
    evicted["status"]["conditions"] = [{"type": "Evicted", "status": "True",
                                        "lastTransitionTime": "2024-01-01T00:00:00Z"}]
    objs = [*R_C2, queue("q", "c", bwc_threshold=0), queue("q_borrowing", "r"),
            queue("q_same_cohort", "c"), adm("admitted_borrowing", -10, "q_borrowing", "1"),
            evicted]
    assert preempt(objs, incoming(0, "1"), "q", CPU, CURRENT) == {"evicted_same_cohort"}
