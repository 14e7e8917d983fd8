"""The special functions XLA computes by iteration, ported from JAX's
``jax/_src/lax/special.py`` (itself ported from XLA's ``math.cc``), composed
from ``typedax.numpy`` and ``lax.while_loop``: the regularized incomplete
gamma functions (series and continued fraction, with their derivative in
``a``) and the regularized incomplete beta function (Lentz-Thompson-Barnett
continued fraction).

JAX makes each a primitive with its own JVP rule; typedax has no
``custom_jvp``, and a ``while_loop`` cannot be reverse-differentiated, so
``first_order`` evaluates the loop on ``stop_gradient`` inputs and adds
``D_i * (x_i - stop_gradient(x_i))`` (zero in value) for each partial
derivative ``D_i`` JAX's rule gives: first derivatives (``jvp``, ``grad``)
are JAX's. The ``D_i`` are evaluated at stopped inputs too, so derivatives of
second and higher order through these functions are zero (JAX's are not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import lax
from .._lax.lax import _convert_weak
from .. import numpy as tnp
from ..core.array import Array
from ..core.dtypes import DType, HALF
from ..core.trace import Tracer, aval_of

VALUE, DERIVATIVE = "value", "derivative"


def first_order(value: Array, args: Sequence[Array], partials: Sequence[Array | None]) -> Array:
    """``value`` (computed from stopped ``args``) with first derivatives
    ``partials`` (``None``: zero); weakly typed if ``value`` is."""
    out = lax.stop_gradient(value)
    for x, d in zip(args, partials):
        if d is not None:
            # the added term must be 0 in value: an infinite input contributes
            # no derivative, an infinite partial the largest finite one and a
            # NaN partial (a domain error of JAX's rule) none
            t = tnp.where(tnp.isfinite(x), tnp.subtract(x, lax.stop_gradient(x)), tnp.zeros_like(x))
            out = tnp.add(out, tnp.multiply(lax.stop_gradient(tnp.nan_to_num(d, nan=0.0)), t))
    return _weak_as(out, value)


def traced(*args: Array) -> bool:
    """Whether any operand is a tracer (only then can a derivative be taken:
    eager calls on concrete arrays skip the derivative loops)."""
    return any(isinstance(a, Tracer) for a in args)


def _weak_as(out: Array, like: Array) -> Array:
    """``out``, weakly typed if ``like`` is (and ``out`` is not)."""
    a = aval_of(out)
    if aval_of(like).weak_type and not a.weak_type:
        return _convert_weak(out, a.dtype)
    return out


def upcast_half(fn: Callable[..., Array], *args: Array) -> Array:
    """``fn`` in float32 for 16-bit float operands (XLA's upcast), rounded
    back; weakly typed if every operand is (JAX's rule for its primitives
    ``igamma``, ``igammac``, ``regularized_incomplete_beta``): the loops' strong
    constants would make it strong."""
    dtype = aval_of(args[0]).dtype
    if dtype in HALF:
        out = tnp.astype(fn(*(tnp.astype(a, np.dtype(np.float32)) for a in args)), dtype)
    else:
        out = fn(*args)
    if all(aval_of(a).weak_type for a in args) and not aval_of(out).weak_type:
        return _convert_weak(out, aval_of(out).dtype)
    return out


def _any(p: Array) -> Array:
    return tnp.any(p)


def _eps(dtype: DType) -> float:
    return float(tnp.finfo(dtype).eps)


def _log_max(dtype: DType) -> float:
    return float(np.log(float(tnp.finfo(dtype).max)))


def _igamma_series(ax: Array, x: Array, a: Array, enabled: Array, mode: str) -> Array:
    eps = _eps(aval_of(a).dtype)

    def cond(vals: tuple[Array, ...]) -> Array:
        return _any(vals[0])

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        en, r, c, ans, xx, dc_da, dans_da = vals
        r = tnp.add(r, 1.0)
        dc_da = tnp.subtract(tnp.multiply(dc_da, tnp.divide(xx, r)), tnp.divide(tnp.multiply(c, xx), tnp.multiply(r, r)))
        dans_da = tnp.add(dans_da, dc_da)
        c = tnp.multiply(c, tnp.divide(xx, r))
        ans = tnp.add(ans, c)
        if mode == VALUE:
            conditional = tnp.logical_and(en, tnp.greater(tnp.divide(c, ans), eps))
        else:
            conditional = tnp.logical_and(en, tnp.greater(tnp.abs(tnp.divide(dc_da, dans_da)), eps))
        new = (r, c, ans, xx, dc_da, dans_da)
        return (conditional, *(tnp.where(en, n, o) for n, o in zip(new, vals[1:])))

    one, zero = tnp.ones_like(a), tnp.zeros_like(a)
    vals = lax.while_loop(cond, body, (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    if mode == VALUE:
        return tnp.divide(tnp.multiply(ans, ax), a)
    dlogax_da = tnp.subtract(tnp.log(x), lax.digamma(tnp.add(a, 1.0)))
    return tnp.divide(tnp.multiply(ax, tnp.add(tnp.multiply(ans, dlogax_da), dans_da)), a)


def _igammac_continued_fraction(ax: Array, x: Array, a: Array, enabled: Array, mode: str) -> Array:
    eps = _eps(aval_of(a).dtype)

    def cond(vals: tuple[Array, ...]) -> Array:
        return tnp.logical_and(tnp.less(vals[5], 2000.0), _any(vals[0]))

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        (en, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = tnp.add(c, 1.0)
        y = tnp.add(y, 1.0)
        z = tnp.add(z, 2.0)
        yc = tnp.multiply(y, c)
        pk = tnp.subtract(tnp.multiply(pkm1, z), tnp.multiply(pkm2, yc))
        qk = tnp.subtract(tnp.multiply(qkm1, z), tnp.multiply(qkm2, yc))
        qk_nonzero = tnp.not_equal(qk, 0.0)
        r = tnp.divide(pk, qk)
        t = tnp.where(qk_nonzero, tnp.abs(tnp.divide(tnp.subtract(ans, r), r)), tnp.ones_like(r))
        ans = tnp.where(qk_nonzero, r, ans)
        dpk_da = tnp.add(tnp.subtract(tnp.subtract(tnp.multiply(dpkm1_da, z), pkm1), tnp.multiply(dpkm2_da, yc)), tnp.multiply(pkm2, c))
        dqk_da = tnp.add(tnp.subtract(tnp.subtract(tnp.multiply(dqkm1_da, z), qkm1), tnp.multiply(dqkm2_da, yc)), tnp.multiply(qkm2, c))
        dans_da_new = tnp.where(qk_nonzero, tnp.divide(tnp.subtract(dpk_da, tnp.multiply(ans, dqk_da)), qk), dans_da)
        grad_conditional = tnp.where(qk_nonzero, tnp.abs(tnp.subtract(dans_da_new, dans_da)), tnp.ones_like(dans_da))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = tnp.greater(tnp.abs(pk), 1.0 / eps)

        def resc(v: Array) -> Array:
            return tnp.where(rescale, tnp.multiply(v, eps), v)

        pkm2, pkm1, qkm2, qkm1 = resc(pkm2), resc(pkm1), resc(qkm2), resc(qkm1)
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = resc(dpkm2_da), resc(dqkm2_da), resc(dpkm1_da), resc(dqkm1_da)
        if mode == VALUE:
            conditional = tnp.logical_and(en, tnp.greater(t, eps))
        else:
            conditional = tnp.logical_and(en, tnp.greater(grad_conditional, eps))
        sel = [tnp.where(en, n, o) for n, o in zip(
            (ans, t, y, z), vals[1:5])]
        rest = [tnp.where(en, n, o) for n, o in zip(
            (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new), vals[6:])]
        return (conditional, *sel, c, *rest)

    y = tnp.subtract(1.0, a)
    z = tnp.add(tnp.add(x, y), 1.0)
    c = tnp.asarray(np.asarray(0, aval_of(x).dtype))  # a scalar, as JAX's: the iteration count
    pkm2 = tnp.ones_like(x)
    qkm2 = x
    pkm1 = tnp.add(x, 1.0)
    qkm1 = tnp.multiply(z, x)
    ans = tnp.divide(pkm1, qkm1)
    t = tnp.ones_like(x)
    zero = tnp.zeros_like(x)
    dqkm1_da = tnp.negative(x)
    dans_da = tnp.divide(tnp.subtract(zero, tnp.multiply(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, zero, zero, zero, dqkm1_da, dans_da)
    vals = lax.while_loop(cond, body, init)
    ans = vals[1]
    if mode == VALUE:
        return tnp.multiply(ans, ax)
    dlogax_da = tnp.subtract(tnp.log(x), lax.digamma(a))
    return tnp.multiply(ax, tnp.add(tnp.multiply(ans, dlogax_da), vals[14]))


def _log_ax(a: Array, x: Array) -> Array:
    return tnp.subtract(tnp.subtract(tnp.multiply(a, tnp.log(x)), x), lax.lgamma(a))


def igamma_value(a: Array, x: Array) -> Array:
    """JAX's ``igamma_impl``."""
    is_nan = tnp.logical_or(tnp.isnan(a), tnp.isnan(x))
    x_inf = tnp.equal(x, np.inf)
    a_zero, x_zero = tnp.equal(a, 0.0), tnp.equal(x, 0.0)
    domain_error = tnp.logical_or(tnp.logical_or(tnp.less(x, 0.0), tnp.less(a, 0.0)),
                                  tnp.logical_or(tnp.logical_and(a_zero, x_zero), is_nan))
    use_igammac = tnp.logical_and(tnp.greater_equal(x, 1.0), tnp.greater(x, a))
    log_ax = _log_ax(a, x)
    underflow = tnp.less(log_ax, -_log_max(aval_of(a).dtype))
    ax = tnp.exp(log_ax)
    enabled = tnp.logical_not(tnp.logical_or(tnp.logical_or(x_zero, domain_error), tnp.logical_or(underflow, x_inf)))
    out = tnp.where(
        use_igammac,
        tnp.subtract(1.0, _igammac_continued_fraction(ax, x, a, tnp.logical_and(enabled, use_igammac), VALUE)),
        _igamma_series(ax, x, a, tnp.logical_and(enabled, tnp.logical_not(use_igammac)), VALUE))
    out = tnp.where(x_zero, tnp.zeros_like(a), out)
    out = tnp.where(x_inf, tnp.ones_like(a), out)
    return tnp.where(domain_error, tnp.full_like(a, np.nan), out)


def igammac_value(a: Array, x: Array) -> Array:
    """JAX's ``igammac_impl``."""
    is_nan = tnp.logical_or(tnp.isnan(a), tnp.isnan(x))
    a_zero, x_zero = tnp.equal(a, 0.0), tnp.equal(x, 0.0)
    x_inf = tnp.equal(x, np.inf)
    domain_error = tnp.logical_or(tnp.logical_or(tnp.less(x, 0.0), tnp.less(a, 0.0)),
                                  tnp.logical_or(tnp.logical_and(a_zero, x_zero), is_nan))
    use_igamma = tnp.logical_or(tnp.less(x, 1.0), tnp.less(x, a))
    log_ax = _log_ax(a, x)
    underflow = tnp.less(log_ax, -_log_max(aval_of(a).dtype))
    enabled = tnp.logical_not(tnp.logical_or(tnp.logical_or(domain_error, underflow), tnp.logical_or(x_inf, a_zero)))
    ax = tnp.exp(log_ax)
    series = _igamma_series(ax, x, a, tnp.logical_and(enabled, use_igamma), VALUE)
    cf = _igammac_continued_fraction(ax, x, a, tnp.logical_and(enabled, tnp.logical_not(use_igamma)), VALUE)
    out = tnp.where(use_igamma, tnp.subtract(1.0, series), cf)
    out = tnp.where(tnp.logical_or(x_inf, a_zero), tnp.zeros_like(out), out)
    return tnp.where(domain_error, tnp.full_like(a, np.nan), out)


def igamma_grad_a(a: Array, x: Array) -> Array:
    """JAX's ``igamma_grad_a_impl``: d igamma(a, x) / da."""
    is_nan = tnp.logical_or(tnp.isnan(a), tnp.isnan(x))
    x_zero = tnp.equal(x, 0.0)
    domain_error = tnp.logical_or(tnp.less(x, 0.0), tnp.less_equal(a, 0.0))
    use_igammac = tnp.logical_and(tnp.greater(x, 1.0), tnp.greater(x, a))
    log_ax = _log_ax(a, x)
    underflow = tnp.less(log_ax, -_log_max(aval_of(a).dtype))
    ax = tnp.exp(log_ax)
    enabled = tnp.logical_not(tnp.logical_or(tnp.logical_or(x_zero, domain_error), tnp.logical_or(underflow, is_nan)))
    out = tnp.where(
        use_igammac,
        tnp.negative(_igammac_continued_fraction(ax, x, a, tnp.logical_and(enabled, use_igammac), DERIVATIVE)),
        _igamma_series(ax, x, a, tnp.logical_and(enabled, tnp.logical_not(use_igammac)), DERIVATIVE))
    out = tnp.where(x_zero, tnp.zeros_like(out), out)
    return tnp.where(tnp.logical_or(domain_error, is_nan), tnp.full_like(a, np.nan), out)


def igamma_grad_x(a: Array, x: Array) -> Array:
    """d igamma(a, x) / dx: ``exp(-x + (a - 1) log x - lgamma(a))``."""
    return tnp.exp(tnp.subtract(tnp.add(tnp.negative(x), tnp.multiply(tnp.subtract(a, 1.0), tnp.log(x))), lax.lgamma(a)))


def _lentz(num_iterations: int, small: float, threshold: float,
           numerator: Callable[[Array], Array], denominator: Callable[[Array], Array], like: Array) -> Array:
    """The Lentz-Thompson-Barnett evaluation of a continued fraction (all
    elements iterate until every one has converged, as XLA's)."""
    h0 = denominator(np.asarray(0, np.uint32))  # type: ignore[arg-type]  # a NumPy scalar counts as an Array here
    h0 = tnp.where(tnp.less(tnp.abs(h0), small), tnp.full_like(like, small), h0)

    def cond(vals: tuple[Array, ...]) -> Array:
        return tnp.logical_and(tnp.less(vals[0], np.uint32(num_iterations)), vals[1])

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        it, _, cc, dd, hh = vals
        pn, pd = numerator(it), denominator(it)
        c = tnp.add(pd, tnp.divide(pn, cc))
        c = tnp.where(tnp.less(tnp.abs(c), small), tnp.full_like(c, small), c)
        d = tnp.add(pd, tnp.multiply(pn, dd))
        d = tnp.where(tnp.less(tnp.abs(d), small), tnp.full_like(d, small), d)
        d = tnp.divide(1.0, d)
        delta = tnp.multiply(c, d)
        h = tnp.multiply(hh, delta)
        unconverged = _any(tnp.greater_equal(tnp.abs(tnp.subtract(delta, 1.0)), threshold))
        return (tnp.add(it, np.uint32(1)), unconverged, c, d, h)

    init = (tnp.asarray(np.uint32(1)), tnp.asarray(np.bool_(True)), h0, tnp.zeros_like(h0), h0)
    return lax.while_loop(cond, body, init)[4]


def betainc_value(a: Array, b: Array, x: Array) -> Array:
    """JAX's ``regularized_incomplete_beta_impl``."""
    dtype = aval_of(a).dtype
    eps = _eps(dtype)
    a_is_zero = tnp.logical_or(tnp.equal(a, 0.0), tnp.equal(b, np.inf))
    b_is_zero = tnp.logical_or(tnp.equal(b, 0.0), tnp.equal(a, np.inf))
    x_zero, x_one = tnp.equal(x, 0.0), tnp.equal(x, 1.0)
    is_nan = tnp.logical_or(tnp.logical_or(tnp.isnan(a), tnp.isnan(b)), tnp.isnan(x))
    result_is_zero = tnp.logical_or(tnp.logical_and(b_is_zero, tnp.logical_not(x_one)), tnp.logical_and(a_is_zero, x_zero))
    result_is_one = tnp.logical_or(tnp.logical_and(a_is_zero, tnp.logical_not(x_zero)), tnp.logical_and(b_is_zero, x_one))
    result_is_nan = tnp.logical_or(tnp.logical_or(tnp.less(a, 0.0), tnp.less(b, 0.0)), tnp.logical_or(tnp.less(x, 0.0), tnp.greater(x, 1.0)))
    result_is_nan = tnp.logical_or(result_is_nan, tnp.logical_or(tnp.logical_and(a_is_zero, b_is_zero), is_nan))
    converges_rapidly = tnp.less(x, tnp.divide(tnp.add(a, 1.0), tnp.add(tnp.add(a, b), 2.0)))
    a, b = tnp.where(converges_rapidly, a, b), tnp.where(converges_rapidly, b, a)
    x = tnp.where(converges_rapidly, x, tnp.subtract(1.0, x))
    shape = aval_of(a).shape

    def numerator(it: Array) -> Array:
        itb = tnp.broadcast_to(it, shape)
        even = tnp.equal(tnp.remainder(itb, np.uint32(2)), np.uint32(0))
        is_one = tnp.equal(itb, np.uint32(1))
        m_int = tnp.floor_divide(tnp.subtract(itb, np.uint32(1)), np.uint32(2))
        m_zero = tnp.equal(m_int, np.uint32(0))
        m = tnp.astype(m_int, dtype)
        ab = tnp.add(a, b)
        a2m = tnp.add(a, tnp.multiply(2.0, m))
        zero_num = tnp.divide(tnp.multiply(tnp.negative(ab), x), tnp.add(a, 1.0))
        even_num = tnp.where(m_zero, zero_num, tnp.divide(
            tnp.multiply(tnp.multiply(tnp.negative(tnp.add(a, m)), tnp.add(ab, m)), x),
            tnp.multiply(a2m, tnp.add(a2m, 1.0))))
        odd_num = tnp.divide(tnp.multiply(tnp.multiply(m, tnp.subtract(b, m)), x), tnp.multiply(tnp.subtract(a2m, 1.0), a2m))
        return tnp.where(is_one, tnp.ones_like(x), tnp.where(even, even_num, odd_num))

    def denominator(it: Array) -> Array:
        itb = tnp.broadcast_to(it, shape)
        return tnp.where(tnp.equal(itb, np.uint32(0)), tnp.zeros_like(x), tnp.ones_like(x))

    small = float(np.asarray(eps / 2, dtype))
    cf = _lentz(200 if dtype == np.float32 else 600, small, small, numerator, denominator, x)
    very_small = float(np.asarray(float(tnp.finfo(dtype).tiny) * 2, dtype))
    lbeta_small_a = tnp.subtract(lax.lgamma(b), lax.lgamma(tnp.add(a, b)))
    lbeta = tnp.add(lax.lgamma(a), lbeta_small_a)
    log1mx = tnp.log1p(tnp.negative(x))
    factor = tnp.where(
        tnp.less(a, very_small),
        tnp.exp(tnp.subtract(tnp.multiply(log1mx, b), lbeta_small_a)),
        tnp.divide(tnp.exp(tnp.subtract(tnp.add(tnp.multiply(tnp.log(x), a), tnp.multiply(log1mx, b)), lbeta)), a))
    result = tnp.multiply(cf, factor)
    result = tnp.where(converges_rapidly, result, tnp.subtract(1.0, result))
    result = tnp.where(result_is_zero, tnp.zeros_like(a), result)
    result = tnp.where(result_is_one, tnp.ones_like(a), result)
    return tnp.where(result_is_nan, tnp.full_like(a, np.nan), result)


def betainc_grad_x(a: Array, b: Array, x: Array) -> Array:
    """d betainc(a, b, x) / dx: ``x**(a-1) (1-x)**(b-1) / B(a, b)``."""
    lbeta = tnp.subtract(tnp.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(tnp.add(a, b)))
    return tnp.exp(tnp.subtract(tnp.add(tnp.multiply(tnp.subtract(b, 1.0), tnp.log1p(tnp.negative(x))),
                                        tnp.multiply(tnp.subtract(a, 1.0), tnp.log(x))), lbeta))
