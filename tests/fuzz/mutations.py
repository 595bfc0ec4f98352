"""Seeded mutations of Kubernetes manifests for the fuzz suite.

Each mutation takes the parsed documents of an example input and a ``random.Random`` and
returns the bytes of a new file. Structural mutations edit the parsed objects and dump them
again; textual ones (truncation, alias bombs, odd bytes) edit the text itself.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import yaml

Docs = list[Any]
Path = tuple[Any, ...]

GARBAGE_QUANTITIES: tuple[Any, ...] = (
    "1e30", 10**30, -(10**30), 2**63, 2**63 - 1, 2**64, "9" * 40, "1e1000", "1e-1000",
    1e308, -1.5, "-1", "1.5.5", "1Qi", "0x10", "∞", "NaN", ".inf", "1 Gi", "", " ", "Gi",
    "1e", "+1", "1E18", "8Ei", "9Ei", "1m", "0.0000000001", "1n", True, None, [], {},
    "１０", "1e18Gi", 1.0e20, "100000000000000000000000000000Ki",
)
ODD_STRINGS: tuple[str, ...] = (
    "", " ", "\u202e\u202d", "名前", "ünïcødé", "a" * 300, "\ufeffbom", "emoji-😀", "-",
    "a/b/c", "UPPER", "x\ty", "line\nbreak", "\u0000nul", "\ud7ff", "..", "a..b",
    "kubernetes.io/", "/", "k=v", "0" * 64,
)
HUGE_NUMBERS: tuple[Any, ...] = (
    10**30, -(10**30), 2**63, -(2**63) - 1, 2**64, 10**400, 1e308, -1e308, 1e-320, 0, -1,
    2**31, -(2**31) - 1, 4.5,
)
KINDS: tuple[str, ...] = (
    "Pod", "Node", "PriorityClass", "PodDisruptionBudget", "Namespace", "Workload",
    "ClusterQueue", "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "PodMetrics",
    "List", "PodList", "NodeList", "Deployment", "", "pod", "Configuration", "Cohort",
)


def _paths(node: Any, prefix: Path = ()) -> list[Path]:
    """Every path (keys and list indices) into ``node``, parents before children."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(node: Any, path: Path) -> Any:
    for p in path:
        node = node[p]
    return node


def _set(node: Any, path: Path, value: Any) -> None:
    _get(node, path[:-1])[path[-1]] = value


def _pick(rng: random.Random, docs: Docs, leaf_filter=None) -> tuple[int, Path] | None:
    candidates = [(i, p) for i, d in enumerate(docs) for p in _paths(d) if p]
    if leaf_filter is not None:
        candidates = [(i, p) for i, p in candidates if leaf_filter(p, _get(docs[i], p))]
    return rng.choice(candidates) if candidates else None


def _random_value(rng: random.Random) -> Any:
    return rng.choice([
        "text", rng.choice(ODD_STRINGS), rng.randint(-5, 5), rng.choice(HUGE_NUMBERS), 1.5,
        True, False, None, [], {}, ["a", 1], {"k": "v"}, {"name": "x"}, [{"a": None}],
    ])


def type_swap(docs: Docs, rng: random.Random) -> Docs:
    """Replace one value with a value of another type (metadata -> a string, ...)."""
    hit = _pick(rng, docs)
    if hit:
        i, path = hit
        old = _get(docs[i], path)
        new = _random_value(rng)
        while type(new) is type(old) and new == old:
            new = _random_value(rng)
        _set(docs[i], path, new)
    return docs


def _quantity_like(path: Path, value: Any) -> bool:
    names = {"requests", "limits", "allocatable", "capacity", "overhead", "nominalQuota",
             "borrowingLimit", "lendingLimit", "usage", "count", "value", "minCount"}
    return any(isinstance(p, str) and p in names for p in path[:-1]) or (
        isinstance(value, str) and value[:1].isdigit())


def garbage_quantity(docs: Docs, rng: random.Random) -> Docs:
    """Put a malformed, huge or oddly typed quantity where a quantity is read."""
    hit = _pick(rng, docs, _quantity_like) or _pick(rng, docs)
    if hit:
        i, path = hit
        _set(docs[i], path, rng.choice(GARBAGE_QUANTITIES))
    return docs


def huge_number(docs: Docs, rng: random.Random) -> Docs:
    """Replace a number (or numeric-looking string) with one beyond int64 or float range."""
    hit = _pick(rng, docs, lambda p, v: isinstance(v, int | float) or (
        isinstance(v, str) and v[:1].isdigit())) or _pick(rng, docs)
    if hit:
        i, path = hit
        value = rng.choice(HUGE_NUMBERS)
        _set(docs[i], path, str(value) if rng.random() < 0.3 else value)
    return docs


def delete(docs: Docs, rng: random.Random) -> Docs:
    """Delete one key or list item (name, kind, spec, a container ...)."""
    hit = _pick(rng, docs)
    if hit:
        i, path = hit
        del _get(docs[i], path[:-1])[path[-1]]
    return docs


