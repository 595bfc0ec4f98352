"""``kubectl-preempt``: kubectl-style flags anywhere, --cluster added for cluster commands."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kubepreempt.kubectl_plugin import main as plugin_main
from kubepreempt.kubectl_plugin import rewrite


@pytest.mark.parametrize(("argv", "expected"), [
    (["schedule", "--pod", "a/b"], ["schedule", "--cluster", "--pod", "a/b"]),
    (["-n", "shop", "schedule", "--pod", "x"],
     ["schedule", "-n", "shop", "--cluster", "--pod", "x"]),
    (["--namespace=shop", "--context", "prod", "watch", "-o", "json"],
     ["watch", "--namespace", "shop", "--context", "prod", "--cluster", "-o", "json"]),
    (["-nshop", "--kubeconfig=/k", "kueue", "--workload", "w"],
     ["kueue", "-n", "shop", "--kubeconfig", "/k", "--cluster", "--workload", "w"]),
    (["schedule", "--cluster", "--pod", "a/b", "-n", "x"],
     ["schedule", "--cluster", "--pod", "a/b", "-n", "x"]),
    (["simulate", "scenario.yaml"], ["simulate", "scenario.yaml"]),  # no cluster there
    (["version"], ["version"]),
])
def test_rewrite(argv, expected) -> None:
    assert rewrite(argv) == expected


def test_plugin_matches_kubepreempt(apiserver, kubeconfig, capsys) -> None:
    from kubepreempt.cli import main

    assert main(["schedule", "--kubeconfig", str(kubeconfig), "--pod", "shop/checkout-0",
                 "-o", "json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert plugin_main(["-n", "shop", "--kubeconfig", str(kubeconfig), "schedule", "--pod",
                        "checkout-0", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == direct


def test_plugin_uses_the_current_context_by_default(apiserver, kubeconfig, capsys,
                                                    monkeypatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    assert plugin_main(["schedule", "--pod", "batch/etl-pending", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["pod"] == "batch/etl-pending"


def test_installed_as_a_kubectl_plugin() -> None:
    # pip installs the console script next to the interpreter; kubectl finds it on PATH.
    script = shutil.which("kubectl-preempt", path=str(Path(sys.executable).parent))
    assert script is not None
    out = subprocess.run([script, "--help"], capture_output=True, text=True, check=True)
    assert "Usage: kubectl preempt" in out.stdout
