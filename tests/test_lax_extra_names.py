"""The lax names of issue 29 item 7 against jax.lax: the special functions
(igamma, igammac, igamma_grad_a, betainc, zeta, polygamma, bessel_i0e,
bessel_i1e), clz, pow with an integer exponent, optimization_barrier,
rng_bit_generator (bits equal to JAX's on the CPU), custom_linear_solve and
custom_root (implicit derivatives: solve is never differentiated, so a
solve through a while_loop still has a reverse-mode derivative) -- eager,
under jit, vmap and grad, and their errors."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError

from _examples import PROFILE, ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

#: the checks that cost an XLA compilation each beyond the first run outside
#: the ci profile only (make test's time; make test-long and dev run them)
FULL = PROFILE != "ci"

RNG = np.random.default_rng(29)


def close(got: object, want: object, rtol: float) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=rtol)


# -- the special functions ---------------------------------------------------------
SPECIAL: dict[str, tuple[tuple[float, float], ...]] = {
    "igamma": ((0.1, 8.0), (0.0, 12.0)), "igammac": ((0.1, 8.0), (0.0, 12.0)),
    "igamma_grad_a": ((0.1, 8.0), (0.01, 12.0)), "betainc": ((0.2, 6.0), (0.2, 6.0), (0.0, 1.0)),
    "zeta": ((1.1, 8.0), (0.5, 6.0)), "polygamma": ((0.0, 4.0), (0.3, 6.0)),
    "bessel_i0e": ((-20.0, 20.0),), "bessel_i1e": ((-20.0, 20.0),),
}


def _operands(name: str, dtype: type) -> list[np.ndarray[Any, Any]]:
    out: list[np.ndarray[Any, Any]] = [RNG.uniform(lo, hi, size=(7,)).astype(dtype) for lo, hi in SPECIAL[name]]
    if name == "polygamma":
        out[0] = np.floor(out[0])
    return out


LOOPS = ("igamma", "igammac", "igamma_grad_a", "betainc")  # XLA's while loops


def test_iterative_special_functions_match_jax() -> None:
    # under one jit (one compilation: CI time); igamma and igammac are
    # scipy.special's gammainc and gammaincc, tested eager and under jit
    # against JAX in test_scipy_special_more
    names = ("igamma_grad_a", "betainc")
    args = {n: _operands(n, np.float64) for n in names}
    got = tdx.jit(lambda d: {n: getattr(lax, n)(*d[n]) for n in names})(args)
    want = jax.jit(lambda d: {n: getattr(jax.lax, n)(*d[n]) for n in names})(args)
    for n in names:
        close(got[n], want[n], 1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_functions_match_jax(dtype: type) -> None:
    names = sorted(set(SPECIAL) - set(LOOPS))
    args = {n: _operands(n, dtype) for n in names}
    rtol = 2e-4 if dtype == np.float32 else 1e-9
    jitted = tdx.jit(lambda d: {n: getattr(lax, n)(*d[n]) for n in names})(args)
    for n in names:
        want = getattr(jax.lax, n)(*(jnp.asarray(a) for a in args[n]))
        close(getattr(lax, n)(*args[n]), want, rtol)
        close(jitted[n], want, rtol)


def test_special_functions_weak_types_and_scalars() -> None:
    x = np.asarray([0.5, 2.0], np.float32)
    r = lax.igamma(2.0, x)  # a Python scalar takes x's dtype, x's strength
    assert r.dtype == np.float32 and not r.weak_type
    assert lax.igamma(2.0, 3.0).weak_type and lax.bessel_i0e(1.0).weak_type
    # (JAX with x64 on refuses the Python float beside float32; typedax's lax takes it, weakly)
    close(lax.igamma(2.0, x), jax.lax.igamma(jnp.float32(2.0), jnp.asarray(x)), 1e-6)
    close(lax.zeta(2.0, x), jax.lax.zeta(jnp.float32(2.0), jnp.asarray(x)), 1e-6)


def test_special_function_derivatives_match_jax() -> None:
    a, x = np.asarray([0.7, 2.5, 6.0]), np.asarray([0.3, 2.0, 9.0])
    def loss(a: tdx.Array, x: tdx.Array) -> tdx.Array:
        return tnp.sum(lax.igamma(a, x))

    g = tdx.grad(loss, argnums=(0, 1))(tnp.asarray(a), tnp.asarray(x))
    gj = jax.jit(jax.grad(lambda a, x: jnp.sum(jax.lax.igamma(a, x)), (0, 1)))(a, x)
    close(g[0], gj[0], 1e-7)
    close(g[1], gj[1], 1e-7)
    if not FULL:
        return
    b = np.asarray([0.4, 0.5, 0.9])
    close(tdx.grad(lambda v: tnp.sum(lax.betainc(a, x + 1.0, v)))(b),
          jax.jit(jax.grad(lambda v: jnp.sum(jax.lax.betainc(a, x + 1.0, v))))(b), 1e-9)
    close(tdx.grad(lambda v: tnp.sum(lax.bessel_i1e(v)))(x), jax.grad(lambda v: jnp.sum(jax.lax.bessel_i1e(v)))(x), 1e-9)
    close(tdx.vmap(lax.zeta)(a + 1.0, x + 1.0), jax.vmap(jax.lax.zeta)(a + 1.0, x + 1.0), 1e-12)


def test_special_function_errors() -> None:
    i = np.arange(3, dtype=np.int32)
    with pytest.raises(TypeError, match="Accepted dtypes are subtypes of floating"):
        lax.igamma(i, i)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.zeta(np.ones(3, np.float32), np.ones(3))
    with pytest.raises(TypeError, match="incompatible shapes"):
        lax.igamma(np.ones(3), np.ones(2))
    with pytest.raises(PrimitiveTypeError):
        lax.bessel_i0e(i)


# -- clz and pow -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64])
def test_clz_matches_jax(dtype: type) -> None:
    info = np.iinfo(dtype)
    x: np.ndarray[Any, Any] = np.asarray([0, 1, 2, 3, 100, info.max, info.min, info.max // 3], dtype)
    want = np.asarray(jax.lax.clz(jnp.asarray(x)))
    for got in (lax.clz(x), tdx.jit(lax.clz)(x), tdx.vmap(lax.clz)(x)):
        assert np.asarray(got).dtype == dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_clz_errors_and_zero_tangent() -> None:
    with pytest.raises(PrimitiveTypeError, match="clz"):
        lax.clz(np.ones(2))
    assert "count_leading_zeros" in tdx.jit(lax.clz).lower(np.ones(2, np.int32)).as_text()


def test_pow_with_an_integer_exponent_matches_jax() -> None:
    x = RNG.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32)
    for y in (np.int32(0), np.uint8(2), np.arange(12, dtype=np.int32).reshape(3, 4) - 4):
        want = jax.lax.pow(jnp.asarray(x), jnp.asarray(y))
        close(lax.pow(x, y), want, 1e-6)
        close(tdx.jit(lax.pow)(x, y), want, 1e-6)
        close(tdx.grad(lambda v: tnp.sum(lax.pow(v, y)))(x),
              jax.grad(lambda v: jnp.sum(jax.lax.pow(v, jnp.asarray(y))))(jnp.asarray(x)), 1e-5)
    r = lax.pow(2.0, np.int32(3))  # a Python float base beside a strong integer: strong
    assert float(r) == 8.0 and not r.weak_type
    close(lax.pow(np.asarray([1.0 + 1.0j], np.complex64), np.int32(2)), jax.lax.pow(jnp.asarray([1.0 + 1.0j], jnp.complex64), 2), 1e-6)
    with pytest.raises(TypeError):
        lax.pow(np.int32(2), np.int32(3))
    with pytest.raises(TypeError):
        lax.pow(2, np.int32(3))


# -- optimization_barrier ------------------------------------------------------------
def test_optimization_barrier_is_an_identity_on_pytrees() -> None:
    tree = {"a": np.arange(3.0), "b": (np.int32(4), np.ones((2, 2), np.float32))}
    out = lax.optimization_barrier(tree)
    assert tdx.tree_util.tree_structure(out) == tdx.tree_util.tree_structure(tree)
    for o, t in zip(tdx.tree_util.tree_leaves(out), tdx.tree_util.tree_leaves(tree)):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(t))
        assert np.asarray(o).dtype == np.asarray(t).dtype
    assert lax.optimization_barrier(()) == ()
    text = tdx.jit(lambda x: lax.optimization_barrier((x, x * 2))).lower(1.0).as_text()
    assert "stablehlo.optimization_barrier" in text
    j = tdx.make_jaxpr(lambda x: lax.optimization_barrier((x, x * 2)))(1.0).jaxpr
    assert "optimization_barrier" in str(j) and parse_jaxpr(str(j)) == j


def test_optimization_barrier_derivatives_and_batching() -> None:
    def f(x: Any) -> tdx.Array:
        a, b = lax.optimization_barrier((lax.sin(x), x))
        return tnp.multiply(a, b)

    def fj(x: Any) -> jax.Array:
        a, b = jax.lax.optimization_barrier((jnp.sin(x), x))  # type: ignore[no-untyped-call]  # jax's optimization_barrier is untyped
        return a * b  # type: ignore[no-any-return]  # jax arrays

    for x in (0.3, 1.7):
        close(tdx.grad(f)(x), jax.grad(fj)(x), 1e-12)
        close(tdx.jit(tdx.grad(f))(x), jax.grad(fj)(x), 1e-12)
        close(tdx.jvp(f, (x,), (2.0,))[1], jax.jvp(fj, (x,), (2.0,))[1], 1e-12)
    xs = np.linspace(0.0, 1.0, 4)
    close(tdx.vmap(f)(xs), jax.vmap(fj)(xs), 1e-12)


# -- rng_bit_generator ----------------------------------------------------------------
@pytest.mark.parametrize(("algorithm", "dtype"), [
    (lax.RandomAlgorithm.RNG_DEFAULT, np.uint8), (lax.RandomAlgorithm.RNG_DEFAULT, np.uint64),
    (lax.RandomAlgorithm.RNG_THREE_FRY, np.uint32), (lax.RandomAlgorithm.RNG_PHILOX, np.uint32),
])
def test_rng_bit_generator_matches_jax(algorithm: lax.RandomAlgorithm, dtype: type) -> None:
    key = np.asarray([1, 2, 3, 4], np.uint32)
    jalg = getattr(jax.lax.RandomAlgorithm, algorithm.name)
    for dtype in (dtype,):
        want = jax.lax.rng_bit_generator(  # type: ignore[no-untyped-call]  # jax's rng_bit_generator is untyped
            jnp.asarray(key), (2, 3), dtype, jalg)
        for got in (lax.rng_bit_generator(key, (2, 3), dtype, algorithm),
                    tdx.jit(lambda k: lax.rng_bit_generator(k, (2, 3), dtype, algorithm))(key)):
            for g, w in zip(got, want):
                assert np.asarray(g).dtype == np.asarray(w).dtype
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_rng_bit_generator_keys_batching_and_errors() -> None:
    key64 = np.asarray([7, 8], np.uint64)
    for g, w in zip(lax.rng_bit_generator(key64, (5,)), jax.lax.rng_bit_generator(  # type: ignore[no-untyped-call]  # jax's rng_bit_generator is untyped
            jnp.asarray(key64), (5,))):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    keys = np.arange(12, dtype=np.uint32).reshape(3, 4)
    got = tdx.vmap(lambda k: lax.rng_bit_generator(k, (2,)))(keys)
    want = jax.vmap(lambda k: jax.lax.rng_bit_generator(  # type: ignore[no-untyped-call]  # jax's rng_bit_generator is untyped
            k, (2,)))(jnp.asarray(keys))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    j = tdx.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2,)))(keys[0]).jaxpr
    assert parse_jaxpr(str(j)) == j
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(keys[0], (2,), np.int32)
    with pytest.raises(PrimitiveTypeError, match="uint32\\[4\\] or uint64\\[2\\]"):
        lax.rng_bit_generator(np.zeros(3, np.uint32), (2,))
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"


# -- custom_linear_solve and custom_root -----------------------------------------------
A = RNG.normal(size=(3, 3)) + 4.0 * np.eye(3)
B = RNG.normal(size=3)


def _jacobi(np_: ModuleType, lax_: ModuleType) -> Callable[..., Any]:
    """A linear solve by Jacobi iteration in a while_loop (never differentiable
    in reverse mode itself), wrapped by custom_linear_solve."""

    def solve_with(a: Any) -> Callable[[Callable[[Any], Any], Any], Any]:
        def solve(matvec: Callable[[Any], Any], b: Any) -> Any:
            d = np_.diag(a)

            def body(c: tuple[Any, Any]) -> tuple[Any, Any]:
                i, x = c
                return i + 1, x + (b - matvec(x)) / d

            return lax_.while_loop(lambda c: c[0] < 60, body, (0, b / d))[1]

        return solve

    def f(a: Any, b: Any) -> Any:
        return lax_.custom_linear_solve(lambda x: np_.dot(a, x), b, solve_with(a), solve_with(np_.transpose(a)))

    return f


def test_custom_linear_solve_matches_jax() -> None:
    ft, fj = _jacobi(tnp, lax), _jacobi(jnp, jax.lax)
    want = fj(A, B)
    close(ft(A, B), want, 1e-12)
    close(tdx.jit(ft)(A, B), want, 1e-12)
    close(np.asarray(ft(A, B)), np.linalg.solve(A, B), 1e-10)
    for argnum in (0, 1):
        def loss_t(a: Any, b: Any) -> tdx.Array:
            return tnp.sum(tnp.sin(ft(a, b)))

        def loss_j(a: Any, b: Any) -> jax.Array:
            return jnp.sum(jnp.sin(fj(a, b)))

        gj = jax.grad(loss_j, argnum)(A, B)
        close(tdx.grad(loss_t, argnum)(A, B), gj, 1e-10)
        if FULL:
            close(tdx.jit(tdx.grad(loss_t, argnum))(A, B), gj, 1e-10)
    tA, tB = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    close(tdx.jvp(ft, (A, B), (tA, tB))[1], ci_jit(lambda *p: jax.jvp(fj, p[:2], p[2:])[1])(A, B, tA, tB), 1e-10)
    bs = RNG.normal(size=(4, 3))
    close(tdx.vmap(ft, (None, 0))(A, bs), jax.vmap(fj, (None, 0))(A, bs), 1e-12)
    if FULL:
        As = A + 0.1 * RNG.normal(size=(2, 3, 3))
        close(tdx.vmap(ft, (0, None))(As, B), jax.vmap(fj, (0, None))(As, B), 1e-12)


def test_custom_linear_solve_without_transpose_solve() -> None:
    def f(b: Any) -> tdx.Array:
        return tnp.asarray(lax.custom_linear_solve(lambda x: tnp.dot(A, x), b, lambda mv, x: tnp.linalg.solve(A, x)))

    close(tdx.jvp(f, (B,), (B,))[1], np.linalg.solve(A, B), 1e-12)  # forward mode needs no transpose
    with pytest.raises(TypeError, match="transpose_solve required"):
        tdx.grad(lambda b: tnp.sum(f(b)))(B)
    j = tdx.make_jaxpr(f)(B).jaxpr
    assert parse_jaxpr(str(j)) == j
    sym = RNG.normal(size=(3, 3))
    sym = sym @ sym.T + 3 * np.eye(3)
    g = tdx.grad(lambda b: tnp.sum(lax.custom_linear_solve(
        lambda x: tnp.dot(sym, x), b, lambda mv, x: tnp.linalg.solve(sym, x), symmetric=True) ** 2))(B)
    close(g, 2 * np.linalg.solve(sym, np.linalg.solve(sym, B)), 1e-10)
    with pytest.raises(TypeError, match="matvec\\(\\) output"):
        lax.custom_linear_solve(lambda x: (x, x), B, lambda mv, x: x)  # type: ignore[arg-type, return-value]  # the wrong structure on purpose


def _sqrt_root(lax_: ModuleType) -> Callable[[Any], Any]:
    def sqrt(a: Any) -> Any:
        def f(x: Any) -> Any:
            return x * x - a

        def solve(f: Callable[[Any], Any], x0: Any) -> Any:
            body = lambda c: (c[0] + 1, c[1] - f(c[1]) / (2 * c[1]))
            return lax_.while_loop(lambda c: c[0] < 40, body, (0, x0))[1]

        return lax_.custom_root(f, 1.0 + 0 * a, solve, lambda g, y: y / g(1.0))

    return sqrt


def test_custom_root_matches_jax() -> None:
    st, sj = _sqrt_root(lax), _sqrt_root(jax.lax)
    a = np.asarray(2.0)
    close(st(a), sj(a), 1e-14)
    close(tdx.jit(st)(a), sj(a), 1e-14)
    close(tdx.grad(st)(a), jax.grad(sj)(a), 1e-14)  # through tangent_solve, not the while_loop
    close(tdx.jit(tdx.grad(st))(a), 0.5 / np.sqrt(2.0), 1e-14)
    close(tdx.jvp(st, (a,), (np.asarray(3.0),))[1], jax.jvp(sj, (a,), (3.0,))[1], 1e-14)
    xs = np.asarray([1.0, 4.0, 9.0])
    close(tdx.vmap(tdx.grad(st))(xs), jax.vmap(jax.grad(sj))(xs), 1e-14)
    with pytest.raises(TypeError, match="f output pytree structure"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)  # type: ignore[arg-type, return-value]  # the wrong structure on purpose


def test_custom_root_with_aux() -> None:
    def sqrt_aux(lax_: ModuleType) -> Callable[[Any], Any]:
        def sqrt(a: Any) -> Any:
            def f(x: Any) -> Any:
                return x * x - a

            def solve(f: Callable[[Any], Any], x0: Any) -> Any:
                x = x0
                for _ in range(30):
                    x = x - f(x) / (2 * x)
                return x, f(x)

            return lax_.custom_root(f, 1.0 + 0 * a, solve, lambda g, y: y / g(1.0), has_aux=True)

        return sqrt

    st, sj = sqrt_aux(lax), sqrt_aux(jax.lax)
    (x, res), (xj, resj) = st(2.0), sj(2.0)
    close(x, xj, 1e-15)
    close(res, resj, 1e-12)
    close(tdx.grad(lambda a: st(a)[0])(2.0), jax.grad(lambda a: sj(a)[0])(2.0), 1e-14)
    close(tdx.grad(lambda a: st(a)[1])(2.0), jax.grad(lambda a: sj(a)[1])(2.0), 1e-14)  # aux: zero
    with pytest.raises(TypeError, match="pair"):
        lax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True)  # type: ignore[call-overload]  # no aux on purpose
