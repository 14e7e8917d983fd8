"""NumPy-style functions on arrays and tracers, as ``jax.numpy``: dtype
promotion and broadcasting happen here, then the strict ``lax`` primitives
are bound. Every function returns a typedax ``Array``.

Promotion is JAX's (``core/promotion.py``), not NumPy's: ``int32 + float32``
is float32, and a Python scalar is weakly typed -- it takes the array's dtype
when that can hold it (``x_f32 * 2.0`` stays float32, ``x_i32 + 2.5`` is
float64).
"""

from __future__ import annotations

import builtins
import functools
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ParamSpec, TypeAlias, cast, overload

import numpy as np

from .. import lax
from .._lax.lax import _binop, _broadcast_in_dim_params, _convert_weak, typed_like
from ..core.array import Array, ArrayImpl, ArrayLike, from_numpy
from ..core.avals import ShapedArray
from ..core.dtypes import DType
from ..core.dtypes import EXTENDED as _EXTENDED
from ..core.dtypes import bool_ as _bool
from ..core.dtypes import float32 as _float32
from ..core.dtypes import float64 as _float64
from ..core.dtypes import int32 as _int32
from ..core.dtypes import uint64 as _uint64
from ..core.dtypes import finfo as finfo
from ..core.dtypes import HALF, canonicalize_dtype, canonicalize_explicit, default_float, default_int, is_complex, is_float, is_inexact, real_dtype
from ..core.errors import (
    ArgumentValueError, AxisError, ConcretizationError, EmptyReductionError, PrimitiveAxisError, PrimitiveTypeError,
    ShapeError, ZeroStepError,
)
from ..lowering.jaxlib_api import Device
from ..core.ir import NO_PARAMS, NDArray, Params, Primitive, refuse_keys
from ..core.promotion import Node, dtype_of_node, join, node_of_dtype, weak_node
from ..core.promotion import promote_types as promote_types
from ..core.config import EAGER_FAST as _EAGER_FAST
from ..core.config import X32_POSSIBLE
from ..core.dtypes import TO_32
from ..core.trace import EVAL_TRACE, Tracer, Value, aval_of, bind1, current_trace, scalar_as
from ..primitives import (
    add_p, broadcast_p, div_p, dot_general_p, mul_p, reduce_sum_p, reshape_p, squeeze_p, sub_p, transpose_p,
)
from ..primitives._params import params_of as _params_of
from ..lowering.eager import eval_program
from ..lowering.runtime import default_backend as _default_backend
from .array_api import check_device
from ..primitives._precision import CanonicalPrecision, PrecisionLike, canonicalize_precision
from ..primitives.dot import dot_params as _dot_params
from ..primitives.dot import host_matmul
from ..primitives.special import sinc_maclaurin_p as _sinc_maclaurin_p

__all__ = [
    "abs", "absolute", "add", "array", "asarray", "astype", "bool_", "cos", "divide", "dot",
    "equal", "exp", "float32", "float64", "floor_divide", "greater", "greater_equal", "int32",
    "int64", "invert", "less", "less_equal", "log", "matmul", "max", "maximum", "mean", "min",
    "minimum", "mod", "multiply", "negative", "not_equal", "power", "promote_types", "ravel",
    "remainder", "reshape", "result_type", "sin", "sqrt", "subtract", "sum", "tanh",
    "transpose", "where", "zeros_like", "zeros", "ones", "full", "full_like", "ones_like",
    "int8", "int16", "uint8", "uint16", "uint32", "uint64", "iinfo", "finfo", "float16", "bfloat16",
]

iinfo = np.iinfo  # jnp.iinfo is NumPy's; jnp.finfo is ml_dtypes' (bfloat16 too)

_SCALAR_TYPES = (bool, int, float, complex)
_PY_NODES: dict[type, Node] = {bool: "bool", int: "i*", float: "f*", complex: "c*"}


class _ScalarMeta(type):
    """The metaclass of ``tnp.float32`` and the other scalar types
    (``_numpy/scalar_types.py``): each class stands for its strong dtype."""

    dtype: DType

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, cls.dtype.type)

    # compared and hashed as NumPy's scalar type (so ``tnp.float32 == np.float32``)
    def __eq__(cls, other: object) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: object) -> bool:
        return not cls == other

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __repr__(cls) -> str:
        return f"<class 'typedax.numpy.{cls.__name__}'>"


def _node(x: Value | DType | type | str) -> Node:
    n = _PY_NODES.get(type(x))
    if n is not None:
        return n
    if isinstance(x, (np.dtype, str)) or (isinstance(x, type) and (issubclass(x, np.generic) or isinstance(x, _ScalarMeta))):
        return node_of_dtype(np.dtype(x))  # a dtype (np.float32, "int8", tnp.uint8) is strong
    if isinstance(x, type) and x in _PY_NODES:
        return _PY_NODES[x]  # the Python types themselves are weak, as in JAX
    aval = aval_of(x)  # an array-like: the rest is checked above
    if aval.weak_type:  # a weakly typed array stands where its Python scalar would
        return weak_node(aval)
    return node_of_dtype(aval.dtype)


_WEAK_PY: dict[Node, type[int] | type[float] | type[complex]] = {"i*": int, "f*": float, "c*": complex}


def _promote(*xs: Value) -> list[Value]:
    """The operands in their common dtype. When every operand is weak (Python
    scalars, weakly typed arrays), so is each converted one: the result of
    the operation then stays weak, as in JAX."""
    node = _node(xs[0])
    for x in xs[1:]:
        node = join(node, _node(x))
    dtype = dtype_of_node(node)
    weak = _WEAK_PY.get(node)
    out: list[Value] = []
    for x in xs:
        if type(x) in _SCALAR_TYPES:
            if weak is not None:
                x = weak(x)  # type: ignore[arg-type]  # a Python scalar at or below the weak result's kind  # a weak Python scalar of the result's kind: it enters as ``dtype``
                out.append(x if aval_of(x).dtype == dtype else np.asarray(x, dtype=dtype))
            else:
                out.append(np.asarray(x, dtype=dtype))
        elif aval_of(x).dtype == dtype and (weak is not None or not aval_of(x).weak_type):
            out.append(x)
        else:  # weak if the result is (then every operand is); a weak operand of a strong result is made strong
            out.append(lax.convert_element_type(x, dtype) if weak is None else _convert_weak(x, dtype))
    return out


def result_type(*xs: ArrayLike | DType | type | str) -> DType:
    """The dtype JAX's promotion gives these operands or dtypes (Python
    scalars and the Python types weak)."""
    node = _node(xs[0])
    for x in xs[1:]:
        node = join(node, _node(x))
    return dtype_of_node(node)




def _has_buffer(a: object) -> bool:
    """Whether ``a`` has the buffer protocol (JAX's ``_supports_buffer_protocol``)."""
    try:
        memoryview(a)  # type: ignore[arg-type]  # the question asked
    except TypeError:
        return False
    return True


def asarray(
    a: ArrayLike | Sequence[object], dtype: DType | type | None = None, order: None = None, *,
    copy: builtins.bool | None = None, device: Device | None = None,
) -> Array:
    """``a`` as a typedax ``Array`` (an ``Array`` of that dtype is returned as
    it is; a NumPy array is copied: arrays are immutable, NumPy's are not).
    ``copy`` as JAX's: arrays are immutable, so ``copy=True`` gives the same
    value and ``copy=False`` never raises (JAX's does not either, where the
    standard would), except as JAX's on an accelerator: there a host value
    with the buffer protocol (a NumPy array or scalar) must be copied, so
    ``copy=False`` is a ``ValueError``. ``device``: typedax's device or
    ``None``."""
    if device is not None:
        check_device("asarray", device)
    if isinstance(a, Array):
        return a if dtype is None else astype(a, dtype)
    if copy is False and _default_backend() != "cpu" and _has_buffer(a):
        raise ValueError(
            f"jnp.asarray: cannot convert object of type {type(a)} to JAX Array on platform="
            f"{_default_backend()} with copy=False. Consider using copy=None or copy=True instead."
        )
    # Python values go straight into an explicit dtype (NumPy refuses ints out
    # of its range, as JAX does); through the default type first they would
    # wrap (300 as uint8) or overflow it (2**63 as uint64)
    want = None if dtype is None else canonicalize_explicit(np.dtype(dtype), "asarray")
    if isinstance(a, (list, tuple)):
        leaves = list(_nested_leaves(a))
        if builtins.any(isinstance(e, Array) and not isinstance(e, ArrayImpl) for e in leaves):
            # traced elements (``jnp.array([y[1], -y[0]])`` under jit): each in
            # the common dtype (strong, as JAX's), stacked level by level
            return _stack_nested(a, want or result_type(*leaves))
        value = np.array(a, dtype=want or (result_type(*leaves) if leaves else default_float()))
    elif isinstance(a, (bool, int, float, complex)):
        value = np.array(a, dtype=want or result_type(a))
    elif isinstance(a, (np.ndarray, np.generic)):
        value = np.array(a, dtype=canonicalize_dtype(a.dtype))  # x64 off: 64 bits enter as 32
    else:
        raise ArgumentValueError(f"asarray: a {type(a).__name__} is not an array")  # JAX: TypeError or ValueError by value
    if want is not None and value.dtype != want:
        value = value.astype(want)
    aval_of(value)  # refuses the dtypes typedax lacks
    # a Python int or float without a dtype stays weakly typed, as in JAX
    return from_numpy(value, want is None and type(a) in (int, float, complex))  # not np.float64, a float subclass


def _stack_nested(a: object, dtype: DType) -> Array:
    """A nested list or tuple with traced elements as one array of ``dtype``."""
    if not isinstance(a, (list, tuple)):
        if isinstance(a, Array):
            return astype(a, dtype)
        return asarray(np.asarray(a, dtype=dtype))  # a constant, converted here
    if not a:
        raise PrimitiveTypeError("asarray: an empty list beside traced elements has no shape to stack with")
    parts = [_stack_nested(e, dtype) for e in a]
    shapes = [p.shape for p in parts]
    if builtins.any(sh != shapes[0] for sh in shapes):
        raise PrimitiveTypeError(
            f"asarray: the elements of a list have different shapes {tuple(shapes)} (a ragged list is not an array)"
        )
    return stack(parts)


def _nested_leaves(a: object) -> list[ArrayLike]:
    if isinstance(a, (list, tuple)):
        return [e for x in a for e in _nested_leaves(x)]
    if not isinstance(a, (Array, np.ndarray, np.generic, bool, int, float, complex)):
        raise PrimitiveTypeError(f"asarray: a {type(a).__name__} is not an array element")
    return [a]


def array(a: ArrayLike | Sequence[object], dtype: DType | type | None = None) -> Array:
    """As ``asarray`` (arrays are immutable, so there is nothing to copy)."""
    return asarray(a, None if dtype is None else canonicalize_explicit(np.dtype(dtype), "array"))


def broadcast_to(x: ArrayLike, shape: Sequence[int]) -> Array:
    shape_t = tuple(shape)
    xs = aval_of(x).shape
    if xs == shape_t:
        return asarray(x)
    lead = len(shape_t) - len(xs)
    if lead < 0 or builtins.any(d not in (1, s) for d, s in zip(xs, shape_t[lead:])):
        raise ShapeError(f"cannot broadcast shape {xs} to {shape_t}")
    return lax.broadcast_in_dim(x, shape_t, tuple(range(lead, len(shape_t))))


def _prepare(*xs: Value, keep_scalars: bool = False) -> list[Value]:
    """The operands promoted to one dtype and broadcast to one shape; with
    ``keep_scalars``, a rank-0 operand is left rank-0 (for the binary
    elementwise primitives, which accept one beside any shape, as JAX's:
    ``mul a 2.0:f32[]``, no ``broadcast`` equation)."""
    ys = _promote(*xs)
    shapes = [y.shape if type(y) is np.ndarray else aval_of(y).shape for y in ys]
    first = shapes[0]
    if builtins.all(s == first for s in shapes):
        return ys
    nonscalar = [s for s in shapes if s]
    if builtins.all(s == nonscalar[0] for s in nonscalar):  # scalars meet one shape
        shape = nonscalar[0]
    else:
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ShapeError(
                f"shapes {', '.join(map(str, shapes))} do not broadcast together"
            ) from None
    if keep_scalars:
        return [y if not s else broadcast_to(y, shape) for y, s in zip(ys, shapes)]
    return [broadcast_to(y, shape) for y in ys]


