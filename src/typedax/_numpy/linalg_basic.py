"""The linear algebra of ``typedax.numpy.linalg`` that needs no LAPACK
factorization: ``norm``, ``vector_norm``, ``matrix_norm`` (vector orders;
matrix ``'fro'``, 1, -1, inf, -inf; 2, -2 and ``'nuc'`` through the singular
values of ``lax.linalg.svd``), and ``det``, ``slogdet``, ``inv``,
``solve`` on LAPACK's LU factorization (``lax.linalg.lu``), as JAX's. The
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
from ..core.trace import EVAL_TRACE, current_trace
from ..custom_derivatives import custom_jvp
from ..primitives.linalg import take_rows
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from . import lax_numpy as tnp
from .creation import diagonal
from .creation import eye
from .creation import trace
from .statistics import count_nonzero



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


# -- determinants, inverses and solves: on LAPACK's LU factorization (the ``lu``
# primitive, getrf), as JAX's ---------------------------------------------------------------
def _square(op: str, a: ArrayLike) -> Array:
    x = _inexact(a)
    if x.ndim < 2:
        raise ShapeError(f"{op}: Argument to {op} must have shape [..., n, n], got {x.shape}.")
    if x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{op}: Last 2 dimensions of the array must be square, got {x.shape}.")
    return x


def _real(x: Array) -> Array:
    return lax.real(x) if is_complex(x.dtype) else x


def _diag(a: Array) -> Array:
    return diagonal(a, 0, -2, -1)


def _matvec(a: Array, x: Array, vector: bool) -> Array:
    """``a @ x`` over the batch axes (``x`` a batch of vectors or of
    matrices, ``a`` broadcast to its batch)."""
    nb = x.ndim - (1 if vector else 2)
    batch = x.shape[:nb]
    a = tnp.broadcast_to(a, batch + a.shape[-2:])
    axes = tuple(range(nb))
    return lax.dot_general(a, x, (((nb + 1,), (nb,)), (axes, axes)), precision=lax.Precision.HIGHEST)


def _solve(a: Array, b: Array, vector: bool) -> Array:
    """JAX's ``lax.linalg._solve``: ``x`` from ``a``'s LU factors under
    ``custom_linear_solve``, so derivatives solve with the same factors
    (``lu_solve`` and its transpose) instead of differentiating the
    factorization. ``b`` (``[..., n]`` with ``vector``, else ``[..., n,
    k]``) has the broadcast batch; ``a`` its own, factored once."""
    lu_, _, perm = lax.linalg.lu(lax.stop_gradient(a))
    if current_trace() is EVAL_TRACE:  # no transformation to see the derivative rule: the solve itself
        return lax.linalg.lu_solve(lu_, perm, b, 0)  # (what custom_linear_solve evaluates, without tracing)

    def matvec(x: Array) -> Array:
        return _matvec(a, x, vector)

    def solve_(_: object, x: Array) -> Array:
        return lax.linalg.lu_solve(lu_, perm, x, 0)

    def transpose_solve(_: object, x: Array) -> Array:
        return lax.linalg.lu_solve(lu_, perm, x, 1)

    out: Array = lax.custom_linear_solve(matvec, b, solve_, transpose_solve)
    return out


def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """``jnp.linalg.solve``: ``x`` with ``a @ x == b``; ``b`` a vector (1-d) or
    a (batch of) matrices of right-hand sides. LAPACK's LU factorization
    (``getrf``) and two triangular solves (``trsm``), as JAX's, so ``jit``
    gives JAX's values to the bit; infinities or NaNs for a singular ``a``.
    Derivatives reuse the factors (``lax.custom_linear_solve``)."""
    x = _square("solve", a)
    y = tnp.asarray(b)
    xp, yp = (tnp.asarray(v) for v in tnp._promote(x, y))
    n = x.shape[-1]
    if yp.ndim > 1 and xp.ndim == yp.ndim + 1 and n == yp.shape[-1] and n != yp.shape[-2]:
        raise ShapeError(
            f"Invalid shapes for solve: {xp.shape}, {yp.shape}. Prior to JAX v0.5.0, this would have been "
            "treated as a batched 1-dimensional solve. To recover this behavior, use "
            "solve(a, b[..., None]).squeeze(-1).")
    vector = yp.ndim == 1  # (as JAX since 0.5: a batch of vectors is b[..., None])
    core = yp.shape[-1:] if vector else yp.shape[-2:]
    if yp.ndim == 0 or core[0] != n:
        raise ShapeError(f"solve: b's rows ({core[0] if core else None}) must match a's size ({n}), "
                         f"got a {xp.shape} and b {yp.shape}")
    batch = tuple(np.broadcast_shapes(xp.shape[:-2], yp.shape[:yp.ndim - len(core)]))
    return _solve(xp, tnp.broadcast_to(yp, batch + core), vector)


def inv(a: ArrayLike) -> Array:
    """``jnp.linalg.inv``: ``solve(a, I)`` over the last two axes, as JAX's
    (infinities or NaNs for a singular matrix)."""
    x = _square("inv", a)
    n = x.shape[-1]
    return solve(x, lax.broadcast_in_dim(eye(n, dtype=x.dtype), x.shape, (x.ndim - 2, x.ndim - 1)))


def _parity(pivots: Array, n: int) -> Array:
    """The number of row swaps LAPACK's ``pivots`` make."""
    iota = lax.broadcasted_iota(pivots.dtype, pivots.shape, pivots.ndim - 1)
    return count_nonzero(lax.ne(pivots, iota), axis=-1)


