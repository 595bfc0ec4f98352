"""The reflector's retry delay, as client-go's ``wait.NewExponentialBackoffManager``
(``tools/cache/reflector.go``: 800 ms doubling to 30 s, back to 800 ms after 2 minutes
without a failure), with an injectable clock and sleep so tests take milliseconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

INITIAL = 0.8  # seconds: client-go's reflector (minimum backoff)
CAP = 30.0  # seconds: its maximum backoff
RESET_AFTER = 120.0  # seconds without a failure that bring the delay back to INITIAL


@dataclass(slots=True)
class RetryPolicy:
    """How long a failed list or watch waits before the next try. The delay doubles from
    ``initial`` to ``cap``; ``reset_after`` seconds (by ``clock``) without a failure
    reset it, so drops hours apart each wait ``initial``."""

    initial: float = INITIAL
    cap: float = CAP
    reset_after: float = RESET_AFTER
    clock: Callable[[], float] = time.monotonic
    # How to wait: by default on the stop event, so Ctrl-C never waits out a delay.
    sleep: Callable[[threading.Event, float], object] | None = None

    def backoff(self) -> Backoff:
        """A fresh delay sequence (one per reflector)."""
        return Backoff(self)


@dataclass(slots=True)
class Backoff:
    """One reflector's retry delays under ``policy``."""

    policy: RetryPolicy
    _next: float = field(init=False)
    _last_failure: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._next = self.policy.initial

    def delay(self) -> float:
        """The wait before the next try after a failure now (and the one after, doubled)."""
        now = self.policy.clock()
        if self._last_failure is not None and now - self._last_failure >= self.policy.reset_after:
            self._next = self.policy.initial
        self._last_failure = now
        delay = self._next
        self._next = min(self._next * 2, self.policy.cap)
        return delay

    def wait(self, stop: threading.Event, seconds: float) -> None:
        """Wait ``seconds`` or until ``stop`` is set."""
        if self.policy.sleep is not None:
            self.policy.sleep(stop, seconds)
        else:
            stop.wait(seconds)
