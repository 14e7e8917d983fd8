"""``concatenate``, ``pad`` (negative and interior padding), ``rev``, ``iota``,
``squeeze`` and the ``expand_dims`` function (issue 11): against NumPy and
``jax.lax``, ``jit`` against eager, ``vmap`` against a loop, JVPs, linearity
and transposes (``laws`` from ``test_slicing.py``), and the error paths."""

from __future__ import annotations

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
from typedax.core.avals import ShapedArray
from typedax.primitives import concatenate_p, iota_p, pad_p, squeeze_p

from _examples import ci_examples
from test_slicing import DTYPES, F64, dtypes, laws, rand, same, seeds, shapes

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


# -- concatenate ------------------------------------------------------------------------
@settings(max_examples=30)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple), st.integers(1, 3), dtypes, seeds, st.data())
def test_concatenate(shape: tuple[int, ...], n: int, dtype: np.dtype[Any], seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    d = data.draw(st.integers(0, len(shape) - 1))
    xs = []
    for _ in range(n):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3))
        xs.append(rand(rng, tuple(s), dtype))
    want = np.concatenate(xs, axis=d)
    same(jax.lax.concatenate([jnp.asarray(x) for x in xs], d), want)

    def f(*xs: Any) -> Any:
        return lax.concatenate(xs, d)

    laws(f, xs, want, seed=seed, linear=range(n))


def test_concatenate_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="non-empty"):
        lax.concatenate([], 0)
    with pytest.raises(PrimitiveTypeError, match="one dtype"):
        lax.concatenate([np.zeros(2), np.zeros(2, np.float32)], 0)
    with pytest.raises(PrimitiveTypeError, match="agree in every dimension but 0"):
        lax.concatenate([np.zeros((2, 3)), np.zeros((2, 2))], 0)
    with pytest.raises(PrimitiveTypeError, match="dimension=1 is not an axis"):
        lax.concatenate([np.zeros(2), np.zeros(2)], 1)
    with pytest.raises(PrimitiveTypeError, match="dimension=0 is not an axis"):
        lax.concatenate([np.zeros(()), np.zeros(())], 0)
    with pytest.raises(PrimitiveTypeError, match="needs at least one operand"):
        concatenate_p.abstract_eval([], pmap({"dimension": 0}))


# -- pad ---------------------------------------------------------------------------------
def pad_ref(x: np.ndarray, pv: Any, config: list[tuple[int, int, int]]) -> np.ndarray:
    """XLA's pad written out: output index j reads x[e] where j = lo + e * (interior + 1)."""
    out_shape = tuple(lo + hi + n + max(n - 1, 0) * it for n, (lo, hi, it) in zip(x.shape, config))
    out = np.full(out_shape, pv, x.dtype)
    for e in np.ndindex(*x.shape):
        j = tuple(lo + i * (it + 1) for i, (lo, _, it) in zip(e, config))
        if all(0 <= a < m for a, m in zip(j, out_shape)):
            out[j] = x[e]
    return out


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[tuple[int, int, int]]]:
    shape = draw(shapes)
    config = []
    for n in shape:
        it = draw(st.integers(0, 2))
        size = n + max(n - 1, 0) * it
        lo = draw(st.integers(-size - 1, 3))
        hi = draw(st.integers(max(-size - lo, -3), 3))
        config.append((lo, hi, it))
    return shape, config


@ci_examples(25, otherwise=50)
@given(pad_cases(), dtypes, seeds)
def test_pad(case: tuple[tuple[int, ...], list[tuple[int, int, int]]], dtype: np.dtype[Any], seed: int) -> None:
    shape, config = case
    rng = np.random.default_rng(seed)
    x, pv = rand(rng, shape, dtype), rand(rng, (), dtype)
    want = pad_ref(x, pv, config)
    same(jax.lax.pad(jnp.asarray(x), jnp.asarray(pv), config), want)

    def f(x: Any, pv: Any) -> Any:
        return lax.pad(x, pv, config)

    laws(f, [x, pv], want, seed=seed, linear=[0, 1])


