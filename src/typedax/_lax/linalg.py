"""The implementation of ``typedax.lax.linalg``: ``jax.lax.linalg``'s decompositions --
``cholesky``, ``triangular_solve``, ``qr``, ``eigh``, ``svd``, ``eig``, ``lu``,
``lu_pivots_to_permutation`` and JAX's private ``lu_solve`` -- over the
primitives of ``typedax.primitives.linalg`` (see its docstring for the
design: jaxlib's LAPACK kernels under ``jit``, SciPy's LAPACK eagerly).

Importing this module installs ``jaxlib_api.prepare_linalg`` as the
primitives' kernel preparer (it registers jaxlib's CPU LAPACK or CUDA
cuSOLVER kernels with XLA when the first of them is lowered), and the
runtime's ``platform`` as theirs (on the GPU they evaluate eagerly through
the same kernels as under ``jit``).
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np

from ..core.array import Array, ArrayLike, from_numpy
from ..core.dtypes import COMPLEX, INTEGER, bool_, canonicalize_dtype, default_float, float32, float64
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from ..core.trace import aval_of, bind, bind1
from ..lowering import jaxlib_api, runtime
from ..primitives import linalg as _p
from ..primitives._params import params_of
from ..primitives.shaping import broadcasted_iota, expand_dims, squeeze
from ..primitives.sorting import sort
from ..primitives.slicing import slice as _slice
from . import lax

__all__ = ["cholesky", "eig", "eigh", "lu", "lu_pivots_to_permutation", "qr", "svd", "symmetrize",
           "triangular_solve"]

if jaxlib_api.prepare_linalg not in _p.LAPACK_PREPARERS:
    _p.LAPACK_PREPARERS.append(jaxlib_api.prepare_linalg)
_p.PLATFORM[0] = runtime.platform


def _array(x: ArrayLike) -> Array:
    """``x`` as an ``Array``: an ``Array`` (or tracer) as it is, a NumPy or
    Python value (nested lists too) in its canonical dtype (x64 off: 64 bits
    enter as 32), as ``typedax.numpy.asarray`` gives it."""
    if isinstance(x, Array):
        return x
    value = np.asarray(x)
    return from_numpy(np.array(value, dtype=canonicalize_dtype(value.dtype)))


def _swap_last(a: Array) -> Array:
    """``a`` with its last two axes swapped."""
    n = aval_of(a).ndim
    return lax.transpose(a, (*range(n - 2), n - 1, n - 2))


def _checked(name: str, x: ArrayLike, symmetrize_input: bool) -> Array:
    """``x`` as an array, its shape refused (as the primitive would) before
    symmetrizing; integers pass when symmetrized (``/ 2`` makes them floats,
    as in JAX)."""
    a = _array(x)
    av = aval_of(a)
    if symmetrize_input:
        if av.ndim < 2 or av.shape[-1] != av.shape[-2]:
            raise ShapeError(
                f"{name}: the operand must be a (batch of) square matrices of rank >= 2, got {av.str_short()}"
            )
    else:
        _p.check_matrix(name, av, square=True)
    return a


def symmetrize(x: ArrayLike) -> Array:
    """``(x + x^H) / 2`` over the last two axes (``jax.lax.linalg.symmetrize``;
    ``x^H`` the conjugate transpose, ``x^T`` for a real ``x``),
    with ``typedax.numpy``'s promotion: integers add in their dtype, then
    divide in float32 (float64 for 64-bit integers); bools add as a logical
    or, then divide in the default float type (a bool meets the divisor 2 as
    the default integer type)."""
    a = _array(x)
    d = aval_of(a).dtype
    other = _swap_last(lax.conj(a)) if d in COMPLEX else _swap_last(a)
    both = lax.bitwise_or(a, other) if d == bool_ else lax.add(a, other)
    if d == bool_:
        both = lax._convert_weak(both, default_float())  # weak, as a bool meeting a Python int
    elif d in INTEGER:
        both = lax.convert_element_type(both, float32 if d.itemsize <= 4 else float64)
    return lax.div(both, 2)


def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Array:
    """The lower Cholesky factor of each matrix of ``x`` (``[..., n, n]``);
    NaNs where a matrix is not positive definite."""
    a = _checked("cholesky", x, symmetrize_input)
    a = symmetrize(a) if symmetrize_input else a
    return bind1(_p.cholesky_p, (a,), params_of())


def triangular_solve(
    a: ArrayLike,
    b: ArrayLike,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Array:
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for
    triangular ``a``; ``op`` transposes with ``transpose_a`` and conjugates
    a complex ``a`` with ``conjugate_a``. ``b`` with one axis fewer than
    ``a`` is a (batch of) vectors."""
    aa, bb = _array(a), _array(b)
    nb = aval_of(bb).ndim
    singleton = nb == aval_of(aa).ndim - 1
    if singleton:
        bb = expand_dims(bb, (nb if left_side else nb - 1,))
    out = _p.triangular_solve_(aa, bb, left_side=bool(left_side), lower=bool(lower),
                               transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                               unit_diagonal=bool(unit_diagonal))
    if singleton:
        n = aval_of(out).ndim
        return squeeze(out, (n - 1 if left_side else n - 2,))
    return out


