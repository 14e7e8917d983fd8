"""Gamma and what is made from it: ``gamma`` and ``loggamma`` (Marsaglia
and Tsang's rejection sampler, one ``while_loop`` per element under
``vmap``, with JAX's implicit reparameterization derivative), ``beta``,
``dirichlet``, ``chisquare``, ``t``, ``f``, ``generalized_normal`` and
``ball``. Builds on ``base``, ``keys`` and ``samplers``."""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..api_forward import vmap
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType
from ..core.errors import RandomKeyError
from ..core.trace import Tracer, aval_of
from ..jitting import jit
from .base import (
    DTypeLike,
    KeyLike,
    Shape,
    _bcast,
    _check_safe_cast,
    _check_shape,
    _const,
    _float_bits,
    _float_dtype,
    _float_param_shape,
    _key_of,
    _shape,
    _static_int,
    _tiny,
)
from .keys import _split, split
from .samplers import _exponential_impl, _normal_impl, _uniform_impl, exponential, normal, rademacher


def chisquare(key: KeyLike, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Chi-square(df) floats, as 2 * gamma(df / 2) (``jax.random.chisquare``)."""
    d = _float_dtype("chisquare", dtype)
    s = _float_param_shape("chisquare", shape, df)
    half = lax.div(lax.convert_element_type(df, d), np.asarray(2.0, d))
    return lax.mul(lax.exp(loggamma(key, half, s, d)), np.asarray(2.0, d))


# -- gamma and what is made from it ------------------------------------------------------
def _gamma_one(key: Array, alpha: Array, log_space: bool) -> Array:
    """One gamma(alpha) sample by Marsaglia and Tsang's method, as JAX's
    ``_gamma_one`` (a while loop over proposals)."""
    d_ = aval_of(alpha).dtype

    def c(v: float) -> Array:
        return tnp.asarray(np.asarray(v, d_))

    zero, one = c(0.0), c(1.0)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, c(1.0 / 3.0))
    cc = lax.div(c(1.0 / 3.0), lax.sqrt(d))

    def cond_fn(state: tuple[Array, Array, Array, Array]) -> Array:
        _, x, v, u = state
        first = lax.ge(u, lax.sub(one, lax.mul(c(0.0331), lax.mul(x, x))))
        second = lax.ge(lax.log(u), lax.add(lax.mul(x, c(0.5)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
        return tnp.logical_and(first, second)

    def body_fn(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        def next_kxv(kxv: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            ks = _split(kxv[0], (2,))
            x = _normal_impl(ks[1], (), d_)
            return ks[0], x, lax.add(one, lax.mul(x, cc))

        ks = _split(state[0], (3,))
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv, (ks[1], zero, c(-1.0)))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        U = _uniform_impl(ks[2], zero, one, (), d_)
        return ks[0], X, V, U

    ks = _split(key, (2,))
    _, _, V, _ = lax.while_loop(cond_fn, body_fn, (ks[0], zero, one, c(2.0)))
    if log_space:
        log_samples = lax.neg(_exponential_impl(ks[1], (), d_))
        log_boost = lax.select(tnp.logical_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, _uniform_impl(ks[1], zero, one, (), d_))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _detach(x: Array) -> Array:
    """``x`` with a zero derivative (JAX's ``stop_gradient`` there)."""
    return lax.stop_gradient(x)


def _gamma_impl(
    key: Array, a: ArrayLike, shape: tuple[int, ...], dtype: DType, log_space: bool, differentiable: bool
) -> Array:
    a = _bcast(lax.convert_element_type(a, dtype), shape)
    a_fixed = _detach(a) if differentiable else a
    n = math.prod(shape)
    keys = _split(key, (n,))
    flat = lax.reshape(a_fixed, (n,))
    samples = lax.reshape(vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, flat), shape)
    if not differentiable:  # a concrete ``a``: nothing can differentiate it
        return samples
    # JAX's derivative (implicit reparameterization, ``random_gamma_p``'s JVP):
    # d sample / d a = -(dP/da) / (dP/dx) at the sample, P the regularized
    # incomplete gamma function; attached as ``sample + (a - a_fixed) * grad``,
    # whose value is the sample and whose derivative is ``grad`` (0 where it
    # is not finite, so the value stays the sample)
    if log_space:
        x = lax.exp(samples)
        x = lax.select(lax.eq(x, np.zeros((), dtype)), tnp.full(shape, _tiny(dtype), dtype), x)
        grad = lax.div(_random_gamma_grad(a_fixed, x), x)
    else:
        grad = _random_gamma_grad(a_fixed, samples)
    grad = lax.select(lax.is_finite(grad), grad, tnp.zeros_like(grad))
    return lax.add(samples, lax.mul(lax.sub(a, a_fixed), _detach(grad)))


def _random_gamma_grad(a: Array, x: Array) -> Array:
    """d x / d a for a gamma(a) sample ``x`` (JAX's ``random_gamma_grad``:
    the incomplete gamma function's series below ``max(1, a)``, its continued
    fraction above, differentiated, as ``jax._src.lax.special``)."""
    d = aval_of(a).dtype
    shape = aval_of(a).shape

    def c(v: float) -> Array:
        return tnp.full(shape, v, d)

    is_nan = tnp.logical_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, c(0.0))
    domain_error = tnp.logical_or(lax.lt(x, c(0.0)), lax.le(a, c(0.0)))
    use_igammac = tnp.logical_and(lax.gt(x, c(1.0)), lax.gt(x, a))
    ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(ax, c(-float(np.log(np.finfo(np.float64 if d.itemsize == 8 else np.float32).max))))
    enabled = tnp.logical_not(tnp.logical_or(tnp.logical_or(x_is_zero, domain_error), tnp.logical_or(underflow, is_nan)))
    cf = _igammac_cf_sample_derivative(x, a, tnp.logical_and(enabled, use_igammac))
    series = _igamma_series_sample_derivative(x, a, tnp.logical_and(enabled, tnp.logical_not(use_igammac)))
    out = lax.select(use_igammac, lax.neg(cf), series)
    out = lax.select(x_is_zero, c(0.0), out)
    return lax.select(tnp.logical_or(domain_error, is_nan), c(float("nan")), out)


