"""NumPy-style functions on arrays and tracers: dtype promotion and
broadcasting happen here, then the strict ``lax`` primitives are bound.

Promotion follows NumPy among typedax's dtypes, except that a Python scalar
combined with an array takes the array's dtype (``x_f32 * 2.0`` stays
float32), as in JAX.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import lax
from .core.avals import ShapedArray
from .core.dtypes import DType, bool_, float32, float64, int32, int64
from .core.errors import AxisError, PrimitiveTypeError
from .core.trace import Value, aval_of

__all__ = [
    "add", "astype", "bool_", "cos", "divide", "dot", "equal", "exp", "float32", "float64",
    "greater", "greater_equal", "int32", "int64", "less", "less_equal", "log", "matmul",
    "max", "maximum", "mean", "minimum", "multiply", "negative", "not_equal", "power",
    "reshape", "sin", "sqrt", "subtract", "sum", "tanh", "transpose", "where",
]

_SCALAR_TYPES = (bool, int, float)


def _is_weak(x: Value) -> bool:
    return type(x) in _SCALAR_TYPES


def result_dtype(*xs: Value) -> DType:
    """The dtype NumPy would give, with Python scalars weakly typed."""
    strong: list[DType] = []
    weak_float = weak_int = False
    for x in xs:
        t = type(x)
        if t is float:
            weak_float = True
        elif t is int:
            weak_int = True
        elif t is not bool:
            strong.append(aval_of(x).dtype)
    if strong:
        first = strong[0]
        d: DType = first if all(e is first for e in strong) else np.result_type(*strong)
        # a float Python scalar lifts an integer or bool array to float64
        if weak_float and d.kind in "biu":
            return float64
        if weak_int and d.kind == "b":
            return int64
        return d
    return aval_of(np.result_type(*(np.asarray(x) for x in xs)).type(0)).dtype


def _promote(*xs: Value) -> list[Value]:
    dtype = result_dtype(*xs)
    out: list[Value] = []
    for x in xs:
        if type(x) in _SCALAR_TYPES:
            out.append(np.asarray(x, dtype=dtype))
        elif aval_of(x).dtype != dtype:
            out.append(lax.convert_element_type(x, dtype))
        else:
            out.append(x)
    return out


def broadcast_to(x: Value, shape: Sequence[int]) -> Value:
    shape_t = tuple(shape)
    xs = aval_of(x).shape
    if xs == shape_t:
        return x
    lead = len(shape_t) - len(xs)
    if lead < 0 or any(d not in (1, s) for d, s in zip(xs, shape_t[lead:])):
        raise PrimitiveTypeError(f"cannot broadcast shape {xs} to {shape_t}")
    return lax.broadcast_in_dim(x, shape_t, tuple(range(lead, len(shape_t))))


def _prepare(*xs: Value) -> list[Value]:
    ys = _promote(*xs)
    shapes = [y.shape if type(y) is np.ndarray else aval_of(y).shape for y in ys]
    first = shapes[0]
    if all(s == first for s in shapes):
        return ys
    nonscalar = [s for s in shapes if s]
    if all(s == nonscalar[0] for s in nonscalar):  # scalars meet one shape
        shape = nonscalar[0]
    else:
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise PrimitiveTypeError(
                f"shapes {', '.join(map(str, shapes))} do not broadcast together"
            ) from None
    return [broadcast_to(y, shape) for y in ys]


def _prepare2(x: Value, y: Value) -> list[Value]:
    """``_prepare(x, y)``, with fast paths for operands of one type and for an
    array with a Python scalar that takes its dtype (``x * 2.0``)."""
    tx, ty = type(x), type(y)
    if tx not in _SCALAR_TYPES:
        if ty not in _SCALAR_TYPES:
            if aval_of(x) == aval_of(y):
                return [x, y]
        elif _keeps_dtype(aval := aval_of(x), ty):
            return [x, _weak_like(y, aval)]
    elif ty not in _SCALAR_TYPES and _keeps_dtype(aval := aval_of(y), tx):
        return [_weak_like(x, aval), y]
    return _prepare(x, y)


def _keeps_dtype(aval: ShapedArray, scalar_type: type) -> bool:
    """Whether a Python scalar of this type leaves an array of ``aval`` its dtype."""
    kind = aval.dtype.kind
    if scalar_type is float:
        return kind not in "biu"
    return scalar_type is bool or kind != "b"


def _weak_like(s: Value, aval: ShapedArray) -> Value:
    """A Python scalar as an array of ``aval``'s dtype, broadcast to its shape."""
    arr = np.asarray(s, dtype=aval.dtype)
    return arr if not aval.shape else lax.broadcast_in_dim(arr, aval.shape, ())


