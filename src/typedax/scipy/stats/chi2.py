"""The chi-squared distribution, as ``jax.scipy.stats.chi2`` (its CDF from
``gammainc``: first derivatives only)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import gammainc, gammaincc
from ._common import c, clamp, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, dv, lv, sv = promote(x, df, loc, scale)
    one, two = c(1.0, xv), c(2.0, xv)
    y = tnp.divide(tnp.subtract(xv, lv), sv)
    df_half = tnp.divide(dv, two)
    kernel = tnp.subtract(tnp.multiply(tnp.subtract(df_half, one), tnp.log(y)), tnp.divide(y, two))
    nrml = tnp.negative(tnp.add(lax.lgamma(df_half), tnp.divide(tnp.multiply(tnp.log(two), dv), two)))
    log_probs = tnp.add(tnp.subtract(nrml, tnp.log(sv)), kernel)
    return tnp.where(tnp.less(xv, lv), c(-np.inf, xv), log_probs)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, df, loc, scale))


def _half_y(xv: Array, lv: Array, sv: Array) -> Array:
    return clamp(c(0.0, xv), tnp.divide(tnp.subtract(xv, lv), tnp.multiply(sv, c(2.0, sv))), c(np.inf, xv))


def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, dv, lv, sv = promote(x, df, loc, scale)
    return gammainc(tnp.divide(dv, c(2.0, sv)), _half_y(xv, lv, sv))


def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(cdf(x, df, loc, scale))


def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, dv, lv, sv = promote(x, df, loc, scale)
    return gammaincc(tnp.divide(dv, c(2.0, sv)), _half_y(xv, lv, sv))


def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(sf(x, df, loc, scale))
