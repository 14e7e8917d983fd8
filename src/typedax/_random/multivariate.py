"""The samplers of matrices and vectors: ``multivariate_normal`` (a
Cholesky factor of the covariance) and ``orthogonal`` (Haar-random, by
Gram-Schmidt). Builds on ``base`` and ``samplers``."""

from __future__ import annotations

import numpy as np

from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import FLOATING, default_float
from ..core.errors import RandomKeyError
from ..core.trace import aval_of
from .base import (
    DTypeLike,
    KeyLike,
    Shape,
    _check_shape,
    _float_dtype,
    _key_of,
    _moveaxis,
    _shape,
    _static_int,
)
from .samplers import normal


# -- linear algebra the multivariate samplers need ----------------------------------------
def _cholesky(a: Array) -> Array:
    """The lower Cholesky factor of the positive definite ``a[..., n, n]``
    (column by column; ``n`` is static), of ``a`` symmetrized first, as
    ``jnp.linalg.cholesky(symmetrize_input=True)``: so a gradient w.r.t. ``a``
    spreads over both triangles, as JAX's."""
    n = aval_of(a).shape[-1]
    a = tnp.multiply(tnp.add(a, tnp.swapaxes(a, -1, -2)), 0.5)
    cols: list[Array] = []
    for j in range(n):
        lj = [c[..., j] for c in cols]  # L[..., j, :j]
        s = a[..., j, j]
        for v in lj:
            s = tnp.subtract(s, tnp.multiply(v, v))
        djj = tnp.sqrt(s)
        col = a[..., :, j]
        for k, v in enumerate(lj):
            col = tnp.subtract(col, tnp.multiply(cols[k], tnp.expand_dims(v, -1)))
        col = tnp.divide(col, tnp.expand_dims(djj, -1))
        mask = np.arange(n) > j
        col = tnp.where(mask, col, tnp.where(np.arange(n) == j, tnp.expand_dims(djj, -1), 0.0))
        cols.append(col)
    return tnp.stack(cols, axis=-1)


def multivariate_normal(
    key: KeyLike, mean: ArrayLike, cov: ArrayLike, shape: Shape | None = None,
    dtype: DTypeLike | None = None, method: str = "cholesky",
) -> Array:
    """Normal vectors with mean ``mean[..., n]`` and covariance ``cov[..., n, n]``
    (``jax.random.multivariate_normal``; ``method="cholesky"``)."""
    data, _ = _key_of("multivariate_normal", key)
    if method != "cholesky":
        raise RandomKeyError(f"multivariate_normal: method {method!r} is not supported (only 'cholesky')")
    m = tnp.asarray(mean)
    cv = tnp.asarray(cov)
    if aval_of(m).dtype not in FLOATING:
        m = tnp.astype(m, default_float())
    d = aval_of(m).dtype if dtype is None else _float_dtype("multivariate_normal", dtype)
    ms, cs = aval_of(m).shape, aval_of(cv).shape
    if len(ms) < 1:
        raise RandomKeyError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(ms)}")
    if len(cs) < 2:
        raise RandomKeyError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(cs)}")
    n = ms[-1]
    if cs[-2:] != (n, n):
        raise RandomKeyError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got cov.shape == {cs}."
        )
    if shape is None:
        s = np.broadcast_shapes(ms[:-1], cs[:-2])
    else:
        s = _shape("multivariate_normal", shape)
        _check_shape("normal", s, ms[:-1], cs[:-2])
    factor = _cholesky(tnp.astype(cv, d))
    z = normal(data, s + (n,), d)
    return tnp.add(tnp.astype(m, d), tnp.sum(tnp.multiply(factor, tnp.expand_dims(z, -2)), axis=-1))


def _orthonormal_columns(z: Array) -> Array:
    """Q of ``z = QR`` with R's diagonal positive (Gram-Schmidt, twice over)."""
    k = aval_of(z).shape[-1]
    qs: list[Array] = []
    for j in range(k):
        v = z[..., :, j]
        for _ in range(2):  # re-orthogonalize: as accurate as Householder
            for q in qs:
                v = tnp.subtract(v, tnp.multiply(tnp.sum(tnp.multiply(q, v), axis=-1, keepdims=True), q))
        v = tnp.divide(v, tnp.sqrt(tnp.sum(tnp.multiply(v, v), axis=-1, keepdims=True)))
        qs.append(v)
    return tnp.stack(qs, axis=-1)


def orthogonal(key: KeyLike, n: int, shape: Shape = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
    """A uniformly random (semi-)orthogonal ``n`` by ``m`` matrix (Haar
    measure) (``jax.random.orthogonal``)."""
    data, _ = _key_of("orthogonal", key)
    nn = _static_int("orthogonal", "n", n)
    mm = nn if m is None else _static_int("orthogonal", "m", m)
    d = _float_dtype("orthogonal", dtype)
    s = _shape("orthogonal", shape)
    z = normal(data, (*s, max(nn, mm), min(nn, mm)), d)
    q = _orthonormal_columns(z)
    r = aval_of(q).ndim
    return _moveaxis(q, r - 1, r - 2) if nn < mm else q
