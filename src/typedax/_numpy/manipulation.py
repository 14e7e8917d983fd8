"""Joining, splitting, tiling, moving axes and products of ``jax.numpy``
(issue 12, group 2). Split points, repeats, shifts and axes are static
(Python integers), as in JAX, except ``roll``'s shift and ``repeat``'s
repeats (with ``total_repeat_length``), which may be traced."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import overload

import numpy as np

from .. import lax
from ..core.array import Array, ArrayImpl, ArrayLike
from ..core.dtypes import DType, bool_, default_int, is_complex
from ..core.errors import ArgumentValueError, AxisError, PrimitiveAxisError, PrimitiveTypeError, ShapeError, ZeroStepError
from ..core.trace import Tracer, aval_of
from ..primitives._precision import PrecisionLike
from . import lax_numpy as tnp


def _static_int(op: str, what: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be a static integer, got {v!r}")
    return int(v)


# -- axes ------------------------------------------------------------------------------
def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    """``jnp.moveaxis``: axes ``source`` moved to ``destination``, the others in order."""
    x = tnp.asarray(a)
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise PrimitiveTypeError(
            f"moveaxis: Inconsistent number of elements: {len(src)} != {len(dst)}"
        )
    s = [tnp._axis("moveaxis", v, x.ndim) for v in src]
    d = [tnp._axis("moveaxis", v, x.ndim) for v in dst]
    if len(set(s)) != len(s) or len(set(d)) != len(d):
        raise PrimitiveAxisError(f"moveaxis: repeated axis in source={src} or destination={dst}")
    perm = [i for i in range(x.ndim) if i not in s]
    for dest, src_axis in sorted(zip(d, s)):
        perm.insert(dest, src_axis)
    return x if perm == list(range(x.ndim)) else lax.transpose(x, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """``jnp.swapaxes``."""
    x = tnp.asarray(a)
    i, j = tnp._axis("swapaxes", axis1, x.ndim), tnp._axis("swapaxes", axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[i], perm[j] = j, i
    return lax.transpose(x, perm)


def permute_dims(a: ArrayLike, /, axes: Sequence[int]) -> Array:
    """``jnp.permute_dims``: ``transpose`` with the axes required."""
    return tnp.transpose(a, axes)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """``jnp.matrix_transpose``: the last two axes swapped."""
    a = tnp.asarray(x)
    if a.ndim < 2:
        raise PrimitiveTypeError(f"matrix_transpose: x must be at least two-dimensional; got shape {a.shape}")
    return swapaxes(a, -1, -2)


@overload
def atleast_1d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_1d(x: ArrayLike, y: ArrayLike, /, *arys: ArrayLike) -> list[Array]: ...
def atleast_1d(*arys: ArrayLike) -> Array | list[Array]:
    """``jnp.atleast_1d``: scalars as 1-d arrays; one array for one argument, a list for more."""
    out = [tnp.asarray(a) for a in arys]
    out = [lax.reshape(a, (1,)) if a.ndim == 0 else a for a in out]
    return out[0] if len(out) == 1 else out


@overload
def atleast_2d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_2d(x: ArrayLike, y: ArrayLike, /, *arys: ArrayLike) -> list[Array]: ...
def atleast_2d(*arys: ArrayLike) -> Array | list[Array]:
    """``jnp.atleast_2d``: a 1-d ``(n,)`` becomes ``(1, n)``."""
    out = [tnp.asarray(a) for a in arys]
    out = [lax.reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a for a in out]
    return out[0] if len(out) == 1 else out


@overload
def atleast_3d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_3d(x: ArrayLike, y: ArrayLike, /, *arys: ArrayLike) -> list[Array]: ...
def atleast_3d(*arys: ArrayLike) -> Array | list[Array]:
    """``jnp.atleast_3d``: ``()`` becomes ``(1, 1, 1)``, ``(n,)`` ``(1, n, 1)``, ``(m, n)`` ``(m, n, 1)``."""
    out: list[Array] = []
    for a in (tnp.asarray(v) for v in arys):
        if a.ndim == 0:
            a = lax.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = lax.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = lax.reshape(a, a.shape + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """``jnp.broadcast_shapes``: the shape these shapes broadcast to."""
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*(tuple(s) for s in shapes)))
    except ValueError:
        raise ShapeError(
            f"broadcast_shapes: incompatible shapes for broadcasting: {', '.join(str(tuple(s)) for s in shapes)}"
        ) from None


def broadcast_arrays(*args: ArrayLike) -> list[Array]:
    """``jnp.broadcast_arrays``: the arguments broadcast to one shape (dtypes kept)."""
    shape = broadcast_shapes(*(aval_of(a).shape for a in args))
    return [tnp.broadcast_to(a, shape) for a in args]


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """``jnp.unstack``: the slices along ``axis``, that axis removed."""
    a = tnp.asarray(x)
    if a.ndim == 0:
        raise PrimitiveTypeError("unstack: Unstack requires arrays with rank > 0, however a scalar array was passed.")
    ax = tnp._axis("unstack", axis, a.ndim)
    return tuple(lax.index_in_dim(a, i, ax, keepdims=False) for i in range(a.shape[ax]))


def fliplr(m: ArrayLike) -> Array:
    """``jnp.fliplr``: reversed along axis 1."""
    x = tnp.asarray(m)
    if x.ndim < 2:
        raise PrimitiveTypeError(f"fliplr: requires an array of at least 2 dimensions, got shape {x.shape}")
    return lax.rev(x, (1,))


def flipud(m: ArrayLike) -> Array:
    """``jnp.flipud``: reversed along axis 0."""
    x = tnp.asarray(m)
    if x.ndim < 1:
        raise PrimitiveTypeError("flipud: requires an array of at least 1 dimension, got a scalar")
    return lax.rev(x, (0,))


# -- joining ---------------------------------------------------------------------------
def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Array:
    """``jnp.concat`` (the array API's name for ``concatenate``)."""
    return tnp.concatenate(arrays, axis)


def hstack(tup: Sequence[ArrayLike], dtype: DType | type | None = None) -> Array:
    """``jnp.hstack``: joined along axis 1 (axis 0 for 1-d arrays)."""
    arrs = [atleast_1d(a) for a in tup]
    if not arrs:
        raise ArgumentValueError("hstack: need at least one array to concatenate")
    return tnp.concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype)


