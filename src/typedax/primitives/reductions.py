"""Reductions beyond ``reduce_sum`` (which is structural: it transposes to
``broadcast``), and every rule for them: ``reduce_max``, ``reduce_min``,
``reduce_prod``, ``reduce_and``, ``reduce_or``, ``argmax`` and ``argmin``."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.dtypes import DType
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, JvpRule, Rules, Tangent, Zero, floats_on_device
from ..core.trace import Value, aval_of, bind1, memo_abstract
from jaxlib.mlir import ir

from ..core.array import Array, ArrayLike
from ..core.dtypes import COMPLEX, INTEGER, bool_, canonicalize_explicit
from ..core.errors import PrimitiveAxisError, PrimitiveTypeError
from ..hlo import HloValue, LoweringContext, compare, dtype_max, dtype_min, element_type, full, reduce, tensor_type
from ._params import get_dtype, get_ints, params_of
from .cumulative import cumprod
from .elementwise import convert, div, eq, mul
from .shaping import concatenate_p
from .slicing import _int, _ints, slice_
from .structural import (
    broadcast_to,
    check_arity,
    move_batch_axis,
    reduce_sum,
    reduced_aval,
    reduction_batch,
    reshape,
    transpose,
    zero_like,
    zero_of,
)


def _extremum(
    name: str,
    np_reduce: np.ufunc,
    identity: Callable[[DType], bool | int | float],
    hlo_op: Callable[[HloValue, HloValue], HloValue],
) -> Primitive:
    """``reduce_max`` or ``reduce_min`` over ``axis``, with every rule; over
    an empty axis the identity (-inf / the smallest integer / False for max),
    as XLA's ``reduce`` and ``jax.lax.reduce_max``."""

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        """NumPy's reduction from the identity (so an empty axis gives it, as
        XLA's ``reduce``), then XLA's signed zeros: ``max`` of +0 and -0 is
        +0 and ``min`` -0 in any order, where NumPy keeps the first."""
        x = args[0]
        axis = get_ints(name, params, "axis")
        out = np.asarray(np_reduce.reduce(x, axis=axis, initial=identity(x.dtype)), dtype=x.dtype)
        if x.dtype.kind == "f" and x.size and (out == 0).any():
            neg_wins = np_reduce is np.minimum  # -0 is min's answer when any zero is -0
            chosen = np.any((x == 0) & (np.signbit(x) == neg_wins), axis=axis)
            zero = np.where(chosen == neg_wins, np.asarray(-0.0, x.dtype), np.asarray(0.0, x.dtype))
            out = np.where(out == 0, zero, out)
        return [out]

    @memo_abstract
    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        return reduced_aval(name, avals, params, allow_bool=True, nonempty=False)

    def jvp_rule(prim: Primitive) -> JvpRule:
        def rule(
            primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
        ) -> tuple[list[Value], list[Tangent]]:
            """The mean of the tangents at the positions of the extremum (as JAX)."""
            (x,), (t,) = primals, tangents
            out = bind1(prim, (x,), params)
            if isinstance(t, Zero):
                return [out], [zero_like(out)]
            axis = get_ints(name, params, "axis")
            xa = aval_of(x)
            ind = convert(eq(x, broadcast_to(out, xa.shape, axis)), xa.dtype)
            counts = reduce_sum(ind, axis)
            return [out], [div(reduce_sum(mul(t, ind), axis), counts)]

        return rule

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        axes = get_ints(name, eqn.params, "axis")
        x_aval = eqn.inputs[0].aval
        return [reduce(args[0], x_aval, eqn.out_binders[0].aval, axes, identity(x_aval.dtype), hlo_op)]

    return Primitive(
        name, impl, abstract,
        rules_for=lambda p: Rules(jvp=jvp_rule(p), batch=reduction_batch(p), lower=lower),
    )


reduce_max_p = _extremum("reduce_max", np.maximum, dtype_min, hlo.maximum)
reduce_min_p = _extremum("reduce_min", np.minimum, dtype_max, hlo.minimum)


# -- reduce_prod(x; axis) -------------------------------------------------------
def _exclusive_products(x: Value, reverse: bool) -> Value:
    """Along the last axis (size >= 1): the product of the elements before each
    (after it, with ``reverse``), 1 for the first; no division."""
    a = aval_of(x)
    n = a.shape[-1]
    inclusive = cumprod(x, a.ndim - 1, reverse)
    ones = broadcast_to(np.ones((), a.dtype), a.shape[:-1] + (1,), tuple(range(a.ndim)))
    lead = tuple(0 for _ in a.shape[:-1])
    if reverse:
        rest = slice_(inclusive, lead + (1,), a.shape, None)
        return bind1(concatenate_p, (rest, ones), params_of(("dimension", a.ndim - 1)))
    rest = slice_(inclusive, lead + (0,), a.shape[:-1] + (n - 1,), None)
    return bind1(concatenate_p, (ones, rest), params_of(("dimension", a.ndim - 1)))


