"""Current upstream's ``TestDominantResourceShare`` (pkg/cache/scheduler/
fair_sharing_test.go): the share of ``cq`` (rounded up, as ``weightedShare`` reports it)
and its dominant resource, with ``lending-cq`` lending in the same cohort; ``lending-cq``
and the cohort (a root) have share 0 in every case."""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, cq, flavor, inputs

from kubepreempt.kueue.dominant_share import dominant_resource_share
from kubepreempt.kueue.quota import Snapshot

GPU = "example.com/gpu"
MAX = (1 << 63) - 1


def _q(name: str, quotas: dict[str, Any], weight: str, flv: str = "default",
       extra: list[tuple[str, dict[str, Any]]] | None = None) -> dict[str, Any]:
    return cq(name, [(flv, quotas), *(extra or [])], cohort="test-cohort", weight=weight)


# name -> (cq, lending-cq, usage {(flavor, resource): amount}, extra request, (share, res))
CASES: dict[str, tuple[Any, ...]] = {
    "usage below nominal": (
        _q("cq", {"cpu": "2", GPU: "5"}, "1"), _q("lending-cq", {"cpu": "8", GPU: "5"}, "1"),
        {("default", "cpu"): 1000, ("default", GPU): 2}, {}, (0, "")),
    "usage above nominal": (
        _q("cq", {"cpu": "2", GPU: "5"}, "1"), _q("lending-cq", {"cpu": "8", GPU: "5"}, "1"),
        {("default", "cpu"): 3000, ("default", GPU): 7}, {}, (200, GPU)),
    "usage slightly above nominal in a cohort with large quotas": (
        _q("cq", {GPU: "500"}, "1"), _q("lending-cq", {GPU: "1000"}, "300"),
        {("default", GPU): 501}, {}, (1, GPU)),
    "usage way above nominal in a cohort with large quotas and weights": (
        _q("cq", {GPU: "500"}, "300"), _q("lending-cq", {GPU: "1000"}, "300"),
        {("default", GPU): 800}, {}, (1, GPU)),
    "one resource above nominal": (
        _q("cq", {"cpu": "2", GPU: "5"}, "1"), _q("lending-cq", {"cpu": "8", GPU: "5"}, "1"),
        {("default", "cpu"): 3000, ("default", GPU): 3}, {}, (100, "cpu")),
    "usage with workload above nominal": (
        _q("cq", {"cpu": "2", GPU: "5"}, "1"), _q("lending-cq", {"cpu": "8", GPU: "5"}, "1"),
        {("default", "cpu"): 1000, ("default", GPU): 2},
        {("default", "cpu"): 4000, ("default", GPU): 4}, (300, "cpu")),
    "A resource with zero lendable": (
        _q("cq", {"cpu": "2", GPU: ("2", None, "0")}, "1"),
        _q("lending-cq", {"cpu": "8", GPU: ("64", None, "0")}, "1"),
        {("default", "cpu"): 1000, ("default", GPU): 1},
        {("default", "cpu"): 4000, ("default", GPU): 4}, (300, "cpu")),
    # Not an upstream case: weight 0 makes a share infinite only when its ratio is not
    # zero (``zeroWeightBorrows``: isWeightZero && !IsZero); borrowing what nobody lends
    # leaves the ratio 0, so the share is 0.
    "a zero-weight ClusterQueue borrowing only what nobody lends": (
        _q("cq", {GPU: ("2", None, "0")}, "0"), _q("lending-cq", {GPU: ("64", None, "0")}, "1"),
        {("default", GPU): 3}, {}, (0, "")),
    "multiple flavors": (
        _q("cq", {"cpu": "20"}, "1", "on-demand", [("spot", {"cpu": "80"})]),
        _q("lending-cq", {"cpu": "100"}, "1"),
        {("on-demand", "cpu"): 15000, ("spot", "cpu"): 5000},
        {("on-demand", "cpu"): 10000}, (25, "cpu")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_dominant_resource_share(name: str) -> None:
    q, lender, usage, extra, (share, res) = CASES[name]
    objs = [flavor("default"), flavor("on-demand"), flavor("spot"), q, lender]
    inp = inputs(objs, CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    st = snap.cqs["cq"]
    for fr, v in {**usage}.items():
        st.add_usage(fr, v + extra.get(fr, 0))
    for fr, v in extra.items():
        if fr not in usage:
            st.add_usage(fr, v)
    drs = dominant_resource_share(st)
    assert (drs.rounded(), drs.resource) == (share, res)
    assert dominant_resource_share(snap.cqs["lending-cq"]).rounded() == 0
    assert dominant_resource_share(snap.cohorts["test-cohort"]).rounded() == 0


# Through kubepreempt kueue's decision: the usage held by admitted workloads, the share
# read from what the decision reports (``status.fairSharing.weightedShare``) before the
# incoming workload; with an extra request, after admitting it. Two cases cannot be
# reached that way: "A resource with zero lendable" (nobody lends gpu, so the 4 extra gpu
# are NoFit, never admitted) and "multiple flavors" (on-demand cannot borrow, the
# assigner takes spot instead).
UNREACHABLE = {"A resource with zero lendable", "multiple flavors"}


@pytest.mark.parametrize("name", [n for n in CASES if n not in UNREACHABLE])
def test_upstream_dominant_resource_share_whole_decision(name: str) -> None:
    from builders.kueue import config, run, wl
    q, lender, usage, extra, (share, _) = CASES[name]
    held = []
    for i, ((flv, res), amount) in enumerate(sorted(usage.items())):
        qty = f"{amount}m" if res == "cpu" else str(amount)
        held.append(wl(f"u{i}", {res: qty}, admitted="cq", flavors={res: flv}))
    wanted = {r: (f"{v}m" if r == "cpu" else str(v)) for (_, r), v in extra.items()}
    first = next(iter(usage))[1]
    incoming = wl("in", wanted or {first: "1m" if first == "cpu" else "1"}, queue="cq")
    objs = [flavor("default"), flavor("on-demand"), flavor("spot"), q, lender, *held,
            incoming, config(fair=True)]
    d = run(objs, "in", CURRENT)
    if extra:
        assert d.result == "admit"
        assert d.explain["sharesAfter"] == {"cq": share, "lending-cq": 0}
    else:
        assert d.explain["sharesBefore"] == {"cq": share, "lending-cq": 0}
