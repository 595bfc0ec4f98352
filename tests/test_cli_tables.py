"""Every table of every command, at 80 columns and piped: no name cut, no line too long.

The README promises "Tables fit the terminal (or COLUMNS) without cutting the names you
copy into the next command; piped, nothing is wrapped". Each command below runs twice on
the bundled examples: piped (no COLUMNS: nothing wraps) and at COLUMNS=80. Text may only
move at spaces between the two, so every word of the piped output (pod, node,
namespace/name, workload, PriorityClass and ClusterQueue names, column headers) must be
a whole word of the 80-column output too; and no 80-column line may be longer than 80.
"""

from __future__ import annotations

import io
import re
import textwrap
from pathlib import Path

import pytest
import typer.main

from kubepreempt.cli import _register_commands, main
from kubepreempt.text_table import TextTable

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def _many_victims(tmp: Path) -> str:
    """Three nodes, each full of twelve low-priority pods with long names, and a pending
    pod that needs a whole node: long victim lists on every preemption candidate."""
    docs = ["apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
            "metadata: {name: batch-low}\nvalue: 10\n"]
    for n in range(3):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: node-{n:04d}}}\n"
                    "status: {allocatable: {cpu: '12', memory: 48Gi, pods: '110'}}\n")
        for p in range(12):
            docs.append(
                "apiVersion: v1\nkind: Pod\nmetadata:\n"
                f"  name: nightly-report-worker-{n}-{p:02d}\n  namespace: batch\n"
                f"  creationTimestamp: '2024-05-01T0{n}:{p:02d}:00Z'\n"
                f"spec:\n  nodeName: node-{n:04d}\n  priorityClassName: batch-low\n"
                "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
                f"status: {{phase: Running, startTime: '2024-05-01T0{n}:{p:02d}:00Z'}}\n")
    docs.append("apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\n"
                "spec:\n  priority: 1000\n"
                "  containers: [{name: c, resources: {requests: {cpu: '12'}}}]\n")
    path = tmp / "many-victims.yaml"
    path.write_text("---\n".join(docs))
    return str(path)


def _small_sweep(tmp: Path) -> str:
    """The bundled sweep with two seeds (the 80-column check needs every table, not 30
    seeds' worth of statistics)."""
    text = (EX / "sweep" / "batch-priority.yaml").read_text()
    text = text.replace("scenario: cluster.yaml", f"scenario: {EX / 'sweep' / 'cluster.yaml'}")
    text = re.sub(r"^seeds: \d+", "seeds: 2", text, flags=re.M)
    path = tmp / "sweep.yaml"
    path.write_text(text)
    return str(path)


