"""``--kube-version`` and ``--feature-gates``: the options every deciding command shares.

A command opts in with one decorator under ``@app.command`` (as with
:func:`kubepreempt.live.options.live_input`)::

    @app.command("schedule")
    @live_input(SCHEDULER_KINDS)
    @kube_release
    def schedule_cmd(...):
        docs = load_input(files)
        chosen = current_modelled()     # the Release and gates to decide with

Given explicitly, the two options are checked before any input is read (an unknown
release or gate is a one-line error, exit 2). Without ``--kube-version`` the release is
:data:`kubepreempt.release.DEFAULT_RELEASE`, or with ``--cluster`` the server's own minor
version when it is modelled, else the nearest modelled one, said on stderr.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import typer

from kubepreempt.option_signature import add_keyword_options
from kubepreempt.release import (
    DEFAULT_RELEASE,
    MODELLED,
    RELEASES,
    Modelled,
    nearest,
    parse_gates,
    release_for,
    with_gates,
)

F = TypeVar("F", bound=Callable[..., Any])

PANEL = "Kubernetes release"
KUBE_VERSION_HELP = (f"Kubernetes release to model: {' or '.join(MODELLED)} (default "
                     f"{DEFAULT_RELEASE}; with --cluster, the server's own release).")
FEATURE_GATES_HELP = ("kube-scheduler feature gates, as its --feature-gates flag takes "
                      "them: NAME=true|false,... (checked against the release's gates).")

_OPTIONS: dict[str, Any] = {
    "kube_version": (str | None, typer.Option(
        "--kube-version", metavar="|".join(MODELLED), help=KUBE_VERSION_HELP,
        rich_help_panel=PANEL), None),
    "feature_gates": (str | None, typer.Option(
        "--feature-gates", metavar="NAME=BOOL,...", help=FEATURE_GATES_HELP,
        rich_help_panel=PANEL), None),
}


@dataclass(slots=True)
class _Asked:
    """What the user gave, and the answer once resolved (warnings print once)."""

    version: str | None = None
    gates: dict[str, bool] = field(default_factory=dict)
    resolved: Modelled | None = None


_current: ContextVar[_Asked | None] = ContextVar("kubepreempt_release", default=None)


def kube_release(fn: F) -> F:
    """Decorator: add ``--kube-version`` and ``--feature-gates`` to a command."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        version = kwargs.pop("kube_version", None)
        gates_text = kwargs.pop("feature_gates", None)
        asked = _Asked(version, parse_gates(gates_text) if gates_text else {})
        if version is not None:  # fail before reading anything
            asked.resolved = with_gates(release_for(version), asked.gates)
        token = _current.set(asked)
        try:
            return fn(*args, **kwargs)
        finally:
            _current.reset(token)

    return add_keyword_options(fn, wrapper, _OPTIONS)  # type: ignore[return-value]


def current_modelled(server: str | None = None) -> Modelled:
    """The release and gates the running command decides with (see the module doc);
    ``server`` is the cluster's version when the command read it itself (``watch``)."""
    asked = _current.get() or _Asked()
    if asked.resolved is None:
        asked.resolved = with_gates(RELEASES[_default_version(server)], asked.gates)
    return asked.resolved


def release_chosen() -> bool:
    """Whether ``--kube-version`` was given (the cluster's version is then not needed)."""
    asked = _current.get()
    return asked is not None and asked.version is not None


def _default_version(server: str | None = None) -> str:
    """1.37, or with --cluster the server's release (the nearest modelled one)."""
    from kubepreempt.live.options import current, server_version

    if not current().live:
        return DEFAULT_RELEASE
    server = server or server_version()
    if server is None:
        print(f"warning: the cluster did not say its Kubernetes version; modelling "
              f"{DEFAULT_RELEASE} (--kube-version chooses)", file=sys.stderr)
        return DEFAULT_RELEASE
    if server in RELEASES:
        return server
    chosen = nearest(server)
    print(f"warning: the cluster runs Kubernetes {server}, which kubepreempt does not "
          f"model; modelling the nearest release, {chosen} (--kube-version chooses)",
          file=sys.stderr)
    return chosen


def modelled_json(kueue_version: str | None = None) -> dict[str, Any]:
    """The ``modelled`` object of the running command's JSON output; ``kueue_version``
    (``--kueue-version``) names the Kueue release when Kueue decides."""
    kueue = None
    if kueue_version is not None:
        from kubepreempt.kueue.semantics import CURRENT, CURRENT_RELEASE, semantics_for

        version = semantics_for(kueue_version).version
        kueue = CURRENT_RELEASE if version == CURRENT else version
    return current_modelled().to_json(kueue=kueue)
