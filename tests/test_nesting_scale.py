"""Issue 8's scaling faults: passes over nested control flow are linear in
program size (DCE, partial evaluation and typechecking each remembered per
body), so 64-deep nesting of cond / scan / while under jit, grad and vmap
finishes -- before, 25 levels would have taken hours. No wall-clock
assertions: an exponential pass would simply not finish at depth 64, and the
counts below pin linearity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import typedax as tdx
import typedax.interpreters.dce as dce_module
from typedax import lax
from typedax.core import Jaxpr
from typedax.core.errors import ReverseModeError

DEPTH = 64


def nest_cond(d: int) -> Callable[[Any], Any]:
    if d == 0:
        return lambda x: x * 2.0
    inner = nest_cond(d - 1)
    return lambda x: lax.cond(x > 0, inner, lambda y: y - 1.0, x)


def nest_scan(d: int) -> Callable[[Any], Any]:
    if d == 0:
        return lambda x: x * 2.0
    inner = nest_scan(d - 1)
    return lambda x: lax.scan(lambda c, _: (inner(c), None), x, None, length=1)[0]


def nest_while(d: int) -> Callable[[Any], Any]:
    if d == 0:
        return lambda x: x * 2.0
    inner = nest_while(d - 1)
    return lambda x: lax.while_loop(lambda c: c < 2.0, inner, x)  # once per level, from 1.0


def test_jit_grad_vmap_of_64_deep_cond() -> None:
    f = nest_cond(DEPTH)
    assert float(np.asarray(tdx.jit(f)(1.0))) == 2.0
    assert float(np.asarray(tdx.grad(f)(1.0))) == 2.0
    np.testing.assert_array_equal(np.asarray(tdx.vmap(f)(np.array([1.0, -1.0]))), [2.0, -2.0])


def test_jit_grad_vmap_of_64_deep_scan() -> None:
    f = nest_scan(DEPTH)  # each level runs the one below once
    assert float(np.asarray(tdx.jit(f)(1.0))) == 2.0
    assert float(np.asarray(tdx.grad(f)(1.0))) == 2.0
    np.testing.assert_array_equal(np.asarray(tdx.vmap(f)(np.ones(2))), [2.0, 2.0])


def test_jit_vmap_jvp_of_64_deep_while_and_grad_refuses_clearly() -> None:
    f = nest_while(DEPTH)
    assert float(np.asarray(tdx.jit(f)(1.0))) == 2.0
    np.testing.assert_array_equal(np.asarray(tdx.vmap(f)(np.ones(2))), [2.0, 2.0])
    _, t = tdx.jvp(f, (1.0,), (1.0,))
    assert float(np.asarray(t)) == 2.0
    with pytest.raises(ReverseModeError, match="while_loop"):
        tdx.grad(f)(1.0)


@pytest.mark.parametrize("inner", ["cond", "jit", "while"])
def test_grad_through_while_with_nested_control_flow_is_a_reverse_mode_error(inner: str) -> None:
    bodies: dict[str, Callable[[Any], Any]] = {
        "cond": lambda c: lax.cond(c > 0, lambda y: y * 2.0, lambda y: y - 1.0, c),
        "jit": tdx.jit(lambda c: c * 2.0),
        "while": lambda c: lax.while_loop(lambda d: d < c * 3.0, lambda d: d * 2.0, c),
    }

    def f(x: Any) -> Any:
        return lax.while_loop(lambda c: c < 10.0, bodies[inner], x)

    _, t = tdx.jvp(f, (1.0,), (1.0,))  # forward mode works
    assert float(np.asarray(t)) == 16.0
    with pytest.raises(ReverseModeError):
        tdx.grad(f)(1.0)


def test_dce_work_grows_linearly_with_depth() -> None:
    calls = 0
    real = dce_module._dce

    def counting(jaxpr: Jaxpr, used_outputs: Sequence[bool], inst: Sequence[bool]) -> tuple[Jaxpr, tuple[bool, ...]]:
        nonlocal calls
        calls += 1
        return real(jaxpr, used_outputs, inst)

    counts = []
    dce_module._dce = counting
    try:
        for depth in (8, 16, 32):
            calls = 0
            dce_module._MEMO.clear()
            j = tdx.make_jaxpr(nest_cond(depth))(1.0).jaxpr
            dce_module.dce_jaxpr(j, [True])
            counts.append(calls)
    finally:
        dce_module._dce = real
    # twice the depth, about twice the work (it was four times)
    assert counts[1] <= 2 * counts[0] + 4 and counts[2] <= 2 * counts[1] + 4, counts


def test_a_100_deep_traced_nest_round_trips_through_text() -> None:
    def nest(d: int) -> Callable[[Any], Any]:
        if d == 0:
            return lambda x: x * 2.0
        inner = nest(d - 1)
        if d % 2:
            return tdx.jit(inner)
        return lambda x: lax.cond(x > 0, inner, lambda y: y, x)

    j = tdx.make_jaxpr(tdx.jit(nest(100)))(1.0).jaxpr
    text = str(j)
    back = tdx.parse_jaxpr(text)
    assert back == j and str(back) == text


def test_a_100k_equation_jaxpr_round_trips_through_text() -> None:
    def chain(x: Any) -> Any:
        for _ in range(100_000):
            x = lax.sin(x)
        return x

    j = tdx.make_jaxpr(chain)(1.0).jaxpr
    text = str(j)
    back = tdx.parse_jaxpr(text)
    assert len(back.eqns) == 100_000 and str(back) == text


def test_the_pass_memos_do_not_keep_jaxprs_alive() -> None:
    import gc
    import weakref

    from typedax.core.typecheck import _CHECKED

    j = tdx.make_jaxpr(nest_cond(4))(1.0).jaxpr
    tdx.typecheck_jaxpr(j)
    dce_module.dce_jaxpr(j, [True])
    assert len(_CHECKED) > 0 and len(dce_module._MEMO) > 0
    ref = weakref.ref(j)
    before = len(_CHECKED), len(dce_module._MEMO)
    del j
    gc.collect()
    assert ref() is None
    assert len(_CHECKED) < before[0] and len(dce_module._MEMO) < before[1]
