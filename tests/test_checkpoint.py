"""``tdx.checkpoint`` / ``tdx.remat``, its policies, ``checkpoint_name`` and
``print_saved_residuals``, against JAX 0.10.2: gradients equal with and
without checkpoint for every policy (hand-written functions and generated
jaxprs), eagerly, under ``jit`` and ``vmap``; the jaxpr of ``grad`` holds
the recomputation; the residuals JAX's guide lists; the optimization
barrier in the lowering; the errors."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from jax._src.ad_checkpoint import saved_residuals as jax_saved_residuals  # public only as print_saved_residuals

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.ad_checkpoint import checkpoint_name, print_saved_residuals, saved_residuals
from typedax.control_flow.checkpoints import Policy, remat_partial_eval_jaxpr
from typedax.core import Jaxpr
from typedax.core.errors import CheckpointError
from typedax.core.ir import NDArray
from typedax.testing import jaxprs_with_args

from _examples import ci_examples

P = tdx.checkpoint_policies
JP = jax.checkpoint_policies

#: (typedax policy, JAX policy) pairs: every policy typedax offers.
POLICIES: list[tuple[Policy | None, object]] = [
    (None, None),
    (P.nothing_saveable, JP.nothing_saveable),
    (P.everything_saveable, JP.everything_saveable),
    (P.dots_saveable, JP.dots_saveable),
    (P.dots_with_no_batch_dims_saveable, JP.dots_with_no_batch_dims_saveable),
    (P.save_anything_except_these_names("y"), JP.save_anything_except_these_names("y")),
    (P.save_any_names_but_these("y"), JP.save_any_names_but_these("y")),
    (P.save_only_these_names("y"), JP.save_only_these_names("y")),
]
IDS = [p.kind if p is not None else "default" for p, _ in POLICIES]


def _layer_tdx(w: tdx.ArrayLike, x: tdx.ArrayLike) -> tdx.Array:
    y = checkpoint_name(tnp.dot(w, x), "y")
    z = checkpoint_name(tnp.sin(y), "z")
    return tnp.tanh(z) * tnp.cos(y)


def _layer_jax(w: jax.Array, x: jax.Array) -> jax.Array:
    from jax.ad_checkpoint import checkpoint_name as jname

    y = jname(jnp.dot(w, x), "y")  # type: ignore[no-untyped-call]  # JAX leaves it unannotated
    z = jname(jnp.sin(y), "z")  # type: ignore[no-untyped-call]  # JAX leaves it unannotated
    return jnp.tanh(z) * jnp.cos(y)


RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((5, 4)).astype(np.float32)
W2 = RNG.standard_normal((3, 5)).astype(np.float32)
X = RNG.standard_normal((4,)).astype(np.float32)


def _chain_tdx(policy: Policy | None, remat: bool) -> Callable[[tdx.Array, tdx.Array, tdx.Array], tdx.Array]:
    layer = tdx.checkpoint(_layer_tdx, policy=policy) if remat else _layer_tdx

    def f(w1: tdx.ArrayLike, w2: tdx.ArrayLike, x: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(layer(w2, layer(w1, x)) ** 2)

    return f


def _chain_jax(policy: object) -> Callable[[jax.Array, jax.Array, jax.Array], jax.Array]:
    layer = jax.checkpoint(_layer_jax, policy=policy)  # type: ignore[arg-type]  # a JAX policy object

    def f(w1: jax.Array, w2: jax.Array, x: jax.Array) -> jax.Array:
        return jnp.sum(layer(w2, layer(w1, x)) ** 2)

    return f


def _no_source(line: str) -> str:
    """JAX's residual source without its ``from file:line:col (function)``
    (typedax's equations record no source lines)."""
    return re.sub(r" from \S+:\d+(:\d+)?( \(.*\))?$", "", line)


def _close(a: Sequence[object], b: Sequence[object], rtol: float = 1e-5) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("policy, jpolicy", POLICIES, ids=IDS)
def test_grad_of_checkpoint_equals_grad_and_jax_for_every_policy(policy: Policy | None, jpolicy: object) -> None:
    args = (W1, W2, X)
    plain = tdx.grad(_chain_tdx(policy, False), argnums=(0, 1, 2))(*args)
    remat = tdx.grad(_chain_tdx(policy, True), argnums=(0, 1, 2))(*args)
    jitted = tdx.jit(tdx.grad(_chain_tdx(policy, True), argnums=(0, 1, 2)))(*args)
    theirs = jax.grad(_chain_jax(jpolicy), argnums=(0, 1, 2))(*args)
    _close(remat, plain, rtol=1e-6)
    _close(remat, theirs)
    _close(jitted, theirs)


@pytest.mark.pinned_jax  # JAX 0.11 names tanh's residual after a new primitive (one_minus_square)
@pytest.mark.parametrize("policy, jpolicy", POLICIES, ids=IDS)
def test_saved_residuals_are_jaxs_for_every_policy(policy: Policy | None, jpolicy: object) -> None:
    ours = [(a.str_short(), s) for a, s in saved_residuals(_chain_tdx(policy, True), W1, W2, X)]
    theirs = [
        (a.str_short(short_dtypes=True), _no_source(s))  # type: ignore[no-untyped-call]  # JAX's aval
        for a, s in jax_saved_residuals(_chain_jax(jpolicy), W1, W2, X)
    ]
    assert [a.replace("float32", "f32") for a, _ in ours] == [a for a, _ in theirs]
    if policy is not None and policy.kind in ("everything_saveable", "save_anything_except_these_names"):
        # as if there were no checkpoint; which values a first-order rule
        # saves is typedax's own (cos's JVP saves -sin x, JAX's sin x)
        plain = [(a.str_short(), s) for a, s in saved_residuals(_chain_tdx(policy, False), W1, W2, X)]
        assert ours == plain
        assert [s.replace("neg", "sin") for _, s in ours] == [s for _, s in theirs]
    else:
        assert [s for _, s in ours] == [s for _, s in theirs]


def test_vmap_and_jvp_of_checkpoint_match_jax() -> None:
    xs = RNG.standard_normal((3, 4)).astype(np.float32)
    ours = tdx.vmap(tdx.checkpoint(_layer_tdx), in_axes=(None, 0))(W1, xs)
    theirs = jax.vmap(jax.checkpoint(_layer_jax), in_axes=(None, 0))(W1, xs)
    _close([ours], [theirs])
    g_ours = tdx.vmap(tdx.grad(lambda x: tnp.sum(tdx.checkpoint(_layer_tdx)(W1, x))))(xs)
    g_theirs = jax.vmap(jax.grad(lambda x: jnp.sum(jax.checkpoint(_layer_jax)(W1, x))))(xs)
    _close([g_ours], [g_theirs])
    p, t = tdx.jvp(tdx.checkpoint(_layer_tdx), (W1, X), (W1, X))
    jp, jt = jax.jvp(jax.checkpoint(_layer_jax), (W1, X), (W1, X))
    _close([p, t], [jp, jt])
    y, lin = tdx.linearize(tdx.checkpoint(_layer_tdx), W1, X)
    _close([y, lin(W1, X)], [jp, jt])


def _sin_sin(x: tdx.ArrayLike) -> tdx.Array:
    return tnp.sin(tnp.sin(x))


def test_the_jaxpr_of_grad_recomputes_in_a_differentiated_checkpoint() -> None:
    closed = tdx.make_jaxpr(tdx.grad(tdx.checkpoint(_sin_sin)))(2.0)
    eqns = [e for e in closed.jaxpr.eqns if e.primitive.name == "checkpoint"]
    assert [e.params["differentiated"] for e in eqns] == [False, True]
    staged = eqns[1].params["jaxpr"]
    assert isinstance(staged, Jaxpr)
    assert [e.primitive.name for e in staged.eqns] == ["sin", "cos", "cos", "mul", "mul"]  # JAX's, in order
    assert eqns[1].inputs[0] is closed.jaxpr.in_binders[0]  # only the input is saved
    text = str(closed.jaxpr)
    assert str(tdx.parse_jaxpr(text)) == text and tdx.parse_jaxpr(text) == closed.jaxpr
    # everything_saveable: the forward pass saves the cosines, nothing is recomputed
    closed = tdx.make_jaxpr(tdx.grad(tdx.checkpoint(_sin_sin, policy=P.everything_saveable)))(2.0)
    staged = closed.jaxpr.eqns[-1].params["jaxpr"]
    assert isinstance(staged, Jaxpr) and [e.primitive.name for e in staged.eqns] == ["mul", "mul"]


def test_a_checkpoint_and_a_name_round_trip_through_text() -> None:
    closed = tdx.make_jaxpr(tdx.checkpoint(_layer_tdx, policy=P.save_only_these_names("y", "z")))(W1, X)
    text = str(closed.jaxpr)
    assert 'policy=("save_only_these_names", "y", "z")' in text and 'name [ name="y" ]' in text
    assert tdx.parse_jaxpr(text) == closed.jaxpr and str(tdx.parse_jaxpr(text)) == text


def test_the_recomputation_is_lowered_behind_an_optimization_barrier() -> None:
    f = tdx.grad(tdx.checkpoint(_sin_sin))
    assert tdx.jit(f).lower(2.0).as_text().count("stablehlo.optimization_barrier") == 1
    g = tdx.grad(tdx.checkpoint(_sin_sin, prevent_cse=False))
    assert "optimization_barrier" not in tdx.jit(g).lower(2.0).as_text()
    assert "optimization_barrier" not in tdx.jit(tdx.checkpoint(_sin_sin)).lower(2.0).as_text()
    assert float(np.asarray(tdx.jit(f)(2.0))) == pytest.approx(float(jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))))(2.0)))


