"""NumPy indexing of typedax arrays (``x[idx]``) and indexed updates
(``x.at[idx].set(y)``), as jax.numpy does them, over the ``slice``,
``dynamic_slice``, ``gather`` and ``scatter`` primitives.

An index is read as NumPy reads it: integers, slices (with steps, negative
too), ``None``, one ``Ellipsis``, integer arrays (advanced indexing, which
broadcast together; their dimensions go where the first of them stands when
they stand together, else first, as NumPy places them) and boolean masks
with a concrete value (a mask's true count sets the result's shape, so a
traced mask is refused). A non-tuple list is refused, as JAX refuses it.

Which primitives a get becomes, cheapest first (as jax.numpy chooses):

- only static integers, slices and ``None``: ``slice`` (``rev`` for negative
  steps, ``squeeze`` for integers), never a gather;
- scalar traced integers among them (steps of 1): ``dynamic_slice``;
- anything else: one ``gather``.

An eager get on a concrete array with a concrete index is NumPy's own
indexing after the index is made JAX's (negative entries of integer arrays
wrapped, then clamped into range): the same values the primitives give,
without building them.

Out of bounds, as JAX (its "sharp bits"): a get clamps, static integers as
well as integer arrays and traced integers (``mode=None`` is XLA's
promise-in-bounds gather, which clamps; so ``x[11]`` of ten elements is
``x[9]``, and ``x[-11]`` wraps once to -1 and clamps to ``x[0]``).
``x.at[idx].get(mode='fill', fill_value=...)`` (or ``'drop'``) fills
instead. Updates (``x.at[idx].set`` and the rest) drop out-of-bounds indices
unless ``mode='clip'``; negative indices wrap first. A static integer into
an axis of size 0 is an ``IndexingError`` (an ``IndexError``) in every mode,
as JAX's.

``typedax.config.update('jax_check_static_indices', True)`` (JAX's option,
off by default as in JAX) makes a static integer out of range in a get with
``mode=None`` or ``'promise_in_bounds'`` an ``IndexingError`` instead, for
users who want the mistake caught. It is read while the get is traced;
changing it drops every ``jit``'s traces (JAX keys its cache on it).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, Union

import numpy as np

from .. import lax
from ..core.array import Array, ArrayImpl, ArrayLike, from_numpy
from ..core.config import EAGER_ON_DEVICE, check_static_indices
from ..core.dtypes import EXTENDED, DType, bool_, int32, int64, is_float
from ..core.errors import IndexingError, ShapeError
from ..core.ir import NDArray
from ..core.ir import Params
from ..core.trace import Tracer, Value, aval_of, bind1
from ..primitives._params import params_of
from ..primitives.shaping import squeeze_p
from ..primitives.slicing import convert_index, slice_p
from . import lax_numpy as tnp
from ..core.errors import NonConcreteBooleanIndexError  # JAX's class for a traced mask (issue 29 item 7: errors)

#: A concrete integer array or a traced one.
IndexArray: TypeAlias = Union[NDArray, Array]


@dataclass(frozen=True, slots=True)
class _Adv:
    """An integer-array index (advanced), concrete (``NDArray``) or traced."""

    value: IndexArray

    @property
    def shape(self) -> tuple[int, ...]:
        return aval_of(self.value).shape


class _NewAxis(enum.Enum):
    """``None`` (a new axis of size 1), or ``False`` (a new axis of size 0)."""

    ONE = 1
    EMPTY = 0


#: One index after parsing: a static integer, a static slice, a new axis, or
#: an integer array (a traced scalar integer is a 0-d ``_Adv``).
Elem: TypeAlias = Union[int, slice, _NewAxis, _Adv]


def index_str(idx: object) -> str:
    """``idx`` as written between brackets, for messages: ``1:3, None, ...``."""

    def one(i: object) -> str:
        if isinstance(i, slice):
            parts = ["" if p is None else str(p) for p in (i.start, i.stop, i.step)]
            return ":".join(parts[:2] if i.step is None else parts)
        if i is Ellipsis:
            return "..."
        if isinstance(i, Array):
            return f"<{i.aval.str_short()}>"
        if isinstance(i, np.ndarray):
            return f"<{i.dtype.name}{list(i.shape)} array>"
        return repr(i)

    items = idx if isinstance(idx, tuple) else (idx,)
    return f"x[{', '.join(one(i) for i in items)}]"


def _fail(idx: object, shape: tuple[int, ...], why: str) -> IndexingError:
    return IndexingError(f"{index_str(idx)} on an array of shape {shape}: {why}")


def _static_int(v: object) -> int | None:
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    return None


def _slice_part(idx: object, shape: tuple[int, ...], p: object) -> int | None:
    if p is None:
        return None
    i = _static_int(p)
    if i is not None:
        return i
    if isinstance(p, ArrayImpl) and p.ndim == 0 and p.dtype.kind in "iu":
        return int(p.to_numpy())
    if isinstance(p, np.ndarray) and p.ndim == 0 and p.dtype.kind in "iu":
        return int(p)
    raise _fail(
        idx, shape,
        f"slice bounds must be static integers or None, got {type(p).__name__}"
        + (" (a traced value: use lax.dynamic_slice for a slice of static size "
           "at a traced position)" if isinstance(p, Tracer) else ""),
    )


def _array_index(idx: object, shape: tuple[int, ...], i: object) -> IndexArray | None:
    """``i`` as an array index, or None when it is not an array."""
    if isinstance(i, ArrayImpl):
        v: IndexArray = i.to_numpy()
    elif isinstance(i, (Array, np.ndarray)):
        v = i
    elif isinstance(i, np.generic):
        v = np.asarray(i)
    elif isinstance(i, (list, tuple)):
        try:
            v = np.asarray(i)
        except ValueError as e:
            raise _fail(idx, shape, f"a ragged sequence is not an index ({e})") from None
        if v.size == 0:
            v = v.astype(int64)
    else:
        return None
    kind = aval_of(v).dtype.kind
    if kind not in "iub":
        raise _fail(idx, shape, f"indexer must have integer or boolean type, got {aval_of(v).dtype.name}")
    return v


def parse(idx: object, shape: tuple[int, ...], *, check_bounds: bool) -> tuple[list[Elem], bool]:
    """``idx`` on an array of ``shape``, as a list of elements that cover every
    axis, and whether the advanced indices stand together (which puts their
    dimensions where they stand rather than first). Static integers are
    wrapped once (they may stay out of range: gets clamp them, updates drop
    them); with ``check_bounds`` one out of range is an error, and one into
    an axis of size 0 always is."""
    if isinstance(idx, list):
        raise _fail(
            idx, shape,
            "a non-tuple sequence is not an index (JAX refuses it too): write "
            "x[tnp.asarray(seq)] for an integer-array index or x[tuple(seq)] for "
            "one index per axis",
        )
    items = idx if isinstance(idx, tuple) else (idx,)
    # first pass: classify; count the axes each consumes
    raw: list[object] = []
    consumed = 0
    ellipses = 0
    for i in items:
        if i is None or i is Ellipsis:
            ellipses += i is Ellipsis
            raw.append(i)
            continue
        if isinstance(i, slice):
            raw.append(i)
            consumed += 1
            continue
        if isinstance(i, (bool, np.bool_)):
            raw.append(_NewAxis.ONE if i else _NewAxis.EMPTY)
            continue
        n = _static_int(i)
        if n is not None:
            raw.append(n)
            consumed += 1
            continue
        a = _array_index(idx, shape, i)
        if a is None:
            raise _fail(
                idx, shape,
                f"indexer must have integer or boolean type, got {type(i).__name__}"
                if isinstance(i, (float, complex)) else f"a {type(i).__name__} is not an index",
            )
        ad = aval_of(a)
        if ad.dtype == bool_ and ad.ndim == 0:
            if isinstance(a, Tracer):
                raise _fail(idx, shape, "a traced boolean scalar is not an index")
            raw.append(_NewAxis.ONE if bool(np.asarray(a)) else _NewAxis.EMPTY)
            continue
        raw.append(a)
        consumed += ad.ndim if ad.dtype == bool_ else 1
    if ellipses > 1:
        raise _fail(idx, shape, "an index can have only one ellipsis ('...')")
    if consumed > len(shape):
        raise _fail(
            idx, shape,
            f"too many indices: the array is {len(shape)}-dimensional, but {consumed} were indexed",
        )
    adv_pos = [k for k, r in enumerate(raw) if isinstance(r, int) or _is_array(r)]
    together = all(b - a == 1 for a, b in zip(adv_pos, adv_pos[1:]))
    if ellipses == 0:
        raw.append(Ellipsis)
    # second pass: expand the ellipsis and boolean masks, wrap integers
    out: list[Elem] = []
    axis = 0
    for r in raw:
        if r is Ellipsis:
            for _ in range(len(shape) - consumed):
                out.append(slice(None))
                axis += 1
        elif r is None:
            out.append(_NewAxis.ONE)
        elif isinstance(r, _NewAxis):
            out.append(r)
        elif isinstance(r, slice):
            start = _slice_part(idx, shape, r.start)
            stop = _slice_part(idx, shape, r.stop)
            step = _slice_part(idx, shape, r.step)
            if step == 0:
                raise _fail(idx, shape, "slice step cannot be zero")
            out.append(slice(start, stop, step))
            axis += 1
        elif isinstance(r, int):
            n = shape[axis]
            if n == 0 or (check_bounds and not -n <= r < n):
                raise _fail(idx, shape, f"index {r} is out of bounds for axis {axis} with size {n}")
            out.append(r + n if r < 0 else r)
            axis += 1
        else:
            assert isinstance(r, (np.ndarray, Array))
            av = aval_of(r)
            if av.dtype == bool_:
                if isinstance(r, Tracer):  # JAX's NonConcreteBooleanIndexError (issue 29 item 7: errors)
                    raise NonConcreteBooleanIndexError(
                        f"{index_str(idx)} on an array of shape {shape}: "
                        "a boolean mask must be concrete (its number of True entries sets the "
                        f"result's shape); this one is traced ({av.str_short()}). Use "
                        "tnp.where(mask, x, other) instead"
                    )
                covered = shape[axis: axis + av.ndim]
                if av.shape != covered:
                    raise _fail(
                        idx, shape,
                        f"a boolean mask of shape {av.shape} does not match the indexed "
                        f"dimensions {covered} (axes {axis}..{axis + av.ndim - 1})",
                    )
                for nz in np.nonzero(np.asarray(r)):
                    out.append(_Adv(nz.astype(int64)))
                    axis += 1
            else:
                out.append(_Adv(r))
                axis += 1
    return out, together


def _is_array(r: object) -> bool:
    return isinstance(r, (np.ndarray, Array))


def _is_advanced(elems: Sequence[Elem]) -> bool:
    """NumPy's advanced indexing: an integer array of rank >= 1 is present
    (then integers broadcast with the arrays)."""
    return any(isinstance(e, _Adv) and len(e.shape) > 0 for e in elems)


# -- static and dynamic slicing -----------------------------------------------------
def _clamp(i: int, n: int) -> int:
    """A static index (wrapped once) clamped into an axis of size ``n`` > 0,
    as the promise-in-bounds and clip gathers clamp."""
    return min(max(i, 0), n - 1)


def _static_get(x: Array, elems: Sequence[Elem]) -> Array:
    """``x[elems]`` for static integers, slices and new axes: ``slice`` then
    ``rev``, ``squeeze`` and ``expand_dims`` (never a gather); an integer out
    of range clamps."""
    shape = aval_of(x).shape
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    rev_axes: list[int] = []
    squeeze_axes: list[int] = []
    for e in elems:
        if isinstance(e, _NewAxis):
            continue
        d = len(starts)
        n = shape[d]
        if isinstance(e, int):
            i = _clamp(e, n)
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_axes.append(d)
            continue
        assert isinstance(e, slice)
        start, stop, step = e.indices(n)
        size = len(range(start, stop, step))
        if step > 0:
            lo, hi = start, start + (size - 1) * step + 1 if size else start
        else:
            lo = start + (size - 1) * step if size else 0
            hi = start + 1 if size else 0
            rev_axes.append(d)
        starts.append(lo)
        limits.append(hi)
        strides.append(abs(step))
    y: Array = x
    if tuple(starts) != (0,) * len(shape) or tuple(limits) != shape or any(s != 1 for s in strides):
        y = lax.slice(y, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev_axes:
        y = lax.rev(y, rev_axes)
    if squeeze_axes:
        y = lax.squeeze(y, squeeze_axes)
    return _basic_new_axes(y, elems)


def _basic_new_axes(y: Array, elems: Sequence[Elem]) -> Array:
    """``y``, the result of a basic index without its new axes, with them put
    back where the index has them (integers leave no axis, slices one)."""
    new_axes: list[int] = []
    empty_axes: list[int] = []
    out_axis = 0
    for e in elems:
        if isinstance(e, _NewAxis):
            new_axes.append(out_axis)
            if e is _NewAxis.EMPTY:
                empty_axes.append(out_axis)
        elif not isinstance(e, slice):
            continue
        out_axis += 1
    return _new_axes(y, new_axes, empty_axes)


def _new_axes(y: Array, new_axes: Sequence[int], empty_axes: Sequence[int]) -> Array:
    if new_axes:
        y = lax.expand_dims(y, new_axes)
    if empty_axes:
        shape = aval_of(y).shape
        limits = [0 if k in empty_axes else d for k, d in enumerate(shape)]
        y = lax.slice(y, [0] * len(shape), limits)
    return y


def _normalized(i: IndexArray, n: int) -> IndexArray:
    """Negative entries of an integer index wrapped by ``n`` (unsigned ones stay)."""
    if aval_of(i).dtype.kind == "u":
        return i
    if isinstance(i, np.ndarray):
        return np.where(np.less(i, 0), i + np.asarray(n, i.dtype), i)
    return lax.select(lax.lt(i, 0), lax.add(i, n), i)


def _index_dtype(shape: tuple[int, ...]) -> DType:
    return int32 if all(d < 2**31 for d in shape) else int64


def _as_index(i: IndexArray, dtype: DType) -> IndexArray:
    """``i`` in the index dtype ``dtype``, saturated where it does not fit:
    every axis is shorter than ``dtype``'s maximum (``_index_dtype``), so a
    value that does not fit stays out of bounds on the same side."""
    out = convert_index(i, dtype)
    assert isinstance(out, (np.ndarray, Array))
    return out


def _index_of(i: IndexArray, n: int, dtype: DType) -> IndexArray:
    """An integer index into an axis of size ``n`` in the index dtype, its
    negative entries wrapped. Converted first, then wrapped in the index
    dtype, which holds ``i + n`` (wrapping in a narrow dtype such as int8
    would overflow on an axis longer than 127)."""
    return _normalized(_as_index(i, dtype), n) if aval_of(i).dtype.kind == "i" else _as_index(i, dtype)


def _dynamic_get(x: Array, elems: Sequence[Elem]) -> Array:
    """``x[elems]`` with scalar traced integers and unit-step slices:
    ``dynamic_slice`` (which clamps, as the gather it replaces does)."""
    shape = aval_of(x).shape
    dtype = _index_dtype(shape)
    starts: list[ArrayLike] = []
    sizes: list[int] = []
    squeeze_axes: list[int] = []
    for e in elems:
        if isinstance(e, _NewAxis):
            continue
        d = len(starts)
        if isinstance(e, slice):
            start, stop, _ = e.indices(shape[d])
            starts.append(start)
            sizes.append(len(range(start, stop)))
            continue
        if isinstance(e, int):
            starts.append(_clamp(e, shape[d]))  # already wrapped: dynamic_slice must not wrap it again
        else:
            # lax.dynamic_slice wraps negatives: a signed index at least as wide
            # as the index dtype goes in as it is (as JAX's); a narrower or
            # unsigned one is converted first (int8 -1 + 200 would overflow)
            v, vd = e.value, aval_of(e.value).dtype
            starts.append(v if vd.kind == "i" and vd.itemsize >= dtype.itemsize else _as_index(v, dtype))
        sizes.append(1)
        squeeze_axes.append(d)
    y = lax.dynamic_slice(x, starts, sizes)
    if squeeze_axes:
        y = lax.squeeze(y, squeeze_axes)
    return _basic_new_axes(y, elems)


# -- the general case: one gather (or scatter) ----------------------------------------
@dataclass(frozen=True)
class GatherPlan:
    """``x[idx]`` as one gather: its indices and dimension numbers, and what
    follows it (reversed dimensions, new axes)."""

    indices: IndexArray
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    slice_sizes: tuple[int, ...]
    slice_shape: tuple[int, ...]  # the result's shape, new axes included
    reversed_dims: tuple[int, ...]
    new_axes: tuple[int, ...]
    empty_axes: tuple[int, ...]
    advanced: bool  # advanced indices present: may repeat, may be unsorted


def _broadcast_shapes(idx: object, xshape: tuple[int, ...], shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise _fail(idx, xshape, f"index arrays of shapes {list(shapes)} do not broadcast together") from None


def plan_gather(idx: object, shape: tuple[int, ...], elems: Sequence[Elem], together: bool) -> GatherPlan:
    """The gather that computes ``x[elems]`` (JAX's ``_index_to_gather``)."""
    dtype = _index_dtype(shape)
    advanced = _is_advanced(elems)
    adv_at: list[int] = []  # positions in elems of the advanced indices
    x_adv: list[int] = []  # the axes of x they index
    axis = 0
    for k, e in enumerate(elems):
        if isinstance(e, _NewAxis):
            continue
        if advanced and isinstance(e, (int, _Adv)):
            adv_at.append(k)
            x_adv.append(axis)
        axis += 1

    pieces: list[tuple[IndexArray, int]] = []  # (index array, first dim in the index shape)
    index_shape: list[int] = []
    offset_dims: list[int] = []
    collapsed: list[int] = []
    start_map: list[int] = []
    slice_sizes: list[int] = []
    slice_shape: list[int] = []
    reversed_dims: list[int] = []
    new_axes: list[int] = []
    empty_axes: list[int] = []
    x_axis = 0
    y_axis = 0  # in the result, new axes included
    collapsed_y = 0  # in the gather's result, without new axes
    for k, e in enumerate(elems):
        if adv_at and k == (adv_at[0] if together else 0):
            arrs: list[IndexArray] = []
            for p, ax in zip(adv_at, x_adv):
                a = elems[p]
                # static integers were wrapped when parsed; arrays wrap here
                if isinstance(a, int):
                    arrs.append(np.asarray(a, dtype))
                elif isinstance(a, _Adv):
                    arrs.append(_index_of(a.value, shape[ax], dtype))
            bshape = _broadcast_shapes(idx, shape, [aval_of(a).shape for a in arrs])
            start = len(index_shape)
            pieces.extend((_broadcast(a, bshape), start) for a in arrs)
            index_shape.extend(bshape)
            start_map.extend(x_adv)
            collapsed.extend(x_adv)
            slice_shape.extend(bshape)
            y_axis += len(bshape)
            collapsed_y += len(bshape)
        if k in adv_at:
            x_axis += 1
            slice_sizes.append(1)
            continue
        if isinstance(e, _NewAxis):
            slice_shape.append(1 if e is _NewAxis.ONE else 0)
            new_axes.append(y_axis)
            if e is _NewAxis.EMPTY:
                empty_axes.append(y_axis)
            y_axis += 1
            continue
        n = shape[x_axis]
        if isinstance(e, (int, _Adv)):  # a scalar (static or traced) in basic indexing
            if n == 0:
                raise _fail(idx, shape, f"index into axis {x_axis} of size 0")
            v = np.asarray(e, dtype) if isinstance(e, int) else _index_of(e.value, n, dtype)
            pieces.append((v, len(index_shape)))
            collapsed.append(x_axis)
            slice_sizes.append(1)
            start_map.append(x_axis)
            x_axis += 1
            continue
        assert isinstance(e, slice)
        start, stop, step = e.indices(n)
        size = len(range(start, stop, step))
        slice_shape.append(size)
        if step == 1:
            if size != n:
                pieces.append((np.asarray(start, dtype), len(index_shape)))
                start_map.append(x_axis)
            slice_sizes.append(size)
            offset_dims.append(collapsed_y)
        else:
            ind = np.arange(size, dtype=dtype) * step + start
            if step < 0:
                reversed_dims.append(collapsed_y)
                ind = ind[::-1]
            slice_sizes.append(1)
            pieces.append((ind, len(index_shape)))
            start_map.append(x_axis)
            index_shape.append(size)
            collapsed.append(x_axis)
        collapsed_y += 1
        y_axis += 1
        x_axis += 1
    return GatherPlan(
        indices=_stack_indices(pieces, index_shape, dtype),
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed)),
        start_index_map=tuple(start_map),
        slice_sizes=tuple(slice_sizes),
        slice_shape=tuple(slice_shape),
        reversed_dims=tuple(reversed_dims),
        new_axes=tuple(new_axes),
        empty_axes=tuple(empty_axes),
        advanced=bool(adv_at),
    )


