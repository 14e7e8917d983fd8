"""The dynamic slicing primitives, every rule for each, and their ``jax.lax``
functions: ``dynamic_slice`` and ``dynamic_update_slice`` (start indices as
scalar integer operands), batched as a ``gather`` / ``scatter`` of one
window per example (as JAX's rules); and ``index_in_dim`` and the
``dynamic_*_in_dim`` functions. Static slicing (``slice``, ``pad``) is
``slicing.py``, below this module.

Dynamic start indices are clamped so the window fits inside the operand
(XLA's semantics: ``start = clip(start, 0, dim - size)``) by ``impl``, by the
lowering (XLA clamps itself) and by every rule. The ``lax`` functions wrap
negative start indices first (``allow_negative_indices=True``, as
``jax.lax``), so ``dynamic_slice(x, (-1,), (1,))`` is the last element; the
primitives themselves only clamp.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import DType, INTEGER, canonicalize_dtype, int32, int64, int_range
from ..core.errors import NonLinearError, PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1, memo_abstract
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import get_ints, params_of
from .elementwise import add, clamp_p, convert, less_p, select
from .gather_scatter import GatherParams, ScatterParams, gather_batch_rule, scatter_batch_rule, scatter_p
from .shaping import concatenate_p, expand_dims, squeeze
from .slicing import (
    _check_starts, _int, _ints, _out, canonical_axis, clamped_starts, convert_index, holds, slice_, slice_in_dim, widened_starts,
)
from .structural import (
    check_arity,
    instantiate_zeros,
    linear_jvp,
    move_batch_axis,
    primal_aval,
    reshape,
    reshape_p,
    types_str,
    zero_like,
    zeros_like_aval,
)

Values = Sequence[HloValue]
_pyslice = builtins.slice


def _zero_index(like: Value) -> NDArray:
    return np.zeros((), aval_of(like).dtype)


# -- dynamic_slice(x, *start_indices; slice_sizes) --------------------------------
def _dynamic_slice_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, *starts = args
    sizes = get_ints("dynamic_slice", params, "slice_sizes")
    lo = clamped_starts(starts, x.shape, sizes)
    return [np.array(x[tuple(_pyslice(i, i + k) for i, k in zip(lo, sizes))])]


def _dynamic_slice_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if not avals:
        raise PrimitiveTypeError("dynamic_slice takes an operand and start indices, got none")
    x, *starts = avals
    _check_starts("dynamic_slice", x, starts)
    sizes = get_ints("dynamic_slice", params, "slice_sizes")
    if len(sizes) != x.ndim or any(not 0 <= k <= n for k, n in zip(sizes, x.shape)):
        raise PrimitiveTypeError(
            f"dynamic_slice: slice_sizes={sizes} must have one size in [0, dim] per dimension "
            f"of {x.str_short()}"
        )
    return [ShapedArray(sizes, x.dtype)]


def _dynamic_slice_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    x, *starts = primals
    out = bind1(dynamic_slice_p, primals, params)
    t = tangents[0]
    if isinstance(t, Zero):
        return [out], [zero_like(out)]
    return [out], [bind1(dynamic_slice_p, (t, *starts), params)]


def _dynamic_slice_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, *raw = ps
    starts = _defined_starts("dynamic_slice", raw)
    if not isinstance(x, UndefPrimal):
        return [None] * len(ps)
    zeros = zeros_like_aval(x.aval)
    return [bind1(dynamic_update_slice_p, (zeros, ct, *starts), NO_PARAMS), *([None] * len(starts))]


def _defined_starts(name: str, starts: Sequence[Primal]) -> list[Value]:
    out: list[Value] = []
    for s in starts:
        if isinstance(s, UndefPrimal):
            raise NonLinearError(name, f"a start index is a linear value ({s.aval.str_short()})")
        out.append(s)
    return out


def _dynamic_slice_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    x, *starts = vals
    bx, *bstarts = dims
    sizes = get_ints("dynamic_slice", params, "slice_sizes")
    if any(b is not None for b in bstarts):
        return _dynamic_slice_gather(size, x, bx, starts, bstarts, sizes)
    assert bx is not None
    new_starts = [*starts[:bx], _zero_index(starts[0]) if starts else np.zeros((), np.int64), *starts[bx:]]
    new_sizes = sizes[:bx] + (size,) + sizes[bx:]
    return [bind1(dynamic_slice_p, (x, *new_starts), params_of(("slice_sizes", new_sizes)))], [bx]


def _dynamic_slice_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    x, *starts = args
    sizes = get_ints("dynamic_slice", eqn.params, "slice_sizes")
    starts = widened_starts(starts, [v.aval for v in eqn.inputs[1:]], eqn.inputs[0].aval.shape)
    return [hlo.dynamic_slice(x, starts, list(sizes))]


def _dynamic_slice_gather(
    size: int, x: Value, bx: BatchDim, starts: Sequence[Value], bstarts: Sequence[BatchDim],
    sizes: tuple[int, ...],
) -> tuple[list[Value], list[BatchDim]]:
    """Batched start indices: per example, a ``gather`` of one window at the
    index vector of the starts (clamped, as dynamic_slice clamps), batched by
    gather's own rule (as JAX's batching rule)."""
    nd = len(sizes)
    g = GatherParams(
        offset_dims=tuple(range(nd)), collapsed_slice_dims=(), start_index_map=tuple(range(nd)),
        slice_sizes=sizes, mode="clip", fill_value=None, indices_are_sorted=True, unique_indices=True,
    )
    idx = _batched_index_vector(size, starts, bstarts)
    return gather_batch_rule(size, [x, idx], [bx, 0], g.to_params())


def _batched_index_vector(size: int, starts: Sequence[Value], bstarts: Sequence[BatchDim]) -> Value:
    """The scalar start indices, each batched along axis 0, stacked into index
    vectors: shape ``(size, len(starts))``."""
    cols = [reshape(move_batch_axis(size, b, 0, s), (size, 1)) for s, b in zip(starts, bstarts)]
    if len(cols) == 1:
        return cols[0]
    return bind1(concatenate_p, tuple(cols), params_of(("dimension", 1)))


dynamic_slice_p = Primitive(
    "dynamic_slice", _dynamic_slice_impl, _dynamic_slice_abstract,
    Rules(
        jvp=_dynamic_slice_jvp, transpose=_dynamic_slice_t, batch=_dynamic_slice_batch,
        lower=_dynamic_slice_lower,
    ),
)


# -- dynamic_update_slice(x, update, *start_indices) ------------------------------
def _dynamic_update_slice_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, update, *starts = args
    lo = clamped_starts(starts, x.shape, update.shape)
    out = np.array(x)
    out[tuple(_pyslice(i, i + k) for i, k in zip(lo, update.shape))] = update
    return [out]


def _dynamic_update_slice_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if len(avals) < 2:
        raise PrimitiveTypeError(
            f"dynamic_update_slice takes an operand, an update and start indices, got ({types_str(avals)})"
        )
    x, update, *starts = avals
    if update.dtype != x.dtype:
        raise PrimitiveTypeError(
            f"dynamic_update_slice: update {update.str_short()} must have the operand's dtype "
            f"({x.str_short()})"
        )
    if update.ndim != x.ndim or any(u > n for u, n in zip(update.shape, x.shape)):
        raise PrimitiveTypeError(
            f"dynamic_update_slice: update {update.str_short()} must have the rank of the operand "
            f"{x.str_short()} and fit inside it"
        )
    _check_starts("dynamic_update_slice", x, starts)
    return [x]


def _dynamic_update_slice_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    x, update, *starts = primals
    tx, tu = tangents[0], tangents[1]
    out = bind1(dynamic_update_slice_p, primals, params)
    if isinstance(tx, Zero) and isinstance(tu, Zero):
        return [out], [zero_like(out)]
    t = bind1(dynamic_update_slice_p, (instantiate_zeros(tx), instantiate_zeros(tu), *starts), params)
    return [out], [t]


def _dynamic_update_slice_t(
    cts: Sequence[Value], ps: Sequence[Primal], params: Params
) -> list[Value | None]:
    (ct,) = cts
    x, update, *raw = ps
    starts = _defined_starts("dynamic_update_slice", raw)
    u = primal_aval(update)
    ct_x: Value | None = None
    ct_u: Value | None = None
    if isinstance(x, UndefPrimal):
        ct_x = bind1(dynamic_update_slice_p, (ct, zeros_like_aval(u), *starts), params)
    if isinstance(update, UndefPrimal):
        ct_u = bind1(dynamic_slice_p, (ct, *starts), params_of(("slice_sizes", u.shape)))
    return [ct_x, ct_u, *([None] * len(starts))]


def _dynamic_update_slice_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    x, update, *starts = vals
    bx, bu, *bstarts = dims
    if any(b is not None for b in bstarts):
        return _dynamic_update_slice_scatter(size, x, bx, update, bu, starts, bstarts)
    b = bx if bx is not None else bu
    assert b is not None
    x = move_batch_axis(size, bx, b, x)
    update = move_batch_axis(size, bu, b, update)
    new_starts = [*starts[:b], _zero_index(starts[0]) if starts else np.zeros((), np.int64), *starts[b:]]
    return [bind1(dynamic_update_slice_p, (x, update, *new_starts), params)], [b]


def _dynamic_update_slice_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    x, update, *starts = args
    starts = widened_starts(starts, [v.aval for v in eqn.inputs[2:]], eqn.inputs[0].aval.shape)
    return [hlo.dynamic_update_slice(x, update, starts)]


def _dynamic_update_slice_scatter(
    size: int, x: Value, bx: BatchDim, update: Value, bu: BatchDim,
    starts: Sequence[Value], bstarts: Sequence[BatchDim],
) -> tuple[list[Value], list[BatchDim]]:
    """Batched start indices: per example, a ``scatter`` of the update window
    at the index vector of the starts (clamped), batched by scatter's rule."""
    nd = len(starts)
    sp = ScatterParams(
        update_window_dims=tuple(range(nd)), inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(nd)), mode="clip",
        indices_are_sorted=True, unique_indices=True,
    )
    idx = _batched_index_vector(size, starts, bstarts)
    return scatter_batch_rule(scatter_p)(size, [x, idx, update], [bx, 0, bu], sp.to_params())