def test_checkpoint_saves_memory_under_jit() -> None:
    """The acceptance figure at a small size (benchmarks/checkpoint.py has the
    50-layer one): XLA's temp buffers shrink as JAX's do."""
    ws = [(RNG.standard_normal((64, 64)) / 8).astype(np.float32) for _ in range(8)]
    x = RNG.standard_normal((16, 64)).astype(np.float32)

    def temp(remat: bool) -> int:
        def layer(w: tdx.ArrayLike, h: tdx.ArrayLike) -> tdx.Array:
            return tnp.sin(tnp.tanh(tnp.sin(tnp.matmul(h, w))))

        lay = tdx.checkpoint(layer) if remat else layer

        def f(ws: list[tdx.Array], h: tdx.ArrayLike) -> tdx.Array:
            for w in ws:
                h = lay(w, h)
            return tnp.sum(h)

        stats = tdx.jit(tdx.grad(f, argnums=(0, 1))).trace([tnp.asarray(w) for w in ws], tnp.asarray(x)).lower().compile().memory_analysis()
        assert stats is not None
        return stats.temp_size_in_bytes

    assert temp(True) <= 0.6 * temp(False)


def test_static_argnums_allow_python_control_flow() -> None:
    def f(x: tdx.ArrayLike, square: bool | tdx.Array) -> tdx.Array:
        return tnp.sin(x) ** 2 if square else tnp.sin(x)

    g = tdx.checkpoint(f, static_argnums=(1,))
    assert float(np.asarray(tdx.grad(g)(0.5, True))) == pytest.approx(2 * np.sin(0.5) * np.cos(0.5))
    assert float(np.asarray(tdx.grad(g)(0.5, False))) == pytest.approx(np.cos(0.5))
    assert float(np.asarray(tdx.grad(tdx.checkpoint(f, static_argnums=-1))(0.5, False))) == pytest.approx(np.cos(0.5))
    with pytest.raises(tdx.ConcretizationError):
        tdx.grad(tdx.checkpoint(f))(0.5, tdx.numpy.asarray(True))


