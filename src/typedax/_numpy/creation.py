"""Array creation of ``jax.numpy`` (issue 12, group 2): ``eye``, ``identity``,
``tri``/``tril``/``triu``, ``diag``, ``diagonal``, ``trace``, ``meshgrid``,
``indices``, ``empty``/``empty_like``, ``logspace``, ``geomspace``.

Shapes and offsets are static (Python integers), as in JAX."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, canonicalize_explicit, default_float, default_int, float32
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from ..core.trace import aval_of
from ..lowering.jaxlib_api import Device
from .array_api import check_device
from . import lax_numpy as tnp
from .manipulation import moveaxis


def _dim(op: str, what: str, n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be a static integer, got {n!r}")
    if int(n) < 0:
        raise ArgumentValueError(f"{op}: negative dimensions are not allowed, got {what}={n}")
    return int(n)


def _offset(op: str, k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: the diagonal offset must be a static integer, got {k!r}")
    return int(k)


def _dtype(op: str, dtype: DType | type | None, default: DType) -> DType:
    return default if dtype is None else canonicalize_explicit(np.dtype(dtype), op)


def _tri_mask(n: int, m: int, k: int) -> Array:
    """``i + k >= j`` for the (n, m) grid: True on and below the k-th diagonal."""
    k = max(-n, min(m, k))  # the same mask, and k in int32 (eye(2, k=2**31): no diagonal)
    rows = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 0)
    cols = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 1)
    return lax.ge(lax.add(rows, np.asarray(k, np.int32)), cols)


def eye(N: int, M: int | None = None, k: int = 0, dtype: DType | type | None = None, *,
        device: Device | None = None) -> Array:
    """``jnp.eye``: ones on the k-th diagonal of an (N, M) matrix."""
    if device is not None:
        check_device("eye", device)
    n = _dim("eye", "N", N)
    m = n if M is None else _dim("eye", "M", M)
    off = max(-n, min(m, _offset("eye", k)))  # the same matrix, and the offset in int32 (k=2**31: zeros, as JAX)
    rows = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 0)
    cols = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 1)
    mask = lax.eq(lax.add(rows, np.asarray(off, np.int32)), cols)
    return lax.convert_element_type(mask, _dtype("eye", dtype, default_float()))


def identity(n: int, dtype: DType | type | None = None) -> Array:
    """``jnp.identity``: ``eye(n)``."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: DType | type | None = None) -> Array:
    """``jnp.tri``: ones on and below the k-th diagonal (float32 by default, as JAX's)."""
    n = _dim("tri", "N", N)
    m = n if M is None else _dim("tri", "M", M)
    return lax.convert_element_type(_tri_mask(n, m, _offset("tri", k)), _dtype("tri", dtype, float32))


def _triangle(op: str, m: ArrayLike, k: int, lower: bool) -> Array:
    x = tnp.asarray(m)
    if x.ndim < 2:
        raise ShapeError(f"{op}: the input must be at least 2-dimensional, got shape {x.shape}")
    n, c = x.shape[-2:]
    off = _offset(op, k)
    mask = _tri_mask(n, c, off) if lower else lax.bitwise_not(_tri_mask(n, c, off - 1))
    mask = tnp.broadcast_to(mask, x.shape)
    return lax.select(mask, x, tnp.zeros_like(x))


def tril(m: ArrayLike, k: int = 0) -> Array:
    """``jnp.tril``: zeros above the k-th diagonal of the last two axes."""
    return _triangle("tril", m, k, True)


