"""Reverse mode on Python functions: ``linearize``, ``vjp``, ``grad``,
``value_and_grad``, ``jacrev``, ``hessian``. The tutorial's printed values
(the nested-calls stress test included), finite differences and ``jacfwd``
over generated jaxprs, pytrees, composition with ``jit``/``vmap``/``jvp``,
typing, and every error path."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import Jaxpr
from typedax.core.errors import (
    ConcretizationError,
    EscapedTracerError,
    GradOutputError,
    TangentTypeError,
    TypedaxError,
)
from typedax.core.ir import NDArray
from typedax.core.trace import Value
from typedax.interpreters.linearize import linearize_flat, vjp_flat
from typedax.testing import jaxprs_with_args
from typedax.testing import assert_roundtrips

jit, jvp, grad = tdx.jit, tdx.jvp, tdx.grad


def arr(x: object) -> npt.NDArray[np.float64]:
    return np.asarray(x, np.float64)


roundtrips = assert_roundtrips


def sin_twice(x: Value) -> Value:
    y = tnp.multiply(tnp.sin(x), 2.0)
    return tnp.add(tnp.negative(y), x)


# -- the tutorial's Part 4 values -------------------------------------------------------
def test_linearize_sin() -> None:
    y, sin_lin = tdx.linearize(tnp.sin, 3.0)
    assert float(arr(y)) == 0.1411200080598672
    assert float(arr(sin_lin(1.0))) == -0.9899924966004454


def test_linearize_of_jit() -> None:
    f = jit(sin_twice)
    y, f_lin = tdx.linearize(f, 3.0)
    np.testing.assert_allclose(arr(y), 2.7177599838802657, rtol=1e-15)
    np.testing.assert_allclose(arr(f_lin(1.0)), 2.979984993200891, rtol=1e-15)

    @jit
    def g(x: Value, y: Value) -> Value:
        return tnp.add(tnp.cos(x), y)

    @jit
    def f2(x: Value) -> Value:
        return g(x, tnp.multiply(tnp.sin(x), 2.0))

    y, f_lin = tdx.linearize(f2, 3.0)
    np.testing.assert_allclose(arr(y), -0.7077524804807109, rtol=1e-15)
    np.testing.assert_allclose(arr(f_lin(1.0)), -2.121105001260758, rtol=1e-15)


def test_vjp_sin_and_grad() -> None:
    _, f_vjp = tdx.vjp(tnp.sin, 3.0)
    (ct,) = f_vjp(1.0)
    assert float(arr(ct)) == -0.9899924966004454
    assert float(arr(grad(sin_twice)(3.0))) == 2.979984993200891


def test_grad_through_nested_jits() -> None:
    @jit
    def g(x: Value) -> Value:
        return tnp.multiply(tnp.cos(x), 2.0)

    @jit
    def f(x: Value) -> Value:
        return g(tnp.multiply(x, 2.0))

    np.testing.assert_allclose(arr(grad(f)(3.0)), 1.1176619927957034, rtol=1e-15)


def _stress(x: Value) -> Value:
    """The tutorial's compositionality stress test (core_test.py fun_with_nested_calls_2)."""

    @jit
    def bar(y: Value) -> Value:
        def baz(w: Value) -> Value:
            q = jit(lambda x: y)(x)
            q = tnp.add(q, jit(lambda: y)())
            q = tnp.add(q, jit(lambda y: tnp.add(w, y))(y))
            q = tnp.add(jit(lambda w: tnp.multiply(jit(tnp.sin)(x), y))(1.0), q)
            return q

        p, t = jvp(baz, (tnp.add(x, 1.0),), (y,))
        return tnp.add(t, tnp.multiply(x, p))

    return bar(x)


def _allclose(*vals: object) -> None:
    for a, b in zip(vals[:-1], vals[1:]):
        np.testing.assert_allclose(arr(a), arr(b), rtol=1e-12)


