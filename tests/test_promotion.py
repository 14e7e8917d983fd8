"""Issue 10: JAX's type promotion (``core/promotion.py``), checked against
JAX itself: ``typedax.numpy.promote_types``/``result_type`` and the result
dtypes of binary functions over typedax's dtypes and weak Python scalars, the
lattice over every dtype JAX has, and integer sums accumulating in int64."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax.core import promotion
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

SUPPORTED = ["bool", "int32", "int64", "float32", "float64"]
PY_SCALARS: dict[str, type] = {"py_bool": bool, "py_int": int, "py_float": float}
# How a dtype operand is given: a NumPy array, a typedax array, a 0-d NumPy
# array, a NumPy scalar (strongly typed in JAX, unlike a Python scalar).
FORMS = ["numpy", "typedax", "numpy 0-d", "numpy scalar"]

#: The dtypes of JAX's lattice that core.promotion names (bfloat16 from ml_dtypes).
JAX_DTYPES: list[np.dtype[Any]] = [
    np.dtype(d)
    for d in (
        np.bool_, np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
        np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128,
    )
]


def operand(kind: str, form: str, value: int = 1) -> Any:
    """A value of ``kind`` (a dtype name or ``py_*``) given as ``form``."""
    t = PY_SCALARS.get(kind)
    if t is not None:
        return t(value)
    if form == "numpy":
        return np.full((2,), value, dtype=kind)
    if form == "typedax":
        return tnp.asarray(np.full((2,), value, dtype=kind))
    if form == "numpy 0-d":
        return np.array(value, dtype=kind)
    return np.dtype(kind).type(value)


def jax_operand(kind: str, form: str, value: int = 1) -> Any:
    x = operand(kind, "numpy" if form == "typedax" else form, value)
    return x


KINDS = SUPPORTED + list(PY_SCALARS)
operands = st.tuples(st.sampled_from(KINDS), st.sampled_from(FORMS))


# -- promote_types -------------------------------------------------------------------------------
@given(a=st.sampled_from(SUPPORTED), b=st.sampled_from(SUPPORTED))
def test_numpy_promote_types_matches_jax(a: str, b: str) -> None:
    ours = tnp.promote_types(np.dtype(a), np.dtype(b))
    assert ours == jnp.promote_types(a, b), (a, b, ours)
    assert tnp.promote_types(np.dtype(b), np.dtype(a)) == ours


@pytest.mark.parametrize("a", JAX_DTYPES, ids=str)
def test_lattice_promote_types_matches_jax_over_its_dtypes(a: np.dtype[Any]) -> None:
    for b in JAX_DTYPES:
        expected = np.dtype(jnp.promote_types(a, b))
        ours = promotion.promote_types(a, b)
        assert ours == expected, f"promote_types({a}, {b}) = {ours}, JAX {expected}"


def _jax_weak(node: str) -> Any:
    return {"i*": 1, "f*": 1.0, "c*": 1j}[node]


LATTICE_NODES = [d.name for d in JAX_DTYPES] + ["i*", "f*", "c*"]


@pytest.mark.parametrize("a", LATTICE_NODES)
def test_lattice_join_with_weak_scalars_matches_jax(a: str) -> None:
    """The nodes ``i*``/``f*`` (Python int, float) join like JAX's weak types:
    ``uint8 + 1`` stays uint8, ``int32 + 1.0`` is float64 (x64), ``float16 +
    1.0`` stays float16."""
    for b in LATTICE_NODES:
        xa = _jax_weak(a) if a in ("i*", "f*", "c*") else jnp.zeros((), promotion.dtype_of_node(a))
        xb = _jax_weak(b) if b in ("i*", "f*", "c*") else jnp.zeros((), promotion.dtype_of_node(b))
        expected = np.dtype(jnp.result_type(xa, xb))
        ours = promotion.dtype_of_node(promotion.join(a, b))
        assert ours == expected, f"join({a}, {b}) = {ours}, JAX {expected}"
        assert promotion.join(a, b) == promotion.join(b, a)


def test_lattice_refuses_a_dtype_it_lacks() -> None:
    with pytest.raises(PrimitiveTypeError, match="int4"):  # (float8 has its place since issue 29, item 7)
        promotion.promote_types(np.dtype(ml_dtypes.int4), np.dtype(np.float32))


# -- result_type ------------------------------------------------------------------------------------
@given(xs=st.lists(operands, min_size=1, max_size=4))
def test_result_type_matches_jax(xs: list[tuple[str, str]]) -> None:
    ours = tnp.result_type(*[operand(k, f) for k, f in xs])
    expected = np.dtype(jnp.result_type(*[jax_operand(k, f) for k, f in xs]))
    assert ours == expected, (xs, ours, expected)


def test_result_type_examples() -> None:
    i32, f32 = np.ones(2, np.int32), np.ones(2, np.float32)
    assert tnp.result_type(i32, f32) == np.float32  # NumPy would say float64
    assert tnp.result_type(f32, 2.0) == np.float32
    assert tnp.result_type(i32, 2) == np.int32
    assert tnp.result_type(i32, 2.5) == np.float64
    assert tnp.result_type(True, 1) == np.int64
    assert tnp.result_type(1, 1.0) == np.float64
    assert tnp.result_type(np.bool_(True), 1.0) == np.float64


# -- result dtypes of typedax.numpy functions --------------------------------------------------------
BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "add": (tnp.add, jnp.add),
    "multiply": (tnp.multiply, jnp.multiply),
    "maximum": (tnp.maximum, jnp.maximum),
    "minimum": (tnp.minimum, jnp.minimum),
    "subtract": (tnp.subtract, jnp.subtract),
}


@functools.cache
def jax_binary_dtype(op: str, ka: str, fa: str, kb: str, fb: str) -> np.dtype[Any] | None:
    try:
        out = BINARY[op][1](jax_operand(ka, fa), jax_operand(kb, fb))
    except TypeError:
        return None
    d: np.dtype[Any] = np.dtype(out.dtype)
    return d


@pytest.mark.parametrize("op", list(BINARY))
# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs the profile's count
@ci_examples(15)
@given(a=operands, b=operands)
def test_binary_result_dtypes_match_jax(op: str, a: tuple[str, str], b: tuple[str, str]) -> None:
    expected = jax_binary_dtype(op, *a, *b)
    ours_f = BINARY[op][0]
    if expected is None:  # JAX refuses (bool - bool): so does typedax
        with pytest.raises(TypeError):
            ours_f(operand(*a), operand(*b))
        return
    out = ours_f(operand(*a), operand(*b))
    assert isinstance(out, tdx.Array)
    assert out.dtype == expected, f"{op}({a}, {b}): typedax {out.dtype}, JAX {expected}"
    np.testing.assert_array_equal(
        np.asarray(out), np.asarray(BINARY[op][1](jax_operand(*a), jax_operand(*b)))
    )


@functools.cache
def jax_where_dtype(ka: str, fa: str, kb: str, fb: str) -> np.dtype[Any]:
    d: np.dtype[Any] = np.dtype(jnp.where(np.array([True, False]), jax_operand(ka, fa), jax_operand(kb, fb)).dtype)
    return d


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs the profile's count
@ci_examples(15)
@given(a=operands, b=operands, cond=st.sampled_from(["bool", "int32", "float64"]))
def test_where_result_dtype_matches_jax(a: tuple[str, str], b: tuple[str, str], cond: str) -> None:
    c = np.array([1, 0], dtype=cond)
    out = tnp.where(c, operand(*a, value=1), operand(*b, value=0))
    expected = jax_where_dtype(*a, *b)
    assert out.dtype == expected, f"where({a}, {b}): typedax {out.dtype}, JAX {expected}"
    theirs = jnp.where(c, jax_operand(*a, value=1), jax_operand(*b, value=0))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(theirs))


def test_operator_promotion_examples() -> None:
    """The issue's examples: JAX's answers, not NumPy's."""
    i32 = tnp.asarray(np.array([1, 2], np.int32))
    f32 = tnp.asarray(np.array([1.0, 2.0], np.float32))
    assert (i32 + f32).dtype == np.float32
    assert (f32 * 2.0).dtype == np.float32
    assert (2.0 * f32).dtype == np.float32
    assert (i32 + 2).dtype == np.int32
    assert (i32 + 2.5).dtype == np.float64
    assert tnp.maximum(i32, f32).dtype == np.float32
    assert tnp.where(True, i32, f32).dtype == np.float32


