"""Assuming pods on the snapshot for the rest of a group cycle, and undoing it.

Upstream's pod group cycle assumes and reserves each feasible pod (a preempting one on
its nominated node, its victims removed in memory) so the group's later pods see it, and
forgets them all when the cycle ends (``unreserveAndForget``): nothing is bound until the
whole group is decided. Here the assumed pod is a copy bound on the cluster snapshot;
:meth:`Assumptions.revert` restores the snapshot exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.scheduler import Scheduler


def _slot_copier() -> Callable[[Pod], Pod]:
    """A function copying every slot of a pod by name, one statement per slot: ten times
    cheaper than a loop of ``getattr``/``setattr`` over ``Pod.__slots__`` and fifty times
    cheaper than ``copy.copy`` (each member of a gang is copied once per group cycle)."""
    body = "".join(f"    placed.{name} = pod.{name}\n" for name in Pod.__slots__)
    source = (f"def shallow_copy(pod, new=object.__new__, cls=Pod):\n"
              f"    placed = new(cls)\n{body}    return placed\n")
    namespace: dict = {"Pod": Pod}
    exec(source, namespace)  # noqa: S102 - code built from the class's own slot names
    return namespace["shallow_copy"]


_shallow_copy = _slot_copier()
_shallow_copy.__doc__ = "``copy.copy(pod)`` for a :class:`Pod` (a pod has only slots)."


class Assumptions:
    """Pods assumed and victims removed during one group cycle, undone by ``revert``."""

    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched
        self._undo: list[Callable[[], None]] = []
        # The pending pods in their order before the first assumption: forgetting puts
        # a pod back at the end, and the order is the next group cycle's tie-break.
        self._pending: list[tuple[str, Pod]] | None = None

    def assume(self, pod: Pod, node_name: str, victims: Iterable[Pod] = ()) -> None:
        """Place ``pod`` on ``node_name`` after removing ``victims`` from their nodes."""
        cluster = self.sched.cluster
        if self._pending is None:
            self._pending = list(cluster.pending.items())
        for victim in victims:
            if cluster.find_pod(victim.key) is not victim:
                continue  # already removed for an earlier pod of the group
            cluster.remove(victim)
            self._undo.append(lambda v=victim, n=victim.node_name: cluster.bind(v, n))
        nominated = pod.nominated_node_name
        if nominated:
            self.sched.nominator.remove(pod)
            self._undo.append(lambda: self.sched.nominator.add(pod, nominated))
        placed = _shallow_copy(pod)
        cluster.bind(placed, node_name)
        # Forgetting removes the copy; ``revert`` then puts every pending pod back, in
        # its old order, at once.
        self._undo.append(lambda: cluster.remove(placed))

    def revert(self) -> None:
        """Undo every assumption, newest first."""
        while self._undo:
            self._undo.pop()()
        if self._pending is not None:
            pending = self.sched.cluster.pending
            pending.clear()
            pending.update(self._pending)
            self._pending = None