def vstack(tup: Sequence[ArrayLike], dtype: DType | type | None = None) -> Array:
    """``jnp.vstack``: joined along axis 0, 1-d arrays as rows."""
    return tnp.concatenate([atleast_2d(a) for a in tup], 0, dtype)



def dstack(tup: Sequence[ArrayLike], dtype: DType | type | None = None) -> Array:
    """``jnp.dstack``: joined along axis 2 (``atleast_3d`` first)."""
    return tnp.concatenate([atleast_3d(a) for a in tup], 2, dtype)


def column_stack(tup: Sequence[ArrayLike]) -> Array:
    """``jnp.column_stack``: 1-d arrays as columns, joined along axis 1."""
    arrs: list[Array] = []
    for a in tup:
        x = tnp.asarray(a)
        arrs.append(lax.reshape(x, (x.size, 1)) if x.ndim < 2 else x)
    return tnp.concatenate(arrs, 1)


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """``jnp.append``: ``values`` after ``arr`` (both flattened when ``axis`` is None)."""
    if axis is None:
        return tnp.concatenate([tnp.ravel(arr), tnp.ravel(values)], 0)
    return tnp.concatenate([arr, values], axis)


# -- splitting -------------------------------------------------------------------------
def _split(op: str, ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike,
           axis: int, equal: bool) -> list[Array]:
    x = tnp.asarray(ary)
    if x.ndim == 0:
        raise PrimitiveTypeError(f"{op}: the array must be at least 1-dimensional")
    ax = tnp._axis(op, axis, x.ndim)
    n = x.shape[ax]
    ios = indices_or_sections
    if isinstance(ios, Tracer):
        raise PrimitiveTypeError(f"{op}: indices_or_sections must be static (not traced)")
    if isinstance(ios, (int, np.integer)) and not isinstance(ios, bool):
        sections = int(ios)
        if sections <= 0:
            # JAX divides by it: ZeroDivisionError for 0, ValueError below
            raise (ZeroStepError if sections == 0 else ArgumentValueError)(
                f"{op}: number sections must be larger than 0, got {sections}"
            )
        if equal and n % sections:
            raise ShapeError(f"{op}: array split does not result in an equal division: "
                                     f"{n} elements into {sections} sections")
        size, extra = divmod(n, sections)
        sizes = [size + 1] * extra + [size] * (sections - extra)
        points = list(np.cumsum([0] + sizes))
    else:
        idx = np.asarray(ios if not isinstance(ios, ArrayImpl) else np.asarray(ios))
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise PrimitiveTypeError(f"{op}: indices_or_sections must be an int or a 1-d sequence of ints")
        points = [0] + [int(i) for i in idx] + [n]
    out: list[Array] = []
    for lo, hi in zip(points[:-1], points[1:]):
        lo_c = builtins.min(builtins.max(lo + n if lo < 0 else lo, 0), n)
        hi_c = builtins.min(builtins.max(hi + n if hi < 0 else hi, 0), n)
        out.append(lax.slice_in_dim(x, lo_c, builtins.max(lo_c, hi_c), axis=ax))
    return out


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike, axis: int = 0) -> list[Array]:
    """``jnp.split``: into equal sections, or at the given indices."""
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike, axis: int = 0) -> list[Array]:
    """``jnp.array_split``: as ``split``, sections of sizes differing by at most one."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike) -> list[Array]:
    """``jnp.hsplit``: ``split`` along axis 1 (axis 0 of a 1-d array)."""
    return _split("hsplit", ary, indices_or_sections, 1 if aval_of(ary).ndim > 1 else 0, True)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike) -> list[Array]:
    """``jnp.vsplit``: ``split`` along axis 0 of an array of 2 or more dimensions."""
    if aval_of(ary).ndim < 2:
        raise PrimitiveTypeError("vsplit only works on arrays of 2 or more dimensions")
    return _split("vsplit", ary, indices_or_sections, 0, True)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike) -> list[Array]:
    """``jnp.dsplit``: ``split`` along axis 2 of an array of 3 or more dimensions."""
    if aval_of(ary).ndim < 3:
        raise PrimitiveTypeError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", ary, indices_or_sections, 2, True)


# -- repeating, rolling ------------------------------------------------------------------
def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:
    """``jnp.tile``: ``A`` repeated ``reps`` times along each axis."""
    x = tnp.asarray(A)
    r = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    rs = tuple(_static_int("tile", "reps", v) for v in r)
    nd = builtins.max(len(rs), x.ndim)
    rs = (1,) * (nd - len(rs)) + rs
    shape = (1,) * (nd - x.ndim) + x.shape
    x = lax.reshape(x, shape)
    inter = tuple(v for pair in zip(rs, shape) for v in pair)
    y = lax.broadcast_in_dim(x, inter, tuple(range(1, 2 * nd, 2)))
    return lax.reshape(y, tuple(a * b for a, b in zip(rs, shape)))


def repeat(a: ArrayLike, repeats: ArrayLike, axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Array:
    """``jnp.repeat``: each element repeated. A static int repeats by a broadcast;
    static per-element repeats by a gather of static indices; traced repeats
    need ``total_repeat_length`` (then the output is cut or padded with the last
    element to that length, as JAX)."""
    x = tnp.asarray(a)
    if axis is None:
        x, ax = tnp.ravel(x), 0
    else:
        ax = tnp._axis("repeat", axis, x.ndim)
    n = x.shape[ax]
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        r = int(repeats)
        if r < 0:
            raise PrimitiveTypeError(f"repeat: repeats may not contain negative values, got {r}")
        if total_repeat_length is not None and total_repeat_length != r * n:
            raise PrimitiveTypeError(
                f"repeat: total_repeat_length={total_repeat_length} does not match repeats={r} "
                f"times the axis length {n}"
            )
        shape = x.shape[: ax + 1] + (r,) + x.shape[ax + 1:]
        dims = tuple(i for i in range(x.ndim + 1) if i != ax + 1)
        y = lax.broadcast_in_dim(x, shape, dims)
        return lax.reshape(y, x.shape[:ax] + (n * r,) + x.shape[ax + 1:])
    if not isinstance(repeats, Tracer):
        reps = np.asarray(repeats)
        if reps.dtype.kind not in "biu":
            raise PrimitiveTypeError(f"repeat: repeats must be integers, got {reps.dtype}")
        if (reps < 0).any():
            raise PrimitiveTypeError("repeat: repeats may not contain negative values")
        if reps.ndim == 0:
            return repeat(x, int(reps), ax, total_repeat_length=total_repeat_length)
        reps = np.broadcast_to(reps, (n,))
        idx = np.repeat(np.arange(n), reps)
        if total_repeat_length is not None:
            idx = idx[:total_repeat_length]
            if len(idx) < total_repeat_length:
                idx = np.concatenate([idx, np.full(total_repeat_length - len(idx), builtins.max(n - 1, 0))])
        return take(x, idx.astype(np.int64), axis=ax)
    if total_repeat_length is None:
        raise PrimitiveTypeError(
            "repeat: with traced repeats, total_repeat_length must be given (a static int): the "
            "output's length would depend on the values of repeats"
        )
    total = _static_int("repeat", "total_repeat_length", total_repeat_length)
    reps_t = tnp.broadcast_to(tnp.asarray(repeats), (n,))
    ends = tnp.cumsum(reps_t)
    pos = lax.iota(ends.dtype, total)
    # the element at output position p is the number of segments ending at or before p
    count = tnp.sum(lax.le(lax.broadcast_in_dim(ends, (total, n), (1,)),
                           lax.broadcast_in_dim(pos, (total, n), (0,))), axis=1)
    idx_t = lax.min(count, np.asarray(builtins.max(n - 1, 0), count.dtype))
    return take(x, idx_t, axis=ax, mode="clip")


def roll(a: ArrayLike, shift: ArrayLike | Sequence[int], axis: int | Sequence[int] | None = None) -> Array:
    """``jnp.roll``: elements shifted along ``axis`` (the flattened array if
    None), those past the end coming back at the start. A traced shift is a
    dynamic slice of the array joined to itself."""
    x = tnp.asarray(a)
    if axis is None:
        return lax.reshape(roll(tnp.ravel(x), shift, 0), x.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts: list[ArrayLike]
    if isinstance(shift, Array) and shift.ndim == 1:
        shifts = [shift[i] for i in range(shift.shape[0])]
    elif isinstance(shift, (Sequence, np.ndarray)):
        shifts = [int(s) for s in np.asarray(shift).reshape(-1)]
    elif isinstance(shift, Array) and shift.ndim > 1:
        raise PrimitiveTypeError(f"roll: shift must be a scalar or 1-d, got shape {shift.shape}")
    else:
        shifts = [shift]
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise PrimitiveTypeError(f"roll: shift and axis must have the same length, got {len(shifts)} and {len(axes)}")
    for s, ax_ in zip(shifts, axes):
        ax = tnp._axis("roll", ax_, x.ndim)
        n = x.shape[ax]
        if n == 0:
            continue
        if isinstance(s, Tracer):
            si = tnp.asarray(s)
            start = tnp.remainder(lax.sub(np.asarray(n, si.dtype), tnp.remainder(si, n)), n)
            both = lax.concatenate([x, x], ax)
            x = lax.dynamic_slice_in_dim(both, start, n, ax)
        else:
            k = int(np.asarray(s)) % n
            if k:
                x = lax.concatenate([lax.slice_in_dim(x, n - k, n, axis=ax), lax.slice_in_dim(x, 0, n - k, axis=ax)], ax)
    return x


# -- indexing by arrays ------------------------------------------------------------------
_TAKE_MODES = (None, "fill", "clip", "wrap", "promise_in_bounds")


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False, indices_are_sorted: bool = False,
         fill_value: ArrayLike | None = None) -> Array:
    """``jnp.take``: elements at ``indices`` along ``axis`` (the flattened array if
    None). ``mode`` as JAX: ``'fill'`` (the default: negative indices wrap once,
    others out of bounds give ``fill_value``, NaN for floats), ``'clip'``, ``'wrap'``."""
    if out is not None:
        raise PrimitiveTypeError("take: The 'out' argument to jnp.take is not supported.")
    if mode not in _TAKE_MODES:
        if mode == "raise":
            raise PrimitiveTypeError("take: The 'raise' mode to jnp.take is not supported.")
        raise ArgumentValueError(f"take: Invalid mode '{mode}' for np.take")
    x = tnp.asarray(a)
    idx = tnp.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise PrimitiveTypeError(f"take: indices must be integers, got {idx.dtype}")
    if axis is None:
        x, ax = tnp.ravel(x), 0
    else:
        ax = tnp._axis("take", axis, x.ndim)
    n = x.shape[ax]
    gather_mode = "promise_in_bounds"
    if mode is None or mode == "fill":
        gather_mode = "fill"
        if idx.dtype.kind == "i":
            idx = lax.select(lax.lt(idx, np.zeros((), idx.dtype)), lax.add(idx, np.asarray(n, idx.dtype)), idx)
    elif mode == "wrap":
        idx = tnp.remainder(idx, n) if n else idx
    elif mode == "clip":
        gather_mode = "clip"
    if n == 0:
        if idx.size:
            raise PrimitiveTypeError("take: Cannot do a non-empty jnp.take() from an empty axis.")
        return x
    out_shape = x.shape[:ax] + idx.shape + x.shape[ax + 1:]
    if idx.size == 0:
        return tnp.zeros(out_shape, x.dtype)
    sizes = list(x.shape)
    sizes[ax] = 1
    nd = idx.ndim
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(ax)) + tuple(range(ax + nd, x.ndim + nd - 1)),
        collapsed_slice_dims=(ax,), start_index_map=(ax,),
    )
    return lax.gather(x, lax.reshape(idx, idx.shape + (1,)), dnums, tuple(sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1,
                    mode: str | None = None, fill_value: ArrayLike | None = None) -> Array:
    """``jnp.take_along_axis``: ``arr`` indexed along ``axis`` by ``indices`` of
    the same rank (the other axes broadcast); ``mode`` as ``take`` (default ``'fill'``)."""
    x, idx, ax = along_axis_operands("take_along_axis", arr, indices, axis)
    index, out_shape = along_axis(x.shape, idx, ax, mode)
    if x.shape[ax] == 0:
        return tnp.zeros(out_shape, x.dtype)
    m = "fill" if mode is None else mode
    return x.at[index].get(mode=m, fill_value=fill_value)


def along_axis_operands(op: str, arr: ArrayLike, indices: ArrayLike, axis: int | None) -> tuple[Array, Array, int]:
    """``arr`` (flattened for ``axis=None``), ``indices`` and the axis of
    ``take_along_axis``/``put_along_axis``, with JAX's checks."""
    x, idx = tnp.asarray(arr), tnp.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise PrimitiveTypeError(f"{op}: indices must be of integer type, got {idx.dtype}")
    if axis is None:
        if idx.ndim != 1:
            raise PrimitiveTypeError(f"{op}: indices must be 1D if axis=None, got shape {idx.shape}")
        return tnp.ravel(x), idx, 0
    if x.ndim != idx.ndim:
        raise ShapeError(
            f"{op}: indices and arr must have the same number of dimensions; {idx.ndim} vs. {x.ndim}"
        )
    return x, idx, tnp._axis(op, axis, x.ndim)


