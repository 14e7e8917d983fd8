"""The implementation of ``typedax.scipy.linalg``, as ``jax.scipy.linalg``:
SciPy's names and signatures over ``typedax.lax.linalg``'s decompositions
and ``typedax.numpy.linalg``.

``lu``, ``lu_factor`` and ``lu_solve`` are on ``lax.linalg.lu`` (the
``lu`` primitive: LAPACK's ``getrf`` on the CPU, cuSOLVER's on CUDA) and
``lax.linalg.lu_solve``, as JAX's, so under ``jit`` their values are JAX's
to the bit. ``hessenberg`` is LAPACK's unblocked ``gehd2`` as a
``fori_loop`` over the columns.
``expm`` is JAX's: a Padé approximant of degree 3 to 13 chosen by the 1-norm
(``lax.switch``), scaling and squaring (``lax.scan`` of ``lax.cond``), NaN
past ``max_squarings``; its derivatives are those of that program, as in
JAX, and ``expm_frechet`` is its JVP. ``eigh_tridiagonal``'s eigenvalues are
JAX's bisection. ``schur`` is LAPACK's ``gees`` called on the host (SciPy's,
through ``pure_callback``: JAX's lowering is CPU-only too), and ``sqrtm``,
``rsf2csf``, ``funm`` and ``solve_sylvester`` build on it as JAX's do.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Literal, cast, overload

import numpy as np

from .. import lax
from .. import lax_linalg
from .. import numpy as tnp
from ..api_forward import jvp
from ..control_flow.callbacks import pure_callback
from ..api import ShapeDtypeStruct
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_complex, default_float, is_complex
from ..core.trace import Value
from .._numpy import lax_numpy as _lax_numpy

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal",
    "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]

_HIGHEST = lax.Precision.HIGHEST


def _inexact(*xs: ArrayLike) -> list[Array]:
    """JAX's ``promote_dtypes_inexact``: one dtype for all, integers and
    bools to the default float (weak Python scalars stay weak)."""
    vals = _lax_numpy._promote(*(x if isinstance(x, Array) else tnp.asarray(x) for x in xs))
    return [tnp.asarray(_lax_numpy._float(v)) for v in vals]


def _square(name: str, a: Array) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected a (batch of) square matrices, got shape {a.shape}")


def _mT(a: Array) -> Array:  # noqa: N802 - the array API's name
    return tnp.swapaxes(a, -1, -2)


def _conj_mT(a: Array) -> Array:  # noqa: N802 - the array API's name
    t = _mT(a)
    return tnp.conj(t) if is_complex(a.dtype) else t


# -- Cholesky ---------------------------------------------------------------------------
def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The Cholesky factor of each (Hermitian positive definite) matrix of
    ``a``: upper ``U`` with ``a = U^H U`` or, with ``lower``, lower ``L`` with
    ``a = L L^H`` (only that triangle of ``a`` is read). NaNs where a matrix
    is not positive definite."""
    del overwrite_a, check_finite
    (x,) = _inexact(a)
    _square("cholesky", x)
    chol = lax_linalg.cholesky(x if lower else _conj_mT(x), symmetrize_input=False)
    return chol if lower else _conj_mT(chol)


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, bool]:
    """``(c, lower)`` for ``cho_solve``: the Cholesky factor and its triangle."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def _solve_signature(name: str, a: Array, b: Array) -> bool:
    """Whether ``b`` is a (batch of) vectors for ``a`` ``[..., n, n]`` (JAX's
    rule: ``b`` 1-d, or -- deprecated, with JAX's ``FutureWarning`` -- one
    dimension less than ``a`` and ending in ``n``)."""
    if b.ndim == 1:
        return True
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in the "
            f"future will be treated as a batched 2D solve. Use {name}(..., b[..., None]).squeeze(-1) "
            "to avoid this warning.", category=FutureWarning, stacklevel=3)
        return True
    return False


def _batched(fn: Callable[[Array, Array], Array], a: Array, b: Array, vector: bool) -> Array:
    """``fn(a, b)`` over the broadcast batch dimensions of ``a`` (``[..., n,
    n]``) and ``b`` (``[..., n]`` or ``[..., n, k]``)."""
    if b.ndim < 1:
        raise ValueError(f"b must have rank >= 1, got shape {b.shape}")
    rhs = b[..., None] if vector else b
    n = a.shape[-1]
    if rhs.shape[-2] != n:
        raise ValueError(f"incompatible shapes: a {a.shape} and b {b.shape}")
    batch = tuple(np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2]))
    out = fn(tnp.broadcast_to(a, batch + a.shape[-2:]), tnp.broadcast_to(rhs, batch + rhs.shape[-2:]))
    return out[..., 0] if vector else out


def _triangular(a: Array, b: Array, *, lower: bool, transpose_a: bool = False,
                conjugate_a: bool = False, unit_diagonal: bool = False) -> Array:
    if conjugate_a and is_complex(a.dtype):
        a = tnp.conj(a)
    return lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                       unit_diagonal=unit_diagonal)


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Array:
    """Solve ``a x = b`` from ``cho_factor(a)``'s ``(c, lower)``."""
    del overwrite_b, check_finite
    c_, lower = c_and_lower
    c, bb = _inexact(c_, b)
    _square("cho_solve", c)
    vector = _solve_signature("cho_solve", c, bb)

    def run(cm: Array, rhs: Array) -> Array:
        y = _triangular(cm, rhs, lower=lower, transpose_a=not lower, conjugate_a=not lower)
        return _triangular(cm, y, lower=lower, transpose_a=lower, conjugate_a=lower)

    return _batched(run, c, bb, vector)


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: object = None,
                     check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` for triangular ``a``; ``trans`` 0/'N' (``a``),
    1/'T' (its transpose) or 2/'C' (its conjugate transpose)."""
    del overwrite_b, debug, check_finite
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    aa, bb = _inexact(a, b)
    _square("solve_triangular", aa)
    vector = _solve_signature("solve_triangular", aa, bb)

    def run(am: Array, rhs: Array) -> Array:
        return _triangular(am, rhs, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                           unit_diagonal=unit_diagonal)

    return _batched(run, aa, bb, vector)


# -- LU ---------------------------------------------------------------------------------
def _lu(a: Array) -> tuple[Array, Array, Array]:
    """``jax.lax.linalg.lu`` of a (batch of) matrices ``[..., m, n]``."""
    if a.ndim < 2:
        raise ValueError(f"lu: expected a (batch of) matrices of rank >= 2, got shape {a.shape}")
    return lax_linalg.lu(a)


def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Array, Array]:
    """``(lu, piv)``: the LU factors of ``a`` in one matrix (unit lower
    triangle implied) and LAPACK's row interchanges (0-based, int32)."""
    del overwrite_a, check_finite
    (x,) = _inexact(a)
    lu_, piv, _ = _lu(x)
    return lu_, piv


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` from ``lu_factor(a)``; ``trans`` 0 (``a``), 1
    (``a^T``) or 2 (``a^H``)."""
    del overwrite_b, check_finite
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    lu_in, piv_in = lu_and_piv
    lu_, bb = _inexact(lu_in, b)
    piv = tnp.asarray(piv_in)
    _square("lu_solve", lu_)
    perm = lax_linalg.lu_pivots_to_permutation(piv.astype(np.int32), lu_.shape[-2])
    vector = _solve_signature("lu_solve", lu_, bb)
    rhs = bb[..., None] if vector else bb
    if rhs.ndim < 2 or rhs.shape[-2] != lu_.shape[-1]:
        raise ValueError(f"lu_solve: incompatible shapes: lu {lu_.shape} and b {bb.shape}")
    batch = tuple(np.broadcast_shapes(lu_.shape[:-2], perm.shape[:-1], rhs.shape[:-2]))
    x = lax_linalg.lu_solve(lu_, perm, tnp.broadcast_to(rhs, batch + rhs.shape[-2:]), trans)
    return x[..., 0] if vector else x


@overload
def lu(a: ArrayLike, permute_l: Literal[False] = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array, Array]: ...
@overload
def lu(a: ArrayLike, permute_l: Literal[True], overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array]: ...
@overload
def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array] | tuple[Array, Array, Array]: ...
def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    """``(p, l, u)`` with ``a = p @ l @ u`` (``l`` unit lower trapezoidal,
    ``u`` upper), or ``(p @ l, u)`` with ``permute_l``; ``a`` is one
    ``[m, n]`` matrix, as in JAX (``lu_factor`` takes batches)."""
    del overwrite_a, check_finite
    (x,) = _inexact(a)
    if x.ndim != 2:
        raise ValueError(f"lu: expected a matrix (rank 2), got shape {x.shape}")
    lu_, _, permutation = _lu(x)
    m, n = x.shape[-2:]
    k = min(m, n)
    p = tnp.real(tnp.asarray(permutation[..., None, :] == lax.iota(np.dtype(np.int32), m)[:, None],
                             dtype=x.dtype))
    l_ = tnp.tril(lu_, -1)[..., :, :k] + tnp.eye(m, k, dtype=x.dtype)
    u = tnp.triu(lu_)[..., :k, :]
    if permute_l:
        return tnp.matmul(p, l_, precision=_HIGHEST), u
    return p, l_, u


# -- the decompositions of lax.linalg, with SciPy's signatures ----------------------------
@overload
def qr(a: ArrayLike, overwrite_a: bool = False, lwork: object = None, *, mode: Literal["full", "economic"],
       pivoting: Literal[False] = False, check_finite: bool = True) -> tuple[Array, Array]: ...
@overload
def qr(a: ArrayLike, overwrite_a: bool = False, lwork: object = None, *, mode: Literal["r"],
       pivoting: Literal[False] = False, check_finite: bool = True) -> tuple[Array]: ...
@overload
def qr(a: ArrayLike, overwrite_a: bool = False, lwork: object = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Array] | tuple[Array, Array]: ...
def qr(a: ArrayLike, overwrite_a: bool = False, lwork: object = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Array] | tuple[Array, Array]:
    """``(q, r)`` (``mode`` 'full' or 'economic') or ``(r,)`` (``mode='r'``)."""
    del overwrite_a, lwork, check_finite
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if pivoting:
        raise NotImplementedError("qr: pivoting=True is not supported by typedax (JAX's geqp3)")
    (x,) = _inexact(a)
    q, r = lax_linalg.qr(x, full_matrices=full_matrices)
    return (r,) if mode == "r" else (q, r)


@overload
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: Literal[True] = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> tuple[Array, Array, Array]: ...
@overload
def svd(a: ArrayLike, full_matrices: bool, compute_uv: Literal[False], overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = True, *, compute_uv: Literal[False], overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Array | tuple[Array, Array, Array]: ...
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Array | tuple[Array, Array, Array]:
    """``(u, s, vh)`` with ``a = u @ diag(s) @ vh``, or ``s`` alone."""
    del overwrite_a, check_finite, lapack_driver
    (x,) = _inexact(a)
    return lax_linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)


@overload
def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, eigvals_only: Literal[False] = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> tuple[Array, Array]: ...  # noqa: A002 - SciPy's name
@overload
def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, *, eigvals_only: Literal[True],
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> Array: ...  # noqa: A002 - SciPy's name
@overload
def eigh(a: ArrayLike, b: ArrayLike | None, lower: bool, eigvals_only: Literal[True],
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> Array: ...  # noqa: A002 - SciPy's name
@overload
def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> Array | tuple[Array, Array]: ...  # noqa: A002
def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True, eigvals: None = None,
         type: int = 1, check_finite: bool = True) -> Array | tuple[Array, Array]:  # noqa: A002 - SciPy's name
    """``(w, v)``: the eigenvalues (ascending) and eigenvectors (columns) of
    each Hermitian matrix of ``a``, reading its ``lower`` (or upper)
    triangle; ``w`` alone with ``eigvals_only``."""
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (x,) = _inexact(a)
    v, w = lax_linalg.eigh(x, lower=lower)  # symmetrized, as JAX's
    return w if eigvals_only else (w, v)


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The inverse of each matrix of ``a`` (``jnp.linalg.inv``)."""
    del overwrite_a, check_finite
    return tnp.linalg.inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The determinant of each matrix of ``a`` (``jnp.linalg.det``)."""
    del overwrite_a, check_finite
    return tnp.linalg.det(a)


def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen") -> Array:
    """``x`` with ``a @ x = b``; ``assume_a='pos'`` solves through the
    Cholesky factor of the ``lower`` (or upper) triangle, the others
    ('gen', 'sym', 'her') through ``jnp.linalg.solve``."""
    del overwrite_a, overwrite_b, debug, check_finite
    valid_assume_a = ["gen", "sym", "her", "pos"]
    if assume_a not in valid_assume_a:
        raise ValueError(f"Expected assume_a to be one of {valid_assume_a}; got {assume_a!r}")
    if assume_a != "pos":
        return tnp.linalg.solve(a, b)
    aa, bb = _inexact(a, b)
    _square("solve", aa)
    return cho_solve(cho_factor(aa, lower=lower), bb)


# -- expm --------------------------------------------------------------------------------
def _dot(a: Array, b: Array) -> Array:
    return tnp.matmul(a, b, precision=_HIGHEST)


_PADE: dict[int, tuple[float, ...]] = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0,
        3960.0, 90.0, 1.0),
    13: (6.476475253248e16, 3.238237626624e16, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}


def _pade(degree: int) -> Callable[[Array], tuple[Array, Array]]:
    """The odd (``U``) and even (``V``) parts of the Padé approximant of
    ``degree`` (JAX's ``_pade3`` ... ``_pade13``)."""
    b = _PADE[degree]

    def pade(a: Array) -> tuple[Array, Array]:
        ident = tnp.eye(a.shape[0], dtype=a.dtype)
        a2 = _dot(a, a)
        if degree == 13:
            a4 = _dot(a2, a2)
            a6 = _dot(a4, a2)
            u = _dot(a, _dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                     + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
            v = _dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
            return u, v
        powers = [ident, a2]
        while len(powers) <= degree // 2:
            powers.append(_dot(powers[-1], a2) if len(powers) > 2 else _dot(a2, a2))
        top = degree // 2
        odd = b[2 * top + 1] * powers[top]
        even = b[2 * top] * powers[top]
        for i in range(top - 1, 0, -1):  # highest power first, as JAX sums
            odd = odd + b[2 * i + 1] * powers[i]
            even = even + b[2 * i] * powers[i]
        return _dot(a, odd + b[1] * ident), even + b[0] * ident

    return pade


def _calc_p_q(a: Array) -> tuple[Array, Array, Array]:
    a_l1 = tnp.linalg.norm(a, 1)
    if a.dtype in (np.dtype(np.float64), np.dtype(np.complex128)):
        maxnorm = 5.371920351148152
        conds = [0.01495585217958292, 0.253939833006323, 0.9504178996162932, 2.097847961257068]
        degrees: tuple[int, ...] = (3, 5, 7, 9, 13)
    elif a.dtype in (np.dtype(np.float32), np.dtype(np.complex64)):
        maxnorm = 3.92572478313866
        conds = [0.4258730016922831, 1.880152677804762]
        degrees = (3, 5, 7)
    else:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    n_squarings = tnp.maximum(0, tnp.floor(tnp.log2(a_l1 / maxnorm)))
    a = a / (2 ** n_squarings.astype(a.dtype))
    idx = tnp.digitize(a_l1, tnp.asarray(conds, dtype=a_l1.dtype))
    u, v = lax.switch(idx, [_pade(d) for d in degrees], a)
    return u + v, -u + v, n_squarings


def _expm_2d(a: Array, upper_triangular: bool, max_squarings: int) -> Array:
    p, q, n_squarings = _calc_p_q(a)

    def nan(args: tuple[Array, Array, Array]) -> Array:
        return tnp.full_like(args[0], np.nan)

    def compute(args: tuple[Array, Array, Array]) -> Array:
        _, pp, qq = args
        r = solve_triangular(qq, pp) if upper_triangular else tnp.linalg.solve(qq, pp)

        def step(c: Array, i: Array) -> tuple[Array, None]:
            return lax.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None

        out, _ = lax.scan(step, r, tnp.arange(max_squarings, dtype=n_squarings.dtype))
        return out

    return lax.cond(n_squarings > max_squarings, nan, compute, (a, p, q))


def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:  # noqa: N803 - JAX's name
    """The matrix exponential of each square matrix of ``A`` (JAX's Padé
    approximant with scaling and squaring; NaN when more than
    ``max_squarings`` squarings would be needed)."""
    (a,) = _inexact(A)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={a.shape!r}.")

    def one(m: Array) -> Array:
        return _expm_2d(m, upper_triangular, max_squarings)

    if a.ndim > 2:
        return tnp.vectorize(one, signature="(n,n)->(n,n)")(a)
    return one(a)


@overload
def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,  # noqa: N803 - JAX's names
                 compute_expm: Literal[True] = True) -> tuple[Array, Array]: ...
@overload
def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,  # noqa: N803 - JAX's names
                 compute_expm: Literal[False]) -> Array: ...
