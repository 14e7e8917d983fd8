"""``scan``: the higher-order primitive, every rule for it, and ``lax.scan``.

Params are the body jaxpr, the counts of constants and carry values, the
length, the direction and ``unroll`` (JAX's: the lowering runs that many
steps per iteration of its loop; every transformation keeps it). Partial evaluation unzips the body at the fixpoint
of its unknown carry values: residuals that change from one iteration to the
next are stacked by the known scan and scanned over by the unknown one;
loop-invariant residuals are recomputed inside the unknown body from the
known constants instead of being stacked ``length`` times. Transposition runs
a scan in the opposite direction over the transposed body, accumulating the
cotangents of the linear constants in the carry.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import NamedTuple
from typing import TypeVar

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray, physical_aval
from ..core.dtypes import int32, is_inexact
from ..core.errors import ArgumentValueError, ConcretizationError, PrimitiveTypeError, ShapeError, UnrollError
from ..core.eval import eval_jaxpr
from ..core.ir import Atom, Eqn, Jaxpr, NDArray, Params, Primitive, Var
from ..core.rules import BatchDim, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind, bind1
from ..hlo import HloValue, LoweringContext, compare, full, lower_jaxpr_body, tensor_type
from ..interpreters.dce import dce_jaxpr
from ..interpreters.partial_eval import partial_eval_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import backward_pass
from ..primitives import add_p
from ..primitives._params import get_bool, get_int, get_jaxpr
from ..primitives.structural import instantiate_zeros, move_batch_axis, zeros_like_aval as zeros
from ..core.explicit import row_type  # explicit sharding
from .common import (


    I32,
    PeResult,
    as_value,
    batch_as,
    batch_jaxpr,
    carry_fixpoint,
    carry_mismatch,
    promote_weak_carry,
    check_jaxpr_in_types,
    dims0,
    eval_np,
    forward_deps,
    fresh_vars,
    loop,
    consts_first,
    loop_jvp_jaxpr,
    nonzero,
    permute_binders,
    permute_outs,
    regroup,
    split,
    tangents_out,
    to_front,
    trace_callable,
    types_str,
)


C = TypeVar("C")


X = TypeVar("X")


Y = TypeVar("Y")


class ScanParams(NamedTuple):
    """``scan``'s params, typed: ``ScanParams.of(eqn.params)`` reads and checks
    them (an error names the primitive and the param); ``to_params()`` makes
    the map an equation holds."""

    jaxpr: Jaxpr
    num_consts: int
    num_carry: int
    length: int
    reverse: bool
    #: steps per iteration of the compiled loop (JAX's: 1 rolled, 0 every
    #: step, as ``length``); only the lowering reads it, the values are the same
    unroll: int

    @staticmethod
    def of(params: Params) -> ScanParams:
        return ScanParams(
            get_jaxpr("scan", params, "jaxpr"),
            get_int("scan", params, "num_consts"),
            get_int("scan", params, "num_carry"),
            get_int("scan", params, "length"),
            get_bool("scan", params, "reverse"),
            get_int("scan", params, "unroll"),
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())


def _scan_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    jaxpr, nconsts, ncarry, length, reverse, _ = ScanParams.of(params)
    consts, carry, xs = split(args, nconsts, ncarry)
    y_avals = jaxpr.out_avals[ncarry:]
    ys: list[list[NDArray]] = [[] for _ in y_avals]
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = eval_np(jaxpr, [*consts, *carry, *[x[i] for x in xs]])
        carry = outs[:ncarry]
        for acc, y in zip(ys, outs[ncarry:]):
            acc.append(y)
    stacked: list[NDArray] = []
    for acc, a in zip(ys, y_avals):
        if reverse:
            acc.reverse()
        stacked.append(np.stack(acc) if acc else np.zeros((0, *a.shape), a.dtype))
    return [*carry, *stacked]


def _scan_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    jaxpr, nconsts, ncarry, length, _, unroll = ScanParams.of(params)
    consts, carry, xs = split(avals, nconsts, ncarry)
    if length < 0:
        raise PrimitiveTypeError(f"scan: length must be >= 0, got {length}")
    if unroll < 0:
        raise PrimitiveTypeError(f"scan: unroll must be >= 0, got {unroll}")
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise PrimitiveTypeError(
                f"scan: every scanned-over input needs leading axis {length}, got {x.str_short()}"
            )
    x_avals = [ShapedArray(x.shape[1:], x.dtype) for x in xs]
    outs = check_jaxpr_in_types("scan", "jaxpr", jaxpr, [*consts, *carry, *x_avals])
    if len(outs) < ncarry or outs[:ncarry] != tuple(carry):
        raise PrimitiveTypeError(
            f"scan: jaxpr must return the carry's types {types_str(carry)} first, but "
            f"returns {types_str(outs)}"
        )
    # the body's output types, weak flags included (JAX's: a weak initial carry
    # the body makes strong comes out strong)
    return [*outs[:ncarry], *[ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in outs[ncarry:]]]


def unroll_param(fun: str, unroll: object, length: int) -> int:
    """The ``unroll`` param from a user's ``unroll``, as JAX reads it: a bool
    (``True``: every step, ``max(length, 1)``) or a non-negative int."""
    if isinstance(unroll, (bool, np.bool_)):
        return max(length, 1) if unroll else 1
    try:
        n = operator.index(unroll)  # type: ignore[arg-type]  # a TypeError for non-integers is the point
    except ConcretizationError as e:
        raise ConcretizationError(
            f"The `unroll` argument to `{fun}` expects a concrete `int` or `bool` value: {e}"
        ) from None
    except TypeError:
        raise UnrollError(
            f"{fun}: `unroll` must be a `bool` or a non-negative `int`, got {unroll!r}"
        ) from None
    if n < 0:
        raise UnrollError(f"{fun}: `unroll` must be a `bool` or a non-negative `int`, got {n}")
    return n


def _scan_length(xs_avals: Sequence[ShapedArray], length: int | None) -> int:
    lengths = set()
    for a in xs_avals:
        if not a.shape:
            raise PrimitiveTypeError(
                f"scan: every leaf of xs needs a leading axis to scan over, got {a.str_short()}"
            )
        lengths.add(a.shape[0])
    if length is not None:
        if type(length) is not int or length < 0:
            raise PrimitiveTypeError(f"scan: length must be a Python int >= 0, got {length!r}")
        lengths.add(length)
    if len(lengths) > 1:
        raise ShapeError(
            f"scan: the leading axes of xs (and length) disagree: {sorted(lengths)}"
        )
    if not lengths:
        raise ArgumentValueError("scan: give length when xs is None (or has no leaves)")
    return lengths.pop()


def _scan_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(params)
    consts, init, xs = split(primals, nconsts, ncarry)
    c_t, init_t, xs_t = split(tangents, nconsts, ncarry)
    in_avals = jaxpr.in_avals
    flt = [is_inexact(a.dtype) for a in in_avals]
    c_nz = [nonzero(t) and f for t, f in zip(c_t, flt[:nconsts])]
    init_nz = [nonzero(t) and f for t, f in zip(init_t, flt[nconsts : nconsts + ncarry])]
    x_nz = [nonzero(t) and f for t, f in zip(xs_t, flt[nconsts + ncarry :])]
    ny = len(jaxpr.outs) - ncarry
    j2, carry_nz, ys_nz, k = loop_jvp_jaxpr(jaxpr, c_nz, init_nz, x_nz, ny)
    ncd, ncad, nxd, nk = sum(c_nz), sum(carry_nz), sum(x_nz), len(k)
    # the constants the JVP staged join the scan's constants, first
    j2 = permute_binders(j2, consts_first(regroup([nconsts, ncarry, len(xs)], [ncd, ncad, nxd]), nk))
    nyd = sum(ys_nz)
    j2 = permute_outs(j2, regroup([ncarry, ny], [ncad, nyd]))
    c_dots = [t for t, f in zip(c_t, c_nz) if f and not isinstance(t, Zero)]
    carry_dots = [instantiate_zeros(t) for t, f in zip(init_t, carry_nz) if f]
    x_dots = [t for t, f in zip(xs_t, x_nz) if f and not isinstance(t, Zero)]
    outs = bind(
        scan_p,
        [*k, *consts, *c_dots, *init, *carry_dots, *xs, *x_dots],
        ScanParams(j2, nk + nconsts + ncd, ncarry + ncad, length, reverse, unroll).to_params(),
    )
    carry_out, carry_dots_out, ys_rest = split(outs, ncarry, ncad)
    ys_out, ys_dots_out = ys_rest[:ny], ys_rest[ny:]
    carry_avals = jaxpr.out_avals[:ncarry]
    y_avals = [ShapedArray((length, *a.shape), a.dtype) for a in jaxpr.out_avals[ncarry:]]
    _, carry_tans = tangents_out([*carry_out, *carry_dots_out], ncarry, carry_nz, carry_avals)
    _, y_tans = tangents_out([*ys_out, *ys_dots_out], ny, ys_nz, y_avals)
    return [*carry_out, *ys_out], [*carry_tans, *y_tans]


def _scan_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(params)
    consts, init, xs = split(vals, nconsts, ncarry)
    cd, initd, xsd = split(dims, nconsts, ncarry)
    c_b = [d is not None for d in cd]
    x_b = [d is not None for d in xsd]
    carry_b = carry_fixpoint(
        lambda f: forward_deps(jaxpr, [*c_b, *f, *x_b])[:ncarry], [d is not None for d in initd]
    )
    ys_b = forward_deps(jaxpr, [*c_b, *carry_b, *x_b])[ncarry:]
    j2 = batch_jaxpr(jaxpr, size, dims0([*c_b, *carry_b, *x_b]), [*carry_b, *ys_b])
    consts = to_front(size, consts, cd)
    init = batch_as(size, init, initd, carry_b)
    xs = [x if d is None else move_batch_axis(size, d, 1, x) for x, d in zip(xs, xsd)]
    outs = bind(scan_p, [*consts, *init, *xs], ScanParams(j2, nconsts, ncarry, length, reverse, unroll).to_params())
    return [*outs], [*dims0(carry_b), *[1 if b else None for b in ys_b]]


def _scan_pe(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(eqn.params)
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
        eqn1 = Eqn(scan_p, tuple(ins1), ScanParams(j1, nkc, ncarry, length, reverse, unroll).to_params(),
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
        ScanParams(j1v, nkc, nk_carry, length, reverse, unroll).to_params(),
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
        ScanParams(j2p, len(kc_used) + c_uk.count(True), carry_uk.count(True), length, reverse,
                   unroll).to_params(),
        tuple(unknown_binders),
    )
    known_atoms = {*[a for a, u in zip(eqn.inputs, unks_in) if not u and isinstance(a, Var)], *stacked}
    # a carry forced unknown by the fixpoint reads its (known) initial value
    residuals = list(dict.fromkeys(a for a in ins2 if isinstance(a, Var) and a in known_atoms))
    del carry_out, ys_out, ys_uk
    return eqn1, eqn2, out_uk, residuals


def _scan_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(params)
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
        ScanParams(closed.jaxpr, n_cl + len(res_c), len(acc0) + ncarry, length, not reverse,
                   unroll).to_params(),
    )
    ct_consts, ct_init, ct_xs = split(outs, len(acc0), ncarry)
    cci, cxi = iter(ct_consts), iter(ct_xs)
    return [
        *[next(cci) if li else None for li in c_lin],
        *[c if isinstance(p, UndefPrimal) else None for c, p in zip(ct_init, init)],
        *[next(cxi) if li else None for li in x_lin],
    ]


def _scan_dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(eqn.params)
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
        ScanParams(new, sum(used_in[:nconsts]), sum(used_carry), length, reverse, unroll).to_params(),
        outs,
    )


def _scan_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    jaxpr, nconsts, ncarry, length, reverse, unroll = ScanParams.of(eqn.params)
    consts, rest = list(args[:nconsts]), list(args[nconsts:])
    carry, xs = rest[:ncarry], rest[ncarry:]
    # the slices are taken on the device's types (typed keys: their words)
    x_avals = [physical_aval(a.aval) for a in eqn.inputs[nconsts + ncarry :]]
    ys_avals = [physical_aval(v.aval) for v in eqn.out_binders[ncarry:]]
    def step(s: HloValue, c_s: list[HloValue], carry_s: list[HloValue], xs_s: list[HloValue],
             ys_s: list[HloValue]) -> tuple[list[HloValue], list[HloValue]]:
        """Step ``s`` (counted from 0 in the order the steps run)."""
        zero = full(0, I32)
        idx = hlo.subtract(full(length - 1, I32), s) if reverse else s
        x_slices: list[HloValue] = []
        for x, a in zip(xs_s, x_avals):
            sl = hlo.dynamic_slice(x, [idx] + [zero] * (a.ndim - 1), [1, *a.shape[1:]])
            x_slices.append(hlo.reshape(tensor_type(ShapedArray(a.shape[1:], a.dtype)), sl))
        outs = lower_jaxpr_body(ctx, jaxpr, [*c_s, *carry_s, *x_slices])
        new_ys: list[HloValue] = []
        for acc, y, a in zip(ys_s, outs[ncarry:], ys_avals):
            upd = hlo.reshape(tensor_type(ShapedArray((1, *a.shape[1:]), a.dtype)), y)
            new_ys.append(hlo.dynamic_update_slice(acc, upd, [idx] + [zero] * (a.ndim - 1)))
        return list(outs[:ncarry]), new_ys

    # JAX's unrolling: a loop of length // unroll iterations, each running
    # ``unroll`` steps, then the remaining steps unrolled after it; unroll=0,
    # or a single iteration that would run every step, unrolls them all
    per = unroll if unroll > 0 else length
    trips, rem = divmod(length, per) if per > 0 else (0, length)
    if per != 1 and trips == 1 and rem == 0:
        trips, rem = 0, length
    ys = [full(0, a) for a in ys_avals]
    if trips:
        state = [full(0, I32), *consts, *carry, *xs, *ys]
        types = [tensor_type(I32), *[tensor_type(a.aval) for a in eqn.inputs], *map(tensor_type, ys_avals)]
        op, cond_block, body_block = loop(state, types)
        with ir.InsertionPoint(cond_block):
            hlo.return_([compare(cond_block.arguments[0], full(trips, I32), int32, "LT")])
        with ir.InsertionPoint(body_block):
            i, c_s, carry_s, xs_s, ys_s = _unpack(list(body_block.arguments), nconsts, ncarry, len(xs))
            base = i if per == 1 else hlo.multiply(i, full(per, I32))
            for j in range(per):
                s = base if j == 0 else hlo.add(base, full(j, I32))
                carry_s, ys_s = step(s, c_s, carry_s, xs_s, ys_s)
            hlo.return_([hlo.add(i, full(1, I32)), *c_s, *carry_s, *xs_s, *ys_s])
        _, _, carry, _, ys = _unpack(list(op.results), nconsts, ncarry, len(xs))
    for k in range(trips * per, length):
        carry, ys = step(full(k, I32), consts, carry, xs, ys)
    return [*carry, *ys]


def _unpack(
    state: list[HloValue], nconsts: int, ncarry: int, nxs: int
) -> tuple[HloValue, list[HloValue], list[HloValue], list[HloValue], list[HloValue]]:
    """The lowered loop's state: (index, consts, carry, xs, ys)."""
    c, carry, xs, ys = split(state[1:], nconsts, ncarry, nxs)
    return state[0], c, carry, xs, ys


