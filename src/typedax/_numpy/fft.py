"""The functions of ``typedax.numpy.fft``, as ``jax.numpy.fft``
(``jax._src.numpy.fft``): the transforms move the transformed axes last,
crop or zero-pad them to ``s``, bind ``lax.fft`` (at most three axes at a
time, as XLA's FFT; more are done three or two at a time), scale by
``norm`` and move the axes back; the frequency helpers and the shifts.

The face ``_numpy/fft_face.py`` re-exports these as ``typedax.numpy.fft``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import REAL_OF, DType, default_float
from ..lax import FftType
from . import lax_numpy as tnp
from .elementwise import conjugate
from .manipulation import moveaxis, roll

Shape = Sequence[int]


def _arraylike(name: str, a: ArrayLike) -> Array:
    if isinstance(a, (list, tuple)):
        raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a).__name__} at position 0.")
    return tnp.asarray(a)


def _fft_norm(s: Array, func_name: str, norm: str) -> Array:
    if norm == "backward":
        return tnp.array(1)
    if not np.issubdtype(s.dtype, np.inexact):
        s = tnp.asarray(s, default_float())
    if norm == "ortho":
        r = tnp.sqrt(tnp.prod(s))
        return r if func_name.startswith("i") else 1 / r
    if norm == "forward":
        p = tnp.prod(s)
        return p if func_name.startswith("i") else 1 / p
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_core(
    func_name: str, fft_type: FftType, a: ArrayLike, s: Shape | None, axes: Sequence[int] | None, norm: str | None
) -> Array:
    full_name = f"jax.numpy.fft.{func_name}"
    arr = _arraylike(full_name, a)
    s_t = None if s is None else tuple(map(operator.index, s))
    if s_t is not None and any(n <= 0 for n in s_t):
        raise ValueError("Shape should be positive.")
    if s_t is not None and axes is not None and len(s_t) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = None if axes is None else tuple(operator.index(ax) for ax in axes)
    ax: tuple[int, ...]
    if orig_axes is None:
        ax = tuple(range(arr.ndim)) if s_t is None else tuple(range(arr.ndim - len(s_t), arr.ndim))
    else:
        ax = orig_axes
    if len(ax) != len(set(ax)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {list(ax)}.")
    if orig_axes is not None:
        ax = tuple(range(arr.ndim - len(ax), arr.ndim))
        in_bounds = all(-arr.ndim <= a < arr.ndim for a in orig_axes)  # else moveaxis's error
        if in_bounds and tuple(a % arr.ndim for a in orig_axes) == ax:
            orig_axes = None  # already last, in order: no moves (the eager path's cost)
        else:
            arr = moveaxis(arr, orig_axes, ax)
    lengths: list[int]
    if s_t is not None:
        in_s = list(arr.shape)
        for axis, n in zip(ax, s_t, strict=True):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = tnp.pad(arr, [(0, x - y) for x, y in zip(in_s, arr.shape, strict=True)])
        lengths = list(s_t)
    elif fft_type == FftType.IRFFT:
        lengths = [arr.shape[axis] for axis in ax[:-1]]
        if ax:
            lengths += [max(0, 2 * (arr.shape[ax[-1]] - 1))]
    else:
        lengths = [arr.shape[axis] for axis in ax]
    transformed = _fft_core_nd(arr, fft_type, tuple(lengths))
    if norm is not None:
        transformed = transformed * _fft_norm(tnp.array(lengths, transformed.dtype), func_name, norm)
    if orig_axes is not None:
        transformed = moveaxis(transformed, ax, orig_axes)
    return transformed


def _fft_core_nd(arr: Array, fft_type: FftType, s: tuple[int, ...]) -> Array:
    if len(s) <= 3:
        return lax.fft(arr, fft_type, s)
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax.fft(arr, fft_type, s[-n:])
        arr = moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return moveaxis(arr, dst, src)
    arr = moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = moveaxis(arr, dst, src)
    return lax.fft(arr, fft_type, s[-n:])


def fftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The N-dimensional discrete Fourier transform (``jnp.fft.fftn``)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The N-dimensional inverse discrete Fourier transform (``jnp.fft.ifftn``)."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The N-dimensional transform of a real array (``jnp.fft.rfftn``)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The inverse of ``rfftn`` (``jnp.fft.irfftn``)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _axis_check_1d(func_name: str, axis: object) -> None:
    full_name = f"jax.numpy.fft.{func_name}"
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"{full_name} does not support multiple axes. Please use {full_name}n. Got axis = {axis!r}.")


def _fft_core_1d(
    func_name: str, fft_type: FftType, a: ArrayLike, n: int | None, axis: int | None, norm: str | None
) -> Array:
    _axis_check_1d(func_name, axis)
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The one-dimensional discrete Fourier transform (``jnp.fft.fft``)."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The one-dimensional inverse discrete Fourier transform (``jnp.fft.ifft``)."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The one-dimensional transform of a real array (``jnp.fft.rfft``)."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of ``rfft`` (``jnp.fft.irfft``): ``n`` defaults to
    ``2 * (m - 1)`` for ``m`` input points along ``axis``."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of a signal with Hermitian symmetry (``jnp.fft.hfft``)."""
    conj_a = conjugate(_arraylike("jax.numpy.fft.hfft", a))
    _axis_check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of ``hfft`` (``jnp.fft.ihfft``)."""
    _axis_check_1d("ihfft", axis)
    arr = tnp.asarray(a)
    nn = arr.shape[axis] if n is None else n
    output = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return conjugate(output) * (1 / nn)


def _fft_core_2d(
    func_name: str, fft_type: FftType, a: ArrayLike, s: Shape | None, axes: Sequence[int], norm: str | None
) -> Array:
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The two-dimensional discrete Fourier transform (``jnp.fft.fft2``)."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The two-dimensional inverse discrete Fourier transform (``jnp.fft.ifft2``)."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The two-dimensional transform of a real array (``jnp.fft.rfft2``)."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The inverse of ``rfft2`` (``jnp.fft.irfft2``)."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _freq_args(name: str, n: object, d: object) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. Got d = {list(d)}.")


def _float_of(dtype: DType | type | None) -> DType:
    return default_float() if dtype is None else np.dtype(dtype)


def fftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DType | type | None = None) -> Array:
    """The sample frequencies of ``fft`` for ``n`` points spaced ``d`` apart
    (``jnp.fft.fftfreq``)."""
    _freq_args("fftfreq", n, d)
    out_dtype = _float_of(dtype)
    inexact = out_dtype if np.issubdtype(out_dtype, np.inexact) else default_float()
    fdtype = REAL_OF.get(inexact, inexact)
    i = tnp.arange(n, dtype=fdtype)
    k = (i + n // 2) % n - n // 2
    result = tnp.asarray(k, fdtype) / tnp.array(tnp.asarray(d) * n, fdtype)
    return tnp.asarray(result, out_dtype)


def rfftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DType | type | None = None) -> Array:
    """The sample frequencies of ``rfft`` for ``n`` points spaced ``d``
    apart (``jnp.fft.rfftfreq``)."""
    _freq_args("rfftfreq", n, d)
    fdtype = _float_of(dtype)
    k = tnp.arange(0, (n // 2 if n % 2 == 0 else (n - 1) // 2) + 1, dtype=fdtype)
    return k / tnp.array(tnp.asarray(d) * n, fdtype)


def _shifted(name: str, x: ArrayLike, axes: int | Sequence[int] | None, sign: int) -> Array:
    arr = _arraylike(name, x)
    if axes is None:
        return roll(arr, [sign * (dim // 2) for dim in arr.shape], tuple(range(arr.ndim)))
    if isinstance(axes, int):
        return roll(arr, sign * (arr.shape[axes] // 2), axes)
    return roll(arr, [sign * (arr.shape[ax] // 2) for ax in axes], axes)


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """``x`` with the zero frequency moved to the middle (``jnp.fft.fftshift``)."""
    return _shifted("fftshift", x, axes, 1)


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of ``fftshift`` (``jnp.fft.ifftshift``)."""
    return _shifted("ifftshift", x, axes, -1)


__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

