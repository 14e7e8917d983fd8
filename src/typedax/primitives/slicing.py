"""Slicing primitives, every rule for each, and their ``jax.lax`` functions:
``slice`` (static starts, limits and strides), ``dynamic_slice`` and
``dynamic_update_slice`` (start indices as scalar integer operands).

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
from ..core.rules import (
    BatchDim,
    Family,
    Primal,
    Rules,
    Tangent,
    UndefPrimal,
    Zero,
)
from ..core.trace import Value, aval_of, bind1, memo_abstract
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import get_ints, params_of
from .elementwise import add, clamp_p, convert, less_p, select
from .structural import (
    check_arity,
    reshape_p,
    instantiate_zeros,
    linear_jvp,
    move_batch_axis,
    primal_aval,
    reshape,
    types_str,
    zero_like,
    zeros_like_aval,
)

Values = Sequence[HloValue]
_pyslice = builtins.slice  # this module's ``slice`` is jax.lax's
Strides = tuple[int, ...] | None


def _out(eqn: Eqn) -> ShapedArray:
    return eqn.out_binders[0].aval


# -- param readers ---------------------------------------------------------------
def _strides(params: Params) -> Strides:
    if "strides" not in params:
        raise PrimitiveTypeError("slice: missing param 'strides'")
    if params["strides"] is None:
        return None
    return get_ints("slice", params, "strides")


def _slice_params(params: Params, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    start = get_ints("slice", params, "start_indices")
    limit = get_ints("slice", params, "limit_indices")
    strides = _strides(params)
    return start, limit, (1,) * ndim if strides is None else strides


def slice_shape(
    shape: tuple[int, ...], start: tuple[int, ...], limit: tuple[int, ...], strides: tuple[int, ...]
) -> tuple[int, ...]:
    return tuple(0 if lo >= hi else (hi - lo + s - 1) // s for lo, hi, s in zip(start, limit, strides))


# -- slice(x; start_indices, limit_indices, strides) -------------------------------
def _slice_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x = args[0]
    start, limit, strides = _slice_params(params, x.ndim)
    index = tuple(_pyslice(lo, hi, s) for lo, hi, s in zip(start, limit, strides))
    return [np.array(x[index])]


@memo_abstract
def _slice_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("slice", avals, 1)
    (x,) = avals
    start, limit, strides = _slice_params(params, x.ndim)
    if not len(start) == len(limit) == len(strides) == x.ndim:
        raise PrimitiveTypeError(
            f"slice: start_indices={start}, limit_indices={limit} and strides={strides} "
            f"must each have one entry per dimension of {x.str_short()}"
        )
    for d, (lo, hi, s, n) in enumerate(zip(start, limit, strides, x.shape)):
        if not 0 <= lo <= hi <= n:
            raise PrimitiveTypeError(
                f"slice: dimension {d} of {x.str_short()} needs 0 <= start <= limit <= {n}, "
                f"got start_indices={start}, limit_indices={limit}"
            )
        if s < 1:
            raise PrimitiveTypeError(f"slice: strides must be positive, got strides={strides}")
    return [ShapedArray(slice_shape(x.shape, start, limit, strides), x.dtype)]


def _slice_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    shape = primal_aval(ps[0]).shape
    start, _, strides = _slice_params(params, len(shape))
    out_shape = aval_of(ct).shape
    config: list[tuple[int, int, int]] = []
    for lo, s, n, m in zip(start, strides, shape, out_shape):
        if m == 0:
            config.append((n, 0, 0))
        else:
            last = lo + (m - 1) * s  # the last element read
            config.append((lo, n - last - 1, s - 1))
    return [pad_(ct, np.zeros((), aval_of(ct).dtype), tuple(config))]


def _slice_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    ndim = aval_of(x).ndim - 1
    start, limit, strides = _slice_params(params, ndim)
    start = start[:b] + (0,) + start[b:]
    limit = limit[:b] + (size,) + limit[b:]
    new_strides = None if _strides(params) is None else strides[:b] + (1,) + strides[b:]
    return [slice_(x, start, limit, new_strides)], [b]


def _slice_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    start, limit, strides = _slice_params(eqn.params, eqn.inputs[0].aval.ndim)
    return [hlo.slice(args[0], list(start), list(limit), list(strides))]


slice_p = Primitive(
    "slice", _slice_impl, _slice_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_slice_t, batch=_slice_batch, lower=_slice_lower),
)


def slice_(x: Value, start: tuple[int, ...], limit: tuple[int, ...], strides: Strides) -> Value:
    """The ``slice`` primitive on normalized params (for rules)."""
    return bind1(
        slice_p, (x,),
        params_of(("start_indices", start), ("limit_indices", limit), ("strides", strides)),
    )


def pad_(x: Value, padding_value: Value, config: tuple[tuple[int, int, int], ...]) -> Value:
    """The ``pad`` primitive (in ``shaping``) on normalized params (for rules)."""
    from .shaping import pad_p  # shaping's pad transposes to slice: the two refer to each other

    return bind1(pad_p, (x, padding_value), params_of(("padding_config", config)))


# -- dynamic start indices --------------------------------------------------------
def clamped_starts(
    starts: Sequence[NDArray], shape: tuple[int, ...], sizes: tuple[int, ...]
) -> tuple[int, ...]:
    """XLA's clamping: each start moved into ``[0, dim - size]``."""
    return tuple(min(max(int(i), 0), n - k) for i, n, k in zip(starts, shape, sizes))


