"""How the generator builds ``gather`` and scatter equations.

Indices are an integer variable of rank >= 1 already in scope (its last
dimension is the index vector), so these equations appear only where the
generator has integer arrays: not in its float-only modes. Any index value
is valid: every mode clamps, fills or drops. Gathers fill with 0 (a finite
range); a multiplying scatter takes one update window (products of many
updates would leave every range).
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import INTEGER
from ..core.ir import Atom, Params
from ._elementwise import Built, Builder, _lit_dtypes, _result
from ._env import Env
from ._interval import Interval

_MODES = ("clip", "fill", "promise_in_bounds")


def _indices(env: Env, max_k: int) -> Atom | None:
    return env.pick(lambda a, r: a.dtype in INTEGER and a.ndim >= 1 and a.shape[-1] <= max_k, [])


def _hull(*rs: Interval) -> Interval:
    return Interval.hull(x for r in rs for x in (r.lo, r.hi))


def gather(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.ndim >= 1, _lit_dtypes(env, frozenset()))
    if x is None:
        return None
    idx = _indices(env, x.aval.ndim)
    if idx is None:
        return None
    xs = x.aval.shape
    k = idx.aval.shape[-1]
    start_map = tuple(env.draw(st.permutations(range(len(xs))))[:k])
    sizes = tuple(env.draw(st.integers(0 if d == 0 else 1, d)) for d in xs)
    collapsible = [d for d in range(len(xs)) if sizes[d] == 1]
    collapsed = tuple(sorted(d for d in collapsible if env.draw(st.booleans())))
    n_window = len(xs) - len(collapsed)
    rank = idx.aval.ndim - 1 + n_window
    offset = tuple(sorted(env.draw(st.permutations(range(rank)))[:n_window]))
    params: Params = pmap({
        "offset_dims": offset, "collapsed_slice_dims": collapsed, "start_index_map": start_map,
        "slice_sizes": sizes, "mode": env.draw(st.sampled_from(_MODES)), "fill_value": 0,
        "indices_are_sorted": False, "unique_indices": False,
    })
    return _result((x, idx), params, _hull(env.range_of(x), Interval.point(0.0)))


def _scatter(name: str) -> Builder:
    def build(env: Env) -> Built | None:
        x = env.pick(lambda a, r: a.ndim >= 1 and (name not in ("scatter-add", "scatter-mul") or a.dtype.kind != "b"),
                     _lit_dtypes(env, frozenset()))
        if x is None:
            return None
        xa = x.aval
        idx = _indices(env, xa.ndim)
        if idx is None:
            return None
        batch = idx.aval.shape[:-1]
        if name == "scatter-mul" and math.prod(batch) > 1:
            return None
        k = idx.aval.shape[-1]

        def fits(a: ShapedArray, r: Interval) -> bool:
            return (a.dtype == xa.dtype and a.shape[: len(batch)] == batch
                    and _window_dims(a.shape[len(batch):], xa.shape) is not None)

        upd = env.pick(fits, [xa.dtype] if not batch else [])
        if upd is None:
            return None
        window = upd.aval.shape[len(batch):]
        placed = _window_dims(window, xa.shape)
        assert placed is not None
        inserted = tuple(d for d in range(xa.ndim) if d not in placed)
        params: Params = pmap({
            "update_window_dims": tuple(range(len(batch), len(batch) + len(window))),
            "inserted_window_dims": inserted,
            "scatter_dims_to_operand_dims": tuple(env.draw(st.permutations(range(xa.ndim)))[:k]),
            "mode": env.draw(st.sampled_from(_MODES)),
            "indices_are_sorted": False, "unique_indices": False,
        })
        rx, ru = env.range_of(x), env.range_of(upd)
        n = math.prod(batch)
        if name == "scatter-add":
            out = Interval(rx.lo + n * min(ru.lo, 0.0), rx.hi + n * max(ru.hi, 0.0))
        elif name == "scatter-mul":
            corners = [a * b for a in (rx.lo, rx.hi) for b in (ru.lo, ru.hi)]
            out = _hull(rx, Interval(min(corners), max(corners)))
        else:
            out = _hull(rx, ru)
        return _result((x, idx, upd), params, out)

    return build


def _window_dims(window: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """Operand dimensions (increasing) that can hold the window's dimensions
    in order, the first that fit; None when they do not fit."""
    out: list[int] = []
    d = 0
    for w in window:
        while d < len(shape) and shape[d] < w:
            d += 1
        if d == len(shape):
            return None
        out.append(d)
        d += 1
    return tuple(out)


GATHER_SCATTER: dict[str, Builder] = {
    "gather": gather,
    "scatter": _scatter("scatter"),
    "scatter-add": _scatter("scatter-add"),
    "scatter-mul": _scatter("scatter-mul"),
    "scatter-min": _scatter("scatter-min"),
    "scatter-max": _scatter("scatter-max"),
}

#: They need integer index arrays, which the float-only modes never make.
NEEDS_INTEGER_ARRAYS: frozenset[str] = frozenset(GATHER_SCATTER)