# (arguments, names the 80-column output must show whole); "{victims}" and "{sweep}" are
# files the test writes.
CASES = {
    "schedule": (["schedule", f"{EX}/basic", "--pod", "shop/checkout"],
                 ["shop/checkout", "jobs/batch-2", "node-b"]),
    "schedule --explain": (["schedule", f"{EX}/basic", "--pod", "shop/checkout", "--explain"],
                           ["jobs/batch-1", "node-gpu", "NodeResourcesFit", "earliest"]),
    "schedule --explain, long victim lists": (
        ["schedule", "{victims}", "--pod", "shop/big", "--explain"],
        ["node-0000", "node-0002", "batch/nightly-report-worker-2-11", "PDB", "viol.",
         "top", "prio", "sum", "count", "earliest", "start"]),
    "schedule --explain, scores": (["schedule", f"{EX}/scheduler-config/cluster.yaml", "--pod",
                                    "default/web", "--explain"],
                                   ["NodeResourcesBalancedAllocation", "TaintToleration",
                                    "total", "node-b"]),
    "schedule -f": (["schedule", f"{EX}/whatif/cluster.yaml", "-f", f"{EX}/whatif/web.yaml"],
                    ["batch/report-1", "Deployment/shop/web", "Pod/batch/report-1",
                     "batch-low"]),
    "schedule -f --explain": (["schedule", f"{EX}/whatif/cluster.yaml", "-f",
                               f"{EX}/whatif/train.yaml", "--explain"], ["Pod/ml/train"]),
    "advise": (["advise", f"{EX}/basic", "--pod", "shop/checkout"], ["web-medium"]),
    "advise -f": (["advise", f"{EX}/whatif/cluster.yaml", "-f", f"{EX}/whatif/train.yaml"],
                  ["TaintToleration", "NodeResourcesFit"]),
    "advise -f --node-like": (["advise", f"{EX}/whatif/cluster.yaml", "-f",
                               f"{EX}/whatif/web.yaml", "--node-like", "node-a"],
                              ["batch/report-1", "batch/etl-1"]),
    "kueue": (["kueue", f"{EX}/kueue/fair-sharing.yaml", "--workload", "team-c/c-new"],
              ["team-b/b5", "team-b", "InCohortReclamation"]),
    "kueue --explain": (["kueue", f"{EX}/kueue/classic.yaml", "--workload", "team-a/training",
                         "--explain"], ["team-b/b-job-2", "default-flavor", "ClusterQueue"]),
    "kubelet-admit": (["kubelet-admit", f"{EX}/kubelet/critical-admission.yaml", "--pod",
                       "kube-system/static-agent", "--node", "worker-1"],
                      ["default/guaranteed", "default/high-request-guaranteed"]),
    "evict-rank": (["evict-rank", f"{EX}/kubelet/seed-2gb-after.yaml", "--node", "node-2gb"],
                   ["priority", "default/best-effort", "default/high"]),
    "simulate": (["simulate", f"{EX}/sim/design-doc-example-4.yaml"],
                 ["PriorityClass", "critical-batch", "default/c"]),
    "simulate --autoscale": (["simulate", f"{EX}/sim/overprovisioning.yaml", "--autoscale",
                              "--max-rows", "40"],
                             ["pool-a", "pool-b", "kube-system/overprovisioning-5bb79fcb77-8st45",
                              "node-hours"]),
    "simulate, Kueue": (["simulate", f"{EX}/sim/kueue-flapping.yaml", "--max-rows", "20"],
                        ["team-p", "team-q", "7190.4", "q/job-q-train"]),
    "simulate, Kueue reclaim": (["simulate", f"{EX}/sim/kueue-reclaim.yaml", "--max-rows", "30"],
                                ["team-a", "team-b/job-b1"]),
    "sweep": (["sweep", "{sweep}", "--no-progress", "-j", "1"],
              ["priority=1000,", "policy=preempt", "totalWorkLost", "utilization.cpuMean"]),
    "bench --list": (["bench", "--list"],
                     ["SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods",
                      "kueue-large-scale"]),
}


def _run(capsys, monkeypatch, args: list[str], columns: str | None) -> str:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _words(text: str) -> set[str]:
    """Whole words (also without a trailing ``:``, ``,`` or ``;``: a moved column's
    ``header:`` label counts as its header's words)."""
    words = set(text.split())
    return words | {w.rstrip(":,;") for w in words}


@pytest.mark.parametrize("case", list(CASES))
def test_every_table_fits_80_columns_without_cutting_a_name(capsys, monkeypatch, tmp_path,
                                                            case) -> None:
    template, names = CASES[case]
    files = {"{victims}": lambda: _many_victims(tmp_path),
             "{sweep}": lambda: _small_sweep(tmp_path)}
    args = [files[a]() if a in files else a for a in template]
    if case == "sweep":  # the second run reads the first's results: the same figures
        args += ["--results", str(tmp_path / "results.jsonl")]
    piped = _run(capsys, monkeypatch, args, None)
    narrow = _run(capsys, monkeypatch, args, "80")

    # piped: one line per row, no padding after the last cell
    assert not [line for line in piped.splitlines() if line != line.rstrip()]
    # at 80 columns: nothing wider, nothing cut, no box drawing
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert not re.search("[─━│┃┏┓└┘┡┩…]", narrow)
    narrow_words = _words(narrow)
    piped_words = set(piped.split())
    if case == "sweep":  # the run line differs: runs now vs from the results file
        piped_words -= set(piped.splitlines()[-1].split())
    assert piped_words - narrow_words == set()
    assert set(names) <= narrow_words


