"""Soak `kubepreempt watch` against a local fake API server that misbehaves as real ones do.

    python benchmarks/soak_watch.py                 # 100,000 pod events, about 13 minutes
    python benchmarks/soak_watch.py --events 20000  # a quick run, about 1 minute

Most of the time is the watch waiting out its backoff (800 ms doubling to 30 s, as
client-go's reflector): the faults come far closer together than 2 minutes apart.

The server (127.0.0.1 only) starts from the recorded kube-apiserver v1.36.2 cluster
(tests/live/recordings/) and streams pod events: pods created pending, bound and deleted,
and now and then a preemption (victims marked DisruptionTarget and deleted, the preemptor
nominated, bound, deleted; the victims recreated). The fake scheduler binds every small pod
to worker-10 whatever kubepreempt predicts: what counts here is that each decision is
compared exactly once, not whether it agrees. Each pods watch serves at most
``--chunk`` events and then, in turn, one fault: a normal end, a dropped connection, a
bookmark, an ERROR 410 event and an HTTP 410 (each after events the watch never sees, so the
re-list must stand for them), a deletion of a pod never seen, a 503 and a 429 with
Retry-After, an object of another kind, a malformed line, a slow server; every fourth list
answers 503 first. Events older than the last 20,000 are compacted (a watch from there gets
410). When every event is out and the watch has gone quiet, it is sent SIGTERM.

Printed: the watch process's resident memory per 10,000 events; comparisons lost (a pod the
watch predicted, whose scheduling action it could see — as an event or in a re-list — but
never compared; must be 0); comparisons double-counted (a pod compared more than once; must
be 0); and the exit status and last stderr line after SIGTERM (0, the summary).
Exit status 1 if any of those is wrong.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "tests" / "live" / "recordings"
LISTED = ("nodes", "namespaces", "priorityclasses", "poddisruptionbudgets", "services",
          "replicasets", "statefulsets")
FIRST_RV = 1000
HISTORY = 20_000  # events the fake etcd keeps; older resourceVersions are compacted
GAP = 300  # events that happen while the watch is away after a 410
FAULTS = ("end", "drop", "bookmark", "expired-event", "ghost-delete", "busy-503", "foreign",
          "malformed", "expired-http", "slow", "throttle-429")
DECISIONS = ("bound", "nominated", "unschedulable")


def recording(name: str) -> dict[str, Any]:
    return json.loads((RECORDINGS / f"{name}.json").read_text())


def status(code: int, reason: str, message: str) -> bytes:
    return orjson.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {},
                         "status": "Failure", "message": message, "reason": reason,
                         "code": code})


class FakeCluster:
    """The pods of a cluster as a fake etcd: current state, a bounded event history, and
    the ground truth of what the watch could have seen."""

    def __init__(self, total: int, preempt_every: int) -> None:
        self.lock = threading.Lock()
        body = json.loads(recording("pods-all")["body"])
        self.pods: dict[tuple[str, str], dict] = {
            (p["metadata"]["namespace"], p["metadata"]["name"]): p for p in body["items"]}
        self.rv = FIRST_RV
        self.history: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=HISTORY)
        self.total, self.preempt_every = total, preempt_every
        self.cycle = 0
        self.acted_seen: set[str] = set()  # pods whose scheduling action went out
        self.memory: list[tuple[int, int]] = []  # (events, RSS bytes of the watch)
        self.watch_pid: int | None = None
        self.sent_rv = 0  # the newest event written to a stream

    @property
    def events(self) -> int:
        return self.rv - FIRST_RV

    # ---- events --------------------------------------------------------------------
    def _emit(self, etype: str, obj: dict) -> None:
        self.rv += 1
        obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(self.rv)}}
        key = (obj["metadata"]["namespace"], obj["metadata"]["name"])
        if etype == "DELETED":
            self.pods.pop(key, None)
        else:
            self.pods[key] = obj
        self.history.append((self.rv, orjson.dumps({"type": etype, "object": obj})))

    def stray(self, fault: str) -> None:
        """An event that changes nothing stored: a deletion of a pod never created, or an
        object of another kind."""
        with self.lock:
            self.rv += 1
            if fault == "ghost-delete":
                line = {"type": "DELETED",
                        "object": new_pod(f"ghost-{self.rv}", "batch", "1", "1Gi", "batch-low")}
            else:
                node = json.loads(recording("nodes")["body"])["items"][0]
                line = {"type": "MODIFIED", "object": {"kind": "Node", "apiVersion": "v1", **node}}
            line["object"]["metadata"] = {**line["object"]["metadata"],
                                          "resourceVersion": str(self.rv)}
            self.history.append((self.rv, orjson.dumps(line)))

    def advance(self) -> None:
        """One more cycle of scheduler activity (caller holds the lock)."""
        i = self.cycle
        self.cycle += 1
        if self.preempt_every and i % self.preempt_every == self.preempt_every - 1:
            self._preemption(i)
        else:
            pod = new_pod(f"job-{i}", "batch", "10m", "16Mi", "batch-low")
            self._emit("ADDED", pod)
            self._emit("MODIFIED", bound(pod, "worker-10"))
            self._emit("DELETED", self.pods[("batch", f"job-{i}")])

    def _preemption(self, i: int) -> None:
        node = f"worker-{i % 10:02d}"
        victims = sorted((k for k, p in self.pods.items()
                          if k[0] == "batch" and p["spec"].get("nodeName") == node), key=str)
        pod = new_pod(f"pre-{i}", "shop", "2", "4Gi", "critical-web")
        self._emit("ADDED", pod)
        for key in victims:  # upstream: mark each victim, then delete it
            self._emit("MODIFIED", marked(self.pods[key]))
        for key in victims:
            self._emit("DELETED", self.pods[key])
        nominated = {**self.pods[("shop", f"pre-{i}")]}
        nominated["status"] = {**nominated["status"], "nominatedNodeName": node,
                               "conditions": [{"type": "PodScheduled", "status": "False",
                                               "reason": "Unschedulable",
                                               "message": "0/12 nodes are available"}]}
        self._emit("MODIFIED", nominated)
        self._emit("MODIFIED", bound(nominated, node))
        self._emit("DELETED", self.pods[("shop", f"pre-{i}")])
        for ns, name in victims:  # their controller recreates them
            self._emit("ADDED", bound(new_pod(name, ns, "700m", "2Gi", "batch-low"), node))

    def events_after(self, rv: int, limit: int) -> list[tuple[int, bytes]] | None:
        """Up to ``limit`` events after ``rv`` (None: ``rv`` was compacted away)."""
        with self.lock:
            while self.rv - rv < limit and self.events < self.total:
                self.advance()
            if rv < self.rv and (not self.history or rv < self.history[0][0] - 1):
                return None
            start = rv - self.history[0][0] + 1 if self.history else 0
            return [self.history[j] for j in range(max(start, 0),
                                                   min(start + limit, len(self.history)))]

    def gap(self) -> None:
        """Activity the watch does not see (it is away)."""
        with self.lock:
            target = min(self.rv + GAP, FIRST_RV + self.total)
            while self.rv < target:
                self.advance()

    def sent(self, line: bytes) -> None:
        """Note the scheduling action an event carried out to the watch."""
        obj = orjson.loads(line)["object"]
        self._acted(obj)
        self.sent_rv = max(self.sent_rv, int(obj["metadata"]["resourceVersion"]))
        self._sample()

    def _sample(self) -> None:
        """The watch's memory each time another 10,000 events have gone out."""
        while self.sent_rv - FIRST_RV >= 10_000 * (len(self.memory) + 1):
            self.memory.append((10_000 * (len(self.memory) + 1), rss(self.watch_pid)))

    def _acted(self, obj: dict) -> None:
        meta = obj.get("metadata") or {}
        if (obj.get("spec") or {}).get("nodeName") or (
                obj.get("status") or {}).get("nominatedNodeName"):
            self.acted_seen.add(f"{meta.get('namespace')}/{meta.get('name')}")

    def list_body(self) -> bytes:
        with self.lock:
            items = list(self.pods.values())
            for obj in items:
                self._acted(obj)
            self.sent_rv = max(self.sent_rv, self.rv)
            self._sample()
            return orjson.dumps({"kind": "PodList", "apiVersion": "v1",
                                 "metadata": {"resourceVersion": str(self.rv)},
                                 "items": items})


