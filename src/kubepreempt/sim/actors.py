"""The interface between the simulated world and the actors in it.

The world (:class:`kubepreempt.sim.world.World`) calls these hooks as things happen, on
the scheduler driver, the kubelet and then the actors around them (controllers, the
Cluster Autoscaler, Kueue); an actor reacts by changing the world through its public
verbs or by scheduling its own timers on the kernel. Actors never call one another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubepreempt.api.objects import Node, Pod

if TYPE_CHECKING:
    from kubepreempt.sim.scenario import PodPlan


class Actor:
    """No-op hooks; subclasses override what they react to."""

    def start(self) -> None:
        """Before the first event: push the actor's first timers."""

    def on_created(self, plan: PodPlan) -> None:
        """The pod of ``plan`` was created and is pending."""

    def on_withdrawn(self, pod: Pod) -> None:
        """The pending ``pod`` was deleted before it was bound."""

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
