"""A local HTTP server on 127.0.0.1 that replays recorded kube-apiserver v1.36.2 answers.

``recordings/`` holds one exchange per file (see recordings/README.md); each list is served
at its recorded path for any query string, and a kubeconfig pointing at the server with a
bearer token is written for the test.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

RECORDINGS = Path(__file__).parent / "recordings"
# The replay server's access log would land in the stderr the CLI tests check.
logging.getLogger("werkzeug").setLevel(logging.WARNING)
TOKEN = "test-token-123"
LISTS = ("nodes", "namespaces", "priorityclasses", "poddisruptionbudgets", "services",
         "replicasets", "statefulsets", "pods-all")


def recording(name: str) -> dict:
    """One recorded exchange."""
    return json.loads((RECORDINGS / f"{name}.json").read_text())


def recorded_path(name: str) -> str:
    """The URL path (no query) of a recorded request."""
    return urlsplit(recording(name)["request"]["path"]).path


def recorded_query(name: str) -> str:
    """The query string of a recorded request."""
    return urlsplit(recording(name)["request"]["path"]).query


def response(name: str) -> Response:
    """The recorded response, status and body as the server sent them."""
    rec = recording(name)
    return Response(rec["body"], status=rec["status"], content_type="application/json")


def list_body(name: str) -> dict:
    """The parsed body of a recorded list."""
    return json.loads(recording(name)["body"])


# Kinds that became scheduler inputs after the recordings were made. The recorded cluster
# had none of them, so each list is the empty list kube-apiserver would send.
UNRECORDED = {
    "/apis/node.k8s.io/v1/runtimeclasses": ("RuntimeClass", "node.k8s.io/v1"),
    "/api/v1/replicationcontrollers": ("ReplicationController", "v1"),
    "/api/v1/resourcequotas": ("ResourceQuota", "v1"),
}
EMPTY_LISTS = {path: {"kind": f"{kind}List", "apiVersion": version,
                      "metadata": {"resourceVersion": "451"}, "items": []}
               for path, (kind, version) in UNRECORDED.items()}


# Kubernetes 1.37's workload API (scheduling.k8s.io/v1beta1, GenericWorkload): the
# recorded v1.36 server does not serve it, so its collections answer 404 as
# kube-apiserver does for a group version it does not serve.
NOT_SERVED = ("/apis/scheduling.k8s.io/v1beta1/podgroups",
              "/apis/scheduling.k8s.io/v1beta1/workloads")
NOT_FOUND = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": "the server could not find the requested resource",
             "reason": "NotFound", "details": {}, "code": 404}


def serve_not_served(server: HTTPServer) -> None:
    """404 for the workload API's collections (the API is off)."""
    for path in NOT_SERVED:
        server.expect_request(path, method="GET").respond_with_json(NOT_FOUND, status=404)


def serve_unrecorded(server: HTTPServer) -> None:
    """The unrecorded kinds' empty lists, and empty watch streams."""
    serve_not_served(server)
    for path, body in EMPTY_LISTS.items():
        def handler(request: Request, body: dict = body) -> Response:
            if "watch=1" in request.query_string.decode():
                return Response("", status=200, content_type="application/json")
            return Response(json.dumps(body), content_type="application/json")

        server.expect_request(path).respond_with_handler(handler)


# GET /version of the recorded server (kube-apiserver v1.36.2): the release modelled by
# default with --cluster.
VERSION = {"major": "1", "minor": "36", "gitVersion": "v1.36.2", "platform": "linux/amd64"}


def serve_lists(server: HTTPServer, token: str | None = TOKEN, skip: tuple[str, ...] = ()
                ) -> None:
    """Serve every recorded list at its path (any query), requiring the bearer token,
    and the server's version."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    server.expect_request("/version", method="GET").respond_with_json(VERSION)
    for name in LISTS:
        if name in skip:
            continue
        server.expect_request(recorded_path(name), method="GET",
                              headers=headers).respond_with_response(response(name))
    for path, body in EMPTY_LISTS.items():
        server.expect_request(path, method="GET", headers=headers).respond_with_json(body)
    serve_not_served(server)


def write_kubeconfig(path: Path, server: str, user: dict, namespace: str | None = None,
                     cluster: dict | None = None) -> Path:
    """A one-context kubeconfig (context ``test``)."""
    ctx: dict = {"cluster": "test", "user": "test"}
    if namespace:
        ctx["namespace"] = namespace
    conf = {"apiVersion": "v1", "kind": "Config", "current-context": "test",
            "clusters": [{"name": "test", "cluster": {"server": server, **(cluster or {})}}],
            "contexts": [{"name": "test", "context": ctx}],
            "users": [{"name": "test", "user": user}]}
    path.write_text(json.dumps(conf))
    return path


@pytest.fixture
def httpserver() -> Iterator[HTTPServer]:
    """A threaded server on 127.0.0.1 (watch streams stay open while lists are served)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def kubeconfig(tmp_path: Path, httpserver: HTTPServer) -> Path:
    """A token kubeconfig for the replay server."""
    return write_kubeconfig(tmp_path / "kubeconfig", httpserver.url_for("/").rstrip("/"),
                            {"token": TOKEN})


@pytest.fixture
def apiserver(httpserver: HTTPServer) -> HTTPServer:
    """The replay server with every recorded list."""
    serve_lists(httpserver)
    return httpserver


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never read the developer's own kubeconfig or in-cluster settings."""
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def query_of(request: Request) -> str:
    """The raw query string of a served request."""
    return request.query_string.decode()
