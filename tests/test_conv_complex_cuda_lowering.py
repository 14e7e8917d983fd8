"""Complex convolutions lowered for CUDA (on any machine): XLA's GPU backend
refuses complex convolutions, so typedax lowers them there as JAX does
(``expand_complex_convolutions``): three real convolutions combined by the
product trick. The kernel calls equal JAX's lowering for CUDA, and the
expanded program, run on the CPU, computes the complex convolution."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jax
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.lowering import lower

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def _lowering_for(platform: str) -> Iterator[None]:
    """typedax lowers for ``platform`` (whatever the runtime's)."""
    saved = lower._PLATFORM[0]
    lower._PLATFORM[0] = lambda: platform
    try:
        yield
    finally:
        lower._PLATFORM[0] = saved


@pytest.fixture
def cuda_lowering() -> Iterator[None]:
    yield from _lowering_for("cuda")


@pytest.fixture
def cpu_lowering() -> Iterator[None]:
    yield from _lowering_for("cpu")


def _ops(text: str) -> list[str]:
    """The convolutions and complex parts of a module, in order, as
    ``op: result type``."""
    out = []
    for line in text.splitlines():
        m = re.search(r"stablehlo\.(convolution|real|imag|complex)\b.*-> (tensor<[^>]*>)", line)
        if m is None:
            m = re.search(r"stablehlo\.(real|imag|complex) .*: \(?.*?(tensor<[^>]*>)\s*$", line)
        if m is not None:
            out.append(f"{m.group(1)}: {m.group(2)}")
    return out


def _operands(dtype: type) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    x: Any = (rng.standard_normal((2, 3, 9)) + 1j * rng.standard_normal((2, 3, 9))).astype(dtype)
    w: Any = (rng.standard_normal((4, 3, 3)) + 1j * rng.standard_normal((4, 3, 3))).astype(dtype)
    return x, w


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_convolution_for_cuda_is_jaxs_three_real_ones(cuda_lowering: None, dtype: type) -> None:
    x, w = _operands(dtype)
    ours = tdx.jit(lambda a, b: lax.conv(a, b, (1,), "SAME")).lower(x, w).as_text()
    theirs = jax.jit(lambda a, b: jax.lax.conv(a, b, (1,), "SAME")).trace(x, w).lower(
        lowering_platforms=("cuda",)).as_text()
    convs = [op for op in _ops(ours) if op.startswith("convolution")]
    assert len(convs) == 3 and all("complex" not in op for op in convs)
    assert convs == [op for op in _ops(theirs) if op.startswith("convolution")]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_expanded_complex_convolution_computes_the_convolution(cuda_lowering: None, dtype: type) -> None:
    # the expanded module is plain real StableHLO: compiled for the CPU it
    # computes what the complex convolution does
    x, w = _operands(dtype)
    got = np.asarray(tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, (2,), [(1, 2)], rhs_dilation=(2,)))(
        tnp.asarray(x), tnp.asarray(w)))
    want = np.asarray(jax.lax.conv_general_dilated(x, w, (2,), [(1, 2)], rhs_dilation=(2,)))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.complex64 else 1e-12, atol=1e-5)


def test_cpu_lowering_keeps_one_complex_convolution(cpu_lowering: None) -> None:
    x, w = _operands(np.complex64)
    text = tdx.jit(lambda a, b: lax.conv(a, b, (1,), "VALID")).lower(x, w).as_text()
    assert text.count("stablehlo.convolution") == 1
