"""``gather`` and the scatters (``scatter``, ``scatter-add``, ``scatter-mul``,
``scatter-min``, ``scatter-max``), every rule for each, and their ``jax.lax``
functions, with XLA's dimension numbers.

A gather takes, for each index vector (the last dimension of the indices),
one window of ``slice_sizes`` from the operand, starting where the vector
says along the operand dimensions ``start_index_map`` names; the result has
the indices' other dimensions as batch dimensions and the window's
dimensions (less ``collapsed_slice_dims``, which have size 1) at
``offset_dims``. A scatter is the converse: each update window is combined
into the operand at the position its index vector gives.

Out of bounds (``mode``), as XLA and JAX:

- ``clip``: start indices are clamped so the whole window fits;
- ``fill`` (``FILL_OR_DROP``): a gather window out of bounds anywhere is all
  ``fill_value`` (NaN for inexact dtypes, the minimum of signed integers,
  ``True`` for bools, as JAX); a scatter window out of bounds is dropped;
- ``promise_in_bounds``: what XLA does without checks: a gather clamps, a
  scatter drops out-of-bounds windows.

``jax.lax.gather`` reads ``mode=None`` as ``promise_in_bounds``; the scatters
read it as ``fill``. Repeated indices: the combining scatters combine every
update; plain ``scatter`` lets the last update (in index order) land, as XLA
on CPU does.

The operand-batching dimensions of newer XLA are not used: the batching
rules concatenate an iota to the indices (as JAX did before them), so the
``*_batching_dims`` fields of the dimension numbers must be empty.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import EXTENDED, DType, bool_, int32, int64, int_range, keys_of_words
from ..core.errors import MissingRuleError, PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, compare, element_type, full, tensor_type
from ._params import get_bool, get_ints, params_of
from .elementwise import add, convert, div, eq, mul, select
from .slicing import holds
from .shaping import concatenate_p, iota_p
from .structural import (
    check_arity,
    full_like,
    instantiate_zeros,
    move_batch_axis,
    primal_aval,
    reshape,
    types_str,
    zero_like,
    zeros_like_aval,
)

Values = Sequence[HloValue]


class GatherScatterMode(enum.Enum):
    """What a gather or scatter does with indices out of bounds."""

    CLIP = "clip"
    FILL_OR_DROP = "fill"
    PROMISE_IN_BOUNDS = "promise_in_bounds"

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """JAX's reading: None, ``'fill'`` and ``'drop'`` are ``FILL_OR_DROP``."""
        if isinstance(s, GatherScatterMode):
            return s
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "clip":
            return GatherScatterMode.CLIP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'unknown gather mode "{s}" (clip, fill, drop or promise_in_bounds)')


class GatherDimensionNumbers(NamedTuple):
    """``jax.lax.GatherDimensionNumbers``."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """``jax.lax.ScatterDimensionNumbers``."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


_MODES = ("clip", "fill", "promise_in_bounds")


def _mode(name: str, params: Params) -> str:
    m = params.get("mode")
    if m not in _MODES:
        raise PrimitiveTypeError(f"{name}: param 'mode' must be one of {_MODES}, got {m!r}")
    assert isinstance(m, str)
    return m


# -- the views of the params ---------------------------------------------------------
class GatherParams(NamedTuple):
    """The params of a ``gather`` equation, read and checked once."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    slice_sizes: tuple[int, ...]
    mode: str
    fill_value: bool | int | float | None
    indices_are_sorted: bool
    unique_indices: bool

    @staticmethod
    def of(params: Params) -> GatherParams:
        fv = params.get("fill_value")
        if fv is not None and not isinstance(fv, (bool, int, float)):
            raise PrimitiveTypeError(f"gather: param 'fill_value' must be a scalar or None, got {fv!r}")
        return GatherParams(
            get_ints("gather", params, "offset_dims"),
            get_ints("gather", params, "collapsed_slice_dims"),
            get_ints("gather", params, "start_index_map"),
            get_ints("gather", params, "slice_sizes"),
            _mode("gather", params),
            fv,
            get_bool("gather", params, "indices_are_sorted"),
            get_bool("gather", params, "unique_indices"),
        )

    def to_params(self) -> Params:
        items: list[tuple[str, Param]] = [
            ("offset_dims", self.offset_dims),
            ("collapsed_slice_dims", self.collapsed_slice_dims),
            ("start_index_map", self.start_index_map),
            ("slice_sizes", self.slice_sizes),
            ("mode", self.mode),
            ("fill_value", self.fill_value),
            ("indices_are_sorted", self.indices_are_sorted),
            ("unique_indices", self.unique_indices),
        ]
        return params_of(*items)


class ScatterParams(NamedTuple):
    """The params of a scatter equation, read and checked once."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    mode: str
    indices_are_sorted: bool
    unique_indices: bool

    @staticmethod
    def of(name: str, params: Params) -> ScatterParams:
        return ScatterParams(
            get_ints(name, params, "update_window_dims"),
            get_ints(name, params, "inserted_window_dims"),
            get_ints(name, params, "scatter_dims_to_operand_dims"),
            _mode(name, params),
            get_bool(name, params, "indices_are_sorted"),
            get_bool(name, params, "unique_indices"),
        )

    def to_params(self) -> Params:
        items: list[tuple[str, Param]] = [
            ("update_window_dims", self.update_window_dims),
            ("inserted_window_dims", self.inserted_window_dims),
            ("scatter_dims_to_operand_dims", self.scatter_dims_to_operand_dims),
            ("mode", self.mode),
            ("indices_are_sorted", self.indices_are_sorted),
            ("unique_indices", self.unique_indices),
        ]
        return params_of(*items)

    def as_gather(self, window: tuple[int, ...], fill: bool | int | float | None) -> GatherParams:
        """The gather that reads back what this scatter writes (its transpose)."""
        return GatherParams(
            self.update_window_dims, self.inserted_window_dims, self.scatter_dims_to_operand_dims,
            window, self.mode, fill, self.indices_are_sorted, self.unique_indices,
        )


