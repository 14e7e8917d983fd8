"""Statistics of ``jax.numpy`` (issue 12, group 3): ``var``, ``std``,
``average``, ``median``, ``quantile``, ``percentile``, the NaN-ignoring
reductions, ``ptp``, ``cov``, ``corrcoef``, ``count_nonzero``.

Dtypes follow JAX: integer and bool inputs compute in their inexact type
(float32 for 32 bits or fewer, float64 for int64); ``where=`` masks elements
out of the sums and counts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, overload

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, bool_, canonicalize_explicit, default_int, is_complex, is_float, is_inexact, real_dtype
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from ..core.trace import aval_of
from . import lax_numpy as tnp
from .creation import _offset, diag
from .manipulation import atleast_2d, moveaxis, take_along_axis

Axis = int | Sequence[int] | None


def _no_out(op: str, out: object) -> None:
    if out is not None:
        raise PrimitiveTypeError(f"{op}: The 'out' argument to jnp.{op} is not supported.")


def _masked(x: Array, where: ArrayLike | None, fill: float) -> Array:
    if where is None:
        return x
    return tnp.where(where, x, tnp.full((), fill, x.dtype))


def _count(op: str, x: Array, axis: Axis, keepdims: bool, where: ArrayLike | None, dtype: DType) -> Array:
    """The number of elements each reduction over ``axis`` sees."""
    axes = tnp._axes(op, x.ndim, axis)
    if where is None:
        n = math.prod(x.shape[i] for i in axes)
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
            tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return tnp.full(shape, n, dtype)
    mask = tnp.broadcast_to(tnp.asarray(where), x.shape)
    return tnp.sum(mask, axis=axes, dtype=dtype, keepdims=keepdims)


def _inexact_dtype(op: str, x: Array, dtype: DType | type | None) -> DType:
    if dtype is not None:
        return canonicalize_explicit(np.dtype(dtype), op)
    return tnp._inexact(x.dtype)


def _var(op: str, a: ArrayLike, axis: Axis, dtype: DType | type | None, ddof: float, keepdims: bool,
         where: ArrayLike | None, ignore_nan: bool) -> Array:
    x = tnp.asarray(a)
    d = _inexact_dtype(op, x, dtype)
    x = tnp.astype(x, d)
    axes = tnp._axes(op, x.ndim, axis)
    if ignore_nan and is_float(d):
        keep = tnp.logical_not(tnp.isnan(x))
        where = keep if where is None else tnp.logical_and(keep, where)
    count_k = _count(op, x, axes, True, where, d)
    xm = _masked(x, where, 0.0)  # masked before any arithmetic: no NaN reaches a derivative
    mean = lax.div(tnp.sum(xm, axis=axes, keepdims=True), count_k)
    centered = _masked(tnp.subtract(xm, mean), where, 0.0)
    if is_complex(d):  # |x - mean|**2, real (as JAX's)
        squares = lax.real(lax.mul(centered, lax.conj(centered)))
        d = real_dtype(d)
    else:
        squares = lax.mul(centered, centered)
    total = tnp.sum(squares, axis=axes, keepdims=keepdims)
    normalizer = lax.sub(_count(op, x, axes, keepdims, where, d), np.asarray(ddof, d))
    out = lax.div(total, normalizer)
    return lax.select(lax.gt(normalizer, np.zeros((), d)), out, tnp.full(out.shape, np.nan, d))


def _ddof(op: str, ddof: float, correction: float | None) -> float:
    if correction is None:
        return ddof
    if ddof:
        raise PrimitiveTypeError(f"{op}: ddof and correction can't both be provided.")
    return correction


def var(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
        ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
        correction: int | float | None = None) -> Array:
    """``jnp.var``: the mean squared deviation, divided by ``N - ddof``
    (NaN where that is not positive)."""
    _no_out("var", out)
    return _var("var", a, axis, dtype, _ddof("var", ddof, correction), keepdims, where, False)


def std(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
        ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
        correction: int | float | None = None) -> Array:
    """``jnp.std``: ``sqrt(var(...))``."""
    _no_out("std", out)
    return lax.sqrt(_var("std", a, axis, dtype, _ddof("std", ddof, correction), keepdims, where, False))


def nanvar(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None) -> Array:
    """``jnp.nanvar``: ``var`` of the non-NaN elements."""
    _no_out("nanvar", out)
    return _var("nanvar", a, axis, dtype, ddof, keepdims, where, True)


def nanstd(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None) -> Array:
    """``jnp.nanstd``: ``sqrt(nanvar(...))``."""
    _no_out("nanstd", out)
    return lax.sqrt(_var("nanstd", a, axis, dtype, ddof, keepdims, where, True))


def _nan_to(x: Array, value: float) -> Array:
    if not is_inexact(x.dtype):  # (a complex value with a NaN part is NaN, as JAX's)
        return x
    return lax.select(tnp.isnan(x), tnp.full(x.shape, value, x.dtype), x)


def nansum(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
           keepdims: bool = False, initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``jnp.nansum``: ``sum`` with NaNs as zeros."""
    _no_out("nansum", out)
    x = _masked(_nan_to(tnp.asarray(a), 0.0), where, 0)
    s = tnp.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return s if initial is None else tnp.add(s, initial)


