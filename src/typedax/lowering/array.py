"""``Array``: an array that lives on the device.

Results of compiled computations are ``Array``s and stay on the device until
NumPy asks for them (``np.asarray``, ``repr``, ``float`` ...). Python
operators follow ``typedax.numpy`` (promotion and broadcasting), like a
tracer's; outside a transformation they evaluate with NumPy.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Iterator
from typing import Self

import numpy as np

from ..core.arrayops import ArrayOps
from ..core.avals import ShapedArray
from ..core.ir import NDArray
from . import jaxlib_api as jx


_AVAL_KEYS: dict[ShapedArray, int] = {}
_AVAL_KEYS_LOCK = threading.Lock()


def aval_key(aval: ShapedArray) -> int:
    """A small int standing for ``aval`` (cheap to hash in dispatch keys),
    distinct for distinct avals. ``jit``'s fast path dispatches on these keys,
    so two types sharing one would run one's executable on the other's data.
    A new key is made under a lock (``len`` then insert is not atomic across
    threads); looking up a known one takes no lock."""
    k = _AVAL_KEYS.get(aval)
    if k is None:
        with _AVAL_KEYS_LOCK:
            k = _AVAL_KEYS.get(aval)
            if k is None:
                k = _AVAL_KEYS[aval] = len(_AVAL_KEYS)
    return k


class Array(ArrayOps):
    """A device-resident array of type ``aval``. Immutable."""

    __slots__ = ("_buf", "aval", "_tdx_key")
    _buf: jx.Array
    aval: ShapedArray
    _tdx_key: int

    def __init__(self, buf: jx.Array, aval: ShapedArray, key: int | None = None) -> None:
        self._buf = buf
        self.aval = aval
        self._tdx_key = aval_key(aval) if key is None else key

    def block_until_ready(self) -> Self:
        """Wait until the computation producing this array has finished."""
        self._buf.block_until_ready()
        return self

    def to_numpy(self) -> NDArray:
        """A (read-only) NumPy copy of the value, fetched from the device."""
        return np.asarray(self._buf)

    def __array__(self, dtype: object = None, copy: object = None) -> NDArray:
        value = np.asarray(self._buf)
        if dtype is not None:
            value = value.astype(np.dtype(dtype))  # type: ignore[call-overload]  # NumPy passes a dtype-like
        if copy:
            value = value.copy()
        return value

    # Immutable: a copy is the array itself (copy.copy / copy.deepcopy used to
    # fail on the device buffer). Pickling moves the values through NumPy.
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    def __reduce__(self) -> tuple[Callable[[NDArray], Array], tuple[NDArray]]:
        from .runtime import device_put

        return device_put, (self.to_numpy(),)

    def __repr__(self) -> str:
        body = np.array2string(self.to_numpy(), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name})"

    def __str__(self) -> str:
        return str(self.to_numpy())

    def __bool__(self) -> bool:
        return bool(self.to_numpy())

    def __int__(self) -> int:
        return int(self.to_numpy())

    def __float__(self) -> float:
        return float(self.to_numpy())

    def __index__(self) -> int:
        return operator.index(self.to_numpy().item())

    def __iter__(self) -> Iterator[NDArray]:
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return iter(list(self.to_numpy()))

    def __hash__(self) -> int:
        raise TypeError("typedax arrays are unhashable")
