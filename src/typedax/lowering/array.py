"""``Array``: an array that lives on the device.

Results of compiled computations are ``Array``s and stay on the device until
NumPy asks for them (``np.asarray``, ``repr``, ``float`` ...). Python
operators follow ``typedax.numpy`` (promotion and broadcasting), like a
tracer's; outside a transformation they evaluate with NumPy.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import TYPE_CHECKING, Self

import numpy as np
from jaxlib import _jax

from ..core.avals import ShapedArray
from ..core.dtypes import DType
from ..core.ir import NDArray

if TYPE_CHECKING:
    from ..core.trace import Value

_AVAL_KEYS: dict[ShapedArray, int] = {}


def aval_key(aval: ShapedArray) -> int:
    """A small int standing for ``aval`` (cheap to hash in dispatch keys)."""
    k = _AVAL_KEYS.get(aval)
    if k is None:
        k = _AVAL_KEYS.setdefault(aval, len(_AVAL_KEYS))
    return k


class Array:
    """A device-resident array of type ``aval``. Immutable."""

    __slots__ = ("_buf", "aval", "_tdx_key")
    __array_priority__ = 1000

    _buf: _jax.Array
    aval: ShapedArray
    _tdx_key: int

    def __init__(self, buf: _jax.Array, aval: ShapedArray, key: int | None = None) -> None:
        self._buf = buf
        self.aval = aval
        self._tdx_key = aval_key(aval) if key is None else key

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> DType:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of a 0-d array")
        return self.aval.shape[0]

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

    # -- operators (NumPy semantics, via typedax.numpy) ------------------------
    def __neg__(self) -> Value:
        from .. import numpy as tnp

        return tnp.negative(self)

    def __pos__(self) -> Self:
        return self

    def __add__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.add(self, other)

    def __radd__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.add(other, self)

    def __sub__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.subtract(self, other)

    def __rsub__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.subtract(other, self)

    def __mul__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.multiply(self, other)

    def __rmul__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.multiply(other, self)

    def __truediv__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.divide(self, other)

    def __rtruediv__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.divide(other, self)

    def __pow__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.power(self, other)

    def __rpow__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.power(other, self)

    def __matmul__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.matmul(self, other)

    def __rmatmul__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.matmul(other, self)

    def __gt__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.greater(self, other)

    def __lt__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.less(self, other)

    def __ge__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.greater_equal(self, other)

    def __le__(self, other: Value) -> Value:
        from .. import numpy as tnp

        return tnp.less_equal(self, other)

    def __eq__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        from .. import numpy as tnp
        from ..core.trace import Tracer

        if not isinstance(other, (Array, Tracer, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.equal(self, other)

    def __ne__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        from .. import numpy as tnp
        from ..core.trace import Tracer

        if not isinstance(other, (Array, Tracer, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.not_equal(self, other)

    @property
    def T(self) -> Value:
        from .. import numpy as tnp

        return tnp.transpose(self)

    def reshape(self, *shape: int | tuple[int, ...]) -> Value:
        from .. import numpy as tnp

        first = shape[0] if len(shape) == 1 else None
        if isinstance(first, tuple):
            return tnp.reshape(self, first)
        return tnp.reshape(self, [d for d in shape if isinstance(d, int)])

    def sum(self, axis: int | tuple[int, ...] | None = None) -> Value:
        from .. import numpy as tnp

        return tnp.sum(self, axis)

    def astype(self, dtype: DType | type) -> Value:
        from .. import numpy as tnp

        return tnp.astype(self, dtype)