def along_axis(shape: tuple[int, ...], idx: Array, ax: int, mode: str | None) -> tuple[tuple[object, ...], tuple[int, ...]]:
    """The ``.at[]`` index of ``take_along_axis``/``put_along_axis`` (``idx``
    along ``ax``, every other axis broadcast against an ``arange``) and the
    shape it selects. Negative indices count from the end once: one still
    negative (below ``-n``) is out of bounds -- clipped to 0 with
    ``mode='clip'``, else made ``n`` so that ``.at[]`` fills or drops it
    (``.at[]`` would count it from the end a second time)."""
    n = shape[ax]
    out_shape = broadcast_shapes(idx.shape, tuple(1 if i == ax else d for i, d in enumerate(shape)))
    if mode != "promise_in_bounds" and idx.dtype.kind == "i":
        zero = np.zeros((), idx.dtype)
        shifted = lax.select(lax.lt(idx, zero), lax.add(idx, np.asarray(n, idx.dtype)), idx)
        outside = np.asarray(0 if mode == "clip" else n, idx.dtype)
        idx = lax.select(lax.lt(shifted, zero), lax.broadcast_in_dim(outside, shifted.shape, ()), shifted)
    index: list[object] = []
    for i, d in enumerate(out_shape):
        if i == ax:
            index.append(tnp.broadcast_to(idx, out_shape))
        else:
            r = np.arange(d) if shape[i] == d else np.zeros(d, np.int64)
            index.append(r.reshape(tuple(d if j == i else 1 for j in range(len(out_shape)))))
    return tuple(index), out_shape


