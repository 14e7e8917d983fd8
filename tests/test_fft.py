"""Fourier transforms (issue 28, item 3): the ``fft`` primitive and
``typedax.numpy.fft`` against JAX as the oracle -- values and dtypes eagerly
and under ``jit`` (eager equals ``jit`` exactly: both are XLA's FFT), with
x64 on and off; ``jvp``/``grad`` of real losses, ``vmap`` against a loop,
the transposes by the dot-product test and ``vjp`` against JAX; the jaxpr
text round trip; and JAX's errors."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax.numpy import fft as tfft
from typedax import lax
from typedax.core.errors import JaxprTextTypeError
from typedax.core.parse import parse_jaxpr
from typedax.lowering import lower

from _examples import ci_examples, ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 6))
Z = X + 1j * RNG.standard_normal((3, 4, 6))


def _close(got: object, want: object) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    tol = 1e-12 if g.dtype in (np.float64, np.complex128) else 1e-5
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.abs(w).max(initial=0.0))))


# (function name, operand, keyword arguments)
CASES: list[tuple[str, np.ndarray[Any, Any], dict[str, Any]]] = [
    ("fft", Z, {}),
    ("fft", Z, {"n": 5, "axis": 1, "norm": "ortho"}),
    ("fft", X, {"n": 8, "axis": 0}),
    ("ifft", Z, {"norm": "forward"}),
    ("rfft", X, {"n": 7, "norm": "forward"}),
    ("irfft", Z, {"n": 7, "axis": 0, "norm": "ortho"}),
    ("hfft", Z, {"axis": 0}),
    ("hfft", Z, {"n": 5, "norm": "ortho"}),
    ("ihfft", X, {"n": 4}),
    ("fft2", Z, {"s": (3, 5)}),
    ("ifft2", Z, {"axes": (0, 2), "norm": "backward"}),
    ("rfft2", X, {}),
    ("irfft2", Z, {"s": (4, 5)}),
    ("fftn", Z, {}),
    ("fftn", X, {"s": (2, 5), "axes": (2, 0), "norm": "forward"}),
    ("rfftn", X, {"s": (2, 3, 4)}),
    ("irfftn", Z, {"norm": "ortho"}),
    ("fftshift", X, {}),
    ("fftshift", X, {"axes": 1}),
    ("ifftshift", X, {"axes": (0, 2)}),
]


@pytest.mark.parametrize(("name", "a", "kw"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_numpy_fft_against_jax(name: str, a: np.ndarray[Any, Any], kw: dict[str, Any]) -> None:
    f: Callable[..., Any] = getattr(tnp.fft, name)
    g: Callable[..., Any] = getattr(jnp.fft, name)
    got = f(a, **kw)
    _close(got, g(a, **kw))
    jitted = tdx.jit(lambda v: f(v, **kw))(a)
    if kw.get("norm") is None and name not in ("hfft", "ihfft"):  # no scaling after it: exactly jit
        np.testing.assert_array_equal(np.asarray(jitted), np.asarray(got))
    _close(jitted, got)  # XLA may fuse the scaling: to rounding


X32_CASES = [CASES[i] for i in (1, 5, 14)]


@pytest.mark.parametrize(("name", "a", "kw"), X32_CASES, ids=[c[0] for c in X32_CASES])
def test_numpy_fft_x32(x64_off: None, name: str, a: np.ndarray[Any, Any], kw: dict[str, Any]) -> None:
    """With x64 off, float64/complex128 operands enter as float32/complex64 in both libraries."""
    test_numpy_fft_against_jax(name, a, kw)


def test_module_and_attribute_are_one() -> None:
    assert tfft is tnp.fft is importlib.import_module("typedax.numpy.fft")
    assert sorted(tfft.__all__) == sorted(
        n for n in dir(jnp.fft) if not n.startswith("_") and callable(getattr(jnp.fft, n))
    )


def test_more_than_three_axes() -> None:
    """XLA's FFT takes three axes at most: more go three or two at a time, as JAX's."""
    y = RNG.standard_normal((2, 2, 3, 2, 4)) + 1j
    _close(tnp.fft.fftn(y), jnp.fft.fftn(y))
    _close(tnp.fft.irfftn(y), jnp.fft.irfftn(y))
    _close(tnp.fft.rfftn(y.real, axes=(0, 1, 2, 4)), jnp.fft.rfftn(y.real, axes=(0, 1, 2, 4)))


def test_freqs() -> None:
    for n, d in ((5, 0.1), (6, 2.0)):
        _close(tnp.fft.fftfreq(n, d), jnp.fft.fftfreq(n, d))
        np.testing.assert_allclose(tnp.fft.rfftfreq(n, d), jnp.fft.rfftfreq(n, d), rtol=1e-6)
        assert tnp.fft.rfftfreq(n, d).dtype == jnp.fft.rfftfreq(n, d).dtype
    _close(tnp.fft.fftfreq(4, dtype=np.float32), jnp.fft.fftfreq(4, dtype=np.float32))


def test_freqs_and_integers_x32(x64_off: None) -> None:
    _close(tnp.fft.fftfreq(5, 0.1), jnp.fft.fftfreq(5, 0.1))
    i = np.arange(6, dtype=np.int32)
    _close(tnp.fft.fft(i), jnp.fft.fft(i))


def test_integer_and_float32_operands() -> None:
    i = np.arange(6, dtype=np.int32)
    for name in ("fft", "rfft", "ifft"):
        _close(getattr(tnp.fft, name)(i), getattr(jnp.fft, name)(i))
    f = X.astype(np.float32)
    _close(tnp.fft.fft(f), jnp.fft.fft(f))
    _close(tnp.fft.irfft(f), jnp.fft.irfft(f))


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    n=st.none() | st.integers(1, 7),
    axis=st.integers(-3, 2),
    norm=st.sampled_from([None, "backward", "ortho", "forward"]),
    name=st.sampled_from(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]),
)
@ci_examples(5, deadline=None)
def test_one_dimensional_property(shape: list[int], n: int | None, axis: int, norm: str | None, name: str) -> None:
    axis = axis % len(shape)
    if name in ("irfft", "hfft") and n is None and shape[axis] == 1:
        n = 2  # the default length 2 * (1 - 1) is empty
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    if name not in ("rfft", "ihfft"):
        a = a + 1j * a[..., ::-1]
    _close(getattr(tnp.fft, name)(a, n=n, axis=axis, norm=norm), getattr(jnp.fft, name)(a, n=n, axis=axis, norm=norm))


# -- derivatives, batching, transposes, the jaxpr text ---------------------------------------
LOSSES: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], np.ndarray[Any, Any]]] = [
    ("fft", lambda v: tnp.sum(tnp.abs(tnp.fft.fft(v)) ** 2 * tnp.arange(6.0)),
     lambda v: jnp.sum(jnp.abs(jnp.fft.fft(v)) ** 2 * jnp.arange(6.0)), X),
    ("ifft2", lambda v: tnp.sum(tnp.real(tnp.fft.ifft2(v)) ** 3), lambda v: jnp.sum(jnp.real(jnp.fft.ifft2(v)) ** 3), Z),
    ("rfftn", lambda v: tnp.sum(tnp.abs(tnp.fft.rfftn(v, s=(4, 7)))), lambda v: jnp.sum(jnp.abs(jnp.fft.rfftn(v, s=(4, 7)))), X),
    ("irfft", lambda v: tnp.sum(tnp.sin(tnp.fft.irfft(v, n=7))), lambda v: jnp.sum(jnp.sin(jnp.fft.irfft(v, n=7))), Z),
    ("hfft", lambda v: tnp.sum(tnp.fft.hfft(v) ** 2), lambda v: jnp.sum(jnp.fft.hfft(v) ** 2), Z),
]


@pytest.mark.parametrize(("name", "f", "g", "a"), LOSSES, ids=[c[0] for c in LOSSES])
def test_grad_of_real_loss_against_jax(
    name: str, f: Callable[[Any], Any], g: Callable[[Any], Any], a: np.ndarray[Any, Any]
) -> None:
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    _close(tdx.grad(f)(a), ci_jit(jax.grad(g))(a))
    if name not in ("fft", "hfft"):
        return  # the JVP of the others: test_jvp_of_complex_input and the transposes
    t = np.ones_like(a) * (0.5 - 0.25j if np.iscomplexobj(a) else 0.5)
    (p, tp), (q, tq) = tdx.jvp(f, (a,), (t,)), ci_jit(lambda a, t: jax.jvp(g, (a,), (t,)))(a, t)
    _close(p, q)
    _close(tp, tq)


def test_finite_differences() -> None:
    """The gradient of a real loss of a real input, against central differences."""
    a = X[0]

    def f(v: Any) -> Any:
        return tnp.sum(tnp.abs(tnp.fft.rfft(v, n=7)) ** 2) + tnp.sum(tnp.fft.irfft(tnp.fft.fft(v), n=5) ** 2)

    grad = np.asarray(tdx.grad(f)(a))
    eps = 1e-6
    fd = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = eps
        fd[idx] = (float(f(a + e)) - float(f(a - e))) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


TYPES: list[tuple[str, tuple[int, ...], np.ndarray[Any, Any]]] = [
    ("FFT", (4, 6), Z),
    ("IFFT", (6,), Z),
    ("RFFT", (4, 6), X),
    ("RFFT", (5,), X[..., :5]),
    ("IRFFT", (4, 10), Z),
    ("IRFFT", (11,), Z),
]


@pytest.mark.parametrize(("typ", "lengths", "a"), TYPES, ids=[f"{t}-{ls}" for t, ls, _ in TYPES])
def test_transpose_against_jax_and_dot_product(typ: str, lengths: tuple[int, ...], a: np.ndarray[Any, Any]) -> None:
    y, pull = tdx.vjp(lambda v: lax.fft(v, typ, lengths), a)
    yj, pull_j = jax.vjp(lambda v: jax.lax.fft(v, typ, lengths), a)
    _close(y, yj)
    ct = RNG.standard_normal(np.shape(yj)) + (1j * RNG.standard_normal(np.shape(yj)) if np.iscomplexobj(yj) else 0)
    ct = ct.astype(np.asarray(yj).dtype)
    (got,), (want,) = pull(ct), pull_j(ct)
    _close(got, want)
    # the dot-product test in JAX's convention (transposes are bilinear-form transposes, no
    # conjugation): Re sum(ct * f(x)) = Re sum(f^T(ct) * x)
    lhs = np.sum(np.real(ct * np.asarray(y)))
    rhs = np.sum(np.real(np.asarray(got) * a))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_vmap_against_a_loop() -> None:
    for in_axis in (0, 1, 2):
        got = tdx.vmap(lambda v: tnp.fft.fft2(v, s=(3, 4)), in_axes=in_axis)(Z)
        want = np.stack([np.asarray(tnp.fft.fft2(np.take(Z, i, axis=in_axis), s=(3, 4))) for i in range(Z.shape[in_axis])])
        np.testing.assert_array_equal(np.asarray(got), want)
        zr = Z[..., :4]
        got_r = tdx.vmap(lambda v: lax.fft(v, "IRFFT", (6,)), in_axes=in_axis)(zr)
        want_r = np.stack([np.asarray(lax.fft(np.take(zr, i, axis=in_axis), "IRFFT", (6,)))
                           for i in range(zr.shape[in_axis])])
        np.testing.assert_array_equal(np.asarray(got_r), want_r)


def test_jaxpr_text_round_trips() -> None:
    def f(v: Any) -> Any:
        return tnp.fft.irfft(tnp.fft.rfft(v) * 2.0, n=6) + tnp.real(tnp.fft.ifftn(tnp.fft.fftn(v)))

    text = str(tdx.make_jaxpr(f)(X))
    assert "fft_type=" in text and "fft_lengths=" in text
    assert str(parse_jaxpr(text)) == text
    grad_text = str(tdx.make_jaxpr(tdx.grad(lambda v: tnp.sum(f(v) ** 2)))(X))
    assert str(parse_jaxpr(grad_text)) == grad_text


# -- errors, as JAX's ---------------------------------------------------------------------------
def test_lax_errors() -> None:
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(Z, "RFFT", (6,))
    with pytest.raises(ValueError, match="Unknown FFT type"):
        lax.fft(Z, "dft", (6,))
    with pytest.raises(ValueError, match="minor dimensions must be equal to fft_lengths"):
        lax.fft(Z, "FFT", (5,))
    with pytest.raises(ValueError, match="at least as many input dimensions"):
        lax.fft(Z, "FFT", (1, 3, 4, 6))
    with pytest.raises(ValueError, match="IRFFT input shape"):
        lax.fft(Z, "IRFFT", (3, 6))
    _close(lax.fft(X, "fft", ()), jax.lax.fft(X, "fft", ()))  # no axes: the operand as complex
    _close(lax.fft(X, "IFFT", (6,)), jax.lax.fft(X, "IFFT", (6,)))  # a real operand becomes complex
    _close(lax.fft(X, "IRFFT", (4, 10)), jax.lax.fft(X, "IRFFT", (4, 10)))
    with pytest.raises(TypeError, match="Unknown FFT type value"):
        lax.fft(Z, 0, (6,))  # type: ignore[arg-type]  # the error under test
    with pytest.raises(JaxprTextTypeError, match="fft_type"):
        parse_jaxpr("{ lambda a:complex64[4] . let b:complex64[4] = fft [ fft_lengths=(4,), fft_type=\"DFT\" ] a in ( b ) }")


def test_numpy_errors() -> None:
    with pytest.raises(ValueError, match="does not support multiple axes"):
        tnp.fft.fft(Z, axis=(0, 1))  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.fft.fft(Z, axis=3)
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.fft.fft(1.0)  # a scalar has no axis -1, as JAX's
    with pytest.raises(ValueError, match="Invalid norm"):
        tnp.fft.fft(Z, norm="sideways")
    with pytest.raises(ValueError, match="Shape should be positive"):
        tnp.fft.fftn(Z, s=(0, 2))
    with pytest.raises(ValueError, match="different lengths"):
        tnp.fft.fftn(Z, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="repeated axes"):
        tnp.fft.fftn(Z, axes=(1, 1))
    with pytest.raises(ValueError, match="only supports 2 axes"):
        tnp.fft.fft2(Z, axes=(0, 1, 2))
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        tnp.fft.fft([1.0, 2.0])  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="only takes an int"):
        tnp.fft.fftfreq([3])  # type: ignore[arg-type]  # the error under test


def test_irfft_odd_and_short_lengths() -> None:
    """``irfft`` with an odd ``n``, or one longer than the spectrum (zero-padded), as JAX's."""
    for n in (1, 3, 7, 12):
        _close(tnp.fft.irfft(Z, n=n), jnp.fft.irfft(Z, n=n))