def test_nested_calls_stress_test() -> None:
    f = _stress
    ans1 = f(3.0)
    ans2 = jit(f)(3.0)
    ans3, _ = jvp(f, (3.0,), (5.0,))
    ans4, _ = jvp(jit(f), (3.0,), (5.0,))
    _allclose(ans1, ans2, ans3, ans4)

    deriv1 = grad(f)(3.0)
    deriv2 = grad(jit(f))(3.0)
    deriv3 = jit(grad(jit(f)))(3.0)
    _, deriv4 = jvp(f, (3.0,), (1.0,))
    _, deriv5 = jvp(jit(f), (3.0,), (1.0,))
    _allclose(deriv1, deriv2, deriv3, deriv4, deriv5)

    hess1 = grad(grad(f))(3.0)
    hess2 = grad(grad(jit(f)))(3.0)
    hess3 = grad(jit(grad(f)))(3.0)
    hess4 = jit(grad(grad(f)))(3.0)
    _, hess5 = jvp(grad(f), (3.0,), (1.0,))
    _, hess6 = jvp(jit(grad(f)), (3.0,), (1.0,))
    _, hess7 = jvp(jit(grad(f)), (3.0,), (1.0,))
    _allclose(hess1, hess2, hess3, hess4, hess5, hess6, hess7)

    # and against finite differences of the plain function
    h = 1e-5
    fd = (arr(f(3.0 + h)) - arr(f(3.0 - h))) / (2 * h)
    np.testing.assert_allclose(arr(deriv1), fd, rtol=1e-7)
    fd2 = (arr(grad(f)(3.0 + h)) - arr(grad(f)(3.0 - h))) / (2 * h)
    np.testing.assert_allclose(arr(hess1), fd2, rtol=1e-6)


# -- Python control flow on primal values --------------------------------------------------
def test_python_control_flow_under_grad() -> None:
    g = grad(lambda x: tnp.power(x, 2) if bool(tnp.greater(x, 0.0)) else np.asarray(0.0))
    assert float(arr(g(3.0))) == 6.0
    assert float(arr(g(-3.0))) == 0.0


def test_loop_with_data_dependent_trip_count() -> None:
    def f(x: Value) -> Value:
        y = x
        while bool(tnp.less(y, 100.0)):  # bool() of a comparison: concrete under grad, as in JAX
            y = tnp.multiply(y, y)
        return y

    # 3 -> 9 -> 81 -> 6561: y = x**8, dy/dx = 8 x**7
    np.testing.assert_allclose(arr(grad(f)(3.0)), 8 * 3.0**7)


def test_control_flow_on_a_tangent_dependent_value_fails_clearly() -> None:
    def f(xs: list[Value]) -> list[Value]:
        return xs

    out, lin = linearize_flat(f, [np.asarray(1.0)])
    assert lin.out_tangents == (None,)
    with pytest.raises(ConcretizationError):
        tdx.make_jaxpr(grad(lambda x: tnp.sin(x) if bool(tnp.greater(x, 0.0)) else x))(1.0)


# -- higher order --------------------------------------------------------------------------------
def test_higher_derivatives_of_sin() -> None:
    d = grad(tnp.sin)
    dd = grad(d)
    ddd = grad(dd)
    np.testing.assert_allclose(arr(d(1.0)), np.cos(1.0), rtol=1e-15)
    np.testing.assert_allclose(arr(dd(1.0)), -np.sin(1.0), rtol=1e-15)
    np.testing.assert_allclose(arr(ddd(1.0)), -np.cos(1.0), rtol=1e-15)


def test_hessian_of_a_quadratic_form() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 4))

    def q(x: Value) -> Value:
        return tnp.sum(tnp.multiply(x, tnp.matmul(a, x)))

    x = rng.normal(size=4)
    np.testing.assert_allclose(arr(tdx.hessian(q)(x)), a + a.T, rtol=1e-12)
    np.testing.assert_allclose(arr(grad(q)(x)), (a + a.T) @ x, rtol=1e-12)


