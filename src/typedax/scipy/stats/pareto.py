"""The Pareto distribution, as ``jax.scipy.stats.pareto``."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import c, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _below(xv: Array, lv: Array, sv: Array) -> Array:
    return tnp.less(xv, tnp.add(lv, sv))


def logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, bv, lv, sv = promote(x, b, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    log_probs = tnp.negative(tnp.add(tnp.log(tnp.divide(sv, bv)), tnp.multiply(tnp.add(bv, c(1.0, xv)), tnp.log(z))))
    return tnp.where(_below(xv, lv, sv), c(-np.inf, xv), log_probs)


def pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, b, loc, scale))


def cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, bv, lv, sv = promote(x, b, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.where(_below(xv, lv, sv), c(0.0, xv), tnp.subtract(c(1.0, xv), tnp.power(z, tnp.negative(bv))))


def logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, bv, lv, sv = promote(x, b, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.where(_below(xv, lv, sv), -np.inf, tnp.log1p(tnp.negative(tnp.power(z, tnp.negative(bv)))))


def logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, bv, lv, sv = promote(x, b, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.where(_below(xv, lv, sv), c(0.0, xv), tnp.negative(tnp.multiply(bv, tnp.log(z))))


def sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logsf(x, b, loc, scale))


def ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, bv, lv, sv = promote(q, b, loc, scale)
    one = c(1.0, qv)
    val = tnp.add(lv, tnp.multiply(sv, tnp.power(tnp.subtract(one, qv), tnp.negative(tnp.divide(one, bv)))))
    bad = tnp.logical_or(tnp.isnan(qv), tnp.logical_or(tnp.less(qv, 0.0), tnp.greater(qv, 1.0)))
    return tnp.where(bad, c(np.nan, qv), val)