def _as_scatter(g: GatherParams) -> ScatterParams:
    return ScatterParams(
        g.offset_dims, g.collapsed_slice_dims, g.start_index_map, g.mode,
        g.indices_are_sorted, g.unique_indices,
    )


def default_fill(dtype: DType) -> bool | int | float:
    """JAX's fill value for out-of-bounds gathers in ``fill`` mode."""
    if dtype == bool_:
        return True
    if dtype.kind in "iu":  # the least signed, the greatest unsigned integer
        lo, hi = int_range(dtype)
        return lo if dtype.kind == "i" else hi
    return float("nan")


# -- shared index arithmetic (NumPy) -----------------------------------------------------
def _starts(indices: NDArray, index_map: tuple[int, ...], shape: tuple[int, ...], window: tuple[int, ...]) -> tuple[NDArray, NDArray]:
    """Per index vector (flattened): the full start vector over the operand's
    dimensions, clamped so the window fits, and whether it was in bounds."""
    k = indices.shape[-1]
    n = int(np.prod(indices.shape[:-1]))
    # saturated into int64 (a uint64 past 2**63 would wrap negative): still
    # past every bound, as XLA compares it
    wide: NDArray = indices.reshape(n, k)
    if wide.dtype == np.uint64:
        wide = np.minimum(wide, np.uint64(2**63 - 1))
    flat: NDArray = wide.astype(np.int64)
    starts = np.zeros((n, len(shape)), np.int64)
    inb = np.ones(n, bool)
    for j, d in enumerate(index_map):
        hi = shape[d] - window[d]
        col = flat[:, j]
        inb &= np.greater_equal(col, 0) & np.less_equal(col, hi)
        starts[:, d] = np.clip(col, 0, max(hi, 0))
    return starts, inb


def _window_index(starts: NDArray, window: tuple[int, ...]) -> tuple[NDArray, ...]:
    """NumPy fancy indices picking every window: shape (n, *window)."""
    nd = len(window)
    out: list[NDArray] = []
    for d in range(nd):
        shape = [1] * (nd + 1)
        shape[d + 1] = window[d]
        col: NDArray = starts[:, d].reshape([-1] + [1] * nd)
        out.append(np.add(col, np.arange(window[d]).reshape(shape)))
    return tuple(out)


# -- gather ------------------------------------------------------------------------
def _gather_shape(name: str, operand: ShapedArray, indices: ShapedArray, g: GatherParams) -> tuple[int, ...]:
    def fail(why: str) -> PrimitiveTypeError:
        return PrimitiveTypeError(f"{name}: {why} (operand {operand.str_short()}, indices {indices.str_short()}, {g._asdict()})")

    if indices.dtype.kind not in "iu":
        raise fail(f"indices must have an integer dtype, got {indices.dtype.name}")
    if indices.ndim < 1:
        raise fail("indices must have at least one dimension (the index vector, last)")
    if len(g.slice_sizes) != operand.ndim:
        raise fail(f"slice_sizes must have one entry per operand dimension ({operand.ndim})")
    if any(not 0 <= s <= d for s, d in zip(g.slice_sizes, operand.shape)):
        raise fail("each slice size must be between 0 and the operand's dimension")
    if indices.shape[-1] != len(g.start_index_map):
        raise fail(
            f"the index vector (the last dimension of the indices, {indices.shape[-1]}) must have "
            f"len(start_index_map) = {len(g.start_index_map)} entries"
        )
    for what, dims, bound in (
        ("start_index_map", g.start_index_map, operand.ndim),
        ("collapsed_slice_dims", g.collapsed_slice_dims, operand.ndim),
    ):
        if len(set(dims)) != len(dims) or any(not 0 <= d < bound for d in dims):
            raise fail(f"{what} must be distinct operand dimensions")
    if list(g.collapsed_slice_dims) != sorted(g.collapsed_slice_dims):
        raise fail("collapsed_slice_dims must be sorted")
    if any(g.slice_sizes[d] != 1 for d in g.collapsed_slice_dims):
        raise fail("collapsed_slice_dims must have slice size 1")
    window = [s for d, s in enumerate(g.slice_sizes) if d not in g.collapsed_slice_dims]
    rank = indices.ndim - 1 + len(window)
    if len(g.offset_dims) != len(window) or list(g.offset_dims) != sorted(set(g.offset_dims)) or any(
        not 0 <= d < rank for d in g.offset_dims
    ):
        raise fail(f"offset_dims must be {len(window)} sorted distinct dimensions of the result (rank {rank})")
    batch = iter(indices.shape[:-1])
    wins = iter(window)
    return tuple(next(wins) if i in g.offset_dims else next(batch) for i in range(rank))


