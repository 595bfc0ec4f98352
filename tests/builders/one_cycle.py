"""The one-cycle check shared by scheduler and gang tests: the bundled scenarios, a fixed
"now", and a ``schedule_one`` spy comparing the fast cycle with the materialised one."""

from __future__ import annotations

from pathlib import Path

from kubepreempt.scheduler.cycle import PREEMPT, CycleResult
from kubepreempt.scheduler.preemption import Evaluator

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted(str(p) for p in (EXAMPLES / "sim").glob("*.yaml"))
NOW = 1e9


def outcome(res: CycleResult) -> tuple:
    """What a caller acts on: result, node, victims, violations, cleared, message."""
    pre = res.preemption
    chosen = pre is not None and res.result == PREEMPT
    return (res.result, res.node_name,
            sorted(p.key for p in pre.victims) if chosen else [],
            pre.pdb_violations if chosen else 0,
            sorted(p.key for p in pre.cleared_nominations) if chosen else [],
            res.message)


def spy(real):
    """Wrap ``schedule_one``: also run the materialised cycle and compare."""
    seen = []

    def checked(sched, pod, **kw):
        full_kw = {k: v for k, v in kw.items() if k != "evaluator"}
        ev = kw.get("evaluator")
        if ev is not None:
            # Same options, but every candidate built and no incremental cache.
            full_kw["evaluator"] = Evaluator(sched, sample=ev.sample, now=ev.now,
                                             fast=False, materialize=True,
                                             victim_groups=ev.victim_groups)
            full_kw["evaluator"].rng.setstate(ev.rng.getstate())  # the same window offset
        start = sched.sampling.value  # nextStartNodeIndex: both runs start from it
        sched.use_cached_statuses = False
        full = real(sched, pod, **{**full_kw, "explain": True})
        sched.use_cached_statuses = True
        sched.sampling.value = start
        fast = real(sched, pod, **kw)
        assert outcome(fast) == outcome(full), pod.key
        seen.append(outcome(fast))
        return fast

    return checked, seen
