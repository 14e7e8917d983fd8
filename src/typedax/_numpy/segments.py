"""``jax.ops``: segment reductions (``segment_sum``, ``segment_prod``,
``segment_max``, ``segment_min``) over the ``scatter`` primitives, as JAX
builds them: an array of the reduction's identity, ``(num_segments,) +
data.shape[1:]``, into which each row of ``data`` is scattered at its
segment id. Ids are not wrapped (a negative id is out of bounds): with the
default ``mode`` (``'fill'``/``'drop'``) out-of-bounds ids are dropped,
``'clip'`` clamps them. Differentiable and batchable as the scatters are.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, bool_, is_float, is_complex
from ..core.errors import ArgumentValueError, IndexingError
from ..core.trace import Tracer, aval_of
from . import lax_numpy as tnp

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]

_Reducer = Callable[..., Array]


def _check_arraylike(name: str, *args: object) -> None:
    for i, a in enumerate(args):
        if not isinstance(a, (Array, np.ndarray, np.generic, bool, int, float, complex)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at position {i}.")


def _identity(scatter: _Reducer, dtype: DType) -> bool | int | float:
    """The scatter's identity in ``dtype`` (as JAX's ``_get_identity``)."""
    if scatter is lax.scatter_add:
        return 0
    if scatter is lax.scatter_mul:
        return 1
    low = scatter is lax.scatter_max
    if dtype == bool_:
        return not low
    if is_float(dtype) or is_complex(dtype):
        return -math.inf if low else math.inf
    info = np.iinfo(np.dtype(dtype.name))
    return int(info.min) if low else int(info.max)


def _num_segments(name: str, ids: Array, num_segments: object) -> int:
    if num_segments is None:
        why = f"{name}() `num_segments` argument (the default is max(segment_ids) + 1)"
        value = ids.concrete(why) if isinstance(ids, Tracer) else np.asarray(ids)
        return int(np.max(value)) + 1
    if isinstance(num_segments, Tracer):
        num_segments.concrete(f"{name}() `num_segments` argument")
    n = operator.index(num_segments)  # type: ignore[arg-type]  # TypeError for a non-integer, as JAX's
    if n < 0:
        raise ValueError("num_segments must be non-negative.")
    return n


def _broadcast(name: str, x: Array, shape: tuple[int, ...]) -> Array:
    """``data`` broadcast to the shape the segment ids index (a ``ValueError``, as JAX's)."""
    lead = len(shape) - x.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(x.shape, shape[lead:])):
        raise ArgumentValueError(
            f"{name}: data of shape {x.shape} does not broadcast to {shape} "
            "(segment_ids.shape + data.shape[1:])"
        )
    return tnp.broadcast_to(x, shape)


def _segment_update(
    name: str, data: ArrayLike, segment_ids: ArrayLike, scatter: _Reducer, reducer: _Reducer,
    num_segments: int | None, indices_are_sorted: bool, unique_indices: bool,
    bucket_size: int | None, mode: object,
) -> Array:
    _check_arraylike(name, data, segment_ids)
    x = tnp.asarray(data)
    ids = tnp.asarray(segment_ids)
    if not np.issubdtype(np.dtype(aval_of(ids).dtype.name), np.integer):
        raise IndexingError(f"{name}: segment_ids must be integers, got {aval_of(ids).str_short()}")
    dtype = x.dtype
    n = _num_segments(name, ids, num_segments)
    rest = x.shape[1:]
    kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
              mode="fill" if mode is None else mode)
    if bucket_size is None:
        out = tnp.full((n, *rest), _identity(scatter, dtype), dtype=dtype)
        upd = _broadcast(name, x, ids.shape + rest)
        dn = lax.ScatterDimensionNumbers(
            update_window_dims=tuple(range(ids.ndim, ids.ndim + len(rest))),
            inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
        )
        return scatter(out, tnp.expand_dims(ids, -1), upd, dn, **kw)
    size = operator.index(bucket_size)
    if size <= 0:
        raise ValueError(f"{name}: bucket_size must be positive, got {size}")
    if ids.ndim != 1:
        raise IndexingError(f"{name}: bucketing takes one-dimensional segment_ids, got {aval_of(ids).str_short()}")
    count = ids.shape[0]
    buckets = -(-count // size)
    out = tnp.full((buckets, n, *rest), _identity(scatter, dtype), dtype=dtype)
    which = tnp.asarray(np.arange(count) // size, dtype=ids.dtype)
    indices = tnp.stack([which, ids], axis=-1)
    upd = _broadcast(name, x, (count, *rest))
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(range(1, 1 + len(rest))),
        inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1),
    )
    return tnp.astype(reducer(scatter(out, indices, upd, dn, **kw), axis=0), dtype)


def segment_sum(
    data: ArrayLike, segment_ids: ArrayLike, num_segments: int | None = None,
    indices_are_sorted: bool = False, unique_indices: bool = False,
    bucket_size: int | None = None, mode: object = None,
) -> Array:
    """``jax.ops.segment_sum``: the sum of the rows of ``data`` in each
    segment, shape ``(num_segments,) + data.shape[1:]`` (``num_segments``
    defaults to ``max(segment_ids) + 1``, which needs a concrete value)."""
    return _segment_update("segment_sum", data, segment_ids, lax.scatter_add, tnp.sum, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def segment_prod(
    data: ArrayLike, segment_ids: ArrayLike, num_segments: int | None = None,
    indices_are_sorted: bool = False, unique_indices: bool = False,
    bucket_size: int | None = None, mode: object = None,
) -> Array:
    """``jax.ops.segment_prod``: the product within each segment (1 for an empty one)."""
    return _segment_update("segment_prod", data, segment_ids, lax.scatter_mul, tnp.prod, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def segment_max(
    data: ArrayLike, segment_ids: ArrayLike, num_segments: int | None = None,
    indices_are_sorted: bool = False, unique_indices: bool = False,
    bucket_size: int | None = None, mode: object = None,
) -> Array:
    """``jax.ops.segment_max``: the maximum within each segment (``-inf``, the
    dtype's minimum or False for an empty one)."""
    return _segment_update("segment_max", data, segment_ids, lax.scatter_max, tnp.max, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def segment_min(
    data: ArrayLike, segment_ids: ArrayLike, num_segments: int | None = None,
    indices_are_sorted: bool = False, unique_indices: bool = False,
    bucket_size: int | None = None, mode: object = None,
) -> Array:
    """``jax.ops.segment_min``: the minimum within each segment (``inf``, the
    dtype's maximum or True for an empty one)."""
    return _segment_update("segment_min", data, segment_ids, lax.scatter_min, tnp.min, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)
