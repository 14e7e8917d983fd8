"""``lower_jaxpr``: a whole jaxpr to a StableHLO module with a public
``@main`` (dead code dropped first). The equation-by-equation interpreter it
drives is ``typedax.hlo``'s."""

from __future__ import annotations

from dataclasses import dataclass

from jaxlib.mlir import ir

from ..core.ir import Jaxpr
from ..hlo import LoweringContext, lower_function, make_context


@dataclass(frozen=True, slots=True, eq=False)
class LoweredModule:
    """A StableHLO module (and the MLIR context that owns it)."""

    context: ir.Context
    module: ir.Module
    name: str

    def as_text(self) -> str:
        """The module in StableHLO's readable text form."""
        return str(self.module)

    def as_bytecode(self) -> bytes:
        import io

        buf = io.BytesIO()
        self.module.operation.write_bytecode(buf)
        return buf.getvalue()


def lower_jaxpr(jaxpr: Jaxpr, name: str = "main") -> LoweredModule:
    """A StableHLO module whose public ``@main`` computes ``jaxpr``.

    Its arguments are the jaxpr's input binders (constants included), in
    order; its results are the jaxpr's outputs. Equations no output needs
    are dropped first (``dce_jaxpr``, which also prunes the bodies of
    higher-order primitives such as loops, which XLA would keep).
    """
    from ..interpreters.dce import dce_jaxpr

    jaxpr, _ = dce_jaxpr(jaxpr, [True] * len(jaxpr.outs), instantiate=True)
    context = make_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "main"
        module.operation.attributes["sym_name"] = ir.StringAttr.get(f"jit_{clean}")
        lower_function(LoweringContext(context, module), jaxpr, "main", public=True)
    return LoweredModule(context, module, name)
