"""Convolutions of N-d arrays, as ``jax.scipy.signal`` has them: ``convolve``,
``correlate`` (any rank) and ``convolve2d``, ``correlate2d`` (rank 2), each
one ``lax.conv_general_dilated`` of the two inputs as a one-image,
one-channel batch -- so they run under ``jit``, ``grad`` and ``vmap`` as
the primitive does.

``method``: JAX's ``'auto'`` always means ``'direct'``, and so it does here.
typedax has no FFT, so ``method='fft'`` computes the same convolution
directly (the values agree with an FFT's up to rounding -- the direct sum
is the more accurate of the two); code written for ``jax.scipy.signal``
runs unchanged, only without the FFT's speed on large kernels. Any other
method is an error, as in JAX.
"""

from __future__ import annotations

from typing import Literal

from .. import lax
from .. import numpy as tnp
from .._numpy import lax_numpy as _lax_numpy
from ..core.array import Array, ArrayLike
from ..core.errors import PrimitiveTypeError
from ..core.trace import aval_of
from ..primitives.convolution import PrecisionLike

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d"]

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
    convolved as floats. ``method``: see the module's docstring (``'fft'`` is
    computed directly)."""
    _check_method("convolve", method)
    return _convolve_nd("convolve", in1, in2, mode, precision)


def correlate(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """``jax.scipy.signal.correlate``: the N-d cross-correlation, ``in1``
    convolved with ``in2`` flipped along every axis."""
    _check_method("correlate", method)
    _check_mode("correlate", mode)
    return _convolve_nd("correlate", in1, tnp.flip(tnp.asarray(in2)), mode, precision)


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

