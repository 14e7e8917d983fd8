"""The implementation of ``typedax.scipy.sparse.linalg``, as
``jax.scipy.sparse.linalg``: the Krylov solvers ``cg``, ``bicgstab`` and
``gmres`` of ``A x = b``, with ``A`` a square matrix or a linear function
and ``b`` an array or a pytree of arrays.

The iterations are JAX's (``jax/_src/scipy/sparse/linalg.py``), each a
``lax.while_loop``, so the solvers run under ``jit`` and ``vmap``. They
are differentiated as JAX differentiates them, through the implicit
function rather than the iterations: ``lax.custom_linear_solve`` (forward
mode solves ``A dx = db - dA x`` again; reverse mode solves the transposed
system, ``A`` itself for ``cg``). So ``jvp``, ``grad``, ``jacfwd``,
``jacrev`` and ``hessian`` work with respect to ``b`` and to what ``A``
closes over; the solver's own inputs (``x0``, ``gmres``'s tolerances from
``b``) are not differentiated, as in JAX.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from .. import tree
from ..core.array import Array, ArrayLike
from ..core.dtypes import is_complex
from ..core.trace import Value
from . import _linalg

__all__ = ["bicgstab", "cg", "gmres"]

_HIGHEST = lax.Precision.HIGHEST

#: A linear operator: a square matrix or a function of a pytree of arrays.
LinearOperator = ArrayLike | Callable[..., object]
Tree = object  # a pytree of arrays (an array, or tuples/lists/dicts of them)
MatVec = Callable[[Tree], Tree]


# -- pytree arithmetic -----------------------------------------------------------------------
def _leaves(x: Tree) -> list[Array]:
    return [tnp.asarray(cast(ArrayLike, v)) for v in tree.leaves(x)]


def _dot(a: Array, b: Array) -> Array:
    return tnp.dot(a, b, precision=_HIGHEST)


def _vdot(a: Array, b: Array) -> Array:
    return tnp.vdot(a, b, precision=_HIGHEST)


def _vdot_real_part(x: Array, y: Array) -> Array:
    """``Re(vdot(x, y))`` without computing the imaginary part."""
    out = _vdot(tnp.real(x), tnp.real(y))
    if is_complex(x.dtype) or is_complex(y.dtype):
        out = out + _vdot(tnp.imag(x), tnp.imag(y))
    return out


def _sum(xs: Sequence[Array]) -> Array:
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def _vdot_real_tree(x: Tree, y: Tree) -> Array:
    return _sum([_vdot_real_part(a, b) for a, b in zip(_leaves(x), _leaves(y))])


def _vdot_tree(x: Tree, y: Tree) -> Array:
    return _sum([_vdot(a, b) for a, b in zip(_leaves(x), _leaves(y))])


def _norm(x: Tree) -> Array:
    xs = _leaves(x)
    return tnp.sqrt(_sum([_vdot_real_part(a, a) for a in xs]))


def _mul(scalar: Array, x: Tree) -> Tree:
    return tree.map(lambda v: scalar * v, x)


def _add(x: Tree, y: Tree) -> Tree:
    return tree.map(operator.add, x, y)


def _sub(x: Tree, y: Tree) -> Tree:
    return tree.map(operator.sub, x, y)


def _where(pred: Array, x: Tree, y: Tree) -> Tree:
    return tree.map(lambda a, b: tnp.where(pred, a, b), x, y)


def _identity(x: Tree) -> Tree:
    return x


def _normalize_matvec(f: LinearOperator | None) -> MatVec:
    """``f`` as a function: a matrix multiplies (JAX's errors for others)."""
    if f is None:
        return _identity
    if callable(f):
        return cast(MatVec, f)
    if isinstance(f, (np.ndarray, Array)):
        m = tnp.asarray(f)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {m.shape}")
        return lambda x: _dot(m, cast(Array, x))
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


# -- the solve, differentiated implicitly (JAX's custom_linear_solve) ---------------------------
Solver = Callable[[MatVec, Tree], Tree]


def _linear_solve(matvec: MatVec, b: Tree, solve: Solver, transpose_solve: Solver, symmetric: bool) -> Tree:
    """``solve(matvec, b)`` through ``lax.custom_linear_solve``, as JAX's
    solvers call it: derivatives solve again (forward mode with ``solve``,
    reverse mode with ``transpose_solve`` on ``matvec``'s transpose, or on
    ``matvec`` itself when ``symmetric``), never through the iterations."""
    return lax.custom_linear_solve(matvec, b, solve=solve, transpose_solve=transpose_solve, symmetric=symmetric)


# -- cg and bicgstab ---------------------------------------------------------------------------
def _cg_solve(A: MatVec, b: Tree, x0: Tree, *, maxiter: int, tol: float, atol: float,  # noqa: N803
              M: MatVec) -> Tree:  # noqa: N803 - JAX's names
    bs = _vdot_real_tree(b, b)
    atol2 = tnp.maximum(tnp.square(tol) * bs, tnp.square(atol))
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = tnp.result_type(*_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)
    k0 = tnp.asarray(0, dtype=np.dtype(np.int32))

    def cond(value: tuple[Tree, Tree, Array, Tree, Array]) -> Array:
        _, r, gamma, _, k = value
        rs = tnp.real(gamma) if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body(value: tuple[Tree, Tree, Array, Tree, Array]) -> tuple[Tree, Tree, Array, Tree, Array]:
        x, r, gamma, p, k = value
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x_ = _add(x, _mul(alpha, p))
        r_ = _sub(r, _mul(alpha, ap))
        z_ = M(r_)
        gamma_ = _vdot_real_tree(r_, z_).astype(dtype)
        beta_ = gamma_ / gamma
        p_ = _add(z_, _mul(beta_, p))
        return x_, r_, gamma_, p_, k + 1

    x_final, *_ = lax.while_loop(cond, body, (x0, r0, gamma0, p0, k0))
    return x_final


def _bicgstab_solve(A: MatVec, b: Tree, x0: Tree, *, maxiter: int, tol: float, atol: float,  # noqa: N803
                    M: MatVec) -> Tree:  # noqa: N803 - JAX's names
    bs = _vdot_real_tree(b, b)
    atol2 = tnp.maximum(tnp.square(tol) * bs, tnp.square(atol))
    r0 = _sub(b, A(x0))
    one = tnp.ones((), dtype=tnp.result_type(*_leaves(b)))
    k0 = tnp.asarray(0, dtype=np.dtype(np.int32))
    State = tuple[Tree, Tree, Tree, Array, Array, Array, Tree, Tree, Array]

    def cond(value: State) -> Array:
        r, k = value[1], value[-1]
        rs = _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter) & (k >= 0)

    def body(value: State) -> State:
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _mul(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
        x_ = _where(exit_early, _add(x, _mul(alpha_, phat)),
                    _add(x, _add(_mul(alpha_, phat), _mul(omega_, shat))))
        r_ = _where(exit_early, s, _sub(s, _mul(omega_, t)))
        k_ = tnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1).astype(k.dtype)
        k_ = tnp.where(rho_ == 0, -10, k_).astype(k.dtype)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    init: State = (x0, r0, r0, one, one, one, r0, r0, k0)
    x_final, *_ = lax.while_loop(cond, body, init)
    return x_final