@overload
def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,  # noqa: N803 - JAX's names
                 compute_expm: bool = True) -> Array | tuple[Array, Array]: ...
def expm_frechet(A: ArrayLike, E: ArrayLike, *, method: str | None = None,  # noqa: N803 - JAX's names
                 compute_expm: bool = True) -> Array | tuple[Array, Array]:
    """The Frechet derivative of ``expm`` at ``A`` in the direction ``E``
    (``expm``'s JVP, as JAX's), with ``expm(A)`` first unless not
    ``compute_expm``."""
    del method
    a, e = tnp.asarray(A), tnp.asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={a.shape} E.shape={e.shape}")
    expm_a, frechet = jvp(lambda x: expm(x), (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet


# -- special matrices ------------------------------------------------------------------------
def block_diag(*arrs: ArrayLike) -> Array:
    """The block diagonal matrix of the (at most 2-d) arguments, in their
    common dtype."""
    vals = [tnp.asarray(x) for x in arrs] if arrs else [tnp.zeros((1, 0))]
    promoted = [tnp.asarray(v) for v in _lax_numpy._promote(*vals)]
    bad = [i for i, v in enumerate(promoted) if v.ndim > 2]
    if bad:
        raise ValueError(
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
            f"got {promoted[bad[0]]} at argument {bad[0]}.")
    mats = [tnp.atleast_2d(v) for v in promoted]
    total = sum(m.shape[1] for m in mats)
    rows: list[Array] = []
    col = 0
    for m in mats:
        rows.append(tnp.pad(m, ((0, 0), (col, total - m.shape[1] - col))))
        col += m.shape[1]
    return tnp.concatenate(rows, axis=0)


def _toeplitz_2d(c: Array, r: Array) -> Array:
    ncols, = r.shape
    flat = tnp.concatenate([tnp.flip(c), r[1:]])
    m, = c.shape
    idx = (m - 1) - lax.iota(np.dtype(np.int32), m)[:, None] + lax.iota(np.dtype(np.int32), ncols)[None, :]
    return flat[idx]


def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Toeplitz matrix with first column ``c`` and first row ``r``
    (``r`` defaults to ``conj(c)``; ``r[0]`` is ignored); batches over the
    leading axes, as JAX's."""
    if r is None:
        cc = tnp.asarray(c)
        rr = tnp.conj(cc) if is_complex(cc.dtype) else cc
    else:
        cc, rr = (tnp.asarray(v) for v in _lax_numpy._promote(tnp.asarray(c), tnp.asarray(r)))
    cc, rr = tnp.atleast_1d(cc), tnp.atleast_1d(rr)
    return tnp.vectorize(_toeplitz_2d, signature="(m),(n)->(m,n)")(cc, rr)


def _hankel_2d(c: Array, r: Array) -> Array:
    m, = c.shape
    n, = r.shape
    flat = tnp.concatenate([c, r[1:]])
    idx = lax.iota(np.dtype(np.int32), m)[:, None] + lax.iota(np.dtype(np.int32), n)[None, :]
    return flat[idx]


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros
    but its first entry by default; ``r[0]`` is ignored)."""
    cc = tnp.atleast_1d(tnp.asarray(c))
    if r is None:
        rr = tnp.zeros_like(cc)
    else:
        cc, rr = (tnp.atleast_1d(tnp.asarray(v)) for v in _lax_numpy._promote(cc, tnp.asarray(r)))
    return tnp.vectorize(_hankel_2d, signature="(m),(n)->(m,n)")(cc, rr)


def circulant(c: ArrayLike) -> Array:
    """The circulant matrix with first column ``c``."""
    cc = tnp.atleast_1d(tnp.asarray(c))

    def one(v: Array) -> Array:
        n, = v.shape
        idx = (lax.iota(np.dtype(np.int32), n)[:, None] - lax.iota(np.dtype(np.int32), n)[None, :]) % n
        return v[idx]

    return tnp.vectorize(one, signature="(n)->(n,n)")(cc)


def _polar_2d(a: Array, side: str, method: str) -> tuple[Array, Array]:
    m, n = a.shape
    if method == "qdwh":
        if not ((m >= n and side == "right") or (m < n and side == "left")):
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and m >= n "
                f"side='left', got {a.shape} with side={side!r}")
    elif method != "svd":
        raise ValueError(f"Unknown polar decomposition method {method}.")
    u_svd, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(u_svd.dtype)
    unitary = _dot(u_svd, vh)
    if side == "right":
        posdef = _dot(_conj_mT(vh) * s[None, :], vh)
    else:
        posdef = _dot(u_svd * s[None, :], _conj_mT(u_svd))
    return unitary, posdef


def polar(a: ArrayLike, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Array, Array]:
    """``(u, p)``: the polar decomposition ``a = u @ p`` (``side='right'``)
    or ``a = p @ u`` (``'left'``), ``u`` with orthonormal columns (rows) and
    ``p`` Hermitian positive semidefinite. Computed through the SVD for
    both of JAX's methods (``'qdwh'`` iterates to the same factors; its
    shape restrictions and errors are JAX's)."""
    del eps, max_iterations
    (arr,) = _inexact(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")

    def one(x: Array) -> tuple[Array, Array]:
        return _polar_2d(x, side, method)

    if arr.ndim == 2:
        return one(arr)
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return tnp.vectorize(one, signature=sig)(arr)


# -- eigh_tridiagonal ---------------------------------------------------------------------------
def _sturm(alpha: Array, beta_sq: Array, pivmin: Array, alpha0_perturbation: Array, x: Array) -> Array:
    """For each shift in ``x``, how many eigenvalues of the tridiagonal
    matrix are below it (the Sturm sequence's sign changes, LAPACK's
    ``dlaebz`` with JAX's safeguards)."""
    n = alpha.shape[0]
    ones = tnp.ones(x.shape, dtype=np.dtype(np.int32))
    zeros = tnp.zeros(x.shape, dtype=np.dtype(np.int32))
    q = alpha[0] - x
    count = tnp.where(q < 0, ones, zeros)
    q = tnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i: Value, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        qq, cc = carry
        j = tnp.asarray(i)
        qq = alpha[j] - beta_sq[j - 1] / qq - x
        cc = tnp.where(qq <= pivmin, cc + 1, cc)
        qq = tnp.where(qq <= pivmin, tnp.minimum(qq, -pivmin), qq)
        return qq, cc

    _, count = lax.fori_loop(1, n, step, (q, count))
    return count


@overload
def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: Literal[True], select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Array | None = None) -> Array: ...
@overload
def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: Literal[False] = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Array | None = None) -> tuple[Array, Array]: ...
@overload
def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Array | None = None) -> Array | tuple[Array, Array]: ...
def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Array | None = None) -> Array | tuple[Array, Array]:
    """The eigenvalues (ascending) of the symmetric tridiagonal matrix with
    diagonal ``d`` and off-diagonal ``e``, by JAX's bisection on Sturm
    counts (all of them, ``select='a'``, or those of index ``select_range``,
    ``select='i'``), and with ``eigvals_only=False`` its eigenvectors
    (columns). JAX finds the vectors by inverse iteration from random starts
    (``key``); here they are the dense matrix's ``eigh`` vectors (the same
    up to sign, and ``key`` is unused)."""
    del key
    alpha, beta = tnp.asarray(d), tnp.asarray(e)
    supported = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))
    if alpha.dtype != beta.dtype:
        raise TypeError(
            f"diagonal and off-diagonal values must have same dtype, got {alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in supported:
        raise TypeError(
            "Only float32 and float64 inputs are supported as inputs to "
            f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        w = tnp.real(alpha)
        return w if eigvals_only else (w, tnp.eye(n, dtype=alpha.dtype))
    if is_complex(alpha.dtype):
        alpha = tnp.real(alpha)
        beta_sq = tnp.real(beta * tnp.conj(beta))
        beta_abs = tnp.sqrt(beta_sq)
    else:
        beta_abs = tnp.abs(beta)
        beta_sq = tnp.square(beta)
    row_sum = tnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    est_max = tnp.max(alpha + row_sum)
    est_min = tnp.min(alpha - row_sum)
    t_norm = tnp.maximum(tnp.abs(est_min), tnp.abs(est_max))
    finfo = np.finfo(np.dtype(alpha.dtype.name))
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * tnp.maximum(1, tnp.max(beta_sq))
    alpha0_perturbation = tnp.square(finfo.eps * beta_abs[0])
    abs_tol = t_norm * finfo.eps
    if tol is not None:
        abs_tol = tnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    if select == "a":
        target = tnp.arange(n, dtype=np.dtype(np.int32))
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        target = tnp.arange(int(select_range[0]), int(select_range[1]) + 1, dtype=np.dtype(np.int32))
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1
    norm_slack = tnp.asarray(n, dtype=alpha.dtype) * fudge * finfo.eps * t_norm
    shape = target.shape
    lower = tnp.broadcast_to(est_min - norm_slack - 2 * fudge * pivmin, shape)
    upper = tnp.broadcast_to(est_max + norm_slack + fudge * pivmin, shape)
    mid = 0.5 * (upper + lower)
    piv = tnp.broadcast_to(pivmin, shape)
    pert = tnp.broadcast_to(alpha0_perturbation, shape)

    def cond(args: tuple[Array, Array, Array, Array]) -> Array:
        i, lo, _, up = args
        return tnp.logical_and(i < max_it, tnp.less(abs_tol, tnp.max(up - lo)))

    def body(args: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, lo, m, up = args
        counts = _sturm(alpha, beta_sq, piv, pert, m)
        lo = tnp.where(counts <= target, m, lo)
        up = tnp.where(counts > target, m, up)
        return i + 1, lo, 0.5 * (lo + up), up

    start = (tnp.asarray(0, dtype=np.dtype(np.int32)), lower, mid, upper)
    out: tuple[Array, Array, Array, Array] = lax.while_loop(cond, body, start)
    mid = out[2]
    if eigvals_only:
        return mid
    dense = (tnp.diag(tnp.asarray(d)) + tnp.diag(tnp.conj(tnp.asarray(e)), -1) + tnp.diag(tnp.asarray(e), 1))
    vectors, _ = lax_linalg.eigh(dense)
    return mid, vectors[:, target]


# -- hessenberg -----------------------------------------------------------------------------------
def _hessenberg_2d(a: Array, calc_q: bool) -> tuple[Array, Array | None]:
    """LAPACK's unblocked ``xgehd2`` (the reduction ``gehrd`` makes of a
    small matrix) as a ``fori_loop`` over the columns, each reflector
    ``xlarfg``'s (``beta`` real; without LAPACK's rescaling of tiny norms)
    held as a full-length vector, zero above row ``i + 1``; with
    ``calc_q``, the product of the reflectors."""
    n = a.shape[0]
    idx = tnp.arange(n)
    cplx = is_complex(a.dtype)

    def conj(x: Array) -> Array:
        return tnp.conj(x) if cplx else x

    def step(i_: Value, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        x, q = carry
        i = tnp.asarray(i_)
        col = x[:, i]
        alpha = col[i + 1]
        below = idx > i + 1
        tail = tnp.where(below, col, tnp.zeros_like(col))
        xnorm = tnp.sqrt(tnp.sum(tnp.real(tail * conj(tail))))
        alphr, alphi = tnp.real(alpha), tnp.imag(alpha)
        keep = (xnorm == 0) & (alphi == 0)
        size = tnp.sqrt(alphr * alphr + alphi * alphi + xnorm * xnorm)
        beta = tnp.where(alphr >= 0, -size, size)
        safe_beta = tnp.where(keep, tnp.ones_like(beta), beta)
        if cplx:
            tau = lax.complex((safe_beta - alphr) / safe_beta, -alphi / safe_beta)
        else:
            tau = (safe_beta - alphr) / safe_beta
        tau = tnp.where(keep, tnp.zeros_like(tau), tau)
        denom = alpha - safe_beta.astype(x.dtype)
        v = tail / tnp.where(keep, tnp.ones_like(denom), denom)
        v = tnp.where(idx == i + 1, tnp.ones_like(v), v)
        vh = conj(v)
        x = x.at[:, i].set(tnp.where(idx == i + 1, tnp.where(keep, alpha, beta.astype(x.dtype)),
                                     tnp.where(below, tnp.zeros_like(col), col)))
        right = idx > i
        update = tau * _dot(x, v)[:, None] * vh[None, :]
        x = x - tnp.where(right[None, :], update, tnp.zeros_like(update))
        left = conj(tau) * v[:, None] * _dot(vh, x)[None, :]
        x = x - tnp.where(right[None, :], left, tnp.zeros_like(left))
        if calc_q:
            q = q - tau * _dot(q, v)[:, None] * vh[None, :]
        return x, q

    start = (a, tnp.eye(n, dtype=a.dtype))
    if n < 2:
        return a, start[1] if calc_q else None
    h, q = lax.fori_loop(0, n - 1, step, start)
    return h, q if calc_q else None


@overload
def hessenberg(a: ArrayLike, *, calc_q: Literal[False] = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Array: ...
@overload
def hessenberg(a: ArrayLike, *, calc_q: Literal[True], overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, Array]: ...
@overload
def hessenberg(a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Array | tuple[Array, Array]: ...
def hessenberg(a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Array | tuple[Array, Array]:
    """The upper Hessenberg form ``h`` of each square matrix of ``a``, and
    with ``calc_q`` the unitary ``q`` with ``a = q @ h @ q^H``: LAPACK's
    Householder reduction (``gehrd``), as JAX's on the CPU."""
    del overwrite_a, check_finite
    x = tnp.asarray(a)
    if not (is_complex(x.dtype) or np.issubdtype(x.dtype, np.floating)):
        raise TypeError(
            f"hessenberg does not accept dtype {x.dtype} at position 0. Accepted dtypes at position 0 "
            "are subtypes of floating, complexfloating.")
    _square("hessenberg", x)
    if x.shape[-1] == 0:
        return (tnp.zeros_like(x), tnp.zeros_like(x)) if calc_q else tnp.zeros_like(x)

    def with_q(m: Array) -> tuple[Array, Array]:
        h, q = _hessenberg_2d(m, True)
        assert q is not None
        return h, q

    def without_q(m: Array) -> Array:
        return _hessenberg_2d(m, False)[0]

    if calc_q:
        return tnp.vectorize(with_q, signature="(n,n)->(n,n),(n,n)")(x) if x.ndim > 2 else with_q(x)
    return tnp.vectorize(without_q, signature="(n,n)->(n,n)")(x) if x.ndim > 2 else without_q(x)


# -- more special matrices (JAX's) -----------------------------------------------------------------
def _inexact1(name: str, a: ArrayLike) -> Array:
    (x,) = _inexact(a)
    return tnp.atleast_1d(x)


def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """The Leslie matrix of fecundities ``f`` and survival rates ``s``."""
    fa, sa = tnp.atleast_1d(tnp.asarray(f)), tnp.atleast_1d(tnp.asarray(s))
    if fa.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape {fa.shape}.")
    if sa.shape[-1] != fa.shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one less than the "
            f"length of f; got f shape {fa.shape} and s shape {sa.shape}.")

    def one(fv: Array, sv: Array) -> Array:
        fp, sp = (tnp.asarray(v) for v in _lax_numpy._promote(fv, sv))
        return tnp.diag(sp, k=-1).at[0].set(fp)

    return tnp.vectorize(one, signature="(n),(m)->(n,n)")(fa, sa)


def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients ``a``."""
    x = _inexact1("companion", a)
    if x.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape {x.shape}.")

    def one(v: Array) -> Array:
        first_row = -v[1:] / v[0]
        m = v.shape[0] - 1
        return tnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)

    return tnp.vectorize(one, signature="(n)->(m,m)")(x)


def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix ``|a_i - a_j|``."""
    arr = tnp.atleast_1d(tnp.asarray(a))
    return tnp.abs(arr[..., None] - arr[..., None, :])


def fiedler_companion(a: ArrayLike) -> Array:
    """The Fiedler companion matrix of the polynomial with coefficients ``a``."""
    x = _inexact1("fiedler_companion", a)
    if x.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero length, but got an "
                         f"array of shape {x.shape}.")

    def one(v: Array) -> Array:
        n = v.shape[0] - 1
        if n == 0:
            return tnp.zeros((0, 0), dtype=v.dtype)
        v = v / v[0]
        if n == 1:
            return tnp.reshape(-v[1:], (1, 1))
        i = tnp.arange(n)[:, None]
        j = tnp.arange(n)[None, :]
        super_val = -v[tnp.minimum(i + 2, n)]
        sub_val = -v[tnp.minimum(i + 1, n)]
        even, odd = i % 2 == 0, i % 2 == 1
        one_, zero = tnp.ones((), v.dtype), tnp.zeros((), v.dtype)
        conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even, (j == i + 2) & even,
                      (j == i - 1) & even & (i >= 2), (j == i - 2) & odd & (i >= 3)]
        choices = [tnp.broadcast_to(c, (n, n)) for c in (-v[1], one_, super_val, one_, sub_val, one_)]
        return tnp.select([tnp.broadcast_to(c, (n, n)) for c in conditions], choices, default=zero)

    return tnp.vectorize(one, signature="(n)->(m,m)")(x)


def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The matrix of the discrete convolution with ``a`` of an ``n``-vector
    (``mode`` 'full', 'valid' or 'same', as ``np.convolve``'s)."""
    n = int(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    arr = tnp.asarray(a)
    if arr.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = arr.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pads = [(0, 0)] * (arr.ndim - 1) + [(0, n - 1)]
    az = tnp.pad(arr, pads)
    raz = tnp.pad(tnp.flip(arr, axis=-1), pads)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    return toeplitz(az[..., tb:length - te], raz[..., length - n - tb:length - tb])


def hilbert(n: int) -> Array:
    """The Hilbert matrix ``1 / (i + j + 1)``, in the default float dtype."""
    a = tnp.arange(n, dtype=default_float())[:, None]
    return 1 / (a + a.T + 1)


def _binom(n: Array, k: Array) -> Array:
    return tnp.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def invhilbert(n: int) -> Array:
    """The inverse of ``hilbert(n)`` (JAX's closed form, in floats)."""
    a = tnp.arange(n, dtype=default_float())
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * _binom(n + i, n - j - 1) * _binom(n + j, n - i - 1)
            * _binom(s, i) ** 2)


def _pascal_kind(kind: str | None, article: str) -> str:
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be {article}: {valid}; got {kind}")
    return kind


def pascal(n: int, kind: str | None = None) -> Array:
    """The Pascal matrix (binomial coefficients), float32 as JAX's."""
    kind = _pascal_kind(kind, "on of")
    a = tnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return tnp.dot(lower, lower.T)


def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of ``pascal(n, kind)``, in the default float dtype."""
    kind = _pascal_kind(kind, "one of")
    a = tnp.arange(n, dtype=default_float())
    i, j = a[:, None], a[None, :]
    lower_inv = (-1.0) ** (i - j) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return tnp.dot(lower_inv.T, lower_inv)


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix of order ``n`` (its first row with ``full``)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = tnp.arange(n - 1)[:, None]
    j = tnp.arange(n)[None, :]
    k = i + 1
    kf = k.astype(default_float())
    denom = tnp.sqrt(kf * (kf + 1))
    h = tnp.where(j <= i, 1.0 / denom, tnp.where(j == k, -kf / denom, tnp.zeros_like(denom)))
    if full:
        first = tnp.full((1, n), 1.0 / np.sqrt(n), dtype=h.dtype)
        h = tnp.concatenate([first, h], axis=0)
    return h


def hadamard(n: int, dtype: object = int) -> Array:
    """The Hadamard matrix of order ``n`` (a power of 2), Sylvester's."""
    if n < 1 or not float(np.log2(n)).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = tnp.ones((1, 1), dtype=dtype)  # type: ignore[arg-type]  # a dtype-like, checked by ones
    for _ in range(int(np.log2(n))):
        h = tnp.block([[h, h], [h, -h]])
    return h


def dft(n: int, scale: str | None = None, *, dtype: object = None) -> Array:
    """The discrete Fourier transform matrix (``scale`` None, 'sqrtn' or 'n'),
    complex128 by default (complex64 with x64 off)."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dt = default_complex() if dtype is None else np.dtype(dtype)  # type: ignore[call-overload]  # a dtype-like
    if not np.issubdtype(dt, np.complexfloating):
        raise ValueError(f"dtype must be a complex floating-point type; got {dt}.")
    a = tnp.arange(n, dtype=np.dtype(np.float64) if dt == np.complex128 else np.dtype(np.float32)).astype(dt)
    omegas = tnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / np.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas


# -- schur and what builds on it -----------------------------------------------------------------------
HostArray = np.ndarray[tuple[int, ...], np.dtype[np.generic]]


def _host_schur(a: HostArray, output: str) -> tuple[HostArray, HostArray]:
    import scipy.linalg  # type: ignore[import-untyped]  # no stubs; LAPACK's gees, as JAX's CPU lowering

    t, z = scipy.linalg.schur(np.asarray(a), output=output)
    return np.asarray(t, dtype=a.dtype), np.asarray(z, dtype=a.dtype)


def _host_schur_real(a: HostArray) -> tuple[HostArray, HostArray]:
    return _host_schur(a, "real")


def _host_schur_complex(a: HostArray) -> tuple[HostArray, HostArray]:
    return _host_schur(a, "complex")


def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """``(t, z)`` with ``a = z @ t @ z^H``: the Schur form (quasi-upper
    triangular for ``output='real'``, upper triangular for ``'complex'``)
    and its unitary ``z``, by LAPACK's ``gees`` (SciPy's, on the host, as a
    ``pure_callback``: under ``jit`` too, like JAX's CPU-only lowering;
    not differentiable, as JAX's)."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got output={output!r}.")
    x = tnp.asarray(a)
    if not (is_complex(x.dtype) or np.issubdtype(x.dtype, np.floating)):
        raise TypeError(
            f"schur does not accept dtype {x.dtype} at position 0. Accepted dtypes at position 0 are "
            "subtypes of floating, complexfloating.")
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(f"schur: expected a square matrix, got shape {x.shape}")
    if output == "complex" and not is_complex(x.dtype):
        x = x.astype(np.dtype(np.complex64) if x.dtype == np.float32 else np.dtype(np.complex128))
    spec = ShapeDtypeStruct(x.shape, x.dtype)
    host = _host_schur_complex if output == "complex" else _host_schur_real
    out = pure_callback(host, (spec, spec), x, vmap_method="sequential")
    t, z = cast(tuple[Array, Array], out)
    return t, z


def _sqrtm_triu(t: Array) -> Array:
    """The upper triangular square root of the upper triangular ``t``
    (JAX's column-by-column recurrence, in ``fori_loop``s; each inner sum
    one masked dot)."""
    diag = tnp.sqrt(tnp.diag(t))
    n = diag.shape[0]
    ks = tnp.arange(n)

    def i_loop(l: Value, data: tuple[Array, Array]) -> tuple[Array, Array]:
        j, u = data
        i = j - 1 - tnp.asarray(l)
        between = (ks > i) & (ks < j)
        s = tnp.sum(tnp.where(between, u[i, :] * u[:, j], tnp.zeros((), u.dtype)))
        value = tnp.where(t[i, j] == s, tnp.zeros((), u.dtype), (t[i, j] - s) / (diag[i] + diag[j]))
        return j, u.at[i, j].set(value)

    def j_loop(j: Value, u: Array) -> Array:
        jj = tnp.asarray(j)
        out: tuple[Array, Array] = lax.fori_loop(0, jj, i_loop, (jj, u))
        return out[1]

    result: Array = lax.fori_loop(0, n, j_loop, tnp.diag(diag))
    return result


def sqrtm(A: ArrayLike, blocksize: int = 1) -> Array:  # noqa: N803 - JAX's name
    """The principal square root of the matrix ``A`` (complex): through its
    complex Schur form, as JAX's."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    (x,) = _inexact(A)
    t, z = schur(x, output="complex")
    root = _sqrtm_triu(t)
    return tnp.matmul(tnp.matmul(z, root, precision=_HIGHEST), tnp.conj(z.T), precision=_HIGHEST)


def _complex_of(*xs: Array) -> list[Array]:
    """JAX's ``promote_dtypes_complex``: one complex dtype for all."""
    vals = [tnp.asarray(v) for v in _lax_numpy._promote(*xs)]
    d = vals[0].dtype
    if not is_complex(d):
        d = np.dtype(np.complex64) if d in (np.dtype(np.float32), np.dtype(np.float16)) else default_complex()
    return [v.astype(d) for v in vals]


def _rsf2csf_2d(t: Array, z: Array) -> tuple[Array, Array]:
    t, z = _complex_of(t, z)
    eps = float(np.finfo(np.dtype(t.dtype.name)).eps)
    n = t.shape[0]
    if n == 1:
        return t, z
    cols = tnp.arange(n)

    def update(m: Array, tt: Array, zz: Array) -> tuple[Array, Array]:
        mu = tnp.linalg.eigvals(lax.dynamic_slice(tt, (m - 1, m - 1), (2, 2))) - tt[m, m]
        r = tnp.linalg.norm(tnp.stack([mu[0], tt[m, m - 1]])).astype(tt.dtype)
        c, s_ = mu[0] / r, tt[m, m - 1] / r
        g = tnp.stack([tnp.stack([tnp.conj(c), s_]), tnp.stack([-s_, c])])
        gh = tnp.conj(g.T)
        rows = lax.dynamic_slice_in_dim(tt, m - 1, 2, axis=0)
        col_mask = cols >= m - 1
        zero = tnp.zeros((), tt.dtype)
        new_rows = tnp.where(~col_mask, rows, tnp.matmul(g, tnp.where(col_mask, rows, zero)))
        tt = lax.dynamic_update_slice_in_dim(tt, new_rows, m - 1, axis=0)
        tcols = lax.dynamic_slice_in_dim(tt, m - 1, 2, axis=1)
        row_mask = (cols < m + 1)[:, None]
        new_cols = tnp.where(~row_mask, tcols, tnp.matmul(tnp.where(row_mask, tcols, zero), gh))
        tt = lax.dynamic_update_slice_in_dim(tt, new_cols, m - 1, axis=1)
        zcols = lax.dynamic_slice_in_dim(zz, m - 1, 2, axis=1)
        zz = lax.dynamic_update_slice_in_dim(zz, tnp.matmul(zcols, gh), m - 1, axis=1)
        return tt, zz

    def keep(m: Array, tt: Array, zz: Array) -> tuple[Array, Array]:
        return tt, zz

    def step(i: Value, tz: tuple[Array, Array]) -> tuple[Array, Array]:
        m = n - tnp.asarray(i)
        tt, zz = tz
        act = tnp.abs(tt[m, m - 1]) > eps * (tnp.abs(tt[m - 1, m - 1]) + tnp.abs(tt[m, m]))
        tt, zz = lax.cond(act, update, keep, m, tt, zz)
        return tt.at[m, m - 1].set(0.0), zz

    result: tuple[Array, Array] = lax.fori_loop(1, n, step, (t, z))
    return result


def rsf2csf(T: ArrayLike, Z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:  # noqa: N803
    """The complex Schur form ``(t, z)`` from the real one ``schur(a)``
    gives (Givens rotations of the 2x2 blocks, as JAX's)."""
    del check_finite
    t, z = tnp.asarray(T), tnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    if t.ndim == 2 and z.ndim == 2:
        return _rsf2csf_2d(t, z)
    return tnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)


def _algorithm_11_1_1(f: Array, t: Array) -> tuple[Array, Array]:
    """Parlett's recurrence (Golub & Van Loan, algorithm 11.1.1) for the
    off-diagonal entries of ``func(t)``, ``t`` upper triangular (JAX's
    ``fori_loop``s, the inner sums as masked dots)."""
    n = t.shape[0]
    idx = tnp.arange(n)

    def inner(i_: Value, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        p, ff, minden = carry
        i = tnp.asarray(i_)
        j = i + p
        s = t[i - 1, j - 1] * (ff[j - 1, j - 1] - ff[i - 1, i - 1])
        ind = (idx >= i) & (idx < j - 1)
        zero = tnp.zeros((), ff.dtype)
        s = s + (tnp.sum(tnp.where(ind, t[i - 1] * ff[:, j - 1], zero))
                 - tnp.sum(tnp.where(ind, ff[i - 1] * t[:, j - 1], zero)))
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        s = tnp.where(den != 0, s / tnp.where(den != 0, den, tnp.ones_like(den)), s)
        return p, ff.at[i - 1, j - 1].set(s), tnp.minimum(minden, tnp.abs(den))

    def outer(p_: Value, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        p = tnp.asarray(p_)
        out: tuple[Array, Array, Array] = lax.fori_loop(1, n - p + 1, inner, (p, *carry))
        return out[1], out[2]

    result: tuple[Array, Array] = lax.fori_loop(1, n, outer, (f, tnp.abs(t[0, 0])))
    return result


@overload
def funm(A: ArrayLike, func: Callable[[Array], Array], disp: Literal[True] = True) -> Array: ...  # noqa: N803
@overload
def funm(A: ArrayLike, func: Callable[[Array], Array], disp: Literal[False]) -> tuple[Array, Array]: ...  # noqa: N803
@overload
def funm(A: ArrayLike, func: Callable[[Array], Array], disp: bool = True) -> Array | tuple[Array, Array]: ...  # noqa: N803
def funm(A: ArrayLike, func: Callable[[Array], Array], disp: bool = True) -> Array | tuple[Array, Array]:  # noqa: N803
    """The matrix function ``func(A)`` of the square ``A`` (``func`` applied
    element-wise to the complex Schur form's diagonal, Parlett's recurrence
    above it, as JAX's); with ``disp=False``, ``(F, err)``, ``err`` an
    estimate of the relative error."""
    a = tnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(a if is_complex(a.dtype) or np.issubdtype(a.dtype, np.floating) else a.astype(default_float()))
    t, z = rsf2csf(t, z)
    f = tnp.diag(func(tnp.diag(t))).astype(t.dtype)
    f, minden = _algorithm_11_1_1(f, t)
    f = tnp.matmul(tnp.matmul(z, f), tnp.conj(z.T))
    if disp:
        return f
    tol = float(np.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps)
    minden = tnp.where(minden == 0.0, tol, minden)
    err = tnp.where(tnp.any(tnp.isinf(f)), np.inf,
                    tnp.minimum(1, tnp.maximum(tol, tol / minden * tnp.linalg.norm(tnp.triu(t, 1), 1))))
    return f, err


def _sylvester_triangular(r: Array, s: Array, f: Array) -> Array:
    """``Y`` with ``R Y + Y S = F`` for upper triangular ``R`` and lower
    triangular ``S`` (back substitution, last entry first: JAX's scan)."""
    m, n = f.shape
    ki, kj = tnp.arange(m), tnp.arange(n)

    def step(y: Array, idx: Array) -> tuple[Array, None]:
        i, j = idx // n, idx % n
        zero = tnp.zeros((), f.dtype)
        row_term = tnp.sum(tnp.where(ki > i, r[i, :] * y[:, j], zero))
        col_term = tnp.sum(tnp.where(kj > j, y[i, :] * s[:, j], zero))
        return y.at[i, j].set((f[i, j] - (row_term + col_term)) / (r[i, i] + s[j, j])), None

    y, _ = lax.scan(step, tnp.zeros((m, n), dtype=f.dtype), tnp.arange(m * n - 1, -1, -1))
    return y


def _solve_sylvester_2d(a: Array, b: Array, c: Array, method: str, tol: float) -> Array:
    m, n = c.shape[-2:]
    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(tnp.conj(b.T), output="complex")
        f = tnp.matmul(tnp.matmul(tnp.conj(u.T), c.astype(r.dtype)), v)
        y = _sylvester_triangular(r, tnp.conj(s.T), f)
        x = tnp.matmul(tnp.matmul(u, y), tnp.conj(v.T))
    elif method == "eigen":
        ra, ua = tnp.linalg.eig(a)
        rb, ub = tnp.linalg.eig(b)
        f = tnp.linalg.solve(ua, tnp.matmul(c.astype(ra.dtype), ub))
        y = f / (ra[:, None] + rb[None, :])
        x = tnp.matmul(tnp.matmul(ua[:m, :m], y[:m, :n]), tnp.linalg.inv(ub)[:n, :n])
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".')
    if not is_complex(c.dtype):
        x = tnp.real(x)
    near = tnp.any(tnp.abs(tnp.linalg.eigvals(a)[:, None] + tnp.linalg.eigvals(b)[None, :]) < tol)
    return tnp.where(near, tnp.full_like(x, np.nan), x)


def solve_sylvester(A: ArrayLike, B: ArrayLike, C: ArrayLike, *, method: str = "schur",  # noqa: N803
                    tol: float = 1e-8) -> Array:
    """``X`` with ``A X + X B = C`` (Bartels-Stewart through complex Schur
    forms, ``method='schur'``, or by eigendecomposition, ``'eigen'``); NaN
    where an eigenvalue of ``A`` and one of ``-B`` are within ``tol``."""
    a, b, c = _inexact(A, B, C)
    m, n = c.shape[-2:]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: {b.shape}\nC: {c.shape}")

    def one(x: Array, y: Array, z: Array) -> Array:
        return _solve_sylvester_2d(x, y, z, method, tol)

    if a.ndim == b.ndim == c.ndim == 2:
        return one(a, b, c)
    return tnp.vectorize(one, signature="(m,m),(n,n),(m,n)->(m,n)")(a, b, c)


def qr_multiply(a: ArrayLike, c: ArrayLike, mode: str = "right", pivoting: bool = False,
                conjugate: bool = False, overwrite_a: bool = False,
                overwrite_c: bool = False) -> tuple[Array, Array]:
    """``(Q @ c, r)`` (``mode='left'``) or ``(c @ Q, r)`` (``'right'``) for
    ``a = Q r`` (``Q`` conjugated with ``conjugate``), ``r`` the economic
    factor; a 1-d ``c`` gives a 1-d product. Through the full ``Q`` of
    LAPACK's Householder QR (JAX applies the reflectors, ``ormqr``: the same
    product)."""
    del overwrite_a, overwrite_c
    if pivoting:
        raise NotImplementedError("qr_multiply: pivoting=True is not supported by typedax (JAX's geqp3)")
    aa, cc = _inexact(a, c)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = cc.ndim == 1
    if onedim:
        cc = cc[:, None] if mode == "left" else cc[None, :]
    m, n = aa.shape[-2:]
    k = min(m, n)
    if mode == "left":
        if cc.shape[-2] != k:
            raise ValueError(
                f"Array shapes are not compatible for Q @ c operation: a has shape {tuple(aa.shape)} so Q has "
                f"{k} columns, but c has {cc.shape[-2]} rows (expected {k}).")
    elif cc.shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape {tuple(aa.shape)} so Q has "
            f"{m} rows, but c has {cc.shape[-1]} columns (expected {m}).")
    batch = tuple(np.broadcast_shapes(aa.shape[:-2], cc.shape[:-2]))
    aa = tnp.broadcast_to(aa, batch + aa.shape[-2:])
    cc = tnp.broadcast_to(cc, batch + cc.shape[-2:])
    q, r = lax_linalg.qr(aa, full_matrices=True)
    if conjugate and is_complex(q.dtype):
        q = tnp.conj(q)
    if mode == "left":
        out = tnp.matmul(q[..., :, :k], cc, precision=_HIGHEST)
    else:
        out = tnp.matmul(cc, q, precision=_HIGHEST)[..., :k]
    if onedim:
        out = tnp.ravel(out)
    return out, tnp.triu(r[..., :k, :])
