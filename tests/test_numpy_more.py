"""Issue 12, group 1: elementwise functions and constants of typedax.numpy
against jax.numpy (the oracle): values and dtypes, eager and under jit,
gradients, and JAX's errors."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import AxisError, PrimitiveTypeError

from _numpy_oracle import Case, Table, assert_same, by_name, check, grad_check

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(0)
X64 = np.array([-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 1.5, 2.5, np.inf, -np.inf, np.nan])
X32 = X64.astype(np.float32)
I32 = np.array([-7, -2, 0, 1, 5, 9], np.int32)
I64 = I32.astype(np.int64)
BOOL = np.array([True, False, True, True, False, False])
UNIT = np.array([-0.9, -0.5, 0.0, 0.25, 0.75])
OPERANDS = {"f64": X64, "f32": X32, "i32": I32, "i64": I64, "bool": BOOL}

UNARY = ["floor", "ceil", "trunc", "cbrt", "signbit", "positive", "degrees", "radians",
         "isposinf", "isneginf"]


BINARY_FLOAT = ["copysign", "fmax", "fmin", "fmod", "float_power", "true_divide", "pow", "logaddexp2",
                "nextafter", "atan2"]
A64 = np.array([-3.0, -1.5, 0.0, 2.0, 4.5, np.nan, 1.0, -0.0])
B64 = np.array([2.0, -0.5, -1.0, np.nan, 1.5, 2.0, -0.0, 3.0])


def _cases() -> list[Case]:
    cases: list[Case] = []
    for name in UNARY:
        for dt, x in OPERANDS.items():
            if not (name in ("positive", "cbrt", "degrees", "radians") and dt == "bool"):  # JAX refuses bools there
                cases.append((name, (x,), {}))
    for dtype in (np.float64, np.float32):
        x = UNIT.astype(dtype)
        cases += [(n, (x,), {}) for n in ("asin", "acos", "atan", "asinh", "atanh")] + [("acosh", (x + 2.0,), {})]
    for name in BINARY_FLOAT:
        a = np.abs(A64) if name in ("float_power", "pow") else A64
        cases += [(name, (a, B64), {}), (name, (a.astype(np.float32), B64), {}), (name, (a.astype(np.float32), 1.5), {})]
    for name in ["fmax", "fmin", "fmod", "true_divide", "copysign", "float_power"]:
        for dt in ("i32", "i64", "mixed"):
            a = np.array([-7, -3, 0, 4, 9, 5], np.int32 if dt != "i64" else np.int64)
            b = np.array([2, -2, 3, 0, 4, -1], np.int64 if dt != "i32" else np.int32)
            cases.append((name, (np.abs(a) if name == "float_power" else a, b), {}))
    return cases


CASES = _cases()
TABLE = Table(CASES, by_name)


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_elementwise_against_jax(case: int) -> None:
    TABLE.check(case, rtol=2e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_ldexp_against_jax(dt: type) -> None:
    x: Any = np.array([1.5, -3.0, 0.0, 1e-300 if dt == np.float64 else 1e-30, np.inf, 7.0], dt)
    n = np.array([3, -2, 5, 1000 if dt == np.float64 else 100, 1, -1080], np.int32)
    check(tnp.ldexp, jnp.ldexp, x, n)
    check(tnp.ldexp, jnp.ldexp, np.arange(4, dtype=np.int32), np.int32(3))


def test_ldexp_refuses_float_exponents() -> None:
    with pytest.raises(PrimitiveTypeError, match="ldexp"):
        tnp.ldexp(1.0, np.array([1.5]))
    with pytest.raises(ValueError):
        jnp.ldexp(1.0, np.array([1.5]))


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("dt", ["f64", "f32", "i32", "mixed"])
def test_isclose_allclose_against_jax(dt: str, equal_nan: bool) -> None:
    a = np.array([1.0, 1.0 + 1e-7, 1e-9, np.nan, np.inf, -np.inf, 2.0, 1e5])
    b = np.array([1.0, 1.0, 0.0, np.nan, np.inf, np.inf, 2.1, 1e5 + 0.5])
    if dt == "f32":
        a, b = a.astype(np.float32), b.astype(np.float32)
    elif dt == "i32":
        a, b = np.arange(8, dtype=np.int32), np.array([0, 1, 2, 4, 4, 5, 7, 7], np.int32)
    elif dt == "mixed":
        a = a.astype(np.float32)
    check(lambda x, y: tnp.isclose(x, y, equal_nan=equal_nan), lambda x, y: jnp.isclose(x, y, equal_nan=equal_nan), a, b)
    assert_same(tnp.isclose(a, b, rtol=0.1, atol=1e-3), np.isclose(a, b, rtol=0.1, atol=1e-3))
    assert_same(tnp.allclose(a, b, equal_nan=equal_nan), np.asarray(np.allclose(a, b, equal_nan=equal_nan)))


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([1.0, 2.0]), np.array([1.0, 2.0])),
        (np.array([1.0, np.nan]), np.array([1.0, np.nan])),
        (np.array([1, 2], np.int32), np.array([1.0, 2.0])),
        (np.ones((2, 3)), np.ones(3)),
        (np.ones((2, 3)), np.ones(2)),
        (np.array([[1, 2], [1, 2]]), np.array([1, 2])),
        (np.array([True, False]), np.array([1, 0])),
    ],
)
def test_array_equal_and_equiv_against_jax(a: Any, b: Any) -> None:
    for en in (False, True):
        assert_same(tnp.array_equal(a, b, equal_nan=en), jnp.array_equal(a, b, equal_nan=en))
    assert_same(tnp.array_equiv(a, b), jnp.array_equiv(a, b))
    assert_same(tdx.jit(tnp.array_equal)(a, b), jnp.array_equal(a, b))


def test_constants_and_shape_queries() -> None:
    assert tnp.euler_gamma == jnp.euler_gamma
    x = np.zeros((2, 3, 4))
    v: Any
    for v in (x, 1.0, np.float32(2), [1, 2], tnp.asarray(x)):
        assert tnp.ndim(v) == jnp.ndim(np.asarray(v))
        assert tnp.shape(v) == jnp.shape(np.asarray(v))
        assert tnp.size(v) == jnp.size(np.asarray(v))
    assert tnp.size(x, 1) == 3 and tnp.size(x, -1) == 4
    for v in (1.0, 3, np.float32(1), np.zeros(()), np.zeros(2), [1.0], "s"):
        assert tnp.isscalar(v) == jnp.isscalar(v), v
    assert tnp.isscalar(tnp.asarray(1.0)) and not tnp.isscalar(tnp.zeros(2))  # as JAX's arrays

    def traced(y: tdx.Array) -> tdx.Array:
        assert tnp.ndim(y) == 3 and tnp.shape(y) == (2, 3, 4) and tnp.size(y) == 24
        assert tnp.isscalar(y[0, 0, 0])
        return y

    tdx.jit(traced)(tnp.asarray(x))


def test_size_bad_axis() -> None:
    with pytest.raises(AxisError, match="out of bounds"):
        tnp.size(np.zeros((2, 3)), 2)


@pytest.mark.parametrize("name", ["cbrt", "trunc", "floor", "degrees", "radians", "asinh", "atan"])
def test_unary_grads(name: str) -> None:
    x = np.array([-2.5, -0.7, 0.4, 1.3, 3.3])
    grad_check(getattr(tnp, name), getattr(jnp, name), x)


@pytest.mark.parametrize("name", ["copysign", "fmax", "fmin", "fmod", "float_power", "logaddexp2",
                                  "true_divide", "atan2"])
def test_binary_grads(name: str) -> None:
    a = np.array([0.5, 1.7, 2.2, 3.1, 0.9])
    b = np.array([1.2, -0.4, 2.5, 1.1, 0.3])
    for argnums in (0, 1):
        grad_check(getattr(tnp, name), getattr(jnp, name), a, b, argnums=argnums, rtol=1e-6)


def test_ldexp_and_isclose_under_vmap() -> None:
    x = RNG.normal(size=(4, 3))
    n = RNG.integers(-5, 5, size=(4, 3)).astype(np.int32)
    got = tdx.vmap(tnp.ldexp)(x, n)
    assert_same(got, np.stack([np.ldexp(x[i], n[i]) for i in range(4)]))
    got = tdx.vmap(lambda a, b: tnp.isclose(a, b, atol=0.5))(x, x + 0.25)
    assert np.asarray(got).all()


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.float16])
def test_signbit_reads_the_sign_bit(dt: type) -> None:
    x: Any = np.array([-0.0, 0.0, -np.nan, np.nan, -1.0, np.inf, -np.inf], dt)
    check(tnp.signbit, jnp.signbit, x)
    check(tnp.copysign, jnp.copysign, np.ones(7, dt), x)


def test_frexp_mantissa_differentiates_as_jax() -> None:
    """d m / d x = 2**-e (the mantissa was read from the bits: derivative 0)."""
    for v in (6.0, -0.3, 3.0):
        want = float(jax.grad(lambda x: jnp.frexp(x)[0])(v))
        assert float(tdx.grad(lambda x: tnp.frexp(x)[0])(v)) == pytest.approx(want)
        assert float(tdx.jit(tdx.grad(lambda x: tnp.frexp(x)[0]))(v)) == pytest.approx(want)
    x = np.array([0.0, np.inf, -np.inf, np.nan, -2.5])
    np.testing.assert_array_equal(np.asarray(tnp.frexp(x)[0]), np.asarray(jnp.frexp(x)[0]))
