"""Upstream's ``TestHierarchical`` (pkg/scheduler/flavorassigner/flavorassigner_test.go,
kueue main ff69552e): flavors one, two, three, each lent by a Cohort of the same name in
a chain three <- two <- one (4 cpu each); test-clusterqueue (cohort one, 0 cpu of each
flavor unless the case says otherwise, whenCanPreempt TryNextFlavor) and
other-clusterqueue (cohort two, 0 of each). Usage is added to both queues directly and
the preemption oracle is upstream's ``testOracle`` (stubbed answers, else Preempt)."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import docs
from builders.kueue_tables import (
    cohort_manifest,
    config_manifest,
    cq_manifest,
    flavor_manifest,
    workload_manifest,
)

from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.flavors import G_NO_CANDIDATES, G_PREEMPT, FlavorAssigner, Mode
from kubepreempt.kueue.quota import Snapshot, workload_info
from kubepreempt.kueue.semantics import CURRENT

FLAVORS = ("one", "two", "three")
ZERO = [{"flavor": f, "resources": [["cpu", "0"]]} for f in FLAVORS]

# name -> (test queue flavors, test usage, other usage, fungibility, stub, mode, flavor)
CASES: dict[str, tuple[Any, ...]] = {
    "Select the top flavor": (
        ZERO, {("one", "cpu"): 4000}, {("two", "cpu"): 4000}, None, {}, Mode.FIT, "three"),
    "Select the first flavor which fits": (
        ZERO, {("one", "cpu"): 4000}, {}, None, {}, Mode.FIT, "two"),
    "Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no "
    "preemption candidates": (
        [{"flavor": "one", "resources": [["cpu", "4", "0"]]}, *ZERO[1:]],
        {("one", "cpu"): 4000}, {},
        {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor",
         "preference": "PreemptionOverBorrowing"},
        {("one", "cpu"): (G_NO_CANDIDATES, 1)}, Mode.FIT, "two"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hierarchical(name: str) -> None:
    groups, test_usage, other_usage, fungibility, stub, want_mode, want = CASES[name]
    cohorts = [{"name": "three", "groups": [[{"flavor": "three", "resources": [["cpu", "4"]]}]]},
               {"name": "two", "parent": "three",
                "groups": [[{"flavor": "two", "resources": [["cpu", "4"]]}]]},
               {"name": "one", "parent": "two",
                "groups": [[{"flavor": "one", "resources": [["cpu", "4"]]}]]}]
    test_cq = {"name": "test-clusterqueue", "cohort": "one", "groups": [groups],
               "preemption": {"withinClusterQueue": "LowerPriority",
                              "reclaimWithinCohort": "LowerPriority"},
               "fungibility": fungibility or {"whenCanPreempt": "TryNextFlavor"}}
    other_cq = {"name": "other-clusterqueue", "cohort": "two", "groups": [ZERO]}
    incoming = {"name": "wl", "ns": "default",
                "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "4"}}]}
    objs = [*(flavor_manifest({"name": f}) for f in FLAVORS),
            *(cohort_manifest(c) for c in cohorts), cq_manifest(test_cq), cq_manifest(other_cq),
            workload_manifest(incoming), config_manifest(False)]
    inp = load_inputs(docs(objs), version=CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    for fr, v in other_usage.items():
        snap.cqs["other-clusterqueue"].add_usage(fr, v)
    for fr, v in test_usage.items():
        snap.cqs["test-clusterqueue"].add_usage(fr, v)
    w = inp.workloads["default/wl"]
    a = FlavorAssigner(workload_info(w, "test-clusterqueue"), w.pod_sets,
                       snap.cqs["test-clusterqueue"], inp.flavors, False, inp.semantics,
                       lambda fr, _q: stub.get(fr, (G_PREEMPT, 0))).assign()
    assert (a.mode, a.flavors()["main"]) == (want_mode, {"cpu": want})
