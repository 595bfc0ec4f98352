"""The interface between the engine and the actors around the scheduler.

The engine calls these hooks as things happen; an actor reacts by changing the cluster
through the engine's own methods or by pushing its own timers on the one event heap (after
registering their kinds in ``Simulator.handlers``). Actors never call one another.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.objects import Node, Pod


class Actor:
    """No-op hooks; subclasses override what they react to."""

    def start(self) -> None:
        """Before the first event: push the actor's first timers."""

    def on_bound(self, pod: Pod) -> None:
        """``pod`` was bound to a node."""

    def on_unschedulable(self, pod: Pod) -> None:
        """A scheduling attempt for ``pod`` failed (it may have nominated a node)."""

    def on_terminating(self, pod: Pod, etype: str) -> None:
        """``pod`` got SIGTERM (``etype``: preempted, evicted, terminated)."""

    def on_gone(self, pod: Pod, etype: str, phase: str) -> None:
        """``pod`` left the cluster, ending in ``phase`` (Succeeded or Failed)."""

    def on_node_added(self, node: Node) -> None:
        """``node`` joined the cluster."""

    def on_node_removed(self, name: str) -> None:
        """Node ``name`` left the cluster (its pods are gone)."""

    def metrics(self) -> dict[str, Any]:
        """Keys this actor adds to ``metrics``."""
        return {}
