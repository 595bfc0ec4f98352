"""Upstream's current ``TestFairPreemptions`` (pkg/scheduler/preemption/preemption_fair_test.go,
kueue main ff69552e) through ``kubepreempt kueue``'s whole decision: the incoming workload
is queued in the target ClusterQueue and decided as the scheduler decides it (flavor
assignment with the preemption oracle, then ``GetTargets``), not handed an assignment.

Upstream's table calls ``GetTargets`` with cpu assigned to flavor ``default`` (or the
case's ``assignmentFlavor``) in Preempt mode; the whole decision must reach that same
assignment and then the same victims with the same reasons. Every admitted workload's
UID is its name, as upstream sets it.
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
    workload_manifest,
)

TABLE = load_table("fair_preemptions")


def objects(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's objects, the incoming workload queued in ``target_cq``."""
    flavors = case.get("flavors") or TABLE["setup"]["flavors"]
    objs = [flavor_manifest(f) for f in flavors]
    objs += [cq_manifest(c) for c in case["cqs"]]
    objs += [cohort_manifest(c) for c in case.get("cohorts", [])]
    objs.append(lq_manifest({"name": "incoming", "ns": "default", "cq": case["target_cq"]}))
    for w in case["admitted"]:
        objs.append(workload_manifest({**w, "uid": w["name"]}))
    # A case gives its incoming workload a reservation; GetTargets ignores it, so does this.
    incoming = {k: v for k, v in case["incoming"].items() if k not in ("admission", "conditions")}
    objs.append(workload_manifest({**incoming, "uid": incoming["name"], "queue": "incoming"}))
    objs.append(config_manifest(True, case.get("strategies")))
    return objs


@pytest.mark.parametrize("name", sorted(TABLE["cases"]))
def test_fair_preemptions_whole_decision(name: str) -> None:
    case = TABLE["cases"][name]
    d = decide_incoming(objects(case), f"default/{case['incoming']['name']}")
    want = {f"default{k.split(':')[0]}": k.split(":")[1] for k in case["want"]}
    assert d.reasons == want
    if want:
        assert d.result == "preempt"
        assert d.flavors == {"main": {"cpu": case.get("flavor", "default")}}
    else:
        assert d.result == "pending"
