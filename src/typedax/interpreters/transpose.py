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
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.errors import JaxprTypeError, NonLinearError
from ..core.ir import NO_PARAMS, Atom, Eqn, Jaxpr, Lit, Params, Var
from ..core.rules import RuleTable
from ..core.trace import EvalTrace, Value, aval_of, bind, bind1, current_trace
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives import (
    add_p,
    broadcast_p,
    convert_element_type_p,
    div_p,
    dot_general_p,
    mul_p,
    neg_p,
    reduce_sum_p,
    reshape_p,
    select_n_p,
    sub_p,
    transpose_p,
)
from ..primitives._params import get_dtype, get_ints
from ..primitives.structural import get_dimension_numbers


@dataclass(frozen=True, slots=True)
class UndefPrimal:
    """A linear input to transpose with respect to: only its type is known."""

    aval: ShapedArray


Primal: TypeAlias = Value | UndefPrimal

TransposeRule: TypeAlias = Callable[[Sequence[Value], Sequence[Primal], Params], list["Value | None"]]
"""``rule(cts, primals, params) -> cts_in``.

``cts`` holds one cotangent per output of the equation (zeros materialised
when only some outputs got one); ``primals`` holds each operand's value, or
an ``UndefPrimal`` for the operands the equation is linear in. The result
has one entry per operand: its cotangent contribution, or ``None`` (no
contribution, or an operand that is not undefined). A rule asked to
transpose a non-linear use raises ``NonLinearError``."""

transpose_rules: RuleTable[TransposeRule] = RuleTable("transpose", "transpose")


def zeros(aval: ShapedArray) -> Value:
    """Zeros of type ``aval``: a NumPy array when evaluating eagerly, else a
    broadcast scalar (so staged jaxprs get a literal, not an array constant)."""
    z = np.zeros((), aval.dtype)
    if not aval.shape:
        return z
    if type(current_trace()) is EvalTrace:
        return np.zeros(aval.shape, aval.dtype)
    return bind1(broadcast_p, (z,), pmap({"shape": aval.shape, "axes": tuple(range(aval.ndim))}))


def _lit_value(a: Lit) -> Value:
    return np.asarray(a.val, a.aval.dtype)


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

    def read_primal(a: Atom) -> Primal:
        if isinstance(a, Lit):
            return _lit_value(a)
        if a in undefined:
            return UndefPrimal(a.aval)
        return primal_env[a]

    # forward: evaluate what does not depend on the linear inputs
    linear_eqns: list[Eqn] = []
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in undefined for a in eqn.inputs):
            linear_eqns.append(eqn)
            undefined.update(eqn.out_binders)
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
        rule = transpose_rules[eqn.primitive]
        full = [zeros(v.aval) if ct is None else ct for v, ct in zip(eqn.out_binders, outs_ct)]
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
    return bind1(add_p, (x, y), NO_PARAMS)


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


# -- transpose rules ---------------------------------------------------------
# Each rule returns one entry per operand; ``None`` for an operand that is not
# undefined (a constant of the linear map) or that gets no contribution.


def _is_undef(x: Primal) -> bool:
    return isinstance(x, UndefPrimal)


def _aval(x: Primal) -> ShapedArray:
    return x.aval if isinstance(x, UndefPrimal) else aval_of(x)


def _defined(name: str, x: Primal, role: str) -> Value:
    if isinstance(x, UndefPrimal):
        raise NonLinearError(name, f"its {role} is a linear value ({x.aval.str_short()})")
    return x


def _neg(x: Value) -> Value:
    return bind1(neg_p, (x,), NO_PARAMS)


def _add_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    return [ct if _is_undef(p) else None for p in ps]


def _sub_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    return [ct if _is_undef(x) else None, _neg(ct) if _is_undef(y) else None]


def _neg_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [_neg(cts[0])]


def _mul_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    if isinstance(x, UndefPrimal):
        return [bind1(mul_p, (ct, _defined("mul", y, "other operand")), NO_PARAMS), None]
    return [None, bind1(mul_p, (x, ct), NO_PARAMS)]


def _div_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    y_val = _defined("div", y, "divisor")
    return [bind1(div_p, (ct, y_val), NO_PARAMS), None]


def _convert_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    old = _aval(ps[0]).dtype
    if old == get_dtype("convert_element_type", params, "new_dtype"):
        return [ct]
    return [bind1(convert_element_type_p, (ct,), pmap({"new_dtype": old}))]


