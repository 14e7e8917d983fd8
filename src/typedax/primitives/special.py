"""Elementwise math beyond ``elementwise``: ``log1p``, ``expm1``, ``exp2``,
the trigonometric and hyperbolic functions and their inverses, ``atan2``,
``erf``, ``erfc``, ``erf_inv``, ``lgamma``, ``digamma``,
``round``, ``sign``, ``is_finite`` and ``nextafter`` (JAX's primitive names),
and ``sinc_maclaurin`` (the value of ``sinc`` at 0, with every derivative),
with every rule.

Lowering is JAX's: StableHLO ops where they exist (``log_plus_one``,
``exponential_minus_one``, ``tan``, ``atan2``, ``sign``, ``round_*``,
``is_finite``), CHLO
ops for the rest, which XLA expands. ``impl`` computes in NumPy (and
``scipy.special``, a dependency of jaxlib) and matches XLA at the edges where
the C library and XLA's expansions disagree (see each function).

JVPs are JAX's (``jax/_src/lax/lax.py`` and ``special.py``). ``round``,
``sign`` and ``is_finite`` have zero tangents; ``nextafter`` has none in JAX;
here its tangent is ``x``'s (the derivative of x moved by one ulp). JAX's
``digamma`` JVP is ``polygamma(1, x)``; typedax has no ``polygamma``
primitive, so the trigamma function is traced from primitives (recurrence,
asymptotic series, reflection: see ``_trigamma``).

XLA computes ``lgamma`` and ``digamma`` with its own approximations (Lanczos,
and a series), not correctly rounded: eager (scipy, correctly rounded to
float64) and ``jit`` agree to about 1e-6 absolute in float32 and 1e-13 in
float64, not bit for bit; their poles and infinities do match XLA's
(``lgamma(-inf)`` is inf, ``digamma`` is NaN at the non-positive integers).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence

import numpy as np
import scipy.special as sc  # type: ignore[import-untyped]  # scipy ships no type stubs
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _chlo
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, FLOATING, INEXACT, bool_
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import Family, Rules, Tangent, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext
from ._params import get_int
from .elementwise import (
    NUMERIC,
    _binary,
    _binary_batch,
    _fit,
    _unary,
    _unary_rules,
    add,
    add_tangents,
    div,
    elementwise_batch,
    eq_p,
    exp_p,
    floor_p,
    le_p,
    less_p,
    lower_binary,
    select,
    sin_p,
    mul,
    neg,
    sqrt_p,
    sub,
)
from .structural import check_arity, full_like, zero_jvp, zero_like, zero_of

class RoundingMethod(enum.IntEnum):
    """``round``'s ``rounding_method`` (``jax.lax.RoundingMethod``)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


AWAY_FROM_ZERO = 0
TO_NEAREST_EVEN = 1


def _chlo_op(op: Callable[[HloValue], HloValue]) -> Callable[[HloValue], HloValue]:
    def lower(x: HloValue) -> HloValue:
        _chlo.register_dialect(ir.Context.current)  # chlo is not among the context's dialects
        return op(x)

    return lower


def _chlo_op2(op: Callable[[HloValue, HloValue], HloValue]) -> Callable[[HloValue, HloValue], HloValue]:
    def lower(x: HloValue, y: HloValue) -> HloValue:
        _chlo.register_dialect(ir.Context.current)
        return op(x, y)

    return lower


# -- the ops the JVPs build with ------------------------------------------------
def _u(prim: Primitive) -> Callable[[Value], Value]:
    return lambda x: bind1(prim, (x,), NO_PARAMS)


def _square(x: Value) -> Value:
    return mul(x, x)


def _rsqrt(x: Value) -> Value:
    return div(full_like(1.0, x), bind1(sqrt_p, (x,), NO_PARAMS))


def _one(x: Value) -> Value:
    return full_like(1.0, x)


# -- NumPy implementations with XLA's semantics ----------------------------------
def _quiet(fn: Callable[[NDArray], object]) -> Callable[[NDArray], object]:
    def run(x: NDArray) -> object:
        with np.errstate(all="ignore"):
            return fn(x)

    return run


def _exp2(x: NDArray) -> object:
    # XLA (from JAX) computes exp(log(2) * x), not a correctly rounded 2**x
    return np.exp(np.multiply(np.asarray(math.log(2.0), x.dtype), x))


