"""``custom_jvp`` and ``custom_vjp`` against JAX: the documentation's
examples (``log1pexp``, ``f(x, y)`` with ``defjvps``, ``clip_gradient``, a
``nondiff_argnums`` callable, ``safe_log``) under ``grad``, ``jacfwd`` /
``jacrev``, ``hessian``, ``jit``, ``vmap``, inside ``scan`` / ``cond``; the
equation's text, typecheck and round trip; the error paths."""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr, typecheck_jaxpr
from typedax.core.errors import CustomDerivativeError, EscapedTracerError, MissingCustomRuleError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Lib = tuple[ModuleType, ModuleType]
LIBS: list[Lib] = [(tdx, tnp), (jax, jnp)]


# -- the documentation's functions, written once for both libraries ------------------
def log1pexp_of(lib: ModuleType, np_: ModuleType) -> Any:
    @typed(lib.custom_jvp)
    def log1pexp(x: Any) -> Any:
        return np_.log(1.0 + np_.exp(x))

    @typed(log1pexp.defjvp)
    def log1pexp_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (x_dot,) = primals, tangents
        ans = log1pexp(x)
        return ans, (1.0 - 1.0 / (1.0 + np_.exp(x))) * x_dot

    return log1pexp


def fxy_of(lib: ModuleType, np_: ModuleType) -> Any:
    @typed(lib.custom_jvp)
    def f(x: Any, y: Any) -> Any:
        return np_.sin(x) * y

    f.defjvps(lambda x_dot, primal_out, x, y: np_.cos(x) * x_dot * y,
              lambda y_dot, primal_out, x, y: np_.sin(x) * y_dot)
    return f


def clip_sin_of(lib: ModuleType, np_: ModuleType) -> Callable[[Any], Any]:
    @typed(lib.custom_vjp)
    def clip_gradient(lo: Any, hi: Any, x: Any) -> Any:
        return x

    def fwd(lo: Any, hi: Any, x: Any) -> Any:
        return x, (lo, hi)

    def bwd(res: Any, g: Any) -> Any:
        lo, hi = res
        return (None, None, np_.clip(g, lo, hi))

    clip_gradient.defvjp(fwd, bwd)
    return lambda x: np_.sin(clip_gradient(-0.75, 0.75, x))


def app_of(lib: ModuleType, np_: ModuleType) -> Any:
    @typed(functools.partial(lib.custom_jvp, nondiff_argnums=(0,)))
    def app(f: Callable[[Any], Any], x: Any) -> Any:
        return f(x)

    @typed(app.defjvp)
    def app_jvp(f: Callable[[Any], Any], primals: Any, tangents: Any) -> Any:
        (x,), (x_dot,) = primals, tangents
        return f(x), 2.0 * x_dot

    return app


def safe_log_of(lib: ModuleType, np_: ModuleType) -> Any:
    @typed(lib.custom_jvp)
    def safe_log(x: Any) -> Any:
        return np_.log(np_.where(x > 0, x, 1.0))

    @typed(safe_log.defjvp)
    def safe_log_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return safe_log(x), np_.where(x > 0, t / np_.where(x > 0, x, 1.0), 0.0)

    return safe_log


Deco = Callable[[Callable[..., Any]], Any]


def typed(decorator: object) -> Deco:
    """A decorator of either library, typed for mypy (jax's are untyped)."""
    return cast(Deco, decorator)


def same(a: object, b: object) -> None:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-12, atol=1e-14)


def both(case: Callable[[ModuleType, ModuleType], object]) -> None:
    same(case(tdx, tnp), case(jax, jnp))


# -- custom_jvp ------------------------------------------------------------------------
def test_log1pexp_stable_gradient_at_100() -> None:
    f = log1pexp_of(tdx, tnp)
    assert float(np.asarray(tdx.grad(f)(100.0))) == 1.0
    assert float(np.asarray(tdx.jit(tdx.grad(f))(100.0))) == 1.0
    both(lambda lib, np_: (log1pexp_of(lib, np_)(3.0), lib.grad(log1pexp_of(lib, np_))(100.0)))


