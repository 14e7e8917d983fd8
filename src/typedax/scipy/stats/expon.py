"""The exponential distribution, as ``jax.scipy.stats.expon``."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    log_probs = tnp.negative(tnp.add(tnp.divide(tnp.subtract(xv, lv), sv), tnp.log(sv)))
    return tnp.where(tnp.less(xv, lv), -np.inf, log_probs)  # (JAX's literal: weak stays weak)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    neg_scaled = tnp.divide(tnp.subtract(lv, xv), sv)
    return tnp.where(tnp.less(xv, lv), tnp.zeros_like(neg_scaled), tnp.negative(tnp.expm1(neg_scaled)))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    neg_scaled = tnp.divide(tnp.subtract(lv, xv), sv)
    return tnp.where(tnp.less(xv, lv), tnp.zeros_like(neg_scaled), neg_scaled)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logsf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log1p(tnp.negative(sf(x, loc, scale)))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(q, loc, scale)
    bad = tnp.logical_or(tnp.isnan(qv), tnp.logical_or(tnp.less(qv, 0.0), tnp.greater(qv, 1.0)))
    return tnp.where(bad, np.nan, tnp.subtract(lv, tnp.multiply(sv, tnp.log1p(tnp.negative(qv)))))
