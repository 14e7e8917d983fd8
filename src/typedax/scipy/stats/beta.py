"""The beta distribution, as ``jax.scipy.stats.beta`` (its CDF from
``betainc``: derivatives in ``x`` only, see ``typedax.scipy.special.betainc``)."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import betainc, betaln, xlog1py, xlogy
from ._common import c, clamp, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, bv, lv, sv = promote(x, a, b, loc, scale)
    one = c(1.0, xv)
    y = tnp.divide(tnp.subtract(xv, lv), sv)
    log_linear = tnp.add(xlogy(tnp.subtract(av, one), y), xlog1py(tnp.subtract(bv, one), tnp.negative(y)))
    log_probs = tnp.subtract(tnp.add(tnp.negative(betaln(av, bv)), log_linear), tnp.log(sv))
    outside = tnp.logical_or(tnp.greater(xv, tnp.add(lv, sv)), tnp.less(xv, lv))
    result = tnp.where(outside, c(-np.inf, xv), log_probs)
    bad = tnp.logical_or(tnp.logical_or(tnp.less_equal(av, 0.0), tnp.less_equal(bv, 0.0)), tnp.less_equal(sv, 0.0))
    return tnp.where(bad, c(np.nan, xv), result)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, a, b, loc, scale))


def _unit(xv: Array, lv: Array, sv: Array) -> Array:
    return clamp(c(0.0, xv), tnp.divide(tnp.subtract(xv, lv), sv), c(1.0, xv))


def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, bv, lv, sv = promote(x, a, b, loc, scale)
    return betainc(av, bv, _unit(xv, lv, sv))


def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(cdf(x, a, b, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, bv, lv, sv = promote(x, a, b, loc, scale)
    return betainc(bv, av, tnp.subtract(c(1.0, xv), _unit(xv, lv, sv)))


def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(sf(x, a, b, loc, scale))
