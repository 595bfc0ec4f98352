"""``kubepreempt sweep``: JSON contract, table, report, --cluster, failures, options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders.sweep import SWEEP, comparable, write_sweep

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.sweep import DaskBackend
from kubepreempt.sweep import worker as sweep_worker


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_contract(tmp_path: Path, capsys) -> None:
    spec = write_sweep(tmp_path)
    code, out, err = run(capsys, "sweep", str(spec), "-j", "1", "-o", "json",
                         "--metric", "classes.low.*", "--metric", "preemptions")
    assert code == 0, err
    data = json.loads(out)
    assert data["spec"] == str(spec) and data["seeds"] == [0, 1, 2]
    assert data["confidence"] == 0.95
    assert data["results"] == str(tmp_path / "sweep.results.jsonl")
    assert data["runs"] == {"planned": 6, "reused": 0, "ran": 6, "succeeded": 6, "failed": 0,
                            "staleIgnored": 0}
    today, raised = data["variants"]
    assert today["name"] == "today" and today["levels"] is None and today["edits"] == []
    assert raised["edits"] == [{"op": "replace", "kind": "PriorityClass", "name": "low",
                                "path": "/value", "value": 1000}]
    assert list(today["metrics"])[-1] == "preemptions"
    assert all(m.startswith("classes.low.") for m in list(today["metrics"])[:-1])
    lost = today["metrics"]["classes.low.workLost"]
    assert set(lost) == {"n", "mean", "stdev", "ciLow", "ciHigh"} and lost["n"] == 3
    assert lost["ciLow"] < lost["mean"] < lost["ciHigh"]
    assert raised["metrics"]["preemptions"] == {"n": 3, "mean": 0.0, "stdev": 0.0,
                                                "ciLow": 0.0, "ciHigh": 0.0}
    rank = data["ranking"]
    assert (rank["metric"], rank["order"]) == ("classes.low.workLost", "min")
    assert [(r["rank"], r["variant"]) for r in rank["variants"]] == \
        [(1, "low-at-1000"), (2, "today")]
    assert data["failures"] == []
    # Run again: everything comes from the results file, same figures.
    code, out2, err2 = run(capsys, "sweep", str(spec), "-j", "1", "-o", "json",
                           "--metric", "classes.low.*", "--metric", "preemptions")
    again = json.loads(out2)
    assert again["runs"]["reused"] == 6 and again["runs"]["ran"] == 0
    assert comparable(again) == comparable(data)
    assert "6 runs already in the results file, 0 to run" in err2


def test_rank_override_and_unknown_metric(tmp_path: Path, capsys) -> None:
    spec = write_sweep(tmp_path)
    code, out, _ = run(capsys, "sweep", str(spec), "-j", "1", "-o", "json",
                       "--rank", "classes.low.workLost", "--order", "max")
    ranking = json.loads(out)["ranking"]
    assert ranking["order"] == "max" and ranking["variants"][0]["variant"] == "today"
    code, _, err = run(capsys, "sweep", str(spec), "-j", "1", "--rank", "classes.low.lost")
    last = err.splitlines()[-1]
    assert code == 2 and last.startswith(f"error: {spec}: rank: no run reported metric "
                                         "'classes.low.lost' (some known: ")


def test_table_and_report(tmp_path: Path, capsys) -> None:
    spec = write_sweep(tmp_path)
    report = tmp_path / "report.html"
    code, out, _ = run(capsys, "sweep", str(spec), "-j", "1", "--report", str(report),
                       "--no-progress")
    assert code == 0
    assert "workLost by classes" in out and "Ranking on classes.low.workLost" in out
    assert "6 runs (2 variants x 3 seeds)" in out
    page = report.read_text()
    head = page.split("<svg")[0]
    assert "<script" not in page and "http://" not in head and "https://" not in head
    # One figure for the ranking, one per metric family (classes.*.workLost, ...).
    evictions = ("evictedKubeletAdmission", "evictedNodePressure", "evictedScaleDown",
                 "evictedNodeRemoved")
    families = {"ranking"} | {"classes.*." + m for m in (
        "priority", "pods", "scheduled", "preempted", *evictions, "pending", "workLost",
        "meanPending", "p95Pending")} | {"end", "utilization.cpuMean",
                                         "utilization.memoryMean", "utilization.cpuPeak",
                                         "preemptions", *evictions, "events", "attempts"} | {
        "accounting." + m for m in ("arrived", "pending", "running", "terminating",
                                    "completed", "preempted", "evicted", "removed",
                                    "rejected", "terminated")}
    assert page.count("<svg") == len(families)
    assert "classes.*.workLost" in page and "low-at-1000" in page


def test_cluster_option_runs_on_dask(tmp_path: Path, capsys) -> None:
    from distributed import LocalCluster

    spec = write_sweep(tmp_path)
    code, local, _ = run(capsys, "sweep", str(spec), "-j", "1", "-o", "json",
                         "--results", str(tmp_path / "local.jsonl"))
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                      dashboard_address=":0") as cluster:
        code, out, err = run(capsys, "sweep", str(spec), "-o", "json", "--cluster",
                             cluster.scheduler_address, "--results",
                             str(tmp_path / "dask.jsonl"))
    assert code == 0, err
    data = json.loads(out)
    assert data["backend"].startswith("Dask cluster inproc://")
    assert comparable(data) == comparable(json.loads(local))


def test_unreachable_cluster_is_input_error() -> None:
    # Nothing listens on port 9 of the loopback address.
    backend = DaskBackend("tcp://127.0.0.1:9", timeout=1)
    with pytest.raises(InputError, match=r"^--cluster tcp://127.0.0.1:9: cannot reach a Dask "
                                         r"scheduler \("):
        backend.check()


def test_failed_runs_are_listed_and_exit_1(tmp_path: Path, capsys, monkeypatch) -> None:
    spec = write_sweep(tmp_path)
    real = sweep_worker.simulate

    def flaky(scenario, **kw):
        if scenario.cluster.priority.classes["low"].value == 1000:  # variant low-at-1000
            raise ValueError("no")
        return real(scenario, **kw)

    monkeypatch.setattr(sweep_worker, "simulate", flaky)
    code, out, err = run(capsys, "sweep", str(spec), "-j", "1", "-o", "json")
    assert code == 1
    data = json.loads(out)
    assert data["failures"] == [{"variant": "low-at-1000", "seed": s, "error": "ValueError: no"}
                                for s in (0, 1, 2)]
    assert data["variants"][0]["runs"] == 3 and data["variants"][1]["runs"] == 0
    assert "run failed: variant 'low-at-1000', seed 2: ValueError: no" in err
    # The ranking still places the variant that has no figures: last.
    assert [r["variant"] for r in data["ranking"]["variants"]] == ["today", "low-at-1000"]


def test_every_run_failing_still_reports(tmp_path: Path, capsys, monkeypatch) -> None:
    spec = write_sweep(tmp_path)

    def broken(scenario, **kw):
        raise RuntimeError("simulator down")

    monkeypatch.setattr(sweep_worker, "simulate", broken)
    code, out, _ = run(capsys, "sweep", str(spec), "-j", "1")
    assert code == 1
    assert out.count("failed variant") == 6 and "0 run now" not in out


def test_a_misspelt_rank_metric_stops_before_anything_runs(tmp_path: Path, capsys) -> None:
    spec = write_sweep(tmp_path, {**SWEEP, "sums": {"lostWork": "classes.*.workLost"},
                                  "rank": {"metric": "lostWrok", "order": "min"}})
    results = tmp_path / "sweep.results.jsonl"
    code, out, err = run(capsys, "sweep", str(spec), "-j", "1")
    assert (code, out) == (2, "")
    assert err == f"error: {spec}: rank: no run can report metric 'lostWrok' (did you mean " \
                  "lostWork?)\n"
    assert not results.exists()  # no run, nothing written
    code, _, err = run(capsys, "sweep", str(spec), "-j", "1", "--rank", "preemptoins")
    assert code == 2 and "(did you mean preemptions?)" in err and not results.exists()
    # a measure misspelt, once a member of its family is known (a class that has pods)
    code, _, err = run(capsys, "sweep", str(spec), "-j", "1", "--rank",
                       "utilization.cpuMaen")
    assert code == 2 and "(did you mean utilization.cpuMean" in err and not results.exists()


def test_a_missing_scenario_names_the_sweep_file(tmp_path: Path, capsys) -> None:
    spec = write_sweep(tmp_path, {**SWEEP, "scenario": "scenaro.yaml"})
    code, _, err = run(capsys, "sweep", str(spec), "-j", "1")
    assert code == 2
    assert err.startswith(f"error: {spec}: scenario: ") and "scenaro.yaml" in err


def test_tables_give_units_and_where_the_runs_came_from(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    spec = write_sweep(tmp_path, {**SWEEP, "sums": {"lostWork": "classes.*.workLost"}})
    code, out, _ = run(capsys, "sweep", str(spec), "-j", "1", "--no-progress")
    assert code == 0
    assert "workLost by classes, in pod-seconds" in out
    assert "meanPending by classes, in seconds" in out
    assert "p95Pending by classes, in seconds" in out
    assert "preempted by classes\n" in out  # a count: no unit
    assert "lostWork (pod-seconds)" in out  # a sum of pod-seconds
    assert "6 runs (2 variants x 3 seeds): 6 run now on this process, 0 failed" in out
    code, out, _ = run(capsys, "sweep", str(spec), "-j", "1", "--no-progress")
    assert code == 0
    assert (f"6 runs (2 variants x 3 seeds): all 6 from the results file "
            f"{tmp_path / 'sweep.results.jsonl'}, 0 failed") in out
    assert "worker" not in out.splitlines()[-1]
