"""Partial evaluation (the trace and ``partial_eval_jaxpr``), ``linearize_jaxpr``
and ``dce_jaxpr``: the tutorial's unzipping example, known operations run on
the fly, recipes sorted into jaxprs, one-entry rules for special primitives,
and properties over generated jaxprs."""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax
from typedax.core import Eqn, Jaxpr, Primitive, Var, eval_jaxpr, parse_jaxpr
from typedax.core.avals import ShapedArray
from typedax.core.errors import ConcretizationError, EscapedTracerError, JaxprTypeError
from typedax.core.ir import NO_PARAMS, NDArray, Params
from typedax.core.trace import Value, bind
from typedax.core.rules import Rules
from typedax.interpreters.dce import dce_jaxpr
from typedax.interpreters.jvp import jvp_jaxpr
from typedax.interpreters.partial_eval import (
    PartialEvalTrace,
    PartialVal,
    partial_eval_flat,
    partial_eval_jaxpr,
)
from typedax.primitives import cos_p, mul_p, neg_p, sin_p
from typedax.testing import jaxprs_with_args
from typedax.transforms import dce_jaxpr as dce_public
from typedax.transforms import linearize_jaxpr
from typedax.transforms import partial_eval_jaxpr as pe_public
from typedax.testing import assert_roundtrips

F64 = np.dtype(np.float64)
SCALAR = ShapedArray((), F64)


roundtrips = assert_roundtrips


def test_transforms_facade() -> None:
    assert pe_public is partial_eval_jaxpr
    assert dce_public is dce_jaxpr


# -- partial_eval_jaxpr: the tutorial's example ----------------------------------
SIN_NEG_JVP = """{ lambda a:float64[] b:float64[] .
  let c:float64[] = sin a
      d:float64[] = cos a
      e:float64[] = mul d b
      f:float64[] = neg c
      g:float64[] = neg e
  in ( f, g ) }"""


def test_tutorial_unzips_jvp_into_primal_and_tangent_jaxprs() -> None:
    j = parse_jaxpr(SIN_NEG_JVP)
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, [False, True])
    assert out_unk == [False, True]
    assert nres == 1
    assert str(known) == (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = sin a\n"
        "      c:float64[] = cos a\n"
        "      d:float64[] = neg b\n"
        "  in ( d, c ) }"
    )
    assert str(unknown) == (
        "{ lambda a:float64[] b:float64[] .\n"
        "  let c:float64[] = mul a b\n"
        "      d:float64[] = neg c\n"
        "  in ( d ) }"
    )


def test_all_known_and_all_unknown() -> None:
    j = parse_jaxpr(SIN_NEG_JVP)
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, [False, False])
    assert out_unk == [False, False] and nres == 0 and not unknown.eqns
    assert known == j
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, [True, True])
    assert out_unk == [True, True] and nres == 0 and not known.eqns
    assert unknown == j


def test_instantiate_known_outputs() -> None:
    j = parse_jaxpr("{ lambda a:float64[] b:float64[] . let c:float64[] = sin a in ( c, 2.0, b ) }")
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, [False, True], instantiate=True)
    assert out_unk == [True, True, True]
    assert nres == 1  # c becomes a residual; the literal stays a literal
    assert eval_jaxpr(unknown, [np.sin(1.0), 5.0]) == [np.sin(1.0), 2.0, 5.0]
    with pytest.raises(JaxprTypeError, match="instantiate"):
        partial_eval_jaxpr(j, [False, True], instantiate=[True])
    with pytest.raises(JaxprTypeError, match="in_unknowns"):
        partial_eval_jaxpr(j, [False])


