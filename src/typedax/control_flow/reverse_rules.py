"""Reverse-mode rules of the control-flow primitives: partial evaluation,
transposition and dead-code elimination.

* ``cond``: both branches are unzipped with ``partial_eval_jaxpr``; their
  residuals are joined (each branch returns zeros for the other's), so the
  known ``cond`` returns them all and the unknown ``cond`` takes them all.
  Transposition transposes both branches.
* ``scan``: the body is unzipped at the fixpoint of its unknown carry values.
  Residuals that change from one iteration to the next are stacked by the
  known scan and scanned over by the unknown one; loop-invariant residuals
  (computed from known constants only) are recomputed inside the unknown
  body from those constants instead of being stacked ``length`` times.
  Transposition runs a scan in the opposite direction over the transposed
  body, accumulating the cotangents of the linear constants in the carry.
* ``while``: the known carry values are computed by a known loop; the
  unknown ones by a loop that also recomputes the known ones. It cannot be
  transposed (its trip count is known only at run time): ``ReverseModeError``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.errors import NonLinearError, ReverseModeError
from ..core.ir import Atom, Eqn, Jaxpr, Lit, Params, Var
from ..core.trace import Value, bind, bind1
from ..interpreters.dce import dce_jaxpr, dce_rules
from ..interpreters.jvp import eval_jaxpr_typed as eval_jaxpr
from ..interpreters.partial_eval import partial_eval_jaxpr, partial_eval_jaxpr_rules
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import Primal, UndefPrimal, backward_pass, transpose_jaxpr, transpose_rules, zeros
from ..primitives import add_p, broadcast_p
from ..primitives._params import get_jaxpr
from .common import carry_fixpoint, forward_deps, fresh_vars, join_consts, permute_binders, split
from .cond import bind_cond, cond_p, cond_params
from .loops import _scan_parts, _while_parts, scan_p, scan_params, while_p, while_params

__all__: list[str] = []

PeResult = tuple["Eqn | None", "Eqn | None", list[bool], list[Var]]


def _known_vars(atoms: Sequence[Atom], unknown: Sequence[bool]) -> list[Var]:
    out: dict[Var, None] = {}
    for a, u in zip(atoms, unknown):
        if not u and isinstance(a, Var):
            out[a] = None
    return list(out)


def _stage_all(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    """The whole equation is unknown; its known operands are residuals."""
    return None, eqn, [True] * len(eqn.out_binders), _known_vars(eqn.inputs, unks_in)


def _zeros_eqns(avals: Sequence[ShapedArray]) -> tuple[list[Eqn], list[Atom]]:
    """Equations making zeros of each type (scalars are literals)."""
    eqns: list[Eqn] = []
    atoms: list[Atom] = []
    for a in avals:
        z = Lit.of(0, a.dtype)
        if not a.shape:
            atoms.append(z)
            continue
        v = Var(a)
        params: Params = pmap({"shape": a.shape, "axes": tuple(range(a.ndim))})
        eqns.append(Eqn(broadcast_p, (z,), params, (v,)))
        atoms.append(v)
    return eqns, atoms


def _with_outs(jaxpr: Jaxpr, n_keep: int, before: Sequence[ShapedArray],
               after: Sequence[ShapedArray]) -> Jaxpr:
    """``jaxpr``'s first ``n_keep`` outputs, zeros of ``before``, its other
    outputs, zeros of ``after``."""
    e1, z1 = _zeros_eqns(before)
    e2, z2 = _zeros_eqns(after)
    outs = (*jaxpr.outs[:n_keep], *z1, *jaxpr.outs[n_keep:], *z2)
    return Jaxpr(jaxpr.in_binders, (*jaxpr.eqns, *e1, *e2), outs)


# -- cond -----------------------------------------------------------------------


def _cond_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    pred_uk, *uks = unks_in
    if pred_uk:
        return _stage_all(unks_in, eqn)
    pred = eqn.inputs[0]
    ops = eqn.inputs[1:]
    tj = get_jaxpr("cond", eqn.params, "true_jaxpr")
    fj = get_jaxpr("cond", eqn.params, "false_jaxpr")
    t_uk = partial_eval_jaxpr(tj, uks)[2]
    f_uk = partial_eval_jaxpr(fj, uks)[2]
    out_uk = [a or b for a, b in zip(t_uk, f_uk)]
    t1, t2, _, tn = partial_eval_jaxpr(tj, uks, instantiate=out_uk)
    f1, f2, _, fn = partial_eval_jaxpr(fj, uks, instantiate=out_uk)
    n_known = out_uk.count(False)
    known_ins = [a for a, u in zip(ops, uks) if not u]
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    if not any(out_uk):
        t1 = Jaxpr(t1.in_binders, t1.eqns, t1.outs[:n_known])
        f1 = Jaxpr(f1.in_binders, f1.eqns, f1.outs[:n_known])
        only = Eqn(cond_p, (pred, *known_ins), cond_params(t1, f1), tuple(known_outs))
        return only, None, out_uk, []
    t_res = list(t1.out_avals[n_known:])
    f_res = list(f1.out_avals[n_known:])
    t1 = _with_outs(t1, n_known + tn, [], f_res)
    f1 = _with_outs(f1, n_known, t_res, [])
    t2, f2 = join_consts([t2, f2], [tn, fn])
    res = list(fresh_vars([*t_res, *f_res]))
    eqn1: Eqn | None = None
    if known_outs or res:
        eqn1 = Eqn(cond_p, (pred, *known_ins), cond_params(t1, f1), (*known_outs, *res))
    unknown_ins = [a for a, u in zip(ops, uks) if u]
    unknown_outs = tuple(v for v, u in zip(eqn.out_binders, out_uk) if u)
    eqn2 = Eqn(cond_p, (pred, *res, *unknown_ins), cond_params(t2, f2), unknown_outs)
    residuals = res + ([pred] if isinstance(pred, Var) else [])
    return eqn1, eqn2, out_uk, residuals


def _cond_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    pred, *ops = primals
    if isinstance(pred, UndefPrimal):
        raise NonLinearError("cond", "its predicate is a linear value")
    lin = [isinstance(x, UndefPrimal) for x in ops]
    tj = transpose_jaxpr(get_jaxpr("cond", params, "true_jaxpr"), lin)
    fj = transpose_jaxpr(get_jaxpr("cond", params, "false_jaxpr"), lin)
    res = [x for x in ops if not isinstance(x, UndefPrimal)]
    outs = iter(bind_cond(pred, [*res, *cts], tj, fj))
    return [None, *[next(outs) if li else None for li in lin]]


def _cond_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    tj = get_jaxpr("cond", eqn.params, "true_jaxpr")
    fj = get_jaxpr("cond", eqn.params, "false_jaxpr")
    used_t = dce_jaxpr(tj, used)[1]
    used_f = dce_jaxpr(fj, used)[1]
    used_in = [a or b for a, b in zip(used_t, used_f)]
    tj2 = dce_jaxpr(tj, used, instantiate=used_in)[0]
    fj2 = dce_jaxpr(fj, used, instantiate=used_in)[0]
    ins = (eqn.inputs[0], *[a for a, u in zip(eqn.inputs[1:], used_in) if u])
    outs = tuple(v for v, u in zip(eqn.out_binders, used) if u)
    return Eqn(cond_p, ins, cond_params(tj2, fj2), outs)


# -- scan -----------------------------------------------------------------------


def _scan_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(eqn.params)
    c_uk, init_uk, x_uk = split(unks_in, nconsts, ncarry)
    c_in, init_in, x_in = split(eqn.inputs, nconsts, ncarry)
    ny = len(jaxpr.outs) - ncarry
    cache: dict[tuple[bool, ...], tuple[Jaxpr, Jaxpr, list[bool], int]] = {}

    def pe_at(flags: list[bool]) -> tuple[Jaxpr, Jaxpr, list[bool], int]:
        key = tuple(flags)
        if key not in cache:
            cache[key] = partial_eval_jaxpr(
                jaxpr, [*c_uk, *flags, *x_uk], instantiate=[*flags, *[False] * ny]
            )
        return cache[key]

    carry_uk = carry_fixpoint(lambda f: pe_at(f)[2][:ncarry], init_uk)
    j1, j2, out_uk, nres = pe_at(carry_uk)
    ys_uk = out_uk[ncarry:]
    carry_out, ys_out = split(eqn.out_binders, ncarry)[:2]
    n_known_outs = out_uk.count(False)
    nkc = c_uk.count(False)
    if not any(out_uk):  # nothing unknown is needed: one known scan, no residuals
        j1 = dce_jaxpr(Jaxpr(j1.in_binders, j1.eqns, j1.outs[:n_known_outs]),
                       [True] * n_known_outs, instantiate=True)[0]
        ins1 = [a for a, u in zip(eqn.inputs, unks_in) if not u]
        eqn1 = Eqn(scan_p, tuple(ins1), scan_params(j1, nkc, ncarry, length, reverse),
                   eqn.out_binders)
        return eqn1, None, out_uk, []

    # which residuals change from one iteration to the next
    n_k = len(j1.in_binders)
    variant = forward_deps(j1, [*[False] * nkc, *[True] * (n_k - nkc)])[n_known_outs:]
    res_avals = j1.out_avals[n_known_outs:]
    known_outs = j1.outs[:n_known_outs]
    # a residual that is just a slice of a known xs is read from that xs, not restacked
    nk_carry = carry_uk.count(False)
    x_index = {v: i for i, v in enumerate(j1.in_binders[nkc + nk_carry :])}
    known_x_atoms = [a for a, u in zip(x_in, x_uk) if not u]
    forwarded: list[Atom | None] = [
        known_x_atoms[x_index[r]] if v and isinstance(r, Var) and r in x_index else None
        for r, v in zip(j1.outs[n_known_outs:], variant)
    ]
    stack_outs = [
        a for a, v, f in zip(j1.outs[n_known_outs:], variant, forwarded) if v and f is None
    ]
    j1v = dce_jaxpr(Jaxpr(j1.in_binders, j1.eqns, (*known_outs, *stack_outs)),
                    [True] * (n_known_outs + len(stack_outs)), instantiate=True)[0]
    known_c_atoms = [a for a, u in zip(c_in, c_uk) if not u]
    if all(variant):  # j2 takes (res, consts, carry, xs); the scan wants (consts, carry, res, xs)
        n_ukc, n_ukcarry = c_uk.count(True), carry_uk.count(True)
        order = [*range(nres, nres + n_ukc + n_ukcarry), *range(nres),
                 *range(nres + n_ukc + n_ukcarry, len(j2.in_binders))]
        j2p = permute_binders(j2, order)
        kc_used: list[Atom] = []
    else:
        inv_used = [False] * n_known_outs + [not v for v in variant]
        j_inv, used_in = dce_jaxpr(j1, inv_used)
        kc_used = [a for a, u in zip(known_c_atoms, used_in[:nkc]) if u]
        n_ukc, n_ukcarry = c_uk.count(True), carry_uk.count(True)
        rest_avals = j2.in_avals[nres:]
        var_avals = [a for a, v in zip(res_avals, variant) if v]
        ukc_avals, ukcarry_avals, ukx_avals = split(rest_avals, n_ukc, n_ukcarry)

        def body2(args: list[Value]) -> list[Value]:
            kc, ukc, ukcarry, vres, ukx = split(args, len(kc_used), n_ukc, n_ukcarry, len(var_avals))
            inv_vals = iter(eval_jaxpr(j_inv, kc))
            vit = iter(vres)
            res = [next(vit) if v else next(inv_vals) for v in variant]
            return eval_jaxpr(j2, [*res, *ukc, *ukcarry, *ukx])

        closed = trace_to_jaxpr_flat(
            body2, [*j_inv.in_avals, *ukc_avals, *ukcarry_avals, *var_avals, *ukx_avals], "scan"
        )
        if closed.consts:
            raise AssertionError("partial evaluation of a scan body staged array constants")
        j2p = closed.jaxpr

    uk_all = [*c_uk, *carry_uk, *x_uk]
    stacked = list(fresh_vars([
        ShapedArray((length, *a.shape), a.dtype)
        for a, v, f in zip(res_avals, variant, forwarded) if v and f is None
    ]))
    stacked_it = iter(stacked)
    res_xs: list[Atom] = [
        f if f is not None else next(stacked_it) for v, f in zip(variant, forwarded) if v
    ]
    ins1 = [a for a, u in zip(eqn.inputs, uk_all) if not u]
    known_binders = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    eqn1 = Eqn(
        scan_p, tuple(ins1),
        scan_params(j1v, nkc, nk_carry, length, reverse),
        (*known_binders, *stacked),
    )
    ins2 = [
        *kc_used,
        *[a for a, u in zip(c_in, c_uk) if u],
        *[a for a, u in zip(init_in, carry_uk) if u],
        *res_xs,
        *[a for a, u in zip(x_in, x_uk) if u],
    ]
    unknown_binders = [v for v, u in zip(eqn.out_binders, out_uk) if u]
    eqn2 = Eqn(
        scan_p, tuple(ins2),
        scan_params(j2p, len(kc_used) + c_uk.count(True), carry_uk.count(True), length, reverse),
        tuple(unknown_binders),
    )
    known_atoms = {*[a for a, u in zip(eqn.inputs, unks_in) if not u and isinstance(a, Var)], *stacked}
    # a carry forced unknown by the fixpoint reads its (known) initial value
    residuals = list(dict.fromkeys(a for a in ins2 if isinstance(a, Var) and a in known_atoms))
    del carry_out, ys_out, ys_uk
    return eqn1, eqn2, out_uk, residuals


def _scan_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(params)
    consts, init, xs = split(primals, nconsts, ncarry)
    c_lin = [isinstance(x, UndefPrimal) for x in consts]
    x_lin = [isinstance(x, UndefPrimal) for x in xs]
    res_c = [x for x in consts if not isinstance(x, UndefPrimal)]
    res_x = [x for x in xs if not isinstance(x, UndefPrimal)]
    ct_carry, ct_ys = list(cts[:ncarry]), list(cts[ncarry:])
    in_avals = jaxpr.in_avals
    c_avals, carry_avals, x_avals = split(in_avals, nconsts, ncarry)
    lin_c_avals = [a for a, li in zip(c_avals, c_lin) if li]
    res_c_avals = [a for a, li in zip(c_avals, c_lin) if not li]
    res_x_avals = [a for a, li in zip(x_avals, x_lin) if not li]
    y_avals = jaxpr.out_avals[ncarry:]

    def body_t(args: list[Value]) -> list[Value]:
        rc, acc, ctc, rx, cty = split(args, len(res_c), len(lin_c_avals), ncarry, len(res_x))
        rci, rxi = iter(rc), iter(rx)
        ins: list[Primal] = [
            *[UndefPrimal(a) if li else next(rci) for a, li in zip(c_avals, c_lin)],
            *[UndefPrimal(a) for a in carry_avals],
            *[UndefPrimal(a) if li else next(rxi) for a, li in zip(x_avals, x_lin)],
        ]
        outs = backward_pass(jaxpr, ins, [*ctc, *cty], instantiate=True)
        ct_c, ct_carry_in, ct_x = split(outs, len(acc), ncarry)
        summed = [bind1(add_p, (a, c), pmap()) for a, c in zip(acc, ct_c) if c is not None]
        return [*summed, *[c for c in ct_carry_in if c is not None],
                *[c for c in ct_x if c is not None]]

    closed = trace_to_jaxpr_flat(
        body_t, [*res_c_avals, *lin_c_avals, *carry_avals, *res_x_avals, *y_avals], "scan_transpose"
    )
    n_cl = len(closed.consts)
    acc0 = [zeros(a) for a in lin_c_avals]
    outs = bind(
        scan_p,
        [*closed.consts, *res_c, *acc0, *ct_carry, *res_x, *ct_ys],  # type: ignore[list-item]  # staging consts are values
        scan_params(closed.jaxpr, n_cl + len(res_c), len(acc0) + ncarry, length, not reverse),
    )
    ct_consts, ct_init, ct_xs = split(outs, len(acc0), ncarry)
    cci, cxi = iter(ct_consts), iter(ct_xs)
    return [
        *[next(cci) if li else None for li in c_lin],
        *[c if isinstance(p, UndefPrimal) else None for c, p in zip(ct_init, init)],
        *[next(cxi) if li else None for li in x_lin],
    ]


def _scan_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(eqn.params)
    ny = len(jaxpr.outs) - ncarry
    used_ys = list(used[ncarry:])

    def step(flags: list[bool]) -> list[bool]:
        used_in = dce_jaxpr(jaxpr, [*flags, *used_ys])[1]
        return used_in[nconsts : nconsts + ncarry]

    used_carry = carry_fixpoint(step, list(used[:ncarry]))
    inst = [False] * nconsts + used_carry + [False] * (len(jaxpr.in_binders) - nconsts - ncarry)
    new, used_in = dce_jaxpr(jaxpr, [*used_carry, *used_ys], instantiate=inst)
    ins = tuple(a for a, u in zip(eqn.inputs, used_in) if u)
    outs = tuple(v for v, u in zip(eqn.out_binders, [*used_carry, *used_ys]) if u)
    del ny
    return Eqn(
        scan_p, ins,
        scan_params(new, sum(used_in[:nconsts]), sum(used_carry), length, reverse),
        outs,
    )


# -- while ----------------------------------------------------------------------


def _while_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    cj, bj, cn, bn = _while_parts(eqn.params)
    cc_uk, bc_uk, init_uk = split(unks_in, cn, bn)
    carry_uk = carry_fixpoint(lambda f: forward_deps(bj, [*bc_uk, *f]), init_uk)
    if forward_deps(cj, [*cc_uk, *carry_uk])[0]:
        return _stage_all(unks_in, eqn)
    if not any(carry_uk):
        return eqn, None, [False] * len(eqn.out_binders), []
    known = [not u for u in carry_uk]
    cc, bc, init = split(eqn.inputs, cn, bn)
    # the known loop: the known carry values only (they depend on nothing unknown)
    cj_k = Jaxpr(
        tuple(v for v, u in zip(cj.in_binders, [*cc_uk, *carry_uk]) if not u), cj.eqns, cj.outs
    )
    bj_k, used = dce_jaxpr(
        bj, known, instantiate=[*[not u for u in bc_uk], *known]
    )
    del used
    cc_k = [a for a, u in zip(cc, cc_uk) if not u]
    bc_k = [a for a, u in zip(bc, bc_uk) if not u]
    init_k = [a for a, u in zip(init, carry_uk) if not u]
    eqn1 = Eqn(
        while_p, (*cc_k, *bc_k, *init_k),
        while_params(cj_k, bj_k, len(cc_k), len(bc_k)),
        tuple(v for v, k in zip(eqn.out_binders, known) if k),
    )
    # the unknown loop recomputes everything; its known results are dropped
    outs2 = tuple(Var(v.aval) if k else v for v, k in zip(eqn.out_binders, known))
    eqn2 = Eqn(while_p, eqn.inputs, eqn.params, outs2)
    return eqn1, eqn2, carry_uk, _known_vars(eqn.inputs, unks_in)


WHILE_REVERSE_MESSAGE = (
    "reverse-mode differentiation (grad, vjp, transpose) does not work through "
    "lax.while_loop, nor through lax.fori_loop with traced bounds: the number of "
    "iterations is only known at run time, so they cannot be stored for the backward "
    "pass. Use lax.scan, or lax.fori_loop with static (Python int) bounds, which is a "
    "scan; forward mode (jvp, jacfwd) works through while_loop."
)


def _while_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    raise ReverseModeError(WHILE_REVERSE_MESSAGE)


def _while_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    cj, bj, cn, bn = _while_parts(eqn.params)
    n_carry = len(eqn.out_binders)
    cond_used = dce_jaxpr(cj, [True])[1][cn:]

    def step(flags: list[bool]) -> list[bool]:
        return dce_jaxpr(bj, flags)[1][bn:]

    used_carry = carry_fixpoint(step, [a or b for a, b in zip(used, cond_used)])
    cj2, used_cc = dce_jaxpr(cj, [True], instantiate=[*[False] * cn, *used_carry])
    bj2, used_bc = dce_jaxpr(bj, used_carry, instantiate=[*[False] * bn, *used_carry])
    cc, bc, init = split(eqn.inputs, cn, bn)
    ncc, nbc = sum(used_cc[:cn]), sum(used_bc[:bn])
    ins = (
        *[a for a, u in zip(cc, used_cc[:cn]) if u],
        *[a for a, u in zip(bc, used_bc[:bn]) if u],
        *[a for a, u in zip(init, used_carry) if u],
    )
    outs = tuple(v for v, u in zip(eqn.out_binders, used_carry) if u)
    del n_carry
    return Eqn(while_p, ins, while_params(cj2, bj2, ncc, nbc), outs)


partial_eval_jaxpr_rules.register(cond_p, _cond_pe)
partial_eval_jaxpr_rules.register(scan_p, _scan_pe)
partial_eval_jaxpr_rules.register(while_p, _while_pe)
transpose_rules.register(cond_p, _cond_transpose)
transpose_rules.register(scan_p, _scan_transpose)
transpose_rules.register(while_p, _while_transpose)
dce_rules.register(cond_p, _cond_dce)
dce_rules.register(scan_p, _scan_dce)
dce_rules.register(while_p, _while_dce)
