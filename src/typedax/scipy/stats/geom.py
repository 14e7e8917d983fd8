"""The geometric distribution, as ``jax.scipy.stats.geom`` (``logpmf``, ``pmf``)."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import xlog1py
from ._common import c, promote

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    kv, pv, lv = promote(k, p, loc)
    x = tnp.subtract(kv, lv)
    log_probs = tnp.add(xlog1py(tnp.subtract(x, c(1.0, x)), tnp.negative(pv)), tnp.log(pv))
    return tnp.where(tnp.less_equal(x, 0.0), c(-np.inf, x), log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(logpmf(k, p, loc))
