"""Set operations of ``jax.numpy`` (issue 12, group 6): the array API's
``unique_values``/``unique_counts``/``unique_inverse``/``unique_all``, and
``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d``. Their output
sizes depend on the values: they compute on concrete arrays (with NumPy),
padded or cut to ``size`` when it is given, as JAX's; a traced input raises
``ConcretizationError`` (``union1d`` with ``size`` also works traced)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.array import Array, ArrayImpl, ArrayLike
from ..core.dtypes import default_int
from ..core.errors import ConcretizationError
from ..core.trace import Tracer
from . import searching as _searching
from . import lax_numpy as tnp


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique4(op: str, x: ArrayLike) -> tuple[Array, Array, Array, Array]:
    out = _searching.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    if not isinstance(out, tuple) or len(out) != 4:
        raise ConcretizationError(f"{op}: expected unique's four results")
    return out[0], out[1], out[2], out[3]


def unique_values(x: ArrayLike, /) -> Array:
    """``jnp.unique_values``: the sorted distinct values (NaNs kept apart)."""
    out = _searching.unique(x, equal_nan=False)
    return out if isinstance(out, Array) else out[0]


def unique_counts(x: ArrayLike, /) -> UniqueCountsResult:
    """``jnp.unique_counts``: the distinct values and how often each occurs."""
    v, _, _, c = _unique4("unique_counts", x)
    return UniqueCountsResult(v, c)


def unique_inverse(x: ArrayLike, /) -> UniqueInverseResult:
    """``jnp.unique_inverse``: the distinct values and, for each element, its value's index."""
    v, _, inv, _ = _unique4("unique_inverse", x)
    return UniqueInverseResult(v, inv)


def unique_all(x: ArrayLike, /) -> UniqueAllResult:
    """``jnp.unique_all``: values, first indices, inverse indices and counts."""
    v, i, inv, c = _unique4("unique_all", x)
    return UniqueAllResult(v, i, inv, c)


def _concrete(op: str, *xs: ArrayLike) -> list[np.ndarray[tuple[int, ...], np.dtype[np.generic]]]:
    out = []
    for x in xs:
        a = tnp.asarray(x)
        if isinstance(a, Tracer) or not isinstance(a, ArrayImpl):
            raise ConcretizationError(
                f"{op}: the output's shape depends on the values of a traced array; compute it on concrete "
                "arrays (outside jit, vmap and grad)" + (" or pass a static size" if op == "union1d" else "")
            )
        out.append(np.asarray(a))
    return out


def _sized(values: np.ndarray[tuple[int, ...], np.dtype[np.generic]], size: int | None,
           fill_value: ArrayLike | None, default_fill: object) -> Array:
    if size is None:
        return tnp.asarray(values)
    k = values.shape[0]
    if k >= size:
        return tnp.asarray(values[:size])
    fill = default_fill if fill_value is None else np.asarray(fill_value)
    pad = np.full(size - k, fill, values.dtype)
    return tnp.asarray(np.concatenate([values, pad]))


def _result_dtype(*xs: ArrayLike) -> np.dtype[np.generic]:
    return tnp.result_type(*(tnp.asarray(x) for x in xs))


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value: ArrayLike | None = None) -> Array | tuple[Array, Array, Array]:
    """``jnp.intersect1d``: the sorted values in both (with their first indices
    in each when ``return_indices``); ``size`` pads with ``fill_value`` (default the smallest)."""
    a, b = _concrete("intersect1d", ar1, ar2)
    d = _result_dtype(ar1, ar2)
    vals, ia, ib = np.intersect1d(a.ravel().astype(d), b.ravel().astype(d), assume_unique=assume_unique,
                                  return_indices=True)
    out = _sized(vals, size, fill_value, vals[0] if vals.size else 0)
    if not return_indices:
        return out
    return (out, _sized(ia.astype(default_int()), size, None, 0), _sized(ib.astype(default_int()), size, None, 0))


def union1d(ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None) -> Array:
    """``jnp.union1d``: the sorted values in either (``unique`` of both, so a
    traced input works with ``size``)."""
    joined = tnp.concatenate([tnp.ravel(ar1), tnp.ravel(ar2)])
    out = _searching.unique(joined, size=size, fill_value=fill_value)
    return out if isinstance(out, Array) else out[0]


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
              fill_value: ArrayLike | None = None) -> Array:
    """``jnp.setdiff1d``: the sorted values of ``ar1`` not in ``ar2``; ``size``
    pads with ``fill_value`` (default 0)."""
    a, b = _concrete("setdiff1d", ar1, ar2)
    d = _result_dtype(ar1)
    vals = np.setdiff1d(a.ravel(), b.ravel(), assume_unique=assume_unique).astype(d)
    return _sized(vals, size, fill_value, 0)


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *, size: int | None = None,
             fill_value: ArrayLike | None = None) -> Array:
    """``jnp.setxor1d``: the sorted values in exactly one; ``size`` pads with
    ``fill_value`` (default the smallest)."""
    a, b = _concrete("setxor1d", ar1, ar2)
    d = _result_dtype(ar1, ar2)
    vals = np.setxor1d(a.ravel().astype(d), b.ravel().astype(d), assume_unique=assume_unique)
    return _sized(vals, size, fill_value, vals[0] if vals.size else 0)