def _prepare2(x: Value, y: Value, keep_scalars: bool = False) -> list[Value]:
    """``_prepare(x, y, keep_scalars=keep_scalars)``, with fast paths for
    operands of one type, for two strong arrays of one dtype that only
    broadcast (``x - mean(x, -1, keepdims=True)``), and for an array with a
    Python scalar that takes its dtype (``x * 2.0``)."""
    tx, ty = type(x), type(y)
    if tx not in _SCALAR_TYPES:
        if ty not in _SCALAR_TYPES:
            ax, ay = aval_of(x), aval_of(y)
            if ax is ay or ax == ay:  # (identity first: a dataclass == is Python code)
                return [x, y]
            d = ax.dtype
            # what _prepare gives, without its promotion: one strong dtype
            # that the current x64 setting keeps (no conversion), Arrays
            # (that broadcast_to would return as they are)
            if (d == ay.dtype and not ax.weak_type and not ay.weak_type
                    and (not X32_POSSIBLE[0] or d not in TO_32)
                    and isinstance(x, Array) and isinstance(y, Array)):
                if keep_scalars and (not ax.shape or not ay.shape):
                    return [x, y]
                shape = _broadcast_shape2(ax.shape, ay.shape)
                if shape is not None:
                    return [_broadcast_array(x, ax.shape, shape), _broadcast_array(y, ay.shape, shape)]
        elif _keeps_dtype(aval := aval_of(x), ty):
            return [x, np.asarray(y, dtype=aval.dtype) if keep_scalars else _weak_like(y, aval)]
    elif ty not in _SCALAR_TYPES and _keeps_dtype(aval := aval_of(y), tx):
        return [np.asarray(x, dtype=aval.dtype) if keep_scalars else _weak_like(x, aval), y]
    return _prepare(x, y, keep_scalars=keep_scalars)


@functools.lru_cache(maxsize=4096)
def _broadcast_shape2(sx: tuple[int, ...], sy: tuple[int, ...]) -> tuple[int, ...] | None:
    """``np.broadcast_shapes(sx, sy)``, or ``None`` where they do not
    broadcast (``_prepare`` then raises its error)."""
    n = builtins.max(len(sx), len(sy))
    px = (1,) * (n - len(sx)) + sx
    py = (1,) * (n - len(sy)) + sy
    out: list[int] = []
    for a, b in zip(px, py):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            return None
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _broadcast_params(ndim: int, shape: tuple[int, ...]) -> Params:
    """The params of ``broadcast_to``'s equation for an operand of ``ndim``
    dimensions (its trailing ones), shared (``lax.broadcast_in_dim``'s)."""
    return _broadcast_in_dim_params(shape, tuple(range(len(shape) - ndim, len(shape))))


def _broadcast_array(x: Value, xs: tuple[int, ...], shape: tuple[int, ...]) -> Value:
    """``broadcast_to(x, shape)`` for an ``Array`` of shape ``xs`` that
    broadcasts to ``shape`` (checked by the caller): the same equation."""
    if xs == shape:
        return x
    return bind1(broadcast_p, (x,), _broadcast_params(len(xs), shape))


_KEEPS: dict[tuple[DType, type], bool] = {}


def _keeps_dtype(aval: ShapedArray, scalar_type: type) -> bool:
    """Whether a Python scalar of this type leaves an array of ``aval`` its
    dtype (and the array is strong: a weak one takes ``_prepare``'s path;
    so does a 64-bit one while x64 may be off, which promotion converts to
    the canonical 32 bits, as JAX's does)."""
    if aval.weak_type or (X32_POSSIBLE[0] and aval.dtype in TO_32):
        return False
    key = (aval.dtype, scalar_type)
    keeps = _KEEPS.get(key)
    if keeps is None:
        node = node_of_dtype(aval.dtype)
        keeps = _KEEPS[key] = join(node, _PY_NODES[scalar_type]) == node
    return keeps


def _weak_like(s: Value, aval: ShapedArray) -> Value:
    """A Python scalar as an array of ``aval``'s dtype, broadcast to its shape:
    eagerly a filled NumPy array (what the broadcast would give, without its
    cost on every ``x * 2.0``), under a trace a broadcast literal."""
    if not aval.shape:
        return np.asarray(s, dtype=aval.dtype)
    if current_trace() is EVAL_TRACE:
        return np.full(aval.shape, s, dtype=aval.dtype)
    return bind1(broadcast_p, (np.asarray(s, dtype=aval.dtype),), _broadcast_params(0, aval.shape))


_Binary: TypeAlias = "Callable[[NDArray | float, NDArray | float], object]"


def _eager_binary(ufunc: _Binary, x: object, y: object) -> Array | None:
    """``ufunc`` computed at once on host values, else ``None``: for two
    arrays of one type, ``_eager_pair``; for a concrete strong
    float32/float64 array and a Python float or int, the values ``_prepare2`` and the primitive give -- NumPy
    casts the Python scalar to the array's dtype (NEP 50) exactly as
    ``_weak_like`` fills it, then the same element-wise operation; the
    result is strong, of the array's type (``x * 2.0``). An int beyond
    int64 takes the general path (and its errors)."""
    tx, ty = type(x), type(y)
    if tx is ArrayImpl and ty is ArrayImpl:
        return _eager_pair(ufunc, cast(ArrayImpl, x), cast(ArrayImpl, y))
    s: float  # (or an int)
    if ty is float or ty is int:
        arr, s, left = x, cast(float, y), False
    elif tx is float or tx is int:
        arr, s, left = y, cast(float, x), True
    else:
        return None
    if type(arr) is not ArrayImpl or not EAGER_FAST[0] or X32_POSSIBLE[0]:
        return None
    aval = arr.aval
    d = aval.dtype
    if aval.weak_type or (d != _float32 and d != _float64) or current_trace() is not EVAL_TRACE:
        return None
    if type(s) is int and not -(2**63) <= s < 2**63:
        return None
    h = arr._host
    v = h if h is not None else arr.to_numpy()
    out = ufunc(s, v) if left else ufunc(v, s)
    # (a 0-d result comes back as a NumPy scalar)
    return ArrayImpl(aval, out if type(out) is np.ndarray else np.asarray(out, dtype=d), None, arr._tdx_key)


def _eager_pair(ufunc: _Binary, x: ArrayImpl, y: ArrayImpl) -> Array | None:
    """``ufunc`` of two concrete strong float32/float64 arrays of one type
    (shape and dtype) on their host values, else ``None``: ``_prepare2``
    returns such operands as they are, and the primitive's impl is this
    call (``x + y``: ~2.5 -> ~1 us)."""
    ax, ay = x.aval, y.aval
    hx, hy = x._host, y._host
    d = ax.dtype
    if (hx is None or hy is None or (d is not _float32 and d is not _float64) or ay.dtype is not d
            or ax.shape != ay.shape or ax.weak_type or ay.weak_type or not EAGER_FAST[0]
            or X32_POSSIBLE[0] or current_trace() is not EVAL_TRACE):
        return None
    out = ufunc(hx, hy)
    return ArrayImpl(ax, out if type(out) is np.ndarray else np.asarray(out, dtype=d), None, x._tdx_key)


def _divide_floats(x: NDArray | float, y: NDArray | float) -> object:
    with np.errstate(divide="ignore", invalid="ignore"):  # as the div impl
        return np.divide(x, y)


def _bind2(prim: Primitive, a: Value, b: Value) -> Array:
    """``prim`` of two operands ``_prepare2`` made ready (one dtype, equal
    shapes or one of rank 0), bound as ``lax``'s binary function binds them
    but without its checks again -- unless a Python scalar remains (both
    operands weak scalars), which ``lax`` converts first."""
    if type(a) in _SCALAR_TYPES or type(b) in _SCALAR_TYPES:
        return _binop(prim, a, b)
    return bind1(prim, (a, b), NO_PARAMS)


def add(x: ArrayLike, y: ArrayLike) -> Array:
    fast = _eager_binary(np.add, x, y)
    if fast is not None:
        return fast
    a, b = _prepare2(x, y, keep_scalars=True)
    if aval_of(a).dtype == _bool:
        return lax.max(a, b)  # logical or, as NumPy and JAX
    return _bind2(add_p, a, b)


def subtract(x: ArrayLike, y: ArrayLike) -> Array:
    fast = _eager_binary(np.subtract, x, y)
    if fast is not None:
        return fast
    return _bind2(sub_p, *_prepare2(x, y, keep_scalars=True))


def multiply(x: ArrayLike, y: ArrayLike) -> Array:
    fast = _eager_binary(np.multiply, x, y)
    if fast is not None:
        return fast
    a, b = _prepare2(x, y, keep_scalars=True)
    if aval_of(a).dtype == _bool:
        return lax.min(a, b)  # logical and, as NumPy and JAX
    return _bind2(mul_p, a, b)


def _inexact(d: DType) -> DType:
    """The float type an integer or bool operand of a float function takes,
    as JAX: float32 for 32 bits or fewer, float64 for 64 (a complex type is its own)."""
    return d if is_inexact(d) else _float32 if d.itemsize <= 4 else _float64


def divide(x: ArrayLike, y: ArrayLike) -> Array:
    ty = type(y)
    # a finite nonzero divisor raises no division warnings: no errstate (~1 us)
    quiet = (ty is float or ty is int) and cast(float, y) != 0 and cast(float, y) - cast(float, y) == 0
    fast = _eager_binary(cast(_Binary, np.divide) if quiet else _divide_floats, x, y)
    if fast is not None:
        return fast
    a, b = _prepare2(x, y, keep_scalars=True)
    d = aval_of(a).dtype
    if d.kind in "biu":
        f = _inexact(d)
        a, b = _convert(a, f), _convert(b, f)
    return _bind2(div_p, a, b)


def maximum(x: ArrayLike, y: ArrayLike) -> Array:
    return lax.max(*_prepare2(x, y, keep_scalars=True))


def minimum(x: ArrayLike, y: ArrayLike) -> Array:
    return lax.min(*_prepare2(x, y, keep_scalars=True))


def power(x: ArrayLike, y: ArrayLike) -> Array:
    if isinstance(y, np.integer) or (type(y) is np.ndarray and y.shape == () and y.dtype.kind in "iu"):
        y = int(y)  # a concrete integer exponent: integer_pow, as JAX's (operator.index)
    if type(y) is int:
        if aval_of(x).dtype == _bool:  # as JAX: a bool base powers as int32
            x = lax.convert_element_type(x, _int32)
        return lax.integer_pow(x, y)
    xa, ya = aval_of(x), aval_of(y)
    if (
        is_inexact(xa.dtype) and ya.dtype.kind in "iu"
        and not (X32_POSSIBLE[0] and (xa.dtype in TO_32 or ya.dtype in TO_32))  # (x64 off: _prepare2 canonicalizes)
        and (shape := _broadcast_shape2(xa.shape, ya.shape)) is not None
    ):
        # JAX's case 3: a float or complex base with an integer exponent is
        # lax.pow's without promotion, so the result is weak only where both
        # are (``(-1.0) ** int64_array`` is a strong float64, as JAX's)
        if xa.ndim and xa.shape != shape:
            x = _broadcast_array(asarray(x), xa.shape, shape)
        if ya.ndim and ya.shape != shape:
            y = _broadcast_array(asarray(y), ya.shape, shape)
        return asarray(lax.pow(x, y))
    a, b = _prepare2(x, y, keep_scalars=True)
    d = aval_of(a).dtype
    if d.kind in "biu":
        return _pow_int_int(a, b)
    return lax.pow(a, b)


def _pow_int_int(x: Value, y: Value) -> Array:
    """Integer (and bool) powers as JAX's: binary exponentiation unrolled over
    six exponent bits (more overflows for any base above 1); ``0 ** y`` is 0
    for ``y != 0``, and a negative exponent gives what its low bits give."""
    if aval_of(x).dtype == _bool:  # as JAX: bools power as int32 (with x64 too)
        x, y = lax.convert_element_type(x, _int32), lax.convert_element_type(y, _int32)
    d = aval_of(x).dtype
    zero, one = np.zeros((), d), np.ones((), d)
    acc = where(lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero)), zero, one)
    for _ in range(6):
        acc = where(lax.ne(lax.bitwise_and(y, one), zero), lax.mul(acc, x), acc)
        x = lax.mul(x, x)
        y = lax.shift_right_logical(y, one)
    return asarray(acc)


def negative(x: ArrayLike) -> Array:
    return lax.neg(x)


def _ordered(op: Callable[[ArrayLike, ArrayLike], Array], x: ArrayLike, y: ArrayLike) -> Array:
    """An order comparison after promotion; complex numbers compare
    lexicographically, by real part and then imaginary part (JAX's
    ``_complex_comparison``; ``lax``'s comparisons refuse them)."""
    a, b = _prepare2(x, y, keep_scalars=True)
    if is_complex(aval_of(a).dtype):
        ra, rb = lax.real(a), lax.real(b)
        return lax.select(lax.eq(ra, rb), op(lax.imag(a), lax.imag(b)), op(ra, rb))
    return op(a, b)


