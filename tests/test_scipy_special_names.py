"""The jax.scipy.special names of issue 29 item 7 against JAX: loggamma,
bernoulli, expi, exp1, expn, spence, dawsn -- values eager and under jit
(float32 and float64, edge values: poles, zeros, negative arguments), dtypes,
derivatives where JAX defines them (JAX's custom rules), vmap, errors."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.special as ss

from _examples import PROFILE

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

#: the checks that cost an XLA compilation each beyond the first run outside
#: the ci profile only (make test's time; make test-long and dev run them)
FULL = PROFILE != "ci"

X = np.asarray([-3.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.5, 5.0, 10.0, 20.0, 40.0, 70.0, 100.0])


def close(got: object, want: object, rtol: float, atol: float | None = None) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    wide = np.complex128 if g.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=rtol,
                               atol=rtol * 1e-3 if atol is None else atol)


UNARY = [("expi", np.float64), *((n, d) for n in ("dawsn", "spence", "loggamma") for d in (np.float32, np.float64))]


def test_unary_functions_match_jax() -> None:
    # all under one jit on each side (CI time: one compilation each); expi
    # only in float64 (below 0 it iterates: exp1's continued fraction and
    # series, which run eagerly in test_expn_matches_jax)
    args = [X.astype(d) for _, d in UNARY]
    got = tdx.jit(lambda xs: [getattr(ss, n)(x) for (n, _), x in zip(UNARY, xs)])(args)
    want = jax.jit(lambda xs: [getattr(jss, n)(x) for (n, _), x in zip(UNARY, xs)])(args)
    for (name, dtype), x, g, w in zip(UNARY, args, got, want):
        rtol = 2e-6 if dtype == np.float32 else 1e-13
        close(g, w, rtol * 8)
        if name != "expi":
            # eager lgamma is SciPy's on the host (float32: within 5e-7 of XLA's near its zeros)
            close(getattr(ss, name)(x), w, rtol, 1e-6 if name == "loggamma" and dtype == np.float32 else None)


def test_expn_matches_jax() -> None:
    x = np.asarray([0.0, 0.2, 0.9, 1.0, 1.5, 4.0, 30.0, -1.0])
    n_arr = np.asarray([0, 1, 2, 5, 6000, 3, 1, 2], np.int32)
    want = jss.expn(jnp.asarray(n_arr), jnp.asarray(x))
    close(ss.expn(n_arr, x), want, 1e-13)  # every branch, element by element
    close(tdx.jit(ss.expn)(n_arr, x), want, 1e-13)
    close(ss.exp1(x[:6]), jss.exp1(jnp.asarray(x[:6])), 1e-13)
    # float32: the series' digamma(n) - log(x) (JAX sums -euler_gamma + 1/i) is within 3e-6
    close(ss.expn(2, x.astype(np.float32)), jss.expn(2, jnp.asarray(x, jnp.float32)), 1e-5)


def _bernoulli_exact(n: int) -> np.ndarray[Any, Any]:
    """B_0 ... B_n (B_1 = -1/2), exactly (Akiyama-Tanigawa), as float64."""
    out: list[Fraction] = []
    a: list[Fraction] = []
    for m in range(n + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    if n >= 1:
        out[1] = -out[1]  # the algorithm gives B_1 = +1/2
    return np.asarray([float(b) for b in out])


def test_bernoulli_matches_jax() -> None:
    exact = _bernoulli_exact(21)
    for n in (0, 2, 3):
        close(ss.bernoulli(n), exact[: n + 1], 1e-13)
    # beyond B_3, JAX's series (so typedax's) is within 3e-6 of the exact numbers
    close(ss.bernoulli(21), jss.bernoulli(21), 1e-13)
    close(ss.bernoulli(21), exact, 3e-6)
    with pytest.raises(ValueError, match="non-negative"):
        ss.bernoulli(-1)
    with pytest.raises(TypeError):
        ss.bernoulli(2.5)  # type: ignore[arg-type]  # a float on purpose


def test_derivatives_match_jax() -> None:
    pts = np.asarray([-2.0, 0.5, 3.0, 20.0])
    for name in ("expi", "dawsn") if FULL else ("expi",):
        g = tdx.vmap(tdx.grad(getattr(ss, name)))(pts)
        close(g, jax.jit(jax.vmap(jax.grad(getattr(jss, name))))(pts), 1e-13)
    if FULL:
        close(tdx.jit(tdx.grad(lambda x: ss.expn(3, x)))(1.5), jax.grad(lambda x: jss.expn(3, x))(1.5), 1e-13)
    close(tdx.grad(lambda x: ss.loggamma(x))(2.5), jax.grad(jss.loggamma)(2.5), 1e-13)
    # spence' = log(x) / (1 - x) (JAX's piecewise gives NaN here; typedax the derivative)
    close(tdx.grad(ss.spence)(1.5), np.log(1.5) / (1 - 1.5), 1e-13)


def test_errors() -> None:
    z = np.asarray([1.0 + 1.0j])
    for f in (ss.expi, ss.exp1, ss.dawsn):
        with pytest.raises(ValueError, match="complex"):
            f(z)
    with pytest.raises(ValueError, match="complex"):
        ss.expn(1, z)
    with pytest.raises(TypeError, match="not supported"):
        ss.spence(np.asarray([1, 2], np.int32))
    with pytest.raises(NotImplementedError, match="complex"):
        ss.loggamma(z)


def test_sici_matches_jax() -> None:
    x = np.asarray([-np.inf, -20.0, -3.0, -0.5, 0.0, 0.3, 4.0, 5.0, 8.0, 20.0, 1e10, np.inf])
    want = jax.jit(jss.sici)(jnp.asarray(x))
    for got in (ss.sici(x), tdx.jit(ss.sici)(x)):
        close(got[0], want[0], 1e-15)
        close(got[1], want[1], 1e-15)
    x32 = x.astype(np.float32)
    for g, w in zip(ss.sici(x32), jss.sici(jnp.asarray(x32))):
        close(g, w, 4e-7)
    pts = np.asarray([0.5, 6.0, 20.0])
    for i in (0, 1):
        close(tdx.vmap(tdx.grad(lambda v: ss.sici(v)[i]))(pts),
              jax.jit(jax.vmap(jax.grad(lambda v: jss.sici(v)[i])))(pts), 1e-15)
    with pytest.raises(ValueError, match="real-valued"):
        ss.sici(np.asarray([1j]))


def test_bessel_jn_matches_jax() -> None:
    z = np.asarray([[0.1, 1.0, 5.0], [10.0, 20.0, 0.0]])
    want = jax.jit(lambda z: jss.bessel_jn(z, v=3))(jnp.asarray(z))
    for got in (ss.bessel_jn(z, v=3), tdx.jit(lambda z: ss.bessel_jn(z, v=3))(z)):
        assert got.shape == (4, 2, 3)
        close(got, want, 1e-13)
    close(tdx.grad(lambda v: ss.bessel_jn(v, v=1)[1])(2.0),
          jax.grad(lambda v: jss.bessel_jn(v, v=1)[1])(2.0), 1e-13)
    with pytest.raises(TypeError, match="concrete integer"):
        ss.bessel_jn(z, v=1.5)  # type: ignore[arg-type]  # a float on purpose
    with pytest.raises(ValueError, match="complex"):
        ss.bessel_jn(np.asarray([1j]), v=1)


def test_owens_t_matches_jax() -> None:
    h = np.asarray([0.0, 0.3, -1.0, 2.0, 5.0, 0.5, 1.0, np.nan])
    a = np.asarray([0.5, 1.0, 2.0, -0.3, 3.0, 0.0, 0.67, 1.0])
    want = jax.jit(jss.owens_t)(h, a)
    close(ss.owens_t(h, a), want, 1e-14)
    close(tdx.jit(ss.owens_t)(h, a), want, 1e-14)
    # float32 stays float32 (JAX's docstring; with x64 on, JAX's float64 weights make it float64)
    assert ss.owens_t(np.float32(0.5), np.float32(2.0)).dtype == np.float32
    for arg in (0, 1) if FULL else (1,):
        close(tdx.vmap(tdx.grad(ss.owens_t, arg))(h[:7], a[:7]),
              jax.jit(jax.vmap(jax.grad(jss.owens_t, arg)))(h[:7], a[:7]), 1e-14)


def test_hyp1f1_matches_jax() -> None:
    a = np.asarray([0.5, 1.0, 2.0, 0.0, 3.0, 1.5, 2.0, 0.7])
    b = np.asarray([1.5, 2.0, 2.0, 1.0, 0.0, 2.5, 3.0, 1.2])
    x = np.asarray([0.3, -2.0, 1.0, 5.0, 1.0, 120.0, 10.0, -0.5])  # special cases; the asymptotic form at 120
    want = jax.jit(jss.hyp1f1)(a, b, x)
    close(ss.hyp1f1(a, b, x), want, 1e-14)
    close(tdx.jit(ss.hyp1f1)(a, b, x), want, 1e-14)
    m = [0, 6, 7]
    if not FULL:  # under ci, the x derivative against central differences (no JAX compilation)
        h = 1e-6
        fd = (np.asarray(ss.hyp1f1(a[m], b[m], x[m] + h)) - np.asarray(ss.hyp1f1(a[m], b[m], x[m] - h))) / (2 * h)
        close(tdx.vmap(tdx.grad(ss.hyp1f1, 2))(a[m], b[m], x[m]), fd, 1e-7)
    for arg in (0, 1, 2) if FULL else ():
        close(tdx.vmap(tdx.grad(ss.hyp1f1, arg))(a[m], b[m], x[m]),
              jax.jit(jax.vmap(jax.grad(jss.hyp1f1, arg)))(a[m], b[m], x[m]), 1e-13)
    with pytest.raises(ValueError, match="complex"):
        ss.hyp1f1(1.0, 2.0, np.asarray([1j]))


def test_wofz_matches_jax() -> None:
    z = np.asarray([0.5 + 0.5j, -1.0 + 2.0j, 3.0 - 1.0j, -0.2 - 0.3j, 10.0 + 0.1j, 0.0j, 1e-3 - 5j])
    r = np.asarray([0.0, 1.0, -2.5], np.float32)  # real arguments: complex64 from float32
    t = np.ones_like(z)

    def cases(w: Callable[[Any], Any], jvp: Callable[..., Any], zz: Any, rr: Any) -> tuple[Any, ...]:
        # complex64, real arguments and the JVP, under one jit (eager complex
        # operations compile one program each: CI time)
        return w(zz.astype(np.complex64) if isinstance(zz, np.ndarray) else zz.astype(jnp.complex64)), w(rr), jvp(w, (zz,), (t,))[1]

    close(ss.wofz(z), jax.jit(jss.wofz)(jnp.asarray(z)), 1e-15)  # eager
    got = tdx.jit(lambda zz, rr: cases(ss.wofz, tdx.jvp, zz, rr))(z, r)
    want = jax.jit(lambda zz, rr: cases(jss.wofz, jax.jvp, zz, rr))(jnp.asarray(z), jnp.asarray(r))
    # float32: below the real axis 2 exp(-z**2) - w(-z) cancels; within float32's
    # epsilon of the values' scale (~1)
    close(got[0], want[0], 1e-6, 1e-6)
    close(got[1], want[1], 1e-6, 1e-6)
    close(got[2], want[2], 1e-14)
    if FULL:
        close(tdx.grad(lambda x: tnp.real(ss.wofz(x)))(0.7), jax.grad(lambda x: jnp.real(jss.wofz(x)))(0.7), 1e-14)


def test_fresnel_matches_jax() -> None:
    x = np.asarray([-np.inf, -40000.0, -3.0, -1.0, 0.0, 0.5, 1.6, 1.61, 2.0, 5.5, 100.0, 5e4, np.inf])
    for xx, rtol in ((x, 1e-15), (x.astype(np.float32), 2e-7)):
        want = jax.jit(jss.fresnel)(jnp.asarray(xx))
        for got in (ss.fresnel(xx), tdx.jit(ss.fresnel)(xx)):
            close(got[0], want[0], rtol, rtol)
            close(got[1], want[1], rtol, rtol)
    pts = np.asarray([0.5, 2.0, 3.3])
    for i in (0, 1):
        close(tdx.vmap(tdx.grad(lambda v: ss.fresnel(v)[i]))(pts),
              jax.jit(jax.vmap(jax.grad(lambda v: jss.fresnel(v)[i])))(pts), 1e-15)
    with pytest.raises(NotImplementedError, match="complex"):
        ss.fresnel(np.asarray([1j]))


def test_hyp2f1_matches_jax() -> None:
    # the series, a terminating sum (a = -3), the digamma form near x = 1
    # (c - a - b an integer), and JAX's special cases (x = 1, c = -1, x > 1, a = 0)
    a = np.asarray([0.5, 1.0, -3.0, 2.0, 0.0, 1.5, 1.0, 0.3, 2.5, 1.0, 0.5, -2.0, 1.2])
    b = np.asarray([1.5, 2.0, 2.0, 3.0, 1.0, 0.5, 1.0, 0.7, 1.5, 2.0, 0.5, 1.5, 0.8])
    c = np.asarray([2.0, 3.5, 1.5, 4.0, 1.0, 2.0, 2.0, 1.0, 2.0, -1.0, 1.5, 2.5, 3.0])
    x = np.asarray([0.3, -0.5, 0.7, 0.95, 0.5, 0.99, 1.0, 0.95, 0.92, 0.2, 0.5, 0.4, 1.5])
    want = jax.jit(jss.hyp2f1)(a, b, c, x)
    close(ss.hyp2f1(a, b, c, x), want, 1e-13)
    close(tdx.jit(ss.hyp2f1)(a, b, c, x), want, 1e-13)
    m = [0, 1, 3]
    if not FULL:  # under ci, the x derivative against central differences (JAX's compiles take ~2 s)
        h = 1e-6
        fd = (np.asarray(ss.hyp2f1(a[m], b[m], c[m], x[m] + h)) - np.asarray(ss.hyp2f1(a[m], b[m], c[m], x[m] - h))) / (2 * h)
        close(tdx.vmap(tdx.grad(ss.hyp2f1, 3))(a[m], b[m], c[m], x[m]), fd, 1e-7)
        return
    for arg in range(4):
        close(tdx.vmap(tdx.grad(ss.hyp2f1, arg))(a[m], b[m], c[m], x[m]),
              jax.jit(jax.vmap(jax.grad(jss.hyp2f1, arg)))(a[m], b[m], c[m], x[m]), 1e-13)


def test_sph_harm_y_matches_jax() -> None:
    """Spherical harmonics as JAX's (its recurrences): values and dtypes in
    float32 and float64, negative orders, a scalar theta, n clipped to
    n_max, under jit, a derivative, and JAX's errors."""
    rng = np.random.default_rng(1)
    jsph: Any = jss.sph_harm_y  # (annotated for Arrays; NumPy arrays are what it is given here)
    n = np.array([0, 1, 2, 3, 4, 5, 3, 2])
    m = np.array([0, -1, 2, -3, 1, 0, 3, -2])
    import scipy.special as sp  # type: ignore[import-untyped]  # scipy ships no type stubs

    for dt, tol in ((np.float64, 1e-12), (np.float32, 2e-6))[: 2 if FULL else 1]:  # (CI time: ~1.5 s a compilation)
        th = rng.uniform(0, np.pi, 8).astype(dt)
        ph = rng.uniform(0, 2 * np.pi, 8).astype(dt)
        got = ss.sph_harm_y(n, m, th, ph)
        close(got, jsph(n, m, th, ph), tol, tol)
        np.testing.assert_allclose(np.asarray(got), sp.sph_harm_y(n, m, th, ph), atol=10 * tol)
    n2, m2 = np.array([2, 3]), np.array([1, -2])
    pts = (np.array([0.5, 1.0]), np.array([0.3, 2.0]))
    with pytest.raises(NotImplementedError, match="diff_n"):
        ss.sph_harm_y(n2, m2, *pts, diff_n=1)
    with pytest.raises(TypeError, match="n_max"):
        tdx.jit(lambda k: ss.sph_harm_y(k, m2, *pts))(n2)
    if not FULL:
        return
    with pytest.raises(TypeError):
        jax.jit(lambda k: jsph(k, m2, *pts))(n2)
    close(ss.sph_harm_y(np.array([2]), np.array([1]), 0.5, 0.3), jsph(np.array([2]), np.array([1]), 0.5, 0.3), 1e-12)
    args = (np.array([10]), np.array([2]), np.array([0.5]), np.array([0.3]))
    close(ss.sph_harm_y(*args, n_max=6), jsph(*args, n_max=6), 1e-12)

    def ours(a: Any, b: Any) -> Any:
        return ss.sph_harm_y(n2, m2, a, b, n_max=3)

    def theirs(a: Any, b: Any) -> Any:
        return jsph(n2, m2, a, b, n_max=3)

    close(tdx.jit(ours)(*pts), jax.jit(theirs)(*pts), 1e-12)
    close(tdx.grad(lambda t: tnp.real(ours(t, pts[1])).sum())(pts[0]),
          jax.grad(lambda t: jnp.real(theirs(t, pts[1])).sum())(pts[0]), 1e-10)


def test_power_of_a_float_base_by_integer_arrays_keeps_jaxs_weak_type() -> None:
    """JAX's power: a float base with an integer array exponent is lax.pow
    without promotion (weak only where both are), a concrete integer scalar
    exponent is integer_pow (the base's type). Before, ``(-1.0) ** k`` of an
    int64 array was weakly typed, so sph_harm_y's float32 results became
    complex64 where JAX's are complex128."""
    k = np.array([1, 2], np.int64)
    for b, e in ((-1.0, k), (np.float32(1.5), k), (np.array([[0.5], [2.0]]), np.array([3, -2], np.int32)),
                 (2.5, np.int64(3)), (-1.0, np.uint32(2)), (np.array(1.5 + 1j), k)):
        got, want = tnp.power(b, e), jnp.power(b, e)
        assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape), (b, e)
        close(got, want, 1e-15)
