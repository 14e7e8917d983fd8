"""Automatic batching: the batching interpreter, its rules, the driver
``vmap_flat`` and the pure transformation ``vmap_jaxpr``.

A ``BatchTracer`` holds a value with one extra axis, ``batch_dim``, that runs
over the examples of the batch (``None``: the same value for every example).
Rules compute with the primitives themselves under the trace's parent,
moving batch axes where a primitive needs them, so batching composes with
every interpreter below. A result that turns out unbatched leaves the trace
as a plain value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.errors import BatchingError, ConcretizationError
from ..core.ir import Jaxpr, NDArray, Params, Primitive
from ..core.rules import RuleTable
from ..core.trace import Trace, Tracer, Value, aval_of, bind1, current_trace, using_trace
from ..primitives import (
    add_p,
    broadcast_p,
    convert_element_type_p,
    cos_p,
    div_p,
    dot_general_p,
    eq_p,
    exp_p,
    ge_p,
    greater_p,
    integer_pow_p,
    le_p,
    less_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    pow_p,
    reduce_max_p,
    reduce_sum_p,
    reshape_p,
    select_n_p,
    sin_p,
    sqrt_p,
    sub_p,
    tanh_p,
    transpose_p,
)
from ..primitives._params import get_ints
from ..primitives.structural import DimensionNumbers, get_dimension_numbers
from .jvp import eval_jaxpr_typed
from .staging import trace_to_jaxpr_flat

__all__ = [
    "BatchDim", "BatchRule", "BatchTrace", "BatchTracer", "OutDims", "batch_rules",
    "move_batch_axis", "vmap_flat", "vmap_jaxpr",
]

BatchDim: TypeAlias = int | None
BatchRule: TypeAlias = Callable[
    [int, Sequence[Value], Sequence[BatchDim], Params], tuple[list[Value], list[BatchDim]]
]
"""``rule(axis_size, vals, batch_dims, params) -> (vals_out, batch_dims_out)``;
runs under the batching trace's parent. At least one input is batched."""

OutDims: TypeAlias = Sequence[BatchDim] | Callable[[], Sequence[BatchDim]]
"""Where each output's batch axis goes (``None``: it must be unbatched); a
thunk when it is known only once the function has run."""

batch_rules: RuleTable[BatchRule] = RuleTable("batching", "batch")


def unbatched_aval(aval: ShapedArray, batch_dim: BatchDim) -> ShapedArray:
    if batch_dim is None:
        return aval
    return ShapedArray(aval.shape[:batch_dim] + aval.shape[batch_dim + 1 :], aval.dtype)


def batched_aval(aval: ShapedArray, axis_size: int, batch_dim: BatchDim) -> ShapedArray:
    if batch_dim is None:
        return aval
    shape = aval.shape[:batch_dim] + (axis_size,) + aval.shape[batch_dim:]
    return ShapedArray(shape, aval.dtype)


# -- the interpreter ---------------------------------------------------------------
class BatchTracer(Tracer):
    """A batch of values: ``val`` with the batch running along ``batch_dim``."""

    __slots__ = ("val", "batch_dim")
    _trace: BatchTrace

    def __init__(self, trace: BatchTrace, val: Value, batch_dim: BatchDim) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        return unbatched_aval(aval_of(self.val), self.batch_dim)

    def concrete(self, why: str) -> NDArray:
        if self.batch_dim is None:
            v = self.val
            return v.concrete(why) if isinstance(v, Tracer) else np.asarray(v)
        raise ConcretizationError(
            f"{why} of a value of type {self.aval.str_short()} batched by vmap: it "
            "differs from one example of the batch to the next, so Python control "
            "flow cannot depend on it. Use lax.select / lax.cond instead."
        )


