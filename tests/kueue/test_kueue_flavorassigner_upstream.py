"""Current upstream's ``TestReclaimBeforePriorityPreemption``
(pkg/scheduler/flavorassigner/flavorassigner_test.go): flavor assignment with a stubbed
preemption oracle. Three flavors uno, due, tre with 10 compute and 10 gpu each in
test-clusterqueue (whenCanPreempt: TryNextFlavor), lent to its cohort; other-clusterqueue
holds no quota. Upstream's ``testOracle`` answers the stubbed results and ``Preempt``
(borrowing 0) for every other flavor-resource.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import BASE, CURRENT, cq, flavor, inputs, wl

from kubepreempt.kueue.flavors import (
    G_PREEMPT,
    G_RECLAIM,
    FlavorAssigner,
    Mode,
)
from kubepreempt.kueue.quota import Snapshot, workload_info

FLAVORS = ("uno", "due", "tre")
TRY_NEXT = {"whenCanPreempt": "TryNextFlavor"}


def queues(fungibility: dict[str, str]) -> list[dict[str, Any]]:
    test = cq("test-clusterqueue", [(f, {"compute": "10", "gpu": "10"}) for f in FLAVORS],
              cohort="cohort", within="LowerPriority", reclaim="LowerPriority",
              fungibility=fungibility)
    other = cq("other-clusterqueue", [(f, {"compute": "0", "gpu": "0"}) for f in FLAVORS],
               cohort="cohort")
    if "MayStopSearch" in fungibility.values():  # v1beta2's spelling
        spec = dict(test["spec"])
        spec["cohortName"] = spec.pop("cohort")
        test = {**test, "apiVersion": "kueue.x-k8s.io/v1beta2", "spec": spec}
    return [test, other]


def usage(name: str, q: str, flv: str, res: str) -> dict[str, Any]:
    """An admitted workload using one unit of ``res`` in flavor ``flv``."""
    return wl(name, {res: "1"}, 0, admitted=q, flavors={res: flv}, reserved_at=BASE)


# name -> (requests, test CQ usage, other CQ usage, stubbed oracle, fungibility,
#          wanted mode, wanted assignment)
CASES = {
    "Select first flavor which fits": (
        {"gpu": "10"}, [("uno", "gpu")], [("due", "gpu")], {}, None, Mode.FIT,
        {"gpu": "tre"}),
    "Select first flavor where gpu reclamation is possible": (
        {"gpu": "10"}, [("uno", "gpu")], [("due", "gpu"), ("tre", "gpu")],
        {("uno", "gpu"): (G_PREEMPT, 0), ("due", "gpu"): (G_RECLAIM, 0)}, None,
        Mode.PREEMPT, {"gpu": "due"}),
    "Select first flavor when flavor fungibility is disabled": (
        {"gpu": "10"}, [("uno", "gpu")], [("due", "gpu"), ("tre", "gpu")], {},
        {"whenCanPreempt": "Preempt"}, Mode.PREEMPT, {"gpu": "uno"}),
    "Select first flavor when flavor fungibility is disabled; using deprecated "
    "WhenCanPreempt=MayStopSearch": (
        {"gpu": "10"}, [("uno", "gpu")], [("due", "gpu"), ("tre", "gpu")], {},
        {"whenCanPreempt": "MayStopSearch"}, Mode.PREEMPT, {"gpu": "uno"}),
    "Select first flavor where priority based preemption is possible": (
        {"gpu": "10"}, [("uno", "gpu"), ("due", "gpu"), ("tre", "gpu")], [], {}, None,
        Mode.PREEMPT, {"gpu": "uno"}),
    "Select second flavor where gpu reclamation is possible, as compute Fits": (
        {"gpu": "10", "compute": "10"},
        [("uno", "gpu"), ("uno", "compute"), ("due", "compute")],
        [("due", "gpu"), ("tre", "gpu")],
        {("uno", "gpu"): (G_PREEMPT, 0), ("due", "gpu"): (G_RECLAIM, 0),
         ("tre", "gpu"): (G_RECLAIM, 0)}, None, Mode.PREEMPT,
        {"gpu": "tre", "compute": "tre"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reclaim_before_priority_preemption(name: str) -> None:
    requests, mine, theirs, stub, fungibility, want_mode, want = CASES[name]
    used = [usage(f"t-{f}-{r}", "test-clusterqueue", f, r) for f, r in mine] + \
        [usage(f"o-{f}-{r}", "other-clusterqueue", f, r) for f, r in theirs]
    incoming = wl("in", requests, 0, queue="test-clusterqueue")
    inp = inputs([*(flavor(f) for f in FLAVORS), *queues(fungibility or TRY_NEXT), *used,
                  incoming], CURRENT)
    others = [w for k, w in inp.workloads.items() if k != "default/in"]
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, others, inp.config,
                    inp.cohorts)
    wlo = inp.workloads["default/in"]
    info = workload_info(wlo, "test-clusterqueue")

    def oracle(fr, _quantity):  # upstream's testOracle
        return stub.get(fr, (G_PREEMPT, 0))

    assignment = FlavorAssigner(info, wlo.pod_sets, snap.cqs["test-clusterqueue"],
                                inp.flavors, False, inp.semantics, oracle).assign()
    assert assignment.mode == want_mode
    assert assignment.flavors()["main"] == want


# Through kubepreempt kueue's whole decision (the real preemption oracle, then targets):
# the stubs' answers made real by giving every admitted workload priority -1, below the
# incoming workload's 0, so own-queue usage can be preempted by priority (the stub's
# Preempt) and another queue's borrowed usage reclaimed (the stub's Reclaim). Victims
# follow from the chosen flavor: the one workload using it.
WHOLE_DECISION = {
    "Select first flavor which fits": ("admit", {}),
    "Select first flavor where gpu reclamation is possible": (
        "preempt", {"default/o-due-gpu": "InCohortReclamation"}),
    "Select first flavor when flavor fungibility is disabled": (
        "preempt", {"default/t-uno-gpu": "InClusterQueue"}),
    "Select first flavor when flavor fungibility is disabled; using deprecated "
    "WhenCanPreempt=MayStopSearch": ("preempt", {"default/t-uno-gpu": "InClusterQueue"}),
    "Select first flavor where priority based preemption is possible": (
        "preempt", {"default/t-uno-gpu": "InClusterQueue"}),
    "Select second flavor where gpu reclamation is possible, as compute Fits": (
        "preempt", {"default/o-tre-gpu": "InCohortReclamation"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reclaim_before_priority_preemption_whole_decision(name: str) -> None:
    from builders.kueue import run
    requests, mine, theirs, _, fungibility, _, want = CASES[name]

    def lower(wname: str, q: str, flv: str, res: str) -> dict[str, Any]:
        return wl(wname, {res: "1"}, -1, admitted=q, flavors={res: flv}, reserved_at=BASE)

    used = [lower(f"t-{f}-{r}", "test-clusterqueue", f, r) for f, r in mine] + \
        [lower(f"o-{f}-{r}", "other-clusterqueue", f, r) for f, r in theirs]
    incoming = wl("in", requests, 0, queue="test-clusterqueue")
    d = run([*(flavor(f) for f in FLAVORS), *queues(fungibility or TRY_NEXT), *used,
             incoming], "in", CURRENT)
    assert (d.result, d.flavors["main"], d.reasons) == (WHOLE_DECISION[name][0], want,
                                                        WHOLE_DECISION[name][1])
