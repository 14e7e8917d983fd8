"""int8, int16 and the unsigned integers (uint8 … uint64): every operation
that takes integers gives JAX's bits, eagerly and under ``jit``, over the
whole range of each type (arithmetic wraps around; division by zero, shifts
past the width and float conversions out of range are XLA's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given

from _examples import ci_every, ci_examples

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

NEW_INTS = (np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64)
BINARY = ("add", "sub", "mul", "div", "rem", "max", "min", "bitwise_and", "bitwise_or", "bitwise_xor",
          "eq", "ne", "lt", "le", "gt", "ge")
SHIFTS = ("shift_left", "shift_right_logical", "shift_right_arithmetic")
UNARY = ("neg", "sign", "population_count", "bitwise_not")


def _ints(dtype: type[np.integer[Any]], n: int) -> st.SearchStrategy[np.ndarray[Any, Any]]:
    info = np.iinfo(dtype)
    edge = st.sampled_from([int(info.min), int(info.max), 0, 1, -1 if info.min < 0 else 2])
    value = st.one_of(edge, st.integers(int(info.min), int(info.max)))
    return st.lists(value, min_size=n, max_size=n).map(lambda v: np.asarray(v, dtype))


def _same(want: Any, got: Any) -> None:
    w, g = np.asarray(want), np.asarray(got)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", NEW_INTS, ids=lambda d: d.__name__)
@ci_examples(8, otherwise=15)  # each example: 21 operations, eager and jit, beside JAX
@given(data=st.data())
def test_binary_and_unary_ops_match_jax_eager_and_jit(dtype: type[np.integer[Any]], data: st.DataObject) -> None:
    x = data.draw(_ints(dtype, 6))
    y = data.draw(_ints(dtype, 6))
    amount = data.draw(st.lists(st.integers(0, 8 * x.itemsize + 3), min_size=6, max_size=6)).__iter__()
    s = np.asarray(list(amount), dtype)
    # ci: every other operation, the other half for the next dtype (each compiles for the dtype,
    # in both libraries); make test-long runs every operation for every dtype
    d = NEW_INTS.index(dtype)
    for name in ci_every(BINARY + SHIFTS, 2, d):
        b = s if name in SHIFTS else y
        ours: Callable[..., Any] = getattr(lax, name)
        want = getattr(jax.lax, name)(x, b)
        _same(want, ours(x, b))
        _same(want, tdx.jit(ours)(x, b))
    for name in ci_every(UNARY, 2, d):
        ours = getattr(lax, name)
        want = getattr(jax.lax, name)(x)
        _same(want, ours(x))
        _same(want, tdx.jit(ours)(x))


@pytest.mark.parametrize("dtype", NEW_INTS, ids=lambda d: d.__name__)
def test_conversions_reductions_and_sorting_match_jax(dtype: type[np.integer[Any]]) -> None:
    info = np.iinfo(dtype)
    x = np.random.default_rng(0).integers(info.min, info.max, 9, dtype=dtype, endpoint=True)
    x[0], x[1] = info.min, info.max
    # ci: every other conversion and reduction, the other half for the next dtype (each compiles in
    # both libraries); make test-long runs all of them for every dtype
    d = NEW_INTS.index(dtype)
    for to in ci_every((np.float32, np.float64, np.int32, np.int64, np.uint8, np.uint32, np.bool_), 2, d):
        _same(jax.lax.convert_element_type(x, to), lax.convert_element_type(x, to))
    f = np.asarray([-3.5, 1e20, np.nan, 7.9, 300.0, -1e20, np.inf, -0.0], np.float32)
    want = jax.lax.convert_element_type(f, dtype)  # saturating; NaN to 0
    _same(want, lax.convert_element_type(f, dtype))
    _same(want, tdx.jit(lambda v: lax.convert_element_type(v, dtype))(f))
    for name in ci_every(("sum", "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "sort", "argsort"), 2, d):
        want = getattr(jnp, name)(x)
        _same(want, getattr(tnp, name)(x))
        _same(want, tdx.jit(getattr(tnp, name))(x))


def test_array_operators_and_python_scalars() -> None:
    x = tnp.arange(5, dtype=np.uint32)
    y = jnp.arange(5, dtype=np.uint32)
    ops: list[Callable[[Any], Any]] = [lambda a: a + 1, lambda a: a - 7, lambda a: a * 2.5, lambda a: a >> 1, lambda a: 1 << a,
              lambda a: a & 3, lambda a: 6 | a, lambda a: a ^ a, lambda a: ~a, lambda a: -a, lambda a: a // 2,
              lambda a: a % 3]
    for f in ops:
        _same(f(y), f(x))
    assert tnp.int8 == np.dtype(np.int8) and tnp.iinfo(np.uint16).max == 65535
    i8 = tnp.asarray(np.asarray([-128, 127], np.int8))
    _same(jnp.asarray(np.asarray([-128, 127], np.int8)) >> 3, i8 >> 3)  # arithmetic for signed
    _same(jnp.asarray(np.asarray([0x80, 0xFF], np.uint8)) >> 3, tnp.asarray(np.asarray([0x80, 0xFF], np.uint8)) >> 3)


def test_promotion_follows_jax() -> None:
    for a in NEW_INTS + (np.int32, np.int64, np.float32):
        for b in NEW_INTS + (np.int32, np.int64, np.float32):
            assert tnp.promote_types(np.dtype(a), np.dtype(b)) == jnp.promote_types(a, b), (a, b)


def test_jaxprs_with_new_dtypes_print_and_parse_back() -> None:
    def f(a: tdx.Array, b: tdx.Array) -> tdx.Array:
        return lax.shift_right_logical(a * 3 + 2, lax.convert_element_type(b, np.uint32))

    jaxpr = tdx.make_jaxpr(f)(tnp.arange(4, dtype=np.uint32), tnp.arange(4, dtype=np.int8))
    text = str(jaxpr)
    assert "uint32[4]" in text and "int8[4]" in text and "3:uint32" in text
    assert str(parse_jaxpr(text)) == text
    big = parse_jaxpr("{ lambda a:uint64[] . let b:uint64[] = add a 18446744073709551615:uint64 in ( b ) }")
    assert "18446744073709551615:uint64" in str(big)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{ lambda a:uint8[] . let b:uint8[] = add a 256:uint8 in ( b ) }", "out of range for uint8"),
        ("{ lambda a:uint8[] . let b:uint8[] = add a -1:uint8 in ( b ) }", "out of range for uint8"),
    ],
)
def test_out_of_range_literals_are_refused(text: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        parse_jaxpr(text)


def test_errors_for_what_jax_refuses() -> None:
    x = np.arange(3, dtype=np.uint16)
    with pytest.raises(PrimitiveTypeError, match="abs"):
        lax.abs(x)
    with pytest.raises(OverflowError):
        tnp.asarray(x) + (-1)  # JAX wraps only by accident of its x32 path; typedax refuses
    with pytest.raises(OverflowError):
        tnp.asarray(x) + 2**16


def test_python_values_enter_an_explicit_dtype_directly() -> None:
    """As JAX: an int out of the requested type's range is an OverflowError
    (not wrapped), and uint64 takes values above int64's range."""
    for bad in ([300], [-1]):
        with pytest.raises(OverflowError):
            tnp.array(bad, dtype=tnp.uint8)
    assert int(tnp.array(2**64 - 1, dtype=tnp.uint64)) == 2**64 - 1
    np.testing.assert_array_equal(np.asarray(tnp.array([2**63], dtype=tnp.uint64)), np.array([2**63], np.uint64))
    assert tnp.asarray([1.7, 2], dtype=np.int32).tolist() == [1, 2]  # as jnp: floats truncate


@pytest.mark.parametrize("dtype", (np.int8, np.int32, np.int64, np.uint8, np.uint32), ids=lambda d: d.__name__)
def test_floor_divide_and_remainder_are_jaxs_including_by_zero(dtype: type[np.integer[Any]]) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.integers(info.min, info.max, 30, dtype=dtype, endpoint=True), np.array([0, 4, info.max, info.min], dtype)])
    y = np.concatenate([rng.integers(info.min, info.max, 30, dtype=dtype, endpoint=True), np.zeros(4, dtype)])
    for name in ("floor_divide", "remainder"):
        want = np.asarray(getattr(jnp, name)(x, y))
        _same(want, getattr(tnp, name)(x, y))
        _same(want, tdx.jit(getattr(tnp, name))(x, y))


def test_result_type_of_dtypes_and_abs_of_unsigned_are_jaxs() -> None:
    for args in ((tnp.uint8, tnp.int8), (np.float32, "int8"), (np.int32, float), (np.int8, 2), (tnp.bfloat16, np.float16)):
        assert tnp.result_type(*args) == jnp.result_type(*args), args
    u = np.array([0, 3, 255], np.uint8)
    _same(jnp.abs(u), tnp.abs(u))
