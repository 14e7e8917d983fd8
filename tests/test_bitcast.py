"""``bitcast_convert_type`` and ``reduce_precision`` (primitives/bitcast.py):
JAX's bits eagerly and under ``jit`` (rounding, overflow, flushing, NaNs,
piece order), their derivatives, ``vmap`` against a loop, round trips and
errors."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis.extra import numpy as hnp

import typedax as tdx
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_cover, ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

EDGES32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 3.4e38, 65504.0, 65520.0,
                    1.0009765625, 2.0**-14, 2.0**-15, 2.0**-24, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-9], np.float32)


def _bits(a: Any) -> np.ndarray[Any, Any]:
    arr = np.asarray(a)
    return np.asarray(arr.view(f"u{arr.dtype.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
# ci: 12 examples (each compiles its exponent and mantissa widths, in both libraries); make
# test-long runs 25
@ci_examples(12, otherwise=25)
@given(data=st.data())
def test_reduce_precision_matches_jax_bit_for_bit(dtype: type[np.floating[Any]], data: st.DataObject) -> None:
    max_e, max_m = (8, 23) if dtype == np.float32 else (11, 52)
    e = data.draw(st.integers(1, max_e))
    m = data.draw(st.integers(0, max_m))
    x = data.draw(hnp.arrays(dtype, 8, elements=st.floats(width=32 if dtype == np.float32 else 64)))
    x = np.concatenate([x, EDGES32.astype(dtype)])
    want = _bits(jax.lax.reduce_precision(x, e, m))
    np.testing.assert_array_equal(_bits(lax.reduce_precision(x, e, m)), want)
    np.testing.assert_array_equal(_bits(tdx.jit(lambda v: lax.reduce_precision(v, e, m))(x)), want)


SRC = [np.float32, np.int32, np.uint32, np.float64, np.int8, np.uint16, np.int64, np.uint8]


# ci: each dtype as a source and as a destination, in 8 rotating pairs (each compiles, in both
# libraries); make test-long runs all 64 pairs
@pytest.mark.parametrize("dst,src", ci_cover(SRC, SRC))
def test_bitcast_matches_jax_in_shape_and_bits(dst: type[np.generic], src: type[np.generic]) -> None:
    so, do = np.dtype(src).itemsize, np.dtype(dst).itemsize
    raw = np.random.default_rng(so * 10 + do).integers(0, 256, 24 * so, dtype=np.uint8)
    x = raw.view(src).reshape((3, -1) if do <= so else (3, -1, do // so))
    want = np.asarray(jax.lax.bitcast_convert_type(x, dst))
    for got in (lax.bitcast_convert_type(x, dst), tdx.jit(lambda v: lax.bitcast_convert_type(v, dst))(x)):
        g = np.asarray(got)
        assert g.shape == want.shape and g.dtype == want.dtype
        np.testing.assert_array_equal(g.view(np.uint8), want.view(np.uint8))


def test_scalars_and_the_piece_order() -> None:
    pieces = lax.bitcast_convert_type(np.float32(1.0), np.uint8)
    np.testing.assert_array_equal(np.asarray(pieces), np.asarray(jax.lax.bitcast_convert_type(np.float32(1.0), np.uint8)))
    np.testing.assert_array_equal(np.asarray(pieces), [0, 0, 128, 63])  # low-order byte first
    back = lax.bitcast_convert_type(pieces, np.float32)
    assert back.shape == () and float(back) == 1.0


def test_vmap_matches_a_loop_with_the_batch_axis_anywhere() -> None:
    examples = np.arange(24, dtype=np.uint8).reshape(3, 4, 2)  # 3 examples of shape (4, 2)
    want = np.stack([np.asarray(lax.bitcast_convert_type(e, np.uint16)) for e in examples])
    for axis in (0, 1, 2):  # the batch axis last, too: widening takes the example's last axis
        got = tdx.vmap(lambda v: lax.bitcast_convert_type(v, np.uint16), in_axes=axis)(np.moveaxis(examples, 0, axis))
        np.testing.assert_array_equal(np.asarray(got), want)
    narrow = tdx.vmap(lambda v: lax.bitcast_convert_type(v, np.uint8), in_axes=1)(want.T)
    np.testing.assert_array_equal(np.asarray(narrow), examples)
    y = np.linspace(-3, 3, 12).reshape(3, 4)
    got = tdx.vmap(lambda v: lax.reduce_precision(v, 5, 2), in_axes=1)(y)
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.asarray(lax.reduce_precision(y[:, i], 5, 2)) for i in range(4)]))


def test_derivatives_are_jaxs() -> None:
    x = np.array([0.3, -1.7, 2.5])
    # reduce_precision is linear for differentiation (JAX's deflinear)
    g = tdx.grad(lambda v: lax.reduce_precision(v, 8, 7).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.asarray(jax.grad(lambda v: jax.lax.reduce_precision(v, 8, 7).sum())(x)))
    _, t = tdx.jvp(lambda v: lax.reduce_precision(v, 5, 3), (x,), (x,))
    np.testing.assert_array_equal(np.asarray(t), np.asarray(jax.lax.reduce_precision(x, 5, 3)))
    # transpose: the dot-product test <ct, R t> == <R^T ct, t>
    ct = np.array([1.1, 0.7, -0.2])
    _, vjp = tdx.vjp(lambda v: lax.reduce_precision(v, 11, 52), x)
    (back,) = vjp(ct)
    assert np.dot(ct, x) == pytest.approx(np.dot(np.asarray(back), x))
    # a bitcast's derivative is zero (JAX's defjvp_zero)
    _, t2 = tdx.jvp(lambda v: lax.bitcast_convert_type(v, np.float64), (x,), (x,))
    np.testing.assert_array_equal(np.asarray(t2), np.zeros(3))


def test_jaxprs_print_and_parse_back() -> None:
    def f(v: tdx.Array) -> tdx.Array:
        return lax.bitcast_convert_type(lax.reduce_precision(v, 5, 10), np.uint8)

    text = str(tdx.make_jaxpr(f)(tdx.numpy.ones(3, dtype=np.float32)))
    assert "reduce_precision [ exponent_bits=5, mantissa_bits=10 ]" in text
    assert "bitcast_convert_type [ new_dtype=uint8 ]" in text and "uint8[3,4]" in text
    assert str(parse_jaxpr(text)) == text


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: lax.bitcast_convert_type(np.ones(3, bool), np.uint8), "bool converts only to bool"),
        (lambda: lax.bitcast_convert_type(np.ones(3, np.uint8), bool), "bool converts only to bool"),
        (lambda: lax.bitcast_convert_type(np.ones((2, 3), np.uint8), np.uint16), "needs a last dimension of 2"),
        (lambda: lax.bitcast_convert_type(np.uint8(3), np.uint16), "needs a last dimension of 2"),
        (lambda: lax.reduce_precision(np.ones(2), 0, 3), "exponent_bits must be positive"),
        (lambda: lax.reduce_precision(np.ones(2), 5, -1), "mantissa_bits must be non-negative"),
        (lambda: lax.reduce_precision(np.ones(2, np.int32), 5, 2), "reduce_precision accepts float operands"),
        (lambda: lax.reduce_precision(np.ones(2), 5.0, 2),  # type: ignore[arg-type]  # the error under test
         "exponent_bits must be integers"),
    ],
)
def test_errors_name_the_operation_and_types(call: Any, message: str) -> None:
    with pytest.raises(PrimitiveTypeError, match=message):
        call()
