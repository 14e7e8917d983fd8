"""typedax.numpy.convolve/correlate and typedax.scipy.signal against JAX (values
and dtypes), NumPy and SciPy (values): every mode, ranks 0-3, shapes where
either operand is the larger, float32/float64/integer/bool inputs, eager and
under jit, gradients against jax.grad, vmap against a loop; the errors (0-d
and mismatched ranks, bad modes and methods, empty inputs, unsupported
boundaries); and the grid helpers the convolution notebook uses (linspace,
rot90)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.signal as jsig
import numpy as np
import pytest
import scipy.signal as ssig  # type: ignore[import-untyped]  # scipy ships no type stubs
from hypothesis import given, settings
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.signal as tsig
from typedax.core.errors import AxisError, PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

MODES = ["full", "same", "valid"]
DTYPES = ["float32", "float64", "int32", "int8", "bool"]
Fn = Callable[..., Any]


def operand(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.uniform(-2.0, 2.0, shape).astype(dtype)


def close(got: object, want: object, check_dtype: bool = True) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    if check_dtype:
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
    tol = 1e-4 if g.dtype == np.float32 or w.dtype == np.float32 else 1e-11
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


# -- typedax.numpy.convolve / correlate ----------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["convolve", "correlate"]), st.sampled_from(MODES), st.sampled_from(DTYPES),
    st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**32 - 1),
)
def test_numpy_convolve_and_correlate_match_jax_and_numpy(op: str, mode: str, dtype: str, n: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, v = operand(rng, (n,), dtype), operand(rng, (m,), dtype)
    got = getattr(tnp, op)(a, v, mode=mode)
    close(got, getattr(jnp, op)(a, v, mode=mode))
    close(got, getattr(np, op)(a.astype(np.float64), v.astype(np.float64), mode=mode), check_dtype=False)


def test_numpy_defaults_are_numpys() -> None:
    a, v = np.arange(5.0), np.array([1.0, 2.0, 0.5])
    close(tnp.convolve(a, v), np.convolve(a, v))  # full
    close(tnp.correlate(a, v), np.correlate(a, v))  # valid
    close(tnp.correlate(v, a), jnp.correlate(v, a))  # the shorter first: swapped and reversed, as JAX


def test_numpy_mixed_dtypes_and_preferred_element_type() -> None:
    i8 = np.array([1, -2, 3, 4], np.int8)
    try:
        want = jnp.convolve(i8, i8[:2], preferred_element_type=np.int32)
    except jax.errors.JaxRuntimeError as e:  # a GPU: cuDNN has no int8-to-int32 convolution, JAX's nor typedax's
        assert tdx.default_backend() == "gpu" and "integer convolutions" in str(e)
        with pytest.raises(jax.errors.JaxRuntimeError, match="integer convolutions"):
            np.asarray(tnp.convolve(i8, i8[:2], preferred_element_type=np.int32))
    else:
        got = tnp.convolve(i8, i8[:2], preferred_element_type=np.int32)
        assert got.dtype == want.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    close(tnp.convolve(i8, np.array([0.5, 1.0], np.float32)), jnp.convolve(i8, np.array([0.5, 1.0], np.float32)))
    close(tnp.correlate(np.arange(4, dtype=np.int64), np.ones(2, np.int32), "full"),
          jnp.correlate(np.arange(4, dtype=np.int64), np.ones(2, np.int32), "full"))


def test_numpy_convolve_under_jit_grad_and_vmap() -> None:
    rng = np.random.default_rng(0)
    a, v = rng.normal(size=9), rng.normal(size=4)
    for op in ("convolve", "correlate"):
        for mode in MODES:
            f = getattr(tnp, op)
            jf = getattr(jnp, op)
            close(tdx.jit(lambda x, y: f(x, y, mode=mode))(a, v), jf(a, v, mode=mode))
            for argnums in (0, 1):
                got = tdx.grad(lambda x, y: tnp.sum(tnp.sin(f(x, y, mode=mode))), argnums)(a, v)
                want = jax.grad(lambda x, y: jnp.sum(jnp.sin(jf(x, y, mode=mode))), argnums)(a, v)
                close(got, want)
    batch = rng.normal(size=(3, 9))
    got = tdx.vmap(lambda x: tnp.convolve(x, v, mode="same"))(batch)
    close(got, np.stack([np.convolve(row, v, mode="same") for row in batch]))


# -- typedax.scipy.signal --------------------------------------------------------------------------
@st.composite
def nested_shapes(draw: st.DrawFn, min_rank: int = 1, max_rank: int = 3) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes of one rank, one no larger than the other in every
    dimension (either may come first)."""
    rank = draw(st.integers(min_rank, max_rank))
    big = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    small = tuple(draw(st.integers(1, b)) for b in big)
    return (small, big) if draw(st.booleans()) else (big, small)


