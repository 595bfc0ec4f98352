"""Discrete-event simulator: the scheduler and kubelet playing a scenario over time.

* :mod:`.scenario` — scenario files and their timing annotations.
* :mod:`.kernel` — simulated time and the ordered events.
* :mod:`.world` — the cluster over time and the verbs that change it.
* :mod:`.actors` — the hooks the world calls; :mod:`.scheduler_driver` (kube-scheduler and
  its queue, :mod:`kubepreempt.scheduler.queue`), :mod:`.kubelet`, :mod:`.controllers`,
  :mod:`.autoscaler` and the Kueue actor implement them.
* :mod:`.pod_groups` — PodGroups over time (Kubernetes 1.37): whether they are played,
  their arrivals, members and metrics; the scheduler driver runs their group cycles.
* :mod:`.engine` — :class:`Simulator`: the kernel, the world and the actors of one run.
* :mod:`.metrics` — events, per-pod records, summaries.
* :mod:`.report` — the self-contained HTML report.
"""

from kubepreempt.sim.engine import SimResult, Simulator, simulate
from kubepreempt.sim.scenario import Scenario, build_scenario, load_scenario, parse_duration

__all__ = ["Scenario", "SimResult", "Simulator", "build_scenario", "load_scenario",
           "parse_duration", "simulate"]
