"""Edits of a scenario's objects: JSON Patch operations aimed at objects by kind and name.

An edit is one RFC 6902 operation (``add``, ``remove``, ``replace``, ``copy``, ``move``,
``test``) applied to every scenario object it selects (``kind``, optional ``name`` glob and
``namespace``), plus ``count``, which makes an object appear ``value`` times (itself and
copies named ``NAME-2`` ... ``NAME-<value>``; 0 removes it): node count, for instance.
"""

from __future__ import annotations

import copy
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch
import jsonpointer

from kubepreempt.manifests import Documents, RawObject, check_duplicates

PATCH_OPS = ("add", "remove", "replace", "copy", "move", "test")
COUNT = "count"
OPS = (*PATCH_OPS, COUNT)
_FIELDS = {"op", "kind", "name", "namespace", "path", "value", "from"}


class EditError(ValueError):
    """An edit that is malformed or does not apply; the caller adds where it was written."""


@dataclass(frozen=True, slots=True)
class Edit:
    """One operation on the objects of ``kind`` named ``name`` (a glob; None: all)."""

    op: str
    kind: str
    name: str | None = None
    namespace: str | None = None
    path: str = ""  # a JSON pointer; unused by ``count``
    value: Any = None
    source: str | None = None  # ``from`` of copy/move

    def describe(self) -> str:
        """``replace PriorityClass batch /value``: for messages."""
        target = self.kind
        if self.name is not None:
            target += f" {self.namespace + '/' if self.namespace else ''}{self.name}"
        return f"{self.op} {target}" + (f" {self.path}" if self.path else "")

    def to_json(self) -> dict[str, Any]:
        """The edit as written (plain JSON; used to fingerprint variants)."""
        out: dict[str, Any] = {"op": self.op, "kind": self.kind}
        for key, val in (("name", self.name), ("namespace", self.namespace),
                         ("path", self.path or None), ("from", self.source)):
            if val is not None:
                out[key] = val
        if self.op in ("add", "replace", "test", COUNT):
            out["value"] = self.value
        return out


def _pointer(raw: Any, key: str) -> str:
    """A JSON pointer from ``/a/b~1c`` or a list of keys ``[a, "b/c"]``."""
    if isinstance(raw, list):
        return jsonpointer.JsonPointer.from_parts([str(p) for p in raw]).path
    if not isinstance(raw, str) or (raw and not raw.startswith("/")):
        raise EditError(f"{key} must be a JSON pointer such as /spec/value or a list of keys, "
                        f"not {raw!r}")
    try:
        jsonpointer.JsonPointer(raw)
    except jsonpointer.JsonPointerException as exc:
        raise EditError(f"{key} {raw!r}: {exc}") from None
    return raw


def parse_edit(raw: Any) -> Edit:
    """One edit from its sweep-file mapping."""
    if not isinstance(raw, Mapping):
        raise EditError(f"an edit is a mapping with op, kind, path..., not {raw!r}")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise EditError(f"unknown field(s) {', '.join(map(str, unknown))} "
                        f"(known: {', '.join(sorted(_FIELDS))})")
    op = raw.get("op")
    if op not in OPS:
        raise EditError(f"op must be one of {', '.join(OPS)}, not {op!r}")
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind:
        raise EditError("an edit needs the kind of the objects it changes")
    name, namespace = raw.get("name"), raw.get("namespace")
    for key, val in (("name", name), ("namespace", namespace)):
        if val is not None and not isinstance(val, str):
            raise EditError(f"{key} must be a string, not {val!r}")
    if op == COUNT:
        if "path" in raw:
            raise EditError("count takes no path: it sets how many times the object appears")
        value = raw.get("value")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise EditError(f"count needs a value that is an integer >= 0, not {value!r}")
        return Edit(op, kind, name, namespace, value=value)
    if "path" not in raw:
        raise EditError(f"{op} needs a path")
    if op in ("add", "replace", "test") and "value" not in raw:
        raise EditError(f"{op} needs a value")
    source = _pointer(raw["from"], "from") if op in ("copy", "move") and "from" in raw \
        else None
    if op in ("copy", "move") and source is None:
        raise EditError(f"{op} needs from")
    return Edit(op, kind, name, namespace, _pointer(raw["path"], "path"), raw.get("value"),
                source)


def _selects(edit: Edit, obj: RawObject) -> bool:
    if edit.name is not None and not fnmatch.fnmatchcase(obj.name, edit.name):
        return False
    # A namespaced object without metadata.namespace lives in "default".
    return edit.namespace is None or (obj.namespace or "default") == edit.namespace


def _patch(edit: Edit, body: Mapping[str, Any]) -> dict[str, Any]:
    op: dict[str, Any] = {"op": edit.op, "path": edit.path}
    if edit.op in ("add", "replace", "test"):
        op["value"] = copy.deepcopy(edit.value)
    if edit.source is not None:
        op["from"] = edit.source
    try:
        return jsonpatch.apply_patch(body, [op], in_place=False)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        raise EditError(str(exc)) from None


def _copies(obj: RawObject, count: int) -> list[RawObject]:
    out = [obj] if count else []
    for i in range(2, count + 1):
        body = copy.deepcopy(dict(obj.body))
        meta = dict(body.get("metadata") or {})
        meta["name"] = f"{obj.name}-{i}"
        meta.pop("uid", None)  # a copy is another object
        body["metadata"] = meta
        out.append(RawObject(obj.kind, body, obj.source))
    return out


def apply_edits(docs: Documents, edits: Sequence[Edit]) -> Documents:
    """A new :class:`Documents` with ``edits`` applied in order (``docs`` is not changed).

    Raises :class:`EditError` (with the 1-based edit number) when an edit selects no object
    or its operation does not apply.
    """
    by_kind = {kind: list(objs) for kind, objs in docs.by_kind.items()}
    for number, edit in enumerate(edits, 1):
        objs = by_kind.get(edit.kind, [])
        hits = {i for i, obj in enumerate(objs) if _selects(edit, obj)}
        if not hits:
            raise EditError(f"edit {number} ({edit.describe()}): no {edit.kind} in the "
                            "scenario matches")
        new: list[RawObject] = []
        for i, obj in enumerate(objs):
            if i not in hits:
                new.append(obj)
            elif edit.op == COUNT:
                new.extend(_copies(obj, edit.value))
            else:
                try:
                    body = _patch(edit, obj.body)
                except EditError as exc:
                    raise EditError(f"edit {number} ({edit.describe()}) on {obj.kind} "
                                    f"{obj.name}: {exc}") from None
                new.append(RawObject(obj.kind, body, obj.source))
        by_kind[edit.kind] = new
    out = Documents()
    for objs in by_kind.values():
        for obj in objs:
            out.add(obj)
    try:
        check_duplicates(out)
    except ValueError as exc:
        raise EditError(f"the edits make a duplicate: {exc}") from None
    return out
