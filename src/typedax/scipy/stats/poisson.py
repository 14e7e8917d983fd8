"""The Poisson distribution, as ``jax.scipy.stats.poisson`` (``logpmf``,
``pmf``, ``cdf``; not ``entropy``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import gammaincc, xlogy
from ._common import c, promote

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``k log(mu) - gammaln(k + 1) - mu`` (-inf off the non-negative integers)."""
    kv, mv, lv = promote(k, mu, loc)
    x = tnp.subtract(kv, lv)
    log_probs = tnp.subtract(tnp.subtract(xlogy(x, mv), lax.lgamma(tnp.add(x, 1))), mv)
    off = tnp.logical_or(tnp.less(x, 0.0), tnp.not_equal(tnp.round(kv), kv))
    return tnp.where(off, -np.inf, log_probs)  # (JAX's literal: weak stays weak)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(logpmf(k, mu, loc))


def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``gammaincc(floor(k - loc + 1), mu)`` (0 below ``loc``)."""
    kv, mv, lv = promote(k, mu, loc)
    x = tnp.subtract(kv, lv)
    p = gammaincc(tnp.floor(tnp.add(c(1.0, x), x)), mv)
    return tnp.where(tnp.less(x, 0.0), c(0.0, x), p)
