"""Running sweeps: the numbers are simulate()'s, identical in any order and on any backend;
interrupted sweeps resume; a failed run is reported and the others go on."""

from __future__ import annotations

import json
import multiprocessing
import random
from pathlib import Path

import pytest
from builders.sweep import comparable, crash_on_a1, write_sweep

from kubepreempt.manifests import load_documents
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sweep import DaskBackend, PoolBackend, SerialBackend, load_sweep, run_sweep
from kubepreempt.sweep import worker as sweep_worker
from kubepreempt.sweep.stats import estimate


def _sweep(tmp_path: Path, backend, name: str = "r.jsonl", **kw):
    spec = load_sweep(str(write_sweep(tmp_path)))
    result = run_sweep(spec, backend, results=str(tmp_path / name), **kw)
    return spec, result


def test_variant_figures_are_those_of_simulate_per_seed(tmp_path: Path) -> None:
    spec, result = _sweep(tmp_path, SerialBackend())
    # The same numbers straight from the simulator, with the edit made by hand.
    text = (tmp_path / "scenario.yaml").read_text()
    edited = tmp_path / "edited.yaml"
    edited.write_text(text.replace("metadata: {name: low}\nvalue: 0",
                                   "metadata: {name: low}\nvalue: 1000"))
    for variant, path in (("today", tmp_path / "scenario.yaml"), ("low-at-1000", edited)):
        lost = [simulate(build_scenario(load_documents([str(path)]), seed), seed=seed).metrics
                ["classes"]["low"]["workLost"] for seed in spec.seeds]
        got = result.summaries()[variant]["classes.low.workLost"]
        assert got == estimate(lost)
    today = result.summaries()["today"]["classes.low.workLost"]
    assert today.mean > 0 and today.low < today.mean < today.high  # seeds differ
    assert result.summaries()["low-at-1000"]["preemptions"].mean == 0  # nobody may preempt
    ranked = result.ranking(spec.rank)
    assert [r.variant for r in ranked] == ["low-at-1000", "today"]


def test_same_numbers_in_any_execution_order(tmp_path: Path) -> None:
    spec, first = _sweep(tmp_path, SerialBackend(), "a.jsonl")
    tasks = [(v.name, s) for v in spec.variants for s in spec.seeds]
    random.Random(5).shuffle(tasks)
    shuffled = run_sweep(spec, SerialBackend(), results=str(tmp_path / "b.jsonl"),
                         order=tasks)
    assert comparable(shuffled.to_json(by=spec.rank)) == comparable(first.to_json(by=spec.rank))
    # The results files hold the same runs in different orders.
    a = (tmp_path / "a.jsonl").read_text().splitlines()
    b = (tmp_path / "b.jsonl").read_text().splitlines()
    assert a != b

    def strip(lines: list[str]) -> list:
        return sorted((json.loads(x) | {"seconds": 0} for x in lines),
                      key=lambda r: (r["variant"], r["seed"]))
    assert strip(a) == strip(b)


def test_local_pool_and_dask_give_identical_results(tmp_path: Path) -> None:
    from distributed import LocalCluster

    spec, serial = _sweep(tmp_path, SerialBackend(), "serial.jsonl")
    pool = run_sweep(spec, PoolBackend(2), results=str(tmp_path / "pool.jsonl"))
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                      dashboard_address=":0") as cluster:
        backend = DaskBackend(cluster.scheduler_address)
        try:
            dask = run_sweep(spec, backend, results=str(tmp_path / "dask.jsonl"))
            assert backend.describe().endswith("(1 workers)")
        finally:
            backend.close()
    want = comparable(serial.to_json(by=spec.rank))
    assert comparable(pool.to_json(by=spec.rank)) == want
    assert comparable(dask.to_json(by=spec.rank)) == want
    assert pool.ran == dask.ran == spec.runs


class _Stop(KeyboardInterrupt):
    pass


