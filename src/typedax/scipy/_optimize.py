"""The implementation of ``typedax.scipy.optimize``, as ``jax.scipy.optimize``:
``minimize(fun, x0, args, method='BFGS')`` returning JAX's ``OptimizeResults``.

BFGS and its line search are JAX's (``jax/_src/scipy/optimize/bfgs.py`` and
``line_search.py``, after SciPy's ``line_search_wolfe2`` and Nocedal &
Wright's algorithms 3.5 and 3.6, with the same constants and branch order):
a ``lax.while_loop`` of BFGS steps, each with a strong-Wolfe line search
that is itself a ``while_loop`` around two zoom loops, so ``minimize``
works under ``jit`` and ``vmap`` as JAX's does. Every loop carry is built in
its final dtype (JAX promotes its Python-scalar initial values to the body's
types; typedax's ``while_loop`` wants them equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..api_reverse import value_and_grad
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_int
from ..core.trace import Value
from .._lax.lax import _convert_weak
from .._numpy import lax_numpy as _lax_numpy

__all__ = ["OptimizeResults", "minimize"]

_HIGHEST = lax.Precision.HIGHEST


def _dot(a: Array, b: Array) -> Array:
    return tnp.dot(a, b, precision=_HIGHEST)


class OptimizeResults(NamedTuple):
    """What ``minimize`` returns (JAX's ``OptimizeResults``): the solution
    ``x``, whether it ``success``-fully converged, the ``status`` (0
    converged, 1 ``maxiter`` reached, 2 + the line search's status where it
    failed, 3 its iterations ran out), ``fun`` and ``jac`` at ``x``, the
    inverse Hessian estimate ``hess_inv``, and the counts of function and
    gradient evaluations and of iterations."""

    x: Array
    success: bool | Array
    status: int | Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: int | Array
    njev: int | Array
    nit: int | Array


# -- the line search ----------------------------------------------------------------------
def _cubicmin(a: Array, fa: Array, fpa: Array, b: Array, fb: Array, c: Array, fc: Array) -> Array:
    """The minimizer of the cubic through ``(a, fa)``, ``(b, fb)``, ``(c, fc)``
    with slope ``fpa`` at ``a``."""
    C = fpa  # noqa: N806 - the algorithm's names
    db = b - a
    dc = c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = tnp.stack([tnp.stack([dc**2, -db**2]), tnp.stack([-dc**3, db**3])])
    d2 = tnp.stack([fb - fa - C * db, fc - fa - C * dc])
    ab = _dot(d1, d2) / denom
    A, B = ab[0], ab[1]  # noqa: N806
    radical = B * B - 3.0 * A * C
    return a + (-B + tnp.sqrt(radical)) / (3.0 * A)


def _quadmin(a: Array, fa: Array, fpa: Array, b: Array, fb: Array) -> Array:
    """The minimizer of the quadratic through ``(a, fa)``, ``(b, fb)`` with
    slope ``fpa`` at ``a``."""
    db = b - a
    B = (fb - fa - fpa * db) / db**2  # noqa: N806
    return a - fpa / (2.0 * B)


class _ZoomState(NamedTuple):
    done: Array
    failed: Array
    j: Array
    a_lo: Array
    phi_lo: Array
    dphi_lo: Array
    a_hi: Array
    phi_hi: Array
    dphi_hi: Array
    a_rec: Array
    phi_rec: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array
    nfev: Array
    ngev: Array


_FuncAndGrad = Callable[[Array], tuple[Array, Array, Array]]


def _where(pred: Array, new: Array, old: Array) -> Array:
    return tnp.where(pred, new, old)


def _zoom(func_and_grad: _FuncAndGrad, wolfe_one: Callable[[Array, Array], Array],
          wolfe_two: Callable[[Array], Array], a_lo: Array, phi_lo: Array, dphi_lo: Array,
          a_hi: Array, phi_hi: Array, dphi_hi: Array, g_0: Array, pass_through: Array) -> _ZoomState:
    """JAX's ``_zoom``: shrink ``[a_lo, a_hi]`` (by cubic, quadratic or
    bisection steps) until a step satisfies the strong Wolfe conditions."""
    dt = a_lo.dtype
    zero_i = tnp.asarray(0, dtype=default_int())
    state = _ZoomState(
        done=tnp.asarray(False), failed=tnp.asarray(False), j=zero_i,
        a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
        a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
        a_star=tnp.asarray(1.0, dtype=dt), phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0,
        nfev=zero_i, ngev=zero_i,
    )
    delta1, delta2 = 0.2, 0.1
    threshold = 1e-5 if tnp.finfo(dt).bits < 64 else 1e-10

    def body(s: _ZoomState) -> _ZoomState:
        dalpha = s.a_hi - s.a_lo
        a = tnp.minimum(s.a_hi, s.a_lo)
        b = tnp.maximum(s.a_hi, s.a_lo)
        cchk = delta1 * dalpha
        qchk = delta2 * dalpha
        s = s._replace(failed=s.failed | (dalpha <= threshold))
        a_cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > a + cchk) & (a_cubic < b - cchk)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > a + qchk) & (a_quad < b - qchk)
        a_bisect = (s.a_lo + s.a_hi) / 2.0
        use_bisect = ~use_cubic & ~use_quad
        a_j = _where(use_cubic, a_cubic, s.a_rec)
        a_j = _where(use_quad, a_quad, a_j)
        a_j = _where(use_bisect, a_bisect, a_j)
        phi_j, dphi_j, g_j = func_and_grad(a_j)
        phi_j = phi_j.astype(s.phi_lo.dtype)
        dphi_j = dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        s = s._replace(a_hi=_where(hi_to_j, a_j, s.a_hi), phi_hi=_where(hi_to_j, phi_j, s.phi_hi),
                       dphi_hi=_where(hi_to_j, dphi_j, s.dphi_hi), a_rec=_where(hi_to_j, s.a_hi, s.a_rec),
                       phi_rec=_where(hi_to_j, s.phi_hi, s.phi_rec))
        s = s._replace(done=star_to_j | s.done, a_star=_where(star_to_j, a_j, s.a_star),
                       phi_star=_where(star_to_j, phi_j, s.phi_star),
                       dphi_star=_where(star_to_j, dphi_j, s.dphi_star),
                       g_star=_where(star_to_j, g_j, s.g_star))
        s = s._replace(a_hi=_where(hi_to_lo, s.a_lo, s.a_hi), phi_hi=_where(hi_to_lo, s.phi_lo, s.phi_hi),
                       dphi_hi=_where(hi_to_lo, s.dphi_lo, s.dphi_hi), a_rec=_where(hi_to_lo, s.a_hi, s.a_rec),
                       phi_rec=_where(hi_to_lo, s.phi_hi, s.phi_rec))
        rec = lo_to_j & ~hi_to_lo
        s = s._replace(a_rec=_where(rec, s.a_lo, s.a_rec), phi_rec=_where(rec, s.phi_lo, s.phi_rec))
        s = s._replace(a_lo=_where(lo_to_j, a_j, s.a_lo), phi_lo=_where(lo_to_j, phi_j, s.phi_lo),
                       dphi_lo=_where(lo_to_j, dphi_j, s.dphi_lo))
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    def cond(s: _ZoomState) -> Array:
        return ~s.done & ~pass_through & ~s.failed

    return lax.while_loop(cond, body, state)


class _LineSearchState(NamedTuple):
    done: Array
    failed: Array
    i: Array
    a_i1: Array
    phi_i1: Array
    dphi_i1: Array
    nfev: Array
    ngev: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array


class _LineSearchResults(NamedTuple):
    failed: Array
    nit: Array
    nfev: Array
    ngev: Array
    k: Array
    a_k: Array
    f_k: Array
    g_k: Array
    status: Array


def _line_search(f: Callable[[Array], Array], xk: Array, pk: Array, old_fval: Array,
                 old_old_fval: Array | None, gfk: Array, c1: float = 1e-4, c2: float = 0.9,
                 maxiter: int = 20) -> _LineSearchResults:
    """JAX's ``line_search``: a step along ``pk`` from ``xk`` satisfying the
    strong Wolfe conditions (``c1``, ``c2``), given ``f`` and its gradient
    ``gfk`` at ``xk``."""
    dt = pk.dtype

    def func_and_grad(t: Array) -> tuple[Array, Array, Array]:
        phi, g = value_and_grad(f)(xk + tnp.asarray(t, dtype=dt) * pk)
        return phi, tnp.real(_dot(g, pk)), g

    phi_0 = old_fval
    dphi_0 = tnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start_value = tnp.where(candidate > 1, tnp.ones_like(candidate), candidate)
    else:
        start_value = tnp.ones((), dtype=dphi_0.dtype)

    def wolfe_one(a_i: Array, phi_i: Array) -> Array:
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i: Array) -> Array:
        return tnp.abs(dphi_i) <= -c2 * dphi_0

    real_dt = dphi_0.dtype
    zero_i = tnp.asarray(0, dtype=default_int())
    state = _LineSearchState(
        done=tnp.asarray(False), failed=tnp.asarray(False), i=tnp.asarray(1, dtype=default_int()),
        a_i1=tnp.asarray(0.0, dtype=real_dt), phi_i1=phi_0, dphi_i1=dphi_0, nfev=zero_i, ngev=zero_i,
        a_star=tnp.asarray(0.0, dtype=real_dt), phi_star=phi_0, dphi_star=dphi_0, g_star=gfk,
    )

    def body(s: _LineSearchState) -> _LineSearchState:
        a_i = tnp.where(s.i == 1, start_value.astype(real_dt), s.a_i1 * 2.0)
        phi_i, dphi_i, g_i = func_and_grad(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        star_to_i = wolfe_two(dphi_i) & ~star_to_zoom1
        star_to_zoom2 = (dphi_i >= 0.0) & ~star_to_zoom1 & ~star_to_i
        zoom1 = _zoom(func_and_grad, wolfe_one, wolfe_two, s.a_i1, s.phi_i1, s.dphi_i1, a_i, phi_i, dphi_i,
                      gfk, ~star_to_zoom1)
        s = s._replace(nfev=s.nfev + zoom1.nfev, ngev=s.ngev + zoom1.ngev)
        zoom2 = _zoom(func_and_grad, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, s.a_i1, s.phi_i1, s.dphi_i1,
                      gfk, ~star_to_zoom2)
        s = s._replace(nfev=s.nfev + zoom2.nfev, ngev=s.ngev + zoom2.ngev)
        s = s._replace(done=star_to_zoom1 | s.done, failed=(star_to_zoom1 & zoom1.failed) | s.failed,
                       a_star=_where(star_to_zoom1, zoom1.a_star, s.a_star),
                       phi_star=_where(star_to_zoom1, zoom1.phi_star, s.phi_star),
                       dphi_star=_where(star_to_zoom1, zoom1.dphi_star, s.dphi_star),
                       g_star=_where(star_to_zoom1, zoom1.g_star, s.g_star))
        s = s._replace(done=star_to_i | s.done, a_star=_where(star_to_i, a_i, s.a_star),
                       phi_star=_where(star_to_i, phi_i, s.phi_star),
                       dphi_star=_where(star_to_i, dphi_i, s.dphi_star), g_star=_where(star_to_i, g_i, s.g_star))
        s = s._replace(done=star_to_zoom2 | s.done, failed=(star_to_zoom2 & zoom2.failed) | s.failed,
                       a_star=_where(star_to_zoom2, zoom2.a_star, s.a_star),
                       phi_star=_where(star_to_zoom2, zoom2.phi_star, s.phi_star),
                       dphi_star=_where(star_to_zoom2, zoom2.dphi_star, s.dphi_star),
                       g_star=_where(star_to_zoom2, zoom2.g_star, s.g_star))
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    def cond(s: _LineSearchState) -> Array:
        return ~s.done & (s.i <= maxiter) & ~s.failed

    state = lax.while_loop(cond, body, state)
    one, three, zero = (tnp.asarray(v, dtype=default_int()) for v in (1, 3, 0))
    status = tnp.where(state.failed, one, tnp.where(state.i > maxiter, three, zero))
    alpha_k = state.a_star
    if tnp.finfo(alpha_k.dtype).bits != 64:
        alpha_k = tnp.where(tnp.abs(alpha_k) < 1e-8, tnp.sign(alpha_k) * 1e-8, alpha_k)
    return _LineSearchResults(failed=state.failed | ~state.done, nit=state.i - 1, nfev=state.nfev,
                              ngev=state.ngev, k=state.i, a_k=alpha_k, f_k=state.phi_star, g_k=state.g_star,
                              status=status)


# -- BFGS --------------------------------------------------------------------------------------
class _BFGSResults(NamedTuple):
    converged: Array
    failed: Array
    k: Array
    nfev: Array
    ngev: Array
    nhev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    H_k: Array  # noqa: N815 - JAX's name
    old_old_fval: Array
    status: Array
    line_search_status: Array


def _norm(x: Array, ord: float | int) -> Array:  # noqa: A002 - JAX's name
    return tnp.linalg.norm(x, ord=ord)


def _minimize_bfgs(fun: Callable[[Array], Array], x0: Array, maxiter: int | None = None,
                   norm: float | int = np.inf, gtol: float = 1e-5,
                   line_search_maxiter: int = 10) -> _BFGSResults:
    """JAX's ``minimize_bfgs``."""
    if maxiter is None:
        maxiter = int(np.size(x0)) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    ints = default_int()
    zero, one = tnp.asarray(0, dtype=ints), tnp.asarray(1, dtype=ints)
    state = _BFGSResults(
        converged=_norm(g_0, norm) < gtol, failed=tnp.asarray(False), k=zero, nfev=one, ngev=one, nhev=zero,
        x_k=x0, f_k=f_0, g_k=g_0, H_k=tnp.eye(d, dtype=x0.dtype),
        old_old_fval=f_0 + _norm(g_0, 2) / 2, status=zero, line_search_status=zero,
    )

    def cond(s: _BFGSResults) -> Array:
        return ~s.converged & ~s.failed & (s.k < maxiter)

    def body(s: _BFGSResults) -> _BFGSResults:
        p_k = -_dot(s.H_k, s.g_k)
        ls = _line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval, gfk=s.g_k,
                          maxiter=line_search_maxiter)
        s = s._replace(nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
                       line_search_status=ls.status)
        s_k = ls.a_k.astype(p_k.dtype) * p_k
        x_kp1 = s.x_k + s_k
        y_k = ls.g_k - s.g_k
        rho_k = tnp.reciprocal(_dot(y_k, s_k))
        sy_k = s_k[:, None] * y_k[None, :]
        w = tnp.eye(d, dtype=rho_k.dtype) - rho_k * sy_k
        h_kp1 = (tnp.einsum("ij,jk,lk", w, s.H_k, w, precision=_HIGHEST)
                 + rho_k * s_k[:, None] * s_k[None, :])
        h_kp1 = tnp.where(tnp.isfinite(rho_k), h_kp1, s.H_k)
        converged = _norm(ls.g_k, norm) < gtol
        return s._replace(converged=converged, k=s.k + 1, x_k=x_kp1, f_k=ls.f_k, g_k=ls.g_k, H_k=h_kp1,
                          old_old_fval=s.f_k)

    state = lax.while_loop(cond, body, state)
    status = tnp.where(state.converged, zero,
                       tnp.where(state.k == maxiter, one,
                                 tnp.where(state.failed, 2 + state.line_search_status, -one)))
    return state._replace(status=status)


