"""The everyday ``jax.lax`` functions that are compositions, not primitives:
element-wise conveniences (``rsqrt``, ``cbrt``, ``square``, ``reciprocal``),
array builders and reshapers (``full``, ``full_like``, ``empty``, ``split``,
``tile``, ``collapse``, ``stack``, ...), ``batch_matmul``, the scatter and
gather conveniences (``scatter_sub``, ``scatter_apply``, ``index_take``) and
the general ``reduce`` (with ``reduce_xor``). ``typedax.lax`` re-exports them.

Each is built from the base ``lax`` functions (``typedax._lax.lax``) and
the primitive-level functions beside their primitives.

Accuracy of the compositions against JAX's primitives (tests/test_lax_more.py):

- ``rsqrt`` is ``1 / sqrt(x)``: within 2 ulp of XLA's ``rsqrt`` in float32
  and float64.
- ``cbrt`` is ``|x| ** (1/3)`` with the sign, then one Newton step
  ``y + (x / y**2 - y) / 3`` (the power alone is up to ~15 ulp off in
  float32 and ~100 in float64): within 1 ulp of XLA's ``cbrt`` in float32;
  in float64 within 1 ulp of the true cube root, and so within 3 ulp of
  XLA's, whose own error is up to 3 ulp. Its derivative is the composition's,
  equal to ``1 / (3 cbrt(x)**2)`` to rounding (``inf`` at 0, as JAX's).
- 16-bit floats compute both in float32 and round once, as XLA does.
- ``square`` is ``x * x`` and ``reciprocal`` is ``integer_pow(x, -1)``,
  exactly what JAX lowers them to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar, overload

import numpy as np

from .. import tree
from ..control_flow import while_loop
from ..control_flow.common import trace_callable, types_str
from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, FLOATING, INTEGER, DType, bool_, canonicalize_dtype, canonicalize_explicit, float32, float64
from ..core.errors import PrimitiveAxisError, PrimitiveTypeError, ShapeError
from ..core.eval import eval_jaxpr
from ..core.trace import Tracer, Value, as_value, aval_of, scalar_as
from ..interpreters.batching import vmap_flat
from ..primitives.gather_scatter import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, ScatterParams, gather, scatter_add,
    scatter_add_p,
)
from ..primitives.reductions import reduce_and, reduce_or, reduce_prod
from ..primitives.shaping import concatenate, expand_dims
from ..primitives.dynamic_slicing import index_in_dim
from ..primitives.slicing import slice_in_dim
from ..primitives.windowed import monoid_identity
from . import lax
from .lax import operands_and_inits

__all__ = [
    "batch_matmul", "broadcast_like", "broadcast_shapes", "broadcast_to_rank", "cbrt", "collapse", "dtype",
    "empty", "full", "full_like", "index_take", "reciprocal", "reduce", "reduce_xor", "rsqrt", "scatter_apply",
    "scatter_sub", "split", "square", "stack", "tile", "unstack",
]

T = TypeVar("T")

_HALF = frozenset(FLOATING - {float32, float64})


def _ints(op: str, what: str, ds: object) -> tuple[int, ...]:
    if isinstance(ds, (int, np.integer)) and not isinstance(ds, bool):
        return (int(ds),)
    if not isinstance(ds, (Sequence, np.ndarray)) or isinstance(ds, str):
        raise PrimitiveTypeError(f"{op}: {what} must be a sequence of integers, got {ds!r}")
    out = []
    for d in ds:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise PrimitiveTypeError(f"{op}: {what} must be integers, got {d!r} ({type(d).__name__})")
        out.append(int(d))
    return tuple(out)


def _shape(op: str, shape: object) -> tuple[int, ...]:
    s = _ints(op, "shape", shape)
    if any(d < 0 for d in s):
        raise PrimitiveTypeError(f"{op}: shape {s} has a negative dimension")
    return s


def _axis(op: str, axis: object, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: axis must be an integer, got {axis!r}")
    if not -ndim <= int(axis) < ndim:
        raise PrimitiveAxisError(f"{op}: axis {int(axis)} is out of bounds for an array of rank {ndim}")
    return int(axis) % ndim


def _no_accuracy(op: str, accuracy: object) -> None:
    if accuracy is not None:
        raise PrimitiveTypeError(f"{op}: accuracy={accuracy!r} is not supported (only None, XLA's default)")


def _float_operand(op: str, x: ArrayLike, complex_ok: bool = False) -> tuple[Value, DType]:
    """``x`` as a value of a floating dtype (or complex, with ``complex_ok``),
    and the dtype to compute in (float32 for the 16-bit floats, as XLA)."""
    v = as_value(x, f"{op}'s operand")
    d = aval_of(v).dtype
    if d not in FLOATING and not (complex_ok and d in COMPLEX):
        raise PrimitiveTypeError(f"{op}: the operand must be floating point, got {aval_of(v).str_short()}")
    return v, (float32 if d in _HALF else d)


# -- element-wise -------------------------------------------------------------------------
def rsqrt(x: ArrayLike, *, accuracy: None = None) -> Array:
    """``1 / sqrt(x)`` element-wise (``jax.lax.rsqrt``; within 2 ulp of XLA's)."""
    _no_accuracy("rsqrt", accuracy)
    v, wd = _float_operand("rsqrt", x, complex_ok=True)
    d = aval_of(v).dtype
    w = v if wd == d else lax.convert_element_type(v, wd)
    out = lax.div(np.asarray(1, wd), lax.sqrt(w))
    return out if wd == d else lax.convert_element_type(out, d)


def cbrt(x: ArrayLike, *, accuracy: None = None) -> Array:
    """The real cube root element-wise (``jax.lax.cbrt``): ``-cbrt(-x)`` for
    negative ``x`` (``-0.0`` stays ``-0.0``); see the module's notes for its accuracy."""
    _no_accuracy("cbrt", accuracy)
    v, wd = _float_operand("cbrt", x)
    d = aval_of(v).dtype
    w = v if wd == d else lax.convert_element_type(v, wd)
    zero = np.asarray(0, wd)
    s = lax.stop_gradient(w)
    # the sign bit (so -0.0 too), from the value only: no tangent meets it
    bits = np.dtype(np.int32 if wd == float32 else np.int64)
    neg = lax.lt(lax.bitcast_convert_type(s, bits), np.zeros((), bits))
    # a subnormal is a zero of its sign, as JAX's cbrt gives it (XLA flushes
    # them, and its pow of one is neither 0 nor the cube root); w - s keeps
    # the tangent, so the derivative there is inf, as at 0
    tiny = np.asarray(np.finfo(np.float32 if wd == float32 else np.float64).tiny, wd)  # wd: float32 or float64
    flush = lax.bitwise_and(lax.lt(lax.abs(s), tiny), lax.ne(s, zero))
    w = lax.select(flush, lax.sub(w, s), w)
    # pow of the magnitude picked by select (not abs, whose derivative at 0 is 0: cbrt's is inf)
    r = lax.pow(lax.select(neg, lax.neg(w), w), 1 / 3)  # (Python scalars: a weak x gives a weak cbrt, as JAX's)
    y = lax.select(neg, lax.neg(r), r)
    ok = lax.bitwise_and(lax.is_finite(y), lax.ne(y, zero))
    ys = lax.select(ok, y, full_like(y, 1))  # 0 and inf have no Newton step (nor a NaN gradient)
    newton = lax.add(ys, lax.div(lax.sub(lax.div(w, lax.mul(ys, ys)), ys), 3.0))
    out = lax.select(ok, newton, y)
    return out if wd == d else lax.convert_element_type(out, d)


def square(x: ArrayLike) -> Array:
    """``x * x`` element-wise (``jax.lax.square``; integers and floats, not bool)."""
    v = as_value(x, "square's operand")
    if aval_of(v).dtype == bool_:
        raise PrimitiveTypeError("square: does not accept dtype bool (integers and floats only)")
    return lax.mul(v, v)


def reciprocal(x: ArrayLike) -> Array:
    """``1 / x`` element-wise (``jax.lax.reciprocal``: ``integer_pow(x, -1)``)."""
    return lax.integer_pow(x, -1)


# -- building and reshaping arrays ------------------------------------------------------------
def dtype(x: object) -> DType:
    """The dtype of a value or of a dtype-like (``jax.lax.dtype``): Python
    scalars and scalar types, NumPy scalar types, dtypes and names are
    canonicalized (int64 becomes int32 with x64 off); arrays keep theirs."""
    if x is None:
        raise PrimitiveTypeError("dtype: None has no dtype")
    py = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
    if isinstance(x, type):
        if x in py:
            return canonicalize_dtype(py[x])
        if issubclass(x, np.generic) or isinstance(getattr(x, "dtype", None), np.dtype):  # tnp.float32 too
            return _known(np.dtype(x), x)
        raise PrimitiveTypeError(f"dtype: cannot determine the dtype of {x!r}")
    if type(x) in py:
        return canonicalize_dtype(py[type(x)])
    if isinstance(x, (str, np.dtype)):
        try:
            d = np.dtype(x)
        except TypeError:
            raise PrimitiveTypeError(f"dtype: {x!r} is not a dtype") from None
        return _known(d, x)
    if isinstance(x, (Array, np.ndarray, np.generic)):
        return aval_of(x).dtype
    raise PrimitiveTypeError(f"dtype: cannot determine the dtype of {x!r} ({type(x).__name__})")


def _known(d: DType, x: object) -> DType:
    if d not in FLOATING and d not in INTEGER and d != bool_:
        raise PrimitiveTypeError(f"dtype: {x!r} ({d}) is not a typedax array type")
    return canonicalize_explicit(d, "dtype")


def full(shape: int | Sequence[int], fill_value: ArrayLike, dtype: DType | type | str | None = None) -> Array:
    """An array of ``shape`` filled with the scalar ``fill_value`` (``jax.lax.full``),
    of ``dtype`` (``fill_value`` converted as ``convert_element_type`` does:
    integers wrap, floats truncate) or else ``fill_value``'s own dtype."""
    s = _shape("full", shape)
    v = as_value(fill_value, "full's fill_value")
    if aval_of(v).shape:
        raise PrimitiveTypeError(
            f"full: must be called with a scalar fill_value, got fill_value of shape {aval_of(v).shape}"
        )
    if dtype is not None:
        d = canonicalize_explicit(np.dtype(dtype), "full")
        if type(v) in (bool, int, float):
            # converted from its default type (a large int wraps, as in JAX's
            # convert_element_type); the result is strong, as JAX's with a dtype
            v = np.asarray(v, dtype=np.float64 if type(v) is float else np.int64 if type(v) is int else np.bool_)
        if aval_of(v).dtype != d or aval_of(v).weak_type:
            v = lax.convert_element_type(v, d)
    # without a dtype a Python scalar (or a weak value) broadcasts as it is: weak, as in JAX
    return lax.broadcast_in_dim(v, s, ())


def full_like(
    x: ArrayLike, fill_value: ArrayLike, dtype: DType | type | str | None = None,
    shape: int | Sequence[int] | None = None,
) -> Array:
    """``full`` with the shape and dtype of ``x`` unless ``shape`` / ``dtype``
    are given (``jax.lax.full_like``)."""
    a = aval_of(as_value(x, "full_like's x"))
    if dtype is None and a.weak_type and type(fill_value) in (bool, int, float):
        # x weak: so is the result (JAX's full_like), in x's dtype
        out = full(a.shape if shape is None else shape, scalar_as(fill_value, a))  # type: ignore[arg-type]  # a Python scalar, checked above
    else:
        out = full(a.shape if shape is None else shape, fill_value, a.dtype if dtype is None else dtype)
    # x's sharding too, unless another shape is asked for (JAX's full_like)
    return out if shape is not None else lax.typed_like(out, a)


def empty(shape: int | Sequence[int], dtype: DType | type | str) -> Array:
    """An array of ``shape`` and ``dtype`` whose values are unspecified
    (``jax.lax.empty``): here zeros."""
    return full(shape, 0, dtype)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy broadcasting gives ``shapes`` (``jax.lax.broadcast_shapes``)."""
    if not shapes:
        raise PrimitiveTypeError("broadcast_shapes: give at least one shape")
    ss = [_ints("broadcast_shapes", "shapes", s) for s in shapes]
    for s in ss:
        if any(d < 0 for d in s):
            raise PrimitiveTypeError(
                f"broadcast_shapes: only non-negative dimensions broadcast, got shape {s}"
            )
    rank = max(len(s) for s in ss)
    padded = [(1,) * (rank - len(s)) + s for s in ss]
    out = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise PrimitiveTypeError(
                f"broadcast_shapes: incompatible shapes for broadcasting: {', '.join(map(str, ss))}"
            )
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to_rank(x: ArrayLike, rank: int) -> Array:
    """``x`` with leading dimensions of size 1 added up to rank ``rank``
    (``jax.lax.broadcast_to_rank``; a rank below ``x``'s adds none, as JAX)."""
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise PrimitiveTypeError(f"broadcast_to_rank: rank must be an integer, got {rank!r}")
    v = as_value(x, "broadcast_to_rank's operand")
    return lax.broadcast(v, (1,) * max(int(rank) - aval_of(v).ndim, 0))


def broadcast_like(arr: ArrayLike, like_arr: ArrayLike) -> Array:
    """``arr`` broadcast NumPy-style to the shape of ``like_arr`` (``jax.lax.broadcast_like``)."""
    v = as_value(arr, "broadcast_like's arr")
    shape = aval_of(as_value(like_arr, "broadcast_like's like_arr")).shape
    own = aval_of(v).shape
    lead = len(shape) - len(own)
    if lead < 0 or any(d not in (1, s) for d, s in zip(own, shape[lead:])):
        raise ShapeError(f"broadcast_like: cannot broadcast shape {own} to {shape}")
    keep = [i for i, d in enumerate(own) if d == shape[lead + i]]
    squeezed = lax.reshape(v, [own[i] for i in keep])
    return lax.broadcast_in_dim(squeezed, shape, [lead + i for i in keep])


def collapse(operand: ArrayLike, start_dimension: int, stop_dimension: int | None = None) -> Array:
    """Dimensions ``[start_dimension, stop_dimension)`` (Python slice bounds)
    merged into one, major to minor (``jax.lax.collapse``)."""
    v = as_value(operand, "collapse's operand")
    shape = aval_of(v).shape
    for what, b in (("start_dimension", start_dimension), ("stop_dimension", stop_dimension)):
        if b is not None and (isinstance(b, bool) or not isinstance(b, (int, np.integer))):
            raise PrimitiveTypeError(f"collapse: {what} must be an integer or None, got {b!r}")
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise PrimitiveTypeError(
            f"collapse: invalid dimension range {shape}[{start_dimension}:{stop_dimension}]"
        )
    return lax.reshape(v, (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:]))


def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> list[Array]:
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (which must sum
    to that axis's length) (``jax.lax.split``)."""
    v = as_value(operand, "split's operand")
    shape = aval_of(v).shape
    ax = _axis("split", axis, len(shape))
    ss = _ints("split", "sizes", sizes)
    if any(s < 0 for s in ss):
        raise PrimitiveTypeError(f"split: sizes must be non-negative, got {list(ss)}")
    if sum(ss) != shape[ax]:
        raise PrimitiveTypeError(
            f"split: the sum of sizes {sum(ss)} must equal dimension {ax} of the operand shape {list(shape)}"
        )
    starts = np.cumsum((0, *ss))
    return [slice_in_dim(v, int(a), int(b), 1, ax) for a, b in zip(starts[:-1], starts[1:])]


def tile(operand: ArrayLike, reps: Sequence[int]) -> Array:
    """``operand`` repeated ``reps[i]`` times along each dimension ``i``
    (``jax.lax.tile``; ``len(reps)`` must be the rank): a broadcast of the
    operand under new leading axes, reshaped (XLA's lowering of JAX's ``tile``)."""
    v = as_value(operand, "tile's operand")
    shape = aval_of(v).shape
    r = _ints("tile", "reps", reps)
    if len(r) != len(shape):
        raise PrimitiveTypeError(
            f"tile: the length of reps must equal the rank of the operand, got len(reps)={len(r)} "
            f"and an operand of shape {shape}"
        )
    if any(k < 0 for k in r):
        raise PrimitiveTypeError(f"tile: reps must be non-negative, got {r}")
    pairs = tuple(k for pair in zip(r, shape) for k in pair)
    b = lax.broadcast_in_dim(v, pairs, tuple(range(1, 2 * len(shape), 2)))
    return lax.reshape(b, tuple(k * d for k, d in zip(r, shape)))


def stack(operands: Sequence[ArrayLike], axis: int = 0) -> Array:
    """The operands (of one shape and dtype) joined along a new axis ``axis``
    (``jax.lax.stack``)."""
    vals = [as_value(x, "stack's operands") for x in operands]
    if not vals:
        raise PrimitiveTypeError("stack: needs at least one operand")
    shape = aval_of(vals[0]).shape
    ax = _axis("stack", axis, len(shape) + 1)
    return concatenate([expand_dims(x, (ax,)) for x in vals], ax)


def unstack(x: ArrayLike, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, that axis removed (``jax.lax.unstack``)."""
    v = as_value(x, "unstack's operand")
    shape = aval_of(v).shape
    if not shape:
        raise PrimitiveTypeError("unstack: the operand must have rank > 0, got a scalar")
    ax = _axis("unstack", axis, len(shape))
    return tuple(index_in_dim(v, i, ax, keepdims=False) for i in range(shape[ax]))


def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: object = None) -> Array:
    """Matrix products over the leading (batch) dimensions: ``lhs[..., i, j] @
    rhs[..., j, k]`` (``jax.lax.batch_matmul``; both of one rank, at least 2).
    ``precision`` is accepted and has no effect (XLA on CPU computes at full precision)."""
    a, b = as_value(lhs, "batch_matmul's lhs"), as_value(rhs, "batch_matmul's rhs")
    la, lb = aval_of(a).ndim, aval_of(b).ndim
    if min(la, lb) < 2:
        raise PrimitiveTypeError(f"batch_matmul: the arguments must be at least 2-d, got ranks {la} and {lb}")
    if la != lb:
        raise PrimitiveTypeError(f"batch_matmul: the arguments must have one rank, got {la} and {lb}")
    batch = tuple(range(la - 2))
    return lax.dot_general(a, b, (((la - 1,), (lb - 2,)), (batch, batch)))


# -- scatter and gather conveniences ----------------------------------------------------------
def scatter_sub(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_sub``: ``scatter_add`` of the negated updates (the
    same values: ``a - b`` is ``a + (-b)`` exactly, and integers wrap alike)."""
    u = as_value(updates, "scatter_sub's updates")
    if aval_of(u).dtype == bool_:
        raise PrimitiveTypeError("scatter_sub: does not accept bool updates (integers and floats only)")
    return scatter_add(
        operand, scatter_indices, lax.neg(u), dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )


#: scatter_apply with concrete indices unrolls up to this many applications
#: (an index repeated more often loops, which reverse mode cannot go through)
_UNROLL = 16


def scatter_apply(
    operand: ArrayLike, scatter_indices: ArrayLike, func: Callable[[Array], ArrayLike],
    dimension_numbers: ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False, unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_apply``: ``func`` (a scalar function) applied to the
    elements of ``operand`` the scatter reaches, once per time an index
    reaches it. ``update_shape`` is the shape updates would have.

    Built as: a ``scatter_add`` of ones counts the times each element is
    reached (the mode drops or clips exactly as the scatter would), then
    ``func`` (vmapped over the elements) is applied where the count exceeds
    ``k``, for ``k = 0, 1, ...`` up to the largest count (a ``while_loop``;
    with ``unique_indices=True`` one application, no loop; with concrete
    indices and at most ``_UNROLL`` applications, unrolled, so ``grad`` works,
    where JAX's scatter_apply has no derivative).
    """

    x = as_value(operand, "scatter_apply's operand")
    a = aval_of(x)
    closed, out_tree = trace_callable(func, tree.structure((0,)), [ShapedArray((), a.dtype)], "scatter_apply's func")
    if out_tree != tree.structure(0) or closed.out_avals != (ShapedArray((), a.dtype),):
        raise PrimitiveTypeError(
            f"scatter_apply: func must map a {a.dtype} scalar to a {a.dtype} scalar, got "
            f"{', '.join(o.str_short() for o in closed.out_avals)}"
        )
    ushape = _shape("scatter_apply", update_shape)
    counts: Value
    if isinstance(scatter_indices, Tracer):
        counts = scatter_add(
            full(a.shape, 0, np.int32), scatter_indices, full(ushape, 1, np.int32),
            dimension_numbers, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
        )
    else:
        # concrete indices (the common .at[idx].apply): counted now, by the
        # scatter's own NumPy rule, so the loop below unrolls and reverse mode
        # works through it (also under jit, where a lax call would be staged)
        dn = ScatterDimensionNumbers(*dimension_numbers)
        s = ScatterParams(
            tuple(dn.update_window_dims), tuple(dn.inserted_window_dims), tuple(dn.scatter_dims_to_operand_dims),
            GatherScatterMode.from_any(mode).value, bool(indices_are_sorted), bool(unique_indices),
        )
        idx_np = np.asarray(scatter_indices)
        (counts,) = scatter_add_p.impl([np.zeros(a.shape, np.int32), idx_np, np.ones(ushape, np.int32)], s.to_params())
    size = math.prod(a.shape)

    def apply_all(v: Value) -> Value:
        flat = lax.reshape(v, (size,))
        (out,) = vmap_flat(lambda e: eval_jaxpr(closed, e), size, [0], [flat], [0])
        return lax.reshape(out, a.shape)

    def step(k: Value, v: Value) -> Value:
        return lax.select(lax.gt(counts, lax.broadcast_in_dim(k, a.shape, ())), apply_all(v), v)

    if unique_indices:
        return step(np.asarray(0, np.int32), x)  # type: ignore[return-value]  # select gives an Array
    if isinstance(counts, np.ndarray) and (top_n := int(counts.max(initial=0))) <= _UNROLL:
        for k in range(top_n):
            x = step(np.asarray(k, np.int32), x)
        return x  # type: ignore[return-value]  # select gives an Array

    def body(kv: tuple[Value, Value]) -> tuple[Value, Value]:
        k, v = kv
        return lax.add(k, np.asarray(1, np.int32)), step(k, v)

    top = lax.reduce_max(counts, tuple(range(a.ndim)))
    return while_loop(lambda kv: lax.lt(kv[0], top), body, (np.asarray(0, np.int32), x))[1]  # type: ignore[return-value]  # the carry's array


def index_take(src: ArrayLike, idxs: Sequence[ArrayLike], axes: Sequence[int]) -> Array:
    """``src[idxs[0], idxs[1], ...]`` with ``idxs[i]`` indexing axis ``axes[i]``
    (all index arrays of one shape, taken modulo the axis length)
    (``jax.lax.index_take``)."""
    s = as_value(src, "index_take's src")
    shape = aval_of(s).shape
    ax = _ints("index_take", "axes", axes)
    ix = [as_value(i, "index_take's idxs") for i in idxs]
    if len(ix) != len(ax) or not ix:
        raise PrimitiveTypeError(f"index_take: needs one index array per axis, got {len(ix)} for axes {ax}")
    if any(not -len(shape) <= d < len(shape) for d in ax) or len(set(d % len(shape) for d in ax)) != len(ax):
        raise PrimitiveTypeError(f"index_take: axes {ax} must be distinct axes of an array of rank {len(shape)}")
    ax = tuple(d % len(shape) for d in ax)
    ishape = aval_of(ix[0]).shape
    for i in ix:
        if aval_of(i).shape != ishape or aval_of(i).dtype not in INTEGER:
            raise PrimitiveTypeError(
                "index_take: the index arrays must be integers of one shape, got "
                + ", ".join(aval_of(j).str_short() for j in ix)
            )
    d = aval_of(ix[0]).dtype
    ix = [lax.convert_element_type(i, d) for i in ix]
    indices = concatenate([expand_dims(i, (len(ishape),)) for i in ix], len(ishape))
    bound = np.broadcast_to(np.asarray([shape[a] for a in ax], d), aval_of(indices).shape)
    indices = lax.rem(lax.add(lax.rem(indices, bound), bound), bound)  # Python's modulo, as JAX's %
    sizes = [1 if i in ax else n for i, n in enumerate(shape)]
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(len(ishape), len(ishape) + len(shape) - len(ax))),
        collapsed_slice_dims=ax, start_index_map=ax,
    )
    return gather(s, indices, dn, sizes)


# -- reductions --------------------------------------------------------------------------------
@overload
def reduce(
    operands: ArrayLike, init_values: ArrayLike, computation: Callable[[Array, Array], ArrayLike],
    dimensions: Sequence[int],
) -> Array: ...
@overload
def reduce(
    operands: object, init_values: object, computation: Callable[..., object], dimensions: Sequence[int],
) -> object: ...
def reduce(
    operands: object, init_values: object, computation: Callable[..., object], dimensions: Sequence[int],
) -> object:
    """``jax.lax.reduce``: fold ``computation`` over ``dimensions`` of
    ``operands`` (an array or a pytree of arrays of one shape), starting from
    ``init_values`` (scalars, the same structure).

    ``lax.add`` / ``mul`` / ``max`` / ``min`` / ``bitwise_and`` /
    ``bitwise_or`` / ``bitwise_xor`` with their identity (0, 1, the dtype's
    least / greatest value or -inf / inf, all ones, 0) on one operand are the
    ``reduce_sum`` / ``reduce_prod`` / ... primitives, as in JAX. Any other
    computation (it must be associative, as XLA requires) is traced once on
    scalars and folded as a balanced tree of vmapped applications over
    adjacent pairs (order kept, so an associative but non-commutative
    computation is right), then applied once to the init values: a
    composition, so ``jit``, ``vmap``, ``jvp`` and ``grad`` go through it.
    """

    ops, init_leaves, op_tree = operands_and_inits("reduce", "operands", "init_values", operands, init_values)
    shape = aval_of(ops[0]).shape
    if any(aval_of(x).shape != shape for x in ops):
        raise PrimitiveTypeError(
            "reduce: the operands must have one shape, got " + ", ".join(aval_of(x).str_short() for x in ops)
        )
    dims = _reduced_dims("reduce", "dimensions", dimensions, shape)
    inits: list[Value] = []
    for i, x in zip(init_leaves, ops):
        v = as_value(i, "reduce's init_values")
        d = aval_of(x).dtype
        if type(v) in (bool, int, float):  # a Python scalar is weak: it takes its operand's dtype
            v = np.asarray(v).astype(d)
        if aval_of(v).shape != () or aval_of(v).dtype != d:
            raise PrimitiveTypeError(
                f"reduce: init values must be scalars of their operands' dtypes, got {aval_of(v).str_short()} "
                f"for an operand of dtype {d}"
            )
        inits.append(v)
    if len(ops) == 1 and not isinstance(inits[0], Tracer):
        monoid = _monoid_reducer(computation, aval_of(ops[0]).dtype, np.asarray(inits[0]))
        if monoid is not None:
            return tree.unflatten(op_tree, [monoid(ops[0], dims)])
    return tree.unflatten(op_tree, _general_reduce(ops, inits, init_values, computation, dims))


def _reduced_dims(op: str, what: str, dimensions: Sequence[int], shape: tuple[int, ...]) -> tuple[int, ...]:
    dims = _ints(op, what, dimensions)
    if any(not 0 <= d < len(shape) for d in dims) or len(set(dims)) != len(dims):
        raise PrimitiveAxisError(
            f"{op}: {what} {dims} must be distinct axes in [0, {len(shape)}) of the operand shape {shape}"
        )
    return dims


def _monoid_reducer(
    computation: Callable[..., object], d: DType, init: np.ndarray,
) -> Callable[[Value, tuple[int, ...]], Array] | None:
    """The reduction primitive for ``computation`` with identity ``init``, as
    JAX's ``_get_monoid_reducer`` (the bitwise ones for bools and integers)."""
    intlike = d == bool_ or d in INTEGER
    table: list[tuple[Callable[..., object], bool, object, Callable[[Value, tuple[int, ...]], Array]]] = [
        (lax.add, True, 0, lax.reduce_sum),
        (lax.mul, True, 1, reduce_prod),
        (lax.max, True, monoid_identity("max", d), lax.reduce_max),
        (lax.min, True, monoid_identity("min", d), lax.reduce_min),
        (lax.bitwise_and, intlike, np.asarray(-1).astype(d), reduce_and),
        (lax.bitwise_or, intlike, 0, reduce_or),
        (lax.bitwise_xor, intlike, 0, reduce_xor),
    ]
    for fn, allowed, identity, reducer in table:
        if computation is fn:
            return reducer if allowed and bool(np.equal(init, np.asarray(identity).astype(d))) else None
    return None


def _general_reduce(
    ops: list[Value], inits: list[Value], init_values: object, computation: Callable[..., object],
    dims: tuple[int, ...],
) -> list[Value]:

    scalars = [ShapedArray((), aval_of(i).dtype) for i in inits]
    _, args_tree = tree.flatten((init_values, init_values))
    closed, out_tree = trace_callable(computation, args_tree, scalars * 2, "reduce's computation")
    if out_tree != tree.structure(init_values) or list(closed.out_avals) != scalars:
        raise PrimitiveTypeError(
            f"reduce: the computation must take two {tree.structure(init_values)} of {types_str(scalars)} "
            f"and return one, got {out_tree} of {types_str(closed.out_avals)}"
        )
    n = len(ops)
    shape = aval_of(ops[0]).shape
    keep = [i for i in range(len(shape)) if i not in dims]
    rest = tuple(shape[i] for i in keep)
    size = math.prod(shape[i] for i in dims)
    m = math.prod(rest)
    # the reduced axes in front, flattened: (size, m)
    xs: list[Value] = [lax.reshape(lax.transpose(x, (*dims, *keep)), (size, m)) for x in ops]

    def combine(a: Sequence[Value], b: Sequence[Value]) -> list[Value]:
        rows = aval_of(a[0]).shape[0]
        flat_a = [lax.reshape(v, (rows * m,)) for v in a]
        flat_b = [lax.reshape(v, (rows * m,)) for v in b]
        outs = vmap_flat(lambda ins: eval_jaxpr(closed, ins), rows * m, [0] * (2 * n), [*flat_a, *flat_b], [0] * n)
        return [lax.reshape(o, (rows, m)) for o in outs]

    while aval_of(xs[0]).shape[0] > 1:
        rows = aval_of(xs[0]).shape[0]
        pairs = combine(
            [slice_in_dim(x, 0, rows - rows % 2, 2, 0) for x in xs],
            [slice_in_dim(x, 1, rows, 2, 0) for x in xs],
        )
        if rows % 2:
            pairs = [concatenate([p, slice_in_dim(x, rows - 1, rows, 1, 0)], 0) for p, x in zip(pairs, xs)]
        xs = pairs
    init_rows = [lax.broadcast_in_dim(i, (1, m), ()) for i in inits]
    folded = init_rows if size == 0 else combine(init_rows, xs)
    return [lax.reshape(f, rest) for f in folded]


def reduce_xor(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Bitwise (integers) or logical (bool) XOR over ``axes`` (``jax.lax.reduce_xor``):
    a balanced tree of ``bitwise_xor`` over adjacent pairs."""
    v = as_value(operand, "reduce_xor's operand")
    d = aval_of(v).dtype
    if d != bool_ and d not in INTEGER:
        raise PrimitiveTypeError(f"reduce_xor: the operand must be bool or an integer, got {aval_of(v).str_short()}")
    dims = _reduced_dims("reduce_xor", "axes", axes, aval_of(v).shape)
    out = _general_reduce([v], [np.zeros((), d)], np.zeros((), d), lax.bitwise_xor, dims)
    return out[0]  # type: ignore[return-value]  # an Array
