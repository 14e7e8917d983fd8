"""The special-function primitives (log1p ... nextafter) and their
typedax.numpy functions, against JAX: values eagerly and under jit on random
inputs of each function's domain (float32 and float64), derivatives against
``jax.grad`` (digamma's through the traced trigamma), vmap against a loop,
the edge values where XLA's results are not the C library's (erf_inv(+-1),
lgamma(-inf), digamma at its poles), rounding of halves, and every error."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pyrsistent import pmap

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS
from typedax.primitives import special

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

# name -> (typedax, jax, the domain's bounds: smooth inside)
UNARY: dict[str, tuple[Callable[[tdx.ArrayLike], tdx.Array], Callable[..., jax.Array], float, float]] = {
    "log1p": (lax.log1p, jax.lax.log1p, -0.9, 5.0),
    "expm1": (lax.expm1, jax.lax.expm1, -5.0, 5.0),
    "exp2": (lax.exp2, jax.lax.exp2, -5.0, 5.0),
    "tan": (lax.tan, jax.lax.tan, -1.4, 1.4),
    "asin": (lax.asin, jax.lax.asin, -0.95, 0.95),
    "acos": (lax.acos, jax.lax.acos, -0.95, 0.95),
    "atan": (lax.atan, jax.lax.atan, -5.0, 5.0),
    "sinh": (lax.sinh, jax.lax.sinh, -5.0, 5.0),
    "cosh": (lax.cosh, jax.lax.cosh, -5.0, 5.0),
    "asinh": (lax.asinh, jax.lax.asinh, -5.0, 5.0),
    "acosh": (lax.acosh, jax.lax.acosh, 1.05, 6.0),
    "atanh": (lax.atanh, jax.lax.atanh, -0.95, 0.95),
    "erf": (lax.erf, jax.lax.erf, -3.0, 3.0),
    "erfc": (lax.erfc, jax.lax.erfc, -3.0, 3.0),
    "erf_inv": (lax.erf_inv, jax.lax.erf_inv, -0.95, 0.95),
    "lgamma": (lax.lgamma, jax.lax.lgamma, 0.1, 8.0),
    "digamma": (lax.digamma, jax.lax.digamma, 0.1, 8.0),
}


def close(got: object, want: object, rtol32: float = 2e-6, rtol64: float = 1e-13) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    rtol = rtol32 if g.dtype == np.float32 else rtol64
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def arrays(dtype: str, lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    if dtype == "float32":
        elements = st.floats(float(np.float32(lo)), float(np.float32(hi)), width=32, allow_subnormal=False)
    else:
        elements = st.floats(lo, hi, allow_subnormal=False)
    return hnp.arrays(dtype, hnp.array_shapes(max_dims=2, max_side=4), elements=elements)


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs 60
@ci_examples(15, otherwise=60, deadline=None)
@given(st.sampled_from(sorted(UNARY)), st.sampled_from(["float32", "float64"]), st.data())
def test_values_match_jax_eagerly_and_under_jit(name: str, dtype: str, data: st.DataObject) -> None:
    f, jf, lo, hi = UNARY[name]
    x = data.draw(arrays(dtype, lo, hi))
    want = jf(x)
    loose = name in ("lgamma", "digamma")  # XLA's own approximations, not scipy's
    close(f(x), want, 2e-6 if not loose else 1e-5, 1e-13 if not loose else 1e-12)
    close(tdx.jit(f)(x), want, 2e-6, 1e-13)


# ci: 10 examples (each example compiles with XLA or runs JAX); make test-long runs 40
@ci_examples(10, otherwise=40, deadline=None)
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_grad_matches_jax(name: str, data: st.DataObject) -> None:
    f, jf, lo, hi = UNARY[name]
    x = data.draw(arrays("float64", lo, hi))
    got = tdx.grad(lambda v: tnp.sum(f(v)))(x)
    want = jax.grad(lambda v: jnp.sum(jf(v)))(x)
    close(got, want, rtol64=1e-11)


def test_second_derivatives_match_jax() -> None:
    x = np.array([0.3, 1.7, 4.2])
    for name in ("lgamma", "tan", "erf", "atanh", "expm1"):
        f, jf, _, _ = UNARY[name]
        got = tdx.grad(lambda v: tnp.sum(tdx.grad(lambda w: tnp.sum(f(w)))(v)))(x * 0.2 if name == "atanh" else x)
        want = jax.grad(lambda v: jnp.sum(jax.grad(lambda w: jnp.sum(jf(w)))(v)))(x * 0.2 if name == "atanh" else x)
        close(got, want, rtol64=1e-11)


def test_digamma_derivative_is_trigamma_also_for_negative_arguments() -> None:
    x = np.array([-2.7, -0.3, 0.2, 0.5, 1.0, 3.3, 40.0])
    got = tdx.grad(lambda v: tnp.sum(lax.digamma(v)))(x)
    want = jax.grad(lambda v: jnp.sum(jax.lax.digamma(v)))(x)
    close(got, want, rtol64=1e-12)


def test_binary_functions_match_jax() -> None:
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x, y = (rng.normal(size=(3, 4)) * 3).astype(dtype), (rng.normal(size=(3, 4)) * 3).astype(dtype)
        close(lax.atan2(x, y), jax.lax.atan2(x, y))
        close(tdx.jit(lax.atan2)(x, y), jax.lax.atan2(x, y))
        assert np.array_equal(np.asarray(lax.nextafter(x, y)), np.asarray(jax.lax.nextafter(x, y)))
    x, y = rng.normal(size=5), rng.uniform(0.5, 2.0, size=5)
    def f(a: tdx.ArrayLike, b: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(lax.atan2(a, b))

    gx, gy = tdx.grad(f, argnums=(0, 1))(x, y)
    jx, jy = jax.grad(lambda a, b: jnp.sum(jax.lax.atan2(a, b)), argnums=(0, 1))(x, y)
    close(gx, jx)
    close(gy, jy)


def test_nextafter_tangent_is_the_first_operands() -> None:
    x, y = np.array([1.0, -2.0]), np.array([2.0, -3.0])
    _, t = tdx.jvp(lambda a, b: lax.nextafter(a, b), (x, y), (np.array([3.0, 4.0]), np.array([5.0, 6.0])))
    np.testing.assert_array_equal(np.asarray(t), [3.0, 4.0])


def test_edge_values_are_xlas() -> None:
    """Where XLA and the C library disagree, eager gives what jit (and JAX) give."""
    cases = {
        "erf_inv": np.array([-1.0, 1.0, -0.0, 0.0, 2.0, np.nan]),
        "lgamma": np.array([-np.inf, np.inf, 0.0, -0.0, -1.0, -2.0, np.nan]),
        "digamma": np.array([0.0, -0.0, -1.0, -2.0, -np.inf, np.inf, np.nan]),
        "log1p": np.array([-1.0, -2.0, np.inf, -0.0]),
        "atanh": np.array([-1.0, 1.0, 2.0, -0.0]),
        "acosh": np.array([1.0, 0.5, np.inf]),
    }
    for name, x in cases.items():
        f, jf, _, _ = UNARY[name]
        for dtype in (np.float32, np.float64):
            xs = x.astype(dtype)
            want = np.asarray(jf(xs))
            for got in (np.asarray(f(xs)), np.asarray(tdx.jit(f)(xs))):
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {dtype}")
                signed = ~np.isnan(want)  # the sign of a NaN is not compared
                np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]), err_msg=f"{name} {dtype}")


def test_round_halves_both_ways_and_keeps_signed_zeros() -> None:
    x = np.array([-2.5, -1.5, -0.5, -0.4, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5,
                  0.49999999999999994, 4503599627370497.0, np.inf, -np.inf, np.nan])
    for dtype in (np.float32, np.float64):
        xs = x.astype(dtype)
        for method in (lax.RoundingMethod.AWAY_FROM_ZERO, lax.RoundingMethod.TO_NEAREST_EVEN):
            want = np.asarray(jax.lax.round(xs, jax.lax.RoundingMethod(int(method))))
            for got in (np.asarray(lax.round(xs, method)), np.asarray(tdx.jit(lambda v: lax.round(v, method))(xs))):
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(np.asarray(lax.round(np.array([0.5, 1.5]), 1)), [0.0, 2.0])
    assert np.asarray(tdx.grad(lambda v: lax.round(v))(1.3)) == 0.0


def test_sign_and_is_finite() -> None:
    for x in (np.array([-3, 0, 5], np.int32), np.array([-2.0, -0.0, 0.0, 3.0, np.nan, -np.inf])):
        got, want = np.asarray(lax.sign(x)), np.asarray(jax.lax.sign(x))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    x = np.array([1.0, np.inf, -np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.is_finite(x)), [True, False, False, False])
    assert np.asarray(tdx.grad(lambda v: lax.sign(v) * v)(-2.0)) == -1.0  # sign's tangent is zero


def test_vmap_matches_a_loop() -> None:
    x = np.linspace(0.2, 0.8, 12).reshape(3, 4)
    for name in ("erf_inv", "lgamma", "asin", "log1p"):
        f = UNARY[name][0]
        got = np.asarray(tdx.vmap(f, in_axes=1)(x))
        want = np.stack([np.asarray(f(x[:, i])) for i in range(4)])
        np.testing.assert_array_equal(got, want)
    got = np.asarray(tdx.vmap(lambda a: lax.atan2(a, x[0]))(x))
    np.testing.assert_array_equal(got, np.stack([np.asarray(lax.atan2(r, x[0])) for r in x]))
    got = np.asarray(tdx.vmap(lambda a: lax.round(a, 1))(x * 10))
    np.testing.assert_array_equal(got, np.asarray(lax.round(x * 10, 1)))


def test_errors() -> None:
    i32 = ShapedArray((2,), np.dtype(np.int32))
    f32 = ShapedArray((2,), np.dtype(np.float32))
    for prim in (special.log1p_p, special.erf_p, special.lgamma_p, special.is_finite_p):
        with pytest.raises(PrimitiveTypeError, match=rf"{prim.name} accepts .* operands, got int32\[2\]"):
            prim.abstract_eval([i32], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="sign accepts"):
        special.sign_p.abstract_eval([ShapedArray((), np.dtype(np.bool_))], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="atan2 requires operands of one shape and dtype"):
        special.atan2_p.abstract_eval([f32, ShapedArray((2,), np.dtype(np.float64))], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="round accepts float16/bfloat16/float32/float64 operands, got int32"):
        special.round_p.abstract_eval([i32], pmap({"rounding_method": 0}))
    with pytest.raises(PrimitiveTypeError, match="rounding_method must be 0 .* or 1 .*, got 2"):
        special.round_p.abstract_eval([f32], pmap({"rounding_method": 2}))
    with pytest.raises(PrimitiveTypeError, match="missing param 'rounding_method'"):
        special.round_p.abstract_eval([f32], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="rounding_method must be integers"):
        lax.round(np.float32(1.5), 0.5)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="a Python float"):
        lax.atan2(np.array([1], np.int32), 2.0)
    with pytest.raises(PrimitiveTypeError, match="sign accepts"):
        tnp.sign(np.array([True]))  # jnp.sign refuses bools too
    same_as_jax(tnp.square(np.array([True, False])), jnp.square(np.array([True, False])))


# -- typedax.numpy -----------------------------------------------------------------------------

TNP_UNARY = [
    "log1p", "expm1", "exp2", "log2", "log10", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "arcsinh", "arccosh", "arctanh", "sign", "round", "around", "rint", "isnan", "isinf", "isfinite",
    "nan_to_num", "deg2rad", "rad2deg", "sinc", "square", "reciprocal", "fabs",
]
TNP_BINARY = ["arctan2", "logaddexp", "hypot", "heaviside"]


def _edge(dtype: str) -> np.ndarray:
    if dtype.startswith("int"):
        return np.array([-3, -1, 0, 1, 2, 7], dtype)
    return np.array([-np.inf, -2.5, -1.5, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 1.5, 2.5, np.inf, np.nan], dtype)


def same_as_jax(got: object, want: object) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    if g.dtype.kind == "f":
        rtol = 2e-6 if g.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-30)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", TNP_UNARY)
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_numpy_unary_functions_match_jax_numpy(name: str, dtype: str) -> None:
    x = _edge(dtype)
    with np.errstate(all="ignore"):
        same_as_jax(getattr(tnp, name)(x), getattr(jnp, name)(x))
        same_as_jax(tdx.jit(getattr(tnp, name))(x), getattr(jnp, name)(x))


@pytest.mark.parametrize("name", TNP_BINARY)
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int32", "float32"), ("int32", "int32")])
def test_numpy_binary_functions_match_jax_numpy(name: str, dtypes: tuple[str, str]) -> None:
    a, b = _edge(dtypes[0]), _edge(dtypes[1])
    x, y = (v.ravel() for v in np.meshgrid(a, b, indexing="ij"))
    with np.errstate(all="ignore"):
        same_as_jax(getattr(tnp, name)(x, y), getattr(jnp, name)(x, y))
        same_as_jax(getattr(tnp, name)(x, 2.0), getattr(jnp, name)(x, 2.0))


def test_numpy_round_with_decimals_and_nan_to_num_options() -> None:
    x = np.array([1.2345, -2.5551, 1234.5, np.inf, np.nan])
    for d in (-2, 1, 2):
        same_as_jax(tnp.round(x, d), jnp.round(x, d))
    same_as_jax(tnp.round(np.array([15, 25], np.int32)), jnp.round(np.array([15, 25], np.int32)))
    same_as_jax(tnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), jnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0))
    with pytest.raises(PrimitiveTypeError, match="decimals < 0"):
        tnp.round(np.array([15], np.int32), -1)
    with pytest.raises(PrimitiveTypeError, match="decimals must be an int"):
        tnp.round(x, 1.5)  # type: ignore[arg-type]  # the error under test


def _sum_logaddexp(a: tdx.ArrayLike, b: tdx.ArrayLike) -> tdx.Array:
    return tnp.sum(tnp.logaddexp(a, b))


# ci: 10 examples (each example compiles with XLA or runs JAX); make test-long runs 40
@ci_examples(10, otherwise=40, deadline=None)
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_logaddexp_values_and_gradients_match_jax(dtype: str, data: st.DataObject) -> None:
    x = data.draw(arrays(dtype, -30.0, 30.0))
    y = data.draw(hnp.arrays(dtype, x.shape, elements=st.sampled_from([-30.0, -1.0, 0.0, 2.0, 30.0])))
    same_as_jax(tnp.logaddexp(x, y), jnp.logaddexp(x, y))
    if dtype == "float64":
        gx, gy = tdx.grad(_sum_logaddexp, argnums=(0, 1))(x, y)
        jx, jy = jax.grad(lambda a, b: jnp.sum(jnp.logaddexp(a, b)), argnums=(0, 1))(x, y)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(jx), rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(np.asarray(gy), np.asarray(jy), rtol=1e-12, atol=1e-300)


def test_logaddexp_ties_and_infinities() -> None:
    x = np.array([1.0, -np.inf, np.inf, -np.inf, 3.0])
    y = np.array([1.0, -np.inf, np.inf, 2.0, -np.inf])
    same_as_jax(tnp.logaddexp(x, y), jnp.logaddexp(x, y))
    g = tdx.grad(_sum_logaddexp, argnums=(0, 1))(x[[0, 3, 4]], y[[0, 3, 4]])
    j = jax.grad(lambda a, b: jnp.sum(jnp.logaddexp(a, b)), argnums=(0, 1))(x[[0, 3, 4]], y[[0, 3, 4]])
    for a, b in zip(g, j):  # a half each on the tie (JAX's exp(x - out) is 1 ulp under); no NaN
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-15, atol=0)


def test_numpy_gradients_match_jax() -> None:
    x = np.array([0.3, -0.7, 1.9, 0.0, -2.5])
    for name in ("sinc", "hypot", "log2", "arctan2", "heaviside", "square", "reciprocal", "deg2rad"):
        f, jf = getattr(tnp, name), getattr(jnp, name)
        xs = x[:3] if name in ("log2", "reciprocal") else x
        xs = np.abs(xs) if name == "log2" else xs
        if name in TNP_BINARY or name == "arctan2":
            got = tdx.grad(lambda v: tnp.sum(f(v, 1.5)))(xs)
            want = jax.grad(lambda v: jnp.sum(jf(v, 1.5)))(xs)
        else:
            got = tdx.grad(lambda v: tnp.sum(f(v)))(xs)
            want = jax.grad(lambda v: jnp.sum(jf(v)))(xs)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-15, err_msg=name)


def test_numpy_logical_functions_match_jax_numpy() -> None:
    a = np.array([0, 1, 2, 0], np.int32)
    b = np.array([0.0, 0.0, 1.5, np.nan])
    for name in ("logical_and", "logical_or", "logical_xor"):
        same_as_jax(getattr(tnp, name)(a, b), getattr(jnp, name)(a, b))
        same_as_jax(getattr(tnp, name)(a > 0, True), getattr(jnp, name)(a > 0, True))
    same_as_jax(tnp.logical_not(b), jnp.logical_not(b))