def _shapes(x: Tree) -> list[tuple[int, ...]]:
    return [tuple(np.shape(cast(ArrayLike, v))) for v in tree.leaves(x)]


def _prepare(A: LinearOperator, b: Tree, x0: Tree | None, maxiter: int | None,  # noqa: N803
             M: LinearOperator | None) -> tuple[MatVec, Tree, Tree, int, MatVec]:  # noqa: N803
    bb = tree.map(lambda v: tnp.asarray(cast(ArrayLike, v)), b)
    x = tree.map(tnp.zeros_like, bb) if x0 is None else tree.map(lambda v: tnp.asarray(cast(ArrayLike, v)), x0)
    if maxiter is None:
        maxiter = 10 * sum(v.size for v in _leaves(bb))
    if tree.structure(x) != tree.structure(bb):
        raise ValueError(
            f"x0 and b must have matching tree structure: {tree.structure(x)} vs {tree.structure(bb)}")
    if _shapes(x) != _shapes(bb):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x)} vs {_shapes(bb)}")
    # the solver's own inputs (x0, and gmres's tolerances from b) are not
    # differentiated, as in JAX's custom_linear_solve: only A's and b's are
    x = tree.map(lax.stop_gradient, x)
    return _normalize_matvec(A), bb, x, maxiter, _normalize_matvec(M)