@given(
    jaxprs_with_args(max_eqns=8).flatmap(
        lambda c: st.tuples(st.just(c), st.lists(st.booleans(), min_size=len(c[1]), max_size=len(c[1])))
    )
)
def test_partial_eval_jaxpr_agrees_with_evaluation(case: tuple[tuple[Jaxpr, list[NDArray]], list[bool]]) -> None:
    (j, args), unknowns = case
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, unknowns)
    roundtrips(known)
    roundtrips(unknown)
    expected = eval_jaxpr(j, list(args))
    k_args = [a for a, u in zip(args, unknowns) if not u]
    u_args = [a for a, u in zip(args, unknowns) if u]
    k_out = eval_jaxpr(known, k_args)
    n_known = len(k_out) - nres
    u_out = eval_jaxpr(unknown, [*k_out[n_known:], *u_args])
    k_it, u_it = iter(k_out[:n_known]), iter(u_out)
    got = [next(u_it) if u else next(k_it) for u in out_unk]
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
    # an output is unknown exactly when it reads an unknown input
    for a, u in zip(j.outs, out_unk):
        if isinstance(a, Var) and a in j.in_binders:
            assert u == unknowns[j.in_binders.index(a)]


# -- the trace: known operations run now, unknown ones are recorded ----------------
def test_known_operations_are_evaluated_on_the_fly() -> None:
    def f(xs: list[Value]) -> list[Value]:
        x, y = xs
        s = lax.sin(x)  # known
        if float(s) > 0:  # Python control flow on a known value
            s = lax.mul(s, 2.0)
        return [s, lax.mul(s, y), lax.neg(y)]

    jaxpr, pvals, consts = partial_eval_flat(f, [PartialVal.known(np.asarray(1.0)), PartialVal.unknown(SCALAR)])
    assert pvals[0].is_known and not pvals[1].is_known and not pvals[2].is_known
    np.testing.assert_allclose(np.asarray(pvals[0].const), 2 * np.sin(1.0))
    assert [e.primitive for e in jaxpr.eqns] == [mul_p, neg_p]
    assert len(consts) == 1 and len(jaxpr.in_binders) == 2
    roundtrips(jaxpr)
    out = eval_jaxpr(jaxpr, [*consts, np.asarray(3.0)])
    np.testing.assert_allclose(np.asarray(out[0]), 6 * np.sin(1.0))
    np.testing.assert_allclose(np.asarray(out[1]), -3.0)


def test_control_flow_on_unknown_value_is_a_concretization_error() -> None:
    def f(xs: list[Value]) -> list[Value]:
        return [xs[0]] if bool(lax.gt(xs[0], 0.0)) else [xs[0]]

    with pytest.raises(ConcretizationError, match="unknown inputs of partial evaluation"):
        partial_eval_flat(f, [PartialVal.unknown(SCALAR)])


def test_recipes_are_sorted_in_program_order_and_dead_ones_dropped() -> None:
    def f(xs: list[Value]) -> list[Value]:
        (x,) = xs
        a = lax.sin(x)
        lax.cos(x)  # dead: not reachable from the outputs
        b = lax.neg(a)
        return [lax.mul(a, b), b]

    jaxpr, pvals, consts = partial_eval_flat(f, [PartialVal.unknown(SCALAR)])
    assert [e.primitive for e in jaxpr.eqns] == [sin_p, neg_p, mul_p]
    assert consts == []
    assert cos_p not in [e.primitive for e in jaxpr.eqns]


def test_same_constant_is_one_binder_and_python_scalars_are_literals() -> None:
    c = np.arange(3.0)

    def f(xs: list[Value]) -> list[Value]:
        x, s = xs
        return [lax.add(lax.mul(x, c), lax.mul(c, x)), bind(mul_p, (s, 2.0), NO_PARAMS)[0]]

    jaxpr, _, consts = partial_eval_flat(f, [PartialVal.unknown(ShapedArray((3,), F64)), PartialVal.unknown(SCALAR)])
    assert len(consts) == 1 and consts[0] is c
    assert len(jaxpr.in_binders) == 3
    assert "= mul c 2.0" in str(jaxpr)
    roundtrips(jaxpr)


def test_instantiate_and_known_outputs() -> None:
    def f(xs: list[Value]) -> list[Value]:
        return [xs[0], np.asarray(4.0), xs[1]]

    jaxpr, pvals, consts = partial_eval_flat(
        f, [PartialVal.known(np.asarray(1.0)), PartialVal.unknown(SCALAR)], instantiate=[True, False, False]
    )
    assert [p.is_known for p in pvals] == [False, True, False]
    assert eval_jaxpr(jaxpr, [*consts, 7.0]) == [1.0, 7.0]


