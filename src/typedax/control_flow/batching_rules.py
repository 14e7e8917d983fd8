"""Batching rules of ``cond``, ``while`` and ``scan``.

Batched operands move their batch axis to the front (for ``scan``'s ``xs``,
just behind the scanned axis). Which outputs and loop-carried values end up
batched is found by a forward dependency analysis (a fixpoint for loops), so
values that do not depend on the batch stay unbatched.

A batched predicate turns ``cond`` into a ``select`` between both branches,
and turns ``while`` into a loop that runs while *any* example's predicate
holds, updating only the examples whose predicate still holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyrsistent import pmap

from ..interpreters.jvp import eval_jaxpr_typed as eval_jaxpr
from ..core.ir import NO_PARAMS, Jaxpr, Params
from ..core.trace import Value, aval_of, bind, bind1
from ..interpreters.batching import BatchDim, batch_rules, batched_aval, move_batch_axis, vmap_flat
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives import broadcast_p, reduce_max_p, select_n_p
from ..primitives._params import get_jaxpr
from .common import carry_fixpoint, forward_deps, split
from .cond import bind_cond, cond_p
from .loops import _scan_parts, _while_parts, scan_p, scan_params, while_p, while_params

__all__ = ["batch_jaxpr"]


def batch_jaxpr(
    jaxpr: Jaxpr, size: int, in_dims: Sequence[BatchDim], out_batched: Sequence[bool]
) -> Jaxpr:
    """``jaxpr`` batched: input ``i`` batched along ``in_dims[i]`` (None:
    not batched); output ``j`` batched along axis 0 where ``out_batched[j]``,
    else unbatched (it must not depend on a batched input)."""
    avals = [batched_aval(a, size, d) for a, d in zip(jaxpr.in_avals, in_dims)]
    out_dims: list[BatchDim] = [0 if b else None for b in out_batched]
    closed = trace_to_jaxpr_flat(
        lambda xs: vmap_flat(lambda ys: eval_jaxpr(jaxpr, ys), size, in_dims, xs, out_dims),
        avals,
        "vmap",
    )
    if closed.consts:
        raise AssertionError("batching a control-flow body staged array constants")
    return closed.jaxpr


def _to_front(size: int, xs: Sequence[Value], dims: Sequence[BatchDim]) -> list[Value]:
    return [x if d is None else move_batch_axis(size, d, 0, x) for x, d in zip(xs, dims)]


def _batch_as(size: int, xs: Sequence[Value], dims: Sequence[BatchDim],
              want: Sequence[bool]) -> list[Value]:
    """Batched along axis 0 where ``want`` (broadcast if needed), else as is."""
    return [move_batch_axis(size, d, 0, x) if w else x for x, d, w in zip(xs, dims, want)]


def _dims0(flags: Sequence[bool]) -> list[BatchDim]:
    return [0 if f else None for f in flags]


def _select_batched(pred: Value, on_false: Value, on_true: Value) -> Value:
    """Per example (axis 0 of ``pred``): ``on_true`` where ``pred`` else ``on_false``."""
    shape = aval_of(on_true).shape
    if len(shape) > 1:
        params: Params = pmap({"shape": shape, "axes": tuple(range(1, len(shape)))})
        pred = bind1(broadcast_p, (pred,), params)
    return bind1(select_n_p, (pred, on_false, on_true), NO_PARAMS)


def _cond_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    pred, *ops = vals
    pd, *odims = dims
    tj = get_jaxpr("cond", params, "true_jaxpr")
    fj = get_jaxpr("cond", params, "false_jaxpr")
    ops = _to_front(size, ops, odims)
    in_b = [d is not None for d in odims]
    if pd is None:
        out_b = [a or b for a, b in zip(forward_deps(tj, in_b), forward_deps(fj, in_b))]
        tj2 = batch_jaxpr(tj, size, _dims0(in_b), out_b)
        fj2 = batch_jaxpr(fj, size, _dims0(in_b), out_b)
        return bind_cond(pred, ops, tj2, fj2), _dims0(out_b)
    everything = [True] * len(tj.outs)
    t_outs = eval_jaxpr(batch_jaxpr(tj, size, _dims0(in_b), everything), ops)
    f_outs = eval_jaxpr(batch_jaxpr(fj, size, _dims0(in_b), everything), ops)
    p = move_batch_axis(size, pd, 0, pred)
    return [_select_batched(p, f, t) for t, f in zip(t_outs, f_outs)], _dims0(everything)


def _while_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    cj, bj, cn, bn = _while_parts(params)
    cc, bc, carry = split(_to_front(size, vals, dims), cn, bn)
    ccd, bcd, carryd = split(dims, cn, bn)
    cc_b = [d is not None for d in ccd]
    bc_b = [d is not None for d in bcd]
    carry_b = carry_fixpoint(
        lambda f: forward_deps(bj, [*bc_b, *f]), [d is not None for d in carryd]
    )
    pred_b = forward_deps(cj, [*cc_b, *carry_b])[0]
    if pred_b:  # examples stop at different times: the whole carry is batched
        carry_b = [True] * len(carry)
    carry = _batch_as(size, carry, [0 if d is not None else None for d in carryd], carry_b)
    cj2 = batch_jaxpr(cj, size, _dims0([*cc_b, *carry_b]), [pred_b])
    bj2 = batch_jaxpr(bj, size, _dims0([*bc_b, *carry_b]), carry_b)
    if not pred_b:
        outs = bind(while_p, [*cc, *bc, *carry], while_params(cj2, bj2, cn, bn))
        return outs, _dims0(carry_b)

    def any_cond(args: list[Value]) -> list[Value]:
        (p,) = eval_jaxpr(cj2, args)
        return [bind1(reduce_max_p, (p,), pmap({"axis": (0,)}))]

    def masked_body(args: list[Value]) -> list[Value]:
        c_c, b_c, old = split(args, cn, bn)
        (p,) = eval_jaxpr(cj2, [*c_c, *old])
        new = eval_jaxpr(bj2, [*b_c, *old])
        return [_select_batched(p, o, n) for o, n in zip(old, new)]

    carry_avals = [aval_of(x) for x in carry]
    cj3 = trace_to_jaxpr_flat(any_cond, cj2.in_avals, "while_cond").jaxpr
    body_in = [*cj2.in_avals[:cn], *bj2.in_avals[:bn], *carry_avals]
    bj3 = trace_to_jaxpr_flat(masked_body, body_in, "while_body").jaxpr
    outs = bind(while_p, [*cc, *cc, *bc, *carry], while_params(cj3, bj3, cn, cn + bn))
    return outs, _dims0(carry_b)


def _scan_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(params)
    consts, init, xs = split(vals, nconsts, ncarry)
    cd, initd, xsd = split(dims, nconsts, ncarry)
    c_b = [d is not None for d in cd]
    x_b = [d is not None for d in xsd]
    carry_b = carry_fixpoint(
        lambda f: forward_deps(jaxpr, [*c_b, *f, *x_b])[:ncarry], [d is not None for d in initd]
    )
    ys_b = forward_deps(jaxpr, [*c_b, *carry_b, *x_b])[ncarry:]
    j2 = batch_jaxpr(jaxpr, size, _dims0([*c_b, *carry_b, *x_b]), [*carry_b, *ys_b])
    consts = _to_front(size, consts, cd)
    init = _batch_as(size, init, initd, carry_b)
    xs = [x if d is None else move_batch_axis(size, d, 1, x) for x, d in zip(xs, xsd)]
    outs = bind(scan_p, [*consts, *init, *xs], scan_params(j2, nconsts, ncarry, length, reverse))
    return outs, [*_dims0(carry_b), *[1 if b else None for b in ys_b]]


batch_rules.register(cond_p, _cond_batch)
batch_rules.register(while_p, _while_batch)
batch_rules.register(scan_p, _scan_batch)
