"""Complex numbers (issue 28, item 1): ``complex64``/``complex128`` against JAX
as the oracle -- values and dtypes eagerly and under ``jit``, with x64 on and
off; promotion with Python ``complex`` (weak) scalars; the jaxpr text of
complex programs round-trips; the new primitives ``complex``/``real``/
``imag``/``conj`` under ``jvp``, ``vjp``, ``grad`` and ``vmap``; and JAX's
errors where it refuses a complex operand."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import GradOutputError, PrimitiveTypeError, TangentTypeError
from typedax.core.avals import ShapedArray
from typedax.core.ir import NO_PARAMS, Lit, Primitive
from typedax.core.trace import bind1
from typedax.primitives import complex_numbers, elementwise, special
from typedax.core.parse import parse_jaxpr

from _examples import ci_examples, ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Z = np.array([[1.5 + 2.0j, -0.5 - 1.0j, 3.0 + 0.0j], [0.25 - 2.5j, -1.0 + 0.5j, 2.0 - 0.75j]])
W = np.array([[0.5 - 1.0j, 2.0 + 0.25j, -1.5 + 1.0j], [1.0 + 1.0j, -0.75 - 0.5j, 0.5 + 2.0j]])
R = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -1.0]])


@pytest.fixture(params=[True, False], ids=["x64", "x32"])
def x64(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Both libraries with x64 on, then off (restored after)."""
    on = bool(request.param)
    jax.config.update("jax_enable_x64", on)  # type: ignore[no-untyped-call]  # jax's config is untyped
    tdx.config.update("jax_enable_x64", on)
    try:
        yield on
    finally:
        tdx.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # as above


