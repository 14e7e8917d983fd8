"""The multivariate normal distribution, as
``jax.scipy.stats.multivariate_normal`` (``logpdf``, ``pdf``): JAX's
formulas -- a scalar ``mean`` is the univariate normal, a scalar ``cov`` an
isotropic covariance, else the Cholesky factor ``L`` of ``cov`` and
``y = L⁻¹(x - mean)`` batched over leading dimensions."""

from __future__ import annotations

import math


from ... import lax_linalg
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from .._base import _promote_dtypes

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None) -> Array:
    """The log density at ``x`` (``allow_singular`` is refused, as JAX's)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    xv, mv, cv = _promote_dtypes(x, mean, cov)
    log2pi = math.log(2 * math.pi)
    if not mv.shape:
        return -0.5 * tnp.square(xv - mv) / cv - 0.5 * (log2pi + tnp.log(cv))
    n = mv.shape[-1]
    if not cv.shape:
        y = xv - mv
        return -0.5 * tnp.einsum("...i,...i->...", y, y) / cv - n / 2 * (log2pi + tnp.log(cv))
    if cv.ndim < 2 or cv.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = lax_linalg.cholesky(cv)
    solve = tnp.vectorize(
        lambda lo, r: lax_linalg.triangular_solve(lo, r, lower=True, transpose_a=True),
        signature="(n,n),(n)->(n)",
    )
    y = solve(factor, xv - mv)
    diag = tnp.diagonal(factor, axis1=-1, axis2=-2)
    return -0.5 * tnp.einsum("...i,...i->...", y, y) - n / 2 * log2pi - tnp.sum(tnp.log(diag), axis=-1)


def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    """The density at ``x``."""
    return tnp.exp(logpdf(x, mean, cov))


