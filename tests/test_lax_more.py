"""The ``lax`` compositions of ``typedax/_lax/extra.py`` against JAX:
element-wise (``rsqrt``, ``cbrt`` to stated ulps; ``square``,
``reciprocal`` exactly), builders and reshapers, ``batch_matmul``, the
scatter/gather conveniences and the general ``reduce`` -- values and dtypes
eagerly and under ``jit``, ``vmap`` against a loop, ``grad`` against
``jax.grad``, and each error."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax
from typedax.core.errors import PrimitiveTypeError
from typedax.core.array import Array
from typedax.core.trace import Value

from _examples import ci_some

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

# JAX, the oracle, untyped here: its signatures take its own Array, not NumPy arrays
jx: Any = jax
jl: Any = jax.lax
jn: Any = jnp

R = np.random.default_rng(3)


def same(got: object, want: object, rtol: float = 1e-12) -> None:
    """Equal dtype and shape; equal values (to ``rtol`` for floats; NaNs equal)."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=0, equal_nan=True)


def ulps(a: Any, b: Any) -> int:
    """The largest distance in units in the last place between finite
    elements; non-finite elements must be equal (NaN to NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype
    it: Any = {4: np.int32, 8: np.int64, 2: np.int16}[a.dtype.itemsize]
    fin = np.isfinite(a.astype(np.float64)) & np.isfinite(b.astype(np.float64))
    np.testing.assert_array_equal(a[~fin], b[~fin])

    def ordered(x: np.ndarray) -> np.ndarray:
        i = x.view(it).astype(np.int64)
        out: np.ndarray = np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)
        return out

    return int(np.abs(ordered(a) - ordered(b))[fin].max(initial=0))


def wide(dtype: type, n: int = 4000) -> np.ndarray:
    big = 37 if dtype == np.float32 else 300
    mags = np.concatenate([R.uniform(0, 10, n), 10.0 ** R.uniform(-big, big, n)])
    special = [0.0, -0.0, 1.0, 8.0, 27.0, np.inf, -np.inf, np.nan]
    return np.concatenate([mags * np.where(R.random(2 * n) < 0.5, -1, 1), special]).astype(dtype)


# -- element-wise ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsqrt_within_2_ulp_of_jax(dtype: type) -> None:
    x = np.abs(wide(dtype))
    x = np.concatenate([x, -x[:3]])
    want = np.asarray(jl.rsqrt(x))
    assert ulps(np.asarray(lax.rsqrt(x)), want) <= 2
    assert ulps(np.asarray(tdx.jit(lax.rsqrt)(x)), want) <= 2


@pytest.mark.parametrize(("dtype", "limit"), [(np.float32, 1), (np.float64, 3)])
def test_cbrt_ulps_against_jax_and_the_true_root(dtype: type, limit: int) -> None:
    x = wide(dtype)
    want = np.asarray(jl.cbrt(x))
    got = np.asarray(lax.cbrt(x))
    assert ulps(got, want) <= limit
    assert ulps(np.asarray(tdx.jit(lax.cbrt)(x)), want) <= limit
    assert ulps(got, np.cbrt(x)) <= (2 if dtype == np.float32 else 1)  # np.cbrt: the C library's
    np.testing.assert_array_equal(np.signbit(got[-8:-2]), np.signbit(want[-8:-2]))  # -0.0 stays -0.0


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_cbrt_cubes_back(v: float) -> None:
    got = float(np.asarray(lax.cbrt(np.float64(v))))
    if abs(v) < np.finfo(np.float64).tiny:  # a subnormal: a signed zero, as JAX's (XLA flushes it)
        assert got == 0.0 and np.signbit(got) == np.signbit(v)
        assert float(np.asarray(tdx.jit(lax.cbrt)(np.float64(v)))) == 0.0
        return
    assert ulps(np.asarray(got), np.asarray(np.cbrt(v))) <= 1


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_rsqrt_cbrt_half_floats_round_once_as_jax(dtype: Any) -> None:
    x = np.array([0.3, 2.0, 5.5, 100.0, 1e-3, 7.0], dtype)
    for f, jf in ((lax.rsqrt, jl.rsqrt), (lax.cbrt, jl.cbrt)):
        want = np.asarray(jf(x))
        assert ulps(np.asarray(f(x)), want) <= 1
        assert ulps(np.asarray(tdx.jit(f)(x)), want) <= 1
        assert np.asarray(f(x)).dtype == np.dtype(dtype)


def test_rsqrt_cbrt_derivatives_match_jax() -> None:
    x = np.array([0.2, 1.0, 3.0, 50.0])
    for f, jf in ((lax.rsqrt, jl.rsqrt), (lax.cbrt, jl.cbrt)):
        g = tdx.vmap(tdx.grad(f))(x)
        same(g, jx.vmap(jx.grad(jf))(x), rtol=1e-14)
        gg = tdx.grad(tdx.grad(f))(1.7)
        same(gg, jx.grad(jx.grad(jf))(1.7), rtol=1e-13)
    xs = np.array([-8.0, -0.5, 0.5, 8.0])
    same(tdx.vmap(tdx.grad(lax.cbrt))(xs), jx.vmap(jx.grad(jl.cbrt))(xs), rtol=1e-14)
    assert float(np.asarray(tdx.grad(lax.cbrt)(0.0))) == float(jx.grad(jl.cbrt)(0.0)) == np.inf


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64])
def test_square_reciprocal_exact(dtype: type) -> None:
    x: Any = (R.normal(size=20) * 50).astype(dtype)
    same(lax.square(x), jl.square(x), rtol=0)
    same(tdx.jit(lax.square)(x), jx.jit(jl.square)(x), rtol=0)
    if np.dtype(dtype).kind == "f":
        same(lax.reciprocal(x), jl.reciprocal(x), rtol=0)
        same(tdx.jit(lax.reciprocal)(x), jx.jit(jl.reciprocal)(x), rtol=0)
        same(tdx.vmap(tdx.grad(lax.square))(x), jx.vmap(jx.grad(jl.square))(x), rtol=0)
        same(tdx.vmap(tdx.grad(lax.reciprocal))(x), jx.vmap(jx.grad(jl.reciprocal))(x), rtol=1e-15)


def test_elementwise_errors() -> None:
    for f in (lax.rsqrt, lax.cbrt):
        with pytest.raises(PrimitiveTypeError, match=r"(rsqrt|cbrt): the operand must be floating point, got int32\[2\]"):
            f(np.array([1, 2], np.int32))
    with pytest.raises(PrimitiveTypeError, match=r"rsqrt: accuracy='high' is not supported"):
        lax.rsqrt(1.0, accuracy="high")  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match=r"cbrt: accuracy=1 is not supported"):
        lax.cbrt(1.0, accuracy=1)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="square: does not accept dtype bool"):
        lax.square(np.array([True]))
    with pytest.raises(PrimitiveTypeError, match="integer_pow"):
        lax.reciprocal(np.int32(2))


# -- builders ---------------------------------------------------------------------------------
FULL_CASES: list[tuple[Any, Any, Any]] = [
    ((2, 3), np.float32(1.5), None), ((4,), 300, np.uint8), ((2,), 2.7, np.int32), ((), np.int16(-3), None),
    (3, True, None), ((2, 2), -1.5, np.float16), ((0, 3), np.float64(2), np.int8), ((2,), 5, np.float32),
]


@pytest.mark.parametrize(("shape", "fill", "dtype"), FULL_CASES)
def test_full_matches_jax(shape: Any, fill: Any, dtype: Any) -> None:
    want = jl.full(shape, fill, dtype)
    same(lax.full(shape, fill, dtype), want, rtol=0)
    if not isinstance(fill, (bool, int, float)):
        same(tdx.jit(lambda v: lax.full(shape, v, dtype))(fill), want, rtol=0)
    like = np.zeros((3, 1), np.float32)
    same(lax.full_like(like, fill, dtype), jl.full_like(like, fill, dtype), rtol=0)
    same(lax.full_like(like, fill, dtype, shape), jl.full_like(like, fill, dtype, shape), rtol=0)
    if dtype is not None:
        same(lax.empty(shape, dtype), np.zeros(jl.empty(shape, dtype).shape, jl.empty(shape, dtype).dtype))


def test_full_weak_types_as_jax() -> None:
    from typedax.core.trace import aval_of

    cases: list[tuple[Any, Any]] = [
        (lambda m: m.full((3,), 2.0), None), (lambda m: m.full((3,), 2.0, np.float32), None),
        (lambda m: m.full((2,), 7), None), (lambda m: m.full((2,), np.float32(1)), None),
        (lambda m: m.full_like(2.0, 1), None), (lambda m: m.full_like(np.float32(1), 3), None),
        (lambda m: m.full_like(np.ones(2), 3), None), (lambda m: m.full_like(1.5, 3, np.float32), None),
    ]
    for build, _ in cases:
        got, want = build(lax), build(jl)
        same(got, want, rtol=0)
        assert aval_of(got).weak_type == want.aval.weak_type
    got = lax.full_like(tdx.numpy.sqrt(2.0), 1, shape=(2,))
    assert aval_of(got).weak_type and aval_of(got).shape == (2,)


def test_full_like_keeps_x_and_grad_is_zero() -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    same(lax.full_like(x, 7), jl.full_like(x, 7))
    same(tdx.jit(lambda a: lax.full_like(a, 2.5, np.float32))(x), jl.full_like(x, 2.5, np.float32))
    g = tdx.grad(lambda v: lax.reduce_sum(lax.full((3,), v), (0,)))(2.0)
    assert float(np.asarray(g)) == 3.0


@pytest.mark.parametrize(
    "x", [1.0, 1, True, float, int, np.float32, np.int8, "float16", np.dtype("uint32"), np.ones(2, np.float16),
          np.int16(3), ml_dtypes.bfloat16]
)
def test_dtype_matches_jax(x: Any) -> None:
    assert lax.dtype(x) == jl.dtype(x)
    if isinstance(x, np.ndarray):
        assert tdx.jit(lambda a: lax.full((), 0, lax.dtype(a)))(x).dtype == x.dtype


@pytest.mark.parametrize("shapes", [((3, 1), (4,)), ((1,), (4,)), ((3, 1), (1, 4), (5, 1, 1)), ((),), ((0, 1), (3,))])
def test_broadcast_shapes_matches_jax(shapes: Any) -> None:
    assert lax.broadcast_shapes(*shapes) == jl.broadcast_shapes(*shapes)


def test_shape_functions_match_jax() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    same(lax.broadcast_to_rank(x[0, 0], 3), jl.broadcast_to_rank(x[0, 0], 3))
    same(lax.broadcast_to_rank(x, 1), jl.broadcast_to_rank(x, 1))  # a lower rank adds nothing
    same(lax.broadcast_like(x[0, :, :1], x), jl.broadcast_like(x[0, :, :1], x))
    for lo, hi in ((0, 2), (1, None), (-2, None), (0, 3), (1, 1), (0, -1)):
        same(lax.collapse(x, lo, hi), jl.collapse(x, lo, hi))
    for axis in (0, 1, 2, -1, -3):
        n = x.shape[axis]
        for sizes in ([n], [1, n - 1], [0, n, 0]):
            got, want = lax.split(x, sizes, axis), jl.split(x, sizes, axis)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                same(g, w)
        same(lax.stack([x, x + 1], axis), jl.stack([x, x + 1], axis))
        for g, w in zip(lax.unstack(x, axis), jl.unstack(x, axis)):
            same(g, w)
    for reps in ((1, 1, 1), (2, 1, 3), (0, 2, 1)):
        same(lax.tile(x, reps), jl.tile(x, reps))
        same(tdx.jit(lambda a: lax.tile(a, reps))(x), jl.tile(x, reps))
    same(lax.stack([1.0, 2.0]), jl.stack([1.0, 2.0]))


def test_shape_functions_grad_and_vmap() -> None:
    x = R.normal(size=(3, 4))
    w = R.normal(size=(6, 8))
    g = tdx.grad(lambda a: lax.reduce_sum(lax.mul(lax.tile(a, (2, 2)), w), (0, 1)))(x)
    same(g, jx.grad(lambda a: (jl.tile(a, (2, 2)) * w).sum())(x))
    g = tdx.grad(lambda a: lax.reduce_sum(lax.mul(lax.split(a, [1, 3], 1)[1], x[:, 1:]), (0, 1)))(x)
    same(g, jx.grad(lambda a: (jl.split(a, [1, 3], 1)[1] * x[:, 1:]).sum())(x))
    got = tdx.vmap(lambda r: lax.tile(r, (3,)))(x)
    same(got, np.stack([np.asarray(lax.tile(r, (3,))) for r in x]))
    got = tdx.vmap(lambda r: lax.split(r, [2, 1])[0], in_axes=1)(x)
    same(got, np.stack([np.asarray(lax.split(x[:, j], [2, 1])[0]) for j in range(4)]))


@pytest.mark.parametrize(("ls", "rs"), [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (2, 1, 4, 2))])
def test_batch_matmul_matches_jax(ls: tuple[int, ...], rs: tuple[int, ...]) -> None:
    a, b = R.normal(size=ls), R.normal(size=rs)
    same(lax.batch_matmul(a, b), jl.batch_matmul(a, b))
    same(tdx.jit(lax.batch_matmul)(a, b), jl.batch_matmul(a, b))
    def loss(u: Value, v: Value) -> Array:
        return lax.reduce_sum(lax.batch_matmul(u, v), tuple(range(len(ls))))

    g: Any = tdx.grad(loss, argnums=(0, 1))(a, b)
    jg = jx.grad(lambda u, v: jl.batch_matmul(u, v).sum(), argnums=(0, 1))(a, b)
    same(g[0], jg[0])
    same(g[1], jg[1])
    ai, bi = a.astype(np.int32), b.astype(np.int32)
    same(lax.batch_matmul(ai, bi), jl.batch_matmul(ai, bi))


def test_builder_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"full: must be called with a scalar fill_value, got fill_value of shape \(2,\)"):
        lax.full(3, np.ones(2))
    with pytest.raises(PrimitiveTypeError, match=r"full: shape \(2, -1\) has a negative dimension"):
        lax.full((2, -1), 0.0)
    with pytest.raises(PrimitiveTypeError, match="full: shape must be integers"):
        lax.full((2.0,), 0.0)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="dtype: cannot determine the dtype of \\[1, 2\\]"):
        lax.dtype([1, 2])
    with pytest.raises(PrimitiveTypeError, match="dtype: None has no dtype"):
        lax.dtype(None)
    with pytest.raises(PrimitiveTypeError, match="dtype: 'U' .* is not a typedax array type"):
        lax.dtype("U")
    with pytest.raises(PrimitiveTypeError, match=r"broadcast_shapes: incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        lax.broadcast_shapes((3,), (4,))
    with pytest.raises(PrimitiveTypeError, match="broadcast_shapes: only non-negative dimensions"):
        lax.broadcast_shapes((-1,), (4,))
    with pytest.raises(PrimitiveTypeError, match="broadcast_shapes: give at least one shape"):
        lax.broadcast_shapes()
    with pytest.raises(PrimitiveTypeError, match="broadcast_to_rank: rank must be an integer"):
        lax.broadcast_to_rank(np.ones(2), 2.0)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match=r"broadcast_like: cannot broadcast shape \(3,\) to \(2, 4\)"):
        lax.broadcast_like(np.ones(3), np.ones((2, 4)))
    with pytest.raises(PrimitiveTypeError, match=r"collapse: invalid dimension range \(2, 3, 4\)\[2:1\]"):
        lax.collapse(np.ones((2, 3, 4)), 2, 1)
    with pytest.raises(PrimitiveTypeError, match="collapse: start_dimension must be an integer or None"):
        lax.collapse(np.ones((2, 3)), 0.5)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match=r"split: the sum of sizes 3 must equal dimension 0 of the operand shape \[6\]"):
        lax.split(np.arange(6), [1, 2])
    with pytest.raises(PrimitiveTypeError, match=r"split: sizes must be non-negative, got \[-1, 7\]"):
        lax.split(np.arange(6), [-1, 7])
    with pytest.raises(PrimitiveTypeError, match="split: axis 1 is out of bounds for an array of rank 1"):
        lax.split(np.arange(6), [6], 1)
    with pytest.raises(PrimitiveTypeError, match=r"tile: the length of reps must equal the rank of the operand, got len\(reps\)=2"):
        lax.tile(np.arange(3), (2, 2))
    with pytest.raises(PrimitiveTypeError, match=r"tile: reps must be non-negative, got \(-1,\)"):
        lax.tile(np.arange(3), (-1,))
    with pytest.raises(PrimitiveTypeError, match="stack: needs at least one operand"):
        lax.stack([])
    with pytest.raises(PrimitiveTypeError, match="unstack: the operand must have rank > 0"):
        lax.unstack(np.float64(1.0))
    with pytest.raises(PrimitiveTypeError, match="batch_matmul: the arguments must be at least 2-d, got ranks 1 and 2"):
        lax.batch_matmul(np.ones(3), np.ones((3, 2)))
    with pytest.raises(PrimitiveTypeError, match="batch_matmul: the arguments must have one rank, got 2 and 3"):
        lax.batch_matmul(np.ones((3, 4)), np.ones((2, 4, 5)))


# -- scatter and gather conveniences -------------------------------------------------------------
DN1 = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
JDN1 = jl.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
DN2 = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
JDN2 = jl.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
IDX = np.array([[1], [1], [3], [9], [-1], [0]])


@pytest.mark.parametrize("mode", [None, "clip", "drop"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8])
def test_scatter_sub_matches_jax(mode: str | None, dtype: type) -> None:
    x: Any = (np.arange(5) * 3 + 10).astype(dtype)
    u: Any = np.array([1, 2, 3, 4, 5, 6]).astype(dtype)
    want = jl.scatter_sub(x, IDX, u, JDN1, mode=mode)
    same(lax.scatter_sub(x, IDX, u, DN1, mode=mode), want, rtol=0)
    same(tdx.jit(lambda a, i, b: lax.scatter_sub(a, i, b, DN1, mode=mode))(x, IDX, u), want, rtol=0)
    x2, u2 = R.normal(size=(4, 3)).astype(np.float32), R.normal(size=(3, 3)).astype(np.float32)
    i2 = np.array([[0], [2], [0]])
    same(lax.scatter_sub(x2, i2, u2, DN2, mode=mode), jl.scatter_sub(x2, i2, u2, JDN2, mode=mode), rtol=0)


def test_scatter_sub_grad_and_vmap() -> None:
    x, u = R.normal(size=5), R.normal(size=6)
    w = R.normal(size=5)
    def loss(a: Value, b: Value) -> Array:
        return lax.reduce_sum(lax.mul(lax.scatter_sub(a, IDX, b, DN1), w), (0,))

    g: Any = tdx.grad(loss, argnums=(0, 1))(x, u)
    jg = jx.grad(lambda a, b: (jl.scatter_sub(a, IDX, b, JDN1) * w).sum(), argnums=(0, 1))(x, u)
    same(g[0], jg[0])
    same(g[1], jg[1])
    xs, us = R.normal(size=(3, 5)), R.normal(size=(3, 6))
    got = tdx.vmap(lambda a, b: lax.scatter_sub(a, IDX, b, DN1))(xs, us)
    same(got, np.stack([np.asarray(lax.scatter_sub(a, IDX, b, DN1)) for a, b in zip(xs, us)]))


@pytest.mark.parametrize("mode", [None, "clip", "drop"])
def test_scatter_apply_matches_jax(mode: str | None) -> None:
    x = np.arange(1.0, 6.0)
    want = jl.scatter_apply(x, IDX, lambda v: v * 3.0 + 1.0, JDN1, update_shape=(6,), mode=mode)
    f = lambda v: lax.add(lax.mul(v, 3.0), 1.0)  # noqa: E731
    same(lax.scatter_apply(x, IDX, f, DN1, update_shape=(6,), mode=mode), want, rtol=0)
    same(tdx.jit(lambda a: lax.scatter_apply(a, IDX, f, DN1, update_shape=(6,), mode=mode))(x), want, rtol=0)
    xi = np.arange(12, dtype=np.int32).reshape(4, 3)
    i2 = np.array([[0], [2], [0]])
    want = jl.scatter_apply(xi, i2, lambda v: v * 2, JDN2, update_shape=(3, 3), mode=mode)
    same(lax.scatter_apply(xi, i2, lambda v: lax.mul(v, np.int32(2)), DN2, update_shape=(3, 3), mode=mode), want)
    uniq = np.array([[4], [0]])
    want = jl.scatter_apply(x, uniq, jn.sin, JDN1, update_shape=(2,), unique_indices=True)
    got = lax.scatter_apply(x, uniq, lax.sin, DN1, update_shape=(2,), unique_indices=True)
    same(got, want, rtol=1e-15)
    g = tdx.grad(lambda a: lax.reduce_sum(lax.scatter_apply(a, uniq, lax.sin, DN1, update_shape=(2,), unique_indices=True), (0,)))(x)
    same(g, np.where(np.isin(np.arange(5), [0, 4]), np.cos(x), 1.0))


def test_index_take_matches_jax() -> None:
    src = np.arange(60.0).reshape(3, 4, 5)
    cases = [
        ([np.array([0, -1, 5]), np.array([1, 7, -9])], (0, 1)),
        ([np.array([2, 0, 4, 1])], (2,)),
        ([np.array([0]), np.array([3]), np.array([-6])], (0, 1, 2)),
    ]
    for idxs, axes in cases:
        want = jl.index_take(src, [jn.asarray(i) for i in idxs], axes)
        same(lax.index_take(src, idxs, axes), want)
        same(tdx.jit(lambda s, *ix: lax.index_take(s, list(ix), axes))(src, *idxs), want)
    # index arrays of more dimensions (JAX's takes 1-d ones only): src[i, :, j] element by element
    i, j = np.array([[0, 2], [1, -1]]), np.array([[4, 0], [3, 3]])
    same(lax.index_take(src, [i, j], (0, 2)), src[i % 3, :, j % 5])
    g = tdx.grad(lambda s: lax.reduce_sum(lax.index_take(s, [np.array([0, 0, 2])], (0,)), (0, 1, 2)))(src)
    same(g, jx.grad(lambda s: jl.index_take(s, [jn.array([0, 0, 2])], (0,)).sum())(src))


def test_scatter_gather_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="scatter_sub: does not accept bool updates"):
        lax.scatter_sub(np.ones(5, bool), IDX, np.ones(6, bool), DN1)
    with pytest.raises(PrimitiveTypeError, match=r"scatter_apply: func must map a float64 scalar to a float64 scalar, got float32\[\]"):
        lax.scatter_apply(np.ones(5), IDX, lambda v: lax.convert_element_type(v, np.float32), DN1, update_shape=(6,))
    with pytest.raises(PrimitiveTypeError, match="scatter_apply: func must map"):
        lax.scatter_apply(np.ones(5), IDX, lambda v: (v, v), DN1, update_shape=(6,))  # type: ignore[arg-type, return-value]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="scatter"):
        lax.scatter_apply(np.ones(5), IDX, lax.sin, DN1, update_shape=(2,))
    with pytest.raises(PrimitiveTypeError, match=r"index_take: needs one index array per axis, got 1 for axes \(0, 1\)"):
        lax.index_take(np.ones((2, 2)), [np.array([0])], (0, 1))
    with pytest.raises(PrimitiveTypeError, match=r"index_take: axes \(0, 0\) must be distinct axes"):
        lax.index_take(np.ones((2, 2)), [np.array([0]), np.array([1])], (0, 0))
    with pytest.raises(PrimitiveTypeError, match="index_take: the index arrays must be integers of one shape"):
        lax.index_take(np.ones((2, 2)), [np.array([0.0])], (0,))
    with pytest.raises(PrimitiveTypeError, match="gather: collapsed_slice_dims must be sorted"):  # JAX's error too
        lax.index_take(np.ones((2, 2)), [np.array([0]), np.array([1])], (1, 0))
    with pytest.raises(PrimitiveTypeError, match="index_take: the index arrays must be integers of one shape"):
        lax.index_take(np.ones((2, 2)), [np.array([0]), np.array([0, 1])], (0, 1))


# -- reduce ---------------------------------------------------------------------------------------
MONOIDS: list[tuple[Any, Any, str | None, Any]] = [
    (lax.add, 0, "reduce_sum", np.float32), (lax.mul, 1, "reduce_prod", np.int32),
    (lax.max, -np.inf, "reduce_max", np.float64), (lax.min, np.iinfo(np.int16).max, "reduce_min", np.int16),
    (lax.max, False, "reduce_max", np.bool_), (lax.bitwise_and, -1, "reduce_and", np.int64),
    (lax.bitwise_or, 0, "reduce_or", np.uint8), (lax.bitwise_and, True, "reduce_and", np.bool_),
    (lax.bitwise_xor, 0, None, np.int32), (lax.min, np.inf, "reduce_min", np.float32),
]
J_OF = {lax.add: jl.add, lax.mul: jl.mul, lax.max: jl.max, lax.min: jl.min,
        lax.bitwise_and: jl.bitwise_and, lax.bitwise_or: jl.bitwise_or, lax.bitwise_xor: jl.bitwise_xor}


@pytest.mark.parametrize(("comp", "init", "prim", "dtype"), MONOIDS)
def test_reduce_monoids_are_the_primitives(comp: Any, init: Any, prim: str | None, dtype: type) -> None:
    x: Any = (R.normal(size=(3, 4, 5)) * 4).astype(dtype)
    init_v: Any = np.asarray(init).astype(dtype)
    # ci: two of the four sets of dimensions (each compiles), rotating over the monoids; make
    # test-long runs all four for each
    for dims in ci_some([(0,), (1, 2), (0, 1, 2), ()], 2 * MONOIDS.index((comp, init, prim, dtype)), 2):
        want = jl.reduce(x, init_v, J_OF[comp], dims)
        same(lax.reduce(x, init_v, comp, dims), want, rtol=1e-6)
        same(tdx.jit(lambda a: lax.reduce(a, init_v, comp, dims))(x), want, rtol=1e-6)
    text = str(tdx.make_jaxpr(lambda a: lax.reduce(a, init_v, comp, (1,)))(x))
    if prim is not None:
        assert prim in text and "while" not in text


def test_reduce_general_computations_match_jax() -> None:
    x = R.normal(size=(4, 6))
    # not the identity: the init value is folded in once, as XLA does
    same(lax.reduce(x, 1.5, lax.add, (1,)), jl.reduce(x, 1.5, jl.add, (1,)))
    same(lax.reduce(x, np.float64(-2.0), lax.max, (0,)), jl.reduce(x, np.float64(-2.0), jl.max, (0,)))
    # an argmax as a pair reduction
    idx = np.broadcast_to(np.arange(6), (4, 6)).astype(np.int32)

    def pick(a: tuple[Value, Value], b: tuple[Value, Value]) -> tuple[Value, Value]:
        take_a = lax.ge(a[0], b[0])
        return lax.select(take_a, a[0], b[0]), lax.select(take_a, a[1], b[1])

    def jpick(a: Any, b: Any) -> Any:
        take_a = a[0] >= b[0]
        return jn.where(take_a, a[0], b[0]), jn.where(take_a, a[1], b[1])

    init = (np.float64(-np.inf), np.int32(0))
    got: Any = lax.reduce((x, idx), init, pick, (1,))
    want = jl.reduce((x, idx), init, jpick, (1,))
    same(got[0], want[0])
    same(got[1], want[1])
    same(got[1], np.argmax(x, axis=1).astype(np.int32))
    got = tdx.jit(lambda a, i: lax.reduce((a, i), init, pick, (1,)))(x, idx)
    same(got[1], want[1])
    # a non-commutative associative computation: composition of affine maps, in order
    a, b = R.uniform(0.5, 1.5, size=(7, 3)), R.normal(size=(7, 3))

    def compose(p: tuple[Value, Value], q: tuple[Value, Value]) -> tuple[Value, Value]:
        return lax.mul(q[0], p[0]), lax.add(lax.mul(q[0], p[1]), q[1])

    pair: Any = lax.reduce((a, b), (1.0, 0.0), compose, (0,))
    ga, gb = pair
    h = np.zeros(3)
    for t in range(7):
        h = a[t] * h + b[t]
    same(gb, h)
    same(ga, np.prod(a, axis=0))


@given(st.integers(0, 19), st.integers(1, 3))
def test_reduce_general_is_a_fold(n: int, m: int) -> None:
    x = np.arange(n * m, dtype=np.int64).reshape(n, m) % 7 - 3
    got = lax.reduce(x, np.int64(5), lambda u, v: lax.sub(lax.add(u, v), np.int64(1)), (0,))
    np.testing.assert_array_equal(np.asarray(got), 5 + x.sum(0) - n)


def test_reduce_general_grad_jvp_vmap() -> None:
    x = R.normal(size=(3, 5))

    def soft(u: Value, v: Value) -> Value:  # log-sum-exp pair: associative
        m = lax.max(u, v)
        return lax.add(m, lax.log(lax.add(lax.exp(lax.sub(u, m)), lax.exp(lax.sub(v, m)))))

    def jsoft(u: Any, v: Any) -> Any:
        return jn.logaddexp(u, v)

    def f(a: Value) -> Array:
        return lax.reduce_sum(lax.reduce(a, -np.inf, soft, (1,)), (0,))

    jf: Any = lambda a: jl.reduce(a, -np.inf, jsoft, (1,)).sum()  # noqa: E731
    same(f(x), jf(x))
    same(tdx.grad(f)(x), jx.grad(jf)(x), rtol=1e-12)
    t = R.normal(size=(3, 5))
    _, tan = tdx.jvp(f, (x,), (t,))
    _, jtan = jx.jvp(jf, (x,), (t,))
    same(tan, jtan, rtol=1e-12)
    xs = R.normal(size=(4, 3, 5))
    got = tdx.vmap(lambda a: lax.reduce(a, -np.inf, soft, (0,)))(xs)
    same(got, np.stack([np.asarray(lax.reduce(a, -np.inf, soft, (0,))) for a in xs]))


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.bool_])
def test_reduce_xor_matches_jax(dtype: type) -> None:
    x: Any = R.integers(0, 200, size=(3, 5, 4)).astype(dtype)
    # ci: two of the five sets of axes (each compiles), rotating over the dtypes; make test-long
    # runs all five for each
    d = [np.int8, np.uint32, np.int64, np.bool_].index(dtype)
    for axes in ci_some([(0,), (2,), (0, 2), (0, 1, 2), ()], 2 * d, 2):
        want = jl.reduce_xor(x, axes)
        same(lax.reduce_xor(x, axes), want)
        same(tdx.jit(lambda a: lax.reduce_xor(a, axes))(x), want)
    got = tdx.vmap(lambda a: lax.reduce_xor(a, (1,)))(x)
    same(got, np.stack([np.asarray(lax.reduce_xor(a, (1,))) for a in x]))


def test_reduce_errors() -> None:
    x = np.ones((2, 3))
    with pytest.raises(PrimitiveTypeError, match="reduce: operands and init_values must be pytrees of one structure"):
        lax.reduce((x, x), 0.0, lax.add, (0,))
    with pytest.raises(PrimitiveTypeError, match="reduce: the operands must have one shape"):
        lax.reduce((x, np.ones(3)), (0.0, 0.0), lambda a, b: a, (0,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce: dimensions \(2,\) must be distinct axes in \[0, 2\)"):
        lax.reduce(x, 0.0, lax.add, (2,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce: dimensions \(0, 0\) must be distinct axes"):
        lax.reduce(x, 0.0, lax.add, (0, 0))
    with pytest.raises(PrimitiveTypeError, match=r"reduce: init values must be scalars of their operands' dtypes, got float64\[2\]"):
        lax.reduce(x, np.zeros(2), lax.add, (0,))
    with pytest.raises(PrimitiveTypeError, match=r"got float32\[\] for an operand of dtype float64"):
        lax.reduce(x, np.float32(0), lax.add, (0,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce: the computation must take two .* and return one, got"):
        lax.reduce(x, 0.0, lambda a, b: (a, b), (0,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce: the computation must take two \* of \(float64\[\]\) and return one, got \* of \(float32\[\]\)"):
        lax.reduce(x, 0.0, lambda a, b: lax.convert_element_type(a, np.float32), (0,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce_xor: the operand must be bool or an integer, got float64\[2,3\]"):
        lax.reduce_xor(x, (0,))
    with pytest.raises(PrimitiveTypeError, match=r"reduce_xor: axes \(5,\) must be distinct axes"):
        lax.reduce_xor(x.astype(np.int32), (5,))
