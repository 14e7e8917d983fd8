"""How the generator builds the windowed reductions (``reduce_window_sum``,
``_max``, ``_min``, the general ``reduce_window`` with an ``add`` or ``max``
body jaxpr) and the two ``select_and_*`` primitives of max pooling's
derivatives.

Windows are small (1 to 3 per dimension), strides 1 or 2, dilations 1 or
2. Where padding holds an infinity (max and min, the select primitives)
the generator pads less than a window and leaves the operand undilated, so
every window holds an element of the operand and every result is finite.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, DType
from ..core.ir import Eqn, Jaxpr, Lit, Param, Params, Var
from ..primitives import elementwise as _ew
from ..primitives.windowed import Window, dilate_shape
from ._elementwise import ANY, NUMERIC, Built, Builder, _lit_dtypes, _result
from ._env import Env, real_val
from ._interval import Interval


def _hull(*rs: Interval) -> Interval:
    return Interval.hull(x for r in rs for x in (r.lo, r.hi))


def _window(env: Env, shape: tuple[int, ...], finite_padding: bool) -> Window:
    dims, strides, pads, base, wdil = [], [], [], [], []
    for n in shape:
        b = 1 if finite_padding else env.draw(st.integers(1, 2))
        r = env.draw(st.integers(1, 2))
        k = env.draw(st.integers(1, 3))
        eff = dilate_shape((k,), (r,))[0]
        most = eff - 1 if finite_padding else 2
        lo, hi = env.draw(st.integers(0, most)), env.draw(st.integers(0, most))
        if finite_padding and r > 1:  # a dilated window might skip every element of a short operand
            lo = hi = 0
        size = dilate_shape((n,), (b,))[0] + lo + hi
        if eff > size:  # the window must fit: shrink it to one element, pad up to it
            k, r, eff = 1, 1, 1
            hi += max(0, 1 - size)
        dims.append(k)
        wdil.append(r)
        base.append(b)
        pads.append((lo, hi))
        strides.append(env.draw(st.integers(1, 2)))
    return Window(tuple(dims), tuple(strides), tuple(pads), tuple(base), tuple(wdil))


def _params(w: Window, *extra: tuple[str, Param]) -> Params:
    return pmap({**dict(w.items()), **dict(extra)})


def _monoid(kind: str) -> Builder:
    """``reduce_window_sum`` (numbers), ``_max`` / ``_min`` (any dtype)."""

    def build(env: Env) -> Built | None:
        allowed = NUMERIC if kind == "sum" else ANY
        x = env.pick(lambda a, r: a.dtype in allowed, _lit_dtypes(env, allowed))
        if x is None:
            return None
        w = _window(env, x.aval.shape, finite_padding=kind != "sum")
        r = env.range_of(x)
        if kind == "sum":
            k = w.size()
            out = Interval(k * min(r.lo, 0.0), k * max(r.hi, 0.0))
        else:
            out = r
        return _result((x,), _params(w), out)

    return build


def _body(kind: str, dtype: DType) -> Jaxpr:
    """``{ lambda a b . let c = add a b in ( c ) }`` (or ``max``) on scalars of ``dtype``."""
    s = ShapedArray((), dtype)
    a, b, c = Var(s), Var(s), Var(s)
    prim = _ew.add_p if kind == "add" else _ew.max_p
    return Jaxpr((a, b), (Eqn(prim, (a, b), pmap(), (c,)),), (c,))


def reduce_window(env: Env) -> Built | None:
    """The general primitive, an ``add`` or ``max`` body and an init literal
    that need not be its identity (so it stays the general primitive)."""
    x = env.pick(lambda a, r: a.dtype in NUMERIC, _lit_dtypes(env, NUMERIC))
    if x is None:
        return None
    d = x.aval.dtype
    kind = env.draw(st.sampled_from(["add", "max"]))
    init = Lit.of(env.draw(st.integers(0 if d.kind == "u" else -2, 2)), d)
    w = _window(env, x.aval.shape, finite_padding=False)
    r = _hull(env.range_of(x), Interval.point(real_val(init)))
    k = w.size() + 1
    out = Interval(k * min(r.lo, 0.0), k * max(r.hi, 0.0)) if kind == "add" else r
    return _result((x, init), _params(w, ("jaxpr", _body(kind, d))), out)


def select_and_gather_add(env: Env) -> Built | None:
    """Tangents and an operand of one float type: the selected tangents."""
    x = env.pick(lambda a, r: a.dtype in FLOATING, _lit_dtypes(env, FLOATING))
    if x is None:
        return None
    t = env.pick_like(x.aval, lambda r: True)
    if t is None:
        return None
    w = _window(env, x.aval.shape, finite_padding=True)
    sel = env.draw(st.sampled_from(["ge", "le"]))
    return _result((t, x), _params(w, ("select_prim", sel)), _hull(env.range_of(t), Interval.point(0.0)))


def _fit(env: Env, n: int, m: int) -> tuple[int, int, tuple[int, int]]:
    """A window size, stride and padding taking ``n`` elements to ``m`` windows."""
    s = env.draw(st.integers(1, 2))
    base = (m - 1) * s
    k = max(1, n - base - s + 1)
    total = max(n, k + base) - n  # padding: ``k + base <= n + total < k + base + s``
    lo = env.draw(st.integers(0, total))
    return k, s, (lo, total - lo)


def select_and_scatter_add(env: Env) -> Built | None:
    """A source of one value per window, scattered onto the operand's
    selected elements (the window fitted to the source's shape)."""
    # rank >= 1: XLA aborts compiling a rank-0 select_and_scatter (JAX, the reference, emits one)
    s = env.pick(lambda a, r: a.dtype in FLOATING and a.ndim >= 1 and 0 not in a.shape, [])
    if s is None:
        return None
    x = env.pick(lambda a, r: a.dtype == s.aval.dtype and a.ndim == s.aval.ndim and 0 not in a.shape, [])
    if x is None:
        return None
    fits = [_fit(env, n, m) for n, m in zip(x.aval.shape, s.aval.shape)]
    nd = x.aval.ndim
    w = Window(tuple(f[0] for f in fits), tuple(f[1] for f in fits), tuple(f[2] for f in fits),
               (1,) * nd, (1,) * nd)
    params: Params = pmap({**dict(w.items(dilations=False)), "select_prim": env.draw(st.sampled_from(["ge", "le"]))})
    r = env.range_of(s)
    n = math.prod(s.aval.shape)
    return _result((s, x), params, Interval(n * min(r.lo, 0.0), n * max(r.hi, 0.0)))


WINDOWED: dict[str, Builder] = {
    "reduce_window_sum": _monoid("sum"),
    "reduce_window_max": _monoid("max"),
    "reduce_window_min": _monoid("min"),
    "reduce_window": reduce_window,
    "select_and_gather_add": select_and_gather_add,
    "select_and_scatter_add": select_and_scatter_add,
}

#: Kinks where elements tie (max, min, selection); the general one may take a max.
NOT_SMOOTH: frozenset[str] = frozenset(WINDOWED) - {"reduce_window_sum"}
