"""The base of the ``lax`` layer: the primitive-level functions that bind
one primitive each, named and shaped like ``jax.lax`` (``typedax.lax``
re-exports them).

Operands of binary operations must share shape and dtype; a Python scalar
takes the dtype of the array operand (weak typing), so ``lax.mul(x_f32, 2.0)``
stays float32. For NumPy-style broadcasting and promotion use
``typedax.numpy``.
"""

from __future__ import annotations

import builtins
import functools
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar as _TypeVar
from typing import overload as _overload

import numpy as np

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from .. import tree as _tree
from ..core.dtypes import COMPLEX, DType, canonicalize_explicit, is_inexact
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Params, Primitive
from ..core.explicit import given_type  # explicit sharding: out_sharding=
from ..core.sharding import NamedSharding, PartitionSpec  # explicit sharding: out_sharding=
from ..jitting.explicit_sharding import reshard  # explicit sharding: out_sharding=
from ..control_flow.common import trace_callable
from ..interpreters.staging import JaxprTracer  # _binop's fast case
from ..control_flow.reduce_windows import bind_reduce_window
from ..core.trace import Tracer, Value, as_value, aval_of, bind1, current_trace, scalar_as
from ..primitives import (
    abs_p,
    add_p,
    broadcast_p,
    ceil_p,
    convert_element_type_p,
    cos_p,
    div_p,
    dot_general_p,
    eq_p,
    exp_p,
    floor_p,
    ge_p,
    greater_p,
    integer_pow_p,
    le_p,
    less_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    pow_p,
    rem_p,
    reduce_max_p,
    reduce_min_p,
    reduce_sum_p,
    reshape_p,
    select_n_p,
    sin_p,
    sqrt_p,
    sub_p,
    tanh_p,
    transpose_p,
)
from ..primitives._params import params_of as _params
from ..primitives.bitcast import bitcast_convert_type_p, reduce_precision_p
from ..primitives.elementwise import stop_gradient_p
from ..primitives.dot import DimensionNumbers, dot_params
from ..primitives._precision import PrecisionLike, canonicalize_precision
from ..primitives import bitwise as _bw
from ..primitives import complex_numbers as _cx
from ..primitives import special as _sp
from ..primitives import windowed as _win
from ..primitives.special import RoundingMethod



_PYTHON_SCALARS = frozenset({float, int, bool, builtins.complex})  # (hashed: a set, not a tuple)


def _is_python_scalar(x: Value) -> bool:
    return type(x) in _PYTHON_SCALARS


def _weak(x: Value, like: Value) -> Value:
    """A Python scalar takes the dtype of the array it meets."""
    if _is_python_scalar(x) and not _is_python_scalar(like):
        return scalar_as(x, aval_of(like))  # type: ignore[arg-type]  # a Python scalar, checked above
    return x


def _convert_weak(x: ArrayLike, new_dtype: DType) -> Array:
    """``x`` (weakly typed) in ``new_dtype``, still weak: how promotion
    widens a weak value for a weak result (JAX's ``_convert_element_type``
    with ``weak_type=True``)."""
    return bind1(convert_element_type_p, (x,), _params(("new_dtype", new_dtype), ("weak_type", True)))


def _unop(prim: Primitive, x: ArrayLike) -> Array:
    # ``bind1``, without its call (staging answers process_primitive1 directly)
    return current_trace().process_primitive1(prim, (x,), NO_PARAMS)  # type: ignore[return-value]  # bind's results are Arrays (core/trace.py: bind)


def _scalar_as(prim: Primitive, x: bool | int | float | builtins.complex, like: ShapedArray) -> Value:
    """A Python scalar operand in the other operand's dtype -- only where that
    loses nothing (a float never becomes an integer: ``lax.add(int32, 2.5)``
    truncated to 3 before; jax.lax refuses it). Weak if ``like`` is."""
    dtype = like.dtype
    kind = dtype.kind
    if (type(x) is float and kind in "iub") or (type(x) is int and kind == "b") or (
        type(x) is builtins.complex and kind != "c"
    ):
        raise PrimitiveTypeError(
            f"{prim.name}: a Python {type(x).__name__} ({x!r}) cannot meet an operand of dtype "
            f"{dtype.name} in lax (jax.lax requires one dtype); convert it, or use "
            "typedax.numpy, which promotes"
        )
    return scalar_as(x, like)