def _reduce_sum_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    shape = _aval(ps[0]).shape
    axis = tuple(sorted(get_ints("reduce_sum", params, "axis")))
    if not axis:
        return [ct]
    return [bind1(broadcast_p, (ct,), pmap({"shape": shape, "axes": axis}))]


def _broadcast_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    operand = _aval(ps[0]).shape
    shape = get_ints("broadcast", params, "shape")
    new_axes = set(get_ints("broadcast", params, "axes"))
    kept = [i for i in range(len(shape)) if i not in new_axes]
    expanded = {k for k, d in zip(kept, operand) if d == 1 and shape[k] != 1}
    summed = tuple(sorted(new_axes | expanded))
    out = ct
    if summed:
        out = bind1(reduce_sum_p, (out,), pmap({"axis": summed}))
    if aval_of(out).shape != operand:
        out = bind1(reshape_p, (out,), pmap({"new_sizes": operand}))
    return [out]


def _reshape_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [bind1(reshape_p, (cts[0],), pmap({"new_sizes": _aval(ps[0]).shape}))]


def _transpose_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    perm = get_ints("transpose", params, "perm")
    inv = tuple(int(i) for i in np.argsort(perm))
    return [bind1(transpose_p, (cts[0],), pmap({"perm": inv}))]


def _select_n_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    which = _defined("select_n", ps[0], "selector (predicate)")
    cases = ps[1:]
    out: list[Value | None] = [None]
    zero: Value | None = None
    for i, c in enumerate(cases):
        if not isinstance(c, UndefPrimal):
            out.append(None)
            continue
        if len(cases) == 1:
            out.append(ct)
            continue
        if zero is None:
            zero = zeros(c.aval)
        branches = [ct if j == i else zero for j in range(len(cases))]
        out.append(bind1(select_n_p, (which, *branches), NO_PARAMS))
    return out


def _dot_general_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    lhs, rhs = ps
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    if isinstance(lhs, UndefPrimal) and isinstance(rhs, UndefPrimal):
        raise NonLinearError("dot_general", "both operands are linear values")
    lnd, rnd = _aval(lhs).ndim, _aval(rhs).ndim
    lf = [i for i in range(lnd) if i not in lc and i not in lb]
    rf = [i for i in range(rnd) if i not in rc and i not in rb]
    nb = len(lb)
    ct_b = tuple(range(nb))
    ct_lf = tuple(range(nb, nb + len(lf)))
    ct_rf = tuple(range(nb + len(lf), nb + len(lf) + len(rf)))
    if isinstance(lhs, UndefPrimal):
        # contract ct's rhs-free axes with rhs's free axes, batch with batch
        dn = ((ct_rf, tuple(rf)), (ct_b, tuple(rb)))
        res = bind1(dot_general_p, (ct, _defined("dot_general", rhs, "rhs")), pmap({"dimension_numbers": dn}))
        r_rest = sorted(rc)  # rhs's remaining axes, ascending: the contracting ones
        src = list(lb) + lf + [lc[rc.index(j)] for j in r_rest]
        return [_permute_back(res, src), None]
    lhs_val = _defined("dot_general", lhs, "lhs")
    dn = ((tuple(lf), ct_lf), (tuple(lb), ct_b))
    res = bind1(dot_general_p, (lhs_val, ct), pmap({"dimension_numbers": dn}))
    l_rest = sorted(lc)
    src = list(rb) + [rc[lc.index(j)] for j in l_rest] + rf
    return [None, _permute_back(res, src)]


def _permute_back(x: Value, src: list[int]) -> Value:
    """``x``'s axis ``k`` is operand axis ``src[k]``; put them in operand order."""
    perm = tuple(int(i) for i in np.argsort(src))
    if perm == tuple(range(len(perm))):
        return x
    return bind1(transpose_p, (x,), pmap({"perm": perm}))


for _prim, _rule in (
    (add_p, _add_t),
    (sub_p, _sub_t),
    (neg_p, _neg_t),
    (mul_p, _mul_t),
    (div_p, _div_t),
    (convert_element_type_p, _convert_t),
    (reduce_sum_p, _reduce_sum_t),
    (broadcast_p, _broadcast_t),
    (reshape_p, _reshape_t),
    (transpose_p, _transpose_t),
    (select_n_p, _select_n_t),
    (dot_general_p, _dot_general_t),
):
    transpose_rules.register(_prim, _rule)
