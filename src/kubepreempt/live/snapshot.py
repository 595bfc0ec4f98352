"""Read the kinds a command needs from the cluster into :class:`Documents`; save a dump."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import orjson
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kubepreempt.api.errors import InputError, Source
from kubepreempt.live.client import ApiClient, NotServed
from kubepreempt.live.discovery import served
from kubepreempt.live.lister import PAGE_SIZE, ListResult, list_all
from kubepreempt.live.lister import Progress as ProgressFn
from kubepreempt.live.resources import Resource, listed
from kubepreempt.manifests import Documents, RawObject, paused_gc

PROGRESS_MIN_ITEMS = 2 * PAGE_SIZE  # smaller lists finish before a bar is worth drawing


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressFn | None]:
    """A progress callback drawing on stderr (only on a terminal, only for big lists)."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield None
        return
    with Progress(TextColumn("listing {task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(res: Resource, done: int, total: int | None) -> None:
            if res.kind not in tasks:
                if total is not None and total < PROGRESS_MIN_ITEMS:
                    return
                tasks[res.kind] = bar.add_task(res.describe(), total=total)
            bar.update(tasks[res.kind], completed=done, total=total)

        yield update


def read_lists(client: ApiClient, kinds: Iterable[str], namespace: str | None = None,
               page_size: int = PAGE_SIZE, progress: ProgressFn | None = None,
               warn: bool = True, versions: Mapping[str, str] | None = None
               ) -> list[ListResult]:
    """List each kind (optional APIs that are not served are skipped with a warning).

    Kinds that are not API resources (Kueue's ``Configuration`` file) come from files only.
    ``versions`` maps an API group to the groupVersion to read it in when served.
    """
    out = []
    for res in listed(tuple(kinds)):
        try:
            res = served(client, res, (versions or {}).get(res.group))
            out.append(list_all(client, res, namespace if res.namespaced else None,
                                page_size, progress))
        except NotServed:
            if not res.optional:
                raise InputError(f"{client.target.label}: the API server does not serve "
                                 f"{res.describe()} ({res.api_version}); is it installed?") \
                    from None
            if warn and not res.off_by_default:
                print(f"warning: {client.target.label} does not serve {res.describe()} "
                      f"({res.api_version}); continuing without {res.kind} objects",
                      file=sys.stderr)
    return out


def to_documents(lists: Iterable[ListResult], label: str) -> Documents:
    """Raw documents as the file loader would produce them from the same objects."""
    docs = Documents()
    source = Source(label)
    for result in lists:
        objs = docs.by_kind[result.resource.kind]
        # checked: the apiserver validated what it serves (typed parsing may trust it).
        objs.extend(RawObject(result.resource.kind, item, source, True) for item in result.items)
    return docs


def read_documents(client: ApiClient, kinds: Iterable[str], show_progress: bool = False,
                   page_size: int = PAGE_SIZE, versions: Mapping[str, str] | None = None
                   ) -> Documents:
    """List ``kinds`` from the cluster into documents (``versions``: see read_lists)."""
    with paused_gc(), progress_bar(show_progress) as progress:
        lists = read_lists(client, kinds, page_size=page_size, progress=progress,
                           versions=versions)
        docs = to_documents(lists, f"cluster {client.target.label}")
    drop_orphans(docs)
    return docs


def drop_orphans(docs: Documents, stream: TextIO | None = None) -> int:
    """Skip pods bound to nodes that are not in the node list (with one warning line).

    Each kind is listed at its own resourceVersion, so a node deleted between the two lists
    leaves pods that name it; the scheduler's cache has no such pods either.
    """
    if not docs.of("Node") or not docs.of("Pod"):
        return 0
    nodes = {o.name for o in docs.of("Node")}
    pods = docs.of("Pod")
    kept = [o for o in pods if not (node := (o.body.get("spec") or {}).get("nodeName"))
            or node in nodes]
    dropped = len(pods) - len(kept)
    if dropped:
        docs.by_kind["Pod"] = kept
        print(f"warning: skipped {dropped} pod(s) bound to nodes that were deleted while "
              "the cluster was being read", file=stream or sys.stderr)
    return dropped


def save_dump(docs: Documents, path: str) -> None:
    """Write every object as one ``kind: List`` JSON document the file loader reads back."""
    items = [o.body for objs in docs.by_kind.values() for o in objs]
    data = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items},
                        option=orjson.OPT_INDENT_2) + b"\n"
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise InputError(f"--save: cannot write: {exc.strerror}", Source(path)) from None
