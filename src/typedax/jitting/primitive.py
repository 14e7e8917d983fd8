"""``jit_p``, the higher-order primitive ``jit`` stages to, and every rule
for it.

Its ``jaxpr`` param is the staged function (leading inputs: its constants,
passed as operands) and its ``name`` param the function's name. Evaluation
compiles the jaxpr (cached by structure, ``typedax.lowering.compile_cache``)
and runs it; device values stay on the device (``eval_values``). The
transformation rules transform the nested jaxpr with the pure ``*_jaxpr``
function of that transformation and bind ``jit_p`` again, so the
transformed computation stays one compiled call:

* JVP: ``jvp`` of the jaxpr on the nonzero tangents only (symbolic zeros stay
  symbolic on both sides).
* batching: ``vmap_jaxpr``; every output batched along axis 0.
* partial evaluation: ``partial_eval_jaxpr`` splits the call into a known
  call (run now, compiled) and an unknown one (staged), joined by residuals.
* transposition: ``transpose_jaxpr`` with respect to the undefined operands.
* DCE: ``dce_jaxpr`` prunes the body and the unused operands.
* lowering: a nested ``func.func`` and a call.

The transformed jaxprs are cached by (jaxpr, what is transformed), so a
jitted function differentiated in a loop traces each transform once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.errors import DebugNanError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Atom, Eqn, Jaxpr, NDArray, Params, Primitive, Var
from ..core.rules import BatchDim, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.config import DEBUG_CHECKS, debug_infs_on, debug_nans_on
from ..core.dtypes import is_float
from ..core.trace import Tracer, Value, as_value, aval_of, bind
from ..hlo import HloValue, LoweringContext, call_jaxpr
from ..interpreters.batching import vmap_jaxpr
from ..interpreters.dce import dce_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.partial_eval import partial_eval_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import transpose_jaxpr
from ..core.array import ArrayImpl, aval_key
from ..lowering import compile_cache
from ..lowering.runtime import Executable, to_buffer
from ..primitives._params import _get, get_jaxpr


__all__ = ["JitParams", "jit_p"]


class JitParams(NamedTuple):
    """``jit``'s params, typed: ``JitParams.of(eqn.params)`` reads and checks
    them; ``to_params()`` makes the map an equation holds."""

    jaxpr: Jaxpr
    name: str

    @staticmethod
    def of(params: Params) -> JitParams:
        name = _get("jit", params, "name")
        if not isinstance(name, str):
            raise PrimitiveTypeError(f"jit: param 'name' must be a string, got {name!r}")
        return JitParams(get_jaxpr("jit", params, "jaxpr"), name)

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _jit_abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    jaxpr = JitParams.of(params).jaxpr
    expected = jaxpr.in_avals
    if len(avals) != len(expected):
        raise PrimitiveTypeError(
            f"jit of '{JitParams.of(params).name}' takes {len(expected)} operands, got {len(avals)}"
        )
    for i, (got, want) in enumerate(zip(avals, expected)):
        if got != want:
            raise PrimitiveTypeError(
                f"jit of '{JitParams.of(params).name}': operand {i} has type {got.str_short()}, "
                f"its jaxpr expects {want.str_short()}"
            )
    return list(jaxpr.out_avals)


def _executable(params: Params) -> Executable:
    return compile_cache.get(JitParams.of(params).jaxpr, JitParams.of(params).name)


def _run(exe: Executable, args: Sequence[Value], name: str) -> list[ArrayImpl]:
    bufs = [
        to_buffer(x, aval, f"jit of '{name}', operand {i}")
        for i, (x, aval) in enumerate(zip(args, exe.in_avals))
    ]
    return exe.run(bufs)


def _debug_rerun(params: JitParams, args: Sequence[Value], outs: Sequence[Value]) -> None:
    """``debug_nans``/``debug_infs``: when the compiled results hold a NaN (an
    infinity), evaluate the jaxpr again equation by equation, whose eval
    trace raises naming the first primitive that made one (JAX's
    "de-optimized" re-run); if none does (XLA computed differently), say so."""
    floats = [np.asarray(o) for o in outs if is_float(aval_of(o).dtype)]
    kind = ("nan" if debug_nans_on() and any(np.isnan(f).any() for f in floats)
            else "inf" if debug_infs_on() and any(np.isinf(f).any() for f in floats) else None)
    if kind is not None:
        eval_jaxpr(params.jaxpr, list(args))
        raise DebugNanError(
            f"invalid value ({kind}) encountered in jit({params.name}); evaluated again equation "
            "by equation, no primitive made it (XLA's compiled arithmetic differs from the eager one here)"
        )


def _jit_value_impl(args: Sequence[Value], params: Params) -> list[Value]:
    """Evaluation: compile (cached by structure) and run; results stay on device."""
    _jit_abstract_eval([aval_of(x) for x in args], params)
    jit_params = JitParams.of(params)
    outs = _run(_executable(params), args, jit_params.name)
    if DEBUG_CHECKS[0]:
        _debug_rerun(jit_params, args, outs)
    # the executable may be shared with a jaxpr differing only in weak flags
    # (the compile cache ignores them): the results take this jaxpr's
    for o, a in zip(outs, jit_params.jaxpr.out_avals):
        if o.aval.weak_type is not a.weak_type:
            o.aval, o._tdx_key = a, aval_key(a)
    return list(outs)


def _jit_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    """NumPy evaluation: the same, fetched back to the host."""
    return [o.to_numpy() for o in _run(_executable(params), args, JitParams.of(params).name)]


def _jit_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    jaxpr = JitParams.of(eqn.params).jaxpr
    return call_jaxpr(ctx, jaxpr, args, JitParams.of(eqn.params).name)


# -- the transformation rules ----------------------------------------------------
def _jaxpr(params: Params) -> Jaxpr:
    return JitParams.of(params).jaxpr


def weak_flags(jaxpr: Jaxpr) -> tuple[bool, ...]:
    """The weak flags of a jaxpr's inputs and outputs: part of every cache key
    below, since jaxprs compare without them (``ShapedArray.weak_type``) and a
    transformed jaxpr's output types carry them."""
    return tuple([v.aval.weak_type for v in jaxpr.in_binders] + [a.aval.weak_type for a in jaxpr.outs])