def _check_starts(name: str, operand: ShapedArray, starts: Sequence[ShapedArray]) -> None:
    if len(starts) != operand.ndim:
        raise PrimitiveTypeError(
            f"{name}: needs one start index per dimension of {operand.str_short()}, "
            f"got {len(starts)}: ({types_str(starts)})"
        )
    for s in starts:
        if s.shape != () or s.dtype not in INTEGER:
            raise PrimitiveTypeError(
                f"{name}: start indices must be integer scalars, got ({types_str(starts)})"
            )
    if any(s.dtype != starts[0].dtype for s in starts):
        raise PrimitiveTypeError(
            f"{name}: start indices must share one integer dtype, got ({types_str(starts)})"
        )


def holds(dtype: DType, bound: int) -> bool:
    """Whether an integer ``dtype`` holds ``bound`` (an axis length, a batch
    size). Where it does not, index arithmetic in it overflows: a wrapped
    int8 ``-1 + 200``, a batch counter past 127, and XLA's own clamp of a
    start into ``[0, dim - size]`` (a uint8 start on 300 elements clamps
    to ``298 mod 256``); the rules widen such indices to int64 first."""
    return bound <= int_range(dtype)[1]


def widened_starts(starts: Values, avals: Sequence[ShapedArray], shape: tuple[int, ...]) -> list[HloValue]:
    """Lowered start indices, widened to int64 where their dtype does not
    hold every dimension of ``shape`` (``holds``); lossless, as a dtype
    that does not hold a dimension is narrower than int64."""
    if not avals or all(holds(a.dtype, n) for a in avals for n in shape):
        return list(starts)
    t = tensor_type(ShapedArray((), int64))
    return [hlo.convert(t, v) for v in starts]


def convert_index(i: Value, dtype: DType) -> Value:
    """An integer index in another integer ``dtype``, saturated first where
    its own dtype reaches past ``dtype``'s range, so a value out of bounds
    stays out of bounds on the same side (plain narrowing would wrap an int64
    ``2**32 + 1`` into int32 ``1``, a uint64 ``2**63`` into int64's least)."""
    src = aval_of(i).dtype
    if src == dtype:
        return i
    lo, hi = int_range(src)
    dlo, dhi = int_range(dtype)
    if lo < dlo or hi > dhi:
        lo_, hi_ = np.asarray(max(lo, dlo), src), np.asarray(min(hi, dhi), src)
        if isinstance(i, np.ndarray):
            i = np.clip(i, lo_, hi_)
        else:
            i = bind1(clamp_p, (lo_, i, hi_), NO_PARAMS)
    return i.astype(dtype) if isinstance(i, np.ndarray) else convert(i, dtype)


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
    # gather_scatter builds on shaping, which builds on this module
    from .gather_scatter import GatherParams, gather_batch_rule

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
    from .shaping import concatenate_p

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
    from .gather_scatter import ScatterParams, scatter_batch_rule, scatter_p

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


FAMILY = Family("slicing", (slice_p, dynamic_slice_p, dynamic_update_slice_p))


# -- the jax.lax functions ----------------------------------------------------------
def _int(op: str, what: str, d: object) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be integers, got {d!r} ({type(d).__name__})")
    return int(d)


def _ints(op: str, what: str, ds: object) -> tuple[int, ...]:
    if not isinstance(ds, Sequence) and not isinstance(ds, np.ndarray):
        raise PrimitiveTypeError(f"{op}: {what} must be a sequence of integers, got {ds!r}")
    return tuple(_int(op, what, d) for d in ds)


def canonical_axis(op: str, axis: object, ndim: int) -> int:
    a = _int(op, "axis", axis)
    if not -ndim <= a < ndim:
        raise PrimitiveTypeError(f"{op}: axis {a} is out of bounds for an array of rank {ndim}")
    return a % ndim if ndim else a


def slice(  # noqa: A001 - jax.lax's name
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Array:
    """``operand[start:limit:stride]`` in every dimension (``jax.lax.slice``)."""
    start = _ints("slice", "start_indices", start_indices)
    limit = _ints("slice", "limit_indices", limit_indices)
    st = None if strides is None else _ints("slice", "strides", strides)
    return bind1(slice_p, (operand,), params_of(("start_indices", start), ("limit_indices", limit), ("strides", st)))


def slice_in_dim(
    operand: ArrayLike,
    start_index: int | None,
    limit_index: int | None,
    stride: int = 1,
    axis: int = 0,
) -> Array:
    """``lax.slice`` along one axis; negative indices count from the end and
    ``None`` means the whole axis, as ``jax.lax.slice_in_dim``."""
    shape = aval_of(operand).shape
    ax = canonical_axis("slice_in_dim", axis, len(shape))
    n = shape[ax]
    lo = 0 if start_index is None else _int("slice_in_dim", "start_index", start_index)
    hi = n if limit_index is None else _int("slice_in_dim", "limit_index", limit_index)
    lo = lo + n if lo < 0 else lo
    hi = hi + n if hi < 0 else hi
    start, limit, strides = [0] * len(shape), list(shape), [1] * len(shape)
    start[ax], limit[ax], strides[ax] = lo, hi, _int("slice_in_dim", "stride", stride)
    return slice(operand, start, limit, strides)


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
    from .shaping import squeeze

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
    from .shaping import squeeze

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
        from .shaping import expand_dims

        update = expand_dims(update, (ax,))
    return dynamic_update_slice_in_dim(
        operand, update, index, ax, allow_negative_indices=allow_negative_indices
    )

