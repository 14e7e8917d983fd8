"""``jax.lax``'s special functions that XLA computes as compositions:
``igamma``, ``igammac``, ``igamma_grad_a``, ``betainc``, ``zeta``,
``polygamma``, ``bessel_i0e`` and ``bessel_i1e`` (``typedax.scipy.special``
builds its ``gammainc``, ``betainc``, ``zeta``, ``i0e``, ... on them).

Ported from JAX's ``jax/_src/lax/special.py`` (itself XLA's ``math.cc``),
written with the base ``lax`` functions and ``while_loop``: the regularized
incomplete gamma functions (series and continued fraction, with their
derivative in ``a``), the regularized incomplete beta function
(Lentz-Thompson-Barnett continued fraction), XLA's Hurwitz zeta and
polygamma, and Cephes' Chebyshev series for the scaled Bessel functions.

Operands follow lax's rules: one float dtype (a Python scalar takes its
partner's, weakly), one shape (a rank-0 operand broadcasts).

Derivatives. JAX makes the iterative ones primitives with their own JVP
rules; a ``while_loop`` cannot be reverse-differentiated, so
``first_order`` evaluates the loop on ``stop_gradient`` inputs and adds
``D_i * (x_i - stop_gradient(x_i))`` (zero in value) for each partial
derivative ``D_i`` JAX's rule gives: first derivatives (``jvp``, ``grad``)
are JAX's, higher ones are zero (JAX's are not). ``zeta``, ``polygamma`` and
the Bessel functions differentiate their formulas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..control_flow import while_loop
from ..core.array import Array, ArrayLike
from ..core.dtypes import HALF, DType, default_float, finfo, is_float
from ..core.errors import PrimitiveTypeError
from ..core.trace import Tracer, Value, aval_of
from ..primitives.reductions import reduce_or
from . import lax
from .extra import full, full_like
from .lax import _PYTHON_SCALARS, _convert_weak

_add, _sub, _mul, _div = lax.add, lax.sub, lax.mul, lax.div
_lt, _le, _gt, _ge, _eq, _ne = lax.lt, lax.le, lax.gt, lax.ge, lax.eq, lax.ne
_exp, _log, _neg = lax.exp, lax.log, lax.neg
_f32 = np.dtype(np.float32)


def _where(pred: Array, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    shape = aval_of(pred).shape
    t = on_true if aval_of(on_true).shape == shape or type(on_true) in _PYTHON_SCALARS else lax.broadcast_in_dim(on_true, shape, ())
    f = on_false if aval_of(on_false).shape == shape or type(on_false) in _PYTHON_SCALARS else lax.broadcast_in_dim(on_false, shape, ())
    if type(t) in _PYTHON_SCALARS:
        t = full_like(f, t)
    if type(f) in _PYTHON_SCALARS:
        f = full_like(t, f)
    return lax.select(pred, t, f)


def _and(x: Array, y: Array) -> Array:
    return lax.bitwise_and(x, y)


def _or(x: Array, y: Array) -> Array:
    return lax.bitwise_or(x, y)


def _not(x: Array) -> Array:
    return lax.bitwise_not(x)


def _isnan(x: Array) -> Array:
    return _ne(x, x)


def _any(p: Array) -> Array:
    return reduce_or(p, tuple(range(len(aval_of(p).shape))))


def _zeros(x: Array) -> Array:
    return full_like(x, 0.0)


def _ones(x: Array) -> Array:
    return full_like(x, 1.0)


def _eps(dtype: DType) -> float:
    return float(finfo(dtype).eps)


def _log_max(dtype: DType) -> float:
    return float(np.log(float(finfo(dtype).max)))


def _scalar(x: bool | int | float, dtype: DType, weak: bool) -> Array:
    v: Array = np.asarray(x, dtype)  # type: ignore[assignment]  # a NumPy array is an Array operand
    return _convert_weak(v, dtype) if weak else v


def _float_operands(name: str, *xs: ArrayLike) -> tuple[Array, ...]:
    """lax's operand rules for the special functions: a Python scalar takes
    the dtype of the arrays (weakly if they are weak; all Python scalars: the
    default float, weakly); one float dtype; one shape (rank 0 broadcasts)."""
    like = next((x for x in xs if type(x) not in _PYTHON_SCALARS), None)
    la = None if like is None else aval_of(like)
    vs: list[Array] = []
    for x in xs:
        if type(x) in _PYTHON_SCALARS:
            if la is None:
                vs.append(_scalar(x, default_float(), True))  # type: ignore[arg-type]  # a Python scalar, checked above
            elif type(x) is float and la.dtype.kind in "iub":
                raise PrimitiveTypeError(f"{name} does not accept dtype {la.dtype.name}. Accepted dtypes are subtypes of floating.")
            else:
                vs.append(_scalar(x, la.dtype, la.weak_type))  # type: ignore[arg-type]  # a Python scalar, checked above
        else:
            vs.append(x)  # type: ignore[arg-type]  # not a Python scalar: an array value
    avals = [aval_of(v) for v in vs]
    dtypes = {a.dtype for a in avals}
    if len(dtypes) != 1:
        raise PrimitiveTypeError(
            f"{name} requires arguments to have the same dtypes, got {', '.join(a.dtype.name for a in avals)}.")
    (dtype,) = dtypes
    if not is_float(dtype):
        raise PrimitiveTypeError(
            f"{name} does not accept dtype {dtype.name}. Accepted dtypes are subtypes of floating.")
    shapes = {a.shape for a in avals if a.shape}
    if len(shapes) > 1:
        raise PrimitiveTypeError(
            f"{name} got incompatible shapes for broadcasting: {', '.join(str(a.shape) for a in avals)}.")
    shape = next(iter(shapes), ())
    return tuple(v if aval_of(v).shape == shape else lax.broadcast_in_dim(v, shape, ()) for v in vs)


VALUE, DERIVATIVE = "value", "derivative"


def _nan_to_num(d: Array) -> Array:
    """NumPy's ``nan_to_num``: NaN to 0, infinities to the largest finite values."""
    big = float(finfo(aval_of(d).dtype).max)
    d = _where(_isnan(d), 0.0, d)
    return _where(_eq(d, np.inf), big, _where(_eq(d, -np.inf), -big, d))