def _round_afz(x: NDArray) -> NDArray:
    """Half away from zero, exactly (x - trunc(x) is exact); keeps -0.0."""
    r = np.trunc(x)
    with np.errstate(invalid="ignore"):
        up = np.abs(np.subtract(x, r)) >= 0.5  # False for inf (nan) and nan
    return np.where(up, r + np.copysign(np.ones((), x.dtype), x), r)


def _sign(x: NDArray) -> object:
    if x.dtype.kind == "c":  # x / |x|, 0 at 0 (NumPy 2's and XLA's)
        with np.errstate(invalid="ignore"):
            return np.sign(x)
    if x.dtype.kind == "f":
        # sign keeps -0.0 and NaN, as XLA
        return np.where(np.isnan(x) | (x == 0), x, np.copysign(np.ones((), x.dtype), x))
    return np.sign(x)


def _erf_inv(x: NDArray) -> object:
    return np.where(x == 0, x, sc.erfinv(x))  # erf_inv(-0.0) is -0.0 (scipy's float32 loop loses the sign)


def _lgamma(x: NDArray) -> object:
    return np.where(np.isinf(x), np.asarray(np.inf, x.dtype), sc.gammaln(x))  # lgamma(-inf) is inf in XLA


def _pole(x: NDArray) -> NDArray:
    """The non-positive integers (and -inf), where XLA's digamma is NaN."""
    return np.asarray(np.less_equal(x, 0) & np.equal(np.floor(x), x), dtype=np.bool_)


def _digamma(x: NDArray) -> object:
    return np.where(_pole(x), np.asarray(np.nan, x.dtype), sc.psi(x))


def _nextafter(x: NDArray, y: NDArray) -> object:
    # C's rule, x == y gives y (-0.0 towards 0.0 is 0.0): NumPy's float16 loop gives x
    return np.where(x == y, y, np.nextafter(x, y))


def _atan2(x: NDArray, y: NDArray) -> object:
    return np.arctan2(x, y)


# -- JVPs -------------------------------------------------------------------------
_SQRT_PI = math.sqrt(math.pi)


def _erf_tangent(sign: float) -> Callable[[Value, Value, Value], Value]:
    def tangent(t: Value, x: Value, y: Value) -> Value:
        return mul(full_like(sign * 2.0 / _SQRT_PI, x), mul(t, _u(exp_p)(neg(_square(x)))))

    return tangent


def _trigamma(x: Value) -> Value:
    """psi'(x), traced from primitives (typedax has no ``polygamma``): the
    recurrence psi'(x) = psi'(x + 1) + 1/x**2 up to x + 10, then the asymptotic
    series (relative error about 1e-15); for x < 0.5 the reflection
    psi'(x) = pi**2 / sin(pi x)**2 - psi'(1 - x)."""
    small = bind1(less_p, (x, full_like(0.5, x)), NO_PARAMS)
    xr = select(small, sub(_one(x), x), x)
    acc = div(_one(x), _square(xr))
    for k in range(1, 10):
        acc = add(acc, div(_one(x), _square(add(xr, full_like(float(k), x)))))
    z = add(xr, full_like(10.0, x))
    w = div(_one(z), _square(z))
    # 1/z + 1/(2 z^2) + (1/z^3) sum_k B_2k w^(k-1) (w = 1/z^2; Bernoulli numbers B_2..B_14)
    coefficients = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0)
    tail = full_like(coefficients[-1], x)
    for c in reversed(coefficients[:-1]):
        tail = add(full_like(c, x), mul(w, tail))
    series = add(div(_one(z), z), add(mul(full_like(0.5, x), w), mul(div(w, z), tail)))
    t = add(acc, series)
    s = bind1(sin_p, (mul(full_like(math.pi, x), x),), NO_PARAMS)
    reflected = sub(div(full_like(math.pi**2, x), _square(s)), t)
    out = select(small, reflected, t)
    # JAX's polygamma(1, .) at the edges: inf at the poles (0, -1, ..., and
    # -inf), where the reflection's sin(pi x) is rounding error, not 0; NaN at +inf
    at_int = bind1(eq_p, (x, bind1(floor_p, (x,), NO_PARAMS)), NO_PARAMS)
    nonpositive = bind1(le_p, (x, full_like(0.0, x)), NO_PARAMS)
    pole = select(nonpositive, at_int, nonpositive)  # nonpositive and at_int
    # (a constant: its derivative there is 0 where JAX's polygamma(2, .) is NaN;
    # a NaN-derivative branch would leak NaN through select's transpose everywhere)
    out = select(pole, full_like(math.inf, x), out)
    return select(bind1(eq_p, (x, full_like(math.inf, x)), NO_PARAMS), full_like(math.nan, x), out)