def qr(x: ArrayLike, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: bool | None = None) -> tuple[Array, Array]:
    """``(q, r)`` with ``x = q @ r``: ``q`` ``[..., m, m]`` (``full_matrices``)
    or ``[..., m, k]``, ``r`` upper triangular; LAPACK's signs."""
    if pivoting:
        raise NotImplementedError("qr: pivoting=True is not supported by typedax")
    q, r = bind(_p.qr_p, (_array(x),), params_of(("full_matrices", bool(full_matrices))))
    return q, r


def eigh(x: ArrayLike, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True,
         subset_by_index: tuple[int, int] | None = None) -> tuple[Array, Array]:
    """``(v, w)``: eigenvectors (columns of ``v``) and eigenvalues, ascending,
    of each symmetric matrix of ``x``."""
    a = _checked("eigh", x, symmetrize_input)
    a = symmetrize(a) if symmetrize_input else a
    v, w = bind(_p.eigh_p, (a,), params_of(("lower", bool(lower))))
    if subset_by_index is not None:
        lo, hi = subset_by_index
        n = aval_of(w).shape[-1]
        if not 0 <= lo <= hi <= n:
            raise PrimitiveTypeError(f"eigh: subset_by_index {subset_by_index} is out of range for size {n}")
        v, w = _last_axis(v, lo, hi), _last_axis(w, lo, hi)
    return v, w


def _last_axis(a: Array, lo: int, hi: int) -> Array:
    """``a[..., lo:hi]`` (``a`` itself for the whole axis, as indexing gives it)."""
    shape = aval_of(a).shape
    if (lo, hi) == (0, shape[-1]):
        return a
    return _slice(a, (0,) * (len(shape) - 1) + (lo,), shape[:-1] + (hi,))


@overload
def svd(x: ArrayLike, *, full_matrices: bool = ..., compute_uv: Literal[True] = ...,
        subset_by_index: tuple[int, int] | None = ..., algorithm: object = ...) -> tuple[Array, Array, Array]: ...
@overload
def svd(x: ArrayLike, *, full_matrices: bool = ..., compute_uv: Literal[False],
        subset_by_index: tuple[int, int] | None = ..., algorithm: object = ...) -> Array: ...
@overload
def svd(x: ArrayLike, *, full_matrices: bool = ..., compute_uv: bool,
        subset_by_index: tuple[int, int] | None = ..., algorithm: object = ...) -> Array | tuple[Array, Array, Array]: ...
