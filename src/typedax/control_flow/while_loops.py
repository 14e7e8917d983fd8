"""``while``: the higher-order primitive, every rule for it, and
``lax.while_loop``.

Params are the condition and body jaxprs and their constant counts. JVP and
batching transform the body at the fixpoint of the carry values that need
it; partial evaluation computes the known carry values with a known loop and
the unknown ones with a loop that recomputes the known ones. It cannot be
transposed (its trip count is known only at run time), so reverse mode
raises ``ReverseModeError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple
from typing import TypeVar

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.dtypes import is_inexact
from ..core.errors import PrimitiveTypeError, ReverseModeError
from ..core.eval import eval_jaxpr
from ..core.ir import Eqn, Jaxpr, NDArray, Params, Primitive, Var
from ..core.rules import BatchDim, Primal, Rules, Tangent, Zero
from ..core.trace import Value, aval_of, bind, bind1
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body, tensor_type
from ..interpreters.dce import dce_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives import reduce_or_p
from ..primitives._params import get_int, get_jaxpr
from ..primitives.structural import instantiate_zeros
from .common import (


    PeResult,
    add_unused_binders,
    as_value,
    batch_as,
    batch_jaxpr,
    carry_fixpoint,
    carry_mismatch,
    promote_weak_carry,
    check_jaxpr_in_types,
    dims0,
    eval_np,
    forward_deps,
    known_vars,
    loop,
    consts_first,
    loop_jvp_jaxpr,
    nonzero,
    permute_binders,
    regroup,
    select_batched,
    split,
    stage_all,
    tangents_out,
    to_front,
    trace_callable,
    types_str,
)
from .conditionals import PRED_TYPE
from .scans import scan


C = TypeVar("C")


class WhileParams(NamedTuple):
    """``while``'s params, typed: ``WhileParams.of(eqn.params)`` reads and
    checks them; ``to_params()`` makes the map an equation holds."""

    cond_jaxpr: Jaxpr
    body_jaxpr: Jaxpr
    cond_nconsts: int
    body_nconsts: int

    @staticmethod
    def of(params: Params) -> WhileParams:
        return WhileParams(
            get_jaxpr("while", params, "cond_jaxpr"),
            get_jaxpr("while", params, "body_jaxpr"),
            get_int("while", params, "cond_nconsts"),
            get_int("while", params, "body_nconsts"),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _while_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    cj, bj, cn, bn = WhileParams.of(params)
    cc, bc, carry = split(args, cn, bn)
    while bool(eval_np(cj, [*cc, *carry])[0]):
        carry = eval_np(bj, [*bc, *carry])
    return carry


def _while_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    cj, bj, cn, bn = WhileParams.of(params)
    cc, bc, carry = split(avals, cn, bn)
    c_out = check_jaxpr_in_types("while", "cond_jaxpr", cj, [*cc, *carry])
    if c_out != (PRED_TYPE,):
        raise PrimitiveTypeError(
            f"while: cond_jaxpr must return one bool[], but returns {types_str(c_out)}"
        )
    b_out = check_jaxpr_in_types("while", "body_jaxpr", bj, [*bc, *carry])
    if b_out != tuple(carry):
        raise PrimitiveTypeError(
            f"while: body_jaxpr must return the carry's types {types_str(carry)}, "
            f"but returns {types_str(b_out)}"
        )
    return list(b_out)  # the body's types, weak flags included (as JAX's)


def _while_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    cj, bj, cn, bn = WhileParams.of(params)
    cc, bc, carry = split(primals, cn, bn)
    _, bc_t, carry_t = split(tangents, cn, bn)
    bc_nz = [nonzero(t) and is_inexact(a.dtype) for t, a in zip(bc_t, bj.in_avals)]
    carry_avals = bj.out_avals
    init_nz = [nonzero(t) and is_inexact(a.dtype) for t, a in zip(carry_t, carry_avals)]
    bj2, carry_nz, _, consts = loop_jvp_jaxpr(bj, bc_nz, init_nz, [], 0)
    nbd, ncd, nk = sum(bc_nz), sum(carry_nz), len(consts)
    # the constants the JVP staged join the body's constants, first
    bj2 = permute_binders(bj2, consts_first(regroup([bn, len(carry)], [nbd, ncd]), nk))
    dot_avals = [a for f, a in zip(carry_nz, carry_avals) if f]
    cj2 = add_unused_binders(cj, len(cj.in_binders), dot_avals)
    bc_dots = [t for t, f in zip(bc_t, bc_nz) if f and not isinstance(t, Zero)]
    carry_dots = [instantiate_zeros(t) for t, f in zip(carry_t, carry_nz) if f]
    outs = bind(
        while_p,
        [*cc, *consts, *bc, *bc_dots, *carry, *carry_dots],
        WhileParams(cj2, bj2, cn, nk + bn + nbd).to_params(),
    )
    return tangents_out(outs, len(carry), carry_nz, carry_avals)


def _while_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    cj, bj, cn, bn = WhileParams.of(params)
    cc, bc, carry = split(to_front(size, vals, dims), cn, bn)
    ccd, bcd, carryd = split(dims, cn, bn)
    cc_b = [d is not None for d in ccd]
    bc_b = [d is not None for d in bcd]
    carry_b = carry_fixpoint(
        lambda f: forward_deps(bj, [*bc_b, *f]), [d is not None for d in carryd]
    )
    pred_b = forward_deps(cj, [*cc_b, *carry_b])[0]
    if pred_b:  # examples stop at different times: the whole carry is batched
        carry_b = [True] * len(carry)
    carry = batch_as(size, carry, [0 if d is not None else None for d in carryd], carry_b)
    cj2 = batch_jaxpr(cj, size, dims0([*cc_b, *carry_b]), [pred_b])
    bj2 = batch_jaxpr(bj, size, dims0([*bc_b, *carry_b]), carry_b)
    if not pred_b:
        outs = bind(while_p, [*cc, *bc, *carry], WhileParams(cj2, bj2, cn, bn).to_params())
        return [*outs], dims0(carry_b)

    def any_cond(args: list[Value]) -> list[Value]:
        # reduce_or (as JAX's): over an empty batch it is False, the loop runs no step
        (p,) = eval_jaxpr(cj2, args)
        return [bind1(reduce_or_p, (p,), pmap({"axis": (0,)}))]

    def masked_body(args: list[Value]) -> list[Value]:
        c_c, b_c, old = split(args, cn, bn)
        (p,) = eval_jaxpr(cj2, [*c_c, *old])
        new = eval_jaxpr(bj2, [*b_c, *old])
        return [select_batched(p, o, n) for o, n in zip(old, new)]

    carry_avals = [aval_of(x) for x in carry]
    cj3 = trace_to_jaxpr_flat(any_cond, cj2.in_avals, "while_cond").jaxpr
    body_in = [*cj2.in_avals[:cn], *bj2.in_avals[:bn], *carry_avals]
    bj3 = trace_to_jaxpr_flat(masked_body, body_in, "while_body").jaxpr
    outs = bind(while_p, [*cc, *cc, *bc, *carry], WhileParams(cj3, bj3, cn, cn + bn).to_params())
    return [*outs], dims0(carry_b)


def _while_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    cj, bj, cn, bn = WhileParams.of(eqn.params)
    cc_uk, bc_uk, init_uk = split(unks_in, cn, bn)
    carry_uk = carry_fixpoint(lambda f: forward_deps(bj, [*bc_uk, *f]), init_uk)
    if forward_deps(cj, [*cc_uk, *carry_uk])[0]:
        return stage_all(unks_in, eqn)
    if not any(unks_in):
        return eqn, None, [False] * len(eqn.out_binders), []
    # (with every carry known, the unknown inputs are constants the known
    # carry does not read -- a tangent whose contribution is a symbolic zero,
    # as through lax.ceil: the known loop below leaves them out)
    known = [not u for u in carry_uk]
    cc, bc, init = split(eqn.inputs, cn, bn)
    # the known loop: the known carry values only (they depend on nothing unknown)
    cj_k = Jaxpr(
        tuple(v for v, u in zip(cj.in_binders, [*cc_uk, *carry_uk]) if not u), cj.eqns, cj.outs
    )
    bj_k, used = dce_jaxpr(
        bj, known, instantiate=[*[not u for u in bc_uk], *known]
    )
    del used
    cc_k = [a for a, u in zip(cc, cc_uk) if not u]
    bc_k = [a for a, u in zip(bc, bc_uk) if not u]
    init_k = [a for a, u in zip(init, carry_uk) if not u]
    eqn1 = Eqn(
        while_p, (*cc_k, *bc_k, *init_k),
        WhileParams(cj_k, bj_k, len(cc_k), len(bc_k)).to_params(),
        tuple(v for v, k in zip(eqn.out_binders, known) if k),
    )
    if not any(carry_uk):
        return eqn1, None, carry_uk, []
    # the unknown loop recomputes everything; its known results are dropped
    outs2 = tuple(Var(v.aval) if k else v for v, k in zip(eqn.out_binders, known))
    eqn2 = Eqn(while_p, eqn.inputs, eqn.params, outs2)
    return eqn1, eqn2, carry_uk, known_vars(eqn.inputs, unks_in)


WHILE_REVERSE_MESSAGE = (
    "reverse-mode differentiation (grad, vjp, transpose) does not work through "
    "lax.while_loop, nor through lax.fori_loop with traced bounds: the number of "
    "iterations is only known at run time, so they cannot be stored for the backward "
    "pass. Use lax.scan, or lax.fori_loop with static (Python int) bounds, which is a "
    "scan; forward mode (jvp, jacfwd) works through while_loop."
)


def _while_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    raise ReverseModeError(WHILE_REVERSE_MESSAGE)


def _while_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    cj, bj, cn, bn = WhileParams.of(eqn.params)
    n_carry = len(eqn.out_binders)
    cond_used = dce_jaxpr(cj, [True])[1][cn:]

    def step(flags: list[bool]) -> list[bool]:
        return dce_jaxpr(bj, flags)[1][bn:]

    used_carry = carry_fixpoint(step, [a or b for a, b in zip(used, cond_used)])
    cj2, used_cc = dce_jaxpr(cj, [True], instantiate=[*[False] * cn, *used_carry])
    bj2, used_bc = dce_jaxpr(bj, used_carry, instantiate=[*[False] * bn, *used_carry])
    cc, bc, init = split(eqn.inputs, cn, bn)
    ncc, nbc = sum(used_cc[:cn]), sum(used_bc[:bn])
    ins = (
        *[a for a, u in zip(cc, used_cc[:cn]) if u],
        *[a for a, u in zip(bc, used_bc[:bn]) if u],
        *[a for a, u in zip(init, used_carry) if u],
    )
    outs = tuple(v for v, u in zip(eqn.out_binders, used_carry) if u)
    del n_carry
    return Eqn(while_p, ins, WhileParams(cj2, bj2, ncc, nbc).to_params(), outs)


def _while_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    cj, bj, cn, bn = WhileParams.of(eqn.params)
    types = [tensor_type(a.aval) for a in eqn.inputs]
    op, cond_block, body_block = loop(args, types)
    with ir.InsertionPoint(cond_block):
        s = list(cond_block.arguments)
        hlo.return_(lower_jaxpr_body(ctx, cj, [*s[:cn], *s[cn + bn :]]))
    with ir.InsertionPoint(body_block):
        s = list(body_block.arguments)
        new = lower_jaxpr_body(ctx, bj, s[cn:])
        hlo.return_([*s[: cn + bn], *new])
    return list(op.results)[cn + bn :]


while_p = Primitive(
    "while", _while_impl, _while_abstract,
    Rules(
        jvp=_while_jvp, transpose=_while_transpose, batch=_while_batch, lower=_while_lowering,
        partial_eval=_while_pe, dce=_while_dce,
    ),
)


def while_loop(
    cond_fun: Callable[[C], object],
    body_fun: Callable[[C], C],
    init_val: object,
) -> C:
    """Apply ``body_fun`` to the carry while ``cond_fun(carry)`` is true."""
    leaves, carry_tree = tree.flatten(init_val)
    vals = [as_value(x, "while_loop's init_val") for x in leaves]
    avals = [aval_of(x) for x in vals]
    args_tree = tree.structure((init_val,))
    c_closed, c_tree = trace_callable(cond_fun, args_tree, avals, "while_loop's cond_fun")
    if c_tree.num_leaves != 1 or c_closed.out_avals != (PRED_TYPE,):
        raise PrimitiveTypeError(
            f"while_loop: cond_fun must return a boolean scalar (bool[]), but returns "
            f"{c_tree} of types {types_str(c_closed.out_avals)}"
        )
    b_closed, b_tree = trace_callable(body_fun, args_tree, avals, "while_loop's body_fun")
    if promote_weak_carry(vals, avals, b_closed.out_avals):  # a weak init took the body's dtype (as JAX)
        c_closed, c_tree = trace_callable(cond_fun, args_tree, avals, "while_loop's cond_fun")
        b_closed, b_tree = trace_callable(body_fun, args_tree, avals, "while_loop's body_fun")
    if b_tree != carry_tree or b_closed.out_avals != tuple(avals):
        raise carry_mismatch("while_loop", "body_fun", carry_tree, avals, b_tree, b_closed.out_avals)
    c_consts = [as_value(c, "constants") for c in c_closed.consts]
    b_consts = [as_value(c, "constants") for c in b_closed.consts]
    params = WhileParams(c_closed.jaxpr, b_closed.jaxpr, len(c_consts), len(b_consts)).to_params()
    outs = bind(while_p, [*c_consts, *b_consts, *vals], params)
    return tree.unflatten(carry_tree, outs)  # type: ignore[return-value]  # the carry's structure
