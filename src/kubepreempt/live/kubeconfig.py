"""Find the cluster and credentials the way kubectl does.

Order (client-go's default loading rules): ``--kubeconfig FILE``, else the ``KUBECONFIG``
list (files merged, the first file to set a value wins), else ``~/.kube/config`` when it
exists, else the in-cluster service account. ``--context`` picks a context, else the
kubeconfig's ``current-context``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from lightkube.config.kubeconfig import SERVICE_ACCOUNT, KubeConfig, SingleConfig
from lightkube.core.exceptions import ConfigError

from kubepreempt.api.errors import InputError, Source

DEFAULT_KUBECONFIG = "~/.kube/config"


@dataclass(frozen=True, slots=True)
class Target:
    """One resolved context: what to connect to and how to name it in messages."""

    config: SingleConfig
    label: str  # e.g. "context kind-dev (https://127.0.0.1:6443)"

    @property
    def server(self) -> str:
        """The API server URL."""
        return self.config.cluster.server

    @property
    def namespace(self) -> str:
        """The context's namespace (``default`` when it sets none), as kubectl uses it."""
        return self.config.namespace


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise InputError(f"cannot read kubeconfig: {exc.strerror}", Source(str(path))) \
            from None
    except yaml.MarkedYAMLError as exc:  # where and what, in one line (no YAML excerpt)
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise InputError(f"{where}{exc.problem or exc.context or 'malformed YAML'}",
                         Source(str(path))) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed kubeconfig YAML: {exc}", Source(str(path))) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("kubeconfig is not a mapping", Source(str(path)))
    return data


def merge_kubeconfigs(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge kubeconfig files as kubectl merges ``KUBECONFIG``: the first file that defines
    a named cluster, context or user (or ``current-context``) wins."""
    merged: dict[str, Any] = {"clusters": [], "contexts": [], "users": []}
    for doc in docs:
        if "current-context" not in merged and doc.get("current-context"):
            merged["current-context"] = doc["current-context"]
        for section in ("clusters", "contexts", "users"):
            have = {e.get("name") for e in merged[section]}
            for entry in doc.get(section) or []:
                if isinstance(entry, dict) and entry.get("name") not in have:
                    merged[section].append(entry)
                    have.add(entry.get("name"))
    return merged


def _kubeconfig_paths(kubeconfig: str | None) -> list[Path]:
    if kubeconfig:
        path = Path(kubeconfig).expanduser()
        if not path.is_file():
            raise InputError(f"--kubeconfig {kubeconfig}: no such file")
        return [path]
    env = os.environ.get("KUBECONFIG", "")
    listed = [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    if listed:
        return [p for p in listed if p.is_file()]  # kubectl skips missing entries
    default = Path(DEFAULT_KUBECONFIG).expanduser()
    return [default] if default.is_file() else []


def resolve(kubeconfig: str | None = None, context: str | None = None,
            service_account: str = SERVICE_ACCOUNT) -> Target:
    """The context to use, or a one-line InputError saying why there is none."""
    paths = _kubeconfig_paths(kubeconfig)
    if not paths:
        if context:
            raise InputError(f"--context {context}: no kubeconfig found (KUBECONFIG, "
                             f"{DEFAULT_KUBECONFIG})")
        return _in_cluster(service_account)
    conf = merge_kubeconfigs([_read_yaml(p) for p in paths])
    where = ", ".join(str(p) for p in paths)
    try:
        kc = KubeConfig.from_dict(conf, fname=paths[0])
        name = context or kc.current_context
        if not name:
            raise InputError(f"{where}: kubeconfig has no current-context; pass --context")
        if name not in kc.contexts:
            raise InputError(f"{where}: context {name!r} not found (contexts: "
                             f"{', '.join(sorted(kc.contexts)) or 'none'})")
        ctx = kc.contexts[name]
        if ctx.cluster not in kc.clusters:
            raise InputError(f"{where}: context {name!r} names cluster {ctx.cluster!r}, "
                             "which is not defined")
        if ctx.user and ctx.user not in kc.users:
            raise InputError(f"{where}: context {name!r} names user {ctx.user!r}, "
                             "which is not defined")
        single = kc.get(name)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{where}: invalid kubeconfig: {exc}") from None
    assert single is not None
    return Target(single, f"context {name} ({single.cluster.server})")


def _in_cluster(service_account: str) -> Target:
    if not os.environ.get("KUBERNETES_SERVICE_HOST"):
        raise InputError(f"no kubeconfig found (--kubeconfig, KUBECONFIG, "
                         f"{DEFAULT_KUBECONFIG}) and not running in a pod")
    try:
        kc = KubeConfig.from_service_account(service_account)
    except (ConfigError, KeyError) as exc:
        raise InputError(f"in-cluster config: {exc}") from None
    single = kc.get()
    assert single is not None
    return Target(single, f"in-cluster service account ({single.cluster.server})")
