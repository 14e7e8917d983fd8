"""Bitwise primitives, with every rule: ``not``, ``and``, ``or``, ``xor`` (bool
and integers), ``shift_left``, ``shift_right_logical``,
``shift_right_arithmetic``, ``population_count`` and ``clz`` (count leading
zeros) (integers), JAX's names.

Shifts have XLA's semantics: the shift amount is read as unsigned, and an
amount of at least the bit width (so every negative amount) shifts every bit
out -- 0 for ``shift_left`` and ``shift_right_logical``, the sign (0 or -1)
for ``shift_right_arithmetic``. Results wrap (``shift_left`` of a large value
loses its high bits). Their tangents are zero: the results are integers or
bools.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.dtypes import INTEGER, DType, bool_
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import Family, Rules, Tangent
from ..core.trace import Value, bind1
from ..hlo import HloValue, LoweringContext
from .elementwise import _binary, _binary_batch, _unary, elementwise_batch, lower_binary
from .structural import zero_jvp

BITS: frozenset[DType] = INTEGER | {bool_}


def _unary_rules(op: Callable[[HloValue], HloValue]) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
            return [op(args[0])]

        return Rules(jvp=zero_jvp(prim), batch=elementwise_batch(prim), lower=lower)

    return rules


def _binary_rules(op: Callable[[HloValue, HloValue], HloValue]) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        return Rules(jvp=zero_jvp(prim), batch=_binary_batch(prim), lower=lower_binary(op))

    return rules


def _unsigned(x: NDArray) -> NDArray:
    """The same bits read as unsigned (a copy if ``x`` is not contiguous)."""
    return np.ascontiguousarray(x).reshape(x.shape).view(f"u{x.dtype.itemsize}")


def _not(x: NDArray) -> object:
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


def _too_far(x: NDArray, y: NDArray) -> tuple[NDArray, NDArray]:
    """Where the (unsigned) amount is at least the bit width, and the amounts
    with those replaced by 0."""
    bits = x.dtype.itemsize * 8
    far = np.greater_equal(_unsigned(y), bits)
    return far, np.where(far, np.zeros((), y.dtype), y)


def _shift_left(x: NDArray, y: NDArray) -> object:
    far, safe = _too_far(x, y)
    shifted = np.asarray(np.left_shift(_unsigned(x), _unsigned(safe)))
    return np.where(far, np.zeros((), x.dtype), shifted.view(x.dtype))


def _shift_right_logical(x: NDArray, y: NDArray) -> object:
    far, safe = _too_far(x, y)
    shifted = np.asarray(np.right_shift(_unsigned(x), _unsigned(safe)))
    return np.where(far, np.zeros((), x.dtype), shifted.view(x.dtype))


def _shift_right_arithmetic(x: NDArray, y: NDArray) -> object:
    """XLA's arithmetic shift: the bits read as signed (unsigned operands too)."""
    far, safe = _too_far(x, y)
    sx = np.ascontiguousarray(x).reshape(x.shape).view(f"i{x.dtype.itemsize}")
    sign = np.where(np.less(sx, 0), np.asarray(-1, sx.dtype), np.zeros((), sx.dtype))
    out = np.asarray(np.where(far, sign, np.right_shift(sx, _unsigned(safe).astype(sx.dtype))))
    return out.view(x.dtype).reshape(out.shape)


def _population_count(x: NDArray) -> object:
    return np.bitwise_count(_unsigned(x)).astype(x.dtype)


def _clz(x: NDArray) -> object:
    """The leading zero bits of each element (its bits read as unsigned): the
    bit width less the bit length, found by halving."""
    u = _unsigned(x).astype(np.uint64)
    length = np.zeros(x.shape, np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        high = np.right_shift(u, np.uint64(s))
        big = np.not_equal(high, 0)
        u = np.where(big, high, u)
        length = length + np.where(big, s, 0)
    length = length + np.not_equal(u, 0)
    return (x.dtype.itemsize * 8 - length).astype(x.dtype)


not_p = _unary("not", _not, BITS, _unary_rules(hlo.not_))
and_p = _binary("and", np.bitwise_and, BITS, None, _binary_rules(hlo.and_))
or_p = _binary("or", np.bitwise_or, BITS, None, _binary_rules(hlo.or_))
xor_p = _binary("xor", np.bitwise_xor, BITS, None, _binary_rules(hlo.xor))
shift_left_p = _binary("shift_left", _shift_left, INTEGER, None, _binary_rules(hlo.shift_left))
shift_right_logical_p = _binary(
    "shift_right_logical", _shift_right_logical, INTEGER, None, _binary_rules(hlo.shift_right_logical)
)
shift_right_arithmetic_p = _binary(
    "shift_right_arithmetic", _shift_right_arithmetic, INTEGER, None, _binary_rules(hlo.shift_right_arithmetic)
)
population_count_p = _unary("population_count", _population_count, INTEGER, _unary_rules(hlo.popcnt))
clz_p = _unary("clz", _clz, INTEGER, _unary_rules(hlo.count_leading_zeros))

FAMILY = Family(
    "bitwise",
    (
        not_p, and_p, or_p, xor_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p,
        population_count_p, clz_p,
    ),
)
