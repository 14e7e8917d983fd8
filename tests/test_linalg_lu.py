"""The ``lu`` and ``lu_pivots_to_permutation`` primitives (LAPACK's
``getrf`` under ``jit``, SciPy's eagerly) and what is built on them as in
JAX -- ``typedax.numpy.linalg.solve``/``inv``/``det``/``slogdet`` and
``typedax.scipy.linalg.lu``/``lu_factor``/``lu_solve`` -- against JAX: under
``jit`` the same kernels give the same bits; eagerly, vmapped and
differentiated, JAX's values. (The CUDA lowering's kernel calls are checked
in ``test_linalg_cuda_lowering.py``.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.linalg as tsl
from typedax import lax_linalg as tll
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError, ShapeError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(7)


def _m(shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray[Any, Any]:
    x = R.normal(size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * R.normal(size=shape)
    return np.asarray(x, dtype)


def _bits(got: object, want: object) -> None:
    """Equal dtype, shape and bits (NaNs equal), leaf by leaf."""
    gs = got if isinstance(got, (tuple, list)) else (got,)
    ws = want if isinstance(want, (tuple, list)) else (want,)
    assert len(gs) == len(ws)
    for g, w in zip(gs, ws):
        ga, wa = np.asarray(g), np.asarray(w)
        assert ga.dtype == wa.dtype and ga.shape == wa.shape, (ga.dtype, ga.shape, wa.dtype, wa.shape)
        np.testing.assert_array_equal(ga, wa)


def _close(got: object, want: object, rtol: float) -> None:
    gs = got if isinstance(got, (tuple, list)) else (got,)
    ws = want if isinstance(want, (tuple, list)) else (want,)
    for g, w in zip(gs, ws):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol, equal_nan=True)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])

LU_CASES = [((4, 4), np.float32), ((2, 3, 5), np.float64), ((5, 3), np.complex64), ((2, 4, 4), np.complex128)]


@pytest.mark.parametrize("shape, dtype", LU_CASES, ids=[f"{s}-{np.dtype(d).name}" for s, d in LU_CASES])
def test_lu_equals_jax_to_the_bit(shape: tuple[int, ...], dtype: Any) -> None:
    a = _m(shape, dtype)
    want = jax.jit(jax.lax.linalg.lu)(a)
    _bits(tdx.jit(tll.lu)(a), want)
    _bits(tll.lu(a), want)  # eager: SciPy's getrf, the routine jaxlib's kernel calls
    _bits(tdx.vmap(tll.lu)(a.reshape((-1,) + shape[-2:])), [np.asarray(w).reshape((-1,) + w.shape[-2:] if i == 0
                                                               else (-1, w.shape[-1])) for i, w in enumerate(want)])


def test_lu_of_singular_and_empty_matrices_as_jax() -> None:
    for a in (SINGULAR, np.zeros((3, 3)), np.ones((0, 0)), np.ones((3, 0)), np.ones((2, 0, 3))):
        want = jax.jit(jax.lax.linalg.lu)(a)
        _bits(tdx.jit(tll.lu)(a), want)
        _bits(tll.lu(a), want)


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5)])
def test_lu_jvp_as_jax(shape: tuple[int, ...]) -> None:
    a, da = _m(shape), _m(shape)
    got = tdx.jvp(tll.lu, (a,), (da,))
    want = jax.jit(lambda x, dx: jax.jvp(jax.lax.linalg.lu, (x,), (dx,)))(a, da)
    _close(got[0], want[0], 1e-12)
    _close(got[1][0], want[1][0], 1e-10)
    # the packed factors' tangent, by finite differences
    eps = 1e-6
    fd = (np.asarray(tll.lu(a + eps * da)[0]) - np.asarray(tll.lu(a - eps * da)[0])) / (2 * eps)
    np.testing.assert_allclose(np.asarray(got[1][0]), fd, rtol=1e-5, atol=1e-6)


def test_lu_pivots_to_permutation_as_jax() -> None:
    piv = np.array([[2, 2, 3], [1, 1, -1], [0, 4, 2]], np.int32)
    want = jax.lax.linalg.lu_pivots_to_permutation(piv, 5)
    _bits(tll.lu_pivots_to_permutation(piv, 5), want)
    _bits(tdx.jit(lambda p: tll.lu_pivots_to_permutation(p, 5))(piv), want)
    _bits(tdx.vmap(lambda p: tll.lu_pivots_to_permutation(p, 5))(piv), want)
    with pytest.raises(ShapeError, match="has to exceed"):
        tll.lu_pivots_to_permutation(piv, 2)
    with pytest.raises(PrimitiveTypeError, match="int32"):
        tll.lu_pivots_to_permutation(piv.astype(np.float32), 5)


def test_lu_errors_and_jaxpr_text_round_trip() -> None:
    with pytest.raises(PrimitiveTypeError, match="rank >= 2"):
        tll.lu(np.ones(3))
    with pytest.raises(PrimitiveTypeError, match="float32 or float64"):
        tll.lu(np.ones((3, 3), np.int32))
    j = tdx.make_jaxpr(lambda a: tll.lu_pivots_to_permutation(tll.lu(a)[1], 4))(np.ones((2, 4, 3)))
    text = str(j.jaxpr)
    assert "= lu " in text and "lu_pivots_to_permutation [ permutation_size=4 ]" in text
    assert parse_jaxpr(text) == j.jaxpr


def _pair(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    ours: dict[str, Callable[..., Any]] = {
        "solve": tnp.linalg.solve, "inv": tnp.linalg.inv, "det": tnp.linalg.det,
        "slogdet": lambda a: tuple(tnp.linalg.slogdet(a)),
        "lu_factor": tsl.lu_factor, "lu": tsl.lu,
        "lu_solve": lambda a, b: [tsl.lu_solve(tsl.lu_factor(a), b, trans=t) for t in (0, 1, 2)],
    }
    theirs: dict[str, Callable[..., Any]] = {
        "solve": jnp.linalg.solve, "inv": jnp.linalg.inv, "det": jnp.linalg.det,
        "slogdet": lambda a: tuple(jnp.linalg.slogdet(a)),
        "lu_factor": jsl.lu_factor, "lu": jsl.lu,
        "lu_solve": lambda a, b: [jsl.lu_solve(jsl.lu_factor(a), b, trans=t) for t in (0, 1, 2)],
    }
    return ours[name], theirs[name]


FUNCTION_CASES: list[tuple[str, tuple[Any, ...]]] = [
    ("solve", (_m((3, 5, 5), np.float32), _m((3, 5, 2), np.float32))),
    ("solve", (_m((5, 5), np.complex128), _m((5,), np.complex128))),
    ("solve", (_m((5, 5)), _m((2, 5, 3)))),  # one a, a batch of b
    ("inv", (_m((2, 6, 6)),)),
    ("inv", (SINGULAR,)),
    ("inv", (np.ones((2, 0, 0)),)),
    ("det", (_m((3, 6, 6), np.complex64),)),
    ("det", (_m((2, 3, 3)),)),
    ("det", (np.stack([SINGULAR @ SINGULAR.T, np.eye(3)]).repeat(2, axis=1).repeat(2, axis=2),)),
    ("slogdet", (_m((2, 5, 5)),)),
    ("slogdet", (_m((4, 4), np.complex128),)),
    ("slogdet", (_m((2, 2, 2), np.float32),)),
    ("lu_factor", (_m((2, 4, 3)),)),
    ("lu", (_m((3, 5), np.complex128),)),
    ("lu_solve", (_m((2, 4, 4)), _m((2, 4, 2)))),
    ("lu_solve", (_m((4, 4), np.complex128), _m((4,), np.complex128))),
]


@pytest.mark.parametrize("name, args", FUNCTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)])
def test_functions_on_lu_equal_jax_under_jit(name: str, args: tuple[Any, ...]) -> None:
    ours, theirs = _pair(name)
    want = jax.jit(theirs)(*args)
    _bits(tdx.jit(ours)(*args), want)
    rtol = 1e-4 if any(np.asarray(x).dtype in (np.float32, np.complex64) for x in args) else 1e-10
    _close(ours(*args), want, rtol)


def test_grad_of_det_of_singular_matrices_as_jax() -> None:
    """JAX's ``_cofactor_solve``: the adjugate at rank n - 1 (rank one),
    zero below; not the NaNs of ``det(a) * inv(a)^T``."""
    rank3 = _m((4, 4))
    rank3[-1] = rank3[0] - 2 * rank3[1]
    rank2 = rank3.copy()
    rank2[-2] = rank2[2] + rank2[0]
    batch = np.stack([rank3, rank2])
    got = tdx.jit(tdx.vmap(tdx.grad(tnp.linalg.det)))(batch)
    assert np.all(np.isfinite(np.asarray(got)))
    want = jax.jit(jax.vmap(jax.grad(jnp.linalg.det)))(batch)
    _close(got, want, 1e-9)
    _close(tdx.grad(tnp.linalg.det)(rank3), np.asarray(want)[0], 1e-9)  # eagerly


@pytest.mark.parametrize("name", ["solve", "inv", "slogdet", "det"])
def test_derivatives_as_jax(name: str) -> None:
    a, b = _m((4, 4)) + 4 * np.eye(4), _m((4, 2))
    funs: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
        "solve": (lambda x, y: tnp.sum(tnp.sin(tnp.linalg.solve(x, y))),
                  lambda x, y: jnp.sum(jnp.sin(jnp.linalg.solve(x, y)))),
        "inv": (lambda x, y: tnp.sum(tnp.linalg.inv(x) @ y), lambda x, y: jnp.sum(jnp.linalg.inv(x) @ y)),
        "slogdet": (lambda x, y: tnp.linalg.slogdet(x)[1] * tnp.sum(y), lambda x, y: jnp.linalg.slogdet(x)[1] * jnp.sum(y)),
        "det": (lambda x, y: tnp.linalg.det(x) * tnp.sum(y), lambda x, y: jnp.linalg.det(x) * jnp.sum(y)),
    }
    ours, theirs = funs[name]
    grad_theirs: Callable[..., Any] = jax.jit(jax.grad(theirs, argnums=(0, 1)))
    grad_ours: Callable[..., Any] = tdx.grad(ours, argnums=(0, 1))
    _close(grad_ours(a, b), grad_theirs(a, b), 1e-9)
    jvp_theirs: Callable[..., Any] = jax.jit(lambda x, y, dx, dy: jax.jvp(theirs, (x, y), (dx, dy))[1])
    _close(tdx.jvp(ours, (a, b), (b @ b.T, b))[1], jvp_theirs(a, b, b @ b.T, b), 1e-9)


def test_complex_slogdet_tangent_as_jax() -> None:
    a, da = _m((4, 4), np.complex128), _m((4, 4), np.complex128)
    got = tdx.jvp(lambda x: tuple(tnp.linalg.slogdet(x)), (a,), (da,))
    want = jax.jit(lambda x, dx: jax.jvp(lambda y: tuple(jnp.linalg.slogdet(y)), (x,), (dx,)))(a, da)
    _close(got, want, 1e-10)


def test_program_size_does_not_grow_with_n() -> None:
    """The defect this replaced: Gaussian elimination unrolled over n, so
    the program (and compile time) grew with the matrix size."""
    def size(n: int) -> int:
        return len(tdx.make_jaxpr(lambda a, b: tnp.linalg.solve(a, b))(np.eye(n), np.ones(n)).jaxpr.eqns)

    assert size(4) == size(64)


def test_vmap_over_b_alone_makes_jaxs_kernel_calls() -> None:
    """Only ``b`` batched: ``triangular_solve`` folds the batch into ``b``'s
    right-hand sides (JAX's batching rule), so ``vmap(solve)`` with one
    ``a`` is one LU and one pair of ``trsm`` calls, equal to JAX's bits."""
    a, bs = _m((5, 5)), _m((3, 5, 2))
    got = tdx.jit(tdx.vmap(lambda b: tnp.linalg.solve(a, b)))(bs)
    _bits(got, jax.jit(jax.vmap(lambda b: jnp.linalg.solve(a, b)))(bs))
    u, rows = np.triu(a) + 5 * np.eye(5), _m((2, 3, 5))
    got = tdx.vmap(lambda b: tll.triangular_solve(u, b, left_side=False, transpose_a=True), in_axes=1)(rows)
    want = jax.vmap(lambda b: jax.lax.linalg.triangular_solve(u, b, left_side=False, transpose_a=True), in_axes=1)(rows)
    _close(got, want, 1e-12)