dynamic_update_slice_p = Primitive(
    "dynamic_update_slice", _dynamic_update_slice_impl, _dynamic_update_slice_abstract,
    Rules(
        jvp=_dynamic_update_slice_jvp, transpose=_dynamic_update_slice_t,
        batch=_dynamic_update_slice_batch, lower=_dynamic_update_slice_lower,
    ),
)


FAMILY = Family("dynamic slicing", (dynamic_slice_p, dynamic_update_slice_p))


# -- the jax.lax functions ----------------------------------------------------------


def index_in_dim(operand: ArrayLike, index: int, axis: int = 0, keepdims: bool = True) -> Array:
    """Element ``index`` along ``axis`` (negative counts from the end), as ``jax.lax.index_in_dim``."""
    shape = aval_of(operand).shape
    ax = canonical_axis("index_in_dim", axis, len(shape))
    i = _int("index_in_dim", "index", index)
    n = shape[ax]
    wrapped = i + n if i < 0 else i
    if not 0 <= wrapped < n:
        raise PrimitiveTypeError(
            f"index_in_dim: index {i} is out of bounds for axis {ax} with size {n}"
        )
    out = slice_in_dim(operand, wrapped, wrapped + 1, 1, ax)
    if keepdims:
        return out
    return squeeze(out, (ax,))