def test_unknown_tracer_escaping_partial_eval_raises() -> None:
    leaked: list[Value] = []

    def f(xs: list[Value]) -> list[Value]:
        leaked.append(xs[0])
        return [lax.neg(xs[0])]

    partial_eval_flat(f, [PartialVal.unknown(SCALAR)])
    with pytest.raises(EscapedTracerError):
        lax.sin(leaked[0])


# -- one rule serves both faces -------------------------------------------------------
def _pair_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, y = args
    return [np.asarray(np.sin(x)), np.asarray(np.cos(x) * y)]


def _pair_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return [avals[0], avals[1]]


# ``pair(x, y) = (sin x, cos x * y)``: a stand-in for a higher-order primitive
plain_pair_p = Primitive("test_pair", _pair_impl, _pair_abstract)


def _sincos_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.asarray(np.sin(args[0])), np.asarray(np.cos(args[0]))]


def _sincos_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return [avals[0], avals[0]]


sincos_p = Primitive("test_sincos", _sincos_impl, _sincos_abstract)


def _pair_rule(unks: Sequence[bool], eqn: Eqn) -> tuple[Eqn | None, Eqn | None, list[bool], list[Var]]:
    """Known x, unknown y: ``sin x`` and the residual ``cos x`` now, ``mul`` later."""
    x, y = eqn.inputs
    o1, o2 = eqn.out_binders
    if unks[0] or not unks[1]:  # stage it whole; known inputs become residuals
        res = [v for v, u in zip(eqn.inputs, unks) if not u and isinstance(v, Var)]
        return None, eqn, [True, True], res
    r = Var(o1.aval)
    return (
        Eqn(sincos_p, (x,), NO_PARAMS, (o1, r)),
        Eqn(mul_p, (r, y), NO_PARAMS, (o2,)),
        [False, True],
        [r],
    )


def test_a_primitives_rule_drives_the_trace_and_the_jaxpr_transform() -> None:
    pair_p = dataclasses.replace(plain_pair_p, rules=Rules(partial_eval=_pair_rule))
    # the pure face
    x, y = Var(SCALAR), Var(SCALAR)
    o1, o2 = Var(SCALAR), Var(SCALAR)
    j = Jaxpr((x, y), (Eqn(pair_p, (x, y), NO_PARAMS, (o1, o2)),), (o1, o2))
    known, unknown, out_unk, nres = partial_eval_jaxpr(j, [False, True])
    assert out_unk == [False, True] and nres == 1
    assert [e.primitive.name for e in known.eqns] == ["test_sincos"]
    assert [e.primitive.name for e in unknown.eqns] == ["mul"]
    # the trace
    jaxpr, pvals, consts = partial_eval_flat(
        lambda xs: bind(pair_p, xs, NO_PARAMS), [PartialVal.known(np.asarray(0.5)), PartialVal.unknown(SCALAR)]
    )
    assert pvals[0].is_known and not pvals[1].is_known
    np.testing.assert_allclose(np.asarray(pvals[0].const), np.sin(0.5))
    assert [e.primitive for e in jaxpr.eqns] == [mul_p]
    np.testing.assert_allclose(np.asarray(eval_jaxpr(jaxpr, [*consts, 2.0])[0]), 2 * np.cos(0.5))
    # all known: the primitive itself runs
    _, pvals, _ = partial_eval_flat(
        lambda xs: bind(pair_p, xs, NO_PARAMS), [PartialVal.known(np.asarray(0.5)), PartialVal.known(np.asarray(2.0))]
    )
    assert all(p.is_known for p in pvals)


