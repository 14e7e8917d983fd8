"""``typedax.scipy.linalg`` (issue 29 item 2): values and dtypes against
SciPy (whose names, signatures and conventions ``jax.scipy.linalg``
follows; x64 on, so JAX's dtypes are SciPy's) and against JAX itself where
JAX is the only reference (``eigh``'s vectors, batched ``toeplitz``, weak
types, ``expm``'s float32 Padé and its NaN past ``max_squarings``); the
same values under ``jit``; gradients of ``lu``, ``lu_solve``, ``cho_solve``
and ``expm`` against central differences; ``expm_frechet`` as ``expm``'s
JVP; the LU pivots against LAPACK's on random shapes (hypothesis); JAX's
errors and warnings.

JAX is called sparingly: each call of a jitted ``jax.scipy.linalg``
function compiles (0.3-2 s of CPU each), and the file must cost at most a
few seconds."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg  # type: ignore[import-untyped]  # scipy ships no type stubs
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.linalg as tsl

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(29)
A = RNG.standard_normal((3, 3))
S = A @ A.T + 3 * np.eye(3)  # symmetric positive definite
B = RNG.standard_normal((3, 2))
V = RNG.standard_normal(3)
R = RNG.standard_normal((4, 3))
BATCH = RNG.standard_normal((2, 3, 3))
RNG_C = RNG.standard_normal((2, 4))


def _leaves(x: object) -> list[np.ndarray[Any, Any]]:
    if isinstance(x, (tuple, list)):
        return [np.asarray(v) for v in x]
    return [np.asarray(x)]


def _close(got: object, want: object, tol: float = 1e-10) -> None:
    gs, ws = _leaves(got), _leaves(want)
    assert len(gs) == len(ws)
    for g, w in zip(gs, ws):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


# (name, the call of a module: typedax.scipy.linalg, then the oracle's)
Case = tuple[str, Callable[[Any], object]]
SCIPY_CASES: list[Case] = [
    ("cholesky upper", lambda m: m.cholesky(S)),
    ("cholesky lower", lambda m: m.cholesky(S, lower=True)),
    ("cho_solve", lambda m: m.cho_solve(m.cho_factor(S), B)),
    ("cho_solve lower vector", lambda m: m.cho_solve(m.cho_factor(S, lower=True), V)),
    ("solve_triangular", lambda m: m.solve_triangular(S, B)),
    ("solve_triangular T lower", lambda m: m.solve_triangular(S, B, trans="T", lower=True)),
    ("solve_triangular C unit", lambda m: m.solve_triangular(S, V, trans=2, unit_diagonal=True)),
    ("lu", lambda m: m.lu(A)),
    ("lu tall", lambda m: m.lu(R)),
    ("lu wide permute_l", lambda m: m.lu(R.T, permute_l=True)),
    ("lu of ints", lambda m: m.lu(np.array([[1, 2], [3, 4]]))),
    ("lu float32", lambda m: m.lu(A.astype(np.float32))),
    ("lu_factor", lambda m: m.lu_factor(A)),
    ("lu_solve", lambda m: m.lu_solve(m.lu_factor(A), B)),
    ("lu_solve trans 1", lambda m: m.lu_solve(m.lu_factor(A), B, trans=1)),
    ("lu_solve trans 2 vector", lambda m: m.lu_solve(m.lu_factor(A), V, trans=2)),
    ("qr", lambda m: m.qr(R)),
    ("qr economic", lambda m: m.qr(R, mode="economic")),
    ("qr r", lambda m: m.qr(R, mode="r")),
    ("svd", lambda m: m.svd(R, full_matrices=False)),
    ("svd values", lambda m: m.svd(R, compute_uv=False)),
    ("eigh values", lambda m: m.eigh(S, eigvals_only=True)),
    ("inv", lambda m: m.inv(A)),
    ("det", lambda m: m.det(A)),
    ("solve", lambda m: m.solve(A, B)),
    ("solve pos", lambda m: m.solve(S, V, assume_a="pos")),
    ("solve pos lower", lambda m: m.solve(S, B, assume_a="pos", lower=True)),
    ("expm", lambda m: m.expm(A)),
    ("expm_frechet", lambda m: m.expm_frechet(A, S)),
    ("expm_frechet only", lambda m: m.expm_frechet(A, S, compute_expm=False)),
    ("block_diag", lambda m: m.block_diag(A, V, np.float32(2.0), np.ones((2, 1), np.int32))),
    ("block_diag ints", lambda m: m.block_diag(np.ones((1, 2), np.int32), np.int32(3))),
    ("block_diag empty", lambda m: m.block_diag()),
    ("toeplitz", lambda m: m.toeplitz(V)),
    ("toeplitz c r", lambda m: m.toeplitz(V, R[:, 0])),
    ("toeplitz ints", lambda m: m.toeplitz(np.array([1, 2, 3]))),
    ("hankel", lambda m: m.hankel(V, R[:, 0])),
    ("hankel c", lambda m: m.hankel(V)),
    ("circulant", lambda m: m.circulant(V)),
    ("polar", lambda m: m.polar(R)),
    ("polar left", lambda m: m.polar(R.T, side="left")),
    ("hessenberg", lambda m: m.hessenberg(np.vstack([R.T, R[:, 0]]))),
    ("hessenberg q complex", lambda m: m.hessenberg(A + 1j * S, calc_q=True)),
    ("leslie", lambda m: m.leslie(V, V[:2])),
    ("leslie ints", lambda m: m.leslie(np.array([1, 2, 3]), np.array([4, 5]))),
    ("companion of ints", lambda m: m.companion(np.array([1, 2, 3]))),
    ("fiedler", lambda m: m.fiedler(V)),
    ("fiedler_companion", lambda m: m.fiedler_companion(np.array([1.0, 2, 3, 4, 5, 6]))),
    ("convolution_matrix", lambda m: m.convolution_matrix(V, 5)),
    ("convolution_matrix same", lambda m: m.convolution_matrix(R[:, 0], 3, "same")),
    ("convolution_matrix valid", lambda m: m.convolution_matrix(R[:, 0], 3, "valid")),
    ("hilbert", lambda m: m.hilbert(4)),
    ("invhilbert", lambda m: m.invhilbert(4)),
    ("helmert full", lambda m: m.helmert(4, full=True)),
    ("hadamard", lambda m: m.hadamard(4)),
    ("hadamard float32", lambda m: m.hadamard(4, dtype=np.float32)),
    ("dft sqrtn", lambda m: m.dft(4, "sqrtn")),
    ("qr_multiply", lambda m: m.qr_multiply(R, RNG_C)),
    ("qr_multiply left vector", lambda m: m.qr_multiply(R, V, "left")),
    ("qr_multiply conjugate complex", lambda m: m.qr_multiply(A + 1j * S, B.T, conjugate=True)),
    ("schur", lambda m: m.schur(A)),
    ("schur complex", lambda m: m.schur(R[:3], output="complex")),
    ("schur float32", lambda m: m.schur(A.astype(np.float32))),
]


@pytest.mark.parametrize("case", SCIPY_CASES, ids=[c[0] for c in SCIPY_CASES])
def test_matches_scipy(case: Case) -> None:
    name, call = case
    tol = 1e-5 if "float32" in name else 1e-10
    # singular vectors are unique up to sign, and cuSOLVER's signs are not
    # LAPACK's: on a GPU the oracle is JAX's svd there
    oracle = jsl if name == "svd" and tdx.default_backend() != "cpu" else scipy.linalg
    _close(call(tsl), call(oracle), tol)


JAX_CASES: list[Case] = [
    ("eigh", lambda m: m.eigh(S)),
    ("eigh reads a symmetrized input", lambda m: m.eigh(A, lower=False)),
    ("lu_factor batch", lambda m: m.lu_factor(BATCH)),
]


@pytest.mark.parametrize("case", JAX_CASES, ids=[c[0] for c in JAX_CASES])
def test_matches_jax(case: Case) -> None:
    _, call = case
    _close(call(tsl), call(jsl))


def test_batches_as_jax() -> None:
    """``expm`` and ``toeplitz`` map over leading axes, as JAX's (SciPy's
    ``expm`` does too; its ``toeplitz`` flattens, so each row is compared)."""
    _close(tsl.expm(BATCH), scipy.linalg.expm(BATCH))
    _close(tsl.toeplitz(BATCH[0], BATCH[1]),
           np.stack([scipy.linalg.toeplitz(c, r) for c, r in zip(BATCH[0], BATCH[1])]))


def test_special_matrices_dtypes_as_jax() -> None:
    """JAX's ``pascal`` is float32 and ``invpascal`` float (SciPy's are
    integers); ``dft`` takes a complex ``dtype``."""
    p, ip = tsl.pascal(4, "lower"), tsl.invpascal(4)
    assert p.dtype == np.float32 and ip.dtype == np.float64
    # exp of lgamma sums, as JAX's: its own gives 0.99999905 for 1 (XLA's
    # lgamma, as typedax's eager evaluation on a GPU), the host's scipy 1
    np.testing.assert_allclose(np.asarray(p), scipy.linalg.pascal(4, "lower"), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(ip), scipy.linalg.invpascal(4), atol=1e-9)
    np.testing.assert_allclose(np.asarray(tsl.pascal(4)), scipy.linalg.pascal(4), rtol=4e-6)
    d = tsl.dft(4, "n", dtype=np.complex64)
    assert d.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(d), scipy.linalg.dft(4, "n"), atol=1e-6)


def test_schur_under_jit_and_vmap_and_sqrtm() -> None:
    """``schur`` is LAPACK's ``gees`` (a host callback, as JAX's CPU-only
    lowering) under ``jit`` and ``vmap`` too; ``sqrtm`` (complex, through
    the complex Schur form) squares back to its input."""
    t, z = tdx.jit(tsl.schur)(A)
    want_t, want_z = scipy.linalg.schur(A)
    _close((t, z), (want_t, want_z))
    batched = tdx.vmap(lambda m: tsl.schur(m, output="complex")[0])(BATCH)
    _close(batched, np.stack([scipy.linalg.schur(m, output="complex")[0] for m in BATCH]))
    for m in (A, S):
        root = tsl.sqrtm(m)
        assert root.dtype == np.complex128
        np.testing.assert_allclose(np.asarray(root) @ np.asarray(root), m, atol=1e-10)
        np.testing.assert_allclose(np.asarray(root), scipy.linalg.sqrtm(m), atol=1e-8)
    assert tsl.sqrtm(A.astype(np.float32)).dtype == np.complex64


def test_schur_based_functions() -> None:
    """``rsf2csf``, ``funm`` (complex, as JAX's) and ``solve_sylvester``
    (both methods) against SciPy."""
    t, z = scipy.linalg.schur(A)
    _close(tsl.rsf2csf(t, z), scipy.linalg.rsf2csf(t, z), 1e-12)
    f = tsl.funm(A, tnp.exp)
    assert f.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(f), scipy.linalg.expm(A), atol=1e-12)
    f_sin, err = tsl.funm(S, tnp.sin, disp=False)
    np.testing.assert_allclose(np.asarray(f_sin), scipy.linalg.sinm(S), atol=1e-12)
    assert 0 < float(err) < 1e-10
    c = RNG.standard_normal((3, 4))
    b4 = RNG.standard_normal((4, 4))
    want = scipy.linalg.solve_sylvester(A, b4, c)
    for method in ("schur", "eigen"):
        _close(tsl.solve_sylvester(A, b4, c, method=method), want, 1e-10)
    assert np.isnan(np.asarray(tsl.solve_sylvester(np.eye(2), -np.eye(2), np.ones((2, 2))))).all()


def test_x64_off_dtypes_as_jax() -> None:
    """With x64 off: float32 factors, int32 pivots, float32 special
    matrices (no truncation warning), complex64 ``dft``."""
    tdx.config.update("jax_enable_x64", False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lu_, piv = tsl.lu_factor(A)
            assert lu_.dtype == np.float32 and piv.dtype == np.int32
            np.testing.assert_array_equal(np.asarray(piv), scipy.linalg.lu_factor(A)[1])
            assert tsl.expm(A).dtype == np.float32
            for m in (tsl.hilbert(3), tsl.invhilbert(3), tsl.invpascal(3), tsl.helmert(3)):
                assert m.dtype == np.float32
            assert tsl.dft(3).dtype == np.complex64
    finally:
        tdx.config.update("jax_enable_x64", True)


def test_weak_types_as_jax() -> None:
    """A Python scalar among ``block_diag``'s arguments is weak, as in JAX."""
    got, want = tsl.block_diag(A.astype(np.float32), 2.0), jsl.block_diag(A.astype(np.float32), 2.0)
    _close(got, want)
    assert got.weak_type == want.weak_type


@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.5, 1.5, 4.0, 40.0])
def test_expm_each_pade_degree_and_squarings(scale: float) -> None:
    """The scales pick each of JAX's Padé degrees (3 to 13 in float64, 3 to 7
    in float32) and, at 40, squarings; float32 stays float32."""
    a = A * scale
    want = scipy.linalg.expm(a)
    np.testing.assert_allclose(np.asarray(tsl.expm(a)), want, rtol=1e-11 * max(1.0, scale**2))
    got32 = tsl.expm(a.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got32), want, rtol=2e-4, atol=2e-5 * float(np.abs(want).max()))