# name -> (typedax function, JAX function, operands): operands are NumPy values
# (complex128 ones enter as complex64 with x64 off, in both libraries)
Fn = Callable[..., Any]
CASES: dict[str, tuple[Fn, Fn, tuple[object, ...]]] = {
    "add": (tnp.add, jnp.add, (Z, W)),
    "sub": (tnp.subtract, jnp.subtract, (Z, W)),
    "mul": (tnp.multiply, jnp.multiply, (Z, W)),
    "div": (tnp.divide, jnp.divide, (Z, W)),
    "neg": (tnp.negative, jnp.negative, (Z,)),
    "mul(py complex)": (lambda x: x * (1 - 2j), lambda x: x * (1 - 2j), (Z.astype(np.complex64),)),
    "f32 + py complex": (lambda x: x + 2j, lambda x: x + 2j, (R.astype(np.float32),)),
    "f64 * c64": (tnp.multiply, jnp.multiply, (R, Z.astype(np.complex64))),
    "i32 + c64": (tnp.add, jnp.add, (np.arange(3, dtype=np.int32), Z[0].astype(np.complex64))),
    "exp": (tnp.exp, jnp.exp, (Z,)),
    "log": (tnp.log, jnp.log, (Z,)),
    "sqrt": (tnp.sqrt, jnp.sqrt, (Z,)),
    "sin": (tnp.sin, jnp.sin, (Z,)),
    "cos": (tnp.cos, jnp.cos, (Z,)),
    "tan": (tnp.tan, jnp.tan, (Z,)),
    "tanh": (tnp.tanh, jnp.tanh, (Z,)),
    "sinh": (tnp.sinh, jnp.sinh, (Z,)),
    "log1p": (tnp.log1p, jnp.log1p, (Z,)),
    "expm1": (tnp.expm1, jnp.expm1, (Z,)),
    "abs": (tnp.abs, jnp.abs, (Z,)),
    "sign": (tnp.sign, jnp.sign, (Z,)),
    "power(float)": (lambda x: x**2.5, lambda x: x**2.5, (Z,)),
    "power(complex)": (tnp.power, jnp.power, (Z, W)),
    "integer_pow": (lambda x: x**3, lambda x: x**3, (Z,)),
    "square": (tnp.square, jnp.square, (Z,)),
    "sum": (lambda x: tnp.sum(x, axis=1), lambda x: jnp.sum(x, axis=1), (Z,)),
    "prod": (tnp.prod, jnp.prod, (Z,)),
    "mean": (tnp.mean, jnp.mean, (Z,)),
    "matmul": (lambda x, y: x @ y.T, lambda x, y: x @ y.T, (Z, W)),
    "dot(real, complex)": (lambda x, y: tnp.dot(x, y.T), lambda x, y: jnp.dot(x, y.T), (R, Z)),
    "real": (tnp.real, jnp.real, (Z,)),
    "imag": (tnp.imag, jnp.imag, (Z,)),
    "conj": (tnp.conj, jnp.conj, (Z,)),
    "conjugate(real)": (tnp.conjugate, jnp.conjugate, (R,)),
    "imag(real)": (tnp.imag, jnp.imag, (R,)),
    "angle": (tnp.angle, jnp.angle, (Z,)),
    "angle(deg)": (lambda x: tnp.angle(x, deg=True), lambda x: jnp.angle(x, deg=True), (Z,)),
    "iscomplex": (tnp.iscomplex, jnp.iscomplex, (Z * np.array([1, 1, 0.0]).real,)),
    "isreal": (tnp.isreal, jnp.isreal, (Z,)),
    "methods": (lambda x: x.real + x.imag * x.conj().imag, lambda x: x.real + x.imag * x.conj().imag, (Z,)),
    "lax.complex": (lax.complex, jax.lax.complex, (R, R[::-1])),
    "lax.conj(real)": (lax.conj, jax.lax.conj, (R,)),
    "equal": (tnp.equal, jnp.equal, (Z, np.where(R > 0, Z, W))),
    "not_equal": (tnp.not_equal, jnp.not_equal, (Z, np.where(R > 0, Z, W))),
    "where": (lambda x, y: tnp.where(tnp.abs(x) > 2, x, y), lambda x, y: jnp.where(jnp.abs(x) > 2, x, y), (Z, W)),
    "structural": (
        lambda x: tnp.concatenate([x.T.reshape(-1), tnp.flip(x[1, ::2])]),
        lambda x: jnp.concatenate([x.T.reshape(-1), jnp.flip(x[1, ::2])]), (Z,)),
    "isnan/isfinite": (
        lambda x: tnp.isnan(x / (x * 0)) ^ tnp.isfinite(x / (x * 0)) ^ tnp.isinf(x / (x * 0)),
        lambda x: jnp.isnan(x / (x * 0)) ^ jnp.isfinite(x / (x * 0)) ^ jnp.isinf(x / (x * 0)), (Z,)),
    "round": (lambda x: tnp.round(x * 3.3, 1), lambda x: jnp.round(x * 3.3, 1), (Z,)),
    "maximum": (tnp.maximum, jnp.maximum, (Z, np.where(R > 0, Z, W).real + 2j)),
    "lax.min": (lax.min, jax.lax.min, (Z, np.where(R > 0, Z, W).real + 2j)),
    "less (lexicographic)": (tnp.less, jnp.less, (Z, np.where(R > 0, Z, W).real + 2j)),
    "greater_equal": (tnp.greater_equal, jnp.greater_equal, (Z, np.where(R > 0, Z, W))),
    "max": (lambda x: tnp.max(x, axis=0), lambda x: jnp.max(x, axis=0), (Z,)),
    "cumsum": (lambda x: tnp.cumsum(x, 1), lambda x: jnp.cumsum(x, 1), (Z,)),
    "cumprod": (lambda x: tnp.cumprod(x, 1), lambda x: jnp.cumprod(x, 1), (Z,)),
    "var": (lambda x: tnp.var(x, 0), lambda x: jnp.var(x, 0), (Z,)),
    "std": (tnp.std, jnp.std, (Z,)),
    "vdot": (tnp.vdot, jnp.vdot, (Z, W)),
    "norm": (tnp.linalg.norm, jnp.linalg.norm, (Z,)),
    "norm(3, axis)": (lambda x: tnp.linalg.norm(x, 3, axis=1), lambda x: jnp.linalg.norm(x, 3, axis=1), (Z,)),
    "isclose": (lambda x, y: tnp.isclose(x, x + y * 1e-6), lambda x, y: jnp.isclose(x, x + y * 1e-6), (Z, W)),
    "sort": (lambda x: tnp.sort(x.reshape(-1)), lambda x: jnp.sort(x.reshape(-1)),
             (np.array([1 + 2j, np.nan, 1 + 1j, -1j, 1 + np.nan * 1j, 2, 1 + 1j, -0.0 + 1j, 1j, -1j]),)),
    "argsort": (lambda x: tnp.argsort(x, axis=0), lambda x: jnp.argsort(x, axis=0), (np.round(Z * 0.5),)),
    "convolve": (tnp.convolve, jnp.convolve, (Z[0], W[1])),
    "conv_general_dilated": (
        lambda x, w: lax.conv_general_dilated(x[None], w[None], (1,), "SAME"),
        lambda x, w: jax.lax.conv_general_dilated(x[None], w[None], (1,), "SAME"), (Z, W)),
    "gather/scatter": (lambda x: x[tnp.array([1, 0, 1])].at[0, tnp.array([2, 2])].add(1j),
                       lambda x: x[jnp.array([1, 0, 1])].at[0, jnp.array([2, 2])].add(1j), (Z,)),
    "sort_complex": (tnp.sort_complex, jnp.sort_complex, (Z,)),
    "sort_complex(int32)": (tnp.sort_complex, jnp.sort_complex, (np.array([3, 1, 2], np.int32),)),
    "rsqrt": (lax.rsqrt, jax.lax.rsqrt, (Z,)),
    "exp2": (tnp.exp2, jnp.exp2, (Z,)),
    "arccosh": (tnp.arccosh, jnp.arccosh, (Z,)),
    "linspace": (lambda: tnp.linspace(1j, 2 - 1j, 4, endpoint=False), lambda: jnp.linspace(1j, 2 - 1j, 4, endpoint=False), ()),
    "nan_to_num": (lambda x: tnp.nan_to_num(x / (x.real - 0.5)), lambda x: jnp.nan_to_num(x / (x.real - 0.5)),
                   (np.array([0.5 + 1j, 0.5 + 0j, 0.5 - 1j, 1 + 1j]),)),
    "rint": (lambda x: tnp.rint(x * 1.3), lambda x: jnp.rint(x * 1.3), (Z,)),
    "nanmax": (lambda x: tnp.nanmax(x, 0), lambda x: jnp.nanmax(x, 0), (np.where(R > 0, Z, np.nan),)),
    "nansum": (tnp.nansum, jnp.nansum, (np.where(R > 0, Z, Z * np.nan),)),
    "asarray(py complex)": (lambda: tnp.asarray(1 + 2j), lambda: jnp.asarray(1 + 2j), ()),
    "complex64(x)": (lambda: tnp.complex64(1 + 2j), lambda: jnp.complex64(1 + 2j), ()),
    "complex128 list": (lambda: tnp.asarray([1, 2.5, 1j], tnp.complex128),
                        lambda: jnp.asarray([1, 2.5, 1j], jnp.complex128), ()),
}


