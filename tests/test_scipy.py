"""typedax.scipy.special and typedax.scipy.stats.norm against jax.scipy:
values and dtypes on random float32/float64 inputs (eager and under jit),
gradients against jax.grad (logsumexp without stop_gradient, xlogy/xlog1py at
x == 0), logsumexp's options (axis, keepdims, b with negative and zero
weights, return_sign, infinite entries)."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import jax.scipy.stats.norm as jnorm
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.special as ss
from typedax.scipy.stats import norm

from _examples import PROFILE, ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

# name -> the domain (bounds) of random inputs
UNARY: dict[str, tuple[float, float]] = {
    "erf": (-4.0, 4.0), "erfc": (-4.0, 4.0), "erfinv": (-0.99, 0.99), "gammaln": (0.05, 20.0),
    "digamma": (0.05, 20.0), "expit": (-30.0, 30.0), "logit": (0.01, 0.99),
}


def close(got: object, want: object, rtol32: float = 1e-5, rtol64: float = 1e-12) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    rtol = rtol32 if g.dtype == np.float32 else rtol64
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def arrays(dtype: str, lo: float, hi: float, shape: tuple[int, ...] | None = None) -> st.SearchStrategy[np.ndarray]:
    if dtype == "float32":
        elements = st.floats(float(np.float32(lo)), float(np.float32(hi)), width=32, allow_subnormal=False)
    else:
        elements = st.floats(lo, hi, allow_subnormal=False)
    return hnp.arrays(dtype, shape if shape is not None else hnp.array_shapes(max_dims=2, max_side=4), elements=elements)


# ci: 7 examples (each example compiles with XLA or runs JAX); make test-long runs 30
@ci_examples(7, otherwise=30, deadline=None)
@given(st.sampled_from(sorted(UNARY)), st.sampled_from(["float32", "float64"]), st.data())
def test_special_functions_match_jax(name: str, dtype: str, data: st.DataObject) -> None:
    x = data.draw(arrays(dtype, *UNARY[name]))
    f: Callable[[np.ndarray], tdx.Array] = getattr(ss, name)
    want = getattr(jss, name)(x)
    close(f(x), want)
    close(tdx.jit(f)(x), want)
    if dtype == "float64":
        got_g = tdx.grad(lambda v: tnp.sum(f(v)))(x)
        want_g = jax.grad(lambda v: jnp.sum(getattr(jss, name)(v)))(x)
        close(got_g, want_g, rtol64=1e-10)


def test_integer_operands_become_floats_as_in_jax() -> None:
    x = np.array([1, 2, 3], np.int32)
    for name in ("erf", "gammaln", "expit", "digamma"):
        close(getattr(ss, name)(x), getattr(jss, name)(x))


# ci: 4 examples (each example compiles with XLA or runs JAX); make test-long runs 15
@ci_examples(4, otherwise=15, deadline=None)
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_xlogy_and_xlog1py_match_jax(dtype: str, data: st.DataObject) -> None:
    shape = data.draw(hnp.array_shapes(max_dims=2, max_side=4))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0])))
    y = data.draw(arrays(dtype, 0.0, 5.0, shape))
    for name in ("xlogy", "xlog1py"):
        close(getattr(ss, name)(x, y), getattr(jss, name)(x, y))
        if dtype == "float64":
            y1 = y + 0.5  # the derivative in y is x / y: away from y == 0
            def f(a: tdx.ArrayLike, b: tdx.ArrayLike) -> tdx.Array:
                return tnp.sum(getattr(ss, name)(a, b))

            g = tdx.grad(f, argnums=(0, 1))(x, y1)
            j = jax.grad(lambda a, b: jnp.sum(getattr(jss, name)(a, b)), argnums=(0, 1))(x, y1)
            close(g[0], j[0])
            close(g[1], j[1])


def test_xlogy_at_zero() -> None:
    x = np.array([0.0, 0.0, 0.0, 2.0, 0.0])
    y = np.array([0.0, np.inf, np.nan, 0.0, 3.0])
    for name in ("xlogy", "xlog1py"):
        yy = y - 1.0 if name == "xlog1py" else y
        got, want = np.asarray(getattr(ss, name)(x, yy)), np.asarray(getattr(jss, name)(x, yy))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # d/dx xlogy(x, y) at x == 0 is log(y), and no NaN reaches the gradient where y == 0
    g = tdx.grad(lambda a: tnp.sum(ss.xlogy(a, np.array([3.0, 0.0]))))(np.array([0.0, 0.0]))
    assert np.asarray(g)[0] == np.log(3.0) and not np.isnan(np.asarray(g)).any()


# ci: 4 examples (each example compiles with XLA or runs JAX); make test-long runs 15
@ci_examples(4, otherwise=15, deadline=None)
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_logsumexp_matches_jax(dtype: str, data: st.DataObject) -> None:
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    a = data.draw(hnp.arrays(dtype, shape, elements=st.one_of(
        st.floats(-50, 50, width=32 if dtype == "float32" else 64, allow_subnormal=False),
        st.sampled_from([-np.inf, 0.0]))))
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                               st.lists(st.integers(0, ndim - 1), unique=True).map(tuple)))
    keepdims = data.draw(st.booleans())
    use_b = data.draw(st.booleans())
    b = data.draw(arrays(dtype, -2.0, 2.0, shape)) if use_b else None
    want = jss.logsumexp(a, axis=axis, b=b, keepdims=keepdims)
    close(ss.logsumexp(a, axis=axis, b=b, keepdims=keepdims), want)
    out, sign = ss.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
    jout, jsign = jss.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
    close(out, jout)
    np.testing.assert_array_equal(np.asarray(sign), np.asarray(jsign))
    if dtype == "float64" and np.isfinite(a).all():
        bb = None if b is None else np.abs(b) + 0.1
        got_g = tdx.grad(lambda v: tnp.sum(ss.logsumexp(v, axis=axis, b=bb)))(a)
        want_g = jax.grad(lambda v: jnp.sum(jss.logsumexp(v, axis=axis, b=bb)))(a)
        close(got_g, want_g, rtol64=1e-10)


def test_logsumexp_of_infinities() -> None:
    a = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.inf, -np.inf], [np.nan, 0.0]])
    for kw in ({"axis": 1}, {"axis": 1, "b": np.array([1.0, -1.0])}):
        got, want = np.asarray(ss.logsumexp(a, **kw)), np.asarray(jss.logsumexp(a, **kw))
        np.testing.assert_array_equal(got, want)


# ci: 5 examples (each example compiles with XLA or runs JAX); make test-long runs 20
@ci_examples(5, otherwise=20, deadline=None)
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_norm_matches_jax(dtype: str, data: st.DataObject) -> None:
    x = data.draw(arrays(dtype, -8.0, 8.0, (6,)))  # one shape: JAX compiles once
    q = data.draw(arrays(dtype, 0.02, 0.98, (6,)))
    loc, scale = 0.5, 1.5
    for name in ("pdf", "logpdf", "cdf", "logcdf"):
        close(getattr(norm, name)(x, loc, scale), getattr(jnorm, name)(x, loc, scale), rtol32=2e-5, rtol64=1e-11)
        close(getattr(norm, name)(x), getattr(jnorm, name)(x), rtol32=2e-5, rtol64=1e-11)
    # ppf: JAX's ndtri is another approximation of the same function
    # (in the default float dtype, float64 here: from float32 operands only float32's precision)
    close(norm.ppf(q, loc, scale), jnorm.ppf(q, loc, scale), rtol64=1e-9 if dtype == "float64" else 1e-5)
    if dtype == "float64":
        for name in ("logpdf", "cdf", "logcdf"):
            g = tdx.grad(lambda v: tnp.sum(getattr(norm, name)(v, loc, scale)))(x)
            j = jax.grad(lambda v: jnp.sum(getattr(jnorm, name)(v, loc, scale)))(x)
            close(g, j, rtol64=1e-10)


def test_norm_cdf_tails_and_integer_inputs() -> None:
    x = np.array([-40.0, -10.0, -1.0, 0.0, 1.0, 10.0, np.inf, -np.inf])
    close(norm.cdf(x), jnorm.cdf(x))
    close(norm.cdf(x.astype(np.float32)), jnorm.cdf(x.astype(np.float32)))
    close(norm.logpdf(np.array([1, 2], np.int32)), jnorm.logpdf(np.array([1, 2], np.int32)))
    close(norm.ppf(np.array([0.5], np.float32)), jnorm.ppf(np.array([0.5], np.float32)))
    # logcdf in both tails and at the segment bounds; its gradient there
    t = np.array([-60.0, -25.0, -20.0, -19.5, -3.0, 0.0, 7.9, 8.0, 8.5, 40.0, np.inf, -np.inf])
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        close(norm.logcdf(t.astype(dtype)), jnorm.logcdf(t.astype(dtype)), rtol32=rtol)
    finite = t[np.isfinite(t)]
    g = tdx.grad(lambda v: tnp.sum(norm.logcdf(v)))(finite)
    # ci: JAX's gradient under jax.jit (one compile, not one per op of its eager dispatch); make
    # test-long takes the eager one
    jg = jax.grad(lambda v: jnp.sum(jnorm.logcdf(v)))
    np.testing.assert_allclose(np.asarray(g), np.asarray((jax.jit(jg) if PROFILE == "ci" else jg)(finite)), rtol=1e-8)


def test_scipy_package_is_minimal() -> None:
    # its submodules, as jax.scipy's (which has more: cluster, fft, integrate, ndimage, ...), and nothing else
    import typedax.scipy as tsp

    assert {n for n in vars(tsp) if not n.startswith("_")} == {"linalg", "optimize", "signal", "sparse", "special", "stats"}


_ = pytest