@pytest.mark.parametrize("how", ["grad", "jvp", "vmap_grad", "jit_grad", "jacfwd", "jacrev", "hessian", "jacfwd_jacrev"])
def test_log1pexp_transformations(how: str) -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        f = log1pexp_of(lib, np_)
        xs = np_.array([-2.0, 0.5, 3.0])
        cases: dict[str, Callable[[], object]] = {
            "grad": lambda: lib.grad(f)(2.0),
            "jvp": lambda: lib.jvp(f, (2.0,), (0.5,)),
            "vmap_grad": lambda: lib.vmap(lib.grad(f))(xs),
            "jit_grad": lambda: lib.jit(lib.vmap(lib.grad(f)))(xs),
            "jacfwd": lambda: lib.jacfwd(f)(xs),
            "jacrev": lambda: lib.jacrev(f)(xs),
            "hessian": lambda: lib.hessian(lambda v: f(v).sum())(xs),
            "jacfwd_jacrev": lambda: lib.jacfwd(lib.jacrev(f))(1.5),
        }
        return cases[how]()

    both(case)


def test_defjvps_f_of_x_y() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        f = fxy_of(lib, np_)
        return (
            f(2.0, 3.0), lib.grad(f)(2.0, 3.0), lib.grad(f, 1)(2.0, 3.0),
            lib.jacrev(f, (0, 1))(2.0, 3.0), lib.jacfwd(f, (0, 1))(2.0, 3.0),
            lib.hessian(f)(2.0, 3.0), lib.vmap(lib.grad(f))(np_.arange(3.0), np_.ones(3)),
            lib.value_and_grad(f)(1.0, 2.0),
        )

    both(case)


def test_the_rule_is_used_not_the_function() -> None:
    @tdx.custom_jvp
    def f(x: tdx.ArrayLike) -> tdx.Array:
        return tnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))
    assert float(np.asarray(tdx.grad(f)(0.3))) == 10.0
    assert float(np.asarray(tdx.jvp(f, (0.3,), (2.0,))[1])) == 20.0
    assert float(np.asarray(tdx.grad(lambda x: f(x) * 2.0)(0.3))) == 20.0


def test_nondiff_argnums_callable() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        app = app_of(lib, np_)
        return (
            app(lambda x: x ** 3, 3.0), lib.grad(app, 1)(lambda x: x ** 3, 3.0),
            lib.jit(lib.grad(app, 1), static_argnums=0)(np_.sin, 3.0),
            lib.vmap(lambda x: lib.grad(app, 1)(np_.sin, x))(np_.arange(3.0)),
        )

    both(case)


def test_nondiff_argnums_array_gets_no_derivative() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        @typed(functools.partial(lib.custom_jvp, nondiff_argnums=(1,)))
        def scale(x: Any, k: Any) -> Any:
            return x * k

        scale.defjvp(lambda k, p, t: (scale(p[0], k), t[0] * k))
        return lib.grad(lambda x: scale(x, x))(2.0), lib.grad(scale)(2.0, 3.0)

    both(case)


def test_safe_log() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        f = safe_log_of(lib, np_)
        xs = np_.array([0.0, 1.0, 2.0])
        return lib.grad(f)(2.0), lib.vmap(lib.grad(f))(xs), lib.jit(lib.grad(lambda v: f(v).sum()))(xs)

    both(case)


def test_pytree_arguments_and_outputs() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        @typed(lib.custom_jvp)
        def f(d: Any) -> Any:
            return {"s": np_.sin(d["a"]) * d["b"], "t": (d["a"] * 2.0,)}

        @typed(f.defjvp)
        def f_jvp(p: Any, t: Any) -> Any:
            (d,), (dt,) = p, t
            return f(d), {"s": 3.0 * dt["a"] + dt["b"], "t": (5.0 * dt["a"],)}

        g = lambda a, b: (lambda o: o["s"].sum() + o["t"][0].sum())(f({"a": a, "b": b}))  # noqa: E731
        return lib.grad(g, (0, 1))(np_.arange(3.0), np_.ones(3)), lib.jacfwd(g)(np_.arange(3.0), 2.0)

    both(case)


def test_inside_scan_and_cond() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        f = fxy_of(lib, np_)
        log = safe_log_of(lib, np_)
        clip_sin = clip_sin_of(lib, np_)

        def body(c: Any, x: Any) -> Any:
            return c * log(x), f(x, c)

        xs = np_.array([1.0, 2.0, 3.0])
        h = lambda x: lib.lax.cond(x > 0, lambda v: f(v, 2.0), clip_sin, x)  # noqa: E731
        return (
            lib.grad(lambda v: lib.lax.scan(body, 1.0, v)[1].sum())(xs),
            lib.jit(lib.grad(lambda v: lib.lax.scan(body, 1.0, v)[0]))(xs),
            lib.vmap(lib.grad(h))(np_.array([-0.3, 0.3, 2.0])),
            lib.jacfwd(lambda v: lib.lax.scan(body, 1.0, v)[1])(xs),
        )

    both(case)