def _close(ours: object, want: object, name: str) -> None:
    o, w = np.asarray(ours), np.asarray(want)
    assert o.dtype == w.dtype and o.shape == w.shape, (name, o.dtype, w.dtype, o.shape, w.shape)
    tol = 1e-5 if o.dtype in (np.complex64, np.float32) else 1e-12
    np.testing.assert_allclose(o, w, rtol=tol, atol=tol, err_msg=name)


#: The cases run with x64 off too (where the types change: complex128 operands
#: and Python complex scalars enter as complex64); the others with x64 on.
X32_CASES = (
    "add", "div", "mul(py complex)", "f32 + py complex", "f64 * c64", "i32 + c64", "exp", "abs", "sum",
    "matmul", "real", "angle", "lax.complex", "maximum", "var", "norm", "sort", "asarray(py complex)",
    "complex128 list", "sort_complex(int32)",
)


@pytest.mark.parametrize("name,x64", [(n, True) for n in sorted(CASES)] + [(n, False) for n in X32_CASES],
                         ids=lambda v: str(v) if isinstance(v, str) else "x64" if v else "x32", indirect=["x64"])
def test_values_and_dtypes_match_jax_eager_and_jit(name: str, x64: bool) -> None:
    ours, theirs, args = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # x64 off: JAX's "Explicitly requested dtype" warnings
        want = theirs(*(jnp.asarray(a) for a in args))
        ins = [tnp.asarray(np.asarray(a)) for a in args]
        _close(ours(*ins), want, name)
        if args:
            _close(tdx.jit(ours)(*ins), want, f"jit {name}")
            _close(tdx.jit(ours)(*args), want, f"jit {name} of NumPy arguments")


