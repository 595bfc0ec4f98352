"""List-then-watch one resource, as client-go's reflector: resourceVersion bookkeeping,
bookmarks, re-list on 410 Gone, reconnect after a disconnect, and retry with backoff after
any failure but a refusal (401, 403, a required kind not served) — never giving up.

Events go to a sink (a queue the watch command drains in one thread). A reflector runs in
its own daemon thread; ``stop`` ends it at the next event or stream end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubepreempt.api.errors import InputError
from kubepreempt.live.backoff import Backoff, RetryPolicy
from kubepreempt.live.client import ApiClient, Expired, NotServed, ServerBusy, Unreachable
from kubepreempt.live.lister import PAGE_SIZE, ListExpired, list_all
from kubepreempt.live.resources import Resource

WATCH_TIMEOUT = 300  # seconds the server keeps one watch open (client-go: 5-10 min)


@dataclass(slots=True)
class Event:
    """One change: ``SYNC`` (a full list), ``ADDED``/``MODIFIED``/``DELETED``, ``RETRY``
    (a disconnect, a 410, a 429 or 5xx; the stream resumes), ``WARN`` (an event was
    dropped; the stream goes on) or ``FATAL`` (stop: ``message`` says why)."""

    type: str
    kind: str
    obj: dict[str, Any] | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""


class Reflector:
    """Keeps one resource's events flowing into ``sink`` until ``stop`` is set."""

    def __init__(self, client: ApiClient, res: Resource, sink: Callable[[Event], None],
                 stop: threading.Event, page_size: int = PAGE_SIZE,
                 watch_timeout: int = WATCH_TIMEOUT, retry: RetryPolicy | None = None,
                 go: threading.Event | None = None) -> None:
        self.client, self.res, self.sink, self.stop = client, res, sink, stop
        # Set once every kind has been listed: the first watch waits for it, so no change
        # is seen before the snapshot it changes exists.
        self.go = go
        self.page_size, self.watch_timeout = page_size, watch_timeout
        self.backoff: Backoff = (retry or RetryPolicy()).backoff()
        self.resource_version: str | None = None  # None: list before watching
        self.lists = 0
        self.watches = 0

    def start(self) -> threading.Thread:
        """Run in a daemon thread (Ctrl-C never waits for a blocked stream read)."""
        thread = threading.Thread(target=self.run, name=f"watch-{self.res.plural}",
                                  daemon=True)
        thread.start()
        return thread

    def run(self) -> None:
        """List, then watch from the list's resourceVersion, for as long as asked."""
        while not self.stop.is_set():
            try:
                if self.resource_version is None:
                    self._list()
                while self.go is not None and not self.go.wait(0.1):
                    if self.stop.is_set():
                        return
                if not self._watch():  # closed at once, empty: do not spin on a bad proxy
                    self.backoff.wait(self.stop, self.backoff.delay())
            except Expired as exc:
                self.resource_version = None  # too old: re-list, as client-go does
                self.sink(Event("RETRY", self.res.kind, message=f"410 Gone: {exc}; re-listing"))
            except (Unreachable, ServerBusy, ListExpired) as exc:
                # client-go retries a failed list or watch forever; a 429/5xx's Retry-After
                # is a floor on the wait (rest/request.go checkWait).
                delay = self.backoff.delay()
                said = str(exc)
                if isinstance(exc, ServerBusy):
                    delay, said = max(delay, exc.retry_after or 0.0), exc.detail
                self.sink(Event("RETRY", self.res.kind,
                                message=f"{said}; retrying in {delay:.3g} s"))
                self.backoff.wait(self.stop, delay)
            except NotServed as exc:
                if self.res.optional:  # an absent optional API: nothing of it, ever
                    self.sink(Event("SYNC", self.res.kind))
                    return
                self.sink(Event("FATAL", self.res.kind, message=(
                    f"{self.client.target.label}: {self.res.describe()} is not served by "
                    f"this cluster (404): {exc}")))
                return
            except InputError as exc:  # forbidden, unauthorized: give up
                self.sink(Event("FATAL", self.res.kind, message=str(exc)))
                return

    def _list(self) -> None:
        result = list_all(self.client, self.res, page_size=self.page_size)
        self.lists += 1
        self.resource_version = result.resource_version
        self.sink(Event("SYNC", self.res.kind, items=result.items))

    def _watch(self) -> bool:
        """One watch request, until the server ends it; False if it carried no event."""
        params = {"watch": 1, "resourceVersion": self.resource_version,
                  "allowWatchBookmarks": "true", "timeoutSeconds": self.watch_timeout}
        self.watches += 1
        head = {"apiVersion": self.res.api_version, "kind": self.res.kind}
        with self.client.stream_lines(self.res.path(), params, self.res,
                                      read_timeout=self.watch_timeout + 30) as lines:
            seen = False
            for line in lines:
                seen = True
                if self.stop.is_set():
                    return True
                try:
                    event = orjson.loads(line)
                    etype = event["type"]
                    obj = event["object"]
                    if not isinstance(obj, dict):
                        raise TypeError
                except (orjson.JSONDecodeError, KeyError, TypeError):
                    raise Unreachable(f"{self.client.target.label}: watch {self.res.describe()}"
                                      ": the server sent a line that is not a watch event") \
                        from None
                if etype == "ERROR":
                    if obj.get("code") == 410:
                        raise Expired(str(obj.get("message") or "expired"))
                    raise Unreachable(f"{self.client.target.label}: watch "
                                      f"{self.res.describe()}: {obj.get('message')}")
                kind = obj.get("kind")
                if etype != "BOOKMARK" and kind and kind != self.res.kind:
                    # client-go's watchHandler: "expected type ..., but watch event object
                    # had type ...", and the event is skipped (its version too).
                    self.sink(Event("WARN", self.res.kind, message=(
                        f"expected {self.res.kind}, but a {etype} event carried a {kind}; "
                        "dropped")))
                    continue
                rv = (obj.get("metadata") or {}).get("resourceVersion")
                if rv:
                    self.resource_version = str(rv)
                if etype == "BOOKMARK":
                    continue  # only moves the resourceVersion on
                self.sink(Event(etype, self.res.kind, {**head, **obj}))
        return seen