def triu(m: ArrayLike, k: int = 0) -> Array:
    """``jnp.triu``: zeros below the k-th diagonal of the last two axes."""
    return _triangle("triu", m, k, False)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """``jnp.diagonal``: the ``offset`` diagonal of the planes ``(axis1, axis2)``,
    as the last axis of the result (a gather of static indices)."""
    x = tnp.asarray(a)
    if x.ndim < 2:
        raise ShapeError(f"diagonal: the input must be at least 2-dimensional, got shape {x.shape}")
    a1 = tnp._axis("diagonal", axis1, x.ndim)
    a2 = tnp._axis("diagonal", axis2, x.ndim)
    if a1 == a2:
        raise PrimitiveTypeError("diagonal: axis1 and axis2 cannot be the same")
    off = _offset("diagonal", offset)
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    y = lax.transpose(x, (*rest, a1, a2))
    n, m = x.shape[a1], x.shape[a2]
    length = max(0, min(n + min(off, 0), m - max(off, 0)))
    lead = tuple(x.shape[i] for i in rest)
    if length == 0:
        return tnp.zeros(lead + (0,), x.dtype)
    i = np.arange(length) - min(off, 0)
    j = np.arange(length) + max(off, 0)
    return y[(Ellipsis, i, j)]


def diag(v: ArrayLike, k: int = 0) -> Array:
    """``jnp.diag``: a 1-d ``v`` on the k-th diagonal of a square matrix, or
    the k-th diagonal of a 2-d ``v``."""
    x = tnp.asarray(v)
    off = _offset("diag", k)
    if x.ndim == 2:
        return diagonal(x, off)
    if x.ndim != 1:
        raise ShapeError(f"diag: the input must be 1- or 2-dimensional, got shape {x.shape}")
    n = x.shape[0] + abs(off)
    padded = lax.pad(x, np.zeros((), x.dtype), [(0, abs(off), 0)])
    full = lax.broadcast_in_dim(padded, (n, n), (0,) if off >= 0 else (1,))
    rows = lax.broadcasted_iota(np.dtype(np.int32), (n, n), 0)
    cols = lax.broadcasted_iota(np.dtype(np.int32), (n, n), 1)
    mask = lax.eq(lax.add(rows, np.asarray(off, np.int32)), cols)
    return lax.select(mask, full, tnp.zeros_like(full))


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DType | type | None = None) -> Array:
    """``jnp.trace``: the sum of ``diagonal(a, offset, axis1, axis2)`` (summed as ``sum`` does)."""
    return tnp.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list[Array]:
    """``jnp.meshgrid``: coordinate grids of 1-d arrays; ``indexing='xy'``
    (Cartesian: the first two axes swapped) or ``'ij'`` (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ArgumentValueError(f"meshgrid: Valid values for indexing are 'xy' and 'ij', got {indexing!r}")
    args = [tnp.asarray(x) for x in xi]
    if any(a.ndim != 1 for a in args):
        raise PrimitiveTypeError(
            f"meshgrid: arguments must be 1D, got shapes {[a.shape for a in args]}"
        )
    sizes = [a.shape[0] for a in args]
    if indexing == "xy" and len(args) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out: list[Array] = []
    for i, a in enumerate(args):
        axis = i
        if indexing == "xy" and len(args) >= 2 and i < 2:
            axis = 1 - i
        if sparse:
            shape = tuple(sizes[j] if j == axis else 1 for j in range(len(args)))
            out.append(lax.reshape(a, shape))
        else:
            out.append(lax.broadcast_in_dim(a, tuple(sizes), (axis,)))
    return out


def indices(dimensions: Sequence[int], dtype: DType | type | None = None,
            sparse: bool = False) -> Array | tuple[Array, ...]:
    """``jnp.indices``: the index grids of ``dimensions``, stacked on a new first
    axis (or, ``sparse``, a tuple of broadcastable ones)."""
    dims = tuple(_dim("indices", "dimensions", d) for d in dimensions)
    d = _dtype("indices", dtype, default_int())
    if sparse:
        return tuple(
            lax.reshape(lax.iota(d, n), tuple(n if j == i else 1 for j in range(len(dims))))
            for i, n in enumerate(dims)
        )
    if not dims:
        return tnp.zeros((0,), d)
    return tnp.stack([lax.broadcasted_iota(d, dims, i) for i in range(len(dims))])


def empty(shape: int | Sequence[int], dtype: DType | type | None = None, *, device: Device | None = None) -> Array:
    """``jnp.empty``: zeros (arrays are immutable; JAX gives zeros too)."""
    return tnp.zeros(shape, dtype, device=device)


def empty_like(prototype: ArrayLike, dtype: DType | type | None = None,
               shape: int | Sequence[int] | None = None, *, device: Device | None = None) -> Array:
    """``jnp.empty_like``: zeros like ``prototype`` (of ``shape`` if given)."""
    return tnp.zeros_like(prototype, dtype, shape, device=device)


def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             base: ArrayLike = 10.0, dtype: DType | type | None = None, axis: int = 0) -> Array:
    """``jnp.logspace``: ``base ** linspace(start, stop, num)``."""
    d = tnp._inexact(tnp.result_type(start, stop)) if dtype is None \
        else canonicalize_explicit(np.dtype(dtype), "logspace")
    cd = tnp._inexact(d)
    lin = tnp.linspace(tnp.asarray(start, cd), tnp.asarray(stop, cd), num, endpoint=endpoint, axis=axis)
    return tnp.astype(tnp.power(tnp.asarray(base, cd) if not isinstance(base, (int, float)) else base, lin), d)


def geomspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
              dtype: DType | type | None = None, axis: int = 0) -> Array:
    """``jnp.geomspace``: ``num`` values evenly spaced on a log scale from
    ``start`` to ``stop`` (both of one sign), as JAX computes them."""
    d = tnp._inexact(tnp.result_type(start, stop)) if dtype is None \
        else canonicalize_explicit(np.dtype(dtype), "geomspace")
    cd = tnp._inexact(d)
    s, e = tnp.asarray(start, cd), tnp.asarray(stop, cd)
    sign = tnp.sign(s)
    res = tnp.multiply(sign, logspace(tnp.log10(tnp.divide(s, sign)), tnp.log10(tnp.divide(e, sign)), num,
                                      endpoint=endpoint, base=10.0, dtype=cd, axis=0))
    # the ends exactly (as NumPy and JAX): 10 ** log10(1000) is 999.99...
    if num > 0:
        res = res.at[0].set(s)
    if num > 1 and endpoint:
        res = res.at[-1].set(e)
    if axis != 0:
        res = moveaxis(res, 0, axis)
    return tnp.astype(res, d)


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """``jnp.diagflat``: the flattened ``v`` on the k-th diagonal of a square matrix."""
    return diag(tnp.ravel(v), k)


BlockArg = ArrayLike | Sequence["BlockArg"]


def block(arrays: BlockArg) -> Array:
    """``jnp.block``: an array assembled from nested lists of blocks (the
    innermost lists join along the last axis, the next along the one before, ...)."""
    def build(xs: BlockArg) -> tuple[Array, int]:
        if isinstance(xs, tuple):
            raise PrimitiveTypeError(f"block: jax.numpy.block does not allow tuples, got {xs!r}")
        if isinstance(xs, Sequence):
            if not isinstance(xs, list) or not xs:
                raise PrimitiveTypeError("block: jax.numpy.block does not allow empty list arguments")
            parts = [build(x) for x in xs]
            depth = parts[0][1]
            if any(d != depth for _, d in parts[1:]):
                raise PrimitiveTypeError("block: Mismatched list depths in jax.numpy.block")
            rank = max(depth, max(p.ndim for p, _ in parts))
            arrs = [lax.reshape(p, (1,) * (rank - p.ndim) + p.shape) for p, _ in parts]
            return tnp.concatenate(arrs, axis=rank - depth), depth + 1
        return tnp.asarray(xs), 1

    return build(arrays)[0]


def _grid_axis(op: str, s: slice) -> Array:
    """One axis of ``mgrid``/``ogrid``: ``arange(start, stop, step)``, or
    ``linspace`` for an imaginary step (``0:1:5j`` is 5 points)."""
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if s.stop is None:
        raise PrimitiveTypeError(f"{op}: a slice needs a stop, got {s!r}")
    if isinstance(step, complex):
        return tnp.linspace(start, s.stop, int(abs(step)))
    return tnp.arange(start, s.stop, step)


class _Mgrid:
    """``jnp.mgrid``: ``mgrid[0:3, 0:4]`` is the dense grid of the ranges, stacked."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Array:
        if isinstance(key, slice):
            return _grid_axis("mgrid", key)
        axes = [_grid_axis("mgrid", k) for k in key]
        if not axes:
            return tnp.arange(0)
        return tnp.stack(meshgrid(*axes, indexing="ij"), 0)


