"""typedax.nn.max_pool and avg_pool against flax.linen's definitions
(flax/linen/pooling.py, written here with jax.lax as the oracle): values,
jit, gradients (ties in max pooling as JAX's), vmap against a loop, and the
errors."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax, nn
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

NDArray = np.ndarray[Any, np.dtype[Any]]
Padding = str | list[tuple[int, int]]


def flax_pool(inputs: Any, init: Any, reduce_fn: Any, window_shape: tuple[int, ...],
              strides: tuple[int, ...] | None, padding: Padding) -> Any:
    """flax.linen.pooling.pool, with any number of batch dimensions."""
    n_batch = inputs.ndim - (len(window_shape) + 1)
    strides = strides or (1,) * len(window_shape)
    single = n_batch == 0
    if single:
        inputs, n_batch = inputs[None], 1
    dims = (1,) * n_batch + window_shape + (1,)
    st_ = (1,) * n_batch + strides + (1,)
    pads = padding if isinstance(padding, str) else ((0, 0),) * n_batch + tuple(padding) + ((0, 0),)
    y = jax.lax.reduce_window(inputs, init, reduce_fn, dims, st_, pads)
    return jnp.squeeze(y, axis=0) if single else y


def flax_max_pool(x: Any, window: tuple[int, ...], strides: tuple[int, ...] | None, padding: Padding) -> Any:
    # (the initial values NumPy scalars: concrete under jax.jit too, where
    # jax.lax.reduce_window recognizes max and add by them, and differentiates)
    dtype = jnp.asarray(x).dtype
    init = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    return flax_pool(x, np.asarray(init, dtype), jax.lax.max, window, strides, padding)


def flax_avg_pool(x: Any, window: tuple[int, ...], strides: tuple[int, ...] | None, padding: Padding,
                  count_include_pad: bool) -> Any:
    """flax's avg_pool; its ``jnp.ones`` in the input's float dtype (flax's
    are float64 under x64, which would promote a float32 result)."""
    x = jnp.asarray(x)
    y = flax_pool(x, np.zeros((), x.dtype), jax.lax.add, window, strides, padding)
    if count_include_pad:
        return y / np.prod(window)
    div_shape = x.shape[:-1] + (1,)
    if len(div_shape) - 2 == len(window):
        div_shape = (1,) + div_shape[1:]
    dtype = x.dtype if x.dtype.kind == "f" else jnp.float64
    return y / flax_pool(jnp.ones(div_shape, dtype), np.zeros((), dtype), jax.lax.add, window, strides, padding)


@st.composite
def pooling_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None, Padding]:
    nw = draw(st.integers(1, 3))
    spatial = tuple(draw(st.integers(1, 4 if nw < 3 else 3)) for _ in range(nw))
    n_batch = draw(st.integers(0, 2))
    features: int = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(1, 2)) for _ in range(n_batch)) + spatial + (features,)
    kind = draw(st.sampled_from(["VALID", "SAME", "pairs"]))
    strides = None if draw(st.booleans()) else tuple(draw(st.integers(1, 2)) for _ in range(nw))
    pads: Padding
    if kind == "pairs":
        pairs = [(draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in range(nw)]
        pads = pairs
        sizes = [n + lo + hi for n, (lo, hi) in zip(spatial, pairs)]
    else:
        pads = kind
        sizes = list(spatial)
    window = tuple(draw(st.integers(1, max(1, s))) for s in sizes)
    return shape, window, strides, pads


def arrays(shape: tuple[int, ...], dtype: str) -> st.SearchStrategy[NDArray]:
    """Values from a small set: max windows tie, sums are exact."""
    n = int(np.prod(shape))
    return st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n).map(
        lambda v: np.asarray(v, dtype).reshape(shape))


def _jax_strides(strides: tuple[int, ...] | None, window: tuple[int, ...], padding: Padding) -> tuple[int, ...] | None:
    # jax.lax.reduce_window resolves 'SAME' only with explicit strides
    return strides if strides is not None or padding != "SAME" else (1,) * len(window)


# ci: 6 examples (each example compiles with XLA or runs JAX); make test-long runs 25
@ci_examples(6, otherwise=25, deadline=None)
@given(pooling_cases(), st.sampled_from(["float32", "float64", "int32"]), st.booleans(), st.data())
def test_pooling_matches_flax_and_jit(case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None, Padding],
                                      dtype: str, include_pad: bool, data: st.DataObject) -> None:
    shape, window, strides, pads = case
    x = data.draw(arrays(shape, dtype))
    js = _jax_strides(strides, window, pads)
    got = np.asarray(nn.max_pool(x, window, strides, pads))
    # (JAX's side jitted: one compilation, where its eager dispatch compiles each operation)
    want = np.asarray(jax.jit(lambda v: flax_max_pool(v, window, js, pads))(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda v: nn.max_pool(v, window, strides, pads))(x)), want)
    got_avg = np.asarray(nn.avg_pool(x, window, strides, pads, include_pad))
    want_avg = np.asarray(jax.jit(lambda v: flax_avg_pool(v, window, js, pads, include_pad))(x))
    assert got_avg.dtype == want_avg.dtype
    tol = 1e-6 if got_avg.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got_avg, want_avg, rtol=tol)
    jit_avg = tdx.jit(lambda v: nn.avg_pool(v, window, strides, pads, include_pad))(x)
    np.testing.assert_allclose(np.asarray(jit_avg), want_avg, rtol=tol)


# ci: 4 examples (each example compiles with XLA or runs JAX); make test-long runs 15
@ci_examples(4, otherwise=15, deadline=None)
@given(pooling_cases(), st.booleans(), st.data())
def test_pooling_gradients_match_jax(case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None, Padding],
                                     include_pad: bool, data: st.DataObject) -> None:
    """Values from a small set, so max windows tie: the gradient goes to the
    first maximal element of each window, as JAX's."""
    shape, window, strides, pads = case
    x = data.draw(arrays(shape, "float64"))
    js = _jax_strides(strides, window, pads)
    out_shape = jax.eval_shape(lambda v: flax_max_pool(v, window, js, pads), x).shape
    w = np.arange(1.0, 1.0 + np.prod(out_shape)).reshape(out_shape)

    def f(v: Any) -> Any:
        return tnp_sum(lax.mul(nn.max_pool(v, window, strides, pads), w)) + tnp_sum(
            lax.mul(nn.avg_pool(v, window, strides, pads, include_pad), w))

    def jf(v: Any) -> Any:
        return jnp.sum(flax_max_pool(v, window, js, pads) * w) + jnp.sum(
            flax_avg_pool(v, window, js, pads, include_pad) * w)

    want = np.asarray(jax.jit(jax.grad(jf))(x))  # one compilation, not one per operation
    np.testing.assert_allclose(np.asarray(tdx.grad(f)(x)), want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.grad(f))(x)), want, rtol=1e-13, atol=1e-13)


