"""The lowering interpreter: each equation of a jaxpr through its primitive's
``lower`` rule, at the current insertion point of a module being built.

A rule gets the ``LoweringContext``, the equation (its operand and result
types and its params) and the MLIR values of its operands, and emits ops at
the current insertion point. Higher-order primitives call ``call_jaxpr`` (a
nested ``func.func`` plus a ``func.call``) or ``lower_jaxpr_body`` (inline,
e.g. into a region of their own op).
"""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from typing import Final

from ..core.dtypes import EXTENDED, KEY_NATIVE
from ..core.errors import JaxprTypeError, PrimitiveTypeError
from ..core.ir import Atom, Eqn, Jaxpr, Lit, Var
from ..core.rules import LoweringRule, require
from ._mlir import HloValue, full, tensor_type
from .context import LoweringContext

#: Lowerings of equations with typed-key (``key<fry>``) operands or results,
#: by primitive name: structural primitives lowered on the keys' words.
#: ``primitives/keys.py`` fills it as the registry imports it.
KEY_LOWERINGS: Final[dict[str, LoweringRule]] = {}
def _rule(eqn: Eqn) -> LoweringRule:
    """The lowering rule of ``eqn``: its primitive's, or for an equation on
    typed keys, the one in ``KEY_LOWERINGS``."""
    prim = eqn.primitive
    name = prim.name
    if name not in KEY_NATIVE and (
        any(a.aval.dtype in EXTENDED for a in eqn.inputs)
        or any(v.aval.dtype in EXTENDED for v in eqn.out_binders)
    ):
        rule = KEY_LOWERINGS.get(name)
        if rule is None:
            raise PrimitiveTypeError(
                f"{name} does not accept typed PRNG keys (key<fry>); "
                "use typedax.random.key_data(keys) for their uint32 words"
            )
        return rule
    return require(prim, prim.rules.lower, "StableHLO lowering")

def lower_jaxpr_body(ctx: LoweringContext, jaxpr: Jaxpr, args: Sequence[HloValue]) -> list[HloValue]:
    """Emit ``jaxpr``'s equations at the current insertion point; its outputs."""
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"lowering: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    env: dict[Var, HloValue] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> HloValue:
        if isinstance(a, Lit):
            return full(a.val, a.aval)
        return env[a]

    for eqn in jaxpr.eqns:
        outs = _rule(eqn)(ctx, eqn, [read(a) for a in eqn.inputs])
        if len(outs) != len(eqn.out_binders):
            raise JaxprTypeError(
                f"lowering rule of '{eqn.primitive.name}' gave {len(outs)} results "
                f"for {len(eqn.out_binders)} out binders"
            )
        env.update(zip(eqn.out_binders, outs))
    return [read(a) for a in jaxpr.outs]


def lower_function(ctx: LoweringContext, jaxpr: Jaxpr, name: str, public: bool = False) -> str:
    """Make ``jaxpr`` a ``func.func`` of the module (once per jaxpr); its symbol."""
    key = (jaxpr, "public" if public else "private")
    known = ctx.functions.get(key)
    if known is not None:
        return known
    fname = "main" if public else ctx.fresh_name(name)
    ins = [tensor_type(a) for a in jaxpr.in_avals]
    outs = [tensor_type(a) for a in jaxpr.out_avals]
    with ir.InsertionPoint(ctx.module.body):
        fn = func.FuncOp(fname, ir.FunctionType.get(ins, outs))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
        block = fn.body.blocks.append(*ins)
        with ir.InsertionPoint(block):
            results = lower_jaxpr_body(ctx, jaxpr, list(block.arguments))
            func.ReturnOp(results)
    ctx.functions[key] = fname
    return fname


def call_jaxpr(
    ctx: LoweringContext, jaxpr: Jaxpr, args: Sequence[HloValue], name: str
) -> list[HloValue]:
    """Lower ``jaxpr`` as a nested function and call it on ``args``."""
    fname = lower_function(ctx, jaxpr, name)
    call = func.CallOp(
        [tensor_type(a) for a in jaxpr.out_avals], ir.FlatSymbolRefAttr.get(fname), list(args)
    )
    return list(call.results)


