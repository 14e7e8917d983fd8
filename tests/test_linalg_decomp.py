"""Matrix decompositions (``typedax.lax_linalg``, the primitives of
``typedax.primitives.linalg``) against JAX: values eagerly and under ``jit``
(reconstructions ``L @ L.T``, ``Q @ R``, ``V @ diag(w) @ V.T``,
``U @ diag(s) @ Vt`` and invariant quantities, then the factors themselves:
both sides run LAPACK's same routines, so they agree to rounding), ``vmap``
against a loop, ``grad`` against ``jax.grad``, ``jvp`` against finite
differences, float32 and float64, and each refusal."""

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

from _examples import PROFILE, ci_cover

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(7)
DTYPES = [np.float32, np.float64]
TOL = {np.float32: 2e-5, np.float64: 1e-12}


def _spd(shape: tuple[int, ...], dtype: Any) -> np.ndarray[Any, Any]:
    a = R.normal(size=shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _close(x: Any, y: Any, dtype: Any, scale: float = 1.0) -> None:
    np.testing.assert_allclose(np.asarray(x, np.float64), np.asarray(y, np.float64),
                               rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale)


def _both(f: Callable[..., Any], *args: Any) -> list[Any]:
    """``f`` eagerly and under ``jit``."""
    return [f(*args), tdx.jit(f)(*args)]


def _mT(x: Any) -> Any:
    return np.swapaxes(np.asarray(x, np.float64), -1, -2)


# -- values against JAX ------------------------------------------------------------------
# ci: each shape in one dtype, alternating; make test-long runs every pair
@pytest.mark.parametrize("shape,dtype", ci_cover([(4, 4), (2, 3, 3), (1, 1)], DTYPES, ids=[["shape0", "shape1", "shape2"], None]))
def test_cholesky(shape: tuple[int, ...], dtype: Any) -> None:
    a = _spd(shape, dtype)
    ref = jax.lax.linalg.cholesky(jnp.asarray(a))
    for low in _both(tll.cholesky, a):
        assert low.dtype == dtype and low.shape == shape
        _close(low @ _mT(low), a, dtype, 10 * shape[-1])
        _close(low, ref, dtype, 10)
        assert np.all(np.triu(np.asarray(low), 1) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_not_positive_definite_is_nan(dtype: Any) -> None:
    a = np.stack([_spd((3, 3), dtype), -np.eye(3, dtype=dtype)])
    ref = np.asarray(jax.lax.linalg.cholesky(jnp.asarray(a)))  # NaN on and below the diagonal, zeros above
    for low in _both(tll.cholesky, a):
        assert np.all(np.isfinite(np.asarray(low[0])))
        np.testing.assert_array_equal(np.isnan(np.asarray(low)), np.isnan(ref))
        np.testing.assert_array_equal(np.asarray(low[1])[np.triu_indices(3, 1)], 0)


TS_FLAGS = [
    dict(left_side=True, lower=True), dict(left_side=True, lower=False, transpose_a=True),
    dict(left_side=False, lower=True, transpose_a=True), dict(left_side=False, lower=False),
    dict(left_side=True, lower=True, unit_diagonal=True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("flags", TS_FLAGS)
def test_triangular_solve(dtype: Any, flags: dict[str, bool]) -> None:
    a = (R.normal(size=(2, 4, 4)) + 4 * np.eye(4)).astype(dtype)
    b = R.normal(size=(2, 4, 3) if flags["left_side"] else (2, 3, 4)).astype(dtype)
    ref = jax.lax.linalg.triangular_solve(a, b, **flags)
    for x in _both(lambda a, b: tll.triangular_solve(a, b, **flags), a, b):
        _close(x, ref, dtype, 10)
        t = np.tril(a) if flags["lower"] else np.triu(a)
        if flags.get("unit_diagonal"):
            t = t * (1 - np.eye(4)) + np.eye(4)
        t = _mT(t) if flags.get("transpose_a") else t
        _close(t @ x if flags["left_side"] else x @ t, b, dtype, 100)


def test_triangular_solve_vector_rhs() -> None:
    a = np.tril(R.normal(size=(3, 3))) + 3 * np.eye(3)
    v = R.normal(size=3)
    for left in (True, False):
        x = tll.triangular_solve(a, v, left_side=left, lower=True)
        assert x.shape == (3,)
        _close(x, jax.lax.linalg.triangular_solve(a, v, left_side=left, lower=True), np.float64)


# ci: each shape, dtype and full_matrices at least once (rotating); make test-long runs every triple
@pytest.mark.parametrize("full,shape,dtype", ci_cover([True, False], [(5, 3), (3, 5), (2, 4, 4)], DTYPES,
                                                      ids=[None, ["shape0", "shape1", "shape2"], None]))
def test_qr(full: bool, shape: tuple[int, ...], dtype: Any) -> None:
    a = R.normal(size=shape).astype(dtype)
    rq, rr = jax.lax.linalg.qr(a, full_matrices=full)
    for q, r in _both(lambda a: tll.qr(a, full_matrices=full), a):
        assert q.shape == rq.shape and r.shape == rr.shape and q.dtype == dtype
        _close(q @ r, a, dtype, 20)
        k = q.shape[-1]
        _close(_mT(q) @ np.asarray(q, np.float64), np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype, 20)
        assert np.all(np.tril(np.asarray(r), -1) == 0)
        _close(q, rq, dtype, 20)
        _close(r, rr, dtype, 20)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5)])
def test_eigh(dtype: Any, shape: tuple[int, ...]) -> None:
    a = R.normal(size=shape).astype(dtype)
    a = (a + _mT(a).astype(dtype)) / 2
    rv, rw = jax.lax.linalg.eigh(a)
    for v, w in _both(tll.eigh, a):
        assert v.shape == shape and w.shape == shape[:-1] and w.dtype == dtype
        assert np.all(np.diff(np.asarray(w), axis=-1) >= 0)  # ascending
        _close(w, rw, dtype, 10)
        vv = np.asarray(v, np.float64)
        _close(vv @ (np.asarray(w, np.float64)[..., None] * _mT(vv)), a, dtype, 50)
        _close(np.abs(np.sum(vv * np.asarray(rv, np.float64), axis=-2)), np.ones(shape[:-1]), dtype, 100)


def test_eigh_reads_one_triangle() -> None:
    a = R.normal(size=(4, 4))
    for lower in (True, False):
        v, w = tll.eigh(a, lower=lower, symmetrize_input=False)
        rv, rw = jax.lax.linalg.eigh(jnp.asarray(a), lower=lower, symmetrize_input=False)
        _close(w, rw, np.float64, 10)
        _close(tdx.jit(lambda a: tll.eigh(a, lower=lower, symmetrize_input=False)[1])(a), rw, np.float64, 10)


# ci: each shape, dtype and full_matrices at least once (rotating); make test-long runs every triple
@pytest.mark.parametrize("full,shape,dtype", ci_cover([True, False], [(5, 3), (3, 5), (2, 4, 4)], DTYPES,
                                                      ids=[None, ["shape0", "shape1", "shape2"], None]))
def test_svd(full: bool, shape: tuple[int, ...], dtype: Any) -> None:
    a = R.normal(size=shape).astype(dtype)
    ru, rs, rvt = jax.lax.linalg.svd(a, full_matrices=full)
    for u, s, vt in _both(lambda a: tll.svd(a, full_matrices=full), a):
        assert (u.shape, s.shape, vt.shape) == (ru.shape, rs.shape, rvt.shape)
        assert np.all(np.diff(np.asarray(s), axis=-1) <= 0)  # descending
        _close(s, rs, dtype, 10)
        k = s.shape[-1]
        uu, vv = np.asarray(u, np.float64)[..., :k], np.asarray(vt, np.float64)[..., :k, :]
        _close(uu @ (np.asarray(s, np.float64)[..., None] * vv), a, dtype, 50)
        _close(u, ru, dtype, 100)
        _close(vt, rvt, dtype, 100)
    for s in _both(lambda a: tll.svd(a, compute_uv=False), a):
        _close(s, rs, dtype, 10)


def test_empty_matrices() -> None:
    for shape in [(0, 0), (2, 0, 0)]:
        for low in _both(tll.cholesky, np.zeros(shape)):
            assert low.shape == shape
        for _, w in _both(tll.eigh, np.zeros(shape)):
            assert w.shape == shape[:-1]
    for shape in [(3, 0), (0, 3)]:
        pairs: list[tuple[Callable[..., Any], Callable[..., Any]]] = [
            (tll.svd, jax.lax.linalg.svd), (tll.qr, jax.lax.linalg.qr)]
        for f, g in pairs:
            ref = g(np.zeros(shape))
            for out in _both(f, np.zeros(shape)):
                for x, y in zip(out, ref):
                    assert x.shape == y.shape
                    _close(x, y, np.float64)


# -- vmap, grad, jvp ------------------------------------------------------------------------
VMAPPED: list[tuple[str, Callable[[Any], Any]]] = [
    ("cholesky", tll.cholesky),
    ("triangular_solve", lambda a: tll.triangular_solve(a, a[..., :2, :], lower=True)),
    ("qr", lambda a: tll.qr(a)[1]),
    ("eigh", lambda a: tll.eigh(a)[1]),
    ("svd", lambda a: tll.svd(a, compute_uv=False)),
]


@pytest.mark.parametrize("name", [n for n, _ in VMAPPED])
def test_vmap_matches_a_loop(name: str) -> None:
    f = dict(VMAPPED)[name]
    a = _spd((3, 2, 4, 4), np.float64)
    loop = np.stack([np.stack([np.asarray(f(y)) for y in x]) for x in a])
    np.testing.assert_allclose(np.asarray(tdx.vmap(tdx.vmap(f))(a)), loop, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(tdx.vmap(f, in_axes=1)(a)), np.swapaxes(loop, 0, 1), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.vmap(f))(a[0])), loop[0], rtol=1e-13, atol=1e-13)


