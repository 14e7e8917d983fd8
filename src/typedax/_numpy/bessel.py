"""``jnp.i0``, the modified Bessel function of order 0 (issue 29, item 7),
and ``kaiser``'s window on it: ``lax.bessel_i0e`` (XLA's ``BesselI0e``,
Cephes' Chebyshev series) times ``exp(|x|)``, with JAX's derivative (0 at
0, where ``|x|`` has none)."""

from __future__ import annotations

from typing import SupportsInt, cast

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_float, is_float
from ..core.errors import ArgumentValueError, ConcretizationError, PrimitiveTypeError
from ..core.trace import Tracer
from . import lax_numpy as tnp


def i0(x: ArrayLike) -> Array:
    """``jnp.i0``: ``I0(x) = exp(|x|) i0e(|x|)`` of a real input (integers
    as floats); its derivative at 0 is 0, as JAX's rule sets it."""
    a = tnp.asarray(tnp._float(tnp.asarray(x)))
    if not is_float(a.dtype):
        raise ArgumentValueError(f"Unsupported input type to jax.numpy.i0: {a.dtype}")
    z = tnp.abs(a)
    out = tnp.multiply(tnp.exp(z), lax.bessel_i0e(z))
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
