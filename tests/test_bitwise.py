"""The bitwise primitives against jax.lax: not/and/or/xor on bools and
integers, the shifts with every amount (negative and >= the bit width, where
XLA shifts every bit out), population_count; eager bit for bit with jit; zero
tangents; vmap vs a loop; typedax.numpy's bitwise and shift functions against
jax.numpy; every error path."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from _examples import ci_examples
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS
from typedax.primitives import bitwise

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

BINARY: dict[str, tuple[Callable[[tdx.ArrayLike, tdx.ArrayLike], tdx.Array], Callable[..., jax.Array]]] = {
    "bitwise_and": (lax.bitwise_and, jax.lax.bitwise_and),
    "bitwise_or": (lax.bitwise_or, jax.lax.bitwise_or),
    "bitwise_xor": (lax.bitwise_xor, jax.lax.bitwise_xor),
    "shift_left": (lax.shift_left, jax.lax.shift_left),
    "shift_right_logical": (lax.shift_right_logical, jax.lax.shift_right_logical),
    "shift_right_arithmetic": (lax.shift_right_arithmetic, jax.lax.shift_right_arithmetic),
}
SHIFTS = {"shift_left", "shift_right_logical", "shift_right_arithmetic"}


def ints(dtype: str) -> st.SearchStrategy[int]:
    info = np.iinfo(dtype)
    return st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-70, 70))


def same(got: object, want: object) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_array_equal(g, w)


@ci_examples(30, otherwise=60, deadline=None)
@given(st.sampled_from(sorted(BINARY)), st.sampled_from(["int32", "int64"]), st.data())
def test_binary_integer_operations_match_jax_eagerly_and_under_jit(name: str, dtype: str, data: st.DataObject) -> None:
    shape = data.draw(hnp.array_shapes(max_dims=2, max_side=5))
    x = data.draw(hnp.arrays(dtype, shape, elements=ints(dtype)))
    y = data.draw(hnp.arrays(dtype, shape, elements=ints(dtype)))
    f, jf = BINARY[name]
    want = jf(x, y)
    same(f(x, y), want)
    same(tdx.jit(f)(x, y), want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_shift_amounts_at_and_beyond_the_bit_width(dtype: str) -> None:
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    xs = np.array([info.min, -5, -1, 0, 1, 7, info.max], dtype)
    ys = np.array([-(2**31), -bits, -1, 0, 1, bits - 1, bits, bits + 1, 2**31 - 1], dtype)
    x, y = (a.ravel() for a in np.meshgrid(xs, ys, indexing="ij"))
    for name in SHIFTS:
        f, jf = BINARY[name]
        same(f(x, y), jf(x, y))
        same(tdx.jit(f)(x, y), jf(x, y))


def test_bool_and_unary_operations() -> None:
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        f, jf = BINARY[name]
        same(f(p, q), jf(p, q))
        same(tdx.jit(f)(p, q), jf(p, q))
    same(lax.bitwise_not(p), jax.lax.bitwise_not(p))
    for dtype in ("int32", "int64"):
        info = np.iinfo(dtype)
        x = np.array([info.min, -7, -1, 0, 1, 255, info.max], dtype)
        for u, ju in ((lax.bitwise_not, jax.lax.bitwise_not), (lax.population_count, jax.lax.population_count)):
            same(u(x), ju(x))
            same(tdx.jit(u)(x), ju(x))
    same(lax.shift_left(np.int32(1), 4), np.int32(16))  # a Python int takes the other operand's dtype


def test_tangents_are_zero_and_vmap_matches_a_loop() -> None:
    x = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
    y = np.array([1, 2, 40], np.int32)
    out, t = tdx.jvp(lambda a: lax.shift_right_arithmetic(a, y[None, :].repeat(2, 0)), (x,), (np.zeros_like(x),))
    assert np.asarray(t).dtype == tdx.float0 and np.asarray(t).shape == x.shape  # no derivative: float0, as jax.jvp

    def g(v: tdx.ArrayLike) -> tdx.Array:  # a float function through integer bit operations
        k = lax.population_count(lax.shift_left(lax.convert_element_type(v, np.int32), 2))
        return tnp.sum(v * lax.convert_element_type(k, np.float64))

    np.testing.assert_array_equal(np.asarray(tdx.grad(g)(np.array([3.0, 5.0]))), [2.0, 2.0])
    for f, _ in BINARY.values():
        got = np.asarray(tdx.vmap(lambda a: f(a, y))(x))
        np.testing.assert_array_equal(got, np.stack([np.asarray(f(r, y)) for r in x]))
        got = np.asarray(tdx.vmap(f, in_axes=(1, None))(x, x[:, 0]))
        np.testing.assert_array_equal(got, np.stack([np.asarray(f(x[:, i], x[:, 0])) for i in range(3)]))
    got = np.asarray(tdx.vmap(lax.population_count)(x))
    np.testing.assert_array_equal(got, np.asarray(lax.population_count(x)))


def test_errors() -> None:
    f32 = ShapedArray((2,), np.dtype(np.float32))
    b = ShapedArray((2,), np.dtype(np.bool_))
    i32 = ShapedArray((2,), np.dtype(np.int32))
    for prim in (bitwise.and_p, bitwise.or_p, bitwise.xor_p):
        with pytest.raises(PrimitiveTypeError, match=rf"{prim.name} accepts .* operands, got \(float32"):
            prim.abstract_eval([f32, f32], NO_PARAMS)
        with pytest.raises(PrimitiveTypeError, match=rf"{prim.name} requires operands of one shape and dtype"):
            prim.abstract_eval([i32, b], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=r"not accepts .* operands, got float32\[2\]"):
        bitwise.not_p.abstract_eval([f32], NO_PARAMS)
    for prim in (bitwise.shift_left_p, bitwise.shift_right_logical_p, bitwise.shift_right_arithmetic_p):
        with pytest.raises(PrimitiveTypeError, match=rf"{prim.name} accepts int8/int16/int32/int64/uint8/uint16/uint32/uint64 operands, got \(bool"):
            prim.abstract_eval([b, b], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=r"population_count accepts int8/int16/int32/int64/uint8/uint16/uint32/uint64 operands, got bool\[2\]"):
        bitwise.population_count_p.abstract_eval([b], NO_PARAMS)


# -- typedax.numpy -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"])
@pytest.mark.parametrize("dtypes", [("int32", "int32"), ("int32", "int64"), ("bool", "bool"), ("int64", "py")])
def test_numpy_functions_match_jax_numpy(name: str, dtypes: tuple[str, str]) -> None:
    if dtypes[0] == "bool" and "shift" in name:
        with pytest.raises(PrimitiveTypeError, match="only integers"):
            getattr(tnp, name)(np.array([True]), np.array([True]))
        return
    x = np.array([-9, -1, 0, 1, 6, 100]).astype(dtypes[0])
    y: object = 3 if dtypes[1] == "py" else np.array([0, 1, 2, 3, 31, 5]).astype(dtypes[1])
    same(getattr(tnp, name)(x, y), getattr(jnp, name)(x, y))


def test_numpy_unary_and_errors() -> None:
    for x in (np.array([-3, 0, 5], np.int32), np.array([True, False])):
        same(tnp.bitwise_not(x), jnp.bitwise_not(x))
    with pytest.raises(PrimitiveTypeError, match="bitwise_and: only integers and bools, got float32"):
        tnp.bitwise_and(np.array([1.0], np.float32), np.array([1.0], np.float32))
    with pytest.raises(PrimitiveTypeError, match="bitwise_not: only integers and bools"):
        tnp.bitwise_not(np.array([1.0]))
