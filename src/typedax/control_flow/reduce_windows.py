"""The general ``reduce_window`` primitive: ``reduce_window(*operands,
*init_values; jaxpr, window)`` folds each window with a body jaxpr over
scalars (``lax.reduce_window`` with a computation other than ``add`` /
``max`` / ``min`` and their identity, which are the first-order primitives
of ``primitives/windowed.py``). A higher-order primitive, as ``cond`` and
``scan``: its JVP is the fold of the body's JVP (``jvp_jaxpr``) over
(value, tangent) pairs, so it sits in the control-flow layer, above the
interpreters.

Evaluation, windows and lowering are ``primitives/windowed.py``'s
(``Window``, ``hlo_reduce_window``): the operand is dilated and padded, and
each window folds ``acc = body(acc, x)`` from the init value through the
operand's elements it covers, in row-major window order; NumPy applies the
body to every window at once (each equation through its batching rule).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core.array import Array
from ..core.avals import ShapedArray
from ..core.dtypes import INEXACT
from ..core.errors import BatchingError, PrimitiveTypeError
from ..core.ir import Atom, Eqn, Jaxpr, Lit, NDArray, Params, Primitive, Var
from ..core.rules import BatchDim, Family, Rules, Tangent, Zero, require
from ..core.trace import EVAL_TRACE, Value, aval_of, bind, using_trace
from ..core.typecheck import typecheck_jaxpr
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.jvp import jvp_jaxpr
from ..primitives._params import get_jaxpr, params_of
from ..primitives.structural import instantiate_zeros, move_batch_axis, types_str, zero_like
from ..primitives.windowed import Window, _windows, hlo_reduce_window


# -- reduce_window(*operands, *init_values; jaxpr, window) ------------------------------
_RW = "reduce_window"


def _eval_lifted(jaxpr: Jaxpr, args: Sequence[NDArray]) -> list[NDArray]:
    """``jaxpr`` (on scalars) applied to every element of ``args`` (vectors of
    one length): each equation through its batching rule, as ``vmap``
    would, without tracing."""
    size = args[0].shape[0]
    env: dict[Var, tuple[Value, BatchDim]] = {v: (a, 0) for v, a in zip(jaxpr.in_binders, args)}

    def read(a: Atom) -> tuple[Value, BatchDim]:
        if isinstance(a, Lit):
            return np.asarray(a.val, a.aval.dtype), None
        return env[a]

    with using_trace(EVAL_TRACE):
        for eqn in jaxpr.eqns:
            read_in = [read(a) for a in eqn.inputs]
            vals, dims = [v for v, _ in read_in], [d for _, d in read_in]
            if all(d is None for d in dims):
                outs: Sequence[Value] = bind(eqn.primitive, vals, eqn.params)
                out_dims: Sequence[BatchDim] = [None] * len(outs)
            else:
                rule = require(eqn.primitive, eqn.primitive.rules.batch, "batching")
                outs, out_dims = rule(size, vals, dims, eqn.params)
            env.update(zip(eqn.out_binders, zip(outs, out_dims)))
        results = [move_batch_axis(size, d, 0, v) for v, d in (read(a) for a in jaxpr.outs)]
        return [np.asarray(r, dtype=o.aval.dtype) for r, o in zip(results, jaxpr.outs)]


def _rw_split(name: str, n_args: int) -> int:
    if n_args == 0 or n_args % 2:
        raise PrimitiveTypeError(f"{name} takes operands and as many init values, got {n_args} arguments")
    return n_args // 2


def _rw_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    n = _rw_split(_RW, len(args))
    jaxpr, w = get_jaxpr(_RW, params, "jaxpr"), Window.read(_RW, params)
    operands, inits = args[:n], args[n:]
    if operands[0].ndim == 0:  # XLA gives a scalar operand back as it is
        return [np.array(x) for x in operands]
    wins = [_windows(x, i.item(), w) for x, i in zip(operands, inits)]
    out_shape = wins[0].shape[:-1]
    size = math.prod(out_shape)
    acc = [np.full(size, i, x.dtype) for x, i in zip(operands, inits)]
    # XLA folds only the operand's elements into a window (padding and holes
    # are skipped: the same for an identity init value, not for another)
    real = _windows(np.ones(operands[0].shape, np.bool_), False, w).reshape(size, -1)
    if size:
        for k in range(wins[0].shape[-1]):
            new = _eval_lifted(jaxpr, acc + [v[..., k].reshape(size) for v in wins])
            acc = [np.where(real[:, k], n, a) for n, a in zip(new, acc)]
    return [a.reshape(out_shape) for a in acc]


def _rw_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    n = _rw_split(_RW, len(avals))
    jaxpr, w = get_jaxpr(_RW, params, "jaxpr"), Window.read(_RW, params)
    operands, inits = avals[:n], avals[n:]
    if any(x.shape != operands[0].shape for x in operands):
        raise PrimitiveTypeError(f"{_RW}: operands must share one shape, got ({types_str(operands)})")
    if any(i.shape != () or i.dtype != x.dtype for x, i in zip(operands, inits)):
        raise PrimitiveTypeError(
            f"{_RW}: init values must be scalars of their operands' dtypes, got operands "
            f"({types_str(operands)}) and init values ({types_str(inits)})"
        )
    scalars = [ShapedArray((), x.dtype) for x in operands]
    t = typecheck_jaxpr(jaxpr)
    if list(t.in_types) != scalars * 2 or list(t.out_types) != scalars:
        raise PrimitiveTypeError(
            f"{_RW}: the computation must take ({types_str(scalars * 2)}) and give ({types_str(scalars)}), "
            f"got ({types_str(t.in_types)}) -> ({types_str(t.out_types)})"
        )
    shape = w.out_shape(_RW, operands[0])
    return [ShapedArray(shape, x.dtype) for x in operands]


def _interleave_binders(jaxpr: Jaxpr, n: int) -> Jaxpr:
    """``jvp_jaxpr``'s binders (acc, x, acc_dot, x_dot) reordered to
    reduce_window's (acc, acc_dot, x, x_dot): the pairs fold together."""
    b = jaxpr.in_binders
    order = [*b[:n], *b[2 * n:3 * n], *b[n:2 * n], *b[3 * n:]]
    return Jaxpr(tuple(order), jaxpr.eqns, jaxpr.outs)