def test_vmap_of_triangular_solve_with_one_side_unbatched() -> None:
    a = np.tril(R.normal(size=(3, 3))) + 3 * np.eye(3)
    bs = R.normal(size=(4, 3, 2))
    out = tdx.vmap(lambda b: tll.triangular_solve(a, b, left_side=True, lower=True))(bs)
    ref = jax.vmap(lambda b: jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=True))(bs)
    _close(out, ref, np.float64, 10)
    a_s = np.stack([a, 2 * a])
    out2 = tdx.vmap(lambda a: tll.triangular_solve(a, bs[0], left_side=True, lower=True))(a_s)
    _close(out2, np.stack([np.linalg.solve(a, bs[0]), np.linalg.solve(2 * a, bs[0])]), np.float64, 10)


W = R.normal(size=(4, 4))
SPD = _spd((4, 4), np.float64)
RECT = R.normal(size=(5, 3))

GRADS: list[tuple[str, Callable[[Any, Any, Any], Any], Any]] = [
    ("cholesky", lambda m, la, x: m.sum(la.cholesky(x) * W), SPD),
    ("triangular_solve a", lambda m, la, x: m.sum(la.triangular_solve(x, W, left_side=True, lower=True) ** 2), SPD),
    ("triangular_solve b", lambda m, la, x: m.sum(la.triangular_solve(SPD, x, transpose_a=True) ** 2), W),
    ("triangular_solve unit", lambda m, la, x: m.sum(la.triangular_solve(x, W, lower=True, unit_diagonal=True) ** 2), SPD),
    ("qr", lambda m, la, x: m.sum(la.qr(x, full_matrices=False)[0] ** 3) + m.sum(la.qr(x, full_matrices=False)[1] ** 3), RECT),
    ("eigh w", lambda m, la, x: m.sum(la.eigh(x)[1] * np.arange(4.0)), SPD),
    ("eigh v", lambda m, la, x: m.sum(la.eigh(x)[0][:, 0] ** 2 * np.arange(4.0)), SPD),
    ("svd s", lambda m, la, x: m.sum(la.svd(x, compute_uv=False) * np.arange(3.0)), RECT),
    ("svd u", lambda m, la, x: m.sum(la.svd(x, full_matrices=False)[0] ** 3), RECT),
    ("svd vt wide", lambda m, la, x: m.sum(la.svd(x.T, full_matrices=False)[2] ** 3), RECT),
]
#: checked against finite differences only (jax.grad is slow on these)
FD_ONLY = frozenset({"svd vt wide", "triangular_solve unit"})


@pytest.mark.parametrize("name", [n for n, _, _ in GRADS if n not in FD_ONLY])
def test_grad_matches_jax(name: str) -> None:
    f, x = {n: (f, x) for n, f, x in GRADS}[name]
    def theirs(x: Any) -> Any:
        return f(jnp, jax.lax.linalg, x)

    # ci: JAX's gradient under jax.jit (a tenth of the time of its eager dispatch, equal to an ulp);
    # make test-long takes JAX's eager one
    ref = (jax.jit(jax.grad(theirs)) if PROFILE == "ci" else jax.grad(theirs))(x)
    def mine(x: Any) -> Any:
        return f(tnp, tll, x)

    _close(tdx.grad(mine)(x), ref, np.float64, 1e4)
    if name in ("cholesky", "eigh v", "svd u"):
        _close(tdx.jit(tdx.grad(mine))(x), ref, np.float64, 1e4)


@pytest.mark.parametrize("name", [n for n, _, _ in GRADS])
def test_jvp_matches_finite_differences(name: str) -> None:
    f, x = {n: (f, x) for n, f, x in GRADS}[name]
    def mine(x: Any) -> Any:
        return f(tnp, tll, x)

    t = R.normal(size=np.shape(x))
    t = (t + t.T) / 2 if np.shape(x) == (4, 4) else t
    _, tan = tdx.jvp(mine, (x,), (t,))
    eps = 1e-6
    fd = (np.asarray(mine(x + eps * t)) - np.asarray(mine(x - eps * t))) / (2 * eps)
    np.testing.assert_allclose(float(tan), float(fd), rtol=1e-6, atol=1e-6)


def test_grad_in_float32() -> None:
    x = SPD.astype(np.float32)
    g = tdx.grad(lambda x: tnp.sum(tll.cholesky(x) * W.astype(np.float32)))(x)
    def theirs(x: Any) -> Any:
        return jnp.sum(jax.lax.linalg.cholesky(x) * W.astype(np.float32))

    ref = jax.grad(theirs)(x)
    assert g.dtype == np.float32
    _close(g, ref, np.float32, 100)


def test_svd_jvp_with_full_matrices_is_refused_as_jax() -> None:
    with pytest.raises(NotImplementedError):
        tdx.jvp(lambda x: tll.svd(x)[0], (RECT,), (RECT,))


# -- refusals -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: tll.cholesky(np.ones((2, 3))), "square"),
        (lambda: tll.cholesky(np.ones(3)), "rank >= 2"),
        (lambda: tll.cholesky(np.eye(3, dtype=np.int32), symmetrize_input=False), "float32 or float64"),
        (lambda: tll.cholesky(np.eye(3, dtype=np.float16)), "float32 or float64"),
        (lambda: tll.eigh(np.eye(3, dtype=np.int32), symmetrize_input=False), "float32 or float64"),
        (lambda: tll.eigh(np.ones((2, 3))), "square"),
        (lambda: tll.qr(np.ones(3)), "rank >= 2"),
        (lambda: tll.svd(np.ones((2, 2), np.int32)), "float32 or float64"),
        (lambda: tll.triangular_solve(np.eye(3), np.ones((2, 2)), left_side=True), "rows"),
        (lambda: tll.triangular_solve(np.eye(3), np.ones((2, 2))), "columns"),
        (lambda: tll.triangular_solve(np.ones((2, 3, 3)), np.ones((4, 3, 3))), "batch"),
        (lambda: tll.triangular_solve(np.eye(3), np.ones((3, 3), np.float32)), "one dtype"),
    ],
)
def test_bad_operands_are_refused(call: Callable[[], Any], match: str) -> None:
    with pytest.raises(PrimitiveTypeError, match=match):
        call()


def test_refusals_under_jit_too() -> None:
    with pytest.raises(PrimitiveTypeError, match="square"):
        tdx.jit(tll.cholesky)(np.ones((2, 3)))
    with pytest.raises(PrimitiveTypeError, match="float32 or float64"):
        tdx.jit(lambda x: tll.svd(x, compute_uv=False))(np.ones((2, 3), np.int32))


def test_integers_are_symmetrized_into_floats_as_jax() -> None:
    a = np.array([[4, 2], [2, 3]], np.int32)
    _close(tll.cholesky(a), jax.lax.linalg.cholesky(jnp.asarray(a)), np.float64)
    _close(tll.eigh(a)[1], jax.lax.linalg.eigh(jnp.asarray(a))[1], np.float64)
