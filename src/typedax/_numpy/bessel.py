"""``jnp.i0``, the modified Bessel function of order 0 (issue 29, item 7),
and ``kaiser``'s window on it: XLA's ``BesselI0e`` (Cephes' Chebyshev
series on ``[0, 8]`` and in ``32/|x|`` above) times ``exp(|x|)``, with
JAX's derivative (0 at 0, where ``|x|`` has none)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import SupportsInt, cast

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import HALF, default_float, float32, float64, is_float
from ..core.errors import ArgumentValueError, ConcretizationError, PrimitiveTypeError
from ..core.trace import Tracer
from . import lax_numpy as tnp

# Cephes' Chebyshev coefficients of i0e (XLA's math.cc, JAX's lax/special.py;
# the float32 series are their tails)
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


def _chebyshev(x: Array, coeffs: Sequence[float]) -> Array:
    b0, b1, b2 = tnp.zeros_like(x), tnp.zeros_like(x), tnp.zeros_like(x)
    for c in coeffs:
        b2, b1 = b1, b0
        b0 = tnp.add(tnp.subtract(tnp.multiply(x, b1), b2), c)
    return tnp.multiply(0.5, tnp.subtract(b0, b2))


def _i0e_abs(z: Array) -> Array:
    """``i0e`` of ``z = |x|`` (16-bit floats in float32, as XLA's)."""
    d = z.dtype
    if d in HALF:
        return tnp.astype(_i0e_abs(tnp.astype(z, float32)), d)
    ca, cb = (_I0E_A64, _I0E_B64) if d == float64 else (_I0E_A32, _I0E_B32)
    le = tnp.less_equal(z, 8.0)
    # each branch gets an argument where it is finite (32 / 0 would put NaN into the other's derivative)
    z_small = tnp.where(le, z, tnp.zeros_like(z))
    z_big = tnp.where(le, tnp.full_like(z, 32.0), z)
    small = _chebyshev(tnp.subtract(tnp.multiply(0.5, z_small), 2.0), ca)
    big = tnp.divide(_chebyshev(tnp.subtract(tnp.divide(32.0, z_big), 2.0), cb),
                     tnp.sqrt(z_big))
    return tnp.where(le, small, big)


def i0(x: ArrayLike) -> Array:
    """``jnp.i0``: ``I0(x) = exp(|x|) i0e(|x|)`` of a real input (integers
    as floats); its derivative at 0 is 0, as JAX's rule sets it."""
    a = tnp.asarray(tnp._float(tnp.asarray(x)))
    if not is_float(a.dtype):
        raise ArgumentValueError(f"Unsupported input type to jax.numpy.i0: {a.dtype}")
    z = tnp.abs(a)
    out = tnp.multiply(tnp.exp(z), _i0e_abs(z))
    return tnp.where(tnp.equal(a, 0.0), lax.stop_gradient(out), out)


def concrete_int(op: str, what: str, v: object) -> int:
    """``int(v)`` of a concrete number, as JAX's ``concrete_or_error(int, v)``
    (``kaiser(5.0, b)`` is 5 points); a traced ``v`` is a ``ConcretizationError``."""
    if isinstance(v, Tracer):
        raise ConcretizationError(f"{op}: {what} must be concrete, got a traced value {v.aval.str_short()}")
    try:
        return int(cast("SupportsInt", v))  # any object may arrive: int() refuses the wrong ones
    except (TypeError, ValueError):
        raise PrimitiveTypeError(f"{op}: {what} must be an integer, got {v!r}") from None


def kaiser(M: int, beta: ArrayLike) -> Array:
    """``jnp.kaiser``: the Kaiser window of ``M`` points with shape parameter ``beta``."""
    m = concrete_int("kaiser", "M", M)
    d = default_float()
    if m <= 1:
        return tnp.ones((max(m, 0),), d)
    n = lax.iota(d, m)
    alpha = 0.5 * (m - 1)
    ratio = tnp.divide(tnp.subtract(n, alpha), alpha)
    arg = tnp.multiply(beta, tnp.sqrt(tnp.subtract(1, tnp.multiply(ratio, ratio))))
    return tnp.divide(i0(arg), i0(beta))
