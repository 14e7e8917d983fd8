"""StableHLO lowering of ``cond`` (``stablehlo.if``), ``while``
(``stablehlo.while``) and ``scan`` (a ``stablehlo.while`` over an index, with
``dynamic_slice`` to read each ``x`` and ``dynamic_update_slice`` to write
each ``y``). The param jaxprs are lowered inline into the ops' regions."""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.dtypes import int32
from ..core.ir import Eqn, Jaxpr
from ..hlo import HloValue, full, tensor_type
from ..hlo import LoweringContext
from ..hlo import lower_jaxpr_body, lowering_rules
from ..hlo import compare
from ..primitives._params import get_jaxpr
from .cond import cond_p
from .loops import _scan_parts, _while_parts, scan_p, while_p

I32 = ShapedArray((), int32)


def _region_body(
    ctx: LoweringContext, region: ir.Region, jaxpr: Jaxpr, args: Sequence[HloValue]
) -> None:
    """Fill ``region`` (no block arguments) with ``jaxpr`` applied to ``args``."""
    block = region.blocks.append()
    with ir.InsertionPoint(block):
        hlo.return_(lower_jaxpr_body(ctx, jaxpr, args))


def _cond_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    pred, *ops = args
    tj = get_jaxpr("cond", eqn.params, "true_jaxpr")
    fj = get_jaxpr("cond", eqn.params, "false_jaxpr")
    op = hlo.IfOp([tensor_type(v.aval) for v in eqn.out_binders], pred)
    _region_body(ctx, op.true_branch, tj, ops)
    _region_body(ctx, op.false_branch, fj, ops)
    return list(op.results)


def _loop(
    state: Sequence[HloValue],
    types: Sequence[ir.Type],
) -> tuple[hlo.WhileOp, ir.Block, ir.Block]:
    op = hlo.WhileOp(list(types), list(state))
    cond_block = op.cond.blocks.append(*types)
    body_block = op.body.blocks.append(*types)
    return op, cond_block, body_block


def _while_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    cj, bj, cn, bn = _while_parts(eqn.params)
    types = [tensor_type(a.aval) for a in eqn.inputs]
    op, cond_block, body_block = _loop(args, types)
    with ir.InsertionPoint(cond_block):
        s = list(cond_block.arguments)
        hlo.return_(lower_jaxpr_body(ctx, cj, [*s[:cn], *s[cn + bn :]]))
    with ir.InsertionPoint(body_block):
        s = list(body_block.arguments)
        new = lower_jaxpr_body(ctx, bj, s[cn:])
        hlo.return_([*s[: cn + bn], *new])
    return list(op.results)[cn + bn :]


def _scan_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(eqn.params)
    consts, rest = list(args[:nconsts]), list(args[nconsts:])
    carry, xs = rest[:ncarry], rest[ncarry:]
    x_avals = [a.aval for a in eqn.inputs[nconsts + ncarry :]]
    ys_avals = [v.aval for v in eqn.out_binders[ncarry:]]
    ys_init = [full(0, a) for a in ys_avals]
    state = [full(0, I32), *consts, *carry, *xs, *ys_init]
    types = [tensor_type(I32), *[tensor_type(a.aval) for a in eqn.inputs], *map(tensor_type, ys_avals)]
    op, cond_block, body_block = _loop(state, types)
    with ir.InsertionPoint(cond_block):
        i = cond_block.arguments[0]
        hlo.return_([compare(i, full(length, I32), int32, "LT")])
    with ir.InsertionPoint(body_block):
        s = list(body_block.arguments)
        i = s[0]
        k = 1
        c_s = s[k : k + nconsts]
        k += nconsts
        carry_s = s[k : k + ncarry]
        k += ncarry
        xs_s = s[k : k + len(xs)]
        k += len(xs)
        ys_s = s[k:]
        idx = hlo.subtract(full(length - 1, I32), i) if reverse else i
        zero = full(0, I32)
        x_slices: list[HloValue] = []
        for x, a in zip(xs_s, x_avals):
            starts = [idx] + [zero] * (a.ndim - 1)
            sl = hlo.dynamic_slice(x, starts, [1, *a.shape[1:]])
            x_slices.append(hlo.reshape(tensor_type(ShapedArray(a.shape[1:], a.dtype)), sl))
        outs = lower_jaxpr_body(ctx, jaxpr, [*c_s, *carry_s, *x_slices])
        new_ys: list[HloValue] = []
        for acc, y, a in zip(ys_s, outs[ncarry:], ys_avals):
            upd = hlo.reshape(tensor_type(ShapedArray((1, *a.shape[1:]), a.dtype)), y)
            starts = [idx] + [zero] * (a.ndim - 1)
            new_ys.append(hlo.dynamic_update_slice(acc, upd, starts))
        one = full(1, I32)
        hlo.return_([hlo.add(i, one), *c_s, *outs[:ncarry], *xs_s, *new_ys])
    results = list(op.results)
    k = 1 + nconsts
    return [*results[k : k + ncarry], *results[k + ncarry + len(xs) :]]


lowering_rules.register(cond_p, _cond_lowering)
lowering_rules.register(while_p, _while_lowering)
lowering_rules.register(scan_p, _scan_lowering)
