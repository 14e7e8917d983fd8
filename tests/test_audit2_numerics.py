"""Issue 23, second audit: eager evaluation (NumPy on the host) and ``jit``
(XLA on the CPU) give the same bits for reductions, cumulative reductions and
powers, and the answer JAX 0.10.2 gives."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import EmptyReductionError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Fn = Callable[[tdx.Array], object]  # an Array or a tuple of them
NDArray = np.ndarray[tuple[int, ...], np.dtype[np.generic]]
JFn = Callable[[jax.Array], object]
bfloat16 = np.dtype(ml_dtypes.bfloat16)


def canonical(a: object) -> object:
    """The bytes of ``a`` (an array or a tuple of them) with every NaN made
    one NaN (so NaN == NaN, and -0.0 != +0.0), with its dtype and shape."""
    if isinstance(a, tuple):
        return tuple(canonical(b) for b in a)
    v = np.array(a)
    if v.dtype.kind == "f" or v.dtype == bfloat16:
        wide = v.astype(np.float64)
        wide[np.isnan(wide)] = np.nan
        return wide.tobytes(), str(v.dtype), v.shape
    return v.tobytes(), str(v.dtype), v.shape


def eager_jit_jax(f: Fn, jf: JFn, x: NDArray) -> None:
    """``f`` eagerly, ``f`` under ``jit`` and JAX's ``jf`` under ``jax.jit``
    give the same bits."""
    eager = canonical(f(tnp.asarray(x)))
    assert eager == canonical(tdx.jit(f)(tnp.asarray(x)))
    assert eager == canonical(jax.jit(jf)(jnp.asarray(x)))


# -- 1. max/min of signed zeros: XLA's max is +0 and min -0 in any order -------------
@pytest.mark.parametrize("dtype", [np.float16, bfloat16, np.float32, np.float64])
@pytest.mark.parametrize("values", [[0.0, -0.0], [-0.0, -0.0], [-0.0, 0.0, -0.0]])
def test_extrema_of_signed_zeros(dtype: type, values: list[float]) -> None:
    x: NDArray = np.array(values, dtype)
    rows = np.stack([x, x[::-1]])

    def f(v: tdx.Array) -> object:
        return (tnp.max(v[0]), tnp.min(v[0]), lax.reduce_max(v[1], (0,)), lax.reduce_min(v[1], (0,)),
                tnp.max(v, axis=1), tnp.min(v, axis=0), tnp.max(v, axis=0), tnp.min(v, axis=1))

    def jf(v: jax.Array) -> object:
        return (jnp.max(v[0]), jnp.min(v[0]), jax.lax.reduce_max(v[1], (0,)), jax.lax.reduce_min(v[1], (0,)),
                jnp.max(v, axis=1), jnp.min(v, axis=0), jnp.max(v, axis=0), jnp.min(v, axis=1))

    eager_jit_jax(f, jf, rows)


def test_max_of_zeros_under_vmap_and_grad() -> None:
    x = np.array([[0.0, -0.0], [-0.0, -0.0]], np.float32)
    got = tdx.vmap(tnp.max)(x)
    assert canonical(got) == canonical(jax.vmap(jnp.max)(x))
    g = tdx.grad(lambda v: tnp.max(v))(np.array([0.0, -0.0, -1.0]))
    assert canonical(g) == canonical(jax.grad(lambda v: jnp.max(v))(jnp.array([0.0, -0.0, -1.0])))


# -- 1. integer powers: JAX's binary exponentiation, one rounding per product ----------
def test_integer_pow_is_repeated_squaring() -> None:
    x = np.array([1.0001], np.float32)
    eager = tnp.asarray(x) ** 100000
    assert float(np.asarray(eager)[0]) == pytest.approx(22005.54, abs=0.01)  # JAX's, not pow's 22052.016
    eager_jit_jax(lambda v: v ** 100000, lambda v: v ** 100000, x)
    eager_jit_jax(lambda v: lax.integer_pow(v, -7), lambda v: jax.lax.integer_pow(v, -7), x)


@pytest.mark.parametrize("dtype", [np.float16, bfloat16, np.float32, np.float64])
def test_integer_pow_values(dtype: type) -> None:
    # (magnitudes whose powers stay clear of subnormals: XLA on the CPU flushes
    # those to zero, NumPy keeps them -- a separate issue)
    rng = np.random.default_rng(10)
    x = (rng.uniform(0.9, 1.6, 64) * rng.choice([-1, 1], 64)).astype(dtype)
    x[:6] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0]).astype(dtype)
    ys = (0, 1, 2, 3, 7, 100, -1, -2, -5)
    eager_jit_jax(lambda v: tuple(lax.integer_pow(v, y) for y in ys) + (v ** 6, v ** -3),
                  lambda v: tuple(jax.lax.integer_pow(v, y) for y in ys) + (v ** 6, v ** -3), x)


def test_integer_pow_under_vmap_and_grad() -> None:
    x = np.array([1.5, -2.0, 0.25], np.float32)
    assert canonical(tdx.vmap(lambda v: v ** 13)(x)) == canonical(jax.vmap(lambda v: v ** 13)(x))
    g = tdx.grad(lambda v: tnp.sum(v ** 13))(x)
    jg = jax.grad(lambda v: jnp.sum(v ** 13))(x)
    assert canonical(g) == canonical(jg)


# -- 1. cumulative reductions: XLA's blocks of 16 --------------------------------------
def test_cumsum_past_float32_precision() -> None:
    x = np.array([2.0 ** 24] + [1.0] * 1000, np.float32)
    assert float(np.asarray(tnp.cumsum(x))[-1]) == 16778200.0  # JAX's, not a sequential sum's 2**24
    eager_jit_jax(tnp.cumsum, jnp.cumsum, x)
    eager_jit_jax(lambda v: lax.cumsum(v, 0, True), lambda v: jax.lax.cumsum(v, 0, True), x)


_CUMULATIVE = [(name, rev) for name in ("cumsum", "cumprod", "cummax", "cummin") for rev in (False, True)]


@pytest.mark.parametrize("n", [1, 2, 17, 18, 300])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_cumulative_lengths(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    if dtype == np.int32:
        x = rng.integers(-3, 4, (2, n)).astype(dtype)
    else:
        x = (rng.standard_normal((2, n)) * 10.0 ** rng.integers(-3, 8, (2, n))).astype(dtype)
        x[:, ::5] = -0.0
    near_one = (1 + x / 1e8).astype(dtype) if dtype != np.int32 else x  # (for cumprod)
    eager_jit_jax(lambda v: tuple(getattr(lax, n)(v[int(n == "cumprod")], 1, r) for n, r in _CUMULATIVE),
                  lambda v: tuple(getattr(jax.lax, n)(v[int(n == "cumprod")], 1, r) for n, r in _CUMULATIVE),
                  np.stack([x, near_one]))


def test_cumsum_keeps_a_lone_negative_zero() -> None:
    eager_jit_jax(tnp.cumsum, jnp.cumsum, np.array([-0.0], np.float32))
    eager_jit_jax(tnp.cumsum, jnp.cumsum, np.array([-0.0, -0.0], np.float32))


def test_cumsum_under_vmap_and_grad() -> None:
    x = np.array([[2.0 ** 24] + [1.0] * 40] * 2, np.float32)
    assert canonical(tdx.vmap(tnp.cumsum)(x)) == canonical(jax.vmap(jnp.cumsum)(x))
    g = tdx.grad(lambda v: tnp.sum(tnp.cumsum(v) * v))(x[0])
    jg = jax.grad(lambda v: jnp.sum(jnp.cumsum(v) * v))(x[0])
    assert canonical(g) == canonical(jg)


# -- 2. reduce_and / reduce_or on unsigned integers --------------------------------------
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.bool_])
def test_bitwise_reductions(dtype: type) -> None:
    x: NDArray = np.array([[3, 7, 255], [1, 2, 6]]).astype(dtype)

    def f(v: tdx.Array) -> object:
        return lax.reduce_and(v, (1,)), lax.reduce_or(v, (1,)), lax.reduce_and(v[:, :0], (1,)), lax.reduce_or(v, (0, 1))

    def jf(v: jax.Array) -> object:
        return (jax.lax.reduce_and(v, (1,)), jax.lax.reduce_or(v, (1,)), jax.lax.reduce_and(v[:, :0], (1,)),
                jax.lax.reduce_or(v, (0, 1)))

    eager_jit_jax(f, jf, x)
    assert canonical(tdx.vmap(f)(tnp.asarray(x[:, None, :]))) == canonical(jax.vmap(jf)(jnp.asarray(x[:, None, :])))


# -- 3. reductions over an empty axis -------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, bfloat16, np.bool_, np.float32, np.float64])
def test_extrema_over_an_empty_axis_give_the_identity(dtype: type) -> None:
    x: NDArray = np.zeros((2, 0), dtype)
    cases = [(n, axes) for n in ("reduce_max", "reduce_min") for axes in ((1,), (0, 1))]
    eager_jit_jax(lambda v: tuple(getattr(lax, n)(v, a) for n, a in cases),
                  lambda v: tuple(getattr(jax.lax, n)(v, a) for n, a in cases), x)
    f = lambda v: lax.reduce_max(v, (1,))  # noqa: E731
    assert canonical(tdx.vmap(f)(x[None])) == canonical(jax.vmap(lambda v: jax.lax.reduce_max(v, (1,)))(x[None]))


def test_numpy_extrema_of_an_empty_axis_need_initial() -> None:
    x = np.zeros((2, 0), np.float32)
    for f, jf in ((tnp.max, jnp.max), (tnp.min, jnp.min), (tnp.amax, jnp.amax)):
        with pytest.raises(ValueError):
            jf(x, axis=1)
        with pytest.raises(EmptyReductionError, match=r"zero-size array to reduction operation m.. which has no identity"):
            f(x, axis=1)
        with pytest.raises(EmptyReductionError):
            tdx.jit(lambda v: f(v))(x)
        eager_jit_jax(lambda v: f(v, axis=1, initial=-3.0), lambda v: jf(v, axis=1, initial=-3.0), x)
        eager_jit_jax(lambda v: f(v, axis=0, initial=0.5), lambda v: jf(v, axis=0, initial=0.5), x)
    y: NDArray = np.array([[1, -4], [7, 2]], np.int8)
    eager_jit_jax(lambda v: (tnp.max(v, 1, initial=3), tnp.min(v, initial=0)),
                  lambda v: (jnp.max(v, 1, initial=3), jnp.min(v, initial=0)), y)


def test_softmax_and_logsumexp_of_an_empty_axis() -> None:
    eager_jit_jax(tdx.nn.logsumexp, jax.nn.logsumexp, np.zeros(0, np.float32))
    eager_jit_jax(tdx.nn.softmax, jax.nn.softmax, np.zeros(0, np.float32))
    eager_jit_jax(lambda v: tdx.nn.log_softmax(v, axis=1), lambda v: jax.nn.log_softmax(v, axis=1),
                  np.zeros((2, 0), np.float32))
    eager_jit_jax(lambda v: tdx.nn.logsumexp(v, axis=1), lambda v: jax.nn.logsumexp(v, axis=1),
                  np.zeros((3, 0), np.float64))
