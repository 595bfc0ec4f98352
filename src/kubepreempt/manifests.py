"""Load Kubernetes manifests: multi-document YAML, JSON, ``kind: List``, directories, stdin.

Loading is two steps. :func:`load_documents` turns files into raw objects grouped by kind,
each with its :class:`Source`; commands then build the typed objects they need. Kinds a
command does not use are reported once on stderr (:meth:`Documents.warn_unused`).
"""

from __future__ import annotations

import gc
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import orjson

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.object_validation import VALIDATORS, invalid_message
from kubepreempt.apimachinery.field import required

_EXTENSIONS = {".yaml", ".yml", ".json"}


class RawObject(NamedTuple):
    """One Kubernetes object as parsed, with where it came from (a named tuple: loading
    builds one per object). ``checked``: ``body`` passed :func:`check_object` (or was
    served by an apiserver) and is unchanged since, so typed parsing may trust it."""

    kind: str
    body: Mapping[str, Any]
    source: Source
    checked: bool = False

    @property
    def namespace(self) -> str:
        """``metadata.namespace`` (``""`` when absent)."""
        meta = self.body.get("metadata")
        if type(meta) is dict or isinstance(meta, Mapping):  # the ABC check is slow
            return str(meta.get("namespace") or "")
        return ""

    @property
    def name(self) -> str:
        """``metadata.name`` (``""`` when absent)."""
        meta = self.body.get("metadata")
        if type(meta) is dict or isinstance(meta, Mapping):
            return str(meta.get("name") or "")
        return ""


@dataclass(slots=True)
class Documents:
    """Raw objects grouped by kind, in input order."""

    by_kind: dict[str, list[RawObject]] = field(default_factory=lambda: defaultdict(list))

    def of(self, kind: str) -> list[RawObject]:
        """All objects of ``kind`` (empty list when none)."""
        return self.by_kind.get(kind, [])

    def unused(self, used: Iterable[str]) -> Counter[str]:
        """Counts of the kinds not in ``used``."""
        used = set(used)
        return Counter({k: len(v) for k, v in self.by_kind.items() if k not in used and v})

    def unused_warning(self, used: Iterable[str]) -> str | None:
        """One warning line naming each skipped kind and its count (None: none skipped)."""
        counts = self.unused(used)
        if not counts:
            return None
        parts = ", ".join(f"{n} {' '.join(k.split())}" for k, n in sorted(counts.items()))
        return f"warning: skipped objects of kinds kubepreempt does not use here: {parts}"

    def warn_unused(self, used: Iterable[str], stream: TextIO | None = None) -> None:
        """Print :meth:`unused_warning` on ``stream`` (stderr), if there is one."""
        line = self.unused_warning(used)
        if line is not None:
            print(line, file=stream or sys.stderr)

    def add(self, obj: RawObject) -> None:
        """Add one object."""
        self.by_kind[obj.kind].append(obj)


def _iter_files(path: Path) -> Iterator[Path]:
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            # Hidden folders and files (.git/, .venv/, editor state) hold no cluster objects.
            hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
            if not hidden and child.is_file() and child.suffix.lower() in _EXTENSIONS:
                yield child
    elif path.exists():
        yield path
    else:
        raise InputError("no such file or directory", Source(str(path)))


# An anchor (&a) and an alias (*a) in the text: only then is the aliasing check worth its
# extra pass over the file.
_ANCHOR = re.compile(r"(?:^|[\s\[{,])&[^\s\[\]{},]")
_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s\[\]{},]")


def _allowed_alias_ratio(decoded: int) -> float:
    # go-yaml's allowedAliasRatio: 99% of a small document may come from aliases, falling
    # to 10% for documents of four million nodes and more.
    low, high = 400_000, 4_000_000
    if decoded <= low:
        return 0.99
    if decoded >= high:
        return 0.10
    return 0.99 - 0.89 * (decoded - low) / (high - low)


