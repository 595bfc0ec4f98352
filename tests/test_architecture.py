"""The house rules, checked on the source itself.

1. ``src/kubepreempt`` has no import cycle. Every import counts — at module level, inside
   a function, under ``if TYPE_CHECKING:`` (a type is a dependency too) — except a
   package's ``__init__`` importing its own submodules (a re-export, not a dependency).
2. Nothing under ``sim/`` or ``kueue/`` reads or calls another object's underscore
   members: ``obj._name`` is allowed only on ``self`` / ``cls`` (and dunders anywhere).
3. No file under ``tests/`` imports a test module (one named ``test_*``), however it is
   spelled: ``test_x``, ``tests.x.test_y`` or relative. Helpers two test modules share
   live in the ``tests/builders`` package.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "kubepreempt"
TESTS = Path(__file__).resolve().parent
ROOT_NAME = "kubepreempt"


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """module -> the kubepreempt modules it imports (innermost existing module named)."""
    mods = modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = resolve(mod, is_pkg, node)
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                if not target.startswith(ROOT_NAME):
                    continue
                # `from pkg import sub` names a module; `from mod import name` names mod.
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if not target or target == mod:
                    continue
                if is_pkg and target.startswith(mod + "."):
                    continue  # a package re-exporting its own submodules
                graph[mod].add(target)
    # `from pkg.mod import x` also names `pkg` above; keep only the most specific target.
    for mod, targets in graph.items():
        graph[mod] = {t for t in targets
                      if not any(o.startswith(t + ".") for o in targets)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def private_reach_ins(folder: str) -> list[str]:
    """``obj._member`` uses under ``folder`` where obj is not self/cls."""
    found = []
    for path in sorted((PKG / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Attribute):
                continue
            name = node.attr
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            found.append(f"{path.relative_to(PKG)}:{node.lineno} .{name}")
    return found


def is_test_module(dotted: str) -> bool:
    """Whether a dotted module name names a test module (``test_x``, ``tests.x.test_y``)."""
    return any(part.startswith("test_") for part in dotted.split("."))


def imported_test_modules(source: str, filename: str = "<test>") -> list[tuple[int, str]]:
    """``(line, module)`` of each test module that ``source`` imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if is_test_module(module):
                found.append((node.lineno, module))
            elif node.level or module == "tests" or module.startswith("tests."):
                # `from . import test_x`, `from tests.x import test_y`: the names are modules.
                sep = "" if module.endswith(".") else "."
                found += [(node.lineno, f"{module}{sep}{a.name}") for a in node.names
                          if a.name.startswith("test_")]
    return sorted(found)


def test_cycle_finder_finds_a_cycle() -> None:
    # The checker itself: a -> b -> c -> a is one component; d hangs off it.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_private_reach_in_under_sim_and_kueue() -> None:
    found = private_reach_ins("sim") + private_reach_ins("kueue")
    assert found == [], "\n".join(found)


def test_test_module_import_finder_sees_every_spelling() -> None:
    source = """
import test_a
import tests.sim.test_b as b
from test_c import helper
from tests.scheduler.test_d import NOW
from tests.scheduler import test_e, util
from .test_f import x
from . import test_g
from .. import builders

def f():
    from test_h import y

import builders.test_like_name_in_a_package
from builders import sim, spread
from kubepreempt.sim import simulate
"""
    assert imported_test_modules(source) == [
        (2, "test_a"), (3, "tests.sim.test_b"), (4, "test_c"), (5, "tests.scheduler.test_d"),
        (6, "tests.scheduler.test_e"), (7, ".test_f"), (8, ".test_g"),
        (12, "test_h"), (14, "builders.test_like_name_in_a_package")]


def test_no_test_module_imports_another() -> None:
    found = [f"{path.relative_to(TESTS.parent)}:{line} imports {module}"
             for path in sorted(TESTS.rglob("*.py"))
             for line, module in imported_test_modules(path.read_text(), str(path))]
    assert found == [], ("test modules import test modules (move the shared helpers to "
                         "tests/builders):\n" + "\n".join(found))
