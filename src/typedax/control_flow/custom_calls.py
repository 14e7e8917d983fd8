"""The primitives under ``custom_jvp`` and ``custom_vjp``, with every rule.

``custom_jvp_call`` takes the constants its functions close over, then the
function's (flat) arguments. Its params:

* ``call_jaxpr : (consts, xs) -> ys``, the primal function;
* ``jvp_jaxpr : (consts, xs, xs_dot) -> (ys, ys_dot)``, the user's JVP rule,
  traced with a tangent for every argument (a symbolic zero tangent is
  passed as zeros, as JAX does unless ``symbolic_zeros``);
* ``num_consts`` and ``name`` (the function's, for messages).

Evaluation, ``jit`` and lowering run ``call_jaxpr``; the JVP rule evaluates
``jvp_jaxpr`` under the interpreter below, so ``linearize`` stages its
tangent half and ``grad`` transposes it (the rule's tangent output must be
linear in the input tangents, as JAX requires). Batching batches both
jaxprs; DCE prunes both; partial evaluation keeps the equation whole.

``custom_vjp_call`` takes (consts, xs) too; its params are ``call_jaxpr``,
``fwd_jaxpr : (consts, xs) -> (ys, residuals)`` and
``bwd_jaxpr : (consts, residuals, ys_bar) -> xs_bar`` (DCE and partial
evaluation keep it whole). Its JVP rule runs
``fwd_jaxpr`` and applies ``custom_lin`` to the residuals and the input
tangents: a primitive linear in those tangents whose transpose evaluates
``bwd_jaxpr`` (so ``grad``/``vjp`` use the user's backward pass), and whose
evaluation, JVP and lowering raise JAX's "can't apply forward-mode autodiff
(jvp) to a custom_vjp function" -- only reverse mode reaches ``bwd``.
(A call that is not staged binds ``custom_lin`` itself: under ``grad``,
``custom_derivatives.py`` runs ``fwd`` on the primals and traces ``bwd``.)

Differentiating with respect to a value the function closes over (a
constant with a nonzero tangent) is refused, as JAX refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import is_inexact
from ..core.errors import CustomDerivativeError, NonLinearError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Eqn, Jaxpr, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero, batched_aval
from ..core.trace import Value, bind
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.batching import vmap_flat
from ..interpreters.dce import dce_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import backward_pass
from ..primitives._params import _get, get_int, get_jaxpr
from ..primitives.structural import instantiate_zeros, reduce_sum
from .common import (
    batch_as,
    batch_jaxpr,
    check_jaxpr_in_types,
    dims0,
    eval_np,
    forward_deps,
    to_front,
    types_str,
)

__all__ = [
    "CustomJvpParams", "CustomLinParams", "CustomVjpParams", "FAMILY", "JVP_OF_CUSTOM_VJP",
    "custom_jvp_call_p", "custom_lin_p", "custom_vjp_call_p",
]

JVP_OF_CUSTOM_VJP = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def _get_name(prim: str, params: Params) -> str:
    name = _get(prim, params, "name")
    if not isinstance(name, str):
        raise PrimitiveTypeError(f"{prim}: param 'name' must be a string, got {name!r}")
    return name


def _same_types(a: Sequence[ShapedArray], b: Sequence[ShapedArray]) -> bool:
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


def _strong(avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    return [a.weakened(False) for a in avals]


# -- custom_jvp_call -----------------------------------------------------------------
class CustomJvpParams(NamedTuple):
    """``custom_jvp_call``'s params, typed (``CustomJvpParams.of(eqn.params)``)."""

    call_jaxpr: Jaxpr
    jvp_jaxpr: Jaxpr
    num_consts: int
    name: str

    @staticmethod
    def of(params: Params) -> CustomJvpParams:
        p = "custom_jvp_call"
        return CustomJvpParams(
            get_jaxpr(p, params, "call_jaxpr"), get_jaxpr(p, params, "jvp_jaxpr"),
            get_int(p, params, "num_consts"), _get_name(p, params),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _cjvp_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = CustomJvpParams.of(params)
    if not 0 <= p.num_consts <= len(avals):
        raise PrimitiveTypeError(
            f"custom_jvp_call of '{p.name}': num_consts={p.num_consts} for {len(avals)} operands"
        )
    outs = check_jaxpr_in_types("custom_jvp_call", "call_jaxpr", p.call_jaxpr, avals)
    args = avals[p.num_consts:]
    j_outs = check_jaxpr_in_types("custom_jvp_call", "jvp_jaxpr", p.jvp_jaxpr, [*avals, *args])
    if not _same_types(j_outs, [*outs, *outs]):
        raise PrimitiveTypeError(
            f"custom_jvp_call of '{p.name}': jvp_jaxpr returns {types_str(j_outs)}, but the "
            f"primal outputs {types_str(outs)} and their tangents, {types_str([*outs, *outs])}, "
            "were expected"
        )
    return list(outs)  # call_jaxpr's types, weak flags included (core/weak.py: OWN_RULE)


def _cjvp_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return eval_np(CustomJvpParams.of(params).call_jaxpr, args)


def _cjvp_values(args: Sequence[Value], params: Params) -> list[Value]:
    return eval_jaxpr(CustomJvpParams.of(params).call_jaxpr, args)


def _closure_error(kind: str, name: str) -> CustomDerivativeError:
    return CustomDerivativeError(
        f"Detected differentiation of the {kind} function '{name}' with respect to a "
        f"value it closes over. That isn't supported: the custom rule only says how "
        f"to differentiate '{name}' with respect to its explicit arguments; pass the "
        "value as an argument instead"
    )


def _check_const_tangents(kind: str, name: str, tangents: Sequence[Tangent]) -> None:
    if any(not isinstance(t, Zero) for t in tangents):
        raise _closure_error(kind, name)


def _cjvp_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    p = CustomJvpParams.of(params)
    nc = p.num_consts
    _check_const_tangents("custom_jvp", p.name, tangents[:nc])
    out_avals = p.call_jaxpr.out_avals
    arg_tangents = tangents[nc:]
    if all(isinstance(t, Zero) for t in arg_tangents):
        return list(bind(custom_jvp_call_p, primals, params)), [Zero(a) for a in _strong(out_avals)]
    dots = [instantiate_zeros(t) for t in arg_tangents]
    outs = eval_jaxpr(p.jvp_jaxpr, [*primals, *dots])
    n = len(out_avals)
    t_out: list[Tangent] = [
        t if is_inexact(a.dtype) else Zero(a.weakened(False))
        for t, a in zip(outs[n:], out_avals)
    ]
    return outs[:n], t_out


def _cjvp_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    p = CustomJvpParams.of(params)
    nc = p.num_consts
    vals = to_front(size, vals, dims)
    in_b = [d is not None for d in dims]
    arg_b = in_b[nc:]
    n = len(p.call_jaxpr.outs)
    call_b = forward_deps(p.call_jaxpr, in_b)
    jvp_b = forward_deps(p.jvp_jaxpr, [*in_b, *arg_b])
    out_b = [a or b or c for a, b, c in zip(call_b, jvp_b[:n], jvp_b[n:])]
    call = batch_jaxpr(p.call_jaxpr, size, dims0(in_b), out_b)
    jvp = batch_jaxpr(p.jvp_jaxpr, size, dims0([*in_b, *arg_b]), [*out_b, *out_b])
    outs = bind(custom_jvp_call_p, vals, CustomJvpParams(call, jvp, nc, p.name).to_params())
    return list(outs), dims0(out_b)


def _call_transpose(
    jaxpr: Jaxpr, cts: Sequence[Value], primals: Sequence[Primal]
) -> list[Value | None]:
    """Transpose a use of the primal function that is linear in the
    undefined operands (a custom function applied to tangents inside a
    linear computation)."""
    got = iter(backward_pass(jaxpr, primals, cts, instantiate=False))
    return [next(got) if isinstance(x, UndefPrimal) else None for x in primals]


def _cjvp_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    return _call_transpose(CustomJvpParams.of(params).call_jaxpr, cts, primals)


def _cjvp_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    """Prune the unused outputs from both jaxprs, and the operands neither
    reads any more (an argument stays while its primal or tangent is read)."""
    p = CustomJvpParams.of(eqn.params)
    nc = p.num_consts
    n_args = len(eqn.inputs) - nc
    u_call = dce_jaxpr(p.call_jaxpr, used)[1]
    u_jvp = dce_jaxpr(p.jvp_jaxpr, [*used, *used])[1]
    u_consts = [u_call[i] or u_jvp[i] for i in range(nc)]
    u_args = [u_call[nc + i] or u_jvp[nc + i] or u_jvp[nc + n_args + i] for i in range(n_args)]
    u_in = [*u_consts, *u_args]
    call = dce_jaxpr(p.call_jaxpr, used, instantiate=u_in)[0]
    jvp = dce_jaxpr(p.jvp_jaxpr, [*used, *used], instantiate=[*u_in, *u_args])[0]
    params = CustomJvpParams(call, jvp, sum(u_consts), p.name).to_params()
    ins = tuple(a for a, u in zip(eqn.inputs, u_in) if u)
    return Eqn(custom_jvp_call_p, ins, params, tuple(v for v, u in zip(eqn.out_binders, used) if u))


def _cjvp_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    return lower_jaxpr_body(ctx, CustomJvpParams.of(eqn.params).call_jaxpr, args)


custom_jvp_call_p = Primitive(
    "custom_jvp_call", _cjvp_impl, _cjvp_abstract,
    Rules(
        jvp=_cjvp_jvp, transpose=_cjvp_transpose, batch=_cjvp_batch, lower=_cjvp_lowering,
        dce=_cjvp_dce, eval_values=_cjvp_values,
    ),
)


# -- custom_vjp_call -----------------------------------------------------------------
class CustomVjpParams(NamedTuple):
    """``custom_vjp_call``'s params, typed (``CustomVjpParams.of(eqn.params)``)."""

    call_jaxpr: Jaxpr
    fwd_jaxpr: Jaxpr
    bwd_jaxpr: Jaxpr
    num_consts: int
    name: str

    @staticmethod
    def of(params: Params) -> CustomVjpParams:
        p = "custom_vjp_call"
        return CustomVjpParams(
            get_jaxpr(p, params, "call_jaxpr"), get_jaxpr(p, params, "fwd_jaxpr"),
            get_jaxpr(p, params, "bwd_jaxpr"), get_int(p, params, "num_consts"),
            _get_name(p, params),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())

    @property
    def num_res(self) -> int:
        return len(self.fwd_jaxpr.outs) - len(self.call_jaxpr.outs)


def _cvjp_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = CustomVjpParams.of(params)
    prim = "custom_vjp_call"
    nc = p.num_consts
    if not 0 <= nc <= len(avals):
        raise PrimitiveTypeError(f"{prim} of '{p.name}': num_consts={nc} for {len(avals)} operands")
    outs = check_jaxpr_in_types(prim, "call_jaxpr", p.call_jaxpr, avals)
    f_outs = check_jaxpr_in_types(prim, "fwd_jaxpr", p.fwd_jaxpr, avals)
    n = len(outs)
    if not _same_types(f_outs[:n], outs):
        raise PrimitiveTypeError(
            f"{prim} of '{p.name}': fwd_jaxpr's first outputs {types_str(f_outs[:n])} "
            f"differ from call_jaxpr's {types_str(outs)}"
        )
    res = f_outs[n:]
    b_outs = check_jaxpr_in_types(prim, "bwd_jaxpr", p.bwd_jaxpr, [*avals[:nc], *res, *outs])
    if not _same_types(b_outs, avals[nc:]):
        raise PrimitiveTypeError(
            f"{prim} of '{p.name}': bwd_jaxpr returns {types_str(b_outs)} for arguments "
            f"of types {types_str(avals[nc:])}"
        )
    return list(outs)  # call_jaxpr's types, weak flags included (core/weak.py: OWN_RULE)


def _cvjp_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return eval_np(CustomVjpParams.of(params).call_jaxpr, args)


def _cvjp_values(args: Sequence[Value], params: Params) -> list[Value]:
    return eval_jaxpr(CustomVjpParams.of(params).call_jaxpr, args)


def _cvjp_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    p = CustomVjpParams.of(params)
    nc = p.num_consts
    _check_const_tangents("custom_vjp", p.name, tangents[:nc])
    out_avals = p.call_jaxpr.out_avals
    arg_tangents = tangents[nc:]
    if all(isinstance(t, Zero) for t in arg_tangents):
        return list(bind(custom_vjp_call_p, primals, params)), [Zero(a) for a in _strong(out_avals)]
    n = len(out_avals)
    fwd_out = eval_jaxpr(p.fwd_jaxpr, primals)
    outs, res = fwd_out[:n], fwd_out[n:]
    dots = [instantiate_zeros(t) for t in arg_tangents]
    lin = CustomLinParams(p.bwd_jaxpr, nc, len(res), p.name).to_params()
    t_lin = bind(custom_lin_p, [*primals[:nc], *res, *dots], lin)
    t_out: list[Tangent] = [
        t if is_inexact(a.dtype) else Zero(a.weakened(False)) for t, a in zip(t_lin, out_avals)
    ]
    return outs, t_out


def _cvjp_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    p = CustomVjpParams.of(params)
    nc = p.num_consts
    n = len(p.call_jaxpr.outs)
    vals = to_front(size, vals, dims)
    in_b = [d is not None for d in dims]
    call_b = forward_deps(p.call_jaxpr, in_b)
    fwd_b = forward_deps(p.fwd_jaxpr, in_b)
    out_b = [a or b for a, b in zip(call_b, fwd_b[:n])]
    res_b = fwd_b[n:]
    call = batch_jaxpr(p.call_jaxpr, size, dims0(in_b), out_b)
    fwd = batch_jaxpr(p.fwd_jaxpr, size, dims0(in_b), [*out_b, *res_b])
    bwd = _batch_bwd(p.bwd_jaxpr, size, [*in_b[:nc], *res_b, *out_b], in_b[nc:])
    outs = bind(custom_vjp_call_p, vals, CustomVjpParams(call, fwd, bwd, nc, p.name).to_params())
    return list(outs), dims0(out_b)


def _batch_bwd(bwd: Jaxpr, size: int, in_b: Sequence[bool], arg_b: Sequence[bool]) -> Jaxpr:
    """``bwd`` batched along axis 0 of the inputs flagged in ``in_b``; the
    cotangent of an unbatched argument is summed over the examples (the
    argument is shared by them all)."""
    in_dims = dims0(in_b)

    def run(xs: list[Value]) -> list[Value]:
        outs = vmap_flat(lambda ys: eval_jaxpr(bwd, ys), size, in_dims, xs, [0] * len(bwd.outs))
        return [o if b else reduce_sum(o, (0,)) for o, b in zip(outs, arg_b)]

    avals = [batched_aval(a, size, d) for a, d in zip(bwd.in_avals, in_dims)]
    closed = trace_to_jaxpr_flat(run, avals, "vmap")
    if closed.consts:
        raise AssertionError("batching custom_vjp's bwd staged array constants")
    return closed.jaxpr


def _cvjp_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    return _call_transpose(CustomVjpParams.of(params).call_jaxpr, cts, primals)


def _cvjp_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    return lower_jaxpr_body(ctx, CustomVjpParams.of(eqn.params).call_jaxpr, args)


custom_vjp_call_p = Primitive(
    "custom_vjp_call", _cvjp_impl, _cvjp_abstract,
    Rules(
        jvp=_cvjp_jvp, transpose=_cvjp_transpose, batch=_cvjp_batch, lower=_cvjp_lowering,
        eval_values=_cvjp_values,
    ),
)


# -- custom_lin: the linear half of a custom_vjp's JVP -------------------------------
class CustomLinParams(NamedTuple):
    """``custom_lin``'s params: the user's backward pass and how its operands
    split: (consts, residuals, tangents); it is linear in the tangents."""

    bwd_jaxpr: Jaxpr
    num_consts: int
    num_res: int
    name: str

    @staticmethod
    def of(params: Params) -> CustomLinParams:
        p = "custom_lin"
        return CustomLinParams(
            get_jaxpr(p, params, "bwd_jaxpr"), get_int(p, params, "num_consts"),
            get_int(p, params, "num_res"), _get_name(p, params),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _lin_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = CustomLinParams.of(params)
    k = p.num_consts + p.num_res
    b_in = p.bwd_jaxpr.in_avals
    if not 0 <= k <= len(b_in):
        raise PrimitiveTypeError(f"custom_lin of '{p.name}': bad num_consts/num_res for bwd_jaxpr")
    outs = check_jaxpr_in_types("custom_lin", "bwd_jaxpr", p.bwd_jaxpr, [*avals[:k], *b_in[k:]])
    if not _same_types(outs, avals[k:]):
        raise PrimitiveTypeError(
            f"custom_lin of '{p.name}': tangents of types {types_str(avals[k:])} for a "
            f"bwd_jaxpr returning {types_str(outs)}"
        )
    return _strong(b_in[k:])


def _jvp_of_custom_vjp(name: str) -> CustomDerivativeError:
    return CustomDerivativeError(
        f"{JVP_OF_CUSTOM_VJP} (function '{name}': it has only a reverse-mode rule; "
        "use grad, vjp or jacrev, or give it a custom_jvp)"
    )


def _lin_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    raise _jvp_of_custom_vjp(CustomLinParams.of(params).name)


def _lin_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    raise _jvp_of_custom_vjp(CustomLinParams.of(params).name)


def _lin_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    raise _jvp_of_custom_vjp(CustomLinParams.of(eqn.params).name)


def _lin_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    p = CustomLinParams.of(params)
    k = p.num_consts + p.num_res
    known: list[Value] = []
    for x in primals[:k]:
        if isinstance(x, UndefPrimal):
            raise NonLinearError("custom_lin", "a residual of the custom_vjp is a linear value")
        known.append(x)
    cts_in = eval_jaxpr(p.bwd_jaxpr, [*known, *cts])
    return [None] * k + [ct if isinstance(x, UndefPrimal) else None for ct, x in zip(cts_in, primals[k:])]


def _lin_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    p = CustomLinParams.of(params)
    k = p.num_consts + p.num_res
    n_t = len(vals) - k
    in_b = [d is not None for d in dims[:k]]
    # every tangent and every output batched: the transpose then maps batched
    # cotangents to batched cotangents, example by example
    xs = [*to_front(size, vals[:k], dims[:k]), *batch_as(size, vals[k:], dims[k:], [True] * n_t)]
    n_ct = len(p.bwd_jaxpr.in_avals) - k
    bwd = batch_jaxpr(p.bwd_jaxpr, size, dims0([*in_b, *[True] * n_ct]), [True] * len(p.bwd_jaxpr.outs))
    outs = bind(custom_lin_p, xs, CustomLinParams(bwd, p.num_consts, p.num_res, p.name).to_params())
    return list(outs), [0] * len(outs)


custom_lin_p = Primitive(
    "custom_lin", _lin_impl, _lin_abstract,
    Rules(jvp=_lin_jvp, transpose=_lin_transpose, batch=_lin_batch, lower=_lin_lowering),
)


FAMILY = Family("custom derivatives", (custom_jvp_call_p, custom_vjp_call_p, custom_lin_p))
