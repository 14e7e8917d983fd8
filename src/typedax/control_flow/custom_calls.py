"""The primitives under ``custom_jvp`` and ``custom_vjp``, with every rule.

A staged call's rules are lazily traced jaxprs (``core.ir.LazyJaxpr``), as
JAX keeps them as Python thunks: staging a call traces the function only,
and a rule is traced the first time a transformation needs it (the JVP of
the equation; a transposition for ``bwd``), once; batching and DCE of the
equation wrap the rule in a new lazy jaxpr that transforms it when it is
traced. So the function and its rules run as many times as JAX's.

``custom_jvp_call`` takes the constants its function closes over, then the
function's (flat) arguments. Its params:

* ``call_jaxpr : (consts, xs) -> ys``, the primal function;
* ``jvp_jaxpr : (xs, xs_dot) -> (ys, ys_dot)``, the user's JVP rule (lazy;
  traced, it is a closed jaxpr with the values it closes over), with a
  tangent for every argument (a symbolic zero tangent is passed as zeros,
  as JAX does unless ``symbolic_zeros``);
* ``num_consts`` and ``name`` (the function's, for messages).

Evaluation, ``jit`` and lowering run ``call_jaxpr``; the JVP rule evaluates
``jvp_jaxpr`` under the interpreter below, so ``linearize`` stages its
tangent half and ``grad`` transposes it (the rule's tangent output must be
linear in the input tangents, as JAX requires). Batching batches both
jaxprs; DCE prunes both; partial evaluation keeps the equation whole.

``custom_vjp_call`` takes (consts, xs) too; its params are ``call_jaxpr``,
``fwd_jaxpr : xs -> (ys, residuals)`` and ``bwd_jaxpr : (residuals, ys_bar)
-> xs_bar`` (both lazy: ``bwd`` is traced at the residuals' types, after
``fwd``). Its JVP rule runs ``fwd_jaxpr`` and applies ``custom_lin`` to the
residuals and the input tangents: a primitive linear in those tangents
whose transpose evaluates ``bwd_jaxpr`` (so ``grad``/``vjp`` use the user's
backward pass, traced only then), and whose evaluation, JVP and lowering
raise JAX's "can't apply forward-mode autodiff (jvp) to a custom_vjp
function" -- only reverse mode reaches ``bwd``. (A call that is not staged
binds ``custom_lin`` itself: under ``grad``, ``custom_derivatives.py`` runs
``fwd`` on the primals, and ``bwd`` is traced when it is transposed.)

Differentiating with respect to a value the function closes over (a
constant with a nonzero tangent) is refused, as JAX refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import is_inexact
from ..core.errors import CustomDerivativeError, NonLinearError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, LazyJaxpr, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero, batched_aval
from ..core.trace import Value, as_value, aval_of, bind
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.batching import vmap_flat
from ..interpreters.dce import dce_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import backward_pass
from ..primitives._params import _get, get_int, get_jaxpr, get_lazy_jaxpr
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
    "custom_jvp_call_p", "custom_lin_p", "custom_vjp_call_p", "eval_rule",
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


# -- lazily traced rules --------------------------------------------------------------
def _consts(closed: ClosedJaxpr) -> list[Value]:
    return [as_value(c, "a custom rule's constants") for c in closed.consts]


def eval_rule(rule: LazyJaxpr, args: Sequence[Value]) -> list[Value]:
    """Evaluate a custom rule (traced now if need be) on ``args``, under the
    current interpreter."""
    closed = rule.force()
    return eval_jaxpr(closed.jaxpr, [*_consts(closed), *args])


def _rule_outs(prim: str, what: str, rule: LazyJaxpr, avals: Sequence[ShapedArray]) -> tuple[ShapedArray, ...] | None:
    """A traced rule's output types, checked against its operand types
    ``avals``; None while it is not traced (abstract evaluation never traces
    a rule)."""
    if not rule.traced:
        return None
    closed = rule.force()
    return check_jaxpr_in_types(prim, what, closed.jaxpr, [*(aval_of(c) for c in _consts(closed)), *avals])


def _rule_deps(rule: LazyJaxpr, in_flags: Sequence[bool]) -> list[bool] | None:
    """Which outputs of a traced rule depend on the flagged inputs (None:
    not traced)."""
    if not rule.traced:
        return None
    closed = rule.force()
    return forward_deps(closed.jaxpr, [*[False] * len(closed.consts), *in_flags])


def _batch_rule(rule: LazyJaxpr, size: int, in_b: Sequence[bool], out_b: Sequence[bool],
                kind: str, name: str) -> ClosedJaxpr:
    """The traced rule batched along axis 0 of the inputs flagged in
    ``in_b``, its outputs batched as ``out_b`` says (the function's: the
    staged equation's types were fixed when it was batched, before the rule
    was traced)."""
    closed = rule.force()
    nk = len(closed.consts)
    deps = forward_deps(closed.jaxpr, [*[False] * nk, *in_b])
    if any(d and not b for d, b in zip(deps, out_b)):
        raise CustomDerivativeError(
            f"the {kind} of the custom function '{name}', batched by vmap, gives a batched output "
            "where the function's own output is not batched (its rule depends on a batched "
            "argument its function ignores); typedax batches a staged call by its function, as "
            "JAX does: make the function depend on that argument too"
        )
    consts = _consts(closed)
    jaxpr = closed.jaxpr
    avals = [batched_aval(a, size, d) for a, d in zip(jaxpr.in_avals[nk:], dims0(in_b))]
    return trace_to_jaxpr_flat(
        lambda xs: vmap_flat(lambda ys: eval_jaxpr(jaxpr, [*consts, *ys]), size, dims0(in_b), xs, dims0(out_b)),
        avals, "vmap",
    )


def _dce_rule(rule: LazyJaxpr, used: Sequence[bool], keep_in: Sequence[bool]) -> ClosedJaxpr:
    """The traced rule with only the ``used`` outputs and the inputs flagged
    in ``keep_in`` (every input it reads is among them)."""
    closed = rule.force()
    nk = len(closed.consts)
    jaxpr, used_in = dce_jaxpr(closed.jaxpr, used, instantiate=[*[True] * nk, *keep_in])
    if [u for u in used_in[nk:]] != list(keep_in):
        raise AssertionError("a custom rule reads an argument its DCE dropped")
    return ClosedJaxpr(jaxpr, closed.consts)


# -- custom_jvp_call -----------------------------------------------------------------
class CustomJvpParams(NamedTuple):
    """``custom_jvp_call``'s params, typed (``CustomJvpParams.of(eqn.params)``)."""

    call_jaxpr: Jaxpr
    jvp_jaxpr: LazyJaxpr
    num_consts: int
    name: str

    @staticmethod
    def of(params: Params) -> CustomJvpParams:
        p = "custom_jvp_call"
        return CustomJvpParams(
            get_jaxpr(p, params, "call_jaxpr"), get_lazy_jaxpr(p, params, "jvp_jaxpr"),
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
    j_outs = _rule_outs("custom_jvp_call", "jvp_jaxpr", p.jvp_jaxpr, [*args, *args])
    if j_outs is not None and not _same_types(j_outs, [*outs, *outs]):
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
    outs = eval_rule(p.jvp_jaxpr, [*primals[nc:], *dots])  # the rule is traced here, once
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
    out_b = forward_deps(p.call_jaxpr, in_b)
    jvp_b = _rule_deps(p.jvp_jaxpr, [*arg_b, *arg_b])
    if jvp_b is not None:  # traced already: what it batches is known
        out_b = [a or b or c for a, b, c in zip(out_b, jvp_b[:n], jvp_b[n:])]
    call = batch_jaxpr(p.call_jaxpr, size, dims0(in_b), out_b)
    rule, name = p.jvp_jaxpr, p.name
    jvp = LazyJaxpr(
        lambda: _batch_rule(rule, size, [*arg_b, *arg_b], [*out_b, *out_b], "JVP rule", name),
        ("batch", rule, size, tuple(arg_b), tuple(out_b)),
    )
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
    reads any more (an argument stays while its primal or tangent is read;
    while the rule is not traced, every argument stays)."""
    p = CustomJvpParams.of(eqn.params)
    nc = p.num_consts
    n_args = len(eqn.inputs) - nc
    u_call = dce_jaxpr(p.call_jaxpr, used)[1]
    u_jvp = _rule_deps_used(p.jvp_jaxpr, [*used, *used])
    u_consts = u_call[:nc]
    u_args = [u_call[nc + i] or u_jvp is None or u_jvp[i] or u_jvp[n_args + i] for i in range(n_args)]
    u_in = [*u_consts, *u_args]
    call = dce_jaxpr(p.call_jaxpr, used, instantiate=u_in)[0]
    rule = p.jvp_jaxpr
    jvp = LazyJaxpr(lambda: _dce_rule(rule, [*used, *used], [*u_args, *u_args]),
                    ("dce", rule, tuple(used), tuple(u_args)))
    params = CustomJvpParams(call, jvp, sum(u_consts), p.name).to_params()
    ins = tuple(a for a, u in zip(eqn.inputs, u_in) if u)
    return Eqn(custom_jvp_call_p, ins, params, tuple(v for v, u in zip(eqn.out_binders, used) if u))


def _rule_deps_used(rule: LazyJaxpr, used: Sequence[bool]) -> list[bool] | None:
    """Which non-constant inputs a traced rule reads for the ``used``
    outputs (None: not traced)."""
    if not rule.traced:
        return None
    closed = rule.force()
    return dce_jaxpr(closed.jaxpr, used)[1][len(closed.consts):]


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
    fwd_jaxpr: LazyJaxpr
    bwd_jaxpr: LazyJaxpr
    num_consts: int
    name: str

    @staticmethod
    def of(params: Params) -> CustomVjpParams:
        p = "custom_vjp_call"
        return CustomVjpParams(
            get_jaxpr(p, params, "call_jaxpr"), get_lazy_jaxpr(p, params, "fwd_jaxpr"),
            get_lazy_jaxpr(p, params, "bwd_jaxpr"), get_int(p, params, "num_consts"),
            _get_name(p, params),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _cvjp_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = CustomVjpParams.of(params)
    prim = "custom_vjp_call"
    nc = p.num_consts
    if not 0 <= nc <= len(avals):
        raise PrimitiveTypeError(f"{prim} of '{p.name}': num_consts={nc} for {len(avals)} operands")
    outs = check_jaxpr_in_types(prim, "call_jaxpr", p.call_jaxpr, avals)
    args = avals[nc:]
    f_outs = _rule_outs(prim, "fwd_jaxpr", p.fwd_jaxpr, args)
    if f_outs is None:
        return list(outs)
    n = len(outs)
    if not _same_types(f_outs[:n], outs):
        raise PrimitiveTypeError(
            f"{prim} of '{p.name}': fwd_jaxpr's first outputs {types_str(f_outs[:n])} "
            f"differ from call_jaxpr's {types_str(outs)}"
        )
    b_outs = _rule_outs(prim, "bwd_jaxpr", p.bwd_jaxpr, [*f_outs[n:], *outs])
    if b_outs is not None and not _same_types(b_outs, args):
        raise PrimitiveTypeError(
            f"{prim} of '{p.name}': bwd_jaxpr returns {types_str(b_outs)} for arguments "
            f"of types {types_str(args)}"
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
    fwd_out = eval_rule(p.fwd_jaxpr, primals[nc:])  # fwd is traced here, once
    outs, res = fwd_out[:n], fwd_out[n:]
    dots = [instantiate_zeros(t) for t in arg_tangents]
    t_lin = bind(custom_lin_p, [*res, *dots], lin_params(p.bwd_jaxpr, len(res), out_avals, p.name))
    t_out: list[Tangent] = [
        t if is_inexact(a.dtype) else Zero(a.weakened(False)) for t, a in zip(t_lin, out_avals)
    ]
    return outs, t_out


class _BatchedFwd:
    """What the batched ``fwd`` says once traced: which residuals are batched
    (the batched ``bwd`` takes them so)."""

    __slots__ = ("res_b",)

    def __init__(self) -> None:
        self.res_b: list[bool] | None = None


def _cvjp_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    p = CustomVjpParams.of(params)
    nc = p.num_consts
    n = len(p.call_jaxpr.outs)
    vals = to_front(size, vals, dims)
    in_b = [d is not None for d in dims]
    arg_b = in_b[nc:]
    out_b = forward_deps(p.call_jaxpr, in_b)
    fwd_b = _rule_deps(p.fwd_jaxpr, arg_b)
    if fwd_b is not None:  # traced already: what it batches is known
        out_b = [a or b for a, b in zip(out_b, fwd_b[:n])]
    call = batch_jaxpr(p.call_jaxpr, size, dims0(in_b), out_b)
    fwd0, bwd0, name = p.fwd_jaxpr, p.bwd_jaxpr, p.name
    seen = _BatchedFwd()

    def fwd_thunk() -> ClosedJaxpr:
        closed = fwd0.force()
        deps = forward_deps(closed.jaxpr, [*[False] * len(closed.consts), *arg_b])
        seen.res_b = deps[n:]
        return _batch_rule(fwd0, size, arg_b, [*out_b, *seen.res_b], "fwd rule", name)

    fwd = LazyJaxpr(fwd_thunk, ("batch", fwd0, size, tuple(arg_b), tuple(out_b)))

    def bwd_thunk() -> ClosedJaxpr:
        fwd.force()
        assert seen.res_b is not None
        return _batch_bwd(bwd0.force(), size, [*seen.res_b, *out_b], arg_b)

    bwd = LazyJaxpr(bwd_thunk, ("batch", bwd0, size, tuple(arg_b), tuple(out_b)))
    outs = bind(custom_vjp_call_p, vals, CustomVjpParams(call, fwd, bwd, nc, p.name).to_params())
    return list(outs), dims0(out_b)


def _batch_bwd(bwd: ClosedJaxpr, size: int, in_b: Sequence[bool], arg_b: Sequence[bool]) -> ClosedJaxpr:
    """``bwd`` batched along axis 0 of the inputs flagged in ``in_b``; the
    cotangent of an unbatched argument is summed over the examples (the
    argument is shared by them all)."""
    in_dims = dims0(in_b)
    consts = _consts(bwd)
    jaxpr = bwd.jaxpr
    nk = len(consts)

    def run(xs: list[Value]) -> list[Value]:
        outs = vmap_flat(lambda ys: eval_jaxpr(jaxpr, [*consts, *ys]), size, in_dims, xs, [0] * len(jaxpr.outs))
        return [o if b else reduce_sum(o, (0,)) for o, b in zip(outs, arg_b)]

    avals = [batched_aval(a, size, d) for a, d in zip(jaxpr.in_avals[nk:], in_dims)]
    return trace_to_jaxpr_flat(run, avals, "vmap")


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
    """``custom_lin``'s params: the user's backward pass (lazy: traced when
    the equation is transposed, as JAX calls ``bwd`` only then), how many
    residuals lead the operands (then the tangents; it is linear in the
    tangents), and the types of its outputs (the function's outputs'
    tangents, known before ``bwd`` is traced)."""

    bwd_jaxpr: LazyJaxpr
    num_res: int
    out_shapes: tuple[tuple[int, ...], ...]
    out_dtypes: tuple[np.dtype[np.generic], ...]
    name: str

    @staticmethod
    def of(params: Params) -> CustomLinParams:
        p = "custom_lin"
        shapes, dtypes = _get(p, params, "out_shapes"), _get(p, params, "out_dtypes")
        if not (isinstance(shapes, tuple) and isinstance(dtypes, tuple) and len(shapes) == len(dtypes)
                and all(isinstance(s, tuple) and all(type(d) is int for d in s) for s in shapes)
                and all(isinstance(d, np.dtype) for d in dtypes)):
            raise PrimitiveTypeError("custom_lin: out_shapes and out_dtypes must be tuples of one length")
        return CustomLinParams(
            get_lazy_jaxpr(p, params, "bwd_jaxpr"), get_int(p, params, "num_res"),
            tuple(tuple(d for d in s if isinstance(d, int)) for s in shapes if isinstance(s, tuple)),
            tuple(d for d in dtypes if isinstance(d, np.dtype)), _get_name(p, params),
        )

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [ShapedArray(s, d) for s, d in zip(self.out_shapes, self.out_dtypes)]

    def to_params(self) -> Params:
        return pmap(self._asdict())


def lin_params(bwd: LazyJaxpr, num_res: int, out_avals: Sequence[ShapedArray], name: str) -> Params:
    """``custom_lin``'s params for the tangents of outputs of ``out_avals``."""
    strong = _strong(out_avals)
    return CustomLinParams(bwd, num_res, tuple(a.shape for a in strong), tuple(a.dtype for a in strong),
                           name).to_params()


def _lin_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = CustomLinParams.of(params)
    k = p.num_res
    if not 0 <= k <= len(avals):
        raise PrimitiveTypeError(f"custom_lin of '{p.name}': num_res={k} for {len(avals)} operands")
    outs = p.out_avals
    b_outs = _rule_outs("custom_lin", "bwd_jaxpr", p.bwd_jaxpr, [*avals[:k], *outs])
    if b_outs is not None and not _same_types(b_outs, avals[k:]):
        raise PrimitiveTypeError(
            f"custom_lin of '{p.name}': tangents of types {types_str(avals[k:])} for a "
            f"bwd_jaxpr returning {types_str(b_outs)}"
        )
    return outs


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
    k = p.num_res
    known: list[Value] = []
    for x in primals[:k]:
        if isinstance(x, UndefPrimal):
            raise NonLinearError("custom_lin", "a residual of the custom_vjp is a linear value")
        known.append(x)
    cts_in = eval_rule(p.bwd_jaxpr, [*known, *cts])  # bwd is traced here, once
    return [None] * k + [ct if isinstance(x, UndefPrimal) else None for ct, x in zip(cts_in, primals[k:])]


def _lin_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    p = CustomLinParams.of(params)
    k = p.num_res
    n_t = len(vals) - k
    res_b = [d is not None for d in dims[:k]]
    # every tangent and every output batched: the transpose then maps batched
    # cotangents to batched cotangents, example by example
    xs = [*to_front(size, vals[:k], dims[:k]), *batch_as(size, vals[k:], dims[k:], [True] * n_t)]
    n_ct = len(p.out_shapes)
    rule = p.bwd_jaxpr
    bwd = LazyJaxpr(
        lambda: _batch_rule(rule, size, [*res_b, *[True] * n_ct], [True] * n_t, "bwd rule", p.name),
        ("batch", rule, size, tuple(res_b)),
    )
    out_avals = [ShapedArray((size, *a.shape), a.dtype) for a in p.out_avals]
    outs = bind(custom_lin_p, xs, lin_params(bwd, k, out_avals, p.name))
    return list(outs), [0] * len(outs)


custom_lin_p = Primitive(
    "custom_lin", _lin_impl, _lin_abstract,
    Rules(jvp=_lin_jvp, transpose=_lin_transpose, batch=_lin_batch, lower=_lin_lowering),
)


FAMILY = Family("custom derivatives", (custom_jvp_call_p, custom_vjp_call_p, custom_lin_p))
