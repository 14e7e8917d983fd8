"""The package's layers import only downward, and no modules import each
other in a cycle (docs/architecture.md draws the layers).

Module-level imports are read with ``ast`` (``if TYPE_CHECKING:`` blocks
excluded: they never run). An import inside a function body runs late, so it
cannot make an import cycle, but one that reaches *up* the layers is still a
dependency a reader should know about: each is listed in ``LAZY_UPWARD`` with
its reason, and an unlisted one fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import typedax

SRC = Path(typedax.__file__).parent

#: Layers, lowest first: a module may import its own layer and those below.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("typedax.core", "typedax.tree")),
    ("hlo", ("typedax.hlo",)),
    ("primitive families", ("typedax.primitives",)),
    ("interpreters", ("typedax.interpreters",)),
    ("control flow", ("typedax.control_flow",)),
    ("lowering and runtime", ("typedax.lowering",)),
    ("jit", ("typedax.jitting",)),
)
FACADES = "facades"  # everything else: lax, numpy, the API, registry, testing

#: Function-level imports that reach up the layers, and why each is there.
LAZY_UPWARD: dict[tuple[str, str], str] = {
    ("typedax.core.array", "typedax.numpy"):
        "the operators of tracers and arrays (core) follow typedax.numpy's promotion",
    ("typedax.core.array", "typedax._indexing"):
        "x[idx] and x.at on arrays and tracers (core) are jax.numpy's indexing, "
        "built from the slicing and gather primitives",
    ("typedax.core.array", "typedax.lowering.jaxlib_api"):
        "a bfloat16 device array reaches the host through jaxlib's private call (no buffer-protocol format)",
    ("typedax.core.array", "typedax.lowering"):
        "a bfloat16 device array reaches the host through jaxlib's private call (no buffer-protocol format)",
    ("typedax.core.array", "typedax.lowering.runtime"):
        "x.devices() and x.device of a concrete array (core) are the runtime's device",
    ("typedax.core.sharded", "typedax.lowering"):
        "a sharded array (core) gathers its shards and re-sends its value through jaxlib's calls",
    ("typedax.core.sharded", "typedax.lowering.jaxlib_api"):
        "a sharded array (core) reads its per-device pieces through jaxlib's private _arrays",
    ("typedax.core.sharded", "typedax.lowering.sharding"):
        "a sharded array (core) whose device value was dropped is laid out again by the runtime",
    ("typedax.core.array", "typedax.primitives"):
        "== and != of typed PRNG keys (core arrays) compare their words with the key primitives",
    ("typedax.core.array", "typedax.primitives.keys"):
        "== and != of typed PRNG keys (core arrays) compare their words with the key primitives",
    ("typedax.jitting.api", "typedax.lax"):
        "jit's packed host arguments (one transfer for several NumPy arrays) are sliced back "
        "out by a program staged with lax.slice and lax.reshape",
    ("typedax.core.trace", "typedax.lowering.eager"):
        "the eval trace (core) runs the primitives whose value is XLA's own (Rules.eval_on_device: "
        "float sums, running sums, pow) through their one-equation programs",
    ("typedax.core.trace", "typedax.lowering"):
        "the eval trace (core) runs the primitives whose value is XLA's own (Rules.eval_on_device: "
        "float sums, running sums, pow) through their one-equation programs",
    ("typedax.core.parse", "typedax.registry"):
        "parse_jaxpr reads the library's registry of primitives unless given one",
    ("typedax.primitives.windowed", "typedax.interpreters"):
        "the general reduce_window's JVP rule differentiates its body jaxpr (jvp_jaxpr)",
    ("typedax.primitives.windowed", "typedax.interpreters.jvp"):
        "the general reduce_window's JVP rule differentiates its body jaxpr (jvp_jaxpr)",
}


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


def import_graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    eager: dict[str, set[str]] = {m: set() for m in MODULES}
    lazy: set[tuple[str, str]] = set()
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        for target, is_lazy in _imports(module, tree.body, False):
            deps = [target, *_parents(target)]
            for d in deps:
                if d == module or module.startswith(d + "."):
                    continue
                if is_lazy:
                    lazy.add((module, d))
                else:
                    eager[module].add(d)
    return eager, lazy


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
    assert layer_of("typedax.numpy") == len(LAYERS)


def test_no_import_cycles() -> None:
    eager, _ = import_graph()
    cycles = _cycles(eager)
    assert not cycles, "modules that import each other (module level): " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_imports_go_down_the_layers() -> None:
    eager, _ = import_graph()
    upward = sorted(
        f"{m} ({layer_name(layer_of(m))}) imports {d} ({layer_name(layer_of(d))})"
        for m, deps in eager.items()
        for d in deps
        if layer_of(d) > layer_of(m)
    )
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_lazy_upward_imports_are_the_listed_ones() -> None:
    _, lazy = import_graph()
    upward = {(m, d) for m, d in lazy if layer_of(d) > layer_of(m)}
    unlisted = sorted(f"{m} -> {d}" for m, d in upward - set(LAZY_UPWARD))
    assert not unlisted, "function-level imports up the layers, not in LAZY_UPWARD:\n" + "\n".join(unlisted)
    stale = sorted(f"{m} -> {d}" for m, d in set(LAZY_UPWARD) - upward)
    assert not stale, "LAZY_UPWARD lists imports that are gone: " + ", ".join(stale)


def test_the_checker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