def test_checkpoint_inside_scan_cond_and_nested_checkpoint_match_jax() -> None:
    def body_t(c: tdx.ArrayLike, w: tdx.ArrayLike) -> tuple[tdx.Array, tdx.Array]:
        c = tdx.checkpoint(lambda c, w: tnp.sin(c * w) + lax.cond(c > 0, tnp.cos, tnp.sin, c))(c, w)
        return c, c

    def body_j(c: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
        c = jax.checkpoint(lambda c, w: jnp.sin(c * w) + jax.lax.cond(c > 0, jnp.cos, jnp.sin, c))(c, w)
        return c, c

    ws = np.linspace(-1.0, 1.0, 5)
    def loss(c: tdx.ArrayLike, ws: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(lax.scan(body_t, c, ws)[1])

    ours = tdx.grad(loss, argnums=(0, 1))(0.3, ws)
    theirs = jax.grad(lambda c, ws: jnp.sum(jax.lax.scan(body_j, c, ws)[1]), argnums=(0, 1))(0.3, ws)
    _close(ours, theirs, rtol=1e-10)
    inner = tdx.checkpoint(lambda x: tnp.sin(tnp.sin(x)), policy=P.everything_saveable)
    outer = tdx.checkpoint(lambda x: tnp.cos(inner(x)) * x)
    j_in = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=JP.everything_saveable)
    j_out = jax.checkpoint(lambda x: jnp.cos(j_in(x)) * x)
    _close([tdx.grad(outer)(0.7), tdx.jit(tdx.grad(tdx.grad(outer)))(0.7)],
           [jax.grad(j_out)(0.7), jax.grad(jax.grad(j_out))(0.7)], rtol=1e-10)


def _as_fun(j: Jaxpr) -> Callable[..., object]:
    return lambda *xs: tuple(tdx.eval_jaxpr(j, list(xs)))


@ci_examples(12, otherwise=40, deadline=None)
@given(jaxprs_with_args(differentiable=True, max_eqns=6, min_inputs=1))
def test_vjp_of_checkpoint_equals_vjp_on_generated_jaxprs(case: tuple[Jaxpr, list[NDArray]]) -> None:
    j, args = case
    f = _as_fun(j)
    outs, vjp_plain = tdx.vjp(f, *args)
    cts = tuple(tnp.ones_like(o) for o in outs)  # type: ignore[attr-defined]  # outs of a generated jaxpr's function: typed object
    want = vjp_plain(cts)
    for policy in (None, P.everything_saveable, P.dots_saveable):
        outs_r, vjp_r = tdx.vjp(tdx.checkpoint(f, policy=policy), *args)
        _close(list(outs_r), list(outs), rtol=1e-12)  # type: ignore[call-overload]  # f returns a tuple
        _close(list(vjp_r(cts)), list(want), rtol=1e-10)
    # the pure unzipping: known and staged halves compose to the jaxpr
    unknowns = [i % 2 == 0 for i in range(len(j.in_binders))]
    known, staged, out_uk, res = remat_partial_eval_jaxpr(j, unknowns, P.nothing_saveable)
    k_outs = tdx.eval_jaxpr(known, [a for a, u in zip(args, unknowns) if not u])
    n_known = out_uk.count(False)
    s_outs = tdx.eval_jaxpr(staged, [*k_outs[n_known:], *[a for a, u in zip(args, unknowns) if u]])
    direct = tdx.eval_jaxpr(j, args)
    ko, so = iter(k_outs[:n_known]), iter(s_outs)
    _close([next(so) if u else next(ko) for u in out_uk], direct, rtol=1e-12)
    assert len(res) == len(staged.in_binders) - sum(unknowns)


def test_print_saved_residuals_prints_jaxs_lines_for_the_guide(capsys: pytest.CaptureFixture[str]) -> None:
    def g(w: tdx.ArrayLike, x: tdx.ArrayLike) -> tdx.Array:
        return tnp.sin(tnp.dot(w, x))

    def f(W1: tdx.ArrayLike, W2: tdx.ArrayLike, W3: tdx.ArrayLike, x: tdx.ArrayLike) -> tdx.Array:  # noqa: N803  (the guide's names)
        return g(W3, g(W2, g(W1, x)))

    def f2(W1: tdx.ArrayLike, W2: tdx.ArrayLike, W3: tdx.ArrayLike, x: tdx.ArrayLike) -> tdx.Array:  # noqa: N803
        return tdx.checkpoint(g)(W3, tdx.checkpoint(g)(W2, tdx.checkpoint(g)(W1, x)))

    def jg(w: jax.Array, x: jax.Array) -> jax.Array:
        return jnp.sin(jnp.dot(w, x))

    def jf(W1: jax.Array, W2: jax.Array, W3: jax.Array, x: jax.Array) -> jax.Array:  # noqa: N803
        return jg(W3, jg(W2, jg(W1, x)))

    def jf2(W1: jax.Array, W2: jax.Array, W3: jax.Array, x: jax.Array) -> jax.Array:  # noqa: N803
        out: jax.Array = jax.checkpoint(jg)(W3, jax.checkpoint(jg)(W2, jax.checkpoint(jg)(W1, x)))
        return out

    args = (np.ones((5, 4), np.float32), np.ones((6, 5), np.float32), np.ones((7, 6), np.float32), np.ones(4, np.float32))
    cases: list[tuple[Callable[..., object], Callable[..., object]]] = [
        (f, jf), (tdx.checkpoint(f), jax.checkpoint(jf)),
        (tdx.checkpoint(f, policy=P.dots_saveable), jax.checkpoint(jf, policy=JP.dots_saveable)),
        (f2, jf2),
    ]
    for ours, theirs in cases:
        print_saved_residuals(ours, *args)
        got = capsys.readouterr().out
        jax.ad_checkpoint.print_saved_residuals(theirs, *args)  # type: ignore[no-untyped-call]  # JAX leaves it unannotated
        want = "".join(_no_source(line) + "\n" for line in capsys.readouterr().out.splitlines())
        assert got == want
        assert "f32[5,4] from the argument W1" in got


def test_a_policy_that_is_not_callable_fails_when_asked_as_jaxs() -> None:
    """JAX takes ``policy=3``: the function runs, under ``jvp``, ``vmap`` and
    ``jit`` too; differentiating in reverse mode (which asks the policy)
    raises its ``TypeError`` ('int' object is not callable)."""
    def f(m: Any) -> Callable[[Any], Any]:
        return lambda x: m.sin(x) * 2

    ours = tdx.checkpoint(f(tnp), policy=cast(Any, 3))  # not a policy: the case under test
    theirs = jax.checkpoint(f(jnp), policy=cast(Any, 3))
    xs = np.array([0.5, 1.0], np.float32)
    np.testing.assert_allclose(np.asarray(ours(1.0)), np.asarray(theirs(1.0)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.vmap(ours)(xs)), np.asarray(jax.vmap(theirs)(xs)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.jvp(ours, (1.0,), (1.0,))[1]),
                               np.asarray(jax.jvp(theirs, (1.0,), (1.0,))[1]), rtol=1e-6)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        jax.grad(theirs)(1.0)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        tdx.grad(ours)(1.0)


def test_checkpoint_errors_name_the_problem() -> None:
    with pytest.raises(CheckpointError, match="policy must be one of typedax.checkpoint_policies"):
        tdx.checkpoint(_sin_sin, policy=lambda *a, **k: True)  # type: ignore[arg-type]  # a custom policy: the error under test
    with pytest.raises(CheckpointError, match="unknown checkpoint policy 'save_it_all'"):
        Policy("save_it_all")
    with pytest.raises(CheckpointError, match="takes no names"):
        Policy("dots_saveable", ("y",))
    with pytest.raises(CheckpointError, match="names must be strings"):
        P.save_only_these_names(3)  # type: ignore[arg-type]  # not a name: the error under test
    with pytest.raises(CheckpointError, match="prevent_cse must be a bool"):
        tdx.checkpoint(_sin_sin, prevent_cse="yes")  # type: ignore[arg-type]  # not a bool: the error under test
    with pytest.raises(CheckpointError, match="must be an int or a tuple of ints"):
        tdx.checkpoint(_sin_sin, static_argnums="0")  # type: ignore[arg-type]  # not ints: the error under test
    with pytest.raises(CheckpointError, match=r"got \(3,\), while `len\(args\)` = 1"):
        tdx.checkpoint(_sin_sin, static_argnums=3)(1.0)
    with pytest.raises(CheckpointError, match="checkpoint_name: name must be a string"):
        checkpoint_name(1.0, 7)  # type: ignore[arg-type]  # not a str: the error under test
    text = str(tdx.make_jaxpr(tdx.checkpoint(_sin_sin))(1.0).jaxpr).replace("lambda a:float64[] .\n  let", "lambda a:float32[] .\n  let", 1)
    with pytest.raises(tdx.core.JaxprTypeError, match=r"checkpoint: jaxpr takes \(float64\[\]\) but is applied to \(float32\[\]\)"):
        tdx.parse_jaxpr(text)