def _broadcast(a: IndexArray, shape: tuple[int, ...]) -> IndexArray:
    if aval_of(a).shape == shape:
        return a
    if isinstance(a, np.ndarray):
        return np.broadcast_to(a, shape)
    return lax.broadcast_in_dim(a, shape, tuple(range(len(shape) - a.ndim, len(shape))))


def _stack_indices(pieces: Sequence[tuple[IndexArray, int]], index_shape: Sequence[int], dtype: DType) -> IndexArray:
    """The gather's index array: each piece broadcast over ``index_shape``
    (its dimensions from its start), stacked along a new last dimension.
    Concrete pieces stay NumPy (a constant under tracing)."""
    shape = tuple(index_shape)
    if not pieces:
        return np.zeros((0,), dtype)
    full: list[IndexArray] = []
    for a, start in pieces:
        nd = aval_of(a).ndim
        if isinstance(a, np.ndarray):
            expanded = a.reshape((1,) * start + a.shape + (1,) * (len(shape) - start - nd))
            full.append(np.broadcast_to(expanded, shape))
        elif aval_of(a).shape == shape:
            full.append(a)
        else:
            full.append(lax.broadcast_in_dim(a, shape, tuple(range(start, start + nd))))
    if all(isinstance(a, np.ndarray) for a in full):
        return np.stack([np.asarray(a) for a in full], axis=-1)
    columns = [lax.expand_dims(a, (len(shape),)) for a in full]
    return columns[0] if len(columns) == 1 else lax.concatenate(columns, len(shape))


