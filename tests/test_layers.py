"""The package's layers import only downward, and no modules import each
other in a cycle (docs/architecture.md draws the layers).

Every import counts: module level and inside functions (an import deferred
to call time is still a dependency), read with ``ast``; only ``if
TYPE_CHECKING:`` blocks are skipped (they never run). A lower layer that
needs something of a higher one has it installed from above when the
higher layer is imported (the array's methods, the runtime's devices, ...;
docs/architecture.md, "Installed from above"), so the only exceptions are
the ones ``EXCEPTIONS`` lists, each with its reason.

The public faces (``typedax.numpy``, ``lax``, ``random``, ``nn``, ...) define
nothing: they import and re-export their layer's implementation modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import typedax

SRC = Path(typedax.__file__).parent

#: Layers, lowest first: a module may import its own layer (without a
#: cycle) and those below. A face belongs to the layer it re-exports.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("typedax.core", "typedax.tree", "typedax.typing")),  # typing: issue 29 item 7
    ("hlo", ("typedax.hlo",)),
    ("primitive families", ("typedax.primitives",)),
    ("interpreters", ("typedax.interpreters",)),
    ("control flow", ("typedax.control_flow",)),
    ("lowering and runtime", ("typedax.lowering", "typedax.errors")),  # errors: issue 29 item 7
    ("jit", ("typedax.jitting", "typedax.registry", "typedax.stages")),  # stages: issue 29 item 7
    ("lax", ("typedax.lax", "typedax._lax", "typedax.lax_linalg")),
    ("transformations", ("typedax.api", "typedax.api_forward", "typedax.api_reverse", "typedax.transforms",
                         "typedax.custom_derivatives", "typedax.ad_checkpoint", "typedax.debug",
                         "typedax.tree_util", "typedax.sharding", "typedax.distributed",
                         "typedax.api_names", "typedax.api_linear")),  # api_names/api_linear: issue 29 item 7
    ("numpy", ("typedax.numpy", "typedax._numpy", "typedax.ops", "typedax.dtypes")),  # dtypes: issue 29 item 7
    ("libraries", ("typedax.random", "typedax._random", "typedax.nn", "typedax._nn",
                   "typedax.scipy", "typedax.experimental", "typedax.example_libraries",
                   "typedax.test_util",
                   "typedax.image", "typedax._image")),  # image: issue 29 item 7
)
FACADES = "faces"  # everything else: the package itself (typedax/__init__.py) and typedax.testing

#: Imports that go up the layers anyway, and why each is there (none today:
#: keep it short).
EXCEPTIONS: dict[tuple[str, str], str] = {}

#: Faces: modules that define nothing and only re-export (issue 24).
FACES = ("typedax.numpy", "typedax.lax", "typedax.lax_linalg", "typedax.random", "typedax.nn",
         "typedax._numpy.linalg", "typedax._numpy.fft_face", "typedax.nn.initializers", "typedax.scipy.special", "typedax.scipy.stats",
         "typedax.sharding", "typedax.distributed", "typedax.transforms", "typedax.experimental",
         "typedax.example_libraries", "typedax.ops",
         "typedax.errors", "typedax.typing", "typedax.dtypes", "typedax.stages", "typedax.image")  # issue 29 item 7


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in SRC.rglob("*.py")}


def layer_of(module: str) -> int:
    for i, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return len(LAYERS)


def layer_name(i: int) -> str:
    return LAYERS[i][0] if i < len(LAYERS) else FACADES


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    if node.level:
        base = module.split(".")
        if not MODULES[module].name == "__init__.py":
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = [target] if target in MODULES else []
    found += [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    return found


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(module: str, body: list[ast.stmt], lazy: bool) -> Iterator[tuple[str, bool]]:
    """(imported module, imported lazily?) for each typedax import in ``body``."""
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            yield from ((a.name, lazy) for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            yield from ((m, lazy) for m in _resolve(module, node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _imports(module, node.body, True)
        for field in ("body", "orelse", "finalbody", "handlers"):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and field == "body":
                continue
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                stmts = [s for s in sub if isinstance(s, ast.stmt)]
                stmts += [s for h in sub if isinstance(h, ast.ExceptHandler) for s in h.body]
                yield from _imports(module, stmts, lazy)


def _parents(module: str) -> list[str]:
    """Packages whose ``__init__`` runs before ``module`` (the root excluded:
    it is the facade that imports everything)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts)) if ".".join(parts[:i]) in MODULES]