def _check_aliasing(text: str, label: str) -> None:
    """Refuse "billion laughs" documents as sigs.k8s.io/yaml (go-yaml) does.

    PyYAML shares one object between an anchor and its aliases, so loading is cheap, but
    anything that walks the values would visit the expansion: nine aliases of nine aliases
    of ... is 9**n nodes. Count the expanded size on the node graph (memoised, so linear in
    the file) and apply go-yaml's limit: more than 100 aliased nodes, more than 1000 in all
    and too large a share of them from aliases is "excessive aliasing".
    """
    import yaml  # only files with anchors and aliases get here

    sizes: dict[int, int] = {}

    def expanded(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        stack = [(node, False)]
        while stack:  # iterative: deep nesting must not hit Python's recursion limit
            current, done = stack.pop()
            if id(current) in sizes:
                continue
            children = []
            if isinstance(current, yaml.SequenceNode):
                children = current.value
            elif isinstance(current, yaml.MappingNode):
                children = [n for pair in current.value for n in pair]
            if done:
                sizes[id(current)] = 1 + sum(sizes[id(c)] for c in children)
            else:
                stack.append((current, True))
                stack.extend((c, False) for c in children if id(c) not in sizes)
        return sizes[key]

    for node in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if node is None:
            continue
        sizes.clear()
        decoded = expanded(node)
        aliased = decoded - len(sizes)
        if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(
                decoded):
            raise InputError("malformed YAML: document contains excessive aliasing",
                             Source(label))


def _yaml_documents(text: str, label: str) -> list[Any]:
    import yaml  # imported on first YAML input: JSON dumps never pay for it

    # libyaml's C loader is ~10x faster; it is a safe loader (no arbitrary objects).
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if _ANCHOR.search(text) and _ALIAS.search(text):
            _check_aliasing(text, label)
        return list(yaml.load_all(text, Loader=loader))
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", Source(label)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "?"
        problem = exc.problem or exc.context or "malformed YAML"
        raise InputError(f"malformed YAML at {where}: {problem}", Source(label)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", Source(label)) from None


def parse_text(text: str | bytes, label: str) -> list[Any]:
    """Parse a file's text into documents: JSON (orjson) if it looks like JSON, else YAML."""
    if isinstance(text, bytes):
        stripped = text.lstrip()
        if stripped[:1] in (b"{", b"["):
            try:
                doc = orjson.loads(text)
                return doc if isinstance(doc, list) else [doc]
            except orjson.JSONDecodeError as exc:  # also its nesting limit (1024 levels)
                if label.lower().endswith(".json"):  # a .json file's error is a JSON one
                    raise InputError(f"malformed JSON at line {exc.lineno}, column "
                                     f"{exc.colno}: {exc.msg}", Source(label)) from None
                # YAML is a superset of JSON; let the YAML parser report the error
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason})", Source(label)) from None
    return _yaml_documents(text, label)


def _flatten(doc: Any, source: Source, out: Documents, seen: set | None = None) -> None:
    if seen is None:  # one document on its own: duplicates within it
        seen = set()
    if doc is None:
        return  # empty document (e.g. a trailing '---')
    if type(doc) is not dict and not isinstance(doc, Mapping):
        raise InputError(f"document is {_a(doc)}, not a Kubernetes object", source)
    kind = doc.get("kind")
    if not kind or not isinstance(kind, str):
        raise InputError("document has no kind", source)
    if kind == "List" or (kind.endswith("List") and isinstance(doc.get("items"), list)):
        item_kind = kind[:-4] if kind != "List" else None
        items = doc.get("items")
        if items is not None and not isinstance(items, list):
            raise InputError(f"items must be a list, not {_a(items)}", source, kind)
        path, index = source.path, source.index
        for i, item in enumerate(items or []):
            if type(item) is dict and type(own := item.get("kind")) is str and own and not (
                    own.endswith("List")):  # the common item, without a call per level
                _add_checked(RawObject(own, item, Source(path, index, i), True), out, seen)
                continue
            if isinstance(item, Mapping) and item_kind and "kind" not in item:
                item = {**item, "kind": item_kind}  # typed lists omit the item kind
            _flatten(item, Source(path, index, i), out, seen)
        return
    _add_checked(RawObject(kind, doc, source, True), out, seen)


def _add_checked(obj: RawObject, out: Documents, seen: set[tuple[str, str, str]]) -> None:
    """``check_object``, then note a second object of one kind, namespace and name (so that
    :func:`check_duplicates` runs only when there is one to report)."""
    check_object(obj)
    meta = obj.body.get("metadata")  # None, or a mapping whose name/namespace are strings
    if meta and (name := meta.get("name")):
        key = (obj.kind, meta.get("namespace") or "", name)
        if key in seen:
            # Reported once every object is validated, by check_duplicates (kind by kind):
            # an invalid object later in the input is the error the user sees first.
            seen.add(_DUPLICATE_SEEN)
        else:
            seen.add(key)
    out.by_kind[obj.kind].append(obj)


# Key of ``seen`` marking that a duplicate was read (a real key has a non-empty name).
_DUPLICATE_SEEN = ("", "", "")


