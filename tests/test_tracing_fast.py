"""The tracing fast path (issue 30 item 3) changes no answer.

Staging remembers each primitive's result types by the identity of the
primitive, the params and the operand types (``core/result_types.py``),
compares the primitive's last question first (``Primitive.last_types``),
builds equations through ``ir.EqnSlots`` and answers ``bind1`` through
``process_primitive1``. These tests check what those must keep: the weak
flag of each result (a weak and a strong operand of one type are different
questions), errors raised every time (never remembered), primitives whose
abstract evaluation reads a context never remembered, multi-result
primitives staged whole, equations that are true ``Eqn``s, and the current
interpreter restored by ``using_trace`` on the way out of an error.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import typedax as tdx
from typedax import lax
from typedax.core.avals import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS, Eqn, EqnSlots, Var, new_eqn
from typedax.core.result_types import compute_result_types, result_types, weak_types
from typedax.core.trace import EVAL_TRACE, bind1, current_trace, using_trace
from typedax.primitives import add_p, broadcast_p, sin_p
from typedax.primitives.collectives import psum_p
from typedax.primitives.sorting import top_k_p

F32 = np.dtype(np.float32)


def test_new_eqn_is_an_eqn() -> None:
    assert EqnSlots.__slots__ == Eqn.__slots__
    v, w = Var(ShapedArray((3,), F32)), Var(ShapedArray((3,), F32))
    e = new_eqn(sin_p, (v,), NO_PARAMS, (w,))
    assert type(e) is Eqn
    assert e == Eqn(sin_p, (v,), NO_PARAMS, (w,))
    assert hash(e) == hash(Eqn(sin_p, (v,), NO_PARAMS, (w,)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.params = NO_PARAMS  # type: ignore[misc]  # the point: frozen like any Eqn


def test_remembered_types_keep_the_weak_flag() -> None:
    strong = ShapedArray((3,), F32)
    weak = strong.weakened()
    assert strong == weak and strong is not weak  # one type to ==, two questions to the memo
    for _ in range(2):  # the second round answers from the memo
        assert [a.weak_type for a in result_types(sin_p, (strong,), NO_PARAMS)] == [False]
        assert [a.weak_type for a in result_types(sin_p, (weak,), NO_PARAMS)] == [True]
        assert [a.weak_type for a in result_types(add_p, (weak, weak), NO_PARAMS)] == [True]
        assert [a.weak_type for a in result_types(add_p, (weak, strong), NO_PARAMS)] == [False]
        assert [a.weak_type for a in weak_types(add_p, (strong, weak), NO_PARAMS)] == [False]
        for prim, avals in ((sin_p, (weak,)), (add_p, (strong, weak))):
            assert result_types(prim, avals, NO_PARAMS) == compute_result_types(prim, avals, NO_PARAMS)


def test_staged_weak_flags_in_a_chain() -> None:
    """The same staged chain on a weak and on a strong input (the last
    question of each primitive changes between them)."""

    def f(x: tdx.ArrayLike) -> tdx.Array:
        return lax.add(lax.sin(x), x)

    for x, weak in ((np.float32(1.0), False), (1.0, True), (np.float32(2.0), False)):
        jaxpr = tdx.make_jaxpr(f)(x).jaxpr
        assert [e.out_binders[0].aval.weak_type for e in jaxpr.eqns] == [weak, weak]


def test_errors_are_raised_every_time() -> None:
    def f(x: tdx.ArrayLike, y: tdx.ArrayLike) -> tdx.Array:
        return lax.add(x, y)

    x, y = np.ones(3, np.float32), np.ones(3, np.int32)
    for _ in range(2):
        with pytest.raises(PrimitiveTypeError):
            tdx.make_jaxpr(f)(x, y)
    assert len(tdx.make_jaxpr(f)(x, x).jaxpr.eqns) == 1


def test_which_rules_are_remembered() -> None:
    assert sin_p.pure_types and add_p.pure_types  # element-wise
    assert broadcast_p.pure_types  # a memo_abstract rule
    assert not psum_p.pure_types  # reads the named axes in scope
    # a psum outside any named axis raises, every time
    for _ in range(2):
        with pytest.raises(Exception, match="axis"):
            tdx.make_jaxpr(lambda x: lax.psum(x, "i"))(np.ones(3, np.float32))


def test_multi_result_primitive_staged_whole() -> None:
    def f(x: tdx.ArrayLike) -> tuple[tdx.Array, tdx.Array]:
        return lax.top_k(x, 2)

    jaxpr = tdx.make_jaxpr(f)(np.arange(5.0, dtype=np.float32)).jaxpr
    (eqn,) = jaxpr.eqns
    assert eqn.primitive is top_k_p and len(eqn.out_binders) == 2
    assert jaxpr.outs == eqn.out_binders

    def g(x: tdx.ArrayLike) -> tdx.Array:  # bind1 (process_primitive1) of a two-result primitive
        return bind1(top_k_p, (x,), eqn.params)

    jaxpr = tdx.make_jaxpr(g)(np.arange(5.0, dtype=np.float32)).jaxpr
    (eqn2,) = jaxpr.eqns
    assert len(eqn2.out_binders) == 2 and jaxpr.outs == eqn2.out_binders[:1]


def test_using_trace_restores_on_error() -> None:
    assert current_trace() is EVAL_TRACE

    def f(x: tdx.ArrayLike) -> tdx.Array:
        inner = current_trace()
        with pytest.raises(ZeroDivisionError):
            with using_trace(EVAL_TRACE):
                assert current_trace() is EVAL_TRACE
                raise ZeroDivisionError
        assert current_trace() is inner
        return lax.sin(x)

    tdx.make_jaxpr(f)(np.ones(2, np.float32))
    assert current_trace() is EVAL_TRACE


def test_clear_result_types() -> None:
    """What ``typedax.clear_caches`` calls (not called here: it would drop
    every compiled program of the test session too)."""
    from typedax.core import result_types

    strong = ShapedArray((2,), F32)
    result_types.result_types(add_p, (strong, strong), NO_PARAMS)
    assert result_types.MEMO
    result_types.clear_result_types()
    assert not result_types.MEMO and not result_types.WEAK_MEMO
    jaxpr = tdx.make_jaxpr(lambda x: lax.add(x, x))(np.ones(2, np.float32)).jaxpr
    assert jaxpr.eqns[0].out_binders[0].aval == strong