def _reduce_prod_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """As JAX: the tangent is ``sum_i t_i * prod_{j != i} x_j``, with the
    products of all but one element from exclusive prefix and suffix products
    (``cumprod``): exact where ``x`` has zeros, no division, O(n) work."""
    (x,), (t,) = primals, tangents
    out = bind1(reduce_prod_p, (x,), params)
    if isinstance(t, Zero):
        return [out], [zero_like(out)]
    axis = get_ints("reduce_prod", params, "axis")
    xa = aval_of(x)
    if not axis or any(xa.shape[a] == 0 for a in axis):
        return [out], [reduce_sum(t, axis) if axis else t]
    kept = tuple(i for i in range(xa.ndim) if i not in axis)
    perm = kept + tuple(axis)
    flat = tuple(xa.shape[i] for i in kept) + (math.prod(xa.shape[a] for a in axis),)
    xs = reshape(transpose(x, perm), flat)
    ts = reshape(transpose(t, perm), flat)
    others = mul(_exclusive_products(xs, False), _exclusive_products(xs, True))
    return [out], [reduce_sum(mul(ts, others), (len(flat) - 1,))]


def _reduce_prod_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x = args[0]
    return [np.asarray(np.multiply.reduce(x, axis=get_ints("reduce_prod", params, "axis"), dtype=x.dtype))]


@memo_abstract
def _reduce_prod_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return reduced_aval("reduce_prod", avals, params, allow_bool=False, nonempty=False)


def _reduce_prod_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    axes = get_ints("reduce_prod", eqn.params, "axis")
    return [reduce(args[0], eqn.inputs[0].aval, eqn.out_binders[0].aval, axes, 1, hlo.multiply, wide_halves=True)]


reduce_prod_p = Primitive(
    "reduce_prod", _reduce_prod_impl, _reduce_prod_abstract,
    rules_for=lambda p: Rules(
        jvp=_reduce_prod_jvp, batch=reduction_batch(p), lower=_reduce_prod_lower,
        eval_on_device=floats_on_device,  # a float product's order is XLA's
    ),
)


