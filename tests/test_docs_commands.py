"""Every shell command printed in README.md and docs/*.md works as printed.

A command is a line of a fenced ``bash``/``console``/``sh`` (or unlabelled) block that
starts with ``kubepreempt``, ``.venv/bin/``, ``python`` or ``kubectl``, or follows ``$ ``.
Placeholders (``cluster.yaml``, ``team-a/new-job``...) are mapped to bundled examples; the
few commands that cannot run here are listed in :data:`NOT_RUN` with the reason, and the
long benchmarks run at a tiny scale (:data:`SCALED`). A command the docs show output for
(``$ cmd`` followed by lines) must print that output: every shown line, in order, box
characters and runs of spaces ignored, ``...`` standing for omitted text.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent
SHELL_LANGS = {"bash", "console", "sh", "shell", ""}
PROGRAMS = ("kubepreempt", ".venv/bin/", "python", "kubectl")

# Placeholder -> bundled example, applied in order to every command.
SUBSTITUTIONS: list[tuple[str, str]] = [
    ("cluster.yaml --pod team-a/new-job", "examples/basic --pod shop/checkout"),
    ("cluster.yaml -f web-deployment.yaml",
     "examples/whatif/cluster.yaml -f examples/whatif/web.yaml"),
    ("--node-like node-1", "--node-like node-a"),
    ("cluster.yaml --pod team-a/job", "examples/scheduler-config/cluster.yaml --pod web"),
    ("--scheduler-config scheduler-config.yaml",
     "--scheduler-config examples/scheduler-config/bin-packing.yaml"),
    ("scenario.yaml", "examples/sim/design-doc-example-4.yaml"),
    ("kueue-config.yaml", "examples/kueue/classic.yaml"),
    ("-f new-deployment.yaml", "-f examples/whatif/web.yaml"),
    ("--report busy-day.html", "--report {tmp}/busy-day.html"),
    ("--report kueue.html", "--report {tmp}/kueue.html"),
    ("-o docs/scaling.png", "-o {tmp}/scaling.png"),  # never overwrite the committed figure
    ("--report sweep.html", "--report {tmp}/sweep.html"),
    ("--report batch-priority.html", "--report {tmp}/batch-priority.html"),
]

# Commands that are not run, with the reason (nothing is skipped silently).
NOT_RUN = {
    "python3 -m venv .venv": "the set-up itself: .ci/run performs it before the suite",
    ".venv/bin/python -m pip install -q -e '.[test]'": "the set-up: .ci/run performs it",
    ".venv/bin/python -m pytest -q": "the test suite itself (CI runs exactly this)",
    ".venv/bin/python -m pytest -q -m fuzz": "the long fuzz run (docs/TESTING.md): over "
    "10,000 cases, run on its own",
    "kubectl get nodes,pods,pdb,priorityclasses,namespaces,runtimeclasses,services,"
    "replicasets,statefulsets,replicationcontrollers -A -o yaml > cluster.yaml":
        "needs a live cluster; the placeholders of the next commands stand for its output",
}

# Commands that read a live cluster (docs/LIVE.md) cannot run here: the same command line
# with --help must parse (every option exists) — the live tests cover their behaviour.
LIVE = re.compile(r"--cluster\b|--context\b|--kubeconfig\b|^kubectl preempt |"
                  r"^kubepreempt watch\b")

# Long-running commands: run at a tiny scale (these flags appended); printed timings
# are not compared.
SCALED = {
    ".venv/bin/python benchmarks/bench_schedule.py": "--nodes 30 --pods 100 --decisions 5",
    ".venv/bin/python benchmarks/bench_whatif.py": "--nodes 30 --pods 100 --replicas 5",
    ".venv/bin/python benchmarks/bench_simulate.py --queue classic": "--scale 0.001 --hours 0.5",
    ".venv/bin/python benchmarks/profile_workload.py TopologySpreading/5000Nodes_5000Pods":
        "--scale 0.002 --top 3",
    ".venv/bin/python benchmarks/scaling_curve.py -o docs/scaling.png": "--sizes 20",
    ".venv/bin/python benchmarks/bench_sweep.py": "--seeds 1 --jobs 1",
    ".venv/bin/python benchmarks/kueue_fingerprint.py kueue-large-scale --cohorts 2":
        "--queues 4",
    ".venv/bin/python benchmarks/bench_workloads.py":
        "--runs 1 --scale 0.004 --only TopologySpreading/5000Nodes_5000Pods",
    "kubepreempt bench SchedulingBasic/5000Nodes_10000Pods --scheduler-config "
    "scheduler-config.yaml": "--scale 0.005 --no-progress",
}


@dataclass
class Command:
    doc: str
    line: int
    text: str  # as printed (continuations joined)
    output: list[str]  # the output the doc shows, if any


def _commands(path: Path) -> list[Command]:
    out: list[Command] = []
    lines = path.read_text().splitlines()
    i = 0
    previous: tuple[int, list[Command]] = (-10, [])  # end line, commands of the last block
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        i += 1
        block: list[tuple[int, str]] = []
        while i < len(lines) and not lines[i].startswith("```"):
            block.append((i + 1, lines[i]))
            i += 1
        i += 1
        if lang not in SHELL_LANGS:
            continue
        if (lang == "" and start - previous[0] <= 3 and len(previous[1]) == 1
                and not any(text.startswith(PROGRAMS) for _, text in block)):
            # An unlabelled block right after a one-command block: that command's output.
            previous[1][0].output = [text for _, text in block]
            continue
        first = len(out)
        prompt = any(text.startswith("$ ") for _, text in block)
        j = 0
        while j < len(block):
            num, text = block[j]
            j += 1
            if prompt and not text.startswith("$ "):
                continue
            text = text[2:] if prompt else text
            if not text.startswith(PROGRAMS):
                continue
            while text.endswith("\\") and j < len(block):
                text = text[:-1].rstrip() + " " + block[j][1].strip()
                j += 1
            shown: list[str] = []
            if prompt:
                while j < len(block) and not block[j][1].startswith("$ "):
                    shown.append(block[j][1])
                    j += 1
            text = re.sub(r"\s+#\s.*$", "", text).strip()  # a trailing comment
            for part in text.split(" && "):
                out.append(Command(f"{path.relative_to(ROOT)}:{num}", start, part.strip(),
                                   shown))
        previous = (i, out[first:])
    return out


ALL = [c for doc in DOCS for c in _commands(doc)]


def test_the_docs_have_commands() -> None:
    # The extraction itself: the README's first command and the simulator guide's.
    texts = {c.text for c in ALL}
    assert ".venv/bin/kubepreempt schedule examples/basic --pod shop/checkout --explain" in texts
    assert "kubepreempt simulate examples/sim/design-doc-example-4.yaml" in texts
    assert set(NOT_RUN) <= texts and set(SCALED) <= texts  # no stale entries
    # Every benchmark in the docs runs at a tiny scale here (a full one takes minutes).
    assert {t for t in texts if "benchmarks/" in t or " bench " in f" {t}"} <= \
        set(SCALED) | set(NOT_RUN)


def _normalise(text: str) -> str:
    text = re.sub(r"[│┃┏┓┗┛┡┩└┘┌┐━─┳┻╇┼┴┬╈═╍]", " ", text)
    return re.sub(r"[ \t]+", " ", text)


def _pairs(obj: object, out: list[tuple[str, object]]) -> list[tuple[str, object]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append((k, v))
            _pairs(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _pairs(v, out)
    return out


_SHOWN_PAIR = re.compile(r'"(\w+)": ("[^"]*"|-?[\d.]+|true|false|null|\[[^\[\]]*\])')


def _check_json_output(shown: str, actual: str) -> None:
    """Every ``"key": value`` the doc shows (lists and scalars) is in the output."""
    pairs = _pairs(json.loads(actual), [])
    checked = 0
    for key, value in _SHOWN_PAIR.findall(shown):
        if "..." in value:
            continue
        assert (key, json.loads(value)) in pairs, f"shown {key}: {value} not in {actual}"
        checked += 1
    assert checked, "no key of the shown JSON checked"


def _check_output(shown: list[str], actual: str) -> None:
    if shown and shown[0].startswith("{"):
        _check_json_output("\n".join(shown), actual)
        return
    lines = [ln.strip() for ln in _normalise(actual).splitlines()]
    body = "\n".join(ln for ln in lines if ln)
    pos = 0
    for want in shown:
        for frag in _normalise(want).split("..."):
            frag = frag.strip()
            if not frag:
                continue
            found = body.find(frag, pos)
            assert found >= 0, f"shown output not printed (in order): {frag!r}\n--- got:\n{body}"
            pos = found + len(frag)


def _run(text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run a command line: ``kubepreempt ...`` in-process (no interpreter start-up per
    command keeps the suite fast), anything else through bash."""
    if text.startswith("kubepreempt ") and not re.search(r"[|<>;&$`]", text):
        from kubepreempt.cli import main

        capsys.readouterr()
        code = main(shlex.split(text)[1:])
        out, err = capsys.readouterr()
        return code, out, err
    # As after `source .venv/bin/activate`: the venv's programs first on PATH.
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("COLUMNS", None)
    res = subprocess.run(["bash", "-c", text], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    return res.returncode, res.stdout, res.stderr


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.doc}" for c in ALL])
def test_documented_command_works_as_printed(cmd: Command, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if cmd.text in NOT_RUN:
        assert NOT_RUN[cmd.text]
        return
    text = cmd.text
    live = bool(LIVE.search(text))
    if live:
        text = re.sub(r"^kubectl preempt ", "kubectl-preempt ", text) + " --help"
    if text in SCALED:
        text += " " + SCALED[text]
    for old, new in SUBSTITUTIONS:
        text = text.replace(old, new)
    text = text.replace("{tmp}", str(tmp_path)).replace(".venv/bin/", f"{VENV_BIN}/")
    text = re.sub(r"^python3? ", f"{sys.executable} ", text)
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, err = _run(text, capsys)
    assert code == 0, f"{cmd.doc}: {cmd.text}\n{err}"
    if cmd.output and cmd.text not in SCALED and not live:
        _check_output(cmd.output, out)


def test_readme_json_example_is_what_schedule_prints() -> None:
    readme = (ROOT / "README.md").read_text()
    shown = json.loads(readme.split("JSON output:\n\n```json\n", 1)[1].split("```", 1)[0])
    res = subprocess.run([str(VENV_BIN / "kubepreempt"), "schedule", "examples/basic",
                          "--pod", "shop/checkout", "-o", "json"], cwd=ROOT,
                         capture_output=True, text=True)
    assert json.loads(res.stdout) == shown


def test_simulator_json_example_is_what_example_4_prints() -> None:
    guide = (ROOT / "docs" / "SIMULATOR.md").read_text()
    shown = guide.split("-o json`; `tests/test_docs_commands.py`", 1)[1]
    shown = shown.split("```json\n", 1)[1].split("```", 1)[0]
    res = subprocess.run([str(VENV_BIN / "kubepreempt"), "simulate",
                          "examples/sim/design-doc-example-4.yaml", "-o", "json"], cwd=ROOT,
                         capture_output=True, text=True)
    _check_json_output(shown, res.stdout)
