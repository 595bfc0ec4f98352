"""kubectl habits and first-use hints every command shares (kubepreempt.cli_common)."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import typer.main
import yaml

from kubepreempt import __version__
from kubepreempt.cli import _register_commands, app, main
from kubepreempt.cli_common import DEFAULT_SEED, loading
from kubepreempt.scheduler.preemption.pick import ONLY_CANDIDATE, CandidateMetrics, pick_one_node

ROOT = Path(__file__).resolve().parents[1]
BASIC = str(ROOT / "examples" / "basic")
WHATIF = ROOT / "examples" / "whatif"
_register_commands([])  # commands register lazily; the checks below need them all
COMMANDS = typer.main.get_command(app).commands
assert len(COMMANDS) >= 8


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_and_short_help(capsys) -> None:
    assert run(capsys, "--version") == (0, f"{__version__}\n", "")
    code, out, _ = run(capsys, "schedule", "-h")
    assert code == 0 and "--namespace" in out


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if n != "version"))
def test_every_command_has_the_one_output_vocabulary(name: str) -> None:
    opts = {o: p for p in COMMANDS[name].params for o in p.opts}
    assert opts["-o"] is opts["--output"]
    assert opts["-o"].metavar in ("table|json|yaml", "table|json|yaml|wide")
    assert opts["-o"].default == "table"


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS
                                        if any("--seed" in p.opts for p in COMMANDS[n].params)))
def test_seed_defaults_to_the_fixed_seed(name: str) -> None:
    seed = next(p for p in COMMANDS[name].params if "--seed" in p.opts)
    assert seed.default == DEFAULT_SEED and seed.show_default is not False


def test_bad_output_format_is_a_usage_error(capsys) -> None:
    code, out, err = run(capsys, "evict-rank", BASIC, "--node", "node-a", "-o", "text")
    assert code == 2 and out == "" and "table, json, yaml" in err


def test_namespace_flag_resolves_a_bare_pod_name(capsys) -> None:
    code, out, _ = run(capsys, "schedule", BASIC, "--pod", "checkout", "-n", "shop", "-o", "json")
    assert code == 0 and json.loads(out)["pod"] == "shop/checkout"


def test_yaml_output_is_the_json_object(capsys) -> None:
    _, as_json, _ = run(capsys, "schedule", BASIC, "--pod", "shop/checkout", "-o", "json")
    _, as_yaml, _ = run(capsys, "schedule", BASIC, "--pod", "shop/checkout", "-o", "yaml")
    assert yaml.safe_load(as_yaml) == json.loads(as_json)


@pytest.mark.parametrize(("pod", "message"), [
    ("checkout", "--pod default/checkout: no such pod in the input (did you mean "
                 "shop/checkout?)"),
    ("shop/chekout", "--pod shop/chekout: no such pod in the input (did you mean "
                     "shop/checkout?)"),
    ("shop/zzz", "--pod shop/zzz: no such pod in the input"),
    ("a/b/c", "--pod a/b/c: expected NAME or NAMESPACE/NAME"),
    ("shop/", "--pod shop/: expected NAME or NAMESPACE/NAME"),
])
def test_pod_name_mistakes_get_a_hint(capsys, pod: str, message: str) -> None:
    code, out, err = run(capsys, "schedule", BASIC, "--pod", pod)
    assert (code, out, err) == (2, "", f"error: {message}\n")


def test_a_workload_given_as_pod_points_at_schedule_f(capsys) -> None:
    code, _, err = run(capsys, "schedule", str(WHATIF / "cluster.yaml"),
                       str(WHATIF / "web.yaml"), "--pod", "shop/web")
    assert code == 2
    assert "shop/web: this is a Deployment, not a pod" in err and "schedule -f" in err
    # The one line names where that object was read, as every input error does.
    [line] = [x for x in err.splitlines() if x.startswith("error:")]
    assert "web.yaml, document 1" in line


def test_every_result_has_the_same_keys(capsys) -> None:
    _, out, _ = run(capsys, "schedule", str(ROOT / "examples" / "scheduler-config" /
                                             "cluster.yaml"), "--pod", "web", "-o", "json")
    got = json.loads(out)
    assert got["result"] == "scheduled"
    assert (got["pdbViolations"], got["clearedNominations"], got["message"]) == (0, [], "")
    assert got["seed"] == DEFAULT_SEED


def test_status_codes_upstream_spelling_in_json_short_in_tables(capsys) -> None:
    _, out, _ = run(capsys, "schedule", BASIC, "--pod", "shop/checkout", "-o", "json",
                    "--explain")
    codes = {n: s["code"] for n, s in json.loads(out)["nodes"].items()}
    # node-gpu's taint: TaintToleration's UnschedulableAndUnresolvable; the others lack cpu.
    assert codes == {"node-a": "Unschedulable", "node-b": "Unschedulable",
                     "node-gpu": "UnschedulableAndUnresolvable"}
    _, table, _ = run(capsys, "schedule", BASIC, "--pod", "shop/checkout", "--explain")
    gpu = next(line for line in table.splitlines() if line.startswith("node-gpu  Taint"))
    assert "Unresolvable" in gpu and "UnschedulableAndUnresolvable" not in gpu


def test_explain_groups_nodes_by_reason_beyond_max_rows(capsys) -> None:
    _, out, _ = run(capsys, "schedule", BASIC, "--pod", "shop/checkout", "--explain",
                    "--max-rows", "1")
    assert "Filters: 0/3 nodes are available: 1 node(s) had untolerated taint(s), " \
           "2 Insufficient cpu." in out
    assert "Nodes that did not fit (3), grouped by reason" in out
    # The biggest group (2 nodes, Insufficient cpu) is the one row shown.
    assert "node-a, node-b" in out and "... 1 more reasons" in out
    assert "... 1 more candidates" in out


def test_a_single_candidate_is_not_decided_by_a_tie_break() -> None:
    one = CandidateMetrics(*(np.array([v]) for v in (0, 100, 100, 1, 5.0)), np.array([0]))
    assert pick_one_node(one) == (0, ONLY_CANDIDATE)
    two = CandidateMetrics(*(np.array([v, v]) for v in (0, 100, 100, 1, 5.0)),
                           np.array([1, 0]))
    assert pick_one_node(two) == (1, "first node by name")


def test_piped_output_never_wraps_a_message(capsys, monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    _, out, _ = run(capsys, "schedule", str(ROOT / "examples" / "scheduler-config" /
                                             "cluster.yaml"), "--pod", "urgent",
                    "--scheduler-config",
                    str(ROOT / "examples" / "scheduler-config" / "no-preemption.yaml"))
    assert out == ("default/urgent cannot be scheduled: 0/2 nodes are available: 2 "
                   "Insufficient cpu. no new claims to deallocate\n")


def test_same_command_same_answer_without_seed(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    args = ("simulate", "examples/sim/busy-day.yaml", "-o", "json", "--until", "10m")
    first = json.loads(run(capsys, *args)[1])
    second = json.loads(run(capsys, *args)[1])
    other = json.loads(run(capsys, *args, "--seed", "7")[1])
    assert first == second and first["seed"] == DEFAULT_SEED
    assert other["seed"] == 7 and other["events"] != first["events"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("output", "seconds", "shown"), [
    ("table", 0.6, True),    # a slow load in a terminal: a spinner once the delay passed
    ("table", 0.0, False),   # a fast one: nothing
    ("json", 0.6, False),    # data output: never
])
def test_slow_loads_show_a_spinner_on_stderr(monkeypatch, output, seconds, shown) -> None:
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    with loading("reading the cluster", output, delay=0.2):
        time.sleep(seconds)
    assert ("reading the cluster" in err.getvalue()) is shown


def test_every_name_option_checks_its_format(capsys) -> None:
    code, _, err = run(capsys, "kueue", str(ROOT / "examples" / "kueue" / "classic.yaml"),
                       "--workload", "a/b/c")
    assert (code, err) == (2, "error: --workload a/b/c: expected NAME or NAMESPACE/NAME\n")


def test_namespace_flag_for_kubelet_admit(capsys) -> None:
    code, out, _ = run(capsys, "kubelet-admit",
                       str(ROOT / "examples" / "kubelet" / "critical-admission.yaml"),
                       "--pod", "static-agent", "-n", "kube-system", "--node", "worker-1",
                       "-o", "json")
    assert code == 0 and json.loads(out)["pod"] == "kube-system/static-agent"