def test_pad_transpose_gives_the_padding_value_the_padded_region() -> None:
    x = np.arange(3.0)
    _, pullback = tdx.vjp(lambda x, v: lax.pad(x, v, [(2, -1, 1)]), x, np.float64(0.0))
    ct = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])  # [v, v, x0, v, x1, v] (x2 cropped)
    ct_x, ct_v = pullback(tnp.asarray(ct))
    same(ct_x, np.array([3.0, 5.0, 0.0]))
    same(ct_v, np.float64(1.0 + 2.0 + 4.0 + 6.0))


def test_pad_with_a_python_scalar_and_batched_padding_value() -> None:
    x = np.arange(4, dtype=np.int32)
    same(lax.pad(x, 7, [(1, 1, 1)]), jax.lax.pad(x, np.int32(7), [(1, 1, 1)]))
    xs, vs = np.arange(6.0).reshape(2, 3), np.array([-1.0, -2.0])
    got = tdx.vmap(lambda x, v: lax.pad(x, v, [(1, -1, 1)]))(xs, vs)
    same(got, np.stack([pad_ref(xs[i], vs[i], [(1, -1, 1)]) for i in range(2)]))
    got = tdx.vmap(lambda v: lax.pad(xs, v, [(0, 0, 0), (1, 2, 0)]), in_axes=0)(vs)
    same(got, np.stack([pad_ref(xs, vs[i], [(0, 0, 0), (1, 2, 0)]) for i in range(2)]))


def test_pad_errors() -> None:
    x = np.zeros((2, 3))
    with pytest.raises(PrimitiveTypeError, match="negative dimension"):
        lax.pad(x, 0.0, [(0, 0, 0), (-2, -2, 0)])
    with pytest.raises(PrimitiveTypeError, match="interior padding must be non-negative"):
        lax.pad(x, 0.0, [(0, 0, 0), (0, 0, -1)])
    with pytest.raises(PrimitiveTypeError, match="one \\(low, high, interior\\) per dimension"):
        lax.pad(x, 0.0, [(0, 0, 0)])
    with pytest.raises(PrimitiveTypeError, match="padding_value must be a scalar of the operand's dtype"):
        lax.pad(x, np.float32(0.0), [(0, 0, 0), (0, 0, 0)])
    with pytest.raises(PrimitiveTypeError, match="padding_value must be a scalar"):
        lax.pad(x, np.zeros(2), [(0, 0, 0), (0, 0, 0)])
    with pytest.raises(PrimitiveTypeError, match="cannot pad an operand of dtype int32"):
        lax.pad(np.zeros(2, np.int32), 0.5, [(0, 0, 0)])
    with pytest.raises(PrimitiveTypeError, match="entries must be"):
        lax.pad(x, 0.0, [(0, 0), (0, 0, 0)])  # type: ignore[list-item]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="int triples"):
        pad_p.abstract_eval([ShapedArray((2,), F64), ShapedArray((), F64)], pmap({"padding_config": ((0, 0),)}))


# -- rev, squeeze, expand_dims --------------------------------------------------------------
@settings(max_examples=30)
@given(shapes, dtypes, seeds, st.data())
def test_rev(shape: tuple[int, ...], dtype: np.dtype[Any], seed: int, data: st.DataObject) -> None:
    x = rand(np.random.default_rng(seed), shape, dtype)
    dims = tuple(data.draw(st.permutations(range(len(shape))))[: data.draw(st.integers(0, len(shape)))])
    want = np.flip(x, dims)
    same(jax.lax.rev(jnp.asarray(x), dims), want)
    laws(lambda x: lax.rev(x, dims), [x], want, seed=seed, linear=[0])