def test_hessian_of_cubic() -> None:
    h = tdx.hessian(lambda x: tnp.sum(tnp.power(x, 3)))(np.arange(3.0))
    np.testing.assert_allclose(arr(h), np.diag(6 * np.arange(3.0)))


def test_jacrev_matches_jacfwd_on_vector_functions() -> None:
    rng = np.random.default_rng(2)
    w = rng.normal(size=(3, 4))

    def f(x: Value, y: Value) -> tuple[Value, Value]:
        return tnp.tanh(tnp.matmul(w, x)), tnp.multiply(tnp.sum(x), y)

    x, y = rng.normal(size=4), rng.normal(size=(2, 2))
    jr = tdx.jacrev(f)(x, y)
    jf = tdx.jacfwd(f)(x, y)
    assert arr(jr[0]).shape == (3, 4) and arr(jr[1]).shape == (2, 2, 4)
    for a, b in zip(jr, jf):
        np.testing.assert_allclose(arr(a), arr(b), rtol=1e-12, atol=1e-14)
    both = cast(tuple[tuple[Value, Value], tuple[Value, Value]], tdx.jacrev(f, argnums=(0, 1))(x, y))
    assert arr(both[1][1]).shape == (2, 2, 2, 2)
    np.testing.assert_allclose(arr(both[1][1]).reshape(4, 4), np.eye(4) * float(np.sum(x)))


# -- pytrees, argnums, aux ---------------------------------------------------------------------
class Params(NamedTuple):
    w: npt.NDArray[np.float64]
    b: npt.NDArray[np.float64]


def test_grad_of_pytree_argument_and_argnums() -> None:
    rng = np.random.default_rng(3)
    p = Params(rng.normal(size=(2, 3)), rng.normal(size=2))
    x = rng.normal(size=3)

    def loss(p: Params, x: Value) -> Value:
        return tnp.sum(tnp.tanh(tnp.add(tnp.matmul(p.w, x), p.b)))

    g = tdx.grad(loss)(p, x)  # typed Params: the type of the argument
    assert isinstance(g, Params)
    pre = p.w @ x + p.b
    d = 1 - np.tanh(pre) ** 2
    np.testing.assert_allclose(arr(g.b), d, rtol=1e-12)
    np.testing.assert_allclose(arr(g.w), np.outer(d, x), rtol=1e-12)
    _, gx = tdx.grad(loss, argnums=(0, 1))(p, x)
    np.testing.assert_allclose(arr(gx), p.w.T @ d, rtol=1e-12)
    gx2 = tdx.grad(loss, argnums=-1)(p, x)
    np.testing.assert_allclose(arr(gx2), arr(gx))
    d_dict: object = tdx.grad(lambda ps: tnp.sum(tnp.multiply(ps["a"], ps["b"])))(
        {"a": np.ones(2), "b": np.arange(2.0)}
    )
    assert isinstance(d_dict, dict)
    np.testing.assert_array_equal(arr(d_dict["a"]), np.arange(2.0))


def test_non_differentiated_integer_argument_is_fine() -> None:
    def f(x: Value, n: int) -> Value:
        return tnp.multiply(tnp.power(x, n), 1.0)

    np.testing.assert_allclose(arr(grad(f)(2.0, 3)), 12.0)


def test_has_aux_and_value_and_grad() -> None:
    def f(x: Value) -> tuple[Value, dict[str, Value]]:
        y = tnp.sin(x)
        return tnp.multiply(y, 2.0), {"sin": y, "twice": tnp.multiply(x, 2.0)}

    g, aux = tdx.grad(f, has_aux=True)(1.0)
    np.testing.assert_allclose(arr(g), 2 * np.cos(1.0))
    np.testing.assert_allclose(arr(aux["sin"]), np.sin(1.0))
    assert not isinstance(aux["sin"], tdx.core.Tracer)
    (v, aux2), g2 = tdx.value_and_grad(f, has_aux=True)(1.0)
    np.testing.assert_allclose(arr(v), 2 * np.sin(1.0))
    np.testing.assert_allclose(arr(g2), arr(g))
    assert aux2.keys() == {"sin", "twice"}
    v3, g3 = tdx.value_and_grad(tnp.sin)(1.0)
    np.testing.assert_allclose(arr(v3), np.sin(1.0))
    np.testing.assert_allclose(arr(g3), np.cos(1.0))
    def product(x: Value, y: Value) -> Value:
        return tnp.multiply(x, y)

    v4, gs = tdx.value_and_grad(product, argnums=(0, 1))(2.0, 5.0)
    assert float(arr(v4)) == 10.0 and [float(arr(t)) for t in gs] == [5.0, 2.0]


