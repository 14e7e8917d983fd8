"""Elementwise functions and constants of ``jax.numpy`` (issue 12, group 1):
rounding, inverse trigonometry aliases, signs, ``fmax``/``fmin``/``fmod``,
powers, closeness tests, and ``ndim``/``shape``/``size``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import lax
from .._lax.lax import _convert_weak
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, bool_, default_float, is_complex, is_float, is_inexact, real_dtype
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray
from ..core.trace import aval_of
from . import lax_numpy as tnp

e = math.e
inf = math.inf
nan = math.nan
euler_gamma = 0.5772156649015329


def _integral_or_bool(x: ArrayLike) -> bool:
    return aval_of(x).dtype.kind in "biu"


def floor(x: ArrayLike, /) -> Array:
    """``jnp.floor``: integers and bools are returned as they are."""
    if _integral_or_bool(x):
        return tnp.asarray(x)
    return lax.floor(tnp.asarray(x))


def ceil(x: ArrayLike, /) -> Array:
    """``jnp.ceil``: integers and bools are returned as they are."""
    if _integral_or_bool(x):
        return tnp.asarray(x)
    return lax.ceil(tnp.asarray(x))


def trunc(x: ArrayLike, /) -> Array:
    """``jnp.trunc``: rounded toward zero; integers and bools as they are."""
    a = tnp.asarray(x)
    if _integral_or_bool(a):
        return a
    return lax.select(lax.lt(a, 0.0), lax.ceil(a), lax.floor(a))


def asin(x: ArrayLike, /) -> Array:
    return tnp.arcsin(x)


def acos(x: ArrayLike, /) -> Array:
    return tnp.arccos(x)


def atan(x: ArrayLike, /) -> Array:
    return tnp.arctan(x)


def atan2(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    return tnp.arctan2(x1, x2)


def asinh(x: ArrayLike, /) -> Array:
    return tnp.arcsinh(x)


def acosh(x: ArrayLike, /) -> Array:
    return tnp.arccosh(x)


def atanh(x: ArrayLike, /) -> Array:
    return tnp.arctanh(x)


def cbrt(x: ArrayLike, /) -> Array:
    """``jnp.cbrt``: the real cube root (``lax.cbrt``: a power and one Newton
    step, within an ulp of the root; a bare ``|x| ** (1/3)`` is tens of ulp off)."""
    v = tnp._float(x)
    out = lax.cbrt(v)
    a = aval_of(v)
    # weak if x is, as JAX's (a primitive there): lax.cbrt's strong constants make it strong
    return _convert_weak(out, a.dtype) if a.weak_type and not aval_of(out).weak_type else out


def signbit(x: ArrayLike, /) -> Array:
    """``jnp.signbit``: ``x < 0`` for integers, False for bools; for floats the
    sign bit itself (True for ``-0.0`` and a negative NaN), read by a bitcast
    to the integer of the same width."""
    a = tnp.asarray(x)
    if a.dtype == bool_:
        return tnp.full(a.shape, False, bool_)
    if a.dtype.kind in "iu":
        return lax.lt(a, np.zeros((), a.dtype))
    if not is_float(a.dtype):
        raise PrimitiveTypeError(f"signbit: not well defined for {a.dtype}")
    bits = np.dtype(f"int{8 * a.dtype.itemsize}")
    return lax.lt(lax.bitcast_convert_type(a, bits), np.zeros((), bits))


def copysign(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.copysign``: ``|x1|`` with the sign bit of ``x2`` (as floats)."""
    a, b = tnp._inexact2(x1, x2)
    mag = lax.abs(a)
    return lax.select(signbit(b), lax.neg(mag), mag)