def import_graph() -> dict[str, dict[str, bool]]:
    """Each module's typedax imports: target -> imported only inside functions?"""
    graph: dict[str, dict[str, bool]] = {m: {} for m in MODULES}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        for target, is_lazy in _imports(module, tree.body, False):
            for d in [target, *_parents(target)]:
                if d == module or module.startswith(d + "."):
                    continue
                graph[module][d] = graph[module].get(d, True) and is_lazy
    return graph


def _where(lazy: bool) -> str:
    return "inside a function" if lazy else "at module level"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_layer_the_map_names() -> None:
    assert "typedax.core.ir" in MODULES and layer_of("typedax.core.ir") == 0
    assert layer_of("typedax._numpy.lax_numpy") == layer_of("typedax.numpy") < layer_of("typedax.random")
    assert layer_of("typedax") == len(LAYERS)


def test_no_import_cycles() -> None:
    graph = import_graph()
    cycles = _cycles({m: set(ds) for m, ds in graph.items()})
    assert not cycles, "modules that import each other (module level or inside functions): " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_imports_go_down_the_layers() -> None:
    graph = import_graph()
    upward = {
        (m, d): f"{m} ({layer_name(layer_of(m))}) imports {d} ({layer_name(layer_of(d))}) {_where(lazy)}"
        for m, deps in graph.items()
        for d, lazy in deps.items()
        if layer_of(d) > layer_of(m)
    }
    unlisted = sorted(v for k, v in upward.items() if k not in EXCEPTIONS)
    assert not unlisted, "imports up the layers:\n" + "\n".join(unlisted)
    stale = sorted(f"{m} -> {d}" for m, d in set(EXCEPTIONS) - set(upward))
    assert not stale, "EXCEPTIONS lists imports that are gone: " + ", ".join(stale)


def _definitions(tree: ast.Module) -> list[str]:
    """What a face defines: functions, classes, lambdas, and names bound
    other than by import or ``__all__``."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(f"{node.name} (line {node.lineno})")
        elif isinstance(node, ast.Lambda):
            found.append(f"a lambda (line {node.lineno})")
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        found += [f"{ast.unparse(t)} (line {node.lineno})" for t in targets
                  if not (isinstance(t, ast.Name) and t.id == "__all__")]
    return found


#: The faces of ``typedax.scipy``'s linalg, optimize and sparse (issue 29 item 2).
SCIPY_FACES = ("typedax.scipy.linalg", "typedax.scipy.optimize", "typedax.scipy.sparse",
               "typedax.scipy.sparse.linalg")


@pytest.mark.parametrize("face", FACES + SCIPY_FACES)
def test_faces_define_nothing(face: str) -> None:
    defined = _definitions(ast.parse(MODULES[face].read_text()))
    assert not defined, f"{face} is a face (it only re-exports) but defines: " + ", ".join(defined)


def test_the_face_check_sees_a_definition() -> None:
    assert _definitions(ast.parse("from x import y as y\n__all__ = ['y']\n__all__ += ['z']")) == []
    assert _definitions(ast.parse("def f(): pass\nclass C: pass\ng = lambda: 0\nh = 1")) == [
        "f (line 1)", "C (line 2)", "a lambda (line 3)", "g (line 3)", "h (line 4)"]


def test_the_checker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_follows_imports_inside_functions() -> None:
    tree = ast.parse("def f():\n    from typedax import numpy\n")
    assert ("typedax.numpy", True) in list(_imports("typedax.core.ir", tree.body, False))
