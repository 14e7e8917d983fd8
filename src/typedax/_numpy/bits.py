"""``jnp.packbits`` and ``jnp.unpackbits`` (issue 29, item 7): bits as
``uint8`` bytes and back, along an axis or of the flattened array, in
``'big'`` or ``'little'`` bit order, as JAX's (composed of shifts, masks
and sums, so they work under ``jit`` and ``vmap``)."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import bool_, is_int, uint8
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from . import lax_numpy as tnp
from .manipulation import swapaxes


def _bits(bitorder: str) -> np.ndarray[tuple[int, ...], np.dtype[np.uint8]]:
    if bitorder not in ("little", "big"):
        raise ArgumentValueError("'order' must be either 'little' or 'big'")
    bits = np.arange(8, dtype=np.uint8)
    return bits[::-1] if bitorder == "big" else bits


def _along(x: Array, axis: int | None) -> tuple[Array, int]:
    if axis is None:
        return tnp.ravel(x), 0
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise PrimitiveTypeError(f"axis must be a static integer or None, got {axis!r}")
    return x, int(axis)


def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> Array:
    """``jnp.packbits``: each run of 8 elements (nonzero is 1) along ``axis``
    as one ``uint8``, right-padded with zero bits."""
    x = tnp.asarray(a)
    if not (is_int(x.dtype) or x.dtype == bool_):
        raise PrimitiveTypeError("Expected an input array of integer or boolean data type")
    bits = _bits(bitorder)
    x, ax = _along(x, axis)
    b = lax.convert_element_type(lax.ne(x, np.zeros((), x.dtype)), uint8)
    b = swapaxes(b, ax, -1)
    rem = b.shape[-1] % 8
    if rem:
        b = lax.pad(b, np.uint8(0), [(0, 0, 0)] * (b.ndim - 1) + [(0, 8 - rem, 0)])
    b = tnp.reshape(b, b.shape[:-1] + (b.shape[-1] // 8, 8))
    packed = tnp.astype(tnp.sum(tnp.left_shift(b, bits), axis=-1), uint8)
    return swapaxes(packed, ax, -1)


def unpackbits(a: ArrayLike, axis: int | None = None, count: int | None = None, bitorder: str = "big") -> Array:
    """``jnp.unpackbits``: each ``uint8`` as its 8 bits along ``axis``;
    ``count`` keeps that many bits (zero-padded past the end) or, negative,
    drops that many from the end."""
    x = tnp.asarray(a)
    if x.dtype != uint8:
        raise PrimitiveTypeError("Expected an input array of unsigned byte data type")
    masks = np.left_shift(np.uint8(1), _bits(bitorder))
    x, ax = _along(x, axis)
    x = swapaxes(x, ax, -1)
    hit = lax.ne(tnp.bitwise_and(tnp.expand_dims(x, -1), masks), np.zeros((), np.uint8))
    out = lax.convert_element_type(hit, uint8)
    out = tnp.reshape(out, out.shape[:-2] + (out.shape[-2] * 8,))
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise PrimitiveTypeError(f"unpackbits: count must be a static integer or None, got {count!r}")
        n = out.shape[-1]
        if count > n:
            out = lax.pad(out, np.uint8(0), [(0, 0, 0)] * (out.ndim - 1) + [(0, int(count) - n, 0)])
        else:
            out = lax.slice_in_dim(out, 0, len(range(n)[: int(count)]), axis=out.ndim - 1)
    return swapaxes(out, ax, -1)
