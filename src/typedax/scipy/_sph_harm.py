"""``jax.scipy.special.sph_harm_y``: spherical harmonics, computed as JAX's.

The normalized associated Legendre functions ``P̄_l^m(cos θ)`` of every
degree and order up to ``n_max`` come from JAX's three recurrences (the
diagonal ``m = l``, the one above it ``l = m + 1``, then ``l`` from ``l - 1``
and ``l - 2`` along each diagonal ``l - m = i``, one ``fori_loop`` step per
``i``); a harmonic is the table's entry at ``(|m|, n)`` times ``e^{i|m|φ}``,
conjugated with the sign ``(-1)^|m|`` for ``m < 0``. ``n_max`` is static (by
default ``max(n)``, which needs ``n`` concrete); ``n`` beyond it is clipped to
it, as JAX's.
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.errors import ConcretizationError
from ..core.trace import Tracer, Value
from ..jitting import jit

__all__ = ["sph_harm_y"]


def _recurrence_masks(l_max: int, dtype: np.dtype[np.generic]) -> tuple[Array, Array]:
    """JAX's ``_gen_recurrence_mask`` (normalized): the coefficients of
    ``P̄_l^m = d0 x P̄_{l-1}^m - d1 P̄_{l-2}^m``, per loop step ``i`` placed
    at the entries ``(m, m + i)`` of the step's diagonal."""
    m_mat, l_mat = tnp.meshgrid(tnp.arange(l_max + 1, dtype=dtype), tnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    c0 = l_mat * l_mat
    c1 = m_mat * m_mat
    c2 = 2.0 * l_mat
    c3 = (l_mat - 1.0) * (l_mat - 1.0)
    d0 = tnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
    d1 = tnp.sqrt(((c2 + 1.0) * (c3 - c1)) / ((c2 - 3.0) * (c0 - c1)))
    i0 = tnp.triu_indices(l_max + 1, 1)
    i1 = tnp.triu_indices(l_max + 1, 2)
    zeros = tnp.zeros((l_max + 1, l_max + 1), dtype=dtype)
    d0_mask = zeros.at[i0].set(d0[i0])
    d1_mask = zeros.at[i1].set(d1[i1])
    r = np.arange(l_max + 1)
    step = (r[:, None, None] + r[None, :, None] - r[None, None, :] == 0).astype(dtype)
    return tnp.einsum("jk,ijk->ijk", d0_mask, step), tnp.einsum("jk,ijk->ijk", d1_mask, step)


def _legendre(l_max: int, x: Array) -> Array:
    """JAX's ``_gen_associated_legendre(l_max, x, True)``: ``p[m, l, k]`` the
    normalized associated Legendre function of order ``m`` and degree ``l``
    at ``x[k]`` (zero where ``m > l``)."""
    dtype = x.dtype
    p = tnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=dtype)
    a_idx = tnp.arange(1, l_max + 1, dtype=dtype)
    b_idx = tnp.arange(l_max, dtype=dtype)
    initial = 0.5 / np.sqrt(np.pi)  # P̄_0^0
    f_a = tnp.cumprod(-1 * tnp.sqrt(1.0 + 0.5 / a_idx))
    f_b = tnp.sqrt(2.0 * b_idx + 3.0)
    p = p.at[0, 0].set(initial)
    y = tnp.cumprod(tnp.broadcast_to(tnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    p_diag = initial * tnp.einsum("i,ij->ij", f_a, y)
    diag = np.arange(l_max + 1)
    p = p.at[diag[1:], diag[1:]].set(p_diag)
    p_offdiag = tnp.einsum("ij,ij->ij", tnp.einsum("i,j->ij", f_b, x), p[diag[:l_max], diag[:l_max]])
    p = p.at[diag[:l_max], diag[:l_max] + 1].set(p_offdiag)
    d0_3d, d1_3d = _recurrence_masks(l_max, dtype)

    def body(i: Value, p_val: Array) -> Array:
        h = (tnp.einsum("ij,ijk->ijk", d0_3d[i], tnp.einsum("ijk,k->ijk", tnp.roll(p_val, 1, axis=1), x))
             - tnp.einsum("ij,ijk->ijk", d1_3d[i], tnp.roll(p_val, 2, axis=1)))
        return p_val + h

    if l_max > 1:
        p = lax.fori_loop(2, l_max + 1, body, p)
    return p


def _sph_harm_jitted(n: Array, m: Array, theta: Array, phi: Array, n_max: int) -> Array:
    legendre = _legendre(n_max, tnp.cos(theta))
    legendre_val = legendre.at[tnp.abs(m), n, tnp.arange(len(n))].get(mode="clip")
    angle = tnp.abs(m) * phi
    vandermonde = lax.complex(tnp.cos(angle), tnp.sin(angle))
    harmonics = lax.complex(legendre_val * tnp.real(vandermonde), legendre_val * tnp.imag(vandermonde))
    return tnp.where(m < 0, (-1.0) ** tnp.abs(m) * tnp.conjugate(harmonics), harmonics)


_sph_harm = jit(_sph_harm_jitted, static_argnums=(4,))


def sph_harm_y(
    n: ArrayLike, m: ArrayLike, theta: ArrayLike, phi: ArrayLike, diff_n: int | None = None, n_max: int | None = None,
) -> Array:
    """The spherical harmonics ``Y_n^m(θ, φ)`` (``jax.scipy.special.sph_harm_y``):
    degree ``n >= 0`` and order ``|m| <= n`` (1-D, one per point), the polar
    angle ``theta`` in ``[0, π]`` and the azimuth ``phi``; ``n_max`` (static)
    the greatest degree, by default ``max(n)``. ``diff_n`` is not supported,
    as JAX's."""
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if tnp.isscalar(theta):
        theta = tnp.array([theta])
    if n_max is None:
        if isinstance(n, Tracer):
            raise ConcretizationError(
                "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically specified to use "
                "`sph_harm` within JAX transformations."
            )
        n_max = int(np.max(np.asarray(n)))
    return _sph_harm(tnp.asarray(n), tnp.asarray(m), tnp.asarray(theta), tnp.asarray(phi), int(n_max))
