"""``slice``, ``dynamic_slice`` and ``dynamic_update_slice`` (issue 11):
eager against NumPy and ``jax.lax`` (the oracle), ``jit`` against eager bit
for bit, ``vmap`` against a Python loop (batch axes anywhere, operands
batched or not), JVPs against finite differences and the transposes by the
dot-product test, the printed jaxprs parse back, and every error path.

``laws`` is shared with ``test_shaping.py`` and ``test_clamp.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyrsistent import pmap

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import PrimitiveTypeError
from typedax.core.ir import NDArray
from typedax.primitives import dynamic_slice_p, dynamic_update_slice_p, slice_p
from typedax.core.avals import ShapedArray
from typedax.testing import assert_roundtrips

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

DTYPES: list[np.dtype[Any]] = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64")]
F64 = np.dtype(np.float64)
Fn = Callable[..., Any]


def rand(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any]) -> NDArray:
    if dtype == np.bool_:
        return np.asarray(rng.integers(0, 2, size=shape).astype(np.bool_))
    if dtype.kind == "i":
        return np.asarray(rng.integers(-9, 10, size=shape).astype(dtype))
    return np.asarray(rng.normal(size=shape).astype(dtype))


def same(a: object, b: object) -> None:
    x, y = np.asarray(a), np.asarray(b)
    assert x.dtype == y.dtype and x.shape == y.shape, (x.dtype, x.shape, y.dtype, y.shape)
    np.testing.assert_array_equal(x, y)


def vdot(xs: Sequence[object], ys: Sequence[object]) -> float:
    return float(sum(np.vdot(np.asarray(x, np.float64), np.asarray(y, np.float64)) for x, y in zip(xs, ys)))


def laws(
    f: Fn,
    args: Sequence[NDArray],
    want: object,
    *,
    seed: int,
    linear: Sequence[int] = (),
    smooth: Sequence[int] = (),
    batch: Sequence[int] | None = None,
) -> None:
    """``f(*args)`` equals ``want`` eagerly and under ``jit``; its jaxpr round
    trips; ``vmap`` over the ``batch`` arguments (default all; each batched
    at a random axis, others not) matches a loop. In float64: ``f`` is
    linear in the ``linear`` arguments (JVP is ``f`` of the tangent, the VJP
    passes the dot-product test), and its JVP in the ``smooth`` ones
    matches central differences."""
    rng = np.random.default_rng(seed)
    out = f(*args)
    same(out, want)
    same(tdx.jit(f)(*args), out)
    assert_roundtrips(tdx.make_jaxpr(f)(*args).jaxpr)
    # vmap against a loop
    which = list(range(len(args))) if batch is None else list(batch)
    if which:
        k = 3
        stacked: list[NDArray] = []
        axes: list[int | None] = []
        for i, a in enumerate(args):
            if i not in which or (rng.integers(0, 3) == 0 and len(which) > 1):
                stacked.append(a)
                axes.append(None)
                continue
            ax = int(rng.integers(0, a.ndim + 1))
            copies = [a] + [rand(rng, a.shape, a.dtype) if a.dtype.kind != "i" or a.ndim else a + j for j in range(1, k)]
            stacked.append(np.stack(copies, axis=ax))
            axes.append(ax)
        if any(ax is not None for ax in axes):
            got = tdx.vmap(f, in_axes=tuple(axes))(*stacked)
            for j in range(k):
                ex = [a if ax is None else np.take(a, j, axis=ax) for a, ax in zip(stacked, axes)]
                same(np.asarray(got)[j], f(*ex))
    if not linear and not smooth:
        return
    if any(args[i].dtype != F64 for i in (*linear, *smooth)):
        return
    # linearity: the JVP in the linear arguments is f of the tangents
    for group, exact in ((linear, True), (smooth, False)):
        if not group:
            continue

        def g(*xs: Any, group: Sequence[int] = group) -> Any:
            full = list(args)
            for i, x in zip(group, xs):
                full[i] = x
            return f(*full)

        primals = [args[i] for i in group]
        tangents = [rand(rng, args[i].shape, F64) for i in group]
        y, t = tdx.jvp(g, primals, tangents)
        eps = 1e-6
        plus = g(*[p + np.multiply(eps, u) for p, u in zip(primals, tangents)])
        minus = g(*[p - np.multiply(eps, u) for p, u in zip(primals, tangents)])
        np.testing.assert_allclose(np.asarray(t), (np.asarray(plus) - np.asarray(minus)) / (2 * eps), atol=1e-6)
        if exact:
            zero_primals = [np.zeros_like(p) for p in primals]
            y_of_t = np.asarray(g(*tangents)) - np.asarray(g(*zero_primals))
            np.testing.assert_allclose(np.asarray(t), y_of_t, atol=1e-12)
            _, pullback = tdx.vjp(g, *primals)
            ct = rand(rng, np.shape(y), F64)
            cts = pullback(tnp.asarray(ct))
            np.testing.assert_allclose(vdot([ct], [t]), vdot(cts, tangents), rtol=1e-10, atol=1e-10)


# -- strategies -----------------------------------------------------------------------
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)
dtypes = st.sampled_from(DTYPES)
seeds = st.integers(0, 2**32 - 1)


@st.composite
def slice_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]:
    shape = draw(shapes)
    start, limit, strides = [], [], []
    for n in shape:
        lo = draw(st.integers(0, n))
        start.append(lo)
        limit.append(draw(st.integers(lo, n)))
        strides.append(draw(st.integers(1, 3)))
    return shape, tuple(start), tuple(limit), tuple(strides) if draw(st.booleans()) else None


# -- slice -----------------------------------------------------------------------------
@settings(max_examples=40)
@given(slice_cases(), dtypes, seeds)
def test_slice(case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...] | None],
               dtype: np.dtype[Any], seed: int) -> None:
    shape, start, limit, strides = case
    x = rand(np.random.default_rng(seed), shape, dtype)
    st_ = strides or (1,) * len(shape)
    want = x[tuple(slice(a, b, c) for a, b, c in zip(start, limit, st_))]
    same(jax.lax.slice(jnp.asarray(x), start, limit, strides), want)

    def f(x: Any) -> Any:
        return lax.slice(x, start, limit, strides)

    laws(f, [x], want, seed=seed, linear=[0])


def test_slice_in_dim_and_index_in_dim_match_jax() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    for args in [(1, 3, 1, 2), (None, None, 2, 2), (-3, -1, 1, -1), (0, 2, 1, 1)]:
        same(lax.slice_in_dim(x, *args), jax.lax.slice_in_dim(x, *args))
    for i, ax, keep in [(1, 0, True), (-1, 2, False), (2, 1, False), (0, -1, True)]:
        same(lax.index_in_dim(x, i, ax, keep), jax.lax.index_in_dim(x, i, ax, keep))
    with pytest.raises(PrimitiveTypeError, match="out of bounds"):
        lax.index_in_dim(x, 3, 1)
    with pytest.raises(PrimitiveTypeError, match="out of bounds for an array of rank 3"):
        lax.slice_in_dim(x, 0, 1, axis=3)


def test_slice_errors() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(PrimitiveTypeError, match=r"slice: dimension 1 of float64\[3,4\] needs 0 <= start <= limit <= 4"):
        lax.slice(x, (0, 0), (3, 5))
    with pytest.raises(PrimitiveTypeError, match="dimension 0 .* start <= limit"):
        lax.slice(x, (2, 0), (1, 4))
    with pytest.raises(PrimitiveTypeError, match="one entry per dimension"):
        lax.slice(x, (0,), (3,))
    with pytest.raises(PrimitiveTypeError, match="strides must be positive"):
        lax.slice(x, (0, 0), (3, 4), (1, 0))
    with pytest.raises(PrimitiveTypeError, match="must be integers"):
        lax.slice(x, (0, 0.5), (3, 4))  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="missing param 'strides'"):
        slice_p.abstract_eval([ShapedArray((3,), F64)], pmap({"start_indices": (0,), "limit_indices": (1,)}))
    with pytest.raises(PrimitiveTypeError, match="slice takes 1 operand"):
        slice_p.abstract_eval([], pmap({"start_indices": (), "limit_indices": (), "strides": None}))


def test_slice_transpose_of_a_strided_slice_pads_in_between() -> None:
    x = np.arange(7.0)
    _, pullback = tdx.vjp(lambda x: lax.slice(x, (1,), (6,), (2,)), x)
    (ct,) = pullback(tnp.asarray(np.array([1.0, 2.0, 3.0])))
    same(ct, np.array([0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0]))
    (ct0,) = tdx.vjp(lambda x: lax.slice(x, (3,), (3,), (2,)), x)[1](tnp.asarray(np.zeros(0)))
    same(ct0, np.zeros(7))


# -- dynamic_slice / dynamic_update_slice -----------------------------------------------
@st.composite
def dynamic_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    shape = draw(shapes)
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    starts = tuple(draw(st.integers(-n - 2, n + 2)) for n in shape)
    return shape, sizes, starts


def _wrapped_clamped(starts: Sequence[int], shape: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """jax.lax's start indices: negative ones count from the end, then XLA's clamp."""
    return [min(max(i + n if i < 0 else i, 0), n - k) for i, n, k in zip(starts, shape, sizes)]


@ci_examples(20, otherwise=40)
@given(dynamic_cases(), dtypes, st.sampled_from([np.int32, np.int64]), seeds)
def test_dynamic_slice(case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
                       dtype: np.dtype[Any], idx: type, seed: int) -> None:
    shape, sizes, starts = case
    x = rand(np.random.default_rng(seed), shape, dtype)
    lo = _wrapped_clamped(starts, shape, sizes)
    want = x[tuple(slice(i, i + k) for i, k in zip(lo, sizes))]
    same(jax.lax.dynamic_slice(jnp.asarray(x), [idx(i) for i in starts], sizes), want)
    same(lax.dynamic_slice(x, starts, sizes), want)  # static Python starts

    def f(x: Any, *ix: Any) -> Any:
        return lax.dynamic_slice(x, ix, sizes)

    laws(f, [x, *(np.asarray(i, idx) for i in starts)], want, seed=seed, linear=[0], batch=[0])


@ci_examples(20, otherwise=40)
@given(dynamic_cases(), dtypes, seeds)
def test_dynamic_update_slice(case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
                              dtype: np.dtype[Any], seed: int) -> None:
    shape, sizes, starts = case
    rng = np.random.default_rng(seed)
    x, u = rand(rng, shape, dtype), rand(rng, sizes, dtype)
    lo = _wrapped_clamped(starts, shape, sizes)
    want = x.copy()
    want[tuple(slice(i, i + k) for i, k in zip(lo, sizes))] = u
    same(jax.lax.dynamic_update_slice(jnp.asarray(x), jnp.asarray(u), [np.int32(i) for i in starts]), want)

    def f(x: Any, u: Any, *ix: Any) -> Any:
        return lax.dynamic_update_slice(x, u, ix)

    laws(f, [x, u, *(np.asarray(i, np.int32) for i in starts)], want, seed=seed, linear=[0, 1], batch=[0, 1])


def test_dynamic_slice_clamps_traced_starts_and_wraps_negative_ones() -> None:
    x = np.arange(10.0)

    @tdx.jit
    def f(i: Any) -> Any:
        return lax.dynamic_slice(x, (i,), (3,))

    for i in [-20, -3, -1, 0, 4, 7, 8, 100]:
        want = jax.lax.dynamic_slice(jnp.asarray(x), (jnp.int32(i),), (3,))
        same(f(np.int32(i)), want)
        same(lax.dynamic_slice(x, (np.int32(i),), (3,)), want)
        same(lax.dynamic_slice(x, (i,), (3,), allow_negative_indices=False) if i >= 0 else want, want)
    # the primitive itself only clamps: -1 is read as 0
    same(dynamic_slice_p.impl([x, np.asarray(-1, np.int32)], pmap({"slice_sizes": (3,)}))[0], x[:3])
    with pytest.raises(PrimitiveTypeError, match="allow_negative_indices=False"):
        lax.dynamic_slice(x, (-1,), (3,), allow_negative_indices=False)


def test_dynamic_in_dim_helpers_match_jax() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    for i in [0, 2, -1, 5]:
        same(lax.dynamic_slice_in_dim(x, i, 2, 2), jax.lax.dynamic_slice_in_dim(x, i, 2, 2))
        same(lax.dynamic_index_in_dim(x, i, 1, False), jax.lax.dynamic_index_in_dim(x, i, 1, False))
        same(lax.dynamic_index_in_dim(x, i, -1), jax.lax.dynamic_index_in_dim(x, i, -1))
    u = -np.ones((2, 3, 1))
    for i in [0, 3, -2]:
        same(lax.dynamic_update_slice_in_dim(x, u, i, 2), jax.lax.dynamic_update_slice_in_dim(x, u, i, 2))
        same(lax.dynamic_update_index_in_dim(x, u[..., 0], i, 2), jax.lax.dynamic_update_index_in_dim(x, u[..., 0], i, 2))
        same(lax.dynamic_update_index_in_dim(x, u, i, -1), jax.lax.dynamic_update_index_in_dim(x, u, i, -1))


def test_start_indices_as_an_array_and_mixed_dtypes() -> None:
    x = np.arange(12).reshape(3, 4)
    same(lax.dynamic_slice(x, np.array([1, 2]), (2, 2)), x[1:3, 2:4])
    same(tdx.jit(lambda x, s: lax.dynamic_slice(x, s, (2, 2)))(x, np.array([1, 2], np.int32)), x[1:3, 2:4])
    jaxpr = tdx.make_jaxpr(lambda i, j: lax.dynamic_slice(x, (i, j, ), (1, 1)))(np.int32(1), np.int64(2))
    assert "int64[] = convert_element_type" in str(jaxpr)  # one dtype: int32 promoted
    same(lax.dynamic_slice(x, (np.int32(1), 2), (2, 2)), x[1:3, 2:4])


def test_dynamic_slice_errors() -> None:
    x = np.zeros((3, 4))
    i = np.asarray(0, np.int32)
    with pytest.raises(PrimitiveTypeError, match="2 start indices"):
        lax.dynamic_slice(np.zeros(3), (0, 0), (1,))
    with pytest.raises(PrimitiveTypeError, match=r"slice_sizes=\(4, 1\) must have one size in \[0, dim\]"):
        lax.dynamic_slice(x, (0, 0), (4, 1))
    with pytest.raises(PrimitiveTypeError, match="start indices must be integer scalars"):
        lax.dynamic_slice(x, (0, np.float64(1.0)), (1, 1))
    with pytest.raises(PrimitiveTypeError, match="start indices must be integers"):
        lax.dynamic_slice(x, (0, True), (1, 1))
    with pytest.raises(PrimitiveTypeError, match="1-d sequence"):
        lax.dynamic_slice(x, tnp.asarray(np.zeros((2, 1), np.int32)), (1, 1))
    with pytest.raises(PrimitiveTypeError, match="share one integer dtype"):
        dynamic_slice_p.abstract_eval(
            [ShapedArray((3, 3), F64), ShapedArray((), np.dtype(np.int32)), ShapedArray((), np.dtype(np.int64))],
            pmap({"slice_sizes": (1, 1)}))
    with pytest.raises(PrimitiveTypeError, match="got none"):
        dynamic_slice_p.abstract_eval([], pmap({"slice_sizes": ()}))
    with pytest.raises(PrimitiveTypeError, match="fit inside it"):
        lax.dynamic_update_slice(x, np.zeros((4, 1)), (i, i))
    with pytest.raises(PrimitiveTypeError, match="must have the operand's dtype"):
        lax.dynamic_update_slice(x, np.zeros((1, 1), np.float32), (i, i))
    with pytest.raises(PrimitiveTypeError, match="takes an operand, an update"):
        dynamic_update_slice_p.abstract_eval([ShapedArray((3,), F64)], pmap({}))


def test_grad_through_dynamic_slice_with_traced_start() -> None:
    x = np.arange(6.0)

    def loss(x: Any, i: Any) -> Any:
        return (lax.dynamic_slice(x, (i,), (2,)) ** 2).sum()

    for i in [0, 3, 5, -1]:
        g = tdx.grad(loss)(x, np.int32(i))
        want = jax.grad(lambda x: (jax.lax.dynamic_slice(x, (np.int32(i),), (2,)) ** 2).sum())(jnp.asarray(x))
        same(g, want)


@ci_examples(20, otherwise=40, deadline=None)
@given(st.data())
def test_vmap_over_batched_start_indices_matches_a_loop(data: st.DataObject) -> None:
    """Batched starts become a gather (dynamic_slice) or a scatter
    (dynamic_update_slice), clamped as the unbatched primitives clamp."""
    x = np.arange(20.0).reshape(4, 5)
    n = 4
    starts = np.asarray(data.draw(st.lists(st.integers(-6, 8), min_size=n, max_size=n)), np.int32)
    xs = np.stack([x * (k + 1) for k in range(n)])
    batched_x = data.draw(st.booleans())
    sizes = (data.draw(st.integers(0, 4)), data.draw(st.integers(0, 5)))
    other = np.int32(data.draw(st.integers(-2, 6)))

    def get(v: tdx.ArrayLike, i: tdx.ArrayLike) -> tdx.Array:
        return lax.dynamic_slice(v, (i, other), sizes)

    operand = xs if batched_x else x
    got = tdx.vmap(get, in_axes=(0 if batched_x else None, 0))(operand, starts)
    want = np.stack([np.asarray(lax.dynamic_slice(xs[k] if batched_x else x, (int(starts[k]), int(other)), sizes)) for k in range(n)])
    np.testing.assert_array_equal(np.asarray(got), want)
    jitted = tdx.jit(tdx.vmap(get, in_axes=(0 if batched_x else None, 0)))(operand, starts)
    np.testing.assert_array_equal(np.asarray(jitted), want)

    upd = np.full(sizes, -1.0)

    def put(v: tdx.ArrayLike, i: tdx.ArrayLike) -> tdx.Array:
        return lax.dynamic_update_slice(v, upd, (other, i))

    got_u = tdx.vmap(put, in_axes=(0 if batched_x else None, 0))(operand, starts)
    want_u = np.stack([np.asarray(lax.dynamic_update_slice(xs[k] if batched_x else x, upd, (int(other), int(starts[k])))) for k in range(n)])
    np.testing.assert_array_equal(np.asarray(got_u), want_u)
    jitted_u = tdx.jit(tdx.vmap(put, in_axes=(0 if batched_x else None, 0)))(operand, starts)
    np.testing.assert_array_equal(np.asarray(jitted_u), want_u)