# -- integer sums -----------------------------------------------------------------------------------
def test_int32_sum_accumulates_in_int64() -> None:
    x = np.array([2**30, 2**30, 2**30], dtype=np.int32)
    expected = int(jnp.sum(jnp.asarray(x)))
    assert expected == 3221225472
    for s in (tnp.sum(x), tnp.sum(tnp.asarray(x)), tnp.asarray(x).sum(), tdx.jit(tnp.sum)(x),
              tdx.jit(lambda v: v.sum())(x), tnp.sum(x, axis=0), tnp.sum(x, keepdims=True)):
        assert s.dtype == np.int64
        assert int(np.asarray(s).reshape(())) == 3221225472


def test_bool_sum_counts_in_int64() -> None:
    x = np.ones(5, dtype=bool)
    s = tnp.sum(x)
    assert s.dtype == jnp.sum(x).dtype == np.int64
    assert int(s) == 5


@given(
    kind=st.sampled_from(SUPPORTED),
    dtype=st.sampled_from([None, "int32", "int64", "float32", "float64"]),
)
def test_sum_dtype_matches_jax(kind: str, dtype: str | None) -> None:
    x = np.arange(6).reshape(2, 3).astype(kind)
    ours = tnp.sum(x, axis=1, dtype=None if dtype is None else np.dtype(dtype))
    theirs = jnp.sum(jnp.asarray(x), axis=1, dtype=dtype)
    assert ours.dtype == theirs.dtype, (kind, dtype)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