# -- differences -------------------------------------------------------------------------
def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike | None = None,
         append: ArrayLike | None = None) -> Array:
    """``jnp.diff``: the ``n``-th differences along ``axis`` (``!=`` for bools)."""
    x = tnp.asarray(a)
    if x.ndim == 0:
        raise PrimitiveTypeError(f"diff: diff requires input that is at least one dimensional; got {a!r}")
    k = _static_int("diff", "n", n)
    if k < 0:
        raise ArgumentValueError(f"diff: order must be non-negative but got {k}")
    if k == 0:
        return x
    ax = tnp._axis("diff", axis, x.ndim)
    def edge(extra: ArrayLike) -> Array:
        shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape))
        if isinstance(extra, (bool, int, float)):  # weakly typed, as JAX
            return tnp.full(shape, extra, tnp.result_type(x, extra))
        e = tnp.asarray(extra)
        return tnp.broadcast_to(e, shape) if e.ndim == 0 else e

    parts: list[ArrayLike] = [] if prepend is None else [edge(prepend)]
    parts.append(x)
    if append is not None:
        parts.append(edge(append))
    x = tnp.concatenate(parts, ax) if len(parts) > 1 else x
    for _ in range(k):
        m = x.shape[ax]
        hi = lax.slice_in_dim(x, 1, m, axis=ax)
        lo = lax.slice_in_dim(x, 0, builtins.max(m - 1, 0), axis=ax)
        x = lax.ne(hi, lo) if x.dtype == bool_ else tnp.subtract(hi, lo)
    return x


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None) -> Array:
    """``jnp.ediff1d``: differences of the flattened array, with ``to_begin``
    and ``to_end`` (cast to its dtype) around them."""
    x = tnp.ravel(tnp.asarray(ary))
    out = lax.sub(lax.slice_in_dim(x, 1, x.shape[0]), lax.slice_in_dim(x, 0, builtins.max(x.shape[0] - 1, 0))) \
        if x.dtype != bool_ else lax.ne(lax.slice_in_dim(x, 1, x.shape[0]), lax.slice_in_dim(x, 0, builtins.max(x.shape[0] - 1, 0)))
    parts: list[ArrayLike] = []
    if to_begin is not None:
        parts.append(tnp.astype(tnp.ravel(tnp.asarray(to_begin)), out.dtype))
    parts.append(out)
    if to_end is not None:
        parts.append(tnp.astype(tnp.ravel(tnp.asarray(to_end)), out.dtype))
    return tnp.concatenate(parts, 0) if len(parts) > 1 else out


