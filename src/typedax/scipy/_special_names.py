"""More of ``jax.scipy.special``, named and computed as JAX's (issue 29
item 7): ``loggamma`` (real arguments), ``bernoulli``, the exponential
integrals ``expi``, ``exp1`` and ``expn`` (Cephes' ``ei.c`` and ``expn.c``),
``spence`` (Cephes' ``spence.c``), ``dawsn`` (Cody, Paciorek and Thacher),
``sici`` (Cephes' ``sici.c``), ``fresnel`` (Cephes' ``fresnl``),
``bessel_jn`` (Miller's backward recurrence), ``owens_t`` (Patefield and
Tandy's T5 quadrature), ``hyp1f1`` and ``hyp2f1`` (Pearson, Olver and
Porter's series, terminating sums and transformations) and ``wofz``
(Weideman's rational approximation, complex-valued).

JAX's functions choose a branch per element (``jnp.piecewise``,
``vectorize``, ``lax.cond``); here every branch runs on the whole array with
safe arguments where it is not chosen, and each iteration runs until every
element chosen for it has met its own stopping rule. The derivatives are
JAX's rules (``custom_jvp``), e.g. ``expi' = exp(x) / x``,
``d expn(n, x) / dx = -expn(n - 1, x)``, ``dawsn' = 1 - 2 x dawsn(x)``.
Known differences: ``spence``'s derivative is ``log(x) / (1 - x)`` where
JAX's gives NaN; ``owens_t`` of float32 stays float32 (JAX's float64
weights make it float64 with x64 on); ``loggamma`` refuses complex arguments.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import COMPLEX, HALF
from ..core.trace import aval_of
from ..custom_derivatives import custom_jvp
from ._base import _cs, _polyval, _promote
from ._special import gamma as _gamma

# Cephes' ei.c: rational approximations of expi on (0, 2], (2, 4], (4, 8], ..., (64, inf)
_EI1_A = (
    -5.350447357812543, 218.50491688166133, -4176.572384826693, 55411.76756393557,
    -331338.13311781443, 1592627.1633849454,
)
_EI1_B = (
    1.0, -52.505479591128626, 1259.6161867867906, -17565.495819735348,
    149306.2117002726, -729494.9239640528, 1592627.1633849454,
)
_EI2_A = (
    0.019818085032596897, -1.2716456259849176, -2.0881603356812284, 2.7555445091879367,
    -0.44095070487016, 0.046656238059358916, -0.0015450426796734852, 7.059980605299618e-05,
)
_EI2_B = (
    1.0, 1.4764986709149215, 0.5629177174822436, 0.16990178978793072,
    0.02291647179034212, 0.0044501504397287525, 0.00017274396122065214, 3.953167195549672e-05,
)
_EI3_A = (
    -1.3732153758712087, -0.7084559133740839, 1.580806855547941, -0.2601500427425623,
    0.029946746941137137, -0.001038086040188744, 4.371064420753005e-05, 2.141783679522603e-06,
)
_EI3_B = (
    1.0, 0.8585231423622028, 0.4483285822873995, 0.07687932158124476,
    0.024498682410218877, 0.0008832165941927797, 0.00045909522995113536, -4.729848351866523e-06,
    2.66519553739071e-06,
)
_EI4_A = (
    -2.1069346016919166, 1.7327338696646881, -0.2423619178935842, 0.02322724180937566,
    0.00023728804404931798, -8.343219561192553e-05, 1.3634087956052505e-05, -3.655412321999254e-07,
    1.4649417339759612e-08, 6.17640786371036e-10,
)
_EI4_B = (
    1.0, -0.2298062239901678, 0.11050770414740378, -0.015665429666307924,
    0.002761106850817353, -0.00020891480122840484, 1.7085289388076754e-05, -4.4593117963566865e-07,
    1.3946349303538475e-08, 6.150865933977338e-10,
)
_EI5_A = (
    -0.24581193676740204, -0.14833822533220778, 0.07248291795735552, -0.013483156873809405,
    0.001342775069788637, -7.942465637159712e-05, 2.644179518984236e-06, -4.239473659313765e-08,
)
_EI5_B = (
    1.0, -0.10442259084438711, -0.26764531281014026, 0.09695000254621984,
    -0.01601745692712991, 0.001496414899205908, -8.462452563778485e-05, 2.7289384034767266e-06,
    -4.239462431819542e-08,
)
_EI6_A = (
    0.12125611181054567, -0.5823133179043894, 0.2348887314557017, -0.030400343181132484,
    0.0015100821468651906, -2.5231370954995714e-05,
)
_EI6_B = (
    1.0, -1.002252150365854, 0.2928709694872224, -0.03337004338674008,
    0.0015605448811273888, -2.5231370936032347e-05,
)
_EI7_A = (
    -0.7657847078286127, 0.6886192415566705, -0.2132598113545206, 0.033461075523841935,
    -0.003076541477344756, 0.00017471193164549074, -6.1037116822741705e-06, 1.218032765428652e-07,
    -1.0860761027932903e-09,
)
_EI7_B = (
    1.0, -1.8888028686623086, 1.066691687211409, -0.27519159823063805,
    0.039308526882338234, -0.003414684558602365, 0.00018668443707035555, -6.345146083130515e-06,
    1.239754287483207e-07, -1.0860761027931265e-09,
)
# Cephes' spence.c
_SPENCE_A = (
    4.6512858607399003e-05, 0.007315890452380947, 0.13384763957830903, 0.8796913117545303,
    2.7114985119655346, 4.256971560081218, 3.297713409852251, 1.0,
)
_SPENCE_B = (
    0.0006909904889125533, 0.02540437639325444, 0.2829748606025681, 1.4117259775183106,
    3.6380053334513707, 5.03278880143317, 3.547713409852251, 1.0,
)
# Cody, Paciorek and Thacher (1970): Dawson's integral on [0, 3.25), [3.25, 6.25), [6.25, inf)
_DAWSN_AN = (
    1.1368149897175597e-11, 8.492622676674738e-10, 1.9443420417555306e-08, 9.531517412544844e-07,
    3.078283098749132e-06, 0.00035251336852028877, -0.0008501498467244109, 0.04226182230055466,
    -0.09174803717734524, 1.0,
)
_DAWSN_AD = (
    2.403720730667626e-11, 1.488646813684934e-09, 5.212652810105416e-08, 1.2725847827318697e-06,
    2.324902498207895e-05, 0.00032552474182605793, 0.003488058146571626, 0.027944853119882897,
    0.15887424196012057, 0.5749186294893204, 1.0,
)
_DAWSN_BN = (
    0.5089551564179009, -0.24475441814269785, 0.09415123353035344, -0.021871125514203903,
    0.003662076123295692, -0.0004232091144603888, 3.5964130479389666e-05, -2.1464035171996896e-06,
    9.100107800763914e-08, -2.4027452082825098e-09, 3.592333854409284e-11,
)
_DAWSN_BD = (
    1.0, -0.6318398698733682, 0.2367067882282487, -0.053180636700322324,
    0.008480417185862954, -0.0009479967684866654, 7.810255929445524e-05, -4.558751532524426e-06,
    1.8910035811142186e-07, -4.913246913319206e-09, 7.184664032357345e-11,
)
_DAWSN_CN = (
    -0.5905928605347732, 0.6292352427243688, -0.17285897538038814, 0.016483704782518965,
    -0.0004868276130204627,
)
_DAWSN_CD = (
    1.0, -2.698200571975449, 1.7327079904594784, -0.3937085822819395,
    0.03442789240412334, -0.0009736552260409412,
)


def _real(name: str, *xs: ArrayLike) -> list[Array]:
    vs = _promote(*xs)
    if aval_of(vs[0]).dtype in COMPLEX:
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return vs


def _where_safe(pred: Array, x: Array, safe: float) -> Array:
    """``x`` where ``pred``, else ``safe`` (a branch's argument where it is not chosen)."""
    return tnp.where(pred, x, tnp.full_like(x, safe))


# -- loggamma, bernoulli --------------------------------------------------------------
def loggamma(x: ArrayLike) -> Array:
    """The principal branch of ``log(gamma(x))``: ``gammaln(x)`` for ``x > 0``,
    NaN elsewhere (real arguments; JAX's complex branch is not here yet)."""
    (a,) = _promote(x)
    if aval_of(a).dtype in COMPLEX:
        raise NotImplementedError("loggamma: complex arguments are not supported by typedax yet")
    return tnp.where(tnp.greater(a, 0.0), lax.lgamma(a), tnp.full_like(a, np.nan))


def bernoulli(n: int) -> Array:
    """The Bernoulli numbers ``B_0 ... B_n`` (``B_1 = -1/2``), by Chowla and
    Hartung's series, as JAX's."""
    try:
        k = operator.index(n)
    except TypeError:
        raise TypeError(f"Argument n of bernoulli must be a concrete integer, got {n!r}") from None
    if k < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = tnp.asarray([1.0, -0.5, 1.0 / 6.0])
    if k < 3:
        return b3[: k + 1]
    bn = tnp.zeros(k + 1).at[:3].set(b3)
    dtype = aval_of(bn).dtype
    m = tnp.arange(4, k + 1, 2, dtype=dtype)
    q1 = (1.0 / np.pi**2) * tnp.cumprod(-(m - 1) * m / 4 / np.pi**2)
    j = tnp.arange(2, 50, dtype=dtype)  # 2 ** -50 < 1e-15
    q2 = tnp.sum(j[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# -- the exponential integrals --------------------------------------------------------
_EI_TABLES: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = (
    (_EI1_A, _EI1_B), (_EI2_A, _EI2_B), (_EI3_A, _EI3_B), (_EI4_A, _EI4_B), (_EI5_A, _EI5_B),
    (_EI6_A, _EI6_B), (_EI7_A, _EI7_B),
)


def _expint_k(a: Sequence[float], b: Sequence[float], x: Array) -> Array:
    w = tnp.divide(_cs(1.0, x), x)
    f = tnp.add(tnp.multiply(w, tnp.divide(_polyval(a, w), _polyval(b, w))), _cs(1.0, x))
    return tnp.multiply(tnp.multiply(tnp.exp(x), w), f)


def _expi_pos(x: Array) -> Array:
    """Cephes' intervals, the last true one winning (``jnp.piecewise``): (0, 2],
    (2, 4], ..., (32, 64], and the asymptotic form elsewhere (x > 64 and 0)."""
    conds = [tnp.logical_and(tnp.less(_cs(0.0, x), x), tnp.less_equal(x, _cs(2.0, x)))] + [
        tnp.logical_and(tnp.less(_cs(2.0**i, x), x), tnp.less_equal(x, _cs(2.0 ** (i + 1), x))) for i in range(1, 6)
    ]
    a7, b7 = _EI_TABLES[6]
    out = _expint_k(a7, b7, x)
    a1, b1 = _EI_TABLES[0]
    s = _where_safe(conds[0], x, 1.0)
    small = tnp.add(tnp.add(tnp.multiply(s, tnp.divide(_polyval(a1, s), _polyval(b1, s))), _cs(np.euler_gamma, x)), tnp.log(s))
    out = tnp.where(conds[0], small, out)
    for i in range(1, 6):
        a, b = _EI_TABLES[i]
        out = tnp.where(conds[i], _expint_k(a, b, _where_safe(conds[i], x, 2.0 ** (i + 1))), out)
    return out


def _expn_series(x: Array, n: Array, enabled: Array) -> Array:
    """Cephes' power series of ``E_n`` (``0 < x <= 1``)."""
    eps = float(tnp.finfo(aval_of(x).dtype).eps)
    x = _where_safe(enabled, x, 0.5)
    one = _cs(1.0, x)
    psi = tnp.subtract(lax.digamma(n), tnp.log(x))  # -euler_gamma - log x + sum_{i<n} 1/i
    n_is_1 = tnp.equal(n, 1.0)
    n1 = tnp.where(n_is_1, tnp.full_like(n, 2.0), n)
    z = tnp.negative(x)
    ans0 = tnp.where(n_is_1, tnp.zeros_like(x), tnp.divide(one, tnp.subtract(one, n1)))
    t0 = tnp.where(enabled, tnp.full_like(x, np.inf), tnp.zeros_like(x))

    def cond(c: tuple[Array, ...]) -> Array:
        return tnp.any(tnp.greater(c[4], eps))

    def body(c: tuple[Array, ...]) -> tuple[Array, ...]:
        xk, yk, pk, ans, t = c
        live = tnp.greater(t, eps)
        xk2 = tnp.add(xk, one)
        yk2 = tnp.multiply(yk, tnp.divide(z, xk2))
        pk2 = tnp.add(pk, one)
        nz = tnp.not_equal(pk2, 0.0)
        ans2 = tnp.add(ans, tnp.where(nz, tnp.divide(yk2, tnp.where(nz, pk2, one)), tnp.zeros_like(ans)))
        t2 = tnp.where(tnp.not_equal(ans2, 0.0), tnp.abs(tnp.divide(yk2, ans2)), tnp.ones_like(t))
        new = (xk2, yk2, pk2, ans2, t2)
        return tuple(tnp.where(live, a, b) for a, b in zip(new, c))

    init = (tnp.zeros_like(x), tnp.ones_like(x), tnp.subtract(one, n), ans0, t0)
    ans = lax.while_loop(cond, body, init)[3]
    return tnp.subtract(tnp.divide(tnp.multiply(tnp.power(z, tnp.subtract(n, one)), psi), tnp.exp(lax.lgamma(n))), ans)


def _expn_fraction(x: Array, n: Array, enabled: Array) -> Array:
    """Cephes' continued fraction of ``E_n`` (``x > 1``)."""
    eps = float(tnp.finfo(aval_of(x).dtype).eps)
    big = 1.44115188075855872e17
    x = _where_safe(enabled, x, 2.0)
    one = _cs(1.0, x)

    def cond(c: tuple[Array, ...]) -> Array:
        return tnp.any(tnp.greater(c[6], eps))

    def body(c: tuple[Array, ...]) -> tuple[Array, ...]:
        k, pkm2, qkm2, pkm1, qkm1, ans, t, r = c
        live = tnp.greater(t, eps)
        k2 = tnp.add(k, one)
        odd = tnp.equal(tnp.remainder(k2, 2.0), 1.0)
        yk = tnp.where(odd, tnp.ones_like(x), x)
        xk = tnp.where(odd, tnp.add(n, tnp.divide(tnp.subtract(k2, one), 2.0)), tnp.divide(k2, 2.0))
        pk = tnp.add(tnp.multiply(pkm1, yk), tnp.multiply(pkm2, xk))
        qk = tnp.add(tnp.multiply(qkm1, yk), tnp.multiply(qkm2, xk))
        nz = tnp.not_equal(qk, 0.0)
        r2 = tnp.where(nz, tnp.divide(pk, tnp.where(nz, qk, one)), r)
        t2 = tnp.where(nz, tnp.abs(tnp.divide(tnp.subtract(ans, r2), r2)), tnp.ones_like(t))
        ans2 = tnp.where(nz, r2, ans)
        is_big = tnp.greater(tnp.abs(pk), big)
        scale = [tnp.where(is_big, tnp.divide(v, big), v) for v in (pkm1, qkm1, pk, qk)]
        new = (k2, scale[0], scale[1], scale[2], scale[3], ans2, t2, r2)
        return tuple(tnp.where(live, a, b) for a, b in zip(new, c))

    t0 = tnp.where(enabled, tnp.full_like(x, np.inf), tnp.zeros_like(x))
    init = (tnp.ones_like(x), tnp.ones_like(x), x, tnp.ones_like(x), tnp.add(x, n),
            tnp.divide(one, tnp.add(x, n)), t0, tnp.zeros_like(x))
    ans = lax.while_loop(cond, body, init)[5]
    return tnp.multiply(ans, tnp.exp(tnp.negative(x)))


def _expn_asymptotic(x: Array, n: Array) -> Array:
    """``E_n`` for ``n >= 5000``."""
    one = _cs(1.0, x)
    xk = tnp.add(x, n)
    yk = tnp.divide(one, tnp.multiply(xk, xk))
    t = n
    ans = yk * t * (6 * x * x - 8 * t * x + t * t)
    ans = yk * (ans + t * (t - 2 * x))
    ans = yk * (ans + t)
    return (ans + one) * tnp.exp(-x) / xk


def _expn_value(n: Array, x: Array) -> Array:
    zero, one = 0.0, 1.0
    conds = [
        tnp.logical_or(tnp.less(n, zero), tnp.less(x, zero)),
        tnp.logical_and(tnp.equal(x, zero), tnp.less(n, 2.0)),
        tnp.logical_and(tnp.equal(x, zero), tnp.greater_equal(n, 2.0)),
        tnp.logical_and(tnp.equal(n, zero), tnp.greater_equal(x, zero)),
        tnp.greater_equal(n, 5000.0),
        tnp.greater(x, one),
    ]
    # the last true condition wins, the series where none holds (jnp.piecewise)
    which = tnp.full(tnp.shape(x), len(conds), dtype=np.int32)
    for i, c in enumerate(conds):
        which = tnp.where(c, i, which)
    n1 = tnp.where(tnp.equal(n, 1.0), tnp.add(n, n), n)
    vals = [
        tnp.full_like(x, np.nan),
        tnp.full_like(x, np.inf),
        tnp.divide(_cs(1.0, x), n1),
        tnp.divide(tnp.exp(tnp.negative(x)), x),
        _expn_asymptotic(x, _where_safe(conds[4], n, 5000.0)),
        _expn_fraction(x, _where_safe(tnp.equal(which, 5), n, 1.0), tnp.equal(which, 5)),
        _expn_series(x, _where_safe(tnp.equal(which, 6), n, 1.0), tnp.equal(which, 6)),
    ]
    out = vals[-1]
    for i in range(len(conds)):
        out = tnp.where(tnp.equal(which, i), vals[i], out)
    return out


@custom_jvp
def _expn(n: Array, x: Array) -> Array:
    return _expn_value(n, x)


@_expn.defjvp
def _expn_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> tuple[Array, Array]:
    (n, x), (_, x_dot) = primals, tangents
    return _expn(n, x), tnp.multiply(tnp.negative(x_dot), _expn(tnp.subtract(n, 1.0), x))


def expn(n: ArrayLike, x: ArrayLike) -> Array:
    """The generalized exponential integral ``E_n(x) = x**(n-1) int_x^inf e^-t / t**n dt``
    (Cephes' series, continued fraction and asymptotic forms, as JAX's); its
    derivative in ``x`` is ``-E_{n-1}(x)``, none in ``n``."""
    nn, xx = _real("expn", n, x)
    dtype = aval_of(xx).dtype
    if dtype in HALF:
        f32 = np.dtype(np.float32)
        return tnp.astype(_expn(lax.stop_gradient(tnp.astype(nn, f32)), tnp.astype(xx, f32)), dtype)
    return _expn(lax.stop_gradient(nn), xx)


def exp1(x: ArrayLike) -> Array:
    """The exponential integral ``E_1(x) = int_x^inf e^-t / t dt`` (``expn(1, x)``)."""
    (xx,) = _real("exp1", x)
    return expn(tnp.ones_like(xx), xx)


@custom_jvp
def _expi(x: Array) -> Array:
    neg = tnp.less(x, 0.0)
    out_neg = tnp.negative(_expn_value(tnp.ones_like(x), tnp.negative(_where_safe(neg, x, -1.0))))
    return tnp.where(neg, out_neg, _expi_pos(_where_safe(tnp.logical_not(neg), x, 1.0)))


@_expi.defjvp
def _expi_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (x_dot,) = primals, tangents
    return _expi(x), tnp.multiply(tnp.divide(tnp.exp(x), x), x_dot)


def expi(x: ArrayLike) -> Array:
    """The exponential integral ``Ei(x) = int_-inf^x e^t / t dt`` (Cephes'
    rational approximations; ``-E_1(-x)`` below 0); its derivative ``exp(x) / x``."""
    (xx,) = _real("expi", x)
    dtype = aval_of(xx).dtype
    if dtype in HALF:
        return tnp.astype(_expi(tnp.astype(xx, np.dtype(np.float32))), dtype)
    return _expi(xx)


# -- spence, dawsn ----------------------------------------------------------------------
def _spence_calc(x: Array) -> Array:
    gt2 = tnp.greater(x, 2.0)
    x = tnp.where(gt2, tnp.divide(1.0, _where_safe(gt2, x, 1.0)), x)
    gt15, lt05 = tnp.greater(x, 1.5), tnp.less(x, 0.5)
    flip = tnp.logical_or(gt2, gt15)
    w = tnp.where(gt15, tnp.subtract(tnp.divide(1.0, _where_safe(gt15, x, 1.0)), 1.0),
                  tnp.where(lt05, tnp.negative(x), tnp.subtract(x, 1.0)))
    y = tnp.divide(tnp.multiply(tnp.negative(w), _polyval(_SPENCE_A, w)), _polyval(_SPENCE_B, w))
    xs = _where_safe(lt05, x, 0.25)
    y = tnp.where(lt05, tnp.subtract(tnp.subtract(np.pi**2 / 6.0, tnp.multiply(tnp.log(xs), tnp.log(tnp.subtract(1.0, xs)))), y), y)
    return tnp.where(flip, tnp.subtract(tnp.multiply(-0.5, tnp.square(tnp.log(x))), y), y)


def spence(x: ArrayLike) -> Array:
    """Spence's function (the dilogarithm for real ``x``): ``int_1^x log(t) / (1 - t) dt``;
    NaN for ``x < 0`` (as JAX's); float32 and float64 only."""
    a = tnp.asarray(x)
    dtype = aval_of(a).dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    safe = _where_safe(tnp.greater(a, 0.0), a, 0.5)
    out = _spence_calc(safe)
    out = tnp.where(tnp.equal(a, 1.0), tnp.zeros_like(a), out)
    out = tnp.where(tnp.equal(a, 0.0), tnp.full_like(a, np.pi**2 / 6.0), out)
    return tnp.where(tnp.less(a, 0.0), tnp.full_like(a, np.nan), out)


def _dawsn_value(x: Array) -> Array:
    ax = tnp.abs(x)
    r1 = tnp.less(ax, 3.25)
    r3 = tnp.greater_equal(ax, 6.25)
    r2 = tnp.logical_not(tnp.logical_or(r1, r3))
    s1 = _where_safe(r1, ax, 1.0)
    v1 = tnp.divide(tnp.multiply(s1, _polyval(_DAWSN_AN, tnp.square(s1))), _polyval(_DAWSN_AD, tnp.square(s1)))

    def tail(region: Array, num: Sequence[float], den: Sequence[float]) -> Array:
        s = _where_safe(region, ax, 1.0)
        t = tnp.divide(1.0, tnp.square(s))
        return tnp.multiply(tnp.divide(0.5, s), tnp.add(1.0, tnp.divide(tnp.multiply(t, _polyval(num, t)), _polyval(den, t))))

    out = tnp.where(r1, v1, tnp.where(r2, tail(r2, _DAWSN_BN, _DAWSN_BD), tail(r3, _DAWSN_CN, _DAWSN_CD)))
    return tnp.multiply(tnp.sign(x), out)


@custom_jvp
def _dawsn(x: Array) -> Array:
    return _dawsn_value(x)


@_dawsn.defjvp
def _dawsn_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    ans = _dawsn(x)
    return ans, tnp.multiply(g, tnp.subtract(1.0, tnp.multiply(tnp.multiply(2.0, x), ans)))


def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt`` (Cody, Paciorek
    and Thacher's rational approximations); its derivative ``1 - 2 x dawsn(x)``."""
    (a,) = _real("dawsn", x)
    dtype = aval_of(a).dtype
    if dtype in HALF:
        return tnp.astype(_dawsn(tnp.astype(a, np.dtype(np.float32))), dtype)
    return _dawsn(a)


# Cephes' sici.c: the series (|x| <= 4) and the asymptotic forms (4 < |x| <= 8, 8 < |x|)
_SICI_SN = (
    -8.391678279103039e-11, 4.625917144270128e-08, -9.757593038436328e-06, 0.0009769454381704354,
    -0.04134703162294066, 1.0,
)
_SICI_SD = (
    2.0326926619595193e-12, 1.279978911799433e-09, 4.418278428012189e-07, 9.964121220438756e-05,
    0.01420852393261499, 1.0,
)
_SICI_CN = (
    2.0252400238910228e-11, -1.3524950491579076e-08, 3.593250514199931e-06, -0.0004740072068734079,
    0.028915965260755523, -1.0,
)
_SICI_CD = (
    4.077460400618806e-12, 3.067809975818878e-09, 1.2321035568588342e-06, 0.00031744202477503275,
    0.051002805623644606, 4.0,
)
_SICI_FN4 = (
    4.236128628922166, 5.4593771716181285, 1.6208328770153833, 0.16700661183132304,
    0.006810201324725182, 0.00010893658065032867, 5.489002234213736e-07,
)
_SICI_FD4 = (
    1.0, 8.16496634205391, 7.308288225055645, 1.867922579501842,
    0.1787920529631499, 0.007017106683227897, 0.00011003435715391573, 5.489002527562557e-07,
)
_SICI_GN4 = (
    0.08710016989731142, 0.6113791099522193, 0.3971802963923375, 0.07485277376284691,
    0.005388686814621773, 0.00016199979459893403, 1.9796387414096365e-06, 7.825790407440903e-09,
)
_SICI_GD4 = (
    1.0, 1.6440220241335535, 0.666296701268988, 0.09887717612776888,
    0.006223963454417684, 0.0001732210814741771, 2.0265918208634397e-06, 7.825792189335346e-09,
)
_SICI_FN8 = (
    0.4558808734704653, 0.7137152741001467, 0.16030015822231947, 0.01160642294081244,
    0.00034955644244785906, 4.8621543082645475e-06, 3.200927900910049e-08, 9.41779576128513e-11,
    9.70507110881952e-14,
)
_SICI_FD8 = (
    1.0, 0.9174636118736841, 0.17868554533207454, 0.012225359477197129,
    0.00035869648188185157, 4.924350643178815e-06, 3.21956939101046e-08, 9.437205903502767e-11,
    9.70507110881952e-14,
)
_SICI_GN8 = (
    0.6973599534432762, 0.33041097930563207, 0.03848787676499743, 0.001717182390523479,
    3.4894116550227946e-05, 3.471311670841167e-07, 1.7040445278204452e-09, 3.859459254302766e-12,
    3.1404009894636335e-15,
)
_SICI_GD8 = (
    1.0, 1.6854889881101165, 0.48785225869530496, 0.04679131942596258,
    0.0019028442667439953, 3.684755044425611e-05, 3.5704322344374083e-07, 1.7269374896631615e-09,
    3.878301660239547e-12, 3.1404009894636335e-15,
)


def _sici_value(x: Array) -> tuple[Array, Array]:
    ax = tnp.abs(x)
    small = tnp.less_equal(ax, 4.0)
    mid = tnp.logical_and(tnp.greater(ax, 4.0), tnp.less_equal(ax, 1e9))
    # the series on |x| <= 4 (Si(0) = 0, Ci(0) = -inf)
    s = _where_safe(small, ax, 1.0)
    t = tnp.square(s)
    si_s = tnp.divide(tnp.multiply(s, _polyval(_SICI_SN, t)), _polyval(_SICI_SD, t))
    ci_s = tnp.add(tnp.add(_cs(np.euler_gamma, x), tnp.log(s)), tnp.divide(tnp.multiply(t, _polyval(_SICI_CN, t)), _polyval(_SICI_CD, t)))
    si_s = tnp.where(tnp.equal(ax, 0.0), tnp.zeros_like(x), si_s)
    ci_s = tnp.where(tnp.equal(ax, 0.0), tnp.full_like(x, -np.inf), ci_s)
    # the asymptotic forms on 4 < |x| <= 1e9
    m = _where_safe(mid, ax, 8.0)
    z = tnp.divide(1.0, tnp.square(m))
    lt8 = tnp.less(m, 8.0)
    f = tnp.where(lt8, tnp.divide(_polyval(_SICI_FN4, z), tnp.multiply(m, _polyval(_SICI_FD4, z))),
                  tnp.divide(_polyval(_SICI_FN8, z), tnp.multiply(m, _polyval(_SICI_FD8, z))))
    g = tnp.where(lt8, tnp.divide(tnp.multiply(z, _polyval(_SICI_GN4, z)), _polyval(_SICI_GD4, z)),
                  tnp.divide(tnp.multiply(z, _polyval(_SICI_GN8, z)), _polyval(_SICI_GD8, z)))
    sm, cm = tnp.sin(m), tnp.cos(m)
    si_m = tnp.subtract(tnp.subtract(np.pi / 2, tnp.multiply(f, cm)), tnp.multiply(g, sm))
    ci_m = tnp.subtract(tnp.multiply(f, sm), tnp.multiply(g, cm))
    # beyond 1e9: the leading terms (pi/2 and 0 at +inf)
    b = _where_safe(tnp.greater(ax, 1e9), ax, 2e9)
    inf = tnp.isposinf(b)
    fb = tnp.where(inf, tnp.full_like(b, 2e9), b)
    si_b = tnp.where(inf, tnp.full_like(x, np.pi / 2), tnp.subtract(np.pi / 2, tnp.divide(tnp.cos(fb), fb)))
    ci_b = tnp.where(inf, tnp.zeros_like(x), tnp.divide(tnp.sin(fb), fb))
    si = tnp.where(small, si_s, tnp.where(mid, si_m, si_b))
    ci = tnp.where(small, ci_s, tnp.where(mid, ci_m, ci_b))
    return tnp.multiply(tnp.sign(x), si), tnp.where(tnp.isneginf(x), tnp.full_like(x, np.nan), ci)


@custom_jvp
def _sici(x: Array) -> tuple[Array, Array]:
    return _sici_value(x)


@_sici.defjvp
def _sici_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (x,), (t,) = primals, tangents
    return _sici(x), (tnp.multiply(tnp.sinc(tnp.divide(x, np.pi)), t), tnp.multiply(tnp.divide(tnp.cos(x), x), t))


def sici(x: ArrayLike) -> tuple[Array, Array]:
    """The sine and cosine integrals ``(Si(x), Ci(x))``: ``int_0^x sin t / t dt``
    and ``euler_gamma + log x + int_0^x (cos t - 1) / t dt`` (Cephes' series
    and asymptotic forms, as JAX's; NaN for ``Ci(-inf)``); derivatives
    ``sin x / x`` and ``cos x / x``."""
    (a,) = _promote(x)
    if aval_of(a).dtype in COMPLEX:
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {aval_of(a).dtype}.")
    return _sici(a)


# -- bessel_jn ------------------------------------------------------------------------------
def bessel_jn(z: ArrayLike, *, v: int, n_iter: int = 50) -> Array:
    """The Bessel functions of the first kind ``J_0(z) ... J_v(z)`` (integer
    orders, real ``z``), shape ``(v + 1, *z.shape)``, by Miller's backward
    recurrence over ``n_iter`` steps (Zhang and Jin's ``BJNDD``, as JAX's)."""
    (a,) = _promote(z)
    if aval_of(a).dtype in COMPLEX:
        raise ValueError("complex input not supported.")
    try:
        order = operator.index(v)
    except TypeError:
        raise TypeError(f"Argument v of bessel_jn must be a concrete integer, got {v!r}") from None
    steps = int(n_iter)
    dtype = aval_of(a).dtype

    def body(carry: tuple[Array, Array, Array], k: Array) -> tuple[tuple[Array, Array, Array], Array]:
        f0, f1, bs = carry
        f = tnp.subtract(tnp.divide(tnp.multiply(tnp.multiply(2.0, tnp.add(k, 1.0)), f1), a), f0)
        bs = tnp.where(tnp.equal(tnp.remainder(k, 2.0), 0.0), tnp.add(bs, tnp.multiply(2.0, f)), bs)
        return (f1, f, bs), f

    init = (tnp.zeros_like(a), tnp.full_like(a, 1e-16), tnp.zeros_like(a))
    (_, _, bs), vals = lax.scan(body, init, tnp.arange(steps + 1, dtype=dtype), reverse=True)
    return tnp.divide(vals[: order + 1], tnp.subtract(bs, vals[0]))


# -- owens_t ------------------------------------------------------------------------------
# Patefield and Tandy's (2000) method T5: a 13-point Gauss-type rule on
# T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du after u^2 = a^2 t
# (the weights absorb 1 / 2 pi and the Jacobian), as JAX's
_OWENS_T_POINTS = (
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704,
)
_OWENS_T_WEIGHTS = (
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090,
)


def _owens_t_quadrature(h: Array, a: Array) -> Array:
    dtype = aval_of(a).dtype
    pts = tnp.asarray(np.asarray(_OWENS_T_POINTS, dtype))
    wts = tnp.asarray(np.asarray(_OWENS_T_WEIGHTS, dtype))
    r = tnp.multiply(tnp.square(a)[..., None], pts)
    one_r = tnp.add(1.0, r)
    integrand = tnp.divide(tnp.exp(tnp.multiply(tnp.multiply(-0.5, tnp.square(h)[..., None]), one_r)), one_r)
    return tnp.multiply(a, tnp.matmul(integrand, wts))


def _owens_t_value(h: Array, a: Array) -> Array:
    ah, aa = tnp.abs(h), tnp.abs(a)
    root2 = float(np.sqrt(2.0))
    h_normed = tnp.divide(ah, root2)
    le1 = tnp.less_equal(aa, 1.0)
    mod_a = tnp.where(le1, aa, tnp.divide(1.0, _where_safe(tnp.logical_not(le1), aa, 1.0)))
    mod_h = tnp.where(le1, ah, tnp.multiply(aa, ah))
    result = _owens_t_quadrature(mod_h, mod_a)
    result = tnp.where(tnp.equal(mod_h, 0.0), tnp.divide(tnp.arctan(mod_a), float(2 * np.pi)), result)
    result = tnp.where(tnp.equal(mod_a, 1.0), tnp.multiply(tnp.multiply(
        0.125, lax.erfc(tnp.divide(tnp.negative(mod_h), root2))), lax.erfc(tnp.divide(mod_h, root2))), result)
    normh, normah = lax.erfc(h_normed), lax.erfc(tnp.multiply(aa, h_normed))
    near = tnp.subtract(tnp.subtract(0.25, tnp.multiply(tnp.multiply(0.25, lax.erf(h_normed)), lax.erf(tnp.multiply(aa, h_normed)))), result)
    far = tnp.subtract(tnp.multiply(0.25, tnp.subtract(tnp.add(normh, normah), tnp.multiply(normh, normah))), result)
    result = tnp.where(tnp.greater(aa, 1.0), tnp.where(tnp.less_equal(tnp.multiply(aa, ah), 0.67), near, far), result)
    result = tnp.multiply(lax.sign(a), result)
    return tnp.where(tnp.logical_or(tnp.isnan(a), tnp.isnan(h)), tnp.full_like(result, np.nan), result)


@custom_jvp
def _owens_t(h: Array, a: Array) -> Array:
    return _owens_t_value(h, a)


@_owens_t.defjvp
def _owens_t_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> tuple[Array, Array]:
    (h, a), (dh, da) = primals, tangents
    root2 = float(np.sqrt(2.0))
    # dT/dh = -exp(-h^2 / 2) erf(a h / sqrt 2) / (2 sqrt(2 pi)); dT/da = exp(-(a^2 + 1) h^2 / 2) / (2 pi (a^2 + 1))
    d_h = tnp.divide(tnp.multiply(tnp.negative(tnp.exp(tnp.multiply(-0.5, tnp.square(h)))), lax.erf(tnp.divide(tnp.multiply(a, h), root2))),
                     2.0 * float(np.sqrt(2.0 * np.pi)))
    a2p1 = tnp.add(tnp.square(a), 1.0)
    d_a = tnp.divide(tnp.exp(tnp.multiply(tnp.multiply(-0.5, a2p1), tnp.square(h))), tnp.multiply(float(2.0 * np.pi), a2p1))
    return _owens_t(h, a), tnp.add(tnp.multiply(d_h, dh), tnp.multiply(d_a, da))


def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function ``(1 / 2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx``
    (Patefield and Tandy's 13-point rule with exact values at ``h = 0`` and
    ``a = 1`` and the reciprocal relation for ``|a| > 1``, as JAX's); its
    derivatives are JAX's rules."""
    hh, aa = _real("owens_t", h, a)
    return _owens_t(hh, aa)


# -- hyp1f1 ---------------------------------------------------------------------------------
def _series(serie0: Array, term0: Array, live0: Array, step: Callable[[Array, Array, Array], tuple[Array, Array]]) -> Array:
    """JAX's scalar ``while_loop`` ``serie, term = step(serie, k, term)`` while
    ``k < 250`` and ``|term / serie| > eps``, run on every element at once:
    an element stops when its own condition fails."""
    eps = float(tnp.finfo(aval_of(term0).dtype).eps)

    def going(serie: Array, k: Array, term: Array) -> Array:
        return tnp.logical_and(tnp.less(k, 250.0), tnp.greater(tnp.divide(tnp.abs(term), tnp.abs(serie)), eps))

    def cond(c: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.any(c[3])

    def body(c: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        serie, k, term, live = c
        s2, t2 = step(serie, k, term)
        k2 = tnp.add(k, 1.0)
        serie, k, term = tnp.where(live, s2, serie), tnp.where(live, k2, k), tnp.where(live, t2, term)
        return serie, k, term, tnp.logical_and(live, going(serie, k, term))

    k0 = tnp.ones_like(term0)
    init = (serie0, k0, term0, tnp.logical_and(live0, going(serie0, k0, term0)))
    return lax.while_loop(cond, body, init)[0]


def _hyp1f1_value(a: Array, b: Array, x: Array) -> Array:
    small = tnp.less(tnp.abs(x), 100.0)
    special = tnp.logical_or(tnp.equal(a, 0.0), tnp.logical_or(tnp.equal(a, b), tnp.equal(b, 0.0)))
    bs = tnp.where(tnp.equal(b, 0.0), tnp.ones_like(b), b)
    # the Taylor series (|x| < 100; Pearson, Olver and Porter's (3.2))
    xs = _where_safe(small, x, 0.0)

    def taylor(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        return tnp.add(serie, term), tnp.multiply(term, tnp.divide(tnp.multiply(tnp.divide(tnp.add(a, k), tnp.add(bs, k)), xs), tnp.add(k, 1.0)))

    live_s = tnp.logical_and(small, tnp.logical_not(special))
    ser = _series(tnp.ones_like(x), tnp.multiply(tnp.divide(a, bs), xs), live_s, taylor)
    # the asymptotic expansion (|x| >= 100; their (3.8) for real arguments)
    xa = _where_safe(tnp.logical_not(small), x, 100.0)

    def asymptotic(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        f = tnp.divide(tnp.divide(tnp.multiply(tnp.add(tnp.subtract(bs, a), k), tnp.add(tnp.subtract(1.0, a), k)), tnp.add(k, 1.0)), xa)
        return tnp.add(serie, term), tnp.multiply(term, f)

    live_a = tnp.logical_and(tnp.logical_not(small), tnp.logical_not(special))
    asy = _series(tnp.ones_like(x), tnp.divide(tnp.multiply(tnp.subtract(bs, a), tnp.subtract(1.0, a)), xa), live_a, asymptotic)
    asy = tnp.multiply(tnp.multiply(tnp.multiply(tnp.divide(_gamma(bs), _gamma(a)), tnp.exp(xa)), tnp.power(xa, tnp.subtract(a, bs))), asy)
    result = tnp.where(small, ser, asy)
    a_zero, a_nz = tnp.equal(a, 0.0), tnp.not_equal(a, 0.0)
    result = tnp.where(tnp.logical_and(tnp.equal(b, 0.0), a_nz), tnp.full_like(x, np.inf), result)
    result = tnp.where(tnp.logical_and(tnp.equal(a, b), a_nz), tnp.exp(x), result)
    return tnp.where(a_zero, tnp.ones_like(x), result)


def _hyp1f1_param_derivative(a: Array, b: Array, x: Array, wrt_a: bool) -> Array:
    bs = tnp.where(tnp.equal(b, 0.0), tnp.ones_like(b), b)

    def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        if wrt_a:
            w = tnp.subtract(lax.digamma(tnp.add(a, k)), lax.digamma(a))
        else:
            w = tnp.subtract(lax.digamma(bs), lax.digamma(tnp.add(bs, k)))
        nxt = tnp.multiply(term, tnp.divide(tnp.multiply(tnp.divide(tnp.add(a, k), tnp.add(bs, k)), x), tnp.add(k, 1.0)))
        return tnp.add(serie, tnp.multiply(term, w)), nxt

    return _series(tnp.zeros_like(x), tnp.multiply(tnp.divide(a, bs), x), tnp.ones_like(x, dtype=bool), step)


@custom_jvp
def _hyp1f1(a: Array, b: Array, x: Array) -> Array:
    return _hyp1f1_value(a, b, x)


@_hyp1f1.defjvp
def _hyp1f1_jvp(primals: tuple[Array, Array, Array], tangents: tuple[Array, Array, Array]) -> tuple[Array, Array]:
    (a, b, x), (da, db, dx) = primals, tangents
    d_x = tnp.multiply(tnp.divide(a, b), _hyp1f1(tnp.add(a, 1.0), tnp.add(b, 1.0), x))
    out = tnp.add(tnp.add(tnp.multiply(_hyp1f1_param_derivative(a, b, x, True), da),
                          tnp.multiply(_hyp1f1_param_derivative(a, b, x, False), db)), tnp.multiply(d_x, dx))
    return _hyp1f1(a, b, x), out


def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``
    (Pearson, Olver and Porter's Taylor series below ``|x| = 100``, the
    asymptotic expansion above, as JAX's; ``1`` for ``a = b = 0``); its
    derivatives are JAX's series."""
    aa, bb, xx = _real("hyp1f1", a, b, x)
    return _hyp1f1(aa, bb, xx)


# -- wofz ------------------------------------------------------------------------------------
# Weideman's (1994) N = 32 rational approximation of the Faddeeva function in
# the upper half plane: w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)),
# Z = (L + iz) / (L - iz), p's coefficients in descending degree (JAX's)
_WOFZ_L = 4.7568284600108841
_WOFZ_C = (
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12, -2.1543593557490879e-11,
    -5.5442449963237932e-11, 1.165824698850374e-10, 4.1537441121999766e-10, -5.2310202114920615e-10,
    -3.2080151339721323e-09, 8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07, 4.4015317312832251e-06,
    6.8210319443575151e-06, -2.1409619201999998e-05, -0.00013075449254579421, -0.00024532980270038237,
    0.00039259136070109705, 0.0045195411053493093, 0.019006155784845501, 0.057304403529837282,
    0.14060716226893755, 0.29544451071508743, 0.54601397206393376, 0.9019254893648001,
    1.3455441692345449, 1.8256696296324815, 2.2635372999002676, 2.5722534081245696,
)


def _wofz_upper(z: Array) -> Array:
    re = tnp.real(z)
    iz = lax.complex(tnp.negative(tnp.imag(z)), re)
    denom = tnp.subtract(_WOFZ_L, iz)
    zz = tnp.divide(tnp.add(_WOFZ_L, iz), denom)
    p = tnp.zeros_like(zz)
    for c in _WOFZ_C:
        p = tnp.add(tnp.multiply(p, zz), c)
    return tnp.add(tnp.divide(tnp.multiply(2.0, p), tnp.multiply(denom, denom)),
                   tnp.divide(float(1.0 / np.sqrt(np.pi)), denom))


@custom_jvp
def _wofz(z: Array) -> Array:
    upper = tnp.greater_equal(tnp.imag(z), 0.0)
    w = _wofz_upper(tnp.where(upper, z, tnp.negative(z)))
    return tnp.where(upper, w, tnp.subtract(tnp.multiply(2.0, tnp.exp(tnp.negative(tnp.multiply(z, z)))), w))


@_wofz.defjvp
def _wofz_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (z,), (g,) = primals, tangents
    ans = _wofz(z)
    return ans, tnp.multiply(g, tnp.add(tnp.negative(tnp.multiply(tnp.multiply(2.0, z), ans)), complex(0.0, 2.0 / np.sqrt(np.pi))))


def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function ``exp(-z**2) erfc(-iz)`` (complex-valued; real
    arguments become complex): Weideman's rational approximation in the upper
    half plane and ``2 exp(-z**2) - w(-z)`` below, as JAX's; its derivative
    ``-2 z w(z) + 2i / sqrt(pi)``."""
    (a,) = _promote(z)
    d = aval_of(a).dtype
    if d not in COMPLEX:
        a = tnp.astype(a, np.dtype(np.complex128) if d == np.float64 else np.dtype(np.complex64))
    return _wofz(a)


# Cephes' fresnl.c (float64) and fresnlf (float32), as SciPy's and JAX's
_FRESNEL32_SN = (
    1.6476294637887e-09, -1.522754752581096e-07, 8.4247488085024e-06, -0.0003120693124703272,
    0.007244727626597022, -0.09228055941124598, 0.5235987735681432,
)
_FRESNEL32_CN = (
    1.416802502367354e-08, -1.157231412229871e-06, 5.387223446683264e-05, -0.001604381798862293,
    0.02818489036795073, -0.2467398198317899, 0.9999999760004487,
)
_FRESNEL32_FN = (
    -1903009855649.792, 135594238805.0252, -4158143148.511033, 73438484.63587323,
    -873235.6681548485, 8560.51546627547, -103.2877601091159, 2.999401847870011,
)
_FRESNEL32_GN = (
    -186084399762.465, 12783506733.93208, -377938771.3202229, 6492611.570598858,
    -77877.89623358162, 860.2931494734327, -14.93439396592284, 0.9999841934744914,
)
_FRESNEL64_SN = (
    -2991.8191940101983, 708840.0452577386, -62974148.62058625, 2548908805.7337637,
    -44297951805.96978, 318016297876.5678,
)
_FRESNEL64_SD = (
    1.0, 281.3762688899943, 45584.78108065326, 5173438.887700964,
    419320245.8981112, 22441179564.534092, 607366389490.0846,
)
_FRESNEL64_CN = (
    -4.9884311457357354e-08, 9.504280628298596e-06, -0.0006451914356839651, 0.018884331939670384,
    -0.20552590095501388, 1.0,
)
_FRESNEL64_CD = (
    3.99982968972496e-12, 9.154392157746574e-10, 1.2500186247959882e-07, 1.2226278902417902e-05,
    0.0008680295429417843, 0.04121420907221998, 1.0,
)
_FRESNEL64_FN = (
    0.4215435550436775, 0.1434079197807589, 0.011522095507358577, 0.000345017939782574,
    4.6361374928786735e-06, 3.055689837902576e-08, 1.0230451416490724e-10, 1.7201074326816183e-13,
    1.3428327623306275e-16, 3.763297112699879e-20,
)
_FRESNEL64_FD = (
    1.0, 0.7515863983533789, 0.11688892585919138, 0.0064405152650885865,
    0.00015593440916415301, 1.8462756734893055e-06, 1.1269922476399903e-08, 3.6014002958937136e-11,
    5.887545336215784e-14, 4.5200143407412973e-17, 1.2544323709001127e-20,
)
_FRESNEL64_GN = (
    0.5044420736433832, 0.1971028335255234, 0.018764858409257526, 0.0006840793809153931,
    1.1513882611188428e-05, 9.828524436884223e-08, 4.4534441586175015e-10, 1.0826804113902088e-12,
    1.375554606332618e-15, 8.363544356306774e-19, 1.8695871016278324e-22,
)
_FRESNEL64_GD = (
    1.0, 1.4749575992512833, 0.33774898912002, 0.02536037414203388,
    0.0008146791071843061, 1.2754507566772912e-05, 1.0431458965757199e-07, 4.6068072814652043e-10,
    1.1027321506624028e-12, 1.3879653125957886e-15, 8.391588162831187e-19, 1.8695871016278324e-22,
)


def _sincospi_x2_half(x: Array) -> tuple[Array, Array]:
    """``sin(pi x**2 / 2)`` and ``cos(pi x**2 / 2)`` with the argument reduced
    mod 2 exactly first (SciPy's ``sinpi``/``cospi``, as JAX's)."""
    x = tnp.abs(x)
    s = tnp.fmod(x, 2.0)
    r = tnp.fmod(tnp.multiply(s, tnp.subtract(x, tnp.divide(s, 2.0))), 2.0)
    pi = float(np.pi)
    sinpi = tnp.where(tnp.less(r, 0.5), tnp.sin(tnp.multiply(pi, r)),
                      tnp.where(tnp.greater(r, 1.5), tnp.sin(tnp.multiply(pi, tnp.subtract(r, 2.0))),
                                tnp.negative(tnp.sin(tnp.multiply(pi, tnp.subtract(r, 1.0))))))
    cospi = tnp.where(tnp.equal(r, 0.5), tnp.zeros_like(r),
                      tnp.where(tnp.less(r, 1.0), tnp.negative(tnp.sin(tnp.multiply(pi, tnp.subtract(r, 0.5)))),
                                tnp.sin(tnp.multiply(pi, tnp.subtract(r, 1.5)))))
    return sinpi, cospi


def _fresnel_value(xa: Array) -> tuple[Array, Array]:
    single = aval_of(xa).dtype == np.float32
    pi = float(np.pi)
    x = tnp.abs(xa)
    x2 = tnp.square(x)
    small = tnp.less(x2, 2.5625)
    large = tnp.greater(x, 36974.0)
    xs = _where_safe(small, x, 1.0)
    t = tnp.square(tnp.square(xs))
    if single:
        s_small = tnp.multiply(tnp.multiply(xs, tnp.square(xs)), _polyval(_FRESNEL32_SN, t))
        c_small = tnp.multiply(xs, _polyval(_FRESNEL32_CN, t))
    else:
        s_small = tnp.divide(tnp.multiply(tnp.multiply(xs, tnp.square(xs)), _polyval(_FRESNEL64_SN, t)), _polyval(_FRESNEL64_SD, t))
        c_small = tnp.divide(tnp.multiply(xs, _polyval(_FRESNEL64_CN, t)), _polyval(_FRESNEL64_CD, t))
    finite = tnp.isfinite(x)
    xl = _where_safe(finite, x, 1e6)  # the large and the other forms on finite arguments
    sinpi, cospi = _sincospi_x2_half(xl)
    if single:
        c_large, s_large = tnp.full_like(x, 0.5), tnp.full_like(x, 0.5)
    else:
        c_large = tnp.add(0.5, tnp.multiply(tnp.divide(1.0, tnp.multiply(pi, xl)), sinpi))
        s_large = tnp.subtract(0.5, tnp.multiply(tnp.divide(1.0, tnp.multiply(pi, xl)), cospi))
    xo = _where_safe(tnp.logical_not(small), xl, 2.0)
    tt = tnp.multiply(pi, tnp.square(xo))
    u = tnp.divide(1.0, tnp.square(tt))
    tt = tnp.divide(1.0, tt)
    if single:
        f = tnp.subtract(1.0, tnp.multiply(u, _polyval(_FRESNEL32_FN, u)))
        g = tnp.multiply(tt, _polyval(_FRESNEL32_GN, u))
    else:
        f = tnp.subtract(1.0, tnp.divide(tnp.multiply(u, _polyval(_FRESNEL64_FN, u)), _polyval(_FRESNEL64_FD, u)))
        g = tnp.divide(tnp.multiply(tt, _polyval(_FRESNEL64_GN, u)), _polyval(_FRESNEL64_GD, u))
    so, co = _sincospi_x2_half(xo)
    px = tnp.multiply(pi, xo)
    c_other = tnp.add(0.5, tnp.divide(tnp.subtract(tnp.multiply(f, so), tnp.multiply(g, co)), px))
    s_other = tnp.subtract(0.5, tnp.divide(tnp.add(tnp.multiply(f, co), tnp.multiply(g, so)), px))
    inf = tnp.isinf(xa)
    half = tnp.full_like(x, 0.5)
    s = tnp.where(inf, half, tnp.where(small, s_small, tnp.where(large, s_large, s_other)))
    c = tnp.where(inf, half, tnp.where(small, c_small, tnp.where(large, c_large, c_other)))
    neg = tnp.less(xa, 0.0)
    return tnp.where(neg, tnp.negative(s), s), tnp.where(neg, tnp.negative(c), c)


@custom_jvp
def _fresnel(x: Array) -> tuple[Array, Array]:
    return _fresnel_value(x)


@_fresnel.defjvp
def _fresnel_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (x,), (t,) = primals, tangents
    sinpi, cospi = _sincospi_x2_half(x)
    return _fresnel(x), (tnp.multiply(sinpi, t), tnp.multiply(cospi, t))


def fresnel(x: ArrayLike) -> tuple[Array, Array]:
    """The Fresnel integrals ``(S(x), C(x))``: ``int_0^x sin(pi t**2 / 2) dt``
    and ``int_0^x cos(pi t**2 / 2) dt`` (Cephes' ``fresnl``; ``fresnlf`` in
    float32, 16-bit floats computed in float32, as JAX's); derivatives
    ``sin(pi x**2 / 2)`` and ``cos(pi x**2 / 2)``."""
    (a,) = _promote(x)
    dtype = aval_of(a).dtype
    if dtype in COMPLEX:
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if dtype in HALF:
        s, c = _fresnel(tnp.astype(a, np.dtype(np.float32)))
        return tnp.astype(s, dtype), tnp.astype(c, dtype)
    return _fresnel(a)


# -- hyp2f1 ------------------------------------------------------------------------------
def _hyp2f1_terminal(a: Array, b: Array, c: Array, x: Array, live: Array) -> Array:
    """The terminating sum when ``a`` or ``b`` is a non-positive integer
    (Pearson, Olver and Porter's (4.1)): ``|a|`` terms (every element its own)."""
    eps = float(tnp.finfo(aval_of(x).dtype).eps) * 50
    ib = tnp.round(b)
    keep = tnp.logical_not(tnp.logical_and(tnp.equal(tnp.remainder(c, 1.0), 0.0), tnp.logical_and(tnp.less_equal(c, 0.0), tnp.greater(c, b))))
    swap = tnp.logical_and(tnp.less(b, a), tnp.logical_and(tnp.less(tnp.abs(tnp.subtract(b, ib)), eps), keep))
    a, b = tnp.where(swap, b, a), tnp.where(swap, a, b)
    n = tnp.where(live, tnp.abs(a), tnp.zeros_like(a))

    def cond(st: tuple[Array, Array, Array]) -> Array:
        return tnp.any(tnp.less(st[0], tnp.add(n, 1.0)))

    def body(st: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        i, serie, term = st
        go = tnp.less(i, tnp.add(n, 1.0))
        t2 = tnp.multiply(term, tnp.multiply(tnp.divide(tnp.multiply(tnp.divide(tnp.negative(tnp.add(tnp.subtract(n, i), 1.0)), tnp.subtract(tnp.add(c, i), 1.0)), tnp.subtract(tnp.add(b, i), 1.0)), i), x))
        return tnp.add(i, 1.0), tnp.where(go, tnp.add(serie, t2), serie), tnp.where(go, t2, term)

    return lax.while_loop(cond, body, (tnp.ones_like(x), tnp.ones_like(x), tnp.ones_like(x)))[1]


def _hyp2f1_serie(a: Array, b: Array, c: Array, x: Array, live: Array) -> Array:
    def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        f = tnp.multiply(tnp.divide(tnp.divide(tnp.multiply(tnp.subtract(tnp.add(a, k), 1.0), tnp.subtract(tnp.add(b, k), 1.0)), tnp.subtract(tnp.add(c, k), 1.0)), k), x)
        return tnp.add(serie, term), tnp.multiply(term, f)

    return _series(tnp.zeros_like(x), tnp.ones_like(x), live, step)


def _hyp2f1_digamma_transform(a: Array, b: Array, c: Array, x: Array, live: Array) -> Array:
    """Near ``x = 1`` with ``c - a - b`` an integer: the digamma form of the
    ``1 - x`` transformation (JAX's, after Cephes' hyp2f1.c)."""
    rtol = float(tnp.finfo(aval_of(x).dtype).eps)
    d = tnp.subtract(tnp.subtract(c, a), b)
    s = tnp.subtract(1.0, x)
    rd = tnp.round(d)
    pos = tnp.greater_equal(rd, 0.0)
    e = tnp.where(pos, d, tnp.negative(d))
    d1 = tnp.where(pos, d, tnp.zeros_like(d))
    d2 = tnp.where(pos, tnp.zeros_like(d), d)
    ard = tnp.where(live, tnp.abs(rd), tnp.zeros_like(rd))
    ax = tnp.log(s)
    dg = lax.digamma
    y = tnp.subtract(tnp.subtract(tnp.subtract(tnp.add(dg(tnp.ones_like(x)), dg(tnp.add(1.0, e))), dg(tnp.add(a, d1))), dg(tnp.add(b, d1))), ax)
    y = tnp.divide(y, _gamma(tnp.add(e, 1.0)))
    p = tnp.divide(tnp.multiply(tnp.multiply(tnp.add(a, d1), tnp.add(b, d1)), s), _gamma(tnp.add(e, 2.0)))

    def cond(st: tuple[Array, Array, Array, Array, Array]) -> Array:
        return tnp.any(st[4])

    def body(st: tuple[Array, Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array, Array]:
        p, q, t, y, go = st
        r = tnp.subtract(tnp.subtract(tnp.subtract(tnp.add(dg(tnp.add(1.0, t)), dg(tnp.add(tnp.add(1.0, t), e))), dg(tnp.add(tnp.add(a, t), d1))), dg(tnp.add(tnp.add(b, t), d1))), ax)
        q2 = tnp.multiply(p, r)
        y2 = tnp.add(y, q2)
        p2 = tnp.multiply(p, tnp.divide(tnp.multiply(s, tnp.add(tnp.add(a, t), d1)), tnp.add(t, 1.0)))
        p2 = tnp.multiply(p2, tnp.divide(tnp.add(tnp.add(b, t), d1), tnp.add(tnp.add(t, 1.0), e)))
        t2 = tnp.add(t, 1.0)
        p, q, t, y = (tnp.where(go, n_, o) for n_, o in ((p2, p), (q2, q), (t2, t), (y2, y)))
        return p, q, t, y, tnp.logical_and(go, tnp.logical_and(tnp.less(t, 250.0), tnp.greater_equal(tnp.abs(q), tnp.multiply(rtol, tnp.abs(y)))))

    go0 = tnp.logical_and(live, tnp.greater_equal(tnp.abs(y), tnp.multiply(rtol, tnp.abs(y))))
    _, _, _, y, _ = lax.while_loop(cond, body, (p, y, tnp.ones_like(x), y, go0))

    # the finite sum over ard - 1 terms (every element its own count)
    def cond2(st: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.any(tnp.less(st[0], ard))

    def body2(st: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, p1, t1, y1 = st
        go = tnp.less(i, ard)
        r = tnp.add(tnp.subtract(1.0, e), t1)
        p2 = tnp.divide(tnp.multiply(tnp.multiply(tnp.multiply(p1, s), tnp.add(tnp.add(a, t1), d2)), tnp.add(tnp.add(b, t1), d2)), r)
        t2 = tnp.add(t1, 1.0)
        p2 = tnp.divide(p2, t2)
        return tnp.add(i, 1.0), tnp.where(go, p2, p1), tnp.where(go, t2, t1), tnp.where(go, tnp.add(y1, p2), y1)

    _, _, _, y1 = lax.while_loop(cond2, body2, (tnp.ones_like(x), tnp.ones_like(x), tnp.zeros_like(x), tnp.ones_like(x)))
    gc = _gamma(c)
    y1 = tnp.multiply(y1, tnp.divide(tnp.multiply(_gamma(e), gc), tnp.multiply(_gamma(tnp.add(a, d1)), _gamma(tnp.add(b, d1)))))
    ys = tnp.multiply(y, tnp.divide(gc, tnp.multiply(_gamma(tnp.add(a, d2)), _gamma(tnp.add(b, d2)))))
    odd = tnp.equal(tnp.remainder(ard, 2.0), 1.0)
    ys = tnp.where(odd, tnp.negative(ys), ys)
    q = tnp.power(s, rd)
    summed = tnp.where(tnp.greater(rd, 0.0), tnp.add(tnp.multiply(ys, q), y1), tnp.add(ys, tnp.multiply(y1, q)))
    return tnp.where(tnp.equal(rd, 0.0), tnp.divide(tnp.multiply(y, gc), tnp.multiply(_gamma(a), _gamma(b))), summed)


def _hyp2f1_terminal_or_serie(a: Array, b: Array, c: Array, x: Array, live: Array) -> Array:
    eps = float(tnp.finfo(aval_of(x).dtype).eps) * 50
    d = tnp.subtract(tnp.subtract(c, a), b)
    neg_int_a = tnp.logical_and(tnp.less_equal(a, 0.0), tnp.less(tnp.abs(tnp.subtract(a, tnp.round(a))), eps))
    neg_int_b = tnp.logical_and(tnp.less_equal(b, 0.0), tnp.less(tnp.abs(tnp.subtract(b, tnp.round(b))), eps))
    neg_int = tnp.logical_or(neg_int_a, neg_int_b)
    near_one = tnp.logical_and(tnp.greater(x, 0.9), tnp.logical_not(neg_int))
    d_int = tnp.less(tnp.abs(tnp.subtract(d, tnp.round(d))), eps)
    use_dg = tnp.logical_and(near_one, d_int)
    use_term = tnp.logical_and(tnp.logical_not(near_one), neg_int)
    use_serie = tnp.logical_not(tnp.logical_or(use_dg, use_term))
    xs = _where_safe(use_dg, x, 0.5)
    out = _hyp2f1_serie(a, b, c, x, tnp.logical_and(live, use_serie))
    out = tnp.where(use_dg, _hyp2f1_digamma_transform(a, b, c, xs, tnp.logical_and(live, use_dg)), out)
    return tnp.where(use_term, _hyp2f1_terminal(a, b, c, x, tnp.logical_and(live, use_term)), out)


def _hyp2f1_value(a: Array, b: Array, c: Array, x: Array) -> Array:
    eps = float(tnp.finfo(aval_of(x).dtype).eps) * 50
    d = tnp.subtract(tnp.subtract(c, a), b)
    s = tnp.subtract(1.0, x)
    ca, cb = tnp.subtract(c, a), tnp.subtract(c, b)
    idd = tnp.round(d)
    conds = [  # JAX's nested where: the first true wins
        tnp.logical_or(tnp.equal(x, 0.0), tnp.logical_and(tnp.logical_or(tnp.equal(a, 0.0), tnp.equal(b, 0.0)), tnp.not_equal(c, 0.0))),
        tnp.logical_or(tnp.equal(c, 0.0), tnp.logical_and(tnp.less(c, 0.0), tnp.equal(tnp.remainder(c, 1.0), 0.0))),
        tnp.logical_and(tnp.less_equal(d, -1.0), tnp.logical_not(tnp.logical_and(tnp.greater_equal(tnp.abs(tnp.subtract(d, idd)), eps), tnp.less(s, 0.0)))),
        tnp.logical_and(tnp.less_equal(d, 0.0), tnp.equal(x, 1.0)),
        tnp.logical_and(tnp.less(x, 1.0), tnp.equal(b, c)),
        tnp.logical_and(tnp.less(x, 1.0), tnp.equal(a, c)),
        tnp.greater(x, 1.0),
        tnp.equal(x, 1.0),
    ]
    index_of = [0, 1, 2, 1, 3, 4, 1, 5]
    which = tnp.full(tnp.shape(x), 6, dtype=np.int32)
    for cnd, k in reversed(list(zip(conds, index_of))):
        which = tnp.where(cnd, k, which)
    live2, live6 = tnp.equal(which, 2), tnp.equal(which, 6)
    xt = _where_safe(tnp.logical_or(live2, live6), x, 0.0)
    v2 = tnp.multiply(tnp.power(tnp.subtract(1.0, xt), d), _hyp2f1_terminal_or_serie(ca, cb, c, xt, live2))
    v6 = _hyp2f1_terminal_or_serie(a, b, c, xt, live6)
    ss_ = _where_safe(tnp.logical_or(tnp.equal(which, 3), tnp.equal(which, 4)), s, 1.0)
    vals = [tnp.ones_like(x), tnp.full_like(x, np.inf), v2, tnp.power(ss_, tnp.negative(a)), tnp.power(ss_, tnp.negative(b)),
            tnp.divide(tnp.multiply(_gamma(c), _gamma(d)), tnp.multiply(_gamma(ca), _gamma(cb))), v6]
    out = vals[6]
    for k in range(6):
        out = tnp.where(tnp.equal(which, k), vals[k], out)
    return out


def _hyp2f1_param_derivative(a: Array, b: Array, c: Array, x: Array, wrt: int) -> Array:
    def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        if wrt == 0:
            w = tnp.subtract(lax.digamma(tnp.add(a, k)), lax.digamma(a))
        elif wrt == 1:
            w = tnp.subtract(lax.digamma(tnp.add(b, k)), lax.digamma(b))
        else:
            w = tnp.subtract(lax.digamma(c), lax.digamma(tnp.add(c, k)))
        f = tnp.multiply(tnp.divide(tnp.divide(tnp.multiply(tnp.add(a, k), tnp.add(b, k)), tnp.add(c, k)), tnp.add(k, 1.0)), x)
        return tnp.add(serie, tnp.multiply(term, w)), tnp.multiply(term, f)

    term0 = tnp.multiply(tnp.divide(tnp.multiply(a, b), c), x)
    return _series(tnp.zeros_like(x), term0, tnp.ones_like(x, dtype=bool), step)


@custom_jvp
def _hyp2f1(a: Array, b: Array, c: Array, x: Array) -> Array:
    return _hyp2f1_value(a, b, c, x)


@_hyp2f1.defjvp
def _hyp2f1_jvp(primals: tuple[Array, Array, Array, Array], tangents: tuple[Array, Array, Array, Array]) -> tuple[Array, Array]:
    (a, b, c, x), dots = primals, tangents
    d_x = tnp.multiply(tnp.divide(tnp.multiply(a, b), c), _hyp2f1(tnp.add(a, 1.0), tnp.add(b, 1.0), tnp.add(c, 1.0), x))
    out = tnp.multiply(d_x, dots[3])
    for i in range(3):
        out = tnp.add(out, tnp.multiply(_hyp2f1_param_derivative(a, b, c, x, i), dots[i]))
    return _hyp2f1(a, b, c, x), out


def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """The Gauss hypergeometric function ``2F1(a, b; c; x)`` (Pearson, Olver
    and Porter's series, terminating sums and the digamma form of the
    ``1 - x`` transformation near ``x = 1``, JAX's special cases; real
    arguments); its derivatives are JAX's series."""
    aa, bb, cc, xx = _real("hyp2f1", a, b, c, x)
    return _hyp2f1(aa, bb, cc, xx)
