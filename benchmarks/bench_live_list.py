"""Listing pods over HTTP vs just parsing the same bytes (issue 13: "listing 50,000 pods must
cost little more than downloading and parsing them").

    python benchmarks/bench_live_list.py --nodes 5000 --pods 50000

Serves the pods of a `gen_dump.py` cluster as `PodList` pages of 500 from a local HTTP
server (what kube-apiserver sends: items without kind/apiVersion), then times
(a) fetching every page with a bare httpx client and parsing it with orjson, and
(b) `kubepreempt.live.lister.list_all` (the same, plus auth, kind/apiVersion per item).
Each is the best of five.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
import orjson

sys.path.insert(0, str(Path(__file__).parent))
from gen_dump import dump  # noqa: E402

from kubepreempt.live.client import ApiClient  # noqa: E402
from kubepreempt.live.kubeconfig import resolve  # noqa: E402
from kubepreempt.live.lister import list_all  # noqa: E402
from kubepreempt.live.resources import RESOURCES  # noqa: E402
from kubepreempt.manifests import paused_gc  # noqa: E402


def pages(pods: list[dict], size: int) -> dict[str, bytes]:
    out = {}
    for start in range(0, len(pods), size):
        chunk = [{k: v for k, v in p.items() if k not in ("kind", "apiVersion")}
                 for p in pods[start:start + size]]
        token = str(start + size) if start + size < len(pods) else ""
        meta = {"resourceVersion": "1", **({"continue": token} if token else {})}
        out[str(start)] = orjson.dumps({"kind": "PodList", "apiVersion": "v1",
                                        "metadata": meta, "items": chunk})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    args = ap.parse_args()
    pods = [o for o in dump(args.nodes, args.pods)["items"] if o["kind"] == "Pod"]
    body = pages(pods, 500)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as kube-apiserver

        def do_GET(self) -> None:  # noqa: N802 - http.server's API
            q = parse_qs(urlsplit(self.path).query)
            data = body[q.get("continue", ["0"])[0]]  # the token is the page's offset
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    kc = Path("/tmp/bench-live-kubeconfig.json")
    kc.write_text(orjson.dumps({
        "current-context": "b", "clusters": [{"name": "b", "cluster": {"server": url}}],
        "contexts": [{"name": "b", "context": {"cluster": "b", "user": "b"}}],
        "users": [{"name": "b", "user": {"token": "t"}}]}).decode())

    def fetch() -> float:
        """Every page with a bare httpx client, each parsed by orjson (to follow continue)."""
        with httpx.Client(base_url=url) as c:
            t = time.perf_counter()
            params: dict = {"limit": 500}
            while True:
                doc = orjson.loads(c.get("/api/v1/pods", params=params).content)
                token = doc["metadata"].get("continue")
                if not token:
                    return time.perf_counter() - t
                params = {"limit": 500, "continue": token}

    with paused_gc():  # as list_all does: compare transfer and parsing, not the collector
        parsed = min(fetch() for _ in range(5))
    best = float("inf")
    for _ in range(5):
        with ApiClient(resolve(str(kc))) as client:
            t = time.perf_counter()
            result = list_all(client, RESOURCES["Pod"])
            best = min(best, time.perf_counter() - t)
    assert len(result.items) == len(pods)
    mib = sum(len(b) for b in body.values()) / 2**20
    print(f"{len(pods)} pods, {len(body)} pages, {mib:.0f} MiB: "
          f"download+orjson {parsed:.2f} s, list_all {best:.2f} s "
          f"({best / parsed:.2f}x download+parse)")
    server.shutdown()


if __name__ == "__main__":
    main()