def duplicate(docs: Docs, rng: random.Random) -> Docs:
    """Duplicate a whole object, or one list item (a taint, a container, a toleration)."""
    if rng.random() < 0.5 and docs:
        doc = rng.choice(docs)
        docs.insert(rng.randrange(len(docs) + 1), copy.deepcopy(doc))
        return docs
    hit = _pick(rng, docs, lambda p, v: isinstance(v, list) and v)
    if hit:
        i, path = hit
        items = _get(docs[i], path)
        items.append(copy.deepcopy(rng.choice(items)))
    return docs


def deep_nesting(docs: Docs, rng: random.Random) -> Docs:
    """Replace a value with a deeply nested flow list or mapping (written as text after
    dumping: the YAML dumper itself would recurse too deep)."""
    hit = _pick(rng, docs)
    if hit:
        i, path = hit
        _set(docs[i], path, f"{_DEEP}{rng.choice([50, 500, 3000, 20000])}")
    return docs


_DEEP = "DEEP-NESTING-"


def _expand_deep(text: str, rng: random.Random) -> str:
    while _DEEP in text:
        start = text.index(_DEEP)
        end = start + len(_DEEP)
        while end < len(text) and text[end].isdigit():
            end += 1
        depth = int(text[start + len(_DEEP):end])
        nested = "[" * depth + "leaf" + "]" * depth if rng.random() < 0.5 else (
            "{k: " * depth + "leaf" + "}" * depth)
        text = text[:start] + nested + text[end:]
    return text


def odd_unicode(docs: Docs, rng: random.Random) -> Docs:
    """Replace a string (name, label, key) with odd unicode or an odd shape."""
    hit = _pick(rng, docs, lambda p, v: isinstance(v, str))
    if hit:
        i, path = hit
        _set(docs[i], path, rng.choice(ODD_STRINGS))
    return docs


def odd_key(docs: Docs, rng: random.Random) -> Docs:
    """Add a key of odd type or content to a mapping (labels, requests, metadata ...)."""
    hit = _pick(rng, docs, lambda p, v: isinstance(v, dict))
    if hit:
        i, path = hit
        key = rng.choice([*ODD_STRINGS, 1, 2.5, True, None])
        _get(docs[i], path)[key] = _random_value(rng)
    return docs


def wrong_kind(docs: Docs, rng: random.Random) -> Docs:
    """Change an object's kind (or apiVersion) to another kind or to nonsense."""
    if docs:
        doc = rng.choice(docs)
        if isinstance(doc, dict):
            if rng.random() < 0.8:
                doc["kind"] = rng.choice(KINDS)
            else:
                doc["apiVersion"] = rng.choice(["v2", "", 3, "kueue.x-k8s.io/v9"])
    return docs


MutationFn = Callable[[Docs, random.Random], Docs]
STRUCTURAL: dict[str, MutationFn] = {
    "type_swap": type_swap, "garbage_quantity": garbage_quantity, "huge_number": huge_number,
    "delete": delete, "duplicate": duplicate, "deep_nesting": deep_nesting,
    "odd_unicode": odd_unicode, "odd_key": odd_key, "wrong_kind": wrong_kind,
}


def _dump(docs: Docs, rng: random.Random) -> bytes:
    text = yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True, width=1 << 30)
    return _expand_deep(text, rng).encode("utf-8", "surrogatepass")


def truncate(text: bytes, rng: random.Random) -> bytes:
    """Cut the file at a random byte (possibly inside a multi-byte character)."""
    return text[: rng.randrange(len(text) + 1)]


def alias_bomb(text: bytes, rng: random.Random) -> bytes:
    """A billion-laughs object: each level aliases the previous one nine times, and the
    last level is used where a value is read (annotations, labels, containers ...)."""
    levels = rng.choice([5, 9, 12])
    lines = ["    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, levels):
        lines.append(f"    a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]")
    top = f"*a{levels - 1}"
    field = rng.choice(["  labels", "  namespace", "  uid", "spec:\n  containers",
                        "spec:\n  tolerations", "spec:\n  nodeSelector", "status"])
    kind = rng.choice(["Pod", "Node", "PriorityClass", "Workload", "PodMetrics"])
    bomb = (f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: bomb\n  annotations:\n"
            + "\n".join(lines) + f"\n{field}: {top}\n")
    return text + b"\n---\n" + bomb.encode()


def odd_bytes(text: bytes, rng: random.Random) -> bytes:
    """Insert bytes that are not UTF-8, a BOM, NULs or tabs at a random place."""
    pos = rng.randrange(len(text) + 1)
    junk = rng.choice([b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"\t", b"\xc3", b"{", b"]",
                       b"\n---\n", b": :", b"&x *x", b"!!python/object:os.system"])
    return text[:pos] + junk + text[pos:]


TEXTUAL: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "truncate": truncate, "alias_bomb": alias_bomb, "odd_bytes": odd_bytes,
}
NAMES: tuple[str, ...] = (*STRUCTURAL, *TEXTUAL)


def mutate(docs: Docs, rng: random.Random) -> tuple[str, bytes]:
    """One to three mutations of ``docs``; returns their names and the file's bytes."""
    docs = copy.deepcopy(docs)
    applied = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        name = rng.choice(NAMES)
        applied.append(name)
        if name in STRUCTURAL:
            docs = STRUCTURAL[name](docs, rng)
    text = _dump(docs, rng)
    for name in applied:
        if name in TEXTUAL:
            text = TEXTUAL[name](text, rng)
    return "+".join(applied), text
