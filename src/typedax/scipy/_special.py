"""``typedax.scipy.special``'s implementation (``special.py`` is its face),
named and computed as ``jax.scipy.special``'s; ``ndtr`` and ``log_ndtr`` are
defined here and ``stats.norm`` builds on them, as JAX's.

Where JAX gives a function its own derivative rule (``custom_jvp``), so does
typedax, with the same rule: ``xlogy``, ``xlog1py``, ``logit`` and the
``x log x`` inside ``entr`` / ``rel_entr`` (so their derivatives at the
boundary are JAX's: ``grad(entr)(0.)`` is inf, ``grad(logit)(0.)`` inf).
``logsumexp`` subtracts the maximum without ``stop_gradient`` (its
contributions to the derivative cancel, so the result is the same).
Builds on ``_base`` and on ``typedax._lax.special`` (``lax.igamma``,
``betainc``, ``zeta``, ``polygamma``, ``bessel_i0e``/``i1e``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, overload

import numpy as np

from .. import lax
from .. import numpy as tnp
from .._lax import special as _lsp
from .._numpy import lax_numpy as _lax_numpy
from ..core.array import Array, ArrayLike
from ..core.dtypes import HALF
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray
from ..core.trace import Value, aval_of
from ..custom_derivatives import custom_jvp
from ._base import Axis, _c, _cs, _inexact, _inexact2, _only_f32_f64, _polyval, _promote


def erf(x: ArrayLike) -> Array:
    return lax.erf(_inexact(x))


def erfc(x: ArrayLike) -> Array:
    return lax.erfc(_inexact(x))


def erfinv(x: ArrayLike) -> Array:
    return lax.erf_inv(_inexact(x))


def gammaln(x: ArrayLike) -> Array:
    return lax.lgamma(_inexact(x))


def digamma(x: ArrayLike) -> Array:
    return lax.digamma(_inexact(x))


def expit(x: ArrayLike) -> Array:
    """``1 / (1 + exp(-x))``."""
    return lax.logistic(_inexact(x))


def logit(x: ArrayLike) -> Array:
    """``log(x / (1 - x))``; its derivative ``1 / (x (1 - x))`` (JAX's rule:
    inf at 0 and 1, where differentiating the formula gives NaN)."""
    return _logit(_inexact(x))


@custom_jvp
def _logit(a: Array) -> Array:
    return lax.log(lax.div(a, lax.sub(_c(1.0, a), a)))


@_logit.defjvp
def _logit_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    return _logit(x), lax.div(g, lax.mul(x, lax.sub(_c(1.0, x), x)))


def _x_times_log(x: ArrayLike, y: ArrayLike, log1p: bool) -> Array:
    a, b = _inexact2(x, y)
    dtype = aval_of(a).dtype
    x_zero = tnp.equal(a, 0)
    # where x == 0, log's argument is y if its log is finite or y is NaN (which
    # propagates, as in JAX and scipy), else a harmless one
    lo = -1.0 if log1p else 0.0
    fine = tnp.logical_or(tnp.logical_and(tnp.isfinite(b), tnp.greater(b, lo)), tnp.isnan(b))
    safe = tnp.where(tnp.logical_and(x_zero, tnp.logical_not(fine)), lax.full_like(b, 0.0 if log1p else 1.0), b)
    out = tnp.multiply(a, lax.log1p(safe) if log1p else lax.log(safe))
    # JAX's select (x != 0 or y NaN): +0.0 where x == 0, and XLA cannot contract
    # x * log(y) into a caller's subtraction (rel_entr(x, x) is exactly 0 under jit)
    return tnp.where(tnp.logical_or(tnp.logical_not(x_zero), tnp.isnan(b)), out, tnp.zeros_like(a))


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log(y)``, 0 where ``x == 0``; JAX's derivative rule
    ``x_dot log(y) + y_dot x / y`` (-inf in ``x`` at ``y == 0``)."""
    return _xlogy(*_inexact2(x, y))


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log1p(y)``, 0 where ``x == 0``; JAX's derivative rule
    ``x_dot log1p(y) + y_dot x / (1 + y)``."""
    return _xlog1py(*_inexact2(x, y))


# The primal functions keep log's argument finite where x == 0, so that a
# derivative of the primal function itself (as written, not through its rule)
# has no NaN from there either.
@custom_jvp
def _xlogy(a: Array, b: Array) -> Array:
    return _x_times_log(a, b, False)


@_xlogy.defjvp
def _xlogy_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> tuple[Array, Array]:
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlogy(x, y)
    return out, tnp.add(tnp.multiply(x_dot, lax.log(y)), tnp.divide(tnp.multiply(y_dot, x), y))


@custom_jvp
def _xlog1py(a: Array, b: Array) -> Array:
    return _x_times_log(a, b, True)


@_xlog1py.defjvp
def _xlog1py_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> tuple[Array, Array]:
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlog1py(x, y)
    one_plus_y = tnp.add(_c(1.0, y), y)
    return out, tnp.add(tnp.multiply(x_dot, lax.log1p(y)), tnp.divide(tnp.multiply(y_dot, x), one_plus_y))


def _axes(ndim: int, axis: Axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return _lax_numpy._axes("logsumexp", ndim, axis)


@overload
def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
    return_sign: Literal[False] = False, where: ArrayLike | None = None,
) -> Array: ...


@overload
def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False, *,
    return_sign: Literal[True], where: ArrayLike | None = None,
) -> tuple[Array, Array]: ...


def logsumexp(
    a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
    return_sign: bool = False, where: ArrayLike | None = None,
) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a)))`` over ``axis``, computed as JAX does (shifted by
    the finite maximum); with ``return_sign`` also the sign of the sum (and the
    log of its magnitude), else NaN where the sum is negative. With ``where``
    only the entries where it is true count (an empty sum is 0: its log -inf)."""
    if where is not None:
        a = tnp.where(where, a, 0)
    if b is not None:
        x, w = _inexact2(a, b)
        shape = np.broadcast_shapes(aval_of(x).shape, aval_of(w).shape)
        x, w = tnp.broadcast_to(x, shape), tnp.broadcast_to(w, shape)
        x = tnp.where(tnp.not_equal(w, 0), x, -np.inf)
    else:
        x = _inexact(a)
    dtype = aval_of(x).dtype
    dims = _axes(aval_of(x).ndim, axis)
    if where is not None:
        mask = tnp.broadcast_to(tnp.asarray(where), aval_of(x).shape)
        amax = tnp.max(tnp.where(mask, x, -np.inf), dims, keepdims=keepdims, initial=-np.inf)
    else:
        amax = tnp.max(x, dims, keepdims=keepdims, initial=-np.inf)  # (as JAX's: -inf over an empty axis)
    amax = tnp.where(tnp.isfinite(amax), amax, tnp.zeros_like(amax))
    amax_dims = amax if keepdims else tnp.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(x, amax_dims))
    if b is not None:
        exp_a = lax.mul(exp_a, w)
    if where is not None:
        exp_a = tnp.where(mask, exp_a, tnp.zeros_like(exp_a))
    sumexp = tnp.sum(exp_a, dims, keepdims=keepdims)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(tnp.abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = tnp.where(tnp.less(sign, 0), np.asarray(np.nan, dtype), out)
    return out


def gammasgn(x: ArrayLike) -> Array:
    """The sign of the gamma function: NaN at the non-positive integers (and
    -inf, NaN), -1 where it is negative (``-0.0`` included), else 1."""
    (a,) = _promote(x)
    floor_x = lax.floor(a)
    neg = tnp.less(a, 0.0)
    nan_case = tnp.logical_or(tnp.logical_and(neg, tnp.equal(a, floor_x)), tnp.isnan(a))
    minus = tnp.logical_or(tnp.logical_and(neg, tnp.not_equal(tnp.remainder(floor_x, 2.0), 0.0)),
                           tnp.logical_and(tnp.equal(a, 0.0), tnp.signbit(a)))
    return tnp.where(nan_case, _cs(np.nan, a), tnp.where(minus, _cs(-1.0, a), _cs(1.0, a)))


def gamma(x: ArrayLike) -> Array:
    """``gammasgn(x) * exp(gammaln(x))``."""
    (a,) = _promote(x)
    return tnp.multiply(gammasgn(a), lax.exp(lax.lgamma(a)))


def _algdiv(a: Array, b: Array) -> Array:
    c0, c1, c2 = 0.0833333333333333, -0.00277777777760991, 0.00079365066682539
    c3, c4, c5 = -0.00059520293135187, 0.000837308034031215, -0.00165322962780713
    h = tnp.divide(a, b)
    c = tnp.divide(h, tnp.add(1.0, h))
    x = c
    d = tnp.add(b, tnp.subtract(a, 0.5))
    x2 = tnp.multiply(x, x)
    s3 = tnp.add(1.0, tnp.add(x, x2))
    s5 = tnp.add(1.0, tnp.add(x, tnp.multiply(x2, s3)))
    s7 = tnp.add(1.0, tnp.add(x, tnp.multiply(x2, s5)))
    s9 = tnp.add(1.0, tnp.add(x, tnp.multiply(x2, s7)))
    s11 = tnp.add(1.0, tnp.add(x, tnp.multiply(x2, s9)))
    t = tnp.power(tnp.divide(1.0, b), 2)
    w = tnp.add(tnp.multiply(tnp.multiply(c5, s11), t), tnp.multiply(c4, s9))
    w = tnp.add(tnp.multiply(w, t), tnp.multiply(c3, s7))
    w = tnp.add(tnp.multiply(w, t), tnp.multiply(c2, s5))
    w = tnp.add(tnp.multiply(w, t), tnp.multiply(c1, s3))
    w = tnp.add(tnp.multiply(w, t), c0)
    w = tnp.multiply(w, tnp.divide(c, b))
    u = tnp.multiply(d, lax.log1p(tnp.divide(a, b)))
    v = tnp.multiply(a, tnp.subtract(lax.log(b), 1.0))
    return tnp.where(tnp.less_equal(u, v), tnp.subtract(tnp.subtract(w, v), u), tnp.subtract(tnp.subtract(w, u), v))


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log|B(a, b)|``, with JAX's (TOMS 708) correction ``algdiv`` for ``max(a, b) >= 8``."""
    x, y = _promote(a, b)
    lo, hi = tnp.minimum(x, y), tnp.maximum(x, y)
    small_b = tnp.add(lax.lgamma(lo), tnp.subtract(lax.lgamma(hi), lax.lgamma(tnp.add(lo, hi))))
    large_b = tnp.add(lax.lgamma(lo), _algdiv(lo, hi))
    return tnp.where(tnp.less(hi, 8.0), small_b, large_b)


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, as ``sign * exp(betaln)``."""
    x, y = _promote(a, b)
    sign = tnp.multiply(tnp.multiply(gammasgn(x), gammasgn(y)), gammasgn(tnp.add(x, y)))
    return tnp.multiply(sign, lax.exp(betaln(x, y)))


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """``n!`` as ``exp(gammaln(n + 1))`` (0 for ``n < 0``); ``exact=True`` is
    refused, as in JAX."""
    if exact:
        raise PrimitiveTypeError("factorial: factorial with exact=True is not supported (as in JAX)")
    (a,) = _promote(n)
    return tnp.where(tnp.less(a, 0.0), 0, lax.exp(lax.lgamma(tnp.add(a, 1.0))))  # (JAX's literals: a weak n stays weak)


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """``N choose k`` from ``gammaln`` (0 unless ``0 <= k <= N``); with
    ``repetition``, ``comb(N + k - 1, k)`` (1 for ``k == 0 <= N``)."""
    n_, k_ = _promote(N, k)
    if repetition:
        cond = tnp.logical_and(tnp.equal(k_, 0.0), tnp.greater_equal(n_, 0.0))
        return tnp.where(cond, 1.0, comb(tnp.subtract(tnp.add(n_, k_), 1.0), k_))  # (JAX's literals: weak stays weak)
    cond = tnp.logical_and(tnp.logical_and(tnp.less_equal(k_, n_), tnp.greater_equal(n_, 0.0)), tnp.greater_equal(k_, 0.0))
    safe_n = tnp.where(cond, n_, 0.0)  # (JAX's literals: weak stays weak)
    safe_k = tnp.where(cond, k_, 0.0)
    result = lax.exp(tnp.subtract(tnp.subtract(lax.lgamma(tnp.add(safe_n, 1.0)), lax.lgamma(tnp.add(safe_k, 1.0))),
                                  lax.lgamma(tnp.subtract(tnp.add(safe_n, 1.0), safe_k))))
    return tnp.where(cond, result, 0.0)


def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The rising factorial ``Gamma(z + m) / Gamma(z)`` (1 where ``m == 0``).
    Its derivatives are those of the formula, which equal JAX's rule
    (``poch * (digamma(z + m) - digamma(z))`` in ``z``, ``poch *
    digamma(z + m)`` in ``m``) wherever the gammas are finite."""
    zz, mm = _promote(z, m)
    return tnp.where(tnp.equal(mm, 0.0), _cs(1.0, zz), tnp.divide(gamma(tnp.add(zz, mm)), gamma(zz)))


def multigammaln(a: ArrayLike, d: int) -> Array:
    """The log of the multivariate gamma function of dimension ``d`` (a
    Python integer): ``d(d-1)/4 log(pi) + sum_j gammaln(a - j/2)``."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise PrimitiveTypeError(f"multigammaln: d must be a concrete integer, got {d!r}")
    x, d_ = _promote(a, int(d))
    constant = tnp.multiply(tnp.multiply(tnp.multiply(0.25, d_), tnp.subtract(d_, 1.0)), _c(float(np.log(np.pi)), x))
    b = tnp.divide(tnp.arange(int(d), dtype=aval_of(x).dtype), 2.0)
    res = tnp.sum(lax.lgamma(tnp.subtract(tnp.expand_dims(x, -1), b)), axis=-1)
    return tnp.add(res, constant)


@custom_jvp
def _xlogx(x: Array) -> Array:
    """``x log x``, 0 at 0, with JAX's derivative ``log(x) + 1`` (inf at 0)."""
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), tnp.multiply(x_dot, tnp.add(lax.log(x), _c(1.0, x)))


