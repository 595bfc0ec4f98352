"""Discrete-event simulator: the scheduler and kubelet playing a scenario over time.

* :mod:`.scenario` — scenario files and their timing annotations.
* :mod:`.queue` — activeQ / backoffQ / unschedulable pool (or the old FIFO).
* :mod:`.engine` — the heapq event loop that applies scheduling decisions.
* :mod:`.metrics` — events, per-pod records, summaries.
* :mod:`.report` — the self-contained HTML report.
"""

from kubepreempt.sim.engine import SimResult, Simulator, simulate
from kubepreempt.sim.scenario import Scenario, build_scenario, load_scenario, parse_duration

__all__ = ["Scenario", "SimResult", "Simulator", "build_scenario", "load_scenario",
           "parse_duration", "simulate"]
