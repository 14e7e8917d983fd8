"""JVP rules of ``cond``, ``while`` and ``scan``.

Each param jaxpr is differentiated with ``jvp_jaxpr_nz``, which keeps
symbolic zeros: only inputs with a nonzero tangent get a tangent binder, and
only outputs with a nonzero tangent get a tangent output. For loops the set of
carry values with nonzero tangents is found by a fixpoint.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.avals import ShapedArray
from ..core.dtypes import is_float
from ..interpreters.jvp import eval_jaxpr_typed as eval_jaxpr
from ..core.ir import Jaxpr, Params
from ..core.trace import Value, bind
from ..interpreters.jvp import Tangent, Zero, instantiate_zeros, jvp_flat, jvp_rules
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives._params import get_jaxpr
from .common import add_unused_binders, carry_fixpoint, permute_binders, permute_outs, split
from .cond import bind_cond, cond_p
from .loops import _scan_parts, _while_parts, scan_p, scan_params, while_p, while_params

__all__ = ["jvp_jaxpr_nz"]


def jvp_jaxpr_nz(
    jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool]
) -> tuple[Jaxpr, list[bool]]:
    """The JVP of ``jaxpr`` where only inputs flagged in ``nonzeros`` carry
    tangents. The result takes all primals, then the tangents of the flagged
    inputs; it returns all primal outputs, then the tangents of the outputs
    whose tangent is nonzero or flagged in ``instantiate`` (second result)."""
    n = len(jaxpr.in_binders)
    nz = [f and is_float(a.dtype) for f, a in zip(nonzeros, jaxpr.in_avals)]
    inst = [f and is_float(a.dtype) for f, a in zip(instantiate, jaxpr.out_avals)]
    out_nz: list[bool] = []

    def run(args: list[Value]) -> list[Value]:
        it = iter(args[n:])
        tangents: list[Tangent] = [
            next(it) if f else Zero(a) for f, a in zip(nz, jaxpr.in_avals)
        ]
        p_out, t_out = jvp_flat(lambda xs: eval_jaxpr(jaxpr, xs), args[:n], tangents)
        dots: list[Value] = []
        for t, i in zip(t_out, inst):
            keep = i or not isinstance(t, Zero)
            out_nz.append(keep)
            if keep:
                dots.append(instantiate_zeros(t))
        return [*p_out, *dots]

    dot_avals = [a for f, a in zip(nz, jaxpr.in_avals) if f]
    closed = trace_to_jaxpr_flat(run, [*jaxpr.in_avals, *dot_avals], "jvp")
    if closed.consts:
        raise AssertionError("jvp of a control-flow body staged array constants")
    return closed.jaxpr, out_nz


def _nonzero(t: Tangent) -> bool:
    return not isinstance(t, Zero)


def _tangents_out(
    outs: Sequence[Value], n: int, out_nz: Sequence[bool], avals: Sequence[ShapedArray]
) -> tuple[list[Value], list[Tangent]]:
    it = iter(outs[n:])
    return list(outs[:n]), [next(it) if z else Zero(a) for z, a in zip(out_nz, avals)]


def _cond_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    pred, *ops = primals
    tans = tangents[1:]
    tj = get_jaxpr("cond", params, "true_jaxpr")
    fj = get_jaxpr("cond", params, "false_jaxpr")
    nz = [_nonzero(t) for t in tans]
    none = [False] * len(tj.outs)
    tj2, t_nz = jvp_jaxpr_nz(tj, nz, none)
    fj2, f_nz = jvp_jaxpr_nz(fj, nz, none)
    out_nz = [a or b for a, b in zip(t_nz, f_nz)]
    if t_nz != out_nz:
        tj2, _ = jvp_jaxpr_nz(tj, nz, out_nz)
    if f_nz != out_nz:
        fj2, _ = jvp_jaxpr_nz(fj, nz, out_nz)
    dots = [t for t in tans if not isinstance(t, Zero)]
    outs = bind_cond(pred, [*ops, *dots], tj2, fj2)
    return _tangents_out(outs, len(tj.outs), out_nz, tj.out_avals)


def _loop_jvp_jaxpr(
    body: Jaxpr, pre_nz: Sequence[bool], carry_nz0: Sequence[bool], post_nz: Sequence[bool],
    n_extra_outs: int,
) -> tuple[Jaxpr, list[bool], list[bool]]:
    """JVP of a loop body taking (pre, carry, post) and returning (carry,
    extra), at the fixpoint of the carry's nonzero tangents. Returns the
    jaxpr, the carry's flags and the flags of the extra outputs."""
    cache: dict[tuple[bool, ...], tuple[Jaxpr, list[bool]]] = {}
    nc = len(carry_nz0)

    def jvp_at(flags: list[bool]) -> tuple[Jaxpr, list[bool]]:
        key = tuple(flags)
        if key not in cache:
            cache[key] = jvp_jaxpr_nz(
                body, [*pre_nz, *flags, *post_nz], [*flags, *[False] * n_extra_outs]
            )
        return cache[key]

    carry_nz = carry_fixpoint(lambda f: jvp_at(f)[1][:nc], carry_nz0)
    jaxpr, out_nz = jvp_at(carry_nz)
    return jaxpr, carry_nz, out_nz[nc:]