# -- L-BFGS (JAX's experimental method) ---------------------------------------------------------
class _LBFGSResults(NamedTuple):
    converged: Array
    failed: Array
    k: Array
    nfev: Array
    ngev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    s_history: Array
    y_history: Array
    rho_history: Array
    gamma: Array
    status: Array
    ls_status: Array


def _two_loop_recursion(state: _LBFGSResults) -> Array:
    """The L-BFGS direction from the stored pairs (Nocedal & Wright, 7.4)."""
    dtype = state.rho_history.dtype
    size = state.rho_history.shape[0]
    curr = tnp.where(state.k < size, state.k, size)
    q = -tnp.conj(state.g_k)
    a_his = tnp.zeros_like(state.rho_history)

    def first(j: Value, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        i = size - 1 - tnp.asarray(j)
        q_, a_ = carry
        a_i = state.rho_history[i] * tnp.real(_dot(tnp.conj(state.s_history[i]), q_)).astype(dtype)
        return q_ - a_i * tnp.conj(state.y_history[i]), a_.at[i].set(a_i)

    q, a_his = lax.fori_loop(0, curr, first, (q, a_his))
    q = state.gamma * q

    def second(j: Value, q_: Array) -> Array:
        i = size - curr + tnp.asarray(j)
        b_i = state.rho_history[i] * tnp.real(_dot(state.y_history[i], q_)).astype(dtype)
        return q_ + (a_his[i] - b_i) * state.s_history[i]

    return lax.fori_loop(0, curr, second, q)


def _push(history: Array, new: Array) -> Array:
    return tnp.roll(history, -1, axis=0).at[-1].set(new)


def _minimize_lbfgs(fun: Callable[[Array], Array], x0: Array, maxiter: float | None = None,
                    norm: float | int = np.inf, maxcor: int = 10, ftol: float = 2.220446049250313e-09,
                    gtol: float = 1e-5, maxfun: float | None = None, maxgrad: float | None = None,
                    maxls: int = 20) -> _LBFGSResults:
    """JAX's ``_minimize_lbfgs``."""
    d = x0.shape[0]
    dtype = x0.dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    iters = np.inf if maxiter is None else maxiter
    funs = np.inf if maxfun is None else maxfun
    grads = np.inf if maxgrad is None else maxgrad
    f_0, g_0 = value_and_grad(fun)(x0)
    ints = default_int()
    zero, one = tnp.asarray(0, dtype=ints), tnp.asarray(1, dtype=ints)
    state = _LBFGSResults(
        converged=tnp.asarray(False), failed=tnp.asarray(False), k=zero, nfev=one, ngev=one,
        x_k=x0, f_k=f_0, g_k=g_0, s_history=tnp.zeros((maxcor, d), dtype=dtype),
        y_history=tnp.zeros((maxcor, d), dtype=dtype), rho_history=tnp.zeros((maxcor,), dtype=dtype),
        gamma=tnp.ones((), dtype=g_0.dtype), status=zero, ls_status=zero,
    )

    def cond(s: _LBFGSResults) -> Array:
        return ~s.converged & ~s.failed

    def body(s: _LBFGSResults) -> _LBFGSResults:
        p_k = _two_loop_recursion(s)
        ls = _line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=None, gfk=s.g_k, maxiter=maxls)
        s_k = ls.a_k.astype(p_k.dtype) * p_k
        x_kp1 = s.x_k + s_k
        y_k = ls.g_k - s.g_k
        rho_inv = tnp.real(_dot(y_k, s_k))
        rho_k = tnp.reciprocal(rho_inv).astype(y_k.dtype)
        gamma = rho_inv / tnp.real(_dot(tnp.conj(y_k), y_k))
        status = zero
        status = tnp.where(s.f_k - ls.f_k < ftol, 4, status)
        status = tnp.where(s.ngev >= grads, 3, status)
        status = tnp.where(s.nfev >= funs, 2, status)
        status = tnp.where(s.k >= iters, 1, status)
        status = tnp.where(ls.failed, 5, status).astype(ints)
        converged = _norm(ls.g_k, norm) < gtol
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1, nfev=s.nfev + ls.nfev,
            ngev=s.ngev + ls.ngev, x_k=x_kp1.astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype), s_history=_push(s.s_history, s_k), y_history=_push(s.y_history, y_k),
            rho_history=_push(s.rho_history, rho_k), gamma=gamma.astype(s.g_k.dtype),
            status=tnp.where(converged, zero, status), ls_status=ls.status.astype(ints))

    return lax.while_loop(cond, body, state)


