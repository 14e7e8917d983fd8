"""typedax.nn against jax.nn: values and dtypes on random float32/float64
inputs (eager and under jit), gradients against jax.grad (relu and relu6 at
their kinks, softmax and log_softmax without stop_gradient), one_hot's
options and errors."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.nn as jnn
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.nn as nn
import typedax.numpy as tnp
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

ELEMENTWISE = [
    "relu", "relu6", "sigmoid", "log_sigmoid", "softplus", "silu", "swish", "gelu", "elu", "celu",
    "selu", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish",
]
ALONG_AXIS = ["softmax", "log_softmax", "logsumexp", "standardize"]


def close(got: object, want: object) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    rtol = 1e-5 if g.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def inputs(dtype: str) -> st.SearchStrategy[np.ndarray]:
    if dtype == "float32":
        elements = st.floats(-20.0, 20.0, width=32, allow_subnormal=False)
    else:
        elements = st.floats(-20.0, 20.0, allow_subnormal=False)
    kinks = st.sampled_from([0.0, -0.0, 6.0, 1.0, -1.0, -3.0, 3.0])
    return hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4), elements=st.one_of(elements, kinks))


# JAX's oracles jitted once per function: compiled once per shape and dtype
# across the examples, where JAX's eager dispatch (and eager grad) compiles
# each of their operations
@functools.cache
def jax_fn(name: str) -> Callable[..., Any]:
    fn: Callable[..., Any] = jax.jit(getattr(jnn, name))
    return fn


@functools.cache
def jax_grad(name: str) -> Callable[..., Any]:
    """The gradient of ``sum(f(v) * w)``."""
    f = getattr(jnn, name)
    fn: Callable[..., Any] = jax.jit(jax.grad(lambda v, w: jnp.sum(f(v) * w)))
    return fn


# ci: 10 examples (each example compiles with XLA or runs JAX); make test-long runs 40
@ci_examples(10, otherwise=40, deadline=None)
@given(st.sampled_from(ELEMENTWISE + ALONG_AXIS), st.sampled_from(["float32", "float64"]), st.data())
def test_values_match_jax_nn(name: str, dtype: str, data: st.DataObject) -> None:
    x = data.draw(inputs(dtype))
    f: Callable[[np.ndarray], tdx.Array] = getattr(nn, name)
    want = jax_fn(name)(x)
    close(f(x), want)
    close(tdx.jit(f)(x), want)


@ci_examples(15, otherwise=30, deadline=None)
@given(st.sampled_from(ELEMENTWISE + ALONG_AXIS), st.data())
def test_gradients_match_jax_nn(name: str, data: st.DataObject) -> None:
    """Kinks included: relu'(0) = 0, relu6'(0) = relu6'(6) = 0, as JAX."""
    x = data.draw(inputs("float64"))
    w = np.linspace(-1.0, 2.0, x.size).reshape(x.shape)  # a weighting, so softmax's gradient is not 0
    got = tdx.grad(lambda v: tnp.sum(getattr(nn, name)(v) * w))(x)
    want = jax_grad(name)(x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-9)


def test_options_match_jax_nn() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4)) * 3
    close(nn.gelu(x, approximate=False), jnn.gelu(x, approximate=False))
    close(nn.elu(x, 0.5), jnn.elu(x, 0.5))
    close(nn.celu(x, 2.0), jnn.celu(x, 2.0))
    close(nn.leaky_relu(x, 0.2), jnn.leaky_relu(x, 0.2))
    for axis in (0, 1, -1, (0, 1), None):
        close(nn.softmax(x, axis=axis), jnn.softmax(x, axis=axis))
        close(nn.log_softmax(x, axis=axis), jnn.log_softmax(x, axis=axis))
        close(nn.standardize(x, axis=axis), jnn.standardize(x, axis=axis))
    close(nn.standardize(x, mean=0.5, variance=2.0), jnn.standardize(x, mean=0.5, variance=2.0))
    for v in (np.array([np.nan, -np.inf, np.inf, -0.0]),):
        for name in ("relu", "relu6", "softplus", "hard_tanh", "elu", "log_sigmoid"):
            np.testing.assert_array_equal(np.asarray(getattr(nn, name)(v)), np.asarray(getattr(jnn, name)(v)), err_msg=name)
    close(nn.relu(np.array([-2, 0, 3], np.int32)), jnn.relu(np.array([-2, 0, 3], np.int32)))
    with pytest.raises(PrimitiveTypeError, match="logistic accepts float16/bfloat16/float32/float64/complex64/complex128 operands, got int32"):
        nn.sigmoid(np.array([1, 2], np.int32))  # jax.nn.sigmoid refuses integers too


def test_one_hot() -> None:
    idx = np.array([[0, 2], [1, 5]], np.int32)
    for kwargs in ({}, {"axis": 0}, {"axis": 1}, {"dtype": np.int32}, {"dtype": np.float32, "axis": -2}):
        got, want = nn.one_hot(idx, 3, **kwargs), jnn.one_hot(idx, 3, **kwargs)
        g, w = np.asarray(got), np.asarray(want)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda i: nn.one_hot(i, 4))(idx)), np.asarray(jnn.one_hot(idx, 4)))
    with pytest.raises(PrimitiveTypeError, match="num_classes must be an int"):
        nn.one_hot(idx, 2.0)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="axis 3 is out of bounds for a result of rank 3"):
        nn.one_hot(idx, 2, axis=3)