def _eps(d: DType) -> float:
    return float(np.ldexp(1.0, -_float_bits(d)[1]))


def _igamma_series_sample_derivative(x: Array, a: Array, enabled: Array) -> Array:
    d = aval_of(a).dtype
    eps = _eps(d)
    zeros, ones = tnp.zeros_like(a), tnp.ones_like(a)

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        en, r0, c0, ans0, x_, dc0, dans0 = v
        r = lax.add(r0, ones)
        dc = lax.sub(lax.mul(dc0, lax.div(x_, r)), lax.div(lax.mul(c0, x_), lax.mul(r, r)))
        dans = lax.add(dans0, dc)
        cc = lax.mul(c0, lax.div(x_, r))
        ans = lax.add(ans0, cc)
        cond = tnp.logical_and(en, lax.gt(lax.abs(lax.div(dc, dans)), tnp.full_like(dc, eps)))
        return (cond, lax.select(en, r, r0), lax.select(en, cc, c0), lax.select(en, ans, ans0), x_,
                lax.select(en, dc, dc0), lax.select(en, dans, dans0))

    init = (enabled, a, ones, ones, x, zeros, zeros)
    out = lax.while_loop(lambda v: tnp.any(v[0]), body, init)
    ans, dans = out[3], out[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, ones)))
    return lax.div(lax.mul(lax.neg(lax.add(dans, lax.mul(ans, dlogax_da))), x), a)