def add(x: Value, y: Value) -> Value:
    return lax.add(*_prepare2(x, y))


def subtract(x: Value, y: Value) -> Value:
    return lax.sub(*_prepare2(x, y))


def multiply(x: Value, y: Value) -> Value:
    return lax.mul(*_prepare2(x, y))


def divide(x: Value, y: Value) -> Value:
    a, b = _prepare2(x, y)
    if aval_of(a).dtype.kind in "biu":
        a, b = lax.convert_element_type(a, float64), lax.convert_element_type(b, float64)
    return lax.div(a, b)


def maximum(x: Value, y: Value) -> Value:
    return lax.max(*_prepare2(x, y))


def minimum(x: Value, y: Value) -> Value:
    return lax.min(*_prepare2(x, y))


def power(x: Value, y: Value) -> Value:
    if type(y) is int:
        return lax.integer_pow(x, y)
    a, b = _prepare2(x, y)
    if aval_of(a).dtype.kind in "biu":
        a, b = lax.convert_element_type(a, float64), lax.convert_element_type(b, float64)
    return lax.pow(a, b)


def negative(x: Value) -> Value:
    return lax.neg(x)


def greater(x: Value, y: Value) -> Value:
    return lax.gt(*_prepare2(x, y))


def less(x: Value, y: Value) -> Value:
    return lax.lt(*_prepare2(x, y))


def greater_equal(x: Value, y: Value) -> Value:
    return lax.ge(*_prepare2(x, y))


def less_equal(x: Value, y: Value) -> Value:
    return lax.le(*_prepare2(x, y))


def equal(x: Value, y: Value) -> Value:
    return lax.eq(*_prepare2(x, y))


def not_equal(x: Value, y: Value) -> Value:
    return lax.ne(*_prepare2(x, y))


def _float(x: Value) -> Value:
    return x if aval_of(x).dtype.kind == "f" else lax.convert_element_type(x, float64)


def sin(x: Value) -> Value:
    return lax.sin(_float(x))


def cos(x: Value) -> Value:
    return lax.cos(_float(x))


def exp(x: Value) -> Value:
    return lax.exp(_float(x))


def log(x: Value) -> Value:
    return lax.log(_float(x))


def tanh(x: Value) -> Value:
    return lax.tanh(_float(x))


def sqrt(x: Value) -> Value:
    return lax.sqrt(_float(x))


