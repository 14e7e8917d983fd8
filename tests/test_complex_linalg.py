"""Linear algebra on complex matrices and the general eigendecomposition
(issue 28, item 4), against JAX as the oracle: ``cholesky``,
``triangular_solve`` (``conjugate_a``), ``qr``, ``eigh``, ``svd``,
``solve``, ``inv``, ``det``, ``slogdet`` on complex64/complex128, eagerly
and under ``jit`` (values and dtypes: ``eigh``'s eigenvalues and ``svd``'s
singular values are real); ``grad`` of real losses of complex inputs
(JAX's convention) against JAX and finite differences; ``eig``/``eigvals``
of real and complex matrices (reconstructions ``A v = v w``, ``vl^H A = w
vl^H``, the eigenvalues against JAX's), batched, ``vmap``ped, x64 off,
the jaxpr text, and the errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax_linalg as tll
from typedax.core.errors import PrimitiveTypeError
from typedax.core.parse import parse_jaxpr

#: eig lowers only for the CPU (jaxlib's LAPACK geev); JAX's GPU eig (cuSOLVER
#: Xgeev) is not ported yet: on a GPU run these tests have nothing to test.
CPU_EIG = pytest.mark.skipif(tdx.default_backend() != "cpu", reason="typedax lowers eig for the CPU only (a known gap on GPUs)")

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(28)


def _c(*shape: int) -> np.ndarray[Any, Any]:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


A = _c(2, 3, 3)
SPD = A @ np.conj(np.swapaxes(A, -1, -2)) + 3 * np.eye(3)  # Hermitian positive definite
TALL = _c(4, 3)
WIDE = _c(3, 4)
B = _c(2, 3, 2)


def _close(got: object, want: object, tol: float | None = None) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    t = tol if tol is not None else (1e-12 if g.dtype in (np.float64, np.complex128) else 2e-5)
    np.testing.assert_allclose(g, w, rtol=t, atol=t * max(1.0, float(np.abs(w).max(initial=0.0))))


def _all(mod: Any, la: Any, lax_linalg: Any, solves: bool) -> Callable[..., list[Any]]:
    """Every complex decomposition (and the solves: Gaussian elimination,
    the same code for either dtype, and ``solve``'s for ``inv``; ``slogdet``'s
    for ``det``) at once: one compilation a library and dtype."""

    def f(spd: Any, tall: Any, wide: Any, a: Any, b: Any) -> list[Any]:
        tri = mod.tril(a)
        return [
            la.cholesky(spd), *la.qr(tall), *la.qr(wide, mode="complete"), *la.eigh(spd), *la.svd(tall),
            la.svd(wide, compute_uv=False),
            lax_linalg.triangular_solve(tri, b, left_side=True, lower=True, transpose_a=True, conjugate_a=True),
            lax_linalg.triangular_solve(tri, mod.swapaxes(b, -1, -2), left_side=False, lower=True,
                                        transpose_a=False, conjugate_a=True),
        ] + ([la.solve(a, b), *la.slogdet(a)] if solves else [])
    return f


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_values_against_jax(dtype: type) -> None:
    """Values and dtypes (real eigenvalues and singular values) under ``jit``,
    and the decompositions eagerly with complex128 (SciPy's LAPACK: the
    routines jaxlib's kernels call)."""
    xs: tuple[np.ndarray[Any, Any], ...] = tuple(x.astype(dtype) for x in (SPD, TALL, WIDE, A, B))
    solves = dtype == np.complex128
    want = jax.jit(_all(jnp, jnp.linalg, jax.lax.linalg, solves))(*xs)
    got = tdx.jit(_all(tnp, tnp.linalg, tll, solves))(*xs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        _close(a, b)
    if solves:  # eager: the decompositions through SciPy (the solves are lax compositions, eager as under jit)
        eager = _all(tnp, tnp.linalg, tll, False)(*xs)
        for a, b in zip(eager, want[:len(eager)]):
            _close(a, b)


def test_compositions_conjugate_as_jax() -> None:
    """What is built on the decompositions takes conjugate transposes:
    ``cholesky(upper=True)``, ``pinv``, ``svd(hermitian=True)``, ``lstsq``
    (eager, against JAX's under ``jit``)."""
    herm = SPD[0] - 2.5 * np.eye(3)  # Hermitian, indefinite

    def f(la: Any, spd: Any, tall: Any, herm: Any, rhs: Any) -> list[Any]:
        return [la.cholesky(spd, upper=True), la.pinv(tall), la.pinv(herm, hermitian=True),
                *la.svd(herm, hermitian=True), *la.lstsq(tall, rhs)]

    args = (SPD[0], TALL, herm, _c(4, 2))
    for got, want in zip(f(tnp.linalg, *args), jax.jit(lambda *xs: f(jnp.linalg, *xs))(*args)):
        _close(got, want, 1e-10)
    # inv and det: solve's and slogdet's elimination (above), eagerly against NumPy
    _close(tnp.linalg.inv(A), np.linalg.inv(A), 1e-10)
    _close(tnp.linalg.det(A), np.linalg.det(A), 1e-10)


# real losses of complex inputs: grad in JAX's convention
def _loss(mod: Any) -> Callable[[Any], Any]:
    """One real loss through every complex decomposition (one compilation a
    library): ``cholesky`` and ``eigh`` of the Hermitian ``x x^H + 3``,
    ``qr``/``svd`` of ``x``'s first two columns, ``slogdet`` (Gaussian
    elimination, as ``det``, ``inv`` and ``solve``) and ``eigvals`` of ``x``."""
    la = mod.linalg

    def f(x: Any) -> Any:
        h = x @ mod.conj(x.T) + 3 * mod.eye(3)
        w, v = la.eigh(h)
        q, r = la.qr(x[:, :2])
        u, s, vh = la.svd(x[:, :2], full_matrices=False)
        sign, logabs = la.slogdet(x)
        ev = la.eigvals(x)
        return (mod.sum(mod.abs(la.cholesky(h)) ** 2) + mod.sum(w ** 2) + mod.sum(mod.abs(v[0, :]) ** 2 * w)
                + mod.sum(mod.real(q) * mod.imag(q)) + mod.sum(mod.abs(r) ** 2)
                + mod.sum(s ** 3) + mod.sum(mod.abs(u[0, :] * vh[:, 0]) ** 2)
                + logabs + mod.real(sign)
                + mod.sum(mod.real(ev ** 2)) + mod.sum(mod.imag(ev)))
    return f


@CPU_EIG
def test_grad_of_real_loss_against_jax_and_finite_differences() -> None:
    """``grad`` against JAX's; and the directional derivative along a complex
    ``d`` is ``Re(sum(g * d))`` for JAX's gradient ``g`` (``df/dx - i df/dy``)."""
    x = A[0]
    value_and_grad = tdx.jit(tdx.value_and_grad(_loss(tnp)))  # (one compilation for the three calls)
    g = np.asarray(value_and_grad(x)[1])
    _close(g, jax.jit(jax.grad(_loss(jnp)))(x), 1e-9)
    d = _c(*x.shape)
    eps = 1e-6
    fd = (float(value_and_grad(x + eps * d)[0]) - float(value_and_grad(x - eps * d)[0])) / (2 * eps)
    np.testing.assert_allclose(np.real(np.sum(g * d)), fd, rtol=1e-6)


# -- eig ---------------------------------------------------------------------------------------
def _sorted(w: object) -> np.ndarray[Any, Any]:
    v = np.asarray(w)
    return np.take_along_axis(v, np.lexsort((np.round(v.imag, 6), np.round(v.real, 6)), axis=-1), -1)


@CPU_EIG
@pytest.mark.parametrize("dtype", [np.complex128, np.float32])  # (float64: below; complex64: x64 off)
def test_eig_against_jax(dtype: type) -> None:
    a: np.ndarray[Any, Any] = (A if np.dtype(dtype).kind == "c" else A.real).astype(dtype)
    tol = 1e-10 if np.dtype(dtype).itemsize in (8, 16) and dtype != np.complex64 else 1e-4
    jw, jv = jnp.linalg.eig(a)
    for w, v in (tnp.linalg.eig(a), tdx.jit(tnp.linalg.eig)(a)):
        assert np.asarray(w).dtype == np.asarray(jw).dtype and np.asarray(v).dtype == np.asarray(jv).dtype
        np.testing.assert_allclose(_sorted(w), _sorted(jw), rtol=tol, atol=tol)
        av, vw = np.asarray(a) @ np.asarray(v), np.asarray(v) * np.asarray(w)[..., None, :]
        np.testing.assert_allclose(av, vw, rtol=tol, atol=tol * 10)
        np.testing.assert_allclose(np.linalg.norm(np.asarray(v), axis=-2), 1.0, rtol=tol)
    np.testing.assert_allclose(_sorted(tnp.linalg.eigvals(a)), _sorted(jnp.linalg.eigvals(a)), rtol=tol, atol=tol)


@CPU_EIG
def test_eig_left_vectors_and_lax_api() -> None:
    a = A.real
    w, vl, vr = tll.eig(a)
    w2, vl2, vr2 = tdx.jit(lambda x: tll.eig(x))(a)
    _close(w2, w, 1e-10)
    vlh = np.conj(np.swapaxes(np.asarray(vl), -1, -2))
    np.testing.assert_allclose(vlh @ a, np.asarray(w)[..., :, None] * vlh, atol=1e-10)
    np.testing.assert_allclose(a @ np.asarray(vr), np.asarray(vr) * np.asarray(w)[..., None, :], atol=1e-10)
    (w_only,) = tll.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    _close(w_only, w, 1e-10)


@CPU_EIG
def test_eig_vmap_and_conjugate_pairs() -> None:
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])  # eigenvalues +-1j, 2
    w = tnp.linalg.eigvals(rot)
    np.testing.assert_allclose(_sorted(w), _sorted(np.array([-1j, 1j, 2.0])), atol=1e-12)
    batch = np.stack([rot, A[0].real])
    _close(tdx.vmap(tnp.linalg.eigvals)(batch), tnp.linalg.eigvals(batch), 1e-12)


