"""The pending workloads of every ClusterQueue (upstream ``pkg/queue``'s ``Manager``).

Each ClusterQueue keeps a heap of pending workloads (higher priority first, then older
queue-order time) and an inadmissible set. A scheduling cycle takes the head of every
heap. A workload that was not admitted is requeued per queueing strategy: StrictFIFO
always back to the heap; BestEffortFIFO back to the heap only after nomination failed
or while its preemption is pending, else into the inadmissible set until quota is
released in its cohort tree (``QueueInadmissibleWorkloads``). A head whose namespace
the ClusterQueue's selector excludes goes to the inadmissible set under either strategy
(``ClusterQueue.RequeueIfNotPresent``: StrictFIFO requeues immediately for every reason
but ``RequeueReasonNamespaceMismatch``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.quota import WorkloadInfo, queue_order_time

T = TypeVar("T")

STRICT_FIFO = "StrictFIFO"
# Requeue reasons (upstream ``RequeueReason``).
NO_FIT = "NoFit"
PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"
PENDING_PREEMPTION = "PendingPreemption"
FAILED_AFTER_NOMINATION = "FailedAfterNomination"
# A head whose namespace the ClusterQueue's namespaceSelector excludes (the entry carries
# the QuotaReserved reason upstream sets with it, ``Misconfigured``).
NAMESPACE_MISMATCH = "Misconfigured"
# Reasons that put a BestEffortFIFO workload straight back in the heap.
IMMEDIATE = (FAILED_AFTER_NOMINATION, PENDING_PREEMPTION)


class QueueManager(Generic[T]):
    """Heaps and inadmissible sets of pending items (``T``: the caller's record of a
    workload), one pair per ClusterQueue."""

    def __init__(self, strategies: dict[str, str], root_of: Callable[[str], str],
                 admission_check_evictions: bool, uid_tie_break: bool = False) -> None:
        """``strategies``: ClusterQueue -> queueing strategy; ``root_of``: the root of
        a ClusterQueue's cohort tree (itself without a cohort); ``uid_tie_break``: ties
        of priority and time go by UID (``Semantics.uid_queue_tie_break``)."""
        self.strategies = strategies
        self.root_of = root_of
        self.ace = admission_check_evictions
        self.uid_tie_break = uid_tie_break
        self.heaps: dict[str, list[tuple]] = {name: [] for name in strategies}
        self.inadmissible: dict[str, dict[str, T]] = {name: {} for name in strategies}
        self.waiting: dict[str, set[str]] = {}  # cohort root -> queues with inadmissible
        self.seq = 0  # heap insertion order, the last tie-breaker

    def has_queue(self, name: str) -> bool:
        """True when ``name`` is a ClusterQueue of the input."""
        return name in self.heaps

    def has_pending(self) -> bool:
        """True while any heap holds a workload (the loop does not block in ``Heads``)."""
        return any(self.heaps.values())

    def order(self, wl: Workload, cluster_queue: str) -> tuple:
        """The heap order: higher priority, then older queue-order time, then UID
        (without the switch, or between Workloads without one: namespace/name)."""
        ts = queue_order_time(WorkloadInfo(wl, cluster_queue, []), self.ace)
        tie = wl.uid if self.uid_tie_break else ""
        return (-wl.priority, ts, tie, wl.key)

    def push(self, cluster_queue: str, wl: Workload, item: T) -> None:
        """Add ``item`` (workload ``wl``) to its ClusterQueue's heap."""
        self.seq += 1
        heapq.heappush(self.heaps[cluster_queue],
                       (*self.order(wl, cluster_queue), self.seq, item))

    def heads(self, pending: Callable[[T], bool]) -> list[T]:
        """Pop the head of every heap, by ClusterQueue name; items no longer
        ``pending`` are dropped on the way."""
        out: list[T] = []
        for name in sorted(self.heaps):
            heap = self.heaps[name]
            while heap:
                item = heapq.heappop(heap)[-1]
                if pending(item):
                    out.append(item)
                    break
        return out

    def requeue(self, cluster_queue: str, wl: Workload, item: T, reason: str) -> bool:
        """Requeue a head that was not admitted; True when it went to the inadmissible
        set (the queue has a new head), False when back to the heap."""
        strict = self.strategies[cluster_queue] == STRICT_FIFO
        if (strict and reason != NAMESPACE_MISMATCH) or reason in IMMEDIATE:
            self.push(cluster_queue, wl, item)
            return False
        self.inadmissible[cluster_queue][wl.key] = item
        self.waiting.setdefault(self.root_of(cluster_queue), set()).add(cluster_queue)
        return True

    def queue_inadmissible(self, cluster_queue: str,
                           workload_of: Callable[[T], Workload]) -> Iterable[T]:
        """``QueueInadmissibleWorkloads`` for every queue of ``cluster_queue``'s cohort
        tree: back to their heaps; returns the moved items."""
        moved: list[T] = []
        # Only the tree's queues that hold inadmissible workloads (sorted: the order the
        # tree lists them in would not change which heads exist, only heap sequence ties).
        for name in sorted(self.waiting.pop(self.root_of(cluster_queue), ())):
            waiting = self.inadmissible.get(name)
            if waiting:
                self.inadmissible[name] = {}
                for item in waiting.values():
                    self.push(name, workload_of(item), item)
                    moved.append(item)
        return moved
