"""``lax.cond``: evaluation, abstract evaluation, errors, and its rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pytest
from pyrsistent import pmap

import typedax as tdx
from typedax import lax
from typedax.control_flow import cond_p
from typedax.core import PrimitiveTypeError, ShapedArray
from typedax.core.trace import Value

F64 = np.dtype(np.float64)


def branchy(x: Value) -> Value:
    def t(y: Value) -> Value:
        return lax.mul(lax.sin(y), y)

    def f(y: Value) -> Value:
        return lax.cos(y)

    return lax.cond(lax.gt(x, 0.0), t, f, x)


def branchy_ref(x: float) -> float:
    return float(np.sin(x) * x) if x > 0 else float(np.cos(x))


# -- evaluation ---------------------------------------------------------------


def test_tutorial_eval() -> None:
    assert lax.cond(True, lambda: 3, lambda: 4) == 3
    assert lax.cond(False, lambda: 3, lambda: 4) == 4


@pytest.mark.parametrize("x", [-1.5, 0.0, 0.7, 2.0])
def test_eval_matches_python(x: float) -> None:
    assert float(np.asarray(branchy(x))) == pytest.approx(branchy_ref(x))


def test_pytree_operands_and_results() -> None:
    def t(d: dict[str, Value]) -> tuple[Value, Value]:
        return lax.add(d["a"], d["b"]), d["a"]

    def f(d: dict[str, Value]) -> tuple[Value, Value]:
        return lax.sub(d["a"], d["b"]), d["b"]

    a = np.array([1.0, 2.0])
    b = np.array([0.5, 0.25])
    ops: dict[str, Value] = {"a": a, "b": b}  # the operands have the type the branches take
    out = lax.cond(np.bool_(True), t, f, ops)
    assert isinstance(out, tuple)
    np.testing.assert_allclose(np.asarray(out[0]), a + b)
    out = lax.cond(False, t, f, ops)
    assert isinstance(out, tuple)
    np.testing.assert_allclose(np.asarray(out[0]), a - b)
    np.testing.assert_allclose(np.asarray(out[1]), b)


def test_branch_constants_are_joined() -> None:
    c1 = np.array([1.0, 2.0, 3.0])
    c2 = np.array([10.0, 20.0, 30.0])
    x = np.array([1.0, 1.0, 1.0])
    out = lax.cond(True, lambda y: lax.add(y, c1), lambda y: lax.mul(y, c2), x)
    np.testing.assert_allclose(np.asarray(out), x + c1)
    out = lax.cond(False, lambda y: lax.add(y, c1), lambda y: lax.mul(y, c2), x)
    np.testing.assert_allclose(np.asarray(out), x * c2)
    closed = tdx.make_jaxpr(
        lambda p, y: lax.cond(p, lambda z: lax.add(z, c1), lambda z: lax.mul(z, c2), y)
    )(True, x)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is cond_p
    assert len(eqn.inputs) == 4  # pred, c1, c2, operand


def test_weak_literal_branch_takes_other_dtype() -> None:
    x = np.float32(2.0)
    out = lax.cond(True, lambda y: y, lambda y: 0.0, x)
    assert np.asarray(out).dtype == np.float32


def test_concrete_predicate_still_stages_both_branches() -> None:
    closed = tdx.make_jaxpr(lambda x: lax.cond(True, lambda y: lax.sin(y), lambda y: lax.cos(y), x))(1.0)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is cond_p
    text = str(closed)
    assert "sin" in text and "cos" in text
    assert tdx.typecheck_jaxpr(closed.jaxpr).out_types == (ShapedArray((), F64),)


# -- errors -------------------------------------------------------------------


def test_error_branch_types_differ() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"true_fun returns \(float64\[2\]\) but false_fun returns \(float64\[\]\)"):
        lax.cond(True, lambda x: x, lambda x: lax.reduce_sum(x, (0,)), np.ones(2))


def test_error_branch_dtypes_differ() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"float32\[\].*int32\[\]"):
        lax.cond(True, lambda: np.float32(1), lambda: np.int32(1))


def test_error_branch_structures_differ() -> None:
    with pytest.raises(PrimitiveTypeError, match="same structure"):
        lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)


@pytest.mark.parametrize("pred", [1, 1.0, np.array([True, False])])
def test_error_bad_predicate(pred: Value) -> None:
    with pytest.raises(PrimitiveTypeError, match=r"predicate must be a boolean scalar"):
        lax.cond(pred, lambda: 1.0, lambda: 2.0)


def test_error_bad_predicate_traced() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"got float64\[\]"):
        tdx.make_jaxpr(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(1.0)


def test_error_non_array_output() -> None:
    with pytest.raises(PrimitiveTypeError, match="outputs of cond's true_fun must be arrays"):
        lax.cond(True, lambda: "a", lambda: "b")


def test_abstract_eval_rejects_mismatched_params() -> None:
    t = tdx.make_jaxpr(lambda x: x)(1.0).jaxpr
    f = tdx.make_jaxpr(lambda x: np.float32(1.0))(1.0).jaxpr
    bool_ = ShapedArray((), np.dtype(np.bool_))
    with pytest.raises(PrimitiveTypeError, match="branches have different output types"):
        cond_p.abstract_eval([bool_, ShapedArray((), F64)], pmap({"true_jaxpr": t, "false_jaxpr": f}))
    with pytest.raises(PrimitiveTypeError, match="true_jaxpr takes"):
        cond_p.abstract_eval([bool_, ShapedArray((), np.dtype(np.float32))],
                             pmap({"true_jaxpr": t, "false_jaxpr": t}))


# -- jvp ------------------------------------------------------------------------


def _fd(f: Callable[[float], object], x: float, eps: float = 1e-6) -> float:
    return (float(np.asarray(f(x + eps))) - float(np.asarray(f(x - eps)))) / (2 * eps)


def test_tutorial_jvp() -> None:
    out, out_tan = tdx.jvp(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0), (1.0,), (1.0,))
    assert float(np.asarray(out_tan)) == 2.0


@pytest.mark.parametrize("x", [-1.3, 0.4, 2.0])
def test_jvp_matches_finite_differences(x: float) -> None:
    out, t = tdx.jvp(branchy, (x,), (1.0,))
    assert float(np.asarray(out)) == pytest.approx(branchy_ref(x))
    assert float(np.asarray(t)) == pytest.approx(_fd(branchy_ref, x), rel=1e-6, abs=1e-8)


def test_jvp_symbolic_zero_branch_output() -> None:
    # the tangent of an output no branch perturbs stays unmaterialised
    closed = tdx.make_jaxpr(
        lambda x: tdx.jvp(lambda y: lax.cond(True, lambda z: (z, 1.0), lambda z: (z, 2.0), y), (x,), (1.0,))
    )(1.0)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is cond_p]
    assert len(eqn.out_binders) == 3  # two primal outputs, one tangent


def test_jvp_closure_over_perturbed_value() -> None:
    def f(x: Value) -> Value:
        return lax.cond(lax.gt(x, 0.0), lambda: lax.mul(x, x), lambda: lax.neg(x))

    _, t = tdx.jvp(f, (3.0,), (1.0,))
    assert float(np.asarray(t)) == 6.0
    _, t = tdx.jvp(f, (-3.0,), (1.0,))
    assert float(np.asarray(t)) == -1.0


# -- vmap -----------------------------------------------------------------------


def test_tutorial_vmap() -> None:
    xs = np.array([1.0, 2.0, 3.0])
    out = tdx.vmap(lambda x: lax.cond(True, lambda: x + 1.0, lambda: 0.0), (0,))(xs)
    np.testing.assert_array_equal(np.asarray(out), [2.0, 3.0, 4.0])


def test_vmap_batched_predicate_is_select() -> None:
    xs = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    out = tdx.vmap(branchy)(xs)
    np.testing.assert_allclose(np.asarray(out), [branchy_ref(float(x)) for x in xs])
    closed = tdx.make_jaxpr(tdx.vmap(branchy))(xs)
    assert cond_p not in [e.primitive for e in closed.jaxpr.eqns]


def test_vmap_unbatched_predicate_keeps_cond() -> None:
    def f(p: Value, x: Value) -> Value:
        return lax.cond(p, lambda y: lax.sin(y), lambda y: lax.cos(y), x)

    xs = np.linspace(0.0, 1.0, 4).reshape(2, 2)
    for p in (True, False):
        out = tdx.vmap(f, (None, 1))(p, xs)
        ref = np.sin(xs.T) if p else np.cos(xs.T)
        np.testing.assert_allclose(np.asarray(out), ref)
    closed = tdx.make_jaxpr(tdx.vmap(f, (None, 0)))(True, xs)
    assert cond_p in [e.primitive for e in closed.jaxpr.eqns]


def test_vmap_unbatched_output_stays_unbatched() -> None:
    def f(p: Value, x: Value) -> tuple[Value, Value]:
        out = lax.cond(p, lambda y: (lax.sin(y), 1.0), lambda y: (y, 2.0), x)
        assert isinstance(out, tuple)
        return out

    a, b = tdx.vmap(f, (None, 0), (0, None))(False, np.ones(3))
    assert float(np.asarray(b)) == 2.0


# -- jit ------------------------------------------------------------------------


def test_tutorial_jit() -> None:
    out = tdx.jit(lambda: lax.cond(False, lambda: 1, lambda: 2))()
    assert int(np.asarray(out)) == 2


@pytest.mark.parametrize("x", [-1.5, 0.0, 0.7])
def test_jit_equals_eager(x: float) -> None:
    assert float(np.asarray(tdx.jit(branchy)(x))) == pytest.approx(branchy_ref(x))


def test_jit_lowers_to_stablehlo_if() -> None:
    text = tdx.jit(branchy).trace(1.0).lower().as_text()
    assert "stablehlo.if" in text


def test_jit_of_jvp_and_vmap() -> None:
    xs = np.array([-1.0, 0.5, 2.0])
    out = tdx.jit(tdx.vmap(branchy))(xs)
    np.testing.assert_allclose(np.asarray(out), [branchy_ref(float(x)) for x in xs])
    _, t = tdx.jit(lambda x: tdx.jvp(branchy, (x,), (1.0,)))(0.5)
    assert float(np.asarray(t)) == pytest.approx(_fd(branchy_ref, 0.5), rel=1e-6)


# -- reverse mode ---------------------------------------------------------------


def test_tutorial_linearize_and_grad() -> None:
    _, f_lin = tdx.linearize(lambda x: lax.cond(True, lambda: x, lambda: 0.0), 1.0)
    assert float(np.asarray(f_lin(3.14))) == 3.14
    _, f_lin = tdx.linearize(tdx.jit(lambda x: lax.cond(True, lambda: x, lambda: 0.0)), 1.0)
    assert float(np.asarray(f_lin(3.14))) == 3.14
    out = tdx.grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0))(1.0)
    assert float(np.asarray(out)) == 2.0


@pytest.mark.parametrize("x", [-1.3, 0.4, 2.0])
def test_grad_matches_finite_differences_eager_and_jit(x: float) -> None:
    fd = _fd(branchy_ref, x)
    assert float(np.asarray(tdx.grad(branchy)(x))) == pytest.approx(fd, rel=1e-6, abs=1e-8)
    assert float(np.asarray(tdx.jit(tdx.grad(branchy))(x))) == pytest.approx(fd, rel=1e-6, abs=1e-8)
    assert float(np.asarray(tdx.grad(tdx.jit(branchy))(x))) == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_grad_residuals_from_both_branches() -> None:
    c = np.array([1.0, 2.0, 3.0])

    def f(x: Value) -> Value:
        def t(y: Value) -> Value:
            return lax.reduce_sum(lax.mul(lax.sin(y), c), (0,))

        def e(y: Value) -> Value:
            return lax.reduce_sum(lax.exp(lax.mul(y, y)), (0,))

        return lax.cond(lax.gt(lax.reduce_sum(x, (0,)), 0.0), t, e, x)

    for x in (np.array([0.1, 0.5, -0.2]), np.array([-0.1, -0.5, 0.2])):
        g = np.asarray(tdx.grad(f)(x))
        ref = np.cos(x) * c if x.sum() > 0 else 2 * x * np.exp(x * x)
        np.testing.assert_allclose(g, ref)
        np.testing.assert_allclose(np.asarray(tdx.jit(tdx.grad(f))(x)), ref)


def test_tutorial_part5_prints_the_tutorials_values(capsys: pytest.CaptureFixture[str]) -> None:
    from examples import control_flow

    control_flow.tutorial_part5()
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "cond(True, lambda: 3, lambda: 4) = 3",
        "jvp tangent: 2.0",
        "vmap: [2. 3. 4.]",
        "jit: 2",
        "linearize: 3.14",
        "linearize of jit: 3.14",
        "grad: 2.0",
    ]


# -- a JVP rule that stages array constants inside a body ----------------------
Fn = Callable[[Any, Any], Any]  # typedax's or jax's function of arrays


def _sol(lib: object) -> Fn:
    L = cast(Any, lib)  # typedax or jax
    return lambda a, v: L.scipy.linalg.lu_solve(L.scipy.linalg.lu_factor(a), v)


def _loss(f: Fn) -> Fn:
    def loss(a: Any, v: Any) -> Any:
        return (f(a, v) ** 2).sum()

    return loss


A_LU = np.array([[4.0, 1.0], [2.0, 3.0]])
B_LU = np.array([1.0, 2.0])
DA_LU, DB_LU = np.array([[0.5, -1.0], [0.25, 2.0]]), np.array([1.0, -0.5])


def test_jvp_and_grad_through_cond_holding_lu_solve() -> None:
    """jvp of a branch holding ``lu_solve`` staged the masks of its JVP rule
    as constants, which the branch's JVP jaxpr now takes as operands (JAX's
    ``jvp_jaxpr`` gives a closed jaxpr) instead of failing an internal check."""
    import jax
    import jax.scipy.linalg  # noqa: F401 - jax.scipy.linalg.lu_solve

    import typedax.scipy.linalg  # noqa: F401 - tdx.scipy.linalg.lu_solve

    jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped
    J = cast(Any, jax)

    def of(lib: Any) -> Fn:
        return lambda a, v: lib.lax.cond(v[0] > 0, _sol(lib), lambda a, v: v * 2.0, a, v)

    got_f, want_f = of(tdx), of(J)
    for g, w in zip(tdx.jvp(got_f, (A_LU, B_LU), (DA_LU, DB_LU)), J.jvp(want_f, (A_LU, B_LU), (DA_LU, DB_LU))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
    gg = tdx.grad(_loss(got_f), argnums=(0, 1))(A_LU, B_LU)
    wg = J.grad(_loss(want_f), argnums=(0, 1))(A_LU, B_LU)
    for g, w in zip(gg, wg):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)


@pytest.mark.parametrize("where", ["jit", "while", "scan", "checkpoint"])
def test_jvp_through_other_bodies_holding_lu_solve(where: str) -> None:
    """The same under ``jit`` (jvp only: one compile), the loops and
    ``checkpoint``, against ``lu_solve`` written out in Python."""
    import typedax.scipy.linalg  # noqa: F401 - tdx.scipy.linalg.lu_solve

    sol = _sol(tdx)
    f: Fn
    if where == "jit":
        f, ref = tdx.jit(sol), sol
    elif where == "while":
        f, ref = (lambda a, v: lax.fori_loop(0, 2, lambda i, w: sol(a, w), v)), (lambda a, v: sol(a, sol(a, v)))
    elif where == "scan":
        f, ref = (lambda a, v: lax.scan(lambda w, _: (sol(a, w), None), v, None, length=2)[0]), (lambda a, v: sol(a, sol(a, v)))
    else:
        f, ref = tdx.checkpoint(sol), sol
    for g, w in zip(tdx.jvp(f, (A_LU, B_LU), (DA_LU, DB_LU)), tdx.jvp(ref, (A_LU, B_LU), (DA_LU, DB_LU))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
    if where != "jit":
        gg = tdx.grad(_loss(f), argnums=(0, 1))(A_LU, B_LU)
        wg = tdx.grad(_loss(ref), argnums=(0, 1))(A_LU, B_LU)
        for g, w in zip(gg, wg):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
