"""Exec credential plugins (``users[].user.exec``), as kubectl runs them.

lightkube's own exec auth knows only the v1alpha1/v1beta1 APIs and never sets
``KUBERNETES_EXEC_INFO``; kubectl supports ``client.authentication.k8s.io/v1`` too and
plugins such as kubelogin read that variable. This auth runs the plugin, caches the token
until ``status.expirationTimestamp`` and runs it again on a 401, as client-go does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from datetime import datetime

import httpx2 as httpx
import orjson
from lightkube.config.models import UserExec

from kubepreempt.api.errors import InputError

API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1",
                "client.authentication.k8s.io/v1alpha1")


class ExecCredentialAuth(httpx.Auth):
    """Bearer token from an exec credential plugin."""

    def __init__(self, spec: UserExec) -> None:
        if spec.apiVersion not in API_VERSIONS:
            raise InputError(f"exec credential plugin {spec.command!r}: apiVersion "
                             f"{spec.apiVersion!r} is not one of {', '.join(API_VERSIONS)}")
        self.spec = spec
        self._bearer: str | None = None
        self._expires: float | None = None  # epoch seconds; None: until a 401
        self._lock = threading.Lock()

    def _fresh(self) -> bool:
        return self._bearer is not None and (self._expires is None
                                             or time.time() < self._expires - 10)

    def run_plugin(self) -> str:
        """Run the plugin once and return its ``Bearer ...`` header value."""
        spec = self.spec
        env = dict(os.environ)
        env.update((v.name, v.value) for v in spec.env or [])
        interactive = sys.stdin.isatty()
        info: dict = {"apiVersion": spec.apiVersion, "kind": "ExecCredential",
                      "spec": {"interactive": interactive}}
        env["KUBERNETES_EXEC_INFO"] = orjson.dumps(info).decode()
        cmd = [spec.command, *(spec.args or [])]
        try:
            # stderr is inherited: plugins print prompts and device-code hints there.
            proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                                  stdin=None if interactive else subprocess.DEVNULL,
                                  check=False)
        except OSError as exc:
            hint = f" ({' '.join(spec.installHint.split())})" if spec.installHint else ""
            raise InputError(f"exec credential plugin {spec.command!r}: {exc.strerror}"
                             f"{hint}") from None
        if proc.returncode != 0:
            raise InputError(f"exec credential plugin {spec.command!r} exited with status "
                             f"{proc.returncode}")
        try:
            cred = orjson.loads(proc.stdout)
            status = cred["status"]
            token = status["token"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"exec credential plugin {spec.command!r} did not print an "
                             "ExecCredential with status.token (client certificates from "
                             "exec plugins are not supported)") from None
        self._expires = _parse_expiry(status.get("expirationTimestamp"))
        return f"Bearer {token}"

    def _token(self, rejected: str | None = None) -> str:
        """The cached header value, running the plugin when there is none, it expired, or it
        is the one the server just ``rejected`` (threads share this auth: one run)."""
        with self._lock:
            if not self._fresh() or (rejected is not None and self._bearer == rejected):
                self._bearer = self.run_plugin()
            assert self._bearer is not None
            return self._bearer

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request,
                                                                   httpx.Response, None]:
        bearer = self._token()
        request.headers["Authorization"] = bearer
        response = yield request
        if response.status_code == 401:
            request.headers["Authorization"] = self._token(rejected=bearer)
            yield request


def _parse_expiry(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
