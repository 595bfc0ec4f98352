"""Policy sweeps: many simulations of a scenario's variants and seeds, compared with CIs.

* :mod:`.spec` — sweep files: base scenario, variants (list and/or grid), seeds, ranking.
* :mod:`.edits` — JSON-Patch-like edits of the scenario's objects (plus ``count``).
* :mod:`.worker` — one (variant, seed) simulation, reduced to flat metrics.
* :mod:`.backends` — where runs execute: this process, a process pool, a Dask cluster.
* :mod:`.store` — the results file that makes an interrupted sweep resumable.
* :mod:`.stats` — mean, Student-t confidence interval, ranking.
* :mod:`.run` — plan, run what is missing, summarise.
* :mod:`.report` — the self-contained HTML comparison report.
"""

from kubepreempt.sweep.backends import DaskBackend, PoolBackend, SerialBackend, default_jobs
from kubepreempt.sweep.run import SweepResult, default_results_path, plan, run_sweep
from kubepreempt.sweep.spec import RankBy, SweepSpec, Variant, load_sweep, parse_sweep

__all__ = ["DaskBackend", "PoolBackend", "RankBy", "SerialBackend", "SweepResult",
           "SweepSpec", "Variant", "default_jobs", "default_results_path", "load_sweep",
           "parse_sweep", "plan", "run_sweep"]