def where(cond: Value, x: Value, y: Value) -> Value:
    c = cond if aval_of(cond).dtype == bool_ else not_equal(cond, 0)
    a, b = _promote(x, y)
    shapes = [aval_of(v).shape for v in (c, a, b)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise PrimitiveTypeError(
            f"where: shapes {', '.join(map(str, shapes))} do not broadcast together"
        ) from None
    return lax.select(broadcast_to(c, shape), broadcast_to(a, shape), broadcast_to(b, shape))


def astype(x: Value, dtype: DType | type) -> Value:
    d = np.dtype(dtype)
    return x if aval_of(x).dtype == d else lax.convert_element_type(x, d)


def _axis(op: str, axis: object, ndim: int) -> int:
    """``axis`` as an index in ``[0, ndim)``; NumPy's error for one outside."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op}: an axis must be an integer, got {axis!r}")
    a = int(axis)
    if not -ndim <= a < ndim:
        raise AxisError(f"{op}: axis {a} is out of bounds for an array of dimension {ndim}")
    return a % ndim


def _axes(op: str, ndim: int, axis: int | Sequence[int] | None) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):  # (a bool is refused by _axis)
        return (_axis(op, axis, ndim),)
    axes = [_axis(op, a, ndim) for a in axis]
    if len(set(axes)) != len(axes):
        raise AxisError(f"{op}: repeated axis in axis={tuple(axis)}")
    return tuple(sorted(axes))


def transpose(x: Value, axes: Sequence[int] | None = None) -> Value:
    nd = aval_of(x).ndim
    if axes is None:
        return lax.transpose(x, tuple(reversed(range(nd))))
    perm = tuple(_axis("transpose", a, nd) for a in axes)
    if sorted(perm) != list(range(nd)):
        raise AxisError(f"transpose: axes={tuple(axes)} is not a permutation of the {nd} axes")
    return lax.transpose(x, perm)


def reshape(x: Value, shape: Sequence[int] | int) -> Value:
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    a = aval_of(x)

    def bad() -> PrimitiveTypeError:
        return PrimitiveTypeError(f"reshape: cannot reshape an array of shape {a.shape} into shape {tuple(dims)}")

    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in dims):
        raise TypeError(f"reshape: the new shape must be integers, got {shape!r}")
    dims = [int(d) for d in dims]
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise bad()
    if -1 in dims:  # as NumPy: the rest must divide the size, and be nonzero
        known = 1
        for d in dims:
            if d != -1:
                known *= d
        if known == 0 or a.size % known:
            raise bad()
        dims[dims.index(-1)] = a.size // known
    return lax.reshape(x, tuple(dims))


def _sum_dtype(dtype: DType) -> DType | None:
    """Integer and bool sums accumulate in the default integer type (int64),
    as JAX (with x64) and NumPy do: int32 sums would overflow."""
    return int64 if dtype in (bool_, int32) else None


def sum(x: Value, axis: int | Sequence[int] | None = None) -> Value:  # noqa: A001 - NumPy's name
    a = aval_of(x)
    axes = _axes("sum", a.ndim, axis)
    acc = _sum_dtype(a.dtype)
    if acc is not None:
        x = lax.convert_element_type(x, acc)
    return lax.reduce_sum(x, axes)


def max(x: Value, axis: int | Sequence[int] | None = None) -> Value:  # noqa: A001 - NumPy's name
    a = aval_of(x)
    return lax.reduce_max(x, _axes("max", a.ndim, axis))


def mean(x: Value, axis: int | Sequence[int] | None = None) -> Value:
    a = aval_of(x)
    axes = _axes("mean", a.ndim, axis)
    n = 1
    for i in axes:
        n *= a.shape[i]
    total = sum(_float(x), axes)
    return divide(total, float(n))


def matmul(x: Value, y: Value) -> Value:
    a, b = _promote(x, y)
    xn, yn = aval_of(a).ndim, aval_of(b).ndim
    if xn == 0 or yn == 0:
        raise PrimitiveTypeError("matmul: operands must be at least 1-d; use multiply for scalars")
    if xn <= 2 and yn <= 2:
        return lax.dot_general(a, b, (((xn - 1,), (0,)), ((), ())))
    if xn != yn:
        raise PrimitiveTypeError(f"matmul: batched operands must have one rank, got {xn} and {yn}")
    batch = tuple(range(xn - 2))
    return lax.dot_general(a, b, (((xn - 1,), (yn - 2,)), (batch, batch)))


def dot(x: Value, y: Value) -> Value:
    return matmul(x, y)


def zeros_like(x: Value) -> Value:
    """Zeros of ``x``'s type: a broadcast scalar, so a traced ``x`` of any
    size costs nothing at trace time (a literal in the jaxpr)."""
    a = aval_of(x)
    return lax.broadcast_in_dim(np.zeros((), a.dtype), a.shape, ())