def test_closure_over_a_batched_value() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        def outer(y: Any) -> Any:
            @typed(lib.custom_jvp)
            def f(x: Any) -> Any:
                return x * y

            f.defjvp(lambda p, t: (f(p[0]), t[0] * 100.0))
            return f(2.0), lib.grad(f)(2.0)

        return lib.vmap(outer)(np_.arange(3.0)), lib.jit(outer)(3.0)

    both(case)


def test_eager_jit_and_the_jaxpr() -> None:
    f = log1pexp_of(tdx, tnp)
    xs = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(np.asarray(f(xs)), np.asarray(tdx.jit(f)(xs)), rtol=1e-15)
    closed = tdx.make_jaxpr(f)(xs)
    jaxpr = closed.jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["custom_jvp_call"]
    typecheck_jaxpr(jaxpr)
    text = str(jaxpr)
    assert "call_jaxpr=" in text and "jvp_jaxpr=" in text and 'log1pexp"' in text
    again = parse_jaxpr(text)
    assert again == jaxpr and str(again) == text
    np.testing.assert_allclose(np.asarray(tdx.eval_jaxpr(again, [xs])[0]), np.asarray(f(xs)))
    # the parsed equation still differentiates with the rule
    g = tdx.grad(lambda x: tnp.sum(tdx.eval_jaxpr(again, [x])[0]))(np.full(3, 100.0))
    np.testing.assert_array_equal(np.asarray(g), np.ones(3))


def _logged_sin(log: list[str], scale: float) -> tdx.custom_jvp[[tdx.ArrayLike], tdx.Array]:
    @tdx.custom_jvp
    def f(x: tdx.ArrayLike) -> tdx.Array:
        log.append("f")
        return tnp.sin(x)

    @f.defjvp
    def f_jvp(p: tuple[tdx.Array], t: tuple[tdx.Array]) -> tuple[tdx.Array, tdx.Array]:
        log.append("jvp")
        return f(p[0]), tnp.cos(p[0]) * t[0] * scale

    return f


def test_staged_rules_are_traced_on_first_need_and_print_one_level() -> None:
    """A staged call holds its rule as a lazily traced jaxpr (JAX's thunk):
    staging runs the function only; two stagings of one function compare
    equal without tracing the rule, and another function's call with the
    same primal does not. Printing traces the rules of the printed
    equations (a rule's own calls print theirs as ``untraced``), the text
    parses back equal, and the parsed rule differentiates; a derivative
    that needs a rule the text did not hold says so."""
    log: list[str] = []
    f, g = _logged_sin(log, 1.0), _logged_sin(log, 5.0)
    j1, j2, j3 = (tdx.make_jaxpr(h)(1.0).jaxpr for h in (f, f, g))
    assert log == ["f", "f", "f"]
    assert j1 == j2 and hash(j1) == hash(j2) and j1 != j3
    text = str(j1)
    assert log == ["f", "f", "f", "jvp", "f"]  # the rule, which stages f again (not its rule)
    assert "jvp_jaxpr={ lambda" in text and "jvp_jaxpr=untraced" in text
    again = parse_jaxpr(text)
    assert again == j1 and str(again) == text
    typecheck_jaxpr(again)
    run = lambda x: tdx.eval_jaxpr(again, [x])[0]  # noqa: E731
    assert float(np.asarray(tdx.grad(run)(0.5))) == pytest.approx(np.cos(0.5), rel=1e-15)
    assert log.count("jvp") == 1  # the parsed rule is a jaxpr: nothing runs again
    with pytest.raises(CustomDerivativeError, match="untraced"):
        tdx.grad(tdx.grad(run))(0.5)
    assert float(np.asarray(tdx.grad(tdx.grad(f))(0.5))) == pytest.approx(-np.sin(0.5), rel=1e-15)


