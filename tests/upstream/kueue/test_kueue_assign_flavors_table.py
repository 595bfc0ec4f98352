"""Upstream's ``TestAssignFlavors`` (pkg/scheduler/flavorassigner/flavorassigner_test.go,
kueue main ff69552e) as data: the ClusterQueue (and a second one in its cohort), their
usage, the pod sets, and upstream's ``testOracle`` (the case's stubbed answers,
``Preempt`` with no borrowing for every other flavor-resource). Compared: the
representative mode, and per pod set the chosen flavor and mode of every resource, and
how far up the tree the assignment borrows. The cases not ported are in the data file's
``unported`` with the reason each.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import docs
from builders.kueue_tables import config_manifest, cq_manifest, load_table, workload_manifest

from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.flavors import G_NO_CANDIDATES, G_PREEMPT, G_RECLAIM, FlavorAssigner
from kubepreempt.kueue.quota import Snapshot, workload_info
from kubepreempt.kueue.semantics import CURRENT

TABLE = load_table("assign_flavors")
POSSIBILITY = {"Preempt": G_PREEMPT, "Reclaim": G_RECLAIM, "NoCandidates": G_NO_CANDIDATES}
MODE = {"Fit": "Fit", "Preempt": "Preempt", "NoFit": "NoFit"}


def _flavor(f: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if f.get("labels"):
        spec["nodeLabels"] = f["labels"]
    if f.get("taints"):
        spec["nodeTaints"] = f["taints"]
    if f.get("tolerations"):
        spec["tolerations"] = f["tolerations"]
    if f.get("topology"):
        spec["topologyName"] = f["topology"]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
            "metadata": {"name": f["name"]}, "spec": spec}


def _usage(raw: dict[str, int]) -> dict[tuple[str, str], int]:
    return {tuple(k.split("|")): v for k, v in raw.items()}  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(TABLE["cases"]))
def test_assign_flavors(name: str) -> None:
    case = TABLE["cases"][name]
    cqs = [case["cq"], *([case["cq2"]] if "cq2" in case else [])]
    incoming = {"name": "wl", "ns": "default", "pod_sets": case["pod_sets"]}
    if case.get("reclaimable"):
        incoming["reclaimable"] = case["reclaimable"]
    objs = [*(_flavor(f) for f in TABLE["setup"]["flavors"]), *(cq_manifest(c) for c in cqs),
            workload_manifest(incoming), config_manifest(case.get("fair", False))]
    inp = load_inputs(docs(objs), version=CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    for fr, v in _usage(case.get("usage", {})).items():
        snap.cqs[case["cq"]["name"]].add_usage(fr, v)
    if "cq2" in case:
        for fr, v in _usage(case.get("usage2", {})).items():
            snap.cqs[case["cq2"]["name"]].add_usage(fr, v)
    stub = {fr: (POSSIBILITY[p], b) for fr, (p, b) in _usage(case.get("oracle", {})).items()}

    def oracle(fr: tuple[str, str], _quantity: int) -> tuple[int, int]:  # testOracle
        return stub.get(fr, (G_PREEMPT, 0))

    w = inp.workloads["default/wl"]
    a = FlavorAssigner(workload_info(w, case["cq"]["name"]), w.pod_sets,
                       snap.cqs[case["cq"]["name"]], inp.flavors, inp.config.fair_sharing,
                       inp.semantics, oracle).assign()
    assert a.mode.name.replace("_", "").lower() == case["want_mode"].lower()
    got = {ps.name: {r: f.name for r, f in (ps.flavors or {}).items()} for ps in a.pod_sets}
    want = {ps: fl for ps, fl in case["want_flavors"].items() if fl}
    assert {ps: fl for ps, fl in got.items() if fl} == want
    got_modes = {ps.name: {r: f.mode.name.replace("_", "").lower()
                           for r, f in (ps.flavors or {}).items()} for ps in a.pod_sets}
    want_modes = {ps: {r: m.lower() for r, m in ms.items()}
                  for ps, ms in case["want_modes"].items() if ms}
    assert {ps: m for ps, m in got_modes.items() if m} == want_modes
    assert a.borrow_level == case["want_borrowing"]
