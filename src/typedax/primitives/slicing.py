"""Static slicing primitives, every rule for each, and their ``jax.lax``
functions: ``slice`` (static starts, limits and strides) and ``pad`` (low/high
padding, negative to crop, and interior padding), each the other's
transpose; and the start-index helpers ``dynamic_slicing.py`` and
``gather_scatter.py`` share.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, bool_, canonicalize_dtype, int32, int64, int_range
from ..core.errors import NonLinearError, PrimitiveAxisError, PrimitiveTypeError, ShapeError
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
from ._params import get_dtype, get_int, get_ints, params_of
from .elementwise import add, clamp_p, convert, less_p, select, sub
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
    broadcast_to,
    reduce_sum,
)

Values = Sequence[HloValue]
_pyslice = builtins.slice  # this module's ``slice`` is jax.lax's
Strides = tuple[int, ...] | None
PaddingConfig = tuple[tuple[int, int, int], ...]


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
    """The ``pad`` primitive on normalized params (for rules)."""
    return bind1(pad_p, (x, padding_value), params_of(("padding_config", config)))


# -- pad(x, padding_value; padding_config) ----------------------------------------
def get_padding_config(params: Params) -> PaddingConfig:
    if "padding_config" not in params:
        raise PrimitiveTypeError("pad: missing param 'padding_config'")
    v = params["padding_config"]
    if not isinstance(v, tuple) or not all(
        isinstance(t, tuple) and len(t) == 3 and all(type(i) is int for i in t) for t in v
    ):
        raise PrimitiveTypeError(
            f"pad: param 'padding_config' must be a tuple of (low, high, interior) int triples, got {v!r}"
        )
    return tuple((int(t[0]), int(t[1]), int(t[2])) for t in v if isinstance(t, tuple))  # type: ignore[arg-type]  # ints checked above


def _interior_size(n: int, interior: int) -> int:
    return n + max(n - 1, 0) * interior


def padded_shape(shape: tuple[int, ...], config: PaddingConfig) -> tuple[int, ...]:
    return tuple(lo + hi + _interior_size(n, it) for n, (lo, hi, it) in zip(shape, config))


def _pad_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, pv = args
    config = get_padding_config(params)
    out_shape = padded_shape(x.shape, config)
    out = np.full(out_shape, pv, dtype=x.dtype)
    src: list[builtins.slice] = []
    dst: list[builtins.slice] = []
    for n, m, (lo, hi, it) in zip(x.shape, out_shape, config):
        s = it + 1
        # element e of x lands at e * s + lo; keep those landing in [0, m)
        e0 = max(0, -(-(-lo) // s))
        e1 = min(n, -(-(m - lo) // s))
        if e1 <= e0:
            return [out]
        src.append(_pyslice(e0, e1))
        dst.append(_pyslice(e0 * s + lo, (e1 - 1) * s + lo + 1, s))
    out[tuple(dst)] = x[tuple(src)]
    return [out]


def _pad_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("pad", avals, 2)
    x, pv = avals
    config = get_padding_config(params)
    if pv.shape != () or pv.dtype != x.dtype:
        raise PrimitiveTypeError(
            f"pad: padding_value must be a scalar of the operand's dtype, got ({types_str(avals)})"
        )
    if len(config) != x.ndim:
        raise ShapeError(
            f"pad: padding_config={config} needs one (low, high, interior) per dimension of {x.str_short()}"
        )
    if any(it < 0 for _, _, it in config):
        raise PrimitiveTypeError(f"pad: interior padding must be non-negative, got padding_config={config}")
    shape = padded_shape(x.shape, config)
    if any(d < 0 for d in shape):
        raise PrimitiveTypeError(
            f"pad: padding_config={config} leaves a negative dimension for {x.str_short()} ({shape})"
        )
    return [ShapedArray(shape, x.dtype)]


def _pad_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    out = bind1(pad_p, primals, params)
    tx, tv = tangents
    if isinstance(tx, Zero) and isinstance(tv, Zero):
        return [out], [zero_like(out)]
    return [out], [bind1(pad_p, (instantiate_zeros(tx), instantiate_zeros(tv)), params)]


def _pad_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, pv = ps
    config = get_padding_config(params)
    dtype = aval_of(ct).dtype
    # undo the edges (a negative edge is cropped: pad it back with zeros), then
    # take every (interior + 1)-th element
    uncropped = bind1(
        pad_p, (ct, np.zeros((), dtype)),
        params_of(("padding_config", tuple((-lo, -hi, 0) for lo, hi, _ in config))),
    )
    shape = aval_of(uncropped).shape
    ct_x = slice_(uncropped, (0,) * len(shape), shape, tuple(it + 1 for _, _, it in config))
    ct_v: Value | None = None
    if isinstance(pv, UndefPrimal):
        every = tuple(range(len(shape)))
        ct_v = sub(reduce_sum(ct, every), reduce_sum(ct_x, every))
    return [ct_x if isinstance(x, UndefPrimal) else None, ct_v]


def _pad_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x, pv), (bx, bv) = vals, dims
    config = get_padding_config(params)
    if bv is None:
        assert bx is not None
        new = config[:bx] + ((0, 0, 0),) + config[bx:]
        return [bind1(pad_p, (x, pv), params_of(("padding_config", new)))], [bx]
    # a batched padding value: pad with anything, then select the padding
    # value where a padded mask is False
    x = move_batch_axis(size, bx, 0, x)
    xa = aval_of(x)
    new = ((0, 0, 0),) + config
    dtype = xa.dtype
    padded = bind1(pad_p, (x, np.zeros((), dtype)), params_of(("padding_config", new)))
    shape = aval_of(padded).shape
    ones = broadcast_to(np.ones((), bool_), xa.shape, tuple(range(xa.ndim)))
    mask = bind1(pad_p, (ones, np.zeros((), bool_)), params_of(("padding_config", new)))
    pvs = broadcast_to(move_batch_axis(size, bv, 0, pv), shape, tuple(range(1, len(shape))))
    return [select(mask, padded, pvs)], [0]


def _pad_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    config = get_padding_config(eqn.params)
    return [
        hlo.pad(
            args[0], args[1],
            [lo for lo, _, _ in config], [hi for _, hi, _ in config], [it for _, _, it in config],
        )
    ]


pad_p = Primitive(
    "pad", _pad_impl, _pad_abstract,
    Rules(jvp=_pad_jvp, transpose=_pad_t, batch=_pad_batch, lower=_pad_lower),
)


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
        raise PrimitiveAxisError(f"{op}: axis {a} is out of bounds for an array of rank {ndim}")
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


def _padding_value(op: str, x: ArrayLike, v: ArrayLike) -> Value:
    """A Python scalar takes ``x``'s dtype (weak typing), where that loses nothing."""
    dtype = aval_of(x).dtype
    if type(v) in (bool, int, float):
        if (type(v) is float and dtype.kind in "iub") or (type(v) is int and dtype.kind == "b"):
            raise PrimitiveTypeError(
                f"{op}: a Python {type(v).__name__} ({v!r}) cannot pad an operand of dtype {dtype.name}"
            )
        return np.asarray(v, dtype)
    return v


def pad(operand: ArrayLike, padding_value: ArrayLike, padding_config: Sequence[tuple[int, int, int]]) -> Array:
    """``operand`` with ``(low, high, interior)`` padding per dimension
    (``jax.lax.pad``); negative ``low``/``high`` remove elements."""
    config: list[tuple[int, int, int]] = []
    for t in padding_config:
        if len(t) != 3:
            raise PrimitiveTypeError(f"pad: padding_config entries must be (low, high, interior), got {t!r}")
        lo, hi, it = _ints("pad", "padding_config", t)
        config.append((lo, hi, it))
    pv = _padding_value("pad", operand, padding_value)
    return bind1(pad_p, (operand, pv), params_of(("padding_config", tuple(config))))


FAMILY = Family("slicing", (slice_p, pad_p))
