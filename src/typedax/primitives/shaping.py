"""Shaping primitives, every rule for each, and their ``jax.lax`` functions:
``concatenate``, ``rev``, ``iota``, ``squeeze``; and ``expand_dims``, a
function over ``broadcast`` as in JAX. (``pad``, whose transpose is ``slice``
and the other way round, is in ``slicing.py``.)

``pad`` follows XLA: interior padding first (``interior`` copies of the
padding value between neighbours), then ``low``/``high`` elements added at
each end, or removed where negative.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, bool_
from ..core.errors import PrimitiveTypeError, ShapeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1, memo_abstract
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import get_dtype, get_int, get_ints, params_of
from .elementwise import select, sub
from .slicing import _int, _ints, canonical_axis, slice_
from .structural import (
    broadcast_p,
    broadcast_to,
    check_arity,
    instantiate_zeros,
    linear_jvp,
    move_batch_axis,
    primal_aval,
    reduce_sum,
    reshape,
    types_str,
    zero_like,
)

Values = Sequence[HloValue]


def _out(eqn: Eqn) -> ShapedArray:
    return eqn.out_binders[0].aval


# -- concatenate(*xs; dimension) ------------------------------------------------
def _concatenate_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.concatenate(args, axis=get_int("concatenate", params, "dimension"))]


def _concatenate_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    d = get_int("concatenate", params, "dimension")
    if not avals:
        raise PrimitiveTypeError("concatenate needs at least one operand")
    first = avals[0]
    if any(a.dtype != first.dtype for a in avals):
        raise PrimitiveTypeError(f"concatenate: operands must share one dtype, got ({types_str(avals)})")
    if not 0 <= d < first.ndim:
        raise PrimitiveTypeError(
            f"concatenate: dimension={d} is not an axis of the operands ({types_str(avals)})"
        )
    for a in avals:
        if a.ndim != first.ndim or any(
            i != d and m != n for i, (m, n) in enumerate(zip(a.shape, first.shape))
        ):
            raise PrimitiveTypeError(
                f"concatenate: operands must agree in every dimension but {d}, got ({types_str(avals)})"
            )
    size = sum(a.shape[d] for a in avals)
    return [ShapedArray(first.shape[:d] + (size,) + first.shape[d + 1 :], first.dtype)]


def _concatenate_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    out = bind1(concatenate_p, primals, params)
    if all(isinstance(t, Zero) for t in tangents):
        return [out], [zero_like(out)]
    return [out], [bind1(concatenate_p, [instantiate_zeros(t) for t in tangents], params)]


def _concatenate_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    d = get_int("concatenate", params, "dimension")
    shape = aval_of(ct).shape
    out: list[Value | None] = []
    offset = 0
    for p in ps:
        n = primal_aval(p).shape[d]
        if isinstance(p, UndefPrimal):
            start = tuple(offset if i == d else 0 for i in range(len(shape)))
            limit = tuple(offset + n if i == d else m for i, m in enumerate(shape))
            out.append(slice_(ct, start, limit, None))
        else:
            out.append(None)
        offset += n
    return out


def _concatenate_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    d = get_int("concatenate", params, "dimension")
    b = next(b for b in dims if b is not None)
    moved = [move_batch_axis(size, bx, b, x) for x, bx in zip(vals, dims)]
    return [bind1(concatenate_p, moved, params_of(("dimension", d + (d >= b))))], [b]


def _concatenate_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.concatenate(list(args), get_int("concatenate", eqn.params, "dimension"))]


concatenate_p = Primitive(
    "concatenate", _concatenate_impl, _concatenate_abstract,
    Rules(jvp=_concatenate_jvp, transpose=_concatenate_t, batch=_concatenate_batch, lower=_concatenate_lower),
)


# -- rev(x; dimensions) -------------------------------------------------------------
def _dims_of(name: str, x: ShapedArray, params: Params, *, size_one: bool = False) -> tuple[int, ...]:
    dims = get_ints(name, params, "dimensions")
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.ndim for d in dims):
        raise PrimitiveTypeError(f"{name}: dimensions={dims} must be distinct axes of {x.str_short()}")
    if size_one and any(x.shape[d] != 1 for d in dims):
        raise ShapeError(f"{name}: dimensions={dims} of {x.str_short()} must have size 1")
    return dims


def _rev_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.array(np.flip(args[0], get_ints("rev", params, "dimensions")))]


@memo_abstract
def _rev_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("rev", avals, 1)
    _dims_of("rev", avals[0], params)
    return [avals[0]]


def _rev_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [bind1(rev_p, cts, params)]


def _rev_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    ds = tuple(d + (d >= b) for d in get_ints("rev", params, "dimensions"))
    return [bind1(rev_p, (x,), params_of(("dimensions", ds)))], [b]


def _rev_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.reverse(args[0], list(get_ints("rev", eqn.params, "dimensions")))]


rev_p = Primitive(
    "rev", _rev_impl, _rev_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_rev_t, batch=_rev_batch, lower=_rev_lower),
)


# -- iota(; dtype, shape, dimension) -----------------------------------------------
NUMERIC: frozenset[DType] = FLOATING | INTEGER


def _iota_params(params: Params) -> tuple[DType, tuple[int, ...], int]:
    return (
        get_dtype("iota", params, "dtype"),
        get_ints("iota", params, "shape"),
        get_int("iota", params, "dimension"),
    )


def _iota_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    dtype, shape, d = _iota_params(params)
    line = np.arange(shape[d], dtype=dtype).reshape((-1,) + (1,) * (len(shape) - d - 1))
    return [np.array(np.broadcast_to(line, shape))]


def _iota_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("iota", avals, 0)
    dtype, shape, d = _iota_params(params)
    if dtype not in NUMERIC:
        raise PrimitiveTypeError(f"iota: dtype must be an integer or float type, got {dtype.name}")
    if any(n < 0 for n in shape):
        raise PrimitiveTypeError(f"iota: negative size in shape={shape}")
    if not 0 <= d < len(shape):
        raise PrimitiveTypeError(f"iota: dimension={d} must be an axis of shape={shape}")
    return [ShapedArray(shape, dtype)]


def _iota_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    out = bind1(iota_p, (), params)
    return [out], [zero_like(out)]


def _iota_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    return [bind1(iota_p, (), params)], [None]  # no operands: the same for every example


def _iota_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.iota(tensor_type(_out(eqn)), get_int("iota", eqn.params, "dimension"))]


iota_p = Primitive(
    "iota", _iota_impl, _iota_abstract, Rules(jvp=_iota_jvp, batch=_iota_batch, lower=_iota_lower)
)


# -- squeeze(x; dimensions) -------------------------------------------------------
def _squeezed(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i not in dims)


def _squeeze_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x = args[0]
    return [np.reshape(x, _squeezed(x.shape, get_ints("squeeze", params, "dimensions")))]


@memo_abstract
def _squeeze_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("squeeze", avals, 1)
    (x,) = avals
    dims = _dims_of("squeeze", x, params, size_one=True)
    return [ShapedArray(_squeezed(x.shape, dims), x.dtype)]


def _squeeze_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [reshape(cts[0], primal_aval(ps[0]).shape)]


def _squeeze_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    ds = get_ints("squeeze", params, "dimensions")
    new = tuple(d + (d >= b) for d in ds)
    return [bind1(squeeze_p, (x,), params_of(("dimensions", new)))], [b - sum(1 for d in ds if d < b)]


def _squeeze_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.reshape(tensor_type(_out(eqn)), args[0])]


squeeze_p = Primitive(
    "squeeze", _squeeze_impl, _squeeze_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_squeeze_t, batch=_squeeze_batch, lower=_squeeze_lower
    ),
)


FAMILY = Family("shaping", (concatenate_p, rev_p, iota_p, squeeze_p))


# -- the jax.lax functions ----------------------------------------------------------
def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Array:
    """``operands`` joined along ``dimension`` (``jax.lax.concatenate``: one
    dtype, no promotion)."""
    ops = list(operands)
    if not ops:
        raise PrimitiveTypeError("concatenate requires a non-empty sequence of arrays")
    d = _int("concatenate", "dimension", dimension)
    return bind1(concatenate_p, ops, params_of(("dimension", d)))


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Array:
    """``operand`` reversed along ``dimensions`` (``jax.lax.rev``)."""
    return bind1(rev_p, (operand,), params_of(("dimensions", _ints("rev", "dimensions", dimensions))))


def broadcasted_iota(dtype: DType | type, shape: Sequence[int], dimension: int) -> Array:
    """``0, 1, ...`` along ``dimension`` of ``shape`` (``jax.lax.broadcasted_iota``)."""
    params = params_of(
        ("dtype", np.dtype(dtype)),
        ("shape", _ints("broadcasted_iota", "shape", shape)),
        ("dimension", _int("broadcasted_iota", "dimension", dimension)),
    )
    return bind1(iota_p, (), params)


def iota(dtype: DType | type, size: int) -> Array:
    """``0, 1, ..., size - 1`` (``jax.lax.iota``)."""
    return broadcasted_iota(dtype, (_int("iota", "size", size),), 0)


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """``array`` without its size-1 ``dimensions`` (``jax.lax.squeeze``;
    negative dimensions count from the end)."""
    ndim = aval_of(array).ndim
    raw = _ints("squeeze", "dimensions", dimensions)
    dims = tuple(sorted(canonical_axis("squeeze", d, ndim) for d in raw))
    if len(set(dims)) != len(dims):
        raise PrimitiveTypeError(f"squeeze: dimensions={raw} are not unique")
    return bind1(squeeze_p, (array,), params_of(("dimensions", dims)))


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """``array`` with size-1 axes inserted at ``dimensions`` of the result
    (``jax.lax.expand_dims``: a ``broadcast``, not a primitive of its own)."""
    raw = _ints("expand_dims", "dimensions", dimensions)
    ndim_out = aval_of(array).ndim + len(raw)
    dims = tuple(sorted(canonical_axis("expand_dims", d, ndim_out) for d in raw))
    if len(set(raw)) != len(raw) or len(set(dims)) != len(dims):
        raise PrimitiveTypeError(f"expand_dims: repeated axis in dimensions={raw}")
    shape = list(aval_of(array).shape)
    for d in dims:
        shape.insert(d, 1)
    return bind1(broadcast_p, (array,), params_of(("shape", tuple(shape)), ("axes", dims)))