@settings(max_examples=30)
@given(st.lists(st.integers(0, 3), max_size=4).map(tuple), dtypes, seeds, st.data())
def test_squeeze_and_expand_dims(shape: tuple[int, ...], dtype: np.dtype[Any], seed: int, data: st.DataObject) -> None:
    shape = tuple(1 if data.draw(st.booleans()) else n for n in shape)
    x = rand(np.random.default_rng(seed), shape, dtype)
    ones = [i for i, n in enumerate(shape) if n == 1]
    dims = data.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []
    dims = [d - len(shape) if data.draw(st.booleans()) else d for d in dims]  # negative too
    want = np.squeeze(x, tuple(dims))
    same(jax.lax.squeeze(jnp.asarray(x), dims), want)
    laws(lambda x: lax.squeeze(x, dims), [x], want, seed=seed, linear=[0])
    new = data.draw(st.lists(st.integers(-len(shape) - 1, len(shape)), unique=True, max_size=2))
    new_c = [d % (len(shape) + len(new)) for d in new]
    if len(set(new_c)) == len(new_c):
        want_e = np.asarray(jax.lax.expand_dims(jnp.asarray(x), new))
        laws(lambda x: lax.expand_dims(x, new), [x], want_e, seed=seed, linear=[0])


def test_rev_squeeze_expand_dims_errors() -> None:
    x = np.zeros((1, 3))
    with pytest.raises(PrimitiveTypeError, match="distinct axes"):
        lax.rev(x, (0, 0))
    with pytest.raises(PrimitiveTypeError, match="distinct axes"):
        lax.rev(x, (2,))
    with pytest.raises(PrimitiveTypeError, match=r"dimensions=\(1,\) of float64\[1,3\] must have size 1"):
        lax.squeeze(x, (1,))
    with pytest.raises(PrimitiveTypeError, match="not unique"):
        lax.squeeze(x, (0, -2))
    with pytest.raises(PrimitiveTypeError, match="out of bounds"):
        lax.squeeze(x, (2,))
    with pytest.raises(PrimitiveTypeError, match="distinct axes"):
        squeeze_p.abstract_eval([ShapedArray((1, 1), F64)], pmap({"dimensions": (0, 0)}))
    with pytest.raises(PrimitiveTypeError, match="repeated axis"):
        lax.expand_dims(x, (0, -4))
    with pytest.raises(PrimitiveTypeError, match="repeated axis"):
        lax.expand_dims(x, (1, 1))
    with pytest.raises(PrimitiveTypeError, match="out of bounds"):
        lax.expand_dims(x, (4,))


# -- iota ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != np.bool_])
def test_iota_and_broadcasted_iota_match_jax(dtype: np.dtype[Any]) -> None:
    for size in [0, 1, 5]:
        want = np.asarray(jax.lax.iota(dtype, size))
        same(lax.iota(dtype, size), want)
        same(tdx.jit(lambda: lax.iota(dtype, size))(), want)
    for shape, d in [((2, 3), 0), ((2, 3), 1), ((4,), 0), ((2, 0, 3), 2), ((1, 2, 3), 1)]:
        want = np.asarray(jax.lax.broadcasted_iota(dtype, shape, d))
        same(lax.broadcasted_iota(dtype, shape, d), want)
        same(tdx.jit(lambda: lax.broadcasted_iota(dtype, shape, d))(), want)
        jaxpr = tdx.make_jaxpr(lambda: lax.broadcasted_iota(dtype, shape, d))().jaxpr
        assert "iota" in str(jaxpr)
        from typedax.testing import assert_roundtrips

        assert_roundtrips(jaxpr)


def test_iota_under_transformations() -> None:
    x = np.arange(3.0)
    # vmap: iota is the same for every example (unbatched), then meets a batched value
    same(tdx.vmap(lambda x: x * lax.iota(np.float64, 3))(np.ones((2, 3))), np.tile(x, (2, 1)))
    y, t = tdx.jvp(lambda x: x + lax.iota(np.float64, 3), (x,), (np.ones(3),))
    same(y, 2 * x)
    same(t, np.ones(3))
    same(tdx.grad(lambda x: (x * lax.iota(np.float64, 3)).sum())(x), x)