def _fft_ops(text: str) -> list[str]:
    return [
        re.sub(r"%[\w#]+", "%", re.sub(r"^\s*%\S+ = ", "", line)).strip()
        for line in text.splitlines()
        if "stablehlo.fft" in line or "stablehlo.transpose" in line
    ]


@pytest.mark.pinned_jax  # JAX 0.11 lowers a multi-axis IRFFT as one op
def test_cuda_lowering_of_multi_axis_irfft_is_jaxs() -> None:
    """For CUDA (lowered on any machine), a multi-axis IRFFT is JAX's GPU
    decomposition (cuFFT's C2R assumes Hermitian symmetry on every axis): an
    IFFT of the outer axes, then a 1-D IRFFT; on the CPU one ``stablehlo.fft``."""
    z = np.ones((3, 4, 5), np.complex64)
    saved = lower._PLATFORM[0]
    lower._PLATFORM[0] = lambda: "cuda"
    try:
        got = _fft_ops(tdx.jit(lambda v: tnp.fft.irfft2(v)).lower(z).as_text())
    finally:
        lower._PLATFORM[0] = saved
    want = _fft_ops(jax.jit(lambda v: jnp.fft.irfft2(v)).trace(z).lower(lowering_platforms=("cuda",)).as_text())
    assert got == want and len(got) == 4
    cpu = _fft_ops(tdx.jit(lambda v: tnp.fft.irfft2(v)).lower(z).as_text())
    assert len(cpu) == 1 and "type = IRFFT, length = [4, 8]" in cpu[0]