def svd(x: ArrayLike, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None,
        algorithm: object = None) -> Array | tuple[Array, Array, Array]:
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` and ``s`` descending, or
    ``s`` alone (``compute_uv=False``)."""
    a = _array(x)
    shape = aval_of(a).shape
    k = min(shape[-2:]) if len(shape) >= 2 else 0
    if subset_by_index is not None and tuple(subset_by_index) != (0, k):
        raise NotImplementedError("svd: subset_by_index is not supported by typedax (as JAX on CPU)")
    params = params_of(("full_matrices", bool(full_matrices)), ("compute_uv", bool(compute_uv)))
    outs = bind(_p.svd_p, (a,), params)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


def eig(x: ArrayLike, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: object = None,
        use_magma: bool | None = None) -> list[Array]:
    """The eigendecomposition of each general square matrix of ``x``
    (``jax.lax.linalg.eig``): ``[w, vl, vr]``, ``vl``/``vr`` only where asked
    for, all complex, in LAPACK's (``geev``'s) order and normalization; the
    left eigenvectors satisfy ``vl^H @ x = w * vl^H``. CPU only (jaxlib's
    LAPACK kernel under ``jit``; SciPy's eagerly). The eigenvalues are
    differentiable; the eigenvectors with ``enable_eigvec_derivs=True``
    (valid for distinct eigenvalues, each eigenvector's largest component
    unambiguous), as JAX's. Only the LAPACK implementation."""
    if implementation is not None or use_magma:
        raise NotImplementedError(f"eig: typedax computes eig with LAPACK only, got implementation={implementation!r}")
    a = _array(x)
    av = aval_of(a)
    if av.ndim >= 2 and av.shape[-1] != av.shape[-2]:  # a ValueError, as JAX's
        raise ArgumentValueError(f"eig: The input to eig must be a square matrix. Got shape {av.shape}.")
    _p.check_matrix("eig", av, square=True)
    params = _p.eig_params(bool(compute_left_eigenvectors), bool(compute_right_eigenvectors), bool(enable_eigvec_derivs))
    return list(bind(_p.eig_p, (a,), params))


def lu(x: ArrayLike) -> tuple[Array, Array, Array]:
    """LU decomposition with partial pivoting, ``P A = L U``, of each matrix
    of ``x`` (``[..., m, n]``; ``jax.lax.linalg.lu``): ``(lu, pivots,
    permutation)``, ``lu`` holding ``L`` (unit diagonal implied) below the
    diagonal and ``U`` on and above it, ``pivots`` LAPACK's row swaps
    (0-based int32, ``[..., min(m, n)]``), ``permutation`` the rows they
    make (``[..., m]``). LAPACK's ``getrf`` (cuSOLVER's on CUDA), as JAX's."""
    a = _array(x)
    _p.check_matrix("lu", aval_of(a), square=False)
    out, piv, perm = bind(_p.lu_p, (a,), params_of())
    return out, piv, perm


def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Array:
    """The permutation (``[..., permutation_size]``, int32) the row swaps
    ``pivots`` (``[..., k]``, int32, applied in order) make of
    ``range(permutation_size)`` (``jax.lax.linalg.lu_pivots_to_permutation``)."""
    p = _array(pivots)
    return bind1(_p.lu_pivots_to_permutation_p, (p,), params_of(("permutation_size", int(permutation_size))))


def _broadcast_batch(x: Array, batch: tuple[int, ...], core: int) -> Array:
    """``x`` broadcast to ``batch`` + its last ``core`` axes."""
    shape = aval_of(x).shape
    target = batch + shape[len(shape) - core:]
    if shape == target:
        return x
    nd = len(shape)
    return lax.broadcast_in_dim(x, target, tuple(range(len(target) - nd, len(target))))


def lu_solve(lu: ArrayLike, permutation: ArrayLike, b: ArrayLike, trans: int = 0) -> Array:
    """Solve ``op(a) x = b`` from ``a``'s LU factors ``lu`` and its
    ``permutation`` (``lu``'s first and last results), ``op`` the identity
    (``trans=0``), the transpose (1) or the conjugate transpose (2); ``b``
    with one axis fewer than ``lu`` is a (batch of) vectors, and the batch
    axes broadcast (JAX's private ``lax.linalg.lu_solve``: the same
    permutation and two ``triangular_solve``s)."""
    f, perm, rhs = _array(lu), _array(permutation), _array(b)
    fs, bs = aval_of(f).shape, aval_of(rhs).shape
    if len(fs) < 2 or fs[-1] != fs[-2]:
        raise ArgumentValueError(f"last two dimensions of LU decomposition must be equal, got shape {fs}")
    if len(bs) < 1:
        raise ArgumentValueError(f"b matrix must have rank >= 1, got shape {bs}")
    if trans not in (0, 1, 2):
        raise ArgumentValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    m = fs[-1]
    vector = len(fs) == len(bs) + 1
    if vector:
        if bs[-1] != m:
            raise ShapeError(
                f"When LU decomposition matrix and b have the same number of dimensions, last axis of LU "
                f"decomposition matrix (shape {fs}) and b array (shape {bs}) must match")
        rhs = expand_dims(rhs, (len(bs),))
    elif len(bs) < 2 or bs[-2] != m:
        raise ShapeError(
            f"When LU decomposition matrix and b different numbers of dimensions, last axis of LU "
            f"decomposition matrix (shape {fs}) and second to last axis of b array (shape {bs}) must match")
    batch = tuple(np.broadcast_shapes(fs[:-2], aval_of(perm).shape[:-1], aval_of(rhs).shape[:-2]))
    f = _broadcast_batch(f, batch, 2)
    perm = _broadcast_batch(perm, batch, 1)
    x = _broadcast_batch(rhs, batch, 2)
    if trans == 0:
        x = _p.triangular_solve_(f, _p.take_rows(x, perm), left_side=True, lower=True, transpose_a=False,
                                 unit_diagonal=True)
        x = _p.triangular_solve_(f, x, left_side=True, lower=False, transpose_a=False)
    else:
        conj = trans == 2
        x = _p.triangular_solve_(f, x, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
        x = _p.triangular_solve_(f, x, left_side=True, lower=True, transpose_a=True, conjugate_a=conj,
                                 unit_diagonal=True)
        nd = len(batch) + 1
        ids = broadcasted_iota(np.dtype(np.int32), batch + (m,), nd - 1)
        _, inverse = sort((perm, ids), dimension=nd - 1, num_keys=1)
        x = _p.take_rows(x, inverse)
    return squeeze(x, (len(batch) + 1,)) if vector else x
