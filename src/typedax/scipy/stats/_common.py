"""What the distributions share: JAX's ``promote_args_inexact`` (one float
dtype, one shape; weak for Python scalars) and constants in an operand's
dtype (weak beside a weak scalar, as JAX's ``_lax_const``)."""

from __future__ import annotations

from ... import lax
from ..._lax.lax import _convert_weak
from ...core.array import Array, ArrayLike
from ...core.ir import NDArray
from ...core.trace import aval_of
from .._base import _c, _cs
from .._base import _promote as promote

__all__ = ["c", "clamp", "cs", "promote"]


def c(v: float, like: ArrayLike) -> NDArray | float:
    """``v`` as a constant of ``like``'s dtype (JAX's ``_lax_const``): a
    Python float beside a weakly typed scalar (the result stays weak), else
    a NumPy scalar (a strong constant that keeps float32 operands float32)."""
    return _c(v, like)


def cs(v: float, like: ArrayLike) -> NDArray:
    """``v`` as a strong NumPy scalar of ``like``'s dtype (where JAX's
    constant is ``jnp.array(v, x.dtype)``: the result is strong)."""
    return _cs(v, like)


def clamp(lo: ArrayLike, x: ArrayLike, hi: ArrayLike) -> Array:
    """``lax.clamp(lo, x, hi)``, weakly typed if all three are (as JAX's):
    typedax's ``lax.clamp`` makes Python-scalar bounds (``c`` beside a weak
    ``x``) strong."""
    out = lax.clamp(lo, x, hi)
    a = aval_of(out)
    if not a.weak_type and all(aval_of(v).weak_type for v in (lo, x, hi)):
        return _convert_weak(out, a.dtype)
    return out
