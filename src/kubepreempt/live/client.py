"""HTTP to the API server: GET a JSON body or stream watch lines; errors in one line.

The httpx client (base URL, TLS verification, client certificate, bearer token) comes from
lightkube's kubeconfig adapter; responses are bytes for orjson, never model objects.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn

import httpx2 as httpx
import orjson
from lightkube.config.client_adapter import ConnectionParams
from lightkube.core.exceptions import ConfigError

from kubepreempt.api.errors import InputError
from kubepreempt.live.exec_auth import ExecCredentialAuth
from kubepreempt.live.kubeconfig import Target
from kubepreempt.live.resources import Resource

RBAC_HINT = "see docs/LIVE.md and examples/live/rbac.yaml for a read-only ClusterRole"


class Expired(Exception):
    """HTTP 410 Gone / reason Expired: a continue token or resourceVersion is too old."""


class Unreachable(InputError):
    """The API server could not be reached (a watch retries; a one-shot list exits 2)."""


class ServerBusy(InputError):
    """HTTP 429 or 5xx: the server is overloaded or failing, not refusing us. A watch
    retries (after ``retry_after`` seconds when the server said so); a one-shot command
    retries only as often as the server's ``Retry-After`` asks, then exits 2."""

    def __init__(self, detail: str, retry_after: float | None = None, retries: int = 0) -> None:
        said = ("not retried: the server sent no Retry-After" if retry_after is None
                else f"{retries} {'retry' if retries == 1 else 'retries'} as its "
                     "Retry-After asked")
        super().__init__(f"{detail} ({said})")
        self.detail, self.retry_after, self.retries = detail, retry_after, retries


MAX_RETRIES = 10  # client-go's rest client: retries of a 429/5xx that carries Retry-After


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a 429 or 5xx asks the client to wait (``Retry-After``, an integer, as
    client-go's ``checkWait`` reads it); None when the status or header does not ask."""
    code = response.status_code
    if code != 429 and not 500 <= code <= 599:
        return None
    try:
        seconds = int(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return float(max(seconds, 0))


class NotServed(Exception):
    """HTTP 404 on a collection: the API (e.g. a CRD or metrics.k8s.io) is not installed."""


def status_message(body: bytes) -> str:
    """The ``message`` of a ``kind: Status`` body (or the raw text, shortened)."""
    try:
        doc = orjson.loads(body)
        if isinstance(doc, dict) and doc.get("message"):
            return str(doc["message"])
    except orjson.JSONDecodeError:
        pass
    return body[:200].decode("utf-8", "replace")


class ApiClient:
    """A read-only connection to one API server."""

    def __init__(self, target: Target, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None,
                 share_auth_with: ApiClient | None = None, max_retries: int = MAX_RETRIES,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        """Connect to ``target``; ``share_auth_with`` reuses another client's credentials
        (one exec-plugin run and token cache for all of a watch's connections).
        ``max_retries``: GETs answered 429/5xx with ``Retry-After`` are sent again up to this
        many times, after waiting as asked (0: the caller retries, as a watch does)."""
        self.target = target
        self.max_retries, self.sleep = max_retries, sleep
        self.discovery: dict[str, Any] = {}  # API discovery documents by path
        params = ConnectionParams(timeout=httpx.Timeout(timeout, connect=10.0),
                                  transport=transport)
        user = target.config.user
        try:
            kwargs = params.httpx_params(target.config) if user else _anonymous(target, params)
        except ConfigError as exc:
            msg = str(exc)
            if "auth-provider" in msg:
                msg = ("auth-provider (the removed in-tree gcp/azure/oidc plugins) is not "
                       "supported; use an exec credential plugin, as kubectl does")
            raise InputError(f"{target.label}: {msg}") from None
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise InputError(f"{target.label}: cannot set up TLS (certificate authority or "
                             f"client certificate): {exc}") from None
        if user is not None and user.exec is not None and not (user.token or user.token_file):
            kwargs["auth"] = ExecCredentialAuth(user.exec)
        if share_auth_with is not None:
            kwargs["auth"] = share_auth_with.http.auth
        self.http = httpx.Client(**kwargs)

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fail(self, verb: str, res: Resource | None, path: str,
              response: httpx.Response, retries: int = 0) -> NoReturn:
        code = response.status_code
        message = status_message(response.content)
        if code == 410:
            raise Expired(message)
        if code == 404 and res is not None:
            raise NotServed(message)
        what = res.describe() if res is not None else path
        if code == 401:
            raise InputError(f"{self.target.label}: unauthorized (401): the server rejected "
                             "the credentials; refresh them as for kubectl")
        if code == 403:
            raise InputError(f"{self.target.label}: forbidden: missing permission to {verb} "
                             f"{what} (the server said: {message}); {RBAC_HINT}")
        failed = f"{self.target.label}: {verb} {what} failed: HTTP {code}: {message}"
        if code == 429 or 500 <= code <= 599:
            raise ServerBusy(failed, retry_after(response), retries)
        raise InputError(failed)

    def _unreachable(self, exc: Exception) -> Unreachable:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return Unreachable(f"cannot reach the cluster ({self.target.label}): {reason}")

    def get(self, path: str, params: Mapping[str, Any] | None = None, verb: str = "get",
            res: Resource | None = None) -> bytes:
        """The body of a successful GET (raises InputError, ServerBusy, Expired or NotServed).

        A 429 or 5xx with ``Retry-After`` is sent again after the wait it asks for, up to
        ``max_retries`` times, as client-go's rest client does."""
        retries = 0
        while True:
            try:
                response = self.http.get(path, params=params,
                                         headers={"Accept": "application/json"})
            except httpx.TransportError as exc:
                raise self._unreachable(exc) from None
            if response.status_code == 200:
                return response.content
            wait = retry_after(response)
            if wait is None or retries >= self.max_retries:
                self._fail(verb, res, path, response, retries)
            retries += 1
            self.sleep(wait)

    @contextmanager
    def stream_lines(self, path: str, params: Mapping[str, Any], res: Resource,
                     read_timeout: float) -> Iterator[Iterator[str]]:
        """A watch: yields an iterator of the stream's lines (one JSON event each)."""
        timeout = httpx.Timeout(read_timeout, connect=10.0)
        try:
            with self.http.stream("GET", path, params=params, timeout=timeout,
                                  headers={"Accept": "application/json"}) as response:
                if response.status_code != 200:
                    response.read()
                    self._fail("watch", res, path, response)
                yield _lines(response)
        except (httpx.TransportError, httpx.DecodingError) as exc:  # a body cut or garbled
            raise self._unreachable(exc) from None


def _lines(response: httpx.Response) -> Iterator[str]:
    for line in response.iter_lines():
        if line.strip():
            yield line


def _anonymous(target: Target, params: ConnectionParams) -> dict[str, Any]:
    """httpx arguments for a context without a user (no credentials)."""
    from lightkube.config.client_adapter import verify_cluster
    from lightkube.config.models import User

    conf = target.config
    verify = verify_cluster(conf.cluster, User(), conf.abs_file, trust_env=params.trust_env)
    return dict(base_url=conf.cluster.server, verify=verify, auth=None,
                timeout=params.timeout, trust_env=params.trust_env,
                transport=params.transport)