def _digamma_tangent(t: Value, x: Value, y: Value) -> Value:
    """JAX: t * polygamma(1, x); here with polygamma(1, .) traced by ``_trigamma``."""
    return mul(t, _trigamma(x))


F = FLOATING
C = INEXACT  # JAX's _float | _complex
log1p_p = _unary("log1p", _quiet(np.log1p), C,
    _unary_rules(lambda t, x, y: div(t, add(x, _one(x))), hlo.log_plus_one))
expm1_p = _unary("expm1", _quiet(np.expm1), C,
    _unary_rules(lambda t, x, y: mul(t, add(y, _one(y))), hlo.exponential_minus_one))
exp2_p = _unary("exp2", _quiet(_exp2), C, _unary_rules(
    lambda t, x, y: mul(full_like(math.log(2.0), x), mul(t, y)),
    lambda x: hlo.exponential(hlo.multiply(_full_as(math.log(2.0), x), x))))
tan_p = _unary("tan", _quiet(np.tan), C,
    _unary_rules(lambda t, x, y: mul(t, add(_one(y), _square(y))), hlo.tan))
asin_p = _unary("asin", _quiet(np.arcsin), C,
    _unary_rules(lambda t, x, y: mul(t, _rsqrt(sub(_one(x), _square(x)))), _chlo_op(chlo.asin)))
acos_p = _unary("acos", _quiet(np.arccos), C,
    _unary_rules(lambda t, x, y: mul(t, neg(_rsqrt(sub(_one(x), _square(x))))), _chlo_op(chlo.acos)))
atan_p = _unary("atan", _quiet(np.arctan), C,
    _unary_rules(lambda t, x, y: div(t, add(_one(x), _square(x))), _chlo_op(chlo.atan)))
sinh_p = _unary("sinh", _quiet(np.sinh), C,
    _unary_rules(lambda t, x, y: mul(t, bind1(cosh_p, (x,), NO_PARAMS)), _chlo_op(chlo.sinh)))
cosh_p: Primitive = _unary("cosh", _quiet(np.cosh), C,
    _unary_rules(lambda t, x, y: mul(t, bind1(sinh_p, (x,), NO_PARAMS)), _chlo_op(chlo.cosh)))
asinh_p = _unary("asinh", _quiet(np.arcsinh), C,
    _unary_rules(lambda t, x, y: mul(t, _rsqrt(add(_square(x), _one(x)))), _chlo_op(chlo.asinh)))
acosh_p = _unary("acosh", _quiet(np.arccosh), C, _unary_rules(
    lambda t, x, y: mul(t, _rsqrt(mul(sub(x, _one(x)), add(x, _one(x))))), _chlo_op(chlo.acosh)))
atanh_p = _unary("atanh", _quiet(np.arctanh), C, _unary_rules(
    lambda t, x, y: mul(div(_one(x), add(_one(x), x)), div(t, sub(_one(x), x))), _chlo_op(chlo.atanh)))
erf_p = _unary("erf", _quiet(sc.erf), F, _unary_rules(_erf_tangent(1.0), _chlo_op(chlo.erf)))
erfc_p = _unary("erfc", _quiet(sc.erfc), F, _unary_rules(_erf_tangent(-1.0), _chlo_op(chlo.erfc)))
erf_inv_p = _unary("erf_inv", _quiet(_erf_inv), F, _unary_rules(
    lambda t, x, y: mul(full_like(_SQRT_PI / 2.0, x), mul(t, _u(exp_p)(_square(y)))), _chlo_op(chlo.erf_inv)))
lgamma_p = _unary("lgamma", _quiet(_lgamma), F,
    _unary_rules(lambda t, x, y: mul(t, bind1(digamma_p, (x,), NO_PARAMS)), _chlo_op(chlo.lgamma)))
digamma_p: Primitive = _unary("digamma", _quiet(_digamma), F, _unary_rules(_digamma_tangent, _chlo_op(chlo.digamma)))