# -- gets ----------------------------------------------------------------------------
_MODES = ("clip", "fill", "drop", "promise_in_bounds")


def _mode_name(mode: object) -> str | None:
    """The mode as a lower-case string (``None`` for the default)."""
    if mode is None:
        return None
    name = getattr(mode, "name", mode)
    s = str(name).lower()
    s = {"fill_or_drop": "fill", "drop": "fill"}.get(s, s)  # one mode in JAX: a get fills, an update drops
    if s not in _MODES:
        raise ValueError(f"unknown indexing mode {mode!r}: expected one of {_MODES}")
    return s


def _wrapped(v: NDArray, n: int) -> NDArray:
    """A concrete index's negative entries wrapped by ``n``, in int64 (``v + n``
    in a narrow dtype such as int8 would overflow)."""
    if v.dtype.kind == "u":
        return v
    w = v.astype(np.int64)
    return np.where(w < 0, w + n, w)


def _host_indexing(x: ArrayImpl) -> bool:
    """Whether a concrete array is indexed with NumPy on the host: not on an
    accelerator (``EAGER_ON_DEVICE``), where the gather or scatter runs on the
    device as JAX's does -- typed keys aside, which stay on the host."""
    return not EAGER_ON_DEVICE[0] or x.aval.dtype in EXTENDED


