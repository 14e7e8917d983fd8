"""Forward mode: the tutorial's values, every rule, finite differences over
generated jaxprs, symbolic zeros, nesting, and the error paths."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax, primitives
from typedax.core import Jaxpr, Primitive
from typedax.core.errors import ConcretizationError, EscapedTracerError, TangentTypeError
from typedax.core.ir import NDArray
from typedax.core.trace import Value
from typedax.interpreters.jvp import Zero, instantiate_zeros, jvp_flat, jvp_jaxpr
from typedax.testing import jaxprs, jaxprs_with_args, values
from typedax.transforms import jvp_jaxpr as jvp_jaxpr_public
from typedax.testing import assert_roundtrips


def first_order_primitives() -> list[Primitive]:
    return [p for p in vars(primitives).values() if isinstance(p, Primitive)]


def deriv(f: object) -> object:
    def d(x: Value) -> Value:
        _, t = tdx.jvp(f, (x,), (1.0,))  # type: ignore[call-overload]  # f is a unary function
        return t  # type: ignore[no-any-return]  # jvp returns f's output type

    return d


def sin_twice(x: Value) -> Value:
    y = lax.mul(lax.sin(x), 2.0)
    return lax.add(lax.neg(y), x)


F64 = npt.NDArray[np.float64]


def arr(x: object) -> F64:
    return np.asarray(x, dtype=np.float64)


roundtrips = assert_roundtrips


# -- coverage -------------------------------------------------------------------
def test_every_first_order_primitive_has_a_jvp_rule() -> None:
    prims = first_order_primitives()
    assert len(prims) >= 30
    missing = [p.name for p in prims if p.rules.jvp is None]
    assert not missing, f"primitives without a jvp rule: {missing}"


def test_transforms_facade_exports_jvp_jaxpr() -> None:
    assert jvp_jaxpr_public is jvp_jaxpr


# -- the tutorial's Part 1 values ------------------------------------------------------
def test_tutorial_sin() -> None:
    y, t = tdx.jvp(lax.sin, (3.0,), (1.0,))
    assert float(np.asarray(y)) == pytest.approx(np.sin(3.0))
    assert float(np.asarray(t)) == pytest.approx(-0.9899924966004454, abs=1e-15)


def test_tutorial_f() -> None:
    y, t = tdx.jvp(sin_twice, (3.0,), (1.0,))
    assert float(np.asarray(y)) == pytest.approx(2.7177599838802657, abs=1e-15)
    assert float(np.asarray(t)) == pytest.approx(2.979984993200891, abs=1e-15)


def test_tutorial_higher_derivatives() -> None:
    d1 = deriv(lax.sin)
    d2 = deriv(d1)
    d3 = deriv(d2)
    d4 = deriv(d3)
    expect = [-0.9899924966004454, -0.1411200080598672, 0.9899924966004454, 0.1411200080598672]
    got = [float(np.asarray(d(3.0))) for d in (d1, d2, d3, d4)]  # type: ignore[operator]  # deriv returns a unary function
    assert got == pytest.approx(expect, abs=1e-15)


def test_tutorial_python_control_flow() -> None:
    def f(x: Value) -> Value:
        if x > 0.0:  # type: ignore[operator]  # concrete under jvp
            return lax.mul(2.0, x)
        return x

    assert float(np.asarray(deriv(f)(3.0))) == 2.0  # type: ignore[operator]  # unary
    assert float(np.asarray(deriv(f)(-3.0))) == 1.0  # type: ignore[operator]  # unary


def test_control_flow_on_a_traced_value_under_staging_raises() -> None:
    def f(x: Value) -> Value:
        if x > 0.0:  # type: ignore[operator]  # the staged primal has no value
            return x
        return x

    with pytest.raises(ConcretizationError):
        tdx.make_jaxpr(deriv(f))(3.0)  # type: ignore[call-overload]  # deriv returns a unary function


def test_tutorial_pytrees() -> None:
    def f(x: Value) -> dict[str, object]:
        y = lax.mul(lax.sin(x), 2.0)
        z = lax.add(lax.neg(y), x)
        return {"hi": z, "there": [x, y]}

    y, t = tdx.jvp(f, (3.0,), (1.0,))
    assert float(np.asarray(y["hi"])) == pytest.approx(2.7177599838802657)
    there = y["there"]
    assert isinstance(there, list)
    assert [float(np.asarray(v)) for v in there] == pytest.approx([3.0, 0.2822400161197344])
    assert float(np.asarray(t["hi"])) == pytest.approx(2.979984993200891)
    t_there = t["there"]
    assert isinstance(t_there, list)
    assert [float(np.asarray(v)) for v in t_there] == pytest.approx([1.0, -1.9799849932008908])


def test_pytree_inputs_and_several_arguments() -> None:
    def f(p: dict[str, NDArray], x: NDArray) -> Value:
        return tnp.sum(lax.add(lax.mul(p["w"], x), p["b"]))

    p = {"w": np.array([1.0, 2.0]), "b": np.array([0.5, 0.5])}
    x = np.array([3.0, 4.0])
    tp = {"w": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])}
    tx = np.array([0.0, 1.0])
    y, t = tdx.jvp(f, (p, x), (tp, tx))
    assert float(np.asarray(y)) == pytest.approx(12.0)
    # d = tw.x + tb + w.tx = 3 + 1 + 2
    assert float(np.asarray(t)) == pytest.approx(6.0)


# -- perturbation confusion and tracer safety ---------------------------------------
def test_no_perturbation_confusion() -> None:
    # d/dx [ x * d/dy (x + y) ] = d/dx [ x ] = 1; confusing the two
    # perturbations would give 2.
    def outer(x: Value) -> Value:
        def inner(y: Value) -> Value:
            return lax.add(x, y)

        return lax.mul(x, deriv(inner)(2.0))  # type: ignore[operator]  # deriv returns a unary function

    assert float(np.asarray(deriv(outer)(3.0))) == 1.0  # type: ignore[operator]  # unary


def test_nested_jvp_of_closure_over_outer_tracer() -> None:
    # f(x) = d/dy sin(x * y) at y=1 = x cos(x); f'(x) = cos x - x sin x
    def f(x: Value) -> Value:
        return deriv(lambda y: lax.sin(lax.mul(x, y)))(1.0)  # type: ignore[operator, no-any-return]  # unary

    x = 0.7
    got = float(np.asarray(deriv(f)(x)))  # type: ignore[operator]  # unary
    assert got == pytest.approx(np.cos(x) - x * np.sin(x), rel=1e-12)


def test_escaped_tracer_raises_when_used() -> None:
    leaked: list[Value] = []

    def f(x: Value) -> Value:
        leaked.append(x)
        return x

    tdx.jvp(f, (1.0,), (1.0,))
    with pytest.raises(EscapedTracerError):
        lax.sin(leaked[0])


def test_jvp_in_threads_is_independent() -> None:
    results: dict[int, float] = {}

    def work(i: int) -> None:
        for _ in range(50):
            _, t = tdx.jvp(lambda x: lax.mul(x, x), (float(i),), (1.0,))
        results[i] = float(np.asarray(t))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == {i: 2.0 * i for i in range(4)}


# -- symbolic zeros --------------------------------------------------------------------
def test_output_independent_of_input_has_symbolic_zero_tangent() -> None:
    _, ts = jvp_flat(lambda xs: [lax.sin(np.float64(2.0)), xs[0]], [1.0], [1.0])
    assert ts[0] == Zero(tdx.ShapedArray((), np.dtype(np.float64)))
    z = instantiate_zeros(ts[0])
    assert np.asarray(z) == 0.0


def test_zero_input_tangent_stages_no_tangent_work() -> None:
    # the second input's tangent is Zero: nothing is computed for it
    j = tdx.make_jaxpr(
        lambda x: jvp_flat(lambda xs: [lax.sin(xs[0])], [x], [Zero(tdx.ShapedArray((), np.dtype(np.float64)))])[0]
    )(1.0).jaxpr
    assert [e.primitive.name for e in j.eqns] == ["sin"]


def test_integer_inputs_have_zero_tangents() -> None:
    def f(n: Value, x: Value) -> Value:
        return lax.mul(lax.convert_element_type(n, np.float64), x)

    y, t = tdx.jvp(f, (np.int64(3), 2.0), (np.int64(0), 1.0))
    assert float(np.asarray(y)) == 6.0
    assert float(np.asarray(t)) == 3.0  # the int input contributes nothing
    with pytest.raises(TangentTypeError, match="not zero"):  # a nonzero one was silently ignored
        tdx.jvp(f, (np.int64(3), 2.0), (np.int64(5), 1.0))


def test_comparison_output_tangent_is_float0_zero() -> None:
    # a bool output has no derivative: its tangent is zeros of JAX's float0
    # (jax.jvp gives float0 here too; tests/test_top_level_names.py compares)
    _, t = tdx.jvp(lambda x: lax.gt(x, 0.0), (1.0,), (1.0,))
    arr = np.asarray(t)
    assert arr.dtype == tdx.float0 and arr.shape == ()


def test_jvp_jaxpr_instantiates_zero_outputs() -> None:
    j = tdx.make_jaxpr(lambda x: (lax.gt(x, 0.0), lax.broadcast(np.float64(1.0), (2,))))(1.0).jaxpr
    jj = jvp_jaxpr(j)
    roundtrips(jj)
    outs = tdx.eval_jaxpr(jj, [1.0, 1.0])
    assert [np.asarray(o).shape for o in outs] == [(), (2,), (), (2,)]
    assert not np.asarray(outs[2]) and not np.asarray(outs[3]).any()


def test_float32_stays_float32() -> None:
    x = np.array([1.0, 2.0], np.float32)
    y, t = tdx.jvp(lambda v: tnp.multiply(tnp.sin(v), 2.0), (x,), (np.ones(2, np.float32),))
    assert np.asarray(y).dtype == np.float32 and np.asarray(t).dtype == np.float32


def test_python_scalar_tangent_takes_primal_dtype() -> None:
    _, t = tdx.jvp(lambda v: v * v, (np.float32(3.0),), (1.0,))
    assert np.asarray(t).dtype == np.float32 and float(np.asarray(t)) == 6.0


# -- individual rules against their definitions -----------------------------------
def jvp1(f: object, x: Value, t: Value) -> F64:
    _, out = tdx.jvp(f, (x,), (t,))  # type: ignore[call-overload]  # f is unary
    return arr(out)


def test_max_min_split_ties_equally() -> None:
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([2.0, 2.0, 1.0])
    tx, ty = np.array([10.0, 10.0, 10.0]), np.array([1.0, 1.0, 1.0])
    _, t = tdx.jvp(lax.max, (x, y), (tx, ty))
    np.testing.assert_allclose(arr(t), [1.0, 5.5, 10.0])
    _, t = tdx.jvp(lax.min, (x, y), (tx, ty))
    np.testing.assert_allclose(arr(t), [10.0, 5.5, 1.0])


def test_reduce_max_averages_tangents_at_the_maximum() -> None:
    x = np.array([[1.0, 3.0, 3.0], [5.0, 0.0, 1.0]])
    t = np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]])
    np.testing.assert_allclose(jvp1(lambda v: lax.reduce_max(v, (1,)), x, t), [3.0, 8.0])
    np.testing.assert_allclose(jvp1(lambda v: lax.reduce_max(v, (0, 1)), x, t), 8.0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 ** -1, discarded by the rule's select
def test_pow_rule_matches_definition_and_jax_at_zero() -> None:
    x, y = np.array([0.5, 2.0, 0.0]), np.array([3.0, 0.5, 2.0])
    _, tx = tdx.jvp(lax.pow, (x, y), (np.ones(3), np.zeros(3)))
    _, ty = tdx.jvp(lax.pow, (x, y), (np.zeros(3), np.ones(3)))
    np.testing.assert_allclose(arr(tx), y * x ** (y - 1))
    np.testing.assert_allclose(arr(ty), [np.log(0.5) * 0.125, np.log(2.0) * np.sqrt(2.0), 0.0])
    _, t0 = tdx.jvp(lax.pow, (np.array([0.0]), np.array([0.0])), (np.ones(1), np.ones(1)))
    np.testing.assert_array_equal(np.asarray(t0), [0.0])


@pytest.mark.parametrize("y", [-3, -1, 0, 1, 2, 3, 5])
def test_integer_pow_rule(y: int) -> None:
    x = np.array([0.5, 1.5, -2.0])
    expect = np.zeros(3) if y == 0 else y * x ** (y - 1)
    np.testing.assert_allclose(jvp1(lambda v: lax.integer_pow(v, y), x, np.ones(3)), expect)


@pytest.mark.parametrize(
    ("f", "df"),
    [
        (lax.sin, np.cos),
        (lax.cos, lambda x: -np.sin(x)),
        (lax.exp, np.exp),
        (lax.log, lambda x: 1 / x),
        (lax.tanh, lambda x: 1 - np.tanh(x) ** 2),
        (lax.logistic, lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
        (lax.sqrt, lambda x: 0.5 / np.sqrt(x)),
        (lax.neg, lambda x: -np.ones_like(x)),
    ],
)
def test_unary_rules(f: object, df: Callable[[F64], F64]) -> None:
    x = np.array([0.3, 1.1, 2.5])
    np.testing.assert_allclose(jvp1(f, x, np.ones(3)), df(x), rtol=1e-14)


def test_div_rule() -> None:
    x, y = np.array([1.0, -2.0]), np.array([4.0, 0.5])
    _, t = tdx.jvp(lax.div, (x, y), (np.array([1.0, 2.0]), np.array([3.0, -1.0])))
    np.testing.assert_allclose(arr(t), [1.0 / 4.0 - 3.0 * 1.0 / 16.0, 2.0 / 0.5 + 1.0 * -2.0 / 0.25])


def test_select_convert_and_structural_rules() -> None:
    x = np.arange(6.0).reshape(2, 3)
    t = np.arange(6.0).reshape(2, 3) + 10.0

    def f(v: Value) -> Value:
        s = lax.select(tnp.greater(v, 2.0), v, lax.neg(v))
        r = lax.reshape(lax.transpose(s, (1, 0)), (6,))
        b = lax.broadcast(r, (2,))
        c = lax.convert_element_type(lax.convert_element_type(b, np.float32), np.float64)
        return lax.reduce_sum(c, (0,))

    sign = np.where(x > 2.0, 1.0, -1.0)
    expect = 2.0 * (sign * t).T.reshape(6)
    np.testing.assert_allclose(jvp1(f, x, t), expect)


def test_convert_to_int_has_zero_tangent() -> None:
    _, t = tdx.jvp(lambda v: lax.convert_element_type(v, np.int32), (2.5,), (1.0,))
    assert np.asarray(t).dtype == tdx.float0 and np.asarray(t).shape == ()  # as jax.jvp: no derivative


def test_dot_general_rule() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5))
    ta, tb = rng.normal(size=a.shape), rng.normal(size=b.shape)
    _, t = tdx.jvp(tnp.matmul, (a, b), (ta, tb))
    np.testing.assert_allclose(arr(t), ta @ b + a @ tb, rtol=1e-12)


# -- jacfwd ------------------------------------------------------------------------------
def test_tutorial_jacfwd() -> None:
    j = np.asarray(tdx.jacfwd(lax.sin)(np.arange(3.0)))
    np.testing.assert_allclose(j, np.diag(np.cos(np.arange(3.0))))


def test_jacfwd_of_linear_map_is_the_matrix() -> None:
    a = np.arange(6.0).reshape(2, 3)
    j = np.asarray(tdx.jacfwd(lambda x: tnp.matmul(a, x))(np.ones(3)))
    np.testing.assert_array_equal(j, a)


def test_jacfwd_shapes_pytrees_and_argnums() -> None:
    def f(x: Value, y: Mapping[str, Value]) -> tuple[Value, Value]:
        return lax.mul(x, y["a"]), tnp.sum(x)

    x = np.arange(6.0).reshape(2, 3)
    y = {"a": np.full((2, 3), 2.0)}
    jx = tdx.jacfwd(f)(x, y)
    assert isinstance(jx, tuple)
    assert np.asarray(jx[0]).shape == (2, 3, 2, 3) and np.asarray(jx[1]).shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(jx[0]).reshape(6, 6), 2.0 * np.eye(6))
    jxy = tdx.jacfwd(f, argnums=(0, 1))(x, y)
    assert isinstance(jxy, tuple)
    first = jxy[0]
    assert isinstance(first, tuple)
    np.testing.assert_array_equal(np.asarray(first[1]["a"]).reshape(6, 6), np.diag(x.reshape(6)))


def test_jacfwd_errors() -> None:
    with pytest.raises(TangentTypeError, match="float inputs"):
        tdx.jacfwd(lambda n: n)(np.int64(3))
    with pytest.raises(TangentTypeError, match="argnums"):
        tdx.jacfwd(lambda x: x, argnums=1)(1.0)


# -- error paths ---------------------------------------------------------------------------
def test_tangent_dtype_mismatch() -> None:
    with pytest.raises(TangentTypeError, match="float32"):
        tdx.jvp(lax.sin, (np.ones(2),), (np.ones(2, np.float32),))


def test_tangent_shape_mismatch() -> None:
    with pytest.raises(TangentTypeError, match=r"float64\[3\]"):
        tdx.jvp(lax.sin, (np.ones(2),), (np.ones(3),))


def test_tangent_tree_mismatch() -> None:
    with pytest.raises(TangentTypeError, match="structure"):
        tdx.jvp(lambda a, b: a, (1.0, 2.0), (1.0,))


def test_primals_must_be_a_tuple() -> None:
    with pytest.raises(TangentTypeError, match="tuples or lists"):
        tdx.jvp(lax.sin, 1.0, 1.0)  # type: ignore[call-overload]  # the error under test


def test_jvp_flat_arity_mismatch() -> None:
    with pytest.raises(TangentTypeError, match="2 primals but 1 tangents"):
        jvp_flat(lambda xs: xs, [1.0, 2.0], [1.0])


# -- properties over generated jaxprs ----------------------------------------------------------
def _directions(j: Jaxpr) -> st.SearchStrategy[list[NDArray]]:
    return st.tuples(*(values(a) for a in j.in_avals)).map(list)


@given(jaxprs_with_args(differentiable=True, max_eqns=6).flatmap(
    lambda ja: _directions(ja[0]).map(lambda v: (ja[0], ja[1], v))
))
def test_jvp_jaxpr_matches_central_differences(case: tuple[Jaxpr, list[NDArray], list[NDArray]]) -> None:
    j, args, dirs = case
    jj = jvp_jaxpr(j)
    roundtrips(jj)
    n = len(j.outs)
    outs = [arr(o) for o in tdx.eval_jaxpr(jj, [*args, *dirs])]
    primal = [arr(o) for o in tdx.eval_jaxpr(j, args)]
    for a, b in zip(outs[:n], primal):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    h = 1e-6
    plus = tdx.eval_jaxpr(j, [arr(x) + h * arr(d) for x, d in zip(args, dirs)])
    minus = tdx.eval_jaxpr(j, [arr(x) - h * arr(d) for x, d in zip(args, dirs)])
    for t, p, m in zip(outs[n:], plus, minus):
        fd = (arr(p) - arr(m)) / (2 * h)
        np.testing.assert_allclose(t, fd, rtol=1e-4, atol=1e-4 * (1.0 + float(np.max(np.abs(t), initial=0.0))))


@given(jaxprs_with_args(max_eqns=6))
def test_jvp_jaxpr_on_every_dtype_typechecks_and_keeps_primals(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    jj = jvp_jaxpr(j)
    roundtrips(jj)
    assert jj.in_avals == j.in_avals * 2
    assert jj.out_avals == j.out_avals * 2
    tangents = [np.ones(a.shape, a.dtype) for a in j.in_avals]
    outs = tdx.eval_jaxpr(jj, [*args, *tangents])
    for a, b in zip(outs[: len(j.outs)], tdx.eval_jaxpr(j, args)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for o, av in zip(outs[len(j.outs) :], j.out_avals):
        if av.dtype.kind != "f":
            assert not np.asarray(o).any()  # non-float outputs have zero tangents


@given(jaxprs(differentiable=True, max_eqns=5))
def test_jvp_jaxpr_twice_typechecks(j: Jaxpr) -> None:
    roundtrips(jvp_jaxpr(jvp_jaxpr(j)))


@given(jaxprs_with_args(differentiable=True, max_eqns=5))
def test_interpreter_agrees_with_jvp_jaxpr(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    dirs = [np.ones(a.shape, a.dtype) for a in j.in_avals]
    p_out, t_out = jvp_flat(lambda xs: tdx.eval_jaxpr(j, xs), args, dirs)
    ref = tdx.eval_jaxpr(jvp_jaxpr(j), [*args, *dirs])
    got: Sequence[Value] = [*p_out, *(instantiate_zeros(t) for t in t_out)]
    for a, b in zip(got, ref):
        np.testing.assert_allclose(arr(a), np.asarray(b), rtol=1e-12, atol=1e-12)
