"""Current Kueue: API versions, Cohort objects, and quota accounting in a cohort tree.

Expected answers are worked out from current upstream ``pkg/cache/scheduler/
resource_node.go`` (``available``, ``potentialAvailable``, ``accumulateFromChild``),
``clusterqueue_snapshot.go``, the v1beta1 conversion functions and the Cohort/ClusterQueue
webhooks (``validateLimit``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders.kueue import CURRENT, V07, cq, flavor, inputs, run, wl

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.kueue.quota import Snapshot


def cohort(name: str, parent: str = "", quotas: dict[str, Any] | None = None,
           version: str = "v1beta2", weight: str | None = None) -> dict[str, Any]:
    """A Cohort; ``quotas`` is {resource: nominal or (nominal, borrowingLimit,
    lendingLimit)} in flavor ``default``."""
    spec: dict[str, Any] = {}
    if parent:
        # v1alpha1 named it ``parent``; v1beta1 (since v0.13) and v1beta2 ``parentName``.
        spec["parent" if version == "v1alpha1" else "parentName"] = parent
    if quotas:
        res = []
        for r, q in quotas.items():
            q = (q,) if isinstance(q, str) else q
            item: dict[str, Any] = {"name": r, "nominalQuota": q[0]}
            if len(q) > 1 and q[1]:
                item["borrowingLimit"] = q[1]
            if len(q) > 2 and q[2]:
                item["lendingLimit"] = q[2]
            res.append(item)
        spec["resourceGroups"] = [{"coveredResources": list(quotas),
                                   "flavors": [{"name": "default", "resources": res}]}]
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def cq2(name: str, cohort_name: str, cpu: str | tuple[str | None, ...]) -> dict[str, Any]:
    """A v1beta2 ClusterQueue (``spec.cohortName``) with cpu in flavor ``default``."""
    obj = cq(name, [("default", {"cpu": cpu})])
    obj["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    if cohort_name:
        obj["spec"]["cohortName"] = cohort_name
    return obj


def _snapshot(objs: list[dict[str, Any]]) -> Snapshot:
    inp = inputs(objs, CURRENT)
    return Snapshot(inp.cluster_queues.values(), inp.flavors, inp.workloads.values(),
                    inp.config, inp.cohorts)


# root (own 4) -> child (borrowingLimit 1) -> q1 (nominal 2); q2 (nominal 3) under root.
TREE = [flavor("default"), cohort("root", quotas={"cpu": "4"}),
        cohort("child", "root", {"cpu": ("0", "1")}), cq2("q1", "child", "2"),
        cq2("q2", "root", "3")]


def test_subtree_quota_sums_children_and_own_quota() -> None:
    snap = _snapshot(TREE)
    fr = ("default", "cpu")
    assert snap.cohorts["child"].subtree[fr] == 2000
    assert snap.cohorts["root"].subtree[fr] == 4000 + 2000 + 3000


def test_available_is_capped_by_the_cohort_borrowing_limit() -> None:
    # available(q1) = local 0 + available(child); child: min(stored 2 - used 0 + limit 1,
    # available(root) 9) = 3. potentialAvailable(q1) = min(2 + 1, 0 + 9) = 3.
    snap = _snapshot(TREE)
    q1 = snap.cqs["q1"]
    assert q1.available(("default", "cpu")) == 3000
    assert q1.potential_available(("default", "cpu")) == 3000
    d = run([*TREE, wl("in", {"cpu": "3"}, queue="q1")], "in", CURRENT)
    assert (d.result, d.borrowing) == ("admit", True)
    d = run([*TREE, wl("in", {"cpu": "4"}, queue="q1")], "in", CURRENT)
    assert (d.result, d.mode) == ("pending", "NoFit")
    assert d.message == ("couldn't assign flavors to pod set main: insufficient quota for cpu "
                         "in flavor default, previously considered podsets requests (0) + "
                         "current podset request (4) > maximum capacity (3)")


def test_usage_bubbles_up_past_lending_limits() -> None:
    # q1 keeps 3 of its 4 local (lendingLimit 1); using 4 puts 1 in the cohort.
    objs = [flavor("default"), cq2("q1", "c", ("4", None, "1")), cq2("q2", "c", "0"),
            wl("used", {"cpu": "4"}, admitted="q1")]
    snap = _snapshot(objs)
    fr = ("default", "cpu")
    assert snap.cohorts["c"].subtree[fr] == 1000
    assert snap.cohorts["c"].usage[fr] == 1000
    assert snap.cqs["q2"].available(fr) == 0


def test_lending_limit_is_on_by_default_in_current_kueue() -> None:
    # Current: the LendingLimit gate is on, q2 can borrow only the 1 cpu q1 lends.
    # v0.7: the gate is off by default, so the whole 4 cpus are requestable.
    objs = [flavor("default"), cq("q1", [("default", {"cpu": ("4", None, "1")})], cohort="c"),
            cq("q2", [("default", {"cpu": "0"})], cohort="c"),
            wl("in", {"cpu": "2"}, queue="q2")]
    assert run(objs, "in", CURRENT).result == "pending"
    assert run(objs, "in", V07).result == "admit"


def test_cohort_lendable_counts_lending_limits() -> None:
    # TestCohortLendable (pkg/cache/scheduler/resource_node_test.go).
    objs = [flavor("default"),
            cq("cq1", [("default", {"cpu": ("8", None, "8"), "example.com/gpu": ("3", None,
                                                                                "3")})],
               cohort="test-cohort"),
            cq("cq2", [("default", {"cpu": ("2", None, "2")})], cohort="test-cohort")]
    cq1 = _snapshot(objs).cqs["cq1"]
    assert cq1.lendable("cpu") == 10_000
    assert cq1.lendable("example.com/gpu") == 3


def test_v1beta2_renames_are_read() -> None:
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
           "metadata": {"name": "high"}, "value": 1000}
    w = wl("in", {"cpu": "1"}, queue="q1")
    w["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    w["spec"]["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                     "name": "high"}
    q = cq2("q1", "child", "2")
    q["spec"]["flavorFungibility"] = {"whenCanBorrow": "TryNextFlavor",
                                      "whenCanPreempt": "MayStopSearch"}
    inp = inputs([*TREE[:3], q, wpc, w], CURRENT)
    assert inp.cluster_queues["q1"].cohort == "child"
    assert inp.cluster_queues["q1"].when_can_preempt == "Preempt"
    assert inp.cluster_queues["q1"].when_can_borrow == "TryNextFlavor"
    assert inp.cohorts["child"].parent == "root"
    assert inp.workloads["default/in"].priority == 1000


def test_v1beta1_objects_are_converted_under_current(capsys) -> None:
    objs = [flavor("default"), cohort("root", quotas={"cpu": "4"}, version="v1beta1"),
            cohort("child", "root", version="v1beta1"),
            cq("q1", [("default", {"cpu": "0"})], cohort="child")]
    inp = inputs(objs, CURRENT)
    assert inp.cohorts["child"].parent == "root"
    assert inp.cluster_queues["q1"].cohort == "child"
    # One line per file and version, naming the kinds (Kueue 0.20 no longer serves
    # v1beta1, #14558).
    err = capsys.readouterr().err.splitlines()
    assert err == ["warning: test.yaml: ResourceFlavor, ClusterQueue, Cohort, LocalQueue "
                   "objects in kueue.x-k8s.io/v1beta1, which Kueue 0.20 no longer serves "
                   "(#14558), are converted to v1beta2"]
    assert run([*objs, wl("in", {"cpu": "4"}, queue="q1")], "in", CURRENT).result == "admit"
    capsys.readouterr()
    # v0.7 reads v1beta1 natively: no warning.
    inputs([flavor("default"), cq("q1", [("default", {"cpu": "1"})])], V07)
    assert capsys.readouterr().err == ""


def test_cohort_parent_field_per_version(capsys) -> None:
    # cohort_types.go: v1alpha1 had spec.parent; "Promote Cohort API to v1beta1" (#5595,
    # v0.13) renamed it spec.parentName, the name v1beta2 keeps.
    objs = [flavor("default"), cohort("root", version="v1alpha1"),
            cohort("child", "root", version="v1alpha1")]
    assert inputs(objs, CURRENT).cohorts["child"].parent == "root"
    assert "Cohort objects in kueue.x-k8s.io/v1alpha1, which Kueue 0.20 no longer serves " \
        "(since v0.13), are converted to v1beta2" in capsys.readouterr().err
    bad = cohort("child", version="v1beta1")
    bad["spec"]["parent"] = "root"
    with pytest.raises(InputError, match="spec.parent: unknown field in "
                       "kueue.x-k8s.io/v1beta1 Cohort"):
        inputs([flavor("default"), bad], CURRENT)


def test_v1beta1_priority_class_name_without_source_converts_to_none() -> None:
    # Convert_v1beta1_WorkloadSpec_To_v1beta2_WorkloadSpec sets priorityClassRef only for
    # a known priorityClassSource; v0.7 looked the name up.
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
           "metadata": {"name": "high"}, "value": 1000}
    w = wl("in", {"cpu": "1"}, queue="q")
    w["spec"]["priorityClassName"] = "high"
    objs = [flavor("default"), cq("q", [("default", {"cpu": "1"})]), wpc, w]
    assert inputs(objs, CURRENT).workloads["default/in"].priority == 0
    assert inputs(objs, V07).workloads["default/in"].priority == 1000
    w["spec"]["priorityClassSource"] = "kueue.x-k8s.io/workloadpriorityclass"
    assert inputs(objs, CURRENT).workloads["default/in"].priority == 1000


def test_implicit_parent_cohort_is_legal() -> None:
    objs = [flavor("default"), cohort("child", "missing-parent", {"cpu": ("2", "1")}),
            cq2("q1", "child", "0"), wl("in", {"cpu": "2"}, queue="q1")]
    assert run(objs, "in", CURRENT).result == "admit"


def test_cohort_cycle_stops_admission_in_that_tree() -> None:
    objs = [flavor("default"), cohort("a", "b", {"cpu": "4"}), cohort("b", "a"),
            cohort("tail", "a"), cq2("q1", "a", "4"), cq2("q2", "tail", "4"),
            cq2("ok", "", "4"), wl("in", {"cpu": "1"}, queue="q1"),
            wl("in2", {"cpu": "1"}, queue="q2"), wl("in3", {"cpu": "1"}, queue="ok")]
    d = run(objs, "in", CURRENT)
    # upstream's scheduler: "ClusterQueue %s is inactive", the cause only in --explain
    assert (d.result, d.message) == ("pending", "ClusterQueue q1 is inactive")
    assert "ClusterQueue q1 is inactive: cohort has a cycle" in d.trace.lines
    assert run(objs, "in2", CURRENT).message == "ClusterQueue q2 is inactive"
    assert run(objs, "in3", CURRENT).result == "admit"


def _cli(tmp_path: Path, capsys: Any, objs: list[dict[str, Any]],
         *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    code = main(["kueue", str(path), "--workload", "default/in", "-o", "json", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("obj,needle", [
    (cohort("root", quotas={"cpu": ("4", "1")}),
     'Cohort root: spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid '
     'value: "1": must be nil when parent is empty'),
    (cohort("root", quotas={"cpu": ("4", None, "2")}),
     'Cohort root: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid '
     'value: "2": must be nil when parent is empty'),
    (cq2("lonely", "", ("4", "1")),
     'ClusterQueue lonely: spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: '
     'Invalid value: "1": must be nil when cohort is empty'),
    (cq2("lender", "c", ("4", None, "5")),
     'ClusterQueue lender: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: '
     'Invalid value: "5": must be less than or equal to the nominalQuota'),
])
def test_webhook_refusals_are_one_line_exit_2(tmp_path: Path, capsys: Any, obj: dict[str, Any],
                                             needle: str) -> None:
    objs = [flavor("default"), obj, wl("in", {"cpu": "1"}, queue="q")]
    code, out, err = _cli(tmp_path, capsys, objs)
    assert code == 2
    assert out == ""
    # The refusal is one line (the v1beta1 inputs' conversion warnings aside).
    refusal = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(refusal) == 1
    assert needle in refusal[0]


def test_v0_7_does_not_serve_v1beta2(tmp_path: Path, capsys: Any) -> None:
    objs = [flavor("default"), cq2("q", "", "4"), wl("in", {"cpu": "1"}, queue="q")]
    code, _, err = _cli(tmp_path, capsys, objs, "--kueue-version", "v0.7")
    assert code == 2
    assert "apiVersion kueue.x-k8s.io/v1beta2 is not served by Kueue v0.7" in err
    assert len(err.strip().splitlines()) == 1


def test_kueue_version_flag_default_is_current(tmp_path: Path, capsys: Any) -> None:
    objs = [flavor("default"), cq("q1", [("default", {"cpu": ("4", None, "1")})], cohort="c"),
            cq("q2", [("default", {"cpu": "0"})], cohort="c"),
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
             "metadata": {"name": "q2", "namespace": "default"},
             "spec": {"clusterQueue": "q2"}},
            wl("in", {"cpu": "2"}, queue="q2")]
    code, out, _ = _cli(tmp_path, capsys, objs)
    assert (code, json.loads(out)["result"]) == (0, "pending")
    code, out, _ = _cli(tmp_path, capsys, objs, "--kueue-version", "v0.7")
    assert (code, json.loads(out)["result"]) == (0, "admit")
    with pytest.raises(InputError):
        inputs(objs, "v0.3")


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kueue"


def test_hierarchical_example(capsys: Any) -> None:
    # research/train (6 cpu) fits research's subtree quota (4 + 4): research-cq has the
    # hierarchical advantage over ops-cq, which borrows all 8 cpus. Taking batch-1 (6)
    # frees enough; batch-2 (2) would not, and is spared.
    code = main(["kueue", str(EXAMPLES / "hierarchical.yaml"), "--workload",
                 "research/train", "-o", "yaml", "--now", "2025-06-01T12:00:00Z"])
    out = yaml.safe_load(capsys.readouterr().out)
    assert code == 0
    assert (out["result"], out["victims"], out["borrowing"]) == ("preempt", ["ops/batch-1"],
                                                                 True)
    assert out["reasons"] == {"ops/batch-1": "InCohortReclamation"}
    conds = {c["type"]: c for c in out["victimStatus"]["ops/batch-1"]["conditions"]}
    assert conds["Preempted"]["message"] == (
        "Preempted to accommodate a workload (UID: 7f3b9c10-aaaa-4c2d-8e9f-0a1b2c3d4e5f, "
        "JobUID: 3d2c1b0a-bbbb-4f5e-9d8c-7b6a5f4e3d2c) due to reclamation within the cohort; "
        "preemptor path: /company/research/research-cq; preemptee path: /company/ops-cq")


def test_fair_example_reclaims_within_nominal_in_current_kueue(capsys: Any) -> None:
    args = ["kueue", str(EXAMPLES / "fair-sharing.yaml"), "--workload", "team-c/c-new",
            "-o", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["reasons"] == {"team-b/b5":
                                                              "InCohortReclamation"}
    assert main([*args, "--kueue-version", "v0.7"]) == 0
    assert json.loads(capsys.readouterr().out)["reasons"] == {"team-b/b5":
                                                              "InCohortFairSharing"}
