"""Sweep files: variants (list and grid), seeds, options, and one-line errors for bad input."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from builders.sweep import SWEEP, write_sweep

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sweep import load_sweep, parse_sweep, plan
from kubepreempt.sweep.spec import RankBy

GRID = {
    "scenario": "scenario.yaml",
    "seeds": [7, 3],
    "simulation": {"until": "10m", "queue": "priority"},
    "variants": [{"name": "base"}],
    "grid": {
        "prio": {"edit": {"op": "replace", "kind": "PriorityClass", "name": "low",
                          "path": "/value"}, "values": [0, 500, 1000]},
        "nodes": [{"name": "two"},
                  {"name": "four", "edits": [{"op": "count", "kind": "Node", "name": "n1",
                                              "value": 3}],
                   "simulation": {"nodePressure": True}}],
    },
    "rank": "classes.low.meanPending",
}


def test_grid_is_every_combination_after_the_listed_variants(tmp_path: Path) -> None:
    spec = load_sweep(str(write_sweep(tmp_path, GRID)))
    assert [v.name for v in spec.variants] == [
        "base", "prio=0, nodes=two", "prio=0, nodes=four", "prio=500, nodes=two",
        "prio=500, nodes=four", "prio=1000, nodes=two", "prio=1000, nodes=four"]
    v = spec.variants[4]
    assert v.levels == {"prio": "500", "nodes": "four"}
    assert [(e.op, e.kind, e.path, e.value) for e in v.edits] == [
        ("replace", "PriorityClass", "/value", 500), ("count", "Node", "", 3)]
    # File-wide simulate options, overridden per level; durations in seconds.
    assert v.options == {"until": 600.0, "queue": "priority", "node_pressure": True}
    assert spec.variants[3].options == {"until": 600.0, "queue": "priority"}
    assert spec.seeds == [7, 3] and spec.runs == 14
    assert spec.rank == RankBy("classes.low.meanPending", "min")
    assert spec.scenario == [str(tmp_path / "scenario.yaml")]


def test_newer_simulate_options(tmp_path: Path) -> None:
    sweep = {"scenario": "scenario.yaml",
             "simulation": {"controllerLatency": "2s", "maxEvents": 5000,
                            "autoscale": {"expander": "least-waste", "scanInterval": "30s",
                                          "scaleDownUtilizationThreshold": 0.4}},
             "variants": [{"name": "off", "simulation": {"autoscale": False}},
                          {"name": "defaults", "simulation": {"autoscale": True}}]}
    spec = load_sweep(str(write_sweep(tmp_path, sweep)))
    off, defaults = spec.variants
    assert off.options == {"controller_latency": 2.0, "max_events": 5000, "autoscale": None}
    assert defaults.options["autoscale"] == AutoscalerOptions()
    base = dict(sweep, variants=[{"name": "x"}])
    opts = load_sweep(str(write_sweep(tmp_path, base))).variants[0].options["autoscale"]
    assert opts == AutoscalerOptions(expander="least-waste", scan_interval=30.0,
                                     scale_down_utilization_threshold=0.4)
    plan(load_sweep(str(write_sweep(tmp_path, base))))  # simulate accepts them


def test_defaults(tmp_path: Path) -> None:
    spec = load_sweep(str(write_sweep(tmp_path, {"scenario": "scenario.yaml", "seeds": 4})))
    assert [v.name for v in spec.variants] == ["base"]
    assert spec.seeds == [0, 1, 2, 3] and spec.rank is None and spec.metrics == []


def test_plan_applies_each_variants_edits(tmp_path: Path) -> None:
    p = plan(load_sweep(str(write_sweep(tmp_path, GRID))))
    docs, options = p.payloads["prio=1000, nodes=four"]
    assert [o.body["value"] for o in docs.of("PriorityClass") if o.name == "low"] == [1000]
    assert [o.name for o in docs.of("Node")] == ["n1", "n1-2", "n1-3", "n2"]
    assert options["node_pressure"] is True
    # The fingerprint is what decides the runs: setting low's value to its own 0 changes
    # nothing, every other variant differs.
    fps = p.fingerprints
    assert fps["base"] == fps["prio=0, nodes=two"]
    assert len(set(fps.values())) == 6


def _bad(tmp_path: Path, change) -> str:
    sweep = copy.deepcopy(SWEEP)
    change(sweep)
    path = write_sweep(tmp_path, sweep)
    with pytest.raises(InputError) as err:
        plan(load_sweep(str(path)))
    return str(err.value)


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(seeds=0), "seeds must be at least 1"),
    (lambda s: s.update(seeds=[1, 1]), "seeds: 1 appears twice"),
    (lambda s: s.update(colour="red"), "unknown key(s) colour"),
    (lambda s: s.update(kind="Pod"), "kind must be Sweep"),
    (lambda s: s.pop("scenario"), "scenario must name"),
    (lambda s: s.update(rank={"metric": "x", "order": "up"}), "rank order must be min or max"),
    (lambda s: s["variants"].append({"name": "today"}), "variant today: the name appears twice"),
    (lambda s: s["variants"].append({"edits": []}), "variants[2]: needs a name"),
    (lambda s: s["variants"][1]["edits"][0].update(op="set"),
     "variant low-at-1000: edit 1: op must be one of"),
    (lambda s: s["variants"][1]["edits"][0].update(name="lowest"),
     "variant low-at-1000: edit 1 (replace PriorityClass lowest /value): no PriorityClass"),
    (lambda s: s["variants"][1]["edits"][0].update(path="/spec/value"),
     "variant low-at-1000: edit 1 (replace PriorityClass low /spec/value) on PriorityClass low"),
    (lambda s: s["variants"][1]["edits"][0].update(value="high"),
     "variant low-at-1000: the edited scenario is bad input"),
    (lambda s: s.update(simulation={"speed": 2}), "simulation: unknown option 'speed'"),
    (lambda s: s.update(simulation={"until": "soon"}), "simulation until: 'soon' is not a"),
    (lambda s: s.update(simulation={"nodePressure": "yes"}), "must be true or false"),
    (lambda s: s.update(simulation={"seed": 3}), "unknown option 'seed'"),
    (lambda s: s.update(simulation={"autoscale": {"expander": "cheapest"}}),
     "simulation options: "),
    (lambda s: s.update(simulation={"autoscale": {"scanInterval": "often"}}),
     "simulation autoscale scanInterval: 'often' is not a duration"),
    (lambda s: s.update(simulation={"autoscale": {"colour": 1}}),
     "simulation autoscale: unknown option 'colour'"),
    (lambda s: s["variants"][0].update(simulation={"queue": "lifo"}),
     "variant today: simulation options: --queue must be one of 1.36, classic, fifo"),
    (lambda s: s.update(grid={"a": {"edit": {"op": "replace"}, "values": [1]}}),
     "axis a: edit 1: an edit needs the kind"),
    (lambda s: s.update(grid={"a": [{"name": "x"}, {"name": "x"}]}),
     "axis a: level 'x' appears twice"),
])
def test_bad_sweep_files_name_file_and_variant(tmp_path: Path, change, message: str) -> None:
    text = _bad(tmp_path, change)
    assert text.startswith(str(tmp_path / "sweep.yaml"))
    assert message in text


def test_cli_bad_input_is_one_line_and_status_2(tmp_path: Path, capsys) -> None:
    sweep = copy.deepcopy(SWEEP)
    sweep["variants"][1]["edits"][0]["name"] = "lowest"
    path = write_sweep(tmp_path, sweep)
    assert main(["sweep", str(path), "-j", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "variant low-at-1000" in err and "Traceback" not in err
    assert not (tmp_path / "sweep.results.jsonl").exists()  # nothing ran


def test_parse_rejects_non_mapping() -> None:
    with pytest.raises(InputError, match="one mapping"):
        parse_sweep(["a"], "s.yaml")
