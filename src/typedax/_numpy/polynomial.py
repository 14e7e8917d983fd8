"""Polynomials and window functions of ``jax.numpy`` (issue 12, group 5):
``polyval``, ``polyadd``, ``polysub``, ``polymul``, ``polyder``,
``polyint``, ``vander``; ``hamming``, ``hanning``, ``bartlett``,
``blackman``. Coefficients are highest degree first, as NumPy's."""

from __future__ import annotations

import math

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import COMPLEX_OF, DType, default_float, float32, float64, is_complex, is_inexact
from ..core.errors import ArgumentValueError, ConcretizationError, PrimitiveTypeError
from . import creation as _creation
from .bessel import concrete_int
from . import elementwise as _elementwise
from . import lax_numpy as tnp
from . import linalg_basic as _linalg_basic
from . import linalg_decomp as _linalg
from . import manipulation as _manipulation


def _static(op: str, what: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise PrimitiveTypeError(f"{op}: {what} must be a static integer, got {v!r}")
    return int(v)


def _promoted(*xs: ArrayLike) -> list[Array]:
    return [tnp.asarray(v) for v in tnp._promote(*xs)]


def _inexact(*xs: ArrayLike) -> list[Array]:
    return [tnp.asarray(tnp._float(v)) for v in _promoted(*xs)]


def polyval(p: ArrayLike, x: ArrayLike, *, unroll: int = 16) -> Array:
    """``jnp.polyval``: ``p[0] * x**(n-1) + ... + p[n-1]`` by Horner's rule."""
    pa, xa = _promoted(p, x)
    if pa.ndim == 0:
        raise PrimitiveTypeError("polyval: p must be at least 1-dimensional")
    shape = tuple(np.broadcast_shapes(pa.shape[1:], xa.shape))
    y = tnp.zeros(shape, xa.dtype)
    for i in range(pa.shape[0]):
        y = tnp.add(tnp.multiply(y, xa), lax.index_in_dim(pa, i, 0, keepdims=False))
    return y


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """``jnp.polyadd``: the sum of two polynomials (the shorter aligned to the end)."""
    a, b = _promoted(a1, a2)
    if b.shape[0] > a.shape[0]:
        a, b = b, a
    pad = [(a.shape[0] - b.shape[0], 0, 0)] + [(0, 0, 0)] * (b.ndim - 1)
    return tnp.add(a, lax.pad(b, np.zeros((), b.dtype), pad))


def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """``jnp.polysub``: ``polyadd(a1, -a2)``."""
    a, b = _promoted(a1, a2)
    return polyadd(a, tnp.negative(b))


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Array:
    """``jnp.polymul``: the product of two polynomials (a full convolution, as floats)."""
    if trim_leading_zeros:
        raise PrimitiveTypeError("polymul: trim_leading_zeros=True is not supported (it needs concrete values)")
    a, b = _inexact(a1, a2)
    if a.shape[0] == 0:
        a = tnp.zeros((1,), b.dtype)
    if b.shape[0] == 0:
        b = tnp.zeros((1,), a.dtype)
    return tnp.convolve(a, b, mode="full")


def polyder(p: ArrayLike, m: int = 1) -> Array:
    """``jnp.polyder``: the ``m``-th derivative."""
    k = _static("polyder", "m", m)
    if k < 0:
        raise PrimitiveTypeError("polyder: Order of derivative must be positive")
    (pa,) = _inexact(p)
    if k == 0:
        return pa
    n = pa.shape[0]
    coeff = np.array([math.prod(range(j - k + 1, j + 1)) for j in range(n - 1, k - 1, -1)], pa.dtype)
    return tnp.multiply(lax.slice_in_dim(pa, 0, max(n - k, 0)), coeff)


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Array:
    """``jnp.polyint``: the ``m``-th antiderivative, integration constants ``k``."""
    order = _static("polyint", "m", m)
    if order < 0:
        raise PrimitiveTypeError("polyint: Order of integral must be positive (see polyder)")
    pa, ka = _inexact(p, 0 if k is None else k)
    ka = lax.reshape(ka, (1,)) if ka.ndim == 0 else ka
    if ka.shape[0] == 1:
        ka = tnp.broadcast_to(ka, (order,))
    if ka.shape != (order,):
        raise PrimitiveTypeError("polyint: k must be a scalar or a rank-1 array of length 1 or m.")
    if order == 0:
        return pa
    n = pa.shape[0]
    coeff = np.array([math.prod(max(1, j - i) for i in range(order)) for j in range(n + order)][::-1], pa.dtype)
    return _elementwise.true_divide(tnp.concatenate([pa, ka]), coeff)


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:
    """``jnp.vander``: the powers of ``x`` as columns (highest first unless ``increasing``)."""
    xa = tnp.asarray(x)
    if xa.ndim != 1:
        raise PrimitiveTypeError("vander: x must be a one-dimensional array")
    n = xa.shape[0] if N is None else _static("vander", "N", N)
    if n < 0:
        raise PrimitiveTypeError("vander: N must be nonnegative")
    cols: list[Array] = []
    power = tnp.ones(xa.shape, xa.dtype)
    for _ in range(n):
        cols.append(power)
        power = tnp.multiply(power, xa)
    if not cols:
        return tnp.zeros(xa.shape + (0,), xa.dtype)
    out = tnp.stack(cols, axis=1)
    return out if increasing else lax.rev(out, (1,))


def _window(op: str, M: int) -> tuple[Array, int] | Array:
    m = _static(op, "M", M)
    d = default_float()
    if m <= 1:
        return tnp.ones((max(m, 0),), d)
    return lax.iota(d, m), m


def _cos(n: Array, scale: float, m: int) -> Array:
    return lax.cos(lax.mul(n, np.asarray(scale * math.pi / (m - 1), n.dtype)))


def hamming(M: int) -> Array:
    """``jnp.hamming``: ``0.54 - 0.46 cos(2 pi n / (M - 1))``."""
    w = _window("hamming", M)
    if isinstance(w, Array):
        return w
    n, m = w
    return lax.sub(np.asarray(0.54, n.dtype), lax.mul(np.asarray(0.46, n.dtype), _cos(n, 2.0, m)))


def hanning(M: int) -> Array:
    """``jnp.hanning``: ``0.5 (1 - cos(2 pi n / (M - 1)))``."""
    w = _window("hanning", M)
    if isinstance(w, Array):
        return w
    n, m = w
    return lax.mul(np.asarray(0.5, n.dtype), lax.sub(np.asarray(1.0, n.dtype), _cos(n, 2.0, m)))


def bartlett(M: int) -> Array:
    """``jnp.bartlett``: the triangular window ``1 - |2n + 1 - M| / (M - 1)``."""
    w = _window("bartlett", M)
    if isinstance(w, Array):
        return w
    n, m = w
    d = n.dtype
    num = lax.abs(lax.sub(lax.add(lax.mul(np.asarray(2.0, d), n), np.asarray(1.0, d)), np.asarray(float(m), d)))
    return lax.sub(np.asarray(1.0, d), lax.div(num, np.asarray(float(m - 1), d)))


def blackman(M: int) -> Array:
    """``jnp.blackman``: ``0.42 - 0.5 cos(2 pi n / (M-1)) + 0.08 cos(4 pi n / (M-1))``."""
    w = _window("blackman", M)
    if isinstance(w, Array):
        return w
    n, m = w
    d = n.dtype
    return lax.add(lax.sub(np.asarray(0.42, d), lax.mul(np.asarray(0.5, d), _cos(n, 2.0, m))),
                   lax.mul(np.asarray(0.08, d), _cos(n, 4.0, m)))


def poly(seq_of_zeros: ArrayLike) -> Array:
    """``jnp.poly``: the coefficients of the monic polynomial with these
    (1-d) zeros (a square matrix's eigenvalues need an eigensolver typedax lacks)."""
    (z,) = _inexact(seq_of_zeros)
    if z.ndim == 0:
        z = lax.reshape(z, (1,))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        raise PrimitiveTypeError("poly: the zeros of a square matrix need its eigenvalues (no eigensolver in typedax yet)")
    if z.ndim != 1:
        raise PrimitiveTypeError("poly: input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return tnp.ones((), z.dtype)
    a = tnp.ones((1,), z.dtype)
    for k in range(z.shape[0]):
        root = lax.index_in_dim(z, k, 0, keepdims=True)
        a = tnp.convolve(a, tnp.concatenate([tnp.ones((1,), z.dtype), lax.neg(root)]), mode="full")
    return a


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False) -> tuple[Array, Array]:
    """``jnp.polydiv``: the quotient and remainder of ``u / v`` (long
    division, unrolled over the static degrees, as JAX)."""
    if trim_leading_zeros:
        raise PrimitiveTypeError("polydiv: trim_leading_zeros=True is not supported (it needs concrete values)")
    ua, va = _inexact(u, v)
    m, n = ua.shape[0] - 1, va.shape[0] - 1
    scale = lax.div(np.ones((), ua.dtype), lax.index_in_dim(va, 0, 0, keepdims=False))
    q = tnp.zeros((max(m - n + 1, 1),), ua.dtype)
    for k in range(0, m - n + 1):
        d = lax.mul(scale, lax.index_in_dim(ua, k, 0, keepdims=False))
        q = q.at[k].set(d)
        ua = ua.at[k:k + n + 1].add(tnp.multiply(lax.neg(d), va))
    return q, ua


def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None, full: bool = False,
            w: ArrayLike | None = None, cov: bool | str = False) -> Array | tuple[Array, ...]:
    """``jnp.polyfit`` (issue 29, item 7): the least-squares polynomial of
    degree ``deg`` through ``(x, y)`` (``y`` 1-d, or 2-d for several fits),
    optionally weighted by ``w``; with ``full`` also ``(residuals, rank,
    singular values, rcond)``, with ``cov`` the covariance of the coefficients
    (scaled by the residuals unless ``cov='unscaled'``)."""
    xa, ya = tnp.asarray(x), tnp.asarray(y)
    d = concrete_int("polyfit", "deg", deg)
    order = d + 1
    if d < 0:
        raise ArgumentValueError("expected deg >= 0")
    if xa.ndim != 1:
        raise PrimitiveTypeError("expected 1D vector for x")
    if xa.size == 0:
        raise PrimitiveTypeError("expected non-empty vector for x")
    if ya.ndim < 1 or ya.ndim > 2:
        raise PrimitiveTypeError("expected 1D or 2D array for y")
    if xa.shape[0] != ya.shape[0]:
        raise PrimitiveTypeError("expected x and y to have same length")
    if rcond is None:
        if not is_inexact(xa.dtype):  # JAX reads finfo(x.dtype)
            raise ArgumentValueError(f"polyfit: data type {xa.dtype} not inexact (pass rcond=, or x as floats)")
        rcond = xa.shape[0] * float(tnp.finfo(xa.dtype).eps)
    if not isinstance(rcond, (int, float, np.integer, np.floating)):
        raise PrimitiveTypeError(f"polyfit: rcond must be a static float, got {rcond!r}")
    lhs = vander(xa, order)
    rhs = ya
    if w is not None:
        (wa,) = _inexact(w)
        if wa.ndim != 1:
            raise PrimitiveTypeError("expected a 1-d array for weights")
        if wa.shape[0] != ya.shape[0]:
            raise PrimitiveTypeError("expected w and y to have the same length")
        lhs = tnp.multiply(lhs, tnp.expand_dims(wa, 1))
        rhs = tnp.multiply(rhs, tnp.expand_dims(wa, 1) if rhs.ndim == 2 else wa)
    lhs, rhs = _inexact(lhs, rhs)
    scale = tnp.sqrt(tnp.sum(tnp.multiply(lhs, lhs), axis=0))
    lhs = tnp.divide(lhs, tnp.expand_dims(scale, 0))
    c, resids, rank, s = _linalg.lstsq(lhs, rhs, rcond)
    if c.ndim > 1:
        c = tnp.transpose(tnp.divide(tnp.transpose(c), tnp.expand_dims(scale, 0)))
    else:
        c = tnp.divide(c, scale)
    if full:
        return c, resids, rank, s, tnp.asarray(float(rcond))
    if not cov:
        return c
    vbase = _linalg_basic.inv(tnp.dot(tnp.transpose(lhs), lhs))
    vbase = tnp.divide(vbase, _manipulation.outer(scale, scale))
    fac: Array
    if cov == "unscaled":
        fac = tnp.asarray(1.0)
    else:
        if xa.shape[0] <= order:
            raise ArgumentValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = tnp.divide(resids, xa.shape[0] - order)
    if ya.ndim == 1:
        return c, tnp.multiply(vbase, tnp.expand_dims(_manipulation.atleast_1d(fac), 0))
    return c, tnp.multiply(tnp.expand_dims(vbase, 2), tnp.reshape(_manipulation.atleast_1d(fac), (1, 1, -1)))