def _isolve(method: Callable[..., Tree], A: LinearOperator, b: Tree, x0: Tree | None, *,  # noqa: N803
            tol: float, atol: float, maxiter: int | None, M: LinearOperator | None,  # noqa: N803
            check_symmetric: bool) -> tuple[Tree, None]:
    matvec, bb, x, iters, precond = _prepare(A, b, x0, maxiter, M)

    def solve(mv: MatVec, rhs: Tree) -> Tree:
        return method(mv, rhs, x, maxiter=iters, tol=tol, atol=atol, M=precond)

    symmetric = all(not is_complex(v.dtype) for v in _leaves(bb)) if check_symmetric else False
    return _linear_solve(matvec, bb, solve, solve, symmetric), None


def cg(A: LinearOperator, b: Tree, x0: Tree | None = None, *, tol: float = 1e-5, atol: float = 0.0,  # noqa: N803
       maxiter: int | None = None, M: LinearOperator | None = None) -> tuple[Tree, None]:  # noqa: N803
    """Solve ``A x = b`` for a Hermitian positive definite ``A`` by conjugate
    gradients: ``(x, None)`` (JAX's ``info`` is always None). Stops when
    ``norm(residual) <= max(tol * norm(b), atol)`` or after ``maxiter``
    (default ``10 * b.size``) steps; ``M`` approximates ``A``'s inverse."""
    return _isolve(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, check_symmetric=True)


def bicgstab(A: LinearOperator, b: Tree, x0: Tree | None = None, *, tol: float = 1e-5,  # noqa: N803
             atol: float = 0.0, maxiter: int | None = None,
             M: LinearOperator | None = None) -> tuple[Tree, None]:  # noqa: N803
    """Solve ``A x = b`` for a general ``A`` by the bi-conjugate gradient
    stabilized method: ``(x, None)``; arguments as ``cg``'s."""
    return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, check_symmetric=False)


# -- gmres ---------------------------------------------------------------------------------------
def _safe_normalize(x: Tree, thresh: Array | None = None) -> tuple[Tree, Array]:
    norm = _norm(x)
    dtype = tnp.result_type(*_leaves(x))
    limit = tnp.asarray(tnp.finfo(norm.dtype).eps, dtype=norm.dtype) if thresh is None else thresh
    limit = tnp.real(limit.astype(dtype))
    use_norm = norm > limit
    norm_cast = norm.astype(dtype)
    normalized = tree.map(lambda y: tnp.where(use_norm, y / norm_cast, tnp.zeros_like(y)), x)
    return normalized, tnp.where(use_norm, norm, tnp.zeros_like(norm))


def _project_on_columns(A: Tree, v: Tree) -> Array:  # noqa: N803
    projs = [tnp.einsum("...n,...->n", tnp.conj(X), y, precision=_HIGHEST)
             for X, y in zip(_leaves(A), _leaves(v))]
    return _sum(projs)


def _iterative_classical_gram_schmidt(Q: Tree, x: Tree, xnorm: Array,  # noqa: N803
                                      max_iterations: int = 2) -> tuple[Tree, Array]:
    q0 = _leaves(Q)[0]
    r = tnp.zeros(q0.shape[-1], dtype=q0.dtype)
    xnorm_scaled = xnorm / np.sqrt(2.0)
    k0 = tnp.asarray(0, dtype=np.dtype(np.int32))
    Carry = tuple[Array, Tree, Array, Array]

    def body(carry: Carry) -> Carry:
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        qh = tree.map(lambda X: _dot(X, h), Q)
        q = _sub(q, qh)
        r = r + h

        def qnorm_cond(c: tuple[Array, Array, Tree, Array]) -> Array:
            kk, not_done, _, _ = c
            return not_done & (kk < max_iterations - 1)

        def qnorm(c: tuple[Array, Array, Tree, Array]) -> tuple[Array, Array, Tree, Array]:
            kk, _, qq, _ = c
            _, qn = _safe_normalize(qq)
            return kk, tnp.asarray(False), qq, qn / np.sqrt(2.0)

        _, _, q, qnorm_scaled = lax.while_loop(qnorm_cond, qnorm, (k, tnp.asarray(True), q, qnorm_scaled))
        return k + 1, q, r, qnorm_scaled

    def cond(carry: Carry) -> Array:
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return (k < max_iterations - 1) & (rnorm < qnorm_scaled)

    carry = body((k0, x, r, xnorm_scaled))
    _, q, r, _ = lax.while_loop(cond, body, carry)
    return q, r


