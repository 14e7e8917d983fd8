"""The normal distribution, as ``jax.scipy.stats.norm``: ``pdf``, ``logpdf``,
``cdf``, ``ppf`` (from ``erf``, ``erfc`` and ``erf_inv``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ...core.dtypes import default_float
from ...core.trace import Value, aval_of

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def _inexact(*xs: ArrayLike) -> list[Value]:
    dtype = tnp.result_type(*xs)
    dtype = dtype if dtype.kind == "f" else tnp._inexact(dtype)
    return tnp._prepare(*(tnp.astype(x, dtype) for x in xs))


def _c(v: float, like: Value) -> np.ndarray[tuple[()], np.dtype[np.floating]]:
    return np.asarray(v, aval_of(like).dtype)


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-(log(2 pi scale**2) + ((x - loc) / scale)**2) / 2``, as JAX computes it."""
    xv, lv, sv = _inexact(x, loc, scale)
    scale_sqrd = lax.mul(sv, sv)
    log_normalizer = lax.log(lax.mul(_c(2 * np.pi, xv), scale_sqrd))
    d = lax.sub(xv, lv)
    quadratic = lax.div(lax.mul(d, d), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), _c(-2.0, xv))


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