def test_iota_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="dtype must be an integer or float type, got bool"):
        lax.iota(np.bool_, 3)
    with pytest.raises(PrimitiveTypeError, match="dimension=2 must be an axis"):
        lax.broadcasted_iota(np.int32, (2, 3), 2)
    with pytest.raises(PrimitiveTypeError, match="dimension=-1 must be an axis"):
        lax.broadcasted_iota(np.int32, (2, 3), -1)
    with pytest.raises(PrimitiveTypeError, match="negative size"):
        lax.iota(np.int32, -1)
    with pytest.raises(PrimitiveTypeError, match="iota takes 0 operand"):
        iota_p.abstract_eval(
            [ShapedArray((), F64)], pmap({"dtype": np.dtype(np.int32), "shape": (2,), "dimension": 0})
        )


# -- typedax.numpy: concatenate, stack, pad, flip, squeeze, expand_dims, arange, clip -----------
X = np.arange(6.0).reshape(2, 3)
I = np.arange(6, dtype=np.int32).reshape(2, 3)
NUMPY_CASES: dict[str, tuple[Any, Any]] = {
    "concatenate(promoted)": (lambda: tnp.concatenate([X, I], 1), lambda: jnp.concatenate([X, I], 1)),
    "concatenate(None)": (lambda: tnp.concatenate([I, I], None), lambda: jnp.concatenate([I, I], None)),
    "concatenate(dtype)": (lambda: tnp.concatenate([I, I], -1, dtype=np.float32),
                           lambda: jnp.concatenate([I, I], -1, dtype=np.float32)),
    "stack": (lambda: tnp.stack([X, I], -1), lambda: jnp.stack([X, I], -1)),
    "stack(dtype)": (lambda: tnp.stack([I, I], 1, dtype=np.float32), lambda: jnp.stack([I, I], 1, dtype=np.float32)),
    # an array, not a list: the sequence of its rows
    "stack(array)": (lambda: tnp.stack(tnp.asarray(X), 1), lambda: jnp.stack(jnp.asarray(X), 1)),
    "stack(numpy array)": (lambda: tnp.stack(X), lambda: jnp.stack(X)),
    "concatenate(array)": (lambda: tnp.concatenate(tnp.asarray(X)), lambda: jnp.concatenate(jnp.asarray(X))),
    "pad(int)": (lambda: tnp.pad(I, 1), lambda: jnp.pad(I, 1)),
    "pad(pairs)": (lambda: tnp.pad(I, ((1, 0), (2, 1)), constant_values=7),
                   lambda: jnp.pad(I, ((1, 0), (2, 1)), constant_values=7)),
    "pad(values per axis)": (lambda: tnp.pad(X, (1, 2), constant_values=((1, 2), (3, 4))),
                             lambda: jnp.pad(X, (1, 2), constant_values=((1, 2), (3, 4)))),
    "pad(float value, int array)": (lambda: tnp.pad(I, 1, constant_values=2.7),
                                    lambda: jnp.pad(I, 1, constant_values=2.7)),
    "flip": (lambda: tnp.flip(X), lambda: jnp.flip(X)),
    "flip(axes)": (lambda: tnp.flip(X, (0, -1)), lambda: jnp.flip(X, (0, -1))),
    "squeeze": (lambda: tnp.squeeze(np.ones((1, 3, 1))), lambda: jnp.squeeze(np.ones((1, 3, 1)))),
    "squeeze(axis)": (lambda: tnp.squeeze(np.ones((1, 3, 1)), -1), lambda: jnp.squeeze(np.ones((1, 3, 1)), -1)),
    "expand_dims": (lambda: tnp.expand_dims(X, (0, -1)), lambda: jnp.expand_dims(X, (0, -1))),
    "arange(5)": (lambda: tnp.arange(5), lambda: jnp.arange(5)),
    "arange(3.2)": (lambda: tnp.arange(3.2), lambda: jnp.arange(3.2)),
    "arange(0)": (lambda: tnp.arange(0), lambda: jnp.arange(0)),
    "arange(-1)": (lambda: tnp.arange(-1), lambda: jnp.arange(-1)),
    "arange(2, 7)": (lambda: tnp.arange(2, 7), lambda: jnp.arange(2, 7)),
    "arange(7, 2, -2)": (lambda: tnp.arange(7, 2, -2), lambda: jnp.arange(7, 2, -2)),
    "arange(0.5, 3, 0.5)": (lambda: tnp.arange(0.5, 3, 0.5), lambda: jnp.arange(0.5, 3, 0.5)),
    "arange(int32)": (lambda: tnp.arange(np.int32(4)), lambda: jnp.arange(np.int32(4))),
    "arange(dtype)": (lambda: tnp.arange(4, dtype=np.float32), lambda: jnp.arange(4, dtype=np.float32)),
    "clip": (lambda: tnp.clip(np.array([-2.0, 0.5, np.nan, 3.0]), 0, 1),
             lambda: jnp.clip(np.array([-2.0, 0.5, np.nan, 3.0]), 0, 1)),
    "clip(int, float)": (lambda: tnp.clip(I, 0.5), lambda: jnp.clip(I, 0.5)),
    "clip(max only)": (lambda: tnp.clip(I, max=np.float32(2.5)), lambda: jnp.clip(I, max=np.float32(2.5))),
    "clip(min > max)": (lambda: tnp.clip(X, 4, 1), lambda: jnp.clip(X, 4, 1)),
}