@CPU_EIG
def test_eigenvector_derivatives_with_enable_eigvec_derivs_as_jax() -> None:
    """JAX's eigenvector JVP (LAPACK's normalization kept), left and right,
    of a complex matrix, under ``jit``."""
    a, t = A[0], _c(3, 3)

    def ours(x: Any) -> tuple[Any, ...]:
        return tuple(tll.eig(x, enable_eigvec_derivs=True))

    def theirs(x: Any) -> tuple[Any, ...]:
        return tuple(jax.lax.linalg.eig(x, enable_eigvec_derivs=True))

    got = tdx.jit(lambda x, d: tdx.jvp(ours, (x,), (d,))[1])(a, t)
    want = jax.jit(lambda x, d: jax.jvp(theirs, (x,), (d,))[1])(a, t)
    for g, w in zip(got, want):
        _close(g, w, 1e-9)


@CPU_EIG
def test_eig_x64_off(x64_off: None) -> None:
    w, v = tnp.linalg.eig(A[0].real)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    np.testing.assert_allclose(_sorted(w), _sorted(jnp.linalg.eigvals(A[0].real)), rtol=1e-4, atol=1e-4)
    c = A[0].astype(np.complex64)  # LAPACK's cgeev under jit
    np.testing.assert_allclose(_sorted(tdx.jit(tnp.linalg.eigvals)(c)), _sorted(jnp.linalg.eigvals(c)), rtol=1e-4,
                               atol=1e-4)
    # an integer matrix is promoted to the default float type first
    assert tnp.linalg.eigvals(np.eye(2, dtype=np.int32)).dtype == np.complex64


@CPU_EIG
def test_eig_jaxpr_text_round_trips() -> None:
    text = str(tdx.make_jaxpr(lambda x: tnp.linalg.eig(x * 2.0))(A.real))
    assert "eig[" in text.replace(" ", "") and "compute_left_eigenvectors=False" in text
    assert str(parse_jaxpr(text)) == text


def test_errors() -> None:
    with pytest.raises(ValueError, match="must be a square matrix"):  # JAX's class and words
        tnp.linalg.eig(np.ones((2, 3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        tll.eig(np.eye(2, dtype=np.int32))
    with pytest.raises(PrimitiveTypeError, match="rank >= 2"):
        tll.eig(np.ones(3))
    with pytest.raises(NotImplementedError, match="eigenvectors"):
        tdx.grad(lambda x: tnp.sum(tnp.abs(tnp.linalg.eig(x)[1])))(A[0].real)
    with pytest.raises(NotImplementedError, match="LAPACK only"):
        tll.eig(A[0].real, implementation="magma")
    with pytest.raises(PrimitiveTypeError, match="complex64"):
        tll.cholesky(np.eye(2, dtype=np.int32), symmetrize_input=False)