def test_interrupted_sweep_resumes_from_the_results_file(tmp_path: Path) -> None:
    spec, full = _sweep(tmp_path, SerialBackend(), "full.jsonl")
    seen: list = []

    def stop_after_two(task, outcome) -> None:
        seen.append(task)
        if len(seen) == 2:
            raise _Stop

    results = tmp_path / "part.jsonl"
    with pytest.raises(_Stop):
        run_sweep(spec, SerialBackend(), results=str(results), on_result=stop_after_two)
    assert len(results.read_text().splitlines()) == 2
    with results.open("a") as f:
        f.write('{"variant": "today", "seed"')  # a line cut short by a kill
    starts: list = []
    resumed = run_sweep(spec, SerialBackend(), results=str(results),
                        on_start=lambda todo, reused: starts.append((todo, reused)))
    assert starts == [(spec.runs - 2, 2)]
    assert (resumed.reused, resumed.ran) == (2, spec.runs - 2)
    assert comparable(resumed.to_json(by=spec.rank)) == comparable(full.to_json(by=spec.rank))
    again = run_sweep(spec, SerialBackend(), results=str(results))
    assert (again.reused, again.ran) == (spec.runs, 0)
    # --fresh throws the stored runs away.
    fresh = run_sweep(spec, SerialBackend(), results=str(results), fresh=True)
    assert (fresh.reused, fresh.ran) == (0, spec.runs)


def test_results_of_a_changed_variant_are_not_reused(tmp_path: Path) -> None:
    spec, _ = _sweep(tmp_path, SerialBackend(), "r.jsonl")
    sweep_file = Path(spec.path)
    sweep_file.write_text(sweep_file.read_text().replace("value: 1000", "value: 999"))
    changed = run_sweep(load_sweep(str(sweep_file)), SerialBackend(),
                        results=str(tmp_path / "r.jsonl"))
    n = len(spec.seeds)
    # "today" is reused; the changed variant runs again and its old lines are ignored.
    assert (changed.reused, changed.ran, changed.stale) == (n, n, n)


def test_failed_run_is_reported_and_the_others_go_on(tmp_path: Path, monkeypatch) -> None:
    real = sweep_worker.simulate

    def flaky(scenario, **kw):
        # Seed 1's runs (both variants draw the same arrivals from the same seed).
        if scenario.pods and scenario.pods[0].arrival == _first_arrival(tmp_path, 1):
            raise RuntimeError("disk on fire")
        return real(scenario, **kw)

    spec = load_sweep(str(write_sweep(tmp_path)))
    monkeypatch.setattr(sweep_worker, "simulate", flaky)
    result = run_sweep(spec, SerialBackend(), results=str(tmp_path / "r.jsonl"))
    assert result.failures == [("today", 1, "RuntimeError: disk on fire"),
                               ("low-at-1000", 1, "RuntimeError: disk on fire")]
    assert result.summaries()["today"]["preemptions"].n == len(spec.seeds) - 1
    data = result.to_json()
    assert data["runs"]["failed"] == 2 and data["variants"][0]["failed"] == 1
    # Failed runs are stored as failures and run again on resume.
    monkeypatch.setattr(sweep_worker, "simulate", real)
    resumed = run_sweep(spec, SerialBackend(), results=str(tmp_path / "r.jsonl"))
    assert (resumed.ran, resumed.failures) == (2, [])


def _first_arrival(tmp_path: Path, seed: int) -> float:
    return build_scenario(load_documents([str(tmp_path / "scenario.yaml")]), seed) \
        .pods[0].arrival


def test_interrupting_the_pool_stops_its_workers(tmp_path: Path) -> None:
    spec = load_sweep(str(write_sweep(tmp_path)))

    def stop(task, outcome) -> None:
        raise _Stop

    with pytest.raises(_Stop):
        run_sweep(spec, PoolBackend(2), results=str(tmp_path / "r.jsonl"), on_result=stop)
    for proc in multiprocessing.active_children():
        proc.join(timeout=10)
    assert multiprocessing.active_children() == []
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 1


def test_a_dead_worker_fails_its_runs_and_the_pool_goes_on() -> None:
    tasks = [(v, s) for v in ("a", "b") for s in (0, 1, 2)]
    out = list(PoolBackend(1, run=crash_on_a1).results({}, tasks))
    assert sorted(t for t, _ in out) == sorted(tasks)  # every run reported exactly once
    failed = {t for t, o in out if "error" in o}
    # One worker, two runs in flight: the crash takes (a, 1) and at most the run queued
    # behind it; (a, 0) finished before, the b runs go to a new pool.
    assert ("a", 1) in failed and failed <= {("a", 1), ("a", 2)}
    assert all(o["error"].startswith("worker process died") for t, o in out if t in failed)
    assert all(o == {"metrics": {"seed": t[1]}} for t, o in out if t not in failed)
