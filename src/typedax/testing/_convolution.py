"""How the generator builds ``conv_general_dilated`` equations.

The input is a numeric variable of rank >= 3 (at least one spatial
dimension) and the kernel a variable of the same type and rank (possibly the
same one). Every layout of the two (``lhs_spec`` and ``rhs_spec`` any
permutations), with a feature or batch group count, that makes the kernel
fit is a candidate; one is drawn, with an ``out_spec``, strides, dilations
and padding (negative entries included) under which the dilated kernel still
fits the padded input. The result's range is the contraction size times the
hull of the operands' products (and 0, for the padding).
"""

from __future__ import annotations

import itertools
import math

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER
from ..core.ir import Params
from ._elementwise import Built, _result
from ._env import Env
from ._interval import Interval

_NUMERIC = FLOATING | INTEGER


def _fits(lhs: ShapedArray, rhs: ShapedArray, ls: tuple[int, ...], rs: tuple[int, ...], g: int, b: int) -> bool:
    feat, batch = lhs.shape[ls[1]], lhs.shape[ls[0]]
    out_f, in_f = rhs.shape[rs[0]], rhs.shape[rs[1]]
    if feat % g or feat // g != in_f or out_f % g or batch % b or out_f % b:
        return False
    # the undilated kernel fits the unpadded input (padding is drawn to keep it so)
    return all(rhs.shape[rs[i]] <= lhs.shape[ls[i]] for i in range(2, lhs.ndim))


def _dilate(d: int, k: int) -> int:
    return max(0, 1 + k * (d - 1))


def conv_general_dilated(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in _NUMERIC and a.ndim >= 3 and a.size > 0, [])
    if x is None:
        return None
    xa = x.aval
    w = env.pick(lambda a, r: a.dtype == xa.dtype and a.ndim == xa.ndim and a.size > 0, [])
    if w is None:
        return None
    wa = w.aval
    nd = xa.ndim
    perms = list(itertools.permutations(range(nd)))
    cands = [
        (ls, rs, g, b)
        for ls in perms for rs in perms
        for g, b in ((1, 1), (2, 1), (3, 1), (1, 2), (1, 3))
        if _fits(xa, wa, ls, rs, g, b)
    ]
    if not cands:
        return None
    ls, rs, g, b = env.draw(st.sampled_from(cands))
    out_spec = tuple(env.draw(st.permutations(range(nd))))
    n = nd - 2
    strides, lhs_dil, rhs_dil, padding = [], [], [], []
    for i in range(n):
        size, k = xa.shape[ls[2 + i]], wa.shape[rs[2 + i]]
        ld = env.draw(st.integers(1, 2))
        rd = env.draw(st.integers(1, 2))
        room = _dilate(size, ld) - _dilate(k, rd)  # padding may take this much away
        if room < -4:  # a window wider than the input by more than padding (at most 2 + 2) adds
            return None
        lo = env.draw(st.integers(max(-1, -room - 2), 2))
        hi = env.draw(st.integers(max(-1, -room - lo), 2))
        strides.append(env.draw(st.integers(1, 2)))
        lhs_dil.append(ld)
        rhs_dil.append(rd)
        padding.append((lo, hi))
    params: Params = pmap({
        "window_strides": tuple(strides),
        "padding": tuple(padding),
        "lhs_dilation": tuple(lhs_dil),
        "rhs_dilation": tuple(rhs_dil),
        "dimension_numbers": (tuple(ls), tuple(rs), out_spec),
        "feature_group_count": g,
        "batch_group_count": b,
        "precision": None,
        "preferred_element_type": None,
    })
    rx, rw = env.range_of(x), env.range_of(w)
    corners = [p * q for p in (rx.lo, rx.hi) for q in (rw.lo, rw.hi)]
    terms = wa.shape[rs[1]] * math.prod(wa.shape[d] for d in rs[2:])
    out = Interval(terms * min(min(corners), 0.0), terms * max(max(corners), 0.0))
    return _result((x, w), params, out.widened() if xa.dtype in FLOATING else out)


CONVOLUTION = {"conv_general_dilated": conv_general_dilated}