def _igammac_cf_sample_derivative(x: Array, a: Array, enabled: Array) -> Array:
    d = aval_of(a).dtype
    eps = _eps(d)
    zeros, ones = tnp.zeros_like(a), tnp.ones_like(a)
    big = tnp.full_like(a, 1.0 / eps)
    epsv = tnp.full_like(a, eps)

    def cond(v: tuple[Array, ...]) -> Array:
        return tnp.logical_and(lax.lt(v[5], np.asarray(2000.0, d)), tnp.any(v[0]))

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        (en, ans0, t0, y0, z0, cnt, pkm1_0, qkm1_0, pkm2_0, qkm2_0,
         dpkm2_0, dqkm2_0, dpkm1_0, dqkm1_0, dans0) = v
        cnt = lax.add(cnt, np.asarray(1.0, d))
        cb = tnp.full_like(a, cnt)
        y = lax.add(y0, ones)
        z = lax.add(z0, tnp.full_like(a, 2.0))
        yc = lax.mul(y, cb)
        pk = lax.sub(lax.mul(pkm1_0, z), lax.mul(pkm2_0, yc))
        qk = lax.sub(lax.mul(qkm1_0, z), lax.mul(qkm2_0, yc))
        nz = lax.ne(qk, zeros)
        r = lax.div(pk, qk)
        t = lax.select(nz, lax.abs(lax.div(lax.sub(ans0, r), r)), ones)
        ans = lax.select(nz, r, ans0)
        dpk = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_0, z), pkm1_0), lax.mul(dpkm2_0, yc)), lax.mul(pkm2_0, cb))
        dqk = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_0, z), qkm1_0), lax.mul(dqkm2_0, yc)), lax.mul(qkm2_0, cb))
        dans = lax.select(nz, lax.div(lax.sub(dpk, lax.mul(ans, dqk)), qk), dans0)
        gcond = lax.select(nz, lax.abs(lax.sub(dans, dans0)), ones)
        pkm2, pkm1, qkm2, qkm1 = pkm1_0, pk, qkm1_0, qk
        dpkm2, dqkm2, dpkm1, dqkm1 = dpkm1_0, dqkm1_0, dpk, dqk
        rescale = lax.gt(lax.abs(pk), big)

        def rs(v_: Array) -> Array:
            return lax.select(rescale, lax.mul(v_, epsv), v_)

        pkm2, pkm1, qkm2, qkm1 = rs(pkm2), rs(pkm1), rs(qkm2), rs(qkm1)
        dpkm2, dqkm2, dpkm1, dqkm1 = rs(dpkm2), rs(dqkm2), rs(dpkm1), rs(dqkm1)
        c2 = tnp.logical_and(en, lax.gt(gcond, epsv))
        keep = [(ans, ans0), (t, t0), (y, y0), (z, z0)]
        rest = [(pkm1, pkm1_0), (qkm1, qkm1_0), (pkm2, pkm2_0), (qkm2, qkm2_0), (dpkm2, dpkm2_0),
                (dqkm2, dqkm2_0), (dpkm1, dpkm1_0), (dqkm1, dqkm1_0), (dans, dans0)]
        return (c2, *(lax.select(en, n_, o) for n_, o in keep), cnt,
                *(lax.select(en, n_, o) for n_, o in rest))

    y = lax.sub(ones, a)
    z = lax.add(lax.add(x, y), ones)
    pkm2, qkm2 = ones, x
    pkm1 = lax.add(x, ones)
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    dqkm1 = lax.neg(x)
    dans = lax.div(lax.sub(zeros, lax.mul(ans, dqkm1)), qkm1)
    init = (enabled, ans, ones, y, z, tnp.asarray(np.zeros((), d)), pkm1, qkm1, pkm2, qkm2,
            zeros, zeros, zeros, dqkm1, dans)
    out = lax.while_loop(cond, body, init)
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.neg(lax.mul(lax.add(out[14], lax.mul(out[1], dlogax_da)), x))


_gamma_jit = jit(_gamma_impl, static_argnums=(2, 3, 4, 5))


def _gamma_args(name: str, key: KeyLike, a: ArrayLike, shape: Shape | None, dtype: DTypeLike | None
                ) -> tuple[Array, tuple[int, ...], DType]:
    data, _ = _key_of(name, key)
    d = _float_dtype(name, dtype)
    if shape is None:
        s = aval_of(a).shape
    else:
        s = _shape(name, shape)
        _check_shape(name, s, aval_of(a).shape)
    return data, s, d


