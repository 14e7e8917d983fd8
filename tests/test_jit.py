"""``jit``: agreement with un-jitted evaluation, composition with the other
transformations, the compile cache, ahead-of-time stages, and errors."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given

import typedax as tdx
from typedax import lax
from typedax import numpy as tnp
from typedax.core import ConcretizationError, Jaxpr, eval_jaxpr, parse_jaxpr, typecheck_jaxpr
from typedax.core.ir import NDArray
from typedax.core.trace import Value, bind
from typedax.interpreters.dce import dce_jaxpr
from typedax.interpreters.partial_eval import partial_eval_jaxpr
from typedax.interpreters.transpose import transpose_jaxpr
from typedax.core.errors import CompiledCallError, StaticArgumentError
from typedax.jitting import jit_p
from typedax.lowering import Array, cache_stats, compile_cache, device_put
from typedax.testing import jaxprs_with_args

from _examples import ci_examples


def close(a: object, b: object, rtol: float = 1e-10) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=rtol)


def as_fun(jaxpr: Jaxpr) -> Callable[..., list[Value]]:
    def f(*args: Value) -> list[Value]:
        return eval_jaxpr(jaxpr, list(args))

    return f


# -- the tutorial's Part 3 ------------------------------------------------------------
def test_tutorial_traces_once_and_caches() -> None:
    traces: list[str] = []

    @tdx.jit
    def f(x: Value, y: Value) -> Value:
        traces.append("tracing!")
        return tnp.multiply(tnp.sin(x), tnp.cos(y))

    close(f(3.0, 4.0), -0.09224219304455371, 1e-14)
    close(f(4.0, 5.0), -0.21467624978306993, 1e-14)
    assert traces == ["tracing!"]


def test_tutorial_reduce_sum() -> None:
    f = tdx.jit(lambda x: lax.reduce_sum(x, (0,)))
    assert float(f(np.array([1.0, 2.0, 3.0]))) == 6.0


def test_tutorial_jit_of_second_derivative() -> None:
    def f(x: Value) -> Value:
        y = tnp.multiply(tnp.sin(x), 2.0)
        return tnp.add(tnp.negative(y), x)

    def deriv(g: Callable[[Value], Value]) -> Callable[[Value], Value]:
        def dg(x: Value) -> Value:
            return tdx.jvp(g, (x,), (1.0,))[1]

        return dg

    d2 = deriv(deriv(f))
    close(d2(3.0), 0.2822400161197344, 1e-14)
    close(tdx.jit(d2)(3.0), 0.2822400161197344, 1e-14)


def test_tutorial_jvp_and_vmap_of_jit() -> None:
    traces: list[int] = []

    @tdx.jit
    def f(x: Value) -> Value:
        traces.append(1)
        y = tnp.multiply(tnp.sin(x), 2.0)
        return tnp.add(tnp.negative(y), x)

    y, ydot = tdx.jvp(f, (3.0,), (1.0,))
    close(y, 2.7177599838802657, 1e-14)
    close(ydot, 2.979984993200891, 1e-14)
    tdx.jvp(f, (3.0,), (1.0,))
    assert len(traces) == 1  # the second jvp retraces nothing
    close(tdx.vmap(f, in_axes=(0,))(np.arange(3.0)), [0.0, -0.68294197, 0.18140515], 1e-7)


# -- agreement on generated programs ---------------------------------------------------
@ci_examples(30)
@given(jaxprs_with_args(max_eqns=8))
def test_jit_of_function_agrees(case: tuple[Jaxpr, list[NDArray]]) -> None:
    jaxpr, args = case
    want = eval_jaxpr(jaxpr, list(args))
    got = tdx.jit(as_fun(jaxpr))(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, Array)
        w_arr = np.asarray(w)
        tol = 2e-5 if w_arr.dtype == np.float32 else 1e-12
        assert np.asarray(g).dtype == w_arr.dtype
        np.testing.assert_allclose(np.asarray(g), w_arr, rtol=tol, atol=tol)


def _sum_outputs(jaxpr: Jaxpr) -> Callable[..., Value]:
    def f(*args: Value) -> Value:
        total: Value = 0.0
        for o in eval_jaxpr(jaxpr, list(args)):
            total = tnp.add(total, tnp.sum(o))
        return total

    return f


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs the profile's count
@ci_examples(15)
@given(jaxprs_with_args(max_eqns=6, min_inputs=1, differentiable=True))
def test_transformations_of_jit_agree(case: tuple[Jaxpr, list[NDArray]]) -> None:
    jaxpr, args = case
    f = _sum_outputs(jaxpr)
    jf = tdx.jit(f)
    g_want = tdx.grad(f)(*args)
    close(tdx.grad(jf)(*args), g_want, 1e-9)
    close(tdx.jit(tdx.grad(f))(*args), g_want, 1e-9)
    tangents = [np.ones_like(a) for a in args]
    p_want, t_want = tdx.jvp(f, tuple(args), tuple(tangents))
    p_got, t_got = tdx.jvp(jf, tuple(args), tuple(tangents))
    close(p_got, p_want, 1e-9)
    close(t_got, t_want, 1e-9)
    y, f_lin = tdx.linearize(jf, *args)
    close(y, p_want, 1e-9)
    close(f_lin(*tangents), t_want, 1e-9)


@ci_examples(30)
@given(jaxprs_with_args(max_eqns=6, min_inputs=1, max_outputs=2))
def test_vmap_of_jit_and_jit_of_vmap(case: tuple[Jaxpr, list[NDArray]]) -> None:
    jaxpr, args = case
    batched = [np.stack([a, a]) for a in args]
    f = as_fun(jaxpr)
    want = tdx.vmap(f)(*batched)
    got1 = tdx.vmap(tdx.jit(f))(*batched)
    got2 = tdx.jit(tdx.vmap(f))(*batched)
    for w, a, b in zip(want, got1, got2):
        tol = 2e-5 if np.asarray(w).dtype == np.float32 else 1e-12
        np.testing.assert_allclose(np.asarray(a), np.asarray(w), rtol=tol, atol=tol)
        np.testing.assert_allclose(np.asarray(b), np.asarray(w), rtol=tol, atol=tol)


def test_jit_of_jit_nests_calls() -> None:
    inner = tdx.jit(lambda x: tnp.multiply(tnp.sin(x), 2.0))
    outer = tdx.jit(lambda x: tnp.add(inner(x), inner(tnp.multiply(x, 3.0))))
    x = np.linspace(0.0, 1.0, 4)
    close(outer(x), 2 * np.sin(x) + 2 * np.sin(3 * x), 1e-14)
    cj = tdx.make_jaxpr(outer)(x)
    (eqn,) = cj.jaxpr.eqns
    assert eqn.primitive == jit_p
    inner_eqns = eqn.params["jaxpr"]
    assert isinstance(inner_eqns, Jaxpr)
    assert sum(e.primitive == jit_p for e in inner_eqns.eqns) == 2
    text = outer.lower(x).as_text()
    assert text.count("func.func private") == 1  # the same inner body lowers once
    assert text.count("call @") == 2


def test_grad_of_jit_keeps_the_known_part_compiled() -> None:
    f = tdx.jit(lambda x: tnp.sum(tnp.tanh(x) * x))
    cj = tdx.make_jaxpr(tdx.grad(f))(np.ones(3))
    assert [e.primitive for e in cj.jaxpr.eqns] == [jit_p, jit_p]
    close(tdx.grad(f)(np.ones(3)), np.tanh(1.0) + (1 - np.tanh(1.0) ** 2), 1e-12)


def test_closure_over_an_outer_tracer() -> None:
    def f(x: Value) -> Value:
        return tdx.jit(lambda y: tnp.multiply(y, x))(2.0)

    close(tdx.grad(f)(3.0), 2.0)
    close(tdx.jit(f)(3.0), 6.0)


# -- pytrees, keywords, statics --------------------------------------------------------
class Pair(NamedTuple):
    a: Value
    b: Value


def test_pytrees_in_and_out() -> None:
    @tdx.jit
    def f(p: Pair, d: dict[str, Value], scale: Value = 2.0) -> dict[str, Value]:
        return {"sum": tnp.add(p.a, p.b), "scaled": [tnp.multiply(d["x"], scale)]}  # type: ignore[dict-item]  # a nested pytree

    out = f(Pair(1.0, np.ones(2)), {"x": np.arange(2.0)}, scale=3.0)
    assert set(out) == {"sum", "scaled"}
    close(out["sum"], [2.0, 2.0])
    scaled: object = out["scaled"]
    assert isinstance(scaled, list)
    close(scaled[0], [0.0, 3.0])


def test_static_arguments_retrace_per_value() -> None:
    traces: list[int] = []

    def f(x: Value, n: int, *, mode: str = "add") -> Value:
        traces.append(n)
        for _ in range(n):
            x = tnp.add(x, 1.0) if mode == "add" else tnp.multiply(x, 2.0)
        return x

    jf = tdx.jit(f, static_argnums=1, static_argnames="mode")
    close(jf(np.zeros(2), 3), [3.0, 3.0])
    close(jf(np.zeros(2), 3), [3.0, 3.0])
    close(jf(np.ones(2), 2, mode="mul"), [4.0, 4.0])
    assert traces == [3, 2]


def test_fast_path_skips_retracing_and_agrees() -> None:
    traces: list[int] = []

    def f(x: Value, y: Value) -> tuple[Value, Value]:
        traces.append(1)
        return tnp.multiply(x, y), tnp.subtract(x, y)

    jf = tdx.jit(f)
    x, y = device_put(np.arange(3.0)), device_put(np.ones(3))
    first = jf(x, y)
    second = jf(x, y)
    assert traces == [1]
    for a, b in zip(first, second):
        close(a, b)
    close(second[1], np.arange(3.0) - 1)
    # a different type misses the fast path and traces again
    jf(device_put(np.arange(3, dtype=np.float32)), device_put(np.ones(3, np.float32)))
    assert traces == [1, 1]


def test_fast_path_is_not_used_under_a_transformation() -> None:
    jf = tdx.jit(lambda x: x * x)
    x = device_put(np.array(3.0))
    jf(x)
    jf(x)
    cj = tdx.make_jaxpr(lambda v: jf(x) + v)(1.0)
    assert cj.jaxpr.eqns[0].primitive == jit_p


def test_jit_from_several_threads() -> None:
    jf = tdx.jit(lambda x, k: x * k)
    results: dict[int, object] = {}

    def work(i: int) -> None:
        results[i] = jf(np.full(3, float(i)), float(i))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(6):
        close(results[i], np.full(3, float(i * i)))


# -- the compile cache -----------------------------------------------------------------
def test_same_body_twice_compiles_once() -> None:
    x = np.linspace(0.0, 1.0, 7)
    before = cache_stats()
    for _ in range(2):
        f = tdx.jit(lambda v: tnp.subtract(tnp.multiply(tnp.exp(v), 1.2345), v))
        close(f(x), np.exp(x) * 1.2345 - x)
    after = cache_stats()
    assert after.compiles - before.compiles == 1
    assert after.hits - before.hits == 1


def test_changed_shape_or_dtype_misses_the_cache() -> None:
    f = tdx.jit(lambda v: tnp.multiply(tnp.tanh(v), 0.5432))
    before = cache_stats()
    f(np.ones(5))
    f(np.ones(6))
    f(np.ones(6, np.float32))
    f(np.ones(6, np.float32) * 2)
    after = cache_stats()
    assert after.misses - before.misses == 3
    assert after.compiles - before.compiles == 3


def test_cache_can_be_cleared() -> None:
    f = tdx.jit(lambda v: v * 9.75)
    f(1.0)
    compile_cache.clear()
    assert cache_stats().size == 0 and cache_stats().compiles == 0
    close(tdx.jit(lambda v: v * 9.75)(1.0), 9.75)
    assert cache_stats().compiles == 1


# -- ahead of time -----------------------------------------------------------------------
def test_trace_lower_compile() -> None:
    def f(x: Value, y: Value) -> Value:
        return tnp.sum(tnp.multiply(tnp.sin(x), y))

    x, y = np.arange(3.0, dtype=np.float32), np.ones(3, np.float32)
    traced = tdx.jit(f).trace(x, y)
    assert traced.jaxpr.jaxpr == tdx.make_jaxpr(f)(x, y).jaxpr
    assert [a.str_short() for a in traced.in_avals] == ["float32[3]", "float32[3]"]
    lowered = traced.lower()
    text = lowered.as_text()
    assert "stablehlo.sine" in text and "tensor<3xf32>" in text
    compiled = lowered.compile()
    close(compiled(x, y), np.sum(np.sin(x)), 1e-6)
    assert "sine" in compiled.as_text()


def test_compiled_with_wrong_types_names_the_argument() -> None:
    def f(x: Value, w: Value) -> Value:
        return tnp.multiply(x, w)

    compiled = tdx.jit(f).lower(np.ones(3), np.ones(3)).compile()
    with pytest.raises(CompiledCallError, match="argument 'w' should be float64\\[3\\], got float32\\[3\\]"):
        compiled(np.ones(3), np.ones(3, np.float32))
    with pytest.raises(CompiledCallError, match="argument 'x' should be float64\\[3\\], got float64\\[4\\]"):
        compiled(np.ones(4), np.ones(3))
    with pytest.raises(CompiledCallError, match="structured as"):
        compiled(np.ones(3))


def test_compiled_with_statics_takes_dynamic_arguments() -> None:
    def f(x: Value, n: int) -> Value:
        return tnp.multiply(x, float(n))

    compiled = tdx.jit(f, static_argnums=1).lower(np.ones(2), 4).compile()
    close(compiled(np.full(2, 2.0)), [8.0, 8.0])


# -- the primitive's other rules -----------------------------------------------------------
def test_jit_eqn_prints_and_parses() -> None:
    inner = tdx.jit(lambda v: tnp.multiply(tnp.sin(v), 2.0))
    cj = tdx.make_jaxpr(lambda v: tnp.add(inner(v), 1.0))(np.ones(2))
    text = str(cj.jaxpr)
    assert '<lambda>" ]' in text and "jit [ jaxpr={ lambda" in text
    parsed = parse_jaxpr(text)
    assert parsed == cj.jaxpr
    assert str(parsed) == text
    typecheck_jaxpr(parsed)


def test_dce_prunes_the_body() -> None:
    inner = tdx.jit(lambda a, b: (tnp.sin(a), tnp.multiply(tnp.cos(b), 2.0)))
    cj = tdx.make_jaxpr(lambda a, b: inner(a, b))(1.0, 2.0)
    new, used = dce_jaxpr(cj.jaxpr, [True, False])
    assert used == [True, False]
    (eqn,) = new.eqns
    body = eqn.params["jaxpr"]
    assert isinstance(body, Jaxpr) and len(body.eqns) == 1 and len(eqn.out_binders) == 1
    close(eval_jaxpr(new, [1.0])[0], np.sin(1.0))


def test_partial_eval_splits_the_call() -> None:
    inner = tdx.jit(lambda a, b: tnp.sin(a) * b)
    cj = tdx.make_jaxpr(lambda a, b: inner(a, b))(1.0, 2.0)
    known, unknown, out_unknowns, n_res = partial_eval_jaxpr(cj.jaxpr, [False, True])
    assert out_unknowns == [True] and n_res >= 1
    assert [e.primitive for e in known.eqns] == [jit_p]
    assert [e.primitive for e in unknown.eqns] == [jit_p]
    res = eval_jaxpr(known, [1.0])
    close(eval_jaxpr(unknown, [*res, 2.0])[0], np.sin(1.0) * 2.0)


def test_transpose_of_a_linear_call() -> None:
    inner = tdx.jit(lambda a, b: (a * 3.0 + b, b * 2.0))
    cj = tdx.make_jaxpr(lambda a, b: inner(a, b))(1.0, 2.0)
    t = transpose_jaxpr(cj.jaxpr, [True, True])
    ct_a, ct_b = eval_jaxpr(t, [1.0, 10.0])
    close(ct_a, 3.0)
    close(ct_b, 21.0)


# -- errors -----------------------------------------------------------------------------
def test_unhashable_static_argument() -> None:
    jf = tdx.jit(lambda x, opts: x, static_argnums=1)
    with pytest.raises(StaticArgumentError, match="static argument 1 of jitted function .* must be hashable"):
        jf(1.0, [1, 2])


def test_bad_static_argnums() -> None:
    with pytest.raises(StaticArgumentError, match="static_argnums must be ints"):
        tdx.jit(lambda x: x, static_argnums=("x",))  # type: ignore[arg-type]  # the error under test


def test_tracer_as_python_bool_names_the_function() -> None:
    def branchy(x: Value) -> Value:
        if tnp.greater(x, 0.0):
            return x
        return tnp.negative(x)

    with pytest.raises(ConcretizationError, match="branchy"):
        tdx.jit(branchy)(1.0)


def test_non_array_argument_is_refused() -> None:
    with pytest.raises(tdx.core.TypedaxError, match="a str was passed where an array was expected"):
        tdx.jit(lambda x: x)("hello")


def test_jit_operand_type_mismatch_in_a_jaxpr() -> None:
    inner = tdx.jit(lambda v: v * 2.0)
    cj = tdx.make_jaxpr(lambda v: inner(v))(np.ones(2))
    # eval_jaxpr checks its own inputs first; the jit equation, bound alone, its operands
    with pytest.raises(tdx.core.JaxprTypeError, match="input 0 has type float64\\[3\\]"):
        eval_jaxpr(cj.jaxpr, [np.ones(3)])
    eqn = cj.jaxpr.eqns[0]
    with pytest.raises(tdx.core.PrimitiveTypeError, match="operand 0 has type float64\\[3\\]"):
        bind(eqn.primitive, [np.ones(3)], eqn.params)


def test_jit_returns_shared_outputs_and_literals() -> None:
    def f(x: Value) -> Sequence[Value]:
        return [x, x, 2.0]

    out = tdx.jit(f)(np.ones(2))
    close(out[0], [1.0, 1.0])
    close(out[2], 2.0)


def test_mlp_example_learns_the_spirals() -> None:
    from examples import mlp

    _, losses, acc = mlp.train(300)
    assert losses[-1] < 0.5 * losses[0]
    assert acc > 0.85


def test_pytree_fast_path_agrees_and_skips_retracing() -> None:
    traces: list[int] = []

    def f(params: list[tuple[Value, Value]], x: Value, *, scale: Value) -> dict[str, Value]:
        traces.append(1)
        (w, b), = params
        return {"y": tnp.multiply(tnp.add(tnp.matmul(x, w), b), scale), "w": w}

    jf = tdx.jit(f)
    w, b = device_put(np.eye(2) * 2.0), device_put(np.ones(2))
    x, s = device_put(np.array([[1.0, 2.0]])), device_put(np.float64(3.0))
    first = jf([(w, b)], x, scale=s)
    second = jf([(w, b)], x, scale=s)
    assert traces == [1]
    close(first["y"], [[9.0, 15.0]])
    close(second["y"], first["y"])
    assert isinstance(second["w"], Array)
    # a NumPy leaf takes the general path (and agrees)
    close(jf([(np.eye(2) * 2.0, b)], x, scale=s)["y"], [[9.0, 15.0]])
    assert traces == [1]


def test_dataclass_arguments_take_the_general_path() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Box:
        a: Value
        b: Value

    jf = tdx.jit(lambda box: tnp.subtract(box.a, box.b))
    box = Box(device_put(np.array(5.0)), device_put(np.array(2.0)))
    close(jf(box), 3.0)
    close(jf(box), 3.0)
    close(jf(Box(device_put(np.array(1.0)), device_put(np.array(4.0)))), -3.0)
