"""Convolution through the FFT (issue 28, item 4): ``typedax.scipy.signal``'s
``fftconvolve`` and ``method='fft'`` of ``convolve``/``correlate`` against
``jax.scipy.signal`` as the oracle (and SciPy's): every mode, real and
complex inputs, either input the larger, ``axes``, ``jit``, x64 off;
``grad`` against JAX's, ``vmap`` against a loop; and JAX's errors.
(``jax.numpy.convolve`` has no ``method``, so neither has ``typedax.numpy``'s.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.signal as jsig
import numpy as np
import pytest
import scipy.signal as ssig  # type: ignore[import-untyped]  # scipy ships no type stubs
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.signal as tsig
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(28)
A = RNG.standard_normal((5, 7))
K = RNG.standard_normal((3, 2))
AC = A + 1j * RNG.standard_normal(A.shape)
KC = K - 2j * RNG.standard_normal(K.shape)


def _close(got: object, want: object, tol: float = 1e-12) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.abs(w).max(initial=0.0))))


PAIRS = [(A, K), (K, A), (AC, KC), (A, KC)]
CROSSED = (A[:, :1], K[:1, :])  # (5, 1) by (1, 2): a product, no FFT; no 'valid', no direct sum


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_fftconvolve_against_jax_and_scipy(mode: Any) -> None:
    if mode != "valid":
        _close(tsig.fftconvolve(*CROSSED, mode=mode), jsig.fftconvolve(*CROSSED, mode=mode))
    for x, y in PAIRS:
        want = jsig.fftconvolve(x, y, mode=mode)
        _close(tsig.fftconvolve(x, y, mode=mode), want)
        np.testing.assert_allclose(np.asarray(tsig.fftconvolve(x, y, mode=mode)), ssig.fftconvolve(x, y, mode=mode),
                                   atol=1e-12)
        # JAX's convolve(method='fft') is its fftconvolve
        _close(tsig.convolve(x, y, mode=mode, method="fft"), want)
        # correlate conjugates in2, as JAX's; through the FFT and directly, equal to rounding
        corr = jsig.correlate(jnp.asarray(x), jnp.asarray(y), mode=mode)
        _close(tsig.correlate(x, y, mode=mode), corr, 1e-10)
        _close(tsig.correlate(x, y, mode=mode, method="fft"), corr, 1e-10)


def test_numpy_correlate_conjugates_v_as_jax() -> None:
    """``tnp.correlate`` of complex inputs (``jnp.correlate`` has no ``method``: a direct sum)."""
    a, v = AC[0], KC[:, 0]
    _close(tnp.correlate(a, v, "full"), jnp.correlate(a, v, "full"))
    _close(tnp.correlate(v, a, "same"), jnp.correlate(v, a, "same"))  # swapped: the conjugate is a's


def test_axes_jit_and_x64_off(x64_off: None) -> None:
    k = RNG.standard_normal((5, 3))
    cases: list[tuple[Any, Any]] = [(1, "full"), ([-1], "same"), ((0, 1), "valid")]
    for axes, mode in cases:
        want = jsig.fftconvolve(A, k, mode=mode, axes=axes)
        got = tdx.jit(lambda p, q: tsig.fftconvolve(p, q, mode=mode, axes=axes))(A, k)  # noqa: B023 - called at once
        _close(got, want, 2e-5)
        assert np.asarray(got).dtype == np.float32
    assert tsig.fftconvolve(AC, KC).dtype == np.complex64
    assert tsig.fftconvolve(np.arange(4), np.ones(2, np.int32)).dtype == np.float32  # integers as floats


@ci_examples(4, otherwise=25, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(1, 9), mode=st.sampled_from(["full", "same", "valid"]),
       seed=st.integers(0, 2**16))
def test_random_1d_shapes_against_jax(n: int, m: int, mode: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(n), rng.standard_normal(m)
    _close(tsig.fftconvolve(x, y, mode=mode), jsig.fftconvolve(x, y, mode=mode), 1e-11)


def test_grad_against_jax_and_vmap_against_a_loop() -> None:
    weights = np.arange(35.0).reshape(5, 7)

    def ours(x: tdx.Array, k: tdx.Array) -> tdx.Array:
        return tnp.sum(tnp.sin(tsig.fftconvolve(x, k, mode="same")) * weights)

    def theirs(x: Any, k: Any) -> Any:
        return jnp.sum(jnp.sin(jsig.fftconvolve(x, k, mode="same")) * weights)

    got = tdx.grad(ours, argnums=(0, 1))(tnp.asarray(A), tnp.asarray(K))
    want = jax.grad(theirs, argnums=(0, 1))(A, K)
    for g, w in zip(got, want):
        _close(g, w, 1e-10)
    batch = RNG.standard_normal((3, 6))
    _close(tdx.vmap(lambda v: tsig.fftconvolve(v, K[:, 0]))(batch),
           np.stack([np.asarray(tsig.fftconvolve(v, K[:, 0])) for v in batch]))


def test_errors_as_jax() -> None:
    with pytest.raises(ValueError, match="same dimensionality"):
        tsig.fftconvolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(PrimitiveTypeError, match="mode"):
        tsig.fftconvolve(np.ones(3), np.ones(2), mode="wrap")  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="at least as large"):
        tsig.fftconvolve(np.ones((2, 3)), np.ones((3, 2)), mode="valid")
    with pytest.raises(ValueError, match="mapped axes must have same shape"):
        tsig.fftconvolve(np.ones((2, 3)), np.ones((3, 3)), axes=1)
    with pytest.raises(PrimitiveTypeError, match="method='overlap'"):
        tsig.convolve(np.ones(3), np.ones(2), method="overlap")


def test_the_spectral_pde_example_matches_the_exact_solutions(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/spectral_pde.py (``make demo``), smaller: the heat equation to
    rounding, the KdV soliton to the method's accuracy."""
    from examples import spectral_pde

    err = spectral_pde.main(figures=False, n=128, t_end=0.5)
    assert err < 1e-6
    out = capsys.readouterr().out
    assert "heat equation" in out and "KdV soliton (N = 128, float64)" in out