def test_schedule_explain_keeps_the_tie_break_columns_and_moves_the_victims(
        capsys, monkeypatch, tmp_path) -> None:
    out = _run(capsys, monkeypatch, ["schedule", _many_victims(tmp_path), "--pod", "shop/big",
                                     "--explain"], "80")
    table = out[out.index("Preemption candidates"):out.index("Chosen:")].splitlines()
    assert table[1].split() == ["node", "PDB", "viol.", "top", "prio", "prio", "sum", "count",
                                "earliest", "start"]
    # node-0000's twelve victims, listed under its row, cut only at ", "
    assert table[2].split()[:6] == ["node-0000", "0", "10", "120", "12", "2024-05-01"]
    assert table[3].startswith("  victims: batch/nightly-report-worker-0-00, ")
    listed = " ".join(line.strip() for line in table[3:table.index(next(
        line for line in table[3:] if line.startswith("node-0001")))])
    assert listed == "victims: " + ", ".join(f"batch/nightly-report-worker-0-{p:02d}"
                                             for p in range(12))


def _text_start(line: str) -> int:
    """Where a help line's text starts (after a panel's border and a required ``*``)."""
    return len(line) - len(line.lstrip(" │*"))


def _is_hard_break(previous: str, line: str, columns: int) -> bool:
    """``line`` continues ``previous`` (the same text column: the description, or an
    option's or command's help in a panel) although its first word would have fitted at
    the end of ``previous``: a line break the docstring put there."""
    start, before = _text_start(line), _text_start(previous)
    if not line.strip(" │") or start >= len(previous) or previous[start] in " │" \
            or previous[start - 1] not in " │" or line[start] == "[":
        return False  # ([default: ...] and [required] are typer's, kept whole)
    in_panel = line.startswith("│")
    if (before >= start) if in_panel else (before != start):
        return False  # a new row of the panel, or not the same paragraph
    right = previous.rstrip().rfind("│") if in_panel else columns
    end = len(previous[:right].rstrip())
    return end + 1 + len(line[start:].split()[0]) < right - 1