# -- products ----------------------------------------------------------------------------
def _prod_operands(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    a, b = tnp._promote(x, y)
    return tnp.asarray(a), tnp.asarray(b)


def _bool_dot(
    a: Array, b: Array, dn: tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]],
    precision: PrecisionLike = None, preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``dot_general``; bools as JAX: an integer product then ``!= 0`` (logical
    or of ands). With a preferred type, an operand already of that type (an
    earlier product of ``einsum``) meets the other widened to it (exactly), as
    JAX's mixed-type product."""
    if a.dtype == bool_ and b.dtype == bool_:
        d = default_int()
        r = lax.dot_general(lax.convert_element_type(a, d), lax.convert_element_type(b, d), dn, precision)
        out = lax.ne(r, np.zeros((), d))
        return out if preferred_element_type is None else lax.convert_element_type(out, np.dtype(preferred_element_type))
    if a.dtype != b.dtype and preferred_element_type is not None:
        pet = np.dtype(preferred_element_type)
        a, b = (x if x.dtype == pet else lax.convert_element_type(x, pet) for x in (a, b))
    return lax.dot_general(a, b, dn, precision, preferred_element_type)


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[int] | Sequence[Sequence[int]] = 2,
              precision: PrecisionLike = None, preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.tensordot``: ``axes`` an int (the last ``axes`` of ``a`` with the first
    of ``b``) or a pair of axis sequences; the result has ``a``'s free axes then ``b``'s."""
    x, y = _prod_operands(a, b)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        k = int(axes)
        if k < 0 or k > builtins.min(x.ndim, y.ndim):
            raise PrimitiveTypeError(
                f"tensordot: Number of tensordot axes (axes {k}) exceeds input ranks ({x.shape} and {y.shape})"
            )
        ca = tuple(range(x.ndim - k, x.ndim))
        cb = tuple(range(k))
    else:
        try:
            ax_a, ax_b = axes  # type: ignore[misc]  # checked: a pair
        except (TypeError, ValueError):
            raise PrimitiveTypeError(
                f"tensordot: axes must be an int or a pair of axis sequences, got {axes!r}"
            ) from None
        sa = (ax_a,) if isinstance(ax_a, (int, np.integer)) else tuple(ax_a)
        sb = (ax_b,) if isinstance(ax_b, (int, np.integer)) else tuple(ax_b)
        if len(sa) != len(sb):
            raise PrimitiveTypeError(
                f"tensordot: requires axes lists to have equal length, got {sa} and {sb}."
            )
        ca = tuple(tnp._axis("tensordot", v, x.ndim) for v in sa)
        cb = tuple(tnp._axis("tensordot", v, y.ndim) for v in sb)
    for i, j in zip(ca, cb):
        if x.shape[i] != y.shape[j]:
            raise PrimitiveTypeError(
                f"tensordot: shape mismatch: axis {i} of {x.shape} has {x.shape[i]} elements, "
                f"axis {j} of {y.shape} has {y.shape[j]}"
            )
    return _bool_dot(x, y, ((ca, cb), ((), ())), precision, preferred_element_type)


def inner(a: ArrayLike, b: ArrayLike, precision: PrecisionLike = None,
          preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.inner``: the sum over the last axes (a product with a scalar)."""
    x, y = _prod_operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        out = tnp.multiply(x, y)
        return out if preferred_element_type is None else tnp.astype(out, preferred_element_type)
    return tensordot(x, y, ((x.ndim - 1,), (y.ndim - 1,)), precision, preferred_element_type)


