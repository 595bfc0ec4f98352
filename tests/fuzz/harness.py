"""Run one fuzz case: mutate an example input of a command and run the CLI in-process.

A case passes when the command either decides (exit 0, one JSON object on stdout) or
rejects the input (exit 2, exactly one ``error:`` line on stderr naming the file), within a
time limit. Anything else (exit 1, a traceback, several lines, a hang) is a failure.
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml
from mutations import mutate

from kubepreempt.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Seconds of wall time per case; the slowest example takes ~0.3 s. Simulations run with a
# 20,000-event limit: a far-future arrival means millions of queue flushes, which the
# simulator bounds with its (overridable) event limit rather than running for hours.
TIME_LIMIT = 10.0

WHATIF = str(EXAMPLES / "whatif" / "cluster.yaml")
# (command, example file to mutate, arguments): every command, every example input. The
# mutated file comes first, or where "{file}" stands (a -f file of schedule / advise).
CASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("schedule", "basic/cluster.yaml", ("--pod", "shop/checkout")),
    ("schedule", "kubelet/seed-2gb-before.yaml", ("--pod", "default/high", "--explain")),
    ("kueue", "kueue/classic.yaml", ("--workload", "team-a/training")),
    ("kueue", "kueue/fair-sharing.yaml", ("--workload", "team-c/c-new", "--explain")),
    ("kubelet-admit", "kubelet/critical-admission.yaml",
     ("--pod", "kube-system/static-agent", "--node", "worker-1")),
    ("kubelet-admit", "kubelet/seed-2gb-before.yaml", ("--pod", "default/high", "--node",
                                                        "node-2gb")),
    ("evict-rank", "kubelet/seed-2gb-after.yaml", ("--node", "node-2gb")),
    ("evict-rank", "kubelet/seed-2gb-after.yaml", ("--node", "node-2gb", "--resource",
                                                    "ephemeral-storage")),
    ("simulate", "sim/design-doc-example-4.yaml", ("--max-events", "20000")),
    ("simulate", "sim/busy-day.yaml", ("--seed", "1", "--max-events", "20000")),
    ("schedule", "whatif/web.yaml", (WHATIF, "-f", "{file}")),
    ("schedule", "whatif/cluster.yaml", ("-f", str(EXAMPLES / "whatif" / "web.yaml"))),
    ("advise", "whatif/train.yaml", (WHATIF, "-f", "{file}", "--node-like", "node-a")),
    ("advise", "whatif/cluster.yaml", ("-f", str(EXAMPLES / "whatif" / "train.yaml"))),
    ("kueue", "kueue/hierarchical.yaml", ("--workload", "research/train")),
    ("simulate", "sim/busy-day-workloads.yaml", ("--autoscale", "--seed", "1",
                                                 "--max-events", "20000")),
    ("schedule", "scheduler-config/bin-packing.yaml",
     (str(EXAMPLES / "scheduler-config" / "cluster.yaml"), "--pod", "web",
      "--scheduler-config", "{file}")),
)
_DOCS: dict[str, list] = {}


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so the CLI's catch-all does not swallow it."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one case did."""

    seed: int
    command: str
    mutation: str
    code: int | str
    stdout: str
    stderr: str
    problem: str  # "" when the case passed


def example_docs(name: str) -> list:
    """The parsed documents of an example file (cached)."""
    if name not in _DOCS:
        _DOCS[name] = [d for d in yaml.safe_load_all((EXAMPLES / name).read_text()) if d]
    return _DOCS[name]


def _on_alarm(signum, frame):
    raise Hang()


def run_cli(args: list[str]) -> tuple[int | str, str, str]:
    """``kubepreempt ARGS`` in-process: (exit status or "hang", stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code: int | str = main(args)
    except Hang:
        code = "hang"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def check(code: int | str, stdout: str, stderr: str, path: str,
          others: tuple[str, ...] = ()) -> str:
    """Why the outcome breaks the contract ("" when it keeps it)."""
    if code == 0:
        try:
            obj = orjson.loads(stdout)
        except orjson.JSONDecodeError:
            return "exit 0 without one JSON object on stdout"
        return "" if isinstance(obj, dict) else "exit 0 but stdout is not a JSON object"
    if code != 2:
        return f"exit {code}"
    lines = [line for line in stderr.splitlines() if not line.startswith("warning: ")]
    if len(lines) != 1:
        return f"exit 2 with {len(lines)} error lines"
    if not lines[0].startswith("error: "):
        return "exit 2 without an 'error:' line"
    # The error names the mutated file, or another input file (a new pod of `-f` may name
    # a PriorityClass the mutated cluster lost), or says the object named on the command
    # line is absent.
    if (path not in lines[0] and not any(o in lines[0] for o in others)
            and "in the input" not in lines[0]):
        return "exit 2 but the error does not name the file"
    return ""


def run_case(seed: int, tmp: Path) -> Outcome:
    """Fuzz case ``seed``: pick a command and example, mutate it, run it, check it."""
    rng = random.Random(seed)
    command, example, extra = CASES[seed % len(CASES)]
    mutation, data = mutate(example_docs(example), rng)
    path = tmp / f"case-{seed}.yaml"
    path.write_bytes(data)
    if "{file}" in extra:
        args = [command, *(str(path) if a == "{file}" else a for a in extra)]
    else:
        args = [command, str(path), *extra]
    code, stdout, stderr = run_cli([*args, "-o", "json"])
    others = tuple(a for a in extra if a.endswith(".yaml"))
    return Outcome(seed, command, mutation, code, stdout, stderr,
                   check(code, stdout, stderr, str(path), others))