scan_p = Primitive(
    "scan", _scan_impl, _scan_abstract,
    Rules(
        jvp=_scan_jvp, transpose=_scan_transpose, batch=_scan_batch, lower=_scan_lowering,
        partial_eval=_scan_pe, dce=_scan_dce,
    ),
)


def scan(
    f: Callable[[C, X], tuple[C, Y]],
    init: object,
    xs: X,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[C, Y]:
    """``jax.lax.scan``: ``f(carry, x) -> (carry, y)`` over the leading axis of
    ``xs``; returns the final carry and the stacked ``y``s.

    ``unroll`` (JAX's): how many steps each iteration of the compiled loop
    runs -- ``True`` (or 0) every step, with no loop; ``False`` 1. The values
    are the same whatever it is."""
    init_leaves, init_tree = tree.flatten(init)
    init_vals = [as_value(x, "scan's init") for x in init_leaves]
    carry_avals = [aval_of(x) for x in init_vals]
    xs_leaves, xs_tree = tree.flatten(xs)
    xs_vals = [as_value(x, "scan's xs") for x in xs_leaves]
    xs_avals = [aval_of(x) for x in xs_vals]
    n = _scan_length(xs_avals, length)
    steps = unroll_param("scan", unroll, n)
    x_avals = [ShapedArray(a.shape[1:], a.dtype, sharding=row_type(a)) for a in xs_avals]  # explicit sharding: typed rows
    args_tree = tree.structure((init, xs))
    out_parts: list[tuple[tree.TreeDef, tree.TreeDef]] = []

    def body(carry: C, x: X) -> object:
        out: object = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise PrimitiveTypeError(
                f"scan: f must return a pair (carry, y), got a {type(out).__name__}"
            )
        out_parts.append((tree.structure(out[0]), tree.structure(out[1])))
        return (out[0], out[1])

    closed, _ = trace_callable(body, args_tree, [*carry_avals, *x_avals], "scan's f")
    ncarry = len(carry_avals)
    if promote_weak_carry(init_vals, carry_avals, closed.out_avals[:ncarry]):
        out_parts.clear()  # a weak init took the body's dtype: trace again (as JAX)
        closed, _ = trace_callable(body, args_tree, [*carry_avals, *x_avals], "scan's f")
    c_tree, y_tree = out_parts[0]
    if c_tree != init_tree or closed.out_avals[:ncarry] != tuple(carry_avals):
        raise carry_mismatch("scan", "f", init_tree, carry_avals, c_tree,
                              closed.out_avals[: c_tree.num_leaves])
    consts = [as_value(c, "constants") for c in closed.consts]
    params = ScanParams(closed.jaxpr, len(consts), ncarry, n, bool(reverse), steps).to_params()
    outs = bind(scan_p, [*consts, *init_vals, *xs_vals], params)
    carry_out: C = tree.unflatten(init_tree, outs[:ncarry])  # type: ignore[assignment]  # init's structure
    ys: Y = tree.unflatten(y_tree, outs[ncarry:])  # type: ignore[assignment]  # f's y structure, stacked
    return carry_out, ys
