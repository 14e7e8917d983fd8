"""How the generator builds each slicing and shaping equation (and ``clamp``).

Every result dimension stays positive (other builders assume non-empty
operands); size-0 slices and pads are covered by the property tests."""

from __future__ import annotations

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, int32
from ..core.ir import NO_PARAMS, Atom, Lit, Params
from ._elementwise import ANY, NUMERIC, Built, Builder, _lit_dtypes, _result
from ._env import Env
from ._interval import Interval


def _operand(env: Env) -> Atom | None:
    return env.pick(lambda a, r: True, _lit_dtypes(env, ANY))


def _hull(env: Env, atoms: tuple[Atom, ...]) -> Interval:
    return Interval.hull(x for a in atoms for x in (env.range_of(a).lo, env.range_of(a).hi))


def slice_(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    start: list[int] = []
    limit: list[int] = []
    strides: list[int] = []
    for n in x.aval.shape:
        lo = env.draw(st.integers(0, n - 1))
        start.append(lo)
        limit.append(env.draw(st.integers(lo + 1, n)))
        strides.append(env.draw(st.integers(1, 3)))
    st_param = None if env.draw(st.booleans()) and all(s == 1 for s in strides) else tuple(strides)
    params: Params = pmap(
        {"start_indices": tuple(start), "limit_indices": tuple(limit), "strides": st_param}
    )
    return _result((x,), params, env.range_of(x))


def _index_dtype(env: Env) -> DType:
    ints = [d for d in env.cfg.dtypes if d in INTEGER]
    return env.draw(st.sampled_from(ints)) if ints else int32


def _starts(env: Env, shape: tuple[int, ...]) -> tuple[Atom, ...]:
    """Literal start indices, some out of range (the primitives clamp them).
    Literals only: a batched start index needs ``gather``."""
    dtype = _index_dtype(env)
    return tuple(Lit.of(env.draw(st.integers(-2, n + 1)), dtype) for n in shape)


def dynamic_slice(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    sizes = tuple(env.draw(st.integers(1, n)) for n in x.aval.shape)
    return _result((x, *_starts(env, x.aval.shape)), pmap({"slice_sizes": sizes}), env.range_of(x))


def dynamic_update_slice(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    xa = x.aval

    def fits(a: ShapedArray, r: Interval) -> bool:
        return a.dtype == xa.dtype and a.ndim == xa.ndim and all(u <= n for u, n in zip(a.shape, xa.shape))

    update = env.pick(fits, [xa.dtype] if xa.ndim == 0 else [])
    if update is None:
        return None
    ins = (x, update, *_starts(env, xa.shape))
    return _result(ins, NO_PARAMS, _hull(env, (x, update)))


def concatenate(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.ndim >= 1, [])
    if x is None:
        return None
    xa = x.aval
    d = env.draw(st.integers(0, xa.ndim - 1))

    def fits(a: ShapedArray, r: Interval) -> bool:
        return a.dtype == xa.dtype and a.ndim == xa.ndim and all(
            i == d or m == n for i, (m, n) in enumerate(zip(a.shape, xa.shape))
        )

    ops: list[Atom] = [x]
    for _ in range(env.draw(st.integers(0, 2))):
        y = env.pick(fits, [])
        if y is not None:
            ops.append(y)
    if sum(o.aval.shape[d] for o in ops) > 2 * env.cfg.max_dim:
        ops = ops[:1]
    return _result(tuple(ops), pmap({"dimension": d}), _hull(env, tuple(ops)))


def pad(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    pv = env.pick_like(ShapedArray((), x.aval.dtype), lambda r: True)
    if pv is None:
        return None
    config: list[tuple[int, int, int]] = []
    for n in x.aval.shape:
        it = env.draw(st.integers(0, 2))
        lo = env.draw(st.integers(-1, 2))
        hi = env.draw(st.integers(-1, 2))
        size = lo + hi + n + (n - 1) * it
        if size < 1 or size > 3 * env.cfg.max_dim:
            lo, hi = max(lo, 0), max(hi, 0)
            if lo + hi + n + (n - 1) * it > 3 * env.cfg.max_dim:
                lo, hi, it = 0, 0, 0
        config.append((lo, hi, it))
    return _result((x, pv), pmap({"padding_config": tuple(config)}), _hull(env, (x, pv)))


def rev(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    order = env.draw(st.permutations(range(x.aval.ndim)))
    dims = tuple(order[: env.draw(st.integers(0, x.aval.ndim))])
    return _result((x,), pmap({"dimensions": dims}), env.range_of(x))


def iota(env: Env) -> Built | None:
    allowed = FLOATING if env.cfg.float_only else NUMERIC
    dtypes = [d for d in env.cfg.dtypes if d in allowed]
    if not dtypes:
        return None
    dtype = env.draw(st.sampled_from(dtypes))
    rank = env.draw(st.integers(1, max(env.cfg.max_rank, 1)))
    shape = tuple(env.draw(st.integers(1, env.cfg.max_dim)) for _ in range(rank))
    d = env.draw(st.integers(0, rank - 1))
    params: Params = pmap({"dtype": dtype, "shape": shape, "dimension": d})
    return _result((), params, Interval(0.0, float(shape[d] - 1)))


def squeeze(env: Env) -> Built | None:
    x = _operand(env)
    if x is None:
        return None
    ones = [i for i, n in enumerate(x.aval.shape) if n == 1]
    dims = tuple(sorted(env.draw(st.lists(st.sampled_from(ones), unique=True)))) if ones else ()
    return _result((x,), pmap({"dimensions": dims}), env.range_of(x))


def clamp(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in NUMERIC, _lit_dtypes(env, NUMERIC))
    if x is None:
        return None
    xa = x.aval

    def bound() -> Atom | None:
        like = xa if xa.ndim and env.draw(st.booleans()) else ShapedArray((), xa.dtype)
        return env.pick_like(like, lambda r: True)

    lo, hi = bound(), bound()
    if lo is None or hi is None:
        return None
    return _result((lo, x, hi), NO_PARAMS, _hull(env, (lo, x, hi)))


SLICING: dict[str, Builder] = {
    "slice": slice_,
    "dynamic_slice": dynamic_slice,
    "dynamic_update_slice": dynamic_update_slice,
    "concatenate": concatenate,
    "pad": pad,
    "rev": rev,
    "iota": iota,
    "squeeze": squeeze,
    "clamp": clamp,
}