def test_expm_float32_and_nan_as_jax() -> None:
    a32 = (A * 1.5).astype(np.float32)
    _close(tsl.expm(a32), jsl.expm(a32), 1e-5)
    got = np.asarray(tsl.expm(A * 1e3, max_squarings=4))  # would need 13 squarings: NaN, as JAX's
    assert got.dtype == np.float64 and np.isnan(got).all()


def test_under_jit_equals_eager() -> None:
    """One compiled program holding the functions built from the primitives
    (LU, the triangular and Cholesky solves, expm with its switch/scan/cond)."""

    def f(a: tdx.Array, s: tdx.Array, b: tdx.Array) -> tuple[tdx.Array, ...]:
        return (*tsl.lu_factor(a), tsl.lu_solve(tsl.lu_factor(a), b, trans=1), tsl.cho_solve(tsl.cho_factor(s), b),
                tsl.solve_triangular(s, b, lower=True), tsl.expm(a))

    args = (tnp.asarray(A), tnp.asarray(S), tnp.asarray(B))
    for got, want in zip(tdx.jit(f)(*args), f(*args)):
        _close(got, want, 1e-12)


def _central(f: Callable[[np.ndarray[Any, Any]], float], a: np.ndarray[Any, Any],
             eps: float = 1e-6) -> np.ndarray[Any, Any]:
    out = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        out[idx] = (f(a + d) - f(a - d)) / (2 * eps)
    return out


