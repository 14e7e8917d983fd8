"""The Laplace distribution, as ``jax.scipy.stats.laplace``."""

from __future__ import annotations

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import c, promote

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    linear = tnp.divide(tnp.abs(tnp.subtract(xv, lv)), sv)
    return tnp.negative(tnp.add(linear, tnp.log(tnp.multiply(c(2.0, xv), sv))))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = promote(x, loc, scale)
    diff = tnp.divide(tnp.subtract(xv, lv), sv)
    half = c(0.5, xv)
    # each side's exp gets an argument that cannot overflow, so no inf * 0 reaches the derivative
    le = tnp.less_equal(diff, 0.0)
    d_lo = tnp.where(le, diff, tnp.zeros_like(diff))
    d_hi = tnp.where(le, tnp.zeros_like(diff), diff)
    return tnp.where(le, tnp.multiply(half, tnp.exp(d_lo)), tnp.subtract(c(1.0, xv), tnp.multiply(half, tnp.exp(tnp.negative(d_hi)))))