def nanprod(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
            keepdims: bool = False, initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``jnp.nanprod``: ``prod`` with NaNs as ones."""
    _no_out("nanprod", out)
    x = _masked(_nan_to(tnp.asarray(a), 1.0), where, 1)
    p = tnp.prod(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return p if initial is None else tnp.multiply(p, initial)


def nanmean(a: ArrayLike, axis: Axis = None, dtype: DType | type | None = None, out: None = None,
            keepdims: bool = False, where: ArrayLike | None = None) -> Array:
    """``jnp.nanmean``: the mean of the non-NaN elements (NaN where there are none)."""
    _no_out("nanmean", out)
    x = tnp.asarray(a)
    d = _inexact_dtype("nanmean", x, dtype)
    x = tnp.astype(x, d)
    keep = tnp.logical_not(tnp.isnan(x))
    mask = keep if where is None else tnp.logical_and(keep, where)
    total = tnp.sum(_masked(x, mask, 0.0), axis=axis, keepdims=keepdims)
    return lax.div(total, _count("nanmean", x, axis, keepdims, mask, d))


def _nan_extremum(op: str, reduce_max: bool, a: ArrayLike, axis: Axis, out: None, keepdims: bool,
                  initial: ArrayLike | None, where: ArrayLike | None) -> Array:
    _no_out(op, out)
    x = tnp.asarray(a)
    reduce = tnp.max if reduce_max else tnp.min
    if not is_inexact(x.dtype):
        y = x
    else:
        y = _nan_to(x, -np.inf if reduce_max else np.inf)
    if where is not None:
        if initial is None:
            raise PrimitiveTypeError(f"{op}: reduction operation '{op[3:]}' does not have an identity, "
                                     "so to use a where mask one has to specify 'initial'")
        fill = -np.inf if reduce_max else np.inf
        if not is_inexact(y.dtype):
            info = np.iinfo(y.dtype) if y.dtype != bool_ else None  # type: ignore[type-var]  # integer dtypes here
            fill = (info.min if reduce_max else info.max) if info is not None else (not reduce_max)
        y = _masked(y, where, fill)
    out_v = reduce(y, axis=axis, keepdims=keepdims)
    if initial is not None:
        out_v = (tnp.maximum if reduce_max else tnp.minimum)(out_v, initial)
    if not is_inexact(x.dtype) or initial is not None:  # (an initial value stands for an all-NaN slice, as JAX)
        return out_v
    all_nan = tnp.all(tnp.isnan(x), axis=axis, keepdims=keepdims)
    return lax.select(all_nan, tnp.full(out_v.shape, np.nan, out_v.dtype), out_v)


def nanmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``jnp.nanmax``: ``max`` ignoring NaNs (NaN where all are)."""
    return _nan_extremum("nanmax", True, a, axis, out, keepdims, initial, where)


def nanmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``jnp.nanmin``: ``min`` ignoring NaNs (NaN where all are)."""
    return _nan_extremum("nanmin", False, a, axis, out, keepdims, initial, where)


def _nan_arg(op: str, reduce_max: bool, a: ArrayLike, axis: int | None, keepdims: bool) -> Array:
    x = tnp.asarray(a)
    if not is_float(x.dtype):
        return (tnp.argmax if reduce_max else tnp.argmin)(x, axis=axis, keepdims=keepdims)
    y = _nan_to(x, -np.inf if reduce_max else np.inf)
    idx = (tnp.argmax if reduce_max else tnp.argmin)(y, axis=axis, keepdims=keepdims)
    all_nan = tnp.all(tnp.isnan(x), axis=axis, keepdims=keepdims)
    return lax.select(all_nan, tnp.full(idx.shape, -1, idx.dtype), idx)


def nanargmax(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Array:
    """``jnp.nanargmax``: ``argmax`` ignoring NaNs (-1 where all are NaN)."""
    _no_out("nanargmax", out)
    return _nan_arg("nanargmax", True, a, axis, bool(keepdims))


def nanargmin(a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Array:
    """``jnp.nanargmin``: ``argmin`` ignoring NaNs (-1 where all are NaN)."""
    _no_out("nanargmin", out)
    return _nan_arg("nanargmin", False, a, axis, bool(keepdims))


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    """``jnp.ptp``: ``max - min`` (not for bools, as JAX)."""
    _no_out("ptp", out)
    x = tnp.asarray(a)
    if x.dtype == bool_:
        raise PrimitiveTypeError("ptp: sub does not accept dtype bool (as JAX)")
    return lax.sub(tnp.max(x, axis=axis, keepdims=keepdims), tnp.min(x, axis=axis, keepdims=keepdims))


def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """``jnp.count_nonzero``: the number of nonzero elements (the default integer type)."""
    x = tnp.asarray(a)
    return tnp.sum(tnp.not_equal(x, tnp.zeros((), x.dtype)), axis=axis, dtype=default_int(), keepdims=keepdims)


@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: Literal[False] = False,
            keepdims: bool = False) -> Array: ...
@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, *, returned: Literal[True],
            keepdims: bool = False) -> tuple[Array, Array]: ...
@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: bool = False,
            keepdims: bool = False) -> Array | tuple[Array, Array]: ...
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, returned: bool = False,
            keepdims: bool = False) -> Array | tuple[Array, Array]:
    """``jnp.average``: the mean, or the ``weights``-weighted mean (``weights``
    of ``a``'s shape, or 1-d along a single ``axis``); with ``returned``, also
    the sum of the weights."""
    x = tnp.asarray(a)
    if weights is None:
        avg = tnp.mean(x, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        axes = tnp._axes("average", x.ndim, axis)
        n = math.prod(x.shape[i] for i in axes)
        return avg, tnp.full(avg.shape, n, avg.dtype)
    w = tnp.asarray(weights)
    xp, wp = tnp._promote(x, w)
    x2, w2 = tnp.asarray(tnp._float(xp)), tnp.asarray(tnp._float(wp))
    axes = tnp._axes("average", x2.ndim, axis)
    if w2.shape != x2.shape:
        if axis is None:
            raise PrimitiveTypeError("average: Axis must be specified when shapes of a and weights differ.")
        if len(axes) != 1 or w2.ndim != 1:
            raise PrimitiveTypeError("average: 1D weights expected when shapes of a and weights differ.")
        if w2.shape[0] != x2.shape[axes[0]]:
            raise PrimitiveTypeError("average: Length of weights not compatible with specified axis.")
        w2 = lax.broadcast_in_dim(w2, x2.shape, axes)
    scl = tnp.sum(w2, axis=axes, keepdims=keepdims)
    avg = lax.div(tnp.sum(lax.mul(x2, w2), axis=axes, keepdims=keepdims), scl)
    return (avg, scl) if returned else avg


# -- quantiles ---------------------------------------------------------------------------
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, a: ArrayLike, q: ArrayLike, axis: Axis, method: str, keepdims: bool,
              ignore_nan: bool) -> Array:
    if method not in _METHODS:
        raise ArgumentValueError(
            f"{op}: method can only be 'linear', 'lower', 'higher', 'midpoint' or 'nearest' "
            f"(JAX's 'inverted_cdf' is not supported), got {method!r}"
        )
    x0 = tnp.asarray(a)
    qa = tnp.asarray(q)
    if qa.ndim > 1:
        raise PrimitiveTypeError(f"{op}: q must be have rank <= 1, got shape {qa.shape}")
    xp, qp = tnp._promote(x0, qa) if not isinstance(q, (int, float)) else (x0, q)
    x = tnp.asarray(tnp._float(xp))
    d = x.dtype
    qv = tnp.astype(qp, d)
    axes = tnp._axes(op, x.ndim, axis)
    rest = [i for i in range(x.ndim) if i not in axes]
    rest_shape = tuple(x.shape[i] for i in rest)
    n = math.prod(x.shape[i] for i in axes)
    y = lax.reshape(lax.transpose(x, (*rest, *axes)), rest_shape + (n,))
    if not ignore_nan:
        has_nan = tnp.any(tnp.isnan(y), axis=-1, keepdims=True)
        y = lax.select(tnp.broadcast_to(has_nan, y.shape), tnp.full(y.shape, np.nan, d), y)
    y = lax.sort(y, dimension=len(rest_shape))
    nq = 1 if qv.ndim == 0 else qv.shape[0]
    qflat = lax.reshape(qv, (nq,))
    if ignore_nan:
        counts = tnp.sum(tnp.logical_not(tnp.isnan(y)), axis=-1, keepdims=True, dtype=d)
    else:
        counts = tnp.full(rest_shape + (1,), n, d)
    top = lax.sub(counts, np.asarray(1.0, d))
    pos = lax.mul(lax.broadcast_in_dim(qflat, rest_shape + (nq,), (len(rest_shape),)),
                  tnp.broadcast_to(top, rest_shape + (nq,)))
    low, high = lax.floor(pos), lax.ceil(pos)
    high_w = lax.sub(pos, low)
    low_w = lax.sub(np.asarray(1.0, d), high_w)
    topb = tnp.broadcast_to(top, pos.shape)
    zero = tnp.zeros(pos.shape, d)
    low = lax.max(zero, lax.min(low, topb))
    high = lax.max(zero, lax.min(high, topb))
    if n == 0:
        raise PrimitiveTypeError(f"{op}: cannot take a quantile of an empty axis")
    lo_v = take_along_axis(y, lax.convert_element_type(low, default_int()), -1, mode="clip")
    hi_v = take_along_axis(y, lax.convert_element_type(high, default_int()), -1, mode="clip")
    if method == "linear":
        r = lax.add(lax.mul(lo_v, low_w), lax.mul(hi_v, high_w))
    elif method == "lower":
        r = lo_v
    elif method == "higher":
        r = hi_v
    elif method == "nearest":
        r = lax.select(lax.le(high_w, np.asarray(0.5, d)), lo_v, hi_v)
    else:
        r = lax.mul(lax.add(lo_v, hi_v), np.asarray(0.5, d))
    r = moveaxis(r, -1, 0)  # (nq, *rest)
    if keepdims:
        full = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        r = lax.reshape(r, (nq,) + full)
    return r if qv.ndim == 1 else lax.reshape(r, r.shape[1:])


def quantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False) -> Array:
    """``jnp.quantile``: the ``q``-th quantiles (``q`` a scalar or 1-d, in
    [0, 1]) over ``axis``; NaN wherever a slice holds a NaN."""
    _no_out("quantile", out)
    return _quantile("quantile", a, q, axis, method, keepdims, False)


def nanquantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False) -> Array:
    """``jnp.nanquantile``: ``quantile`` of the non-NaN elements."""
    _no_out("nanquantile", out)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True)


def _percent(q: ArrayLike) -> ArrayLike:
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        return q / 100.0
    return tnp.divide(q, 100.0)


def percentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False) -> Array:
    """``jnp.percentile``: ``quantile(a, q / 100)``."""
    _no_out("percentile", out)
    return _quantile("percentile", a, _percent(q), axis, method, keepdims, False)


def nanpercentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False) -> Array:
    """``jnp.nanpercentile``: ``nanquantile(a, q / 100)``."""
    _no_out("nanpercentile", out)
    return _quantile("nanpercentile", a, _percent(q), axis, method, keepdims, True)


def median(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Array:
    """``jnp.median``: ``quantile(a, 0.5, method='midpoint')``."""
    _no_out("median", out)
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, False)


def nanmedian(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Array:
    """``jnp.nanmedian``: ``nanquantile(a, 0.5, method='midpoint')``."""
    _no_out("nanmedian", out)
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, True)


# -- covariance --------------------------------------------------------------------------
def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: ArrayLike | None = None, aweights: ArrayLike | None = None) -> Array:
    """``jnp.cov``: the covariance matrix of the variables (rows of ``m``, or
    columns when not ``rowvar``), with NumPy's ``bias``/``ddof`` and frequency
    and analytic weights."""
    if ddof is not None:
        _offset("cov", ddof)
    x = tnp.asarray(m)
    if x.ndim > 2:
        raise PrimitiveTypeError(f"cov: m has more than 2 dimensions, shape {x.shape}")
    X = atleast_2d(x)
    if not rowvar and X.shape[0] != 1:
        X = lax.transpose(X, (1, 0))
    if X.shape[0] == 0:
        return tnp.zeros((0, 0), tnp._inexact(X.dtype))
    if y is not None:
        ya = tnp.asarray(y)
        if ya.ndim > 2:
            raise PrimitiveTypeError(f"cov: y has more than 2 dimensions, shape {ya.shape}")
        Y = atleast_2d(ya)
        if not rowvar and Y.shape[0] != 1:
            Y = lax.transpose(Y, (1, 0))
        X = tnp.concatenate([X, Y], 0)
    X = tnp.asarray(tnp._float(X))
    d = X.dtype
    dof = (0 if bias else 1) if ddof is None else int(ddof)
    w: Array | None = None
    if fweights is not None:
        fw = tnp.asarray(fweights)
        if fw.ndim > 1 or fw.shape[0] != X.shape[1]:
            raise PrimitiveTypeError("cov: fweights must be 1-d with one weight per observation")
        if fw.dtype.kind not in "biu":
            raise PrimitiveTypeError("cov: fweights must be integer")
        w = tnp.astype(fw, d)
    if aweights is not None:
        aw = tnp.asarray(aweights)
        if aw.ndim > 1 or aw.shape[0] != X.shape[1]:
            raise PrimitiveTypeError("cov: aweights must be 1-d with one weight per observation")
        aw = tnp.astype(aw, d)
        w = aw if w is None else lax.mul(w, aw)
    if w is None:
        avg = tnp.mean(X, axis=1)
        w_sum = tnp.full((), X.shape[1], d)
        fact = lax.sub(w_sum, np.asarray(dof, d))
    else:
        avg, w_sum = average(X, axis=1, weights=w, returned=True)
        w_sum = lax.index_in_dim(w_sum, 0, 0, keepdims=False)
        if dof == 0:
            fact = w_sum
        elif aweights is None:
            fact = lax.sub(w_sum, np.asarray(dof, d))
        else:
            aw_ = tnp.astype(tnp.asarray(aweights), d)
            fact = lax.sub(w_sum, lax.div(lax.mul(np.asarray(dof, d), tnp.sum(lax.mul(w, aw_))), w_sum))
    Xc = tnp.subtract(X, lax.reshape(avg, (avg.shape[0], 1)))
    Xw = Xc if w is None else tnp.multiply(Xc, w)
    c = lax.dot_general(Xw, Xc, (((1,), (1,)), ((), ())))
    out = tnp.divide(c, fact)
    return lax.reshape(out, ()) if out.shape == (1, 1) else out


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True) -> Array:
    """``jnp.corrcoef``: ``cov`` normalized by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return lax.div(c, c)
    s = lax.sqrt(diag(c))
    c = lax.div(lax.div(c, lax.reshape(s, (s.shape[0], 1))), lax.reshape(s, (1, s.shape[0])))
    return tnp.clip(c, -1.0, 1.0)
