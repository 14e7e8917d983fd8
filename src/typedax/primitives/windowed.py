"""Windowed reductions, and every rule for them: ``reduce_window_sum``,
``reduce_window_max``, ``reduce_window_min``, ``select_and_gather_add``
(the JVP of a windowed max or min) and ``select_and_scatter_add`` (its
transpose: the gradient of max pooling). The general ``reduce_window`` (a
monoid given as a body jaxpr over scalars: a higher-order primitive, whose
JVP differentiates its body) is ``control_flow/reduce_windows.py``, built
on the ``Window`` and ``hlo_reduce_window`` of this module.

Params, each a tuple with one entry per dimension of the operand:
``window_dimensions``, ``window_strides``, ``padding`` (``(low, high)``
pairs, non-negative), ``base_dilation``, ``window_dilation``;
``select_and_scatter_add`` has no dilations (XLA's SelectAndScatter has
none). The two ``select_*`` primitives take ``select_prim``: ``"ge"`` (the
first maximal element of a window) or ``"le"`` (the first minimal one).

Evaluation is XLA's: the operand is dilated (``base_dilation - 1`` holes
between neighbours) and padded; a window's elements lie ``window_dilation``
apart, and each window folds ``acc = body(acc, x)`` from the init value
through the operand's elements it covers, in row-major window order
(XLA's CPU code skips padding and holes, which is the same as folding the
init value there when it is the body's identity, and differs when it is
not). NumPy does every window at once (a strided view of the padded
operand), one step per window element, never a loop over the outputs. A
sum over one-element windows with unit strides and no base dilation passes
the element through as XLA's simplifier does (``-0.0`` stays ``-0.0``).
XLA on CPU folds long windows in order too, so eager and ``jit`` agree bit
for bit (checked on random floats up to windows of 33 elements).

Rules as JAX's (``jax/_src/lax/windowed_reductions.py``): the sum is linear
and transposes to a sum over the strided-padded cotangent; max and min
differentiate through ``select_and_gather_add`` (the tangent of the element
a window selects, ties going to the first in window order, as XLA's
``select``); that one transposes to ``select_and_scatter_add`` and back.
Batching adds a window dimension of size 1 over the batch axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from numpy.lib.stride_tricks import sliding_window_view

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType
from ..core.errors import PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero, floats_on_device
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, compare, dtype_max, dtype_min, element_type, full, tensor_type
from ._params import get_ints, params_of
from .elementwise import _max, _min
from .slicing import pad_, slice_
from .structural import (
    check_arity, linear_jvp, move_batch_axis, types_str, zero_like, zeros_like_aval,
)

NUMERIC: frozenset[DType] = FLOATING | INTEGER
Pads = tuple[tuple[int, int], ...]
Scalar = bool | int | float


# -- the window params ------------------------------------------------------------
def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """A shape with ``dilation - 1`` holes between neighbours (0 stays 0)."""
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation))


def _get_pads(name: str, params: Params) -> Pads:
    if "padding" not in params:
        raise PrimitiveTypeError(f"{name}: missing param 'padding'")
    v = params["padding"]
    if not isinstance(v, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 and all(type(i) is int for i in p) for p in v
    ):
        raise PrimitiveTypeError(f"{name}: param 'padding' must be a tuple of (low, high) int pairs, got {v!r}")
    return tuple((int(p[0]), int(p[1])) for p in v if isinstance(p, tuple) and type(p[0]) is int and type(p[1]) is int)


@dataclass(frozen=True, slots=True)
class Window:
    """The window of a windowed reduction, as its params hold it."""

    dimensions: tuple[int, ...]
    strides: tuple[int, ...]
    padding: Pads
    base_dilation: tuple[int, ...]
    window_dilation: tuple[int, ...]

    @staticmethod
    def read(name: str, params: Params, dilations: bool = True) -> Window:
        dims = get_ints(name, params, "window_dimensions")
        ones = (1,) * len(dims)
        return Window(
            dims, get_ints(name, params, "window_strides"), _get_pads(name, params),
            get_ints(name, params, "base_dilation") if dilations else ones,
            get_ints(name, params, "window_dilation") if dilations else ones,
        )

    def items(self, dilations: bool = True) -> tuple[tuple[str, Param], ...]:
        base: tuple[tuple[str, Param], ...] = (
            ("window_dimensions", self.dimensions), ("window_strides", self.strides), ("padding", self.padding),
        )
        if not dilations:
            return base
        return base + (("base_dilation", self.base_dilation), ("window_dilation", self.window_dilation))

    def with_unit_dim(self, at: int) -> Window:
        """The window of an operand with one more dimension at ``at`` (a batch axis)."""
        def ins(t: tuple[int, ...], v: int) -> tuple[int, ...]:
            return t[:at] + (v,) + t[at:]

        return Window(
            ins(self.dimensions, 1), ins(self.strides, 1), self.padding[:at] + ((0, 0),) + self.padding[at:],
            ins(self.base_dilation, 1), ins(self.window_dilation, 1),
        )

    def out_shape(self, name: str, aval: ShapedArray) -> tuple[int, ...]:
        """The reduced shape, or ``PrimitiveTypeError`` for a window that does not fit ``aval``."""
        nd = aval.ndim
        fields = {
            "window_dimensions": self.dimensions, "window_strides": self.strides, "padding": self.padding,
            "base_dilation": self.base_dilation, "window_dilation": self.window_dilation,
        }
        for key, val in fields.items():
            if len(val) != nd:
                raise PrimitiveTypeError(
                    f"{name}: {key}={val} must have one entry per dimension of the operand "
                    f"{aval.str_short()} (rank {nd}), got {len(val)}"
                )
        for key in ("window_dimensions", "window_strides", "base_dilation", "window_dilation"):
            val = fields[key]
            if any(not isinstance(v, int) or v < 1 for v in val):
                raise PrimitiveTypeError(f"{name}: {key} must be positive, got {key}={val}")
        if any(lo < 0 or hi < 0 for lo, hi in self.padding):
            raise PrimitiveTypeError(f"{name}: padding must be non-negative, got padding={self.padding}")
        padded = self.padded_shape(aval.shape)
        eff = dilate_shape(self.dimensions, self.window_dilation)
        for d, (p, w) in enumerate(zip(padded, eff)):
            if w > p:
                raise PrimitiveTypeError(
                    f"{name}: the window {self.dimensions} (dilated: {eff}) is larger than the padded "
                    f"operand {padded} in dimension {d} ({aval.str_short()} with padding={self.padding}, "
                    f"base_dilation={self.base_dilation})"
                )
        return tuple((p - w) // s + 1 for p, w, s in zip(padded, eff, self.strides))

    def padded_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(lo + hi + d for d, (lo, hi) in zip(dilate_shape(shape, self.base_dilation), self.padding))

    def size(self) -> int:
        return math.prod(self.dimensions)


def _windows(x: NDArray, init: Scalar, w: Window) -> NDArray:
    """Every window of ``x`` (dilated and padded with ``init``): shape
    ``out_shape + (window size,)``, the elements in window order."""
    if x.ndim == 0:
        return x.reshape(1)
    padded = np.full(w.padded_shape(x.shape), init, x.dtype)
    dil = dilate_shape(x.shape, w.base_dilation)
    padded[tuple(slice(lo, lo + n, b) for (lo, _), n, b in zip(w.padding, dil, w.base_dilation))] = x
    view = sliding_window_view(padded, dilate_shape(w.dimensions, w.window_dilation))
    view = view[tuple(slice(None, None, s) for s in w.strides) + tuple(slice(None, None, r) for r in w.window_dilation)]
    return view.reshape(view.shape[: x.ndim] + (-1,))


def _passes_through(w: Window, wins: NDArray) -> bool:
    """XLA's simplifier turns a sum over one-element windows with unit
    strides and no base or window dilation into (a pad of) the operand:
    ``x + 0`` is ``x``, so ``-0.0`` stays ``-0.0``. (With a window dilation,
    even of a one-element window, it adds the init value: ``-0.0`` is ``+0.0``.)"""
    return (wins.shape[-1] == 1 and set(w.strides) <= {1} and set(w.base_dilation) <= {1}
            and set(w.window_dilation) <= {1})


def _fold(x: NDArray, init: Scalar, w: Window, op: Callable[[NDArray, NDArray], object]) -> NDArray:
    wins = _windows(x, init, w)
    if _passes_through(w, wins):
        return np.array(wins[..., 0])
    acc = np.full(wins.shape[:-1], init, x.dtype)
    with np.errstate(invalid="ignore"):  # XLA's max and min look at -inf + inf (a signed-zero test)
        for k in range(wins.shape[-1]):
            acc = np.asarray(op(acc, wins[..., k]), dtype=x.dtype)
    return acc


# -- lowering ------------------------------------------------------------------------
def _dense_pads(pads: Pads) -> ir.DenseIntElementsAttr:
    arr = np.asarray(pads, np.int64).reshape(len(pads), 2)
    attr: ir.DenseIntElementsAttr = ir.DenseIntElementsAttr.get(arr)  # type: ignore[call-overload]  # a NumPy array is a Buffer at run time
    return attr


def hlo_reduce_window(
    out_avals: Sequence[ShapedArray], operands: Sequence[HloValue], inits: Sequence[HloValue], w: Window,
    body: Callable[[list[HloValue]], list[HloValue]],
) -> list[HloValue]:
    """A ``stablehlo.reduce_window`` of ``operands`` with ``body`` on the
    block arguments (the accumulators, then the elements)."""
    op = hlo.ReduceWindowOp(
        [tensor_type(a) for a in out_avals], list(operands), list(inits), list(w.dimensions),
        window_strides=list(w.strides), base_dilations=list(w.base_dilation),
        window_dilations=list(w.window_dilation), padding=_dense_pads(w.padding),
    )
    scalars = [ir.RankedTensorType.get([], element_type(a.dtype)) for a in out_avals]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        hlo.return_(body(list(block.arguments)))
    return list(op.results)


def _scalar(v: Scalar, dtype: DType) -> HloValue:
    return full(v, ShapedArray((), dtype))


# -- reduce_window_sum, reduce_window_max, reduce_window_min ---------------------------
def _monoid(
    name: str, dtypes: frozenset[DType], op: Callable[[NDArray, NDArray], object],
    identity: Callable[[DType], Scalar], hlo_op: Callable[[HloValue, HloValue], HloValue],
    rules: Callable[[Primitive], Rules],
) -> Primitive:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x = args[0]
        return [_fold(x, identity(x.dtype), Window.read(name, params), op)]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        check_arity(name, avals, 1)
        (x,) = avals
        if x.dtype not in dtypes:
            raise PrimitiveTypeError(f"{name} takes {'numeric' if dtypes == NUMERIC else 'array'} operands, got {x.str_short()}")
        return [ShapedArray(Window.read(name, params).out_shape(name, x), x.dtype)]

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        a = eqn.inputs[0].aval
        init = _scalar(identity(a.dtype), a.dtype)
        return hlo_reduce_window([eqn.out_binders[0].aval], args, [init], Window.read(name, eqn.params),
                                 lambda b: [hlo_op(b[0], b[1])])

    def all_rules(p: Primitive) -> Rules:
        r = rules(p)
        return Rules(jvp=r.jvp, transpose=r.transpose, batch=_window_batch(p, name), lower=lower,
                     eval_on_device=r.eval_on_device)

    return Primitive(name, impl, abstract, rules_for=all_rules)


def _window_batch(prim: Primitive, name: str) -> Callable[
    [int, Sequence[Value], Sequence[BatchDim], Params], tuple[list[Value], list[BatchDim]]
]:
    """Batching of a one-operand windowed reduction: a unit window over the batch axis."""

    def rule(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
        (x,), (b,) = vals, dims
        assert b is not None
        w = Window.read(name, params).with_unit_dim(b)
        return [bind1(prim, (x,), params_of(*w.items()))], [b]

    return rule


def vjp_lhs_padding(
    in_shape: Sequence[int], window: Sequence[int], strides: Sequence[int], out_shape: Sequence[int],
    padding: Pads, lhs_dilation: Sequence[int], rhs_dilation: Sequence[int],
) -> list[tuple[int, int]]:
    """The padding of the stride-dilated cotangent whose windowed sum (or
    convolution with the flipped kernel) is the cotangent of the operand."""
    lhs = dilate_shape(in_shape, lhs_dilation)
    rhs = dilate_shape(window, rhs_dilation)
    out = dilate_shape(out_shape, strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs, padding)]
    return [(b, l + r - 1 - o - b) for b, l, r, o in zip(before, lhs, rhs, out)]


def _sum_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,), (x,) = cts, ps
    if not isinstance(x, UndefPrimal):
        return [None]
    w = Window.read("reduce_window_sum", params)
    in_shape = x.aval.shape
    if 0 in in_shape:
        return [zeros_like_aval(x.aval)]
    pads = vjp_lhs_padding(in_shape, w.dimensions, w.strides, aval_of(ct).shape, w.padding,
                           w.base_dilation, w.window_dilation)
    cfg = tuple((lo, hi, s - 1) for (lo, hi), s in zip(pads, w.strides))
    padded = pad_(ct, np.zeros((), aval_of(ct).dtype), cfg)
    ones = (1,) * len(in_shape)
    back = Window(w.dimensions, w.base_dilation, ((0, 0),) * len(in_shape), ones, w.window_dilation)
    return [bind1(reduce_window_sum_p, (padded,), params_of(*back.items()))]


def _chooser_jvp(select_prim: str) -> Callable[[Primitive], Rules]:
    """JVP of a windowed max (``ge``) or min (``le``): the tangent of the
    element each window selects."""

    def rules(prim: Primitive) -> Rules:
        def jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
            (x,), (t,) = primals, tangents
            y = bind1(prim, (x,), params)
            if isinstance(t, Zero) or aval_of(x).dtype not in FLOATING:
                return [y], [zero_like(y)]
            w = Window.read(prim.name, params)
            return [y], [_select_and_gather_add(t, x, select_prim, w)]

        return Rules(jvp=jvp)

    return rules


def _np_add(a: NDArray, b: NDArray) -> object:
    return np.add(a, b)


reduce_window_sum_p = _monoid(
    "reduce_window_sum", NUMERIC, _np_add, lambda d: 0, hlo.add,
    # a float sum's order is XLA's (eager equals jit bit for bit: docs/architecture.md)
    lambda p: Rules(jvp=linear_jvp(p), transpose=_sum_t, eval_on_device=floats_on_device),
)
_ANY: frozenset[DType] = NUMERIC | {np.dtype(np.bool_)}
reduce_window_max_p = _monoid("reduce_window_max", _ANY, _max, dtype_min, hlo.maximum, _chooser_jvp("ge"))
reduce_window_min_p = _monoid("reduce_window_min", _ANY, _min, dtype_max, hlo.minimum, _chooser_jvp("le"))


# -- select_and_gather_add(tangents, operand; select_prim, window) ----------------------
def _select_prim(name: str, params: Params) -> str:
    v = params.get("select_prim")
    if v not in ("ge", "le"):
        raise PrimitiveTypeError(f"{name}: param 'select_prim' must be 'ge' or 'le', got {v!r}")
    assert isinstance(v, str)
    return v


def _selects(select_prim: str, a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(np.greater_equal(a, b) if select_prim == "ge" else np.less_equal(a, b))


def _select_init(select_prim: str, dtype: DType) -> Scalar:
    return dtype_min(dtype) if select_prim == "ge" else dtype_max(dtype)


def _select_and_gather_add(t: Value, x: Value, select_prim: str, w: Window) -> Value:
    return bind1(select_and_gather_add_p, (t, x), params_of(*w.items(), ("select_prim", select_prim)))


def _sga_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    t, x = args
    name = "select_and_gather_add"
    sel, w = _select_prim(name, params), Window.read(name, params)
    init = _select_init(sel, x.dtype)
    xw, tw = _windows(x, init, w), _windows(t, 0, w)
    acc_x = np.full(xw.shape[:-1], init, x.dtype)
    acc_t = np.zeros(xw.shape[:-1], t.dtype)
    for k in range(xw.shape[-1]):
        keep = _selects(sel, acc_x, xw[..., k])
        acc_x = np.where(keep, acc_x, xw[..., k])
        acc_t = np.where(keep, acc_t, tw[..., k])
    return [acc_t]


def _sga_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    name = "select_and_gather_add"
    check_arity(name, avals, 2)
    t, x = avals
    _select_prim(name, params)
    if t.shape != x.shape or t.dtype != x.dtype or x.dtype not in FLOATING:
        raise PrimitiveTypeError(
            f"{name} takes tangents and an operand of one float type, got ({types_str(avals)})"
        )
    return [ShapedArray(Window.read(name, params).out_shape(name, x), x.dtype)]


def _sga_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    t, x = primals
    out = bind1(select_and_gather_add_p, (t, x), params)
    tt = tangents[0]
    if isinstance(tt, Zero):
        return [out], [zero_like(out)]
    return [out], [bind1(select_and_gather_add_p, (tt, x), params)]


def _sga_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    name = "select_and_gather_add"
    (ct,), (t, x) = cts, ps
    if isinstance(x, UndefPrimal):
        raise PrimitiveTypeError(f"{name} is not linear in its operand (only in its tangents)")
    if not isinstance(t, UndefPrimal):
        return [None, None]
    sel, w = _select_prim(name, params), Window.read(name, params)
    if any(d != 1 for d in w.window_dilation):
        raise PrimitiveTypeError(
            f"{name}: the transpose (the gradient of a windowed max or min) does not support window "
            f"dilation, got window_dilation={w.window_dilation} (neither does JAX's)"
        )
    operand: Value = x
    dilated = any(d != 1 for d in w.base_dilation)
    if dilated:
        ident = np.asarray(_select_init(sel, aval_of(x).dtype), aval_of(x).dtype)
        operand = pad_(x, ident, tuple((0, 0, d - 1) for d in w.base_dilation))
    out: Value = bind1(select_and_scatter_add_p, (ct, operand), params_of(*w.items(dilations=False), ("select_prim", sel)))
    if dilated:
        shape = aval_of(out).shape
        out = slice_(out, (0,) * len(shape), shape, w.base_dilation)
    return [out, None]


def _front_batch(prim: Primitive, name: str, dilations: bool) -> Callable[
    [int, Sequence[Value], Sequence[BatchDim], Params], tuple[list[Value], list[BatchDim]]
]:
    """Batching of a two-operand windowed primitive: both batch axes to the front, a unit window there."""

    def rule(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
        a, b = (move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims))
        w = Window.read(name, params, dilations).with_unit_dim(0)
        new = params_of(*w.items(dilations), ("select_prim", _select_prim(name, params)))
        return [bind1(prim, (a, b), new)], [0]

    return rule


def _sga_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """A reduce_window over (operand, tangents) pairs, as JAX lowers it on CPU."""
    name = "select_and_gather_add"
    t, x = args
    sel, w = _select_prim(name, eqn.params), Window.read(name, eqn.params)
    d = eqn.inputs[1].aval.dtype
    out = eqn.out_binders[0].aval

    def body(b: list[HloValue]) -> list[HloValue]:
        kx, vx, ky, vy = b
        keep = compare(kx, ky, d, "GE" if sel == "ge" else "LE")
        return [hlo.select(keep, kx, ky), hlo.select(keep, vx, vy)]

    inits = [_scalar(_select_init(sel, d), d), _scalar(0, d)]
    return hlo_reduce_window([out, out], [x, t], inits, w, body)[1:]


select_and_gather_add_p = Primitive(
    "select_and_gather_add", _sga_impl, _sga_abstract,
    rules_for=lambda p: Rules(
        jvp=_sga_jvp, transpose=_sga_t, batch=_front_batch(p, "select_and_gather_add", True), lower=_sga_lower,
    ),
)


# -- select_and_scatter_add(source, operand; select_prim, window) -----------------------
def _ssa_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    """Each window's source value added at the element the window selects
    (the operand padded with the select's identity, as JAX on CPU)."""
    s, x = args
    name = "select_and_scatter_add"
    sel, w = _select_prim(name, params), Window.read(name, params, dilations=False)
    wins = _windows(x, _select_init(sel, x.dtype), w)
    out_shape = wins.shape[:-1]
    best = wins[..., 0]
    idx = np.zeros(out_shape, np.int64)
    for k in range(1, wins.shape[-1]):
        keep = _selects(sel, best, wins[..., k])
        best = np.where(keep, best, wins[..., k])
        idx = np.where(keep, idx, k)
    offsets: tuple[NDArray, ...] = np.unravel_index(idx, w.dimensions) if x.ndim else ()
    grid: tuple[NDArray, ...] = tuple(np.indices(out_shape, sparse=True)) if x.ndim else ()
    pos = tuple(np.add(g * st, o) for g, st, o in zip(grid, w.strides, offsets))
    result = np.zeros(w.padded_shape(x.shape), s.dtype)
    np.add.at(result, pos, s)
    return [np.array(result[tuple(slice(lo, lo + n) for (lo, _), n in zip(w.padding, x.shape))])]


def _ssa_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    name = "select_and_scatter_add"
    check_arity(name, avals, 2)
    s, x = avals
    _select_prim(name, params)
    if s.dtype != x.dtype or x.dtype not in NUMERIC:
        raise PrimitiveTypeError(f"{name} takes a source and an operand of one numeric dtype, got ({types_str(avals)})")
    want = Window.read(name, params, dilations=False).out_shape(name, x)
    if s.shape != want:
        raise PrimitiveTypeError(
            f"{name}: the source must have the shape of the operand's windows {want}, got ({types_str(avals)})"
        )
    return [x]


def _ssa_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    s, x = primals
    out = bind1(select_and_scatter_add_p, (s, x), params)
    ts = tangents[0]
    if isinstance(ts, Zero) or aval_of(s).dtype not in FLOATING:
        return [out], [zero_like(out)]
    return [out], [bind1(select_and_scatter_add_p, (ts, x), params)]


def _ssa_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    name = "select_and_scatter_add"
    (ct,), (s, x) = cts, ps
    if isinstance(x, UndefPrimal):
        raise PrimitiveTypeError(f"{name} is not linear in its operand (only in its source)")
    if not isinstance(s, UndefPrimal):
        return [None, None]
    w = Window.read(name, params, dilations=False)
    return [_select_and_gather_add(ct, x, _select_prim(name, params), w), None]


def _ssa_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """Pad with the select's identity, select_and_scatter without padding,
    slice the padding off (JAX's CPU and GPU lowering)."""
    name = "select_and_scatter_add"
    s, x = args
    sel, w = _select_prim(name, eqn.params), Window.read(name, eqn.params, dilations=False)
    xa = eqn.inputs[1].aval
    if xa.ndim == 0:  # one window of one element (XLA aborts on a rank-0 select_and_scatter)
        return [s]
    d = xa.dtype
    lo = [p[0] for p in w.padding]
    hi = [p[1] for p in w.padding]
    padded_aval = ShapedArray(w.padded_shape(xa.shape), d)
    xp = hlo.pad(x, _scalar(_select_init(sel, d), d), lo, hi, [0] * xa.ndim)
    op = hlo.SelectAndScatterOp(
        tensor_type(padded_aval), xp, s, _scalar(0, d), window_dimensions=list(w.dimensions),
        window_strides=list(w.strides), padding=_dense_pads(((0, 0),) * xa.ndim),
    )
    st = ir.RankedTensorType.get([], element_type(d))
    select = op.regions[0].blocks.append(st, st)
    with ir.InsertionPoint(select):
        hlo.return_([compare(select.arguments[0], select.arguments[1], d, "GE" if sel == "ge" else "LE")])
    scatter = op.regions[1].blocks.append(st, st)
    with ir.InsertionPoint(scatter):
        hlo.return_([hlo.add(scatter.arguments[0], scatter.arguments[1])])
    limit = [lo_ + n for lo_, n in zip(lo, xa.shape)]
    return [hlo.slice(op.result, lo, limit, [1] * xa.ndim)]


select_and_scatter_add_p = Primitive(
    "select_and_scatter_add", _ssa_impl, _ssa_abstract,
    rules_for=lambda p: Rules(
        jvp=_ssa_jvp, transpose=_ssa_t, batch=_front_batch(p, "select_and_scatter_add", False), lower=_ssa_lower,
    ),
)


FAMILY = Family(
    "windowed",
    (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p, select_and_gather_add_p, select_and_scatter_add_p),
)


# -- the functions (lax.reduce_window and typedax.nn's pooling build on these) ----------
PaddingLike = str | Sequence[tuple[int, int]]


def _int(op: str, what: str, d: object) -> int:
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be integers, got {d!r} ({type(d).__name__})")
    return int(d)


def _ints(op: str, what: str, ds: object) -> tuple[int, ...]:
    if isinstance(ds, (str, bytes)) or not isinstance(ds, (Sequence, np.ndarray)):
        raise PrimitiveTypeError(f"{op}: {what} must be a sequence of integers, got {ds!r}")
    return tuple(_int(op, what, d) for d in ds)


def _padtype_to_pads(
    in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int], padding: str,
) -> list[tuple[int, int]]:
    """``'VALID'``, ``'SAME'`` or ``'SAME_LOWER'`` as (low, high) pairs
    (``jax.lax.padtype_to_pads``): ``SAME`` gives ``ceil(n / stride)``
    outputs, the odd element of padding at the end (``SAME_LOWER``: start)."""
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise PrimitiveTypeError(
            f"padding must be 'VALID', 'SAME', 'SAME_LOWER' or a sequence of (low, high) pairs, got {padding!r}"
        )
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        lo, hi = total // 2, total - total // 2
        pads.append((hi, lo) if kind == "SAME_LOWER" else (lo, hi))
    return pads


