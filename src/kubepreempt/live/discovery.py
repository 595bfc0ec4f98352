"""API discovery for CRDs whose served version changes between releases (Kueue).

As kubectl does: the group's preferred version first, then its other versions, the first
that serves the resource wins; a command may put a version of its own first (the version
the chosen Kueue release reads natively). One GET per group and per version, cached on the
client.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson

from kubepreempt.api.errors import InputError
from kubepreempt.live.client import ApiClient, NotServed
from kubepreempt.live.resources import Resource


def _get_json(client: ApiClient, path: str, res: Resource) -> dict[str, Any]:
    cache = client.discovery
    if path not in cache:
        try:
            doc = orjson.loads(client.get(path, verb="get", res=res))
        except NotServed:
            doc = {}
        cache[path] = doc if isinstance(doc, dict) else {}
    return cache[path]


def served(client: ApiClient, res: Resource, first: str | None = None) -> Resource:
    """``res`` at the version the server serves it (NotServed when no version does);
    ``first`` (a groupVersion) is tried before the group's preferred version."""
    if not res.discover:
        return res
    group = _get_json(client, f"/apis/{res.group}", res)
    preferred = (group.get("preferredVersion") or {}).get("groupVersion")
    versions = [v.get("groupVersion") for v in group.get("versions") or []]
    order = [first] if first in versions else []
    order += [preferred, *versions]
    for gv in dict.fromkeys(order):
        if not gv:
            continue
        listing = _get_json(client, f"/apis/{gv}", res)
        if any(r.get("name") == res.plural for r in listing.get("resources") or []):
            return dataclasses.replace(res, api_version=gv)
    raise NotServed(f"no version of {res.group} serves {res.plural}")


def server_version(client: ApiClient) -> str | None:
    """The server's ``major.minor`` from ``GET /version`` (None when it does not say)."""
    try:
        doc = orjson.loads(client.get("/version"))
    except (InputError, orjson.JSONDecodeError):
        return None
    if not isinstance(doc, dict):
        return None
    major, minor = str(doc.get("major") or ""), str(doc.get("minor") or "").rstrip("+")
    if major.isdigit() and minor.isdigit():
        return f"{major}.{minor}"
    git = str(doc.get("gitVersion") or "")
    return git.lstrip("v") or None
