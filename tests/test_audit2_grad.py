"""Issue 23 (second audit), derivatives at singular points and loops: each
case used to give a silently wrong answer or to raise where JAX computes;
JAX 0.10.2 is the oracle, eagerly and under jit/vmap/grad where it applies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import typedax as tdx
from typedax import lax

from _examples import PROFILE

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax.config.update has no annotations

Fn = Callable[..., Any]


def _leaves(x: object) -> list[np.ndarray[Any, Any]]:
    return [np.asarray(v) for v in tdx.tree.flatten(x)[0]]


def _same(ours: object, theirs: object, rtol: float = 1e-12) -> None:
    a, b = _leaves(ours), [np.asarray(v) for v in jax.tree.leaves(theirs)]
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.shape == v.shape and u.dtype == v.dtype, (u.shape, u.dtype, v.shape, v.dtype)
        np.testing.assert_allclose(u, v, rtol=rtol, atol=0)


# -- 4. vmap over a size-0 batch of loops and conditionals ------------------------------
# Each maker takes the lax module (typedax's or JAX's) and gives a function of one
# example of shape (3,).
LOOPS: dict[str, Callable[[Any], Fn]] = {
    "while, batched predicate": lambda L: lambda v: L.while_loop(
        lambda c: c.sum() < 5.0, lambda c: c + 1.0, v),
    "while, unbatched predicate": lambda L: lambda v: L.while_loop(
        lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, v)),
    "nested while": lambda L: lambda v: L.while_loop(
        lambda c: c.sum() < 5.0,
        lambda c: L.while_loop(lambda d: d.sum() < c.sum() + 1.0, lambda d: d + 0.5, c), v),
    "fori_loop, traced bounds": lambda L: lambda v: L.fori_loop(
        0, (v.sum() > 0).astype(int) + 2, lambda i, c: c * 2.0, v),
    "fori_loop": lambda L: lambda v: L.fori_loop(0, 3, lambda i, c: c * 2.0, v),
    "cond": lambda L: lambda v: L.cond(v.sum() > 0, lambda a: a + 1.0, lambda a: a - 1.0, v),
    "switch": lambda L: lambda v: L.switch(
        (v.sum() > 0).astype(int), [lambda a: a + 1.0, lambda a: a - 1.0], v),
    "scan": lambda L: lambda v: L.scan(lambda c, a: (c + a, c * a), 0.0, v),
}


@pytest.mark.parametrize("name", list(LOOPS))
@pytest.mark.parametrize("size", [0, 2])
def test_vmap_over_an_empty_batch_of_loops(name: str, size: int) -> None:
    x = np.arange(size * 3, dtype=np.float64).reshape(size, 3) - 2.0
    want = jax.vmap(LOOPS[name](jlax))(jnp.asarray(x))
    f = tdx.vmap(LOOPS[name](lax))
    _same(f(x), want)
    _same(tdx.jit(f)(x), want)


# -- 3. scan's and fori_loop's unroll ------------------------------------------------------
def _body(np_: Any) -> Fn:
    return lambda c, x: (c * 0.5 + np_.sin(x), c * x)


UNROLLS: list[int | bool] = [1, 2, 3, 7, 100, 0, True, False]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", UNROLLS)
def test_scan_unroll_values(unroll: int | bool, reverse: bool) -> None:
    xs = np.linspace(-1.0, 2.0, 7)

    def ours(c: Any, xs: Any) -> Any:
        return lax.scan(_body(tdx.numpy), c, xs, unroll=unroll, reverse=reverse)

    want = jlax.scan(_body(jnp), 1.5, xs, unroll=unroll, reverse=reverse)
    _same(ours(1.5, xs), want)
    _same(tdx.jit(ours)(1.5, xs), want, rtol=1e-15)  # the unrolled loop computes JAX's bits


@pytest.mark.parametrize(("unroll", "reverse"), [(3, False), (True, True)])
def test_scan_unroll_under_vmap_grad_linearize_transpose(unroll: int | bool, reverse: bool) -> None:
    xs = np.linspace(-1.0, 2.0, 7)

    def ours(c: Any, xs: Any) -> Any:
        return lax.scan(_body(tdx.numpy), c, xs, unroll=unroll, reverse=reverse)

    def theirs(c: Any, xs: Any) -> Any:
        return jlax.scan(_body(jnp), c, xs, unroll=unroll, reverse=reverse)

    cs = np.array([0.5, 1.5, -2.0])
    _same(tdx.vmap(ours, in_axes=(0, None))(cs, xs), jax.vmap(theirs, in_axes=(0, None))(cs, xs))

    def loss(f: Fn, np_: Any) -> Fn:
        return lambda c, xs: np_.sum(f(c, xs)[1] ** 2) + f(c, xs)[0]

    want = jax.grad(loss(theirs, jnp), argnums=(0, 1))(1.5, xs)
    _same(tdx.grad(loss(ours, tdx.numpy), argnums=(0, 1))(1.5, xs), want)
    _same(tdx.jit(tdx.grad(loss(ours, tdx.numpy), argnums=(0, 1)))(1.5, xs), want)
    # linearize, and the transpose of the linear map (vjp)
    _, f_lin = tdx.linearize(lambda xs: ours(1.5, xs), xs)
    _, f_lin_j = jax.linearize(lambda xs: theirs(1.5, xs), xs)
    _same(f_lin(np.ones(7)), f_lin_j(jnp.ones(7)))
    _, pull = tdx.vjp(lambda xs: ours(1.5, xs)[1], xs)
    _, pull_j = jax.vjp(lambda xs: theirs(1.5, xs)[1], xs)
    _same(pull(np.arange(7.0)), pull_j(jnp.arange(7.0)))


@pytest.mark.parametrize("unroll", [2, True, 0])
def test_scan_unroll_is_a_param_that_prints_parses_and_survives_transformations(unroll: int | bool) -> None:
    xs = np.linspace(-1.0, 2.0, 5)
    want = jax.make_jaxpr(lambda xs: jlax.scan(_body(jnp), 1.0, xs, unroll=unroll))(xs)
    steps = want.jaxpr.eqns[0].params["unroll"]
    assert steps == (5 if unroll is True else unroll)
    j = tdx.make_jaxpr(lambda xs: lax.scan(_body(tdx.numpy), 1.0, xs, unroll=unroll))(xs).jaxpr
    assert j.eqns[0].params["unroll"] == steps and f"unroll={steps}" in str(j)
    assert tdx.parse_jaxpr(str(j)) == j and str(tdx.parse_jaxpr(str(j))) == str(j)
    # jvp, vmap and reverse mode keep it on the scans they make
    def g(xs: Any) -> Any:
        return lax.scan(_body(tdx.numpy), 1.0, xs, unroll=unroll)[0]

    for f, arg in ((tdx.grad(g), xs), (tdx.vmap(g), np.stack([xs, xs]))):
        jj = tdx.make_jaxpr(f)(arg).jaxpr
        scans = [e for e in jj.eqns if e.primitive.name == "scan"]
        assert scans and all(e.params["unroll"] == steps for e in scans)
        assert tdx.parse_jaxpr(str(jj)) == jj


@pytest.mark.parametrize("unroll", [1, 2, 3, True, False, 0, None])
def test_fori_loop_unroll(unroll: int | bool | None) -> None:
    def body(np_: Any) -> Fn:
        return lambda i, c: c * 1.5 + np_.cos(c * i)

    want = jlax.fori_loop(0, 5, body(jnp), 0.3, unroll=unroll)
    _same(lax.fori_loop(0, 5, body(tdx.numpy), 0.3, unroll=unroll), want)
    _same(tdx.jit(lambda c: lax.fori_loop(0, 5, body(tdx.numpy), c, unroll=unroll))(0.3), want)
    _same(tdx.grad(lambda c: lax.fori_loop(0, 5, body(tdx.numpy), c, unroll=unroll))(0.3),
          jax.grad(lambda c: jlax.fori_loop(0, 5, body(jnp), c, unroll=unroll))(0.3))
    if any(unroll is u for u in (None, False, 1, True)):  # JAX takes these with traced bounds too
        _same(tdx.jit(lambda n: lax.fori_loop(0, n, body(tdx.numpy), 0.3, unroll=unroll))(5),
              jax.jit(lambda n: jlax.fori_loop(0, n, body(jnp), 0.3, unroll=unroll))(5))


BAD_UNROLLS: list[object] = [-1, 2.5, 2.0, "a", np.array([2])]


@pytest.mark.parametrize("unroll", BAD_UNROLLS, ids=repr)
def test_bad_unroll_is_an_error(unroll: object) -> None:
    from typedax.core.errors import UnrollError

    f = _body(tdx.numpy)
    with pytest.raises(UnrollError, match="unroll"):
        lax.scan(f, 1.0, np.ones(3), unroll=unroll)  # type: ignore[arg-type]  # the wrong type is the test
    with pytest.raises(UnrollError, match="unroll"):
        lax.fori_loop(0, 3, lambda i, c: c, 1.0, unroll=unroll)  # type: ignore[arg-type]  # the wrong type is the test
    if unroll != 2.0:  # JAX takes 2.0 in scan by accident (its fori_loop refuses it); we refuse both
        with pytest.raises((TypeError, ValueError)):
            jlax.scan(_body(jnp), 1.0, jnp.ones(3), unroll=unroll)  # type: ignore[arg-type]  # the wrong type is the test


def test_unroll_with_traced_fori_bounds_or_traced_unroll_is_an_error() -> None:
    from typedax.core.errors import ConcretizationError, UnrollError

    with pytest.raises(UnrollError, match="statically known"):
        tdx.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)
    with pytest.raises(ValueError, match="statically known"):
        jax.jit(lambda n: jlax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)
    with pytest.raises(ConcretizationError, match="unroll"):
        tdx.jit(lambda u: lax.scan(_body(tdx.numpy), 1.0, np.ones(3), unroll=u))(2)


# -- 2. special-function derivatives at the boundary ----------------------------------------
import jax.scipy.special as jsp  # noqa: E402

import typedax.scipy.special as tsp  # noqa: E402

INF = float("inf")
# name: (ours, JAX's, points); the first and second derivatives there are JAX's
BOUNDARY: dict[str, tuple[Fn, Fn, list[float]]] = {
    "entr": (tsp.entr, jsp.entr, [0.0, 1.0]),
    "xlogy(x, 0)": (lambda x: tsp.xlogy(x, 0.0), lambda x: jsp.xlogy(x, 0.0), [0.0, 1.0]),
    "xlogy(0, y)": (lambda y: tsp.xlogy(0.0, y), lambda y: jsp.xlogy(0.0, y), [0.0, 1.0]),
    "xlogy(x, x)": (lambda x: tsp.xlogy(x, x), lambda x: jsp.xlogy(x, x), [0.0]),
    "xlog1py(x, -1)": (lambda x: tsp.xlog1py(x, -1.0), lambda x: jsp.xlog1py(x, -1.0), [0.0]),
    "xlog1py(0, y)": (lambda y: tsp.xlog1py(0.0, y), lambda y: jsp.xlog1py(0.0, y), [-1.0, 0.0]),
    "rel_entr(x, 1)": (lambda x: tsp.rel_entr(x, 1.0), lambda x: jsp.rel_entr(x, 1.0), [0.0]),
    "rel_entr(0, y)": (lambda y: tsp.rel_entr(0.0, y), lambda y: jsp.rel_entr(0.0, y), [0.0, 1.0]),
    "kl_div(x, 1)": (lambda x: tsp.kl_div(x, 1.0), lambda x: jsp.kl_div(x, 1.0), [0.0]),
    "kl_div(1, y)": (lambda y: tsp.kl_div(1.0, y), lambda y: jsp.kl_div(1.0, y), [0.0]),
    "logit": (tsp.logit, jsp.logit, [0.0, 1.0, 0.5]),
    "expit": (tsp.expit, jsp.expit, [0.0, INF, -INF]),
    "ndtri": (tsp.ndtri, jsp.ndtri, [0.0, 1.0]),
    "erfinv": (tsp.erfinv, jsp.erfinv, [1.0, -1.0]),
    "gammaln": (tsp.gammaln, jsp.gammaln, [0.0, -1.0, -2.0, INF]),
    "digamma": (tsp.digamma, jsp.digamma, [0.0, -1.0, INF, -INF]),
    "digamma, away from the poles": (tsp.digamma, jsp.digamma, [1.0, -0.5, 2.5]),
}
# JAX's polygamma(2, .) is NaN at the poles; typedax's trigamma is a constant inf there
FIRST_ONLY = {"digamma"}


def _nth(f: Fn, n: int, grad: Fn) -> Fn:
    for _ in range(n):
        f = grad(f)
    return f


@pytest.mark.parametrize("name", list(BOUNDARY))
def test_derivatives_at_the_boundary_match_jax(name: str) -> None:
    ours, theirs, points = BOUNDARY[name]
    xs = np.array(points)
    for n in (1,) if name in FIRST_ONLY else (1, 2):
        # ci: JAX's derivative under jax.jit (one compile for the points, not an eager dispatch
        # each); make test-long takes the eager one
        theirs_n = _nth(theirs, n, jax.grad)
        theirs_n = jax.jit(theirs_n) if PROFILE == "ci" else theirs_n
        want = np.array([float(theirs_n(x)) for x in points])
        d = _nth(ours, n, tdx.grad)
        got = np.array([float(d(x)) for x in points])
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{name}, derivative {n}")
        np.testing.assert_allclose(np.asarray(tdx.jit(tdx.vmap(d))(xs)), want, rtol=1e-12,
                                   err_msg=f"{name}, derivative {n}, jit of vmap")


# -- 1. every derivative of sinc at 0 -------------------------------------------------------
@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
def test_sinc_derivatives_at_and_near_zero(order: int) -> None:
    import typedax.numpy as tnp

    ours, theirs = _nth(tnp.sinc, order, tdx.grad), _nth(jnp.sinc, order, jax.grad)
    # ci: JAX's derivatives under jax.jit (a twentieth of the time of its eager dispatch of the
    # nested derivatives at order 5; the same values to 1e-12); make test-long takes the eager ones
    theirs_vmap = jax.vmap(theirs)
    if PROFILE == "ci":
        theirs, theirs_vmap = jax.jit(theirs), jax.jit(theirs_vmap)
    at_zero = float(theirs(0.0))  # 0, -pi**2/3, 0, pi**4/5, 0
    assert float(ours(0.0)) == at_zero
    assert float(tdx.jit(ours)(0.0)) == at_zero
    xs = np.array([0.0, 0.3, -0.7, 0.0, 2.5])
    want = theirs_vmap(jnp.asarray(xs))
    # away from 0 both differentiate sin(pi x) / (pi x): the same up to rounding
    np.testing.assert_allclose(np.asarray(tdx.vmap(ours)(xs)), want, rtol=1e-9)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.vmap(ours))(xs)), want, rtol=1e-9)
    near = 0.05  # near 0 the quotient's derivatives cancel: looser for the high orders
    np.testing.assert_allclose(float(ours(near)), float(theirs(near)), rtol=1e-9 * 10**order)


def test_sinc_values_and_its_zero_primitive() -> None:
    import typedax.numpy as tnp
    from typedax.core.errors import PrimitiveTypeError
    from pyrsistent import pmap

    from typedax.core import ShapedArray
    from typedax.primitives.special import sinc_maclaurin_p

    xs = np.array([0.0, 0.5, -1.0, 1e-8, 3.25])
    _same(tnp.sinc(xs), jnp.sinc(xs))
    _same(tdx.jit(tnp.sinc)(xs), jnp.sinc(xs))
    _same(tnp.sinc(xs.astype(np.float32)), jnp.sinc(xs.astype(np.float32)), rtol=1e-6)
    assert tnp.sinc(np.float32(0.0)).dtype == np.float32
    j = tdx.make_jaxpr(tnp.sinc)(0.5).jaxpr
    assert "sinc_maclaurin[ k=0 ]" in str(j).replace(" [", "[") and tdx.parse_jaxpr(str(j)) == j
    with pytest.raises(PrimitiveTypeError, match="sinc_maclaurin accepts float"):
        sinc_maclaurin_p.abstract_eval([ShapedArray((), np.dtype(np.int32))], pmap({"k": 0}))
    with pytest.raises(PrimitiveTypeError, match="'k' must be >= 0"):
        sinc_maclaurin_p.abstract_eval([ShapedArray((), np.dtype(np.float32))], pmap({"k": -1}))
