"""Where runs execute: in this process, a local process pool, or a Dask cluster.

Each backend takes the variants' payloads once and yields ``((variant, seed), outcome)``
as runs finish, in whatever order they finish; the outcome is :func:`worker.run_one`'s.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from kubepreempt.api.errors import InputError
from kubepreempt.sweep.worker import Payload, environment, run_one

Task = tuple[str, int]  # (variant name, seed)
Outcome = tuple[Task, dict[str, Any]]


class Backend(Protocol):
    """Runs tasks and streams their outcomes back."""

    def describe(self) -> str:
        """One line for people: where the runs go."""
        ...

    def results(self, payloads: Mapping[str, Payload], tasks: Sequence[Task]
                ) -> Iterator[Outcome]:
        """Run every task; yield each outcome as it finishes."""
        ...


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


class SerialBackend:
    """Every run in this process, one after another (``--jobs 1``)."""

    def describe(self) -> str:
        return "this process"

    def results(self, payloads: Mapping[str, Payload], tasks: Sequence[Task]
                ) -> Iterator[Outcome]:
        for variant, seed in tasks:
            yield (variant, seed), run_one(payloads[variant], seed)


_POOL_PAYLOADS: Mapping[str, Payload] = {}


def _init_pool_worker(payloads: Mapping[str, Payload]) -> None:
    global _POOL_PAYLOADS
    _POOL_PAYLOADS = payloads
    # Ctrl-C is the parent's to handle (it stops the pool); workers would only print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pooled(variant: str, seed: int) -> dict[str, Any]:
    return run_one(_POOL_PAYLOADS[variant], seed)


class PoolBackend:
    """A pool of ``jobs`` worker processes on this machine (the default: all cores).

    Workers are spawned (fresh interpreters, as on every platform), receive the payloads
    once, and are kept busy with at most two runs each in flight. If a worker process dies,
    the runs in flight at that moment are reported failed and the rest go on in a new pool.
    """

    def __init__(self, jobs: int,
                 run: Callable[[str, int], dict[str, Any]] | None = None) -> None:
        if jobs < 1:
            raise InputError(f"--jobs must be at least 1, not {jobs}")
        self.jobs = jobs
        self.run = run or _run_pooled  # a module-level function (workers import it)

    def describe(self) -> str:
        return f"{self.jobs} local worker process{'es' if self.jobs != 1 else ''}"

    def results(self, payloads: Mapping[str, Payload], tasks: Sequence[Task]
                ) -> Iterator[Outcome]:
        todo = deque(tasks)
        ctx = multiprocessing.get_context("spawn")
        while todo:
            pool = ProcessPoolExecutor(min(self.jobs, len(todo)), mp_context=ctx,
                                       initializer=_init_pool_worker, initargs=(payloads,))
            finished = False
            try:
                yield from self._drain(pool, todo)
                finished = True
            finally:
                if not finished:  # interrupted: do not wait for the runs in flight
                    _terminate(pool)
                # With the workers gone this returns at once, and it releases the pool's
                # queues (else the resource tracker warns about leaked semaphores).
                pool.shutdown(wait=True, cancel_futures=True)

    def _drain(self, pool: ProcessPoolExecutor, todo: deque[Task]) -> Iterator[Outcome]:
        inflight: dict[Future, Task] = {}
        broken = False
        while inflight or (todo and not broken):
            while todo and not broken and len(inflight) < 2 * self.jobs:
                task = todo.popleft()
                try:
                    inflight[pool.submit(self.run, *task)] = task
                except BrokenProcessPool:
                    todo.appendleft(task)
                    broken = True
            if not inflight:
                break
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: inflight[f]):
                task = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    broken = True
                    outcome = {"error": "worker process died (it or a run beside it "
                                        "crashed or was killed)"}
                yield task, outcome


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's own worker processes at once (Python 3.14 has a method for it)."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:  # pragma: no cover - Python >= 3.14
        stop()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()


class DaskBackend:
    """Runs on an existing Dask distributed cluster (``--cluster tcp://scheduler:8786``).

    The workers need the same kubepreempt version installed; each variant's payload is
    scattered to the cluster once and every run is one task.
    """

    def __init__(self, address: str, timeout: float = 20.0) -> None:
        self.address = address
        self.timeout = timeout  # seconds to reach the scheduler
        self._client: Any = None
        self._workers = 0

    def _connect(self) -> Any:
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--cluster needs Dask distributed: pip install "
                             "'kubepreempt[dask]'") from None
        if self._client is None:
            try:
                self._client = Client(self.address, timeout=self.timeout,
                                      set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise InputError(f"--cluster {self.address}: cannot reach a Dask scheduler "
                                 f"({' '.join(str(exc).split())})") from None
        return self._client

    def describe(self) -> str:
        return f"Dask cluster {self.address} ({self._workers} workers)"

    def check(self) -> None:
        """Connect, wait for a worker and check every worker runs our kubepreempt.

        Raises :class:`InputError` (one line) when the cluster cannot take the runs.
        """
        client = self._connect()
        try:
            client.wait_for_workers(1, timeout=60)
            envs = client.run(environment)
        except TimeoutError:
            raise InputError(f"--cluster {self.address}: no worker joined within 60 s") \
                from None
        except Exception as exc:  # a worker that cannot import kubepreempt fails here
            raise InputError(f"--cluster {self.address}: the workers cannot run kubepreempt "
                             f"(install it there): {type(exc).__name__}: {exc}") from None
        ours = environment()
        for worker, env in sorted(envs.items()):
            if env["kubepreempt"] != ours["kubepreempt"]:
                raise InputError(f"--cluster {self.address}: worker {worker} runs kubepreempt "
                                 f"{env['kubepreempt']}, this is {ours['kubepreempt']}")
        self._workers = len(envs)

    def results(self, payloads: Mapping[str, Payload], tasks: Sequence[Task]
                ) -> Iterator[Outcome]:
        from distributed import as_completed

        if not self._workers:
            self.check()
        client = self._connect()
        names = sorted({variant for variant, _ in tasks})
        scattered = dict(zip(names, client.scatter([payloads[n] for n in names], hash=False),
                             strict=True))
        futures = {client.submit(run_one, scattered[variant], seed, pure=False):
                   (variant, seed) for variant, seed in tasks}
        try:
            for fut in as_completed(futures, loop=client.loop):
                try:
                    outcome = fut.result()
                except Exception as exc:  # e.g. KilledWorker: the task's workers kept dying
                    outcome = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"}
                yield futures[fut], outcome
        finally:
            client.cancel(list(futures) + list(scattered.values()))

    def close(self) -> None:
        """Disconnect (the cluster itself keeps running)."""
        if self._client is not None:
            self._client.close()
            self._client = None