def tnp_sum(x: Any) -> Any:
    return tdx.numpy.sum(x)


def test_avg_pool_gradient_against_finite_differences() -> None:
    x = np.random.default_rng(0).normal(size=(2, 5, 4, 3))

    def f(v: Any) -> Any:
        y = nn.avg_pool(v, (2, 3), (2, 1), "SAME", count_include_pad=False)
        return tnp_sum(lax.mul(y, y))

    g = np.asarray(tdx.grad(f)(x))
    rng = np.random.default_rng(1)
    for _ in range(10):
        e = rng.normal(size=x.shape) * 1e-6
        fd = float(np.asarray(f(x + e))) - float(np.asarray(f(x - e)))
        assert abs(fd - 2 * float(np.sum(g * e))) < 1e-9


def test_vmap_of_pooling_matches_a_loop() -> None:
    xs = np.random.default_rng(2).integers(0, 3, size=(3, 2, 4, 4, 2)).astype(np.float64)

    def f(v: Any) -> Any:
        return tdx.grad(lambda u: tnp_sum(nn.max_pool(u, (2, 2), (1, 2), "SAME")))(v) + nn.avg_pool(
            v, (3, 3), None, "SAME", count_include_pad=False)

    for axis in (0, 2):
        batch = np.moveaxis(xs, 0, axis)
        got = np.asarray(tdx.vmap(f, in_axes=axis)(batch))
        loop = np.stack([np.asarray(f(xs[i])) for i in range(3)])
        np.testing.assert_array_equal(got, loop)


def test_a_single_example_without_a_batch_dimension() -> None:
    x = np.arange(24.0).reshape(4, 3, 2)
    np.testing.assert_array_equal(np.asarray(nn.max_pool(x, (2, 2))), np.asarray(nn.max_pool(x[None], (2, 2)))[0])
    assert np.asarray(nn.avg_pool(x, (2, 2), (2, 1), "SAME")).shape == (2, 3, 2)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: nn.max_pool(np.ones((2, 4, 4, 1)), (2, 2), (1,)), r"max_pool: strides \(1,\) must have one entry per window dimension \(2, 2\)"),
    (lambda: nn.avg_pool(np.ones((4, 4)), (2, 2)), r"avg_pool: inputs of shape \(4, 4\) need the 2 window dimensions"),
    (lambda: nn.max_pool(np.ones((1, 4, 4, 1)), (2, 2), None, [(1, 1)]), r"max_pool: padding \[\(1, 1\)\] must be one \(low, high\) pair per window dimension"),
    (lambda: nn.max_pool(np.ones((1, 4, 4, 1)), (5, 2)), r"window \(1, 5, 2, 1\) .* is larger than the padded operand \(1, 4, 4, 1\)"),
    (lambda: nn.avg_pool(np.ones((1, 4, 4, 1)), (0, 2)), r"window_dimensions must be positive"),
])
def test_bad_pooling_arguments_are_refused(call: Any, message: str) -> None:
    with pytest.raises(PrimitiveTypeError, match=message):
        call()