@pytest.mark.parametrize("columns", [80, 200])
def test_help_text_reflows_instead_of_breaking_mid_sentence(capsys, monkeypatch,
                                                            columns) -> None:
    _register_commands([])
    from kubepreempt.cli import app

    monkeypatch.setenv("COLUMNS", str(columns))
    names = sorted(typer.main.get_command(app).commands)
    for args in ([], *([name] for name in names)):
        assert main([*args, "-h"]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        breaks = [(a, b) for a, b in zip(lines, lines[1:], strict=False)
                  if b.strip(" │") and _is_hard_break(a, b, columns)]
        assert breaks == [], (args, breaks)
    # at 200 columns every command's summary is one line of the command list
    if columns == 200:
        assert main(["-h"]) == 0
        listing = capsys.readouterr().out
        for name, command in typer.main.get_command(app).commands.items():
            summary = " ".join((command.help or "").split("\n\n")[0].split())
            assert summary and summary in listing, name


def test_a_workload_with_no_replicas_says_so(capsys, monkeypatch, tmp_path) -> None:
    web = (EX / "whatif" / "web.yaml").read_text()
    zero = tmp_path / "z.yaml"
    zero.write_text(web.replace("replicas: 5", "replicas: 0").replace(
        "metadata: {name: web, namespace: shop}", "metadata: {name: z, namespace: shop}", 1))
    cluster = str(EX / "whatif" / "cluster.yaml")
    out = _run(capsys, monkeypatch, ["schedule", cluster, "-f", str(zero)], None)
    assert out == "Deployment/shop/z has replicas: 0; nothing to place\n"
    # with other workloads: their table, and the note
    out = _run(capsys, monkeypatch, ["schedule", cluster, "-f", str(zero), "-f",
                                     str(EX / "whatif" / "train.yaml")], None)
    assert "ml/train" in out and "Deployment/shop/z has replicas: 0; nothing to place" in out
    # advise has nothing to advise on: the same words, as an input error
    assert main(["advise", cluster, "-f", str(zero)]) == 2
    assert capsys.readouterr().err == ("error: Deployment/shop/z has replicas: 0; nothing "
                                       "to place\n")


def test_a_malformed_kubeconfig_is_one_line_saying_where(capsys, tmp_path) -> None:
    config = tmp_path / "config"
    config.write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Config
        current-context: x
          users: []
        """))
    assert main(["schedule", "--cluster", "--kubeconfig", str(config), "--pod", "a"]) == 2
    assert capsys.readouterr().err == (f"error: {config}: line 4, column 8: mapping values "
                                       "are not allowed here\n")


def test_a_misspelt_kubepreempt_annotation_names_the_close_one(capsys, tmp_path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata: {name: n}
        status: {allocatable: {cpu: '1', pods: '10'}}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          annotations: {kubepreempt.io/duraton: 5m}
        spec:
          containers: [{name: c, resources: {requests: {cpu: '1'}}}]
        """))
    assert main(["simulate", str(scenario), "-o", "json"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"warning: {scenario}, document 2: ")
    assert ("unknown annotation kubepreempt.io/duraton, ignored (did you mean "
            "kubepreempt.io/duration?)") in err


def _render(table: TextTable, width: int) -> str:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(table)
    return out.getvalue()


def test_a_table_wraps_at_spaces_then_moves_what_cannot_fit_under_its_row() -> None:
    table = TextTable("node", "victims", "count")
    table.add_row("node-0199", "batch/report-1, batch/report-22, batch/report-333", "3")
    assert _render(table, 200) == (
        "node       victims                                            count\n"
        "node-0199  batch/report-1, batch/report-22, batch/report-333  3\n")
    # 40 columns: the victims wrap after a comma, never inside a name
    assert _render(table, 40) == (
        "node       victims                 count\n"
        "node-0199  batch/report-1,         3\n"
        "           batch/report-22,\n"
        "           batch/report-333\n")
    # 30: the longest victim, the node and the count do not fit side by side
    assert _render(table, 30) == (
        "node       count\n"
        "node-0199  3\n"
        "  victims: batch/report-1,\n"
        "    batch/report-22,\n"
        "    batch/report-333\n")


def test_a_misspelt_annotation_on_a_pod_template_is_named_too(capsys, tmp_path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata: {name: n}
        status: {allocatable: {cpu: '4', pods: '10'}}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec:
          replicas: 1
          selector: {matchLabels: {app: d}}
          template:
            metadata:
              labels: {app: d}
              annotations: {kubepreempt.io/duraton: 5m}
            spec:
              containers: [{name: c, resources: {requests: {cpu: '1'}}}]
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: gated
          annotations: {kubepreempt.io/ungate-after: 30s}
        spec:
          schedulingGates: [{name: example.com/wait}]
          containers: [{name: c, resources: {requests: {cpu: '1'}}}]
        """))
    assert main(["simulate", str(scenario), "-o", "json"]) == 0
    warnings = capsys.readouterr().err.splitlines()
    # the template's typo is named; ungate-after, which the simulator reads, is not
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {scenario}, document 2: ")
    assert warnings[0].endswith("unknown annotation kubepreempt.io/duraton, ignored (did you "
                                "mean kubepreempt.io/duration?)")