def _kth_arnoldi_iteration(k: Array, A: MatVec, M: MatVec, V: Tree, H: Array  # noqa: N803
                           ) -> tuple[Tree, Array, Array]:
    dtype = tnp.result_type(*_leaves(V))
    eps = tnp.finfo(dtype).eps
    v = tree.map(lambda X: tnp.take(X, k, axis=-1), V)
    v = M(A(v))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _iterative_classical_gram_schmidt(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = tree.map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    H = H.at[k, :].set(h)
    return V, H, v_norm_1 == 0.0


def _lstsq(a: Array, b: Array) -> Array:
    ah = tnp.conj(a.T) if is_complex(a.dtype) else a.T
    return _linalg.solve(_dot(ah, a), _dot(ah, b), assume_a="pos")


def _gmres_batched(A: MatVec, b: Tree, x0: Tree, unit_residual: Tree, residual_norm: Array,  # noqa: N803
                   restart: int, M: MatVec) -> tuple[Tree, Tree, Array]:  # noqa: N803
    V = tree.map(lambda x: tnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual)
    dtype = tnp.result_type(*_leaves(b))
    H = tnp.eye(restart, restart + 1, dtype=dtype)
    k0 = tnp.asarray(0, dtype=np.dtype(np.int32))
    Carry = tuple[Tree, Array, Array, Array]

    def cond(carry: Carry) -> Array:
        _, _, breakdown, k = carry
        return (k < restart) & ~breakdown

    def body(carry: Carry) -> Carry:
        V_, H_, _, k = carry  # noqa: N806
        V_, H_, breakdown = _kth_arnoldi_iteration(k, A, M, V_, H_)  # noqa: N806
        return V_, H_, breakdown, k + 1

    V, H, _, _ = lax.while_loop(cond, body, (V, H, tnp.asarray(False), k0))
    beta_vec = tnp.zeros((restart + 1,), dtype=dtype).at[0].set(residual_norm.astype(dtype))
    y = _lstsq(H.T, beta_vec)
    dx = tree.map(lambda X: _dot(X[..., :-1], y), V)
    x = _add(x0, dx)
    residual = M(_sub(b, A(x)))
    unit, norm = _safe_normalize(residual)
    return x, unit, norm


def _rotate_vectors(H: Array, i: Array | int, cs: Array, sn: Array) -> Array:  # noqa: N803
    x1 = H[i]
    y1 = H[i + 1]
    x2 = tnp.conj(cs) * x1 - tnp.conj(sn) * y1
    y2 = sn * x1 + cs * y1
    return H.at[i].set(x2).at[i + 1].set(y2)


def _givens_rotation(a: Array, b: Array) -> tuple[Array, Array]:
    b_zero = tnp.abs(b) == 0
    a_lt_b = tnp.abs(a) < tnp.abs(b)
    t = -tnp.where(a_lt_b, a, b) / tnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + tnp.abs(t) ** 2).astype(t.dtype)
    cs = tnp.where(b_zero, tnp.ones_like(t), tnp.where(a_lt_b, r * t, r))
    sn = tnp.where(b_zero, tnp.zeros_like(t), tnp.where(a_lt_b, r, r * t))
    return cs, sn


