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

from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np

from ..core.avals import ShapedArray
from ..core.axes import binding, names_in_params, vmap_frame
from ..core.errors import BatchingError, ConcretizationError
from ..core.ir import Jaxpr, NDArray, Params, Primitive
from ..core.rules import BatchDim, BatchRule, batched_aval, require, unbatched_aval
from ..core.trace import Trace, Tracer, Value, aval_of, current_trace, using_trace
from ..primitives.structural import move_batch_axis
from ..core.eval import eval_jaxpr
from .staging import trace_to_jaxpr_flat

__all__ = [
    "BatchDim", "BatchRule", "BatchTrace", "BatchTracer", "OutDims",
    "batched_aval", "move_batch_axis", "unbatched_aval", "vmap_flat", "vmap_jaxpr",
]

OutDims: TypeAlias = Sequence[BatchDim] | Callable[[], Sequence[BatchDim]]
"""Where each output's batch axis goes (``None``: it must be unbatched); a
thunk when it is known only once the function has run."""



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

    __slots__ = ("axis_size", "axis_name")

    def __init__(self, parent: Trace | None, axis_size: int, axis_name: str | None = None) -> None:
        super().__init__(parent)
        self.axis_size = axis_size
        #: ``vmap(axis_name=...)``: collectives naming it reduce over this batch
        self.axis_name = axis_name

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
        # a collective over this vmap's named axis is this trace's to apply,
        # batched operands or not (``axis_index`` has none)
        named = self.axis_name is not None and self.axis_name in names_in_params(params)
        if not batched and not named:  # the same for every example: the interpreter below does it
            return parent.process_primitive(prim, vals, params)
        rule = require(prim, prim.rules.batch, "batching")
        with using_trace(parent), vmap_frame(self.axis_name if named else None):
            outs, out_dims = rule(self.axis_size, vals, dims, params)
        return [
            o if d is None else BatchTracer(self, o, d) for o, d in zip(outs, out_dims)
        ]


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
    axis_name: str | None = None,
) -> list[Value]:
    """Run ``fun`` (flat list in, flat sequence out) on a batch of
    ``axis_size`` examples; input ``i`` is batched along ``in_dims[i]``
    (negative axes count from the end; None: the same for every example).
    Output ``j`` comes back batched along ``out_dims[j]`` (an unbatched
    output is broadcast), or unbatched where ``out_dims[j]`` is None. With
    ``axis_name``, collectives in ``fun`` naming it act over the batch."""
    if len(in_dims) != len(vals):
        raise BatchingError(f"vmap: {len(vals)} inputs but {len(in_dims)} in_dims")
    trace = BatchTrace(current_trace(), axis_size, axis_name)
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
        with using_trace(trace), binding(((axis_name, axis_size),) if axis_name is not None else ()):
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
        lambda xs: vmap_flat(lambda ys: eval_jaxpr(jaxpr, ys), axis_size, dims, xs, [0] * n_out),
        avals,
        "vmap_jaxpr",
    )
    if closed.consts:  # rules only make scalar constants (literals)
        raise AssertionError("vmap_jaxpr staged array constants")
    return closed.jaxpr
