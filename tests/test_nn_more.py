"""The rest of typedax.nn against jax.nn: the activations added after the
first set (glu, mish, soft_sign, squareplus, sparse_plus, sparse_sigmoid,
log1mexp, logmeanexp, identity, tanh) and dot_product_attention (its XLA
implementation: grouped heads, bias, mask, causal, local windows, padding
lengths, the residual), eager and under jit, vmap against a loop, gradients
against jax.grad; every error path."""

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

from _examples import ci_every, ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

ELEMENTWISE = ["tanh", "identity", "soft_sign", "squareplus", "sparse_plus", "sparse_sigmoid", "mish", "log1mexp"]
ALONG_AXIS = ["glu", "logmeanexp"]


def close(got: object, want: object, rtol32: float = 1e-5, rtol64: float = 1e-12) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    rtol = rtol32 if g.dtype == np.float32 else rtol64
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def inputs(dtype: str, lo: float = -20.0, hi: float = 20.0) -> st.SearchStrategy[np.ndarray]:
    elements = st.floats(lo, hi, width=32 if dtype == "float32" else 64, allow_subnormal=False)
    kinks = st.sampled_from([v for v in (0.0, -1.0, 1.0, 0.5, float(np.log(2.0))) if lo <= v <= hi])
    shape = hnp.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=4).map(
        lambda s: s[:-1] + (2 * s[-1],))  # an even last axis, for glu
    return hnp.arrays(dtype, shape, elements=st.one_of(elements, kinks))


def domain(name: str) -> tuple[float, float]:
    return (0.0625, 20.0) if name == "log1mexp" else (-20.0, 20.0)


# JAX's oracles jitted once per function: compiled once per shape and dtype
# across the examples, where JAX's eager dispatch (and eager grad) compiles
# each of their operations
@functools.cache
def jax_fn(name: str) -> Callable[..., Any]:
    fn: Callable[..., Any] = jax.jit(getattr(jnn, name))
    return fn


@functools.cache
def jax_grad(name: str) -> Callable[..., Any]:
    """The gradient of ``sum(f(v) * cut(w, f(v).shape))``."""
    f = getattr(jnn, name)
    fn: Callable[..., Any] = jax.jit(jax.grad(lambda v, w: jnp.sum(f(v) * cut(w, f(v).shape))))
    return fn


def cut(w: Any, shape: tuple[int, ...]) -> Any:
    """The weights ``w`` (of the input's shape) for an output of ``shape``: cut
    to its last axis (glu halves it), or the first weight for a rank-0 output
    (logmeanexp over every axis)."""
    return w[..., : shape[-1]] if shape else w.reshape(-1)[0]


@ci_examples(20, otherwise=40, deadline=None)
@given(st.sampled_from(ELEMENTWISE + ALONG_AXIS), st.sampled_from(["float32", "float64"]), st.data())
def test_values_match_jax_nn(name: str, dtype: str, data: st.DataObject) -> None:
    x = data.draw(inputs(dtype, *domain(name)))
    f: Callable[[np.ndarray], tdx.Array] = getattr(nn, name)
    want = jax_fn(name)(x)
    close(f(x), want)
    close(tdx.jit(f)(x), want)


# ci: 7 examples (each example compiles with XLA or runs JAX); make test-long runs 30
@ci_examples(7, otherwise=30, deadline=None)
@given(st.sampled_from(ELEMENTWISE + ALONG_AXIS), st.data())
def test_gradients_match_jax_nn(name: str, data: st.DataObject) -> None:
    x = data.draw(inputs("float64", *domain(name)))
    w = np.linspace(-1.0, 2.0, x.size).reshape(x.shape)
    f: Callable[[tdx.Array], tdx.Array] = getattr(nn, name)
    got = tdx.grad(lambda v: tnp.sum(tnp.multiply(f(v), cut(w, f(v).shape))))(x)
    want = jax_grad(name)(x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-9)


