"""How the generator builds each elementwise equation: operands in the
primitive's domain, params, and the ranges of the results."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeAlias

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, SIGNED, DType, bool_, int32
from ..core.ir import NO_PARAMS, Atom, Lit, Params, Var
from . import _interval as iv
from ._env import Env, always
from ._interval import BOOL_RANGE, Interval

Built: TypeAlias = tuple[tuple[Atom, ...], Params, list[Interval]]
Builder: TypeAlias = Callable[[Env], "Built | None"]
Domain: TypeAlias = Callable[[Interval, bool], bool]  # (range, smooth) -> in the domain?

NUMERIC: frozenset[DType] = FLOATING | INTEGER
ANY: frozenset[DType] = NUMERIC | {bool_}


def _lit_dtypes(env: Env, allowed: frozenset[DType]) -> list[DType]:
    return [d for d in env.cfg.dtypes if d in allowed]


def _result(ins: tuple[Atom, ...], params: Params, out: Interval) -> Built | None:
    return (ins, params, [out]) if out.bounded() else None


def _anywhere(r: Interval, smooth: bool) -> bool:
    return True


def unary(allowed: frozenset[DType], domain: Domain, image: Callable[[Interval], Interval]) -> Builder:
    def build(env: Env) -> Built | None:
        smooth = env.cfg.smooth
        x = env.pick(lambda a, r: a.dtype in allowed and domain(r, smooth), _lit_dtypes(env, allowed))
        if x is None:
            return None
        return _result((x,), NO_PARAMS, image(env.range_of(x)))

    return build


def _monotone(f: Callable[[float], float]) -> Callable[[Interval], Interval]:
    return lambda r: Interval(f(r.lo), f(r.hi)).widened()


UNARY: dict[str, Builder] = {
    "neg": unary(NUMERIC, _anywhere, lambda r: Interval(-r.hi, -r.lo)),
    "abs": unary(FLOATING | SIGNED, _anywhere, lambda r: Interval(0.0 if r.lo <= 0.0 <= r.hi else min(abs(r.lo), abs(r.hi)), r.mag)),
    "sin": unary(FLOATING, _anywhere, lambda r: Interval(-1.0, 1.0)),
    "cos": unary(FLOATING, _anywhere, lambda r: Interval(-1.0, 1.0)),
    "tanh": unary(FLOATING, _anywhere, _monotone(math.tanh)),
    "logistic": unary(FLOATING, _anywhere, _monotone(iv.logistic)),
    "exp": unary(FLOATING, lambda r, s: r.hi <= 3.0, _monotone(iv.safe_exp)),
    "log": unary(FLOATING, lambda r, s: r.lo >= 0.05, _monotone(math.log)),
    "sqrt": unary(FLOATING, lambda r, s: r.lo >= (0.05 if s else 0.0), _monotone(math.sqrt)),
    "floor": unary(FLOATING, _anywhere, lambda r: Interval(math.floor(r.lo), math.floor(r.hi))),
    "ceil": unary(FLOATING, _anywhere, lambda r: Interval(math.ceil(r.lo), math.ceil(r.hi))),
}


def binary(
    allowed: frozenset[DType],
    left_ok: Callable[[Interval], bool],
    right_ok: Callable[[ShapedArray, Interval], bool],
    image: Callable[[Interval, Interval, ShapedArray, bool], Interval],
) -> Builder:
    def build(env: Env) -> Built | None:
        x = env.pick(lambda a, r: a.dtype in allowed and left_ok(r), _lit_dtypes(env, allowed))
        if x is None:
            return None
        y = env.pick_partner(x.aval, lambda r: right_ok(x.aval, r))
        if y is None:
            return None
        same = isinstance(x, Var) and x is y
        return _result((x, y), NO_PARAMS, image(env.range_of(x), env.range_of(y), x.aval, same))

    return build


def _anything(r: Interval) -> bool:
    return True


def _any_right(a: ShapedArray, r: Interval) -> bool:
    return True


def _nonzero_divisor(a: ShapedArray, r: Interval) -> bool:
    return r.away_from_zero(1.0 if a.dtype in INTEGER else 0.1)


BINARY: dict[str, Builder] = {
    "add": binary(NUMERIC, _anything, _any_right, lambda a, b, t, s: Interval(a.lo + b.lo, a.hi + b.hi)),
    "sub": binary(NUMERIC, _anything, _any_right, lambda a, b, t, s: Interval(a.lo - b.hi, a.hi - b.lo)),
    "mul": binary(NUMERIC, _anything, _any_right, lambda a, b, t, s: iv.mul(a, b, s)),
    "div": binary(NUMERIC, _anything, _nonzero_divisor, lambda a, b, t, s: iv.div(a, b, t.dtype in INTEGER)),
    "max": binary(ANY, _anything, _any_right, lambda a, b, t, s: Interval(max(a.lo, b.lo), max(a.hi, b.hi))),
    "min": binary(ANY, _anything, _any_right, lambda a, b, t, s: Interval(min(a.lo, b.lo), min(a.hi, b.hi))),
    "pow": binary(FLOATING, lambda r: r.lo >= 0.1, _any_right, lambda a, b, t, s: iv.power(a, b)),
    # |x rem y| <= min(|x|, |y|), with x's sign
    "rem": binary(NUMERIC, _anything, _nonzero_divisor, lambda a, b, t, s: Interval(-min(a.mag, b.mag), min(a.mag, b.mag))),
}

COMPARISON: dict[str, Builder] = {
    name: binary(ANY, _anything, _any_right, lambda a, b, t, s: BOOL_RANGE)
    for name in ("greater", "less", "ge", "le", "eq", "ne")
}


def integer_pow(env: Env) -> Built | None:
    y = env.draw(st.integers(-2, 3))
    allowed = FLOATING if y < 0 else NUMERIC

    def ok(a: ShapedArray, r: Interval) -> bool:
        return a.dtype in allowed and (y >= 0 or r.away_from_zero(0.1))

    x = env.pick(ok, _lit_dtypes(env, allowed))
    if x is None:
        return None
    return _result((x,), pmap({"y": y}), iv.integer_pow(env.range_of(x), y))


def select_n(env: Env) -> Built | None:
    """Selector: bool (1 or 2 cases) or int32 with values in [0, #cases)."""
    n = env.draw(st.integers(1, 3))
    first = env.pick(lambda a, r: True, list(env.cfg.dtypes))
    if first is None:
        return None
    cases: list[Atom] = [first]
    for _ in range(n - 1):
        c = env.pick_like(first.aval, always)
        if c is None:
            return None
        cases.append(c)
    kinds: list[DType] = [bool_] if n <= 2 else []
    if int32 in env.cfg.dtypes and not env.cfg.float_only:
        kinds.append(int32)
    if not kinds:
        return None
    sd = env.draw(st.sampled_from(kinds))
    which = _selector(env, sd, n, first.aval.shape)
    out = Interval.hull(x for c in cases for x in (env.range_of(c).lo, env.range_of(c).hi))
    return _result((which, *cases), NO_PARAMS, out)


def _selector(env: Env, sd: DType, n: int, shape: tuple[int, ...]) -> Atom:
    shapes = {(), shape}
    top = float(n - 1)

    def ok(a: ShapedArray, r: Interval) -> bool:
        return a.dtype == sd and a.shape in shapes and 0.0 <= r.lo and r.hi <= top

    cands = [] if env.cfg.float_only else [v for v in env.vars if ok(v.aval, env.ranges[v])]
    if cands and env.draw(st.integers(0, 3)) > 0:
        return env.draw(st.sampled_from(cands))
    if sd == bool_:
        return Lit.of(env.draw(st.booleans()))
    return Lit.of(env.draw(st.integers(0, n - 1)), int32)


def convert_element_type(env: Env) -> Built | None:
    x = env.pick(lambda a, r: True, list(env.cfg.dtypes))
    if x is None:
        return None
    new = env.draw(st.sampled_from(list(env.cfg.dtypes)))
    r = env.range_of(x)
    if new == bool_:
        out = BOOL_RANGE
    elif new in INTEGER and x.aval.dtype in FLOATING:
        out = Interval(float(math.trunc(r.lo)), float(math.trunc(r.hi)))
    else:
        out = r
    return _result((x,), pmap({"new_dtype": new}), out)


ELEMENTWISE: dict[str, Builder] = {
    **UNARY,
    **BINARY,
    **COMPARISON,
    "integer_pow": integer_pow,
    "select_n": select_n,
    "convert_element_type": convert_element_type,
    "stop_gradient": unary(ANY, _anywhere, lambda r: r),  # the identity; its derivative is zero
}