# -- linearize_jaxpr ---------------------------------------------------------------------
def test_linearize_jaxpr_of_sin_neg() -> None:
    j = parse_jaxpr("{ lambda a:float64[] . let b:float64[] = sin a  c:float64[] = neg b in ( c ) }")
    primal, linear, nres = linearize_jaxpr(j)
    assert nres == 1
    out = eval_jaxpr(primal, [3.0])
    np.testing.assert_allclose(np.asarray(out[0]), -np.sin(3.0))
    (t,) = eval_jaxpr(linear, [*out[1:], 1.0])
    np.testing.assert_allclose(np.asarray(t), -np.cos(3.0))
    assert [e.primitive for e in linear.eqns] == [mul_p, neg_p]


@given(jaxprs_with_args(differentiable=True, max_eqns=6))
def test_linearize_jaxpr_agrees_with_jvp_jaxpr(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    primal, linear, nres = linearize_jaxpr(j)
    roundtrips(primal)
    roundtrips(linear)
    rng = np.random.default_rng(zlib.crc32(str(j).encode()))
    ts = [np.asarray(rng.normal(size=a.shape), a.dtype) for a in j.in_avals]
    p_out = eval_jaxpr(primal, list(args))
    n = len(j.outs)
    lin_out = eval_jaxpr(linear, [*p_out[n:], *ts])
    ref = eval_jaxpr(jvp_jaxpr(j), [*args, *ts])
    for a, b in zip(p_out[:n] + lin_out, ref):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


# -- dce_jaxpr --------------------------------------------------------------------------------
def test_dce_drops_unused_equations_and_inputs() -> None:
    j = tdx.make_jaxpr(lambda a, b, c: (lax.sin(a), lax.neg(lax.cos(b)), c))(1.0, 2.0, 3.0).jaxpr
    new, used = dce_jaxpr(j, [False, True, False])
    assert used == [False, True, False]
    assert [e.primitive for e in new.eqns] == [cos_p, neg_p]
    assert len(new.in_binders) == 1 and len(new.outs) == 1
    np.testing.assert_allclose(np.asarray(eval_jaxpr(new, [2.0])[0]), -np.cos(2.0))
    kept, used = dce_jaxpr(j, [False, True, False], instantiate=True)
    assert used == [True, True, True] and len(kept.in_binders) == 3
    with pytest.raises(JaxprTypeError, match="used_outputs"):
        dce_jaxpr(j, [True])
    with pytest.raises(JaxprTypeError, match="instantiate"):
        dce_jaxpr(j, [True, True, True], instantiate=[True])


def test_dce_rule_can_rewrite_an_equation() -> None:
    def rule(used_outs: Sequence[bool], eqn: Eqn) -> Eqn | None:
        # keep only the sin half of the pair: the cos half (and y) are dead
        assert used_outs == [True, False]
        return Eqn(sin_p, eqn.inputs[:1], NO_PARAMS, eqn.out_binders[:1])

    pair_p = dataclasses.replace(plain_pair_p, rules=Rules(dce=rule))
    x, y = Var(SCALAR), Var(SCALAR)
    o1, o2 = Var(SCALAR), Var(SCALAR)
    j = Jaxpr((x, y), (Eqn(pair_p, (x, y), NO_PARAMS, (o1, o2)),), (o1, o2))
    new, used = dce_jaxpr(j, [True, False])
    assert used == [True, False]
    assert [e.primitive for e in new.eqns] == [sin_p]


@given(
    jaxprs_with_args(max_eqns=8, min_inputs=1).flatmap(
        lambda c: st.tuples(st.just(c), st.lists(st.booleans(), min_size=len(c[0].outs), max_size=len(c[0].outs)))
    )
)
def test_dce_keeps_the_used_outputs_values(case: tuple[tuple[Jaxpr, list[NDArray]], list[bool]]) -> None:
    (j, args), used_outs = case
    new, used_ins = dce_jaxpr(j, used_outs)
    roundtrips(new)
    full = eval_jaxpr(j, list(args))
    got = eval_jaxpr(new, [a for a, u in zip(args, used_ins) if u])
    want = [o for o, u in zip(full, used_outs) if u]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert len(new.eqns) <= len(j.eqns)


def test_partial_eval_trace_describes_itself() -> None:
    t = PartialEvalTrace(None)
    assert t.describe() == "partial evaluation"
