"""``kubepreempt simulate``: JSON contract, table output, report, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kubepreempt.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sim"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_of_design_doc_example_4(capsys) -> None:
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "design-doc-example-4.yaml"),
                       "-o", "json", "--queue", "classic")
    assert code == 0
    data = json.loads(out)
    key = [(e["time"], e["type"], e["pod"], e["node"]) for e in data["events"]
           if e["type"] in ("preempted", "nominated", "nomination-cleared", "bound")]
    assert key == [(0.0, "preempted", "default/a", "node-1"),
                   (0.0, "preempted", "default/b", "node-1"),
                   (0.0, "nominated", "default/c", "node-1"),
                   (10.0, "nomination-cleared", "default/c", "node-1"),
                   (10.0, "nominated", "default/f", "node-1"),
                   (60.0, "bound", "default/f", "node-1")]
    f = data["pods"]["default/f"]
    assert (f["phase"], f["node"], f["boundAt"], f["preemptedAt"], f["nominatedNode"]) == \
        ("Running", "node-1", 60.0, None, None)
    c = data["pods"]["default/c"]
    assert (c["phase"], c["node"], c["nominatedNode"]) == ("Pending", None, None)
    assert data["pods"]["default/a"]["preemptedAt"] == 0.0
    assert data["metrics"]["classes"]["critical-batch"]["meanPending"] == 50.0
    assert data["metrics"]["classes"]["low"]["preempted"] == 2


def test_table_and_report(capsys, tmp_path: Path) -> None:
    report = tmp_path / "r.html"
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "busy-day.yaml"), "--seed", "1",
                       "--report", str(report), "--max-rows", "5")
    assert code == 0
    assert "Summary per PriorityClass" in out and "more events" in out
    page = report.read_text()
    # Self-contained: plotly.js inline (no <script src=>, no stylesheet links), one div
    # per chart; the in-browser checks are in test_report_browser.py.
    assert "<script src" not in page and "<link" not in page
    assert re.findall(r"id=\"(chart-[a-z-]+)\"", page) == [
        "chart-utilisation", "chart-pending", "chart-preemptions", "chart-gantt"]
    assert "urgent" in page


def test_fifo_and_until_options(capsys) -> None:
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "design-doc-example-4.yaml"),
                       "--queue", "fifo", "--until", "20s", "-o", "json")
    assert code == 0
    data = json.loads(out)
    assert data["queue"] == "fifo" and data["end"] == 20.0
    assert not [e for e in data["events"] if e["type"] == "nominated"]


def test_bad_input_is_one_line_exit_2(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
                   "    kubepreempt.io/duration: 3 days\nspec:\n  containers: [{name: c}]\n")
    code, _, err = run(capsys, "simulate", str(bad))
    assert code == 2
    assert err == (f"error: {bad}, document 1: Pod default/p: annotation kubepreempt.io/duration: "
                   "'3 days' is not a duration (use e.g. 90s, 15m, 2h or plain seconds)\n")
    code, _, err = run(capsys, "simulate", str(bad), "--until", "forever")
    assert code == 2 and err.count("\n") == 1
