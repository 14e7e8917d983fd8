"""The logistic distribution, as ``jax.scipy.stats.logistic``."""

from __future__ import annotations

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import expit, logit
from ._common import c, promote

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-2 logaddexp(z/2, -z/2) - log(scale)``, ``z = (x - loc) / scale``."""
    xv, lv, sv = promote(x, loc, scale)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    half = tnp.divide(z, c(2.0, z))
    return tnp.subtract(tnp.multiply(c(-2.0, z), tnp.logaddexp(half, tnp.negative(half))), tnp.log(sv))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    return expit(tnp.divide(tnp.subtract(xv, lv), sv))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    return expit(tnp.negative(tnp.divide(tnp.subtract(xv, lv), sv)))


def ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(x, loc, scale)
    return tnp.add(tnp.multiply(logit(qv), sv), lv)


def isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    qv, lv, sv = promote(x, loc, scale)
    return tnp.add(tnp.multiply(tnp.negative(logit(qv)), sv), lv)
