"""Kueue's workload preemption, by strategy (upstream ``pkg/scheduler/preemption``).

:mod:`.common` holds what every search shares, :mod:`.classical` and :mod:`.fairsharing`
current Kueue's two plans, :mod:`.v07` the whole v0.7.0 search, :mod:`.targets` the
choice between them (:func:`get_targets`), and :mod:`.oracle` the preemption oracle
flavor assignment asks.
"""

from kubepreempt.kueue.preemption.common import Target, Trace
from kubepreempt.kueue.preemption.targets import get_targets, targets_for

__all__ = ["Target", "Trace", "get_targets", "targets_for"]