class BatchTrace(Trace):
    """Applies batching rules to its own tracers; everything else is unbatched."""

    __slots__ = ("axis_size",)

    def __init__(self, parent: Trace | None, axis_size: int) -> None:
        super().__init__(parent)
        self.axis_size = axis_size

    def describe(self) -> str:
        return f"vmap (axis size {self.axis_size})"

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        parent = self.parent
        assert parent is not None  # a BatchTrace always has an interpreter below
        vals: list[Value] = []
        dims: list[BatchDim] = []
        batched = False
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.batch_dim)
                batched = batched or a.batch_dim is not None
            else:
                if type(a) is not np.ndarray and isinstance(a, Tracer):
                    self.check_foreign(a)
                vals.append(a)
                dims.append(None)
        if not batched:  # the same for every example: the interpreter below does it
            return parent.process_primitive(prim, vals, params)
        rule = batch_rules[prim]
        with using_trace(parent):
            outs, out_dims = rule(self.axis_size, vals, dims, params)
        return [
            o if d is None else BatchTracer(self, o, d) for o, d in zip(outs, out_dims)
        ]


@functools.lru_cache(maxsize=2048)
def _params1(key: str, value: tuple[int, ...]) -> Params:
    return pmap({key: value})


@functools.lru_cache(maxsize=2048)
def _broadcast_params(shape: tuple[int, ...], axes: tuple[int, ...]) -> Params:
    return pmap({"shape": shape, "axes": axes})


@functools.lru_cache(maxsize=2048)
def _dot_params(dn: DimensionNumbers) -> Params:
    return pmap({"dimension_numbers": dn})


def move_batch_axis(axis_size: int, src: BatchDim, dst: int, x: Value) -> Value:
    """``x`` with its batch axis moved from ``src`` to ``dst``; an unbatched
    ``x`` (``src`` None) is broadcast along a new axis ``dst``."""
    if src is None:
        shape = aval_of(x).shape
        out_shape = shape[:dst] + (axis_size,) + shape[dst:]
        return bind1(broadcast_p, (x,), _broadcast_params(out_shape, (dst,)))
    if src == dst:
        return x
    perm = [i for i in range(aval_of(x).ndim) if i != src]
    perm.insert(dst, src)
    return bind1(transpose_p, (x,), _params1("perm", tuple(perm)))


# -- the driver and the pure transformation ---------------------------------------------
def _normalize_in_dim(d: int, aval: ShapedArray, i: int) -> int:
    if not -aval.ndim <= d < aval.ndim:
        raise BatchingError(
            f"vmap: in_axes={d} is out of range for input {i} of type {aval.str_short()} "
            f"(it has {aval.ndim} axes)"
        )
    return d % aval.ndim


def vmap_flat(
    fun: Callable[[list[Value]], Sequence[Value]],
    axis_size: int,
    in_dims: Sequence[BatchDim],
    vals: Sequence[Value],
    out_dims: OutDims,
) -> list[Value]:
    """Run ``fun`` (flat list in, flat sequence out) on a batch of
    ``axis_size`` examples; input ``i`` is batched along ``in_dims[i]``
    (negative axes count from the end; None: the same for every example).
    Output ``j`` comes back batched along ``out_dims[j]`` (an unbatched
    output is broadcast), or unbatched where ``out_dims[j]`` is None."""
    if len(in_dims) != len(vals):
        raise BatchingError(f"vmap: {len(vals)} inputs but {len(in_dims)} in_dims")
    trace = BatchTrace(current_trace(), axis_size)
    try:
        ins: list[Value] = []
        for i, (v, d) in enumerate(zip(vals, in_dims)):
            if d is None:
                ins.append(v)
                continue
            aval = aval_of(v)
            d = _normalize_in_dim(d, aval, i)
            if aval.shape[d] != axis_size:
                raise BatchingError(
                    f"vmap: input {i} of type {aval.str_short()} has size {aval.shape[d]} "
                    f"along its batch axis {d}, but the batch size is {axis_size}"
                )
            ins.append(BatchTracer(trace, v, d))
        with using_trace(trace):
            outs = fun(ins)
        dsts = out_dims() if callable(out_dims) else out_dims
        if len(dsts) != len(outs):
            raise BatchingError(f"vmap: {len(outs)} outputs but {len(dsts)} out_dims")
        results: list[Value] = []
        for j, (o, dst) in enumerate(zip(outs, dsts)):
            if type(o) is BatchTracer and o._trace is trace:
                val, src = o.val, o.batch_dim
            else:
                if isinstance(o, Tracer):
                    trace.check_foreign(o)
                val, src = o, None
            if dst is None:
                if src is not None:
                    raise BatchingError(
                        f"vmap: output {j} of type {unbatched_aval(aval_of(val), src).str_short()} "
                        "depends on the batch, but its out_axes is None"
                    )
                results.append(val)
                continue
            nd = aval_of(val).ndim + (1 if src is None else 0)
            if not -nd <= dst < nd:
                raise BatchingError(
                    f"vmap: out_axes={dst} is out of range for output {j}, which has "
                    f"{nd} axes once batched"
                )
            results.append(move_batch_axis(axis_size, src, dst % nd, val))
        return results
    finally:
        trace.alive = False


