"""Fuzz every command with seeded mutations of its example inputs (see docs/TESTING.md).

The default run plays a few hundred cases; ``pytest -m fuzz`` plays ``KUBEPREEMPT_FUZZ_CASES``
(default 10,000). A case fails when the command neither decides (exit 0, one JSON object)
nor rejects the input in one ``error:`` line naming the file (exit 2) within the time limit.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness import CASES, run_case  # noqa: E402

QUICK_CASES = 300
FUZZ_CASES = int(os.environ.get("KUBEPREEMPT_FUZZ_CASES", "10000"))
FUZZ_SEED = int(os.environ.get("KUBEPREEMPT_FUZZ_SEED", "1000000"))


def _play(seeds: range, tmp_path: Path) -> None:
    failures = []
    outcomes: Counter[str] = Counter()
    for seed in seeds:
        out = run_case(seed, tmp_path)
        outcomes[f"{out.command} exit {out.code}"] += 1
        if out.problem:
            failures.append(f"seed {seed} {out.command} [{out.mutation}]: {out.problem}: "
                            f"{out.stderr.strip()[-300:]}")
        (tmp_path / f"case-{seed}.yaml").unlink(missing_ok=True)
    assert not failures, f"{len(failures)} of {len(seeds)} cases failed:\n" + "\n".join(
        failures[:30])
    # Every command was exercised, and the mutations were not all trivially fatal or inert.
    assert {c for c, _, _ in CASES} <= {k.split()[0] for k in outcomes}
    assert sum(n for k, n in outcomes.items() if k.endswith("exit 2")) > len(seeds) // 4
    assert sum(n for k, n in outcomes.items() if k.endswith("exit 0")) > len(seeds) // 20


def test_fuzz_quick(tmp_path: Path) -> None:
    """A few hundred cases on every run: each command, each example, each mutation."""
    _play(range(QUICK_CASES), tmp_path)


@pytest.mark.fuzz
def test_fuzz_long(tmp_path: Path) -> None:
    """The long run: at least 10,000 cases (``pytest -m fuzz``)."""
    _play(range(FUZZ_SEED, FUZZ_SEED + FUZZ_CASES), tmp_path)
