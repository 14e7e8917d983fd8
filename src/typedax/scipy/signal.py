"""Convolutions of N-d arrays, as ``jax.scipy.signal`` has them: ``convolve``,
``correlate`` (any rank) and ``convolve2d``, ``correlate2d`` (rank 2), each
one ``lax.conv_general_dilated`` of the two inputs as a one-image,
one-channel batch -- so they run under ``jit``, ``grad`` and ``vmap`` as
the primitive does -- and ``fftconvolve``, through the FFT.

``method``: ``'fft'`` computes through ``fftconvolve`` (``rfftn`` of both
inputs zero-padded to the full size, their product, ``irfftn``; ``fftn``
and ``ifftn`` for complex inputs), as JAX's; ``'auto'`` always means
``'direct'`` in JAX (it does not estimate which is faster, as SciPy's
does), and so it does here. Any other method is an error, as in JAX.
``correlate`` conjugates ``in2`` (complex inputs), as JAX's.
"""

from __future__ import annotations

from typing import Literal

from collections.abc import Sequence

from .. import lax
from .. import numpy as tnp
from .._numpy import lax_numpy as _lax_numpy
from ..core.array import Array, ArrayLike
from ..core.dtypes import is_complex
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from ..core.trace import aval_of
from ..primitives.convolution import PrecisionLike

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve"]

ModeString = Literal["full", "same", "valid"]
_MODES = ("full", "same", "valid")
_METHODS = ("auto", "direct", "fft")


def _check_mode(op: str, mode: str) -> None:
    if mode not in _MODES:
        raise PrimitiveTypeError(f"{op}: mode must be one of {list(_MODES)}, got mode={mode!r}")


def _check_method(op: str, method: str) -> None:
    if method not in _METHODS:
        raise PrimitiveTypeError(f"{op}: got method={method!r}; expected 'auto', 'fft', or 'direct'")


def _check_2d(op: str, in1: Array, in2: Array, boundary: str, fillvalue: float) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise PrimitiveTypeError(
            f"{op}: only boundary='fill' with fillvalue=0 is supported (as in jax.scipy.signal), "
            f"got boundary={boundary!r}, fillvalue={fillvalue!r}; pad the input with typedax.numpy.pad instead"
        )
    if in1.ndim != 2 or in2.ndim != 2:
        raise PrimitiveTypeError(f"{op}: only 2-dimensional inputs are supported, got shapes {in1.shape} and {in2.shape}")


def _convolve_nd(op: str, a: ArrayLike, b: ArrayLike, mode: str, precision: PrecisionLike) -> Array:
    """The convolution of ``a`` by ``b`` (JAX's ``_convolve_nd``): the larger
    operand is the image, the smaller (flipped) the kernel; ``'same'`` is
    centred on ``a``'s shape even when they swap, as SciPy's."""
    _check_mode(op, mode)
    in1, in2 = tnp.asarray(a), tnp.asarray(b)
    if in1.ndim != in2.ndim:
        raise PrimitiveTypeError(
            f"{op}: in1 and in2 must have the same number of dimensions, got shapes {in1.shape} and {in2.shape}"
        )
    if in1.size == 0 or in2.size == 0:
        raise PrimitiveTypeError(f"{op}: zero-size arrays are not supported, got shapes {in1.shape} and {in2.shape}")
    p1, p2 = _lax_numpy._promote(in1, in2)
    x, k = tnp.asarray(_lax_numpy._float(p1)), tnp.asarray(_lax_numpy._float(p2))
    no_swap = all(s1 >= s2 for s1, s2 in zip(x.shape, k.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(x.shape, k.shape))
    if not (no_swap or swap):
        raise PrimitiveTypeError(
            f"{op}: one input must be at least as large as the other in every dimension, "
            f"got shapes {in1.shape} and {in2.shape}"
        )
    shape_o = k.shape
    if swap:
        x, k = k, x
    shape = k.shape
    k = tnp.flip(k)
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2) for s, so in zip(shape, shape_o)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    out = lax.conv_general_dilated(
        lax.reshape(x, (1, 1, *x.shape)), lax.reshape(k, (1, 1, *shape)), (1,) * len(shape), padding,
        precision=precision,
    )
    return lax.reshape(out, aval_of(out).shape[2:])