def _binop(prim: Primitive, x: ArrayLike, y: ArrayLike) -> Array:
    ax: ShapedArray
    ay: ShapedArray
    if type(x) is JaxprTracer and type(y) is JaxprTracer:  # two staged values: tracing's hot case
        ax, ay = x.ir_var.aval, y.ir_var.aval  # (aval_of's answer, without its two calls)
    else:
        # ``_weak`` on both operands, inlined (this is on every traced binary op)
        if type(x) in _PYTHON_SCALARS:
            if type(y) not in _PYTHON_SCALARS:
                x = _scalar_as(prim, x, aval_of(y))  # type: ignore[arg-type]  # type(x) checked above
        elif type(y) in _PYTHON_SCALARS:
            y = _scalar_as(prim, y, aval_of(x))  # type: ignore[arg-type]  # type(y) checked above
        ax, ay = aval_of(x), aval_of(y)
    if ax is not ay:  # (one shared type: the common case, nothing to compare)
        sx, sy = ax.shape, ay.shape
        if sx != sy and sx and sy:  # a rank-0 operand meets any shape in the primitive itself
            x, y = _broadcast_operands(prim, x, y, sx, sy)
    # ``bind1``, without its call (as _unop)
    return current_trace().process_primitive1(prim, (x, y), NO_PARAMS)  # type: ignore[return-value]  # as _unop


def _broadcast_operands(
    prim: Primitive, x: ArrayLike, y: ArrayLike, sx: tuple[int, ...], sy: tuple[int, ...]
) -> tuple[ArrayLike, ArrayLike]:
    """jax.lax's implicit broadcasting: size-1 dimensions meet the other
    operand's when the ranks are equal. (A rank-0 operand meets any shape
    without a broadcast: the binary primitives accept it, as JAX's do.)"""
    if len(sx) == len(sy) and all(a == b or a == 1 or b == 1 for a, b in zip(sx, sy)):
        shape = tuple(b if a == 1 else a for a, b in zip(sx, sy))
        return _expand_ones(x, sx, shape), _expand_ones(y, sy, shape)
    raise PrimitiveTypeError(
        f"{prim.name}: shapes {sx} and {sy} do not broadcast in lax (a rank-0 operand, or "
        "equal ranks with size-1 dimensions, do); use typedax.numpy for NumPy broadcasting"
    )


def _expand_ones(x: ArrayLike, shape: tuple[int, ...], to: tuple[int, ...]) -> ArrayLike:
    """Broadcast the size-1 dimensions of ``x`` (of ``shape``) to ``to``."""
    if shape == to:
        return x
    keep = tuple(i for i, (a, b) in enumerate(zip(shape, to)) if a == b)
    squeezed = reshape(x, tuple(shape[i] for i in keep))
    return broadcast_in_dim(squeezed, to, keep)