def greater(x: ArrayLike, y: ArrayLike) -> Array:
    return _ordered(lax.gt, x, y)


def less(x: ArrayLike, y: ArrayLike) -> Array:
    return _ordered(lax.lt, x, y)


def greater_equal(x: ArrayLike, y: ArrayLike) -> Array:
    return _ordered(lax.ge, x, y)


def less_equal(x: ArrayLike, y: ArrayLike) -> Array:
    return _ordered(lax.le, x, y)


def equal(x: ArrayLike, y: ArrayLike) -> Array:
    return lax.eq(*_prepare2(x, y, keep_scalars=True))


def not_equal(x: ArrayLike, y: ArrayLike) -> Array:
    return lax.ne(*_prepare2(x, y, keep_scalars=True))


def _convert(x: Value, dtype: DType) -> Value:
    """``x`` in ``dtype`` for an operation's promotion: a weakly typed value
    stays weak (JAX's ``promote_dtypes``); ``astype`` makes it strong."""
    aval = aval_of(x)
    if aval.dtype == dtype:
        return x
    if aval.weak_type:
        return _convert_weak(x, dtype)
    return lax.convert_element_type(x, dtype)


def _float(x: Value) -> Value:
    d = aval_of(x).dtype
    return x if is_inexact(d) else _convert(x, _inexact(d))


def _host_unary(ufunc: Callable[[NDArray], object], x: object) -> Array | None:
    """``ufunc`` of a concrete strong float32/float64 array, on its host value
    (``_eager_host``): the call the primitive's impl makes, without the
    interpreter around it (2.5 -> ~1 us for a small ``tanh``); else ``None``."""
    if type(x) is ArrayImpl:  # the common case, checked inline (it is most of the cost)
        a = x.aval
        h = x._host
        if (h is None or a.weak_type or a.dtype not in _HOST_FLOATS or not EAGER_FAST[0]
                or X32_POSSIBLE[0] or current_trace() is not EVAL_TRACE):
            return None
        out = ufunc(h)  # the result's type is the operand's: its aval and key are reused
        return ArrayImpl(a, out if type(out) is np.ndarray else np.asarray(out), None, x._tdx_key)
    h = _eager_host(x)
    if h is None or h.dtype not in _HOST_FLOATS:
        return None
    return from_numpy(np.asarray(ufunc(h), dtype=h.dtype))


def sin(x: ArrayLike) -> Array:
    r = _host_unary(np.sin, x)
    return r if r is not None else lax.sin(_float(x))


def cos(x: ArrayLike) -> Array:
    r = _host_unary(np.cos, x)
    return r if r is not None else lax.cos(_float(x))


def exp(x: ArrayLike) -> Array:
    r = _host_unary(np.exp, x)
    return r if r is not None else lax.exp(_float(x))


def log(x: ArrayLike) -> Array:
    r = _host_unary(np.log, x)
    return r if r is not None else lax.log(_float(x))


def tanh(x: ArrayLike) -> Array:
    r = _host_unary(np.tanh, x)
    return r if r is not None else lax.tanh(_float(x))


def sqrt(x: ArrayLike) -> Array:
    r = _host_unary(np.sqrt, x)
    return r if r is not None else lax.sqrt(_float(x))


