"""The scheduler's caches of node-derived data, kept per snapshot.

Plugins compute per-node masks, label tables, pod counts and the preemption index once
and reuse them across cycles and across every ``Scheduler`` over the same snapshot (one
per profile, and the new ones ``decide.schedule`` and the what-if trials build). They
live here, owned by the scheduler, keyed by the snapshot object (weakly: a dropped
snapshot drops its caches), so the snapshot itself stays plain data.

Invalidation, exactly as the snapshot's counters say:

- :func:`node_cached` entries: ``compute(snapshot)`` is kept under ``key`` until
  ``Snapshot.node_generation`` changes (a node joined, left, or had its labels, taints or
  flags changed through ``node_changed``); then every entry is dropped at once. Entries
  that follow pod changes themselves (``pod_counts``, the per-signature preemption caches)
  read ``Snapshot.change_log`` from a remembered position, and restart when
  ``Snapshot.change_epoch`` moves.
- the preemption index (:class:`~kubepreempt.scheduler.preemption.fast.PreemptionIndex`)
  is not dropped when nodes change: a node that joins adds a row to it. It checks its own
  stamp (change epoch, resource columns, PDB count, node count) on every use.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from kubepreempt.snapshot import Snapshot

T = TypeVar("T")


class SnapshotCaches:
    """One snapshot's caches: the node-derived entries and the preemption index."""

    __slots__ = ("generation", "entries", "preemption_index")

    def __init__(self) -> None:
        self.generation: int | None = None  # the node_generation ``entries`` hold for
        self.entries: dict[Hashable, Any] = {}
        self.preemption_index: Any = None  # a PreemptionIndex, kept by preemption/fast.py


# id(snapshot) -> its caches; an entry leaves with its snapshot (``weakref.finalize``,
# which runs before the id can be reused). A plain dict: a WeakKeyDictionary lookup
# builds a weak reference per call, and node_cached runs several times per cycle.
_CACHES: dict[int, SnapshotCaches] = {}


def caches_of(snapshot: Snapshot) -> SnapshotCaches:
    """The caches of ``snapshot`` (empty ones the first time it is seen)."""
    caches = _CACHES.get(id(snapshot))
    if caches is None:
        key = id(snapshot)
        caches = _CACHES[key] = SnapshotCaches()
        weakref.finalize(snapshot, _CACHES.pop, key, None)
    return caches


def node_cached(snapshot: Snapshot, key: Hashable, compute: Callable[[Snapshot], T]) -> T:
    """``compute(snapshot)`` memoised under ``key`` until the node set changes.

    Per-node masks that depend only on node objects and a pod's scheduling signature
    (selectors, tolerations) are computed once for a thousand pods of one template.
    """
    caches = _CACHES.get(id(snapshot)) or caches_of(snapshot)
    if caches.generation != snapshot.node_generation:
        caches.entries = {}
        caches.generation = snapshot.node_generation
    entries = caches.entries
    hit = entries.get(key)
    if hit is None:
        hit = entries[key] = compute(snapshot)
    return hit
