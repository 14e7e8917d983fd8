"""The uniform distribution on ``[loc, loc + scale]``, as ``jax.scipy.stats.uniform``."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import cs, promote

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    outside = tnp.logical_or(tnp.greater(xv, tnp.add(lv, sv)), tnp.less(xv, lv))
    return tnp.where(outside, -np.inf, tnp.negative(tnp.log(sv)))  # (JAX's literal: weak stays weak)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """0 below ``loc``, 1 above ``loc + scale``, linear between (NaN for NaN)."""
    xv, lv, sv = promote(x, loc, scale)
    hi = tnp.add(lv, sv)
    inside = tnp.logical_and(tnp.greater_equal(xv, lv), tnp.less_equal(xv, hi))
    # strong constants, as JAX's (``jnp.array(0, x.dtype)``): the result is strong
    return tnp.where(tnp.less(xv, lv), cs(0.0, xv), tnp.where(tnp.greater(xv, hi), cs(1.0, xv),
                     tnp.where(inside, tnp.divide(tnp.subtract(xv, lv), sv), cs(0.0, xv))))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(q, loc, scale)
    bad = tnp.logical_or(tnp.isnan(qv), tnp.logical_or(tnp.less(qv, 0.0), tnp.greater(qv, 1.0)))
    return tnp.where(bad, np.nan, tnp.add(lv, tnp.multiply(sv, qv)))
