"""The Bernoulli distribution, as ``jax.scipy.stats.bernoulli``."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import xlog1py, xlogy
from ._common import c, promote

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    kv, pv, lv = promote(k, p, loc)
    x = tnp.subtract(kv, lv)
    log_probs = tnp.add(xlogy(x, pv), xlog1py(tnp.subtract(c(1.0, x), x), tnp.negative(pv)))
    return tnp.where(tnp.logical_or(tnp.less(x, 0.0), tnp.greater(x, 1.0)), c(-np.inf, x), log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(logpmf(k, p, loc))


def _bad_p(pv: Array) -> Array:
    return tnp.logical_or(tnp.isnan(pv), tnp.logical_or(tnp.less(pv, 0.0), tnp.greater(pv, 1.0)))


def cdf(k: ArrayLike, p: ArrayLike) -> Array:
    kv, pv = promote(k, p)
    zero, one = c(0.0, kv), c(1.0, kv)
    bad = tnp.logical_or(tnp.isnan(kv), _bad_p(pv))
    middle = tnp.logical_and(tnp.greater_equal(kv, 0.0), tnp.less(kv, 1.0))
    return tnp.where(bad, c(np.nan, kv), tnp.where(tnp.less(kv, 0.0), zero, tnp.where(
        middle, tnp.subtract(one, pv), tnp.where(tnp.greater_equal(kv, 1.0), one, zero))))


def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    qv, pv = promote(q, p)
    bad = tnp.logical_or(_bad_p(pv), tnp.logical_or(tnp.isnan(qv), tnp.logical_or(tnp.less(qv, 0.0), tnp.greater(qv, 1.0))))
    one = c(1.0, qv)
    return tnp.where(bad, c(np.nan, qv), tnp.where(tnp.less_equal(qv, tnp.subtract(one, pv)), c(0.0, qv), one))
