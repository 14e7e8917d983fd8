"""``typedax.scipy.optimize.minimize(method='BFGS')`` (issue 29 item 2):
every field of JAX's ``OptimizeResults`` on Rosenbrock's function against
JAX's (values, dtypes, weak types, the evaluation and iteration counts),
the same result under ``jit`` and across ``vmap``, ``args`` and
``options``, float32 staying float32, and JAX's errors.

JAX is called once: its ``minimize`` compiles for about 2 s of CPU."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.optimize as jso
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.optimize as tso

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

X0 = np.array([-1.2, 1.0, 0.5, 0.3])


def rosen(np_: Any) -> Any:
    def f(x: Any) -> Any:
        return np_.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    return f


def quadratic(x: tdx.ArrayLike, center: tdx.ArrayLike, weights: tdx.ArrayLike) -> tdx.Array:
    d = tnp.subtract(x, center)
    return tnp.sum(tnp.multiply(weights, d**2)) + 0.1 * tnp.sum(tnp.power(x, 4))


def _same(got: tso.OptimizeResults, want: Any, tol: float) -> None:
    assert type(got) is tso.OptimizeResults and got._fields == want._fields
    for field in want._fields:
        g, w = getattr(got, field), getattr(want, field)
        assert np.asarray(g).dtype == np.asarray(w).dtype, field
        assert bool(getattr(g, "weak_type", False)) == bool(getattr(w, "weak_type", False)), field
        if field in ("success", "status", "nfev", "njev", "nit"):
            assert int(g) == int(w), (field, g, w)
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol, err_msg=field)


def test_rosenbrock_as_jax_eager_and_jit() -> None:
    want = jso.minimize(rosen(jnp), jnp.asarray(X0), method="BFGS")
    assert bool(want.success)
    _same(tso.minimize(rosen(tnp), X0, method="BFGS"), want, 1e-8)
    _same(tdx.jit(lambda x: tso.minimize(rosen(tnp), x, method="bfgs"))(X0), want, 1e-8)


def test_args_options_and_float32() -> None:
    center = np.array([1.0, -2.0, 0.5], np.float32)
    weights = np.array([1.0, 2.0, 3.0], np.float32)
    r = tso.minimize(quadratic, np.zeros(3, np.float32), (center, weights), method="BFGS",
                     options={"gtol": 1e-3})
    assert r.x.dtype == np.float32 and r.fun.dtype == np.float32 and r.hess_inv is not None
    assert r.hess_inv.shape == (3, 3)
    grad = np.asarray(tdx.grad(quadratic)(r.x, center, weights))
    assert bool(r.success) and int(r.status) == 0 and np.abs(grad).max() < 1e-3
    # the minimizer of the convex quadratic-plus-quartic: its gradient is zero
    r64 = tso.minimize(quadratic, np.zeros(3), (center.astype(np.float64), weights.astype(np.float64)),
                       method="BFGS")
    assert np.abs(np.asarray(tdx.grad(quadratic)(r64.x, center.astype(np.float64),
                                                  weights.astype(np.float64)))).max() < 1e-5
    # maxiter reached: status 1, not a success
    short = tso.minimize(rosen(tnp), X0, method="BFGS", options={"maxiter": 2, "norm": 2})
    assert int(short.nit) == 2 and int(short.status) == 1 and not bool(short.success)


def test_x64_off_counts_are_int32() -> None:
    tdx.config.update("jax_enable_x64", False)
    try:
        r = tso.minimize(quadratic, np.zeros(3), (np.ones(3), np.arange(1.0, 4.0)), method="BFGS",
                         options={"gtol": 1e-3})
        assert r.x.dtype == np.float32
        assert np.asarray(r.nit).dtype == np.int32 and np.asarray(r.status).dtype == np.int32
        assert bool(r.success)
    finally:
        tdx.config.update("jax_enable_x64", True)


def test_lbfgs_experimental() -> None:
    """JAX's experimental L-BFGS (its name says not to rely on it): it finds
    the minimizer; no ``hess_inv``; its options and their errors."""
    center, weights = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 3.0])
    method = "l-bfgs-experimental-do-not-rely-on-this"
    r = tso.minimize(quadratic, np.zeros(3), (center, weights), method=method)
    assert bool(r.success) and int(r.status) == 0 and r.hess_inv is None
    assert (int(r.nit), int(r.nfev)) == (8, 11)  # JAX's counts on this problem
    assert np.abs(np.asarray(tdx.grad(quadratic)(r.x, center, weights))).max() < 1e-5
    # three stored pairs: the decrease falls below ftol first (status 4, not a success, as JAX's)
    few = tso.minimize(quadratic, np.zeros(3), (center, weights), method=method, options={"maxcor": 3})
    assert int(few.status) == 4 and not bool(few.success)
    short = tso.minimize(rosen(tnp), X0, method=method, options={"maxiter": 2})
    assert int(short.nit) == 3 and int(short.status) == 1 and not bool(short.success)  # JAX counts past maxiter
    with pytest.raises(TypeError, match="unexpected keyword argument 'line_search_maxiter'"):
        tso.minimize(rosen(tnp), X0, method=method, options={"line_search_maxiter": 3})


def test_vmap_over_starting_points() -> None:
    starts = np.array([[0.0, 0.0, 0.0], [2.0, -1.0, 0.5]])
    center, weights = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 3.0])
    batched = tdx.vmap(lambda x: tso.minimize(quadratic, x, (center, weights), method="BFGS").x)(starts)
    for row, x0 in zip(np.asarray(batched), starts):
        one = tso.minimize(quadratic, x0, (center, weights), method="BFGS").x
        np.testing.assert_allclose(row, np.asarray(one), rtol=1e-6, atol=1e-8)


def test_errors_as_jax() -> None:
    with pytest.raises(TypeError, match="must be a tuple"):
        tso.minimize(quadratic, X0, [X0, X0], method="BFGS")  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="Method nelder-mead not recognized"):
        tso.minimize(rosen(tnp), X0, method="nelder-mead")
    with pytest.raises(TypeError, match="unexpected keyword argument 'ftol'"):
        tso.minimize(rosen(tnp), X0, method="BFGS", options={"ftol": 1.0})