# -- reduce_and / reduce_or(x; axis): bool, or integers bitwise ----------------------
def _logical(
    name: str,
    np_op: np.ufunc,
    identity: Callable[[DType], bool | int],
    hlo_op: Callable[[HloValue, HloValue], HloValue],
) -> Primitive:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x = args[0]
        axis = get_ints(name, params, "axis")
        init = np.asarray(identity(x.dtype)).astype(x.dtype)  # (-1 wraps to all ones for unsigned)
        return [np.asarray(np_op.reduce(x, axis=axis, initial=init), dtype=x.dtype)]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        out = reduced_aval(name, avals, params, allow_bool=True, nonempty=False)
        if avals[0].dtype != bool_ and avals[0].dtype not in INTEGER:
            raise PrimitiveTypeError(f"{name} takes bool or integer operands, got {avals[0].str_short()}")
        return out

    def jvp(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        out = bind1(prim, primals, params)
        return [out], [zero_like(out)]

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        axes = get_ints(name, eqn.params, "axis")
        x_aval = eqn.inputs[0].aval
        return [reduce(args[0], x_aval, eqn.out_binders[0].aval, axes, identity(x_aval.dtype), hlo_op)]

    prim = Primitive(
        name, impl, abstract,
        rules_for=lambda p: Rules(jvp=jvp, batch=reduction_batch(p), lower=lower),
    )
    return prim


def _all_ones(dtype: DType) -> bool | int:
    return True if dtype == bool_ else -1


def _all_zeros(dtype: DType) -> bool | int:
    return False if dtype == bool_ else 0


reduce_and_p = _logical("reduce_and", np.bitwise_and, _all_ones, hlo.and_)
reduce_or_p = _logical("reduce_or", np.bitwise_or, _all_zeros, hlo.or_)


# -- argmax / argmin(x; axes, index_dtype) -------------------------------------------
def _arg_params(name: str, params: Params) -> tuple[int, DType]:
    axes = get_ints(name, params, "axes")
    if len(axes) != 1:
        raise PrimitiveTypeError(f"{name}: param 'axes' must hold exactly one axis, got {axes}")
    return axes[0], get_dtype(name, params, "index_dtype")


def _arg_extremum(name: str, np_arg: Callable[..., NDArray], direction: str,
                  identity: Callable[[DType], bool | int | float]) -> Primitive:
    """``argmax`` (``direction`` GT) or ``argmin`` (LT): the index of the first
    extremum along one axis, NaN counting as the extremum (the first NaN wins),
    as JAX's comparator (``_ArgMinMaxReducer``) in XLA's ``reduce``."""

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        axis, index_dtype = _arg_params(name, params)
        return [np.asarray(np_arg(args[0], axis=axis)).astype(index_dtype)]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        check_arity(name, avals, 1)
        (x,) = avals
        axis, index_dtype = _arg_params(name, params)
        if index_dtype not in INTEGER:
            raise PrimitiveTypeError(f"{name}: index_dtype must be an integer type, got {index_dtype.name}")
        if x.dtype in COMPLEX:  # JAX's comparator (gt/lt) refuses them
            raise PrimitiveTypeError(f"{name} does not accept complex operands, got {x.str_short()}")
        if not 0 <= axis < x.ndim:
            raise PrimitiveAxisError(f"{name}: axis {axis} is out of bounds for {x.str_short()}")
        if x.shape[axis] == 0:
            raise PrimitiveTypeError(f"{name}: cannot reduce {x.str_short()} over the empty axis {axis}")
        return [ShapedArray(x.shape[:axis] + x.shape[axis + 1:], index_dtype)]

    def jvp(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        out = bind1(prim, primals, params)
        return [out], [zero_like(out)]

    def batch(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x,), (b,) = vals, dims
        assert b is not None
        axis, index_dtype = _arg_params(name, params)
        new_axis = axis + (axis >= b)
        new = params_of(("axes", (new_axis,)), ("index_dtype", index_dtype))
        return [bind1(prim, (x,), new)], [b - (axis < b)]

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        axis, index_dtype = _arg_params(name, eqn.params)
        x_aval = eqn.inputs[0].aval
        out_aval = eqn.out_binders[0].aval
        idx_aval = ShapedArray(x_aval.shape, index_dtype)
        iota = hlo.iota(tensor_type(idx_aval), axis)
        vs, is_ = ShapedArray((), x_aval.dtype), ShapedArray((), index_dtype)
        op = hlo.ReduceOp(
            [tensor_type(ShapedArray(out_aval.shape, x_aval.dtype)), tensor_type(out_aval)],
            [args[0], iota], [full(identity(x_aval.dtype), vs), full(0, is_)], [axis],
        )
        st_v = ir.RankedTensorType.get([], element_type(x_aval.dtype))
        st_i = ir.RankedTensorType.get([], element_type(index_dtype))
        block = op.regions[0].blocks.append(st_v, st_i, st_v, st_i)
        with ir.InsertionPoint(block):
            op_val, op_idx, acc_val, acc_idx = block.arguments
            dt = x_aval.dtype
            pick_val = hlo.or_(compare(op_val, acc_val, dt, direction), compare(op_val, op_val, dt, "NE"))
            tie_first = hlo.and_(compare(op_val, acc_val, dt, "EQ"), compare(op_idx, acc_idx, index_dtype, "LT"))
            pick_idx = hlo.or_(pick_val, tie_first)
            hlo.return_([hlo.select(pick_val, op_val, acc_val), hlo.select(pick_idx, op_idx, acc_idx)])
        return [op.results[1]]

    prim = Primitive(name, impl, abstract, Rules(jvp=jvp, batch=batch, lower=lower))
    return prim


argmax_p = _arg_extremum("argmax", np.argmax, "GT", dtype_min)
argmin_p = _arg_extremum("argmin", np.argmin, "LT", dtype_max)


FAMILY = Family(
    "reductions",
    (reduce_max_p, reduce_min_p, reduce_prod_p, reduce_and_p, reduce_or_p, argmax_p, argmin_p),
)


# -- the jax.lax functions ----------------------------------------------------------
def _axes(op: str, axes: Sequence[int]) -> Params:
    return params_of(("axis", _ints(op, "axes", axes)))


def reduce_prod(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """The product over ``axes`` (``jax.lax.reduce_prod``)."""
    return bind1(reduce_prod_p, (operand,), _axes("reduce_prod", axes))


def reduce_and(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Logical (bool) or bitwise (integers) AND over ``axes`` (``jax.lax.reduce_and``)."""
    return bind1(reduce_and_p, (operand,), _axes("reduce_and", axes))


def reduce_or(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Logical (bool) or bitwise (integers) OR over ``axes`` (``jax.lax.reduce_or``)."""
    return bind1(reduce_or_p, (operand,), _axes("reduce_or", axes))


def _arg(prim: Primitive, operand: ArrayLike, axis: int, index_dtype: DType | type) -> Array:
    a = _int(prim.name, "axis", axis)
    d = canonicalize_explicit(np.dtype(index_dtype), prim.name)
    return bind1(prim, (operand,), params_of(("axes", (a,)), ("index_dtype", d)))


def argmax(operand: ArrayLike, axis: int, index_dtype: DType | type) -> Array:
    """The index of the first maximum along ``axis`` (a NaN counts as the
    maximum) (``jax.lax.argmax``)."""
    return _arg(argmax_p, operand, axis, index_dtype)


def argmin(operand: ArrayLike, axis: int, index_dtype: DType | type) -> Array:
    """The index of the first minimum along ``axis`` (a NaN counts as the
    minimum) (``jax.lax.argmin``)."""
    return _arg(argmin_p, operand, axis, index_dtype)