def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> Array:
    """``jnp.outer``: ``ravel(a)[:, None] * ravel(b)[None, :]``."""
    if out is not None:
        raise PrimitiveTypeError("outer: The 'out' argument to jnp.outer is not supported.")
    x, y = tnp.ravel(a), tnp.ravel(b)
    return tnp.multiply(lax.reshape(x, (x.shape[0], 1)), lax.reshape(y, (1, y.shape[0])))


def vdot(a: ArrayLike, b: ArrayLike, *, precision: PrecisionLike = None,
         preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.vdot``: the dot product of the flattened arrays, the first conjugated."""
    x, y = _prod_operands(tnp.ravel(a), tnp.ravel(b))
    if is_complex(x.dtype):
        x = lax.conj(x)
    if x.shape != y.shape:
        raise PrimitiveTypeError(f"vdot: the arrays must have the same size, got {x.size} and {y.size}")
    return tensordot(x, y, 1, precision, preferred_element_type)


def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """``jnp.kron``: the Kronecker product (blocks ``a[i, j] * b``)."""
    x, y = _prod_operands(a, b)
    nd = builtins.max(x.ndim, y.ndim)
    xs = (1,) * (nd - x.ndim) + x.shape
    ys = (1,) * (nd - y.ndim) + y.shape
    x2 = lax.reshape(x, tuple(v for d in xs for v in (d, 1)))
    y2 = lax.reshape(y, tuple(v for d in ys for v in (1, d)))
    return lax.reshape(tnp.multiply(x2, y2), tuple(p * q for p, q in zip(xs, ys)))


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Array:
    """``jnp.cross``: the cross product of vectors of 2 or 3 components along
    ``axisa``/``axisb`` (both of 2: the z component alone)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = _prod_operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise PrimitiveTypeError("cross: the operands must be at least 1-dimensional")
    x = moveaxis(x, axisa, -1)
    y = moveaxis(y, axisb, -1)
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ShapeError(
            "cross: incompatible dimensions for cross product (dimension must be 2 or 3), got "
            f"{x.shape[-1]} and {y.shape[-1]}"
        )

    def comp(v: Array, i: int) -> Array:
        if i >= v.shape[-1]:
            return tnp.zeros(v.shape[:-1], v.dtype)
        return lax.index_in_dim(v, i, v.ndim - 1, keepdims=False)

    a0, a1, a2 = comp(x, 0), comp(x, 1), comp(x, 2)
    b0, b1, b2 = comp(y, 0), comp(y, 1), comp(y, 2)
    c2 = tnp.subtract(tnp.multiply(a0, b1), tnp.multiply(a1, b0))
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return c2
    c0 = tnp.subtract(tnp.multiply(a1, b2), tnp.multiply(a2, b1))
    c1 = tnp.subtract(tnp.multiply(a2, b0), tnp.multiply(a0, b2))
    c = tnp.stack(broadcast_arrays(c0, c1, c2), -1)
    return moveaxis(c, -1, axisc)


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1) -> Array:
    """``jnp.trapezoid``: the trapezoidal rule along ``axis``, at sample points
    ``x`` (1-d, or of ``y``'s shape) or spacing ``dx``."""
    ya = tnp.asarray(y)
    yy = moveaxis(tnp.asarray(tnp._float(ya)), axis, -1)
    n = yy.shape[-1]
    if x is None:
        d: ArrayLike = dx
    else:
        xa = tnp.asarray(x)
        if xa.ndim == 1:
            d = diff(xa)
        else:
            d = moveaxis(diff(xa, axis=axis), axis, -1)
    hi = lax.slice_in_dim(yy, 1, n, axis=yy.ndim - 1)
    lo = lax.slice_in_dim(yy, 0, builtins.max(n - 1, 0), axis=yy.ndim - 1)
    return tnp.multiply(0.5, tnp.sum(tnp.multiply(d, tnp.add(hi, lo)), axis=-1))


# -- more (issue 12, group 5) -----------------------------------------------------------
def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """``jnp.rollaxis``: ``axis`` moved to before ``start`` (NumPy's older ``moveaxis``)."""
    x = tnp.asarray(a)
    ax = tnp._axis("rollaxis", axis, x.ndim)
    s = _static_int("rollaxis", "start", start)
    if not -x.ndim <= s <= x.ndim:
        raise PrimitiveTypeError(f"rollaxis: start={s} must satisfy {-x.ndim}<=start<={x.ndim}")
    if s < 0:
        s += x.ndim
    if s > ax:
        s -= 1
    return moveaxis(x, ax, s)


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Array:
    """``jnp.resize``: the flattened array repeated (or cut) to fill ``new_shape``."""
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    dims = tuple(_static_int("resize", "new_shape", d) for d in shape)
    if any(d < 0 for d in dims):
        raise PrimitiveTypeError("resize: all elements of `new_shape` must be non-negative")
    flat = tnp.ravel(a)
    size = int(np.prod(dims))
    if flat.size == 0 or size == 0:
        return tnp.zeros(dims, flat.dtype)
    reps = -(-size // flat.size)
    return lax.reshape(lax.slice_in_dim(tile(flat, reps), 0, size), dims)


def _cumulative_api(op: str, x: ArrayLike, axis: int | None, dtype: DType | type | None,
                    include_initial: bool, sum_: bool) -> Array:
    a = tnp.asarray(x)
    if axis is None:
        if a.ndim > 1:
            raise PrimitiveTypeError(f"{op}: The input array has rank {a.ndim}, however axis was not set to "
                                     "an explicit value. The axis argument is only optional for one-dimensional arrays.")
        axis = 0
    if a.ndim == 0:
        raise PrimitiveTypeError(f"{op}: The input must be non-scalar to take a cumulative {'sum' if sum_ else 'product'}")
    ax = tnp._axis(op, axis, a.ndim)
    if dtype is None and sum_:  # as JAX: narrow integers widen, as in sum (products keep theirs)
        dtype = tnp._sum_dtype(a.dtype)
    out = (tnp.cumsum if sum_ else tnp.cumprod)(a, ax, dtype)
    if include_initial:
        shape = tuple(1 if i == ax else d for i, d in enumerate(out.shape))
        out = lax.concatenate([tnp.full(shape, 0 if sum_ else 1, out.dtype), out], ax)
    return out


def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None, dtype: DType | type | None = None,
                   include_initial: bool = False) -> Array:
    """``jnp.cumulative_sum`` (the array API's ``cumsum``; ``axis`` needed past 1-d)."""
    return _cumulative_api("cumulative_sum", x, axis, dtype, include_initial, True)


