"""What ``typedax.scipy``'s modules share: JAX's ``promote_args_inexact``
(``_promote``: one float dtype and one shape, weak for Python scalars),
constants in an operand's dtype (``_c`` weak-aware as JAX's ``_lax_const``,
``_cs`` strong), ``jnp.polyval``'s Horner rule and the float32/float64
check of JAX's special functions. Builds on the core, ``lax`` and the
``numpy`` layer only."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .._lax.lax import _convert_weak
from .. import numpy as tnp
from .._numpy import lax_numpy as _lax_numpy
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_float, is_float
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray
from ..core.promotion import join
from ..core.trace import aval_of


Axis = int | Sequence[int] | None


def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(_lax_numpy._float(tnp.asarray(x)))


def _inexact2(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    a, b = _lax_numpy._inexact2(x, y)
    return tnp.asarray(a), tnp.asarray(b)



def _promote(*xs: ArrayLike) -> list[Array]:
    """JAX's ``promote_args_inexact``: one float dtype for all (integers and
    bools become floats), broadcast to one shape. The operands are weakly
    typed when their common type is weak (JAX's ``lattice_result_type``:
    Python scalars, weakly typed arrays, e.g. ``xlogy(0.5, 2)``; also
    ``int32`` beside a Python float, as ``jnp.int32(1) + 0.5`` is), so that
    ``f32_array + norm.logpdf(0.5)`` stays float32, as in JAX; else strong."""
    return [tnp.asarray(v) for v in _lax_numpy._prepare(*_promote_dtypes(*xs))]


def _promote_dtypes(*xs: ArrayLike) -> list[Array]:
    """``_promote`` without the broadcast: JAX's ``promote_dtypes_inexact``
    (one float dtype, weak when the common type is; shapes kept)."""
    dtype = tnp.result_type(*xs)
    dtype = dtype if is_float(dtype) else _lax_numpy._inexact(dtype)
    node = functools.reduce(join, (_lax_numpy._node(x) for x in xs))
    if node in _WEAK_NODES:
        return [tnp.asarray(_convert_weak(x, dtype) if aval_of(x).dtype != dtype or not aval_of(x).weak_type else x)
                for x in xs]
    return [tnp.asarray(tnp.astype(x, dtype)) for x in xs]


_WEAK_NODES = frozenset({"i*", "f*"})


def _c(v: float, like: ArrayLike) -> NDArray | float:
    """``v`` as a constant in ``like``'s dtype, as JAX's ``lax._const``: a
    Python float (weak: the result stays weak) beside a weakly typed
    rank-0 float of the default float dtype, else a (strong) NumPy scalar."""
    a = aval_of(like)
    if a.weak_type and not a.shape and a.dtype == default_float():
        return float(v)
    return np.asarray(v, a.dtype)


def _cs(v: float, like: ArrayLike) -> NDArray:
    """``v`` as a strong NumPy scalar of ``like``'s dtype (where JAX builds
    its constants with ``np.array``/``dtype(v)``: the result is strong)."""
    return np.asarray(v, aval_of(like).dtype)


def _polyval(coeffs: Sequence[float], x: Array) -> Array:
    """Horner's rule from 0, as ``jnp.polyval`` (coefficients in ``x``'s
    dtype, strong: JAX passes them as a NumPy array)."""
    y = tnp.zeros_like(x)
    for c in coeffs:
        y = tnp.add(tnp.multiply(y, x), _cs(c, x))
    return y


def _only_f32_f64(name: str, x: Array) -> None:
    d = aval_of(x).dtype
    if d not in (np.float32, np.float64):
        raise PrimitiveTypeError(f"{name}: x.dtype={d} is not supported (only float32 and float64, as JAX)")
