"""Elementwise primitives: unary math, binary arithmetic, comparisons,
``select_n`` and ``convert_element_type``.

Binary primitives demand operands of one shape and one dtype (as ``jax.lax``
does); ``typedax.numpy`` broadcasts and promotes before it binds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, bool_, int32
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray, Params, Primitive
from ..core.rules import PRIMITIVES
from ._params import get_dtype, get_int

NUMERIC: frozenset[DType] = FLOATING | INTEGER
ANY_DTYPE: frozenset[DType] = NUMERIC | {bool_}

UnaryFn = Callable[[NDArray], object]
BinaryFn = Callable[[NDArray, NDArray], object]


def _types(avals: Sequence[ShapedArray]) -> str:
    return ", ".join(a.str_short() for a in avals)


def _check_arity(name: str, avals: Sequence[ShapedArray], n: int) -> None:
    if len(avals) != n:
        raise PrimitiveTypeError(f"{name} takes {n} operand(s), got {len(avals)}: ({_types(avals)})")


def _unary(name: str, fn: UnaryFn, allowed: frozenset[DType]) -> Primitive:
    kinds = "/".join(sorted(d.name for d in allowed))

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x = args[0]
        return [np.asarray(fn(x), dtype=x.dtype)]

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _check_arity(name, avals, 1)
        (x,) = avals
        if x.dtype not in allowed:
            raise PrimitiveTypeError(f"{name} accepts {kinds} operands, got {x.str_short()}")
        return [x]

    return PRIMITIVES.add(Primitive(name, impl, abstract_eval))


def _binary(name: str, fn: BinaryFn, allowed: frozenset[DType], out: DType | None) -> Primitive:
    kinds = "/".join(sorted(d.name for d in allowed))

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x, y = args
        return [np.asarray(fn(x, y), dtype=out or x.dtype)]

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _check_arity(name, avals, 2)
        x, y = avals
        if x != y:
            raise PrimitiveTypeError(
                f"{name} requires operands of one shape and dtype, got ({_types(avals)})"
            )
        if x.dtype not in allowed:
            raise PrimitiveTypeError(f"{name} accepts {kinds} operands, got ({_types(avals)})")
        return [x if out is None else ShapedArray(x.shape, out)]

    return PRIMITIVES.add(Primitive(name, impl, abstract_eval))


def _logistic(x: NDArray) -> object:
    return 1.0 / (1.0 + np.exp(np.subtract(np.zeros((), x.dtype), x)))


def _div(x: NDArray, y: NDArray) -> object:
    if x.dtype.kind == "f":
        return np.divide(x, y)
    # integer division rounds toward zero, as XLA's does
    with np.errstate(divide="ignore"):
        q = np.floor_divide(x, y)
        fix = (q < 0) & (q * y != x)
    return q + fix.astype(x.dtype)


def _neg(x: NDArray) -> object:
    return np.subtract(np.zeros((), x.dtype), x)


neg_p = _unary("neg", _neg, NUMERIC)
sin_p = _unary("sin", np.sin, FLOATING)
cos_p = _unary("cos", np.cos, FLOATING)
exp_p = _unary("exp", np.exp, FLOATING)
log_p = _unary("log", np.log, FLOATING)
tanh_p = _unary("tanh", np.tanh, FLOATING)
logistic_p = _unary("logistic", _logistic, FLOATING)
sqrt_p = _unary("sqrt", np.sqrt, FLOATING)

add_p = _binary("add", np.add, NUMERIC, None)
sub_p = _binary("sub", np.subtract, NUMERIC, None)
mul_p = _binary("mul", np.multiply, NUMERIC, None)
div_p = _binary("div", _div, NUMERIC, None)
max_p = _binary("max", np.maximum, ANY_DTYPE, None)
min_p = _binary("min", np.minimum, ANY_DTYPE, None)
pow_p = _binary("pow", np.power, FLOATING, None)

greater_p = _binary("greater", np.greater, ANY_DTYPE, bool_)
less_p = _binary("less", np.less, ANY_DTYPE, bool_)
ge_p = _binary("ge", np.greater_equal, ANY_DTYPE, bool_)
le_p = _binary("le", np.less_equal, ANY_DTYPE, bool_)
eq_p = _binary("eq", np.equal, ANY_DTYPE, bool_)
ne_p = _binary("ne", np.not_equal, ANY_DTYPE, bool_)


# -- integer_pow: x ** y for a static integer y ----------------------------
def _integer_pow_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    (x,) = args
    y = get_int("integer_pow", params, "y")
    if y >= 0:
        return [np.asarray(np.power(x, y), dtype=x.dtype)]
    return [np.asarray(1 / np.power(x, -y), dtype=x.dtype)]


def _integer_pow_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("integer_pow", avals, 1)
    (x,) = avals
    y = get_int("integer_pow", params, "y")
    if x.dtype not in NUMERIC:
        raise PrimitiveTypeError(f"integer_pow accepts numeric operands, got {x.str_short()}")
    if y < 0 and x.dtype in INTEGER:
        raise PrimitiveTypeError(
            f"integer_pow of an integer operand {x.str_short()} needs y >= 0, got y={y}"
        )
    return [x]


integer_pow_p = PRIMITIVES.add(Primitive("integer_pow", _integer_pow_impl, _integer_pow_abstract))


# -- select_n(which, *cases): cases[which] elementwise ----------------------
def _select_n_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    which, *cases = args
    if len(cases) == 1:
        return [np.array(cases[0])]
    if which.dtype == np.bool_:
        return [np.asarray(np.where(which, cases[1], cases[0]), dtype=cases[0].dtype)]
    idx = np.broadcast_to(which.astype(np.int64), cases[0].shape)
    return [np.asarray(np.choose(idx, cases), dtype=cases[0].dtype)]


def _select_n_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if len(avals) < 2:
        raise PrimitiveTypeError(f"select_n needs a selector and at least one case, got ({_types(avals)})")
    which, *cases = avals
    if which.dtype not in (bool_, int32):
        raise PrimitiveTypeError(f"select_n selector must be bool or int32, got {which.str_short()}")
    if which.dtype == bool_ and len(cases) > 2:
        raise PrimitiveTypeError(f"select_n with a bool selector takes at most 2 cases, got {len(cases)}")
    if any(c != cases[0] for c in cases):
        raise PrimitiveTypeError(f"select_n cases must have one type, got ({_types(cases)})")
    if which.shape not in ((), cases[0].shape):
        raise PrimitiveTypeError(
            f"select_n selector shape must be () or the cases' shape, got ({_types(avals)})"
        )
    return [cases[0]]


select_n_p = PRIMITIVES.add(Primitive("select_n", _select_n_impl, _select_n_abstract))


# -- convert_element_type ----------------------------------------------------
def _convert_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    return [np.asarray(args[0]).astype(new_dtype)]


def _convert_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("convert_element_type", avals, 1)
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    return [ShapedArray(avals[0].shape, new_dtype)]


convert_element_type_p = PRIMITIVES.add(
    Primitive("convert_element_type", _convert_impl, _convert_abstract)
)