def vmap_jaxpr(jaxpr: Jaxpr, axis_size: int, in_dims: Sequence[BatchDim]) -> Jaxpr:
    """The batched form of ``jaxpr``: input ``i`` gains a batch axis of size
    ``axis_size`` at ``in_dims[i]`` (None: it stays unbatched); every output
    is batched along axis 0."""
    if len(in_dims) != len(jaxpr.in_binders):
        raise BatchingError(
            f"vmap_jaxpr: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(in_dims)} in_dims"
        )
    dims: list[BatchDim] = []
    avals: list[ShapedArray] = []
    for i, (a, d) in enumerate(zip(jaxpr.in_avals, in_dims)):
        if d is not None:
            if not -(a.ndim + 1) <= d <= a.ndim:
                raise BatchingError(
                    f"vmap_jaxpr: in_dims[{i}]={d} is out of range for an input of type "
                    f"{a.str_short()}"
                )
            d %= a.ndim + 1
        dims.append(d)
        avals.append(batched_aval(a, axis_size, d))
    n_out = len(jaxpr.outs)
    closed = trace_to_jaxpr_flat(
        lambda xs: vmap_flat(lambda ys: eval_jaxpr_typed(jaxpr, ys), axis_size, dims, xs, [0] * n_out),
        avals,
        "vmap_jaxpr",
    )
    if closed.consts:  # rules only make scalar constants (literals)
        raise AssertionError("vmap_jaxpr staged array constants")
    return closed.jaxpr


# -- rules ---------------------------------------------------------------------------
def _elementwise_unary(prim: Primitive) -> None:
    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        return [bind1(prim, vals, params)], [dims[0]]

    batch_rules.register(prim, rule)


for _p in (
    neg_p, sin_p, cos_p, exp_p, log_p, tanh_p, logistic_p, sqrt_p, integer_pow_p,
    convert_element_type_p,
):
    _elementwise_unary(_p)


def _elementwise_binary(prim: Primitive) -> None:
    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x, y), (dx, dy) = vals, dims
        if dx == dy:
            return [bind1(prim, (x, y), params)], [dx]
        if dx is None:
            assert dy is not None
            return [bind1(prim, (move_batch_axis(size, None, dy, x), y), params)], [dy]
        return [bind1(prim, (x, move_batch_axis(size, dy, dx, y)), params)], [dx]

    batch_rules.register(prim, rule)


for _p in (
    add_p, sub_p, mul_p, div_p, max_p, min_p, pow_p, greater_p, less_p, ge_p, le_p, eq_p, ne_p,
):
    _elementwise_binary(_p)


def _select_n_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    which, *cases = vals
    dw, *dcs = dims
    case_aval = unbatched_aval(aval_of(cases[0]), dcs[0])
    which_shape = unbatched_aval(aval_of(which), dw).shape
    d0 = dcs[0]
    if d0 is not None and all(d == d0 for d in dcs) and (
        (dw == d0 and which_shape == case_aval.shape) or (dw is None and which_shape == ())
    ):
        return [bind1(select_n_p, vals, params)], [d0]
    # otherwise: every case batched at axis 0, and a selector to fit them
    new_cases = [move_batch_axis(size, d, 0, c) for c, d in zip(cases, dcs)]
    if dw is None and which_shape == ():
        new_which = which
    elif dw is not None and which_shape == () and case_aval.shape:
        nd = case_aval.ndim
        new_which = bind1(
            broadcast_p,
            (which,),
            _broadcast_params((size,) + case_aval.shape, tuple(range(1, nd + 1))),
        )
    else:
        new_which = move_batch_axis(size, dw, 0, which)
    return [bind1(select_n_p, [new_which, *new_cases], params)], [0]


