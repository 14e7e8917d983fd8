"""Shape-changing primitives: ``broadcast``, ``reshape``, ``transpose``,
reductions and ``dot_general``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core.avals import ShapedArray
from ..core.dtypes import bool_
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray, Params, Primitive
from ..core.rules import PRIMITIVES
from ._params import _get, get_ints
from .elementwise import _check_arity

# -- broadcast(x; shape, axes): ``axes`` are the output axes x does not have --


def broadcast_operand_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    dropped = set(axes)
    return tuple(d for i, d in enumerate(shape) if i not in dropped)


def _broadcast_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    x = np.expand_dims(args[0], axes) if axes else args[0]
    return [np.broadcast_to(x, shape)]


def _broadcast_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("broadcast", avals, 1)
    (x,) = avals
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    if any(d < 0 for d in shape):
        raise PrimitiveTypeError(f"broadcast: negative size in shape={shape}")
    if len(set(axes)) != len(axes) or any(not 0 <= a < len(shape) for a in axes):
        raise PrimitiveTypeError(f"broadcast: axes={axes} must be distinct axes of shape={shape}")
    kept = broadcast_operand_shape(shape, tuple(sorted(axes)))
    if len(kept) != x.ndim or any(d not in (1, k) for d, k in zip(x.shape, kept)):
        raise PrimitiveTypeError(
            f"broadcast: operand {x.str_short()} does not fit shape={shape} with new axes={axes}"
        )
    return [ShapedArray(shape, x.dtype)]


broadcast_p = PRIMITIVES.add(Primitive("broadcast", _broadcast_impl, _broadcast_abstract))


# -- reshape(x; new_sizes) ---------------------------------------------------
def _reshape_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.reshape(args[0], get_ints("reshape", params, "new_sizes"))]


def _reshape_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("reshape", avals, 1)
    (x,) = avals
    new_sizes = get_ints("reshape", params, "new_sizes")
    if any(d < 0 for d in new_sizes) or math.prod(new_sizes) != x.size:
        raise PrimitiveTypeError(f"reshape: cannot reshape {x.str_short()} to new_sizes={new_sizes}")
    return [ShapedArray(new_sizes, x.dtype)]


reshape_p = PRIMITIVES.add(Primitive("reshape", _reshape_impl, _reshape_abstract))


# -- transpose(x; perm) ------------------------------------------------------
def _transpose_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.transpose(args[0], get_ints("transpose", params, "perm"))]


def _transpose_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("transpose", avals, 1)
    (x,) = avals
    perm = get_ints("transpose", params, "perm")
    if sorted(perm) != list(range(x.ndim)):
        raise PrimitiveTypeError(f"transpose: perm={perm} is not a permutation of {x.str_short()}'s axes")
    return [ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)]


transpose_p = PRIMITIVES.add(Primitive("transpose", _transpose_impl, _transpose_abstract))


# -- reductions(x; axis) -----------------------------------------------------
def _reduction(name: str, fn_name: str, allow_bool: bool) -> Primitive:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x = args[0]
        axis = get_ints(name, params, "axis")
        if fn_name == "sum":
            return [np.asarray(np.sum(x, axis=axis, dtype=x.dtype))]
        return [np.asarray(np.max(x, axis=axis))]

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _check_arity(name, avals, 1)
        (x,) = avals
        axis = get_ints(name, params, "axis")
        if len(set(axis)) != len(axis) or any(not 0 <= a < x.ndim for a in axis):
            raise PrimitiveTypeError(f"{name}: axis={axis} must be distinct axes of {x.str_short()}")
        if x.dtype == bool_ and not allow_bool:
            raise PrimitiveTypeError(f"{name} does not accept bool operands, got {x.str_short()}")
        if fn_name == "max" and any(x.shape[a] == 0 for a in axis):
            raise PrimitiveTypeError(f"{name}: cannot reduce {x.str_short()} over an empty axis")
        dropped = set(axis)
        return [ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in dropped), x.dtype)]

    return PRIMITIVES.add(Primitive(name, impl, abstract_eval))


reduce_sum_p = _reduction("reduce_sum", "sum", allow_bool=False)
reduce_max_p = _reduction("reduce_max", "max", allow_bool=True)


# -- dot_general(lhs, rhs; dimension_numbers) --------------------------------
DimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]


def get_dimension_numbers(params: Params) -> DimensionNumbers:
    dn = _get("dot_general", params, "dimension_numbers")
    parts: tuple[object, ...] = ()
    if isinstance(dn, tuple) and len(dn) == 2 and all(isinstance(p, tuple) and len(p) == 2 for p in dn):
        parts = tuple(q for p in dn if isinstance(p, tuple) for q in p)
    if len(parts) != 4 or not all(
        isinstance(p, tuple) and all(type(i) is int for i in p) for p in parts
    ):
        raise PrimitiveTypeError(
            f"dot_general: dimension_numbers must be ((lhs_contract, rhs_contract), "
            f"(lhs_batch, rhs_batch)) tuples of ints, got {dn!r}"
        )
    lc_, rc_, lb_, rb_ = (tuple(i for i in p if type(i) is int) for p in parts if isinstance(p, tuple))
    return ((lc_, rc_), (lb_, rb_))


def _free(ndim: int, contract: tuple[int, ...], batch: tuple[int, ...]) -> tuple[int, ...]:
    used = set(contract) | set(batch)
    return tuple(i for i in range(ndim) if i not in used)


def _dot_general_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("dot_general", avals, 2)
    lhs, rhs = avals
    (lc, rc), (lb, rb) = get_dimension_numbers(params)

    def where() -> str:  # built only when there is an error to report
        return f"dot_general({lhs.str_short()}, {rhs.str_short()}, dimension_numbers={((lc, rc), (lb, rb))})"

    if lhs.dtype != rhs.dtype:
        raise PrimitiveTypeError(f"{where()}: operands must have one dtype")
    if lhs.dtype == bool_:
        raise PrimitiveTypeError(f"{where()}: bool operands are not supported")
    for dims, a in ((lc + lb, lhs), (rc + rb, rhs)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < a.ndim for d in dims):
            raise PrimitiveTypeError(f"{where()}: dimensions must be distinct axes of each operand")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise PrimitiveTypeError(f"{where()}: contracting and batch dimensions must pair up")
    if any(lhs.shape[i] != rhs.shape[j] for i, j in zip(lc + lb, rc + rb)):
        raise PrimitiveTypeError(f"{where()}: paired dimensions have different sizes")
    shape = (
        tuple(lhs.shape[i] for i in lb)
        + tuple(lhs.shape[i] for i in _free(lhs.ndim, lc, lb))
        + tuple(rhs.shape[i] for i in _free(rhs.ndim, rc, rb))
    )
    return [ShapedArray(shape, lhs.dtype)]


def _dot_general_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    lhs, rhs = args
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    lf, rf = _free(lhs.ndim, lc, lb), _free(rhs.ndim, rc, rb)
    bshape = tuple(lhs.shape[i] for i in lb)
    lfs, rfs = tuple(lhs.shape[i] for i in lf), tuple(rhs.shape[i] for i in rf)
    csize = math.prod(lhs.shape[i] for i in lc)
    b = math.prod(bshape)
    l3 = np.transpose(lhs, lb + lf + lc).reshape(b, math.prod(lfs), csize)
    r3 = np.transpose(rhs, rb + rc + rf).reshape(b, csize, math.prod(rfs))
    out = np.matmul(l3, r3).reshape(bshape + lfs + rfs)
    return [np.asarray(out, dtype=lhs.dtype)]


dot_general_p = PRIMITIVES.add(Primitive("dot_general", _dot_general_impl, _dot_general_abstract))
