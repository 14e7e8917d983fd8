"""reduce_prod, reduce_and, reduce_or, argmax, argmin against jax.lax (eager,
jit, vmap vs a loop, jvp, grad vs finite differences), NaN and signed-zero
ties as JAX's comparator, the error paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64")]


@st.composite
def arrays(draw: st.DrawFn, dtypes: list[np.dtype[Any]] = DTYPES, min_side: int = 0) -> np.ndarray:
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=min_side, max_side=4))
    if dtype.kind == "f":
        elems = st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, np.nan, np.inf])
    elif dtype.kind == "i":
        elems = st.integers(-3, 3)
    else:
        elems = st.booleans()
    return draw(hnp.arrays(dtype, shape, elements=elems))


def same(a: object, b: object) -> None:
    x, y = np.asarray(a), np.asarray(b)
    assert x.dtype == y.dtype and x.shape == y.shape
    np.testing.assert_array_equal(x, y)


# ci: 10 examples (each example compiles with XLA or runs JAX); make test-long runs 40
@ci_examples(10, otherwise=40, deadline=None)
@given(arrays(min_side=1), st.data())
def test_argmax_argmin_match_jax_eager_and_jit(x: np.ndarray, data: st.DataObject) -> None:
    if x.ndim == 0:
        x = x.reshape(1)
    axis = data.draw(st.integers(0, x.ndim - 1))
    for ours, theirs in ((lax.argmax, jax.lax.argmax), (lax.argmin, jax.lax.argmin)):
        want = theirs(x, axis, np.int32)
        same(ours(x, axis, np.int32), want)
        same(tdx.jit(lambda v: ours(v, axis, np.int32))(x), want)


def test_argmax_first_nan_and_first_of_signed_zeros() -> None:
    x = np.array([1.0, np.nan, 3.0, np.nan])
    assert int(lax.argmax(x, 0, np.int32)) == 1 == int(lax.argmin(x, 0, np.int32))
    z = np.array([-0.0, 0.0])
    assert int(tdx.jit(lambda v: lax.argmax(v, 0, np.int32))(z)) == 0
    assert int(tdx.jit(lambda v: lax.argmin(v[::-1], 0, np.int32))(z)) == 0


@settings(max_examples=40, deadline=None)
@given(arrays(dtypes=[np.dtype(d) for d in ("int32", "int64", "float32", "float64")]), st.data())
def test_reduce_prod_matches_jax(x: np.ndarray, data: st.DataObject) -> None:
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(x.ndim - 1, 0)), max_size=x.ndim)))) if x.ndim else ()
    want = np.asarray(jax.lax.reduce_prod(x, axes))
    np.testing.assert_allclose(np.asarray(lax.reduce_prod(x, axes)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.jit(lambda v: lax.reduce_prod(v, axes))(x)), want, rtol=1e-6)


@ci_examples(20, otherwise=40, deadline=None)
@given(arrays(dtypes=[np.dtype(d) for d in ("bool", "int32", "int64")]), st.data())
def test_reduce_and_or_match_jax(x: np.ndarray, data: st.DataObject) -> None:
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(x.ndim - 1, 0)), max_size=x.ndim)))) if x.ndim else ()
    for ours, theirs in ((lax.reduce_and, jax.lax.reduce_and), (lax.reduce_or, jax.lax.reduce_or)):
        want = theirs(x, axes)
        same(ours(x, axes), want)
        same(tdx.jit(lambda v: ours(v, axes))(x), want)


@pytest.mark.parametrize("x", [
    np.array([[1.0, 2.0, 3.0], [0.5, 0.0, 4.0]]),
    np.array([[0.0, 2.0, 0.0], [1.5, -2.0, 3.0]]),  # two zeros: a zero gradient in that row
])
def test_reduce_prod_derivatives_with_zeros_match_jax(x: np.ndarray) -> None:
    t = np.arange(6.0).reshape(2, 3) / 7
    for axes in ((1,), (0,), (0, 1)):
        _, ours = tdx.jvp(lambda v: lax.reduce_prod(v, axes), (x,), (t,))
        _, theirs = jax.jvp(lambda v: jax.lax.reduce_prod(v, axes), (x,), (t,))
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-12)
        g = tdx.grad(lambda v: tnp.sum(lax.reduce_prod(v, axes)))(x)
        gj = jax.grad(lambda v: jax.numpy.sum(jax.lax.reduce_prod(v, axes)))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-12)


def test_vmap_matches_a_loop() -> None:
    x = np.array([[[1.0, np.nan, 2.0], [0.0, 3.0, 3.0]], [[4.0, 1.0, -1.0], [2.0, 2.0, 0.5]]])
    for in_axis in (0, 1, 2):
        xs = [np.take(x, i, axis=in_axis) for i in range(x.shape[in_axis])]
        fs: list[Callable[[Any], Any]] = [lambda v: lax.argmax(v, 1, np.int32), lambda v: lax.argmin(v, 0, np.int64),
                  lambda v: lax.reduce_prod(v, (1,)), lambda v: lax.reduce_or(v > 1.0, (0,))]
        for f in fs:
            got = tdx.vmap(f, in_axes=in_axis)(x)
            same(got, np.stack([np.asarray(f(v)) for v in xs]))


def test_integer_outputs_have_zero_tangents() -> None:
    # JAX's: an integer output's tangent is a float0 zero (jax.dtypes.float0)
    x = np.array([1.0, 3.0, 2.0])
    _, t = tdx.jvp(lambda v: lax.argmax(v, 0, np.int32), (x,), (np.ones(3),))
    _, jt = jax.jvp(lambda v: jax.lax.argmax(v, 0, np.int32), (x,), (np.ones(3),))
    assert np.asarray(t).dtype == np.asarray(jt).dtype == jax.dtypes.float0
    assert np.shape(t) == np.shape(jt) == ()


def test_errors() -> None:
    x = np.ones((2, 3))
    with pytest.raises(PrimitiveTypeError, match=r"argmax: axis 2 is out of bounds for float64\[2,3\]"):
        lax.argmax(x, 2, np.int32)
    with pytest.raises(PrimitiveTypeError, match="argmin: index_dtype must be an integer type"):
        lax.argmin(x, 0, np.float32)
    with pytest.raises(PrimitiveTypeError, match=r"argmax: cannot reduce float64\[2,0\] over the empty axis 1"):
        lax.argmax(np.ones((2, 0)), 1, np.int32)
    with pytest.raises(PrimitiveTypeError, match="argmax: axis must be integers"):
        lax.argmax(x, 0.5, np.int32)  # type: ignore[arg-type]  # the error path under test
    with pytest.raises(PrimitiveTypeError, match="reduce_and takes bool or integer operands"):
        lax.reduce_and(x, (0,))
    with pytest.raises(PrimitiveTypeError, match="reduce_prod does not accept bool operands"):
        lax.reduce_prod(x > 0, (0,))
    with pytest.raises(PrimitiveTypeError, match="reduce_or: axis=.* must be distinct axes"):
        lax.reduce_or(x > 0, (0, 0))
    from pyrsistent import pmap

    from typedax.primitives.reductions import argmax_p
    from typedax.core.avals import ShapedArray

    with pytest.raises(PrimitiveTypeError, match="exactly one axis"):
        argmax_p.abstract_eval([ShapedArray((2, 3), np.dtype(np.float64))], pmap({"axes": (0, 1), "index_dtype": np.dtype(np.int32)}))
