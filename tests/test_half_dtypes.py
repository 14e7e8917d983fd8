"""float16 and bfloat16: eager evaluation computes each operation in float32
and rounds its result, as XLA on CPU does, so eager, ``jit`` and JAX agree
bit for bit on arithmetic and within an ulp of the 16-bit format on
transcendental functions; promotion, conversions, reductions, products,
derivatives and the jaxpr text follow JAX."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import typedax as tdx
from typedax.core.dtypes import finfo
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr

from _examples import ci_cover

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

HALVES = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
EXACT_BINARY = ("add", "sub", "mul", "div", "max", "min", "rem", "pow", "atan2", "nextafter",
                "eq", "ne", "lt", "le", "gt", "ge")
EXACT_UNARY = ("neg", "abs", "sign", "floor", "ceil", "sqrt", "is_finite")
APPROX_UNARY = ("exp", "log", "sin", "cos", "tanh", "logistic", "log1p", "expm1", "tan", "atan", "sinh",
                "erf", "erf_inv", "asinh")
#: XLA's own approximations, in float32 then rounded: near their zeros they
#: differ from the correctly rounded value by about float32's epsilon.
XLA_APPROXIMATIONS = ("lgamma", "digamma")


def _values(dtype: np.dtype[Any], n: int, lo: float = -4.0, hi: float = 4.0, seed: int = 0) -> np.ndarray[Any, Any]:
    v = np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float32)
    return np.concatenate([v, np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan], np.float32)]).astype(dtype)


def _same_bits(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> None:
    """Equal bit for bit, NaNs of any payload equal (NumPy's testing cannot
    tell bfloat16's NaNs apart from numbers)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == np.bool_:
        np.testing.assert_array_equal(a, b)
        return
    nan = np.isnan(a.astype(np.float32))
    np.testing.assert_array_equal(nan, np.isnan(b.astype(np.float32)))
    np.testing.assert_array_equal(a.view(np.uint16)[~nan], b.view(np.uint16)[~nan])


def _ulps(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    """The largest distance in units of the last place of ``b``'s format."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a64) & np.isnan(b64)
    same = (a64 == b64) | both_nan
    eps = float(finfo(b.dtype).eps)
    scale = np.maximum(np.abs(b64), float(finfo(b.dtype).smallest_normal))
    d = np.where(same, 0.0, np.abs(a64 - b64) / (scale * eps))
    return float(np.nanmax(d)) if d.size else 0.0


# ci: each operation in one of the two dtypes (alternating); make test-long runs both for each
@pytest.mark.parametrize("name,dtype", ci_cover(EXACT_BINARY, HALVES))
def test_binary_ops_are_jaxs_bits(name: str, dtype: np.dtype[Any]) -> None:
    x, y = _values(dtype, 40, seed=1), _values(dtype, 40, seed=2)
    if name == "pow":
        x = np.abs(x)
    want = np.asarray(getattr(jax.lax, name)(x, y))
    ours: Callable[..., Any] = getattr(lax, name)
    for got in (ours(x, y), tdx.jit(ours)(x, y)):
        _same_bits(np.asarray(got), want)


# ci: each operation in one of the two dtypes (alternating); make test-long runs both for each
@pytest.mark.parametrize("name,dtype", ci_cover(EXACT_UNARY + APPROX_UNARY + XLA_APPROXIMATIONS, HALVES))
def test_unary_ops_match_jax(name: str, dtype: np.dtype[Any]) -> None:
    lo, hi = {"log": (0.01, 9.0), "sqrt": (0.0, 9.0), "log1p": (-0.9, 9.0), "erf_inv": (-0.99, 0.99),
              "lgamma": (0.1, 9.0)}.get(name, (-4.0, 4.0))
    x = _values(dtype, 60, lo, hi, seed=3)
    want = np.asarray(getattr(jax.lax, name)(x))
    ours: Callable[..., Any] = getattr(lax, name)
    eager, jitted = np.asarray(ours(x)), np.asarray(tdx.jit(ours)(x))
    assert eager.dtype == want.dtype == jitted.dtype
    if name in EXACT_UNARY:
        _same_bits(eager, want)
        _same_bits(jitted, want)
    elif name in XLA_APPROXIMATIONS:
        _same_bits(jitted, want)
        np.testing.assert_allclose(eager.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=1e-6)
    else:
        assert _ulps(jitted, want) <= 1.0 and _ulps(eager, want) <= 1.0


@pytest.mark.parametrize("dtype", HALVES, ids=str)
def test_reductions_products_and_conversions_match_jax(dtype: np.dtype[Any]) -> None:
    x = _values(dtype, 300, seed=4)[:300].reshape(20, 15)
    for name in ("sum", "mean", "max", "min", "argmax", "argmin", "sort", "cumsum", "cumprod", "prod"):
        f: Callable[..., Any] = getattr(tnp, name)
        want = np.asarray(getattr(jnp, name)(x, axis=1))
        eager, jitted = np.asarray(f(x, axis=1)), np.asarray(tdx.jit(lambda v: f(v, axis=1))(x))
        for g in (eager, jitted):
            assert g.dtype == want.dtype, name
            if name in ("cumsum", "cumprod"):
                # typedax folds running sums and products in float32 (eager and jit alike);
                # XLA folds a short axis in the 16-bit type, rounding at each step
                _same_bits(eager, jitted)
                np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=3e-2, atol=1e-2)
            elif g.dtype in HALVES:
                _same_bits(g, want)
            else:
                np.testing.assert_array_equal(g, want, err_msg=name)
    a, b = x[:, :8], x[:8, :6]
    a, b = np.nan_to_num(a, posinf=1.0, neginf=-1.0), np.nan_to_num(b, posinf=1.0, neginf=-1.0)
    want = np.asarray(jnp.matmul(a, b))
    _same_bits(np.asarray(tnp.matmul(a, b)), want)
    _same_bits(np.asarray(tdx.jit(tnp.matmul)(a, b)), want)
    for to in (np.float32, np.float64, np.int32, np.uint8, np.bool_):
        np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, to)),
                                      np.asarray(jax.lax.convert_element_type(x, to)), err_msg=str(to))
    for half in HALVES:
        _same_bits(np.asarray(lax.convert_element_type(x, half)), np.asarray(jax.lax.convert_element_type(x, half)))
    wide = np.random.default_rng(5).normal(size=50) * 1e3
    for got in (lax.convert_element_type(wide, dtype), tdx.jit(lambda v: lax.convert_element_type(v, dtype))(wide)):
        _same_bits(np.asarray(got), np.asarray(jax.lax.convert_element_type(wide, dtype)))


def test_promotion_is_jaxs() -> None:
    names = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.uint8, np.int32, np.bool_]
    for a in names:
        for b in names:
            assert tnp.promote_types(np.dtype(a), np.dtype(b)) == jnp.promote_types(a, b), (a, b)
    h = tnp.asarray(np.ones(2, np.float16))
    assert (h * 2.0).dtype == np.float16 and (h + 1).dtype == np.float16
    assert (h + tnp.asarray(np.ones(2, ml_dtypes.bfloat16))).dtype == np.float32


@pytest.mark.parametrize("dtype", HALVES, ids=str)
def test_derivatives_and_vmap(dtype: np.dtype[Any]) -> None:
    x = tnp.asarray(np.array([0.5, -1.25, 2.0], dtype))

    def f_t(v: tdx.Array) -> tdx.Array:
        return tnp.sum(tnp.sin(v) * v)

    def f_j(v: jax.Array) -> jax.Array:
        return jnp.sum(jnp.sin(v) * v)

    g, gj = np.asarray(tdx.grad(f_t)(x)), np.asarray(jax.grad(f_j)(np.asarray(x)))
    assert g.dtype == dtype
    assert _ulps(g, gj) <= 2.0
    assert _ulps(np.asarray(tdx.jit(tdx.grad(f_t))(x)), gj) <= 2.0
    batched = np.asarray(tdx.vmap(lambda v: v * v + 1.0)(x))
    np.testing.assert_array_equal(batched, np.stack([np.asarray(lax.add(lax.mul(v, v), np.array(1.0, dtype))) for v in x]))


def test_jaxprs_print_and_parse_back() -> None:
    x = tnp.asarray(np.ones(3, ml_dtypes.bfloat16))
    text = str(tdx.make_jaxpr(lambda v: lax.convert_element_type(v * 0.1, np.float16))(x))
    assert "bfloat16[3]" in text and "float16[3]" in text
    assert str(parse_jaxpr(text)) == text
    with pytest.raises(Exception, match="out of range for float16"):
        parse_jaxpr("{ lambda a:float16[] . let b:float16[] = add a 70000.0:float16 in ( b ) }")


def test_finfo_and_names() -> None:
    assert tnp.finfo(tnp.bfloat16).bits == 16 and float(tnp.finfo(tnp.float16).max) == 65504.0
    assert tnp.bfloat16 == jnp.bfloat16 and tnp.float16 == jnp.float16
    b = tnp.asarray(np.array([1.0, 2.0], ml_dtypes.bfloat16))
    assert repr(tdx.jit(lambda v: v * 3.0)(b)) == "Array([3, 6], dtype=bfloat16)"


@pytest.mark.parametrize("dtype", HALVES, ids=str)
def test_long_cumulative_sums_accumulate_in_float32(dtype: np.dtype[Any]) -> None:
    """A 16-bit running sum of ones stalls at 2048 (float16) or 256 (bfloat16);
    typedax folds in float32 eagerly and under jit, as XLA does on long axes."""
    x = tnp.ones(5000, dtype=dtype)
    for got in (tnp.cumsum(x), tdx.jit(tnp.cumsum)(x)):
        assert float(got[-1]) == float(np.asarray(jnp.cumsum(np.asarray(x)))[-1])
