"""The discrete-event kernel: simulated time and one queue of timed callbacks.

Events are ordered by time, then by :class:`Priority` (what happens first among things
due at the same instant), then by the order they were scheduled in. Nothing here knows
about pods or nodes: the world and the actors schedule their own handlers.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from enum import IntEnum
from typing import Any

from kubepreempt.api.errors import InputError


class Priority(IntEnum):
    """Orders among events due at the same time (smaller first).

    Resources are freed first (terminations, completions), then nodes change, then
    objects arrive, then the kubelet retries, then backoffs end, and only then does the
    scheduler take the next pod: so pods created "at the same time" are all in activeQ
    before the first is popped, and the highest priority wins. An attempt's decision
    (``CYCLE``) follows, and the Cluster Autoscaler scans last, on the settled state.
    """

    FREE = 0
    NODE = 1
    ARRIVE = 2
    KUBELET = 3
    BACKOFF = 4
    KICK = 5
    CYCLE = 6
    SCAN = 7


Handler = Callable[[Any], None]


class Kernel:
    """Simulated time (``now``) and the pending events, run in order by :meth:`run`."""

    def __init__(self) -> None:
        self.now = 0.0
        self.processed = 0  # events handled so far
        self._heap: list[tuple[float, int, int, Handler, Any]] = []
        self._seq = 0

    def schedule(self, at: float, priority: int, handler: Handler, payload: Any = None) -> None:
        """Call ``handler(payload)`` at time ``at``; the sequence number breaks ties, so
        events due at the same time with the same priority run in the order scheduled."""
        self._seq += 1
        heapq.heappush(self._heap, (at, int(priority), self._seq, handler, payload))

    def pending(self) -> int:
        """How many events are scheduled and not yet run."""
        return len(self._heap)

    def run(self, until: float | None = None, *,
            settled: Callable[[int], bool] | None = None,
            after: Callable[[float], None] | None = None,
            max_events: int | None = None,
            progress: Callable[[float], None] | None = None) -> None:
        """Run events in order up to ``until`` (default: until none is left).

        Before each event ``settled(pending)`` may end the run (nothing left would change
        anything); after each, ``after(now)`` runs. More than ``max_events`` events is an
        :class:`InputError`; ``progress(now)`` is called every 4096 events.
        """
        heap = self._heap
        while heap:
            if until is not None and heap[0][0] > until:
                break
            if settled is not None and settled(len(heap)):
                break
            if max_events is not None and self.processed >= max_events:
                raise InputError(f"the simulation reached {max_events} events at simulated "
                                 f"time {self.now:g} s; bound it with --until or raise "
                                 "--max-events")
            time, _, _, handler, payload = heapq.heappop(heap)
            self.now = time
            handler(payload)
            self.processed += 1
            if after is not None:
                after(time)
            if progress is not None and not self.processed & 4095:
                progress(time)