def entr(x: ArrayLike) -> Array:
    """``-x log x`` for ``x >= 0`` (0 at 0), ``-inf`` for ``x < 0``."""
    (a,) = _promote(x)
    return tnp.where(tnp.less(a, 0.0), lax.full_like(a, -np.inf), tnp.negative(_xlogx(a)))  # (full_like: weak stays weak, as JAX's)


def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """``p log(p / q)`` for ``p, q > 0``; 0 for ``p == 0 <= q``; else inf."""
    pp, qq = _promote(p, q)
    both = tnp.logical_and(tnp.greater(pp, 0.0), tnp.greater(qq, 0.0))
    one_zero = tnp.logical_and(tnp.equal(pp, 0.0), tnp.greater_equal(qq, 0.0))
    safe_p = tnp.where(both, pp, _c(1.0, pp))
    safe_q = tnp.where(both, qq, _c(1.0, qq))
    log_val = tnp.subtract(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return tnp.where(both, log_val, tnp.where(one_zero, _c(0.0, pp), _c(np.inf, pp)))


def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """``rel_entr(p, q) - p + q``."""
    pp, qq = _promote(p, q)
    return tnp.add(tnp.subtract(rel_entr(pp, qq), pp), qq)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """``(x**lmbda - 1) / lmbda`` (as ``expm1(lmbda log x) / lmbda``), ``log x`` where ``lmbda == 0``."""
    xx, ll = _promote(x, lmbda)
    zero = tnp.equal(ll, 0.0)
    safe = tnp.where(zero, tnp.ones_like(ll), ll)
    log_x = tnp.log(xx)
    return tnp.where(zero, log_x, tnp.divide(tnp.expm1(tnp.multiply(safe, log_x)), safe))


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """``boxcox(1 + x, lmbda)``, accurate for small ``x`` (``log1p``)."""
    xx, ll = _promote(x, lmbda)
    zero = tnp.equal(ll, 0.0)
    safe = tnp.where(zero, tnp.ones_like(ll), ll)
    log1p_x = tnp.log1p(xx)
    return tnp.where(zero, log1p_x, tnp.divide(tnp.expm1(tnp.multiply(safe, log1p_x)), safe))


# -- the normal distribution's functions (stats.norm builds on them, as JAX's) ----------
def _ndtr(x: Value) -> Array:
    """JAX's ``ndtr``: ``(1 + erf(x / sqrt 2)) / 2`` near 0, ``erfc`` in the tails."""
    half_sqrt_2 = _cs(0.5 * np.sqrt(2.0), x)
    w = lax.mul(x, half_sqrt_2)
    z = lax.abs(w)
    y = lax.select(
        lax.lt(z, half_sqrt_2),
        lax.add(_cs(1.0, x), lax.erf(w)),
        lax.select(lax.gt(w, _cs(0.0, x)), lax.sub(_cs(2.0, x), lax.erfc(z)), lax.erfc(z)),
    )
    return lax.mul(_cs(0.5, x), y)


def _log_ndtr(x: Value, series_order: int = 3) -> Array:
    """JAX's ``log_ndtr``: ``log(ndtr(x))`` in the middle, ``-ndtr(-x)``
    above 8 (5 in float32), an asymptotic series (of ``series_order`` terms)
    below -20 (-10). Its derivative is the formula's (JAX gives it
    ``exp(logpdf - ans)`` by a custom rule; below the lower bound the two
    differ by the series' error, about 1e-9 relative). Each branch is fed a
    clamped argument, so no NaN reaches the derivative of the unchosen ones."""
    dtype = aval_of(x).dtype
    lower = _cs(-20.0 if dtype == np.float64 else -10.0, x)
    upper = _cs(8.0 if dtype == np.float64 else 5.0, x)
    above = tnp.greater(x, upper)
    inside = tnp.greater(x, lower)
    # selects, not max/min (whose derivative splits on ties at the bounds)
    ndtr_arg = tnp.where(above, lax.neg(x), tnp.where(inside, x, lower))
    ndtr_res = _ndtr(ndtr_arg)
    low = tnp.where(inside, lower, x)  # the asymptotic series of log(ndtr(x)) for x << -1
    x_2 = lax.mul(low, low)
    log_scale = lax.sub(lax.sub(lax.mul(_cs(-0.5, x), x_2), lax.log(lax.neg(low))), _cs(0.5 * np.log(2 * np.pi), x))
    tail = lax.add(log_scale, lax.log(_log_ndtr_series(x_2, series_order)))
    # above the upper bound ndtr_res (of -x) may be 0: log gets 1 there, unchosen
    middle = tnp.where(inside, lax.log(tnp.where(above, _cs(1.0, x), ndtr_res)), tail)
    return tnp.where(above, lax.neg(ndtr_res), middle)


def _log_ndtr_series(x_2: Array, series_order: int) -> Array:
    """JAX's ``_log_ndtr_asymptotic_series``: ``1 + sum_n (-1)**n (2n-1)!! / x**(2n)``
    (the odd and even terms summed apart)."""
    if series_order <= 0:
        return tnp.ones_like(x_2)
    even_sum = tnp.zeros_like(x_2)
    odd_sum = tnp.zeros_like(x_2)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = lax.div(_cs(float(np.prod(np.arange(2 * n - 1, 1, -2, dtype=np.float64))), x_2), x_2n)
        if n % 2:
            odd_sum = lax.add(odd_sum, y)
        else:
            even_sum = lax.add(even_sum, y)
        x_2n = lax.mul(x_2n, x_2)
    return lax.sub(lax.add(_cs(1.0, x_2), even_sum), odd_sum)


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF (float32 and float64 operands only, as JAX)."""
    a = tnp.asarray(x)
    _only_f32_f64("ndtr", a)
    return _ndtr(a)


_NDTRI_P0 = (-59.96335010141079, 98.00107541859997, -56.67628574690703, 13.931260938727968, -1.2391658386738125)
_NDTRI_Q0 = (1.0, 1.9544885833814176, 4.676279128988815, 86.36024213908905, -225.46268785411937,
             200.26021238006066, -82.03722561683334, 15.90562251262117, -1.1833162112133)
_NDTRI_P1 = (4.0554489230596245, 31.525109459989388, 57.16281922464213, 44.08050738932008, 14.684956192885803,
             2.1866330685079025, -0.1402560791713545, -0.03504246268278482, -0.0008574567851546854)
_NDTRI_Q1 = (1.0, 15.779988325646675, 45.39076351288792, 41.3172038254672, 15.04253856929075, 2.504649462083094,
             -0.14218292285478779, -0.03808064076915783, -0.0009332594808954574)
_NDTRI_P2 = (3.2377489177694603, 6.915228890689842, 3.9388102529247444, 1.3330346081580755, 0.20148538954917908,
             0.012371663481782003, 0.00030158155350823543, 2.6580697468673755e-06, 6.239745391849833e-09)
_NDTRI_Q2 = (1.0, 6.02427039364742, 3.6798356385616087, 1.3770209948908132, 0.21623699359449663,
             0.013420400608854318, 0.00032801446468212774, 2.8924786474538068e-06, 6.790194080099813e-09)


def _ndtri(p: Array) -> Array:
    """JAX's ``_ndtri`` (Cephes' rational approximations in three ranges)."""
    def c(v: float) -> NDArray:
        return _cs(v, p)

    maybe_complement = tnp.where(tnp.greater(p, c(-np.expm1(-2.0))), tnp.subtract(c(1.0), p), p)
    mcp = tnp.where(tnp.equal(maybe_complement, 0.0), tnp.full_like(p, 0.5), maybe_complement)
    w = tnp.subtract(mcp, c(0.5))
    ww = tnp.square(w)
    x_big = tnp.add(w, tnp.multiply(tnp.multiply(w, ww), tnp.divide(_polyval(_NDTRI_P0, ww), _polyval(_NDTRI_Q0, ww))))
    x_big = tnp.multiply(x_big, tnp.negative(c(np.sqrt(2.0 * np.pi))))
    z = tnp.sqrt(tnp.multiply(c(-2.0), tnp.log(mcp)))
    first = tnp.subtract(z, tnp.divide(tnp.log(z), z))
    inv_z = tnp.divide(c(1.0), z)
    second_small = tnp.divide(tnp.divide(_polyval(_NDTRI_P2, inv_z), _polyval(_NDTRI_Q2, inv_z)), z)
    second_other = tnp.divide(tnp.divide(_polyval(_NDTRI_P1, inv_z), _polyval(_NDTRI_Q1, inv_z)), z)
    x = tnp.where(tnp.greater(mcp, c(np.exp(-2.0))), x_big,
                  tnp.where(tnp.greater_equal(z, c(8.0)), tnp.subtract(first, second_small), tnp.subtract(first, second_other)))
    x = tnp.where(tnp.greater(p, c(1.0 - np.exp(-2.0))), x, tnp.negative(x))
    return tnp.where(tnp.equal(p, 0.0), c(-np.inf), tnp.where(tnp.equal(p, 1.0), c(np.inf), x))


def ndtri(p: ArrayLike) -> Array:
    """The inverse of ``ndtr`` (float32 and float64 operands only, as JAX)."""
    a = tnp.asarray(p)
    _only_f32_f64("ndtri", a)
    return _ndtri(a)


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
    """``log(ndtr(x))``, accurate far into both tails (float32 and float64
    operands only; ``series_order`` in ``[0, 30]``, as JAX)."""
    if isinstance(series_order, bool) or not isinstance(series_order, int):
        raise PrimitiveTypeError("log_ndtr: series_order must be a Python integer.")
    if series_order < 0:
        raise PrimitiveTypeError("log_ndtr: series_order must be non-negative.")
    if series_order > 30:
        raise PrimitiveTypeError("log_ndtr: series_order must be <= 30.")
    a = tnp.asarray(x)
    _only_f32_f64("log_ndtr", a)
    return _log_ndtr(a, series_order)


def softmax(x: ArrayLike, /, *, axis: Axis = None) -> Array:
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default)."""
    a = _inexact(x)
    unnormalized = tnp.exp(tnp.subtract(a, tnp.max(a, axis, keepdims=True)))
    return tnp.divide(unnormalized, tnp.sum(unnormalized, axis, keepdims=True))