def _loss(a: Any) -> Any:
    _, lo, up = tsl.lu(a)
    x = tsl.lu_solve(tsl.lu_factor(a), B, trans=1)
    y = tsl.cho_solve(tsl.cho_factor(a @ a.T + 3 * tnp.eye(3)), V)
    return tnp.sum(lo * up) + tnp.sum(x**2) + tnp.sum(y) + tnp.sum(tnp.sin(tsl.expm(a)))


def test_vmap_against_a_loop() -> None:
    spd = BATCH @ np.swapaxes(BATCH, -1, -2) + 3 * np.eye(3)
    rhs = RNG.standard_normal((2, 3))
    cases: list[tuple[Callable[..., Any], tuple[np.ndarray[Any, Any], ...]]] = [
        (tsl.expm, (BATCH,)),
        (tsl.lu, (BATCH,)),
        (lambda s, v: tsl.cho_solve(tsl.cho_factor(s), v), (spd, rhs)),
        (lambda s, v: tsl.lu_solve(tsl.lu_factor(s), v, trans=1), (BATCH, rhs)),
        (tsl.hessenberg, (BATCH,)),
        (tsl.sqrtm, (spd,)),
        (lambda d, e: tsl.eigh_tridiagonal(d, e, eigvals_only=True), (rhs, rhs[:, :2])),
    ]
    for f, args in cases:
        got = tdx.vmap(f)(*args)
        for i in range(2):
            _close(tdx.tree.map(lambda x: x[i], got), f(*(a[i] for a in args)), 1e-12)


