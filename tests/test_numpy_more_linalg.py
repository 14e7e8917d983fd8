"""Issue 12: typedax.numpy.linalg (norm, vector_norm, matrix_norm) against
jax.numpy.linalg, and the Array methods that call the new functions
(``x.std()``, ``x.clip()``, ...) against jax.Array's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import AxisError, PrimitiveTypeError
from typedax.numpy import linalg

from _numpy_oracle import Case, Table, assert_same, jax_value

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(3)
V = R.normal(size=5)
M = R.normal(size=(3, 4))
T = R.normal(size=(2, 3, 4))
I = R.integers(-3, 4, size=(3, 4)).astype(np.int32)

NORMS: list[tuple[Any, dict[str, Any]]] = [
    (V, {}), (V, {"ord": 1}), (V, {"ord": math.inf}), (V, {"ord": -math.inf}), (V, {"ord": 0}),
    (V, {"ord": 3}), (V, {"ord": 0.5}), (V, {"ord": -1}), (M, {}), (M, {"ord": "fro"}), (M, {"ord": 1}),
    (M, {"ord": -1}), (M, {"ord": math.inf}), (M, {"ord": -math.inf}), (T, {}), (T, {"axis": 1}),
    (T, {"axis": -1, "ord": 1, "keepdims": True}), (T, {"axis": (2, 0)}), (T, {"axis": (0, 1), "ord": math.inf}),
    (T, {"axis": (1, 2), "ord": -1, "keepdims": True}), (I, {}), (I, {"ord": 1}), (M.astype(np.float32), {"axis": 0}),
]


@pytest.mark.parametrize("case", range(len(NORMS)))
def test_norm_against_jax(case: int) -> None:
    x, kw = NORMS[case]
    want = jax_value(lambda a: jnp.linalg.norm(a, **kw), x)
    assert_same(linalg.norm(x, **kw), want, rtol=2e-6, what="eager")
    assert_same(tdx.jit(lambda a: tnp.linalg.norm(a, **kw))(x), want, rtol=2e-6, what="jit")


@pytest.mark.parametrize("kw", [{}, {"ord": 1}, {"ord": math.inf}, {"axis": (0, 1), "ord": "fro"},
                                {"axis": 1, "ord": 3}, {"axis": (1, 0), "ord": -1}])
def test_norm_grads_against_jax(kw: dict[str, Any]) -> None:
    got = tdx.grad(lambda a: tnp.sum(linalg.norm(a, **kw)))(M)
    want = jax.jit(jax.grad(lambda a: jnp.sum(jnp.linalg.norm(a, **kw))))(M)
    assert_same(got, want, rtol=1e-10)
    batched = tdx.vmap(lambda a: linalg.norm(a, **kw))(T)
    assert_same(batched, np.stack([np.asarray(jnp.linalg.norm(t, **kw)) for t in T]), rtol=1e-12)


def test_vector_and_matrix_norm() -> None:
    for kw in ({}, {"axis": 1}, {"axis": (0, 2), "ord": 1, "keepdims": True}, {"ord": math.inf, "keepdims": True}):
        assert_same(linalg.vector_norm(T, **kw), jnp.linalg.vector_norm(T, **kw), rtol=1e-12)
    for kw2 in ({}, {"ord": 1}, {"ord": -math.inf, "keepdims": True}):
        assert_same(linalg.matrix_norm(T, **kw2), jnp.linalg.matrix_norm(T, **kw2), rtol=1e-12)


def test_linalg_is_a_submodule() -> None:
    import importlib

    by_import = importlib.import_module("typedax.numpy.linalg")  # (mypy sees typedax.numpy as a module)
    assert by_import is tnp.linalg is linalg


@pytest.mark.parametrize("call, err, match", [
    (lambda: linalg.norm(T, 1), PrimitiveTypeError, "Improper number of dimensions"),
    (lambda: linalg.norm(V, "fro"), PrimitiveTypeError, "Invalid order"),
    (lambda: linalg.norm(M, "bogus", axis=(0, 1)), PrimitiveTypeError, "Invalid order"),
    (lambda: linalg.norm(T, axis=(0, 1, 2)), PrimitiveTypeError, "Invalid axis"),
    (lambda: linalg.norm(M, axis=(1, 1)), PrimitiveTypeError, "Duplicate axes"),
    (lambda: linalg.norm(M, axis=2), AxisError, "out of bounds"),
    (lambda: linalg.matrix_norm(V), PrimitiveTypeError, "two-dimensional"),
])
def test_norm_errors(call: Any, err: type[Exception], match: str) -> None:
    with pytest.raises(err, match=match):
        call()


METHODS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("std", (), {}), ("var", (), {}), ("var", (1,), {"ddof": 1, "keepdims": True}), ("std", (1,), {"ddof": 1, "keepdims": True}), ("std", (0,), {"where": M > 0}),
    ("clip", (-0.5, 0.5), {}), ("clip", (None, 0.0), {}), ("round", (), {}), ("round", (2,), {}),
    ("cumsum", (1,), {}), ("cumsum", (), {}), ("cumprod", (0,), {}), ("argmax", (), {}), ("argmax", (1,), {"keepdims": True}),
    ("argmin", (0,), {}), ("prod", (1,), {}), ("all", (), {}), ("any", (1,), {}),
    ("argsort", (1,), {}), ("argsort", (0,), {"descending": True}), ("sort", (), {}), ("sort", (0,), {"descending": True}),
    ("swapaxes", (0, 1), {}), ("dot", (np.ones(4),), {}), ("diagonal", (1,), {}), ("trace", (), {}), ("ptp", (1,), {}),
    ("repeat", (2,), {}), ("repeat", (2, 1), {}), ("take", (np.array([0, 5, -1]),), {}), ("take", (np.array([1, 3]), 1), {}),
]


def _method(mod: Any, name: str) -> Callable[..., Any]:
    return lambda x, *args, **kw: getattr(mod.asarray(x), name)(*args, **kw)


METHOD_TABLE = Table([(name, (M, *args), kw) for name, args, kw in METHODS], _method,
                     static=lambda name, i: i > 0)


@pytest.mark.parametrize("case", range(len(METHODS)), ids=[m[0] for m in METHODS])
def test_array_methods_against_jax(case: int) -> None:
    METHOD_TABLE.check(case, rtol=1e-12)


def test_more_array_methods() -> None:
    x = tnp.asarray(M[None])
    assert x.squeeze().shape == (3, 4) and x.squeeze(0).shape == (3, 4)
    got = tnp.asarray(I).nonzero(size=3, fill_value=-1)
    assert_same(got, jnp.asarray(I).nonzero(size=3, fill_value=-1))
    assert_same(tdx.grad(lambda a: a.std() + a.std(1).sum() + a.clip(-0.5, 0.5).sum())(M),
                jax.jit(jax.grad(lambda a: a.std() + a.std(1).sum() + a.clip(-0.5, 0.5).sum()))(M), rtol=1e-10)
    # x.var() on tracers too (staging's tracers keep their IR variable as ``ir_var``)
    assert_same(tdx.jit(tdx.grad(lambda a: a.var(0).sum()))(M), jax.jit(jax.grad(lambda a: a.var(0).sum()))(M), rtol=1e-10)


SQ = R.normal(size=(4, 4))
BATCH = R.normal(size=(2, 3, 3))


LINALG: list[Case] = [
    ("det", (BATCH,), {}), ("det", (np.array([[1.0, 2.0], [2.0, 4.0]]),), {}),
    ("det", (np.array([[0, 1], [1, 0]], np.int32),), {}), ("det", (SQ.astype(np.float32),), {}),
    ("slogdet", (SQ,), {}), ("inv", (BATCH,), {}), ("solve", (SQ, SQ[0]), {}), ("solve", (BATCH, BATCH), {}),
]
LINALG_TABLE = Table(LINALG, lambda mod, name: getattr(mod.linalg, name))


@pytest.mark.parametrize("case", range(len(LINALG)), ids=[c[0] for c in LINALG])
def test_det_inv_solve_against_jax(case: int) -> None:
    rtol = 1e-5 if LINALG[case][1][0].dtype == np.float32 else 1e-10
    LINALG_TABLE.check(case, rtol=rtol)


@pytest.mark.parametrize("name, f", [
    ("det", lambda m, a: m.linalg.det(a)), ("slogdet", lambda m, a: m.linalg.slogdet(a)[1]),
    ("inv", lambda m, a: m.sum(m.sin(m.linalg.inv(a)))), ("solve", lambda m, a: m.sum(m.linalg.solve(a, a[0] + 1.0))),
])
def test_det_inv_solve_grads_and_vmap(name: str, f: Any) -> None:
    got = tdx.grad(lambda a: f(tnp, a))(SQ)
    want = jax.jit(jax.grad(lambda a: f(jnp, a)))(SQ)
    assert_same(got, want, rtol=1e-9, atol=1e-12)
    assert_same(tdx.vmap(lambda a: f(tnp, a))(BATCH), np.stack([np.asarray(f(tnp, b)) for b in BATCH]), rtol=1e-12)


def test_det_inv_solve_errors() -> None:
    for fn in (linalg.det, linalg.inv, linalg.slogdet):
        with pytest.raises(PrimitiveTypeError, match="square"):
            fn(M)
        with pytest.raises(PrimitiveTypeError, match=r"\[\.\.\., n, n\]"):
            fn(V)
    with pytest.raises(PrimitiveTypeError, match="rows"):
        linalg.solve(SQ, V)
    with pytest.raises(PrimitiveTypeError, match="Invalid shapes for solve"):
        linalg.solve(BATCH, BATCH[:, 0])  # JAX: a batch of vectors is b[..., None]


def test_32_bit_mode() -> None:
    """With x64 off the index arithmetic of tri/eye/diag and the eliminations stays 32-bit."""
    a = (SQ + 4 * np.eye(4)).astype(np.float32)
    cases: list[tuple[Callable[[], tdx.Array], Any]] = [
        (lambda: tnp.eye(3, k=1), np.eye(3, k=1)), (lambda: tnp.tri(3, 4, -1), np.tri(3, 4, -1)),
        (lambda: tnp.tril(a), np.tril(a)), (lambda: tnp.diag(a[0], 1), np.diag(a[0], 1)),
        (lambda: linalg.det(a), np.linalg.det(a)), (lambda: linalg.inv(a), np.linalg.inv(a)),
        (lambda: linalg.solve(a, a[0]), np.linalg.solve(a, a[0])),
    ]
    with tdx.config.context(enable_x64=False):
        for f, want in cases:
            for got in (f(), tdx.jit(f)()):
                assert np.asarray(got).dtype == np.float32
                np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4, atol=1e-5)