def _complex_of(d: DType) -> DType:
    return d if is_complex(d) else COMPLEX_OF.get(d, COMPLEX_OF[float32] if d.itemsize <= 4 else COMPLEX_OF[float64])


def _roots_no_zeros(p: Array) -> Array:
    """The eigenvalues of ``p``'s companion matrix (``p[0]`` nonzero)."""
    if p.size < 2:
        return tnp.zeros((0,), _complex_of(p.dtype))
    a = _creation.diag(tnp.ones((p.shape[0] - 2,), p.dtype), -1)
    a = a.at[0, :].set(tnp.negative(tnp.divide(p[1:], p[0])))
    return _linalg.eigvals(a)


def roots(p: ArrayLike, *, strip_zeros: bool = True) -> Array:
    """``jnp.roots`` (issue 29, item 7): the (complex) roots of the polynomial
    with coefficients ``p`` (highest degree first), the eigenvalues of its
    companion matrix. Leading zeros are stripped, which needs concrete
    coefficients; with ``strip_zeros=False`` (under ``jit``) the roots they
    would drop are NaN, at the end, as JAX's."""
    (pa,) = _inexact(p)
    pa = _manipulation.atleast_1d(pa)
    if pa.ndim != 1:
        raise ArgumentValueError("Input must be a rank-1 array.")
    n = pa.shape[0]
    if n < 2:
        return tnp.zeros((0,), _complex_of(pa.dtype))
    is_zero = tnp.equal(pa, 0)
    leading = tnp.where(tnp.all(is_zero), n, tnp.argmin(is_zero))
    if strip_zeros:
        value = tnp._concrete("roots", leading, "strip_zeros")
        if value is None:
            raise ConcretizationError(
                "roots: the number of leading zeros of a traced p is not known. The error occurred in the "
                "jnp.roots() function. To use this within a JIT-compiled context, pass strip_zeros=False, "
                "but be aware that leading zeros will result in some returned roots being set to NaN.")
        return _roots_no_zeros(pa[int(value):])
    pa = tnp.where(tnp.equal(leading, n), tnp.ones_like(pa), pa)  # all zeros: no LAPACK error
    r = _roots_no_zeros(_manipulation.roll(pa, tnp.negative(leading)))
    r = lax.sort_key_val(tnp.equal(r, 0), r)[1]  # the zero roots last
    nan = tnp.asarray(complex(np.nan, np.nan), r.dtype)
    return tnp.where(tnp.less(lax.iota(leading.dtype, r.shape[0]), tnp.subtract(r.shape[0], leading)), r, nan)