@overload
def where(
    cond: ArrayLike, x: None = None, y: None = None, /, *, size: int | None = None,
    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> tuple[Array, ...]: ...
@overload
def where(
    cond: ArrayLike, x: ArrayLike, y: ArrayLike, /, *, size: None = None, fill_value: None = None,
) -> Array: ...
def where(
    cond: ArrayLike, x: ArrayLike | None = None, y: ArrayLike | None = None, /, *, size: int | None = None,
    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> Array | tuple[Array, ...]:
    """``cond ? x : y`` element-wise (broadcasting); with ``cond`` alone,
    ``nonzero(cond, size=, fill_value=)`` (as jax.numpy's)."""
    if x is None and y is None:
        return nonzero(cond, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TypeError("where: give both x and y, or neither (then it is nonzero(condition))")
    if size is not None or fill_value is not None:
        raise TypeError("where: size and fill_value go with the one-argument form, where(condition)")
    return _where3(cond, x, y)


def _where3(cond: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    c = cond if aval_of(cond).dtype == _bool else not_equal(cond, 0)
    a, b = _promote(x, y)
    shapes = [aval_of(v).shape for v in (c, a, b)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            f"where: shapes {', '.join(map(str, shapes))} do not broadcast together"
        ) from None
    return lax.select(broadcast_to(c, shape), broadcast_to(a, shape), broadcast_to(b, shape))


def astype(x: ArrayLike, dtype: DType | type, /, *, copy: builtins.bool = False,
           device: Device | None = None) -> Array:
    """``jnp.astype``: ``x`` converted to ``dtype`` (``x`` itself when it is
    of that dtype already and strong). ``copy``: see ``asarray``."""
    if device is not None:
        check_device("astype", device)
    d = canonicalize_explicit(np.dtype(dtype), "astype")
    aval = aval_of(x)
    if aval.dtype == d and not aval.weak_type:
        return asarray(x)
    return lax.convert_element_type(x, d)  # an explicit dtype makes a weak value strong (JAX)


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


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    nd = aval_of(x).ndim
    if axes is None:
        return lax.transpose(x, tuple(reversed(range(nd))))
    perm = tuple(_axis("transpose", a, nd) for a in axes)
    if sorted(perm) != list(range(nd)):
        raise PrimitiveAxisError(f"transpose: axes={tuple(axes)} is not a permutation of the {nd} axes")
    return lax.transpose(x, perm)


def reshape(x: ArrayLike, shape: Sequence[int] | int, order: str = "C", *,
            copy: builtins.bool | None = None) -> Array:
    """``jnp.reshape``: row-major (``order='C'``) or column-major (``'F'``:
    the reverse-axes transpose reshaped to the reversed shape, transposed
    back); ``copy``: see ``asarray``."""
    if order == "F":
        rev = [shape] if isinstance(shape, (int, np.integer)) else list(shape)[::-1]
        return transpose(reshape(transpose(x), rev, copy=copy))
    if order == "A":
        raise NotImplementedError("reshape: order='A' is not implemented (as in JAX)")
    if order != "C":
        raise ArgumentValueError(f"reshape: unexpected value for the 'order' argument: {order!r}")
    if not isinstance(shape, (int, np.integer, list, tuple)):
        _refuse_traced_dims("reshape", shape)  # (only off the common path)
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    a = aval_of(x)

    def bad() -> PrimitiveTypeError:
        return ShapeError(f"reshape: cannot reshape an array of shape {a.shape} into shape {tuple(dims)}")

    if builtins.any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in dims):
        _refuse_traced_dims("reshape", dims)
        raise TypeError(f"reshape: the new shape must be integers, got {shape!r}")
    dims = [int(d) for d in dims]
    if dims.count(-1) > 1 or builtins.any(d < -1 for d in dims):
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
    """Bool and narrower integer sums accumulate in the default integer type
    of their signedness (int64 / uint64; 32-bit with x64 off), as JAX's
    ``_promote_integer_dtype`` and NumPy do: int32 sums would overflow."""
    if dtype == _bool or dtype.kind == "i":
        wide = default_int()
    elif dtype.kind == "u":
        wide = canonicalize_dtype(_uint64)
    else:
        return None
    return wide if dtype.itemsize < wide.itemsize or dtype == _bool else None


def _keep(x: Array, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Array:
    """With ``keepdims``, the reduced ``axes`` of ``shape`` back as size 1."""
    if not keepdims:
        return x
    return lax.reshape(x, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def sum(  # noqa: A001 - NumPy's name
    x: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
    keepdims: bool = False,
) -> Array:
    a = aval_of(x)
    axes = _axes("sum", a.ndim, axis)
    acc = _sum_dtype(a.dtype) if dtype is None else canonicalize_explicit(np.dtype(dtype), "sum")
    if acc is not None and acc != a.dtype:
        x = lax.convert_element_type(x, acc)
    return _keep(lax.reduce_sum(x, axes), a.shape, axes, keepdims)


def _reduce(
    op: str, reduce: Callable[[ArrayLike, Sequence[int]], Array], x: ArrayLike,
    axis: int | Sequence[int] | None, keepdims: bool,
) -> Array:
    a = aval_of(x)
    axes = _axes(op, a.ndim, axis)
    return _keep(reduce(x, axes), a.shape, axes, keepdims)


def _extremum(
    op: str, reduce: Callable[[ArrayLike, Sequence[int]], Array], combine: Callable[[ArrayLike, ArrayLike], Array],
    x: ArrayLike, axis: int | Sequence[int] | None, keepdims: bool, initial: ArrayLike | None,
) -> Array:
    """``max`` / ``min`` as jax.numpy's: over an empty axis an error unless
    ``initial`` is given (``lax.reduce_max`` would give its identity, -inf
    or the smallest integer, which NumPy and JAX refuse to invent);
    ``initial`` is then combined with the result."""
    a = aval_of(x)
    axes = _axes(op, a.ndim, axis)
    if initial is None:
        if 0 in [a.shape[i] for i in axes]:
            raise EmptyReductionError(
                f"{op}: zero-size array to reduction operation {op} which has no identity "
                f"({a.str_short()} over axis {axis}); pass initial= to give one"
            )
        return _keep(reduce(x, axes), a.shape, axes, keepdims)
    return combine(_keep(reduce(x, axes), a.shape, axes, keepdims), initial)


def max(  # noqa: A001 - NumPy's name
    x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False,
    initial: ArrayLike | None = None,
) -> Array:
    return _extremum("max", lax.reduce_max, maximum, x, axis, keepdims, initial)


def min(  # noqa: A001 - NumPy's name
    x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False,
    initial: ArrayLike | None = None,
) -> Array:
    return _extremum("min", lax.reduce_min, minimum, x, axis, keepdims, initial)


amax = max
amin = min


#: The dtypes whose eager host paths compute directly (16-bit floats round
#: each step through float32 on the primitives' path).
_HOST_FLOATS: frozenset[DType] = frozenset({_float32, _float64})

#: Whether eager composites (``mean``, ``nn.softmax``) may compute on the
#: host values directly (``_eager_host``); the tests turn it off to compare
#: with the primitive-by-primitive evaluation, and ``debug_nans``/``debug_infs``
#: turn it off so that every primitive passes the eval trace's check
#: (``core.config.EAGER_FAST``).
EAGER_FAST = _EAGER_FAST


def _eager_host(x: object) -> NDArray | None:
    """The host value of ``x`` when a composite may compute it with NumPy
    directly, bit for bit what its primitives give one by one: ``x`` a
    concrete strong array (an ``ArrayImpl`` or a NumPy array), no
    transformation active, and x64 never turned off (its conversions and
    warnings stay on the primitives' path). Else ``None``."""
    if not EAGER_FAST[0] or X32_POSSIBLE[0]:
        return None
    if type(x) is ArrayImpl:
        if x.aval.weak_type or x.aval.dtype in _EXTENDED:  # (typed keys: the primitives refuse them)
            return None
        h = x._host
        v = h if h is not None else x.to_numpy()
    elif type(x) is np.ndarray:
        v = x
    else:
        return None
    return v if current_trace() is EVAL_TRACE else None


def mean(
    x: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
    keepdims: bool = False,
) -> Array:
    a = aval_of(x)
    axes = _axes("mean", a.ndim, axis)
    n = 1
    for i in axes:
        n *= a.shape[i]
    if n and current_trace() is EVAL_TRACE and not X32_POSSIBLE[0] and (
        type(x) is np.ndarray or (type(x) is ArrayImpl and not a.weak_type and a.dtype not in _EXTENDED)
    ):
        # Eagerly one XLA program, as under jit: there XLA fuses the division
        # into the sum, and a fused sum over an axis adds in another order
        # than the sum alone (jax.numpy.mean is a jitted function too).
        def body(xs: list[Value]) -> list[Value]:
            return [_mean(xs[0], axes, n, dtype, keepdims)]

        return eval_program("mean", (axes, dtype, keepdims), body, [x])[0]
    return _mean(x, axes, n, dtype, keepdims)


def _mean(x: Value, axes: tuple[int, ...], n: int, dtype: DType | type | None, keepdims: bool) -> Array:
    a = aval_of(x)
    if dtype is None and n:
        if not a.weak_type and a.dtype in _HOST_FLOATS and (not X32_POSSIBLE[0] or a.dtype not in TO_32):
            # a strong float32/float64 operand: the equations of the general
            # path below (sum, its keepdims reshape, div by n), bound directly
            total = bind1(reduce_sum_p, (x,), _params_of(("axis", axes)))
            if keepdims:
                kept = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
                total = bind1(reshape_p, (total,), _params_of(("new_sizes", kept)))
            return bind1(div_p, (total, np.asarray(float(n), dtype=a.dtype)), NO_PARAMS)
    xf = _float(x) if dtype is None else astype(x, dtype)
    out_dtype = aval_of(xf).dtype
    if out_dtype in HALF:  # as JAX: the sum and the division in float32, rounded once
        wide = sum(lax.convert_element_type(xf, _float32), axes, keepdims=keepdims)
        return lax.convert_element_type(divide(wide, float(n)), out_dtype)
    total = sum(xf, axes, keepdims=keepdims)
    return divide(total, float(n))


def ravel(x: ArrayLike) -> Array:
    return lax.reshape(x, (aval_of(x).size,))


def abs(x: ArrayLike) -> Array:  # noqa: A001 - NumPy's name
    if aval_of(x).dtype == _bool or aval_of(x).dtype.kind == "u":  # as JAX: unchanged
        return asarray(x)
    return lax.abs(x)


absolute = abs


def invert(x: ArrayLike) -> Array:
    """Bitwise not; logical not for bools (``~x``)."""
    a = aval_of(x)
    if a.dtype == _bool:
        return lax.eq(x, False)
    if a.dtype.kind in "iu":
        return lax.bitwise_not(x)
    raise PrimitiveTypeError(f"invert: not defined for {a.str_short()} (integers and bools only)")


def _zero(x: ArrayLike) -> NDArray:
    return np.zeros((), aval_of(x).dtype)


def _and(p: ArrayLike, q: ArrayLike) -> Array:
    """Logical and of two bool arrays of one shape."""
    return lax.select(p, q, p)


def _truncated_rem(op: str, x: ArrayLike, y: ArrayLike) -> tuple[Value, Value, Array, Array]:
    """The promoted operands, ``lax.rem`` (the sign of the dividend), and
    where that remainder is nonzero with the sign opposite the divisor's:
    where Python's ``%`` and ``//`` differ from C's truncation."""
    a, b = _prepare2(x, y, keep_scalars=True)
    if aval_of(a).dtype == _bool:
        raise PrimitiveTypeError(f"{op}: not defined for bool operands")
    r = lax.rem(a, b)
    sign_differs = lax.ne(lax.lt(r, _zero(r)), lax.lt(b, _zero(b)))
    return a, b, r, _and(lax.ne(r, _zero(r)), sign_differs)


def remainder(x: ArrayLike, y: ArrayLike) -> Array:
    """The remainder with the sign of the divisor (Python's ``%``), as NumPy;
    ``x % 0`` is what ``lax.rem`` gives (NumPy: 0 for integers, NaN for floats)."""
    a, b = _prepare2(x, y, keep_scalars=True)
    if aval_of(b).dtype.kind in "iu":  # as JAX: an integer x % 0 is 0 (the divisor taken as 1)
        y = where(lax.eq(b, _zero(b)), 1, b)
        x = a
    _, b, r, fix = _truncated_rem("remainder", x, y)
    return lax.select(fix, lax.add(r, b), r)


mod = remainder


def _no_complex(name: str, *xs: ArrayLike) -> None:
    """JAX's error for a function that has no complex version."""
    if builtins.any(type(x) is complex or is_complex(aval_of(x).dtype) for x in xs):
        raise PrimitiveTypeError(f"{name} does not support complex-valued inputs")


def floor_divide(x: ArrayLike, y: ArrayLike) -> Array:
    """``x // y``, rounded toward minus infinity, as NumPy (for floats, its
    ``npy_divmod``: exact where ``floor(x / y)`` would round)."""
    _no_complex("floor_divide", x, y)
    a, b, r, fix = _truncated_rem("floor_divide", x, y)
    if not is_float(aval_of(a).dtype):
        q = lax.div(a, b)  # truncates toward zero
        if aval_of(a).dtype.kind == "u":
            return q
        # JAX's rule (so x // 0 agrees too): one less where the signs differ and rem != 0
        fix = _and(lax.ne(lax.sign(a), lax.sign(b)), lax.ne(r, _zero(r)))
        return lax.select(fix, lax.sub(q, 1), q)
    d = lax.div(lax.sub(a, r), b)
    d = lax.select(fix, lax.sub(d, 1.0), d)
    f = lax.floor(d)
    f = lax.select(lax.gt(lax.sub(d, f), 0.5), lax.add(f, 1.0), f)
    quotient = lax.div(a, b)
    f = lax.select(lax.eq(d, 0.0), lax.mul(quotient, 0.0), f)  # a signed zero, as a / b's
    return lax.select(lax.eq(b, 0.0), quotient, f)


def matmul(
    x: ArrayLike, y: ArrayLike, *, precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """NumPy's ``matmul``: a 1-d operand is a vector (its axis removed from
    the result), and the dimensions before the last two broadcast;
    ``precision`` and ``preferred_element_type`` as ``jax.numpy.matmul``'s.

    As JAX's: a batch dimension only one operand has (or has with size 1)
    is not broadcast but stays a free dimension of ``dot_general``, so
    ``(8, 64, 128) @ (128, 384)`` is one matrix product, not eight of a
    broadcast copy (nor a summed gradient of one); a transpose puts the
    dimensions back in NumPy's order."""
    if preferred_element_type is not None or precision is not None:
        return _matmul_with(x, y, canonicalize_precision(precision, "matmul"), preferred_element_type)
    if type(x) is ArrayImpl and type(y) is ArrayImpl:  # the common eager case, checked inline
        # (the eager products ignore precision: the CPU's XLA computes every
        # float product at full precision, docs/architecture.md "Precision")
        hx, hy, ax, ay = x._host, y._host, x.aval, y.aval
        if (hx is not None and hy is not None and ax.dtype in _HOST_FLOATS and ay.dtype == ax.dtype
                and not ax.weak_type and not ay.weak_type and ax.shape and 1 <= len(ay.shape) <= 2
                and ax.shape[-1] == ay.shape[0] and EAGER_FAST[0] and not X32_POSSIBLE[0]
                and current_trace() is EVAL_TRACE):
            out = host_matmul(hx, hy)  # (as below)
            return from_numpy(out if type(out) is np.ndarray else np.asarray(out, dtype=ax.dtype))
    hx = _eager_host(x)
    if hx is not None and hx.dtype in _HOST_FLOATS and 1 <= hx.ndim:
        hy = _eager_host(y)
        # two concrete strong arrays of one float dtype, y a matrix or a
        # vector contracted with x's last axis: dot_general's impl is this
        # np.matmul call, without the interpreter (11 -> ~2.5 us for 16x32 @ 32x32)
        if hy is not None and hy.dtype == hx.dtype and 1 <= hy.ndim <= 2 and hx.shape[-1] == hy.shape[0]:
            return from_numpy(np.asarray(host_matmul(hx, hy), dtype=hx.dtype))
    return _matmul_with(x, y, canonicalize_precision(None, "matmul"), None)


def _matmul_with(
    x: ArrayLike, y: ArrayLike, precision: CanonicalPrecision,
    preferred_element_type: DType | type | str | None,
) -> Array:
    """``matmul``'s equations (the general path)."""
    pet = None
    if preferred_element_type is not None:
        pet = canonicalize_explicit(np.dtype(preferred_element_type), "matmul")
    ax, ay = aval_of(x), aval_of(y)
    if (ax.dtype == ay.dtype and ax.dtype.kind in "fiu" and not ax.weak_type and not ay.weak_type
            and (not X32_POSSIBLE[0] or ax.dtype not in TO_32)):
        a, b = x, y  # what _promote gives: one strong dtype, kept
    else:
        a, b = _promote(x, y)
        ax, ay = aval_of(a), aval_of(b)
    squeeze_a, squeeze_b, dims, perm = _matmul_plan(ax.shape, ay.shape, precision, pet)
    if squeeze_a is not None:
        a = bind1(squeeze_p, (a,), squeeze_a)
    if squeeze_b is not None:
        b = bind1(squeeze_p, (b,), squeeze_b)
    out = bind1(dot_general_p, (a, b), dims)
    return out if perm is None else bind1(transpose_p, (out,), perm)


@functools.lru_cache(maxsize=4096)
def _matmul_plan(
    xs: tuple[int, ...], ys: tuple[int, ...], precision: CanonicalPrecision = None, pet: DType | None = None,
) -> tuple[Params | None, Params | None, Params, Params | None]:
    """``matmul``'s equations for operands of shapes ``xs`` and ``ys``, as the
    params of each (shared maps, as ``lax.squeeze``, ``lax.dot_general`` and
    ``lax.transpose`` make them): a ``squeeze`` of either operand's size-1
    batch dimensions, the ``dot_general``, and the ``transpose`` to NumPy's
    order (``None`` where there is none). Remembered per shapes: the plan
    is a pure function of them."""
    if not xs or not ys:
        raise PrimitiveTypeError("matmul: operands must be at least 1-d; use multiply for scalars")
    if len(ys) <= 2:  # no batch dimension in y: x's leading axes are free ones
        return None, None, _dot_params((((len(xs) - 1,), (0,)), ((), ())), precision, pet), None
    a_mat, b_mat = len(xs) > 1, len(ys) > 1
    a_bd: tuple[int | None, ...] = xs[:-2] if a_mat else ()
    b_bd: tuple[int | None, ...] = ys[:-2] if b_mat else ()
    nb = builtins.max(len(a_bd), len(b_bd))
    a_bd = (None,) * (nb - len(a_bd)) + a_bd
    b_bd = (None,) * (nb - len(b_bd)) + b_bd
    a_squeeze: list[int] = []
    b_squeeze: list[int] = []
    a_batch: list[int] = []
    b_batch: list[int] = []
    idx_batch: list[int] = []
    idx_a: list[int] = []
    idx_b: list[int] = []
    for i, (ba, bb) in enumerate(zip(a_bd, b_bd)):
        if ba is None:
            idx_b.append(i)
        elif bb is None:
            idx_a.append(i)
        elif ba == 1:
            idx_b.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a) + len(a_squeeze))
        elif bb == 1:
            idx_a.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b) + len(b_squeeze))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise PrimitiveTypeError(f"matmul: the batch dimensions of shapes {xs} and {ys} do not broadcast")
    if a_mat:
        idx_a.append(nb)
    if b_mat:
        idx_b.append(nb + a_mat)
    an, bn = len(xs) - len(a_squeeze), len(ys) - len(b_squeeze)
    dims = _dot_params((((an - 1,), (bn - 1 - b_mat,)), (tuple(a_batch), tuple(b_batch))), precision, pet)
    perm = tuple(int(i) for i in np.argsort(idx_batch + idx_a + idx_b))
    return (
        _params_of(("dimensions", tuple(a_squeeze))) if a_squeeze else None,
        _params_of(("dimensions", tuple(b_squeeze))) if b_squeeze else None,
        dims,
        None if perm == tuple(range(len(perm))) else _params_of(("perm", perm)),
    )


def dot(
    x: ArrayLike, y: ArrayLike, *, precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """NumPy's ``dot``: a scalar operand multiplies; otherwise the last axis of
    ``x`` meets the second-to-last of ``y`` (its only one if 1-d), and the
    result has ``x``'s other axes then ``y``'s: a tensor product, not
    ``matmul``'s batching (``(2,3,4) . (2,4,5)`` is ``(2,3,2,5)``).
    ``precision`` and ``preferred_element_type`` as ``jax.numpy.dot``'s."""
    a, b = _promote(x, y)
    xn, yn = aval_of(a).ndim, aval_of(b).ndim
    if xn == 0 or yn == 0:
        out = multiply(a, b)
        return out if preferred_element_type is None else astype(out, np.dtype(preferred_element_type))
    return lax.dot_general(a, b, (((xn - 1,), (yn - 2 if yn > 1 else 0,)), ((), ())),
                           precision, preferred_element_type)


def _refuse_traced_dims(op: str, shape: object) -> None:
    """A traced dimension is an error that says so (not "iteration over a
    0-d array"): shapes are static, as in JAX."""
    dims = shape if isinstance(shape, (list, tuple)) else (shape,)
    for d in dims:
        if isinstance(d, Tracer):
            raise ConcretizationError(
                f"{op}: the shape has a traced dimension ({d.aval.str_short()}): shapes must be "
                "known while tracing. Mark the argument static (jit's static_argnums / "
                "static_argnames), or compute the size from another array's .shape"
            )


def _shape(op: str, shape: int | Sequence[int]) -> tuple[int, ...]:
    if not isinstance(shape, (int, np.integer, list, tuple)):
        _refuse_traced_dims(op, shape)  # (only off the common path)
    dims: tuple[object, ...] = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    out: list[int] = []
    for d in dims:
        if not isinstance(d, (int, np.integer)) or type(d) is bool:
            _refuse_traced_dims(op, dims)
            raise PrimitiveTypeError(f"{op}: a shape is non-negative integers, got {shape!r}")
        if d < 0:
            raise PrimitiveTypeError(f"{op}: a shape is non-negative integers, got {shape!r}")
        out.append(int(d))
    return tuple(out)


def full(shape: int | Sequence[int], fill_value: ArrayLike, dtype: DType | type | None = None, *,
         device: Device | None = None) -> Array:
    """An array of ``shape`` filled with ``fill_value``: a broadcast scalar,
    so under a trace it is a literal in the jaxpr, not an array constant."""
    if device is not None:
        check_device("full", device)
    d = result_type(fill_value) if dtype is None else canonicalize_explicit(np.dtype(dtype), "full")
    value: ArrayLike
    if dtype is None and _node(fill_value) in _WEAK_PY:
        value = fill_value  # a Python int or float, or a weak array: the result is weak (JAX)
    elif isinstance(fill_value, (bool, int, float, np.generic)):
        value = np.asarray(fill_value, dtype=d)  # a literal under a trace
    else:
        value = astype(fill_value, d)
    if aval_of(value).shape:
        return broadcast_to(value, _shape("full", shape))
    return lax.broadcast_in_dim(value, _shape("full", shape), ())


def zeros(shape: int | Sequence[int], dtype: DType | type | None = None, *, device: Device | None = None) -> Array:
    if device is not None:
        check_device("zeros", device)
    return full(shape, 0.0, default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "zeros"))


def ones(shape: int | Sequence[int], dtype: DType | type | None = None, *, device: Device | None = None) -> Array:
    if device is not None:
        check_device("ones", device)
    return full(shape, 1.0, default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "ones"))


def full_like(x: ArrayLike, fill_value: ArrayLike, dtype: DType | type | None = None,
              shape: int | Sequence[int] | None = None, *, device: Device | None = None) -> Array:
    """An array of ``x``'s shape (or ``shape``) and dtype filled with
    ``fill_value``; weakly typed when ``x`` is and no dtype is given (JAX's
    ``lax.full_like``)."""
    if device is not None:
        check_device("full_like", device)
    if shape is not None:
        return full(shape, fill_value, aval_of(x).dtype if dtype is None else dtype)
    a = aval_of(x)
    if dtype is None and a.weak_type and type(fill_value) in _SCALAR_TYPES:
        return typed_like(full(a.shape, scalar_as(fill_value, a)), a)  # type: ignore[arg-type]  # a Python scalar, checked above
    return typed_like(full(a.shape, fill_value, a.dtype if dtype is None else dtype), a)


def zeros_like(x: ArrayLike, dtype: DType | type | None = None, shape: int | Sequence[int] | None = None, *,
               device: Device | None = None) -> Array:
    """Zeros of ``x``'s type: a broadcast scalar, so a traced ``x`` of any
    size costs nothing at trace time (a literal in the jaxpr)."""
    return full_like(x, 0, dtype, shape, device=device)


def ones_like(x: ArrayLike, dtype: DType | type | None = None, shape: int | Sequence[int] | None = None, *,
              device: Device | None = None) -> Array:
    return full_like(x, 1, dtype, shape, device=device)


# -- joining, padding, flipping, squeezing, ranges, clipping (issue 11) ----------------
def _rows(arrays: Sequence[ArrayLike] | Array | NDArray, op: str) -> Sequence[ArrayLike]:
    """The operands of a joining function: a sequence as it is, an array's rows."""
    if isinstance(arrays, (Array, np.ndarray)):
        if not aval_of(arrays).ndim:
            raise PrimitiveTypeError(f"{op}: a zero-dimensional array is not a sequence of arrays")
        return list(arrays)
    return arrays


def concatenate(arrays: Sequence[ArrayLike] | Array | NDArray, axis: int | None = 0, dtype: DType | type | None = None) -> Array:
    """``jnp.concatenate``: operands promoted to one dtype; ``axis=None`` joins them flattened.
    An array (rather than a sequence) is the sequence of its rows, as in JAX."""
    arrays = _rows(arrays, "concatenate")
    if not arrays:
        raise ArgumentValueError("concatenate: need at least one array to concatenate")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    ys = _promote(*arrays)
    if dtype is not None:
        ys = [astype(y, dtype) for y in ys]
    ndim = aval_of(ys[0]).ndim
    if ndim == 0:
        raise PrimitiveTypeError("concatenate: zero-dimensional arrays cannot be concatenated")
    return lax.concatenate(ys, _axis("concatenate", axis, ndim))


def stack(arrays: Sequence[ArrayLike] | Array | NDArray, axis: int = 0, dtype: DType | type | None = None) -> Array:
    """``jnp.stack``: arrays of one shape joined along a new ``axis`` (an
    array, rather than a sequence, is the sequence of its rows, as in JAX)."""
    arrays = _rows(arrays, "stack")
    if not arrays:
        raise ArgumentValueError("stack: need at least one array to stack")
    shapes = {aval_of(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all input arrays must have the same shape, got {sorted(shapes)}")
    ax = _axis("stack", axis, aval_of(arrays[0]).ndim + 1)
    return concatenate([expand_dims(a, ax) for a in arrays], ax, dtype)


def _pairs(op: str, what: str, v: object, ndim: int) -> NDArray:
    arr = np.asarray(v)
    try:
        return np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise PrimitiveTypeError(f"{op}: {what} {v!r} does not broadcast to (ndim, 2) = ({ndim}, 2)") from None


_PAD_KWARGS: dict[str, tuple[str, ...]] = {
    "constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",), "minimum": ("stat_length",), "mean": ("stat_length",), "median": ("stat_length",),
    "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
}


def _pad_pairs(what: str, v: object, ndim: int) -> tuple[tuple[np.generic, np.generic], ...]:
    """``jnp.pad``'s forms of a per-axis ``(before, after)`` argument, as JAX
    reads them: shape ``(ndim, 2)``, ``(1, 2)``, ``(2,)``, ``(1,)`` or ``()``."""
    if isinstance(v, Tracer):
        raise ConcretizationError(f"pad: {what} must be concrete (not a traced value)")
    try:
        arr = np.asarray(v if not isinstance(v, Array) else np.asarray(v))
    except ValueError:
        raise PrimitiveTypeError(f"pad: `{what}` entries must be the same shape: {v!r}") from None
    if arr.dtype == object:
        raise PrimitiveTypeError(f"pad: `{what}` entries must be the same shape: {v!r}")
    if arr.shape == (ndim, 2):
        return tuple((row[0], row[1]) for row in arr)
    if arr.shape == (1, 2):
        return ((arr[0, 0], arr[0, 1]),) * ndim
    if arr.shape == (2,):
        return ((arr[0], arr[1]),) * ndim
    if arr.shape in ((1,), ()):
        return ((arr.flat[0], arr.flat[0]),) * ndim
    raise ArgumentValueError(
        f"pad: {what} with nd={ndim} has unsupported shape {arr.shape}. "
        f"Valid shapes are ({ndim}, 2), (1, 2), (2,), (1,), or ()."
    )


def _pad_check_empty_axis(widths: NDArray, i: int, mode: str) -> None:
    if widths[i, 0] > 0 or widths[i, 1] > 0:
        raise ArgumentValueError(f"pad: cannot apply '{mode}' padding to empty axis {i}")


def _pad_repeat(edge: Array, n: int, axis: int) -> Array:
    """A size-1 slice along ``axis`` repeated ``n`` times (a broadcast)."""
    shape = list(edge.shape)
    shape[axis] = n
    return broadcast_to(edge, shape)


def _pad_wrap(x: Array, widths: NDArray) -> Array:
    for i in range(x.ndim):
        size = x.shape[i]
        if size == 0:
            _pad_check_empty_axis(widths, i, "wrap")
            continue
        left_repeats, left_rem = divmod(int(widths[i, 0]), size)
        right_repeats, right_rem = divmod(int(widths[i, 1]), size)
        parts: list[Array] = []
        if left_rem > 0:
            parts.append(lax.slice_in_dim(x, size - left_rem, size, axis=i))
        parts += [x] * (left_repeats + right_repeats + 1)
        if right_rem > 0:
            parts.append(lax.slice_in_dim(x, 0, right_rem, axis=i))
        x = lax.concatenate(parts, i) if len(parts) > 1 else x
    return x


def _pad_reflect(x: Array, widths: NDArray, mode: str, reflect_type: str) -> Array:
    """``reflect`` (the edge not repeated) or ``symmetric`` (repeated), widths
    beyond the axis reflecting again off the grown array; ``reflect_type='odd'``
    reflects the values through the edge value (``2 * edge - x``)."""
    for i in range(x.ndim):
        size = x.shape[i]
        if size == 0:
            _pad_check_empty_axis(widths, i, mode)
            continue
        offset = 1 if (mode == "reflect" and size > 1) else 0
        for before in (True, False):
            padding = int(widths[i, 0 if before else 1])
            edge = lax.slice_in_dim(x, 0, 1, axis=i) if before else lax.slice_in_dim(x, x.shape[i] - 1, x.shape[i], axis=i)
            while padding > 0:
                cur = builtins.min(padding, size - offset)
                padding -= cur
                n = x.shape[i]
                if before:
                    part = lax.slice_in_dim(x, offset, offset + cur, axis=i)
                else:
                    stop = n if (mode == "symmetric" or size == 1) else n - 1
                    part = lax.slice_in_dim(x, n - cur - offset, stop, axis=i)
                part = lax.rev(part, (i,))
                if reflect_type == "odd":
                    part = 2 * edge - part
                    if size > 1:
                        k = part.shape[i]
                        edge = lax.slice_in_dim(part, 0, 1, axis=i) if before else lax.slice_in_dim(part, k - 1, k, axis=i)
                x = lax.concatenate([part, x] if before else [x, part], i)
    return x


def _pad_edge(x: Array, widths: NDArray) -> Array:
    for i in range(x.ndim):
        n = x.shape[i]
        if n == 0:
            _pad_check_empty_axis(widths, i, "edge")
            continue
        before = _pad_repeat(lax.slice_in_dim(x, 0, 1, axis=i), int(widths[i, 0]), i)
        after = _pad_repeat(lax.slice_in_dim(x, n - 1, n, axis=i), int(widths[i, 1]), i)
        x = lax.concatenate([before, x, after], i)
    return x


def _pad_keep_weak(part: Array, like: Array) -> Array:
    """``part`` in ``like``'s dtype, weak when ``like`` is (JAX's
    ``_convert_element_type(part, dtype, weak_type)``)."""
    if like.weak_type:
        return _convert_weak(part, like.dtype)
    return lax.convert_element_type(part, like.dtype)


def _pad_linear_ramp(x: Array, widths: NDArray, end_values: tuple[tuple[np.generic, np.generic], ...]) -> Array:
    for i in range(x.ndim):
        n = x.shape[i]
        if n == 0:  # a TypeError, as JAX's (its slice of the edge fails)
            raise PrimitiveTypeError(f"pad: cannot apply 'linear_ramp' padding to empty axis {i} (it has no edge value)")
        first = lax.squeeze(lax.slice_in_dim(x, 0, 1, axis=i), (i,))
        last = lax.squeeze(lax.slice_in_dim(x, n - 1, n, axis=i), (i,))
        ramp_before = linspace(asarray(end_values[i][0]), first, int(widths[i, 0]), endpoint=False, dtype=x.dtype, axis=i)
        ramp_after = linspace(asarray(end_values[i][1]), last, int(widths[i, 1]), endpoint=False, dtype=x.dtype, axis=i)
        ramp_before = _pad_keep_weak(ramp_before, x)
        ramp_after = lax.rev(_pad_keep_weak(ramp_after, x), (i,))
        x = lax.concatenate([ramp_before, x, ramp_after], i)
    return x


def _pad_median(x: Array, axis: int, keepdims: bool = True) -> Array:
    """``jnp.median`` along one axis, kept: the mean of the middle two of the
    sorted values (in the default float for integers), NaN where any is NaN."""
    if not is_inexact(x.dtype):
        x = astype(x, default_float())
    n = x.shape[axis]
    if n == 0:  # a TypeError, as JAX's (its gather of the middle fails)
        raise PrimitiveTypeError(f"pad: cannot apply 'median' padding to empty axis {axis} (it has no median)")
    s = lax.sort(x, axis)
    lo, hi = (n - 1) // 2, n // 2
    mid = (lax.slice_in_dim(s, lo, lo + 1, axis=axis) + lax.slice_in_dim(s, hi, hi + 1, axis=axis)) * 0.5
    return where(any(isnan(x), axis=axis, keepdims=True), np.nan, mid)


def _pad_stats(x: Array, widths: NDArray, stat_length: tuple[tuple[np.generic, np.generic], ...] | None,
               stat: Callable[..., Array]) -> Array:
    for i in range(x.ndim):
        if stat_length is None:
            stat_before = stat_after = stat(x, axis=i, keepdims=True)
        else:
            n = x.shape[i]
            length_before, length_after = (int(v) for v in stat_length[i])
            if length_before == 0 or length_after == 0:
                raise ArgumentValueError("pad: stat_length of 0 yields no value for padding")
            length_before = builtins.min(length_before, n)
            length_after = builtins.min(length_after, n)
            stat_before = stat(lax.slice_in_dim(x, 0, length_before, axis=i), axis=i, keepdims=True)
            stat_after = stat(lax.slice_in_dim(x, n - length_after, n, axis=i), axis=i, keepdims=True)
        if not is_inexact(x.dtype):
            stat_before, stat_after = round(stat_before), round(stat_after)
        stat_before, stat_after = _pad_keep_weak(stat_before, x), _pad_keep_weak(stat_after, x)
        before = _pad_repeat(stat_before, int(widths[i, 0]), i)
        after = _pad_repeat(stat_after, int(widths[i, 1]), i)
        x = lax.concatenate([before, x, after], i)
    return x


def _pad_empty(x: Array, widths: NDArray) -> Array:
    """JAX's ``empty`` padding: zeros (``jnp.empty`` is ``jnp.zeros``)."""
    zero = _pad_keep_weak(asarray(np.zeros((), x.dtype)), x)
    return lax.pad(x, zero, [(int(lo), int(hi), 0) for lo, hi in widths])


def _pad_func(x: Array, widths: NDArray, func: Callable[..., ArrayLike], kwargs: dict[str, object]) -> Array:
    """A callable ``mode``: the zero-padded array, then ``func(row, (before,
    after), axis, kwargs)`` on each 1-d slice along each axis in turn (mapped
    with ``vmap``, as JAX's ``apply_along_axis``)."""
    from ..api_forward import vmap

    out = lax.pad(x, _pad_keep_weak(asarray(np.zeros((), x.dtype)), x), [(int(lo), int(hi), 0) for lo, hi in widths])
    for axis in range(out.ndim):
        pair = (int(widths[axis, 0]), int(widths[axis, 1]))

        def row_fn(row: Array, pair: tuple[int, int] = pair, axis: int = axis) -> Array:
            return asarray(func(row, pair, axis, kwargs))

        g: Callable[..., object] = row_fn
        for j in range(1, out.ndim - axis):
            g = vmap(g, in_axes=j, out_axes=-1)
        for _ in range(axis):
            g = vmap(g, in_axes=0, out_axes=0)
        out = asarray(g(out))  # type: ignore[arg-type]  # an array function of an array
    return out


def pad(
    array: ArrayLike,
    pad_width: int | Sequence[int] | Sequence[Sequence[int]] | NDArray | Array,
    mode: str | Callable[..., ArrayLike] = "constant",
    constant_values: ArrayLike | Sequence[object] | None = None,
    *,
    stat_length: int | Sequence[int] | Sequence[Sequence[int]] | None = None,
    end_values: ArrayLike | Sequence[object] | None = None,
    reflect_type: str | None = None,
    **kwargs: object,
) -> Array:
    """``jnp.pad``: ``pad_width`` an int, a ``(before, after)`` pair or one
    pair per axis; ``mode`` one of JAX's: ``'constant'`` (``constant_values``,
    a scalar or pairs likewise, cast to the array's dtype), ``'empty'`` (zeros,
    as JAX), ``'edge'``, ``'wrap'``, ``'reflect'`` and ``'symmetric'``
    (``reflect_type`` ``'even'`` or ``'odd'``), ``'linear_ramp'``
    (``end_values``), ``'maximum'``, ``'minimum'``, ``'mean'``, ``'median'``
    (``stat_length``), or a callable ``func(row, (before, after), axis,
    kwargs)`` returning the row, applied as JAX does to the zero-padded array
    along each axis in turn. A keyword a string mode does not take is an error."""
    given = {name: v for name, v in (("constant_values", constant_values), ("stat_length", stat_length),
                                     ("end_values", end_values), ("reflect_type", reflect_type)) if v is not None}
    a = aval_of(array)
    pairs = _pad_pairs("pad_width", pad_width, a.ndim)
    widths = np.array(pairs).reshape(a.ndim, 2) if pairs else np.zeros((0, 2), np.int64)
    if widths.dtype.kind not in "iu":
        raise PrimitiveTypeError(f"pad: `pad_width` must be of integral type, got {pad_width!r}")
    if callable(mode):
        return _pad_func(asarray(array), widths, mode, {**given, **kwargs})
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"pad: unimplemented padding mode '{mode}' for np.pad")
    unsupported = (set(given) | set(kwargs)) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ArgumentValueError(f"pad: unsupported keyword arguments for mode '{mode}': {sorted(unsupported)}")
    if reflect_type is not None and reflect_type not in ("even", "odd"):
        raise ArgumentValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    if a.ndim == 0:
        return asarray(array)
    if np.less(widths, 0).any():
        raise ArgumentValueError(f"pad: pad_width must be non-negative (index can't contain negative values), got {pad_width!r}")
    if mode == "constant":
        return _pad_constant(array, widths, 0 if constant_values is None else constant_values)
    x = asarray(array)
    if mode == "empty":
        return _pad_empty(x, widths)
    if mode == "edge":
        return _pad_edge(x, widths)
    if mode == "wrap":
        return _pad_wrap(x, widths)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(x, widths, mode, reflect_type or "even")
    if mode == "linear_ramp":
        return _pad_linear_ramp(x, widths, _pad_pairs("end_values", 0 if end_values is None else end_values, a.ndim))
    stats: dict[str, Callable[..., Array]] = {"maximum": max, "minimum": min, "mean": mean, "median": _pad_median}
    lengths = None if stat_length is None else _pad_pairs("stat_length", stat_length, a.ndim)
    return _pad_stats(x, widths, lengths, stats[mode])


def _pad_constant(array: ArrayLike, widths: NDArray, constant_values: ArrayLike | Sequence[object]) -> Array:
    a = aval_of(array)
    if isinstance(constant_values, Array):
        if constant_values.ndim == 0:
            return lax.pad(array, astype(constant_values, a.dtype), [(int(lo), int(hi), 0) for lo, hi in widths])
        constant_values = np.asarray(constant_values)
    if np.asarray(constant_values).ndim == 0:  # a literal under a trace
        cv = np.asarray(constant_values).astype(a.dtype)
        return lax.pad(array, cv, [(int(lo), int(hi), 0) for lo, hi in widths])
    cvs = _pairs("pad", "constant_values", constant_values, a.ndim)
    out = asarray(array)
    for i in range(a.ndim):
        for side in (0, 1):
            if widths[i, side]:
                config = [(0, 0, 0)] * a.ndim
                config[i] = (int(widths[i, 0]), 0, 0) if side == 0 else (0, int(widths[i, 1]), 0)
                out = lax.pad(out, np.asarray(cvs[i, side]).astype(a.dtype), config)
    return out


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """``jnp.flip``: reversed along ``axis`` (all axes when ``None``)."""
    return lax.rev(m, _axes("flip", aval_of(m).ndim, axis))


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """``jnp.squeeze``: the size-1 axes removed (``axis=None``: all of them)."""
    shape = aval_of(a).shape
    if axis is None:
        return lax.squeeze(a, tuple(i for i, n in enumerate(shape) if n == 1))
    axes = _axes("squeeze", len(shape), axis)
    if builtins.any(shape[i] != 1 for i in axes):
        raise ArgumentValueError(
            f"squeeze: cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={shape} and axis={axis}"
        )
    return lax.squeeze(a, axes)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """``jnp.expand_dims``: size-1 axes at ``axis`` of the result."""
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return lax.expand_dims(a, _axes("expand_dims", aval_of(a).ndim + len(axes), axes))


def _static_number(op: str, x: object) -> bool | int | float:
    v = _static_scalar(op, x)
    return v.item() if isinstance(v, np.generic) else v


def _static_scalar(op: str, x: object) -> bool | int | float | np.generic:
    """A concrete scalar argument: a Python scalar as it is, an array or
    NumPy scalar as a NumPy scalar of its dtype (so arithmetic on it is
    done in that dtype, as JAX does on the concrete value)."""
    if isinstance(x, (bool, int, float)):
        return x
    if isinstance(x, np.generic) or isinstance(x, ArrayImpl) or type(x) is np.ndarray:
        v = np.asarray(x)
        if v.shape == ():
            return cast(np.generic, v[()])  # a 0-d array's element: a NumPy scalar
    raise PrimitiveTypeError(f"{op}: needs concrete scalar arguments (not traced values), got {x!r}")


def arange(
    start: ArrayLike, stop: ArrayLike | None = None, step: ArrayLike | None = None,
    dtype: DType | type | None = None, *, device: Device | None = None,
) -> Array:
    """``jnp.arange``: ``arange(stop)``, ``arange(start, stop)``,
    ``arange(start, stop, step)``, and with ``stop=None`` the first argument
    is the stop whatever else is given (``arange(10, step=3)`` is
    ``[0 3 6 9]``). Bounds must be concrete. The values are JAX's:
    ``ceil((stop - start) / step)`` elements ``start + step * i`` computed
    in the result dtype (float32 for the 16-bit floats, rounded once), here
    on the host so eager and ``jit`` give the same bits (a constant in the
    jaxpr; ``arange(n)`` is an ``iota``)."""
    check_device("arange", device)
    args = [None if v is None else _static_scalar("arange", v) for v in (start, stop, step)]
    if dtype is not None:
        d = canonicalize_explicit(np.dtype(dtype), "arange")
    else:  # JAX's promotion of the bounds (Python scalars weak)
        d = result_type(*(v for v in (start, stop, step) if v is not None))
    lo, hi, by = args
    if hi is None:
        lo, hi = 0, lo
    assert hi is not None  # (the first argument is required)
    if by is None and lo == 0:
        n = _static_number("arange", hi)
        return lax.iota(d, int(np.ceil(n)) if n > 0 else 0)
    if by is not None and by == 0:
        raise ZeroStepError("arange: step must not be zero")
    # the size from the values as given (a NumPy scalar computes in its own
    # dtype, as JAX's concrete values do); cast for the type checker only
    flo, fhi = cast(float, lo), cast(float, hi)
    with np.errstate(over="ignore", invalid="ignore"):
        span = (fhi - flo) / (1 if by is None else cast(float, by))
    size = builtins.max(0, int(np.ceil(span)))
    work = np.dtype(np.float32) if d in HALF else d  # (JAX's working type; start + iota stays in d)
    iota = np.arange(size).astype(d if by is None else work)
    with np.errstate(over="ignore", invalid="ignore"):
        if by is None:
            out: NDArray = np.add(np.asarray(lo).astype(d), iota)
        else:
            out = np.add(np.asarray(lo).astype(work), np.multiply(np.asarray(by).astype(work), iota))
    return asarray(out.astype(d))


def clip(arr: ArrayLike, /, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Array:  # noqa: A002 - jnp's names
    """``jnp.clip``: ``minimum(max, maximum(min, arr))``, so promoted as they
    are, and ``max`` wherever ``min > max``; JAX's ValueError for complex values."""
    out = asarray(arr)
    if builtins.any(v is not None and (type(v) is complex or is_complex(aval_of(v).dtype)) for v in (out, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. Complex values "
            "have no ordering and cannot be clipped. Please convert to a real value or array by taking the "
            "real or imaginary components via jax.numpy.real/imag respectively."
        )
    if min is not None:
        out = maximum(min, out)
    if max is not None:
        out = minimum(max, out)
    return out


__all__ += [
    "arange", "clip", "concatenate", "expand_dims", "flip", "pad", "squeeze", "stack",
]


# -- arg-reductions, products, logical and cumulative reductions, sorting -------------
# (``all``/``any`` are defined here: this module calls ``builtins.all``/``builtins.any``)
def _arg(op: str, reduce: Callable[[ArrayLike, int, DType], Array], a: ArrayLike,
         axis: int | None, keepdims: bool) -> Array:
    x = asarray(a)
    shape = x.shape
    if axis is None:
        out = reduce(ravel(x), 0, default_int())
        return lax.reshape(out, (1,) * len(shape)) if keepdims else out
    ax = _axis(op, axis, len(shape))
    return _keep(reduce(x, ax, default_int()), shape, (ax,), keepdims)


def argmax(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """``jnp.argmax``: the first maximum's index (a NaN counts as the maximum);
    ``axis=None`` flattens; the default integer type."""
    return _arg("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """``jnp.argmin``: the first minimum's index (a NaN counts as the minimum)."""
    return _arg("argmin", lax.argmin, a, axis, keepdims)


def prod(
    a: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
    keepdims: bool = False,
) -> Array:
    """``jnp.prod``: bool and int32 multiply in the default integer type."""
    x = asarray(a)
    axes = _axes("prod", x.ndim, axis)
    acc = _sum_dtype(x.dtype) if dtype is None else canonicalize_explicit(np.dtype(dtype), "prod")
    if acc is not None and acc != x.dtype:
        x = lax.convert_element_type(x, acc)
    return _keep(lax.reduce_prod(x, axes), aval_of(a).shape, axes, keepdims)


def _truth(x: Array) -> Array:
    return x if x.dtype == _bool else not_equal(x, 0)


def all(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:  # noqa: A001 - NumPy's name
    x = asarray(a)
    axes = _axes("all", x.ndim, axis)
    return _keep(lax.reduce_and(_truth(x), axes), x.shape, axes, keepdims)


def any(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:  # noqa: A001 - NumPy's name
    x = asarray(a)
    axes = _axes("any", x.ndim, axis)
    return _keep(lax.reduce_or(_truth(x), axes), x.shape, axes, keepdims)


def _cumulative(op: str, reduce: Callable[[ArrayLike, int, bool], Array], a: ArrayLike,
                axis: int | None, dtype: DType | type | None) -> Array:
    """JAX's ``_cumulative_reduction``: ``axis=None`` flattens; bool accumulates
    in the default integer type (other dtypes stay); ``dtype=bool`` is ``a != 0``
    accumulated in integers."""
    x = asarray(a)
    if axis is None or x.ndim == 0:
        x = ravel(x)
    ax = _axis(op, 0 if axis is None else axis, x.ndim)
    if dtype is None:
        result = default_int() if x.dtype == _bool else x.dtype
        compute = result
    elif np.dtype(dtype) == _bool:
        result = _bool
        x = _truth(x)
        compute = default_int()
    else:
        result = canonicalize_explicit(np.dtype(dtype), op)
        compute = result
    out = reduce(astype(x, compute), ax, False)
    return astype(out, result)


def cumsum(a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None) -> Array:
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype)


def cumprod(a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None) -> Array:
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype)


def sort(a: ArrayLike, axis: int | None = -1, *, stable: bool = True, descending: bool = False) -> Array:
    """``jnp.sort``: NaNs last; ``descending`` reverses the ascending sort."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    d = _axis("sort", axis, x.ndim)
    out = lax.sort(x, dimension=d, is_stable=stable)
    return lax.rev(out, (d,)) if descending else out


def argsort(a: ArrayLike, axis: int | None = -1, *, stable: bool = True, descending: bool = False) -> Array:
    """``jnp.argsort`` (default integer indices; a stable descending sort keeps
    equal elements in their order, as JAX's)."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    d = _axis("argsort", axis, x.ndim)
    iota = lax.broadcasted_iota(default_int(), x.shape, d)
    if descending and stable:
        x, iota = lax.rev(x, (d,)), lax.rev(iota, (d,))
    _, idx = lax.sort_key_val(x, iota, dimension=d, is_stable=stable)
    return lax.rev(idx, (d,)) if descending else idx


__all__ += [
    "all", "any", "argmax", "argmin", "argsort", "cumprod", "cumsum", "prod", "sort",
]


# -- elementwise math, logic and bits (lax functions of primitives/special.py, bitwise.py) --
def _unary_float(op: Callable[[ArrayLike], Array]) -> Callable[[ArrayLike], Array]:
    def f(x: ArrayLike) -> Array:
        return op(_float(x))

    return f


log1p = _unary_float(lax.log1p)
expm1 = _unary_float(lax.expm1)
exp2 = _unary_float(lax.exp2)
tan = _unary_float(lax.tan)
arcsin = _unary_float(lax.asin)
arccos = _unary_float(lax.acos)
arctan = _unary_float(lax.atan)
sinh = _unary_float(lax.sinh)
cosh = _unary_float(lax.cosh)
arcsinh = _unary_float(lax.asinh)
arccosh = _unary_float(lax.acosh)
arctanh = _unary_float(lax.atanh)


def fabs(x: ArrayLike) -> Array:
    """``jnp.fabs``: the absolute value as a float; complex values refused (NumPy's ufunc error)."""
    if type(x) is complex or is_complex(aval_of(x).dtype):
        raise PrimitiveTypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(_float(x))


def _inexact2(x: ArrayLike, y: ArrayLike, keep_scalars: bool = False) -> tuple[Value, Value]:
    a, b = _prepare2(x, y, keep_scalars)
    return _float(a), _float(b)


def log2(x: ArrayLike) -> Array:
    xf = _float(x)
    return lax.div(lax.log(xf), lax.log(np.asarray(2.0, aval_of(xf).dtype)))


def log10(x: ArrayLike) -> Array:
    xf = _float(x)
    return lax.div(lax.log(xf), lax.log(np.asarray(10.0, aval_of(xf).dtype)))


def arctan2(x1: ArrayLike, x2: ArrayLike) -> Array:
    return lax.atan2(*_inexact2(x1, x2, keep_scalars=True))


def sign(x: ArrayLike) -> Array:
    """-1, 0 or 1 (-0.0 and NaN kept); not for bools (as JAX)."""
    return lax.sign(x)


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Array:  # noqa: A001 - NumPy's name
    """Round half to even (as NumPy); with ``decimals``, by scaling by
    ``10**decimals`` (as JAX, bit for bit, which may be off in the last digit)."""
    if out is not None:
        raise PrimitiveTypeError("round: the out argument is not supported (arrays are immutable)")
    d = _static_number("round", decimals)
    if type(d) is not int:
        raise PrimitiveTypeError(f"round: decimals must be an int, got {decimals!r}")
    x = asarray(a)
    refuse_keys("round", [x.aval])  # (JAX refuses them too)
    dtype = aval_of(x).dtype
    if is_complex(dtype):  # each part rounded, as JAX's
        re, im = _parts(x)
        return lax.complex(round(re, d), round(im, d))
    if not is_float(dtype):
        if d < 0:
            raise PrimitiveTypeError(f"round: integer rounding with decimals < 0 is not supported, got {d}")
        return x
    if d == 0:
        return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    factor = np.asarray(10.0**d, dtype)
    # times the reciprocal, not divided by the factor: XLA rewrites a division
    # by a constant so, and JAX's round is a jit, so this gives JAX's bits
    # eagerly (NumPy) and under jit alike (2.44 -> 2.4000000000000004). The
    # constants go in as Python floats (exactly the dtype's values), so a weak
    # x stays weak, as in JAX.
    inverse = float(np.reciprocal(factor))
    return lax.mul(lax.round(lax.mul(x, float(factor)), lax.RoundingMethod.TO_NEAREST_EVEN), inverse)


around = round


def rint(x: ArrayLike) -> Array:
    """Round half to even; integers and bools become the default float; each
    part of a complex value (as ``jnp.rint``)."""
    if is_complex(aval_of(x).dtype):
        re, im = _parts(x)
        return lax.complex(rint(re), rint(im))
    if not is_float(aval_of(x).dtype):
        return lax.convert_element_type(x, default_float())
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _bools_like(x: ArrayLike, value: bool) -> Array:
    return full(aval_of(x).shape, value, _bool)


def _parts(x: ArrayLike) -> tuple[Array, Array]:
    return lax.real(x), lax.imag(x)


def isnan(x: ArrayLike) -> Array:
    if is_complex(aval_of(x).dtype):  # either part NaN, as JAX's
        re, im = _parts(x)
        return lax.bitwise_or(isnan(re), isnan(im))
    return lax.ne(x, x) if is_float(aval_of(x).dtype) else _bools_like(x, False)


def isinf(x: ArrayLike) -> Array:
    if is_complex(aval_of(x).dtype):  # either part infinite, as JAX's
        re, im = _parts(x)
        return lax.bitwise_or(isinf(re), isinf(im))
    if not is_float(aval_of(x).dtype):
        return _bools_like(x, False)
    return lax.eq(lax.abs(x), np.asarray(np.inf, aval_of(x).dtype))


def isfinite(x: ArrayLike) -> Array:
    if is_complex(aval_of(x).dtype):  # both parts finite, as JAX's
        re, im = _parts(x)
        return _and(lax.is_finite(re), lax.is_finite(im))
    return lax.is_finite(x) if is_float(aval_of(x).dtype) else _bools_like(x, True)


def nan_to_num(
    x: ArrayLike, copy: bool = True, nan: ArrayLike = 0.0, posinf: ArrayLike | None = None,
    neginf: ArrayLike | None = None,
) -> Array:
    """NaN to ``nan``, +inf to ``posinf`` (default the dtype's largest), -inf to
    ``neginf`` (default its most negative); other dtypes unchanged."""
    a = asarray(x)
    dtype = aval_of(a).dtype
    if is_complex(dtype):  # each part, as JAX's
        re, im = _parts(a)
        return lax.complex(nan_to_num(re, copy, nan, posinf, neginf), nan_to_num(im, copy, nan, posinf, neginf))
    if not is_float(dtype):
        return a
    info = finfo(dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = where(isnan(a), asarray(nan, dtype), a)
    inf = np.asarray(np.inf, dtype)
    out = where(lax.eq(a, inf), asarray(hi, dtype), out)
    return where(lax.eq(a, lax.neg(inf)), asarray(lo, dtype), out)


_P = ParamSpec("_P")


def _keeps_weak(f: Callable[_P, Array]) -> Callable[_P, Array]:
    """A composite element-wise function, weakly typed when every operand is
    (as JAX's: its constants here are NumPy scalars, which are strong)."""

    @functools.wraps(f)
    def g(*args: _P.args, **kwargs: _P.kwargs) -> Array:
        out = f(*args, **kwargs)
        if not out.weak_type and out.dtype != _bool and builtins.all(aval_of(a).weak_type for a in args):
            return _convert_weak(out, out.dtype)
        return out

    return g


@_keeps_weak
def logaddexp(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log(exp(x1) + exp(x2))`` without overflow, as JAX: ``max + log1p(exp(-|x1 - x2|))``
    (``x1 + x2`` where ``x1 - x2`` is NaN). Written as a select between
    ``x1 + log1p(exp(x2 - x1))`` and its mirror, each branch fed a safe
    argument, so the derivative is JAX's ``exp(x - out)`` everywhere -- a half
    to each operand on ties -- without JAX's custom JVP."""
    a, b = _inexact2(x1, x2)
    first = lax.ge(a, b)
    zero = np.zeros((), aval_of(a).dtype)
    zeros = full_like(a, 0.0) if aval_of(a).shape else zero
    d1 = lax.select(first, lax.sub(b, a), zeros)
    d2 = lax.select(first, zeros, lax.sub(a, b))
    out = lax.select(first, lax.add(a, lax.log1p(lax.exp(d1))), lax.add(b, lax.log1p(lax.exp(d2))))
    delta = lax.sub(a, b)
    return lax.select(lax.ne(delta, delta), lax.add(a, b), out)


@_keeps_weak
def hypot(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``sqrt(x1**2 + x2**2)`` without overflow (JAX's algorithm)."""
    a, b = _inexact2(x1, x2)
    if is_complex(aval_of(a).dtype):
        raise ValueError(
            "jnp.hypot is not well defined for complex-valued inputs. Please convert to real values "
            "first, such as by using abs(x)"
        )
    a, b = lax.abs(a), lax.abs(b)
    dtype = aval_of(a).dtype
    inf = np.asarray(np.inf, dtype)
    any_inf = lax.bitwise_or(lax.eq(a, inf), lax.eq(b, inf))
    big, small = lax.max(a, b), lax.min(a, b)
    is_zero = lax.eq(big, np.zeros((), dtype))
    safe = lax.select(is_zero, full_like(big, 1.0), big)
    ratio = lax.div(small, safe)
    r = lax.select(is_zero, big, lax.mul(big, lax.sqrt(lax.add(np.asarray(1.0, dtype), lax.mul(ratio, ratio)))))
    return lax.select(any_inf, full_like(r, np.inf), r)


@_keeps_weak
def deg2rad(x: ArrayLike) -> Array:
    xf = _float(x)
    return lax.mul(xf, np.asarray(np.pi / 180, aval_of(xf).dtype))


@_keeps_weak
def rad2deg(x: ArrayLike) -> Array:
    xf = _float(x)
    return lax.mul(xf, np.asarray(180 / np.pi, aval_of(xf).dtype))


@_keeps_weak
def sinc(x: ArrayLike) -> Array:
    """``sin(pi x) / (pi x)``, 1 at 0, where every derivative is the Maclaurin
    series' (JAX's: ``sinc_maclaurin``, whose JVP gives the next order)."""
    xf = _float(x)
    dtype = aval_of(xf).dtype
    is_zero = lax.eq(xf, np.zeros((), dtype))
    pi_x = lax.mul(np.asarray(np.pi, dtype), xf)
    safe = lax.select(is_zero, full_like(pi_x, 1.0), pi_x)
    at_zero = bind1(_sinc_maclaurin_p, (pi_x,), _params_of(("k", 0)))
    return lax.select(is_zero, at_zero, lax.div(lax.sin(safe), safe))


@_keeps_weak
def heaviside(x1: ArrayLike, x2: ArrayLike) -> Array:
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``, NaN where ``x1`` is."""
    a, b = _inexact2(x1, x2)
    rest = lax.select(lax.ne(a, a), a, b)
    return lax.select(lax.lt(a, 0.0), full_like(a, 0.0), lax.select(lax.gt(a, 0.0), full_like(a, 1.0), rest))


def _truthy(x: Value) -> Value:
    return x if aval_of(x).dtype == _bool else lax.ne(x, _zero(x))


def logical_and(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    return lax.bitwise_and(_truthy(a), _truthy(b))


def logical_or(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    return lax.bitwise_or(_truthy(a), _truthy(b))


def logical_xor(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    return lax.bitwise_xor(_truthy(a), _truthy(b))


def logical_not(x: ArrayLike) -> Array:
    return lax.bitwise_not(_truthy(asarray(x)))


def _integral(op: str, *xs: Value) -> None:
    for x in xs:
        d = aval_of(x).dtype
        if d.kind not in "biu":
            raise PrimitiveTypeError(f"{op}: only integers and bools, got {aval_of(x).str_short()}")


def bitwise_and(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    _integral("bitwise_and", a)
    return lax.bitwise_and(a, b)


def bitwise_or(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    _integral("bitwise_or", a)
    return lax.bitwise_or(a, b)


def bitwise_xor(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    _integral("bitwise_xor", a)
    return lax.bitwise_xor(a, b)


def bitwise_not(x: ArrayLike) -> Array:
    a = asarray(x)
    _integral("bitwise_not", a)
    return lax.bitwise_not(a)


def left_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    a, b = _prepare2(x1, x2, keep_scalars=True)
    _integral("left_shift", a)
    if aval_of(a).dtype == _bool:
        raise PrimitiveTypeError("left_shift: only integers, got bool")
    return lax.shift_left(a, b)


def right_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Arithmetic (sign-filling) for signed integers, logical for unsigned (as JAX)."""
    a, b = _prepare2(x1, x2, keep_scalars=True)
    _integral("right_shift", a)
    d = aval_of(a).dtype
    if d == _bool:
        raise PrimitiveTypeError("right_shift: only integers, got bool")
    return lax.shift_right_logical(a, b) if d.kind == "u" else lax.shift_right_arithmetic(a, b)


def square(x: ArrayLike) -> Array:
    a = asarray(x)
    if aval_of(a).dtype == _bool:  # bools square as int32 (as JAX, also with x64)
        a = asarray(lax.convert_element_type(a, _int32))
    return lax.integer_pow(a, 2)


def reciprocal(x: ArrayLike) -> Array:
    return lax.integer_pow(_float(x), -1)


__all__ += [
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "around",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cosh", "deg2rad", "exp2", "expm1",
    "fabs", "heaviside", "hypot", "isfinite", "isinf", "isnan", "left_shift", "log10", "log1p",
    "log2", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "nan_to_num",
    "rad2deg", "reciprocal", "right_shift", "rint", "round", "sign", "sinc", "sinh", "square",
    "tan",
]


# -- convolutions and grids (issue 13: JAX's convolution notebook) ---------------------------
newaxis = None
pi = float(np.pi)

_CONV_MODES = ("full", "same", "valid")


def _conv1d(
    op: str, a: ArrayLike, v: ArrayLike, mode: str, precision: PrecisionLike,
    preferred_element_type: DType | type | str | None,
) -> Array:
    """``jnp.convolve`` / ``jnp.correlate``: one ``conv_general_dilated`` of the
    longer operand (first, as JAX swaps them) with the shorter, flipped for a
    convolution; a correlation that swapped reverses its result."""
    x, y = asarray(a), asarray(v)
    if x.ndim != 1 or y.ndim != 1:
        raise ShapeError(f"{op}: only 1-dimensional inputs are supported, got shapes {x.shape} and {y.shape}")
    if mode not in _CONV_MODES:
        raise ArgumentValueError(f"{op}: mode must be one of {list(_CONV_MODES)}, got mode={mode!r}")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise PrimitiveTypeError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}")
    px, py = _promote(x, y)
    if preferred_element_type is None:  # NumPy's convolutions are inexact
        px, py = _float(px), _float(py)
    reverse = False
    if aval_of(px).shape[0] < aval_of(py).shape[0]:
        px, py = py, px
        reverse = op == "correlate"
    if op == "correlate" and is_complex(aval_of(py).dtype):  # conj(v), as JAX's (v is px once swapped)
        px, py = (lax.conj(px), py) if reverse else (px, lax.conj(py))
    if op == "convolve":
        py = lax.rev(py, (0,))
    n, m = aval_of(px).shape[0], aval_of(py).shape[0]
    pad = {"valid": (0, 0), "same": (m // 2, m - m // 2 - 1), "full": (m - 1, m - 1)}[mode]
    out = lax.conv_general_dilated(
        lax.reshape(px, (1, 1, n)), lax.reshape(py, (1, 1, m)), (1,), [pad],
        precision=precision, preferred_element_type=preferred_element_type,
    )
    flat = lax.reshape(out, (aval_of(out).shape[2],))
    return lax.rev(flat, (0,)) if reverse else flat


def convolve(
    a: ArrayLike, v: ArrayLike, mode: str = "full", *, precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jnp.convolve``: the discrete linear convolution of two 1-d arrays.
    ``mode`` is ``'full'`` (all ``len(a) + len(v) - 1`` overlaps),
    ``'same'`` (the length of the longer, centred) or ``'valid'`` (only full
    overlaps). Integer and bool inputs give floats, as NumPy, unless
    ``preferred_element_type`` names the result's type."""
    return _conv1d("convolve", a, v, mode, precision, preferred_element_type)


def correlate(
    a: ArrayLike, v: ArrayLike, mode: str = "valid", *, precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jnp.correlate``: ``c[k] = sum_j a[k + j] * v[j]`` (real inputs), with
    ``convolve``'s modes; ``mode='valid'`` by default, as NumPy."""
    return _conv1d("correlate", a, v, mode, precision, preferred_element_type)


def linspace(
    start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
    dtype: DType | type | None = None, axis: int = 0, *, device: Device | None = None,
) -> Array:
    """``jnp.linspace``: ``num`` evenly spaced values from ``start`` to ``stop``
    (included when ``endpoint``), computed as JAX does --
    ``start * (1 - t) + stop * t`` for ``t = i / div`` -- so the ends are
    exact and ``start``/``stop`` may be traced (and differentiated)."""
    if device is not None:
        check_device("linspace", device)
    try:
        n = operator.index(num)  # refuses the floats of untyped callers
    except TypeError:
        n = -1
    if n < 0:
        raise ArgumentValueError(f"linspace: num must be a non-negative integer, got {num!r}")
    num = n
    lo, hi = asarray(start), asarray(stop)
    target = _inexact(result_type(lo, hi)) if dtype is None else canonicalize_explicit(np.dtype(dtype), "linspace")
    comp = _inexact(target)
    lo, hi = astype(lo, comp), astype(hi, comp)
    bounds = np.broadcast_shapes(lo.shape, hi.shape)
    lo, hi = broadcast_to(lo, bounds), broadcast_to(hi, bounds)
    ax = axis + len(bounds) + 1 if axis < 0 else axis
    if not 0 <= ax <= len(bounds):
        raise AxisError(f"linspace: axis {axis} is out of bounds for a result of rank {len(bounds) + 1}")
    shape = list(bounds)
    shape.insert(ax, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        t_shape = [1] * len(shape)
        t_shape[ax] = div
        part = real_dtype(comp)  # (a complex linspace steps along its real fractions)
        t = lax.div(lax.iota(part, div), np.asarray(div, part))
        t = lax.reshape(t if part == comp else lax.convert_element_type(t, comp), t_shape)
        out = add(multiply(reshape(lo, shape), subtract(np.asarray(1, comp), t)), multiply(reshape(hi, shape), t))
        if endpoint:
            out = concatenate([out, expand_dims(hi, ax)], axis=ax)
    elif num == 1:
        out = reshape(lo, shape)
    else:
        shape[ax] = 0
        return zeros(shape, target)
    if target.kind in "iu" and is_float(comp):
        out = lax.floor(out)
    return astype(out, target)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """``jnp.rot90``: ``m`` rotated by ``k`` quarter turns in the plane of
    ``axes``, from the first axis towards the second."""
    x = asarray(m)
    if len(axes) != 2:
        raise PrimitiveTypeError(f"rot90: axes must be two axes, got {axes!r}")
    a0, a1 = _axis("rot90", axes[0], x.ndim), _axis("rot90", axes[1], x.ndim)
    if a0 == a1:
        raise AxisError(f"rot90: axes must be different, got {axes!r}")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, a0), a1)
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(x, a1), perm)
    return flip(transpose(x, perm), a1)


__all__ += ["convolve", "correlate", "linspace", "newaxis", "pi", "rot90"]


# -- nonzero (the one-argument form of where) and the static-size helpers _numpy/searching.py shares --
def _concrete(op: str, x: Array, what: str) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]] | None:
    """The value of ``x`` if it is concrete, else None."""
    if isinstance(x, Tracer):
        return None
    if isinstance(x, ArrayImpl):
        return np.asarray(x)
    return None


def _need_static(op: str, what: str) -> ConcretizationError:
    return ConcretizationError(
        f"{op}: the output's shape depends on the values of a traced array; pass a static {what} "
        f"(jnp.{op}(..., {what}=N)) to use it under jit, vmap or grad"
    )


def _fill_tuple(op: str, fill_value: ArrayLike | tuple[ArrayLike, ...] | None, ndim: int) -> tuple[ArrayLike, ...] | None:
    if fill_value is None:
        return None
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * ndim
    if len(fills) != ndim or builtins.any(np.shape(np.asarray(f)) != () for f in fills):
        raise PrimitiveTypeError(f"{op}: fill_value must be a scalar or a tuple of length {ndim}; got {fill_value!r}")
    return fills


def _static_size(op: str, what: str, v: object, least: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or int(v) < least:
        raise PrimitiveTypeError(f"{op}: {what} must be a static integer of at least {least}, got {v!r}")
    return int(v)


def nonzero(a: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> tuple[Array, ...]:
    """``jnp.nonzero``: the indices of the nonzero elements, one array per axis
    (default integer type). With ``size``, exactly that many (padded with
    ``fill_value``, default 0, or cut); without it the input must be concrete."""
    x = asarray(a)
    if x.ndim == 0:
        raise PrimitiveTypeError(
            "nonzero: Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead."
        )
    fills = _fill_tuple("nonzero", fill_value, x.ndim)
    mask = x if x.dtype == _bool else not_equal(x, zeros((), x.dtype))
    d = default_int()
    if size is None:
        value = _concrete("nonzero", mask, "size")
        if value is None:
            raise _need_static("nonzero", "size")
        return tuple(asarray(i.astype(d)) for i in np.nonzero(value))
    k = _static_size("nonzero", "size", size, 0)
    if x.size == 0 or k == 0:
        return tuple(zeros((k,), d) for _ in x.shape)
    flat = lax.reshape(lax.convert_element_type(mask, d), (x.size,))
    ends = cumsum(flat)
    slots = lax.iota(d, k)
    # the k-th nonzero element is where the running count first exceeds k
    idx = sum(lax.le(lax.broadcast_in_dim(ends, (k, x.size), (1,)),
                         lax.broadcast_in_dim(slots, (k, x.size), (0,))), axis=1, dtype=d)
    strides = [int(s) for s in np.cumprod(x.shape[::-1])[::-1] // np.asarray(x.shape)]
    out = [remainder(floor_divide(idx, s), n) for s, n in zip(strides, x.shape)]
    if fills is not None:
        past = lax.ge(slots, lax.broadcast_in_dim(sum(flat), (k,), ()))
        out = [where(past, astype(asarray(f), d), o) for f, o in zip(fills, out)]
    return tuple(out)


__all__ += ["nonzero"]
