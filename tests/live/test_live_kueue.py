"""``kubepreempt kueue --cluster`` on a Kueue 0.20 cluster: the ``kueue.x-k8s.io/v1beta2``
objects (discovered as the group's preferred version) next to the recorded v1.36 core
lists, in the recorded exchange format (``recordings/kueue/``: made in that format, not
recorded; see recordings/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RECORDINGS, VERSION, recorded_path, response
from pytest_httpserver import HTTPServer
from werkzeug import Response

from kubepreempt.cli import main

KUEUE = RECORDINGS / "kueue"
NOW = "2026-11-24T04:00:00Z"


def _exchange(name: str) -> dict:
    return json.loads((KUEUE / f"{name}.json").read_text())


def serve_kueue_cluster(server: HTTPServer) -> None:
    """The recorded namespaces and PriorityClasses, API discovery of kueue.x-k8s.io and
    its v1beta2 lists, each at its path."""
    server.expect_request("/version").respond_with_json(VERSION)
    for name in ("namespaces", "priorityclasses"):
        server.expect_request(recorded_path(name)).respond_with_response(response(name))
    for path in KUEUE.glob("*.json"):
        rec = _exchange(path.stem)
        server.expect_request(rec["request"]["path"]).respond_with_response(
            Response(rec["body"], status=rec["status"], content_type="application/json"))


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = main(["kueue", *args, "-o", "json", "--now", NOW])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def test_kueue_reads_v1beta2_objects_from_the_cluster(httpserver, kubeconfig, capsys) -> None:
    serve_kueue_cluster(httpserver)
    # team-b's Job b1 (8 x 1 cpu) holds team-b's 4 cpu and borrows team-a's 4; team-a's
    # Job a1 (4 x 1 cpu, pending) reclaims them: --workload names the Job, whose
    # Workload (job-a1-0b4e9) is found through its owner reference.
    code, out, err = _run(["--workload", "team-a/a1", "--kubeconfig", str(kubeconfig)],
                          capsys)
    assert code == 0, err
    assert (out["workload"], out["clusterQueue"], out["result"]) == (
        "team-a/job-a1-0b4e9", "team-a", "preempt")
    assert out["victims"] == ["team-b/job-b1-5d7c1"]
    assert out["reasons"] == {"team-b/job-b1-5d7c1": "InCohortReclamation"}
    assert "converted" not in err  # v1beta2 is 0.20's own version
    served = {req.path for req, _ in httpserver.log}
    assert {"/apis/kueue.x-k8s.io/v1beta2/clusterqueues", "/apis/kueue.x-k8s.io/v1beta2/cohorts",
            "/apis/kueue.x-k8s.io/v1beta2/workloads"} <= served


def test_cluster_and_the_same_objects_in_a_file_decide_the_same(
        httpserver, kubeconfig, capsys, tmp_path: Path) -> None:
    serve_kueue_cluster(httpserver)
    _, live, _ = _run(["--workload", "team-a/a1", "--kubeconfig", str(kubeconfig)], capsys)
    items = [item for path in sorted(KUEUE.glob("*.json"))
             for item in json.loads(_exchange(path.stem)["body"]).get("items", [])]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    code, from_file, _ = _run(["--workload", "team-a/a1", str(dump)], capsys)
    assert code == 0
    # The decision is the same; "modelled" names the Kubernetes release, which --cluster
    # takes from the server (1.36 in the recording) and files from the default.
    assert {**from_file, "modelled": None} == {**live, "modelled": None}


def _as_v1beta1(item: dict) -> dict:
    """What a Kueue 0.20 server answers for ``item`` at v1beta1 (its conversion webhook:
    ``cohortName`` -> ``cohort``, ``MayStopSearch`` -> ``Borrow`` / ``Preempt``)."""
    item = json.loads(json.dumps(item))
    item["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    spec = item.get("spec") or {}
    if item["kind"] == "ClusterQueue":
        spec["cohort"] = spec.pop("cohortName")
        fung = spec["flavorFungibility"]
        fung["whenCanBorrow"] = "Borrow" if fung["whenCanBorrow"] == "MayStopSearch" \
            else fung["whenCanBorrow"]
    return item


def test_v0_7_reads_the_v1beta1_version_the_server_also_serves(
        httpserver, kubeconfig, capsys) -> None:
    serve_kueue_cluster(httpserver)
    v1beta2 = json.loads(_exchange("v1beta2")["body"])
    httpserver.expect_request("/apis/kueue.x-k8s.io/v1beta1").respond_with_json(
        {**v1beta2, "groupVersion": "kueue.x-k8s.io/v1beta1"})
    for path in KUEUE.glob("*.json"):
        rec = _exchange(path.stem)
        body = json.loads(rec["body"])
        if "items" in body:
            plural = rec["request"]["path"].rsplit("/", 1)[1]
            httpserver.expect_request(f"/apis/kueue.x-k8s.io/v1beta1/{plural}").respond_with_json(
                {**body, "apiVersion": "kueue.x-k8s.io/v1beta1",
                 "items": [_as_v1beta1(i) for i in body["items"]]})
    code, out, err = _run(["--workload", "team-a/a1", "--kubeconfig", str(kubeconfig),
                           "--kueue-version", "v0.7"], capsys)
    assert code == 0, err
    # v0.7 reads v1beta1 natively: the server's v1beta1 lists, not its preferred v1beta2.
    served = {req.path for req, _ in httpserver.log}
    assert "/apis/kueue.x-k8s.io/v1beta1/clusterqueues" in served
    assert "/apis/kueue.x-k8s.io/v1beta2/clusterqueues" not in served
    assert (out["result"], out["victims"]) == ("preempt", ["team-b/job-b1-5d7c1"])
