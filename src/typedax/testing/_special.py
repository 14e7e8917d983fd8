"""How the generator builds the equations of the ``special`` and ``bitwise``
families: operands in each function's domain (away from its singularities),
params, and the ranges of the results."""

from __future__ import annotations

import math
from collections.abc import Callable

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, bool_
from ..core.ir import NO_PARAMS
from ._elementwise import NUMERIC, Built, Builder, _anywhere, _lit_dtypes, _monotone, _result, unary
from ._env import Env
from ._interval import BOOL_RANGE, Interval

BITS: frozenset[DType] = INTEGER | {bool_}


def _decreasing(f: Callable[[float], float]) -> Callable[[Interval], Interval]:
    return lambda r: Interval(f(r.hi), f(r.lo)).widened()


def _within(bound: float) -> Callable[[Interval, bool], bool]:
    return lambda r, s: -bound <= r.lo and r.hi <= bound


def _cosh(r: Interval) -> Interval:
    lo = 1.0 if r.lo <= 0.0 <= r.hi else math.cosh(min(abs(r.lo), abs(r.hi)))
    return Interval(lo, math.cosh(r.mag)).widened()


def _lgamma(r: Interval) -> Interval:
    # lgamma on x >= 0.1: its minimum is about -0.1215 (at x = 1.4616)
    return Interval(-0.13, max(math.lgamma(r.lo), math.lgamma(r.hi))).widened()


SPECIAL_UNARY: dict[str, Builder] = {
    "log1p": unary(FLOATING, lambda r, s: r.lo >= -0.9, _monotone(math.log1p)),
    "expm1": unary(FLOATING, lambda r, s: r.hi <= 3.0, _monotone(math.expm1)),
    "exp2": unary(FLOATING, lambda r, s: r.hi <= 4.0, _monotone(lambda v: 2.0**v)),
    "tan": unary(FLOATING, _within(1.2), _monotone(math.tan)),
    "asin": unary(FLOATING, _within(0.95), _monotone(math.asin)),
    "acos": unary(FLOATING, _within(0.95), _decreasing(math.acos)),
    "atan": unary(FLOATING, _anywhere, _monotone(math.atan)),
    "sinh": unary(FLOATING, _within(5.0), _monotone(math.sinh)),
    "cosh": unary(FLOATING, _within(5.0), _cosh),
    "asinh": unary(FLOATING, _anywhere, _monotone(math.asinh)),
    "acosh": unary(FLOATING, lambda r, s: r.lo >= 1.1, _monotone(math.acosh)),
    "atanh": unary(FLOATING, _within(0.9), _monotone(math.atanh)),
    "erf": unary(FLOATING, _anywhere, _monotone(math.erf)),
    "erfc": unary(FLOATING, _anywhere, _decreasing(math.erfc)),
    "erf_inv": unary(FLOATING, _within(0.9), lambda r: Interval(-1.2, 1.2)),
    "lgamma": unary(FLOATING, lambda r, s: r.lo >= 0.1, _lgamma),
    "digamma": unary(FLOATING, lambda r, s: r.lo >= 0.1, lambda r: Interval(-10.5, max(1.0, math.log(r.hi + 1.0))).widened()),
    "sign": unary(NUMERIC, _anywhere, lambda r: Interval(-1.0, 1.0)),
    "is_finite": unary(FLOATING, _anywhere, lambda r: BOOL_RANGE),
}


def round_(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in FLOATING, _lit_dtypes(env, FLOATING))
    if x is None:
        return None
    r = env.range_of(x)
    method = env.draw(st.sampled_from([0, 1]))
    return _result((x,), pmap({"rounding_method": method}), Interval(math.floor(r.lo), math.ceil(r.hi)))