def _numpy_get(idx: object, x: ArrayImpl, elems: Sequence[Elem]) -> Array | None:
    """``x[elems]`` by NumPy's own indexing, when everything is concrete;
    None when some index is traced (or indexes an empty axis)."""
    np_idx: list[Any] = []  # NumPy's own index types
    shape = x.aval.shape
    if _is_advanced(elems):  # NumPy's own broadcasting error would not name the index
        _broadcast_shapes(idx, shape, [e.shape for e in elems if isinstance(e, _Adv)])
    axis = 0
    for e in elems:
        if isinstance(e, _NewAxis):
            np_idx.append(None if e is _NewAxis.ONE else False)
            continue
        if isinstance(e, _Adv):
            v = e.value
            if not isinstance(v, np.ndarray) or shape[axis] == 0:
                return None
            n = shape[axis]
            np_idx.append(np.clip(_wrapped(v, n), 0, n - 1))
        elif isinstance(e, int):
            np_idx.append(_clamp(e, shape[axis]))  # parse refused an axis of size 0
        else:
            np_idx.append(e)
        axis += 1
    return from_numpy(np.asarray(x.to_numpy()[tuple(np_idx)]), x.aval.weak_type)


_PLANS: dict[tuple[object, ...], tuple[Params | None, Params | None]] = {}