def test_promotion_and_weak_complex(x64: bool) -> None:
    """A Python complex is weak (``c*``): it keeps a float32 array's width
    (complex64), and alone gives the default complex type."""
    for dt in ("float16", "bfloat16", "float32", "float64", "int8", "int64", "complex64", "complex128", "bool"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = jnp.result_type(jnp.zeros((), dt), 1j)
            assert tnp.result_type(tnp.zeros((), np.dtype(dt)), 1j) == want, dt
    x = tnp.asarray(1j)
    assert x.weak_type and x.dtype == (np.complex128 if x64 else np.complex64)
    assert tnp.promote_types(np.dtype(np.float64), np.dtype(np.complex64)) == np.complex128
    assert (tnp.ones(2, tnp.float32) * tnp.asarray(1j)).dtype == np.complex64


def test_astype_to_real_keeps_the_real_part_with_jax_warning() -> None:
    z = tnp.asarray(Z)
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        r = z.astype(tnp.float32)
    np.testing.assert_array_equal(r, Z.real.astype(np.float32))
    with pytest.warns(np.exceptions.ComplexWarning):
        j = tdx.jit(lambda a: a.astype(tnp.int32))(z)
    np.testing.assert_array_equal(j, np.trunc(Z.real).astype(np.int32))
    np.testing.assert_array_equal(z.astype(tnp.bool_), Z != 0)
    np.testing.assert_array_equal(tdx.jit(lambda a: tnp.astype(a, bool))(tnp.asarray(Z * 0)), np.zeros(Z.shape, bool))


def test_device_round_trip_and_jit_arguments() -> None:
    for d in (np.complex64, np.complex128):
        v = Z.astype(d)
        out = tdx.jit(lambda a, s: a * s)(v, 2 - 1j)
        np.testing.assert_array_equal(np.asarray(out), v * np.asarray(2 - 1j, d))
        assert out.dtype == d
        put = tdx.device_put(v)
        np.testing.assert_array_equal(np.asarray(put), v)
        assert complex(put[0, 1]) == complex(v[0, 1])


# -- the jaxpr text -----------------------------------------------------------------------
def test_jaxpr_text_round_trips_complex_literals() -> None:
    odd = [complex(math.nan, -0.0), complex(-math.inf, 1e-300), complex(0.0, math.inf), -1.5e20 + 2.5e-7j]

    def f(a: tdx.Array) -> tdx.Array:
        out = lax.real(a * (1 + 2j)) + lax.imag(lax.conj(a))
        y = lax.complex(out, out) - 0.5j
        for c in odd:
            y = y + np.complex128(c)
        return lax.abs(y * np.complex64(3 - 4j).astype(np.complex128))

    text = str(tdx.make_jaxpr(f)(tnp.asarray(Z)))
    assert "1.0+2.0j" in text and "nan-0.0j" in text and "-inf+1e-300j" in text and "0.0+infj" in text
    assert "-1.5e+20+2.5e-07j" in text
    assert str(parse_jaxpr(text)) == text
    typed = str(tdx.make_jaxpr(lambda a: a * (1 + 2j))(Z.astype(np.complex64)))
    assert "1.0+2.0j:complex64" in typed and str(parse_jaxpr(typed)) == typed
    assert " b:complex64[2,3] = mul a 1.0+2.0j:complex64" in typed


@ci_examples(15)
@given(re=st.floats(width=32), im=st.floats(width=32), wide=st.booleans())
def test_any_complex_literal_round_trips(re: float, im: float, wide: bool) -> None:
    d = np.complex128 if wide else np.complex64
    text = str(tdx.make_jaxpr(lambda a: a + d(complex(re, im)))(np.zeros(2, d)))
    j = parse_jaxpr(text)
    assert str(j) == text
    (lit,) = [x for x in j.eqns[0].inputs if isinstance(x, Lit)]
    v = complex(lit.val)
    assert (math.isnan(v.real) and math.isnan(re)) or (v.real == re and math.copysign(1, v.real) == math.copysign(1, re))
    assert (math.isnan(v.imag) and math.isnan(im)) or (v.imag == im and math.copysign(1, v.imag) == math.copysign(1, im))


# -- differentiation ---------------------------------------------------------------------
LOSSES: dict[str, tuple[Fn, Fn]] = {
    "|z|^2": (lambda z: tnp.sum(lax.real(z * lax.conj(z))), lambda z: jnp.sum(jax.lax.real(z * jax.lax.conj(z)))),
    "abs": (lambda z: tnp.sum(tnp.abs(z)), lambda z: jnp.sum(jnp.abs(z))),
    "imag(z^2)": (lambda z: tnp.sum(tnp.imag(z * z)), lambda z: jnp.sum(jnp.imag(z * z))),
    "real(exp sin / z)": (
        lambda z: tnp.sum(tnp.real(tnp.exp(z) * tnp.sin(z) / z)),
        lambda z: jnp.sum(jnp.real(jnp.exp(z) * jnp.sin(z) / z))),
    "angle + log": (
        lambda z: tnp.sum(tnp.angle(z) + tnp.real(tnp.log(z) * tnp.sqrt(z))),
        lambda z: jnp.sum(jnp.angle(z) + jnp.real(jnp.log(z) * jnp.sqrt(z)))),
    "complex parts": (
        lambda z: tnp.sum(tnp.abs(lax.complex(tnp.imag(z), tnp.real(z) ** 2) ** 3)),
        lambda z: jnp.sum(jnp.abs(jax.lax.complex(jnp.imag(z), jnp.real(z) ** 2) ** 3))),
    "matmul": (
        lambda z: tnp.real(tnp.sum(z @ tnp.conj(z).T * 1j)), lambda z: jnp.real(jnp.sum(z @ jnp.conj(z).T * 1j))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grad_and_jvp_of_real_loss_of_complex_input_match_jax(name: str) -> None:
    ours, theirs = LOSSES[name]
    # ci: JAX's derivatives under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager ones
    want = ci_jit(jax.grad(theirs))(Z)
    _close(tdx.grad(ours)(Z), want, name)
    _close(tdx.jit(tdx.grad(ours))(Z), want, f"jit grad {name}")
    y, t = tdx.jvp(ours, (Z,), (W,))
    jy, jt = ci_jit(lambda z, w: jax.jvp(theirs, (z,), (w,)))(Z, W)
    _close(y, jy, name)
    _close(t, jt, f"jvp {name}")


def test_grad_matches_finite_differences() -> None:
    """JAX's convention: for a real loss, grad is dL/dx - i dL/dy (the
    conjugate of the steepest ascent direction)."""
    ours = LOSSES["real(exp sin / z)"][0]
    g = np.asarray(tdx.grad(ours)(Z))
    h = 1e-6
    e = np.zeros(Z.shape)
    e[1, 2] = h
    dx = (float(ours(Z + e)) - float(ours(Z - e))) / (2 * h)
    dy = (float(ours(Z + 1j * e)) - float(ours(Z - 1j * e))) / (2 * h)
    np.testing.assert_allclose(g[1, 2], dx - 1j * dy, rtol=1e-6)


def test_vjp_of_complex_outputs_matches_jax() -> None:
    def f(m: Any, z: Any, r: Any) -> Any:
        return (m.exp(z) * m.conj(z) + r, m.real(z) * r, m.abs(z * r))

    ct = (W, R, R[::-1])
    out, pull = tdx.vjp(lambda z, r: f(tnp, z, r), Z, R)
    jout, jpull = jax.vjp(lambda z, r: f(jnp, z, r), Z, R)
    for o, w in zip(out, jout):
        _close(o, w, "vjp out")
    for g, w in zip(pull(ct), jpull(ct)):
        _close(g, w, "vjp cotangent")


def test_holomorphic_grad_and_the_complex_output_error() -> None:
    f = lambda z: z * z * tnp.exp(z) + tnp.sin(z) / z  # noqa: E731
    jf = lambda z: z * z * jnp.exp(z) + jnp.sin(z) / z  # noqa: E731
    _close(tdx.grad(f, holomorphic=True)(1.5 - 0.5j), jax.grad(jf, holomorphic=True)(1.5 - 0.5j), "holomorphic")
    with pytest.raises(GradOutputError, match=r"grad requires real-valued outputs .* pass holomorphic=True"):
        tdx.grad(f)(1.5 - 0.5j)
    with pytest.raises(GradOutputError, match="holomorphic=True requires outputs with complex dtype"):
        tdx.grad(lambda z: tnp.abs(z), holomorphic=True)(1.5 - 0.5j)
    with pytest.raises(TangentTypeError, match="holomorphic=True requires inputs with complex dtype"):
        tdx.grad(f, holomorphic=True)(1.5)


def test_vmap_of_the_new_primitives() -> None:
    def f(z: tdx.Array, r: float) -> tdx.Array:
        return lax.complex(lax.imag(z), r) * lax.conj(z) + lax.real(z)

    got = tdx.vmap(f, in_axes=(1, None))(tnp.asarray(Z), 0.5)
    want = np.stack([np.asarray(f(tnp.asarray(Z[:, i]), 0.5)) for i in range(3)])
    _close(got, want, "vmap")


# -- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name,fn", [
    ("lt", lambda z: lax.lt(z, z)), ("ge", lambda z: lax.ge(z, z)), ("gt", lambda z: lax.gt(z, z)), ("argmax", lambda z: tnp.argmax(z)),
    ("floor", lambda z: lax.floor(z)), ("ceil", lambda z: tnp.ceil(z)), ("rem", lambda z: lax.rem(z, z)),
    ("remainder", lambda z: z % z), ("floor_divide", lambda z: z // z), ("real of real", lambda z: lax.real(z.real)),
    ("complex of complex", lambda z: lax.complex(z, z)), ("erf", lambda z: lax.erf(z)),
    ("lax.add(f32, py complex)", lambda z: lax.add(z.real, 1j)), ("fabs", lambda z: tnp.fabs(z)),
])
def test_complex_operands_jax_refuses(name: str, fn: Fn) -> None:
    """Refused with a ``PrimitiveTypeError`` (a ``TypeError``, as JAX's)."""
    z = tnp.asarray(Z.astype(np.complex64))
    with pytest.raises(PrimitiveTypeError):
        fn(z)
    with pytest.raises(PrimitiveTypeError):
        tdx.jit(fn)(z)


def test_grad_through_control_flow_with_complex_carries() -> None:
    """Complex values carry tangents through scan, while, cond and custom_jvp."""

    def f(m: Any, lx: Any, z: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            c2 = c * x + m.sin(c)
            return c2, m.real(c2)

        c, ys = lx.scan(step, z[0], z[1:])
        v = lx.cond(m.real(c) > 0, lambda u: u * u, lambda u: -u, c)
        return m.sum(ys) + m.real(v * m.conj(v))

    want = jax.grad(lambda z: f(jnp, jax.lax, z))(Z[0])
    _close(tdx.grad(lambda z: f(tnp, lax, z))(Z[0]), want, "control flow")
    _close(tdx.jit(tdx.grad(lambda z: f(tnp, lax, z)))(Z[0]), want, "jit control flow")

    def h(m: Any, lx: Any, c: Any) -> Any:
        return lx.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * (0.5 + 0.5j) + m.exp(s[1])), (0, c))[1]

    _close(tdx.jvp(lambda c: h(tnp, lax, c), (Z[0],), (W[0],))[1],
           jax.jvp(lambda c: h(jnp, jax.lax, c), (Z[0],), (W[0],))[1], "while jvp")

    @tdx.custom_jvp
    def g(z: tdx.Array) -> tdx.Array:
        return z * z

    g.defjvp(lambda p, t: (p[0] * p[0], 2 * p[0] * t[0]))
    _close(tdx.grad(lambda z: tnp.real(g(z) * 1j))(tnp.asarray(1.0 + 2.0j)),
           jax.grad(lambda z: jnp.real(z * z * 1j))(1.0 + 2.0j), "custom_jvp")


def test_holomorphic_jacobians_and_hessian_match_jax() -> None:
    z = Z[0, :2]

    def f(m: Any) -> Fn:
        return lambda v: m.sin(v) * v[::-1] ** 2

    def g(m: Any) -> Fn:
        return lambda v: m.sum(m.exp(v) * v)

    # ci: JAX's derivatives under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager ones
    _close(tdx.jacfwd(f(tnp), holomorphic=True)(z), ci_jit(jax.jacfwd(f(jnp), holomorphic=True))(z), "jacfwd")
    _close(tdx.jacrev(f(tnp), holomorphic=True)(z), ci_jit(jax.jacrev(f(jnp), holomorphic=True))(z), "jacrev")
    _close(tdx.hessian(g(tnp), holomorphic=True)(z), ci_jit(jax.hessian(g(jnp), holomorphic=True))(z), "hessian")
    _close(tdx.jacrev(lambda v: tnp.abs(v) ** 2)(z), ci_jit(jax.jacrev(lambda v: jnp.abs(v) ** 2))(z), "jacrev real")
    with pytest.raises(TangentTypeError, match="jacfwd requires real-valued inputs .* pass holomorphic=True"):
        tdx.jacfwd(f(tnp))(z)
    with pytest.raises(GradOutputError, match="jacrev requires real-valued outputs .* pass holomorphic=True"):
        tdx.jacrev(f(tnp))(z)
    with pytest.raises(TangentTypeError, match="jacfwd with holomorphic=True requires outputs with complex dtype"):
        tdx.jacfwd(lambda v: tnp.abs(v), holomorphic=True)(z)
    with pytest.raises(TangentTypeError, match="jacrev with holomorphic=True requires inputs with complex dtype"):
        tdx.jacrev(f(tnp), holomorphic=True)(z.real)


def test_eager_equals_jit_on_complex_edge_values() -> None:
    """Every element-wise primitive that takes complex operands, over
    infinities, NaNs, signed zeros (branch cuts) and large values: eager
    evaluation runs XLA for complex operands (``Rules.eval_on_device``), so
    it equals ``jit`` by construction (NumPy's complex algorithms differ)."""
    parts = [0.0, -0.0, 1.0, -1.5, 1e30, math.inf, -math.inf, math.nan]
    c = np.array([complex(a, b) for a in parts for b in parts], np.complex64)
    one = ShapedArray(c.shape, np.dtype(np.complex64))
    prims = [p for f in (elementwise.FAMILY, special.FAMILY, complex_numbers.FAMILY) for p in f.primitives]
    checked = 0
    for p in prims:
        args: list[np.ndarray]
        if _accepts(p, [one]):
            args = [c]
        elif _accepts(p, [one, one]):
            args = [a.ravel() for a in np.meshgrid(c, c[::3], indexing="ij")]
        else:
            continue
        eager = np.asarray(bind1(p, args, NO_PARAMS))
        jitted = np.asarray(tdx.jit(lambda *a: bind1(p, a, NO_PARAMS))(*args))
        np.testing.assert_array_equal(eager, jitted, err_msg=p.name)
        checked += 1
    assert checked >= 30, checked


def _accepts(p: Primitive, avals: list[ShapedArray]) -> bool:
    try:
        p.abstract_eval(avals, NO_PARAMS)
    except PrimitiveTypeError:
        return False
    return True


@pytest.mark.parametrize("fn", [
    lambda z: tnp.clip(z, 0, 1), lambda z: tnp.clip(z.real, 0, 1j), lambda z: tnp.hypot(z, z),
    lambda z: tnp.isposinf(z), lambda z: tnp.isneginf(z),
], ids=["clip", "clip(max complex)", "hypot", "isposinf", "isneginf"])
def test_complex_operands_jax_refuses_with_value_error(fn: Fn) -> None:
    with pytest.raises(ValueError, match="complex"):
        fn(tnp.asarray(Z))