batch_rules.register(select_n_p, _select_n_batch)


def _broadcast_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    new_axes = set(axes)
    kept = [i for i in range(len(shape)) if i not in new_axes]
    # operand axis i lands on output axis kept[i]: the batch axis goes just
    # before the output axis that operand axis b (per example) lands on
    p = kept[b] if b < len(kept) else len(shape)
    out_shape = shape[:p] + (size,) + shape[p:]
    out_axes = tuple(a if a < p else a + 1 for a in axes)
    return [bind1(broadcast_p, (x,), _broadcast_params(out_shape, out_axes))], [p]


def _reshape_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    new_sizes = get_ints("reshape", params, "new_sizes")
    x0 = move_batch_axis(size, b, 0, x)
    return [bind1(reshape_p, (x0,), _params1("new_sizes", (size,) + new_sizes))], [0]


def _transpose_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    perm = get_ints("transpose", params, "perm")
    new_perm = (b,) + tuple(p + (p >= b) for p in perm)
    return [bind1(transpose_p, (x,), _params1("perm", new_perm))], [0]


def _reduction_batch(prim: Primitive) -> BatchRule:
    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x,), (b,) = vals, dims
        assert b is not None
        axis = get_ints(prim.name, params, "axis")
        new_axis = tuple(a + (a >= b) for a in axis)
        out_dim = b - sum(1 for a in axis if a < b)
        return [bind1(prim, (x,), _params1("axis", new_axis))], [out_dim]

    return rule


batch_rules.register(broadcast_p, _broadcast_batch)
batch_rules.register(reshape_p, _reshape_batch)
batch_rules.register(transpose_p, _transpose_batch)
batch_rules.register(reduce_sum_p, _reduction_batch(reduce_sum_p))
batch_rules.register(reduce_max_p, _reduction_batch(reduce_max_p))


def _shift(axes: tuple[int, ...], b: int) -> tuple[int, ...]:
    """Per-example axes as axes of a value batched along ``b``."""
    return tuple(a + (a >= b) for a in axes)


def _dot_general_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    """Two batched operands: the batch axis becomes a dot_general batch
    dimension; one batched operand: it is a free dimension of that operand."""
    (lhs, rhs), (bl, br) = vals, dims
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    if bl is not None and br is not None:
        dn = ((_shift(lc, bl), _shift(rc, br)), ((bl,) + _shift(lb, bl), (br,) + _shift(rb, br)))
        return [bind1(dot_general_p, (lhs, rhs), _dot_params(dn))], [0]
    if bl is not None:
        lc2, lb2 = _shift(lc, bl), _shift(lb, bl)
        used = set(lc2) | set(lb2)
        free = [i for i in range(aval_of(lhs).ndim) if i not in used]
        dn = ((lc2, rc), (lb2, rb))
        return [bind1(dot_general_p, (lhs, rhs), _dot_params(dn))], [
            len(lb) + free.index(bl)
        ]
    assert br is not None
    rc2, rb2 = _shift(rc, br), _shift(rb, br)
    used = set(rc2) | set(rb2)
    free = [i for i in range(aval_of(rhs).ndim) if i not in used]
    n_lhs_free = aval_of(lhs).ndim - len(lc) - len(lb)
    dn = ((lc, rc2), (lb, rb2))
    return [bind1(dot_general_p, (lhs, rhs), _dot_params(dn))], [
        len(lb) + n_lhs_free + free.index(br)
    ]


batch_rules.register(dot_general_p, _dot_general_batch)
