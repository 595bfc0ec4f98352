"""One scheduling attempt for the simulator, without the per-node reports.

Same algorithm and order as :func:`kubepreempt.decide.schedule` (nominated node first,
then every node, then DefaultPreemption), but it skips building the name-keyed status
and score maps that ``--explain`` needs: on 5,000 nodes those cost more than the decision.
It also uses the scheduler's incremental caches (``Scheduler.fast_pick``, the cached
filter statuses and ``PreemptionCache``), which refresh only the nodes whose pods changed
and give the same answers as the full evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.preemption import PreemptionResult, Preemptor
from kubepreempt.scheduler.scheduler import Scheduler, fit_error_message


@dataclass(slots=True)
class Attempt:
    """The outcome: ``node`` to bind to, or ``preemption`` (node None: unschedulable)."""

    node: str | None
    preemption: PreemptionResult | None = None
    message: str = ""


def attempt(sched: Scheduler, pod: Pod, now: float, explain: bool = True) -> Attempt:
    """Decide for ``pod``; ``explain`` adds upstream's fit-error message on failure."""
    cluster = sched.cluster
    state, prefilter, filters = sched.new_state(pod)
    n = len(cluster.nodes)
    if prefilter is not None:
        statuses: object = dict.fromkeys(range(n), prefilter)
        feasible = np.zeros(0, np.int64)
    else:
        feasible = None
        idx = cluster.node_index.get(pod.nominated_node_name)
        if idx is not None and sched.filter_with_nominated(
                state, cluster.node_view(idx), filters) is None:
            feasible = np.array([idx], np.int64)  # upstream tries the nominated node first
        statuses = {}
        if feasible is None:
            # The per-signature incremental cache gives the very node the full path would
            # pick (None when it does not apply or nothing fits: preemption needs statuses).
            best = sched.fast_pick(pod, state, filters)
            if best is not None:
                return Attempt(cluster.nodes[best].name)
            outcome = sched.find_feasible(pod, state, filters)
            feasible, statuses = outcome.feasible, outcome.statuses
    if feasible.size:
        best, _ = sched.select_host(state, feasible)
        return Attempt(cluster.nodes[best].name)
    # materialize=False: only the winning candidate is built, which lets DefaultPreemption
    # use its incremental PreemptionCache; the simulator needs no other candidate.
    result = Preemptor(sched, now=now, materialize=False).preempt(pod, state, filters,
                                                                   statuses)
    message = ""
    if explain and result.node is None:
        message = f"{fit_error_message(n, statuses, prefilter)} {result.message}."
    return Attempt(result.node, result, message)
