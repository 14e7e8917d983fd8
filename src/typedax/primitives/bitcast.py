"""Bit-level conversions: ``bitcast_convert_type`` and ``reduce_precision``.

``bitcast_convert_type`` reads an array's bits as another dtype, as XLA's
BitcastConvert (JAX's ``lax.bitcast_convert_type``): to a dtype of the same
width the shape stays; to a narrower one each element becomes a new trailing
dimension of ``old_bits // new_bits`` pieces (in memory order: little-endian,
the low-order piece first, as XLA on the machines typedax runs on); to a wider
one the trailing dimension, which must hold exactly ``new_bits // old_bits``
elements, goes. Bools convert only to bool (JAX refuses the rest). Its
derivative is zero, as JAX's ``defjvp_zero``.

``reduce_precision`` rounds floats to a narrower format held in the same
dtype (XLA's ReducePrecision): the mantissa rounds to nearest, ties to even,
to ``mantissa_bits``; exponents beyond the narrower range overflow to ±inf,
and those at or below its least normal exponent flush to ±0; NaNs stay NaN.
It is linear (its tangent and cotangent go through it, as in JAX), so
``reduce_precision(x, 8, 7)`` simulates bfloat16 and ``(5, 10)`` float16.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, DType, bfloat16, bool_, float16, float32, float64
from ..core.errors import PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules
from ..core.trace import Value, bind1
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import get_dtype, get_int
from .elementwise import elementwise_batch
from .structural import check_arity, linear_jvp, move_batch_axis, zero_jvp


# -- bitcast_convert_type ---------------------------------------------------------------
def _bitcast_shape(name: str, x: ShapedArray, new: DType) -> tuple[int, ...]:
    old = x.dtype
    if (old == bool_) != (new == bool_):
        raise PrimitiveTypeError(
            f"{name}: bool converts only to bool (JAX's rule), got {x.str_short()} to {new.name}"
        )
    ob, nb = 8 * old.itemsize, 8 * new.itemsize
    if ob == nb:
        return x.shape
    if ob > nb:
        return (*x.shape, ob // nb)
    last = x.shape[-1] if x.shape else 1
    if last * ob != nb:
        raise PrimitiveTypeError(
            f"{name}: {x.str_short()} to {new.name} needs a last dimension of {nb // ob} "
            f"({nb} bits from {ob}-bit elements), got {last}"
        )
    return x.shape[:-1]


def _bitcast_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    new = get_dtype("bitcast_convert_type", params, "new_dtype")
    x = np.asarray(args[0])
    shape = _bitcast_shape("bitcast_convert_type", ShapedArray(x.shape, x.dtype), new)
    return [np.ascontiguousarray(x).reshape(x.shape or (1,)).view(new).reshape(shape)]


def _bitcast_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("bitcast_convert_type", avals, 1)
    new = get_dtype("bitcast_convert_type", params, "new_dtype")
    return [ShapedArray(_bitcast_shape("bitcast_convert_type", avals[0], new), new)]


def _bitcast_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    # the trailing dimension may come or go: the batch axis goes first
    x = move_batch_axis(size, dims[0], 0, vals[0])
    return [bind1(bitcast_convert_type_p, (x,), params)], [0]


def _bitcast_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [hlo.bitcast_convert(tensor_type(eqn.out_binders[0].aval), args[0])]


bitcast_convert_type_p = Primitive(
    "bitcast_convert_type", _bitcast_impl, _bitcast_abstract,
    rules_for=lambda p: Rules(jvp=zero_jvp(p), batch=_bitcast_batch, lower=_bitcast_lower),
)


# -- reduce_precision --------------------------------------------------------------------
def _precision_params(params: Params) -> tuple[int, int]:
    e = get_int("reduce_precision", params, "exponent_bits")
    m = get_int("reduce_precision", params, "mantissa_bits")
    if e < 1:
        raise PrimitiveTypeError(f"reduce_precision: exponent_bits must be positive; got {e}")
    if m < 0:
        raise PrimitiveTypeError(f"reduce_precision: mantissa_bits must be non-negative; got {m}")
    return e, m


#: Each float dtype's exponent and mantissa bits.
_LAYOUT: dict[DType, tuple[int, int]] = {float16: (5, 10), bfloat16: (8, 7), float32: (8, 23), float64: (11, 52)}


def _reduce_precision_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    """XLA's ReducePrecision on the bits (its elemental IR emitter, step for step)."""
    dest_e, dest_m = _precision_params(params)
    x = np.asarray(args[0])
    nbytes = x.dtype.itemsize
    src_e, src_m = _LAYOUT[x.dtype]
    u = np.dtype(f"u{nbytes}")
    one = u.type(1)
    bits = np.ascontiguousarray(x).reshape(x.shape).view(u).copy()
    if dest_m < src_m:
        shift = u.type(src_m - dest_m)
        last_bit_mask = one << shift
        base_bias = (last_bit_mask >> one) - one
        last_bit = (bits & last_bit_mask) >> shift
        bits = (bits + last_bit + base_bias) & ~(last_bit_mask - one)  # wraps as in XLA
    if dest_e < src_e:
        sign_mask = one << u.type(8 * nbytes - 1)
        exp_mask = ((one << u.type(src_e)) - one) << u.type(src_m)
        bias = (1 << (src_e - 1)) - 1
        reduced_bias = (1 << (dest_e - 1)) - 1
        exponent = bits & exp_mask
        overflows = exponent > u.type((bias + reduced_bias) << src_m)
        underflows = exponent <= u.type((bias - reduced_bias) << src_m)
        signed_zero = bits & sign_mask
        bits = np.where(overflows, signed_zero | exp_mask, np.where(underflows, signed_zero, bits))
    out = np.asarray(bits, u).view(x.dtype).reshape(x.shape)
    nan = np.isnan(x)
    if nan.any():
        if dest_m > 0:
            out = np.where(nan, x, out)
        else:  # no mantissa bit is left to hold a NaN: XLA keeps one set
            quiet = (np.ascontiguousarray(x).reshape(x.shape).view(u) & ~((one << u.type(src_m)) - one)) | (one << u.type(src_m - 1))
            out = np.where(nan, quiet.view(x.dtype), out)
    return [np.asarray(out, x.dtype)]


def _reduce_precision_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("reduce_precision", avals, 1)
    _precision_params(params)
    if avals[0].dtype not in FLOATING:
        raise PrimitiveTypeError(f"reduce_precision accepts float operands, got {avals[0].str_short()}")
    return [avals[0]]


def _reduce_precision_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [bind1(reduce_precision_p, (cts[0],), params)]


def _reduce_precision_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    e, m = _precision_params(eqn.params)
    i32 = ir.IntegerType.get_signless(32)
    return [hlo.reduce_precision(args[0], ir.IntegerAttr.get(i32, e), ir.IntegerAttr.get(i32, m))]


reduce_precision_p = Primitive(
    "reduce_precision", _reduce_precision_impl, _reduce_precision_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_reduce_precision_t,
                              batch=elementwise_batch(p), lower=_reduce_precision_lower),
)

FAMILY = Family("bit-level conversions", (bitcast_convert_type_p, reduce_precision_p))