# -- JVP -------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _jvp_jaxpr_nonzero(
    jaxpr: Jaxpr, nonzero: tuple[bool, ...], weak: tuple[bool, ...]
) -> tuple[Jaxpr, tuple[bool, ...], tuple[Value, ...]]:
    """The JVP of ``jaxpr`` taking (the constants its rules staged, consts,
    primals, nonzero tangents) and returning (primal outs, nonzero tangent
    outs); which outputs' tangents are nonzero; the constants (arrays a JVP
    rule builds, such as a triangular mask: concrete, so they may be
    remembered with the jaxpr)."""
    avals = jaxpr.in_avals
    n = len(avals)
    out_nonzero: list[bool] = []

    def run(args: list[Value]) -> list[Value]:
        primals = args[:n]
        it = iter(args[n:])
        tangents: list[Tangent] = [next(it) if nz else Zero(a) for a, nz in zip(avals, nonzero)]
        p_out, t_out = jvp_flat(lambda xs: eval_jaxpr(jaxpr, xs), primals, tangents)
        out_nonzero[:] = [not isinstance(t, Zero) for t in t_out]
        return p_out + [t for t in t_out if not isinstance(t, Zero)]

    tangent_avals = [a for a, nz in zip(avals, nonzero) if nz]
    closed = trace_to_jaxpr_flat(run, [*avals, *tangent_avals], "jvp")
    return closed.jaxpr, tuple(out_nonzero), tuple(as_value(c, "constants") for c in closed.consts)


def _jit_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    jaxpr = _jaxpr(params)
    nonzero = tuple(not isinstance(t, Zero) for t in tangents)
    new_jaxpr, out_nonzero, consts = _jvp_jaxpr_nonzero(jaxpr, nonzero, weak_flags(jaxpr))
    if any(isinstance(c, Tracer) for c in consts):
        # a custom rule traced here closed over a tracer of a transformation
        # around this one: that result must not be remembered (rare)
        _jvp_jaxpr_nonzero.cache_clear()
    nz_tangents = [t for t in tangents if not isinstance(t, Zero)]
    outs = bind(jit_p, [*consts, *primals, *nz_tangents], JitParams(new_jaxpr, f"jvp({JitParams.of(params).name})").to_params())
    n_out = len(jaxpr.outs)
    p_out = outs[:n_out]
    it = iter(outs[n_out:])
    t_out: list[Tangent] = [
        next(it) if nz else Zero(a) for a, nz in zip(jaxpr.out_avals, out_nonzero)
    ]
    return [*p_out], t_out