def _ints_and_colons(idx: object, shape: tuple[int, ...]) -> tuple[Params | None, Params | None] | None:
    """The ``slice`` and ``squeeze`` params of ``x[idx]`` when ``idx`` is
    Python ints in bounds and ``:``s (``qkv[:, :, i]``, the common traced
    index), remembered per index and shape; ``None`` for any other index
    (``parse`` and ``_static_get`` then give the same equations, and the
    errors). Saves most of a traced ``x[:, :, i]``'s cost."""
    items = idx if type(idx) is tuple else (idx,)
    if len(items) > len(shape):
        return None
    key: list[object] = [shape]
    for i in items:
        if type(i) is int:
            key.append(i)
        elif type(i) is slice and i.start is None and i.stop is None and i.step is None:
            key.append(None)
        else:
            return None
    k = tuple(key)
    plan = _PLANS.get(k)
    if plan is None:
        starts, limits, squeeze = [0] * len(shape), list(shape), []
        for d, i in enumerate(items):
            if type(i) is int:
                n = shape[d]
                if not -n <= i < n:
                    return None  # the general path: clamped, or the opt-in bounds error
                starts[d] = i + n if i < 0 else i
                limits[d] = starts[d] + 1
                squeeze.append(d)
        whole = starts == [0] * len(shape) and limits == list(shape)
        plan = (
            None if whole else params_of(
                ("start_indices", tuple(starts)), ("limit_indices", tuple(limits)), ("strides", None)
            ),
            params_of(("dimensions", tuple(squeeze))) if squeeze else None,
        )
        if len(_PLANS) >= 4096:
            _PLANS.clear()
        _PLANS[k] = plan
    return plan


