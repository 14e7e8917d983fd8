"""Partial and multi-key sorts of ``jax.numpy`` (issue 12, group 5):
``partition``, ``argpartition`` (JAX's two ``top_k`` calls, so the order
inside each part is JAX's), ``lexsort``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_int
from ..core.errors import PrimitiveTypeError
from . import lax_numpy as tnp
from .manipulation import swapaxes


def _kth(op: str, kth: object, n: int) -> int:
    if isinstance(kth, bool) or not isinstance(kth, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: kth must be a static integer, got {kth!r}")
    return tnp._axis(op, kth, n)


def _bottom_operand(x: Array) -> Array:
    """``-x`` ordered as ``x`` reversed (unsigned: ``-(x + 1)``, as JAX)."""
    if x.dtype.kind == "u":
        return lax.neg(lax.add(x, np.ones((), x.dtype)))
    return lax.neg(x)


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """``jnp.partition``: the ``kth`` element in its sorted place, the smaller
    ones before it and the larger after (each part in ``top_k``'s order)."""
    x = tnp.asarray(a)
    ax = tnp._axis("partition", axis, x.ndim)
    k = _kth("partition", kth, x.shape[ax])
    arr = swapaxes(x, ax, -1)
    n = arr.shape[-1]
    low = lax.top_k(_bottom_operand(arr), k + 1)[0]
    bottom = lax.sub(lax.neg(low), np.ones((), x.dtype)) if x.dtype.kind == "u" else lax.neg(low)
    top = lax.top_k(arr, n - k - 1)[0]
    return swapaxes(lax.concatenate([bottom, top], arr.ndim - 1), -1, ax)


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """``jnp.argpartition``: the indices that ``partition`` would order."""
    x = tnp.asarray(a)
    ax = tnp._axis("argpartition", axis, x.ndim)
    k = _kth("argpartition", kth, x.shape[ax])
    arr = swapaxes(x, ax, -1)
    n = arr.shape[-1]
    bottom_ind = lax.top_k(_bottom_operand(arr), k + 1)[1]
    shape = arr.shape[:-1] + (k + 1, n)
    iota = lax.broadcasted_iota(bottom_ind.dtype, shape, arr.ndim)
    hit = lax.eq(iota, lax.broadcast_in_dim(bottom_ind, shape, tuple(range(arr.ndim))))
    taken = lax.reduce_or(hit, (arr.ndim - 1,))
    proxy = lax.select(taken, tnp.zeros(arr.shape, np.float32), tnp.ones(arr.shape, np.float32))
    top_ind = lax.top_k(proxy, n - k - 1)[1]
    return swapaxes(lax.concatenate([bottom_ind, top_ind], arr.ndim - 1), -1, ax)


def lexsort(keys: Sequence[ArrayLike] | ArrayLike, axis: int = -1) -> Array:
    """``jnp.lexsort``: the indices sorting by the last key, then the one
    before it, ... (a stable multi-key sort)."""
    if isinstance(keys, Array) or isinstance(keys, np.ndarray):
        key_list = [tnp.asarray(keys[i]) for i in range(keys.shape[0])] if keys.ndim else []
    else:
        key_list = [tnp.asarray(k) for k in keys]  # type: ignore[union-attr]  # a sequence of keys here
    if not key_list:
        raise PrimitiveTypeError("lexsort: need sequence of keys with len > 0 in lexsort")
    if len({k.shape for k in key_list}) > 1:
        raise PrimitiveTypeError("lexsort: all keys need to be the same shape")
    if key_list[0].ndim == 0:
        return tnp.zeros((), default_int())
    ax = tnp._axis("lexsort", axis, key_list[0].ndim)
    iota = lax.broadcasted_iota(default_int(), key_list[0].shape, ax)
    out = lax.sort([*key_list[::-1], iota], dimension=ax, num_keys=len(key_list))
    return out[-1]


def sort_complex(a: ArrayLike) -> Array:
    """``jnp.sort_complex``: sorted along the last axis (complex numbers by
    real part, then imaginary part), as the complex type of ``a``'s
    (complex128 for 64-bit operands, complex64 otherwise)."""
    x = tnp.asarray(a)
    out = lax.sort(x, dimension=x.ndim - 1)
    wide = x.dtype in (np.dtype(np.float64), np.dtype(np.complex128), np.dtype(np.int64), np.dtype(np.uint64))
    return tnp.astype(out, np.complex128 if wide else np.complex64)