def new_pod(name: str, ns: str, cpu: str, memory: str, priority: str) -> dict:
    return {"metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}-{time.time_ns()}",
                         "labels": {"app": "soak"}},
            "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": cpu,
                                                                "memory": memory}}}],
                     "priorityClassName": priority, "schedulerName": "default-scheduler"},
            "status": {"phase": "Pending"}}


def bound(pod: dict, node: str) -> dict:
    return {**pod, "spec": {**pod["spec"], "nodeName": node},
            "status": {"phase": "Running", "startTime": "2026-11-24T04:00:00Z"}}


def marked(pod: dict) -> dict:
    return {**pod, "status": {**pod["status"], "conditions": [
        *pod["status"].get("conditions", []),
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
         "message": "default-scheduler: preempting to accommodate a higher priority pod"}]}}


def rss(pid: int | None) -> int:
    if pid is None:
        return 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Server:
    """The fake API server: recorded lists for every kind, the FakeCluster's pods."""

    def __init__(self, cluster: FakeCluster, chunk: int) -> None:
        self.cluster, self.chunk = cluster, chunk
        self.stopping = threading.Event()
        self.watches = 0
        self.lists = 0
        self.faults: collections.Counter[str] = collections.Counter()
        self.others = {urlsplit(recording(n)["request"]["path"]).path:
                       recording(n)["body"].encode() for n in LISTED}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                try:
                    if url.path == "/api/v1/pods":
                        server.pods(self, query)
                    elif "watch" in query:
                        server.idle_watch(self)
                    else:
                        body = server.others.get(url.path) or orjson.dumps(
                            {"kind": "List", "apiVersion": "v1",
                             "metadata": {"resourceVersion": "451"}, "items": []})
                        server.send(self, 200, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}"

    def send(self, h: BaseHTTPRequestHandler, code: int, body: bytes,
             headers: dict[str, str] | None = None) -> None:
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)

    def idle_watch(self, h: BaseHTTPRequestHandler) -> None:
        """A watch on a kind that never changes: open until the server's timeout."""
        self.start_stream(h)
        deadline = time.monotonic() + 300
        while not self.stopping.is_set() and time.monotonic() < deadline:
            time.sleep(0.5)
        self.end_stream(h)

    def start_stream(self, h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True

    def line(self, h: BaseHTTPRequestHandler, data: bytes) -> None:
        data += b"\n"
        h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        h.wfile.flush()

    def end_stream(self, h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()

    def pods(self, h: BaseHTTPRequestHandler, query: dict[str, list[str]]) -> None:
        if "watch" not in query:
            self.lists += 1
            if self.lists % 4 == 0:
                self.faults["list-503"] += 1
                self.send(h, 503, status(503, "ServiceUnavailable", "etcd leader changed"),
                          {"Retry-After": "1"})
                return
            self.send(h, 200, self.cluster.list_body())
            return
        rv = int(query["resourceVersion"][0])
        cluster = self.cluster
        if cluster.events >= cluster.total:  # all out: hand over the rest, then stay open
            events = cluster.events_after(rv, HISTORY)
            if events is None:
                self.send(h, 410, status(410, "Expired", "too old resource version"))
                return
            self.start_stream(h)
            for _, data in events:
                self.line(h, data)
                cluster.sent(data)
            while not self.stopping.is_set():
                time.sleep(0.2)
            self.end_stream(h)
            return
        self.watches += 1
        fault = FAULTS[self.watches % len(FAULTS)]
        self.faults[fault] += 1
        if fault == "busy-503":
            self.send(h, 503, status(503, "ServiceUnavailable", "the server is shutting down"),
                      {"Retry-After": "1"})
            return
        if fault == "throttle-429":
            self.send(h, 429, status(429, "TooManyRequests",
                                     "Too many requests, please try again later."),
                      {"Retry-After": "1"})
            return
        if fault == "expired-http":
            cluster.gap()
            self.send(h, 410, status(410, "Expired", "too old resource version"))
            return
        if fault in ("ghost-delete", "foreign"):
            cluster.stray(fault)  # the newest event: this watch or a later one carries it
        events = cluster.events_after(rv, self.chunk)
        if events is None:  # compacted while it was away
            self.send(h, 410, status(410, "Expired", "too old resource version"))
            return
        half = len(events) // 2
        self.start_stream(h)
        for n, (_, data) in enumerate(events):
            if n == half:
                if fault == "drop":
                    h.wfile.flush()
                    h.connection.shutdown(2)  # mid-stream, no final chunk
                    return
                if fault == "malformed":
                    self.line(h, b'{"type":"MODIFIED","object":{"metadata":')
                    self.end_stream(h)
                    return
                if fault == "expired-event":
                    cluster.gap()
                    self.line(h, orjson.dumps({"type": "ERROR", "object": orjson.loads(status(
                        410, "Expired", "The resourceVersion for the provided watch is too "
                        "old."))}))
                    self.end_stream(h)
                    return
            if fault == "slow" and n < 5:
                time.sleep(0.3)
            self.line(h, data)
            cluster.sent(data)
        if fault == "bookmark":
            self.line(h, orjson.dumps({"type": "BOOKMARK", "object": {
                "kind": "Pod", "apiVersion": "v1",
                "metadata": {"resourceVersion": str(events[-1][0] if events else rv)}}}))
        self.end_stream(h)


def kubeconfig(path: Path, url: str) -> Path:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "soak",
        "clusters": [{"name": "soak", "cluster": {"server": url}}],
        "contexts": [{"name": "soak", "context": {"cluster": "soak", "user": "soak"}}],
        "users": [{"name": "soak", "user": {"token": "soak-token"}}]}))
    return path


