"""Eager evaluation on an accelerator (issue 26): every primitive runs as its
one-equation XLA program on the device, as JAX's dispatch runs it there, so
eager values are the device's (TF32 products, XLA's special functions and
conversions) and equal ``jit``'s; device arrays stay on the device between
operations. Checked on the CPU by making typedax take the CPU for an
accelerator (``config.install_accelerator_question``); ``make test-gpu`` runs
the whole suite that way on a GPU."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import config
from typedax.lowering import eager


@pytest.fixture
def on_device() -> Iterator[None]:
    before = (list(config.EAGER_ON_DEVICE), list(config.EAGER_FAST))
    config.install_accelerator_question(lambda: True)
    try:
        assert config.EAGER_ON_DEVICE == [True] and config.EAGER_FAST == [False]
        yield
    finally:
        config.install_accelerator_question(eager.on_accelerator)
    assert (config.EAGER_ON_DEVICE, config.EAGER_FAST) == before  # (the CPU: NumPy again)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5)).astype(np.float32)
Y = RNG.standard_normal((5, 3)).astype(np.float32)
BIG = np.array([-3e9, -200.5, 127.9, 300.0, 3e9], np.float32)

CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("sin", tnp.sin, (X,)),
    ("tanh", tnp.tanh, (X,)),
    ("matmul", tnp.matmul, (X, Y)),
    ("sum", lambda a: tnp.sum(a, axis=1), (X,)),
    ("cumsum", lambda a: tnp.cumsum(a, axis=0), (X,)),
    ("sort", lambda a: tnp.sort(a, axis=1), (X,)),
    ("pow", lambda a: a ** 2.0, (X,)),
    ("integer_pow", lambda a: a ** 3, (X,)),
    ("float to int8, out of range", lambda a: a.astype(np.int8), (BIG,)),
    ("digamma", lambda a: tdx.scipy.special.digamma(a), (np.array([-0.0, 0.0, -2.0, 0.5], np.float32),)),
    ("erf_inv", lax.erf_inv, (np.array([-1.0, -0.5, 0.0, 0.9, 1.0], np.float32),)),
    ("atan2", tnp.arctan2, (X, X[::-1])),
    ("argmax", lambda a: tnp.argmax(a, axis=1), (X,)),
    ("gather", lambda a: a[np.array([3, 0, 1])], (X,)),
    ("scatter", lambda a: a.at[1:3].set(0.0), (X,)),
    ("weak add", lambda a: a + 1.0, (X,)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_eager_equals_jit_on_the_device(on_device: None, name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    got = f(*(tnp.asarray(a) for a in args))
    want = tdx.jit(f)(*args)
    assert type(got).__name__ == "ArrayImpl" and got._host is None  # computed on the device, not fetched
    assert got.dtype == want.dtype and got.weak_type == want.weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_device_arrays_are_not_fetched_between_operations(on_device: None, monkeypatch: pytest.MonkeyPatch) -> None:
    x = tnp.sin(tnp.asarray(X))
    impl: Any = type(x)
    fetched: list[object] = []
    to_numpy = impl.to_numpy

    def spy(self: Any) -> Any:
        fetched.append(self)
        return to_numpy(self)

    monkeypatch.setattr(impl, "to_numpy", spy)
    y = tnp.sum(tnp.exp(x) * 2.0 + x, axis=0)
    assert fetched == []
    monkeypatch.undo()
    np.testing.assert_allclose(np.asarray(y), (np.exp(np.sin(X)) * 2 + np.sin(X)).sum(0), rtol=1e-5)


def test_what_stays_on_the_host(on_device: None) -> None:
    """Typed keys, float0, host callbacks and the bodies of higher-order
    primitives: keys and callbacks run on the host as before, bodies
    equation by equation on the device."""
    key = tdx.random.key(0)
    k1, k2 = tdx.random.split(key)
    want = tdx.jit(lambda k: tdx.random.split(k))(key)
    np.testing.assert_array_equal(tdx.random.key_data(k1), tdx.random.key_data(want[0]))
    seen: list[np.ndarray] = []

    def host(v: Any) -> Any:
        seen.append(np.asarray(v))
        return np.asarray(v) * 2

    out = tdx.pure_callback(host, tdx.ShapeDtypeStruct((5,), np.dtype(np.float32)), tnp.asarray(BIG))
    np.testing.assert_array_equal(np.asarray(out), BIG * 2)
    assert len(seen) == 1
    def body(i: Any, c: Any) -> Any:
        return tnp.tanh(c @ c.T) @ c

    looped = lax.fori_loop(0, 3, body, tnp.asarray(X))
    np.testing.assert_allclose(np.asarray(looped), np.asarray(tdx.jit(lambda c: lax.fori_loop(0, 3, body, c))(X)),
                               rtol=1e-6)
    w, v = tnp.linalg.eig(tnp.asarray(X[:4, :4]))  # no CUDA lowering: LAPACK on the host
    np.testing.assert_allclose(np.sort_complex(np.asarray(w)), np.sort_complex(np.linalg.eigvals(X[:4, :4])),
                               rtol=1e-4)

    def loss(a: tdx.Array, n: tdx.Array) -> tdx.Array:
        return tnp.sum(a * n)

    g = tdx.grad(loss, argnums=(0, 1), allow_int=True)(tnp.asarray(X), tnp.asarray(3))
    assert g[1].dtype == tdx.dtypes.float0


def test_a_64_bit_array_updates_with_x64_off(on_device: None) -> None:
    """An array made with x64 on keeps its 64 bits through an update with x64
    off, as JAX's: the update is converted to the array's dtype (on the device
    there is no NumPy indexing to do it)."""
    x = tnp.arange(3.0)
    tdx.config.update("jax_enable_x64", False)
    try:
        y = x.at[0].set(1.5)
        z = x.at[1].add(np.float64(2.0))
    finally:
        tdx.config.update("jax_enable_x64", True)
    assert y.dtype == z.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(y), [1.5, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(z), [0.0, 3.0, 2.0])