@custom_jvp
def _slogdet_small(a: Array) -> tuple[Array, Array]:
    """JAX's ``slogdet`` of 1 x 1 and 2 x 2 matrices: the determinant's formula."""
    if a.shape[-1] == 1:
        d = a[..., 0, 0]
    else:
        d = a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    return tnp.sign(d), _real(tnp.log(tnp.abs(d)))


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (x,), (g,) = primals, tangents
    sign, ans = _slogdet_small(x)
    if x.shape[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        x00, x01, x10, x11 = x[..., 0, 0], x[..., 0, 1], x[..., 1, 0], x[..., 1, 1]
        d = x00 * x11 - x01 * x10
        ans_dot = (g[..., 0, 0] * x11 - g[..., 0, 1] * x10 - g[..., 1, 0] * x01 + g[..., 1, 1] * x00) / d
    return (sign, ans), _slogdet_tangents(x, sign, ans_dot)


def _slogdet_tangents(x: Array, sign: Array, ans_dot: Array) -> tuple[Array, Array]:
    if is_complex(x.dtype):
        return (ans_dot - _real(ans_dot).astype(ans_dot.dtype)) * sign, _real(ans_dot)
    return tnp.zeros_like(sign), ans_dot


@custom_jvp
def _slogdet_lu(a: Array) -> tuple[Array, Array]:
    """JAX's ``_slogdet_lu``: the sign and the log of the magnitude from the
    LU factors' diagonal and the pivots' parity (0 and -inf where a pivot is 0)."""
    d = a.dtype
    lu_, pivot, _ = lax.linalg.lu(a)
    diag = _diag(lu_)
    is_zero = tnp.any(lax.eq(diag, tnp.zeros((), d)), axis=-1)
    parity = _parity(pivot, a.shape[-1])
    if is_complex(d):
        sign = tnp.prod(diag / tnp.abs(diag).astype(d), axis=-1)
    else:
        sign = tnp.asarray(1, dtype=d)
        parity = parity + count_nonzero(diag < 0, axis=-1)
    sign = tnp.where(is_zero, tnp.asarray(0, dtype=d), sign * tnp.asarray(-2 * (parity % 2) + 1, dtype=d))
    logdet = tnp.where(is_zero, tnp.asarray(-np.inf, dtype=d), tnp.sum(tnp.log(tnp.abs(diag)).astype(d), axis=-1))
    return sign, _real(logdet)


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    """``d log|det a| = trace(a^-1 da)``; the sign's tangent 0 (real) or its
    rotation (complex), as JAX's ``_slogdet_jvp``."""
    (x,), (g,) = primals, tangents
    sign, ans = _slogdet_lu(x)
    ans_dot = trace(solve(x, g), axis1=-1, axis2=-2)
    return (sign, ans), _slogdet_tangents(x, sign, ans_dot)


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """``jnp.linalg.slogdet``: the sign and the log of the absolute value of
    the determinant, a named tuple ``(sign, logabsdet)`` as JAX's: from the
    LU factors (1 x 1 and 2 x 2 matrices by the formula). ``method='qr'``
    (JAX's QR route, which has the same values up to rounding) is computed
    through LU here: typedax's ``qr`` has no ``geqrf`` Householder scalars."""
    x = _square("slogdet", a)
    if method not in (None, "lu", "qr"):
        raise ArgumentValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'.")
    if method == "qr" and is_complex(x.dtype):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    if x.shape[-1] in (1, 2):
        return SlogdetResult(*_slogdet_small(x))
    return SlogdetResult(*_slogdet_lu(x))


def _cofactor_solve(a: Array, b: Array) -> tuple[Array, Array]:
    """JAX's ``_cofactor_solve``: ``det(a)`` and ``adjugate(a) @ b``, also
    for a singular ``a``: of rank n - 1 through the LU factors with the last
    pivot replaced (the adjugate is then rank one), zeros for lower ranks
    (where the adjugate is zero)."""
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu_, pivots, permutation = lax.linalg.lu(a)
    d = a.dtype
    batch = tuple(np.broadcast_shapes(lu_.shape[:-2], b.shape[:-2]))
    x = tnp.broadcast_to(b, batch + b.shape[-2:])
    lu_ = tnp.broadcast_to(lu_, batch + lu_.shape[-2:])
    diag = _diag(lu_)
    parity = _parity(tnp.broadcast_to(pivots, batch + pivots.shape[-1:]), n)
    sign = tnp.asarray(-2 * (parity % 2) + 1, dtype=d)
    partial_det = tnp.cumprod(diag, axis=-1) * sign[..., None]
    lu_ = lu_.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = tnp.broadcast_to(permutation, batch + (n,))
    full_rank = lax.linalg.triangular_solve(lu_, tnp.ones(x.shape[:-1], d), left_side=True, lower=False)
    singular = tnp.any(tnp.logical_or(tnp.isnan(full_rank), tnp.isinf(full_rank)), axis=-1)
    mask = tnp.broadcast_to(singular[..., None, None], x.shape)
    x = tnp.where(mask, tnp.zeros_like(x), x)
    x = take_rows(x, permutation)
    x = lax.linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    x = tnp.concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]), axis=-2)
    x = lax.linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    x = tnp.where(mask, tnp.zeros_like(x), x)
    return partial_det[..., -1], x


