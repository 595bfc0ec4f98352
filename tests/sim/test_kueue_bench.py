"""Kueue's scheduler benchmark, simulated: generator objects and the recorder's figures
on a configuration small enough to work out by hand."""

from __future__ import annotations

import json
from dataclasses import replace

from kubepreempt.kueue.semantics import semantics_for
from kubepreempt.sim.kueue_bench import BASELINE, KueueBenchConfig, WorkloadClass, run, workloads

TINY = KueueBenchConfig(
    "tiny", cohorts=1, queues=1, nominal=2, borrowing_limit=0,
    classes=(WorkloadClass("small", 2, 1000, 1500, 50, 2),),
    max_wall_ms=10_000, min_usage_pct=55.0, max_avg_admission_ms={"small": 1000},
    upstream_wall_ms=0.0)


def test_generator_matches_upstream_baseline_counts_and_times() -> None:
    wls = workloads(BASELINE, semantics_for("current"))
    assert len(wls) == 15_000  # 5 cohorts x 6 queues x (350 + 100 + 50)
    by_name = {(w.namespace, w.name): (w, t, r) for w, t, r in wls}
    wl, arrival, runtime = by_name[("cq-0-5-cohort-4", "large-2-49-0")]
    assert (arrival, runtime, wl.priority) == (60.0, 1.0, 200)  # 50th at 50 x 1.2 s
    assert wl.pod_sets[0].requests["cpu"] == 20_000 and wl.queue_name == "cq-0-5-cohort-4"
    assert by_name[("cq-0-0-cohort-0", "small-0-0-0")][1] == 0.1


def test_tiny_benchmark_figures_by_hand() -> None:
    r = run(TINY)
    # w0 arrives at 1 s and runs to 2.5 s; w1 arrives at 2 s, does not fit (2 + 2 > 2,
    # no borrowing) and waits in the inadmissible set until w0's release at 2.5 s.
    assert r["simulatedMakespanMs"] == 4000
    small = r["workloadClasses"]["small"]
    assert small["count"] == 2 and small["avgTimeToAdmissionMs"] == 250
    assert small["evictions"] == 0
    # 2 cpu busy for 3 s of the 3 s monitored (first arrival to the end): 100 %.
    assert r["clusterQueueClassMinUsage"]["cq"]["valuePct"] == 100.0
    assert r["admitted"] == 2 and r["workloads"] == 2


def test_bench_cli_lists_and_runs_kueue_benchmarks(capsys, monkeypatch) -> None:
    import json

    from kubepreempt.cli import main
    from kubepreempt.sim import kueue_bench

    assert main(["bench", "--list", "-o", "json"]) == 0
    names = [w["workload"] for w in json.loads(capsys.readouterr().out)]
    assert names[-2:] == ["kueue-baseline", "kueue-large-scale"]
    monkeypatch.setitem(kueue_bench.CONFIGS, "tiny", TINY)
    assert main(["bench", "tiny", "-o", "json", "--kueue-version", "v0.7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kueueVersion"] == "v0.7" and out["simulatedMakespanMs"] == 4000
    # the wall time has the name the scheduler workloads give it
    assert isinstance(out["seconds"], float) and "wallSeconds" not in out
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["bench", "tiny"]) == 0
    table = capsys.readouterr().out
    assert "small: mean time to admission (ms)" in table and "<= 1000" in table


def test_bench_builds_its_objects_in_the_releases_own_version(capsys, monkeypatch) -> None:
    """The generator's objects are the release's native version (v1beta2 under 0.20, whose
    ClusterQueue names its cohort in ``cohortName``; v1beta1 under v0.7), so the benchmark
    converts nothing and prints no conversion warning about objects it made itself; the
    cohorts still take effect (two queues of one cohort lend to each other)."""
    from kubepreempt.cli import main
    from kubepreempt.sim import kueue_bench

    lend = replace(TINY, name="tiny-lend", queues=2, borrowing_limit=2,
                   classes=(WorkloadClass("small", 2, 1000, 1500, 50, 4),))
    monkeypatch.setitem(kueue_bench.CONFIGS, "tiny-lend", lend)
    for version, api in (("0.20", "v1beta2"), ("v0.7", "v1beta1")):
        docs = kueue_bench.build_documents(lend, semantics_for(version).native_api_version)
        cq = docs.of("ClusterQueue")[0].body
        assert cq["apiVersion"] == f"kueue.x-k8s.io/{api}"
        assert main(["bench", "tiny-lend", "-o", "json", "--kueue-version", version]) == 0
        captured = capsys.readouterr()
        assert captured.err == ""
        # A 4-cpu workload fits only by borrowing the other queue's 2 cpu (nominal 2
        # each), so one runs at a time, 1.5 s each, oldest first: both first workloads
        # arrive at 1 s (one admitted at once, the other at 2.5 s), both second ones at
        # 2 s (admitted at 4 s and 5.5 s): waits 0, 1.5, 2 and 3.5 s, mean 1.75 s. Without
        # the cohort no workload could ever be admitted.
        small = json.loads(captured.out)["workloadClasses"]["small"]
        assert small["count"] == 4 and small["avgTimeToAdmissionMs"] == 1750
