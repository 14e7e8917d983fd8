"""``cond``: apply one of two functions, chosen by a boolean scalar.

The primitive ``cond`` takes the predicate, then the joined constants of both
branches, then the operands; its params ``true_jaxpr`` and ``false_jaxpr``
are closed jaxprs of one and the same type. Both branches are always traced
(also for a concrete predicate), as in JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.dtypes import bool_, is_float, is_int
from ..core.errors import PrimitiveTypeError
from ..core.ir import Atom, Jaxpr, Lit, NDArray, Params, Primitive
from ..core.rules import PRIMITIVES
from ..core.trace import Value, aval_of, bind
from ..primitives._params import get_jaxpr
from .common import as_value, check_jaxpr_in_types, eval_np, join_consts, trace_callable, types_str

__all__ = ["bind_cond", "cond", "cond_p"]

T = TypeVar("T")

PRED_TYPE = ShapedArray((), bool_)


def check_pred(prim: str, aval: ShapedArray, fix: str) -> None:
    if aval != PRED_TYPE:
        raise PrimitiveTypeError(
            f"{prim}: the predicate must be a boolean scalar (bool[]), got "
            f"{aval.str_short()}; {fix}"
        )


def _cond_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    pred, *ops = args
    jaxpr = get_jaxpr("cond", params, "true_jaxpr" if bool(pred) else "false_jaxpr")
    return eval_np(jaxpr, ops)


def _cond_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if not avals:
        raise PrimitiveTypeError("cond: missing the predicate operand")
    pred, *ins = avals
    check_pred("cond", pred, "compare with a value (x > 0) to get one")
    tj = get_jaxpr("cond", params, "true_jaxpr")
    fj = get_jaxpr("cond", params, "false_jaxpr")
    t_out = check_jaxpr_in_types("cond", "true_jaxpr", tj, ins)
    f_out = check_jaxpr_in_types("cond", "false_jaxpr", fj, ins)
    if t_out != f_out:
        raise PrimitiveTypeError(
            f"cond: the branches have different output types: true_jaxpr returns "
            f"{types_str(t_out)} but false_jaxpr returns {types_str(f_out)}"
        )
    return list(t_out)


cond_p = PRIMITIVES.add(Primitive("cond", _cond_impl, _cond_abstract))


def cond_params(true_jaxpr: Jaxpr, false_jaxpr: Jaxpr) -> Params:
    return pmap({"true_jaxpr": true_jaxpr, "false_jaxpr": false_jaxpr})


def bind_cond(pred: Value, args: Sequence[Value], true_jaxpr: Jaxpr, false_jaxpr: Jaxpr) -> list[Value]:
    return bind(cond_p, [pred, *args], cond_params(true_jaxpr, false_jaxpr))


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


def cond(
    pred: Value,
    true_fun: Callable[..., T],
    false_fun: Callable[..., T],
    *operands: object,
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