def getitem(
    x: Array, idx: object, *, mode: object = None, fill_value: ArrayLike | None = None,
    indices_are_sorted: bool = False, unique_indices: bool = False,
) -> Array:
    """``x[idx]`` (and ``x.at[idx].get(...)``), as jax.numpy computes it."""
    if mode is None and type(x) is not ArrayImpl:
        cut = _ints_and_colons(idx, x.aval.shape)
        if cut is not None:
            sliced = x if cut[0] is None else bind1(slice_p, (x,), cut[0])
            return sliced if cut[1] is None else bind1(squeeze_p, (sliced,), cut[1])
    m = _mode_name(mode)
    shape = x.aval.shape
    elems, together = parse(idx, shape, check_bounds=m in (None, "promise_in_bounds") and check_static_indices())
    if m != "fill":
        # (NumPy's own indexing places separated advanced indices as JAX does,
        # except across an ellipsis that stands for no axes: JAX's rule then)
        if isinstance(x, ArrayImpl) and together and _host_indexing(x):
            got = _numpy_get(idx, x, elems)
            if got is not None:
                return got
        if all(isinstance(e, (int, slice, _NewAxis)) for e in elems):
            return _static_get(x, elems)
        if not _is_advanced(elems) and all(not isinstance(e, slice) or e.step in (None, 1) for e in elems):
            return _dynamic_get(x, elems)
    plan = plan_gather(idx, shape, elems, together)
    if 0 in plan.slice_shape:
        return from_numpy(np.zeros(plan.slice_shape, x.dtype))
    y: Array = x
    if aval_of(plan.indices).size:
        y = lax.gather(
            x, plan.indices,
            lax.GatherDimensionNumbers(
                offset_dims=plan.offset_dims,
                collapsed_slice_dims=plan.collapsed_slice_dims,
                start_index_map=plan.start_index_map,
            ),
            plan.slice_sizes,
            unique_indices=unique_indices or not plan.advanced,
            indices_are_sorted=indices_are_sorted or not plan.advanced,
            mode="promise_in_bounds" if m is None else m,
            fill_value=fill_value,
        )
    if plan.reversed_dims:
        y = lax.rev(y, plan.reversed_dims)
    return _new_axes(y, plan.new_axes, plan.empty_axes)