def test_vjp_and_linearize_with_pytrees() -> None:
    def f(d: dict[str, Value], x: Value) -> tuple[Value, Value]:
        return tnp.multiply(d["a"], x), tnp.sum(tnp.multiply(d["b"], d["b"]))

    d: dict[str, Value] = {"a": np.arange(3.0), "b": np.ones(2)}
    x = np.full(3, 2.0)
    out, f_vjp = tdx.vjp(f, d, x)
    cts: tuple[object, ...] = f_vjp((np.ones(3), 1.0))
    ct_d, ct_x = cts
    assert isinstance(ct_d, dict)
    np.testing.assert_array_equal(arr(ct_d["a"]), x)
    np.testing.assert_array_equal(arr(ct_d["b"]), 2 * np.ones(2))
    np.testing.assert_array_equal(arr(ct_x), np.arange(3.0))
    out2, f_lin = tdx.linearize(f, d, x)
    t1, t2 = f_lin({"a": np.ones(3), "b": np.ones(2)}, np.zeros(3))
    np.testing.assert_array_equal(arr(t1), x)
    assert float(arr(t2)) == 4.0


def test_vjp_integer_inputs_and_constant_outputs() -> None:
    def f(x: Value, n: Value) -> tuple[Value, Value, Value]:
        return tnp.multiply(x, tnp.astype(n, np.float64)), n, np.asarray(7.0)

    out, f_vjp = tdx.vjp(f, 2.0, np.asarray(3))
    ct_x, ct_n = f_vjp((1.0, np.asarray(0), 1.0))
    assert float(arr(ct_x)) == 3.0
    assert np.asarray(ct_n).dtype == tdx.float0 and np.asarray(ct_n).shape == ()  # as jax.vjp
    _, f_lin = tdx.linearize(f, 2.0, np.asarray(3))
    t = f_lin(1.0, np.asarray(0))
    assert [float(arr(v)) for v in t] == [3.0, 0.0, 0.0]


def test_flat_drivers() -> None:
    out, f_vjp = vjp_flat(lambda xs: [tnp.multiply(xs[0], xs[1])], [np.asarray(2.0), np.asarray(5.0)])
    assert [float(arr(c)) for c in f_vjp([np.asarray(1.0)])] == [5.0, 2.0]
    assert [float(arr(c)) for c in f_vjp([None])] == [0.0, 0.0]


# -- composition with the other transformations -----------------------------------------------
def test_vmap_of_per_example_gradients() -> None:
    rng = np.random.default_rng(4)
    w = rng.normal(size=3)
    xs = rng.normal(size=(5, 3))

    def loss(w: Value, x: Value) -> Value:
        return tnp.tanh(tnp.sum(tnp.multiply(w, x)))

    per_ex = tdx.vmap(tdx.grad(loss), in_axes=(None, 0))(w, xs)
    expected = np.stack([(1 - np.tanh(w @ x) ** 2) * x for x in xs])
    np.testing.assert_allclose(arr(per_ex), expected, rtol=1e-12)