def test_a_batched_staged_rule_batching_what_its_function_does_not() -> None:
    """Under ``jit(vmap(...))`` the staged call is batched by its function
    (its rule is not traced yet, as in JAX); a rule whose output is batched
    where the function's is not is refused clearly when it is traced (JAX
    fails inside ``broadcast_in_dim`` there). Eager ``vmap`` batches the rule itself."""

    @tdx.custom_jvp
    def f(x: tdx.ArrayLike, y: tdx.ArrayLike) -> tdx.Array:
        return tnp.multiply(x, 1.0)

    f.defjvp(lambda p, t: (f(*p), t[0] * p[1]))
    ys = np.arange(3.0)
    assert float(np.asarray(tdx.grad(lambda x: tdx.vmap(f, (None, 0))(x, ys).sum())(2.0))) == 3.0
    with pytest.raises(CustomDerivativeError, match="batched output where the function's own output is not"):
        tdx.grad(lambda x: tdx.jit(tdx.vmap(f, (None, 0)))(x, ys).sum())(2.0)


def test_dce_prunes_unused_outputs_and_operands() -> None:
    from typedax.interpreters.dce import dce_jaxpr

    @tdx.custom_jvp
    def two(x: tdx.ArrayLike, y: tdx.ArrayLike) -> tuple[tdx.Array, tdx.Array]:
        return tnp.sin(x), tnp.cos(y)

    two.defjvp(lambda p, t: (two(*p), (3.0 * t[0], 5.0 * t[1])))
    jaxpr = tdx.make_jaxpr(two)(1.0, 2.0).jaxpr
    pruned, used_in = dce_jaxpr(jaxpr, [True, False])
    (eqn,) = pruned.eqns
    # the rule is not traced yet (it may read any argument): every one stays, as in JAX
    assert used_in == [True, True] and len(eqn.inputs) == 2 and len(eqn.out_binders) == 1
    typecheck_jaxpr(pruned)
    g = tdx.grad(lambda x: tdx.eval_jaxpr(pruned, [x, 2.0])[0])(1.0)
    assert float(np.asarray(g)) == 3.0

    assert np.allclose(np.asarray(tdx.jit(lambda x: two(x, 2.0)[0])(1.0)), np.sin(1.0))


def test_vmap_of_the_staged_equation_keeps_it() -> None:
    f = fxy_of(tdx, tnp)
    closed = tdx.make_jaxpr(tdx.vmap(f, (0, None)))(np.arange(3.0), 2.0)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["custom_jvp_call"]
    typecheck_jaxpr(closed.jaxpr)


def test_grad_of_vmap_uses_the_batched_rule() -> None:
    both(lambda lib, np_: lib.grad(lambda v: lib.vmap(log1pexp_of(lib, np_))(v).sum())(np_.array([1.0, 100.0])))


# -- custom_vjp ------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["value", "grad", "vmap_grad", "jit_vmap_grad", "grad_vmap", "jacrev", "vjp"])
def test_clip_gradient(how: str) -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        clip_sin = clip_sin_of(lib, np_)
        xs = np_.linspace(-3.0, 3.0, 5)
        cases: dict[str, Callable[[], object]] = {
            "value": lambda: clip_sin(xs),
            "grad": lambda: (lib.grad(clip_sin)(0.1), lib.grad(clip_sin)(2.0)),
            "vmap_grad": lambda: lib.vmap(lib.grad(clip_sin))(xs),
            "jit_vmap_grad": lambda: lib.jit(lib.vmap(lib.grad(clip_sin)))(xs),
            "grad_vmap": lambda: lib.grad(lambda v: lib.vmap(clip_sin)(v).sum())(xs),
            "jacrev": lambda: lib.jacrev(lambda v: clip_sin(v * 2.0))(xs),
            "vjp": lambda: lib.vjp(clip_sin, xs)[1](np_.ones(5)),
        }
        return cases[how]()

    both(case)


def test_custom_vjp_doc_example_and_nondiff() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        @typed(lib.custom_vjp)
        def f(x: Any, y: Any) -> Any:
            return np_.sin(x) * y

        f.defvjp(lambda x, y: (f(x, y), (np_.cos(x), np_.sin(x), y)),
                 lambda res, g: (res[0] * g * res[2], res[1] * g))

        @typed(functools.partial(lib.custom_vjp, nondiff_argnums=(0,)))
        def app(fn: Callable[[Any], Any], x: Any) -> Any:
            return fn(x)

        app.defvjp(lambda fn, x: (fn(x), x), lambda fn, x, g: (5.0 * g * x,))
        return (
            lib.value_and_grad(f, (0, 1))(1.0, 2.0),
            lib.grad(app, 1)(np_.sin, 3.0),
            lib.jit(lib.grad(lambda x: app(np_.cos, x) * f(x, x)))(0.7),
            lib.grad(lambda x: lib.grad(f)(x, 2.0))(0.7),  # reverse over reverse
        )

    both(case)


