"""One (variant, seed) simulation, as run by any backend (in-process, pool or Dask worker)."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Mapping
from typing import Any

from kubepreempt import __version__
from kubepreempt.manifests import Documents
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sweep.stats import flatten

Payload = tuple[Documents, Mapping[str, Any]]  # a variant's edited scenario and its options


def run_one(payload: Payload, seed: int) -> dict[str, Any]:
    """Simulate one variant with one seed: ``{"metrics", "seconds"}`` or ``{"error"}``.

    Never raises: a failing run is reported as data so the other runs go on.
    """
    docs, options = payload
    started = time.perf_counter()
    try:
        # The sweep already showed build_scenario's "skipped kinds" warning once.
        with contextlib.redirect_stderr(io.StringIO()):
            scenario = build_scenario(docs, seed)
        # The seed also fixes what the simulator draws itself (controllers' pod names, the
        # autoscaler's random expander), as `simulate --seed` does.
        result = simulate(scenario, keep_timeline=False, seed=seed, **options)
    except Exception as exc:  # any failure is this run's, reported with variant and seed
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"}
    return {"metrics": flatten(result.metrics), "seconds": time.perf_counter() - started}


def environment() -> dict[str, str]:
    """What a worker runs (checked against the client's before a distributed sweep)."""
    import platform

    return {"kubepreempt": __version__, "python": platform.python_version()}