def test_grad_of_jvp_and_jvp_of_grad() -> None:
    def f(x: Value) -> Value:
        return tnp.multiply(tnp.sin(x), x)

    def df(x: Value) -> Value:
        return jvp(f, (x,), (1.0,))[1]

    np.testing.assert_allclose(arr(grad(df)(1.0)), 2 * np.cos(1.0) - np.sin(1.0), rtol=1e-14)
    np.testing.assert_allclose(arr(jvp(grad(f), (1.0,), (1.0,))[1]), 2 * np.cos(1.0) - np.sin(1.0), rtol=1e-14)


def test_make_jaxpr_of_grad_roundtrips() -> None:
    cj = tdx.make_jaxpr(grad(sin_twice))(3.0)
    roundtrips(cj.jaxpr)
    (out,) = tdx.eval_jaxpr(cj.jaxpr, [*cast(Sequence[Value], cj.consts), 3.0])
    np.testing.assert_allclose(arr(out), 2.979984993200891, rtol=1e-15)


def test_perturbations_are_not_confused() -> None:
    # d/dx [x * d/dy (x + y)] = 1: the inner derivative must not see x's tangent
    def f(x: Value) -> Value:
        return tnp.multiply(x, grad(lambda y: tnp.add(x, y))(1.0))

    assert float(arr(grad(f)(3.0))) == 1.0


# -- properties over generated jaxprs -----------------------------------------------------------------
def _scalarize(j: Jaxpr) -> Callable[..., Value]:
    """A scalar function of the jaxpr's inputs: a fixed random weighting of its outputs."""
    rng = np.random.default_rng(zlib.crc32(str(j).encode()))
    weights = [rng.normal(size=a.shape) for a in j.out_avals]

    def f(*xs: Value) -> Value:
        total: Value = np.asarray(0.0)
        for o, w in zip(tdx.eval_jaxpr(j, list(xs)), weights):
            total = tnp.add(total, tnp.sum(tnp.multiply(o, w)))
        return total

    return f