@custom_jvp
def _det(a: Array) -> Array:
    sign, logdet = slogdet(a)
    return sign * tnp.exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    """``d det a = trace(adjugate(a) da)``, well defined for a singular ``a``
    (JAX's ``_cofactor_solve``)."""
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, trace(z, axis1=-1, axis2=-2)


def det(a: ArrayLike) -> Array:
    """``jnp.linalg.det``: the determinant of the last two axes, as JAX's:
    the formula for 2 x 2 and 3 x 3 matrices, else from the LU factors
    (``slogdet``), with the derivative through the adjugate (defined for
    singular matrices too)."""
    x = _square("det", a)
    if x.shape[-1] == 2:
        return x[..., 0, 0] * x[..., 1, 1] - x[..., 0, 1] * x[..., 1, 0]
    if x.shape[-1] == 3:
        return (x[..., 0, 0] * x[..., 1, 1] * x[..., 2, 2] + x[..., 0, 1] * x[..., 1, 2] * x[..., 2, 0]
                + x[..., 0, 2] * x[..., 1, 0] * x[..., 2, 1] - x[..., 0, 2] * x[..., 1, 1] * x[..., 2, 0]
                - x[..., 0, 0] * x[..., 1, 2] * x[..., 2, 1] - x[..., 0, 1] * x[..., 1, 0] * x[..., 2, 2])
    return _det(x)
