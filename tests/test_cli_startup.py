"""What a command loads at start-up: the CLI's share of `schedule`'s parse-speed budget.

Each case runs a fresh interpreter, as a user's shell does, and looks at ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "basic")


def modules_after(code: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}).stdout.strip()


def test_the_package_loads_the_engine_on_first_use() -> None:
    out = modules_after("import sys, kubepreempt; print('numpy' in sys.modules); "
                        "from kubepreempt import schedule, Decision; "
                        "print('numpy' in sys.modules, schedule.__module__, Decision.__name__)")
    assert out.splitlines() == ["False", "True kubepreempt.decide Decision"]


def test_the_cli_keeps_openblas_to_one_thread_unless_told_otherwise() -> None:
    code = "import os, kubepreempt.cli; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=env).stdout.strip()
    assert out == "1"
    assert modules_after(code, {"OPENBLAS_NUM_THREADS": "4"}) == "4"


def test_schedule_json_loads_no_yaml_kueue_simulator_or_workload_expansion(
        tmp_path: Path) -> None:
    docs = [d for f in sorted(Path(EXAMPLE).glob("*.yaml"))
            for d in yaml.safe_load_all(f.read_text()) if d]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"kind": "List", "items": docs}))
    code = ("import sys; from kubepreempt.cli import main; import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['schedule', {str(dump)!r}, '--pod', 'shop/checkout', '-o', 'json'])\n"
            "print(sorted(m for m in ('yaml', 'pydantic', 'kubepreempt.kueue', "
            "'kubepreempt.sim', 'kubepreempt.controllers.expand', 'kubepreempt.whatif.place')"
            " if m in sys.modules))")
    assert modules_after(code) == "[]"
