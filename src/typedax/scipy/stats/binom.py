"""The binomial distribution, as ``jax.scipy.stats.binom`` (``logpmf``, ``pmf``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import xlog1py, xlogy
from ._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    kv, nv, pv, lv = promote(k, n, p, loc)
    y = tnp.subtract(kv, lv)
    one = 1  # (JAX's literals: a weak k, n, p gives a weak result)
    comb_term = tnp.subtract(lax.lgamma(tnp.add(nv, one)),
                             tnp.add(lax.lgamma(tnp.add(y, one)), lax.lgamma(tnp.add(tnp.subtract(nv, y), one))))
    log_linear = tnp.add(xlogy(y, pv), xlog1py(tnp.subtract(nv, y), tnp.negative(pv)))
    log_probs = tnp.add(comb_term, log_linear)
    y_n = tnp.logical_or(tnp.logical_and(tnp.equal(y, 0.0), tnp.equal(nv, 0.0)), tnp.equal(log_linear, 0.0))
    log_probs = tnp.where(y_n, 0.0, log_probs)
    inside = tnp.logical_and(tnp.greater_equal(kv, lv), tnp.less(kv, tnp.add(tnp.add(lv, nv), one)))
    return tnp.where(inside, log_probs, -np.inf)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(logpmf(k, n, p, loc))