def convolve(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """``jax.scipy.signal.convolve``: the N-d convolution of ``in1`` and ``in2``
    (of one rank). ``mode``: ``'full'`` every overlap, ``'same'`` centred to
    ``in1``'s shape, ``'valid'`` only full overlaps. Integers and bools are
    convolved as floats. ``method``: ``'fft'`` through ``fftconvolve``;
    ``'auto'`` and ``'direct'`` directly (as JAX's)."""
    _check_method("convolve", method)
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    return _convolve_nd("convolve", in1, in2, mode, precision)


def correlate(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """``jax.scipy.signal.correlate``: the N-d cross-correlation, ``in1``
    convolved with ``conj(in2)`` flipped along every axis (through the FFT
    with ``method='fft'``)."""
    _check_method("correlate", method)
    _check_mode("correlate", mode)
    flipped = tnp.flip(tnp.conj(tnp.asarray(in2)))
    if method == "fft":
        return fftconvolve(in1, flipped, mode=mode)
    return _convolve_nd("correlate", in1, flipped, mode, precision)


def fftconvolve(in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full",
                axes: int | Sequence[int] | None = None) -> Array:
    """``jax.scipy.signal.fftconvolve``: the N-d convolution of ``in1`` and
    ``in2`` (of one rank) through the FFT: both zero-padded to the full size
    ``s1 + s2 - 1`` along the convolved ``axes`` (all by default), ``rfftn``
    (``fftn`` for complex inputs), multiplied, transformed back, and sliced
    to ``mode``'s size, centred as SciPy's. The other axes are a batch: the
    inputs must match along them. Integers and bools are convolved as floats."""
    _check_mode("fftconvolve", mode)
    a, b = tnp.asarray(in1), tnp.asarray(in2)
    if a.ndim != b.ndim:
        raise ArgumentValueError(
            f"fftconvolve: in1 and in2 should have the same dimensionality, got shapes {a.shape} and {b.shape}"
        )
    p1, p2 = _lax_numpy._promote(a, b)
    x, k = tnp.asarray(_lax_numpy._float(p1)), tnp.asarray(_lax_numpy._float(p2))
    given = range(x.ndim) if axes is None else (axes,) if isinstance(axes, int) else axes
    conv_axes = tuple(sorted({_lax_numpy._axis("fftconvolve", ax, x.ndim) for ax in given}))
    mapped = [i for i in range(x.ndim) if i not in conv_axes]
    if any(x.shape[i] != k.shape[i] for i in mapped):
        raise ArgumentValueError(
            f"fftconvolve: mapped axes must have same shape; got in1.shape={x.shape} in2.shape={k.shape} axes={axes}"
        )
    s1, s2 = [x.shape[i] for i in conv_axes], [k.shape[i] for i in conv_axes]
    if mode == "valid":
        no_swap = all(d1 >= d2 for d1, d2 in zip(s1, s2))
        swap = all(d1 <= d2 for d1, d2 in zip(s1, s2))
        if not (no_swap or swap):
            raise ArgumentValueError(
                "fftconvolve: For 'valid' mode, One input must be at least as large as the other in every "
                f"dimension, got shapes {x.shape} and {k.shape}"
            )
        if swap:
            x, k, s1, s2 = k, x, s2, s1
    full = tuple(d1 + d2 - 1 for d1, d2 in zip(s1, s2))
    if all(d1 == 1 or d2 == 1 for d1, d2 in zip(s1, s2)):
        conv = x * k
    elif is_complex(x.dtype):
        conv = tnp.fft.ifftn(tnp.fft.fftn(x, full, conv_axes) * tnp.fft.fftn(k, full, conv_axes), full, conv_axes)
    else:
        conv = tnp.fft.irfftn(tnp.fft.rfftn(x, full, conv_axes) * tnp.fft.rfftn(k, full, conv_axes), full, conv_axes)
    out = {"full": full, "same": tuple(s1), "valid": tuple(d1 - d2 + 1 for d1, d2 in zip(s1, s2))}[mode]
    start, stop = [0] * conv.ndim, list(conv.shape)
    for i, ax in enumerate(conv_axes):
        start[ax] = (full[i] - out[i]) // 2
        stop[ax] = start[ax] + out[i]
    return lax.slice(conv, tuple(start), tuple(stop))


def convolve2d(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", boundary: str = "fill",
    fillvalue: float = 0, precision: PrecisionLike = None,
) -> Array:
    """``jax.scipy.signal.convolve2d``: ``convolve`` of two 2-d arrays; only
    ``boundary='fill'`` with ``fillvalue=0`` (zero padding), as JAX."""
    a, b = tnp.asarray(in1), tnp.asarray(in2)
    _check_2d("convolve2d", a, b, boundary, fillvalue)
    return _convolve_nd("convolve2d", a, b, mode, precision)


def correlate2d(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", boundary: str = "fill",
    fillvalue: float = 0, precision: PrecisionLike = None,
) -> Array:
    """``jax.scipy.signal.correlate2d``: the cross-correlation of two 2-d
    arrays, as SciPy's (and JAX's): for ``'valid'`` with ``in1`` the smaller,
    the result is ``in2`` correlated with ``in1``."""
    a, b = tnp.asarray(in1), tnp.asarray(in2)
    _check_2d("correlate2d", a, b, boundary, fillvalue)
    _check_mode("correlate2d", mode)
    swap = all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape))
    same_shape = a.shape == b.shape
    if mode == "valid" and swap and not same_shape or mode == "full" and swap:
        return _convolve_nd("correlate2d", tnp.flip(b), a, mode, precision)
    return tnp.flip(_convolve_nd("correlate2d", tnp.flip(a), b, mode, precision))

