"""How the generator builds each shape-changing equation."""

from __future__ import annotations

import math
from functools import lru_cache

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.dtypes import DType
from ..core.ir import Atom, Param, Params
from ._elementwise import ANY, NUMERIC, Built, Builder, _lit_dtypes, _result
from ._env import Env
from ._interval import Interval


def _operand(env: Env, allowed: frozenset[DType]) -> Atom | None:
    return env.pick(lambda a, r: a.dtype in allowed, _lit_dtypes(env, allowed))


def broadcast(env: Env) -> Built | None:
    """New axes anywhere, and operand dimensions of size 1 stretched."""
    x = _operand(env, ANY)
    if x is None or x.aval.ndim > env.cfg.max_rank:
        return None
    cfg = env.cfg
    rank = env.draw(st.integers(x.aval.ndim, max(cfg.max_rank, x.aval.ndim)))
    order = env.draw(st.permutations(range(rank)))
    axes = tuple(sorted(order[: rank - x.aval.ndim]))
    dims = iter(x.aval.shape)
    shape: list[int] = []
    for i in range(rank):
        if i in axes:
            shape.append(env.draw(st.integers(1, cfg.max_dim)))
        else:
            d = next(dims)
            shape.append(env.draw(st.integers(1, cfg.max_dim)) if d == 1 else d)
    params: Params = pmap({"shape": tuple(shape), "axes": axes})
    return _result((x,), params, env.range_of(x))


@lru_cache(maxsize=None)
def factorizations(size: int, rank: int) -> tuple[tuple[int, ...], ...]:
    """Every shape of exactly ``rank`` positive dimensions with product ``size``."""
    if rank == 0:
        return ((),) if size == 1 else ()
    return tuple(
        (d, *rest)
        for d in range(1, size + 1)
        if size % d == 0
        for rest in factorizations(size // d, rank - 1)
    )


def reshape(env: Env) -> Built | None:
    x = _operand(env, ANY)
    if x is None:
        return None
    shapes = [s for r in range(env.cfg.max_rank + 1) for s in factorizations(x.aval.size, r)]
    if not shapes:
        return None
    new_sizes = env.draw(st.sampled_from(shapes))
    return _result((x,), pmap({"new_sizes": new_sizes}), env.range_of(x))


def transpose(env: Env) -> Built | None:
    x = _operand(env, ANY)
    if x is None:
        return None
    perm = tuple(env.draw(st.permutations(range(x.aval.ndim))))
    return _result((x,), pmap({"perm": perm}), env.range_of(x))


def _axes(env: Env, ndim: int) -> tuple[int, ...]:
    """Distinct axes, in any order (the primitives accept any)."""
    order = env.draw(st.permutations(range(ndim)))
    return tuple(order[: env.draw(st.integers(0, ndim))])


def reduce_sum(env: Env) -> Built | None:
    x = _operand(env, NUMERIC)
    if x is None:
        return None
    axis = _axes(env, x.aval.ndim)
    n = math.prod(x.aval.shape[a] for a in axis)
    r = env.range_of(x)
    return _result((x,), pmap({"axis": axis}), Interval(n * r.lo, n * r.hi))


def reduce_extremum(env: Env) -> Built | None:
    """``reduce_max`` or ``reduce_min``: the result stays in the operand's range."""
    x = _operand(env, ANY)
    if x is None:
        return None
    return _result((x,), pmap({"axis": _axes(env, x.aval.ndim)}), env.range_of(x))


def dot_general(env: Env) -> Built | None:
    """Pairs of equal-sized dimensions become batch or contracting dimensions;
    the result's rank stays at most ``max_rank``."""
    lhs = env.pick(lambda a, r: a.dtype in NUMERIC, _lit_dtypes(env, NUMERIC))
    if lhs is None:
        return None
    rhs = env.pick(lambda a, r: a.dtype == lhs.aval.dtype, [lhs.aval.dtype])
    if rhs is None:
        return None
    ls, rs = lhs.aval.shape, rhs.aval.shape
    pairs = [(i, j) for i in range(len(ls)) for j in range(len(rs)) if ls[i] == rs[j]]
    chosen = env.draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    lc: list[int] = []
    rc: list[int] = []
    lb: list[int] = []
    rb: list[int] = []
    for i, j in chosen:
        if i in lc or i in lb or j in rc or j in rb:
            continue
        batch = env.draw(st.booleans())
        (lb if batch else lc).append(i)
        (rb if batch else rc).append(j)
    if len(ls) + len(rs) - len(lb) - 2 * len(lc) > env.cfg.max_rank:
        return None
    a, b = env.range_of(lhs), env.range_of(rhs)
    csize = math.prod(ls[i] for i in lc)
    corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    out = Interval(csize * min(corners), csize * max(corners))
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    names = ("DEFAULT", "HIGH", "HIGHEST")
    precision = env.draw(st.none() | st.tuples(st.sampled_from(names), st.sampled_from(names)))
    params: dict[str, Param] = {"dimension_numbers": dn, "precision": precision, "preferred_element_type": None}
    return _result((lhs, rhs), pmap(params), out)


STRUCTURAL: dict[str, Builder] = {
    "broadcast": broadcast,
    "reshape": reshape,
    "transpose": transpose,
    "reduce_sum": reduce_sum,
    "reduce_max": reduce_extremum,
    "reduce_min": reduce_extremum,
    "dot_general": dot_general,
}