def first_order(value: Array, args: Sequence[Array], partials: Sequence[Array | None]) -> Array:
    """``value`` (computed from stopped ``args``) with first derivatives
    ``partials`` (``None``: zero); weakly typed if ``value`` is."""
    out = lax.stop_gradient(value)
    for x, d in zip(args, partials):
        if d is not None:
            # the added term must be 0 in value: an infinite input contributes
            # no derivative, an infinite partial the largest finite one and a
            # NaN partial (a domain error of JAX's rule) none
            t = _where(lax.is_finite(x), _sub(x, lax.stop_gradient(x)), _zeros(x))
            out = _add(out, _mul(lax.stop_gradient(_nan_to_num(d)), t))
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
        out = lax.convert_element_type(fn(*(lax.convert_element_type(a, _f32) for a in args)), dtype)
    else:
        out = fn(*args)
    if all(aval_of(a).weak_type for a in args) and not aval_of(out).weak_type:
        return _convert_weak(out, aval_of(out).dtype)
    return out


def _igamma_series(ax: Array, x: Array, a: Array, enabled: Array, mode: str) -> Array:
    eps = _eps(aval_of(a).dtype)

    def cond(vals: tuple[Array, ...]) -> Array:
        return _any(vals[0])

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        en, r, c, ans, xx, dc_da, dans_da = vals
        r = _add(r, 1.0)
        dc_da = _sub(_mul(dc_da, _div(xx, r)), _div(_mul(c, xx), _mul(r, r)))
        dans_da = _add(dans_da, dc_da)
        c = _mul(c, _div(xx, r))
        ans = _add(ans, c)
        if mode == VALUE:
            conditional = _and(en, _gt(_div(c, ans), eps))
        else:
            conditional = _and(en, _gt(lax.abs(_div(dc_da, dans_da)), eps))
        new = (r, c, ans, xx, dc_da, dans_da)
        return (conditional, *(_where(en, n, o) for n, o in zip(new, vals[1:])))

    one, zero = _ones(a), _zeros(a)
    vals = while_loop(cond, body, (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    if mode == VALUE:
        return _div(_mul(ans, ax), a)
    dlogax_da = _sub(_log(x), lax.digamma(_add(a, 1.0)))
    return _div(_mul(ax, _add(_mul(ans, dlogax_da), dans_da)), a)


def _igammac_continued_fraction(ax: Array, x: Array, a: Array, enabled: Array, mode: str) -> Array:
    eps = _eps(aval_of(a).dtype)

    def cond(vals: tuple[Array, ...]) -> Array:
        return _and(_lt(vals[5], 2000.0), _any(vals[0]))

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        (en, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = _add(c, 1.0)
        y = _add(y, 1.0)
        z = _add(z, 2.0)
        yc = _mul(y, c)
        pk = _sub(_mul(pkm1, z), _mul(pkm2, yc))
        qk = _sub(_mul(qkm1, z), _mul(qkm2, yc))
        qk_nonzero = _ne(qk, 0.0)
        r = _div(pk, qk)
        t = _where(qk_nonzero, lax.abs(_div(_sub(ans, r), r)), _ones(r))
        ans = _where(qk_nonzero, r, ans)
        dpk_da = _add(_sub(_sub(_mul(dpkm1_da, z), pkm1), _mul(dpkm2_da, yc)), _mul(pkm2, c))
        dqk_da = _add(_sub(_sub(_mul(dqkm1_da, z), qkm1), _mul(dqkm2_da, yc)), _mul(qkm2, c))
        dans_da_new = _where(qk_nonzero, _div(_sub(dpk_da, _mul(ans, dqk_da)), qk), dans_da)
        grad_conditional = _where(qk_nonzero, lax.abs(_sub(dans_da_new, dans_da)), _ones(dans_da))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = _gt(lax.abs(pk), 1.0 / eps)

        def resc(v: Array) -> Array:
            return _where(rescale, _mul(v, eps), v)

        pkm2, pkm1, qkm2, qkm1 = resc(pkm2), resc(pkm1), resc(qkm2), resc(qkm1)
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = resc(dpkm2_da), resc(dqkm2_da), resc(dpkm1_da), resc(dqkm1_da)
        if mode == VALUE:
            conditional = _and(en, _gt(t, eps))
        else:
            conditional = _and(en, _gt(grad_conditional, eps))
        sel = [_where(en, n, o) for n, o in zip(
            (ans, t, y, z), vals[1:5])]
        rest = [_where(en, n, o) for n, o in zip(
            (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new), vals[6:])]
        return (conditional, *sel, c, *rest)

    y = _sub(1.0, a)
    z = _add(_add(x, y), 1.0)
    c = full((), 0, aval_of(x).dtype)  # a scalar, as JAX's: the iteration count
    pkm2 = _ones(x)
    qkm2 = x
    pkm1 = _add(x, 1.0)
    qkm1 = _mul(z, x)
    ans = _div(pkm1, qkm1)
    t = _ones(x)
    zero = _zeros(x)
    dqkm1_da = _neg(x)
    dans_da = _div(_sub(zero, _mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, zero, zero, zero, dqkm1_da, dans_da)
    vals = while_loop(cond, body, init)
    ans = vals[1]
    if mode == VALUE:
        return _mul(ans, ax)
    dlogax_da = _sub(_log(x), lax.digamma(a))
    return _mul(ax, _add(_mul(ans, dlogax_da), vals[14]))


def _log_ax(a: Array, x: Array) -> Array:
    return _sub(_sub(_mul(a, _log(x)), x), lax.lgamma(a))


def igamma_value(a: Array, x: Array) -> Array:
    """JAX's ``igamma_impl``."""
    is_nan = _or(_isnan(a), _isnan(x))
    x_inf = _eq(x, np.inf)
    a_zero, x_zero = _eq(a, 0.0), _eq(x, 0.0)
    domain_error = _or(_or(_lt(x, 0.0), _lt(a, 0.0)),
                                  _or(_and(a_zero, x_zero), is_nan))
    use_igammac = _and(_ge(x, 1.0), _gt(x, a))
    log_ax = _log_ax(a, x)
    underflow = _lt(log_ax, -_log_max(aval_of(a).dtype))
    ax = _exp(log_ax)
    enabled = _not(_or(_or(x_zero, domain_error), _or(underflow, x_inf)))
    out = _where(
        use_igammac,
        _sub(1.0, _igammac_continued_fraction(ax, x, a, _and(enabled, use_igammac), VALUE)),
        _igamma_series(ax, x, a, _and(enabled, _not(use_igammac)), VALUE))
    out = _where(x_zero, _zeros(a), out)
    out = _where(x_inf, _ones(a), out)
    return _where(domain_error, full_like(a, np.nan), out)


def igammac_value(a: Array, x: Array) -> Array:
    """JAX's ``igammac_impl``."""
    is_nan = _or(_isnan(a), _isnan(x))
    a_zero, x_zero = _eq(a, 0.0), _eq(x, 0.0)
    x_inf = _eq(x, np.inf)
    domain_error = _or(_or(_lt(x, 0.0), _lt(a, 0.0)),
                                  _or(_and(a_zero, x_zero), is_nan))
    use_igamma = _or(_lt(x, 1.0), _lt(x, a))
    log_ax = _log_ax(a, x)
    underflow = _lt(log_ax, -_log_max(aval_of(a).dtype))
    enabled = _not(_or(_or(domain_error, underflow), _or(x_inf, a_zero)))
    ax = _exp(log_ax)
    series = _igamma_series(ax, x, a, _and(enabled, use_igamma), VALUE)
    cf = _igammac_continued_fraction(ax, x, a, _and(enabled, _not(use_igamma)), VALUE)
    out = _where(use_igamma, _sub(1.0, series), cf)
    out = _where(_or(x_inf, a_zero), _zeros(out), out)
    return _where(domain_error, full_like(a, np.nan), out)


def igamma_grad_a_value(a: Array, x: Array) -> Array:
    """JAX's ``igamma_grad_a_impl``: d igamma(a, x) / da."""
    is_nan = _or(_isnan(a), _isnan(x))
    x_zero = _eq(x, 0.0)
    domain_error = _or(_lt(x, 0.0), _le(a, 0.0))
    use_igammac = _and(_gt(x, 1.0), _gt(x, a))
    log_ax = _log_ax(a, x)
    underflow = _lt(log_ax, -_log_max(aval_of(a).dtype))
    ax = _exp(log_ax)
    enabled = _not(_or(_or(x_zero, domain_error), _or(underflow, is_nan)))
    out = _where(
        use_igammac,
        _neg(_igammac_continued_fraction(ax, x, a, _and(enabled, use_igammac), DERIVATIVE)),
        _igamma_series(ax, x, a, _and(enabled, _not(use_igammac)), DERIVATIVE))
    out = _where(x_zero, _zeros(out), out)
    return _where(_or(domain_error, is_nan), full_like(a, np.nan), out)


def igamma_grad_x(a: Array, x: Array) -> Array:
    """d igamma(a, x) / dx: ``exp(-x + (a - 1) log x - lgamma(a))``."""
    return _exp(_sub(_add(_neg(x), _mul(_sub(a, 1.0), _log(x))), lax.lgamma(a)))


def _lentz(num_iterations: int, small: float, threshold: float,
           numerator: Callable[[Array], Array], denominator: Callable[[Array], Array], like: Array) -> Array:
    """The Lentz-Thompson-Barnett evaluation of a continued fraction (all
    elements iterate until every one has converged, as XLA's)."""
    h0 = denominator(np.asarray(0, np.uint32))  # type: ignore[arg-type]  # a NumPy scalar counts as an Array here
    h0 = _where(_lt(lax.abs(h0), small), full_like(like, small), h0)

    def cond(vals: tuple[Array, ...]) -> Array:
        return _and(_lt(vals[0], np.uint32(num_iterations)), vals[1])

    def body(vals: tuple[Array, ...]) -> tuple[Array, ...]:
        it, _, cc, dd, hh = vals
        pn, pd = numerator(it), denominator(it)
        c = _add(pd, _div(pn, cc))
        c = _where(_lt(lax.abs(c), small), full_like(c, small), c)
        d = _add(pd, _mul(pn, dd))
        d = _where(_lt(lax.abs(d), small), full_like(d, small), d)
        d = _div(1.0, d)
        delta = _mul(c, d)
        h = _mul(hh, delta)
        unconverged = _any(_ge(lax.abs(_sub(delta, 1.0)), threshold))
        return (_add(it, np.uint32(1)), unconverged, c, d, h)

    init = (full((), 1, np.uint32), full((), True, np.bool_), h0, _zeros(h0), h0)
    return while_loop(cond, body, init)[4]


def betainc_value(a: Array, b: Array, x: Array) -> Array:
    """JAX's ``regularized_incomplete_beta_impl``."""
    dtype = aval_of(a).dtype
    eps = _eps(dtype)
    a_is_zero = _or(_eq(a, 0.0), _eq(b, np.inf))
    b_is_zero = _or(_eq(b, 0.0), _eq(a, np.inf))
    x_zero, x_one = _eq(x, 0.0), _eq(x, 1.0)
    is_nan = _or(_or(_isnan(a), _isnan(b)), _isnan(x))
    result_is_zero = _or(_and(b_is_zero, _not(x_one)), _and(a_is_zero, x_zero))
    result_is_one = _or(_and(a_is_zero, _not(x_zero)), _and(b_is_zero, x_one))
    result_is_nan = _or(_or(_lt(a, 0.0), _lt(b, 0.0)), _or(_lt(x, 0.0), _gt(x, 1.0)))
    result_is_nan = _or(result_is_nan, _or(_and(a_is_zero, b_is_zero), is_nan))
    converges_rapidly = _lt(x, _div(_add(a, 1.0), _add(_add(a, b), 2.0)))
    a, b = _where(converges_rapidly, a, b), _where(converges_rapidly, b, a)
    x = _where(converges_rapidly, x, _sub(1.0, x))
    shape = aval_of(a).shape

    def numerator(it: Array) -> Array:
        itb = lax.broadcast_in_dim(it, shape, ())
        even = _eq(lax.rem(itb, np.uint32(2)), np.uint32(0))
        is_one = _eq(itb, np.uint32(1))
        m_int = _div(_sub(itb, np.uint32(1)), np.uint32(2))
        m_zero = _eq(m_int, np.uint32(0))
        m = lax.convert_element_type(m_int, dtype)
        ab = _add(a, b)
        a2m = _add(a, _mul(2.0, m))
        zero_num = _div(_mul(_neg(ab), x), _add(a, 1.0))
        even_num = _where(m_zero, zero_num, _div(
            _mul(_mul(_neg(_add(a, m)), _add(ab, m)), x),
            _mul(a2m, _add(a2m, 1.0))))
        odd_num = _div(_mul(_mul(m, _sub(b, m)), x), _mul(_sub(a2m, 1.0), a2m))
        return _where(is_one, _ones(x), _where(even, even_num, odd_num))

    def denominator(it: Array) -> Array:
        itb = lax.broadcast_in_dim(it, shape, ())
        return _where(_eq(itb, np.uint32(0)), _zeros(x), _ones(x))

    small = float(np.asarray(eps / 2, dtype))
    cf = _lentz(200 if dtype == np.float32 else 600, small, small, numerator, denominator, x)
    very_small = float(np.asarray(float(finfo(dtype).tiny) * 2, dtype))
    lbeta_small_a = _sub(lax.lgamma(b), lax.lgamma(_add(a, b)))
    lbeta = _add(lax.lgamma(a), lbeta_small_a)
    log1mx = lax.log1p(_neg(x))
    factor = _where(
        _lt(a, very_small),
        _exp(_sub(_mul(log1mx, b), lbeta_small_a)),
        _div(_exp(_sub(_add(_mul(_log(x), a), _mul(log1mx, b)), lbeta)), a))
    result = _mul(cf, factor)
    result = _where(converges_rapidly, result, _sub(1.0, result))
    result = _where(result_is_zero, _zeros(a), result)
    result = _where(result_is_one, _ones(a), result)
    return _where(result_is_nan, full_like(a, np.nan), result)


def betainc_grad_x(a: Array, b: Array, x: Array) -> Array:
    """d betainc(a, b, x) / dx: ``x**(a-1) (1-x)**(b-1) / B(a, b)``."""
    lbeta = _sub(_add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(_add(a, b)))
    return _exp(_sub(_add(_mul(_sub(b, 1.0), lax.log1p(_neg(x))),
                                        _mul(_sub(a, 1.0), _log(x))), lbeta))


# Cephes' Chebyshev coefficients for i0e and i1e (XLA's math.cc, JAX's lax/special.py)
_I0E_A64 = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0E_B64 = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9, 2.26666899049817806459E-8,
    2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1)
_I0E_A32 = _I0E_A64[12:]
_I0E_B32 = _I0E_B64[18:]
_I1E_A64 = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1)
_I1E_B64 = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16, 3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11, 3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)
_I1E_A32 = _I1E_A64[12:]
_I1E_B32 = _I1E_B64[18:]


def _chebyshev(x: Array, coeffs: Sequence[float]) -> Array:
    b0, b1, b2 = _zeros(x), _zeros(x), _zeros(x)
    for c in coeffs:
        b2 = b1
        b1 = b0
        b0 = _add(_sub(_mul(x, b1), b2), c)
    return _mul(0.5, _sub(b0, b2))


def _bessel_e(x: Array, order: int) -> Array:
    """XLA's ``BesselI0e``/``BesselI1e``: Chebyshev series on ``[0, 8]`` and
    in ``32/|x|`` above (16-bit floats computed in float32)."""
    dtype = aval_of(x).dtype
    if dtype in HALF:
        return lax.convert_element_type(_bessel_e(lax.convert_element_type(x, _f32), order), dtype)
    wide = dtype == np.float64
    ca: tuple[float, ...]
    cb: tuple[float, ...]
    if order == 0:
        ca, cb = (_I0E_A64, _I0E_B64) if wide else (_I0E_A32, _I0E_B32)
    else:
        ca, cb = (_I1E_A64, _I1E_B64) if wide else (_I1E_A32, _I1E_B32)
    z = lax.abs(x)
    le = _le(z, 8.0)
    # each branch gets an argument where it is finite (32 / 0 and sqrt(0) would
    # put NaN into the other's derivative)
    z_small = _where(le, z, _zeros(z))
    z_big = _where(le, full_like(z, 32.0), z)
    le_8 = _chebyshev(_sub(_mul(0.5, z_small), 2.0), ca)
    gt_8 = _div(_chebyshev(_sub(_div(32.0, z_big), 2.0), cb), lax.sqrt(z_big))
    if order == 0:
        out = _where(le, le_8, gt_8)
        # even in x: JAX's derivative at 0 is 0 (i1e(0) - sign(0) i0e(0))
        return _where(_eq(x, 0.0), lax.stop_gradient(out), out)
    # x * cheb is sign(x) |x| cheb bit for bit, and its derivative at 0 is i1e's 1/2 (JAX's rule)
    x_small = _where(le, x, _zeros(x))
    return _where(le, _mul(x_small, le_8), _mul(lax.sign(x), gt_8))




_ZETA_COEFFS = (
    -7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15, 1.1646782814350067249e14,
    -2.950130727918164224e12, 7.47242496e10, -1.8924375803183791606e9, 47900160.0, -1209600.0, 30240.0, -720.0,
    12.0)


def _zeta(x: Array, q: Array) -> Array:
    """XLA's Hurwitz zeta (``chlo.zeta``): nine terms of the sum, then a
    12-term Euler-Maclaurin correction; its domain errors and poles."""
    def c(v: float) -> float:
        return v

    a = q
    neg_x = _neg(x)
    initial_sum = lax.pow(q, neg_x)
    for _ in range(9):
        a = _add(a, c(1.0))
        initial_sum = _add(initial_sum, lax.pow(a, neg_x))
    a = _add(a, c(1.0))
    neg_power = lax.pow(a, neg_x)
    s = _add(initial_sum, _div(_mul(neg_power, a), _sub(x, c(1.0))))
    a_inv_sq = _div(c(1.0), _mul(a, a))
    horner = _zeros(x)
    for i in range(11):
        factor = _mul(_add(x, c(22 - 2 * i)), _add(x, c(21 - 2 * i)))
        horner = _mul(factor, _mul(a_inv_sq, _add(horner, c(1.0 / _ZETA_COEFFS[i]))))
    s = _add(s, _mul(neg_power, _add(c(0.5), _mul(_div(x, a), _add(c(1.0 / _ZETA_COEFFS[11]), horner)))))
    smallest = float(finfo(aval_of(x).dtype).tiny)
    out = _where(_lt(lax.abs(neg_power), _mul(lax.abs(initial_sum), c(smallest))), initial_sum, s)
    nan, inf = full_like(x, np.nan), full_like(x, np.inf)
    out = _where(_lt(x, c(1.0)), nan, out)
    q_le_zero = _le(q, c(0.0))
    x_not_int = _ne(x, lax.floor(x))
    out = _where(_and(q_le_zero, x_not_int), nan, out)
    at_pole = _and(q_le_zero, _eq(q, lax.floor(q)))
    x_even_int = _and(_not(x_not_int), _eq(lax.rem(x, c(2.0)), c(0.0)))
    out = _where(at_pole, _where(x_even_int, inf, nan), out)
    return _where(_eq(x, c(1.0)), inf, out)


# the lax functions


def igamma(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)``
    (``jax.lax.igamma``; XLA's series and continued fraction). First
    derivatives in ``a`` and ``x`` are JAX's; higher ones are zero."""
    aa, xx = _float_operands("igamma", a, x)
    sa, sx = lax.stop_gradient(aa), lax.stop_gradient(xx)
    value = upcast_half(igamma_value, sa, sx)
    if not traced(aa, xx):
        return value  # concrete operands: no derivative can be asked for
    da = upcast_half(igamma_grad_a_value, sa, sx)
    return first_order(value, (aa, xx), (da, upcast_half(igamma_grad_x, sa, sx)))


def igammac(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``
    (``jax.lax.igammac``). First derivatives are JAX's; higher ones are zero."""
    aa, xx = _float_operands("igammac", a, x)
    sa, sx = lax.stop_gradient(aa), lax.stop_gradient(xx)
    value = upcast_half(igammac_value, sa, sx)
    if not traced(aa, xx):
        return value
    da = _neg(upcast_half(igamma_grad_a_value, sa, sx))
    return first_order(value, (aa, xx), (da, _neg(upcast_half(igamma_grad_x, sa, sx))))


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Array:
    """``d igamma(a, x) / da`` (``jax.lax.igamma_grad_a``); not differentiable here."""
    aa, xx = _float_operands("igamma_grad_a", a, x)
    return upcast_half(igamma_grad_a_value, lax.stop_gradient(aa), lax.stop_gradient(xx))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)`` (``jax.lax.betainc``;
    XLA's continued fraction). Its first derivative in ``x`` is JAX's; JAX
    refuses derivatives in ``a`` and ``b``, which are zero here (as are higher
    ones in ``x``)."""
    aa, bb, xx = _float_operands("regularized_incomplete_beta", a, b, x)
    sa, sb, sx = lax.stop_gradient(aa), lax.stop_gradient(bb), lax.stop_gradient(xx)
    value = upcast_half(betainc_value, sa, sb, sx)
    if not traced(xx):
        return value
    return first_order(value, (xx,), (upcast_half(betainc_grad_x, sa, sb, sx),))


def bessel_i0e(x: ArrayLike) -> Array:
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function
    of order 0 (``jax.lax.bessel_i0e``)."""
    (a,) = _float_operands("bessel_i0e", x)
    return _bessel_e(a, 0)


def bessel_i1e(x: ArrayLike) -> Array:
    """``exp(-|x|) I1(x)``, the exponentially scaled modified Bessel function
    of order 1 (``jax.lax.bessel_i1e``)."""
    (a,) = _float_operands("bessel_i1e", x)
    return _bessel_e(a, 1)


def zeta(x: ArrayLike, q: ArrayLike) -> Array:
    """The Hurwitz zeta function ``sum_n (n + q)**-x`` (``jax.lax.zeta``;
    XLA's algorithm; its derivatives are those of that formula)."""
    xx, qq = _float_operands("zeta", x, q)
    dtype = aval_of(xx).dtype
    if dtype in HALF:
        return lax.convert_element_type(_zeta(lax.convert_element_type(xx, _f32), lax.convert_element_type(qq, _f32)), dtype)
    return _zeta(xx, qq)


def polygamma(m: ArrayLike, x: ArrayLike) -> Array:
    """The ``m``-th derivative of ``digamma`` (``jax.lax.polygamma``; ``m``
    of ``x``'s float dtype): ``(-1)**(m+1) m! zeta(m + 1, x)``, ``digamma``
    for ``m == 0``, NaN for negative or non-integral ``m`` (XLA's
    ``chlo.polygamma``)."""
    mm, xx = _float_operands("polygamma", m, x)
    dtype = aval_of(xx).dtype
    if dtype in HALF:
        return lax.convert_element_type(polygamma(lax.convert_element_type(mm, _f32), lax.convert_element_type(xx, _f32)), dtype)
    sign = _sub(_mul(2.0, lax.rem(mm, 2.0)), 1.0)
    n_plus_1 = _add(mm, 1.0)
    result = _mul(_mul(sign, lax.exp(lax.lgamma(n_plus_1))), _zeta(n_plus_1, xx))
    result = _where(_eq(mm, 0.0), lax.digamma(xx), result)
    non_natural = _or(_ne(mm, lax.floor(mm)), _lt(mm, 0.0))
    return _where(non_natural, np.nan, result)