class _Ogrid:
    """``jnp.ogrid``: ``ogrid[0:3, 0:4]`` is the open (broadcastable) grid of the ranges."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Array | list[Array]:
        if isinstance(key, slice):
            return _grid_axis("ogrid", key)
        return meshgrid(*[_grid_axis("ogrid", k) for k in key], indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


_IndexItem = ArrayLike | slice | str | Sequence[object]


class _AxisConcat:
    """``jnp.r_`` and ``jnp.c_`` (issue 29, item 7): concatenation by index
    expression. Slices are ranges (``1:4``, or ``0:1:5j`` for 5 points), a
    leading string is a directive: ``'axis,ndmin,trans1d'`` (as NumPy's), or
    ``'r'``/``'c'`` for a row or column matrix of a 1-d result."""

    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key: _IndexItem | tuple[_IndexItem, ...]) -> Array:
        items: tuple[_IndexItem, ...] = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if items and isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec: list[object] = list(directive.split(","))
                vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = [int(str(v)) for v in vec]
                except ValueError as err:
                    raise ArgumentValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        parts: list[Array] = []
        for item in items:
            if isinstance(item, slice):
                if item.stop is None:
                    raise ArgumentValueError(f"{self.op_name}: a slice needs a stop, got {item!r}")
                obj, item_ndim = _grid_axis(self.op_name, item), 0
            elif isinstance(item, str):
                raise ArgumentValueError("string directive must be placed at the beginning")
            else:
                obj = tnp.asarray(item)
                item_ndim = obj.ndim
            if obj.ndim < ndmin:
                obj = lax.reshape(obj, (1,) * (ndmin - obj.ndim) + obj.shape)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = tnp.transpose(obj, order[shifts:] + order[:shifts])
            parts.append(obj)
        res = tnp.concatenate(parts, axis=axis)
        if matrix != -1 and res.ndim == 1:
            res = tnp.expand_dims(res, matrix)
        return res

    def __len__(self) -> int:
        return 0


class _RClass(_AxisConcat):
    """``jnp.r_``: concatenation along the first axis (``r_[1:4, 0, [5, 6]]``)."""

    axis = 0
    ndmin = 1
    trans1d = -1
    op_name = "r_"


class _CClass(_AxisConcat):
    """``jnp.c_``: concatenation along the last axis, 1-d items as columns."""

    axis = -1
    ndmin = 2
    trans1d = 0
    op_name = "c_"


r_ = _RClass()
c_ = _CClass()


def frombuffer(buffer: bytes | bytearray | memoryview, dtype: DType | type = float, count: int = -1,
               offset: int = 0) -> Array:
    """``jnp.frombuffer``: NumPy's ``frombuffer`` as an array (the dtype as
    the user gave it, canonicalized)."""
    return tnp.asarray(np.frombuffer(buffer, dtype=np.dtype(dtype), count=count, offset=offset))


def fromstring(string: str, dtype: DType | type = float, count: int = -1, *, sep: str) -> Array:
    """``jnp.fromstring``: the numbers of a text separated by ``sep`` (NumPy's ``fromstring``)."""
    return tnp.asarray(np.fromstring(string, dtype=np.dtype(dtype), count=count, sep=sep))


def impure(name: str, consumed: str) -> NotImplementedError:
    """JAX's error for ``jnp.<name>``, which it leaves out as impure (it
    consumes ``consumed``)."""
    return NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
        f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
        f"instead, although care should be taken if np.{name} is used within a jax transformations "
        f"because of its potential side-effect of consuming the {consumed}; for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def fromiter(*args: object, **kwargs: object) -> Array:
    """``jnp.fromiter``: not implemented, as JAX's (consuming an iterator is a side effect)."""
    raise impure("fromiter", "iterable object")