def fmax(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``jnp.fmax``: the larger, ignoring a NaN (NaN only where both are)."""
    return tnp.where(tnp.logical_or(tnp.greater(x1, x2), tnp.isnan(x2)), x1, x2)


def fmin(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``jnp.fmin``: the smaller, ignoring a NaN (NaN only where both are)."""
    return tnp.where(tnp.logical_or(tnp.less(x1, x2), tnp.isnan(x2)), x1, x2)


def fmod(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.fmod``: the remainder with the sign of ``x1`` (C's ``fmod``);
    an integer divisor of 0 gives 0, as JAX."""
    a, b = tnp._prepare2(x1, x2)
    d = aval_of(a).dtype
    if d == bool_:
        raise PrimitiveTypeError("fmod: not defined for bool operands")
    if d.kind in "iu":
        zero = np.zeros((), d)
        b = lax.select(lax.eq(b, zero), tnp.full_like(b, 1), b)
    return lax.rem(a, b)


def float_power(x: ArrayLike, y: ArrayLike, /) -> Array:
    """``jnp.float_power``: ``x ** y`` in the operands' floating type."""
    return lax.pow(*tnp._inexact2(x, y))


def positive(x: ArrayLike, /) -> Array:
    """``jnp.positive``: ``+x``."""
    return tnp.asarray(x)


def true_divide(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.true_divide``: ``divide``."""
    return tnp.divide(x1, x2)


def pow(x1: ArrayLike, x2: ArrayLike, /) -> Array:  # noqa: A001 - jnp's name
    """``jnp.pow``: ``power``."""
    return tnp.power(x1, x2)


def degrees(x: ArrayLike, /) -> Array:
    return tnp.rad2deg(x)


def radians(x: ArrayLike, /) -> Array:
    return tnp.deg2rad(x)


def logaddexp2(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.logaddexp2``: ``log2(2**x1 + 2**x2)`` without overflow."""
    a, b = tnp._inexact2(x1, x2)
    d = aval_of(a).dtype
    ln2 = np.asarray(math.log(2.0), d)
    return lax.div(tnp.logaddexp(lax.mul(a, ln2), lax.mul(b, ln2)), tnp.asarray(ln2))


def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.ldexp``: ``x1 * 2**x2`` for an integer ``x2``, in two factors so
    that a small ``x1`` with a large ``x2`` does not overflow on the way."""
    if aval_of(x2).dtype.kind not in "biu" or aval_of(x1).dtype.kind == "c":
        raise PrimitiveTypeError(
            f"ldexp not supported for input types ({aval_of(x1).dtype.name}, {aval_of(x2).dtype.name}): "
            "x2 must be integers"
        )
    a = tnp.asarray(tnp._float(x1))
    shape = np.broadcast_shapes(a.shape, aval_of(x2).shape)
    a = tnp.broadcast_to(a, shape)
    n = tnp.broadcast_to(lax.convert_element_type(x2, a.dtype), shape)
    half = lax.floor(lax.mul(n, 0.5))
    two = tnp.full(shape, 2.0, a.dtype)
    return lax.mul(lax.mul(a, lax.pow(two, half)), lax.pow(two, lax.sub(n, half)))


def nextafter(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.nextafter``: the next float after ``x1`` toward ``x2``."""
    return lax.nextafter(*tnp._inexact2(x1, x2, keep_scalars=True))  # (a rank-0 operand stays rank 0, as JAX's)


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Array:
    """``jnp.isclose``: ``|a - b| <= atol + rtol * |b|`` (as floats), or equal."""
    x, y = tnp._inexact2(a, b)
    d = real_dtype(aval_of(x).dtype)  # (complex: the tolerances and |a - b| are real)
    rt = lax.convert_element_type(rtol, d)
    at = lax.convert_element_type(atol, d)
    shape = aval_of(x).shape
    rt, at = tnp.broadcast_to(rt, shape), tnp.broadcast_to(at, shape)
    in_range = lax.le(lax.abs(lax.sub(x, y)), lax.add(at, lax.mul(rt, lax.abs(y))))
    out = lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(tnp.isfinite(y), in_range))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(tnp.isnan(x), tnp.isnan(y)))
    return out


def allclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
             equal_nan: bool = False) -> Array:
    """``jnp.allclose``: ``all(isclose(...))``, a bool scalar."""
    return tnp.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Array:
    """``jnp.array_equal``: same shape and equal elements (a bool scalar)."""
    x, y = tnp.asarray(a1), tnp.asarray(a2)
    if x.shape != y.shape:
        return tnp.asarray(False)
    eq = tnp.equal(x, y)
    if equal_nan:
        eq = tnp.logical_or(eq, tnp.logical_and(tnp.isnan(x), tnp.isnan(y)))
    return tnp.all(eq)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> Array:
    """``jnp.array_equiv``: equal after broadcasting (False if they do not broadcast)."""
    x, y = tnp.asarray(a1), tnp.asarray(a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return tnp.asarray(False)
    return tnp.all(tnp.equal(x, y))


def _isinf_of_sign(op: str, x: ArrayLike, infinity: float, out: None) -> Array:
    if out is not None:
        raise PrimitiveTypeError(f"The 'out' argument to {op} is not supported.")
    a = tnp.asarray(x)
    if is_complex(a.dtype):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    if not is_float(a.dtype):
        return tnp.full(a.shape, False, bool_)
    return lax.eq(a, np.asarray(infinity, a.dtype))


def isposinf(x: ArrayLike, /, out: None = None) -> Array:
    return _isinf_of_sign("isposinf", x, math.inf, out)


def isneginf(x: ArrayLike, /, out: None = None) -> Array:
    return _isinf_of_sign("isneginf", x, -math.inf, out)


def isscalar(element: object) -> bool:
    """``jnp.isscalar``: a Python or NumPy scalar, or an array of rank 0."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, Array)):
        return element.ndim == 0
    return False


def ndim(a: ArrayLike | object) -> int:
    """``jnp.ndim``: the number of dimensions (no value is read: works on tracers)."""
    return a.ndim if isinstance(a, Array) else np.asarray(a).ndim


def shape(a: ArrayLike | object) -> tuple[int, ...]:
    """``jnp.shape``: the shape (no value is read: works on tracers)."""
    return a.shape if isinstance(a, Array) else tuple(np.shape(np.asarray(a)))


def size(a: ArrayLike | object, axis: int | None = None) -> int:
    """``jnp.size``: the number of elements, or the length of ``axis``."""
    s = shape(a)
    if axis is None:
        return math.prod(s)
    return s[tnp._axis("size", axis, len(s))]


# -- more elementwise functions (issue 12, group 5) ---------------------------------------
def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[Array, Array]:  # noqa: A001 - jnp's name
    """``jnp.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return tnp.floor_divide(x1, x2), tnp.remainder(x1, x2)


def modf(x: ArrayLike, /, out: None = None) -> tuple[Array, Array]:
    """``jnp.modf``: the fractional and integral parts (both with ``x``'s sign, as floats)."""
    if out is not None:
        raise PrimitiveTypeError("modf: The 'out' argument to jnp.modf is not supported.")
    a = tnp.asarray(tnp._float(x))
    whole = lax.select(lax.ge(a, tnp.zeros((), a.dtype)), lax.floor(a), lax.ceil(a))
    return lax.sub(a, whole), whole


def _is_complex(x: ArrayLike) -> bool:
    return type(x) is complex or is_complex(aval_of(x).dtype)


def real(val: ArrayLike, /) -> Array:
    """``jnp.real``: the real part of a complex value; a real value itself."""
    return lax.real(val) if _is_complex(val) else tnp.asarray(val)


def imag(val: ArrayLike, /) -> Array:
    """``jnp.imag``: the imaginary part of a complex value; zeros of a real
    value's type."""
    return lax.imag(val) if _is_complex(val) else tnp.zeros_like(val)


def conjugate(x: ArrayLike, /) -> Array:
    """``jnp.conjugate``: the complex conjugate; a real value itself."""
    return lax.conj(x) if _is_complex(x) else tnp.asarray(x)


conj = conjugate


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """``jnp.angle``: ``atan2(imag(z), real(z))`` (pi for negative real
    numbers and -0.0), in degrees with ``deg``; an integer, or a real float
    scalar, in the default float type (as JAX's)."""
    x = tnp.asarray(z)
    re, im = real(x), imag(x)
    if not is_inexact(re.dtype) or (is_float(x.dtype) and x.ndim == 0):
        re, im = tnp.astype(re, default_float()), tnp.astype(im, default_float())
    out = lax.atan2(im, re)
    return tnp.rad2deg(out) if deg else out


def iscomplex(x: ArrayLike) -> Array:
    """``jnp.iscomplex``: where the imaginary part is nonzero."""
    i = imag(x)
    return lax.ne(i, tnp.zeros((), i.dtype))


def isreal(x: ArrayLike) -> Array:
    """``jnp.isreal``: where the imaginary part is zero."""
    i = imag(x)
    return lax.eq(i, tnp.zeros((), i.dtype))


def iscomplexobj(x: object) -> bool:
    """``jnp.iscomplexobj``: whether ``x`` is a complex number or has a complex dtype."""
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    if isinstance(x, Array):
        return is_complex(x.dtype)
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return is_complex(dtype)
    return bool(np.iscomplexobj(np.asarray(x)))


def isrealobj(x: object) -> bool:
    """``jnp.isrealobj``: ``not iscomplexobj(x)``."""
    return not iscomplexobj(x)


def bitwise_count(x: ArrayLike, /) -> Array:
    """``jnp.bitwise_count``: the number of one bits of ``|x|``, as uint8."""
    a = tnp.asarray(x)
    if a.dtype.kind not in "biu":
        raise PrimitiveTypeError(f"bitwise_count: only integers and bools, got {a.dtype}")
    if a.dtype == bool_:
        a = lax.convert_element_type(a, np.int32)
    return lax.convert_element_type(lax.population_count(a if a.dtype.kind == "u" else tnp.abs(a)), np.uint8)


def bitwise_invert(x: ArrayLike, /) -> Array:
    """``jnp.bitwise_invert``: ``invert``."""
    return tnp.invert(x)


def bitwise_left_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.bitwise_left_shift``: ``left_shift``."""
    return tnp.left_shift(x1, x2)


def bitwise_right_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.bitwise_right_shift``: ``right_shift``."""
    return tnp.right_shift(x1, x2)


def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Array:
    """``jnp.isin``: whether each element of ``element`` is in ``test_elements``
    (a comparison with every test element)."""
    x = tnp.asarray(element)
    t = tnp.ravel(tnp.asarray(test_elements))
    a, b = (tnp.asarray(v) for v in tnp._promote(x, t))
    shape = a.shape + (b.shape[0],)
    eq = lax.eq(lax.broadcast_in_dim(a, shape, tuple(range(a.ndim))), lax.broadcast_in_dim(b, shape, (a.ndim,)))
    out = lax.reduce_or(eq, (a.ndim,))
    return lax.bitwise_not(out) if invert else out


def copy(a: ArrayLike, order: None = None) -> Array:
    """``jnp.copy``: ``a`` as an array (arrays are immutable: nothing is copied)."""
    return tnp.asarray(a)


def gcd(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``jnp.gcd``: the greatest common divisor of integers (Euclid's algorithm in a ``while_loop``)."""
    a, b = (tnp.asarray(v) for v in tnp._prepare2(x1, x2))
    if a.dtype.kind not in "iu":
        raise PrimitiveTypeError("gcd: Arguments to jax.numpy.gcd must be integers.")

    def cond(xs: tuple[Array, Array]) -> Array:
        return tnp.any(tnp.not_equal(xs[1], 0))

    def body(xs: tuple[Array, Array]) -> tuple[Array, Array]:
        p, q = xs
        nz = tnp.not_equal(q, 0)
        zero = tnp.zeros_like(q)
        p, q = tnp.where(nz, q, p), tnp.where(nz, lax.rem(p, tnp.where(nz, q, tnp.ones_like(q))), zero)
        swap = tnp.less(p, q)
        return tnp.where(swap, q, p), tnp.where(swap, p, q)

    absa = a if a.dtype.kind == "u" else tnp.abs(a)
    absb = b if b.dtype.kind == "u" else tnp.abs(b)
    g, _ = lax.while_loop(cond, body, (absa, absb))
    return g


def lcm(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``jnp.lcm``: the least common multiple of integers (0 where either is 0)."""
    a, b = (tnp.asarray(v) for v in tnp._prepare2(x1, x2))
    if a.dtype.kind not in "iu":
        raise PrimitiveTypeError("lcm: Arguments to jax.numpy.lcm must be integers.")
    a = a if a.dtype.kind == "u" else tnp.abs(a)
    b = b if b.dtype.kind == "u" else tnp.abs(b)
    d = gcd(a, b)
    zero = tnp.equal(d, 0)
    return tnp.where(zero, tnp.zeros_like(d), tnp.multiply(a, tnp.floor_divide(b, tnp.where(zero, tnp.ones_like(d), d))))


def _float_bits(d: DType) -> tuple[np.dtype[np.signedinteger[Any]], Any]:
    return np.dtype(f"int{8 * d.itemsize}"), np.finfo(d)


def frexp(x: ArrayLike, /) -> tuple[Array, Array]:
    """``jnp.frexp``: ``(m, e)`` with ``x == m * 2**e`` and ``0.5 <= |m| < 1``
    (``m = x``, ``e = 0`` at zeros, infinities and NaNs; int32 exponents), by
    reading the float's bits as JAX does."""
    a = tnp.asarray(tnp._float(x))
    d = a.dtype
    it, info = _float_bits(d)
    nmant, nexp, minexp = int(info.nmant), int(info.nexp), int(info.minexp)
    mask = (1 << nexp) - 1
    bias = 1 - minexp
    tiny = lax.lt(lax.abs(a), np.asarray(info.tiny, d))
    scaled = lax.select(tiny, lax.mul(a, np.asarray(float(1 << nmant), d)), a)
    bits = lax.bitcast_convert_type(scaled, it)
    e = lax.select(tiny, tnp.full(a.shape, -nmant, it), tnp.zeros(a.shape, it))

    def c(v: int) -> NDArray:
        return np.asarray(v, it)

    e = lax.add(e, lax.add(lax.sub(lax.bitwise_and(lax.shift_right_arithmetic(bits, c(nmant)), c(mask)), c(bias)), c(1)))
    bits = lax.bitwise_and(bits, c(~(mask << nmant)))
    bits = lax.bitwise_or(bits, c((bias - 1) << nmant))
    m = lax.bitcast_convert_type(bits, d)
    special = lax.bitwise_or(lax.bitwise_or(tnp.isinf(a), tnp.isnan(a)), lax.eq(a, np.zeros((), d)))
    e = lax.select(special, tnp.zeros(a.shape, it), e)
    m = lax.select(special, a, m)
    # the bits carry no derivative; dm/dx is 2**-e (m / x), attached at value 0:
    # m + (x - stop(x)) * stop(m / x)
    one = tnp.ones(a.shape, d)
    slope = lax.select(special, one, lax.div(m, lax.select(special, one, a)))
    slope = lax.select(tnp.isfinite(slope), slope, tnp.zeros(a.shape, d))  # 2**1074 overflows
    moving = lax.add(m, lax.mul(lax.sub(a, lax.stop_gradient(a)), lax.stop_gradient(slope)))
    return lax.select(special, m, moving), lax.convert_element_type(e, np.int32)


def spacing(x: ArrayLike, /) -> Array:
    """``jnp.spacing``: the distance from ``x`` to the next float away from
    zero (the smallest subnormal, signed, where that is 0)."""
    a = tnp.asarray(tnp._float(x))
    inf = tnp.full(a.shape, np.inf, a.dtype)
    if a.dtype == np.float16:
        return lax.sub(lax.nextafter(a, inf), a)
    result = lax.sub(lax.nextafter(a, copysign(inf, a)), a)
    tiny = np.finfo(a.dtype).smallest_subnormal  # type: ignore[type-var]  # a float dtype here
    return lax.select(lax.eq(result, np.zeros((), a.dtype)), copysign(tnp.full(a.shape, tiny, a.dtype), a), result)