def window_of(
    op: str, shape: tuple[int, ...], window_dimensions: Sequence[int], window_strides: Sequence[int] | None,
    padding: PaddingLike, base_dilation: Sequence[int] | None, window_dilation: Sequence[int] | None,
) -> Window:
    """The normalized window of the user functions' arguments (``padding``
    strings resolved against the dilated window, as JAX does)."""
    dims = _ints(op, "window_dimensions", window_dimensions)
    ones = (1,) * len(dims)
    strides = ones if window_strides is None else _ints(op, "window_strides", window_strides)
    base = ones if base_dilation is None else _ints(op, "base_dilation", base_dilation)
    wdil = ones if window_dilation is None else _ints(op, "window_dilation", window_dilation)
    if isinstance(padding, str):
        if len(dims) != len(shape) or len(strides) != len(dims) or min(wdil + strides + (1,)) < 1:
            # the primitive's own check names the mismatch
            pads: Pads = ((0, 0),) * len(dims)
        else:
            pads = tuple(_padtype_to_pads(shape, dilate_shape(dims, wdil), strides, padding))
    else:
        if not isinstance(padding, (Sequence, np.ndarray)):
            raise PrimitiveTypeError(f"{op}: padding must be a string or a sequence of (low, high) pairs, got {padding!r}")
        pairs = []
        for p in padding:
            pair = _ints(op, "padding pairs", p)
            if len(pair) != 2:
                raise PrimitiveTypeError(f"{op}: padding must be (low, high) pairs, got {padding!r}")
            pairs.append((pair[0], pair[1]))
        pads = tuple(pairs)
    return Window(dims, strides, pads, base, wdil)


