"""The array surface shared by tracers and device arrays: ``shape``,
``dtype``, ``ndim``, ``size``, ``len`` and the Python operators, which follow
``typedax.numpy`` (NumPy promotion and broadcasting)."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, Self, cast

import numpy as np

from .avals import ShapedArray
from .dtypes import DType

if TYPE_CHECKING:
    from .trace import Value


class _NumpyOps(Protocol):
    """The ``typedax.numpy`` functions that the operators call."""

    def negative(self, x: Value, /) -> Value: ...
    def add(self, x: Value, y: Value, /) -> Value: ...
    def subtract(self, x: Value, y: Value, /) -> Value: ...
    def multiply(self, x: Value, y: Value, /) -> Value: ...
    def divide(self, x: Value, y: Value, /) -> Value: ...
    def power(self, x: Value, y: Value, /) -> Value: ...
    def matmul(self, x: Value, y: Value, /) -> Value: ...
    def greater(self, x: Value, y: Value, /) -> Value: ...
    def less(self, x: Value, y: Value, /) -> Value: ...
    def greater_equal(self, x: Value, y: Value, /) -> Value: ...
    def less_equal(self, x: Value, y: Value, /) -> Value: ...
    def equal(self, x: Value, y: Value, /) -> Value: ...
    def not_equal(self, x: Value, y: Value, /) -> Value: ...
    def transpose(self, x: Value, axes: Sequence[int] | None = None, /) -> Value: ...
    def reshape(self, x: Value, shape: Sequence[int] | int, /) -> Value: ...
    def sum(self, x: Value, axis: int | Sequence[int] | None = None, /) -> Value: ...
    def astype(self, x: Value, dtype: DType | type, /) -> Value: ...


# ``typedax.numpy`` imports this module, so the operators find it lazily; once
# found it is kept here (a function-level import costs ~0.3 us per operator).
_TNP: _NumpyOps | None = None


def _load_numpy() -> _NumpyOps:
    global _TNP
    from .. import numpy as tnp

    _TNP = tnp
    return tnp


def _value(x: object) -> Value:
    # ArrayOps has exactly two subclasses, Tracer and Array, both in Value.
    return cast("Value", x)


class ArrayOps(abc.ABC):
    """Mixin: everything an array-like derives from its ``aval``."""

    __slots__ = ()
    __array_priority__ = 1000

    @property
    @abc.abstractmethod
    def aval(self) -> ShapedArray: ...

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

    # -- operators (NumPy semantics: promotion and broadcasting) ----------
    def __neg__(self) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.negative(_value(self))

    def __pos__(self) -> Self:
        return self

    def __add__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.add(_value(self), other)

    def __radd__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.add(other, _value(self))

    def __sub__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.subtract(_value(self), other)

    def __rsub__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.subtract(other, _value(self))

    def __mul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.multiply(_value(self), other)

    def __rmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.multiply(other, _value(self))

    def __truediv__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.divide(_value(self), other)

    def __rtruediv__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.divide(other, _value(self))

    def __pow__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.power(_value(self), other)

    def __rpow__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.power(other, _value(self))

    def __matmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.matmul(_value(self), other)

    def __rmatmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.matmul(other, _value(self))

    def __gt__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.greater(_value(self), other)

    def __lt__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.less(_value(self), other)

    def __ge__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.greater_equal(_value(self), other)

    def __le__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.less_equal(_value(self), other)

    def __eq__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        tnp = _TNP or _load_numpy()
        if not isinstance(other, (ArrayOps, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.equal(_value(self), _value(other))

    def __ne__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        tnp = _TNP or _load_numpy()
        if not isinstance(other, (ArrayOps, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.not_equal(_value(self), _value(other))

    @property
    def T(self) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.transpose(_value(self))

    def reshape(self, *shape: int | tuple[int, ...]) -> Value:
        tnp = _TNP or _load_numpy()
        first = shape[0] if len(shape) == 1 else None
        if isinstance(first, tuple):
            return tnp.reshape(_value(self), first)
        return tnp.reshape(_value(self), [d for d in shape if isinstance(d, int)])

    def sum(self, axis: int | tuple[int, ...] | None = None) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.sum(_value(self), axis)

    def astype(self, dtype: DType | type) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.astype(_value(self), dtype)