@pytest.mark.parametrize("scale", [0.05, 3.0])
def test_gradients_against_central_differences(scale: float) -> None:
    """The derivatives of the LU factors and solves, the Cholesky solve and
    ``expm`` (through its Padé branch and, at scale 3, its squarings); JAX
    differentiates the same programs (its ``lu`` rule gives the derivative
    of the factors, as the elimination here does)."""
    a = A * scale
    loss = _loss if scale < 1 else (lambda x: tnp.sum(tnp.sin(tsl.expm(x))))  # at 3: the squarings
    got = np.asarray(tdx.grad(loss)(a))
    want = _central(lambda x: float(loss(x)), a)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # expm_frechet is expm's JVP
    fd = (np.asarray(tsl.expm(a + 1e-6 * S)) - np.asarray(tsl.expm(a - 1e-6 * S))) / 2e-6
    np.testing.assert_allclose(np.asarray(tsl.expm_frechet(a, S, compute_expm=False)), fd, rtol=1e-6, atol=1e-6)


@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**31 - 1))
@ci_examples(10)
def test_lu_pivots_are_lapacks(m: int, n: int, seed: int) -> None:
    """``lu_factor``'s pivots and factors are LAPACK's ``getrf``'s (SciPy's);
    ``lu`` reconstructs its input."""
    a = np.random.default_rng(seed).standard_normal((m, n))
    p, lo, up = (np.asarray(x) for x in tsl.lu(a))
    np.testing.assert_allclose(p @ lo @ up, a, atol=1e-12)
    if m == n:
        lu_, piv = tsl.lu_factor(a)
        want_lu, want_piv = scipy.linalg.lu_factor(a)
        np.testing.assert_array_equal(np.asarray(piv), want_piv)
        np.testing.assert_allclose(np.asarray(lu_), want_lu, atol=1e-12)


