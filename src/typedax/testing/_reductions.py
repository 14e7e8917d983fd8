"""How the generator builds the reductions beyond ``reduce_sum``/``max``/``min``
(``reduce_prod``, ``reduce_and``, ``reduce_or``, ``argmax``, ``argmin``), the
cumulative reductions and the sorts."""

from __future__ import annotations

import math

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.dtypes import FLOATING, INTEGER, DType, bool_, int32
from ..core.ir import Atom, Params
from ._elementwise import ANY, NUMERIC, Built, Builder, _lit_dtypes, _result
from ._env import Env
from ._interval import BOOL_RANGE, Interval


def _operand(env: Env, allowed: frozenset[DType], min_rank: int = 0) -> Atom | None:
    lits = _lit_dtypes(env, allowed) if min_rank == 0 else []
    return env.pick(lambda a, r: a.dtype in allowed and a.ndim >= min_rank, lits)


def _axes(env: Env, ndim: int) -> tuple[int, ...]:
    order = env.draw(st.permutations(range(ndim)))
    return tuple(order[: env.draw(st.integers(0, ndim))])


def _power_bound(r: Interval, n: int) -> Interval:
    """Contains every product of at most ``n`` values of ``r`` (and 1)."""
    m = max(r.mag, 1.0) ** n if n < 64 else math.inf
    return Interval(-m, m) if r.lo < 0 else Interval(min(0.0, r.lo), m)


def reduce_prod(env: Env) -> Built | None:
    x = _operand(env, NUMERIC)
    if x is None:
        return None
    axis = _axes(env, x.aval.ndim)
    n = math.prod(x.aval.shape[a] for a in axis)
    return _result((x,), pmap({"axis": axis}), _power_bound(env.range_of(x), n))


def reduce_logical(env: Env) -> Built | None:
    """``reduce_and`` / ``reduce_or``: bool, or integers bitwise."""
    x = _operand(env, INTEGER | {bool_})
    if x is None:
        return None
    r = env.range_of(x)
    if x.aval.dtype == bool_:
        out = BOOL_RANGE
    else:
        p = float(1 << int(r.mag).bit_length())
        out = Interval(-p, p)
    return _result((x,), pmap({"axis": _axes(env, x.aval.ndim)}), out)


def arg_extremum(env: Env) -> Built | None:
    """``argmax`` / ``argmin`` over one (non-empty) axis."""
    x = _operand(env, ANY, min_rank=1)
    if x is None:
        return None
    axis = env.draw(st.integers(0, x.aval.ndim - 1))
    ints = [d for d in env.cfg.dtypes if d in INTEGER]
    index_dtype = env.draw(st.sampled_from(ints)) if ints else int32
    params: Params = pmap({"axes": (axis,), "index_dtype": index_dtype})
    return _result((x,), params, Interval(0.0, float(x.aval.shape[axis] - 1)))


def _axis_params(env: Env, ndim: int) -> tuple[int, Params]:
    axis = env.draw(st.integers(0, ndim - 1))
    return axis, pmap({"axis": axis, "reverse": env.draw(st.booleans())})


def cumsum(env: Env) -> Built | None:
    x = _operand(env, NUMERIC, min_rank=1)
    if x is None:
        return None
    axis, params = _axis_params(env, x.aval.ndim)
    n = x.aval.shape[axis]
    r = env.range_of(x)
    return _result((x,), params, Interval(min(r.lo, n * r.lo), max(r.hi, n * r.hi)))


def cumprod(env: Env) -> Built | None:
    x = _operand(env, NUMERIC, min_rank=1)
    if x is None:
        return None
    axis, params = _axis_params(env, x.aval.ndim)
    n = x.aval.shape[axis]
    return _result((x,), params, _power_bound(env.range_of(x), n))


def cum_extremum(env: Env) -> Built | None:
    """``cummax`` / ``cummin``: within the operand's range."""
    x = _operand(env, NUMERIC, min_rank=1)
    if x is None:
        return None
    return _result((x,), _axis_params(env, x.aval.ndim)[1], env.range_of(x))


def cumlogsumexp(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in FLOATING and a.ndim >= 1 and r.hi <= 3.0, [])
    if x is None:
        return None
    axis, params = _axis_params(env, x.aval.ndim)
    n = x.aval.shape[axis]
    r = env.range_of(x)
    return _result((x,), params, Interval(r.lo, r.hi + math.log(n) + 1e-3).widened())


def sort(env: Env) -> Built | None:
    """One to three operands of one shape (any dtypes), lexicographic on the first ``num_keys``."""
    x = _operand(env, ANY, min_rank=1)
    if x is None:
        return None
    ops = [x]
    for _ in range(env.draw(st.integers(0, 2))):
        y = env.pick(lambda a, r: a.shape == x.aval.shape, [])
        if y is not None:
            ops.append(y)
    params: Params = pmap({
        "dimension": env.draw(st.integers(0, x.aval.ndim - 1)),
        "is_stable": env.draw(st.booleans()),
        "num_keys": env.draw(st.integers(1, len(ops))),
    })
    return tuple(ops), params, [env.range_of(o) for o in ops]


def top_k(env: Env) -> Built | None:
    x = _operand(env, ANY, min_rank=1)
    if x is None:
        return None
    axis = env.draw(st.integers(0, x.aval.ndim - 1))
    n = x.aval.shape[axis]
    params: Params = pmap({"k": env.draw(st.integers(1, n)), "axis": axis})
    return (x,), params, [env.range_of(x), Interval(0.0, float(n - 1))]


REDUCTIONS: dict[str, Builder] = {
    "reduce_prod": reduce_prod,
    "reduce_and": reduce_logical,
    "reduce_or": reduce_logical,
    "argmax": arg_extremum,
    "argmin": arg_extremum,
    "cumsum": cumsum,
    "cumprod": cumprod,
    "cummax": cum_extremum,
    "cummin": cum_extremum,
    "cumlogsumexp": cumlogsumexp,
    "sort": sort,
    "top_k": top_k,
}