def _regroup(sizes: Sequence[int], dot_sizes: Sequence[int]) -> list[int]:
    """Binder order taking groups (a, b, c, a_dot, b_dot, c_dot) to
    (a, a_dot, b, b_dot, c, c_dot)."""
    starts, i = [], 0
    for s in (*sizes, *dot_sizes):
        starts.append(i)
        i += s
    k = len(sizes)
    order: list[int] = []
    for g in range(k):
        order.extend(range(starts[g], starts[g] + sizes[g]))
        order.extend(range(starts[k + g], starts[k + g] + dot_sizes[g]))
    return order


def _while_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    cj, bj, cn, bn = _while_parts(params)
    cc, bc, carry = split(primals, cn, bn)
    _, bc_t, carry_t = split(tangents, cn, bn)
    bc_nz = [_nonzero(t) and is_float(a.dtype) for t, a in zip(bc_t, bj.in_avals)]
    carry_avals = bj.out_avals
    init_nz = [_nonzero(t) and is_float(a.dtype) for t, a in zip(carry_t, carry_avals)]
    bj2, carry_nz, _ = _loop_jvp_jaxpr(bj, bc_nz, init_nz, [], 0)
    nbd, ncd = sum(bc_nz), sum(carry_nz)
    bj2 = permute_binders(bj2, _regroup([bn, len(carry)], [nbd, ncd]))
    dot_avals = [a for f, a in zip(carry_nz, carry_avals) if f]
    cj2 = add_unused_binders(cj, len(cj.in_binders), dot_avals)
    bc_dots = [t for t, f in zip(bc_t, bc_nz) if f and not isinstance(t, Zero)]
    carry_dots = [instantiate_zeros(t) for t, f in zip(carry_t, carry_nz) if f]
    outs = bind(
        while_p,
        [*cc, *bc, *bc_dots, *carry, *carry_dots],
        while_params(cj2, bj2, cn, bn + nbd),
    )
    return _tangents_out(outs, len(carry), carry_nz, carry_avals)


def _scan_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(params)
    consts, init, xs = split(primals, nconsts, ncarry)
    c_t, init_t, xs_t = split(tangents, nconsts, ncarry)
    in_avals = jaxpr.in_avals
    flt = [is_float(a.dtype) for a in in_avals]
    c_nz = [_nonzero(t) and f for t, f in zip(c_t, flt[:nconsts])]
    init_nz = [_nonzero(t) and f for t, f in zip(init_t, flt[nconsts : nconsts + ncarry])]
    x_nz = [_nonzero(t) and f for t, f in zip(xs_t, flt[nconsts + ncarry :])]
    ny = len(jaxpr.outs) - ncarry
    j2, carry_nz, ys_nz = _loop_jvp_jaxpr(jaxpr, c_nz, init_nz, x_nz, ny)
    ncd, ncad, nxd = sum(c_nz), sum(carry_nz), sum(x_nz)
    j2 = permute_binders(j2, _regroup([nconsts, ncarry, len(xs)], [ncd, ncad, nxd]))
    nyd = sum(ys_nz)
    j2 = permute_outs(j2, _regroup([ncarry, ny], [ncad, nyd]))
    c_dots = [t for t, f in zip(c_t, c_nz) if f and not isinstance(t, Zero)]
    carry_dots = [instantiate_zeros(t) for t, f in zip(init_t, carry_nz) if f]
    x_dots = [t for t, f in zip(xs_t, x_nz) if f and not isinstance(t, Zero)]
    outs = bind(
        scan_p,
        [*consts, *c_dots, *init, *carry_dots, *xs, *x_dots],
        scan_params(j2, nconsts + ncd, ncarry + ncad, length, reverse),
    )
    carry_out, carry_dots_out, ys_rest = split(outs, ncarry, ncad)
    ys_out, ys_dots_out = ys_rest[:ny], ys_rest[ny:]
    carry_avals = jaxpr.out_avals[:ncarry]
    y_avals = [ShapedArray((length, *a.shape), a.dtype) for a in jaxpr.out_avals[ncarry:]]
    _, carry_tans = _tangents_out([*carry_out, *carry_dots_out], ncarry, carry_nz, carry_avals)
    _, y_tans = _tangents_out([*ys_out, *ys_dots_out], ny, ys_nz, y_avals)
    return [*carry_out, *ys_out], [*carry_tans, *y_tans]


jvp_rules.register(cond_p, _cond_jvp)
jvp_rules.register(while_p, _while_jvp)
jvp_rules.register(scan_p, _scan_jvp)
