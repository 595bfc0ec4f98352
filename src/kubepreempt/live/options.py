"""The live-input options every manifest-reading command shares, and its loader.

A command opts in with one decorator under ``@app.command``::

    @app.command("schedule")
    @live_input(SCHEDULER_KINDS)
    def schedule_cmd(files: FilesArg = None, ...):
        docs = load_input(files)          # files, the cluster, or both
        key = qualify(pod)                # "name" -> "<namespace>/name"

The decorator adds ``--cluster``, ``--kubeconfig``, ``--context``, ``-n/--namespace`` and
``--save`` to the command's signature (so the command's own code stays as it was) and
hands their values to :func:`load_input` and :func:`qualify` for the call.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import typer

from kubepreempt.api.errors import InputError
from kubepreempt.api.names import DEFAULT_NAMESPACE, object_key
from kubepreempt.manifests import Documents, check_duplicates, load_documents
from kubepreempt.option_signature import add_keyword_options

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class LiveArgs:
    """What the user asked for: files, a cluster, or both."""

    cluster: bool = False
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    save: str | None = None
    kinds: tuple[str, ...] = ()
    json_output: bool = False

    @property
    def live(self) -> bool:
        """Read from a cluster (``--cluster``, or implied by --kubeconfig/--context)."""
        return self.cluster or self.kubeconfig is not None or self.context is not None


_OPTIONS: dict[str, Any] = {
    "live_cluster": (bool, typer.Option(
        "--cluster", help="Read the cluster of the current kubeconfig context (read-only).",
        rich_help_panel="Live cluster"), False),
    "live_kubeconfig": (str | None, typer.Option(
        "--kubeconfig", help="Kubeconfig file (implies --cluster; default: KUBECONFIG, "
        "~/.kube/config, then the in-cluster service account).",
        rich_help_panel="Live cluster"), None),
    "live_context": (str | None, typer.Option(
        "--context", help="Kubeconfig context (implies --cluster).",
        rich_help_panel="Live cluster"), None),
    "live_namespace": (str | None, typer.Option(
        "-n", "--namespace", help="Namespace of names given without one (default: the "
        "context's namespace with --cluster, else default).", rich_help_panel="Live cluster"),
        None),
    "live_save": (str | None, typer.Option(
        "--save", help="Write what was read from the cluster to FILE as a kind: List dump.",
        rich_help_panel="Live cluster"), None),
}

# The manifests argument of every command that reads a cluster (files, or --cluster).
FilesArg = Annotated[list[str] | None, typer.Argument(
    help="Manifest files, directories, or - for stdin (or --cluster).")]

_current: ContextVar[LiveArgs | None] = ContextVar("kubepreempt_live_args", default=None)
# The kubeconfig context's namespace, once --cluster has resolved it (kubectl's default).
_context_namespace: ContextVar[str | None] = ContextVar("kubepreempt_ctx_ns", default=None)
# The cluster's ``major.minor`` once --cluster has read it (the release modelled by default).
_server_version: ContextVar[str | None] = ContextVar("kubepreempt_server_version",
                                                     default=None)


def live_input(kinds: Iterable[str]) -> Callable[[F], F]:
    """Decorator: add the live-cluster options to a command that reads ``kinds``."""
    kinds = tuple(kinds)

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name, default)
                      for name, (_, _, default) in _OPTIONS.items()}
            output = kwargs.get("output")
            ns_token = _context_namespace.set(None)
            version_token = _server_version.set(None)
            token = _current.set(LiveArgs(
                values["live_cluster"], values["live_kubeconfig"], values["live_context"],
                values["live_namespace"], values["live_save"], kinds,
                output in ("json", "yaml")))
            try:
                return fn(*args, **kwargs)
            finally:
                _current.reset(token)
                _context_namespace.reset(ns_token)
                _server_version.reset(version_token)

        return add_keyword_options(fn, wrapper, _OPTIONS)  # type: ignore[return-value]

    return wrap


def current() -> LiveArgs:
    """The live options of the running command (defaults outside one)."""
    return _current.get() or LiveArgs()


def server_version() -> str | None:
    """The ``major.minor`` of the cluster read by :func:`load_input` (None: no cluster, or
    it did not say)."""
    return _server_version.get()


def qualify(name: str, option: str = "--pod") -> str:
    """``NAMESPACE/NAME`` for a name given with or without its namespace (``a/b/c`` is an
    input error naming ``option``)."""
    args = current()
    ns = args.namespace or _context_namespace.get() or DEFAULT_NAMESPACE
    return object_key(name, ns, option)


def load_input(files: Sequence[str] | None, kinds: Iterable[str] | None = None,
               versions: Mapping[str, str] | None = None) -> Documents:
    """Documents from the files, the cluster, or both (file objects replace cluster ones of
    the same kind, namespace and name: local what-if edits over the live state).
    ``versions``: API group -> the groupVersion to read it in when the server serves it
    (else discovery's choice)."""
    args = current()
    files = list(files or [])
    if not args.live:
        if args.save:
            raise InputError("--save needs --cluster (it saves what was read from a cluster)")
        if not files:
            raise InputError("give manifest files (or - for stdin), or --cluster to read the "
                             "current kubeconfig context")
        return load_documents(files)
    from kubepreempt.live.client import ApiClient
    from kubepreempt.live.discovery import server_version as read_server_version
    from kubepreempt.live.kubeconfig import resolve
    from kubepreempt.live.snapshot import read_documents, save_dump

    target = resolve(args.kubeconfig, args.context)
    _context_namespace.set(target.namespace)
    with ApiClient(target) as client:
        _server_version.set(read_server_version(client))
        docs = read_documents(client, tuple(kinds) if kinds is not None else args.kinds,
                              show_progress=not args.json_output, versions=versions)
    if args.save:
        save_dump(docs, args.save)
        print(f"saved {sum(len(v) for v in docs.by_kind.values())} objects to {args.save}",
              file=sys.stderr)
    if files:
        docs = overlay(docs, load_documents(files))
    return docs


def overlay(base: Documents, top: Documents) -> Documents:
    """``base`` with ``top``'s objects added, replacing same-kind same-name objects."""
    out = Documents()
    for kind in {*base.by_kind, *top.by_kind}:
        replaced = {(o.namespace, o.name) for o in top.of(kind)}
        kept = [o for o in base.of(kind) if (o.namespace, o.name) not in replaced]
        out.by_kind[kind].extend([*kept, *top.of(kind)])
    check_duplicates(out)
    return out