def test_errors_as_jax() -> None:
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
        tsl.qr(A, mode="bad")
    with pytest.raises(ValueError, match="assume_a"):
        tsl.solve(A, B, assume_a="bad")
    with pytest.raises(ValueError, match="Invalid 'trans' value"):
        tsl.solve_triangular(A, B, trans=3)
    with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2"):
        tsl.lu_solve(tsl.lu_factor(A), B, trans=3)
    with pytest.raises(ValueError, match="square matrix"):
        tsl.expm(R)
    with pytest.raises(ValueError, match="same shape"):
        tsl.expm_frechet(A, np.eye(2))
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        tsl.block_diag(BATCH)
    with pytest.raises(ValueError):
        tsl.lu(BATCH)  # JAX's scipy lu takes one matrix (lu_factor takes batches)
    with pytest.raises(ValueError, match="side"):
        tsl.polar(A, side="up")
    with pytest.raises(NotImplementedError):
        tsl.polar(R.T)  # qdwh: m < n needs side='left', as in JAX
    with pytest.raises(NotImplementedError, match="b=None"):
        tsl.eigh(S, S)
    with pytest.raises(NotImplementedError):
        tsl.qr(A, pivoting=True)
    with pytest.raises(TypeError, match="not supported"):
        tsl.expm(np.eye(2, dtype=np.float16))
    with pytest.raises(ValueError, match="at least 2"):
        tsl.leslie(V[:1], V[:0])
    with pytest.raises(ValueError, match="one less than"):
        tsl.leslie(V, V)
    with pytest.raises(ValueError, match="at least 2"):
        tsl.companion(V[:1])
    with pytest.raises(ValueError, match="positive integer"):
        tsl.convolution_matrix(V, 0)
    with pytest.raises(ValueError, match="mode must be one of"):
        tsl.convolution_matrix(V, 2, "bad")
    with pytest.raises(ValueError, match="power of 2"):
        tsl.hadamard(6)
    with pytest.raises(ValueError, match="scale must be"):
        tsl.dft(3, "bad")
    with pytest.raises(ValueError, match="complex floating-point"):
        tsl.dft(3, dtype=np.float32)
    with pytest.raises(ValueError, match="Expected kind"):
        tsl.pascal(3, "left")
    with pytest.raises(ValueError, match="positive integer"):
        tsl.helmert(0)
    with pytest.raises(ValueError, match="Expected 'output'"):
        tsl.schur(A, output="imag")
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        tsl.schur(np.eye(2, dtype=np.int32))
    with pytest.raises(ValueError, match="mode must be 'right' or 'left'"):
        tsl.qr_multiply(R, V, "up")
    with pytest.raises(ValueError, match="not compatible for c @ Q"):
        tsl.qr_multiply(R, V)
    with pytest.raises(ValueError, match="must be square"):
        tsl.rsf2csf(R, R)
    with pytest.raises(ValueError, match="expected square"):
        tsl.funm(R, tnp.exp)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tsl.solve_sylvester(A, A, R)
    with pytest.raises(ValueError, match="Unrecognized method"):
        tsl.solve_sylvester(A, A, A, method="qz")
    with pytest.raises(NotImplementedError, match="Blocked"):
        tsl.sqrtm(A, blocksize=2)
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        tsl.hessenberg(np.eye(2, dtype=np.int32))
    # a batch of 1-d right-hand sides: JAX's deprecation warning, and the vector solve
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FutureWarning, match="batched 1D solves"):
            tsl.cho_solve(tsl.cho_factor(BATCH @ np.swapaxes(BATCH, -1, -2) + 3 * np.eye(3)), BATCH[:, 0])
    with pytest.warns(FutureWarning):
        got = tsl.solve_triangular(S[None], V[None], lower=True)
    _close(got, scipy.linalg.solve_triangular(S, V, lower=True)[None])


