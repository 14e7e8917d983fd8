"""The linear algebra of ``typedax.numpy.linalg`` that needs no LAPACK
factorization: ``norm``, ``vector_norm``, ``matrix_norm`` (vector orders;
matrix ``'fro'``, 1, -1, inf, -inf; 2, -2 and ``'nuc'`` through the singular
values of ``lax.linalg.svd``), and ``det``, ``slogdet``, ``inv``,
``solve`` by Gaussian elimination with partial pivoting (real or
complex). The
decompositions and what is built on them are in ``linalg_decomp.py``; the
face is ``linalg.py``."""


from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import is_complex
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from . import lax_numpy as tnp
from .creation import diagonal
from .creation import eye
from .manipulation import take_along_axis



class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


OrdLike = int | float | str | None



def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(tnp._float(tnp.asarray(x)))


def _abs2(x: Array) -> Array:
    """``|x|**2`` elementwise, real: ``x * conj(x)``'s real part for complex ``x``."""
    if is_complex(x.dtype):
        return lax.real(lax.mul(x, lax.conj(x)))
    return lax.mul(x, x)


def _vector(x: Array, ord: OrdLike, axis: tuple[int, ...], keepdims: bool) -> Array:  # noqa: A002 - JAX's name
    if isinstance(ord, str):
        raise ArgumentValueError(f"norm: Invalid order '{ord}' for vector norm.")
    if ord is None or ord == 2:
        return lax.sqrt(tnp.sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord == math.inf:
        return tnp.max(lax.abs(x), axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return tnp.min(lax.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return tnp.sum(lax.convert_element_type(tnp.not_equal(x, tnp.zeros((), x.dtype)), x.dtype),
                       axis=axis, keepdims=keepdims)
    if ord == 1:
        return tnp.sum(lax.abs(x), axis=axis, keepdims=keepdims)
    p = float(ord)
    ax = lax.abs(x)  # (real for complex x)
    total = tnp.sum(lax.pow(ax, tnp.full(x.shape, p, ax.dtype)), axis=axis, keepdims=keepdims)
    return lax.pow(total, tnp.full(total.shape, 1.0 / p, ax.dtype))


def _matrix(x: Array, ord: OrdLike, axis: tuple[int, int], keepdims: bool) -> Array:  # noqa: A002 - JAX's name
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return lax.sqrt(tnp.sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord in (1, -1, math.inf, -math.inf):
        inner, outer = (row, col) if ord in (1, -1) else (col, row)
        sums = tnp.sum(lax.abs(x), axis=inner, keepdims=True)
        pick = tnp.max if ord in (1, math.inf) else tnp.min
        out = pick(sums, axis=outer, keepdims=True)
        if keepdims:
            return out
        return lax.reshape(out, tuple(d for i, d in enumerate(out.shape) if i not in axis))
    if ord in (2, -2, "nuc"):  # (as JAX: the singular values of x with the two axes moved last)
        rest = tuple(i for i in range(x.ndim) if i not in axis)
        s = lax.linalg.svd(lax.transpose(x, rest + (row, col)), compute_uv=False)
        if ord == 2:
            y = tnp.max(s, axis=-1, initial=0)
        elif ord == -2:
            y = tnp.min(s, axis=-1)
        else:
            y = tnp.sum(s, axis=-1)
        return tnp.expand_dims(y, axis) if keepdims else y
    raise ArgumentValueError(f"norm: Invalid order '{ord}' for matrix norm.")


def norm(x: ArrayLike, ord: OrdLike = None, axis: int | Sequence[int] | None = None,  # noqa: A002 - JAX's name
         keepdims: bool = False) -> Array:
    """``jnp.linalg.norm``: a vector norm over one axis, a matrix norm over
    two; with ``axis=None``, the 2-norm of the flattened array when ``ord``
    is None, else the vector or matrix norm of a 1-d or 2-d ``x``."""
    a = _inexact(x)
    if axis is None:
        if ord is None:
            return lax.sqrt(tnp.sum(_abs2(a), keepdims=keepdims))
        if a.ndim not in (1, 2):
            raise PrimitiveTypeError("norm: Improper number of dimensions to norm.")
        axes = tuple(range(a.ndim))
    elif isinstance(axis, (int, np.integer)):
        axes = (tnp._axis("norm", axis, a.ndim),)
    else:
        axes = tuple(tnp._axis("norm", v, a.ndim) for v in axis)
    if len(axes) == 1:
        return _vector(a, ord, axes, keepdims)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise PrimitiveTypeError("norm: Duplicate axes given.")
        return _matrix(a, ord, (axes[0], axes[1]), keepdims)
    raise PrimitiveTypeError(f"norm: Invalid axis values ({axis}) for jnp.linalg.norm.")


def vector_norm(x: ArrayLike, /, *, axis: int | Sequence[int] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Array:  # noqa: A002 - JAX's name
    """``jnp.linalg.vector_norm``: the vector norm over ``axis`` (all axes, flattened, when None)."""
    a = _inexact(x)
    if axis is None:
        out = _vector(tnp.ravel(a), ord, (0,), False)
        return lax.reshape(out, (1,) * a.ndim) if keepdims else out
    axes = tnp._axes("vector_norm", a.ndim, axis)
    return _vector(a, ord, axes, keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: str | int | float = "fro") -> Array:  # noqa: A002 - JAX's name
    """``jnp.linalg.matrix_norm``: the matrix norm of the last two axes."""
    a = _inexact(x)
    if a.ndim < 2:
        raise PrimitiveTypeError(f"matrix_norm: x must be at least two-dimensional, got shape {a.shape}")
    return _matrix(a, ord, (a.ndim - 2, a.ndim - 1), keepdims)


# -- determinants, inverses and solves: Gaussian elimination with partial
# pivoting (LAPACK's getrf algorithm), unrolled over the static matrix size ------
def _square(op: str, a: ArrayLike) -> Array:
    x = _inexact(a)
    if x.ndim < 2:
        raise ShapeError(f"{op}: Argument to {op} must have shape [..., n, n], got {x.shape}.")
    if x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{op}: Last 2 dimensions of the array must be square, got {x.shape}.")
    return x


def _eliminate(a: Array, b: Array, jordan: bool) -> tuple[Array, Array, Array]:
    """Row-reduce ``a`` (..., n, n) -- below the diagonal, or also above it
    (``jordan``) -- applying the same row operations to ``b`` (..., n, m;
    m may be 0); with the sign of the row permutation."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    d = a.dtype
    rows = lax.broadcasted_iota(np.dtype(np.int32), batch + (n,), len(batch))
    sign = tnp.ones(batch, d)
    zero = np.zeros((), d)

    def swap(m: Array, k: int, p: Array) -> Array:
        c = m.shape[-1]
        rk = lax.index_in_dim(m, k, m.ndim - 2, keepdims=True)
        idx = tnp.broadcast_to(lax.reshape(p, batch + (1, 1)), batch + (1, c))
        rp = take_along_axis(m, idx, -2, mode="clip")
        is_k = tnp.broadcast_to(lax.reshape(lax.eq(rows, np.asarray(k, np.int32)), batch + (n, 1)), m.shape)
        is_p = tnp.broadcast_to(lax.reshape(lax.eq(rows, lax.reshape(p, batch + (1,))), batch + (n, 1)), m.shape)
        return lax.select(is_k, tnp.broadcast_to(rp, m.shape), lax.select(is_p, tnp.broadcast_to(rk, m.shape), m))

    for k in range(n):
        col = lax.index_in_dim(a, k, a.ndim - 1, keepdims=False)  # (..., n)
        # LAPACK's pivot: the largest |x| (|re| + |im| for complex x, as izamax)
        size = lax.add(lax.abs(lax.real(col)), lax.abs(lax.imag(col))) if is_complex(d) else lax.abs(col)
        candidates = lax.select(lax.ge(rows, np.asarray(k, np.int32)), size, tnp.full(col.shape, -1.0, size.dtype))
        p = lax.convert_element_type(tnp.argmax(candidates, axis=-1), np.int32)
        a = swap(a, k, p)
        b = swap(b, k, p)
        sign = lax.select(lax.ne(p, np.asarray(k, np.int32)), lax.neg(sign), sign)
        pivot_row = lax.index_in_dim(a, k, a.ndim - 2, keepdims=True)  # (..., 1, n)
        pivot = lax.index_in_dim(pivot_row, k, a.ndim - 1, keepdims=False)  # (..., 1)
        singular = lax.eq(pivot, zero)
        safe = lax.select(singular, tnp.full(pivot.shape, 1.0, d), pivot)
        col = lax.index_in_dim(a, k, a.ndim - 1, keepdims=False)
        others = lax.ne(rows, np.asarray(k, np.int32)) if jordan else lax.gt(rows, np.asarray(k, np.int32))
        use = lax.bitwise_and(others, lax.bitwise_not(tnp.broadcast_to(singular, col.shape)))
        factors = lax.select(use, lax.div(col, tnp.broadcast_to(safe, col.shape)), tnp.zeros(col.shape, d))
        f = lax.reshape(factors, batch + (n, 1))
        a = lax.sub(a, lax.mul(tnp.broadcast_to(f, a.shape), tnp.broadcast_to(pivot_row, a.shape)))
        b_row = lax.index_in_dim(b, k, b.ndim - 2, keepdims=True)
        b = lax.sub(b, lax.mul(tnp.broadcast_to(f, b.shape), tnp.broadcast_to(b_row, b.shape)))
    return a, b, sign


def _no_rhs(a: Array) -> Array:
    return tnp.zeros(a.shape[:-1] + (0,), a.dtype)


def _diag(a: Array) -> Array:
    return diagonal(a, 0, -2, -1)


def det(a: ArrayLike) -> Array:
    """``jnp.linalg.det``: the determinant of the last two axes (an LU
    factorization with partial pivoting; 0 for a singular matrix)."""
    x = _square("det", a)
    u, _, sign = _eliminate(x, _no_rhs(x), False)
    return lax.mul(sign, tnp.prod(_diag(u), axis=-1))


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """``jnp.linalg.slogdet``: the sign and the log of the absolute value of
    the determinant, a named tuple ``(sign, logabsdet)`` as JAX's."""
    x = _square("slogdet", a)
    u, _, sign = _eliminate(x, _no_rhs(x), False)
    diag = _diag(u)
    if is_complex(diag.dtype):  # diag / |diag| (differentiable, as JAX's), 0 where it is 0
        zero = lax.eq(diag, tnp.zeros((), diag.dtype))
        size = lax.convert_element_type(lax.abs(diag), diag.dtype)
        unit = lax.select(zero, tnp.zeros(diag.shape, diag.dtype),
                          lax.div(diag, lax.select(zero, tnp.ones(diag.shape, diag.dtype), size)))
        return SlogdetResult(lax.mul(sign, tnp.prod(unit, axis=-1)), tnp.sum(tnp.log(lax.abs(diag)), axis=-1))
    s = lax.mul(sign, tnp.prod(tnp.sign(diag), axis=-1))
    return SlogdetResult(s, tnp.sum(tnp.log(lax.abs(diag)), axis=-1))


def inv(a: ArrayLike) -> Array:
    """``jnp.linalg.inv``: the inverse of the last two axes (Gauss-Jordan
    elimination with partial pivoting; infinities or NaNs for a singular matrix)."""
    x = _square("inv", a)
    n = x.shape[-1]
    ident = lax.broadcast_in_dim(eye(n, dtype=x.dtype), x.shape, (x.ndim - 2, x.ndim - 1))
    u, b, _ = _eliminate(x, ident, True)
    d = _diag(u)
    return lax.div(b, lax.broadcast_in_dim(d, b.shape, tuple(range(d.ndim - 1)) + (d.ndim - 1,)))


def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """``jnp.linalg.solve``: ``x`` with ``a @ x == b``; ``b`` a vector (1-d) or
    a (batch of) matrices of right-hand sides."""
    x = _square("solve", a)
    y = tnp.asarray(b)
    xp, yp = (tnp.asarray(v) for v in tnp._promote(x, y))
    n = x.shape[-1]
    vector = y.ndim == 1  # (as JAX since 0.5: a batch of vectors is b[..., None])
    rhs = lax.reshape(yp, yp.shape + (1,)) if vector else yp
    if rhs.shape[-2] != n:
        raise ShapeError(f"solve: b's rows ({rhs.shape[-2]}) must match a's size ({n})")
    batch = tuple(np.broadcast_shapes(xp.shape[:-2], rhs.shape[:-2]))
    xa = tnp.broadcast_to(xp, batch + (n, n))
    rb = tnp.broadcast_to(rhs, batch + rhs.shape[-2:])
    u, r, _ = _eliminate(xa, rb, True)
    d = _diag(u)
    out = lax.div(r, lax.broadcast_in_dim(d, r.shape, tuple(range(d.ndim - 1)) + (d.ndim - 1,)))
    return lax.reshape(out, out.shape[:-1]) if vector else out