def _gather_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, indices = args
    g = GatherParams.of(params)
    out_shape = _gather_shape("gather", aval_of(x), aval_of(indices), g)
    batch = indices.shape[:-1]
    starts, inb = _starts(indices, g.start_index_map, x.shape, g.slice_sizes)
    windows: NDArray
    if x.ndim == 0:  # x[()] is the scalar itself, not one window per index vector
        windows = np.repeat(x.reshape(1), starts.shape[0])
    else:
        windows = x[_window_index(starts, g.slice_sizes)] if starts.shape[0] else np.zeros((0,) + g.slice_sizes, x.dtype)
    if g.mode == "fill":
        if x.dtype in EXTENDED:  # typed keys: every word the greatest uint32, as lowered (and JAX's)
            filler = keys_of_words(np.full(2, np.iinfo(np.uint32).max, np.uint32))
        else:
            filler = np.asarray(default_fill(x.dtype) if g.fill_value is None else g.fill_value, x.dtype)
        windows = np.where(inb.reshape((-1,) + (1,) * x.ndim), windows, filler)
    kept = [d for d in range(x.ndim) if d not in g.collapsed_slice_dims]
    windows = windows.reshape((starts.shape[0],) + tuple(g.slice_sizes[d] for d in kept))
    windows = windows.reshape(batch + windows.shape[1:])
    # the batch dimensions go where the offset dimensions are not
    rank = len(out_shape)
    nb = len(batch)
    batch_pos = [i for i in range(rank) if i not in g.offset_dims]
    perm = [0] * rank
    for j, i in enumerate(batch_pos):
        perm[i] = j
    for j, i in enumerate(g.offset_dims):
        perm[i] = nb + j
    return [np.array(np.transpose(windows, perm), dtype=x.dtype, order="C")]  # keeps 0-d


def _gather_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("gather", avals, 2)
    x, idx = avals
    return [ShapedArray(_gather_shape("gather", x, idx, GatherParams.of(params)), x.dtype)]


def gather_(x: Value, indices: Value, g: GatherParams) -> Array:
    return bind1(gather_p, (x, indices), g.to_params())


def _gather_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    x, idx = primals
    y = bind1(gather_p, (x, idx), params)
    t = tangents[0]
    if isinstance(t, Zero):
        return [y], [zero_like(y)]
    g = GatherParams.of(params)
    # the tangent of a filled window is zero
    tg = g._replace(fill_value=0) if g.mode == "fill" else g
    return [y], [gather_(t, idx, tg)]


def _gather_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, idx = ps
    if isinstance(idx, UndefPrimal):
        raise PrimitiveTypeError("gather: the indices cannot be a linear input")
    g = GatherParams.of(params)
    xa = primal_aval(x)
    zeros = zeros_like_aval(xa)
    return [scatter_(scatter_add_p, zeros, idx, ct, _as_scatter(g)), None]


