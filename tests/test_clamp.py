"""``clamp(min, x, max)`` (issue 11): against ``jax.lax.clamp`` (including
NaN, signed zeros and ``min > max``), ``jit`` against eager, ``vmap`` against
a loop with scalar and full-shape bounds batched or not, JVPs against JAX's
rule (``select`` by where ``x`` is strictly inside), and the error paths. The
edge-value sweep of ``test_eager_matches_jit.py`` covers every triple."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax
from typedax.core import PrimitiveTypeError
from test_slicing import F64, dtypes, laws, rand, same, seeds, shapes

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


@settings(max_examples=40)
@given(shapes, dtypes, st.booleans(), st.booleans(), seeds)
def test_clamp(shape: tuple[int, ...], dtype: np.dtype[Any], lo_full: bool, hi_full: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rand(rng, shape, dtype)
    lo = rand(rng, shape if lo_full else (), dtype)
    hi = rand(rng, shape if hi_full else (), dtype)
    want = np.asarray(jax.lax.clamp(jnp.asarray(lo), jnp.asarray(x), jnp.asarray(hi)))
    laws(lax.clamp, [lo, x, hi], want, seed=seed, smooth=[1] if dtype == F64 else [])


def test_clamp_edge_semantics_match_jax() -> None:
    x = np.array([np.nan, -0.0, 0.0, -1.0, 3.0, 0.5, np.inf, -np.inf])
    for lo, hi in [(0.0, 1.0), (-0.0, 0.0), (0.0, -0.0), (np.nan, 1.0), (0.0, np.nan), (2.0, 1.0)]:
        want = np.asarray(jax.lax.clamp(lo, x, hi))
        for got in (lax.clamp(lo, x, hi), tdx.jit(lambda x: lax.clamp(lo, x, hi))(x)):
            g = np.asarray(got)
            np.testing.assert_array_equal(g, want)
            assert (np.signbit(g) == np.signbit(want)).all()


@pytest.mark.parametrize("lo_shape", [(), (5,)])
@pytest.mark.parametrize("hi_shape", [(), (5,)])
def test_clamp_derivatives_match_jax(lo_shape: tuple[int, ...], hi_shape: tuple[int, ...]) -> None:
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])  # ties with the bounds included
    lo, hi = np.zeros(lo_shape), np.ones(hi_shape)
    rng = np.random.default_rng(0)
    ts = [rng.normal(size=np.shape(a)) for a in (lo, x, hi)]
    _, t = tdx.jvp(lax.clamp, (lo, x, hi), ts)
    # JAX's rule written out (jax.jvp itself fails on a scalar bound with a
    # tangent: its select meets a () tangent and a (5,) zero)
    t_lo, t_x, t_hi = (np.broadcast_to(a, x.shape) for a in ts)
    want = (np.where((lo > x) & (lo < hi), t_lo, 0.0) + np.where((lo < x) & (x < hi), t_x, 0.0)
            + np.where(hi < x, t_hi, 0.0))
    np.testing.assert_allclose(np.asarray(t), want, rtol=1e-15)
    if lo_shape and hi_shape:
        same(t, np.asarray(jax.jvp(jax.lax.clamp, (lo, x, hi), tuple(ts))[1]))
        for argnum in range(3):
            g = tdx.grad(lambda *a: lax.clamp(*a).sum(), argnums=argnum)(lo, x, hi)
            g_jax = jax.grad(lambda *a: jax.lax.clamp(*a).sum(), argnums=argnum)(lo, x, hi)
            same(g, np.asarray(g_jax))
    g = tdx.grad(lambda x: lax.clamp(lo, x, hi).sum())(x)
    same(g, np.asarray(jax.grad(lambda x: jax.lax.clamp(lo, x, hi).sum())(x)))
    # min > max: the result is max, and only max's tangent passes
    _, t = tdx.jvp(lax.clamp, (np.full(5, 2.0), x, np.ones(5)), (np.ones(5), np.ones(5), np.full(5, 3.0)))
    same(t, np.asarray(jax.jvp(jax.lax.clamp, (np.full(5, 2.0), x, np.ones(5)), (np.ones(5), np.ones(5), np.full(5, 3.0)))[1]))


def test_vmap_with_batched_scalar_bounds() -> None:
    xs = np.linspace(-2, 2, 12).reshape(3, 4)
    los, his = np.array([-1.0, 0.0, 0.5]), np.array([1.0, 0.25, 2.0])
    got = tdx.vmap(lax.clamp)(los, xs, his)
    same(got, np.stack([np.clip(xs[i], los[i], his[i]) for i in range(3)]))
    got = tdx.vmap(lambda lo, x: lax.clamp(lo, x, 1.0), in_axes=(0, 1))(los, xs[:, :3])
    same(got, np.stack([np.clip(xs[:, i], los[i], 1.0) for i in range(3)]))
    got = tdx.vmap(lambda hi: lax.clamp(0.0, xs, hi))(his)
    same(got, np.stack([np.clip(xs, 0.0, his[i]) for i in range(3)]))


def test_clamp_errors() -> None:
    x = np.zeros((2, 3))
    with pytest.raises(PrimitiveTypeError, match=r"min.shape == x.shape or min.shape == \(\)"):
        lax.clamp(np.zeros(3), x, 1.0)
    with pytest.raises(PrimitiveTypeError, match=r"max.shape == x.shape"):
        lax.clamp(0.0, x, np.ones((2, 1)))
    with pytest.raises(PrimitiveTypeError, match="one dtype"):
        lax.clamp(np.float32(0.0), x, 1.0)
    with pytest.raises(PrimitiveTypeError, match="one dtype"):
        lax.clamp(0.5, np.zeros(3, np.int32), 2)


def test_python_scalar_bounds_have_their_own_type_as_jaxs(x64_off: None) -> None:
    """JAX's clamp does not convert Python-scalar bounds to ``x``'s dtype:
    they take the default int or float type, so with x64 on ``clamp(0.0,
    f32[3], 1.0)`` is a TypeError and with x64 off it works (``x64_off``
    turns both libraries' x64 off for the second half)."""
    x32 = np.array([-1.0, 0.5, 2.0], np.float32)
    cases = [(0.0, x32, 1.0), (0, x32, 1), (0, np.arange(3, dtype=np.int32), 2), (0.0, x32, np.float32(1.0))]

    def outcome(clamp: Any, args: tuple[Any, ...]) -> str:
        try:
            out = np.asarray(clamp(*args))
        except TypeError:
            return "TypeError"
        return f"{out.dtype}{out.tolist()}"

    with tdx.config.context(enable_x64=True):  # typedax's default; JAX's is set by the fixture
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped
        try:
            on = [outcome(lax.clamp, a) for a in cases]
            assert on == [outcome(jax.lax.clamp, a) for a in cases]
        finally:
            jax.config.update("jax_enable_x64", False)  # type: ignore[no-untyped-call]  # as above
    assert on == ["TypeError", "TypeError", "TypeError", "TypeError"]
    off = [outcome(lax.clamp, a) for a in cases]
    assert off == [outcome(jax.lax.clamp, a) for a in cases]
    assert off == ["float32[0.0, 0.5, 1.0]", "TypeError", "int32[0, 1, 2]", "float32[0.0, 0.5, 1.0]"]
    with pytest.raises(PrimitiveTypeError, match="clamp takes 3 operand"):
        from typedax.primitives import clamp_p
        from pyrsistent import pmap

        clamp_p.abstract_eval([], pmap({}))
