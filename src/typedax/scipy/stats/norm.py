"""The normal distribution, as ``jax.scipy.stats.norm``: ``pdf``, ``logpdf``,
``cdf``, ``logcdf``, ``ppf`` (from ``erf``, ``erfc`` and ``erf_inv``; ``cdf`` and
``logcdf`` are JAX's ``ndtr`` and ``log_ndtr``, in ``scipy/_special.py``, of the standardized ``x``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core.array import Array, ArrayLike
from ...core.dtypes import default_float
from ...core.trace import Value, aval_of
from .._special import _log_ndtr, _ndtr
from ._common import c, promote

__all__ = ["cdf", "logcdf", "logpdf", "pdf", "ppf"]


def _inexact(*xs: ArrayLike) -> list[Array]:
    """JAX's ``promote_args_inexact`` (weak for Python scalars): ``_common``'s ``promote``."""
    return promote(*xs)


def _c(v: float, like: Value) -> np.ndarray[tuple[()], np.dtype[np.floating]]:
    """A strong constant, a NumPy scalar (``ppf``'s; ``ndtr`` and ``log_ndtr``,
    in ``scipy/_special.py``, build theirs so too, as JAX's); ``logpdf`` uses
    ``c`` (weak-aware)."""
    return np.asarray(v, aval_of(like).dtype)


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-(log(2 pi scale**2) + ((x - loc) / scale)**2) / 2``, as JAX computes it."""
    xv, lv, sv = _inexact(x, loc, scale)
    scale_sqrd = lax.mul(sv, sv)
    log_normalizer = lax.log(lax.mul(c(2 * np.pi, xv), scale_sqrd))
    d = lax.sub(xv, lv)
    quadratic = lax.div(lax.mul(d, d), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), c(-2.0, xv))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    xv, lv, sv = _inexact(x, loc, scale)
    return _ndtr(lax.div(lax.sub(xv, lv), sv))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse of ``cdf``: ``sqrt(2) erf_inv(2q - 1) * scale + loc``, in the
    default float dtype (as JAX's). JAX uses a rational approximation
    (``ndtri``) instead of ``erf_inv``: the values agree to a few ulp away from
    0 and 1; toward them ``2q - 1`` loses the relative precision of ``q``."""
    qv, lv, sv = _inexact(q, loc, scale)
    z = lax.mul(_c(np.sqrt(2.0), qv), lax.erf_inv(lax.sub(lax.mul(_c(2.0, qv), qv), _c(1.0, qv))))
    return tnp.astype(lax.add(lax.mul(z, sv), lv), default_float())


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x))``, accurate far into both tails (JAX's ``log_ndtr``)."""
    xv, lv, sv = _inexact(x, loc, scale)
    return _log_ndtr(lax.div(lax.sub(xv, lv), sv))