def test_eigh_tridiagonal() -> None:
    """The eigenvalues are JAX's bisection's (bit for bit, checked by hand:
    JAX's call costs a compilation) and LAPACK's to 1e-13; the vectors
    (JAX's come from random starts) are eigenvectors, orthonormal."""
    d, e = RNG.standard_normal(5), RNG.standard_normal(4)
    got = tsl.eigh_tridiagonal(d, e, eigvals_only=True)
    np.testing.assert_allclose(np.asarray(got), scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True),
                               rtol=1e-13, atol=1e-13)
    part = tsl.eigh_tridiagonal(d.astype(np.float32), e.astype(np.float32), eigvals_only=True, select="i",
                                select_range=(1, 3))
    assert part.dtype == np.float32
    np.testing.assert_allclose(np.asarray(part), np.asarray(got)[1:4], rtol=1e-5, atol=1e-5)
    w, v = tsl.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(t @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-12)
    np.testing.assert_allclose(np.asarray(v).T @ np.asarray(v), np.eye(5), atol=1e-12)
    with pytest.raises(TypeError, match="same dtype"):
        tsl.eigh_tridiagonal(d, e.astype(np.float32))
    with pytest.raises(TypeError, match="Only float32 and float64"):
        tsl.eigh_tridiagonal(np.ones(3, np.int32), np.ones(2, np.int32))
    with pytest.raises(NotImplementedError):
        tsl.eigh_tridiagonal(d, e, select="v")
    with pytest.raises(ValueError, match="select_range must be specified"):
        tsl.eigh_tridiagonal(d, e, select="i")
