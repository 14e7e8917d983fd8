"""The von Mises distribution, as ``jax.scipy.stats.vonmises`` (``logpdf``, ``pdf``)."""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ..special import i0e
from ._common import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (NaN for ``kappa <= 0``)."""
    xv, kv = promote(x, kappa)
    val = tnp.subtract(tnp.multiply(kv, tnp.subtract(tnp.cos(xv), 1)), tnp.log(tnp.multiply(2 * np.pi, i0e(kv))))
    return tnp.where(tnp.greater(kv, 0.0), val, np.nan)  # (JAX's literals: weak stays weak)


def pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    return tnp.exp(logpdf(x, kappa))