# -- batching ----------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _vmap_jaxpr_cached(jaxpr: Jaxpr, axis_size: int, dims: tuple[BatchDim, ...], weak: tuple[bool, ...]) -> Jaxpr:
    return vmap_jaxpr(jaxpr, axis_size, dims)


def _jit_batch(
    axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    jaxpr = _jaxpr(params)
    new_jaxpr = _vmap_jaxpr_cached(jaxpr, axis_size, tuple(dims), weak_flags(jaxpr))
    outs = bind(jit_p, vals, JitParams(new_jaxpr, f"vmap({JitParams.of(params).name})").to_params())
    out_dims: list[BatchDim] = [0] * len(outs)
    return [*outs], out_dims


# -- partial evaluation -------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _partial_eval_cached(
    jaxpr: Jaxpr, unknowns: tuple[bool, ...], weak: tuple[bool, ...]
) -> tuple[Jaxpr, Jaxpr, list[bool], int]:
    return partial_eval_jaxpr(jaxpr, unknowns)


def _jit_partial_eval(
    unknowns: Sequence[bool], eqn: Eqn
) -> tuple[Eqn | None, Eqn | None, list[bool], list[Var]]:
    """Split one jit call into a known call (known operands -> known outputs
    and residuals) and an unknown call (residuals, unknown operands ->
    unknown outputs)."""
    jaxpr = _jaxpr(eqn.params)
    name = JitParams.of(eqn.params).name
    known, unknown, out_unknowns, n_res = _partial_eval_cached(jaxpr, tuple(unknowns), weak_flags(jaxpr))
    n_known_out = len(known.outs) - n_res
    residuals = [Var(a.aval) for a in known.outs[n_known_out:]]
    known_ins: tuple[Atom, ...] = tuple(a for a, u in zip(eqn.inputs, unknowns) if not u)
    unknown_ins: tuple[Atom, ...] = tuple(a for a, u in zip(eqn.inputs, unknowns) if u)
    known_outs = tuple(v for v, u in zip(eqn.out_binders, out_unknowns) if not u)
    unknown_outs = tuple(v for v, u in zip(eqn.out_binders, out_unknowns) if u)
    eqn_known = (
        Eqn(jit_p, known_ins, JitParams(known, name).to_params(), known_outs + tuple(residuals))
        if known.outs else None
    )
    eqn_unknown = (
        Eqn(jit_p, tuple(residuals) + unknown_ins, JitParams(unknown, name).to_params(), unknown_outs)
        if unknown.outs else None
    )
    return eqn_known, eqn_unknown, list(out_unknowns), residuals


# -- transposition ------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _transpose_cached(jaxpr: Jaxpr, linear: tuple[bool, ...], weak: tuple[bool, ...]) -> Jaxpr:
    return transpose_jaxpr(jaxpr, linear)


def _jit_transpose(
    cts: Sequence[Value], primals: Sequence[Primal], params: Params
) -> list[Value | None]:
    linear = tuple(isinstance(p, UndefPrimal) for p in primals)
    jaxpr = _jaxpr(params)
    new_jaxpr = _transpose_cached(jaxpr, linear, weak_flags(jaxpr))
    nonlinear = [p for p in primals if not isinstance(p, UndefPrimal)]
    outs = iter(bind(jit_p, [*nonlinear, *cts], JitParams(new_jaxpr, f"transpose({JitParams.of(params).name})").to_params()))
    return [next(outs) if lin else None for lin in linear]


# -- dead-code elimination -----------------------------------------------------------
def _jit_dce(used_outputs: Sequence[bool], eqn: Eqn) -> Eqn | None:
    new_jaxpr, used_inputs = dce_jaxpr(_jaxpr(eqn.params), used_outputs)
    if not new_jaxpr.outs:
        return None
    return Eqn(
        jit_p,
        tuple(a for a, u in zip(eqn.inputs, used_inputs) if u),
        JitParams(new_jaxpr, JitParams.of(eqn.params).name).to_params(),
        tuple(v for v, u in zip(eqn.out_binders, used_outputs) if u),
    )


jit_p: Primitive = Primitive(
    "jit", _jit_impl, _jit_abstract_eval,
    Rules(
        jvp=_jit_jvp, transpose=_jit_transpose, batch=_jit_batch, lower=_jit_lowering,
        partial_eval=_jit_partial_eval, dce=_jit_dce, eval_values=_jit_value_impl,
    ),
)
