"""Transposition: run a linear jaxpr backwards (``backward_pass``), and the
pure ``transpose_jaxpr``.

The inputs a jaxpr is linear in are *undefined primals* (``UndefPrimal``):
their values are not known, only their types. ``backward_pass`` first
evaluates every equation that reads no undefined value (the non-linear
"residual" computations), then walks the remaining, linear equations in
reverse, handing each one's output cotangents to the primitive's transpose
rule. Zero cotangents are symbolic: an equation none of whose outputs
received a cotangent is skipped, and rules return ``None`` for operands that
get no contribution.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.avals import ShapedArray
from ..core.errors import JaxprTypeError
from ..core.explicit import resolving_contractions
from ..core.ir import Atom, Eqn, Jaxpr, Lit, Var
from ..core.sharding import EXPLICIT_SEEN
from ..core.rules import Primal, TransposeRule, UndefPrimal, require
from ..core.trace import Value, bind
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives import elementwise
from ..primitives.structural import zeros_like_aval as zeros
from ..primitives.sharding_constraint import as_typed  # explicit sharding

__all__ = ["Primal", "TransposeRule", "UndefPrimal", "backward_pass", "transpose_jaxpr", "zeros"]




def _lit_value(a: Lit) -> Value:
    return np.asarray(a.val, a.aval.dtype)


_new = object.__new__
_set_undef_aval: Callable[[UndefPrimal, ShapedArray], None] = UndefPrimal.__dict__["aval"].__set__


def backward_pass(
    jaxpr: Jaxpr,
    args: Sequence[Primal],
    cts: Sequence[Value | None],
    instantiate: bool = True,
) -> list[Value | None]:
    """Cotangents of the undefined inputs among ``args``, given cotangents
    ``cts`` of the jaxpr's outputs (``None`` for a zero cotangent).

    The result has one entry per ``UndefPrimal`` in ``args``, in order;
    an input that receives no cotangent gets zeros (or ``None`` when
    ``instantiate`` is false). Runs under the current interpreter, so it can
    be evaluated, staged or further transformed.
    """
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"backward_pass: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    if len(cts) != len(jaxpr.outs):
        raise JaxprTypeError(
            f"backward_pass: the jaxpr has {len(jaxpr.outs)} outputs, got {len(cts)} cotangents"
        )
    primal_env: dict[Var, Value] = {}
    undefined: set[Var] = set()
    for v, x in zip(jaxpr.in_binders, args):
        if isinstance(x, UndefPrimal):
            if x.aval != v.aval:
                raise JaxprTypeError(
                    f"backward_pass: UndefPrimal of type {x.aval.str_short()} for an "
                    f"input of type {v.aval.str_short()}"
                )
            undefined.add(v)
        else:
            primal_env[v] = x

    undef_primals: dict[Var, UndefPrimal] = {}  # one per linear variable, made when first read

    def read_primal(a: Atom) -> Primal:
        if isinstance(a, Lit):
            return _lit_value(a)
        if a in undefined:
            u = undef_primals.get(a)
            if u is None:
                u = undef_primals[a] = _new(UndefPrimal)
                _set_undef_aval(u, a.aval)  # ``UndefPrimal(a.aval)``, without the frozen __init__
            return u
        return primal_env[a]

    # forward: evaluate what does not depend on the linear inputs
    linear_eqns: list[Eqn] = []
    for eqn in jaxpr.eqns:
        for a in eqn.inputs:  # (a loop, not any() of a generator: once per equation)
            if type(a) is Var and a in undefined:
                linear_eqns.append(eqn)
                undefined.update(eqn.out_binders)
                break
        else:
            vals = [_lit_value(a) if isinstance(a, Lit) else primal_env[a] for a in eqn.inputs]
            outs = bind(eqn.primitive, vals, eqn.params)
            primal_env.update(zip(eqn.out_binders, outs))

    # backward: transpose the linear equations in reverse
    ct_env: dict[Var, Value] = {}

    def write_ct(a: Atom, ct: Value | None) -> None:
        if ct is None or not isinstance(a, Var) or a not in undefined:
            return
        prev = ct_env.get(a)
        ct_env[a] = ct if prev is None else _add(prev, ct)

    for a, ct in zip(jaxpr.outs, cts):
        write_ct(a, ct)
    for eqn in reversed(linear_eqns):
        outs_ct = [ct_env.pop(v, None) for v in eqn.out_binders]
        if all(ct is None for ct in outs_ct):
            continue
        rule = require(eqn.primitive, eqn.primitive.rules.transpose, "transpose")
        full = [zeros(v.aval) if ct is None else ct for v, ct in zip(eqn.out_binders, outs_ct)]
        if EXPLICIT_SEEN[0]:  # explicit sharding: a transposed dot may contract split dimensions
            primals = [read_primal(a) for a in eqn.inputs]
            with resolving_contractions():
                cts_in = rule(full, primals, eqn.params)
            cts_in = [as_typed(ct, p.aval) if isinstance(p, UndefPrimal) and ct is not None else ct
                      for ct, p in zip(cts_in, primals)]  # each its primal's type, as JAX's
        else:
            cts_in = rule(full, [read_primal(a) for a in eqn.inputs], eqn.params)
        for a, ct in zip(eqn.inputs, cts_in):
            write_ct(a, ct)

    result: list[Value | None] = []
    for v, x in zip(jaxpr.in_binders, args):
        if isinstance(x, UndefPrimal):
            ct = ct_env.get(v)
            result.append(zeros(v.aval) if ct is None and instantiate else ct)
    return result


def _add(x: Value, y: Value) -> Value:
    return elementwise.add(x, y)


def transpose_jaxpr(jaxpr: Jaxpr, linear_in: Sequence[bool]) -> Jaxpr:
    """The transpose of ``jaxpr`` with respect to the inputs marked in
    ``linear_in`` (the jaxpr must be linear in them jointly).

    If ``jaxpr`` has type ``(n..., l...) -> (o...)`` with the non-linear
    inputs ``n`` and the linear inputs ``l`` (interleaved as ``linear_in``
    says), the result has type ``(n..., ct_o...) -> (ct_l...)``: the non-linear
    inputs in their order, then one cotangent per output, and it returns one
    cotangent per linear input (zeros where it gets none).
    """
    if len(linear_in) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"transpose_jaxpr: {len(linear_in)} linear_in flags for a jaxpr with "
            f"{len(jaxpr.in_binders)} inputs"
        )
    nonlin_avals = [v.aval for v, lin in zip(jaxpr.in_binders, linear_in) if not lin]
    n_nonlin = len(nonlin_avals)

    def fun(xs: list[Value]) -> list[Value]:
        it = iter(xs[:n_nonlin])
        args: list[Primal] = [
            UndefPrimal(v.aval) if lin else next(it) for v, lin in zip(jaxpr.in_binders, linear_in)
        ]
        cts: list[Value | None] = list(xs[n_nonlin:])
        outs = backward_pass(jaxpr, args, cts, instantiate=True)
        return [o for o in outs if o is not None]

    closed = trace_to_jaxpr_flat(fun, nonlin_avals + list(jaxpr.out_avals), "transpose")
    if closed.consts:
        raise JaxprTypeError(
            "transpose_jaxpr: a transpose rule captured an array constant; "
            "rules must build constants from scalars"
        )
    return closed.jaxpr