def _rw_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    """The fold over (value, tangent) pairs with the body's JVP as the
    body; an init value's tangent starts the tangent fold."""
    n = _rw_split(_RW, len(primals))
    outs = bind(reduce_window_p, primals, params)
    if all(isinstance(t, Zero) for t in tangents) or all(aval_of(x).dtype not in INEXACT for x in primals[:n]):
        return list(outs), [zero_like(o) for o in outs]
    body = _interleave_binders(jvp_jaxpr(get_jaxpr(_RW, params, "jaxpr")), n)
    ts = [instantiate_zeros(t) for t in tangents]
    new = params_of(*Window.read(_RW, params).items(), ("jaxpr", body))
    both = bind(reduce_window_p, [*primals[:n], *ts[:n], *primals[n:], *ts[n:]], new)
    tangent_out: list[Tangent] = [
        t if aval_of(t).dtype in INEXACT else zero_like(t) for t in both[n:]
    ]
    return list(both[:n]), tangent_out


def _rw_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    n = _rw_split(_RW, len(vals))
    if any(d is not None for d in dims[n:]):
        raise BatchingError(f"{_RW}: batching over init values is not supported (nor in JAX); batch the operands only")
    operands = [move_batch_axis(size, d, 0, v) for v, d in zip(vals[:n], dims[:n])]
    w = Window.read(_RW, params).with_unit_dim(0)
    new = params_of(*w.items(), ("jaxpr", get_jaxpr(_RW, params, "jaxpr")))
    return list(bind(reduce_window_p, [*operands, *vals[n:]], new)), [0] * n


def _rw_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    n = len(args) // 2
    jaxpr, w = get_jaxpr(_RW, eqn.params, "jaxpr"), Window.read(_RW, eqn.params)
    outs = [v.aval for v in eqn.out_binders]
    return hlo_reduce_window(outs, args[:n], args[n:], w, lambda b: lower_jaxpr_body(ctx, jaxpr, b))


reduce_window_p = Primitive(
    _RW, _rw_impl, _rw_abstract, Rules(jvp=_rw_jvp, batch=_rw_batch, lower=_rw_lower),
)


FAMILY = Family("reduce_window", (reduce_window_p,))


def bind_reduce_window(operands: Sequence[Value], inits: Sequence[Value], body: Jaxpr, w: Window) -> list[Array]:
    """The general ``reduce_window`` primitive on a traced body."""
    return bind(reduce_window_p, [*operands, *inits], params_of(*w.items(), ("jaxpr", body)))