# -- updates -------------------------------------------------------------------------
ScatterFn: TypeAlias = Callable[..., Array]


def _scatter(
    x: Array, idx: object, y: ArrayLike, scatter: ScatterFn, *, mode: object,
    indices_are_sorted: bool, unique_indices: bool,
) -> Array:
    """``x`` with ``x[idx] <op>= y`` (a new array), as jax.numpy's ``_scatter_update``."""
    m = _mode_name(mode)
    shape = x.aval.shape
    if (x.aval.dtype in EXTENDED) != (aval_of(y).dtype in EXTENDED):
        raise _fail(idx, shape, (
            f"an update of typed PRNG keys (key<fry>) must be keys, and keys update only keys; "
            f"got {aval_of(y).str_short()} for {x.aval.str_short()}"
        ))
    elems, together = parse(idx, shape, check_bounds=False)
    if isinstance(x, ArrayImpl) and together and not isinstance(y, Tracer) and _host_indexing(x):
        done = _numpy_update(x, elems, y, scatter, clip=m == "clip")
        if done is not None:
            return done
    # static integers out of range are dropped (or clamped with 'clip') by the
    # scatter, as in JAX; parse wrapped the negative ones
    plan = plan_gather(idx, shape, elems, together)
    yv = _cast_update(x, y)
    if 0 in plan.slice_shape:
        return x
    yb = _broadcast_update(idx, shape, yv, plan.slice_shape)
    if plan.new_axes:
        yb = lax.squeeze(yb, plan.new_axes)
    if plan.reversed_dims:
        yb = lax.rev(yb, plan.reversed_dims)
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=plan.offset_dims,
        inserted_window_dims=plan.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.start_index_map,
    )
    return scatter(
        x, plan.indices, yb, dn,
        indices_are_sorted=indices_are_sorted or not plan.advanced,
        unique_indices=unique_indices or not plan.advanced,
        mode="fill" if m is None else m,
    )


def _ufunc_of(scatter: ScatterFn) -> np.ufunc | None | bool:
    """The NumPy ufunc that combines like ``scatter`` (None: overwrite;
    False: no NumPy equivalent)."""
    table: dict[ScatterFn, np.ufunc | None] = {
        lax.scatter: None, lax.scatter_add: np.add, lax.scatter_mul: np.multiply,
        lax.scatter_min: np.minimum, lax.scatter_max: np.maximum,
    }
    return table.get(scatter, False)


def _numpy_update(x: ArrayImpl, elems: Sequence[Elem], y: ArrayLike, scatter: ScatterFn, clip: bool) -> Array | None:
    """An eager update by NumPy's own indexed assignment (``ufunc.at`` for
    the combining ones), when every index is concrete and, unless clipping,
    in bounds; None otherwise (the scatter then decides what drops)."""
    ufunc = _ufunc_of(scatter)
    if ufunc is False or (x.aval.dtype == bool_ and ufunc in (np.add, np.multiply)):
        return None  # the scatter names its error (add and mul take no bools, as in JAX)
    shape = x.aval.shape
    np_idx: list[Any] = []  # NumPy's own index types
    axis = 0
    for e in elems:
        if isinstance(e, _NewAxis):
            np_idx.append(None if e is _NewAxis.ONE else False)
            continue
        n = shape[axis]
        if isinstance(e, _Adv):
            v = e.value
            if not isinstance(v, np.ndarray) or n == 0:
                return None
            v = _wrapped(v, n)
            if clip:
                v = np.clip(v, 0, n - 1)
            elif v.size and (v.min() < 0 or v.max() >= n):
                return None
            np_idx.append(v)
        elif isinstance(e, int):
            if not 0 <= e < n:
                if not clip or n == 0:
                    return x  # a static index out of bounds: the update drops
                e = min(max(e, 0), n - 1)
            np_idx.append(e)
        else:
            np_idx.append(e)
        axis += 1
    out = x.to_numpy().copy()
    if x.dtype in EXTENDED and ufunc is not None:
        return None  # typed keys: the scatter's abstract evaluation says what they refuse
    values = (y.to_numpy() if isinstance(y, ArrayImpl) else np.asarray(y)).astype(x.dtype, copy=False)
    index = tuple(np_idx)
    try:
        if ufunc is None:
            out[index] = values
        else:
            assert isinstance(ufunc, np.ufunc)
            ufunc.at(out, index, values)
    except (ValueError, IndexError):
        return None  # the scatter path names what does not fit
    out.flags.writeable = False
    return from_numpy(out, x.aval.weak_type)  # as the scatter's rule (core/weak.py)