def test_vmap_matches_a_loop() -> None:
    x = np.random.default_rng(1).normal(size=(3, 2, 4)) * 3
    for name in ("glu", "logmeanexp", "mish", "squareplus"):
        f: Callable[[tdx.ArrayLike], tdx.Array] = getattr(nn, name)
        got = np.asarray(tdx.vmap(f)(x))
        np.testing.assert_allclose(got, np.stack([np.asarray(f(r)) for r in x]), rtol=1e-13, err_msg=name)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # eager NumPy warns on log(0) and inf - inf
def test_options_and_edges_match_jax_nn() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 6)) * 3
    close(nn.squareplus(x, 0.5), jnn.squareplus(x, 0.5))
    for gaxis in (0, 1, -2):
        close(nn.glu(x, gaxis), jnn.glu(x, gaxis))
    where = x > 0
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            close(nn.logmeanexp(x, axis=axis, keepdims=keepdims), jnn.logmeanexp(x, axis=axis, keepdims=keepdims))
            close(nn.logmeanexp(x, axis=axis, keepdims=keepdims, where=where),
                  jnn.logmeanexp(x, axis=axis, keepdims=keepdims, where=where))
    # an all-false row: log(0 / 0), NaN, as JAX
    w2 = np.zeros((4, 6), bool)
    w2[1:] = True
    np.testing.assert_array_equal(np.asarray(nn.logmeanexp(x, axis=1, where=w2)), np.asarray(jnn.logmeanexp(x, axis=1, where=w2)))
    edges = np.array([0.0, np.inf, 1e-30, 40.0, 800.0, np.log(2.0)])
    np.testing.assert_array_equal(np.asarray(nn.log1mexp(edges)), np.asarray(jnn.log1mexp(edges)))
    close(nn.soft_sign(np.array([1, -3], np.int32)), jnn.soft_sign(np.array([1, -3], np.int32)))
    close(nn.sparse_plus(np.array([-1.0, 1.0, 0.0], np.float32)), jnn.sparse_plus(np.array([-1.0, 1.0, 0.0], np.float32)))


def test_glu_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="glu: axis size must be divisible by 2, got 3"):
        nn.glu(np.ones((2, 3)))
    with pytest.raises(PrimitiveTypeError, match="glu: axis 2 is out of bounds for an operand of rank 2"):
        nn.glu(np.ones((2, 4)), axis=2)