def gather_batch_rule(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    x, idx = vals
    bx, bi = dims
    g = GatherParams.of(params)
    if size == 0:
        # an empty batch: nothing to gather (the batched gather below would
        # take a window of 1 from the operand's batch dimension of 0)
        xa, ia = aval_of(x), aval_of(idx)
        one_x = ShapedArray(tuple(d for k, d in enumerate(xa.shape) if k != bx), xa.dtype)
        one_i = ShapedArray(tuple(d for k, d in enumerate(ia.shape) if k != bi), ia.dtype)
        return [zeros_like_aval(ShapedArray((0,) + _gather_shape("gather", one_x, one_i, g), xa.dtype))], [0]
    if bi is None:
        x = move_batch_axis(size, bx, 0, x)
        g2 = g._replace(
            offset_dims=(0,) + tuple(d + 1 for d in g.offset_dims),
            collapsed_slice_dims=tuple(d + 1 for d in g.collapsed_slice_dims),
            start_index_map=tuple(d + 1 for d in g.start_index_map),
            slice_sizes=(size,) + g.slice_sizes,
        )
        return [gather_(x, idx, g2)], [0]
    idx = move_batch_axis(size, bi, 0, idx)
    if bx is None:
        g2 = g._replace(offset_dims=tuple(d + 1 for d in g.offset_dims))
        return [gather_(x, idx, g2)], [0]
    x = move_batch_axis(size, bx, 0, x)
    idx = _with_batch_counter(size, idx)
    g2 = g._replace(
        offset_dims=tuple(d + 1 for d in g.offset_dims),
        collapsed_slice_dims=(0,) + tuple(d + 1 for d in g.collapsed_slice_dims),
        start_index_map=(0,) + tuple(d + 1 for d in g.start_index_map),
        slice_sizes=(1,) + g.slice_sizes,
    )
    return [gather_(x, idx, g2)], [0]


def _with_batch_counter(size: int, idx: Value) -> Value:
    """Indices batched along axis 0, with the batch position prepended to
    each index vector (so it selects the operand's batch element); widened
    first where their dtype does not hold the batch size (an int8 counter
    would wrap past 127)."""
    if not holds(aval_of(idx).dtype, size):
        idx = convert(idx, int32 if holds(int32, size) else int64)
    a = aval_of(idx)
    count_shape = a.shape[:-1] + (1,)
    counts = bind1(iota_p, (), params_of(("dtype", a.dtype), ("shape", count_shape), ("dimension", 0)))
    return bind1(concatenate_p, (counts, idx), params_of(("dimension", a.ndim - 1)))


def _clamped_indices(idx: HloValue, idx_aval: ShapedArray, index_map: tuple[int, ...],
                     shape: tuple[int, ...], window: tuple[int, ...]) -> tuple[HloValue, HloValue]:
    """The indices clamped so each window fits, and the in-bounds mask of each
    index vector (shape: the indices' batch dimensions)."""
    hi = np.asarray([max(shape[d] - window[d], 0) for d in index_map], idx_aval.dtype)
    hi_full = np.ascontiguousarray(np.broadcast_to(hi, idx_aval.shape))
    t = tensor_type(idx_aval)
    upper = hlo.constant(ir.DenseElementsAttr.get(hi_full, type=t))  # type: ignore[call-overload]  # an ndarray is a buffer
    lower = full(0, idx_aval)
    clamped = hlo.clamp(lower, idx, upper)
    ok = hlo.and_(compare(idx, lower, idx_aval.dtype, "GE"), compare(idx, upper, idx_aval.dtype, "LE"))
    bool_aval = ShapedArray(idx_aval.shape, bool_)
    batch_aval = ShapedArray(idx_aval.shape[:-1], bool_)
    from ..hlo import reduce

    mask = reduce(ok, bool_aval, batch_aval, (idx_aval.ndim - 1,), True, hlo.and_)
    return clamped, mask


def _wide_indices(idx: HloValue, ia: ShapedArray, shape: tuple[int, ...]) -> tuple[HloValue, ShapedArray]:
    """Lowered indices, widened to int64 where their dtype does not hold a
    dimension of the operand (XLA clamps in the indices' dtype, which would
    overflow there: ``slicing.holds``)."""
    if all(holds(ia.dtype, n) for n in shape):
        return idx, ia
    wide = ShapedArray(ia.shape, int64)
    return hlo.convert(tensor_type(wide), idx), wide


def _gather_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    x, idx = args
    xa, ia = eqn.inputs[0].aval, eqn.inputs[1].aval
    idx, ia = _wide_indices(idx, ia, xa.shape)
    out = eqn.out_binders[0].aval
    g = GatherParams.of(eqn.params)
    # XLA's gather clamps out-of-bounds starts itself: 'clip' and
    # 'promise_in_bounds' need nothing more; 'fill' masks the windows
    clamped = idx
    dn = hlo.GatherDimensionNumbers.get(
        offset_dims=list(g.offset_dims),
        collapsed_slice_dims=list(g.collapsed_slice_dims),
        operand_batching_dims=[],
        start_indices_batching_dims=[],
        start_index_map=list(g.start_index_map),
        index_vector_dim=ia.ndim - 1,
    )
    y = hlo.gather(x, clamped, dn, ir.DenseI64ArrayAttr.get(list(g.slice_sizes)))
    if g.mode != "fill":
        return [y]
    _, mask = _clamped_indices(idx, ia, g.start_index_map, xa.shape, g.slice_sizes)
    fill = default_fill(xa.dtype) if g.fill_value is None else g.fill_value
    batch_pos = [i for i in range(out.ndim) if i not in g.offset_dims]
    m = hlo.broadcast_in_dim(tensor_type(ShapedArray(out.shape, bool_)), mask, batch_pos)
    return [hlo.select(m, y, full(fill, out))]


gather_p = Primitive(
    "gather", _gather_impl, _gather_abstract,
    rules_for=lambda p: Rules(jvp=_gather_jvp, transpose=_gather_t, batch=gather_batch_rule, lower=_gather_lower),
)


# -- scatters ---------------------------------------------------------------------------
def _scatter_window(name: str, operand: ShapedArray, indices: ShapedArray, updates: ShapedArray,
                    s: ScatterParams) -> tuple[int, ...]:
    """The full window (one size per operand dimension) of each update, after checks."""

    def fail(why: str) -> PrimitiveTypeError:
        return PrimitiveTypeError(
            f"{name}: {why} (operand {operand.str_short()}, indices {indices.str_short()}, "
            f"updates {updates.str_short()}, {s._asdict()})"
        )

    if indices.dtype.kind not in "iu":
        raise fail(f"indices must have an integer dtype, got {indices.dtype.name}")
    if indices.ndim < 1:
        raise fail("indices must have at least one dimension (the index vector, last)")
    if updates.dtype != operand.dtype:
        raise fail("updates must have the operand's dtype")
    if operand.dtype == bool_ and name in ("scatter-add", "scatter-mul"):
        # As JAX: these combine with add / mul, which take no bools.
        raise fail(f"{name} does not accept bool operands (use scatter-max / scatter-min for or / and)")
    if indices.shape[-1] != len(s.scatter_dims_to_operand_dims):
        raise fail("the index vector must have len(scatter_dims_to_operand_dims) entries")
    for what, dims in (("scatter_dims_to_operand_dims", s.scatter_dims_to_operand_dims),
                       ("inserted_window_dims", s.inserted_window_dims)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < operand.ndim for d in dims):
            raise fail(f"{what} must be distinct operand dimensions")
    if list(s.inserted_window_dims) != sorted(s.inserted_window_dims):
        raise fail("inserted_window_dims must be sorted")
    if updates.ndim != indices.ndim - 1 + len(s.update_window_dims):
        raise fail("updates must have the indices' batch dimensions plus update_window_dims")
    if list(s.update_window_dims) != sorted(set(s.update_window_dims)) or any(
        not 0 <= d < updates.ndim for d in s.update_window_dims
    ):
        raise fail("update_window_dims must be sorted distinct dimensions of the updates")
    if len(s.update_window_dims) + len(s.inserted_window_dims) != operand.ndim:
        raise fail("update_window_dims and inserted_window_dims must cover the operand's rank")
    sizes = iter(updates.shape[d] for d in s.update_window_dims)
    window = tuple(1 if d in s.inserted_window_dims else next(sizes) for d in range(operand.ndim))
    if any(w > n for w, n in zip(window, operand.shape)):
        raise fail(f"an update window {window} is larger than the operand")
    batch = [d for i, d in enumerate(updates.shape) if i not in s.update_window_dims]
    if tuple(batch) != indices.shape[:-1]:
        raise fail("the updates' scatter dimensions must equal the indices' batch dimensions")
    return window


_UFUNCS: dict[str, np.ufunc | None] = {
    "scatter": None,  # repeated positions: the last update lands
    "scatter-add": np.add,
    "scatter-mul": np.multiply,
    "scatter-min": np.minimum,
    "scatter-max": np.maximum,
}


def _scatter_impl_of(name: str) -> Callable[[Sequence[NDArray], Params], list[NDArray]]:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x, idx, upd = args
        s = ScatterParams.of(name, params)
        window = _scatter_window(name, aval_of(x), aval_of(idx), aval_of(upd), s)
        starts, inb = _starts(idx, s.scatter_dims_to_operand_dims, x.shape, window)
        # updates as (n, *window): scatter dims first, then the window dims
        batch_dims = [i for i in range(upd.ndim) if i not in s.update_window_dims]
        u: NDArray = np.transpose(upd, batch_dims + list(s.update_window_dims)).reshape((starts.shape[0],) + window)
        if s.mode != "clip":
            starts, u = starts[inb], u[inb]
        out: NDArray = np.array(x, copy=True)
        if starts.shape[0]:
            ix = _window_index(starts, window)
            if x.ndim == 0:  # through a 1-element view: () would not take one update per index vector
                out = out.reshape(1)
                ix = (np.zeros(starts.shape[0], np.intp),)
                u = u.reshape(-1)
            ufunc = _UFUNCS[name]
            if ufunc is None:
                out[ix] = u  # repeated positions: the last update lands
            else:
                ufunc.at(out, ix, u)  # type: ignore[arg-type]  # ix: integer index arrays
        return [out.reshape(x.shape)]

    return impl


def _scatter_abstract_of(name: str) -> Callable[[Sequence[ShapedArray], Params], list[ShapedArray]]:
    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        check_arity(name, avals, 3)
        x, idx, upd = avals
        _scatter_window(name, x, idx, upd, ScatterParams.of(name, params))
        return [x]

    return abstract


def scatter_(prim: Primitive, x: Value, idx: Value, upd: Value, s: ScatterParams) -> Array:
    return bind1(prim, (x, idx, upd), s.to_params())


def _scatter_add_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    x, idx, u = primals
    tx, _, tu = tangents
    y = bind1(scatter_add_p, (x, idx, u), params)
    if isinstance(tx, Zero) and isinstance(tu, Zero):
        return [y], [zero_like(y)]
    return [y], [bind1(scatter_add_p, (instantiate_zeros(tx), idx, instantiate_zeros(tu)), params)]


def _scatter_add_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, idx, u = ps
    if isinstance(idx, UndefPrimal):
        raise PrimitiveTypeError("scatter-add: the indices cannot be a linear input")
    s = ScatterParams.of("scatter-add", params)
    out: list[Value | None] = [ct if isinstance(x, UndefPrimal) else None, None, None]
    if isinstance(u, UndefPrimal):
        window = _scatter_window("scatter-add", aval_of(ct), aval_of(idx), u.aval, s)
        # a dropped update window reads back zero
        out[2] = gather_(ct, idx, s.as_gather(window, 0 if s.mode == "fill" else None))
    return out


def scatter_batch_rule(prim: Primitive) -> Callable[..., tuple[list[Value], list[BatchDim]]]:
    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        x, idx, u = vals
        bx, bi, bu = dims
        s = ScatterParams.of(prim.name, params)
        x = move_batch_axis(size, bx, 0, x)
        if size == 0:
            return [x], [0]  # an empty batch: nothing to scatter (nor a window of 1 to fit in it)
        u = move_batch_axis(size, bu, 0, u)
        if bi is None:
            s2 = s._replace(
                update_window_dims=(0,) + tuple(d + 1 for d in s.update_window_dims),
                inserted_window_dims=tuple(d + 1 for d in s.inserted_window_dims),
                scatter_dims_to_operand_dims=tuple(d + 1 for d in s.scatter_dims_to_operand_dims),
            )
            return [scatter_(prim, x, idx, u, s2)], [0]
        idx = _with_batch_counter(size, move_batch_axis(size, bi, 0, idx))
        s2 = s._replace(
            update_window_dims=tuple(d + 1 for d in s.update_window_dims),
            inserted_window_dims=(0,) + tuple(d + 1 for d in s.inserted_window_dims),
            scatter_dims_to_operand_dims=(0,) + tuple(d + 1 for d in s.scatter_dims_to_operand_dims),
        )
        return [scatter_(prim, x, idx, u, s2)], [0]

    return rule


def _scatter_lower_of(name: str, combine: Callable[[HloValue, HloValue], HloValue] | None) -> Callable[[LoweringContext, Eqn, Values], list[HloValue]]:
    def lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
        x, idx, upd = args
        xa, ia, ua = (v.aval for v in eqn.inputs)
        idx, ia = _wide_indices(idx, ia, xa.shape)
        s = ScatterParams.of(name, eqn.params)
        scalar = xa.ndim == 0 and math.prod(ia.shape[:-1]) > 1
        if scalar:
            # a rank-0 operand with several updates does not compile (XLA's
            # scatter simplifier); scatter into its shape-(1,) reshape instead
            xa = ShapedArray((1,), xa.dtype)
            x = hlo.reshape(tensor_type(xa), x)
            s = s._replace(inserted_window_dims=(0,))
        if ia.shape[-1] == 0 and xa.ndim and math.prod(ia.shape[:-1]) > 1:
            # XLA on CPU applies only one of several windows whose index
            # vectors are empty; an index 0 into dimension 0 says the same
            # (every window starts at 0) and XLA applies them all
            ia = ShapedArray(ia.shape[:-1] + (1,), ia.dtype)
            idx = full(0, ia)
            s = s._replace(scatter_dims_to_operand_dims=(0,))
        if s.mode == "clip":
            window = _scatter_window(name, xa, ia, ua, s)
            idx, _ = _clamped_indices(idx, ia, s.scatter_dims_to_operand_dims, xa.shape, window)
        dn = hlo.ScatterDimensionNumbers.get(
            update_window_dims=list(s.update_window_dims),
            inserted_window_dims=list(s.inserted_window_dims),
            input_batching_dims=[],
            scatter_indices_batching_dims=[],
            scattered_dims_to_operand_dims=list(s.scatter_dims_to_operand_dims),
            index_vector_dim=ia.ndim - 1,
        )
        op = hlo.ScatterOp(
            [tensor_type(xa)], [x], idx, [upd], dn,
            indices_are_sorted=ir.BoolAttr.get(s.indices_are_sorted),
            unique_indices=ir.BoolAttr.get(s.unique_indices),
        )
        st = ir.RankedTensorType.get([], element_type(xa.dtype))
        block = op.update_computation.blocks.append(st, st)
        with ir.InsertionPoint(block):
            a, b = block.arguments
            hlo.return_([b if combine is None else combine(a, b)])
        if scalar:
            return [hlo.reshape(tensor_type(eqn.inputs[0].aval), op.results[0])]
        return [op.results[0]]

    return lower


def _scatter_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """JAX's rule for an overwriting scatter with possibly repeated indices:
    scatter distinct ids to learn which update lands where, then both the
    primal and the tangent are a masked operand plus a scatter-add of the
    masked updates (linear in the tangents)."""
    x, idx, u = primals
    tx, _, tu = tangents
    y = bind1(scatter_p, (x, idx, u), params)
    if isinstance(tx, Zero) and isinstance(tu, Zero):
        return [y], [zero_like(y)]
    s = ScatterParams.of("scatter", params)
    xa, ua = aval_of(x), aval_of(u)
    id_dtype = np.dtype(np.int64) if xa.size + ua.size >= 2**31 - 1 else np.dtype(np.int32)
    flat_ids = bind1(iota_p, (), params_of(("dtype", id_dtype), ("shape", (ua.size,)), ("dimension", 0)))
    ids = reshape(add(flat_ids, full_like(1, flat_ids)), ua.shape)
    zeros_i = zeros_like_aval(ShapedArray(xa.shape, id_dtype))
    scattered_ids = scatter_(scatter_p, zeros_i, idx, ids, s)
    window = _scatter_window("scatter", xa, aval_of(idx), ua, s)
    gathered_ids = gather_(scattered_ids, idx, s.as_gather(window, 0 if s.mode == "fill" else None))
    keep_x = eq(scattered_ids, full_like(0, scattered_ids))
    keep_u = eq(gathered_ids, ids)
    tx_ = instantiate_zeros(tx)
    tu_ = instantiate_zeros(tu)
    t_masked_x = select(keep_x, tx_, zeros_like_aval(xa))
    t_masked_u = select(keep_u, tu_, zeros_like_aval(ua))
    return [y], [scatter_(scatter_add_p, t_masked_x, idx, t_masked_u, s)]


def _scatter_mul_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """d(x * prod u) = dx * prod u + x * d(prod u); the second term is
    implemented for unique indices only (as JAX)."""
    x, idx, u = primals
    tx, _, tu = tangents
    y = bind1(scatter_mul_p, (x, idx, u), params)
    s = ScatterParams.of("scatter-mul", params)
    out: Tangent = zero_like(y)
    if not isinstance(tx, Zero):
        out = bind1(scatter_mul_p, (tx, idx, u), params)
    if not isinstance(tu, Zero):
        if not s.unique_indices and math.prod(aval_of(idx).shape[:-1]) > 1:
            raise MissingRuleError(
                "scatter-mul",
                "JVP with respect to the updates (implemented only with unique_indices=True, as in JAX)",
            )
        xa = aval_of(x)
        spread = scatter_(scatter_add_p, zeros_like_aval(xa), idx, tu, s)
        term = mul(x, spread)
        out = term if isinstance(out, Zero) else add(out, term)
    return [y], [out]


def _scatter_mul_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, idx, u = ps
    if isinstance(u, UndefPrimal) or isinstance(idx, UndefPrimal):
        raise PrimitiveTypeError("scatter-mul is linear in its operand only")
    return [bind1(scatter_mul_p, (ct, idx, u), params), None, None]


def _scatter_extremum_jvp_of(prim_name: str) -> Callable[..., tuple[list[Value], list[Tangent]]]:
    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        """The tangent of whichever of the operand and the updates attains the
        result, averaged over ties (as JAX's rule)."""
        prim = scatter_min_p if prim_name == "scatter-min" else scatter_max_p
        x, idx, u = primals
        tx, _, tu = tangents
        y = bind1(prim, (x, idx, u), params)
        if isinstance(tx, Zero) and isinstance(tu, Zero):
            return [y], [zero_like(y)]
        s = ScatterParams.of(prim_name, params)
        xa, ua = aval_of(x), aval_of(u)
        window = _scatter_window(prim_name, xa, aval_of(idx), ua, s)
        y_at_u = gather_(y, idx, s.as_gather(window, 0 if s.mode == "fill" else None))
        hit_x = convert(eq(x, y), xa.dtype)
        hit_u = convert(eq(u, y_at_u), ua.dtype)
        counts = scatter_(scatter_add_p, hit_x, idx, hit_u, s)
        num = scatter_(
            scatter_add_p, mul(instantiate_zeros(tx), hit_x), idx, mul(instantiate_zeros(tu), hit_u), s
        )
        return [y], [div(num, counts)]

    return rule


def _make_scatter(name: str, rules: Callable[[Primitive], Rules]) -> Primitive:
    return Primitive(name, _scatter_impl_of(name), _scatter_abstract_of(name), rules_for=rules)


scatter_add_p = _make_scatter(
    "scatter-add",
    lambda p: Rules(jvp=_scatter_add_jvp, transpose=_scatter_add_t, batch=scatter_batch_rule(p),
                    lower=_scatter_lower_of("scatter-add", hlo.add)),
)
scatter_p = _make_scatter(
    "scatter",
    lambda p: Rules(jvp=_scatter_jvp, batch=scatter_batch_rule(p), lower=_scatter_lower_of("scatter", None)),
)
scatter_mul_p = _make_scatter(
    "scatter-mul",
    lambda p: Rules(jvp=_scatter_mul_jvp, transpose=_scatter_mul_t, batch=scatter_batch_rule(p),
                    lower=_scatter_lower_of("scatter-mul", hlo.multiply)),
)
scatter_min_p = _make_scatter(
    "scatter-min",
    lambda p: Rules(jvp=_scatter_extremum_jvp_of("scatter-min"), batch=scatter_batch_rule(p),
                    lower=_scatter_lower_of("scatter-min", hlo.minimum)),
)
scatter_max_p = _make_scatter(
    "scatter-max",
    lambda p: Rules(jvp=_scatter_extremum_jvp_of("scatter-max"), batch=scatter_batch_rule(p),
                    lower=_scatter_lower_of("scatter-max", hlo.maximum)),
)


FAMILY = Family("gather and scatter", (gather_p, scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p))


# -- the jax.lax functions ------------------------------------------------------------------
def _fill_param(fill_value: ArrayLike | None, dtype: DType) -> bool | int | float | None:
    if fill_value is None:
        return None
    if dtype in EXTENDED:
        raise PrimitiveTypeError(
            "gather: a fill_value is not supported for typed PRNG keys (key<fry>); out-of-bounds "
            "keys have every word 0xFFFFFFFF without one"
        )
    v = np.asarray(fill_value)
    if v.ndim != 0:
        raise PrimitiveTypeError(f"gather: fill_value must be a scalar, got shape {v.shape}")
    cast = v.astype(dtype).item()
    assert isinstance(cast, (bool, int, float))
    return cast


def _no_batching_dims(op: str, a: tuple[int, ...], b: tuple[int, ...]) -> None:
    if a or b:
        raise PrimitiveTypeError(f"{op}: operand batching dimensions are not supported (got {a}, {b})")


def gather(
    operand: ArrayLike, start_indices: ArrayLike, dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int], *, unique_indices: bool = False, indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None, fill_value: ArrayLike | None = None,
) -> Array:
    """``jax.lax.gather`` (``mode=None`` is ``promise_in_bounds``, as JAX's)."""
    dn = GatherDimensionNumbers(*dimension_numbers)
    _no_batching_dims("gather", dn.operand_batching_dims, dn.start_indices_batching_dims)
    m = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    g = GatherParams(
        tuple(int(d) for d in dn.offset_dims), tuple(int(d) for d in dn.collapsed_slice_dims),
        tuple(int(d) for d in dn.start_index_map), tuple(int(s) for s in slice_sizes), m.value,
        _fill_param(fill_value, aval_of(operand).dtype) if m is GatherScatterMode.FILL_OR_DROP else None,
        bool(indices_are_sorted), bool(unique_indices),
    )
    return gather_(operand, start_indices, g)


