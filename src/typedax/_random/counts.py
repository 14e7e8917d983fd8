"""The samplers of counts, each a ``while_loop`` over the whole array as
JAX's: ``poisson`` (Knuth's algorithm or Hörmann's transformed rejection),
``binomial`` (inversion or BTRS) and ``multinomial`` (a ``scan`` of
binomials). Builds on ``base``, ``keys`` and ``samplers``."""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, FLOATING, canonicalize_explicit, default_float, default_int, int_range
from ..core.errors import RandomKeyError
from ..core.trace import aval_of
from ..jitting import jit
from .base import (
    DTypeLike,
    KeyLike,
    Shape,
    _bcast,
    _check_shape,
    _const,
    _float_dtype,
    _float_param_shape,
    _inexact_dtype,
    _int_dtype,
    _key_of,
    _no_tangent,
    _shape,
)
from .keys import _split, _split_jit
from .samplers import _uniform_impl


def _loop_bound(max_iters: int) -> tuple[DType, int]:
    """The dtype and bound of a while loop's iteration counter (``i < max_iters``)."""
    it = default_int()
    return it, min(max_iters, int_range(it)[1])


def _poisson_knuth(key: Array, lam: Array, shape: tuple[int, ...], dtype: DType, max_iters: int) -> Array:
    """Knuth's algorithm over the whole array at once, as JAX's: count the
    uniforms (float32) whose running log-product stays above ``-lam``."""
    f32 = np.dtype(np.float32)
    it, bound = _loop_bound(max_iters)
    neg_lam = lax.neg(lam)
    one = tnp.ones(shape, dtype)

    def body(c: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, k, rng, log_prod = c
        ks = _split(rng, (2,))
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, one), k)
        u = _uniform_impl(ks[1], _const(0.0, f32), _const(1.0, f32), shape, f32)
        return lax.add(i, _const(1, it)), k, ks[0], lax.add(log_prod, lax.log(u))

    def cond(c: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.logical_and(tnp.any(lax.gt(c[3], neg_lam)), lax.lt(c[0], _const(bound, it)))

    init = (tnp.zeros((), it), tnp.zeros(shape, dtype), key, tnp.zeros(shape, f32))
    k = lax.while_loop(cond, body, init)[1]
    return lax.sub(k, one)


def _poisson_rejection(key: Array, lam: Array, shape: tuple[int, ...], dtype: DType, max_iters: int) -> Array:
    """Hörmann's transformed rejection (PTRS), as JAX's: all elements draw
    each round, and each keeps its first accepted proposal."""
    f = aval_of(lam).dtype
    it, bound = _loop_bound(max_iters)

    def c(v: float) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
        return _const(v, f)

    log_lam = lax.log(lam)
    b = lax.add(c(0.931), lax.mul(c(2.53), lax.sqrt(lam)))
    a = lax.add(c(-0.059), lax.mul(c(0.02483), b))
    inv_alpha = lax.add(c(1.1239), lax.div(c(1.1328), lax.sub(b, c(3.4))))
    v_r = lax.sub(c(0.9277), lax.div(c(3.6224), lax.sub(b, c(2.0))))

    def body(st: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, k_out, accepted, rng = st
        ks = _split(rng, (3,))
        u = lax.sub(_uniform_impl(ks[1], c(0.0), c(1.0), shape, f), c(0.5))
        v = _uniform_impl(ks[2], c(0.0), c(1.0), shape, f)
        u_shifted = lax.sub(c(0.5), lax.abs(u))
        k = lax.floor(lax.add(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2.0), a), u_shifted), b), u), lam),
                              c(0.43)))
        s = lax.log(lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(u_shifted, u_shifted)), b)))
        t_ = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, c(1.0))))
        accept1 = tnp.logical_and(lax.ge(u_shifted, c(0.07)), lax.le(v, v_r))
        reject = tnp.logical_or(lax.lt(k, c(0.0)),
                                tnp.logical_and(lax.lt(u_shifted, c(0.013)), lax.gt(v, u_shifted)))
        accept = tnp.logical_or(accept1, tnp.logical_and(tnp.logical_not(reject), lax.le(s, t_)))
        return (lax.add(i, _const(1, it)), lax.select(accept, k, k_out), tnp.logical_or(accepted, accept),
                ks[0])

    def cond(st: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.logical_and(tnp.any(tnp.logical_not(st[2])), lax.lt(st[0], _const(bound, it)))

    init = (tnp.zeros((), it), tnp.full(shape, -1.0, f), tnp.zeros(shape, np.dtype(np.bool_)), key)
    k = lax.while_loop(cond, body, init)[1]
    return lax.convert_element_type(k, dtype)


def _poisson_impl(key: Array, lam: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    f32 = np.dtype(np.float32)
    lam = lax.convert_element_type(_bcast(lam, shape), f32)
    use_knuth = tnp.logical_or(lax.ne(lam, lam), lax.lt(lam, _const(10.0, f32)))
    lam_knuth = lax.select(use_knuth, lam, tnp.zeros(shape, f32))
    # PTRS accepts at least 89% of proposals for large rates: a large one for
    # the elements Knuth's algorithm serves
    lam_rejection = lax.select(use_knuth, tnp.full(shape, 1e5, f32), lam)
    max_iters = int_range(dtype)[1]
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lax.eq(lam, tnp.zeros(shape, f32)), tnp.zeros(shape, dtype), result)


_poisson_jit = jit(_poisson_impl, static_argnums=(2, 3))


def poisson(key: KeyLike, lam: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Poisson(lam) integers (``jax.random.poisson``; default int dtype).

    As JAX's: ``lam`` is taken in float32; rates below 10 (and NaN) by
    Knuth's algorithm, the others by Hörmann's transformed rejection, both
    looping over the whole array (so an element's value depends on the shape
    it was drawn in, as in JAX); the counter of either loop stops at the
    dtype's largest value. ``lam == 0`` gives 0, a NaN rate -1. Integers:
    the derivative with respect to ``lam`` is zero."""
    data, _ = _key_of("poisson", key)
    d = _int_dtype("poisson", dtype)
    s = _float_param_shape("poisson", shape, lam)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    # counts: their derivative is zero (JAX's too), so the rate enters the
    # loops without a tangent
    return _poisson_jit(data, _no_tangent(lam), s, d)


_STIRLING_TAIL = (
    0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
    0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
    0.00925546218271273, 0.00833056343336287,
)


def _stirling_approx_tail(k: Array) -> Array:
    """log(k!) minus its Stirling approximation: a table for k <= 9, a series
    above (as JAX's, the series of k clamped to 9)."""
    d = aval_of(k).dtype
    use_table = lax.le(k, _const(9.0, d))
    k = lax.clamp(_const(0.0, d), k, _const(9.0, d))
    kp1 = lax.add(k, _const(1.0, d))
    kp1sq = lax.mul(kp1, kp1)
    inner = lax.sub(_const(1.0 / 360, d), lax.div(_const(1.0 / 1260, d), kp1sq))
    approx = lax.div(lax.sub(_const(1.0 / 12, d), lax.div(inner, kp1sq)), kp1)
    idx = lax.convert_element_type(lax.floor(k), np.dtype(np.int32))
    table = tnp.asarray(np.asarray(_STIRLING_TAIL, d))
    return lax.select(use_table, table[idx], approx)


def _binomial_inversion(key: Array, count: Array, prob: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    """The number of geometric(prob) waiting times that fit in ``count`` trials."""
    f = aval_of(prob).dtype
    log1minusprob = lax.log1p(lax.neg(prob))
    one = tnp.ones(shape, f)

    def body(c: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        num_geom, geom_sum, rng = c
        ks = _split(rng, (2,))
        num_geom = lax.select(lax.le(geom_sum, count), lax.add(num_geom, one), num_geom)
        u = _uniform_impl(ks[0], _const(0.0, f), _const(1.0, f), shape, f)
        geom = lax.ceil(lax.div(lax.log(u), log1minusprob))
        return num_geom, lax.add(geom_sum, geom), ks[1]

    def cond(c: tuple[Array, Array, Array]) -> Array:
        return tnp.any(lax.le(c[1], count))

    k = lax.while_loop(cond, body, (tnp.zeros(shape, f), tnp.zeros(shape, f), key))[0]
    return lax.convert_element_type(lax.sub(k, one), dtype)


def _btrs(key: Array, count: Array, prob: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    """Hörmann's transformed rejection with squeeze (BTRS), as JAX's."""
    f = aval_of(prob).dtype

    def c(v: float) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
        return _const(v, f)

    one_minus_p = lax.sub(c(1.0), prob)
    stddev = lax.sqrt(lax.mul(lax.mul(count, prob), one_minus_p))
    b = lax.add(c(1.15), lax.mul(c(2.53), stddev))
    a = lax.add(lax.add(c(-0.0873), lax.mul(c(0.0248), b)), lax.mul(c(0.01), prob))
    cc = lax.add(lax.mul(count, prob), c(0.5))
    v_r = lax.sub(c(0.92), lax.div(c(4.2), b))
    r = lax.div(prob, one_minus_p)
    alpha = lax.mul(lax.add(c(2.83), lax.div(c(5.1), b)), stddev)
    m = lax.floor(lax.mul(lax.add(count, c(1.0)), prob))

    def body(st: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k_out, accepted, rng = st
        ks = _split(rng, (3,))
        u = _uniform_impl(ks[1], c(0.0), c(1.0), shape, f)
        v = _uniform_impl(ks[2], c(0.0), c(1.0), shape, f)
        u = lax.sub(u, c(0.5))
        us = lax.sub(c(0.5), lax.abs(u))
        accept1 = tnp.logical_and(lax.ge(us, c(0.07)), lax.le(v, v_r))
        k = lax.floor(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2.0), a), us), b), u), cc))
        reject = tnp.logical_or(lax.lt(k, c(0.0)), lax.gt(k, count))
        v = lax.log(lax.div(lax.mul(v, alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
        cm1 = lax.add(lax.sub(count, m), c(1.0))
        ck1 = lax.add(lax.sub(count, k), c(1.0))
        ub = lax.add(lax.mul(lax.add(m, c(0.5)), lax.log(lax.div(lax.add(m, c(1.0)), lax.mul(r, cm1)))),
                     lax.mul(lax.add(count, c(1.0)), lax.log(lax.div(cm1, ck1))))
        ub = lax.add(ub, lax.mul(lax.add(k, c(0.5)), lax.log(lax.div(lax.mul(r, ck1), lax.add(k, c(1.0))))))
        ub = lax.add(ub, _stirling_approx_tail(m))
        ub = lax.add(ub, _stirling_approx_tail(lax.sub(count, m)))
        ub = lax.sub(ub, _stirling_approx_tail(k))
        ub = lax.sub(ub, _stirling_approx_tail(lax.sub(count, k)))
        accept = tnp.logical_or(accept1, tnp.logical_and(tnp.logical_not(reject), lax.le(v, ub)))
        return lax.select(accept, k, k_out), tnp.logical_or(accepted, accept), ks[0]

    def cond(st: tuple[Array, Array, Array]) -> Array:
        return tnp.any(tnp.logical_not(st[1]))

    init = (tnp.full(shape, -1.0, f), tnp.zeros(shape, np.dtype(np.bool_)), key)
    return lax.convert_element_type(lax.while_loop(cond, body, init)[0], dtype)


def _binomial_impl(key: Array, count: ArrayLike, prob: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    f = _inexact_dtype(prob)
    prob = _bcast(lax.convert_element_type(prob, f), shape)
    count = _bcast(lax.convert_element_type(count, f), shape)

    def full(v: float) -> Array:
        return tnp.full(shape, v, f)

    p_lt_half = lax.lt(prob, full(0.5))
    q = lax.select(p_lt_half, prob, lax.sub(full(1.0), prob))
    count_nan_or_neg = tnp.logical_or(lax.ne(count, count), lax.lt(count, full(0.0)))
    count_inf = tnp.isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = lax.lt(q, full(0.0))
    q = lax.select(tnp.logical_or(q_is_nan, q_l_0), full(0.01), q)
    use_inversion = tnp.logical_or(count_nan_or_neg, lax.le(lax.mul(count, q), full(10.0)))
    count = lax.floor(count)  # as np.random.binomial for a float count
    count_inv = lax.select(use_inversion, count, full(0.0))
    count_btrs = lax.select(use_inversion, full(1e4), count)
    q_btrs = lax.select(use_inversion, full(0.5), q)
    samples = lax.select(use_inversion, _binomial_inversion(key, count_inv, q, shape, dtype),
                         _btrs(key, count_btrs, q_btrs, shape, dtype))
    invalid = tnp.logical_or(tnp.logical_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, tnp.full(shape, np.nan, dtype), samples)
    samples = lax.select(tnp.logical_and(count_inf, tnp.logical_not(invalid)), tnp.full(shape, np.inf, dtype),
                         samples)
    keep = tnp.logical_or(tnp.logical_or(p_lt_half, count_nan_or_neg), tnp.logical_or(q_is_nan, count_inf))
    return lax.select(keep, samples, lax.sub(lax.convert_element_type(count, dtype), samples))


_binomial_jit = jit(_binomial_impl, static_argnums=(3, 4))


def binomial(key: KeyLike, n: ArrayLike, p: ArrayLike, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Binomial(n, p) counts as floats (``jax.random.binomial``; default float dtype).

    As JAX's: computed in ``p``'s float type (the default float for an
    integer ``p``), ``n`` floored; by inversion (counting geometric waiting
    times) where ``n * min(p, 1 - p) <= 10`` and by transformed rejection
    (BTRS) elsewhere, over the whole array. A NaN or negative ``n`` or an
    invalid ``p`` gives NaN, an infinite ``n`` infinity. Counts: the
    derivative with respect to ``n`` and ``p`` is zero, as JAX's. The BTRS
    bound uses JAX's Stirling tail, whose series is evaluated at ``min(k, 9)``
    (JAX clamps ``k`` before it), so that the counts stay JAX's."""
    data, _ = _key_of("binomial", key)
    d = _float_dtype("binomial", dtype)
    s = _float_param_shape("binomial", shape, n, p)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _binomial_jit(data, _no_tangent(n), _no_tangent(p), s, d)


def multinomial(key: KeyLike, n: ArrayLike, p: ArrayLike, *, shape: Shape | None = None,
                dtype: DTypeLike | None = None, unroll: int | bool = 1) -> Array:
    """Counts of ``n`` trials over the outcomes of ``p`` (last axis)
    (``jax.random.multinomial``): a scan over the outcomes drawing each count
    as a binomial of what remains.

    As JAX's code (not its docstring), ``shape`` is the whole result shape,
    outcomes last: ``p`` broadcasts to it and ``n`` to ``shape[:-1]``; the
    default is ``p.shape``. The result has ``dtype`` (default float).
    ``unroll`` is accepted for JAX's signature; typedax's ``scan`` does not
    unroll, which changes no value."""
    data, _ = _key_of("multinomial", key)
    if not isinstance(cast(object, unroll), (bool, int, np.integer)):  # a traced or float unroll
        raise RandomKeyError(f"multinomial: unroll must be a Python integer or bool, got {unroll!r}")
    d = default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "multinomial")
    ft = tnp.result_type(n, p)
    ft = ft if ft in FLOATING else default_float()
    pa = aval_of(p)
    if pa.ndim < 1:
        raise RandomKeyError(f"multinomial requires p.ndim >= 1 (outcomes on the last axis), got p.ndim == {pa.ndim}")
    s = pa.shape if shape is None else _shape("multinomial", shape)
    if not s:
        raise RandomKeyError("multinomial: shape must have at least one dimension (the outcomes)")
    _check_shape("multinomial", s, pa.shape)
    _check_shape("multinomial", s[:-1], aval_of(n).shape)
    nn = _bcast(lax.convert_element_type(n, ft), s[:-1])
    pp = tnp.moveaxis(_bcast(lax.convert_element_type(p, ft), s), -1, 0)
    remaining = lax.cumsum(pp, 0, reverse=True)
    ratios = tnp.divide(pp, tnp.where(lax.eq(remaining, tnp.zeros_like(remaining)), tnp.ones_like(remaining),
                                      remaining))
    keys = _split_jit(data, (s[-1],))

    def step(remainder: Array, ratio_key: tuple[Array, Array]) -> tuple[Array, Array]:
        ratio, k = ratio_key
        count = binomial(k, remainder, tnp.clip(ratio, 0, 1), dtype=aval_of(remainder).dtype)
        return lax.sub(remainder, count), count

    _, counts = lax.scan(step, nn, (ratios, keys))
    return tnp.astype(tnp.moveaxis(counts, 0, -1), d)
