"""Index helpers of ``jax.numpy`` (issue 12, group 5): ``tril_indices``,
``triu_indices``, ``diag_indices`` (and their ``_from`` forms),
``unravel_index``, ``fill_diagonal``, ``put_along_axis``, ``select``,
``delete``, ``compress``, ``extract``."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import bool_, default_int
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from ..core.trace import Tracer
from .manipulation import along_axis, along_axis_operands
from . import elementwise as _elementwise
from . import lax_numpy as tnp
from .lax_numpy import nonzero
from .manipulation import broadcast_arrays, moveaxis, take, tile


def _static(op: str, what: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be a static integer, got {v!r}")
    return int(v)


def _index_arrays(parts: Sequence[np.ndarray[tuple[int, ...], np.dtype[np.intp]]]) -> tuple[Array, ...]:
    return tuple(tnp.asarray(p.astype(default_int())) for p in parts)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """``jnp.tril_indices``: the row and column indices of the lower triangle."""
    r, c = np.tril_indices(_static("tril_indices", "n", n), _static("tril_indices", "k", k),
                           None if m is None else _static("tril_indices", "m", m))
    rr, cc = _index_arrays([r, c])
    return rr, cc


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """``jnp.triu_indices``: the row and column indices of the upper triangle."""
    r, c = np.triu_indices(_static("triu_indices", "n", n), _static("triu_indices", "k", k),
                           None if m is None else _static("triu_indices", "m", m))
    rr, cc = _index_arrays([r, c])
    return rr, cc


def _shape2(op: str, arr: ArrayLike) -> tuple[int, int]:
    s = _elementwise.shape(arr)
    if len(s) != 2:
        raise PrimitiveTypeError(f"{op}: input array must be 2-D, got shape {s}")
    return s[0], s[1]


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``jnp.tril_indices_from``: ``tril_indices`` of a 2-d array's shape."""
    n, m = _shape2("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``jnp.triu_indices_from``: ``triu_indices`` of a 2-d array's shape."""
    n, m = _shape2("triu_indices_from", arr)
    return triu_indices(n, k, m)


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """``jnp.diag_indices``: ``ndim`` copies of ``arange(n)``."""
    nn, nd = _static("diag_indices", "n", n), _static("diag_indices", "ndim", ndim)
    if nn < 0 or nd < 0:
        raise PrimitiveTypeError(f"diag_indices: n and ndim must be non-negative, got n={nn}, ndim={nd}")
    return _index_arrays([np.arange(nn)] * nd)


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """``jnp.diag_indices_from``: ``diag_indices`` of an array whose axes are of one length."""
    s = _elementwise.shape(arr)
    if len(s) < 2:
        raise PrimitiveTypeError("diag_indices_from: input array must be at least 2-d")
    if len(set(s)) != 1:
        raise PrimitiveTypeError("diag_indices_from: All dimensions of input must be of equal length")
    return diag_indices(s[0], len(s))


def unravel_index(indices: ArrayLike, shape: int | Sequence[int]) -> tuple[Array, ...]:
    """``jnp.unravel_index``: flat indices as one index array per axis of
    ``shape`` (out-of-bounds indices clipped, as JAX)."""
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    idx = tnp.asarray(indices)
    out: list[Array] = [idx] * len(dims)
    rest = idx
    for i in reversed(range(len(dims))):
        s = _static("unravel_index", "shape", dims[i])
        rest, out[i] = tnp.floor_divide(rest, s), tnp.remainder(rest, s)
    oob_pos = tnp.greater(rest, 0)
    oob_neg = tnp.less(rest, -1) if idx.dtype.kind != "u" else tnp.full(rest.shape, False, bool_)
    return tuple(tnp.where(oob_pos, int(s) - 1, tnp.where(oob_neg, 0, o)) for s, o in zip(dims, out))


def fill_diagonal(a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True) -> Array:
    """``jnp.fill_diagonal`` with ``inplace=False`` (arrays are immutable, as JAX's)."""
    if inplace:
        raise PrimitiveTypeError("fill_diagonal: JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise PrimitiveTypeError("fill_diagonal: wrap=True is not implemented, must use wrap=False")
    x, v = tnp.asarray(a), tnp.asarray(val)
    if x.ndim < 2:
        raise PrimitiveTypeError("fill_diagonal: array must be at least 2-d")
    if x.ndim > 2 and not all(n == x.shape[0] for n in x.shape[1:]):
        raise PrimitiveTypeError("fill_diagonal: All dimensions of input must be of equal length")
    n = builtins.min(x.shape)
    values = v if v.ndim == 0 else lax.slice_in_dim(tile(tnp.ravel(v), -(-n // builtins.max(v.size, 1))), 0, n)
    return x.at[diag_indices(n, x.ndim)].set(values)


def put_along_axis(arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Array:
    """``jnp.put_along_axis`` with ``inplace=False``: ``values`` placed at
    ``indices`` along ``axis`` (the indexing of ``take_along_axis``)."""
    if inplace:
        raise PrimitiveTypeError("put_along_axis: JAX arrays are immutable, must use inplace=False")
    x = tnp.asarray(arr)
    flat, idx, ax = along_axis_operands("put_along_axis", x, indices, axis)
    index, _ = along_axis(flat.shape, idx, ax, "drop" if mode is None else mode)
    return lax.reshape(flat.at[index].set(values, mode="drop" if mode is None else mode), x.shape)


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0) -> Array:
    """``jnp.select``: where each condition first holds, its choice; ``default`` elsewhere."""
    if len(condlist) != len(choicelist):
        raise PrimitiveTypeError(
            f"select: condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if not condlist:
        raise PrimitiveTypeError("select: condlist must be non-empty")
    for c in condlist:
        if tnp.asarray(c).dtype != bool_:
            raise PrimitiveTypeError(f"select: condlist must be boolean arrays, got {tnp.asarray(c).dtype}")
    choices = tnp._promote(default, *choicelist)
    out: ArrayLike = choices[0]
    for cond, choice in zip(reversed(condlist), reversed(choices[1:])):
        out = tnp.where(cond, choice, out)
    return tnp.asarray(out)


def delete(arr: ArrayLike, obj: ArrayLike | slice | Sequence[int], axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Array:
    """``jnp.delete`` with static ``obj`` (an int, a slice, or indices): the
    array without those entries along ``axis`` (of the flattened array when None)."""
    x = tnp.asarray(arr)
    if axis is None:
        x, ax = tnp.ravel(x), 0
    else:
        ax = tnp._axis("delete", axis, x.ndim)
    if isinstance(obj, Tracer):
        raise PrimitiveTypeError("delete: obj must be static (concrete indices or a slice), not traced")
    n = x.shape[ax]
    spec = obj if isinstance(obj, slice) else np.asarray(obj)
    if not isinstance(spec, slice) and spec.dtype.kind not in "iu" and spec.size:
        raise PrimitiveTypeError(f"delete: obj must be integers or a slice, got {obj!r}")
    if not isinstance(spec, slice) and spec.size and ((spec >= n) | (spec < -n)).any():
        raise PrimitiveTypeError(f"delete: index out of bounds for axis {ax} with size {n}: {obj!r}")
    keep = np.delete(np.arange(n), spec)
    return take(x, keep.astype(np.int64), axis=ax)


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *, size: int | None = None,
             fill_value: ArrayLike = 0, out: None = None) -> Array:
    """``jnp.compress``: the slices of ``a`` along ``axis`` where ``condition``
    (1-d) holds; a traced condition needs ``size`` (padded with ``fill_value``)."""
    if out is not None:
        raise PrimitiveTypeError("compress: The 'out' argument to jnp.compress is not supported.")
    cond = tnp.asarray(condition)
    if cond.ndim != 1:
        raise PrimitiveTypeError(f"compress: condition must be a 1D array, got shape {cond.shape}")
    x = tnp.asarray(a)
    if axis is None:
        x, ax = tnp.ravel(x), 0
    else:
        ax = tnp._axis("compress", axis, x.ndim)
    n = builtins.min(cond.shape[0], x.shape[ax])
    x = lax.slice_in_dim(x, 0, n, axis=ax)
    cond = lax.slice_in_dim(cond, 0, n)
    (idx,) = nonzero(cond, size=size)
    if size is None:
        return take(x, idx, axis=ax)
    taken = take(x, idx, axis=ax, mode="clip")
    count = tnp.sum(tnp.not_equal(cond, tnp.zeros((), cond.dtype)))
    valid = lax.lt(lax.iota(count.dtype, size), lax.broadcast_in_dim(count, (size,), ()))
    shape = tuple(size if i == ax else 1 for i in range(taken.ndim))
    return tnp.where(lax.reshape(valid, shape), taken, tnp.astype(tnp.asarray(fill_value), x.dtype))


def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: ArrayLike = 0) -> Array:
    """``jnp.extract``: ``compress(ravel(condition), ravel(arr))``."""
    return compress(tnp.ravel(condition), tnp.ravel(arr), size=size, fill_value=fill_value)


s_ = np.s_
index_exp = np.index_exp


def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """``jnp.ix_``: 1-d index arrays shaped to broadcast against each other
    (an open mesh for ``x[ix_(rows, cols)]``)."""
    out: list[Array] = []
    for i, a in enumerate(args):
        x = tnp.asarray(a)
        if x.ndim != 1:
            raise PrimitiveTypeError(f"ix_: Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {x.shape}")
        if x.dtype == bool_:
            raise PrimitiveTypeError("ix_: Boolean arguments to jax.numpy.ix_ are not supported.")
        out.append(lax.reshape(x, tuple(x.shape[0] if j == i else 1 for j in range(len(args)))))
    return tuple(out)


def choose(a: ArrayLike, choices: Sequence[ArrayLike], out: None = None, mode: str = "raise") -> Array:
    """``jnp.choose``: ``choices[a[i]][i]`` (all broadcast); ``mode`` ``'wrap'``
    or ``'clip'`` (JAX does not support ``'raise'``)."""
    if out is not None:
        raise PrimitiveTypeError("choose: The 'out' argument to jnp.choose is not supported.")
    if mode == "raise":
        raise PrimitiveTypeError("choose: The 'raise' mode to jnp.choose is not supported.")
    if mode not in ("wrap", "clip"):
        raise PrimitiveTypeError(f"choose: mode should be one of 'wrap', 'clip', or 'raise'; got {mode!r}")
    idx = tnp.asarray(a)
    if idx.dtype.kind not in "iu":
        raise PrimitiveTypeError(f"choose: a must be integers, got {idx.dtype}")
    n = len(choices)
    if n == 0:
        raise PrimitiveTypeError("choose: choices must not be empty")
    idx = tnp.remainder(idx, n) if mode == "wrap" else tnp.clip(idx, 0, n - 1)
    arrays = broadcast_arrays(idx, *tnp._promote(*choices))
    idx_b, rest = arrays[0], arrays[1:]
    out_v = rest[0]
    for i in range(1, n):
        out_v = tnp.where(tnp.equal(idx_b, i), rest[i], out_v)
    return out_v


def insert(arr: ArrayLike, obj: ArrayLike | slice, values: ArrayLike, axis: int | None = None) -> Array:
    """``jnp.insert``: ``values`` inserted before the indices ``obj`` (a
    scalar, a 1-d array -- traced too -- or a slice) along ``axis`` (the
    flattened array when None), as JAX computes it: the new positions by a
    sort of the indices, then two scatters."""
    a = tnp.asarray(arr)
    if axis is None:
        a, ax = tnp.ravel(a), 0
    else:
        ax = tnp._axis("insert", axis, a.ndim)
    n_input = a.shape[ax]
    if isinstance(obj, slice):
        indices = tnp.asarray(np.arange(*obj.indices(n_input)))
    else:
        indices = tnp.asarray(obj)
    if indices.ndim > 1:
        raise PrimitiveTypeError(f"insert: obj must be a slice, a one-dimensional array, or a scalar; got {obj!r}")
    if indices.dtype.kind not in "iu":
        if indices.size == 0 and not isinstance(obj, Array):
            indices = tnp.astype(indices, default_int())
        else:
            raise PrimitiveTypeError(f"insert: index array must be integer typed; got {obj!r}")
    v = tnp.astype(tnp.asarray(values), a.dtype)
    if v.ndim < a.ndim:
        v = lax.reshape(v, (1,) * (a.ndim - v.ndim) + v.shape)
    if indices.size == 1:
        index = lax.reshape(indices, ())
        if indices.ndim == 0:
            v = moveaxis(v, 0, ax)
        indices = tnp.full((v.shape[ax],), index)
    n_insert = int(np.broadcast_shapes(indices.shape, (v.shape[ax],))[0])
    indices = tnp.broadcast_to(indices, (n_insert,))
    out_shape = tuple(d + n_insert if i == ax else d for i, d in enumerate(a.shape))
    out = tnp.zeros(out_shape, a.dtype)
    indices = tnp.where(tnp.less(indices, 0), tnp.add(indices, n_input), indices)
    indices = tnp.clip(indices, 0, n_input)
    order = tnp.argsort(indices)
    values_ind = indices.at[order].add(lax.iota(indices.dtype, n_insert))
    mask = tnp.full((n_input + n_insert,), True, bool_).at[values_ind].set(False)
    (arr_ind,) = nonzero(mask, size=n_input)
    lead = (slice(None),) * ax
    out = out.at[lead + (values_ind,)].set(v)
    return out.at[lead + (arr_ind,)].set(a)


def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True) -> Array:
    """``jnp.put`` with ``inplace=False``: ``v`` (tiled to ``ind``'s size) at the
    flat indices ``ind``; out of bounds dropped, clipped (``'clip'``) or wrapped (``'wrap'``)."""
    if inplace:
        raise PrimitiveTypeError(
            "put: jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. "
            "Pass inplace=False to instead return an updated array."
        )
    x = tnp.asarray(a)
    idx = tnp.ravel(tnp.asarray(ind))
    vals = tnp.ravel(tnp.asarray(v))
    if not x.size or not idx.size or not vals.size:
        return x
    if vals.shape[0] != idx.shape[0]:
        vals = lax.slice_in_dim(tile(vals, -(-idx.shape[0] // vals.shape[0])), 0, idx.shape[0])
    scatter_mode = "drop"
    if mode == "clip":
        idx, scatter_mode = tnp.clip(idx, 0, x.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        idx, scatter_mode = tnp.remainder(idx, x.size), "promise_in_bounds"
    elif mode == "raise":
        raise PrimitiveTypeError("put: The 'raise' mode to jnp.put is not supported.")
    elif mode is not None:
        raise PrimitiveTypeError(f"put: mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return x.at[unravel_index(idx, x.shape)].set(vals, mode=scatter_mode)


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Array:
    """``jnp.place`` with ``inplace=False`` (issue 29, item 7): the elements
    of ``arr`` where ``mask`` is true, in order, become ``vals`` (repeated
    as needed); works on traced masks (a static-size ``where``)."""
    data, m, v = tnp.asarray(arr), tnp.asarray(mask), tnp.ravel(tnp.asarray(vals))
    if inplace:
        raise ArgumentValueError(
            "jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. "
            "Pass inplace=False to instead return an updated array.")
    if data.size != m.size:
        raise ArgumentValueError("place: arr and mask must be the same size")
    if not v.size:
        raise ArgumentValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    (idx,) = nonzero(tnp.ravel(m), size=m.size, fill_value=m.size)
    if v.shape[0] != m.size:
        v = lax.slice_in_dim(tile(v, -(-m.size // v.shape[0])), 0, m.size)
    return tnp.reshape(tnp.ravel(data).at[idx].set(v, mode="drop"), data.shape)


def mask_indices(n: int, mask_func: Callable[[Array, int], Array], k: int = 0, *,
                 size: int | None = None) -> tuple[Array, Array]:
    """``jnp.mask_indices``: the indices of the nonzero entries of
    ``mask_func(ones((n, n)), k)`` (e.g. ``jnp.triu``); ``size`` as ``nonzero``'s."""
    i, j = nonzero(mask_func(tnp.ones((_static("mask_indices", "n", n), n)), k), size=size)
    return i, j