def _scatter_fn(prim: Primitive, name: str) -> Callable[..., Array]:
    def fn(
        operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
        unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
    ) -> Array:
        dn = ScatterDimensionNumbers(*dimension_numbers)
        _no_batching_dims(name, dn.operand_batching_dims, dn.scatter_indices_batching_dims)
        s = ScatterParams(
            tuple(int(d) for d in dn.update_window_dims), tuple(int(d) for d in dn.inserted_window_dims),
            tuple(int(d) for d in dn.scatter_dims_to_operand_dims),
            GatherScatterMode.from_any(mode).value, bool(indices_are_sorted), bool(unique_indices),
        )
        return scatter_(prim, operand, scatter_indices, updates, s)

    fn.__name__ = name.replace("-", "_")
    fn.__doc__ = f"``jax.lax.{fn.__name__}`` (``mode=None`` drops out-of-bounds updates, as JAX's)."
    return fn


def scatter(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter``: each update overwrites (the last of repeated ones lands)."""
    return _scatter_fn(scatter_p, "scatter")(
        operand, scatter_indices, updates, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )


def scatter_add(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_add``: repeated indices accumulate."""
    return _scatter_fn(scatter_add_p, "scatter-add")(
        operand, scatter_indices, updates, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )


def scatter_mul(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_mul``."""
    return _scatter_fn(scatter_mul_p, "scatter-mul")(
        operand, scatter_indices, updates, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )


def scatter_min(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_min``."""
    return _scatter_fn(scatter_min_p, "scatter-min")(
        operand, scatter_indices, updates, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )


def scatter_max(
    operand: ArrayLike, scatter_indices: ArrayLike, updates: ArrayLike,
    dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
    unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
) -> Array:
    """``jax.lax.scatter_max``."""
    return _scatter_fn(scatter_max_p, "scatter-max")(
        operand, scatter_indices, updates, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )
