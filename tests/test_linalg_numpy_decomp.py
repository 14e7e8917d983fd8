"""``typedax.numpy.linalg``'s decompositions and the functions on them
(``_numpy/linalg_decomp.py``) against ``jax.numpy.linalg``: values (both
sides run LAPACK's same routines), shapes and dtypes, eagerly and under
``jit``, and the refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import PrimitiveTypeError

from _examples import PROFILE, ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(11)
A = R.normal(size=(3, 4, 4))
SPD = A @ A.transpose(0, 2, 1) + np.eye(4)
RECT = R.normal(size=(5, 3))
B = R.normal(size=5)
SQ = R.normal(size=(4, 4))
DEFICIENT = SQ @ np.diag([1.0, 1, 1, 0])

Fn = Callable[..., Any]
CASES: dict[str, tuple[Fn, tuple[Any, ...]]] = {
    "cholesky": (lambda m, x: m.linalg.cholesky(x), (SPD,)),
    "cholesky upper": (lambda m, x: m.linalg.cholesky(x, upper=True), (SPD,)),
    "cholesky int": (lambda m, x: m.linalg.cholesky(x), (np.array([[4, 2], [2, 3]]),)),
    "qr": (lambda m, x: tuple(m.linalg.qr(x)), (RECT,)),
    "qr complete": (lambda m, x: tuple(m.linalg.qr(x, mode="complete")), (RECT,)),
    "qr r": (lambda m, x: m.linalg.qr(x, mode="r"), (RECT.T,)),
    "eigh": (lambda m, x: tuple(m.linalg.eigh(x)), (SPD,)),
    "eigh U": (lambda m, x: tuple(m.linalg.eigh(x, UPLO="U", symmetrize_input=False)), (A,)),
    "eigvalsh": (lambda m, x: m.linalg.eigvalsh(x), (SPD,)),
    "svd": (lambda m, x: tuple(m.linalg.svd(x)), (RECT,)),
    "svd reduced": (lambda m, x: tuple(m.linalg.svd(x, full_matrices=False)), (A,)),
    "svd hermitian": (lambda m, x: tuple(m.linalg.svd(x, hermitian=True)), (SPD - 3 * np.eye(4),)),
    "svd no uv": (lambda m, x: m.linalg.svd(x, compute_uv=False), (A,)),
    "svdvals": (lambda m, x: m.linalg.svdvals(x), (A,)),
    "pinv": (lambda m, x: m.linalg.pinv(x), (RECT,)),
    "pinv batch": (lambda m, x: m.linalg.pinv(x), (A,)),
    "pinv deficient": (lambda m, x: m.linalg.pinv(x), (DEFICIENT,)),
    "lstsq": (lambda m, x, y: m.linalg.lstsq(x, y), (RECT, B)),
    "lstsq 2d": (lambda m, x, y: m.linalg.lstsq(x, y), (RECT, R.normal(size=(5, 2)))),
    "matrix_rank": (lambda m, x: m.linalg.matrix_rank(x), (A,)),
    "matrix_rank deficient": (lambda m, x: m.linalg.matrix_rank(x), (DEFICIENT,)),
    "matrix_rank rtol": (lambda m, x: m.linalg.matrix_rank(x, 0.5), (A,)),
    "cond": (lambda m, x: m.linalg.cond(x), (A,)),
    "cond -2": (lambda m, x: m.linalg.cond(x, -2), (A,)),
    "cond 1": (lambda m, x: m.linalg.cond(x, 1), (A,)),
    "cond fro": (lambda m, x: m.linalg.cond(x, "fro"), (SQ,)),
    "matrix_power 5": (lambda m, x: m.linalg.matrix_power(x, 5), (A,)),
    "matrix_power 0": (lambda m, x: m.linalg.matrix_power(x, 0), (A,)),
    "matrix_power -2": (lambda m, x: m.linalg.matrix_power(x, -2), (SQ,)),
    "multi_dot": (lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), (B, RECT, SQ[:3])),
    "multi_dot 2d": (lambda m, x, y: m.linalg.multi_dot([x, y, x.T]), (RECT, SQ[:3, :3])),
    "tensorinv": (lambda m, x: m.linalg.tensorinv(x.reshape(4, 2, 2), ind=1), (SQ,)),
    "tensorsolve": (lambda m, x, y: m.linalg.tensorsolve(x.reshape(2, 2, 4), y[:4].reshape(2, 2)), (SQ, B)),
    "vecdot": (lambda m, x, y: m.linalg.vecdot(x, y), (A, SQ)),
    "vecdot axis": (lambda m, x, y: m.linalg.vecdot(x, y, axis=0), (SQ, SQ[:, :1])),
    "matrix_transpose": (lambda m, x: m.linalg.matrix_transpose(x), (A,)),
    "diagonal": (lambda m, x: m.linalg.diagonal(x, offset=1), (A,)),
    "trace": (lambda m, x: m.linalg.trace(x), (A,)),
    "float32 svd": (lambda m, x: tuple(m.linalg.svd(x)), (RECT.astype(np.float32),)),
    "float32 eigh": (lambda m, x: tuple(m.linalg.eigh(x)), (SPD.astype(np.float32),)),
}


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, tuple) else [x]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax_eager_and_jit(name: str) -> None:
    f, args = CASES[name]
    ref = _flat(f(jnp, *args))
    tol = 1e-4 if any(np.asarray(a).dtype == np.float32 for a in args) else 1e-10
    # ci: every case eagerly, every other one (alternating over the sorted names) under jit too
    # (each compiles); make test-long runs each under jit
    jit = PROFILE != "ci" or sorted(CASES).index(name) % 2 == 0
    for out in [_flat(f(tnp, *args))] + ([_flat(tdx.jit(lambda *xs: f(tnp, *xs))(*args))] if jit else []):
        assert len(out) == len(ref)
        for x, y in zip(out, ref):
            assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


def test_result_types_have_jax_field_names() -> None:
    assert tnp.linalg.eigh(SPD).eigenvalues.shape == (3, 4)
    assert tnp.linalg.qr(RECT).R.shape == (3, 3)
    assert tnp.linalg.svd(RECT).Vh.shape == (3, 3)


def test_grad_of_solve_based_and_svd_based_functions() -> None:
    def mine(x: Any) -> Any:
        return tnp.sum(tnp.linalg.pinv(x) ** 2) + tnp.sum(tnp.linalg.eigvalsh(x @ x.T) ** 2)

    def theirs(x: Any) -> Any:
        return jnp.sum(jnp.linalg.pinv(x) ** 2) + jnp.sum(jnp.linalg.eigvalsh(x @ x.T) ** 2)

    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    np.testing.assert_allclose(np.asarray(tdx.grad(mine)(SQ)), np.asarray(ci_jit(jax.grad(theirs))(SQ)), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tnp.linalg.cholesky(np.ones(3)),
        lambda: tnp.linalg.cholesky(np.ones((2, 3))),
        lambda: tnp.linalg.qr(RECT, mode="raw"),
        lambda: tnp.linalg.eigh(SPD, UPLO="X"),
        lambda: tnp.linalg.svd(np.ones(3)),
        lambda: tnp.linalg.lstsq(A, B),
        lambda: tnp.linalg.lstsq(RECT, B[:4]),
        lambda: tnp.linalg.cond(np.ones(3)),
        lambda: tnp.linalg.cond(RECT, 1),
        lambda: tnp.linalg.matrix_power(RECT, 2),
        lambda: tnp.linalg.matrix_power(SQ, 1.5),  # type: ignore[arg-type]  # the refusal under test
        lambda: tnp.linalg.multi_dot([SQ]),
        lambda: tnp.linalg.multi_dot([SQ, RECT]),
        lambda: tnp.linalg.tensorinv(RECT, ind=1),
        lambda: tnp.linalg.matrix_transpose(B),
        lambda: tnp.linalg.pinv(SQ, rtol=0.1, rcond=0.1),
    ],
)
def test_refusals(call: Callable[[], Any]) -> None:
    with pytest.raises((PrimitiveTypeError, TypeError, ValueError)):
        call()