def _a(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def check_object(obj: RawObject) -> None:
    """The checks every command's objects pass before any command reads them.

    ``metadata`` must be an object whose ``name`` and ``namespace`` are strings; the kinds
    kube-apiserver validates (Pod, Node, PriorityClass, PodDisruptionBudget, Namespace) must
    pass its validation of the fields kubepreempt reads (:mod:`kubepreempt.api.object_validation`),
    reported in its words.
    """
    meta = obj.body.get("metadata")
    if meta is not None and type(meta) is not dict and not isinstance(meta, Mapping):
        raise InputError(f"metadata must be an object, not {_a(meta)}", obj.source, obj.kind)
    meta = meta or {}
    name = meta.get("name")
    if type(name) is not str or type(meta.get("namespace")) is not str:  # else both fine
        for key in ("name", "namespace"):
            value = meta.get(key)
            if value is not None and type(value) is not str:
                raise InputError(f"metadata.{key} must be a string, not {_a(value)}",
                                 obj.source, obj.kind)
    validate = VALIDATORS.get(obj.kind)
    if validate is None:
        return
    if not name:
        raise InputError(str(required("metadata.name", "name or generateName is required")),
                         obj.source, obj.kind)
    errors = validate(obj.body)
    if errors:
        raise InputError(invalid_message(obj.kind, obj.name, errors), obj.source, obj.kind,
                         object_name(obj))


def object_name(obj: RawObject) -> str:
    """``namespace/name`` for namespaced kinds, ``name`` otherwise (as errors print it)."""
    if obj.kind in ("Node", "PriorityClass", "Namespace", "ResourceFlavor", "ClusterQueue",
                    "WorkloadPriorityClass", "Cohort"):
        return obj.name
    return f"{obj.namespace or 'default'}/{obj.name}" if obj.name else ""


@contextmanager
def reading(obj: RawObject) -> Iterator[None]:
    """Turn any error raised while building a typed object from ``obj`` into an
    :class:`InputError` naming it: the last line of defence of the one-line contract."""
    try:
        yield
    except InputError as exc:
        raise exc.located(obj.source, obj.kind, object_name(obj) or None) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as exc:
        raise InputError(f"{exc}", obj.source, obj.kind, object_name(obj) or None) from None


@contextmanager
def paused_gc(freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while loading builds millions of objects.

    Loading creates no garbage cycles worth collecting, yet each generation-2 pass scans the
    whole growing tree: ~0.6 s of a 50,000-pod dump's load. Reference counting still frees
    everything; the previous collector state is restored afterwards. With ``freeze`` what
    was built is first moved to the collector's permanent generation (``gc.freeze``), so
    later passes do not rescan the loaded snapshot either (~0.7 s after a 50,000-pod load;
    it holds no reference cycles to collect). Loops that load again and again (``watch``)
    leave it off: a frozen cycle would never be collected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if freeze:
                gc.freeze()
            gc.enable()


def load_documents(paths: Iterable[str], stdin: TextIO | None = None) -> Documents:
    """Load every object from ``paths`` (files, directories, or ``-`` for stdin)."""
    with paused_gc(freeze=True):
        return _load_documents(paths, stdin)


def _load_documents(paths: Iterable[str], stdin: TextIO | None) -> Documents:
    out = Documents()
    seen: set[Path] = set()  # the same file named twice (a.yaml and ./a.yaml) is read once
    seen_objects: set[tuple[str, str, str]] = set()  # (kind, namespace, name) read so far
    paths = list(paths)
    for raw_path in paths:
        if raw_path == "-":
            stream = stdin or sys.stdin
            data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
            files: list[tuple[str, str | bytes]] = [("-", data)]
        else:
            files = []
            for f in _iter_files(Path(raw_path)):
                if f.resolve() in seen:
                    continue
                seen.add(f.resolve())
                try:
                    files.append((str(f), f.read_bytes()))
                except OSError as exc:
                    raise InputError(f"cannot read: {exc.strerror}", Source(str(f))) from None
        for label, data in files:
            for i, doc in enumerate(parse_text(data, label)):
                _flatten(doc, Source(label, i), out, seen_objects)
    if paths and not any(out.by_kind.values()):
        raise InputError("no Kubernetes objects found (empty input; directories are read "
                         "for .yaml, .yml and .json files)", Source(", ".join(paths)))
    if _DUPLICATE_SEEN in seen_objects:
        check_duplicates(out)  # words and orders the error as it always has
    return out


def check_duplicates(docs: Documents) -> None:
    """Reject two objects with the same kind, namespace and name."""
    for kind, objects in docs.by_kind.items():
        seen: dict[tuple[str, str], Source] = {}
        for obj in objects:
            meta = obj.body.get("metadata")
            if type(meta) is dict and type(meta.get("name")) is str and type(
                    meta.get("namespace") or "") is str:  # as check_object leaves it
                key = (meta.get("namespace") or "", meta["name"])
            else:
                key = (obj.namespace, obj.name)
            if not key[1]:
                continue  # reported by the typed parser, which knows the kind's rules
            if key in seen:
                name = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
                raise InputError(f"duplicate object (first defined at {seen[key]})",
                                 obj.source, kind, name)
            seen[key] = obj.source