def _monoid_fn(prim: Primitive) -> Callable[..., Array]:
    def fn(
        operand: ArrayLike, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
        padding: PaddingLike = "VALID", base_dilation: Sequence[int] | None = None,
        window_dilation: Sequence[int] | None = None,
    ) -> Array:
        w = window_of(prim.name, aval_of(operand).shape, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation)
        return bind1(prim, (operand,), params_of(*w.items()))

    return fn


def reduce_window_sum(
    operand: ArrayLike, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
    padding: PaddingLike = "VALID", base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array:
    """The sum over each window (``lax.reduce_window`` with ``lax.add`` and 0)."""
    return _monoid_fn(reduce_window_sum_p)(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)


def reduce_window_max(
    operand: ArrayLike, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
    padding: PaddingLike = "VALID", base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array:
    """The maximum over each window (``lax.reduce_window`` with ``lax.max`` and -inf)."""
    return _monoid_fn(reduce_window_max_p)(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)


def reduce_window_min(
    operand: ArrayLike, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
    padding: PaddingLike = "VALID", base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array:
    """The minimum over each window (``lax.reduce_window`` with ``lax.min`` and inf)."""
    return _monoid_fn(reduce_window_min_p)(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)


def monoid_identity(kind: str, dtype: DType) -> Scalar:
    """The init value for which ``lax.reduce_window`` with ``lax.add`` /
    ``lax.max`` / ``lax.min`` is the sum / max / min primitive."""
    return 0 if kind == "add" else dtype_min(dtype) if kind == "max" else dtype_max(dtype)


MONOIDS: dict[str, Primitive] = {"add": reduce_window_sum_p, "max": reduce_window_max_p, "min": reduce_window_min_p}