def gamma(key: KeyLike, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Gamma(a, 1) floats (``jax.random.gamma``)."""
    data, s, d = _gamma_args("gamma", key, a, shape, dtype)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _gamma_jit(data, a, s, d, False, isinstance(a, Tracer))


def loggamma(key: KeyLike, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """The logarithm of gamma(a, 1) floats, accurate for small ``a`` (``jax.random.loggamma``)."""
    data, s, d = _gamma_args("loggamma", key, a, shape, dtype)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _gamma_jit(data, a, s, d, True, isinstance(a, Tracer))


def beta(key: KeyLike, a: ArrayLike, b: ArrayLike, shape: Shape | None = None,
         dtype: DTypeLike | None = None) -> Array:
    """Beta(a, b) floats, from two log-gamma samples (``jax.random.beta``)."""
    data, _ = _key_of("beta", key)
    d = _float_dtype("beta", dtype)
    pshapes = (aval_of(a).shape, aval_of(b).shape)
    if shape is None:
        s = np.broadcast_shapes(*pshapes)
    else:
        s = _shape("beta", shape)
        _check_shape("beta", s, *pshapes)
    ks = split(data)
    lga = loggamma(ks[0], _bcast(lax.convert_element_type(a, d), s), s, d)
    lgb = loggamma(ks[1], _bcast(lax.convert_element_type(b, d), s), s, d)
    log_max = lax.max(lga, lgb)
    ga = tnp.exp(lax.sub(lga, log_max))
    gb = tnp.exp(lax.sub(lgb, log_max))
    return lax.div(ga, lax.add(ga, gb))


def dirichlet(key: KeyLike, alpha: ArrayLike, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Dirichlet(alpha) vectors along the last axis (``jax.random.dirichlet``)."""
    data, _ = _key_of("dirichlet", key)
    d = _float_dtype("dirichlet", dtype)
    aa = aval_of(alpha)
    if aa.ndim < 1:
        raise RandomKeyError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {aa.ndim}")
    if shape is None:
        s = aa.shape[:-1]
    else:
        s = _shape("dirichlet", shape)
        _check_shape("dirichlet", s, aa.shape[:-1])
    full = s + aa.shape[-1:]
    lg = loggamma(data, _bcast(lax.convert_element_type(alpha, d), full), full, d)
    e = tnp.exp(tnp.subtract(lg, tnp.max(lg, axis=-1, keepdims=True)))
    return tnp.divide(e, tnp.sum(e, axis=-1, keepdims=True))


def t(key: KeyLike, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Student's t(df) floats, ``normal * sqrt((df / 2) / gamma(df / 2))``
    (``jax.random.t``); differentiable in ``df`` through ``gamma``."""
    data, _ = _key_of("t", key)
    d = _float_dtype("t", dtype)
    s = _float_param_shape("t", shape, df)
    _check_safe_cast("t", d, df)
    ks = split(data)
    n = normal(ks[0], s, d)
    half_df = lax.div(lax.convert_element_type(df, d), _const(2.0, d))
    g = gamma(ks[1], half_df, s, d)
    return tnp.multiply(n, tnp.sqrt(tnp.divide(half_df, g)))


def f(key: KeyLike, dfnum: ArrayLike, dfden: ArrayLike, shape: Shape | None = None,
      dtype: DTypeLike | None = None) -> Array:
    """F(dfnum, dfden) floats, a ratio of two chi-squares over their degrees
    of freedom (``jax.random.f``); differentiable in both through ``gamma``."""
    data, _ = _key_of("f", key)
    d = _float_dtype("f", dtype)
    s = _float_param_shape("f", shape, dfnum, dfden)
    _check_safe_cast("f", d, dfnum, dfden)
    dfden_ = lax.convert_element_type(dfden, d)
    dfnum_ = lax.convert_element_type(dfnum, d)
    ks = split(data)
    chi2_dfn = chisquare(ks[1], dfnum_, s, d)
    chi2_dfd = chisquare(ks[0], dfden_, s, d)
    return tnp.divide(tnp.divide(chi2_dfn, dfnum_), tnp.divide(chi2_dfd, dfden_))


def _reciprocal(p: ArrayLike) -> ArrayLike:
    """``1 / p``: a Python float for a Python number (weak, as JAX's)."""
    if type(p) in (int, float):
        return 1 / cast(float, p)
    return tnp.divide(1.0, p)


def generalized_normal(key: KeyLike, p: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Generalized normal floats, density proportional to ``exp(-|x|**p)``:
    ``sign * gamma(1 / p) ** (1 / p)`` (``jax.random.generalized_normal``);
    differentiable in ``p`` through ``gamma``."""
    s = _shape("generalized_normal", shape)
    data, _ = _key_of("generalized_normal", key)
    d = _float_dtype("generalized_normal", dtype)
    ks = split(data)
    inv_p = _reciprocal(p)
    g = gamma(ks[0], inv_p, s, d)
    r = rademacher(ks[1], s, d)
    return tnp.multiply(r, tnp.power(g, inv_p))


def ball(key: KeyLike, d: int, p: ArrayLike = 2, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Points uniform in the unit Lp ball of dimension ``d``, shape
    ``(*shape, d)`` (``jax.random.ball``; Barthe et al., math/0503650)."""
    s = _shape("ball", shape)
    data, _ = _key_of("ball", key)
    dd = _static_int("ball", "d", d)
    ks = split(data)
    g = generalized_normal(ks[0], p, (*s, dd), dtype)
    e = exponential(ks[1], s, _float_dtype("ball", dtype))
    norm = tnp.power(tnp.add(tnp.sum(tnp.power(tnp.abs(g), p), axis=-1), e), _reciprocal(p))
    return tnp.divide(g, tnp.expand_dims(norm, -1))
