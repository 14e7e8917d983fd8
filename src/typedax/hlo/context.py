"""The state of one lowering: the module being built and its functions."""

from __future__ import annotations

from jaxlib.mlir import ir

from ..core.ir import Jaxpr


class LoweringContext:
    """The MLIR module under construction.

    Nested jaxprs (of ``jit``, ``cond`` branches, loop bodies ...) become
    private ``func.func``s of this module; ``functions`` remembers them by
    jaxpr (jaxprs compare up to renaming), so the same body lowers once.
    """

    __slots__ = ("context", "module", "functions", "_names", "mesh_axes")

    def __init__(self, context: ir.Context, module: ir.Module) -> None:
        self.context = context
        self.module = module
        self.functions: dict[tuple[Jaxpr, str], str] = {}
        self._names: set[str] = {"main"}
        #: Inside a ``shard_map`` body: its mesh's axes (names and sizes, in
        #: the mesh's order), which collectives compute their replica groups
        #: from (JAX's ``SPMDAxisContext``); ``None`` elsewhere.
        self.mesh_axes: tuple[tuple[str, int], ...] | None = None

    def fresh_name(self, base: str) -> str:
        """A function name not used yet in this module, based on ``base``."""
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "fn"
        name, i = clean, 1
        while name in self._names:
            name = f"{clean}_{i}"
            i += 1
        self._names.add(name)
        return name