def _sign_hlo(x: HloValue) -> HloValue:
    """stablehlo.sign takes no unsigned integers: for them, ``x != 0`` (as JAX)."""
    t = ir.RankedTensorType(x.type)
    et = t.element_type
    if not (isinstance(et, ir.IntegerType) and et.is_unsigned):
        return hlo.sign(x)
    zero, one = (hlo.constant(ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(et, v))) for v in (0, 1))
    ne = hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("NE"),
                     compare_type=hlo.ComparisonTypeAttr.get("UNSIGNED"))
    return hlo.select(ne, one, zero)


sign_p = _unary("sign", _sign, NUMERIC | COMPLEX, _unary_rules(None, _sign_hlo))


def _full_as(value: float, x: HloValue) -> HloValue:
    """A constant of ``x``'s (ranked tensor) type."""
    t = ir.RankedTensorType(x.type)
    if isinstance(t.element_type, ir.ComplexType):  # (no complex scalar attribute: a dense array)
        d = np.complex64 if isinstance(ir.ComplexType(t.element_type).element_type, ir.F32Type) else np.complex128
        dense = ir.DenseElementsAttr.get(np.full((1,), value, d), type=t.element_type, shape=t.shape)  # type: ignore[call-overload]  # an ndarray is a buffer
        return hlo.constant(dense)
    attr = ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(t.element_type, value))
    return hlo.constant(attr)


# -- atan2, nextafter: binary ----------------------------------------------
def _atan2_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(atan2_p, (x, y), params)
    a: Tangent = tx
    b: Tangent = ty
    if not isinstance(tx, Zero) or not isinstance(ty, Zero):
        denom = add(_square(x), _square(y))
        if not isinstance(tx, Zero):
            a = mul(tx, div(y, denom))
        if not isinstance(ty, Zero):
            b = mul(ty, div(neg(x), denom))
    t = add_tangents(a, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else t]


def _nextafter_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """nextafter(x, y) is x moved by one ulp: as a function of reals its
    derivative is 1 in x and 0 in y (JAX defines no JVP; typedax's every-dtype
    laws need one)."""
    (x, y), (tx, ty) = primals, tangents
    out = bind1(nextafter_p, (x, y), params)
    return [out], [zero_like(out) if isinstance(tx, Zero) else _fit(tx, out)]


def _binary_rules2(
    jvp: Callable[[Sequence[Value], Sequence[Tangent], Params], tuple[list[Value], list[Tangent]]],
    op: Callable[[HloValue, HloValue], HloValue],
) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        return Rules(jvp=jvp, batch=_binary_batch(prim), lower=lower_binary(op))

    return rules


def _chlo_binary(name: str) -> Callable[[HloValue, HloValue], HloValue]:
    op: Callable[[HloValue, HloValue], HloValue] = getattr(chlo, name)  # the CHLO builder of that name
    return _chlo_op2(op)


atan2_p = _binary("atan2", _atan2, F, None, _binary_rules2(_atan2_jvp, hlo.atan2))
nextafter_p = _binary("nextafter", _nextafter, F, None,
    _binary_rules2(_nextafter_jvp, _chlo_binary("next_after")))


# -- round (param rounding_method), is_finite ------------------------------------------
def _round_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    (x,) = args
    method = _rounding_method(params)
    if method == AWAY_FROM_ZERO:
        return [np.asarray(_round_afz(x), dtype=x.dtype)]
    return [np.asarray(np.rint(x), dtype=x.dtype)]


def _rounding_method(params: Params) -> int:
    method = get_int("round", params, "rounding_method")
    if method not in (AWAY_FROM_ZERO, TO_NEAREST_EVEN):
        raise PrimitiveTypeError(
            f"round: rounding_method must be 0 (AWAY_FROM_ZERO) or 1 (TO_NEAREST_EVEN), got {method}"
        )
    return method


def _round_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("round", avals, 1)
    _rounding_method(params)
    (x,) = avals
    if x.dtype not in FLOATING:
        raise PrimitiveTypeError(f"round accepts float16/bfloat16/float32/float64 operands, got {x.str_short()}")
    return [x]


def _round_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    if _rounding_method(eqn.params) == AWAY_FROM_ZERO:
        return [hlo.round_nearest_afz(args[0])]
    return [hlo.round_nearest_even(args[0])]