@pytest.mark.parametrize("name", NUMPY_CASES)
def test_numpy_functions_match_jax(name: str) -> None:
    ours, theirs = NUMPY_CASES[name]
    same(ours(), np.asarray(theirs()))


def test_numpy_functions_under_jit_and_grad() -> None:
    same(tdx.jit(lambda x: tnp.pad(x, 1, constant_values=2.0))(X), np.asarray(jnp.pad(X, 1, constant_values=2.0)))
    same(tdx.jit(lambda x: tnp.stack([x, tnp.flip(x)], 1))(X), np.stack([X, np.flip(X)], 1))
    g = tdx.grad(lambda x: (tnp.clip(x, 0.5, 3.0) * tnp.arange(3.0)).sum())(X)
    same(g, np.asarray(jax.grad(lambda x: (jnp.clip(x, 0.5, 3.0) * jnp.arange(3.0)).sum())(X)))


def test_numpy_function_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="at least one array"):
        tnp.concatenate([])
    with pytest.raises(PrimitiveTypeError, match="zero-dimensional"):
        tnp.concatenate([np.float64(1.0), np.float64(2.0)])
    with pytest.raises(PrimitiveTypeError, match="at least one array to stack"):
        tnp.stack([])
    with pytest.raises(PrimitiveTypeError, match="same shape"):
        tnp.stack([np.zeros(2), np.zeros(3)])
    with pytest.raises(NotImplementedError, match="mode"):  # every mode of JAX's pads now (tests/test_pad_modes.py)
        tnp.pad(X, 1, mode="no-such-mode")
    with pytest.raises(PrimitiveTypeError, match="non-negative"):
        tnp.pad(X, -1)
    with pytest.raises(TypeError, match="must be of integral type"):  # JAX's words
        tnp.pad(X, 1.5)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="unsupported shape"):  # JAX's class and words
        tnp.pad(X, ((1, 2, 3),))
    with pytest.raises(PrimitiveTypeError, match="size not equal to one"):
        tnp.squeeze(X, 0)
    with pytest.raises(PrimitiveTypeError, match="concrete scalar"):
        tdx.jit(lambda n: tnp.arange(n))(np.int32(3))
