"""Hypothesis profiles: derandomized by default, long and random for the fuzz run.

* ``ci`` (the default): ``derandomize=True`` and no example database, so a property test's
  verdict depends only on the code, never on the run, the machine or earlier failures.
* ``fuzz``: random examples, ``FUZZ_FACTOR`` times as many (see :func:`examples`), used by
  ``pytest -m fuzz`` or when ``KUBEPREEMPT_HYPOTHESIS_PROFILE=fuzz``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FUZZ_FACTOR = 10
PROFILE_ENV = "KUBEPREEMPT_HYPOTHESIS_PROFILE"

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("fuzz", derandomize=False, database=None, deadline=None,
                          print_blob=True, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])


def active_profile() -> str:
    """The profile this run uses: the environment's choice, else ``ci``."""
    return os.environ.get(PROFILE_ENV, "ci")


def examples(n: int) -> int:
    """``max_examples`` for a property test: ``n``, or ``FUZZ_FACTOR * n`` in the fuzz run."""
    return n * FUZZ_FACTOR if active_profile() == "fuzz" else n