# -- dot_product_attention ---------------------------------------------------------------
def _qkv(rng: np.random.Generator, dtype: type, b: int = 2, t: int = 5, s: int = 6, n: int = 4, k: int = 2,
         h: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (rng.normal(size=(b, t, n, h)).astype(dtype), rng.normal(size=(b, s, k, h)).astype(dtype),
            rng.normal(size=(b, s, k, h)).astype(dtype))


ATTENTION_OPTIONS: list[dict[str, object]] = [
    {}, {"is_causal": True}, {"local_window_size": (1, 2)}, {"local_window_size": 1, "is_causal": True},
    {"scale": 0.3}, {"query_seq_lengths": np.array([3, 5], np.int32)},
    {"key_value_seq_lengths": np.array([6, 2], np.int32)},
    {"query_seq_lengths": np.array([2, 4], np.int32), "key_value_seq_lengths": np.array([1, 6], np.int32),
     "is_causal": True},
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dot_product_attention_matches_jax(dtype: type) -> None:
    """The softmax is computed in float32 for every dtype (as JAX), so float64
    agrees to float32's rounding."""
    rng = np.random.default_rng(2)
    q, k, v = _qkv(rng, dtype)
    bias: np.ndarray = rng.normal(size=(1, 4, 5, 6)).astype(dtype)
    mask = rng.random((2, 1, 5, 6)) > 0.3
    full_mask = rng.random((2, 4, 5, 6)) > 0.3
    options = ATTENTION_OPTIONS + [{"bias": bias}, {"mask": mask}, {"bias": bias[0, 0], "mask": full_mask}]
    # ci: half of the options in float32, the other half in float64 (JAX compiles each); make
    # test-long runs every option in both
    for kw in ci_every(options, 2, int(dtype == np.float64)):
        for residual in (False, True):
            got = nn.dot_product_attention(q, k, v, return_residual=residual, **kw)
            want = jnn.dot_product_attention(q, k, v, return_residual=residual, **kw)
            for g, w in zip(got if residual else (got,), want if residual else (want,)):
                close(g, w, rtol32=2e-6, rtol64=1e-6)
    f = tdx.jit(lambda a, b, c: nn.dot_product_attention(a, b, c, bias=bias, is_causal=True))
    close(f(q, k, v), jnn.dot_product_attention(q, k, v, bias=bias, is_causal=True), rtol32=2e-6, rtol64=1e-6)
    # unbatched (T, N, H) operands
    close(nn.dot_product_attention(q[0], k[0], v[0]), jnn.dot_product_attention(q[0], k[0], v[0]),
          rtol32=2e-6, rtol64=1e-6)


def test_dot_product_attention_gradients_and_vmap() -> None:
    rng = np.random.default_rng(3)
    q, k, v = _qkv(rng, np.float32)
    bias = rng.normal(size=(2, 4, 5, 6)).astype(np.float32)

    def loss(mod: object, sum_: Callable[[object], object]) -> Callable[..., object]:
        def f(a: object, b: object, c: object, d: object) -> object:
            out = mod.dot_product_attention(a, b, c, bias=d, is_causal=True)  # type: ignore[attr-defined]  # nn or jax.nn
            return sum_(out * out)
        return f

    got = tdx.grad(loss(nn, tnp.sum), argnums=(0, 1, 2, 3))(q, k, v, bias)  # type: ignore[arg-type]  # a generic loss
    want = jax.jit(jax.grad(loss(jnn, jnp.sum), argnums=(0, 1, 2, 3)))(q, k, v, bias)  # type: ignore[arg-type]  # a generic loss
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=2e-5)
    # vmap over a leading axis of 3-d (T, N, H) operands equals the batched call
    batched = np.asarray(tdx.vmap(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True))(q, k, v))
    np.testing.assert_allclose(batched, np.asarray(nn.dot_product_attention(q, k, v, is_causal=True)), rtol=1e-6)


def test_dot_product_attention_errors() -> None:
    rng = np.random.default_rng(4)
    q, k, v = _qkv(rng, np.float32)
    with pytest.raises(PrimitiveTypeError, match="implementation='cudnn' is not available"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(PrimitiveTypeError, match="Unsupported implementation option: triton"):
        nn.dot_product_attention(q, k, v, implementation="triton")  # type: ignore[call-overload]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="value dtype should be float32, but got float64"):
        nn.dot_product_attention(q, k, v.astype(np.float64))
    with pytest.raises(PrimitiveTypeError, match=r"query shape should be \[2, -1, -1, 3\]"):
        nn.dot_product_attention(q[..., :2], k, v)
    with pytest.raises(PrimitiveTypeError, match="mask dtype should be bool"):
        nn.dot_product_attention(q, k, v, mask=np.ones((2, 4, 5, 6), np.float32))
    with pytest.raises(PrimitiveTypeError, match="query_seq_lengths dtype should be int32"):
        nn.dot_product_attention(q, k, v, query_seq_lengths=np.array([1, 2], np.int64))
    with pytest.raises(PrimitiveTypeError, match="number of query heads must be a multiple of key/value heads, but got 3 vs 2"):
        nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(PrimitiveTypeError, match="must have 1 or 4 heads"):
        nn.dot_product_attention(q, k, v, bias=np.ones((2, 2, 5, 6), np.float32))
    with pytest.raises(PrimitiveTypeError, match="bias ndim should be 4, but got 5"):
        nn.dot_product_attention(q, k, v, bias=np.ones((1, 2, 4, 5, 6), np.float32))