def _index(op: str, what: str, d: object) -> int:
    """A dimension, axis or exponent: a Python or NumPy integer, never a float
    or a bool silently truncated by ``int()``."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be integers, got {d!r} ({type(d).__name__})")
    return int(d)


def _indices(op: str, what: str, ds: Sequence[object]) -> tuple[int, ...]:
    return tuple([_index(op, what, d) for d in ds])


def neg(x: ArrayLike) -> Array:
    return _unop(neg_p, x)


def sin(x: ArrayLike) -> Array:
    return _unop(sin_p, x)


def cos(x: ArrayLike) -> Array:
    return _unop(cos_p, x)


def exp(x: ArrayLike) -> Array:
    return _unop(exp_p, x)


def log(x: ArrayLike) -> Array:
    return _unop(log_p, x)


def tanh(x: ArrayLike) -> Array:
    return _unop(tanh_p, x)


def logistic(x: ArrayLike) -> Array:
    return _unop(logistic_p, x)


def sqrt(x: ArrayLike) -> Array:
    return _unop(sqrt_p, x)


def floor(x: ArrayLike) -> Array:
    return _unop(floor_p, x)


def ceil(x: ArrayLike) -> Array:
    return _unop(ceil_p, x)


def add(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(add_p, x, y)


def sub(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(sub_p, x, y)


def mul(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(mul_p, x, y)


def div(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(div_p, x, y)


def max(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    return _binop(max_p, x, y)


def min(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    return _binop(min_p, x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    """``x ** y`` (``jax.lax.pow``): ``y`` of ``x``'s float or complex dtype,
    or of an integer dtype (``lax.pow(f32[3, 4], i32[])`` is float32, as
    JAX's: the exponent is converted to ``x``'s dtype, as JAX's lowering
    does; its tangent is zero)."""
    if type(y) not in _PYTHON_SCALARS and aval_of(y).dtype.kind in "iu":
        xv = x
        if type(x) in _PYTHON_SCALARS:
            if type(x) is not float and type(x) is not builtins.complex:
                raise PrimitiveTypeError(
                    f"pow: the first argument must have an inexact dtype (float or complex), got a Python {type(x).__name__}")
            xv = as_value(x)
        xd = aval_of(xv).dtype
        if is_inexact(xd):
            ya = aval_of(y)
            yv = _convert_weak(y, xd) if ya.weak_type else convert_element_type(y, xd)
            return _binop(pow_p, xv, yv)
    return _binop(pow_p, x, y)


def rem(x: ArrayLike, y: ArrayLike) -> Array:
    """The remainder of ``x / y`` with the sign of ``x`` (``jax.lax.rem``, C's ``fmod``)."""
    return _binop(rem_p, x, y)


def gt(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(greater_p, x, y)


def lt(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(less_p, x, y)


def ge(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(ge_p, x, y)


def le(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(le_p, x, y)


def eq(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(eq_p, x, y)


def ne(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(ne_p, x, y)


def abs(x: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    return _unop(abs_p, x)


def integer_pow(x: ArrayLike, y: int) -> Array:
    return bind1(integer_pow_p, (x,), _params(("y", _index("integer_pow", "the exponent y", y))))


def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:
    return bind1(select_n_p, (which, *cases), NO_PARAMS)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    """``on_true`` where ``pred`` else ``on_false`` (``jax.lax.select``)."""
    return bind1(select_n_p, (pred, on_false, on_true), NO_PARAMS)


def convert_element_type(x: ArrayLike, new_dtype: DType | type) -> Array:
    d = canonicalize_explicit(np.dtype(new_dtype), "convert_element_type")  # x64 off: JAX's warning
    if d not in COMPLEX and (type(x) is builtins.complex or aval_of(x).dtype in COMPLEX):
        warnings.warn(  # JAX's (NumPy's ComplexWarning): the real part is kept
            "Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning, stacklevel=2
        )
    return bind1(convert_element_type_p, (x,), _params(("new_dtype", d)))


_Tree = _TypeVar("_Tree")


def stop_gradient(x: _Tree) -> _Tree:
    """``x``, with a zero derivative (``jax.lax.stop_gradient``): every float
    leaf of the pytree ``x`` goes through the ``stop_gradient`` primitive;
    integer and bool leaves, which have no derivative, are returned as they are."""

    def stop(leaf: object) -> object:
        if isinstance(leaf, (Array, np.ndarray, np.generic, float, builtins.complex)) and is_inexact(aval_of(leaf).dtype):
            return bind1(stop_gradient_p, (leaf,), NO_PARAMS)
        return leaf

    return _tree.map(stop, x)


def bitcast_convert_type(operand: ArrayLike, new_dtype: DType | type) -> Array:
    """The bits of ``operand`` read as ``new_dtype`` (``jax.lax.bitcast_convert_type``;
    a narrower dtype adds a trailing dimension, a wider one takes it)."""
    d = canonicalize_explicit(np.dtype(new_dtype), "bitcast_convert_type")
    return bind1(bitcast_convert_type_p, (operand,), _params(("new_dtype", d)))


def reduce_precision(operand: ArrayLike, exponent_bits: int, mantissa_bits: int) -> Array:
    """Round floats to ``exponent_bits`` / ``mantissa_bits`` (XLA's ReducePrecision)."""
    e = _index("reduce_precision", "exponent_bits", exponent_bits)
    m = _index("reduce_precision", "mantissa_bits", mantissa_bits)
    return bind1(reduce_precision_p, (operand,), _params(("exponent_bits", e), ("mantissa_bits", m)))


def broadcast(x: ArrayLike, sizes: Sequence[int]) -> Array:
    """Add leading dimensions of ``sizes`` (``jax.lax.broadcast``)."""
    shape = _indices("broadcast", "sizes", sizes) + aval_of(x).shape
    return bind1(broadcast_p, (x,), _params(("shape", shape), ("axes", tuple(range(len(sizes))))))


def broadcast_in_dim(x: ArrayLike, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Array:
    """Operand dimension ``i`` becomes output dimension ``broadcast_dimensions[i]``."""
    shape_t = _indices("broadcast_in_dim", "shape", shape)
    dims = _indices("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
    return bind1(broadcast_p, (x,), _broadcast_in_dim_params(shape_t, dims))


@functools.lru_cache(maxsize=4096)
def _broadcast_in_dim_params(shape: tuple[int, ...], dims: tuple[int, ...]) -> Params:
    if list(dims) != sorted(dims):
        raise PrimitiveTypeError(
            f"broadcast_in_dim: broadcast_dimensions={dims} must be increasing; transpose first"
        )
    axes = tuple(i for i in range(len(shape)) if i not in dims)
    return _params(("shape", shape), ("axes", axes))


def reshape(x: ArrayLike, new_sizes: Sequence[int], *, out_sharding: PartitionSpec | NamedSharding | None = None) -> Array:
    """``jax.lax.reshape``; ``out_sharding``: the result's sharding (explicit sharding)."""
    params = _params(("new_sizes", _indices("reshape", "new_sizes", new_sizes)))
    if out_sharding is not None:
        return _out_sharding(reshape_p, (x,), params, out_sharding)
    return bind1(reshape_p, (x,), params)


def _out_sharding(
    prim: Primitive, args: tuple[ArrayLike, ...], params: Params, out_sharding: PartitionSpec | NamedSharding,
) -> Array:
    """``prim`` of ``args``, its result typed and laid out as ``out_sharding``
    says, in place of what its sharding rule would say or refuse (explicit
    sharding: JAX's ``out_sharding=``)."""
    spec = out_sharding.spec if isinstance(out_sharding, NamedSharding) else out_sharding
    with given_type(prim.name, spec):
        out = bind1(prim, args, params)
    return reshard(out, out_sharding)


def typed_like(out: Array, like: ShapedArray) -> Array:
    """``out`` (made from constants: untyped) laid out and typed as ``like``
    when ``like`` is split over Explicit mesh axes: JAX's ``full_like``
    passes ``x``'s sharding to ``full``."""
    if like.sharding is None or not like.ndim:
        return out
    return reshard(out, like.sharding)


def transpose(x: ArrayLike, permutation: Sequence[int]) -> Array:
    return bind1(transpose_p, (x,), _params(("perm", _indices("transpose", "permutation", permutation))))


def reduce_sum(x: ArrayLike, axes: Sequence[int]) -> Array:
    return bind1(reduce_sum_p, (x,), _params(("axis", _indices("reduce_sum", "axes", axes))))


def reduce_max(x: ArrayLike, axes: Sequence[int]) -> Array:
    return bind1(reduce_max_p, (x,), _params(("axis", _indices("reduce_max", "axes", axes))))


def reduce_min(x: ArrayLike, axes: Sequence[int]) -> Array:
    return bind1(reduce_min_p, (x,), _params(("axis", _indices("reduce_min", "axes", axes))))


def dot_general(
    lhs: ArrayLike, rhs: ArrayLike, dimension_numbers: DimensionNumbers | None,
    precision: PrecisionLike = None, preferred_element_type: DType | type | str | None = None,
    out_sharding: PartitionSpec | NamedSharding | None = None,
) -> Array:
    """``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``; each entry a
    sequence of axes or, as jax.lax accepts, a single int. ``None`` contracts
    the last axis of ``lhs`` with the first of ``rhs`` (``lax.dot``), as JAX.
    ``precision`` and ``preferred_element_type`` as ``jax.lax.dot_general``'s
    (``None`` precision: ``config``'s ``default_matmul_precision``);
    ``out_sharding``: the result's sharding (explicit sharding: what a dot
    contracting split dimensions needs)."""
    if dimension_numbers is None:
        return dot(lhs, rhs, precision, preferred_element_type, out_sharding)
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise PrimitiveTypeError(
            "dot_general: dimension_numbers must be ((lhs_contract, rhs_contract), "
            f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}"
        ) from None

    def axes(d: object) -> tuple[int, ...]:
        if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
            return (int(d),)
        if isinstance(d, Sequence):
            return _indices("dot_general", "dimension numbers", d)
        raise PrimitiveTypeError(f"dot_general: dimension numbers must be ints, got {d!r}")

    dn = ((axes(lc), axes(rc)), (axes(lb), axes(rb)))
    params = _dot_general_params(dn, precision, preferred_element_type)
    if out_sharding is not None:  # explicit sharding
        return _out_sharding(dot_general_p, (lhs, rhs), params, out_sharding)
    return bind1(dot_general_p, (lhs, rhs), params)


def _dot_general_params(
    dn: DimensionNumbers, precision: PrecisionLike = None, preferred_element_type: DType | type | str | None = None
) -> Params:
    """The params map of a ``dot_general`` (dimension numbers normalized
    above; one shared map per value, so abstract evaluation remembers its
    result: ``memo_abstract``)."""
    pet = None
    if preferred_element_type is not None:
        pet = canonicalize_explicit(np.dtype(preferred_element_type), "dot_general")
    return dot_params(dn, canonicalize_precision(precision), pet)


def dot(
    lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
    out_sharding: PartitionSpec | NamedSharding | None = None,
) -> Array:
    """Vector/matrix product of 1-d or 2-d operands (``jax.lax.dot``)."""
    return dot_general(lhs, rhs, (((aval_of(lhs).ndim - 1,), (0,)), ((), ())), precision, preferred_element_type,
                       out_sharding)


def operands_and_inits(
    op: str, operands_name: str, inits_name: str, operands: object, init_values: object
) -> tuple[list[Value], list[object], _tree.TreeDef]:
    """The leaves of ``operands`` (as values) and of ``init_values``, and
    their one structure: ``lax.reduce``'s and ``lax.reduce_window``'s check."""
    op_leaves, op_tree = _tree.flatten(operands)
    init_leaves, init_tree = _tree.flatten(init_values)
    ops = [as_value(x, f"{op}'s {operands_name}") for x in op_leaves]
    if op_tree != init_tree or not ops:
        raise PrimitiveTypeError(
            f"{op}: {operands_name} and {inits_name} must be pytrees of one structure with at least one "
            f"array, got {op_tree} and {init_tree}"
        )
    return ops, init_leaves, op_tree


# -- windowed reductions (primitives/windowed.py) --
@_overload
def reduce_window(
    operand: ArrayLike,
    init_value: ArrayLike,
    computation: Callable[[Array, Array], ArrayLike],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array: ...
@_overload
def reduce_window(
    operand: object,
    init_value: object,
    computation: Callable[..., object],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> object: ...
def reduce_window(
    operand: object,
    init_value: object,
    computation: Callable[..., object],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> object:
    """Reduce every window of ``operand`` (an array, or a pytree of arrays of
    one shape: then the result is such a pytree) with ``computation``, starting from ``init_value`` (a scalar,
    or a pytree of them), as ``jax.lax.reduce_window``. ``padding`` is
    ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or (low, high) pairs. With
    ``lax.add`` / ``lax.max`` / ``lax.min`` and their identity (0, -inf,
    inf, or the dtype's extremes) it is the ``reduce_window_sum`` / ``_max``
    / ``_min`` primitive; any other computation is traced once on scalars
    into the general ``reduce_window`` primitive."""
    ops, init_leaves, op_tree = operands_and_inits("reduce_window", "operand", "init_value", operand, init_value)
    w = _win.window_of("reduce_window", aval_of(ops[0]).shape, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation)
    inits = [_weak(as_value(i, "reduce_window's init values"), x) for i, x in zip(init_leaves, ops)]
    monoids: dict[object, str] = {add: "add", max: "max", min: "min"}
    kind = monoids.get(computation)
    if kind is not None and len(ops) == 1 and not isinstance(inits[0], Tracer):
        d, i = aval_of(ops[0]).dtype, np.asarray(inits[0])
        if i.shape == () and i.dtype == d and i == _win.monoid_identity(kind, d):
            return bind1(_win.MONOIDS[kind], (ops[0],), _params(*w.items()))
    scalars = [ShapedArray((), aval_of(i).dtype) for i in inits]
    _, args_tree = _tree.flatten((init_value, init_value))
    closed, out_tree = trace_callable(computation, args_tree, scalars * 2, "reduce_window's computation")
    if out_tree != op_tree or closed.consts:
        raise PrimitiveTypeError(
            f"reduce_window: the computation must return the operand's structure {op_tree} and close over "
            f"no arrays, got {out_tree}" + (f" and {len(closed.consts)} array constants" if closed.consts else "")
        )
    return _tree.unflatten(op_tree, bind_reduce_window(ops, inits, closed.jaxpr, w))


# -- special functions and bitwise operations (primitives/special.py, bitwise.py) --


def log1p(x: ArrayLike) -> Array:
    return _unop(_sp.log1p_p, x)


def expm1(x: ArrayLike) -> Array:
    return _unop(_sp.expm1_p, x)


def exp2(x: ArrayLike) -> Array:
    return _unop(_sp.exp2_p, x)


def tan(x: ArrayLike) -> Array:
    return _unop(_sp.tan_p, x)


def asin(x: ArrayLike) -> Array:
    return _unop(_sp.asin_p, x)


def acos(x: ArrayLike) -> Array:
    return _unop(_sp.acos_p, x)


def atan(x: ArrayLike) -> Array:
    return _unop(_sp.atan_p, x)


def atan2(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_sp.atan2_p, x, y)


def sinh(x: ArrayLike) -> Array:
    return _unop(_sp.sinh_p, x)


def cosh(x: ArrayLike) -> Array:
    return _unop(_sp.cosh_p, x)


def asinh(x: ArrayLike) -> Array:
    return _unop(_sp.asinh_p, x)


def acosh(x: ArrayLike) -> Array:
    return _unop(_sp.acosh_p, x)


def atanh(x: ArrayLike) -> Array:
    return _unop(_sp.atanh_p, x)


def erf(x: ArrayLike) -> Array:
    return _unop(_sp.erf_p, x)


def erfc(x: ArrayLike) -> Array:
    return _unop(_sp.erfc_p, x)


def erf_inv(x: ArrayLike) -> Array:
    return _unop(_sp.erf_inv_p, x)


def lgamma(x: ArrayLike) -> Array:
    return _unop(_sp.lgamma_p, x)


def digamma(x: ArrayLike) -> Array:
    return _unop(_sp.digamma_p, x)


def round(x: ArrayLike, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO) -> Array:  # noqa: A001 - jax.lax's name
    """Round to the nearest integer: halves away from zero (default), or to
    even with ``RoundingMethod.TO_NEAREST_EVEN``."""
    method = _index("round", "rounding_method", rounding_method)
    return bind1(_sp.round_p, (x,), _params(("rounding_method", method)))


def sign(x: ArrayLike) -> Array:
    return _unop(_sp.sign_p, x)


def real(x: ArrayLike) -> Array:
    """The real part of a complex array (``jax.lax.real``)."""
    return _unop(_cx.real_p, x)


def imag(x: ArrayLike) -> Array:
    """The imaginary part of a complex array (``jax.lax.imag``)."""
    return _unop(_cx.imag_p, x)


def conj(x: ArrayLike) -> Array:
    """The complex conjugate (``jax.lax.conj``); a real float array becomes
    its complex type."""
    return _unop(_cx.conj_p, x)


def complex(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    """``x + y * 1j`` from real float parts of one dtype (``jax.lax.complex``)."""
    return _binop(_cx.complex_p, x, y)


def is_finite(x: ArrayLike) -> Array:
    return _unop(_sp.is_finite_p, x)


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Array:
    return _binop(_sp.nextafter_p, x1, x2)


def bitwise_not(x: ArrayLike) -> Array:
    return _unop(_bw.not_p, x)


def bitwise_and(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.and_p, x, y)


def bitwise_or(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.or_p, x, y)


def bitwise_xor(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.xor_p, x, y)


def shift_left(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.shift_left_p, x, y)


def shift_right_logical(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.shift_right_logical_p, x, y)


def shift_right_arithmetic(x: ArrayLike, y: ArrayLike) -> Array:
    return _binop(_bw.shift_right_arithmetic_p, x, y)


def population_count(x: ArrayLike) -> Array:
    return _unop(_bw.population_count_p, x)


def clz(x: ArrayLike) -> Array:
    """The number of leading zero bits of each element of an integer array
    (``jax.lax.clz``)."""
    return _unop(_bw.clz_p, x)

