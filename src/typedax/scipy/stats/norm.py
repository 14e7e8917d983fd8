"""The normal distribution, as ``jax.scipy.stats.norm``: ``pdf``, ``logpdf``,
``cdf``, ``logcdf``, ``ppf`` (from ``erf``, ``erfc`` and ``erf_inv``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ...core.dtypes import default_float
from ...core.trace import Value, aval_of
from ._common import c, promote

__all__ = ["cdf", "logcdf", "logpdf", "pdf", "ppf"]


def _inexact(*xs: ArrayLike) -> list[Array]:
    """JAX's ``promote_args_inexact`` (weak for Python scalars): ``_common``'s ``promote``."""
    return promote(*xs)


def _c(v: float, like: Value) -> np.ndarray[tuple[()], np.dtype[np.floating]]:
    """A strong constant: JAX's ``ndtr`` and ``log_ndtr`` build theirs as NumPy
    scalars (their results are strong); ``logpdf`` uses ``c`` (weak-aware)."""
    return np.asarray(v, aval_of(like).dtype)


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-(log(2 pi scale**2) + ((x - loc) / scale)**2) / 2``, as JAX computes it."""
    xv, lv, sv = _inexact(x, loc, scale)
    scale_sqrd = lax.mul(sv, sv)
    log_normalizer = lax.log(lax.mul(c(2 * np.pi, xv), scale_sqrd))
    d = lax.sub(xv, lv)
    quadratic = lax.div(lax.mul(d, d), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), c(-2.0, xv))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def _ndtr(x: Value) -> Array:
    """JAX's ``ndtr``: ``(1 + erf(x / sqrt 2)) / 2`` near 0, ``erfc`` in the tails."""
    half_sqrt_2 = _c(0.5 * np.sqrt(2.0), x)
    w = lax.mul(x, half_sqrt_2)
    z = lax.abs(w)
    y = lax.select(
        lax.lt(z, half_sqrt_2),
        lax.add(_c(1.0, x), lax.erf(w)),
        lax.select(lax.gt(w, _c(0.0, x)), lax.sub(_c(2.0, x), lax.erfc(z)), lax.erfc(z)),
    )
    return lax.mul(_c(0.5, x), y)


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = _inexact(x, loc, scale)
    return _ndtr(lax.div(lax.sub(xv, lv), sv))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse of ``cdf``: ``sqrt(2) erf_inv(2q - 1) * scale + loc``, in the
    default float dtype (as JAX's). JAX uses a rational approximation
    (``ndtri``) instead of ``erf_inv``: the values agree to a few ulp away from
    0 and 1; toward them ``2q - 1`` loses the relative precision of ``q``."""
    qv, lv, sv = _inexact(q, loc, scale)
    z = lax.mul(_c(np.sqrt(2.0), qv), lax.erf_inv(lax.sub(lax.mul(_c(2.0, qv), qv), _c(1.0, qv))))
    return tnp.astype(lax.add(lax.mul(z, sv), lv), default_float())


def _log_ndtr(x: Value, series_order: int = 3) -> Array:
    """JAX's ``log_ndtr``: ``log(ndtr(x))`` in the middle, ``-ndtr(-x)``
    above 8 (5 in float32), an asymptotic series (of ``series_order`` terms)
    below -20 (-10). Its derivative is the formula's (JAX gives it
    ``exp(logpdf - ans)`` by a custom rule; below the lower bound the two
    differ by the series' error, about 1e-9 relative). Each branch is fed a
    clamped argument, so no NaN reaches the derivative of the unchosen ones."""
    dtype = aval_of(x).dtype
    lower = _c(-20.0 if dtype == np.float64 else -10.0, x)
    upper = _c(8.0 if dtype == np.float64 else 5.0, x)
    above = tnp.greater(x, upper)
    inside = tnp.greater(x, lower)
    # selects, not max/min (whose derivative splits on ties at the bounds)
    ndtr_arg = tnp.where(above, lax.neg(x), tnp.where(inside, x, lower))
    ndtr_res = _ndtr(ndtr_arg)
    low = tnp.where(inside, lower, x)  # the asymptotic series of log(ndtr(x)) for x << -1
    x_2 = lax.mul(low, low)
    log_scale = lax.sub(lax.sub(lax.mul(_c(-0.5, x), x_2), lax.log(lax.neg(low))), _c(0.5 * np.log(2 * np.pi), x))
    tail = lax.add(log_scale, lax.log(_log_ndtr_series(x_2, series_order)))
    # above the upper bound ndtr_res (of -x) may be 0: log gets 1 there, unchosen
    middle = tnp.where(inside, lax.log(tnp.where(above, _c(1.0, x), ndtr_res)), tail)
    return tnp.where(above, lax.neg(ndtr_res), middle)


def _log_ndtr_series(x_2: Array, series_order: int) -> Array:
    """JAX's ``_log_ndtr_asymptotic_series``: ``1 + sum_n (-1)**n (2n-1)!! / x**(2n)``
    (the odd and even terms summed apart)."""
    if series_order <= 0:
        return tnp.ones_like(x_2)
    even_sum = tnp.zeros_like(x_2)
    odd_sum = tnp.zeros_like(x_2)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = lax.div(_c(float(np.prod(np.arange(2 * n - 1, 1, -2, dtype=np.float64))), x_2), x_2n)
        if n % 2:
            odd_sum = lax.add(odd_sum, y)
        else:
            even_sum = lax.add(even_sum, y)
        x_2n = lax.mul(x_2n, x_2)
    return lax.sub(lax.add(_c(1.0, x_2), even_sum), odd_sum)


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x))``, accurate far into both tails (JAX's ``log_ndtr``)."""
    xv, lv, sv = _inexact(x, loc, scale)
    return _log_ndtr(lax.div(lax.sub(xv, lv), sv))