def sinc_maclaurin(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in FLOATING, _lit_dtypes(env, FLOATING))
    if x is None:
        return None
    k = env.draw(st.integers(0, 6))
    c = 0.0 if k % 2 else (-1.0) ** (k // 2) / (k + 1)
    return _result((x,), pmap({"k": k}), Interval(c, c).widened())


def _binary(
    allowed: frozenset[DType],
    left_ok: Callable[[ShapedArray, Interval, bool], bool],
    right_ok: Callable[[ShapedArray, Interval, bool], bool],
    image: Callable[[Interval, Interval, ShapedArray], Interval],
) -> Builder:
    def build(env: Env) -> Built | None:
        smooth = env.cfg.smooth
        x = env.pick(lambda a, r: a.dtype in allowed and left_ok(a, r, smooth), _lit_dtypes(env, allowed))
        if x is None:
            return None
        y = env.pick_partner(x.aval, lambda r: right_ok(x.aval, r, smooth))
        if y is None:
            return None
        return _result((x, y), NO_PARAMS, image(env.range_of(x), env.range_of(y), x.aval))

    return build


def _any(a: ShapedArray, r: Interval, smooth: bool) -> bool:
    return True


def _bits_hull(a: Interval, b: Interval, t: ShapedArray) -> Interval:
    """and/or/xor of integers in [-2**k, 2**k - 1] stay there; of bools, bools."""
    if t.dtype == bool_:
        return BOOL_RANGE
    k = max(1, math.ceil(math.log2(max(a.mag, b.mag) + 1.0)))
    return Interval(-(2.0**k), 2.0**k - 1.0)


def _shift_left(a: Interval, b: Interval, t: ShapedArray) -> Interval:
    top = max(0.0, b.hi)
    return Interval.hull([0.0, a.lo, a.hi, a.lo * 2.0**top, a.hi * 2.0**top])


def not_(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in BITS, _lit_dtypes(env, BITS))
    if x is None:
        return None
    r = env.range_of(x)
    out = BOOL_RANGE if x.aval.dtype == bool_ else Interval(-r.hi - 1.0, -r.lo - 1.0)
    return _result((x,), NO_PARAMS, out)


BITWISE: dict[str, Builder] = {
    "not": not_,
    "and": _binary(BITS, _any, _any, _bits_hull),
    "or": _binary(BITS, _any, _any, _bits_hull),
    "xor": _binary(BITS, _any, _any, _bits_hull),
    # amounts of any sign (negative ones shift every bit out); small enough to stay bounded
    "shift_left": _binary(INTEGER, lambda a, r, s: r.mag <= 8.0, lambda a, r, s: r.hi <= 4.0, _shift_left),
    # a negative operand shifted right logically is huge: only non-negative ones
    "shift_right_logical": _binary(INTEGER, lambda a, r, s: r.lo >= 0.0, _any, lambda a, b, t: Interval(0.0, a.hi)),
    "shift_right_arithmetic": _binary(INTEGER, _any, _any, lambda a, b, t: Interval(min(a.lo, -1.0), max(a.hi, 0.0))),
    "population_count": unary(INTEGER, _anywhere, lambda r: Interval(0.0, 64.0)),
    "clz": unary(INTEGER, _anywhere, lambda r: Interval(0.0, 64.0)),
}


def _away_from_origin(a: ShapedArray, r: Interval, smooth: bool) -> bool:
    return not smooth or r.lo >= 0.1


SPECIAL: dict[str, Builder] = {
    **SPECIAL_UNARY,
    "round": round_,
    "sinc_maclaurin": sinc_maclaurin,
    # atan2(x, y): smooth where y > 0 (away from the cut along y <= 0, x = 0)
    "atan2": _binary(FLOATING, _any, _away_from_origin, lambda a, b, t: Interval(-math.pi, math.pi).widened()),
    "nextafter": _binary(FLOATING, _any, _any, lambda a, b, t: a.widened()),
    **BITWISE,
}

#: Not float-valued, and not smooth (jumps, or a JVP JAX does not define).
NOT_FLOAT_VALUED: frozenset[str] = frozenset({"is_finite"} | set(BITWISE))
#: (``sinc_maclaurin``'s JVP is sinc's next Maclaurin term, not its own derivative)
NOT_SMOOTH: frozenset[str] = NOT_FLOAT_VALUED | {"round", "sign", "nextafter", "sinc_maclaurin"}