@given(jaxprs_with_args(differentiable=True, max_eqns=6, min_inputs=1))
def test_grad_matches_finite_differences_jacfwd_and_jacrev(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    f = _scalarize(j)
    nums = tuple(range(len(args)))
    gs = tdx.grad(f, argnums=nums)(*args)
    jf = cast(tuple[Value, ...], tdx.jacfwd(f, argnums=nums)(*args))
    jr = cast(tuple[Value, ...], tdx.jacrev(f, argnums=nums)(*args))
    for g, a, b, x in zip(gs, jf, jr, args):
        assert arr(g).shape == x.shape
        np.testing.assert_allclose(arr(g), arr(a), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(arr(g), arr(b), rtol=1e-10, atol=1e-10)
    rng = np.random.default_rng(zlib.crc32(str(j).encode()) + 1)
    dirs = [rng.normal(size=x.shape) for x in args]
    h = 1e-6
    plus = arr(f(*[arr(x) + h * d for x, d in zip(args, dirs)]))
    minus = arr(f(*[arr(x) - h * d for x, d in zip(args, dirs)]))
    fd = float((plus - minus) / (2 * h))
    dd = float(sum(np.vdot(arr(g), d) for g, d in zip(gs, dirs)))
    assert abs(dd - fd) <= 1e-4 * (1.0 + abs(dd))


@given(jaxprs_with_args(differentiable=True, max_eqns=5, min_inputs=1))
def test_staged_gradients_typecheck_and_roundtrip(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    f = _scalarize(j)
    nums = tuple(range(len(args)))
    cj = tdx.make_jaxpr(tdx.grad(f, argnums=nums))(*args)
    roundtrips(cj.jaxpr)
    staged = tdx.eval_jaxpr(cj.jaxpr, [*cast(Sequence[Value], cj.consts), *args])
    eager = tdx.grad(f, argnums=nums)(*args)
    for s, e in zip(staged, eager):
        np.testing.assert_allclose(arr(s), arr(e), rtol=1e-12, atol=1e-12)


# -- errors ---------------------------------------------------------------------------------------------
def test_grad_of_non_scalar_output() -> None:
    with pytest.raises(GradOutputError, match=r"scalar output.*float64\[3\].*jacrev"):
        grad(tnp.sin)(np.ones(3))
    with pytest.raises(GradOutputError, match="pytree"):
        grad(cast(Callable[[Value], Value], lambda x: (x, x)))(1.0)


def test_grad_of_integer_output() -> None:
    with pytest.raises(GradOutputError, match=r"floating-point output.*int64\[\]"):
        grad(lambda x: tnp.astype(x, np.int64))(1.0)
    with pytest.raises(GradOutputError, match="floating-point outputs"):
        tdx.jacrev(lambda x: tnp.astype(x, np.int64))(1.0)


def test_grad_with_respect_to_integer_input() -> None:
    with pytest.raises(TangentTypeError, match=r"real- or complex-valued inputs.*argument 0.*int64\[\].*allow_int"):
        grad(lambda n: tnp.astype(n, np.float64))(3)
    with pytest.raises(TangentTypeError, match=r"argument 1.*int32\[2\]"):
        def first(x: Value, n: Value) -> Value:
            return x

        grad(first, argnums=(0, 1))(1.0, np.zeros(2, np.int32))


def test_bad_argnums_and_aux() -> None:
    with pytest.raises(TangentTypeError, match="argnums=2 is out of range"):
        grad(lambda x: x, argnums=2)(1.0)
    with pytest.raises(GradOutputError, match="pair"):
        grad(lambda x: x, has_aux=True)(1.0)


def test_bad_cotangents_and_tangents() -> None:
    _, f_vjp = tdx.vjp(tnp.sin, np.ones(3))
    with pytest.raises(TangentTypeError, match=r"cotangent 0 has type float64\[2\].*float64\[3\]"):
        f_vjp(np.ones(2))
    with pytest.raises(TangentTypeError, match="tree structure"):
        f_vjp((np.ones(3),))
    _, f_lin = tdx.linearize(tnp.sin, np.ones(3))
    with pytest.raises(TangentTypeError, match=r"tangent 0 has type float32\[3\]"):
        f_lin(np.ones(3, np.float32))
    with pytest.raises(TangentTypeError, match="tree structure"):
        f_lin(np.ones(3), np.ones(3))
    with pytest.raises(TypedaxError):
        f_lin(1.0)


def test_tracer_escaping_from_grad_raises_when_used() -> None:
    leaked: list[Value] = []

    def f(x: Value) -> Value:
        y = tnp.sin(x)
        leaked.append(y)
        return y

    grad(f)(1.0)
    with pytest.raises(EscapedTracerError, match="after that transformation finished"):
        tnp.multiply(leaked[0], 2.0)
    with pytest.raises(EscapedTracerError):
        grad(lambda x: tnp.multiply(x, leaked[0]))(1.0)


def test_transpose_of_a_nonlinear_use_is_reported() -> None:
    from typedax.core.errors import NonLinearError
    from typedax.interpreters.transpose import transpose_jaxpr

    j = tdx.make_jaxpr(lambda x, y: lax.mul(x, y))(1.0, 2.0).jaxpr
    with pytest.raises(NonLinearError, match="'mul'"):
        transpose_jaxpr(j, [True, True])


# -- static typing (checked by mypy, not run) ---------------------------------------------------------
if TYPE_CHECKING:

    def _typed(x: Value, n: int) -> Value:
        return x

    g1: Callable[[Value, int], Value] = tdx.grad(_typed)
    g2: Callable[[Value, int], tuple[Value, ...]] = tdx.grad(_typed, argnums=(0,))
    g3: Callable[[Value, int], tuple[Value, Value]] = tdx.value_and_grad(_typed)

    def _aux(x: Value) -> tuple[Value, str]:
        return x, "aux"

    g4: Callable[[Value], tuple[Value, str]] = tdx.grad(_aux, has_aux=True)
    tdx.grad(_typed)(1.0, "n")  # type: ignore[arg-type]  # grad keeps f's parameters
    tdx.grad(_typed)(1.0)  # type: ignore[call-arg]  # ... and their number
