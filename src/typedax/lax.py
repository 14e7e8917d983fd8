"""Primitive-level operations, named and shaped like ``jax.lax``.

Operands of binary operations must share shape and dtype; a Python scalar
takes the dtype of the array operand (weak typing), so ``lax.mul(x_f32, 2.0)``
stays float32. For NumPy-style broadcasting and promotion use
``typedax.numpy``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from pyrsistent import pmap

from .core.dtypes import DType
from .core.errors import PrimitiveTypeError
from .core.ir import NO_PARAMS, NDArray, Params, Primitive
from .core.trace import Tracer, Value, aval_of, bind1
from .primitives import (
    abs_p,
    add_p,
    broadcast_p,
    convert_element_type_p,
    cos_p,
    div_p,
    dot_general_p,
    eq_p,
    exp_p,
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
    reduce_sum_p,
    reshape_p,
    select_n_p,
    sin_p,
    sqrt_p,
    sub_p,
    tanh_p,
    transpose_p,
)
from .primitives._params import params_of as _params
from .primitives.dot import DimensionNumbers

__all__ = [
    "abs", "add", "broadcast", "broadcast_in_dim", "convert_element_type", "cos", "div",
    "dot", "dot_general", "eq", "exp", "ge", "gt", "integer_pow", "le", "log", "logistic",
    "lt", "max", "min", "mul", "ne", "neg", "pow", "reduce_max", "reduce_sum", "rem", "reshape",
    "select", "select_n", "sin", "sqrt", "sub", "tanh", "transpose",
]


_PYTHON_SCALARS = (float, int, bool)


def _is_python_scalar(x: Value) -> bool:
    return type(x) in _PYTHON_SCALARS


def _weak(x: Value, like: Value) -> Value:
    """A Python scalar takes the dtype of the array it meets."""
    if _is_python_scalar(x) and not _is_python_scalar(like):
        return np.asarray(x, dtype=aval_of(like).dtype)
    return x


def _unop(prim: Primitive, x: Value) -> Value:
    return bind1(prim, (x,), NO_PARAMS)


def _scalar_as(prim: Primitive, x: bool | int | float, dtype: DType) -> NDArray:
    """A Python scalar operand in the other operand's dtype -- only where that
    loses nothing (a float never becomes an integer: ``lax.add(int32, 2.5)``
    truncated to 3 before; jax.lax refuses it)."""
    kind = dtype.kind
    if (type(x) is float and kind in "iub") or (type(x) is int and kind == "b"):
        raise PrimitiveTypeError(
            f"{prim.name}: a Python {type(x).__name__} ({x!r}) cannot meet an operand of dtype "
            f"{dtype.name} in lax (jax.lax requires one dtype); convert it, or use "
            "typedax.numpy, which promotes"
        )
    return np.asarray(x, dtype=dtype)


def _binop(prim: Primitive, x: Value, y: Value) -> Value:
    # ``_weak`` on both operands, inlined (this is on every traced binary op)
    if type(x) in _PYTHON_SCALARS:
        if type(y) not in _PYTHON_SCALARS:
            x = _scalar_as(prim, x, aval_of(y).dtype)  # type: ignore[arg-type]  # type(x) checked above
    elif type(y) in _PYTHON_SCALARS:
        y = _scalar_as(prim, y, aval_of(x).dtype)  # type: ignore[arg-type]  # type(y) checked above
    return bind1(prim, (x, y), NO_PARAMS)


def _index(op: str, what: str, d: object) -> int:
    """A dimension, axis or exponent: a Python or NumPy integer, never a float
    or a bool silently truncated by ``int()``."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be integers, got {d!r} ({type(d).__name__})")
    return int(d)


def _indices(op: str, what: str, ds: Sequence[object]) -> tuple[int, ...]:
    return tuple([_index(op, what, d) for d in ds])


def neg(x: Value) -> Value:
    return _unop(neg_p, x)


def sin(x: Value) -> Value:
    return _unop(sin_p, x)


def cos(x: Value) -> Value:
    return _unop(cos_p, x)


def exp(x: Value) -> Value:
    return _unop(exp_p, x)


def log(x: Value) -> Value:
    return _unop(log_p, x)


def tanh(x: Value) -> Value:
    return _unop(tanh_p, x)


def logistic(x: Value) -> Value:
    return _unop(logistic_p, x)


def sqrt(x: Value) -> Value:
    return _unop(sqrt_p, x)


def add(x: Value, y: Value) -> Value:
    return _binop(add_p, x, y)


