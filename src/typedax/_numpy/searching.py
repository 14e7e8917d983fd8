"""Searching and counting of ``jax.numpy`` (issue 12, group 3):
``searchsorted``, ``digitize``, ``nonzero``, ``flatnonzero``, ``argwhere``,
``unique``, ``bincount``, ``histogram``, ``histogram_bin_edges``.

The functions whose output shape depends on the values (``nonzero``,
``argwhere``, ``flatnonzero``, ``unique``, and ``bincount`` without
``length``) need a concrete input, or a static ``size=`` (``length=``) to
work on traced values, as in JAX; otherwise they raise
``ConcretizationError`` saying which argument to give."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayImpl, ArrayLike
from ..core.dtypes import DType, bool_, default_int, int32, int64, is_float
from ..core.errors import ArgumentValueError, ConcretizationError, PrimitiveTypeError, ShapeError
from ..core.ir import refuse_keys
from ..core.trace import Tracer
from . import functional as _functional
from . import indexing as _indexing
from . import manipulation as _manipulation
from . import lax_numpy as tnp
from .manipulation import atleast_1d, take
from .lax_numpy import _concrete, _fill_tuple, _need_static, _static_size, nonzero


def _sort_lt(x: Array, y: Array) -> Array:
    """``x < y`` in the sort order (NaNs last)."""
    lt = lax.lt(x, y)
    if not is_float(x.dtype):
        return lt
    return lax.bitwise_or(lt, lax.bitwise_and(tnp.isnan(y), lax.bitwise_not(tnp.isnan(x))))


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left", sorter: ArrayLike | None = None, *,
                 method: str = "scan") -> Array:
    """``jnp.searchsorted``: where ``v``'s elements would go in the sorted 1-d
    ``a`` (before equal elements for ``side='left'``, after for ``'right'``);
    int32 indices as JAX. Every method computes the same result here (a
    comparison of each value with all of ``a``)."""
    if side not in ("left", "right"):
        raise PrimitiveTypeError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise PrimitiveTypeError(f"searchsorted: invalid method {method!r}")
    x, y = (tnp.asarray(t) for t in tnp._promote(a, v))
    if x.ndim != 1:
        raise ShapeError(f"searchsorted: a should be 1-dimensional, got shape {x.shape}")
    if sorter is not None:
        x = take(x, sorter, mode="clip")
    n = x.shape[0]
    out_dtype = int32 if n <= np.iinfo(np.int32).max else int64
    shape = y.shape + (n,)
    xb = lax.broadcast_in_dim(x, shape, (y.ndim,))
    yb = lax.broadcast_in_dim(y, shape, tuple(range(y.ndim)))
    before = _sort_lt(xb, yb) if side == "left" else lax.bitwise_not(_sort_lt(yb, xb))
    return tnp.sum(before, axis=-1, dtype=out_dtype)


def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False, *, method: str | None = None) -> Array:
    """``jnp.digitize``: the index of the bin of each element of ``x`` (bins
    increasing or decreasing)."""
    b = tnp.asarray(bins)
    xa = tnp.asarray(x)
    if b.ndim != 1:
        raise PrimitiveTypeError(f"digitize: bins must be a 1-dimensional array; got bins.shape={b.shape}")
    if b.shape[0] == 0:
        return tnp.zeros(xa.shape, int32)
    side = "right" if not right else "left"
    m = "scan" if method is None else method
    up = searchsorted(b, xa, side=side, method=m)
    down = lax.sub(np.asarray(b.shape[0], int32), searchsorted(lax.rev(b, (0,)), xa, side=side, method=m))
    increasing = lax.ge(b[-1], b[0])
    return tnp.where(increasing, up, down)


def flatnonzero(a: ArrayLike, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """``jnp.flatnonzero``: ``nonzero(ravel(a))[0]``."""
    return nonzero(tnp.ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None) -> Array:
    """``jnp.argwhere``: the indices of the nonzero elements as rows of an
    ``(N, a.ndim)`` array (``size`` and ``fill_value`` as ``nonzero``)."""
    x = tnp.asarray(a)
    parts = nonzero(atleast_1d(x), size=size, fill_value=fill_value)
    result = lax.transpose(tnp.stack(parts), (1, 0))
    if x.ndim == 0:
        return lax.reshape(lax.slice_in_dim(result, 0, 0, axis=1), (result.shape[0], 0))
    return result


def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: ArrayLike | None = None,
           sorted: bool = True) -> Array | tuple[Array, ...]:  # noqa: A002 - JAX's name
    """``jnp.unique``: the sorted distinct values (rows along ``axis``), and
    as asked the first indices, the inverse and the counts. A concrete input
    computes with NumPy; a traced one needs ``size`` (then the values are
    padded with ``fill_value``, default the smallest value), and gives the
    values only (with ``axis=None``)."""
    x = tnp.asarray(ar)
    refuse_keys("unique", [x.aval])  # (JAX refuses them too; NumPy would sort their words)
    if size is not None:
        size = _static_size("unique", "size", size, 1)
    value = _concrete("unique", x, "size")
    d = default_int()
    if value is not None:
        res = np.unique(value, return_index=True, return_inverse=True, return_counts=True,
                        axis=axis, equal_nan=equal_nan)
        vals, index, inverse, counts = res
        if axis is None:
            inverse = inverse.reshape(value.shape) if value.ndim else inverse.reshape(())
        else:
            inverse = inverse.reshape(-1)
        if size is not None:
            ax = 0 if axis is None else axis % max(value.ndim, 1)
            k = vals.shape[ax]
            if k >= size:
                vals = np.take(vals, np.arange(size), axis=ax)
                index, counts = index[:size], counts[:size]
            else:
                if fill_value is None:
                    fill = np.take(vals, [0] * (size - k), axis=ax) if k else np.zeros(
                        vals.shape[:ax] + (size - k,) + vals.shape[ax + 1:], vals.dtype)
                else:
                    fill = np.full(vals.shape[:ax] + (size - k,) + vals.shape[ax + 1:], np.asarray(fill_value), vals.dtype)
                vals = np.concatenate([vals, fill], axis=ax)
                index = np.concatenate([index, np.zeros(size - k, index.dtype)])
                counts = np.concatenate([counts, np.zeros(size - k, counts.dtype)])
        outs: list[Array] = [tnp.asarray(vals)]
        if return_index:
            outs.append(tnp.asarray(index.astype(d)))
        if return_inverse:
            outs.append(tnp.asarray(inverse.astype(d)))
        if return_counts:
            outs.append(tnp.asarray(counts.astype(d)))
        return outs[0] if len(outs) == 1 else tuple(outs)
    if size is None:
        raise _need_static("unique", "size")
    if axis is not None or return_index or return_inverse or return_counts:
        raise PrimitiveTypeError(
            "unique: on a traced array typedax gives the values only (axis=None, no return_index/"
            "return_inverse/return_counts); compute those on a concrete array"
        )
    flat = lax.sort(tnp.ravel(x), dimension=0)
    n = flat.shape[0]
    if n == 0:
        return tnp.full((size,), 0 if fill_value is None else fill_value, x.dtype)
    new = lax.ne(lax.slice_in_dim(flat, 1, n), lax.slice_in_dim(flat, 0, n - 1))
    if equal_nan and is_float(flat.dtype):
        both_nan = lax.bitwise_and(tnp.isnan(lax.slice_in_dim(flat, 1, n)), tnp.isnan(lax.slice_in_dim(flat, 0, n - 1)))
        new = lax.bitwise_and(new, lax.bitwise_not(both_nan))
    first = lax.concatenate([tnp.full((1,), True, bool_), new], 0)
    (pos,) = nonzero(first, size=size, fill_value=0)
    vals_t = take(flat, pos, mode="clip")
    count = tnp.sum(first)
    fill_t = flat[0] if fill_value is None else tnp.astype(tnp.asarray(fill_value), x.dtype)
    return tnp.where(lax.ge(lax.iota(count.dtype, size), count), fill_t, vals_t)


def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *,
             length: int | None = None) -> Array:
    """``jnp.bincount``: the number of occurrences (or summed ``weights``) of
    each non-negative integer; negative values count as 0 and values past
    ``length`` are dropped, as JAX. Without ``length`` the input must be concrete."""
    xa = tnp.asarray(x)
    if xa.dtype == bool_:
        xa = lax.convert_element_type(xa, int32)
    if xa.dtype.kind not in "iu":
        raise PrimitiveTypeError(f"bincount: x argument to bincount must have an integer type; got {xa.dtype}")
    if xa.ndim != 1:
        raise PrimitiveTypeError("bincount: only 1-dimensional input supported.")
    if isinstance(minlength, bool) or not isinstance(minlength, (int, np.integer)):
        raise PrimitiveTypeError(f"bincount: minlength must be a static integer, got {minlength!r}")
    if length is None:
        value = _concrete("bincount", xa, "length")
        if value is None:
            raise _need_static("bincount", "length")
        n = max(int(minlength), int(max(0, value.max())) + 1 if value.size else 0)
    else:
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)):
            raise PrimitiveTypeError(f"bincount: length must be a static integer, got {length!r}")
        n = int(length)
    w: ArrayLike
    wd: DType
    if weights is None:
        w = np.asarray(1, default_int())
        wd = default_int()
    else:
        wa = tnp.asarray(weights)
        if wa.shape != xa.shape:
            raise PrimitiveTypeError(f"bincount: weights must have the shape of x, got {wa.shape} and {xa.shape}")
        w = wa
        wd = wa.dtype
    idx = lax.max(xa, np.zeros((), xa.dtype))
    return tnp.zeros((n,), wd).at[idx].add(w, mode="drop")


def histogram_bin_edges(a: ArrayLike, bins: ArrayLike | int = 10,
                        range: Sequence[ArrayLike] | None = None,  # noqa: A002 - JAX's name
                        weights: ArrayLike | None = None) -> Array:
    """``jnp.histogram_bin_edges``: ``bins + 1`` evenly spaced edges over
    ``range`` (default the data's min and max), or the given edges."""
    x = tnp.asarray(a)
    d: DType = tnp._inexact(x.dtype)
    if np.ndim(bins) == 1 or (isinstance(bins, Array) and bins.ndim == 1):
        return tnp.astype(tnp.asarray(bins), d)
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise PrimitiveTypeError(f"histogram: bins must be a static integer or a 1-d array of edges, got {bins!r}")
    if range is None:
        lo, hi = tnp.astype(tnp.min(x), d), tnp.astype(tnp.max(x), d)
    else:
        if len(range) != 2:
            raise PrimitiveTypeError(f"histogram: range must be a pair (lower, upper), got {range!r}")
        lo, hi = tnp.astype(tnp.asarray(range[0]), d), tnp.astype(tnp.asarray(range[1]), d)
    same = lax.eq(lo, hi)
    lo = tnp.where(same, lax.sub(lo, np.asarray(0.5, d)), lo)
    hi = tnp.where(same, lax.add(hi, np.asarray(0.5, d)), hi)
    return tnp.linspace(lo, hi, int(bins) + 1, dtype=d)


def histogram(a: ArrayLike, bins: ArrayLike | int = 10,
              range: Sequence[ArrayLike] | None = None,  # noqa: A002 - JAX's name
              weights: ArrayLike | None = None, density: bool | None = None) -> tuple[Array, Array]:
    """``jnp.histogram``: the counts (or summed ``weights``; a density with
    ``density``) of ``a``'s elements in each bin, and the bin edges."""
    x = tnp.ravel(tnp.asarray(tnp._float(tnp.asarray(a))))
    edges = histogram_bin_edges(x, bins, range, weights)
    nb = edges.shape[0]
    idx = searchsorted(edges, x, side="right")
    idx = tnp.where(tnp.equal(x, edges[-1]), nb - 1, idx)
    w = tnp.ones_like(x) if weights is None else tnp.ravel(tnp.asarray(weights))
    counts = tnp.zeros((nb,), w.dtype).at[idx].add(w)[1:]
    if density:
        widths = _manipulation.diff(edges)
        counts = tnp.divide(tnp.divide(counts, widths), tnp.sum(counts))
    return counts, edges


def histogramdd(sample: ArrayLike, bins: ArrayLike | int | Sequence[ArrayLike | int] = 10,
                range: Sequence[Sequence[ArrayLike] | None] | None = None,  # noqa: A002 - JAX's name
                weights: ArrayLike | None = None, density: bool | None = None) -> tuple[Array, list[Array]]:
    """``jnp.histogramdd``: the counts (or summed ``weights``; a density with
    ``density``) of the ``N`` points of ``sample`` (``N x D``) in each of the
    ``D``-dimensional bins, and the edges per dimension (issue 29, item 7)."""
    if weights is None:
        (s,) = (tnp.asarray(tnp._float(tnp.asarray(sample))),)
        w = None
    else:
        s0, w0 = tnp.asarray(sample), tnp.asarray(weights)
        if w0.shape != s0.shape[:1]:
            raise ArgumentValueError("should have one weight for each sample.")
        s, w = (tnp.asarray(tnp._float(v)) for v in tnp._promote(s0, w0))
    if s.ndim != 2:
        raise ArgumentValueError(f"histogramdd: sample must be 2-dimensional (N, D), got shape {s.shape}")
    n, dims = s.shape
    if range is not None and (len(range) != dims or builtins.any(r is not None and len(r) != 2 for r in range)):
        raise ArgumentValueError(f"For sample.shape={(n, dims)}, range must be a sequence of {dims} pairs or Nones; got {range=}")
    per_dim: list[ArrayLike | int]
    if isinstance(bins, Sequence):
        per_dim = list(bins)
    elif np.ndim(bins) == 0:
        per_dim = [bins] * dims
    else:
        per_dim = [b for b in np.asarray(bins)]
    if len(per_dim) != dims:
        raise ArgumentValueError("should be a bin for each dimension.")
    idxs: list[Array] = []
    edges: list[Array] = []
    for i in builtins.range(dims):
        col = s[:, i]
        e = histogram_bin_edges(col, per_dim[i], None if range is None else range[i], w)
        idx = searchsorted(e, col, side="right")
        idxs.append(tnp.where(tnp.equal(col, e[-1]), tnp.subtract(idx, 1), idx))
        edges.append(e)
    nbins = tuple(e.shape[0] + 1 for e in edges)
    flat = _functional.ravel_multi_index(idxs, nbins, mode="clip")
    hist = tnp.reshape(bincount(flat, w, length=math.prod(nbins)), nbins)
    hist = hist[(slice(1, -1),) * dims]
    if density:
        hist = tnp.astype(hist, s.dtype)
        hist = tnp.divide(hist, tnp.sum(hist))
        for norm in _indexing.ix_(*[_manipulation.diff(e) for e in edges]):
            hist = tnp.divide(hist, norm)
    return hist, edges


def histogram2d(x: ArrayLike, y: ArrayLike, bins: ArrayLike | int | Sequence[ArrayLike | int] = 10,
                range: Sequence[Sequence[ArrayLike] | None] | None = None,  # noqa: A002 - JAX's name
                weights: ArrayLike | None = None, density: bool | None = None) -> tuple[Array, Array, Array]:
    """``jnp.histogram2d``: ``histogramdd`` of the points ``(x[i], y[i])``;
    ``bins`` an int, a pair, or one array of edges for both."""
    xa, ya = (tnp.asarray(v) for v in tnp._promote(x, y))
    nb = len(bins) if isinstance(bins, Sequence) else bins.shape[0] if isinstance(bins, (Array, np.ndarray)) and bins.ndim else 1
    if nb not in (1, 2):  # one array of edges for both
        e = tnp.asarray(bins)
        bins = [e, e]
    sample = tnp.transpose(tnp.stack([xa, ya]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ArrayLike | str | None = None,
           right: ArrayLike | str | None = None, period: ArrayLike | None = None) -> Array:
    """``jnp.interp``: piecewise-linear interpolation of the points ``(xp, fp)``
    (``xp`` increasing) at ``x``; ``left``/``right`` (default ``fp[0]``/``fp[-1]``)
    outside, or ``'extrapolate'``; periodic with ``period``."""
    xa, xpa, fpa = (tnp.asarray(tnp._float(v)) for v in tnp._promote(tnp.asarray(x), tnp.asarray(xp), tnp.asarray(fp)))
    if xpa.ndim != 1 or fpa.ndim != 1:
        raise PrimitiveTypeError(f"interp: xp and fp must be one-dimensional, got shapes {xpa.shape} and {fpa.shape}")
    if xpa.shape != fpa.shape:
        raise ShapeError(f"interp: xp and fp must be the same size, got {xpa.shape[0]} and {fpa.shape[0]}")
    if xpa.shape[0] == 0:
        raise PrimitiveTypeError("interp: xp and fp must not be empty")
    if period is not None:
        if np.ndim(np.asarray(period)) != 0 if not isinstance(period, Array) else period.ndim != 0:
            raise PrimitiveTypeError(f"interp: period must be a scalar; got {period!r}")
        pa = tnp.abs(tnp.astype(tnp.asarray(period), xa.dtype))
        xa = tnp.remainder(xa, pa)
        xpa = tnp.remainder(xpa, pa)
        xpa, fpa = lax.sort_key_val(xpa, fpa)
        xpa = tnp.concatenate([tnp.subtract(xpa[-1:], pa), xpa, tnp.add(xpa[:1], pa)])
        fpa = tnp.concatenate([fpa[-1:], fpa, fpa[:1]])
    n = xpa.shape[0]
    i = tnp.clip(searchsorted(xpa, xa, side="right"), 1, max(n - 1, 1))
    i64 = tnp.astype(i, default_int())
    lo = lax.sub(i64, np.ones((), i64.dtype))
    hi = i64 if n > 1 else lo
    df = tnp.subtract(take(fpa, hi, mode="clip"), take(fpa, lo, mode="clip"))
    dx = tnp.subtract(take(xpa, hi, mode="clip"), take(xpa, lo, mode="clip"))
    delta = tnp.subtract(xa, take(xpa, lo, mode="clip"))
    eps = np.spacing(np.finfo(xa.dtype).eps)  # type: ignore[type-var]  # a float dtype here
    dx0 = tnp.less_equal(tnp.abs(dx), eps)
    f = tnp.where(dx0, take(fpa, lo, mode="clip"),
                  tnp.add(take(fpa, lo, mode="clip"), tnp.multiply(tnp.divide(delta, tnp.where(dx0, 1.0, dx)), df)))
    if period is None:
        if isinstance(left, str):
            if left != "extrapolate":
                raise PrimitiveTypeError(f"interp: the only valid string value of left is 'extrapolate', got {left!r}")
        else:
            f = tnp.where(tnp.less(xa, xpa[0]), fpa[0] if left is None else left, f)
        if isinstance(right, str):
            if right != "extrapolate":
                raise PrimitiveTypeError(f"interp: the only valid string value of right is 'extrapolate', got {right!r}")
        else:
            f = tnp.where(tnp.greater(xa, xpa[-1]), fpa[-1] if right is None else right, f)
    return f