def _weak(n: Array) -> Array:
    """A count, weakly typed as JAX's (its loops count from Python ints)."""
    return _convert_weak(n, n.dtype)


_OPTIONS = ("maxiter", "norm", "gtol", "line_search_maxiter")
_LBFGS_OPTIONS = ("maxiter", "norm", "maxcor", "ftol", "gtol", "maxfun", "maxgrad", "maxls")
_LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def minimize(fun: Callable[..., ArrayLike], x0: ArrayLike, args: tuple[object, ...] = (), *, method: str,
             tol: float | None = None, options: Mapping[str, object] | None = None) -> OptimizeResults:
    """Minimize the scalar function ``fun(x, *args)`` of the 1-d array ``x``
    from ``x0`` (``jax.scipy.optimize.minimize``): ``method='BFGS'`` (or
    JAX's ``'l-bfgs-experimental-do-not-rely-on-this'``, whose options are
    ``maxiter``, ``norm``, ``maxcor``, ``ftol``, ``gtol``, ``maxfun``,
    ``maxgrad``, ``maxls``);
    ``options`` are BFGS's ``maxiter`` (default ``200 * x0.size``), ``norm``
    (of the gradient in the stopping test, default ``inf``), ``gtol``
    (default ``1e-5``) and ``line_search_maxiter`` (default 10). ``tol`` is
    unused, as in JAX."""
    del tol
    opts = dict(options) if options is not None else {}
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    kind = method.lower()
    if kind not in ("bfgs", _LBFGS):
        raise ValueError(f"Method {method} not recognized")
    allowed, who = (_OPTIONS, "minimize_bfgs") if kind == "bfgs" else (_LBFGS_OPTIONS, "_minimize_lbfgs")
    unknown = [k for k in opts if k not in allowed]
    if unknown:
        raise TypeError(f"{who}() got an unexpected keyword argument {unknown[0]!r}")
    for name, value in opts.items():
        if not isinstance(value, (int, float, np.integer, np.floating)) and not (value is None and name.startswith("max")):
            raise TypeError(f"minimize: the option {name} must be a number, got {value!r}")

    def fun_with_args(x: Array) -> Array:
        return tnp.asarray(fun(x, *args))

    x = tnp.asarray(x0)
    if x.ndim != 1:
        raise ValueError(f"minimize: x0 must be a 1-d array, got shape {x.shape}")
    x = tnp.asarray(_lax_numpy._float(x))
    num = cast(dict[str, float], opts)
    # the line search computes both interpolations and selects one, as
    # JAX's: eagerly (NumPy) the unused one may divide by zero or take a
    # square root of a negative number, which XLA does silently
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if kind == "bfgs":
            maxiter = num.get("maxiter")
            r = _minimize_bfgs(fun_with_args, x, maxiter=None if maxiter is None else int(maxiter),
                               norm=num.get("norm", np.inf), gtol=float(num.get("gtol", 1e-5)),
                               line_search_maxiter=int(num.get("line_search_maxiter", 10)))
            success = r.converged & ~r.failed
            return OptimizeResults(x=r.x_k, success=success, status=_weak(r.status), fun=r.f_k, jac=r.g_k,
                                   hess_inv=r.H_k, nfev=_weak(r.nfev), njev=_weak(r.ngev), nit=_weak(r.k))
        lb = _minimize_lbfgs(fun_with_args, x, maxiter=num.get("maxiter"), norm=num.get("norm", np.inf),
                             maxcor=int(num.get("maxcor", 10)), ftol=float(num.get("ftol", 2.220446049250313e-09)),
                             gtol=float(num.get("gtol", 1e-5)), maxfun=num.get("maxfun"),
                             maxgrad=num.get("maxgrad"), maxls=int(num.get("maxls", 20)))
    return OptimizeResults(x=lb.x_k, success=lb.converged & ~lb.failed, status=_weak(lb.status), fun=lb.f_k,
                           jac=lb.g_k, hess_inv=None, nfev=_weak(lb.nfev), njev=_weak(lb.ngev), nit=_weak(lb.k))

