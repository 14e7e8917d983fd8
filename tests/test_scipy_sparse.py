"""``typedax.scipy.sparse.linalg`` (issue 29 item 2): ``cg``, ``bicgstab``
and ``gmres`` (both solve methods) solve ``A x = b`` for matrices, linear
functions and pytrees, with ``x0``, ``M``, ``tol``/``atol`` (against
NumPy's direct solve); truncated runs (``maxiter``, ``restart``) take JAX's
iterates exactly (JAX as the oracle, one compiled call: ~2 s of CPU);
``jit`` and
``vmap``; the derivatives with respect to ``b`` and to the matrix ``A``
closes over are the implicit function's, as ``lax.custom_linear_solve``
gives them: reverse mode against the closed form ``dL/db = A^-T g``,
``dL/dA = -A^-T g x^T`` (eagerly and under ``jit``), forward mode against
``dx = A^-1 (db - dA x)``, and second order (``hessian``); JAX's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.sparse.linalg as jsp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.sparse.linalg as tsp

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(7)
N = 4
_M = RNG.standard_normal((N, N))
SPD = _M @ _M.T + N * np.eye(N)  # for cg
GEN = _M + 3 * np.eye(N)  # for bicgstab and gmres
B = RNG.standard_normal(N)

Solver = Callable[..., tuple[Any, Any]]
SOLVERS: list[tuple[str, Solver, np.ndarray[Any, Any]]] = [
    ("cg", tsp.cg, SPD),
    ("bicgstab", tsp.bicgstab, GEN),
    ("gmres", tsp.gmres, GEN),
    ("gmres incremental", lambda *a, **k: tsp.gmres(*a, solve_method="incremental", **k), GEN),
]
IDS = [s[0] for s in SOLVERS]


def _solve(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.asarray(np.linalg.solve(a, b))


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_solves_matrices_functions_and_pytrees(solver: tuple[str, Solver, np.ndarray[Any, Any]]) -> None:
    name, solve, a = solver
    want = _solve(a, B)
    x, info = solve(a, B, tol=1e-10)
    assert x.dtype == np.float64 and x.shape == (N,)
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-8, atol=1e-8)
    if name.startswith("gmres"):
        assert int(info) == 0
    else:
        assert info is None  # as JAX's
    # a linear function, a start, a (Jacobi) preconditioner
    x, _ = solve(lambda v: tnp.dot(a, v), B, x0=np.ones(N), M=np.diag(1 / np.diag(a)), tol=1e-10)
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-8, atol=1e-8)
    # float32 stays float32
    x32, _ = solve(a.astype(np.float32), B.astype(np.float32))
    assert x32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(x32), want, rtol=1e-3, atol=1e-3)
    # a pytree: {"u": 2 entries, "w": 2 entries} with a block operator
    top, bottom = a[:2], a[2:]

    def op(t: dict[str, tdx.Array]) -> dict[str, tdx.Array]:
        both = tnp.concatenate([t["u"], t["w"]])
        return {"u": tnp.dot(top, both), "w": tnp.dot(bottom, both)}

    xt, _ = solve(op, {"u": B[:2], "w": B[2:]}, atol=1e-12, tol=0.0)
    np.testing.assert_allclose(np.concatenate([np.asarray(xt["u"]), np.asarray(xt["w"])]), want,
                               rtol=1e-8, atol=1e-8)


def test_truncated_runs_take_jaxs_iterates() -> None:
    """Two steps (two restarts of two for gmres) from ``x0`` are JAX's
    (incremental gmres differs from batched gmres only inside a restart)."""

    def runs(mod: Any) -> Callable[..., tuple[Any, ...]]:
        def f(spd: Any, gen: Any, b: Any) -> tuple[Any, ...]:
            x0 = b * 0.5
            return (mod.cg(spd, b, x0=x0, maxiter=2)[0], mod.bicgstab(gen, b, x0=x0, maxiter=2)[0],
                    mod.gmres(gen, b, x0=x0, maxiter=2, restart=2)[0])
        return f

    want = jax.jit(runs(jsp))(SPD, GEN, B)
    got = runs(tsp)(SPD, GEN, B)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)
    # not converged: they are not the solution
    assert np.abs(np.asarray(got[1]) - _solve(GEN, B)).max() > 1e-6


def _loss(solve: Solver) -> Callable[[tdx.Array, tdx.Array], tdx.Array]:
    def loss(a: tdx.Array, b: tdx.Array) -> tdx.Array:
        x, _ = solve(lambda v: tnp.dot(a, v), b, tol=1e-13)
        return tnp.sum(tnp.sin(x))
    return loss


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_gradients_are_the_implicit_functions(solver: tuple[str, Solver, np.ndarray[Any, Any]]) -> None:
    _, solve, a = solver
    x = _solve(a, B)
    g = np.cos(x)
    u = _solve(a.T, g)
    want_b, want_a = u, -np.outer(u, x)
    got_a, got_b = tdx.grad(_loss(solve), argnums=(0, 1))(tnp.asarray(a), tnp.asarray(B))
    np.testing.assert_allclose(np.asarray(got_b), want_b, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.asarray(got_a), want_a, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("solver", SOLVERS[:3], ids=IDS[:3])
def test_forward_mode_and_second_order(solver: tuple[str, Solver, np.ndarray[Any, Any]]) -> None:
    _, solve, a = solver
    da, db = RNG.standard_normal((N, N)), RNG.standard_normal(N)

    def x_of(m: tdx.Array, b: tdx.Array) -> tdx.Array:
        x: tdx.Array = solve(lambda v: tnp.dot(m, v), b, tol=1e-13)[0]
        return x

    x = _solve(a, B)
    _, tangent = tdx.jvp(x_of, (tnp.asarray(a), tnp.asarray(B)), (tnp.asarray(da), tnp.asarray(db)))
    np.testing.assert_allclose(np.asarray(tangent), _solve(a, db - da @ x), rtol=1e-7, atol=1e-9)
    inv = np.linalg.inv(a)
    hess = tdx.hessian(lambda b: tnp.sum(x_of(tnp.asarray(a), b) ** 2))(tnp.asarray(B))
    np.testing.assert_allclose(np.asarray(hess), 2 * inv.T @ inv, rtol=1e-7, atol=1e-9)


def test_gradients_under_jit() -> None:
    def both(a: tdx.Array, spd: tdx.Array, b: tdx.Array) -> tuple[tdx.Array, ...]:
        return (*tdx.grad(_loss(tsp.cg), argnums=(0, 1))(spd, b),
                *tdx.grad(_loss(tsp.bicgstab), argnums=(0, 1))(a, b))

    args = (tnp.asarray(GEN), tnp.asarray(SPD), tnp.asarray(B))
    got = tdx.jit(both)(*args)
    want = both(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-10)


def test_vmap_over_right_hand_sides() -> None:
    bs = np.stack([B, 2 * B + 1])
    got = tdx.vmap(lambda b: tsp.bicgstab(GEN, b, tol=1e-10)[0])(bs)
    np.testing.assert_allclose(np.asarray(got), np.stack([_solve(GEN, b) for b in bs]), rtol=1e-8, atol=1e-8)


def test_gmres_info_as_jax() -> None:
    """``info`` is -1 where the solution has NaNs (a NaN start); a NaN ``b``
    stops the loop at once (its residual norm is not above the tolerance),
    so ``info`` is 0 there, as JAX's."""
    assert int(tsp.gmres(GEN, B, x0=np.full(N, np.nan))[1]) == -1
    assert int(tsp.gmres(GEN, np.full(N, np.nan))[1]) == 0


def test_errors_as_jax() -> None:
    with pytest.raises(ValueError, match="square matrix"):
        tsp.cg(np.ones((2, 3)), np.ones(2))
    with pytest.raises(TypeError, match="either a function or ndarray"):
        tsp.cg("A", np.ones(2))  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="matching tree structure"):
        tsp.cg(SPD, B, x0=(B,))
    with pytest.raises(ValueError, match="matching shapes"):
        tsp.bicgstab(GEN, B, x0=np.ones(N + 1))
    with pytest.raises(ValueError, match="invalid solve_method"):
        tsp.gmres(GEN, B, solve_method="qr")