def _start_indices(
    op: str,
    operand: ArrayLike,
    start_indices: ArrayLike | Sequence[ArrayLike],
    allow_negative_indices: bool | Sequence[bool],
) -> list[Value]:
    """One scalar integer per dimension, of one dtype, negative ones wrapped
    where allowed (as ``jax.lax``'s ``_dynamic_slice_indices``)."""
    shape = aval_of(operand).shape
    if isinstance(start_indices, (Sequence, np.ndarray)):
        items: list[object] = list(start_indices)
    elif isinstance(start_indices, Array):
        a = aval_of(start_indices)
        if a.ndim != 1:
            raise PrimitiveTypeError(f"{op}: start indices must be a 1-d sequence, got {a.str_short()}")
        items = [
            bind1(reshape_p, (slice_(start_indices, (i,), (i + 1,), None),), params_of(("new_sizes", ())))
            for i in range(a.shape[0])
        ]
    else:
        raise PrimitiveTypeError(f"{op}: start indices must be a sequence of integers, got {start_indices!r}")
    if len(items) != len(shape):
        raise PrimitiveTypeError(
            f"{op}: {len(items)} start indices for an operand of shape {shape}; needs one per dimension"
        )
    allow = (
        [allow_negative_indices] * len(shape)
        if isinstance(allow_negative_indices, bool) else list(allow_negative_indices)
    )
    dtypes: list[DType] = []
    for i in items:
        if isinstance(i, bool) or isinstance(i, np.bool_):
            raise PrimitiveTypeError(f"{op}: start indices must be integers, got {i!r}")
        if isinstance(i, int):
            continue
        a = aval_of(i)
        if a.shape != () or a.dtype not in INTEGER:
            raise PrimitiveTypeError(f"{op}: start indices must be integer scalars, got {a.str_short()}")
        dtypes.append(a.dtype)
    # Python ints take the dtype of the array indices (weak typing); mixed
    # int32 and int64 indices promote to int64
    wide = canonicalize_dtype(int64)
    dtype: DType = max(dtypes, key=lambda d: d.itemsize) if dtypes else wide
    if any(d.kind != dtype.kind for d in dtypes) or not all(holds(dtype, n) for n in shape):
        # signed with unsigned, or a dimension the dtype does not hold (the
        # wrapped int8 -1 + 200 would overflow): a dtype that holds them all
        dtype = int32 if dtype.itemsize < 4 and all(holds(int32, n) for n in shape) else wide
    lo, hi = int_range(dtype)
    out: list[Value] = []
    for i, n, neg_ok in zip(items, shape, allow):
        if isinstance(i, (int, np.integer)):
            v = int(i)
            if v < 0 and not neg_ok:
                raise PrimitiveTypeError(
                    f"{op}: index {v} is out of bounds for dimension of size {n} with "
                    "allow_negative_indices=False"
                )
            # saturated: past the dtype's range is past the dimension's too
            out.append(np.asarray(min(max(v + n if v < 0 else v, lo), hi), dtype))
            continue
        iv: Value = i  # type: ignore[assignment]  # checked by aval_of above
        iv = convert_index(iv, dtype)
        if neg_ok:
            is_neg = bind1(less_p, (iv, np.zeros((), dtype)), NO_PARAMS)
            iv = select(is_neg, add(iv, np.asarray(n, dtype)), iv)
        out.append(iv)
    return out


