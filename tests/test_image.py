"""typedax.image against jax.image (issue 29 item 7): resize with every
method (antialiased or not, up and down), scale_and_translate, under jit and
grad, and JAX's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import typedax as tdx
import typedax.image as ti

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 7, 2)).astype(np.float32)
SCALE = np.array([1.7, 0.6], np.float32)
SHIFT = np.array([0.3, -0.5], np.float32)
METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "area", "cubic-pytorch"]


@pytest.mark.parametrize("method", METHODS)
def test_resize_matches_jax(method: str) -> None:
    for shape in [(9, 4, 2)]:  # up along one axis, down along another
        for antialias in ((True, False) if method != "nearest" else (True,)):
            want = np.asarray(jax.image.resize(X, shape, method, antialias=antialias))
            got = np.asarray(ti.resize(X, shape, method, antialias=antialias))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_resize_method_enum_and_integer_images() -> None:
    want = np.asarray(jax.image.resize(X, (8, 8, 2), jax.image.ResizeMethod.LANCZOS3))
    got = np.asarray(ti.resize(X, (8, 8, 2), ti.ResizeMethod.LANCZOS3))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert ti.ResizeMethod.from_string("bicubic") is ti.ResizeMethod.CUBIC
    assert ti.ResizeMethod.from_string("bilinear") is ti.ResizeMethod.LINEAR
    xi = RNG.integers(0, 10, (4, 4)).astype(np.int32)
    near = ti.resize(xi, (6, 3), "nearest")  # nearest keeps the dtype; the others are inexact
    assert near.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(near), np.asarray(jax.image.resize(xi, (6, 3), "nearest")))
    lin = ti.resize(xi, (6, 6), "linear")
    assert np.issubdtype(lin.dtype, np.floating)  # JAX's float32 with x64 off, float64 with it on
    np.testing.assert_allclose(np.asarray(lin), np.asarray(jax.image.resize(xi, (6, 6), "linear")), rtol=1e-5)


@pytest.mark.parametrize("method", ["linear", "area", "cubic-pytorch"])  # plain, area, edge padding
def test_scale_and_translate_matches_jax(method: str) -> None:
    for antialias in ((True, False) if method == "cubic-pytorch" else (True,)):
        want = np.asarray(jax.jit(  # JAX's eager dispatch compiles every operation: jit is cheaper
            lambda s, t: jax.image.scale_and_translate(X, (6, 5, 2), (0, 1), s, t, method, antialias=antialias)
        )(SCALE, SHIFT))
        got = np.asarray(ti.scale_and_translate(X, (6, 5, 2), (0, 1), SCALE, SHIFT, method, antialias=antialias))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_jit_and_grad_match_jax() -> None:
    # at 'highest' matmul precision in both: on a GPU the default is TF32, whose
    # rounding depends on the order of the contraction
    with tdx.default_matmul_precision("highest"), jax.default_matmul_precision("highest"):
        got = tdx.jit(lambda im: ti.resize(im, (9, 4, 2), "cubic"))(X)
        want0 = jax.image.resize(X, (9, 4, 2), "cubic")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want0), rtol=1e-5, atol=1e-5)

    def ours(s: tdx.ArrayLike) -> tdx.Array:
        return ti.scale_and_translate(X, (6, 5, 2), (0, 1), s, SHIFT, "linear").sum()

    want = jax.jit(jax.grad(lambda s: jax.image.scale_and_translate(X, (6, 5, 2), (0, 1), s, SHIFT, "linear").sum()))(SCALE)
    np.testing.assert_allclose(np.asarray(tdx.grad(ours)(SCALE)), np.asarray(want), rtol=1e-4)
    # the image's gradient: the transposed weights, as JAX's
    want_x = jax.jit(jax.grad(lambda im: (jax.image.resize(im, (3, 11, 2), "linear") ** 2).sum()))(X)
    got_x = tdx.grad(lambda im: (ti.resize(im, (3, 11, 2), "linear") ** 2).sum())(X)
    np.testing.assert_allclose(np.asarray(got_x), np.asarray(want_x), rtol=1e-4, atol=1e-5)


def test_errors_match_jax() -> None:
    cases: list[tuple[Callable[[Any], object], str]] = [
        (lambda m: m.resize(X, (3, 3), "linear"), "shape must have length"),
        (lambda m: m.resize(X, (3, 3, 2), "foo"), 'Unknown resize method "foo"'),
        (lambda m: m.scale_and_translate(X, (3, 3, 2), (0, 1), SCALE, SHIFT, "nearest"), "Nearest neighbor"),
    ]
    for call, words in cases:
        with pytest.raises(ValueError, match=words):
            call(jax.image)
        with pytest.raises(ValueError, match=words):
            call(ti)
    with pytest.raises(ValueError, match="one entry per spatial dimension"):
        ti.scale_and_translate(X, (3, 3, 2), (0, 1), SCALE[:1], SHIFT, "linear")
