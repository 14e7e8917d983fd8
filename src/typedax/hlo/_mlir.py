"""MLIR plumbing: a context with the StableHLO dialect, and the tensor types
and constants of typedax's avals."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeAlias

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext, _stablehlo
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray, physical_aval
from ..core.dtypes import COMPLEX, HALF, SMALL_FLOATS, DType, bfloat16, bool_, complex64, complex128, finfo, float16, float32, float64, int_range
from ..core.errors import PrimitiveTypeError

HloValue: TypeAlias = "ir.Value[ir.RankedTensorType]"
"""An SSA value of tensor type: what lowering rules take and give."""

_REGISTRY: list[ir.DialectRegistry] = []


def make_context() -> ir.Context:
    """A fresh MLIR context that knows func, StableHLO and their friends."""
    if not _REGISTRY:
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        _REGISTRY.append(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(_REGISTRY[0])
    ctx.load_all_available_dialects()
    _stablehlo.register_dialect(ctx)
    return ctx


#: The MLIR types of ml_dtypes' small floats, by dtype name (issue 29, item 7).
_SMALL_FLOAT_TYPES: Final[dict[str, Callable[[], ir.Type]]] = {
    "float4_e2m1fn": ir.Float4E2M1FNType.get, "float8_e3m4": ir.Float8E3M4Type.get,
    "float8_e4m3": ir.Float8E4M3Type.get, "float8_e4m3b11fnuz": ir.Float8E4M3B11FNUZType.get,
    "float8_e4m3fn": ir.Float8E4M3FNType.get, "float8_e4m3fnuz": ir.Float8E4M3FNUZType.get,
    "float8_e5m2": ir.Float8E5M2Type.get, "float8_e5m2fnuz": ir.Float8E5M2FNUZType.get,
    "float8_e8m0fnu": ir.Float8E8M0FNUType.get,
}


def element_type(dtype: DType) -> ir.Type:
    """The MLIR element type of a dtype (integers are signless, as in StableHLO)."""
    if dtype == float32:
        return ir.F32Type.get()
    if dtype == float16:
        return ir.F16Type.get()
    if dtype == bfloat16:
        return ir.BF16Type.get()
    if dtype == float64:
        return ir.F64Type.get()
    if dtype == bool_:
        return ir.IntegerType.get_signless(1)
    small = _SMALL_FLOAT_TYPES.get(dtype.name)
    if small is not None:  # (issue 29, item 7)
        return small()
    if dtype == complex64:
        return ir.ComplexType.get(ir.F32Type.get())
    if dtype == complex128:
        return ir.ComplexType.get(ir.F64Type.get())
    if dtype.kind == "i":
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if dtype.kind == "u":
        return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
    raise PrimitiveTypeError(f"no StableHLO element type for dtype {dtype}")


def tensor_type(aval: ShapedArray) -> ir.RankedTensorType:
    """The tensor type of ``aval`` (typed keys: their words, ``physical_aval``)."""
    aval = physical_aval(aval)
    return ir.RankedTensorType.get(list(aval.shape), element_type(aval.dtype))


def scalar_attr(value: bool | int | float, dtype: DType) -> ir.Attribute:
    """A scalar attribute of a real dtype (``full`` makes complex constants)."""
    et = element_type(dtype)
    if dtype == bool_:
        return ir.IntegerAttr.get(et, 1 if value else 0)
    if dtype.kind in "iu":
        # the binding takes an int64: unsigned values above it pass as their bit pattern
        v = int(value)
        return ir.IntegerAttr.get(et, v - (1 << 64) if v >= 1 << 63 else v)
    return ir.FloatAttr.get(et, float(value))


def full(value: bool | int | float | complex, aval: ShapedArray) -> HloValue:
    """A constant tensor of type ``aval`` with every element ``value``."""
    aval = physical_aval(aval)  # typed keys: words all equal to ``value``
    if aval.dtype in COMPLEX:  # (MLIR's Python bindings have no complex scalar attribute)
        one = np.asarray(value, aval.dtype).reshape(1)
        et = element_type(aval.dtype)
        return hlo.constant(ir.DenseElementsAttr.get(one, type=et, shape=list(aval.shape)))  # type: ignore[call-overload]  # an ndarray is a buffer
    if isinstance(value, complex):
        raise PrimitiveTypeError(f"a complex constant {value} cannot have dtype {aval.dtype}")
    attr = ir.DenseElementsAttr.get_splat(tensor_type(aval), scalar_attr(value, aval.dtype))
    return hlo.constant(attr)


#: The small floats without infinities (issue 29, item 7): ``-inf`` would be NaN in them.
_NO_INF: Final = frozenset(d for d in SMALL_FLOATS if not np.isinf(np.asarray(np.inf, np.float32).astype(d)))


def dtype_min(dtype: DType) -> bool | int | float:
    """The identity of ``max`` for a dtype: -inf (the least finite value of a
    float without infinities, as JAX's), the smallest int, or False."""
    if dtype.kind in "biu":
        lo = int_range(dtype)[0]
        return bool(lo) if dtype == bool_ else lo
    return float(finfo(dtype).min) if dtype in _NO_INF else float("-inf")


def dtype_max(dtype: DType) -> bool | int | float:
    """The identity of ``min`` for a dtype: inf (the greatest finite value of
    a float without infinities, as JAX's), the largest int, or True."""
    if dtype.kind in "biu":
        hi = int_range(dtype)[1]
        return bool(hi) if dtype == bool_ else hi
    return float(finfo(dtype).max) if dtype in _NO_INF else float("inf")


def compare_type(dtype: DType) -> str:
    """StableHLO's comparison type for operands of ``dtype``."""
    if dtype.kind in "bu":
        return "UNSIGNED"
    return "SIGNED" if dtype.kind == "i" else "FLOAT"


def compare(x: HloValue, y: HloValue, dtype: DType, direction: str) -> HloValue:
    """``x <direction> y`` elementwise (``direction``: EQ, NE, LT, LE, GT, GE)."""
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)),
    )


def reduce(
    x: HloValue,
    x_aval: ShapedArray,
    out_aval: ShapedArray,
    axes: Sequence[int],
    init: bool | int | float,
    combine: Callable[[HloValue, HloValue], HloValue],
    *,
    wide_halves: bool = False,
) -> HloValue:
    """``stablehlo.reduce`` of ``x`` over ``axes`` with a scalar ``combine``;
    with ``wide_halves``, float16/bfloat16 accumulate in float32 and round
    once (as eager evaluation does, and jax.numpy's sum and prod)."""
    if wide_halves and x_aval.dtype in HALF:
        wide_in, wide_out = ShapedArray(x_aval.shape, float32), ShapedArray(out_aval.shape, float32)
        r = reduce(hlo.convert(tensor_type(wide_in), x), wide_in, wide_out, axes, init, combine)
        return hlo.convert(tensor_type(out_aval), r)
    scalar = ShapedArray((), x_aval.dtype)
    op = hlo.ReduceOp([tensor_type(out_aval)], [x], [full(init, scalar)], list(axes))
    st = ir.RankedTensorType.get([], element_type(x_aval.dtype))
    block = op.regions[0].blocks.append(st, st)
    with ir.InsertionPoint(block):
        hlo.return_([combine(block.arguments[0], block.arguments[1])])
    return op.result
