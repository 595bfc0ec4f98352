"""Input mistakes a first-time user makes get a one-line error or warning that says what
to do (exit status 2 for errors), never a traceback or a misleading message."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kubepreempt.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASIC = ROOT / "examples" / "basic"
EXAMPLE4 = ROOT / "examples" / "sim" / "design-doc-example-4.yaml"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_hidden_folders_are_skipped(capsys, tmp_path: Path) -> None:
    shutil.copytree(BASIC, tmp_path / "cluster")
    # A stale copy of the same objects under .git/ would otherwise be a duplicate object.
    shutil.copytree(BASIC, tmp_path / "cluster" / ".git" / "old")
    code, out, _ = run(capsys, "schedule", tmp_path / "cluster", "--pod", "shop/checkout",
                       "-o", "json")
    assert code == 0 and json.loads(out)["node"] == "node-b"


@pytest.mark.parametrize("make", ["empty file", "empty dir"])
def test_no_manifests_found_says_so(capsys, tmp_path: Path, make: str) -> None:
    target = tmp_path / "x.yaml"
    if make == "empty file":
        target.write_text("")
    else:
        target = tmp_path / "dir"
        target.mkdir()
    code, out, err = run(capsys, "schedule", target, "--pod", "a")
    assert (code, out) == (2, "")
    assert err == f"error: {target}: no Kubernetes objects found (empty input; directories " \
                  "are read for .yaml, .yml and .json files)\n"


def test_broken_json_is_reported_as_json(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "dump.json"
    bad.write_text('{"kind": "List", "items": [}')
    code, _, err = run(capsys, "schedule", bad, "--pod", "a")
    assert code == 2
    # orjson's wording after the position varies by release.
    assert err.startswith(f"error: {bad}: malformed JSON at line 1, column 28: ")
    assert err.count("\n") == 1


def test_the_same_file_twice_is_read_once(capsys) -> None:
    pods = BASIC / "cluster.yaml"
    assert pods.exists()
    code, out, _ = run(capsys, "schedule", BASIC, pods, "--pod", "shop/checkout", "-o", "json")
    assert code == 0 and json.loads(out)["victims"] == ["jobs/batch-2"]


def test_unknown_kubepreempt_annotation_is_a_warning(capsys, tmp_path: Path) -> None:
    text = EXAMPLE4.read_text().replace("kubepreempt.io/arrival", "kubepreempt.io/arival", 1)
    assert "kubepreempt.io/arival" in text
    scen = tmp_path / "s.yaml"
    scen.write_text(text)
    code, _, err = run(capsys, "simulate", scen, "-o", "json")
    assert code == 0
    assert "unknown annotation kubepreempt.io/arival, ignored (did you mean " \
           "kubepreempt.io/arrival?)" in err


def test_unwritable_report_is_a_one_line_error_after_the_output(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "simulate", EXAMPLE4, "--report",
                         tmp_path / "missing" / "r.html")
    assert code == 2
    assert "Summary per PriorityClass" in out and "Report written" not in out
    assert err == f"error: --report {tmp_path / 'missing' / 'r.html'}: cannot write: " \
                  "No such file or directory\n"


def test_bad_now_names_the_expected_format(capsys) -> None:
    code, _, err = run(capsys, "kueue", ROOT / "examples" / "kueue" / "classic.yaml",
                       "--workload", "team-a/training", "--now", "yesterday")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("error: --now yesterday: ") and "RFC 3339" in err
