"""Device values of ``ArrayImpl`` (``core/array.py``): a compiled result is
an ``ArrayImpl`` holding a device buffer; an eager result moves to the device
the first time a compiled computation takes it, and keeps the buffer."""

from __future__ import annotations

from ..core.array import Array as Array
from ..core.array import ArrayImpl as ArrayImpl
from ..core.array import aval_key as aval_key
from ..core.avals import ShapedArray
from . import jaxlib_api as jx


def from_buffer(buf: jx.Array, aval: ShapedArray, key: int) -> ArrayImpl:
    """The ``ArrayImpl`` of a device buffer of type ``aval`` (key ``key``)."""
    return ArrayImpl(aval, None, buf, key)
