"""Upstream's ``TestDominantResourceShare`` (pkg/cache/scheduler/fair_sharing_test.go,
kueue main ff69552e), every case, as data: the usage is admitted to ``cq`` (it bubbles up
the cohort tree), and each node's share is computed with the case's extra request added
to that node's own usage, as ``dominantResourceShare(node, wlReq)`` does. Compared per
ClusterQueue and Cohort: the rounded weighted share, the dominant resource, borrowing."""

from __future__ import annotations

import pytest
from builders.kueue import docs
from builders.kueue_tables import (
    cohort_manifest,
    config_manifest,
    cq_manifest,
    flavor_manifest,
    load_table,
)

from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.dominant_share import dominant_resource_share
from kubepreempt.kueue.quota import QuotaNode, Snapshot
from kubepreempt.kueue.semantics import CURRENT

TABLE = load_table("dominant_resource_share")


def _frs(raw: dict[str, int]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for k, v in raw.items():
        flavor, res = k.split("|")
        out[(flavor, res)] = v
    return out


def _share(node: QuotaNode, request: dict[tuple[str, str], int]) -> tuple[int, str, bool]:
    for fr, v in request.items():
        node.usage[fr] = node.usage.get(fr, 0) + v
    try:
        drs = dominant_resource_share(node)
    finally:
        for fr, v in request.items():
            node.usage[fr] -= v
    return drs.rounded(), drs.resource, drs.borrowing


@pytest.mark.parametrize("name", sorted(TABLE["cases"]))
def test_dominant_resource_share(name: str) -> None:
    case = TABLE["cases"][name]
    objs = [*(flavor_manifest({"name": f}) for f in ("default", "on-demand", "spot")),
            *(cq_manifest(c) for c in case["cqs"]),
            *(cohort_manifest(c) for c in case.get("cohorts", [])), config_manifest(True)]
    inp = load_inputs(docs(objs), version=CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    for fr, v in _frs(case["usage"]).items():
        snap.cqs["cq"].add_usage(fr, v)
    request = _frs(case["request"])
    for want in case["want"]:
        node = snap.cqs[want["name"]] if want["type"] == "cq" else snap.cohorts[want["name"]]
        got = _share(node, request)
        assert got == (want["value"], want["resource"], want["borrowing"]), want["name"]
