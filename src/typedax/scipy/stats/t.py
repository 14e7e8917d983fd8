"""Student's t distribution, as ``jax.scipy.stats.t`` (``logpdf`` and ``pdf``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ._common import c, promote

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, dv, lv, sv = promote(x, df, loc, scale)
    two = c(2.0, xv)
    z = tnp.divide(tnp.subtract(xv, lv), sv)
    df_half = tnp.divide(dv, two)
    df_plus_one_half = tnp.add(df_half, c(0.5, xv))
    norm_const = tnp.multiply(tnp.multiply(sv, sv), c(np.pi, xv))
    norm_tmp = tnp.divide(tnp.log(tnp.multiply(norm_const, dv)), two)
    normalize = tnp.subtract(tnp.add(lax.lgamma(df_half), norm_tmp), lax.lgamma(df_plus_one_half))
    quadratic = tnp.divide(tnp.multiply(z, z), dv)
    return tnp.negative(tnp.add(normalize, tnp.multiply(df_plus_one_half, tnp.log1p(quadratic))))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logpdf(x, df, loc, scale))
