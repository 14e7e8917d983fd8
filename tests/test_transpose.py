"""Transposition: every transpose rule by the dot-product test
``<v, A u> == <Aᵀ v, u>``, symbolic zero cotangents, the non-linear error
paths, and ``transpose_jaxpr`` over linear jaxprs from ``linearize_jaxpr``."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
import pytest
from hypothesis import given

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import Jaxpr, eval_jaxpr
from typedax.core.errors import JaxprTypeError, MissingRuleError, NonLinearError
from typedax.core.ir import NDArray
from typedax.core.trace import Value
from typedax.interpreters.transpose import UndefPrimal, backward_pass, transpose_jaxpr
from typedax.primitives import mul_p, sin_p
from typedax.primitives.dot import DimensionNumbers
from typedax.testing import jaxprs_with_args
from typedax.transforms import linearize_jaxpr
from typedax.testing import assert_roundtrips

RNG = np.random.default_rng(0)


def rand(*shape: int, dtype: type = np.float64) -> NDArray:
    return np.asarray(RNG.normal(size=shape), dtype=dtype)


roundtrips = assert_roundtrips


def vdot(xs: Sequence[object], ys: Sequence[object]) -> float:
    return float(sum(np.vdot(np.asarray(x, np.float64), np.asarray(y, np.float64)) for x, y in zip(xs, ys)))


def check_transpose(
    f: Callable[..., object], fixed: Sequence[NDArray], lin: Sequence[NDArray], rtol: float = 1e-10
) -> Jaxpr:
    """``f(*fixed, *lin)`` is linear in ``lin``: its transpose passes the dot-product test."""
    cj = tdx.make_jaxpr(f)(*fixed, *lin)
    j = cj.jaxpr
    consts = [cast(Value, c) for c in cj.consts]
    flags = [False] * (len(consts) + len(fixed)) + [True] * len(lin)
    tj = transpose_jaxpr(j, flags)
    roundtrips(tj)
    assert tj.out_avals == tuple(tdx.ShapedArray(u.shape, u.dtype) for u in lin)
    ys = eval_jaxpr(j, [*consts, *fixed, *lin])
    vs = [np.asarray(RNG.normal(size=a.shape), a.dtype) for a in j.out_avals]
    xbar = eval_jaxpr(tj, [*consts, *fixed, *vs])
    np.testing.assert_allclose(vdot(vs, ys), vdot(xbar, lin), rtol=rtol, atol=1e-10)
    return tj


# -- one rule at a time -------------------------------------------------------
def test_add_sub_neg() -> None:
    x, y = rand(3), rand(3)
    check_transpose(lambda a, b: lax.sub(lax.add(a, b), lax.neg(a)), [], [x, y])
    check_transpose(lambda c, a: lax.add(lax.mul(c, a), a), [x], [y])
    check_transpose(lambda c, a: lax.sub(lax.mul(c, a), a), [x], [y])


def test_affine_use_gives_the_constant_no_cotangent() -> None:
    j = tdx.make_jaxpr(lambda c, a: lax.sub(c, a))(rand(2), rand(2)).jaxpr
    (ct,) = backward_pass(j, [np.ones(2), UndefPrimal(j.in_avals[1])], [np.ones(2)])
    np.testing.assert_array_equal(ct, -np.ones(2))


def test_mul_by_constant_on_either_side() -> None:
    c, u = rand(2, 3), rand(2, 3)
    check_transpose(lambda c, u: lax.mul(c, u), [c], [u])
    check_transpose(lambda c, u: lax.mul(u, c), [c], [u])
    check_transpose(lambda u: tnp.multiply(u, 3.0), [], [u])


def test_div_by_constant() -> None:
    c, u = np.asarray(RNG.uniform(4.0, 6.0, size=4)), rand(4)
    check_transpose(lambda c, u: lax.div(u, c), [c], [u])


def test_reduce_sum() -> None:
    u = rand(2, 3, 4)
    check_transpose(lambda u: lax.reduce_sum(u, (0, 2)), [], [u])
    check_transpose(lambda u: lax.reduce_sum(u, (1,)), [], [u])
    check_transpose(lambda u: lax.reduce_sum(u, ()), [], [u])


def test_broadcast_new_axes_and_size_one_axes() -> None:
    check_transpose(lambda u: lax.broadcast(u, (2, 3)), [], [rand(4)])
    check_transpose(lambda u: lax.broadcast_in_dim(u, (2, 3, 4), (0, 2)), [], [rand(2, 4)])
    check_transpose(lambda u: lax.broadcast_in_dim(u, (2, 3, 4), (1, 2)), [], [rand(1, 4)])
    check_transpose(lambda u: lax.broadcast_in_dim(u, (5, 3), (0, 1)), [], [rand(1, 1)])
    check_transpose(lambda u: lax.broadcast_in_dim(u, (1, 3), (0, 1)), [], [rand(1, 3)])


def test_transpose_and_reshape() -> None:
    check_transpose(lambda u: lax.transpose(u, (2, 0, 1)), [], [rand(2, 3, 4)])
    check_transpose(lambda u: lax.reshape(u, (6, 2)), [], [rand(3, 4)])


@pytest.mark.parametrize(
    ("ls", "rs", "dn"),
    [
        ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),  # matmul
        ((4,), (4,), (((0,), (0,)), ((), ()))),  # inner product
        ((3,), (5,), (((), ()), ((), ()))),  # outer product
        ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),  # batched matmul
        ((4, 2, 3), (5, 2, 7, 4), (((0, 1), (3, 1)), ((), ()))),  # several free axes
        ((3, 2, 4), (4, 2, 6), (((2,), (0,)), ((1,), (1,)))),  # batch axis not leading
        ((2, 3, 4, 5), (5, 2, 4, 6), (((3, 2), (0, 2)), ((0,), (1,)))),  # contraction out of order
    ],
)
def test_dot_general_in_either_operand(
    ls: tuple[int, ...], rs: tuple[int, ...], dn: DimensionNumbers
) -> None:
    a, b = rand(*ls), rand(*rs)
    check_transpose(lambda a, b: lax.dot_general(a, b, dn), [a], [b])
    check_transpose(lambda b, a: lax.dot_general(a, b, dn), [b], [a])


def test_convert_element_type() -> None:
    u = rand(3, dtype=np.float32)
    tj = check_transpose(lambda u: lax.convert_element_type(u, np.float64), [], [u], rtol=1e-6)
    assert tj.out_avals[0].dtype == np.float32


def test_select_n_bool_and_int_selectors() -> None:
    p = RNG.normal(size=(3, 4)) > 0
    a, b = rand(3, 4), rand(3, 4)
    check_transpose(lambda p, a, b: lax.select_n(p, a, b), [p], [a, b])
    check_transpose(lambda p, b, a: lax.select_n(p, a, lax.mul(b, a)), [p, b], [a])
    which = np.asarray(RNG.integers(0, 3, size=(3, 4)), np.int32)
    c = rand(3, 4)
    check_transpose(lambda w, a, b, c: lax.select_n(w, a, b, c), [which], [a, b, c])
    check_transpose(lambda p, a: lax.select_n(p, a), [p], [a])


def test_forward_part_is_evaluated_before_transposing() -> None:
    # sin(c) does not depend on the linear input: evaluated, then used as a constant
    c, u = rand(3), rand(3)
    tj = check_transpose(lambda c, u: lax.mul(u, lax.sin(c)), [c], [u])
    assert [e.primitive.name for e in tj.eqns] == ["sin", "mul"]


# -- symbolic zeros -------------------------------------------------------------
def test_unused_linear_input_gets_zeros() -> None:
    j = tdx.make_jaxpr(lambda a, b: lax.neg(a))(rand(2), rand(3)).jaxpr
    tj = transpose_jaxpr(j, [True, True])
    out = eval_jaxpr(tj, [np.ones(2)])
    np.testing.assert_array_equal(out[0], -np.ones(2))
    np.testing.assert_array_equal(out[1], np.zeros(3))
    roundtrips(tj)


def test_zero_cotangent_skips_equations() -> None:
    j = tdx.make_jaxpr(lambda a: (lax.neg(a), tnp.multiply(a, 2.0)))(rand(2)).jaxpr
    (ct,) = backward_pass(j, [UndefPrimal(j.in_avals[0])], [None, np.ones(2)])
    np.testing.assert_array_equal(ct, 2 * np.ones(2))
    (none,) = backward_pass(j, [UndefPrimal(j.in_avals[0])], [None, None], instantiate=False)
    assert none is None


def test_fan_out_accumulates() -> None:
    check_transpose(lambda u: lax.add(tnp.multiply(u, 2.0), lax.add(u, u)), [], [rand(3)])


# -- errors -----------------------------------------------------------------------
def test_mul_of_two_linear_values_is_nonlinear() -> None:
    j = tdx.make_jaxpr(lambda a, b: lax.mul(a, b))(rand(2), rand(2)).jaxpr
    with pytest.raises(NonLinearError, match="mul"):
        transpose_jaxpr(j, [True, True])


def test_div_by_linear_value_is_nonlinear() -> None:
    j = tdx.make_jaxpr(lambda a, b: lax.div(a, b))(rand(2), rand(2)).jaxpr
    with pytest.raises(NonLinearError, match="'div'.*divisor"):
        transpose_jaxpr(j, [False, True])


def test_dot_general_of_two_linear_values_is_nonlinear() -> None:
    j = tdx.make_jaxpr(lambda a, b: lax.dot(a, b))(rand(2), rand(2)).jaxpr
    with pytest.raises(NonLinearError, match="dot_general"):
        transpose_jaxpr(j, [True, True])


def test_linear_selector_is_nonlinear() -> None:
    j = tdx.make_jaxpr(lambda p, a: lax.select_n(p, a))(np.ones(2, bool), rand(2)).jaxpr
    with pytest.raises(NonLinearError, match="select_n.*selector"):
        transpose_jaxpr(j, [True, True])


def test_primitive_without_transpose_rule() -> None:
    assert sin_p.rules.transpose is None
    assert mul_p.rules.transpose is not None
    j = tdx.make_jaxpr(lambda a: lax.sin(a))(rand(2)).jaxpr
    with pytest.raises(MissingRuleError, match="'sin' has no transpose rule"):
        transpose_jaxpr(j, [True])


def test_arity_errors() -> None:
    j = tdx.make_jaxpr(lambda a: lax.neg(a))(rand(2)).jaxpr
    with pytest.raises(JaxprTypeError, match="linear_in"):
        transpose_jaxpr(j, [True, False])
    with pytest.raises(JaxprTypeError, match="cotangents"):
        backward_pass(j, [UndefPrimal(j.in_avals[0])], [])
    with pytest.raises(JaxprTypeError, match="UndefPrimal"):
        backward_pass(j, [UndefPrimal(tdx.ShapedArray((3,), np.dtype(np.float64)))], [None])


# -- generated jaxprs: linearize, then transpose -----------------------------------
@given(jaxprs_with_args(differentiable=True, max_eqns=6, min_inputs=1))
def test_transpose_of_linearized_jaxpr_passes_dot_product_test(
    case: tuple[Jaxpr, list[NDArray]],
) -> None:
    j, args = case
    primal, linear, nres = linearize_jaxpr(j)
    roundtrips(primal)
    roundtrips(linear)
    res = eval_jaxpr(primal, args)[len(j.outs):]
    assert len(res) == nres
    n = len(j.in_binders)
    tj = transpose_jaxpr(linear, [False] * nres + [True] * n)
    roundtrips(tj)
    rng = np.random.default_rng(zlib.crc32(str(j).encode()))
    us = [np.asarray(rng.normal(size=a.shape), a.dtype) for a in j.in_avals]
    vs = [np.asarray(rng.normal(size=a.shape), a.dtype) for a in j.out_avals]
    aus = eval_jaxpr(linear, [*res, *us])
    atvs = eval_jaxpr(tj, [*res, *vs])
    lhs, rhs = vdot(vs, aus), vdot(atvs, us)
    scale = max(1.0, abs(lhs), abs(rhs))
    assert abs(lhs - rhs) <= 1e-9 * scale