def test_custom_vjp_bwd_returns_pytrees_and_broadcast_residuals() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        @typed(lib.custom_vjp)
        def f(d: Any, w: Any) -> Any:
            return d["a"] * w

        f.defvjp(lambda d, w: (f(d, w), (d["a"], w)),
                 lambda r, g: ({"a": g * r[1] * 2.0}, (g * r[0]).sum()))
        xs = np_.arange(1.0, 4.0)
        return (
            lib.grad(lambda a, w: f({"a": a}, w).sum(), (0, 1))(xs, 3.0),
            lib.grad(lambda w: lib.vmap(lambda a: f({"a": a}, w))(xs).sum())(3.0),
        )

    both(case)


def test_custom_vjp_inside_scan_and_jit() -> None:
    def case(lib: ModuleType, np_: ModuleType) -> object:
        clip_sin = clip_sin_of(lib, np_)
        xs = np_.linspace(-2.0, 2.0, 4)
        loss = lambda v: lib.lax.scan(lambda c, x: (c + clip_sin(x * c), None), 1.0, v)[0]  # noqa: E731
        return lib.grad(loss)(xs), lib.jit(lib.grad(loss))(xs)

    both(case)


def test_custom_vjp_jaxpr_round_trips() -> None:
    clip_sin = clip_sin_of(tdx, tnp)
    jaxpr = tdx.make_jaxpr(clip_sin)(1.0).jaxpr
    assert "custom_vjp_call" in str(jaxpr) and "bwd_jaxpr=" in str(jaxpr)
    typecheck_jaxpr(jaxpr)
    assert parse_jaxpr(str(jaxpr)) == jaxpr


