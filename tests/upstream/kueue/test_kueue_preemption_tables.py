"""Upstream's current ``TestPreemption`` (pkg/scheduler/preemption/preemption_test.go) and
``TestHierarchicalPreemptions`` (preemption_hierarchical_test.go), kueue main ff69552e,
as data, run two ways:

* as upstream runs them: ``GetTargets`` with the table's assignment; victims and their
  Preempted reasons (from ``wantWorkloads``) must match;
* through ``kubepreempt kueue``'s whole decision: the incoming workload queued in the
  target ClusterQueue, flavors assigned (with the preemption oracle), then targets. Where
  the whole decision reaches the table's assignment, the victims must be the table's;
  the cases where it does not are listed in ``WHOLE_DECISION`` with upstream's reasoning.

Upstream's hierarchical table gives some ClusterQueues a flavor with no resources (the
API requires at least one); here such a flavor covers the requested resources with a
nominal quota of 0, which adds nothing to any quota.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue_tables import (
    cohort_manifest,
    config_manifest,
    cq_manifest,
    decide_incoming,
    flavor_manifest,
    load_table,
    lq_manifest,
    targets_for_assignment,
    workload_manifest,
)

TABLES = {"TestPreemption": load_table("preemption"),
          "TestHierarchicalPreemptions": load_table("hierarchical_preemptions")}
CASES = [(t, n) for t, table in TABLES.items() for n in sorted(table["cases"])]


def _key(w: dict[str, Any]) -> str:
    return f"{w['ns'] or 'default'}/{w['name']}"


def objects(table: dict[str, Any], case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's objects; the incoming workload queued in the target ClusterQueue."""
    requested = sorted({r for ps in case["incoming"]["pod_sets"] for r in ps["requests"]})
    objs = [flavor_manifest(f) for f in table["setup"]["flavors"]]
    for c in case["cqs"]:
        groups = [[fq if fq["resources"] else {**fq, "resources": [[r, "0"] for r in requested]}
                   for fq in g] for g in c["groups"]]
        objs.append(cq_manifest({**c, "groups": groups}))
    objs += [cohort_manifest(c) for c in case.get("cohorts", [])]
    objs.append(lq_manifest({"name": "incoming", "ns": "default", "cq": case["target_cq"]}))
    objs += [workload_manifest(w) for w in case["admitted"]]
    incoming = {k: v for k, v in case["incoming"].items() if k not in ("admission", "conditions")}
    objs.append(workload_manifest({**incoming, "queue": "incoming"}))
    objs.append(config_manifest(False))
    return objs


# The whole decision where it does not reach the table's assignment: (result, flavors,
# victims).
WHOLE_DECISION = {
    # Both requests fit by borrowing from the cohort (c1: 4 + 4 of nominal 6 with 6 more
    # borrowable and 4 unused in the cohort; c2: 3 + 4 of 6, the cohort 9 of 12 free):
    # fitsResourceQuota says Fit, so the scheduler admits; the table hands GetTargets a
    # Preempt assignment to show it finds no candidates.
    ("TestPreemption", "no workloads borrowing"): ("admit", {"main": {"cpu": "default"}}, {}),
    ("TestPreemption", "can't preempt workloads in ClusterQueue for withinClusterQueue=Never"): (
        "admit", {"main": {"cpu": "default"}}, {}),
    # Memory in alpha (low, priority -1) and in beta (mid, priority 0) both need
    # preemption in the own queue; whenCanPreempt defaults to TryNextFlavor, the two
    # oracle answers rank equal (priority preemption), so the first flavor stays
    # (isPreferred): alpha, preempting low. The table hands GetTargets beta.
    ("TestPreemption", "only preempt workloads using the chosen flavor"): (
        "preempt", {"main": {"cpu": "default", "memory": "alpha"}},
        {"default/low": "InClusterQueue"}),
    # The ClusterQueues have no resource groups (valid: the API sets no minimum), so the
    # flavor assigner finds "resource cpu unavailable in ClusterQueue": NoFit, pending.
    ("TestHierarchicalPreemptions", "reclaim in complex hierarchy"): (
        "pending", {"main": {}}, {}),
}


def _want(case: dict[str, Any]) -> dict[str, str]:
    return {f"default{k}" if k.startswith("/") else k: v for k, v in case["want"].items()}


def _check_victims(got: dict[str, str], case: dict[str, Any]) -> None:
    """Upstream counts the targets (``wantPreempted``) and compares conditions: a target
    already evicted gets no new Preempted condition, so it shows only in the count."""
    want = _want(case)
    assert {k: got.get(k) for k in want} == want
    assert len(got) == int(case["want_count"])
    evicted = {_key(w) for w in case["admitted"]
               if any(c["type"] == "Evicted" and c["status"] == "True"
                      for c in w.get("conditions", []))}
    assert set(got) - set(want) <= evicted


@pytest.mark.parametrize(("table", "name"), CASES)
def test_targets_with_the_tables_assignment(table: str, name: str) -> None:
    case = TABLES[table]["cases"][name]
    got = targets_for_assignment(objects(TABLES[table], case), _key(case["incoming"]),
                                 case["target_cq"], case["assignment"])
    _check_victims(got, case)


@pytest.mark.parametrize(("table", "name"), CASES)
def test_whole_decision(table: str, name: str) -> None:
    case = TABLES[table]["cases"][name]
    d = decide_incoming(objects(TABLES[table], case), _key(case["incoming"]))
    if (table, name) in WHOLE_DECISION:
        assert (d.result, d.flavors, d.reasons) == WHOLE_DECISION[(table, name)]
        return
    if int(case["want_count"]) == 0:
        # No victims with the table's assignment; the whole decision preempts nobody
        # either (it may stop earlier, at NoFit).
        assert (d.result, d.reasons) == ("pending", {})
        return
    flavors = {ps: {r: fm[0] for r, fm in fl.items()} for ps, fl in case["assignment"].items()}
    assert d.flavors == flavors
    _check_victims(d.reasons, case)