def read_lines(stream, out: dict[str, Any]) -> None:
    """Count the watch's stdout: predictions and decision lines per soak pod."""
    for raw in stream:
        line = orjson.loads(raw)
        out["last"] = time.monotonic()
        out["lines"] += 1
        pod = line.get("pod") or ""
        if not pod.startswith(("batch/job-", "shop/pre-")):
            continue
        if line["event"] == "prediction":
            out["predicted"].add(pod)
        elif line["event"] == "actual" and line["action"] in DECISIONS:
            out["decisions"][pod] += 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000, help="pod events to stream")
    ap.add_argument("--chunk", type=int, default=2_000, help="events per watch at most")
    ap.add_argument("--preempt-every", type=int, default=25,
                    help="one cycle in N is a preemption")
    args = ap.parse_args()

    cluster = FakeCluster(args.events, args.preempt_every)
    server = Server(cluster, args.chunk)
    threading.Thread(target=server.http.serve_forever, daemon=True).start()
    tmp = Path(tempfile.mkdtemp(prefix="soak-watch-"))
    report = tmp / "report.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubepreempt", "watch", "--kubeconfig",
         str(kubeconfig(tmp / "kubeconfig", server.url)), "-o", "json",
         "--report", str(report)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "HOME": str(tmp), "KUBECONFIG": ""})
    cluster.watch_pid = proc.pid
    out: dict[str, Any] = {"last": time.monotonic(), "lines": 0, "predicted": set(),
                           "decisions": collections.Counter()}
    reader = threading.Thread(target=read_lines, args=(proc.stdout, out), daemon=True)
    reader.start()
    errs: list[bytes] = []
    threading.Thread(target=lambda: errs.extend(proc.stderr), daemon=True).start()
    start = time.monotonic()
    # Done when every event is out and the watch has said nothing for 3 s.
    while proc.poll() is None:
        time.sleep(0.5)
        done = cluster.events >= args.events and cluster.sent_rv >= cluster.rv
        if done and time.monotonic() - out["last"] > 3:
            break
        if time.monotonic() - start > 3600:
            print("soak: gave up after an hour", file=sys.stderr)
            break
    elapsed = time.monotonic() - start
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    server.stopping.set()
    reader.join(5)
    time.sleep(0.2)
    stderr = b"".join(errs).decode()
    server.http.shutdown()

    expected = out["predicted"] & cluster.acted_seen
    decided = out["decisions"]
    lost = sorted(expected - set(decided))
    doubled = sum(n - 1 for n in decided.values() if n > 1)
    tally = json.loads(report.read_text()) if report.exists() else {}
    summary = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    print(f"soak: {cluster.events:,} pod events in {elapsed:.0f} s, "
          f"{server.watches} pods watches, {server.lists} pods lists; "
          f"faults: {dict(sorted(server.faults.items()))}")
    print("events   watch RSS (MB)")
    for events, size in cluster.memory:
        print(f"{events:>7,}  {size / 2**20:8.1f}")
    if len(cluster.memory) >= 3:
        base = cluster.memory[1][1]
        print(f"growth after the first 20,000 events: "
              f"{(cluster.memory[-1][1] - base) / 2**20:+.1f} MB")
    print(f"pods predicted then acted on where the watch could see it: {len(expected):,}")
    print(f"comparisons lost: {len(lost)}" + (f" (e.g. {lost[:5]})" if lost else ""))
    print(f"comparisons double-counted: {doubled}")
    print(f"report: compared {tally.get('compared')}, agree {tally.get('agree')}, "
          f"differ {tally.get('differ')}; decision lines {sum(decided.values())}")
    print(f"SIGTERM: exit status {code}; last stderr line: {summary!r}")
    tracebacks = "Traceback" in stderr
    if tracebacks:
        print("a traceback was printed:\n" + stderr[-3000:])
    ok = (not lost and not doubled and code == 0 and summary.startswith("stopped: ")
          and not tracebacks and len(cluster.memory) >= 1)
    print("soak: " + ("OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
