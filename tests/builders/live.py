"""Helpers for the live tests against a local fake API server (tests/live): running the
watch loop in a thread, serving the recorded lists, the recorded SYNC events, and an exec
credential plugin. The recordings' helpers come from tests/live/conftest.py, which pytest
has loaded as ``conftest`` before any module under tests/live."""

from __future__ import annotations

import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

from conftest import (
    EMPTY_LISTS,
    UNRECORDED,
    list_body,
    recorded_query,
    recording,
    response,
    serve_unrecorded,
)
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live import watch_loop
from kubepreempt.live.backoff import RetryPolicy
from kubepreempt.live.kubeconfig import resolve
from kubepreempt.live.reflector import Event
from kubepreempt.live.watcher import Watcher

FAST = RetryPolicy(initial=0.05, cap=0.2)  # the reflector's backoff, in milliseconds
WATCH_QUERY = recorded_query("pods-watch")  # watch=1&resourceVersion=451&...&timeoutSeconds=6


def run_watch(kubeconfig: Path, until, namespace: str | None = None,
              report: str | None = None, timeout: float = 20.0,
              retry: RetryPolicy = FAST) -> tuple[list[dict[str, Any]], list[str], Watcher]:
    """Run the watch loop in a thread until ``until(lines)`` holds."""
    lines: list[dict[str, Any]] = []
    notices: list[str] = []
    stop = threading.Event()
    watcher = Watcher(SCHEDULER_KINDS, lines.append, namespace=namespace)
    errors: list[BaseException] = []

    def target() -> None:
        try:
            watch_loop.run(resolve(str(kubeconfig)), SCHEDULER_KINDS, watcher, stop, report,
                           notice=notices.append, watch_timeout=6, retry=retry)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not errors and not until(lines):
        time.sleep(0.05)
    time.sleep(0.3)  # let the loop go idle (settle, report)
    stop.set()
    thread.join(5)
    if errors:
        raise errors[0]
    return lines, notices, watcher


def actual(lines: list[dict], pod: str) -> list[dict]:
    """The ``actual`` lines of ``pod`` (namespace/name)."""
    return [x for x in lines if x["event"] == "actual" and x["pod"] == pod]


def sync_events() -> list[Event]:
    """The SYNC events of every recorded list (and the empty unrecorded ones)."""
    out = []
    for kind, name, version in (("Node", "nodes", "v1"), ("Namespace", "namespaces", "v1"),
                                ("PriorityClass", "priorityclasses", "scheduling.k8s.io/v1"),
                                ("PodDisruptionBudget", "poddisruptionbudgets", "policy/v1"),
                                ("Service", "services", "v1"),
                                ("ReplicaSet", "replicasets", "apps/v1"),
                                ("StatefulSet", "statefulsets", "apps/v1"),
                                ("Pod", "pods-all", "v1")):
        items = [{"apiVersion": version, "kind": kind, **i} for i in list_body(name)["items"]]
        out.append(Event("SYNC", kind, items=items))
    for path, (kind, _) in UNRECORDED.items():
        out.append(Event("SYNC", kind, items=EMPTY_LISTS[path]["items"]))
    return out


def serve_others(server: HTTPServer) -> None:
    """Serve every recorded list but pods (watches: empty streams), and unrecorded kinds."""
    for name in ("nodes", "namespaces", "priorityclasses", "poddisruptionbudgets",
                 "services", "replicasets", "statefulsets"):
        path = recording(name)["request"]["path"]

        def handler(request: Request, name: str = name) -> Response:
            if "watch=1" in request.query_string.decode():
                return Response("", status=200, content_type="application/json")
            return response(name)

        server.expect_request(path).respond_with_handler(handler)
    serve_unrecorded(server)


EXEC_PLUGIN = """#!{python}
import json, os, sys
info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
assert info["kind"] == "ExecCredential", info
assert info["apiVersion"] == "{api_version}", info
assert info["spec"]["interactive"] is False, info
assert os.environ["PLUGIN_ENV"] == "from-kubeconfig"
with open(sys.argv[1], "a") as f:
    f.write("ran\\n")
print(json.dumps({{"apiVersion": info["apiVersion"], "kind": "ExecCredential",
                  "status": {{"token": "{token}"}}}}))
"""


def exec_plugin(tmp_path: Path, api_version: str, token: str) -> Path:
    """An executable exec credential plugin that answers ``token`` and logs each run."""
    path = tmp_path / "plugin.py"
    path.write_text(EXEC_PLUGIN.format(python=sys.executable, api_version=api_version,
                                       token=token))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path