def _broadcast_update(idx: object, xshape: tuple[int, ...], y: Value, shape: tuple[int, ...]) -> Array:
    """The update broadcast to the indexed shape, as ``broadcast_to`` (NumPy's rule)."""
    ya = aval_of(y)
    lead = len(shape) - ya.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(ya.shape, shape[lead:])):
        raise ShapeError(  # JAX's ValueError
            f"{index_str(idx)} on an array of shape {xshape}: "
            f"the update of shape {ya.shape} does not broadcast to the indexed shape {shape}"
        )
    if ya.shape == shape:
        return y if isinstance(y, Array) else from_numpy(np.asarray(y, ya.dtype), ya.weak_type)  # ya: canonical
    return lax.broadcast_in_dim(y, shape, tuple(range(lead, len(shape))))


def _cast_update(x: Array, y: ArrayLike) -> Value:
    """The update in ``x``'s dtype (JAX casts it, after promoting)."""
    ya = aval_of(y)
    if isinstance(y, (np.ndarray, np.generic, bool, int, float)) and (ya.dtype != x.dtype or np.asarray(y).dtype != x.dtype):
        # x64 off: a float64 NumPy value has the type float32 but not the
        # bits, and a NumPy value in a 64-bit x's dtype would enter a
        # primitive as 32 bits: an array of x's dtype, as JAX converts it
        return from_numpy(np.asarray(y, x.dtype))
    if ya.dtype == x.dtype:
        return y
    return lax.convert_element_type(y, x.dtype)


class IndexUpdateRef:
    """``x.at[idx]``: the indexed update or get to apply to ``x`` (a new array;
    ``x`` never changes). Each method takes JAX's keywords:
    ``indices_are_sorted``, ``unique_indices``, ``mode`` (``'clip'``,
    ``'drop'``/``'fill'``, ``'promise_in_bounds'``)."""

    __slots__ = ("array", "index")

    def __init__(self, array: Array, index: object) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
        mode: object = None, fill_value: ArrayLike | None = None,
    ) -> Array:
        """``x[idx]``; ``mode='fill'`` gives ``fill_value`` (NaN for floats, the
        dtype's minimum for signed integers, as JAX) out of bounds."""
        return getitem(
            self.array, self.index, mode=mode, fill_value=fill_value,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
        )

    def _update(self, values: ArrayLike, scatter: ScatterFn, sorted_: bool, unique: bool, mode: object) -> Array:
        return _scatter(
            self.array, self.index, values, scatter, mode=mode,
            indices_are_sorted=sorted_, unique_indices=unique,
        )

    def set(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] = values``; with repeated indices, one of the values lands."""
        return self._update(values, lax.scatter, indices_are_sorted, unique_indices, mode)

    def add(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] += values``; repeated indices accumulate."""
        return self._update(values, lax.scatter_add, indices_are_sorted, unique_indices, mode)

    def subtract(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] -= values``."""
        neg = lax.neg(_cast_update(self.array, values))
        return self._update(neg, lax.scatter_add, indices_are_sorted, unique_indices, mode)

    def multiply(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] *= values``; repeated indices multiply."""
        return self._update(values, lax.scatter_mul, indices_are_sorted, unique_indices, mode)

    mul = multiply

    def divide(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] /= values`` (floating ``x``)."""
        x = self.array
        if not is_float(x.dtype):
            raise _fail(self.index, x.shape, f"divide needs a floating array, got {x.dtype.name}")
        inv = lax.div(np.asarray(1, x.dtype), _cast_update(x, values))
        return self._update(inv, lax.scatter_mul, indices_are_sorted, unique_indices, mode)

    def power(
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] **= values``: ``x ** p`` with ``p`` the product of the values
        each element is indexed with (JAX's: repeated indices multiply the powers)."""
        ones = IndexUpdateRef(_ones_like(self.array), self.index)
        return _power(self.array, ones.multiply(values, indices_are_sorted=indices_are_sorted,
                                                unique_indices=unique_indices, mode=mode))

    def min(  # noqa: A003 - JAX's name
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(values, lax.scatter_min, indices_are_sorted, unique_indices, mode)

    def max(  # noqa: A003 - JAX's name
        self, values: ArrayLike, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(values, lax.scatter_max, indices_are_sorted, unique_indices, mode)

    def apply(
        self, func: Callable[[Array], ArrayLike], *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: object = None,
    ) -> Array:
        """``x[idx] = func(x[idx])`` for a scalar ``func``, applied once per
        time an index reaches an element (a repeated index applies it again),
        as JAX: ``lax.scatter_apply`` over the update shape of ``idx``."""

        def scatter(x: Array, indices: Value, updates: Value, dn: lax.ScatterDimensionNumbers, **kw: Any) -> Array:
            return lax.scatter_apply(x, indices, func, dn, update_shape=aval_of(updates).shape, **kw)

        return self._update(np.zeros((), self.array.dtype), scatter, indices_are_sorted, unique_indices, mode)


def _power(v: Array, p: ArrayLike) -> Array:
    return tnp.power(v, p)


def _ones_like(v: Array) -> Array:
    return tnp.ones_like(v)


class IndexUpdateHelper:
    """``x.at``: ``x.at[idx].set(y)`` and the other indexed updates."""

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __getitem__(self, index: object) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"