# ci: 7 examples (each example compiles with XLA or runs JAX); make test-long runs 30
@ci_examples(7, otherwise=30, deadline=None)
@given(
    st.sampled_from(["convolve", "correlate"]), st.sampled_from(MODES), st.sampled_from(DTYPES),
    nested_shapes(), st.integers(0, 2**32 - 1),
)
def test_signal_nd_matches_jax_and_scipy(
    op: str, mode: str, dtype: str, shapes: tuple[tuple[int, ...], tuple[int, ...]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    a, b = operand(rng, shapes[0], dtype), operand(rng, shapes[1], dtype)
    got = getattr(tsig, op)(a, b, mode=mode)
    close(got, getattr(jsig, op)(a, b, mode=mode))
    want = getattr(ssig, op)(a.astype(np.float64), b.astype(np.float64), mode=mode, method="direct")
    close(got, want, check_dtype=False)


@ci_examples(10, otherwise=20, deadline=None)
@given(
    st.sampled_from(["convolve2d", "correlate2d"]), st.sampled_from(MODES), st.sampled_from(["float32", "float64", "int32"]),
    nested_shapes(2, 2), st.integers(0, 2**32 - 1),
)
def test_signal_2d_matches_jax_and_scipy(
    op: str, mode: str, dtype: str, shapes: tuple[tuple[int, ...], tuple[int, ...]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    a, b = operand(rng, shapes[0], dtype), operand(rng, shapes[1], dtype)
    got = getattr(tsig, op)(a, b, mode=mode)
    close(got, getattr(jsig, op)(a, b, mode=mode))
    if not (op == "correlate2d" and mode == "valid" and a.size < b.size):  # SciPy refuses some of these
        close(got, getattr(ssig, op)(a.astype(np.float64), b.astype(np.float64), mode=mode), check_dtype=False)


def test_signal_0d_inputs_multiply_as_scipy() -> None:
    for op in ("convolve", "correlate"):
        got = getattr(tsig, op)(np.float64(2.0), np.float64(3.0))
        close(got, getattr(jsig, op)(np.float64(2.0), np.float64(3.0)))
        assert float(got) == 6.0


def test_signal_under_jit_and_grad_match_jax() -> None:
    rng = np.random.default_rng(1)
    img, ker = rng.normal(size=(6, 5)), rng.normal(size=(3, 2))
    for op in ("convolve", "correlate", "convolve2d", "correlate2d"):
        f: Fn = getattr(tsig, op)
        jf: Fn = getattr(jsig, op)
        for mode in MODES:
            close(tdx.jit(lambda x, k: f(x, k, mode=mode))(img, ker), jf(img, ker, mode=mode))
            if op in ("correlate", "convolve2d"):  # the other two share their code paths
                continue
            for argnums in (0, 1):
                got = tdx.grad(lambda x, k: tnp.sum(f(x, k, mode=mode) ** 2), argnums)(img, ker)
                want = jax.grad(lambda x, k: jnp.sum(jf(x, k, mode=mode) ** 2), argnums)(img, ker)
                close(got, want)


def test_signal_vmap_matches_a_loop() -> None:
    rng = np.random.default_rng(2)
    imgs, ker = rng.normal(size=(3, 5, 4)), rng.normal(size=(2, 2))
    got = tdx.vmap(lambda x: tsig.convolve(x, ker, mode="same"))(imgs)
    close(got, np.stack([ssig.convolve(x, ker, mode="same") for x in imgs]))


def test_method_fft_and_auto_agree_with_direct_and_jax() -> None:
    """'auto' is the direct sum and 'fft' the FFT's (tests/test_fft_convolve.py), as JAX's: equal up to rounding."""
    a, b = np.arange(12.0).reshape(3, 4), np.array([[1.0, -1.0], [0.5, 2.0]])
    direct = tsig.convolve(a, b, method="direct")
    for method in ("auto", "fft"):
        close(tsig.convolve(a, b, method=method), direct)
        close(tsig.correlate(a, b, method=method), jsig.correlate(jnp.asarray(a), jnp.asarray(b), method=method))
    close(direct, jsig.convolve(jnp.asarray(a), jnp.asarray(b), method="fft"))


def test_precision_passes_through() -> None:
    a, b = np.arange(6.0, dtype=np.float32), np.ones(3, np.float32)
    close(tsig.convolve(a, b, precision="highest"), jsig.convolve(jnp.asarray(a), jnp.asarray(b), precision="highest"))
    close(tnp.convolve(a, b, precision="highest"), jnp.convolve(a, b, precision="highest"))


# -- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["convolve", "correlate"])
def test_numpy_refuses_0d_and_2d_inputs(op: str) -> None:
    f: Fn = getattr(tnp, op)
    with pytest.raises(PrimitiveTypeError, match="1-dimensional"):
        f(np.float64(1.0), np.ones(3))
    with pytest.raises(PrimitiveTypeError, match="1-dimensional"):
        f(np.ones((2, 2)), np.ones(3))


@pytest.mark.parametrize("op", ["convolve", "correlate"])
def test_numpy_refuses_empty_inputs_and_bad_modes(op: str) -> None:
    f: Fn = getattr(tnp, op)
    with pytest.raises(PrimitiveTypeError, match="empty"):
        f(np.ones(0), np.ones(3))
    with pytest.raises(PrimitiveTypeError, match="mode must be one of"):
        f(np.ones(4), np.ones(3), mode="circular")


@pytest.mark.parametrize("op", ["convolve", "correlate", "convolve2d", "correlate2d"])
def test_signal_refuses_bad_modes(op: str) -> None:
    with pytest.raises(PrimitiveTypeError, match="mode must be one of"):
        getattr(tsig, op)(np.ones((3, 3)), np.ones((2, 2)), mode="wrap")


@pytest.mark.parametrize("op", ["convolve", "correlate"])
def test_signal_refuses_mismatched_ranks_empty_and_crossed_shapes(op: str) -> None:
    f: Fn = getattr(tsig, op)
    with pytest.raises(PrimitiveTypeError, match="same number of dimensions"):
        f(np.ones((3, 3)), np.ones(3))
    with pytest.raises(PrimitiveTypeError, match="zero-size"):
        f(np.ones((3, 0)), np.ones((2, 2)))
    with pytest.raises(PrimitiveTypeError, match="at least as large"):
        f(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(PrimitiveTypeError, match="method='overlap'"):
        f(np.ones(3), np.ones(2), method="overlap")


@pytest.mark.parametrize("op", ["convolve2d", "correlate2d"])
def test_signal_2d_refuses_other_ranks_and_boundaries(op: str) -> None:
    f: Fn = getattr(tsig, op)
    with pytest.raises(PrimitiveTypeError, match="2-dimensional"):
        f(np.float64(1.0), np.float64(2.0))
    with pytest.raises(PrimitiveTypeError, match="2-dimensional"):
        f(np.ones((3, 3, 3)), np.ones((2, 2, 2)))
    with pytest.raises(PrimitiveTypeError, match="boundary='fill'"):
        f(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(PrimitiveTypeError, match="fillvalue=0"):
        f(np.ones((3, 3)), np.ones((2, 2)), fillvalue=1.0)


# -- the notebook's grid helpers ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "args", [(0, 10, 500), (-3, 3, 7), (0.0, 1.0, 1), (0, 1, 0), (np.float32(-1), np.float32(2), 6)]
)
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_jax(args: tuple[Any, Any, int], endpoint: bool) -> None:
    close(tnp.linspace(*args, endpoint=endpoint), jnp.linspace(*args, endpoint=endpoint))


def test_linspace_dtypes_axes_and_gradients() -> None:
    got = tnp.linspace(0, 10, 4, dtype=np.int32)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jnp.linspace(0, 10, 4, dtype=np.int32)))
    assert got.dtype == np.int32
    lo, hi = np.zeros(2), np.array([1.0, 3.0])
    close(tnp.linspace(lo, hi, 5, axis=1), jnp.linspace(lo, hi, 5, axis=1))
    close(tnp.linspace(lo, hi, 5, axis=-1), jnp.linspace(lo, hi, 5, axis=-1))
    got_g = tdx.grad(lambda s: tnp.sum(tnp.linspace(s, 2 * s, 5) ** 2))(1.5)
    close(got_g, jax.grad(lambda s: jnp.sum(jnp.linspace(s, 2 * s, 5) ** 2))(1.5))
    with pytest.raises(PrimitiveTypeError, match="num"):
        tnp.linspace(0, 1, -1)
    with pytest.raises(AxisError):
        tnp.linspace(lo, hi, 3, axis=3)


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 2), (2, 0), (-1, 0)])
def test_rot90_matches_numpy(k: int, axes: tuple[int, int]) -> None:
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(tnp.rot90(x, k, axes)), np.rot90(x, k, axes))


def test_rot90_refuses_repeated_axes() -> None:
    with pytest.raises(AxisError):
        tnp.rot90(np.ones((2, 2)), axes=(1, 1))