def sub(x: Value, y: Value) -> Value:
    return _binop(sub_p, x, y)


def mul(x: Value, y: Value) -> Value:
    return _binop(mul_p, x, y)


def div(x: Value, y: Value) -> Value:
    return _binop(div_p, x, y)


def max(x: Value, y: Value) -> Value:  # noqa: A001 - jax.lax's name
    return _binop(max_p, x, y)


def min(x: Value, y: Value) -> Value:  # noqa: A001 - jax.lax's name
    return _binop(min_p, x, y)


def pow(x: Value, y: Value) -> Value:  # noqa: A001 - jax.lax's name
    return _binop(pow_p, x, y)


def rem(x: Value, y: Value) -> Value:
    """The remainder of ``x / y`` with the sign of ``x`` (``jax.lax.rem``, C's ``fmod``)."""
    return _binop(rem_p, x, y)


def gt(x: Value, y: Value) -> Value:
    return _binop(greater_p, x, y)


def lt(x: Value, y: Value) -> Value:
    return _binop(less_p, x, y)


def ge(x: Value, y: Value) -> Value:
    return _binop(ge_p, x, y)


def le(x: Value, y: Value) -> Value:
    return _binop(le_p, x, y)


def eq(x: Value, y: Value) -> Value:
    return _binop(eq_p, x, y)


def ne(x: Value, y: Value) -> Value:
    return _binop(ne_p, x, y)


def abs(x: Value) -> Value:  # noqa: A001 - jax.lax's name
    return _unop(abs_p, x)


def integer_pow(x: Value, y: int) -> Value:
    return bind1(integer_pow_p, (x,), _params(("y", _index("integer_pow", "the exponent y", y))))


def select_n(which: Value, *cases: Value) -> Value:
    return bind1(select_n_p, (which, *cases), NO_PARAMS)


def select(pred: Value, on_true: Value, on_false: Value) -> Value:
    """``on_true`` where ``pred`` else ``on_false`` (``jax.lax.select``)."""
    return bind1(select_n_p, (pred, on_false, on_true), NO_PARAMS)


def convert_element_type(x: Value, new_dtype: DType | type) -> Value:
    return bind1(convert_element_type_p, (x,), _params(("new_dtype", np.dtype(new_dtype))))


def broadcast(x: Value, sizes: Sequence[int]) -> Value:
    """Add leading dimensions of ``sizes`` (``jax.lax.broadcast``)."""
    shape = _indices("broadcast", "sizes", sizes) + aval_of(x).shape
    return bind1(broadcast_p, (x,), _params(("shape", shape), ("axes", tuple(range(len(sizes))))))


def broadcast_in_dim(x: Value, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Value:
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


def reshape(x: Value, new_sizes: Sequence[int]) -> Value:
    return bind1(reshape_p, (x,), _params(("new_sizes", _indices("reshape", "new_sizes", new_sizes))))


def transpose(x: Value, permutation: Sequence[int]) -> Value:
    return bind1(transpose_p, (x,), _params(("perm", _indices("transpose", "permutation", permutation))))


def reduce_sum(x: Value, axes: Sequence[int]) -> Value:
    return bind1(reduce_sum_p, (x,), _params(("axis", _indices("reduce_sum", "axes", axes))))


def reduce_max(x: Value, axes: Sequence[int]) -> Value:
    return bind1(reduce_max_p, (x,), _params(("axis", _indices("reduce_max", "axes", axes))))


def dot_general(lhs: Value, rhs: Value, dimension_numbers: DimensionNumbers | None) -> Value:
    """``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``; each entry a
    sequence of axes or, as jax.lax accepts, a single int. ``None`` contracts
    the last axis of ``lhs`` with the first of ``rhs`` (``lax.dot``), as JAX."""
    if dimension_numbers is None:
        return dot(lhs, rhs)
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
    return bind1(dot_general_p, (lhs, rhs), pmap({"dimension_numbers": dn}))


def dot(lhs: Value, rhs: Value) -> Value:
    """Vector/matrix product of 1-d or 2-d operands (``jax.lax.dot``)."""
    return dot_general(lhs, rhs, (((aval_of(lhs).ndim - 1,), (0,)), ((), ())))


def is_tracer(x: object) -> bool:
    return isinstance(x, Tracer)


# Control flow, re-exported under jax.lax's names.
from .control_flow import cond as cond  # noqa: E402
from .control_flow import fori_loop as fori_loop  # noqa: E402
from .control_flow import scan as scan  # noqa: E402
from .control_flow import while_loop as while_loop  # noqa: E402