def dynamic_slice(
    operand: ArrayLike,
    start_indices: ArrayLike | Sequence[ArrayLike],
    slice_sizes: Sequence[int],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Array:
    """The ``slice_sizes`` window at ``start_indices`` (``jax.lax.dynamic_slice``):
    negative indices count from the end, then each start is clamped so the
    window fits."""
    starts = _start_indices("dynamic_slice", operand, start_indices, allow_negative_indices)
    sizes = _ints("dynamic_slice", "slice_sizes", slice_sizes)
    return bind1(dynamic_slice_p, (operand, *starts), params_of(("slice_sizes", sizes)))


def dynamic_slice_in_dim(
    operand: ArrayLike, start_index: ArrayLike, slice_size: int, axis: int = 0,
    *, allow_negative_indices: bool = True,
) -> Array:
    """``dynamic_slice`` along one axis (``jax.lax.dynamic_slice_in_dim``)."""
    shape = aval_of(operand).shape
    ax = canonical_axis("dynamic_slice_in_dim", axis, len(shape))
    starts: list[ArrayLike] = [0] * len(shape)
    sizes = list(shape)
    starts[ax] = start_index
    sizes[ax] = _int("dynamic_slice_in_dim", "slice_size", slice_size)
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(
    operand: ArrayLike, index: ArrayLike, axis: int = 0, keepdims: bool = True,
    *, allow_negative_indices: bool = True,
) -> Array:
    """Element ``index`` along ``axis`` (``jax.lax.dynamic_index_in_dim``)."""
    ax = canonical_axis("dynamic_index_in_dim", axis, aval_of(operand).ndim)
    out = dynamic_slice_in_dim(operand, index, 1, ax, allow_negative_indices=allow_negative_indices)
    if keepdims:
        return out
    return squeeze(out, (ax,))


def dynamic_update_slice(
    operand: ArrayLike,
    update: ArrayLike,
    start_indices: ArrayLike | Sequence[ArrayLike],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Array:
    """``operand`` with ``update`` written at ``start_indices``
    (``jax.lax.dynamic_update_slice``; starts clamped so ``update`` fits)."""
    starts = _start_indices("dynamic_update_slice", operand, start_indices, allow_negative_indices)
    return bind1(dynamic_update_slice_p, (operand, update, *starts), NO_PARAMS)


def dynamic_update_slice_in_dim(
    operand: ArrayLike, update: ArrayLike, start_index: ArrayLike, axis: int,
    *, allow_negative_indices: bool = True,
) -> Array:
    """``dynamic_update_slice`` at ``start_index`` along ``axis``, 0 elsewhere."""
    ndim = aval_of(operand).ndim
    ax = canonical_axis("dynamic_update_slice_in_dim", axis, ndim)
    starts: list[ArrayLike] = [0] * ndim
    starts[ax] = start_index
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(
    operand: ArrayLike, update: ArrayLike, index: ArrayLike, axis: int,
    *, allow_negative_indices: bool = True,
) -> Array:
    """Write ``update`` at ``index`` along ``axis``; ``update`` may lack that axis."""
    shape = aval_of(operand).shape
    ax = canonical_axis("dynamic_update_index_in_dim", axis, len(shape))
    u = aval_of(update)
    if u.ndim == len(shape) - 1:
        update = expand_dims(update, (ax,))
    return dynamic_update_slice_in_dim(
        operand, update, index, ax, allow_negative_indices=allow_negative_indices
    )

