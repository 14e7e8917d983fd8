"""``typedax.numpy.linalg``'s decompositions and what is built on them, as
``jax.numpy.linalg``: ``cholesky``, ``qr``, ``eig``, ``eigvals``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, ``pinv``, ``lstsq``, ``matrix_rank``, ``cond``, and the
compositions ``matrix_power``, ``multi_dot``, ``tensorsolve``,
``tensorinv``, ``vecdot``, ``matrix_transpose``, ``diagonal``, ``trace``,
``matmul``.

The decompositions are ``typedax.lax_linalg``'s (LAPACK, eagerly and under
``jit``); integer and bool inputs are promoted to the default float first,
as JAX's. ``svd(..., hermitian=True)`` goes through ``eigh`` as JAX's.
``pinv`` and ``lstsq`` differentiate through the SVD (JAX gives ``pinv`` a
custom JVP; the two agree where the rank does not change).
``linalg.py`` re-exports these names."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Literal, NamedTuple, overload

import numpy as np

from .. import lax
from .. import lax_linalg
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType
from ..primitives._precision import PrecisionLike
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from . import creation as _creation
from . import elementwise as _elementwise
from . import functional as _functional
from . import lax_numpy as tnp
from . import manipulation as _manipulation
from . import scalar_types as _scalar_types
from .einsum import einsum as _einsum
from .linalg_basic import SlogdetResult, inv, norm, solve

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "cholesky", "cond", "diagonal", "eig", "eigh",
    "eigvals", "eigvalsh",
    "lstsq", "matmul", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "pinv", "qr",
    "svd", "svdvals", "tensorinv", "tensorsolve", "trace", "vecdot",
]


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(tnp._float(tnp.asarray(x)))


def _eps(dtype: np.dtype[np.generic]) -> float:
    return 2.220446049250313e-16 if dtype == np.float64 else float(np.finfo(np.float32).eps)


def _mT(x: Array) -> Array:
    return _manipulation.swapaxes(x, -1, -2)


def _mH(x: Array) -> Array:
    """The conjugate transpose of the last two axes (``_mT`` of a real ``x``)."""
    return _elementwise.conjugate(_mT(x)) if _elementwise.iscomplexobj(x) else _mT(x)


def _matrix(op: str, a: ArrayLike) -> Array:
    x = _inexact(a)
    if x.ndim < 2:
        raise ShapeError(f"{op}: the array must be at least two-dimensional, got shape {x.shape}")
    return x


def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Array:
    """``jnp.linalg.cholesky``: the lower factor ``L`` with ``a = L @ L^H``
    (``upper``: ``U = L^H``); NaNs for a matrix that is not positive definite."""
    low = lax_linalg.cholesky(_matrix("cholesky", a), symmetrize_input=symmetrize_input)
    return _mH(low) if upper else low


@overload
def qr(a: ArrayLike, mode: Literal["reduced", "complete"] = ...) -> QRResult: ...
@overload
def qr(a: ArrayLike, mode: Literal["r"]) -> Array: ...
@overload
def qr(a: ArrayLike, mode: str) -> Array | QRResult: ...
def qr(a: ArrayLike, mode: str = "reduced") -> Array | QRResult:
    """``jnp.linalg.qr``: ``mode`` ``'reduced'`` (``Q`` ``[..., m, k]``),
    ``'complete'`` (``Q`` ``[..., m, m]``) or ``'r'`` (``R`` alone)."""
    if mode not in ("reduced", "complete", "r"):
        raise PrimitiveTypeError(f"qr: unsupported mode {mode!r}; choose 'reduced', 'complete' or 'r'")
    q, r = lax_linalg.qr(_matrix("qr", a), full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _lower(op: str, UPLO: str | None) -> bool:  # noqa: N803 - NumPy's name
    if UPLO is None or UPLO == "L":
        return True
    if UPLO == "U":
        return False
    raise PrimitiveTypeError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803 - NumPy's name
    """``jnp.linalg.eigh``: eigenvalues (ascending) and eigenvectors (columns)
    of each symmetric matrix; reads the ``UPLO`` triangle when not symmetrizing."""
    x = _matrix("eigh", a)
    v, w = lax_linalg.eigh(x, lower=_lower("eigh", UPLO), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a: ArrayLike) -> EigResult:
    """``jnp.linalg.eig``: the (complex) eigenvalues and right eigenvectors
    (columns, unit 2-norm) of each general square matrix, in LAPACK's order;
    CPU only. Differentiating the eigenvectors is refused, as JAX's default."""
    x = _matrix("eig", a)
    w, v = lax_linalg.eig(x, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a: ArrayLike) -> Array:
    """``jnp.linalg.eigvals``: the (complex) eigenvalues of each general
    square matrix, in LAPACK's order; CPU only; differentiable."""
    x = _matrix("eigvals", a)
    return lax_linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Array:  # noqa: N803 - NumPy's name
    """``jnp.linalg.eigvalsh``: the eigenvalues of ``eigh``, ascending."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


def _hermitian_svd(x: Array, compute_uv: bool) -> Array | SVDResult:
    v, w = lax_linalg.eigh(x)
    s = tnp.abs(w)
    order = tnp.flip(tnp.argsort(s, axis=-1), axis=-1)
    s = _manipulation.take_along_axis(s, order, axis=-1)
    if not compute_uv:
        return s
    sign = _manipulation.take_along_axis(tnp.sign(w), order, axis=-1)
    u = _manipulation.take_along_axis(v, tnp.expand_dims(order, -2), axis=-1)
    return SVDResult(u, s, _mH(u * tnp.expand_dims(sign, -2).astype(u.dtype)))


@overload
def svd(a: ArrayLike, full_matrices: bool = ..., compute_uv: Literal[True] = ...,
        hermitian: bool = ..., subset_by_index: tuple[int, int] | None = ...) -> SVDResult: ...
@overload
def svd(a: ArrayLike, full_matrices: bool, compute_uv: Literal[False],
        hermitian: bool = ..., subset_by_index: tuple[int, int] | None = ...) -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = ..., *, compute_uv: Literal[False],
        hermitian: bool = ..., subset_by_index: tuple[int, int] | None = ...) -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = ..., compute_uv: bool = ...,
        hermitian: bool = ..., subset_by_index: tuple[int, int] | None = ...) -> Array | SVDResult: ...
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False, subset_by_index: tuple[int, int] | None = None) -> Array | SVDResult:
    """``jnp.linalg.svd``: ``SVDResult(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``
    and ``S`` descending, or ``S`` alone (``compute_uv=False``)."""
    x = _matrix("svd", a)
    if hermitian:
        return _hermitian_svd(x, compute_uv)
    if not compute_uv:
        return lax_linalg.svd(x, full_matrices=full_matrices, compute_uv=False, subset_by_index=subset_by_index)
    u, s, vh = lax_linalg.svd(x, full_matrices=full_matrices, compute_uv=True, subset_by_index=subset_by_index)
    return SVDResult(u, s, vh)


def svdvals(x: ArrayLike, /) -> Array:
    """``jnp.linalg.svdvals``: the singular values, descending."""
    return svd(x, compute_uv=False)


def pinv(a: ArrayLike, rtol: ArrayLike | None = None, hermitian: bool = False, *,
         rcond: ArrayLike | None = None) -> Array:
    """``jnp.linalg.pinv``: the Moore-Penrose pseudo-inverse (singular values
    at most ``rtol`` times the largest count as zero)."""
    if rcond is not None:
        if rtol is not None:
            raise PrimitiveTypeError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    x = _elementwise.conjugate(_matrix("pinv", a))  # (as JAX's: the conjugate's vh^T u^T / s)
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        return tnp.zeros(x.shape[:-2] + (n, m), x.dtype)
    tol = (tnp.asarray(10.0 * max(m, n) * _eps(x.dtype), x.dtype) if rtol is None
           else tnp.asarray(rtol, x.dtype))
    u, s, vh = svd(x, full_matrices=False, hermitian=hermitian)
    tol = lax.expand_dims(tnp.expand_dims(tol, -1), tuple(range(s.ndim - tol.ndim - 1)))
    cutoff = tol * s[..., 0:1]
    s = tnp.where(s > cutoff, s, _elementwise.inf)
    return tnp.matmul(_mT(vh), _mT(u) / tnp.expand_dims(s, -1).astype(u.dtype)).astype(x.dtype)


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[Array, Array, Array, Array]:
    """``jnp.linalg.lstsq``: ``(x, resid, rank, s)`` minimizing ``|a @ x - b|``
    through the SVD of ``a`` (2-d); ``b`` 1-d or 2-d."""
    x_, y_ = (tnp.asarray(v) for v in tnp._promote(_inexact(a), _inexact(b)))
    if x_.ndim != 2:
        raise PrimitiveTypeError(f"lstsq: {x_.ndim}-dimensional array given. Array must be two-dimensional")
    if y_.ndim not in (1, 2):
        raise PrimitiveTypeError(f"lstsq: {y_.ndim}-dimensional array given. Array must be one or two-dimensional")
    if x_.shape[0] != y_.shape[0]:
        raise ShapeError("lstsq: Leading dimensions of input arrays must match")
    vector = y_.ndim == 1
    rhs = tnp.expand_dims(y_, -1) if vector else y_
    m, n = x_.shape
    dtype = x_.dtype
    eps = _eps(dtype)
    if x_.size == 0:
        s = tnp.zeros((0,), dtype)
        rank = tnp.asarray(0, _functional.int_)
        sol = tnp.zeros((n,) + rhs.shape[1:], dtype)
    else:
        cut = eps * max(n, m) if rcond is None else (eps if rcond < 0 else float(rcond))
        u, s, vt = svd(x_, full_matrices=False)
        mask = (s > 0) & (s >= tnp.asarray(cut, s.dtype) * s[0])
        rank = tnp.sum(mask)
        safe = tnp.where(mask, s, tnp.ones((), dtype))
        s_inv = tnp.expand_dims(tnp.where(mask, 1 / safe, tnp.zeros((), dtype)), -1)
        sol = tnp.matmul(_mH(vt), s_inv.astype(dtype) * tnp.matmul(_mH(u), rhs))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = tnp.asarray(np.zeros((0,), dtype))
    else:
        r = rhs - tnp.matmul(x_, sol)
        resid = tnp.sum(_elementwise.real(r * _elementwise.conjugate(r)), axis=0)
    if vector:
        sol = tnp.ravel(sol)
    return sol, resid, rank, s


def matrix_rank(M: ArrayLike, rtol: ArrayLike | None = None, *, hermitian: bool = False,  # noqa: N803 - NumPy's name
                tol: ArrayLike | None = None) -> Array:
    """``jnp.linalg.matrix_rank``: the number of singular values above
    ``rtol`` (default: the largest times ``max(m, n) * eps``)."""
    if tol is not None:
        if rtol is not None:
            raise PrimitiveTypeError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    x = _inexact(M)
    if x.ndim < 2:
        return tnp.asarray(tnp.any(x != 0), _scalar_types.int32)
    s = svd(x, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        cut = tnp.max(s, axis=-1) * (max(x.shape[-2:]) * _eps(x.dtype))
    else:
        cut = tnp.asarray(rtol, s.dtype)
    cut = tnp.expand_dims(cut, cut.ndim)
    return tnp.sum(s > cut, axis=-1)


def cond(x: ArrayLike, p: int | float | str | None = None) -> Array:
    """``jnp.linalg.cond``: the condition number in norm ``p`` (2, -2 and
    None through the singular values; the others ``norm(x) * norm(inv(x))``);
    ``inf`` where the matrix is singular."""
    arr = _inexact(x)
    if arr.ndim < 2:
        raise PrimitiveTypeError(f"cond: input array must be at least 2D; got arr.shape={arr.shape}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise PrimitiveTypeError(f"cond: input array must not be empty; got arr.shape={arr.shape}")
    if p is None or p == 2:
        s = svdvals(arr)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(arr)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise PrimitiveTypeError(f"cond: for p={p!r}, array must be square; got arr.shape={arr.shape}")
        r = norm(arr, ord=p, axis=(-2, -1)) * norm(inv(arr), ord=p, axis=(-2, -1))
    nan_free = tnp.logical_not(tnp.any(tnp.isnan(arr), axis=(-2, -1)))
    return tnp.where(tnp.isnan(r) & nan_free, _elementwise.inf, r)


def matrix_power(a: ArrayLike, n: int) -> Array:
    """``jnp.linalg.matrix_power``: ``a`` to the integer power ``n`` (by
    squaring; a negative ``n`` inverts first)."""
    arr = tnp.asarray(a)
    if arr.ndim < 2:
        raise PrimitiveTypeError(f"matrix_power: {arr.ndim}-dimensional array given. Array must be at least two-dimensional")
    if arr.shape[-2] != arr.shape[-1]:
        raise PrimitiveTypeError("matrix_power: Last 2 dimensions of the array must be square")
    try:
        k = operator.index(n)
    except TypeError as err:
        raise PrimitiveTypeError(f"matrix_power: exponent must be an integer, got {n}") from err
    if k == 0:
        return tnp.broadcast_to(_creation.eye(arr.shape[-2], dtype=arr.dtype), arr.shape)
    if k < 0:
        arr, k = inv(arr), -k
    if k == 1:
        return arr
    if k == 2:
        return arr @ arr
    if k == 3:
        return (arr @ arr) @ arr
    z: Array | None = None
    result: Array | None = None
    while k > 0:
        z = arr if z is None else z @ z
        k, bit = divmod(k, 2)
        if bit:
            result = z if result is None else result @ z
    assert result is not None
    return result


def multi_dot(arrays: Sequence[ArrayLike], *, precision: object = None) -> Array:
    """``jnp.linalg.multi_dot``: the product of the arrays (the first and last
    may be 1-d), in the cheapest order (``einsum``'s ``optimize``)."""
    arrs = [tnp.asarray(x) for x in arrays]
    if len(arrs) < 2:
        raise PrimitiveTypeError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2) and all(x.ndim == 2 for x in arrs[1:-1])):
        raise PrimitiveTypeError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and last array "
            f"which may be 1 or 2 dimensional. Got array shapes {[x.shape for x in arrs]}"
        )
    if any(x.shape[-1] != y.shape[0] for x, y in zip(arrs[:-1], arrs[1:])):
        raise PrimitiveTypeError(
            "multi_dot: last dimension of each array must match first dimension of following array. "
            f"Got array shapes {[x.shape for x in arrs]}"
        )
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if len(arrs) + 1 > len(letters):
        result = arrs[0]
        for x in arrs[1:]:
            result = tnp.matmul(result, x)
        return result
    subs = [letters[i:i + 2] for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        subs[0] = subs[0][1:]
    if arrs[-1].ndim == 1:
        subs[-1] = subs[-1][:1]
    out = (subs[0][0] if arrs[0].ndim == 2 else "") + (subs[-1][-1] if arrs[-1].ndim == 2 else "")
    return _einsum(",".join(subs) + "->" + out, *arrs, optimize="auto")


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """``jnp.linalg.tensorinv``: the inverse of ``a`` read as a matrix of its
    first ``ind`` axes by the rest."""
    arr = tnp.asarray(a)
    k = operator.index(ind)
    if k <= 0:
        raise PrimitiveTypeError(f"tensorinv: ind must be a positive integer; got ind={k}")
    contracting, batch = arr.shape[:k], arr.shape[k:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise PrimitiveTypeError(
            "tensorinv is only possible when the product of the first `ind` dimensions equals that of the "
            f"remaining dimensions. got arr.shape={arr.shape} with ind={k}."
        )
    return tnp.reshape(inv(tnp.reshape(arr, flat)), batch + contracting)


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> Array:
    """``jnp.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == b``."""
    aa, bb = tnp.asarray(a), tnp.asarray(b)
    if axes is not None:
        aa = _manipulation.moveaxis(aa, axes, tuple(len(axes) * (aa.ndim - 1,)))
    out_shape = aa.shape[bb.ndim:]
    if aa.shape[:bb.ndim] != bb.shape:
        raise PrimitiveTypeError(
            "tensorsolve: After moving axes to end, leading shape of a must match shape of b. "
            f"got a.shape={aa.shape}, b.shape={bb.shape}"
        )
    if bb.size != math.prod(out_shape):
        raise PrimitiveTypeError(
            "tensorsolve: Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
            f"got a.shape={aa.shape}, b.ndim={bb.ndim}."
        )
    flat = tnp.reshape(aa, (bb.size, math.prod(out_shape)))
    return tnp.reshape(solve(flat, tnp.ravel(bb)), out_shape)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: PrecisionLike = None,
           preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.linalg.vecdot``: ``jnp.vecdot`` (as in JAX): the contracted
    axes must match before the others broadcast, and the result keeps the
    operands' promoted dtype (uint8 stays uint8)."""
    return _manipulation.vecdot(x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """``jnp.linalg.matrix_transpose``: the last two axes swapped."""
    arr = tnp.asarray(x)
    if arr.ndim < 2:
        raise PrimitiveTypeError(f"matrix_transpose requires at least 2 dimensions; got ndim={arr.ndim}")
    return _mT(arr)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Array:
    """``jnp.linalg.diagonal``: the diagonals of the last two axes."""
    return _creation.diagonal(tnp.asarray(x), offset=offset, axis1=-2, axis2=-1)


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: DType | type | None = None) -> Array:
    """``jnp.linalg.trace``: the traces of the last two axes (summed in ``dtype`` when given)."""
    return _creation.trace(tnp.asarray(x), offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """``jnp.linalg.cross``: ``jnp.cross`` of 3-component vectors only (as the standard)."""
    a, b = tnp.asarray(x1), tnp.asarray(x2)
    if a.ndim == 0 or b.ndim == 0 or a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ArgumentValueError(
            "linalg.cross: both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they have shapes {a.shape} and {b.shape} with axis={axis}"
        )
    return _manipulation.cross(a, b, axis=axis)


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.linalg.outer``: the outer product of two 1-d arrays (``_manipulation.outer`` flattens; this refuses)."""
    a, b = tnp.asarray(x1), tnp.asarray(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ArgumentValueError(f"linalg.outer: input arrays must be one-dimensional, got shapes {a.shape} and {b.shape}")
    return _manipulation.outer(a, b)


def tensordot(x1: ArrayLike, x2: ArrayLike, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2,
              precision: PrecisionLike = None, preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.linalg.tensordot``: ``jnp.tensordot`` with keyword-only ``axes``."""
    return _manipulation.tensordot(x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type)


def matmul(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``jnp.linalg.matmul``: ``numpy.matmul``."""
    return tnp.matmul(x1, x2)
