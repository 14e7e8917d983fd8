"""The Cauchy distribution, as ``jax.scipy.stats.cauchy``."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import c, promote

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.negative(tnp.add(tnp.log(tnp.multiply(c(np.pi, xv), sv)), tnp.log1p(tnp.multiply(z, z))))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    return tnp.add(c(0.5, xv), tnp.multiply(tnp.divide(c(1.0, xv), c(np.pi, xv)), tnp.arctan(z)))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(cdf(x, loc, scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    return cdf(tnp.negative(xv), tnp.negative(lv), sv)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    return logcdf(tnp.negative(xv), tnp.negative(lv), sv)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(q, loc, scale)
    unscaled = tnp.tan(tnp.subtract(tnp.multiply(c(np.pi, qv), qv), c(np.pi / 2, qv)))
    return tnp.add(tnp.multiply(unscaled, sv), lv)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(q, loc, scale)
    unscaled = tnp.tan(tnp.subtract(c(np.pi / 2, qv), tnp.multiply(c(np.pi, qv), qv)))
    return tnp.add(tnp.multiply(unscaled, sv), lv)
