"""The state of one lowering: the module being built and its functions."""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir import ir

from ..core.ir import Jaxpr


class LoweringContext:
    """The MLIR module under construction.

    Nested jaxprs (of ``jit``, ``cond`` branches, loop bodies ...) become
    private ``func.func``s of this module; ``functions`` remembers them by
    jaxpr (jaxprs compare up to renaming), so the same body lowers once.

    ``host_callbacks`` are the Python functions the module's host-callback
    ``custom_call``s name by index (``add_host_callback``); the runtime hands
    them to XLA with the module. Ordered callbacks chain through a
    ``!stablehlo.token`` per block (``token`` / ``set_token``), so XLA runs
    them in program order within a function or a loop or branch body; a body
    starts a chain of its own (a value made inside a region cannot leave it),
    and its iterations run in order anyway.
    """

    __slots__ = (
        "context", "module", "functions", "_names", "mesh_axes", "host_callbacks", "_tokens", "callback_target",
        "platform",
    )

    def __init__(
        self, context: ir.Context, module: ir.Module,
        callback_target: str = "xla_ffi_python_cpu_callback",
        platform: str = "cpu",
    ) -> None:
        self.context = context
        #: the platform compiled for (``cpu`` or ``cuda``): rules whose kernels
        #: differ by platform (the linalg decompositions) read it, as JAX's
        #: per-platform lowering rules
        self.platform = platform
        #: the ``custom_call`` target of a host callback on the platform compiled for
        self.callback_target = callback_target
        self.module = module
        self.functions: dict[tuple[Jaxpr, str], str] = {}
        self._names: set[str] = {"main"}
        #: Inside a ``shard_map`` body: its mesh's axes (names and sizes, in
        #: the mesh's order), which collectives compute their replica groups
        #: from (JAX's ``SPMDAxisContext``); ``None`` elsewhere.
        self.mesh_axes: tuple[tuple[str, int], ...] | None = None
        self.host_callbacks: list[Callable[..., object]] = []
        self._tokens: list[tuple[ir.Block, ir.Value[ir.Type]]] = []

    def add_host_callback(self, fn: Callable[..., object]) -> int:
        """Register ``fn`` with the module; its index for ``backend_config``."""
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1

    def token(self) -> ir.Value[ir.Type] | None:
        """The last ordered callback's token in the block being emitted."""
        block = ir.InsertionPoint.current.block
        for b, t in reversed(self._tokens):
            if b == block:
                return t
        return None

    def set_token(self, token: ir.Value[ir.Type]) -> None:
        """``token`` is now the last ordered effect of the block being emitted."""
        self._tokens.append((ir.InsertionPoint.current.block, token))

    def fresh_name(self, base: str) -> str:
        """A function name not used yet in this module, based on ``base``."""
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "fn"
        name, i = clean, 1
        while name in self._names:
            name = f"{clean}_{i}"
            i += 1
        self._names.add(name)
        return name