def log_softmax(x: ArrayLike, /, *, axis: Axis = None) -> Array:
    """``x - logsumexp(x)`` over ``axis`` (all axes by default)."""
    a = _inexact(x)
    shifted = tnp.subtract(a, tnp.max(a, axis, keepdims=True))
    return tnp.subtract(shifted, tnp.log(tnp.sum(tnp.exp(shifted), axis, keepdims=True)))


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)``
    (``lax.igamma``: XLA's series and continued fraction). First derivatives
    in ``a`` and ``x`` are JAX's; higher ones are zero."""
    return _lsp.igamma(*_promote(a, x))


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``
    (``lax.igammac``). First derivatives are JAX's; higher ones are zero."""
    return _lsp.igammac(*_promote(a, x))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)`` (``lax.betainc``:
    XLA's continued fraction). Its first derivative in ``x`` is JAX's; JAX
    refuses derivatives in ``a`` and ``b``, which are zero here (as are higher
    ones in ``x``)."""
    return _lsp.betainc(*_promote(a, b, x))


def i0e(x: ArrayLike) -> Array:
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    (a,) = _promote(x)
    return _lsp.bessel_i0e(a)


def i0(x: ArrayLike) -> Array:
    """``I0(x)``, the modified Bessel function of order 0: ``exp(|x|) i0e(x)``."""
    (a,) = _promote(x)
    return tnp.multiply(tnp.exp(tnp.abs(a)), _lsp.bessel_i0e(a))


def i1e(x: ArrayLike) -> Array:
    """``exp(-|x|) I1(x)``, the exponentially scaled modified Bessel function of order 1."""
    (a,) = _promote(x)
    return _lsp.bessel_i1e(a)


def i1(x: ArrayLike) -> Array:
    """``I1(x)``, the modified Bessel function of order 1: ``exp(|x|) i1e(x)``."""
    (a,) = _promote(x)
    return tnp.multiply(tnp.exp(tnp.abs(a)), _lsp.bessel_i1e(a))


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
    """The Hurwitz zeta function ``sum_n (n + q)**-x`` (XLA's algorithm; its
    derivatives are those of that formula). ``q=None`` (Riemann's zeta) is
    refused, as in JAX."""
    if q is None:
        raise PrimitiveTypeError(
            "zeta: Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta function.")
    return _lsp.zeta(*_promote(x, q))


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """The ``n``-th derivative of ``digamma`` (``n`` of an integer dtype):
    ``(-1)**(n+1) n! zeta(n + 1, x)``, ``digamma`` for ``n == 0``, NaN for
    negative ``n`` (XLA's ``chlo.polygamma``)."""
    n_dtype = aval_of(tnp.asarray(n)).dtype
    if n_dtype.kind not in "iu":
        raise PrimitiveTypeError(f"polygamma: Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    return _lsp.polygamma(*_promote(n, x))


_ERFCX_COEFFS = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5, 1.0)


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function ``exp(x**2) erfc(x)``: directly
    below ``sqrt(log(max))``, an asymptotic series above (9 terms in float64,
    5 in float32)."""
    (a,) = _promote(x)
    dtype = aval_of(a).dtype
    if dtype in HALF:
        return tnp.astype(erfcx(tnp.astype(a, np.dtype(np.float32))), dtype)
    nterms = 9 if dtype == np.float64 else 5
    threshold = float(np.sqrt(np.log(float(tnp.finfo(dtype).max))))
    large = tnp.greater(a, _cs(threshold, a))
    safe = tnp.where(large, tnp.ones_like(a), a)
    direct = tnp.multiply(tnp.exp(tnp.square(safe)), lax.erfc(safe))
    big = tnp.where(large, a, tnp.full_like(a, threshold))  # the series' argument, away from 0
    t = tnp.divide(_cs(1.0, a), tnp.square(big))
    asymp = tnp.divide(_polyval(_ERFCX_COEFFS[-nterms:], t), tnp.multiply(big, _cs(float(np.sqrt(np.pi)), a)))
    return tnp.where(large, asymp, direct)