def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None, dtype: DType | type | None = None,
                    include_initial: bool = False) -> Array:
    """``jnp.cumulative_prod`` (the array API's ``cumprod``)."""
    return _cumulative_api("cumulative_prod", x, axis, dtype, include_initial, False)


def _nan_as(a: ArrayLike, value: float) -> Array:
    from ..core.dtypes import is_float

    x = tnp.asarray(a)
    if not is_float(x.dtype):
        return x
    return lax.select(tnp.isnan(x), tnp.full(x.shape, value, x.dtype), x)


def nancumsum(a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None, out: None = None) -> Array:
    """``jnp.nancumsum``: ``cumsum`` with NaNs as zeros."""
    if out is not None:
        raise PrimitiveTypeError("nancumsum: The 'out' argument to jnp.nancumsum is not supported.")
    return tnp.cumsum(_nan_as(a, 0.0), axis, dtype)


def nancumprod(a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None, out: None = None) -> Array:
    """``jnp.nancumprod``: ``cumprod`` with NaNs as ones."""
    if out is not None:
        raise PrimitiveTypeError("nancumprod: The 'out' argument to jnp.nancumprod is not supported.")
    return tnp.cumprod(_nan_as(a, 1.0), axis, dtype)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: PrecisionLike = None,
           preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.vecdot``: the dot product of vectors along ``axis`` (the others broadcast)."""
    a, b = _prod_operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise PrimitiveTypeError("vecdot: the operands must be at least 1-dimensional")
    ax_a, ax_b = tnp._axis("vecdot", axis, a.ndim), tnp._axis("vecdot", axis, b.ndim)
    if a.shape[ax_a] != b.shape[ax_b]:
        raise ArgumentValueError(
            f"vecdot: axes must match; got shapes {a.shape} and {b.shape} with axis={axis} "
            f"(sizes {a.shape[ax_a]} and {b.shape[ax_b]} differ)"
        )
    a, b = moveaxis(a, ax_a, -1), moveaxis(b, ax_b, -1)
    out = tnp.matmul(lax.expand_dims(a, (a.ndim - 1,)), lax.expand_dims(b, (b.ndim,)), precision=precision)
    out = lax.reshape(out, out.shape[:-2])
    return out if preferred_element_type is None else tnp.astype(out, preferred_element_type)


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.matvec``: matrices (..., m, n) times vectors (..., n), batches broadcast."""
    a, b = _prod_operands(x1, x2)
    if a.ndim < 2 or b.ndim < 1:
        raise PrimitiveTypeError(f"matvec: shapes {a.shape} and {b.shape} are not a matrix and a vector")
    out = tnp.matmul(a, lax.expand_dims(b, (b.ndim,)))
    return lax.reshape(out, out.shape[:-1])


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.vecmat``: vectors (..., m) times matrices (..., m, n), batches broadcast."""
    a, b = _prod_operands(x1, x2)
    if a.ndim < 1 or b.ndim < 2:
        raise PrimitiveTypeError(f"vecmat: shapes {a.shape} and {b.shape} are not a vector and a matrix")
    out = tnp.matmul(lax.expand_dims(a, (a.ndim - 1,)), b)
    return lax.reshape(out, out.shape[:-2] + out.shape[-1:])


def fromfunction(function: Callable[..., Array], shape: Sequence[int], *, dtype: DType | type = float,
                 **kwargs: object) -> Array:
    """``jnp.fromfunction``: ``function`` called on the index grids of ``shape``."""
    d = tnp.astype(tnp.zeros(()), dtype).dtype
    dims = tuple(_static_int("fromfunction", "shape", s) for s in shape)
    return function(*(lax.broadcasted_iota(d, dims, i) for i in range(len(dims))), **kwargs)


def apply_along_axis(func1d: Callable[..., ArrayLike], axis: int, arr: ArrayLike, *args: object,
                     **kwargs: object) -> Array:
    """``jnp.apply_along_axis``: ``func1d`` on each 1-d slice along ``axis``
    (``vmap`` over the other axes); its output's axes take that axis' place."""
    from ..api_forward import vmap

    x = tnp.asarray(arr)
    ax = tnp._axis("apply_along_axis", axis, x.ndim)

    def f(v: Array) -> ArrayLike:
        return func1d(v, *args, **kwargs)

    g: Callable[..., object] = f
    for i in range(1, x.ndim - ax):  # as JAX: the axes after ``axis`` go last in the output
        g = vmap(g, in_axes=i, out_axes=-1)
    for _ in range(ax):
        g = vmap(g, in_axes=0, out_axes=0)
    return tnp.asarray(g(x))  # type: ignore[arg-type]  # an array function of an array


def apply_over_axes(func: Callable[[Array, int], ArrayLike], a: ArrayLike, axes: Sequence[int]) -> Array:
    """``jnp.apply_over_axes``: ``func(a, axis)`` for each axis in turn, the
    axis kept (as size 1) when ``func`` removes it."""
    x = tnp.asarray(a)
    for axis in axes:
        b = tnp.asarray(func(x, axis))
        if b.ndim == x.ndim - 1:
            b = lax.expand_dims(b, (tnp._axis("apply_over_axes", axis, x.ndim),))
        elif b.ndim != x.ndim:
            raise PrimitiveTypeError("apply_over_axes: function is not returning an array of the correct shape")
        x = b
    return x


def gradient(f: ArrayLike, *varargs: ArrayLike, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Array | list[Array]:
    """``jnp.gradient``: central differences inside, one-sided at the edges,
    with constant spacings ``varargs`` (one for all axes, or one per axis)."""
    if edge_order is not None:
        raise PrimitiveTypeError("gradient: The 'edge_order' argument to jnp.gradient is not supported.")
    a = tnp.asarray(tnp._float(tnp.asarray(f)))
    if axis is None:
        axes: tuple[int, ...] = tuple(range(a.ndim))
    elif isinstance(axis, (int, np.integer)):
        axes = (tnp._axis("gradient", axis, a.ndim),)
    else:
        axes = tuple(tnp._axis("gradient", v, a.ndim) for v in axis)
    if not axes:
        return []
    if builtins.min(a.shape[i] for i in axes) < 2:
        raise PrimitiveTypeError("gradient: Shape of array too small to calculate a numerical gradient, "
                                 "at least (edge_order + 1) elements are required.")
    if len(varargs) == 0:
        dx: list[ArrayLike] = [1.0] * len(axes)
    elif len(varargs) == 1:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = list(varargs)
    else:
        raise PrimitiveTypeError("gradient: Invalid number of spacing arguments")
    if builtins.any(np.ndim(np.asarray(d)) != 0 if not isinstance(d, Array) else d.ndim != 0 for d in dx):
        raise PrimitiveTypeError("gradient: Non-constant spacing not implemented")

    def along(h: ArrayLike, ax: int) -> Array:
        n = a.shape[ax]

        def sl(lo: int, hi: int) -> Array:
            return lax.slice_in_dim(a, lo, hi, axis=ax)

        g = tnp.concatenate([tnp.subtract(sl(1, 2), sl(0, 1)),
                             tnp.multiply(tnp.subtract(sl(2, n), sl(0, n - 2)), 0.5),
                             tnp.subtract(sl(n - 1, n), sl(n - 2, n - 1))], ax)
        return tnp.divide(g, h)

    grads = [along(h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def trim_zeros(filt: ArrayLike, trim: str = "fb") -> Array:
    """``jnp.trim_zeros``: the 1-d array without its leading (``'f'``) and
    trailing (``'b'``) zeros (the result's length depends on the values: a
    concrete input only)."""
    from ..core.errors import ConcretizationError

    x = tnp.asarray(filt)
    if isinstance(x, Tracer):
        raise ConcretizationError("trim_zeros: the output's length depends on the values of a traced array")
    if x.ndim != 1:
        raise PrimitiveTypeError(f"trim_zeros: filt must be 1-D, got shape {x.shape}")
    nz = np.flatnonzero(np.asarray(x))
    if nz.size == 0:
        return lax.slice_in_dim(x, 0, 0)
    lo = int(nz[0]) if "f" in trim.lower() else 0
    hi = int(nz[-1]) + 1 if "b" in trim.lower() else x.shape[0]
    return lax.slice_in_dim(x, lo, hi)


def unwrap(p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1, period: ArrayLike = 2 * np.pi) -> Array:
    """``jnp.unwrap``: jumps larger than ``discont`` (default ``period / 2``)
    along ``axis`` replaced by their complement modulo ``period``."""
    pa, per = (tnp.asarray(v) for v in tnp._promote(p, period))
    ax = tnp._axis("unwrap", axis, pa.ndim)
    if pa.shape[ax] == 0:
        return pa
    integral = pa.dtype.kind in "iu"
    disc = (tnp.floor_divide(per, 2) if integral else tnp.divide(per, 2)) if discont is None else discont
    interval = tnp.floor_divide(per, 2) if integral else tnp.divide(per, 2)
    dd = diff(pa, axis=ax)
    ddmod = tnp.subtract(tnp.mod(tnp.add(dd, interval), per), interval)
    ddmod = tnp.where(tnp.logical_and(tnp.equal(ddmod, tnp.negative(interval)), tnp.greater(dd, 0)), interval, ddmod)
    correct = tnp.where(tnp.less(tnp.abs(dd), disc), 0, tnp.subtract(ddmod, dd))
    n = pa.shape[ax]
    rest = tnp.add(lax.slice_in_dim(pa, 1, n, axis=ax), tnp.cumsum(correct, axis=ax))
    return tnp.concatenate([lax.slice_in_dim(pa, 0, 1, axis=ax), rest], ax)
