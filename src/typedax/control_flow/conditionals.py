"""``cond``: the higher-order primitive, every rule for it, and ``lax.cond``.

The primitive takes the predicate (bool or int32 index) and the operands;
its params are the two branch jaxprs (the same type). Rules: JVP and batching
transform both branches (a batched predicate becomes a ``select`` of both
results); partial evaluation unzips both branches and joins their residuals
(each branch returns zeros for the other's); transposition transposes both;
DCE prunes both; lowering emits ``stablehlo.case``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar, TypeVarTuple, Unpack

from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.dtypes import bool_, is_float, is_int
from ..core.errors import NonLinearError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Atom, Eqn, Jaxpr, Lit, NDArray, Params, Primitive, Var
from ..core.rules import BatchDim, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind
from ..hlo import HloValue, LoweringContext, compare, tensor_type
from ..interpreters.dce import dce_jaxpr
from ..interpreters.partial_eval import partial_eval_jaxpr
from ..interpreters.transpose import transpose_jaxpr
from ..primitives._params import get_jaxpr
from ..primitives.structural import move_batch_axis
from .common import (


    PeResult,
    as_value,
    batch_jaxpr,
    check_jaxpr_in_types,
    dims0,
    eval_np,
    forward_deps,
    fresh_vars,
    join_consts,
    jvp_jaxpr_nz,
    nonzero,
    region_body,
    select_batched,
    stage_all,
    tangents_out,
    to_front,
    trace_callable,
    types_str,
    with_outs,
)


T = TypeVar("T")
Ts = TypeVarTuple("Ts")


PRED_TYPE = ShapedArray((), bool_)


def check_pred(prim: str, aval: ShapedArray, fix: str) -> None:
    if aval != PRED_TYPE:
        raise PrimitiveTypeError(
            f"{prim}: the predicate must be a boolean scalar (bool[]), got "
            f"{aval.str_short()}; {fix}"
        )


def _cond_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    pred, *ops = args
    true_jaxpr, false_jaxpr = CondParams.of(params)
    jaxpr = true_jaxpr if bool(pred) else false_jaxpr
    return eval_np(jaxpr, ops)


def _cond_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if not avals:
        raise PrimitiveTypeError("cond: missing the predicate operand")
    pred, *ins = avals
    check_pred("cond", pred, "compare with a value (x > 0) to get one")
    tj, fj = CondParams.of(params)
    t_out = check_jaxpr_in_types("cond", "true_jaxpr", tj, ins)
    f_out = check_jaxpr_in_types("cond", "false_jaxpr", fj, ins)
    if t_out != f_out:
        raise PrimitiveTypeError(
            f"cond: the branches have different output types: true_jaxpr returns "
            f"{types_str(t_out)} but false_jaxpr returns {types_str(f_out)}"
        )
    return [a.weakened(a.weak_type and b.weak_type) for a, b in zip(t_out, f_out)]  # weak if both are


class CondParams(NamedTuple):
    """``cond``'s params, typed: ``CondParams.of(eqn.params)`` reads and checks
    them; ``to_params()`` makes the map an equation holds."""

    true_jaxpr: Jaxpr
    false_jaxpr: Jaxpr

    @staticmethod
    def of(params: Params) -> CondParams:
        return CondParams(
            get_jaxpr("cond", params, "true_jaxpr"), get_jaxpr("cond", params, "false_jaxpr")
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def bind_cond(pred: Value, args: Sequence[Value], true_jaxpr: Jaxpr, false_jaxpr: Jaxpr) -> list[Value]:
    return [*bind(cond_p, [pred, *args], CondParams(true_jaxpr, false_jaxpr).to_params())]


def _weak_lit(a: Atom, target: ShapedArray) -> Atom | None:
    """A literal branch output recast to the other branch's dtype, if that is
    a lossless, JAX-like weak-type promotion (``0.`` meeting ``float32``)."""
    if not isinstance(a, Lit) or target.shape != ():
        return None
    v = a.val
    if isinstance(v, bool):
        return None
    if is_float(target.dtype) and (isinstance(v, float) or is_int(a.aval.dtype)):
        return Lit.of(v, target.dtype)
    if is_int(target.dtype) and isinstance(v, int) and is_int(a.aval.dtype):
        return Lit.of(v, target.dtype)
    return None


def _join_weak(tj: Jaxpr, fj: Jaxpr) -> tuple[Jaxpr, Jaxpr]:
    t_outs: list[Atom] = list(tj.outs)
    f_outs: list[Atom] = list(fj.outs)
    for i, (a, b) in enumerate(zip(tj.outs, fj.outs)):
        if a.aval == b.aval:
            continue
        if not isinstance(b, Lit):
            t_outs[i] = _weak_lit(a, b.aval) or a
        elif not isinstance(a, Lit):
            f_outs[i] = _weak_lit(b, a.aval) or b
    return Jaxpr(tj.in_binders, tj.eqns, tuple(t_outs)), Jaxpr(fj.in_binders, fj.eqns, tuple(f_outs))


def _cond_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    pred, *ops = primals
    tans = tangents[1:]
    tj, fj = CondParams.of(params)
    nz = [nonzero(t) for t in tans]
    none = [False] * len(tj.outs)
    tj2, t_nz, tk = jvp_jaxpr_nz(tj, nz, none)
    fj2, f_nz, fk = jvp_jaxpr_nz(fj, nz, none)
    out_nz = [a or b for a, b in zip(t_nz, f_nz)]
    if t_nz != out_nz:
        tj2, _, tk = jvp_jaxpr_nz(tj, nz, out_nz)
    if f_nz != out_nz:
        fj2, _, fk = jvp_jaxpr_nz(fj, nz, out_nz)
    # the constants the JVPs staged (arrays a rule builds) become operands of both branches
    tj2, fj2 = join_consts([tj2, fj2], [len(tk), len(fk)])
    dots = [t for t in tans if not isinstance(t, Zero)]
    outs = bind_cond(pred, [*tk, *fk, *ops, *dots], tj2, fj2)
    return tangents_out(outs, len(tj.outs), out_nz, tj.out_avals)


def _cond_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    pred, *ops = vals
    pd, *odims = dims
    tj, fj = CondParams.of(params)
    ops = to_front(size, ops, odims)
    in_b = [d is not None for d in odims]
    if pd is None:
        out_b = [a or b for a, b in zip(forward_deps(tj, in_b), forward_deps(fj, in_b))]
        tj2 = batch_jaxpr(tj, size, dims0(in_b), out_b)
        fj2 = batch_jaxpr(fj, size, dims0(in_b), out_b)
        return bind_cond(pred, ops, tj2, fj2), dims0(out_b)
    everything = [True] * len(tj.outs)
    t_outs = eval_jaxpr(batch_jaxpr(tj, size, dims0(in_b), everything), ops)
    f_outs = eval_jaxpr(batch_jaxpr(fj, size, dims0(in_b), everything), ops)
    p = move_batch_axis(size, pd, 0, pred)
    return [select_batched(p, f, t) for t, f in zip(t_outs, f_outs)], dims0(everything)


def _cond_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    pred_uk, *uks = unks_in
    if pred_uk:
        return stage_all(unks_in, eqn)
    pred = eqn.inputs[0]
    ops = eqn.inputs[1:]
    tj, fj = CondParams.of(eqn.params)
    t_uk = partial_eval_jaxpr(tj, uks)[2]
    f_uk = partial_eval_jaxpr(fj, uks)[2]
    out_uk = [a or b for a, b in zip(t_uk, f_uk)]
    t1, t2, _, tn = partial_eval_jaxpr(tj, uks, instantiate=out_uk)
    f1, f2, _, fn = partial_eval_jaxpr(fj, uks, instantiate=out_uk)
    n_known = out_uk.count(False)
    known_ins = [a for a, u in zip(ops, uks) if not u]
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    if not any(out_uk):
        t1 = Jaxpr(t1.in_binders, t1.eqns, t1.outs[:n_known])
        f1 = Jaxpr(f1.in_binders, f1.eqns, f1.outs[:n_known])
        only = Eqn(cond_p, (pred, *known_ins), CondParams(t1, f1).to_params(), tuple(known_outs))
        return only, None, out_uk, []
    t_res = list(t1.out_avals[n_known:])
    f_res = list(f1.out_avals[n_known:])
    t1 = with_outs(t1, n_known + tn, [], f_res)
    f1 = with_outs(f1, n_known, t_res, [])
    t2, f2 = join_consts([t2, f2], [tn, fn])
    res = list(fresh_vars([*t_res, *f_res]))
    eqn1: Eqn | None = None
    if known_outs or res:
        eqn1 = Eqn(cond_p, (pred, *known_ins), CondParams(t1, f1).to_params(), (*known_outs, *res))
    unknown_ins = [a for a, u in zip(ops, uks) if u]
    unknown_outs = tuple(v for v, u in zip(eqn.out_binders, out_uk) if u)
    eqn2 = Eqn(cond_p, (pred, *res, *unknown_ins), CondParams(t2, f2).to_params(), unknown_outs)
    residuals = res + ([pred] if isinstance(pred, Var) else [])
    return eqn1, eqn2, out_uk, residuals


def _cond_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    pred, *ops = primals
    if isinstance(pred, UndefPrimal):
        raise NonLinearError("cond", "its predicate is a linear value")
    lin = [isinstance(x, UndefPrimal) for x in ops]
    tj, fj = (transpose_jaxpr(j, lin) for j in CondParams.of(params))
    res = [x for x in ops if not isinstance(x, UndefPrimal)]
    outs = iter(bind_cond(pred, [*res, *cts], tj, fj))
    return [None, *[next(outs) if li else None for li in lin]]


def _cond_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    tj, fj = CondParams.of(eqn.params)
    used_t = dce_jaxpr(tj, used)[1]
    used_f = dce_jaxpr(fj, used)[1]
    used_in = [a or b for a, b in zip(used_t, used_f)]
    tj2 = dce_jaxpr(tj, used, instantiate=used_in)[0]
    fj2 = dce_jaxpr(fj, used, instantiate=used_in)[0]
    ins = (eqn.inputs[0], *[a for a, u in zip(eqn.inputs[1:], used_in) if u])
    outs = tuple(v for v, u in zip(eqn.out_binders, used) if u)
    return Eqn(cond_p, ins, CondParams(tj2, fj2).to_params(), outs)


def _cond_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    pred, *ops = args
    tj, fj = CondParams.of(eqn.params)
    op = hlo.IfOp([tensor_type(v.aval) for v in eqn.out_binders], pred)
    region_body(ctx, op.true_branch, tj, ops)
    region_body(ctx, op.false_branch, fj, ops)
    return list(op.results)


cond_p = Primitive(
    "cond", _cond_impl, _cond_abstract,
    Rules(
        jvp=_cond_jvp, transpose=_cond_transpose, batch=_cond_batch, lower=_cond_lowering,
        partial_eval=_cond_pe, dce=_cond_dce,
    ),
)


def cond(
    pred: Value,
    true_fun: Callable[[Unpack[Ts]], T],
    false_fun: Callable[[Unpack[Ts]], T],
    *operands: Unpack[Ts],
) -> T:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    ``pred`` is a boolean scalar; the operands and results are pytrees. Both
    functions must return the same structure of the same types.
    """
    check_pred("cond", aval_of(pred), "compare with a value (x > 0) to get one")
    leaves, in_tree = tree.flatten(operands)
    avals = [aval_of(as_value(x, "cond operands")) for x in leaves]
    t_closed, t_tree = trace_callable(true_fun, in_tree, avals, "cond's true_fun")
    f_closed, f_tree = trace_callable(false_fun, in_tree, avals, "cond's false_fun")
    if t_tree != f_tree:
        raise PrimitiveTypeError(
            f"cond: true_fun and false_fun must return the same structure: true_fun "
            f"returns {t_tree} but false_fun returns {f_tree}"
        )
    tj, fj = _join_weak(t_closed.jaxpr, f_closed.jaxpr)
    if tj.out_avals != fj.out_avals:
        raise PrimitiveTypeError(
            f"cond: true_fun and false_fun must return the same types: true_fun returns "
            f"{types_str(tj.out_avals)} but false_fun returns {types_str(fj.out_avals)}"
        )
    tj, fj = join_consts([tj, fj], [len(t_closed.consts), len(f_closed.consts)])
    consts = [as_value(c, "constants") for c in (*t_closed.consts, *f_closed.consts)]
    outs = bind_cond(pred, [*consts, *[as_value(x, "") for x in leaves]], tj, fj)
    return tree.unflatten(t_tree, outs)  # type: ignore[return-value]  # same structure as the branches' results