def _gmres_incremental(A: MatVec, b: Tree, x0: Tree, unit_residual: Tree, residual_norm: Array,  # noqa: N803
                       ptol: Array, restart: int, M: MatVec) -> tuple[Tree, Tree, Array]:  # noqa: N803
    V = tree.map(lambda x: tnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual)
    dtype = tnp.result_type(*_leaves(b))
    R = tnp.eye(restart, restart + 1, dtype=dtype)
    givens = tnp.zeros((restart, 2), dtype=dtype)
    beta_vec = tnp.zeros((restart + 1,), dtype=dtype).at[0].set(residual_norm.astype(dtype))
    k0 = tnp.asarray(0, dtype=np.dtype(np.int32))
    Carry = tuple[Array, Array, Tree, Array, Array, Array]

    def cond(carry: Carry) -> Array:
        k, err = carry[0], carry[1]
        return (k < restart) & (err > ptol)

    def body(carry: Carry) -> Carry:
        k, _, V_, R_, beta, giv = carry  # noqa: N806
        V_, H, _ = _kth_arnoldi_iteration(k, A, M, V_, R_)  # noqa: N806
        row = H[k, :]

        def apply_ith(i: Value, h_row: Array) -> Array:
            j = tnp.asarray(i)
            return _rotate_vectors(h_row, j, giv[j, 0], giv[j, 1])

        row = lax.fori_loop(0, k, apply_ith, row)
        cs, sn = _givens_rotation(row[k], row[k + 1])
        giv = giv.at[k, 0].set(cs).at[k, 1].set(sn)
        row = _rotate_vectors(row, k, cs, sn)
        R_ = R_.at[k, :].set(row)  # noqa: N806
        beta = _rotate_vectors(beta, k, cs, sn)
        err = tnp.abs(beta[k + 1]).astype(residual_norm.dtype)
        return k + 1, err, V_, R_, beta, giv

    _, _, V, R, beta_vec, _ = lax.while_loop(cond, body, (k0, residual_norm, V, R, beta_vec, givens))
    y = _linalg.solve_triangular(R[:, :-1].T, beta_vec[:-1])
    dx = tree.map(lambda X: _dot(X[..., :-1], y), V)
    x = _add(x0, dx)
    residual = M(_sub(b, A(x)))
    unit, norm = _safe_normalize(residual)
    return x, unit, norm


def gmres(A: LinearOperator, b: Tree, x0: Tree | None = None, *, tol: float = 1e-5,  # noqa: N803
          atol: float = 0.0, restart: int = 20, maxiter: int | None = None,
          M: LinearOperator | None = None,  # noqa: N803
          solve_method: str = "batched") -> tuple[Tree, Array]:
    """Solve ``A x = b`` by GMRES restarted every ``restart`` steps:
    ``(x, info)``, ``info`` -1 where ``x`` has NaNs and 0 else (as JAX's).
    ``solve_method`` 'batched' (Arnoldi, then one least-squares solve) or
    'incremental' (Givens rotations, stopping inside a restart); stops when
    the preconditioned residual is below ``max(tol * norm(b), atol)`` or
    after ``maxiter`` restarts."""
    if solve_method not in ("incremental", "batched"):
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'")
    matvec, bb, x0_, iters, precond = _prepare(A, b, x0, maxiter, M)
    size = sum(v.size for v in _leaves(bb))
    restart = min(restart, size)
    b_stopped = tree.map(lax.stop_gradient, bb)
    b_norm = _norm(b_stopped)
    atol_ = tnp.maximum(tol * b_norm, atol)
    mb_norm = _norm(precond(b_stopped))
    ptol = mb_norm * tnp.minimum(1.0, atol_ / b_norm)

    def run(mv: MatVec, rhs: Tree) -> Tree:
        residual = precond(_sub(rhs, mv(x0_)))
        unit0, norm0 = _safe_normalize(residual)
        k0 = tnp.asarray(0, dtype=np.dtype(np.int32))
        Carry = tuple[Tree, Array, Tree, Array]

        def cond(value: Carry) -> Array:
            _, k, _, rnorm = value
            return (k < iters) & (rnorm > atol_)

        def body(value: Carry) -> Carry:
            x, k, unit, rnorm = value
            if solve_method == "batched":
                x, unit, rnorm = _gmres_batched(mv, rhs, x, unit, rnorm, restart, precond)
            else:
                x, unit, rnorm = _gmres_incremental(mv, rhs, x, unit, rnorm, ptol, restart, precond)
            return x, k + 1, unit, rnorm

        x_final, *_ = lax.while_loop(cond, body, (x0_, k0, unit0, norm0))
        return x_final

    x = _linear_solve(matvec, bb, run, run, False)
    failed = tnp.isnan(_norm(x))
    info = tnp.where(failed, -1, 0)
    return x, info