# -- errors ------------------------------------------------------------------------------
def test_jvp_of_a_custom_vjp_function_is_refused() -> None:
    clip_sin = clip_sin_of(tdx, tnp)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(clip_sin_of(jax, jnp), (1.0,), (1.0,))
    for run in (
        lambda: tdx.jvp(clip_sin, (1.0,), (1.0,)),
        lambda: tdx.jacfwd(clip_sin)(1.0),
        lambda: tdx.jit(lambda x: tdx.jvp(clip_sin, (x,), (1.0,)))(1.0),
    ):
        with pytest.raises(CustomDerivativeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function.*clip_gradient"):
            run()


def test_missing_rules() -> None:
    @tdx.custom_jvp
    def f(x: tdx.ArrayLike) -> tdx.ArrayLike:
        return x

    @tdx.custom_vjp
    def g(x: tdx.ArrayLike) -> tdx.ArrayLike:
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function .*f using defjvp"):
        f(1.0)
    with pytest.raises(MissingCustomRuleError, match="No VJP defined for custom_vjp function .*g using defvjp"):
        tdx.grad(g)(1.0)


def test_rule_output_errors() -> None:
    def with_rule(rule: Callable[[Any, Any], Any]) -> Any:
        @tdx.custom_jvp
        def f(x: tdx.Array) -> tdx.Array:
            return tnp.sin(x)

        f.defjvp(rule)
        return f

    cases: list[tuple[Callable[[Any, Any], Any], str]] = [
        (lambda p, t: tnp.sin(p[0]), "must produce a pair"),
        (lambda p, t: (tnp.sin(p[0]), (t[0],)), "equal container"),
        (lambda p, t: ((tnp.sin(p[0]),), (t[0],)), "container/pytree structure"),
        (lambda p, t: (tnp.sin(p[0]) * tnp.ones(2), t[0] * tnp.ones(2)), "shapes/dtypes"),
        (lambda p, t: (tnp.sin(p[0]), t[0] * tnp.ones(2)), "corresponding shapes and dtypes"),
        (lambda p, t: (tnp.sin(p[0]), tnp.int32(1)), "corresponding shapes and dtypes"),
    ]
    for i, (rule, msg) in enumerate(cases):
        f = with_rule(rule)
        # eager grad calls the rule alone (as JAX's): its primal output is the
        # output, so cases 2 and 3 are checked where the function is traced too
        differentiate = tdx.grad(tdx.jit(f)) if i in (2, 3) else tdx.grad(f)
        with pytest.raises(CustomDerivativeError, match=msg) as e:
            differentiate(np.float64(0.5))
        assert "function test_rule_output_errors.<locals>.with_rule.<locals>.f" in str(e.value)
    for i in (2, 3):  # eagerly, JAX's grad refuses the non-scalar output the rule gives
        with pytest.raises(TypeError):
            tdx.grad(with_rule(cases[i][0]))(np.float64(0.5))


def test_bwd_output_errors() -> None:
    def with_bwd(bwd: Callable[[Any, Any], Any]) -> Any:
        @tdx.custom_vjp
        def f(x: Any, y: Any) -> Any:
            return x * y

        f.defvjp(lambda x, y: (f(x, y), (x, y)), bwd)
        return f

    with pytest.raises(CustomDerivativeError, match="tuple of length equal to the number of arguments"):
        tdx.grad(with_bwd(lambda r, g: (g,)))(1.0, 2.0)
    with pytest.raises(CustomDerivativeError, match="same type as the args tuple"):
        tdx.grad(with_bwd(lambda r, g: (g * tnp.ones(3), g)))(1.0, 2.0)
    with pytest.raises(CustomDerivativeError, match="must produce a pair"):
        @tdx.custom_vjp
        def h(x: Any) -> Any:
            return x

        h.defvjp(lambda x: x, lambda r, g: (g,))
        tdx.grad(h)(1.0)


def test_nondiff_argnums_errors() -> None:
    @functools.partial(tdx.custom_jvp, nondiff_argnums=(2,))
    def f(x: Any, y: Any) -> Any:
        return x * y

    f.defjvp(lambda k, p, t: (p[0], t[0]))
    with pytest.raises(CustomDerivativeError, match="nondiff_argnums=\\(2,\\).*2 positional"):
        tdx.grad(f)(1.0, 2.0)
    with pytest.raises(CustomDerivativeError, match="non-negative"):
        tdx.custom_jvp(lambda x: x, nondiff_argnums=(-1,))
    with pytest.raises(CustomDerivativeError, match="defjvps"):
        functools.partial(tdx.custom_jvp, nondiff_argnums=(0,))(lambda f, x: x).defjvps(None)

    @functools.partial(tdx.custom_vjp, nondiff_argnums=(0,))
    def g(k: Any, x: Any) -> Any:
        return k * x

    g.defvjp(lambda k, x: (g(k, x), None), lambda k, r, ct: (ct * k,))
    def traced_k(k: tdx.ArrayLike) -> tdx.Array:
        out: tdx.Array = g(k, 2.0)
        return out

    def static_k(x: tdx.ArrayLike) -> tdx.Array:
        out: tdx.Array = g(3.0, x)
        return out

    with pytest.raises(CustomDerivativeError, match="Tracers cannot be passed as non-differentiable"):
        tdx.grad(traced_k)(1.0)
    assert float(np.asarray(tdx.grad(static_k)(2.0))) == 3.0


def test_differentiating_a_closed_over_value_is_refused() -> None:
    def outer(y: Any) -> Any:
        @tdx.custom_jvp
        def f(x: Any) -> Any:
            return x * y

        f.defjvp(lambda p, t: (f(p[0]), t[0]))
        return f(2.0)

    # called on constants, the function runs below the JVP interpreter (as
    # JAX's): the differentiated value it closes over escapes there, JAX's
    # UnexpectedTracerError; staged, the closure is a constant of the equation
    with pytest.raises(EscapedTracerError):
        tdx.grad(outer)(3.0)
    with pytest.raises(EscapedTracerError):
        tdx.jvp(outer, (3.0,), (1.0,))
    with pytest.raises(CustomDerivativeError, match="closes over"):
        tdx.grad(tdx.jit(outer))(3.0)


def test_keyword_arguments_resolve_to_positions() -> None:
    f = fxy_of(tdx, tnp)
    assert np.allclose(np.asarray(tdx.grad(lambda x: f(x, y=3.0))(2.0)), np.cos(2.0) * 3.0)
    assert np.allclose(np.asarray(f(y=3.0, x=2.0)), np.sin(2.0) * 3.0)


def test_the_decorators_keep_the_signature() -> None:
    @tdx.custom_jvp
    def f(x: tdx.Array, n: int) -> tdx.Array:
        return x * n

    f.defjvp(lambda p, t: (f(*p), t[0] * p[1]))
    y: tdx.Array = f(tnp.ones(2), 3)  # mypy checks the argument and result types
    assert f.__name__ == "f" and y.shape == (2,)
    assert lax is not None
