"""Special functions, named and computed as ``jax.scipy.special``'s.

typedax has no ``custom_jvp``; where JAX uses it (or ``stop_gradient``)
the formulas here are arranged so that their derivatives are JAX's:
``logsumexp`` subtracts the maximum without ``stop_gradient`` (its
contributions to the derivative cancel, so the result is the same); ``xlogy``/``xlog1py`` (0 where
``x == 0`` unless ``y`` is NaN) feed ``log`` a safe argument where ``x == 0`` (their derivative in ``x`` there is
``log(y)``, as JAX's rule gives, and no NaN leaks into gradients).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, overload

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.trace import aval_of

__all__ = [
    "digamma", "erf", "erfc", "erfinv", "expit", "gammaln", "logit", "logsumexp", "xlog1py", "xlogy",
]

Axis = int | Sequence[int] | None


def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(tnp._float(tnp.asarray(x)))


def _inexact2(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    a, b = tnp._inexact2(x, y)
    return tnp.asarray(a), tnp.asarray(b)


def erf(x: ArrayLike) -> Array:
    return lax.erf(_inexact(x))


def erfc(x: ArrayLike) -> Array:
    return lax.erfc(_inexact(x))


def erfinv(x: ArrayLike) -> Array:
    return lax.erf_inv(_inexact(x))


def gammaln(x: ArrayLike) -> Array:
    return lax.lgamma(_inexact(x))


def digamma(x: ArrayLike) -> Array:
    return lax.digamma(_inexact(x))


def expit(x: ArrayLike) -> Array:
    """``1 / (1 + exp(-x))``."""
    return lax.logistic(_inexact(x))


def logit(x: ArrayLike) -> Array:
    """``log(x / (1 - x))``."""
    a = _inexact(x)
    return lax.log(lax.div(a, lax.sub(np.asarray(1.0, aval_of(a).dtype), a)))


def _x_times_log(x: ArrayLike, y: ArrayLike, log1p: bool) -> Array:
    a, b = _inexact2(x, y)
    dtype = aval_of(a).dtype
    x_zero = tnp.equal(a, 0)
    # where x == 0, log's argument is y if its log is finite or y is NaN (which
    # propagates, as in JAX and scipy), else a harmless one
    lo = -1.0 if log1p else 0.0
    fine = tnp.logical_or(tnp.logical_and(tnp.isfinite(b), tnp.greater(b, lo)), tnp.isnan(b))
    safe = tnp.where(tnp.logical_and(x_zero, tnp.logical_not(fine)), np.asarray(0.0 if log1p else 1.0, dtype), b)
    out = tnp.multiply(a, lax.log1p(safe) if log1p else lax.log(safe))
    return tnp.where(x_zero, tnp.add(out, np.asarray(0.0, dtype)), out)  # +0.0 where x == 0, as JAX


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log(y)``, 0 where ``x == 0``."""
    return _x_times_log(x, y, False)


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log1p(y)``, 0 where ``x == 0``."""
    return _x_times_log(x, y, True)


def _axes(ndim: int, axis: Axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tnp._axes("logsumexp", ndim, axis)


@overload
def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
    return_sign: Literal[False] = False, where: ArrayLike | None = None,
) -> Array: ...


@overload
def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False, *,
    return_sign: Literal[True], where: ArrayLike | None = None,
) -> tuple[Array, Array]: ...


def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
    return_sign: bool = False, where: ArrayLike | None = None,
) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a)))`` over ``axis``, computed as JAX does (shifted by
    the finite maximum); with ``return_sign`` also the sign of the sum (and the
    log of its magnitude), else NaN where the sum is negative. With ``where``
    only the entries where it is true count (an empty sum is 0: its log -inf)."""
    if where is not None:
        a = tnp.where(where, a, 0)
    if b is not None:
        x, w = _inexact2(a, b)
        shape = np.broadcast_shapes(aval_of(x).shape, aval_of(w).shape)
        x, w = tnp.broadcast_to(x, shape), tnp.broadcast_to(w, shape)
        x = tnp.where(tnp.not_equal(w, 0), x, -np.inf)
    else:
        x = _inexact(a)
    dtype = aval_of(x).dtype
    dims = _axes(aval_of(x).ndim, axis)
    if where is not None:
        mask = tnp.broadcast_to(tnp.asarray(where), aval_of(x).shape)
        amax = tnp.max(tnp.where(mask, x, -np.inf), dims, keepdims=keepdims)
    else:
        amax = tnp.max(x, dims, keepdims=keepdims)
    amax = tnp.where(tnp.isfinite(amax), amax, tnp.zeros_like(amax))
    amax_dims = amax if keepdims else tnp.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(x, amax_dims))
    if b is not None:
        exp_a = lax.mul(exp_a, w)
    if where is not None:
        exp_a = tnp.where(mask, exp_a, tnp.zeros_like(exp_a))
    sumexp = tnp.sum(exp_a, dims, keepdims=keepdims)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(tnp.abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = tnp.where(tnp.less(sign, 0), np.asarray(np.nan, dtype), out)
    return out

