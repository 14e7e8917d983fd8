"""The gamma distribution, as ``jax.scipy.stats.gamma`` (its CDF from
``gammainc``: first derivatives only, see ``typedax.scipy.special.gammainc``)."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._common import c, clamp, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, lv, sv = promote(x, a, loc, scale)
    ok = tnp.greater_equal(xv, lv)
    one = c(1.0, xv)
    y = tnp.where(ok, tnp.divide(tnp.subtract(xv, lv), sv), one)
    log_linear = tnp.subtract(xlogy(tnp.subtract(av, one), y), y)
    shape_terms = tnp.add(gammaln(av), tnp.log(sv))
    return tnp.where(ok, tnp.subtract(log_linear, shape_terms), c(-np.inf, xv))


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, a, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, lv, sv = promote(x, a, loc, scale)
    return gammainc(av, clamp(c(0.0, xv), tnp.divide(tnp.subtract(xv, lv), sv), c(np.inf, xv)))


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(cdf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, av, lv, sv = promote(x, a, loc, scale)
    y = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.where(tnp.less(y, 0.0), 1, gammaincc(av, y))  # (JAX's literal: weak stays weak)


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(sf(x, a, loc, scale))