round_p = Primitive(
    "round", _round_impl, _round_abstract,
    rules_for=lambda p: Rules(jvp=zero_jvp(p), batch=elementwise_batch(p), lower=_round_lower),
)


def _is_finite_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.asarray(np.isfinite(args[0]))]


def _is_finite_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("is_finite", avals, 1)
    (x,) = avals
    if x.dtype not in FLOATING:
        raise PrimitiveTypeError(f"is_finite accepts float16/bfloat16/float32/float64 operands, got {x.str_short()}")
    return [ShapedArray(x.shape, bool_)]


def _is_finite_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    out = bind1(is_finite_p, primals, params)
    return [out], [zero_of(aval_of(out).shape, bool_)]


def _is_finite_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [hlo.is_finite(args[0])]


is_finite_p = Primitive(
    "is_finite", _is_finite_impl, _is_finite_abstract,
    rules_for=lambda p: Rules(jvp=_is_finite_jvp, batch=elementwise_batch(p), lower=_is_finite_lower),
)

# -- sinc_maclaurin(x; k): the k-th derivative of sin(u)/u at 0, for sinc ----
def sinc_coefficient(k: int) -> float:
    """The ``k``-th derivative of ``sin(u) / u`` at ``u = 0``."""
    return 0.0 if k % 2 else (-1.0) ** (k // 2) / (k + 1)


def _sinc_maclaurin_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    (x,) = args
    k = get_int("sinc_maclaurin", params, "k")
    with np.errstate(invalid="ignore"):
        zero = np.multiply(x, np.zeros((), x.dtype))
        if k % 2:  # JAX's x * 0 alone (-0 for a negative x; XLA folds an added 0 away)
            return [np.asarray(zero, x.dtype)]
        return [np.asarray(np.add(zero, np.asarray(sinc_coefficient(k), x.dtype)), x.dtype)]


def _sinc_maclaurin_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("sinc_maclaurin", avals, 1)
    (x,) = avals
    if x.dtype not in FLOATING:
        raise PrimitiveTypeError(f"sinc_maclaurin accepts float operands, got {x.str_short()}")
    if get_int("sinc_maclaurin", params, "k") < 0:
        raise PrimitiveTypeError("sinc_maclaurin: param 'k' must be >= 0")
    return [x]


def _sinc_maclaurin_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    # JAX's _sinc_maclaurin custom rule: the derivative of order k is order k + 1's
    # constant, so every order of sinc's derivative at 0 is exact
    (x,), (t,) = primals, tangents
    y = bind1(sinc_maclaurin_p, (x,), params)
    if isinstance(t, Zero):
        return [y], [t]
    k = get_int("sinc_maclaurin", params, "k")
    return [y], [mul(bind1(sinc_maclaurin_p, (x,), pmap({"k": k + 1})), t)]


def _sinc_maclaurin_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    k = get_int("sinc_maclaurin", eqn.params, "k")
    x = args[0]
    zero = hlo.multiply(x, _full_as(0.0, x))
    return [zero if k % 2 else hlo.add(zero, _full_as(sinc_coefficient(k), x))]


#: ``x * 0 + c_k`` with ``c_k`` the ``k``-th Maclaurin derivative of ``sin(u)/u``,
#: whose JVP is ``sinc_maclaurin[k+1](x) * t``: ``sinc``'s value at 0 (JAX's
#: ``_sinc_maclaurin``, a ``custom_jvp`` there; typedax's custom rules are traced
#: when called, so a recursion through every order needs a primitive's JVP rule,
#: which runs only when differentiated).
sinc_maclaurin_p = Primitive(
    "sinc_maclaurin", _sinc_maclaurin_impl, _sinc_maclaurin_abstract,
    rules_for=lambda p: Rules(jvp=_sinc_maclaurin_jvp, batch=elementwise_batch(p), lower=_sinc_maclaurin_lower),
)

FAMILY = Family(
    "special",
    (
        log1p_p, expm1_p, exp2_p, tan_p, asin_p, acos_p, atan_p, atan2_p, sinh_p, cosh_p,
        asinh_p, acosh_p, atanh_p, erf_p, erfc_p, erf_inv_p, lgamma_p, digamma_p,
        round_p, sign_p, is_finite_p, nextafter_p, sinc_maclaurin_p,
    ),
)
