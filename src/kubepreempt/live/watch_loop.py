"""Run reflectors for the watched kinds and feed their events, in order, to a Watcher."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import orjson

from kubepreempt.api.errors import InputError, Source
from kubepreempt.live.backoff import RetryPolicy
from kubepreempt.live.client import ApiClient
from kubepreempt.live.kubeconfig import Target
from kubepreempt.live.reflector import Event, Reflector
from kubepreempt.live.resources import listed
from kubepreempt.live.watcher import Watcher


def write_report(path: str, watcher: Watcher) -> None:
    """Write the tally as JSON, atomically (a reader never sees half a file)."""
    tmp = Path(f"{path}.tmp")
    try:
        tmp.write_bytes(orjson.dumps(watcher.tally.to_json(),
                                     option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"--report: cannot write: {exc.strerror}", Source(path)) from None


def run(target: Target, kinds: Iterable[str], watcher: Watcher, stop: threading.Event,
        report: str | None = None, notice: Callable[[str], None] | None = None,
        client_factory: Callable[..., ApiClient] = ApiClient,
        watch_timeout: int | None = None, retry: RetryPolicy | None = None
        ) -> list[Reflector]:
    """Watch until ``stop`` is set (or a fatal error, raised as InputError).

    Each kind has its own reflector thread and connection; events meet in one queue, so the
    watcher sees them one at a time. When the queue runs dry the watcher re-evaluates the
    pending pods whose situation may have changed, and the report file is rewritten.
    Failures are retried by the reflectors under ``retry``; only a refusal (401, 403, a
    required kind not served) ends the watch.
    """
    events: queue.Queue[Event] = queue.Queue()
    notice = notice or (lambda msg: print(msg, file=sys.stderr, flush=True))
    reflectors = []
    go = threading.Event()
    first: ApiClient | None = None
    for res in listed(tuple(kinds)):
        extra = {"watch_timeout": watch_timeout} if watch_timeout else {}
        # One connection per stream; credentials (an exec plugin's token) are shared.
        client = client_factory(target, share_auth_with=first)
        client.max_retries = 0  # the reflector retries, with its backoff and Retry-After
        first = first or client
        r = Reflector(client, res, events.put, stop, retry=retry, go=go, **extra)
        reflectors.append(r)
        r.start()
    written = -1
    while not stop.is_set():
        try:
            event = events.get(timeout=0.2)
        except queue.Empty:
            watcher.settle()
            compared = watcher.tally.agree + watcher.tally.differ
            if report and watcher.ready and compared != written:
                write_report(report, watcher)
                written = compared
            continue
        if event.type == "FATAL":
            stop.set()
            raise InputError(event.message)
        if event.type in ("RETRY", "WARN"):
            notice(f"watch {event.kind}: {event.message}")
            continue
        watcher.handle(event)
        if watcher.ready:
            go.set()
        if events.empty():
            watcher.settle()
    if report and watcher.ready:
        write_report(report, watcher)
    return reflectors
