"""``rem`` (``lax.rem``): the primitive added with the layout issue, to show
what one primitive with every rule takes -- its family module, the family's
``FAMILY``, the ``lax`` facade, the jaxpr generator, and these tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
from typedax import lax
from typedax.core import PrimitiveTypeError
from typedax.testing import assert_roundtrips

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax.config.update has no annotations

FLOATS = st.floats(-50, 50, allow_nan=False, width=64)
DIVISORS = st.floats(0.25, 20, width=64).flatmap(lambda v: st.sampled_from([v, -v]))


def pairs(dtype: np.dtype[np.generic], elements: st.SearchStrategy[float] | st.SearchStrategy[int],
          divisors: st.SearchStrategy[float] | st.SearchStrategy[int]
          ) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    return hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4).flatmap(
        lambda s: st.tuples(hnp.arrays(dtype, s, elements=elements), hnp.arrays(dtype, s, elements=divisors))
    )


@given(pairs(np.dtype(np.float64), FLOATS, DIVISORS))
def test_float_rem_matches_jax_eager_and_jit(xy: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = xy
    want = np.asarray(jax.lax.rem(jnp.asarray(x), jnp.asarray(y)))
    np.testing.assert_array_equal(np.asarray(lax.rem(x, y)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.rem)(x, y)), want)


@given(pairs(np.dtype(np.int32), st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1)))
def test_int_rem_matches_jax_including_zero_divisors(xy: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = xy
    want = np.asarray(jax.jit(jax.lax.rem)(jnp.asarray(x), jnp.asarray(y)))
    np.testing.assert_array_equal(np.asarray(lax.rem(x, y)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.rem)(x, y)), want)


def test_int_rem_edge_cases() -> None:
    x = np.array([7, -7, 7, -2**31, 5, 0], np.int32)
    y = np.array([0, 0, -1, -1, 3, 0], np.int32)
    want = np.array([7, -7, 0, 0, 2, 0], np.int32)  # XLA: x rem 0 = x, INT_MIN rem -1 = 0
    np.testing.assert_array_equal(np.asarray(lax.rem(x, y)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.rem)(x, y)), want)


@given(FLOATS, DIVISORS)
def test_grad_matches_jax_and_finite_differences(x: float, y: float) -> None:
    q = x / y
    if abs(q - round(q)) < 1e-3:  # too close to a jump for finite differences
        return
    g = tdx.grad(lax.rem, argnums=(0, 1))(x, y)
    jg = jax.grad(jax.lax.rem, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([float(np.asarray(g[0])), float(np.asarray(g[1]))], [float(jg[0]), float(jg[1])], rtol=1e-12)
    h = 1e-6
    fd_y = (np.fmod(x, y + h) - np.fmod(x, y - h)) / (2 * h)
    np.testing.assert_allclose(float(np.asarray(g[1])), fd_y, rtol=1e-5, atol=1e-5)


@given(pairs(np.dtype(np.float64), FLOATS, DIVISORS))
def test_vmap_matches_a_loop(xy: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = xy
    if x.ndim == 0:
        return
    got = np.asarray(tdx.vmap(lax.rem)(x, y))
    loop = np.stack([np.asarray(lax.rem(a, b)) for a, b in zip(x, y)]) if len(x) else got
    np.testing.assert_array_equal(got, loop)
    if x.ndim == 1:  # an unbatched divisor, broadcast along the batch
        np.testing.assert_array_equal(np.asarray(tdx.vmap(lax.rem, in_axes=(0, None))(x, 3.0)), np.fmod(x, 3.0))


def test_jaxpr_round_trips() -> None:
    j = tdx.make_jaxpr(lambda a, b: lax.rem(a, b))(np.ones(3), np.ones(3))
    assert "rem" in str(j)
    assert_roundtrips(j.jaxpr)


def test_bad_operands_are_refused() -> None:
    with pytest.raises(PrimitiveTypeError, match="rem: shapes"):
        lax.rem(np.ones(3), np.ones(2))
    with pytest.raises(PrimitiveTypeError, match="rem requires operands of one shape and dtype"):
        lax.rem(np.ones(3), np.ones(3, np.float32))
    with pytest.raises(PrimitiveTypeError, match="rem accepts"):
        lax.rem(np.array([True]), np.array([False]))
